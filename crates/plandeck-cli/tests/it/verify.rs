//! `plandeck verify`, `plandeck hook claude-stop` and `plandeck hooks install --agent claude
//! --verify`, over a real temp repository and a Claude Code 2.1.328-shaped transcript.

use crate::common;

use std::path::{Path, PathBuf};

use common::plandeck;
use plandeck_core::config::Roots;
use plandeck_testkit::fixtures::{copy_tree_as, fixture, CLAUDE, GEMINI};
use plandeck_testkit::verify::{git_init, write_file, ClaudeSession};

const SESSION: &str = "9a1d7c3e-2222-4333-8444-a55566667777";
const PLAN: &str = "# Plan: add pagination\n\n\
1. Add `paginate` to `src/api.rs`\n\
2. Add a `Cursor` type in src/cursor.rs\n\
3. Run `cargo test`\n";

struct Setup {
    _dir: tempfile::TempDir,
    home: PathBuf,
    repo: PathBuf,
    s: ClaudeSession,
}

/// Approved plan; step 1 done and committed, an unplanned file, `cargo test` passed; step 2
/// missing.
fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().to_path_buf();
    let repo = home.join("work/api");
    let s = common::approved_and_partly_done(
        &home,
        SESSION,
        "plan-pagination-cli-kite",
        PLAN,
        "src/extra.rs",
    );
    Setup {
        _dir: dir,
        home,
        repo,
        s,
    }
}

#[test]
fn verify_json_is_the_issue_contract() {
    let t = setup();
    let plan = t.s.plan_path.to_string_lossy().into_owned();
    let (code, out, err) = plandeck(&t.home, &["verify", &plan, "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["plan"].as_str().unwrap().len(), 12);
    assert_eq!(v["approvedAt"], "2026-11-22T12:02:30.000Z");
    let statuses = statuses(&v);
    assert_eq!(statuses, vec!["done", "missing", "done"]);
    assert_eq!(v["steps"][0]["index"], 1);
    assert_eq!(v["steps"][0]["text"], "Add `paginate` to `src/api.rs`");
    assert!(v["steps"][0]["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["kind"] == "gitChange" && e["file"] == "src/api.rs"));
    assert!(v["steps"][2]["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["kind"] == "command" && e["exitCode"] == 0 && e["success"] == true));
    assert_eq!(v["unplanned"][0]["path"], "src/extra.rs");
    assert_eq!(v["tests"][0]["command"], "cargo test");
    assert_eq!(v["tests"][0]["passed"], true);
    // By id as well.
    let id = v["plan"].as_str().unwrap();
    let (code, out2, _) = plandeck(&t.home, &["verify", id, "--json"]);
    assert_eq!(code, 0);
    let v2: serde_json::Value = serde_json::from_str(&out2).unwrap();
    assert_eq!(v2["steps"], v["steps"]);
}

#[test]
fn verify_text_names_each_step_and_the_files_of_missing_ones() {
    let t = setup();
    let plan = t.s.plan_path.to_string_lossy().into_owned();
    let (code, out, err) = plandeck(&t.home, &["verify", &plan]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("  1. done"), "{out}");
    assert!(out.contains("  2. missing"), "{out}");
    assert!(out.contains("files: src/cursor.rs"), "{out}");
    assert!(out.contains("  3. done"), "{out}");
    assert!(out.contains("unplanned"), "{out}");
    assert!(out.contains("  src/extra.rs"), "{out}");
    // An override, shown as such; then cleared.
    let (code, out, err) = plandeck(
        &t.home,
        &[
            "verify",
            &plan,
            "--override",
            "2",
            "--status",
            "done",
            "--note",
            "in another crate",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            "  2. done         Add a `Cursor` type in src/cursor.rs (overridden; computed missing)"
        ),
        "{out}"
    );
    let (_, out, _) = plandeck(&t.home, &["verify", &plan, "--clear-override", "2"]);
    assert!(out.contains("  2. missing"), "{out}");
}

#[test]
fn verify_an_unknown_plan_says_so() {
    let t = setup();
    let (code, out, err) = plandeck(&t.home, &["verify", "0123456789ab", "--json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["error"]["kind"], "notFound");
    assert!(err.contains("No plan"), "{err}");
    let _ = &t.repo;
}

/// Runs the real binary's `hook claude-stop` with `stdin`; returns (code, stdout, stderr).
fn stop_hook(home: &Path, stdin: &[u8]) -> (i32, String, String) {
    let (code, out, err) = common::run_binary(home, &["hook", "claude-stop"], stdin);
    (
        code,
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}

/// The steps' statuses of a `verify --json` report, in order.
fn statuses(v: &serde_json::Value) -> Vec<&str> {
    v["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["status"].as_str().unwrap())
        .collect()
}

fn input(active: bool) -> Vec<u8> {
    plandeck_testkit::verify::stop_hook_input(
        SESSION,
        "/home/dev/.claude/projects/-home-dev-work-api/x.jsonl",
        active,
    )
}

#[test]
fn hook_claude_stop_blocks_once_never_when_closed_or_off() {
    let t = setup();
    // The window is not running: no block.
    let (code, out, err) = stop_hook(&t.home, &input(false));
    assert_eq!((code, out.as_str()), (0, ""));
    assert!(err.contains("not running"), "{err}");

    let _app = plandeck_core::gate::app_heartbeat(&Roots::under_home(&t.s.home)).unwrap();
    // Off by setting: no block.
    let settings = Roots::under_home(&t.s.home).settings_path();
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(&settings, "{\"verify\": {\"stopHook\": false}}\n").unwrap();
    let (code, out, err) = stop_hook(&t.home, &input(false));
    assert_eq!((code, out.as_str()), (0, ""));
    assert!(err.contains("verify.stopHook"), "{err}");
    std::fs::remove_file(&settings).unwrap();

    // Blocks, with the report naming the missing step.
    let (code, out, _) = stop_hook(&t.home, &input(false));
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["decision"], "block");
    let reason = v["reason"].as_str().unwrap();
    assert!(reason.contains("Step 2 (missing)"), "{reason}");
    assert!(reason.contains("src/cursor.rs"), "{reason}");
    // The model continued because of the hook and tried to stop with nothing changed: let go.
    let (code, out, err) = stop_hook(&t.home, &input(true));
    assert_eq!((code, out.as_str()), (0, ""));
    assert!(err.contains("already sent"), "{err}");

    // Once the step is done there is nothing to block on.
    write_file(&t.repo, "src/cursor.rs", "pub struct Cursor;\n");
    let (_, out, err) = stop_hook(&t.home, &input(true));
    assert_eq!(out, "", "{err}");
    let plan = t.s.plan_path.to_string_lossy().into_owned();
    let (_, out, _) = plandeck(&t.home, &["verify", &plan, "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["counts"]["done"], 3);
}

#[test]
fn hooks_install_verify_adds_the_stop_hook_shown_first() {
    let t = setup();
    let (code, out, err) = plandeck(
        &t.home,
        &["hooks", "install", "--agent", "claude", "--verify", "--yes"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("+  \"hooks\""), "the change is shown: {out}");
    assert!(out.contains("hook claude-stop"), "{out}");
    let settings = t.s.claude.join("settings.json");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert!(v["hooks"]["Stop"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .ends_with(" hook claude-stop"));
    let (code, out, _) = plandeck(
        &t.home,
        &["hooks", "install", "--agent", "claude", "--verify", "--yes"],
    );
    assert_eq!(code, 0);
    assert!(out.contains("already installed"), "{out}");
    let (code, _, err) = plandeck(
        &t.home,
        &["hooks", "install", "--agent", "gemini", "--verify", "--yes"],
    );
    assert_eq!(code, 2);
    assert!(err.contains("--agent claude"), "{err}");
    let (code, _, err) = plandeck(
        &t.home,
        &[
            "hooks",
            "uninstall",
            "--agent",
            "claude",
            "--verify",
            "--yes",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), "{}\n");
}

#[test]
fn the_recorded_sessions_approvals_are_found_claude_edited_and_gemini() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    copy_tree_as(&fixture(CLAUDE), &home.join(".claude"), home);
    copy_tree_as(&fixture(GEMINI), &home.join(".gemini"), home);
    // The sessions' folders, as repositories committed before the approvals.
    let api = home.join("work/api");
    git_init(&api, &[("src/api.rs", "pub fn list() {}\n")], 0);
    write_file(&api, "src/api.rs", "pub fn list() {}\npub struct Cursor;\n");
    let gem = home.join("work/gemproj");
    git_init(&gem, &[("api.py", "def list(): pass\n")], 0);
    write_file(&gem, "api.py", "def list(page, limit): pass\n");

    // Claude Code: approved in the terminal after the plan was edited on disk; the approved
    // text is the edited one.
    let plan = home.join(".claude/plans/plan-pagination-seven-cozy-yeti.md");
    let (code, out, err) = plandeck(home, &["verify", plan.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["approvedAt"], "2026-11-22T12:03:24.758Z");
    assert_eq!(v["approval"]["source"], "transcript");
    assert_eq!(v["approval"]["decidedIn"], "terminal");
    assert_eq!(v["base"]["kind"], "approvalHead");
    assert_eq!(v["steps"].as_array().unwrap().len(), 1);
    assert_eq!(v["steps"][0]["text"], "cursor only");
    assert_eq!(v["steps"][0]["status"], "unverifiable");
    assert_eq!(v["unplanned"][0]["path"], "src/api.rs");

    // Gemini CLI: "Plan approved" in the chat; `page` and `limit` changed, no test run yet.
    let plan =
        home.join(".gemini/tmp/gemproj/c76f8969-6e57-4aca-b93f-75bfc80d94ca/plans/pagination.md");
    let (code, out, err) = plandeck(home, &["verify", plan.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["approvedAt"], "2026-11-22T12:30:15.454Z", "{v:#}");
    let statuses = statuses(&v);
    assert_eq!(statuses, vec!["done", "unverifiable", "missing"], "{v:#}");
    assert!(v["steps"][0]["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["kind"] == "gitChange" && e["file"] == "api.py"));
}

#[test]
fn every_recorded_plan_of_every_agent_gives_a_report() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    plandeck_testkit::fixtures::agents_as(home);
    let (code, out, err) = plandeck(home, &["plans", "list", "--json"]);
    assert_eq!(code, 0, "{err}");
    let plans: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
    let mut agents = std::collections::BTreeSet::new();
    for p in &plans {
        let id = p["id"].as_str().unwrap();
        let (code, out, err) = plandeck(home, &["verify", id, "--json"]);
        assert_eq!(code, 0, "{id}: {err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        agents.insert(v["agent"].as_str().unwrap().to_owned());
        // No session folder exists here: nothing can be done.
        assert!(v["steps"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["status"] != "done"));
        let (code, _, err) = plandeck(home, &["verify", id]);
        assert_eq!(code, 0, "{id}: {err}");
    }
    assert_eq!(
        agents.into_iter().collect::<Vec<_>>(),
        vec!["claude", "codex", "gemini"]
    );
}
