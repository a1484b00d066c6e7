//! `plandeck sessions list` over temp homes.

use crate::common;
use common::plandeck;

#[test]
fn sessions_list_json_has_the_contract_fields() {
    let home = tempfile::tempdir().unwrap();
    // A running session (this process), no request in the gate: the plan is decided by path.
    let demo = plandeck_core::demo::create_with(home.path(), Some(std::process::id())).unwrap();
    let (code, out, err) = plandeck(&demo.home, &["sessions", "list", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let list = v.as_array().unwrap();
    assert_eq!(list.len(), 4);
    for s in list {
        for key in [
            "agent",
            "sessionId",
            "cwd",
            "state",
            "permissionMode",
            "planPath",
            "worktree",
            "lastActivity",
            "gitBranch",
            "tmuxPane",
            "pid",
            "version",
            "model",
            "title",
            "unreadableLines",
            "tasks",
            "transcriptPath",
            "reviewState",
            "usage",
        ] {
            assert!(s.get(key).is_some(), "{key} missing in {s}");
        }
    }
    assert_eq!(list[0]["state"], "waiting_for_approval");
    assert_eq!(list[1]["state"], "waiting_for_approval");
    let claude = list
        .iter()
        .find(|s| s["agent"] == "claude" && s["state"] == "waiting_for_approval")
        .unwrap();
    assert_eq!(claude["permissionMode"], "plan");
    assert!(claude["planPath"]
        .as_str()
        .unwrap()
        .ends_with("shop-pagination-brisk-otter.md"));
    assert_eq!(claude["reviewState"], "unreviewed");
    assert!(list
        .iter()
        .any(|s| s["agent"] == "codex" && s["state"] == "ended"));

    // The session's plan shows the decision taken a moment ago, and a change made since.
    let plan = claude["planPath"].as_str().unwrap();
    let (code, _, err) = plandeck(&demo.home, &["approve", plan]);
    assert_eq!(code, 0, "{err}");
    let review = |home: &std::path::Path| {
        let (_, out, _) = plandeck(home, &["sessions", "list", "--json"]);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        v.as_array()
            .unwrap()
            .iter()
            .find(|s| s["planPath"] == plan)
            .unwrap()["reviewState"]
            .clone()
    };
    assert_eq!(review(&demo.home), "approved");
    std::fs::write(plan, "# Plan: something else\n").unwrap();
    assert_eq!(review(&demo.home), "changed");
}

#[test]
fn sessions_list_text_and_empty_home() {
    let home = tempfile::tempdir().unwrap();
    let (code, out, _) = plandeck(home.path(), &["sessions", "list"]);
    assert_eq!(code, 0);
    assert!(out.contains("No agent sessions found"), "{out}");
    let (code, out, _) = plandeck(home.path(), &["sessions", "list", "--json"]);
    assert_eq!((code, out.trim()), (0, "[]"));

    let demo = plandeck_core::demo::create(home.path()).unwrap();
    let (code, out, _) = plandeck(&demo.home, &["sessions", "list"]);
    assert_eq!(code, 0);
    let first = out.lines().nth(1).unwrap();
    assert!(first.starts_with("waiting_for_approval"), "{out}");
    assert!(out.contains("~/work/shop"), "{out}");
    assert!(
        out.contains("\"plan cursor pagination for the orders endpoint\""),
        "{out}"
    );
}

/// `usage` from the agents' own records, in the contract's names: Claude Code's `cost-state`
/// totals with the cost, Codex CLI's `token_count` totals with none.
#[test]
fn sessions_list_json_has_the_tokens_the_records_tell() {
    use plandeck_testkit::fixtures::{copy_tree, fixture, CLAUDE, CODEX};
    let home = tempfile::tempdir().unwrap();
    copy_tree(&fixture(CLAUDE), &home.path().join(".claude"));
    copy_tree(
        &fixture(CODEX).join("sessions"),
        &home.path().join(".codex/sessions"),
    );
    let (code, out, err) = plandeck(home.path(), &["sessions", "list", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let row = |prefix: &str| {
        v.as_array()
            .unwrap()
            .iter()
            .find(|s| s["sessionId"].as_str().unwrap().starts_with(prefix))
            .unwrap_or_else(|| panic!("no session {prefix} in {out}"))
            .clone()
    };
    assert_eq!(
        row("616b9e27")["usage"],
        serde_json::json!({"inputTokens": 30, "outputTokens": 30, "costUsd": 0.00072, "partial": false})
    );
    assert_eq!(
        row("01a207a7-dafa")["usage"],
        serde_json::json!({"inputTokens": 30, "outputTokens": 30, "costUsd": null, "partial": false})
    );
}
