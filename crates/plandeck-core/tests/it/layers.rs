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
    // Where this user's server keeps its files, whether it runs, how it is started.
    "daemon_home",
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
    // Agents that speak ACP: the protocol client and its permission requests.
    "acp",
    // Deciding from a paired phone: signed decisions through the gate's claim, its HTTPS page.
    "phone",
    "verify",
    "worktrees",
    "route",
    // Live terminal views of agents' panes.
    "mirror",
    // Starting and steering agents in tmux.
    "control",
    // Each agent's behaviour in its folder (`agents/<agent>/*.rs` but its `mod.rs`, and the
    // traits in `agents/*.rs`): built on the gate, control and the records it drives. The rest of
    // core reaches it through the traits' registration in `agents/mod.rs` (`agents::driver`), the
    // one place a lower module hands a call up.
    "drivers",
    // What joins them, the live handle, and the IPC surface.
    "standing",
    "overview",
    "demo",
    "elsewhere",
    "live",
    "bindings",
    "ipc_table",
    // The wire: frames and events' names, below the deck, read by the server and its client.
    "wire",
    "deck",
    // The client of another machine over SSH, then the window's calls over a byte stream: the
    // client stands on the wire, never on the server.
    "remote",
    "machines",
    "phone_elsewhere",
    // What a window holds: its roots, their live state, the machines.
    "workspace",
    "serve",
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

/// The layer a file is in: its top-level module, but for the agents' behaviour (every file under
/// `agents/` other than `agents/mod.rs`, `agents/<agent>/mod.rs`, the records' vocabulary in
/// `agents/records/` and their tests), which is `drivers`.
fn module_of(rel: &Path, first: &str) -> String {
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let data = match parts.as_slice() {
        [_, file] => file == "mod.rs",
        [_, dir, file] => file == "mod.rs" || dir == "records",
        _ => false,
    };
    if first == "agents" && !data {
        return "drivers".to_owned();
    }
    first.to_owned()
}

/// `from → {to}` for every top-level module of the crate (and `drivers`, [`module_of`]).
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
        let module = module_of(rel, first.trim_end_matches(".rs"));
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
            // `crate::name!` is a macro exported at the crate's root, not a module.
            let macro_call = text[i + 7 + name.len()..].starts_with('!');
            let same = name == module || (module == "drivers" && name == "agents");
            if !name.is_empty() && !same && !macro_call {
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
    // An agent's behaviour is the drivers layer; its data (`agents/<agent>/mod.rs`) stays low.
    assert!(edges["drivers"].contains("gate"), "{:?}", edges["drivers"]);
    assert!(!edges["agents"].contains("gate"), "{:?}", edges["agents"]);
}

/// Where an agent's behaviour lives; the one registration of each trait is there too.
const AGENTS: &str = "crates/plandeck-core/src/agents/";

/// The variants that name one agent (`Agent::Other` names none).
const VARIANTS: &[&str] = &["Agent::Claude", "Agent::Gemini", "Agent::Codex"];

/// The variants `code` names (`MyAgent::Claude` is not one).
fn named_variants(code: &str) -> Vec<&'static str> {
    VARIANTS
        .iter()
        .copied()
        .filter(|v| {
            code.match_indices(v).any(|(i, _)| {
                let before = code[..i].chars().last();
                let after = code[i + v.len()..].chars().next();
                let ident = |c: char| c.is_alphanumeric() || c == '_';
                !before.is_some_and(ident) && !after.is_some_and(ident)
            })
        })
        .collect()
}

/// Every production source file of the core, the CLI and the shell (test files left out), sorted,
/// with its path from the repository's `root`.
pub(crate) fn production_files(root: &Path) -> Vec<(String, PathBuf)> {
    let mut files = Vec::new();
    for dir in [
        "crates/plandeck-core/src",
        "crates/plandeck-cli/src",
        "src-tauri",
    ] {
        sources(&root.join(dir), &mut files);
    }
    files.sort();
    files
        .into_iter()
        .filter(|f| !is_test_file(f))
        .map(|f| {
            let rel = f.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            (rel, f)
        })
        .collect()
}

/// Every production file outside `agents/` that names an agent variant, with the variants it
/// names.
fn agent_namers(root: &Path) -> Vec<(String, Vec<&'static str>)> {
    let mut found = Vec::new();
    for (rel, file) in production_files(root) {
        if rel.starts_with(AGENTS) {
            continue;
        }
        let named = named_variants(&production(&std::fs::read_to_string(&file).unwrap()));
        if !named.is_empty() {
            found.push((rel, named));
        }
    }
    found
}

/// Issue 35: an agent's behaviour is in its folder (`agents/<agent>/`), reached through the
/// traits its registration hands out; the rest of the code never names one agent, so adding an
/// agent touches its folder and the registration only.
#[test]
fn only_the_agents_folder_names_an_agent() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let root = root.canonicalize().unwrap();
    assert!(
        root.join(AGENTS).join("mod.rs").is_file(),
        "{}",
        root.display()
    );
    let found = agent_namers(&root);
    assert!(
        found.is_empty(),
        "files outside {AGENTS} that name an agent (call the agent's trait from \
         crate::agents instead): {found:?}"
    );
}

#[test]
fn the_agent_reader_sees_variants_and_skips_comments_and_tests() {
    let code = "let a = Agent::Codex; // Agent::Claude\nlet b = MyAgent::Gemini;\n#[cfg(test)]\nmod tests { Agent::Gemini }";
    assert_eq!(named_variants(&production(code)), ["Agent::Codex"]);
    assert!(named_variants("Agent::Other, Agent::Claudes").is_empty());
}
