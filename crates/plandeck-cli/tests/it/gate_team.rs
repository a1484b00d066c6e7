//! The teammate gate through the real binary: `plandeck hook claude-team` fed the hook inputs
//! Claude Code 2.1.328 sent for a teammate's `ExitPlanMode` (in-process and in its own pane,
//! `tests/fixtures/claude-code-2.1.328/hook-input/`), decided with `plandeck approve|reject`.

use crate::common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use common::plandeck;
use plandeck_core::config::Roots;
use plandeck_core::gate;

use plandeck_testkit::fixtures::{claude_hook_input as fixture, claude_hook_input_as};
use plandeck_testkit::wait_for;

struct Home {
    _temp: plandeck_testkit::home::Home,
    home: PathBuf,
    roots: Roots,
}

fn home() -> Home {
    let temp = plandeck_testkit::home::Home::new();
    Home {
        home: temp.path.clone(),
        roots: Roots::under_home(&temp.path),
        _temp: temp,
    }
}

impl Home {
    /// The fixture `name` with `/home/dev` under this home, and its plan file written.
    fn input(&self, name: &str) -> String {
        let text = claude_hook_input_as(name, &self.home);
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        if let Some(path) = v["tool_input"]["planFilePath"].as_str() {
            std::fs::create_dir_all(Path::new(path).parent().unwrap()).unwrap();
            std::fs::write(path, v["tool_input"]["plan"].as_str().unwrap()).unwrap();
        }
        text
    }

    fn command(&self, program: &Path) -> Command {
        let mut cmd = Command::new(program);
        cmd.env_clear()
            .env("HOME", &self.home)
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd
    }

    /// The hook started by this test (no `--agent-id` among its parent's arguments).
    fn hook(&self, input: &str) -> Child {
        let mut cmd = self.command(Path::new(env!("CARGO_BIN_EXE_plandeck-cli")));
        cmd.args(["hook", "claude-team"]);
        feed(cmd.spawn().unwrap(), input)
    }

    /// The hook started as a teammate in its own pane starts it: by a process whose arguments are
    /// the ones Claude Code 2.1.328 gave its pane teammate (`perl` stands in for it: not a shell,
    /// so the hook takes it for the agent).
    fn hook_under_pane_teammate(&self, input: &str) -> Child {
        let mut cmd = self.command(Path::new("perl"));
        cmd.args([
            "-e",
            "exit(system($ARGV[0], 'hook', 'claude-team') >> 8)",
            env!("CARGO_BIN_EXE_plandeck-cli"),
        ]);
        cmd.args(fixture("teammate-pane-process-args.txt").lines().skip(1));
        feed(cmd.spawn().unwrap(), input)
    }

    fn pending(&self) -> Vec<serde_json::Value> {
        let (code, out, err) = plandeck(&self.home, &["pending", "--json"]);
        assert_eq!(code, 0, "{err}");
        serde_json::from_str(&out).unwrap()
    }

    /// Waits for the one request the hook filed (as `plandeck pending --json` lists it).
    fn filed(&self) -> serde_json::Value {
        wait_for("the request the hook filed", || {
            self.pending().into_iter().next()
        })
    }

    /// Fails when a request was ever filed (waiting, decided or timed out): a hook that files
    /// none never held the call, whatever its deadline.
    #[track_caller]
    fn never_filed(&self) {
        let gate = self.roots.data.join("gate");
        for dir in [gate.join("requests"), gate.join("done")] {
            let files = std::fs::read_dir(&dir).map_or(0, |d| d.count());
            assert_eq!(files, 0, "something was filed in {}", dir.display());
        }
    }
}

fn feed(mut child: Child, input: &str) -> Child {
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child
}

/// The hook's answer (stdout) and its stderr, once it ended.
fn answer(child: Child) -> (Option<serde_json::Value>, String) {
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    let v = (!stdout.is_empty()).then(|| serde_json::from_str(&stdout).unwrap());
    (v, stderr)
}

#[test]
fn an_in_process_teammate_is_held_until_rejected_and_gets_the_feedback_and_open_comments() {
    let h = home();
    let _app = gate::app_heartbeat(&h.roots).unwrap();
    let hook = h.hook(&h.input("pre-tool-use-exit-plan-mode-teammate-in-process.json"));
    let req = h.filed();
    // The `--json` contract: the new fields beside the old ones.
    assert_eq!(req["agent"], "claude");
    assert_eq!(req["teammate"], "planner");
    assert_eq!(req["leadSessionId"], "b6004b4f-2c90-4383-92a5-43165d94a013");
    assert_eq!(req["sessionId"], "b6004b4f-2c90-4383-92a5-43165d94a013");
    assert!(req["planPath"]
        .as_str()
        .unwrap()
        .ends_with("-agent-aplanner-576dc0bc00f0cd93.md"));
    assert_eq!(req["tmuxPane"], serde_json::Value::Null);
    let id = req["id"].as_str().unwrap();
    // An open comment on the teammate's plan goes with the rejection.
    let plan = req["planPath"].as_str().unwrap();
    let (code, _, err) = plandeck(
        &h.home,
        &[
            "comment",
            plan,
            "--quote",
            "Return a cursor",
            "--text",
            "Opaque cursors only.",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = plandeck(
        &h.home,
        &["reject", id, "--feedback", "Cursor pagination only."],
    );
    assert_eq!(code, 0, "{out}{err}");
    let (v, _) = answer(hook);
    let v = v.expect("an answer");
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PreToolUse");
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
    assert_eq!(
        v["hookSpecificOutput"]["permissionDecisionReason"],
        "Cursor pagination only.\n\nComment on the plan (1), each on the quoted text:\n\n\
         1. On \"Return a cursor\":\n   Opaque cursors only."
    );
    assert!(h.pending().is_empty());
}

#[test]
fn a_pane_teammate_is_held_until_approved_with_an_edit_which_is_its_plan_file_then() {
    let h = home();
    let _app = gate::app_heartbeat(&h.roots).unwrap();
    let input = h.input("pre-tool-use-exit-plan-mode-teammate-pane.json");
    let hook = h.hook_under_pane_teammate(&input);
    let req = h.filed();
    assert_eq!(req["team"], "session-4b87e72c");
    assert_eq!(req["teammate"], "planner");
    assert_eq!(req["leadSessionId"], "4b87e72c-17f0-455d-b7a6-8b41f610789d");
    let (_, text, _) = plandeck(&h.home, &["pending"]);
    assert!(
        text.contains("teammate planner of team session-4b87e72c  lead session 4b87e72c-17f0"),
        "{text}"
    );
    let plan_path = req["planPath"].as_str().unwrap().to_owned();
    let edited = "# Plan: cursors only\n\n1. Return a cursor\n";
    let file = h.home.join("edited.md");
    std::fs::write(&file, edited).unwrap();
    let id = req["id"].as_str().unwrap();
    let (code, out, err) = plandeck(
        &h.home,
        &["approve", id, "--edit", file.to_str().unwrap(), "--json"],
    );
    assert_eq!(code, 0, "{out}{err}");
    let outcome: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(outcome["status"], "approved");
    let (v, _) = answer(hook);
    let v = v.expect("an answer");
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "allow");
    assert_eq!(v["hookSpecificOutput"]["updatedInput"]["plan"], edited);
    // Claude Code sends the lead the plan file: it holds the edit.
    assert_eq!(std::fs::read_to_string(&plan_path).unwrap(), edited);
}

#[test]
fn the_leads_own_call_and_a_closed_plandeck_are_never_held() {
    let h = home();
    // The lead: the pane input with no teammate arguments around the hook.
    {
        let _app = gate::app_heartbeat(&h.roots).unwrap();
        let (v, err) = answer(h.hook(&h.input("pre-tool-use-exit-plan-mode-teammate-pane.json")));
        assert_eq!(v, None, "no decision for the lead: {err}");
        assert!(err.contains("not a teammate"), "{err}");
        // Never filed, so never held.
        h.never_filed();
    }
    // A teammate while Plandeck is not running: no hold, no decision.
    let (v, err) = answer(h.hook(&h.input("pre-tool-use-exit-plan-mode-teammate-in-process.json")));
    assert_eq!(v, None, "{err}");
    assert!(err.contains("not running"), "{err}");
    h.never_filed();
}

#[test]
fn hooks_install_team_shows_then_writes_the_teammate_gate_and_uninstall_takes_it_out() {
    let h = home();
    let settings = h.home.join(".claude/settings.json");
    let (code, out, err) = plandeck(
        &h.home,
        &["hooks", "install", "--agent", "claude", "--team", "--yes"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("PreToolUse"), "the change is shown: {out}");
    assert!(out.contains("onFailure"), "{out}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    let hook = &v["hooks"]["PreToolUse"][0]["hooks"][0];
    assert!(hook["command"]
        .as_str()
        .unwrap()
        .ends_with(" hook claude-team"));
    assert_eq!(hook["onFailure"], "block");
    let (code, _, err) = plandeck(
        &h.home,
        &["hooks", "uninstall", "--agent", "claude", "--team", "--yes"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(!std::fs::read_to_string(&settings)
        .unwrap()
        .contains("claude-team"));
    let (code, out, _) = plandeck(
        &h.home,
        &["hooks", "install", "--agent", "gemini", "--team", "--yes"],
    );
    assert_ne!(code, 0, "{out}");
}
