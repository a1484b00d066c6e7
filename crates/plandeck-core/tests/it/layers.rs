//! The core's modules stand in layers: a module may use the ones below it, never one above, so
//! there is no import circle. This test reads every production source file of the crate (tests
//! and comments left out), finds each `crate::<module>` it names, and fails on an import that runs
//! up the order below.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Lowest first. A new module gets its place here.
const LAYERS: &[&str] = &[
    // Foundations: no domain.
    "sync",
    "plan_state",
    "durable",
    "stamped",
    "timestamp",
    "ids",
    "words",
    "shell",
    "visible",
    "config",
    "ipc",
    "watch",
    "render",
    "links",
    "process",
    "terminal",
    // Each agent's home, and the hooks Plandeck installs into their settings.
    "agents",
    "hooks",
    // The agents' files, then what is built on them.
    "sessions",
    "plans",
    "review",
    "comments",
    "history",
    "gate",
    // Deciding from a paired phone: signed decisions through the gate's claim, its HTTPS page.
    "phone",
    "verify",
    "worktrees",
    "route",
    // Live terminal views of agents' panes.
    "mirror",
    // Starting and steering agents in tmux.
    "control",
    // What joins them, the live handle, and the IPC surface.
    "standing",
    "overview",
    "demo",
    "elsewhere",
    "live",
    "deck",
    "bindings",
    "ipc_table",
    // The window's calls over a byte stream, and its client: another machine over SSH.
    "serve",
    "remote",
    "machines",
];

/// Every `.rs` file under `dir` (build output and generated folders left out); a folder that
/// cannot be read fails the test.
pub(crate) fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        let skipped = path
            .file_name()
            .is_some_and(|n| n == "target" || n == "gen" || n == "node_modules");
        if path.is_dir() && !skipped {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// A file's production code: comments and a trailing `#[cfg(test)] mod tests` left out.
pub(crate) fn production(text: &str) -> String {
    let code = match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => &text[..i],
        None => text,
    };
    code.lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_test_file(path: &Path) -> bool {
    let name = path.file_stem().and_then(|n| n.to_str()).unwrap_or("");
    name == "tests" || name.ends_with("_tests")
}

/// `from → {to}` for every top-level module of the crate.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let rel = file.strip_prefix(&src).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let module = first.trim_end_matches(".rs").to_owned();
        if module == "lib" || is_test_file(&file) {
            continue;
        }
        let text = production(&std::fs::read_to_string(&file).unwrap());
        let uses = edges.entry(module.clone()).or_default();
        for (i, _) in text.match_indices("crate::") {
            let before = text[..i].chars().last();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue; // `plandeck_crate::` is not this crate (`$crate::` is)
            }
            let name: String = text[i + 7..]
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            if !name.is_empty() && name != module {
                uses.insert(name);
            }
        }
    }
    edges
}

#[test]
fn no_import_runs_up_the_layers() {
    let edges = imports();
    let rank = |m: &str| {
        LAYERS
            .iter()
            .position(|l| *l == m)
            .unwrap_or_else(|| panic!("module {m} has no place in LAYERS (tests/it/layers.rs)"))
    };
    let mut up = BTreeSet::new();
    for (from, tos) in &edges {
        for to in tos {
            if rank(to) > rank(from) {
                up.insert((from.as_str(), to.as_str()));
            }
        }
    }
    assert!(
        up.is_empty(),
        "imports that run up the layers (a module may only use the ones below it): {up:?}"
    );
}

#[test]
fn the_reader_sees_imports_and_skips_comments_and_tests() {
    let code = "use crate::plans::x; // crate::gate\nfn f() { $crate::live::y(); }\n#[cfg(test)]\nmod tests { use crate::verify; }";
    let text = production(code);
    assert!(text.contains("crate::plans"));
    assert!(!text.contains("crate::gate") && !text.contains("crate::verify"));
    let edges = imports();
    assert!(edges["history"].contains("plans"), "{:?}", edges["history"]);
    assert!(!edges["durable"].iter().any(|m| m == "gate"));
}
