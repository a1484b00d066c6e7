//! `plandeck demo` never touches the person's own store: the workspace it creates resolves every
//! root and Plandeck's store inside itself, even when the environment names the person's folders
//! (`XDG_DATA_HOME`, `XDG_CONFIG_HOME`, `CLAUDE_CONFIG_DIR`, `CODEX_HOME`), so decisions and
//! comments made on the demo with `HOME=<demo> plandeck …` land in the demo only.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::common;
use common::plandeck_in as plandeck;

/// Every file under `dir` with its bytes (folders as empty entries).
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if e.file_type().unwrap().is_dir() {
                out.insert(p.clone(), Vec::new());
                stack.push(p);
            } else {
                out.insert(p.clone(), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

#[test]
fn decisions_and_comments_on_the_demo_never_reach_the_persons_store() {
    let me = tempfile::tempdir().unwrap();
    let home = me.path();
    // The person's own store, settings and agents' folders, named by the environment.
    let (data, config, claude, codex) = (
        home.join("xdg-data"),
        home.join("xdg-config"),
        home.join("claude-config"),
        home.join("codex-home"),
    );
    std::fs::create_dir_all(data.join("plandeck")).unwrap();
    std::fs::write(data.join("plandeck/decisions.jsonl"), "{\"mine\":true}\n").unwrap();
    std::fs::create_dir_all(config.join("plandeck")).unwrap();
    std::fs::write(config.join("plandeck/settings.json"), "{}\n").unwrap();
    std::fs::create_dir_all(claude.join("plans")).unwrap();
    std::fs::write(claude.join("plans/mine.md"), "# Mine\n").unwrap();
    std::fs::create_dir_all(&codex).unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let vars = |h: &str| -> Vec<(&'static str, String)> {
        vec![
            ("HOME", h.to_owned()),
            ("XDG_DATA_HOME", data.display().to_string()),
            ("XDG_CONFIG_HOME", config.display().to_string()),
            ("CLAUDE_CONFIG_DIR", claude.display().to_string()),
            ("CODEX_HOME", codex.display().to_string()),
        ]
    };
    let before = tree(home);

    let mine = vars(home.to_str().unwrap());
    let mine: Vec<(&str, &str)> = mine.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let (code, out, err) = plandeck(
        &mine,
        &["demo", "--into", scratch.path().to_str().unwrap(), "--json"],
    );
    assert_eq!(code, 0, "{err}");
    let ws: serde_json::Value = serde_json::from_str(&out).unwrap();
    let demo = PathBuf::from(ws["home"].as_str().unwrap());
    assert!(demo.starts_with(scratch.path()));

    // What the demo is then used with: its HOME, the rest of the person's environment.
    let in_demo = vars(demo.to_str().unwrap());
    let in_demo: Vec<(&str, &str)> = in_demo.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let (code, out, err) = plandeck(&in_demo, &["sources", "--json"]);
    assert_eq!(code, 0, "{err}");
    let sources: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(
        Path::new(sources["dataDir"].as_str().unwrap()).starts_with(&demo),
        "{out}"
    );
    let plan = demo.join(".claude/plans/shop-rate-limit-quiet-heron.md");
    let plan = plan.to_str().unwrap();
    let text = std::fs::read_to_string(plan).unwrap();
    let quote = text
        .lines()
        .find(|l| l.len() > 12 && !l.starts_with('#'))
        .unwrap();
    let (code, _, err) = plandeck(
        &in_demo,
        &["comment", plan, "--quote", quote.trim(), "--text", "why?"],
    );
    assert_eq!(code, 0, "comment: {err}");
    let (code, _, err) = plandeck(&in_demo, &["reject", plan, "--feedback", "smaller steps"]);
    assert_eq!(code, 0, "reject: {err}");
    let (code, _, err) = plandeck(&in_demo, &["approve", plan]);
    assert_eq!(code, 0, "approve: {err}");
    let (code, out, err) = plandeck(&in_demo, &["log", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("shop-rate-limit-quiet-heron"),
        "the demo has them: {out}"
    );

    assert!(
        before == tree(home),
        "the person's store, settings and agents' folders are unchanged"
    );
    assert!(demo.join(".local/share/plandeck").is_dir());
}
