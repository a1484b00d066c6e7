//! The CLI run in-process over temp homes.

use crate::common;
use common::plandeck;

#[test]
fn sources_json_lists_each_agent_root() {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".claude/plans")).unwrap();
    std::fs::write(home.path().join(".claude/plans/p.md"), "# P").unwrap();
    let (code, out, _) = plandeck(home.path(), &["sources", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let agents: Vec<_> = v["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["agent"].as_str().unwrap())
        .collect();
    assert_eq!(agents, ["claude", "gemini", "codex"]);
    assert_eq!(v["sources"][0]["folders"][0]["files"], 1);
}

#[test]
fn bad_settings_file_is_a_clear_error_with_json_shape() {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".config/plandeck")).unwrap();
    std::fs::write(home.path().join(".config/plandeck/settings.json"), "{oops").unwrap();
    let (code, out, err) = plandeck(home.path(), &["sources", "--json"]);
    assert_eq!(code, 2);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["error"]["kind"], "badInput");
    assert!(err.contains("settings.json"), "{err}");
}
