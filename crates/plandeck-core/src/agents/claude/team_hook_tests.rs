//! The teammate gate with the hook inputs Claude Code 2.1.328 sent
//! (`tests/fixtures/claude-code-2.1.328/hook-input/`), their `/home/dev` put under a temp home.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::*;
use crate::gate::store;
use crate::gate::{app_heartbeat, decide, ApproveMode};

use plandeck_testkit::fixtures::{claude_hook_input as fixture, claude_hook_input_as};

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
    /// The fixture `name` with its `/home/dev` under this home.
    fn input(&self, name: &str) -> String {
        claude_hook_input_as(name, &self.home)
    }

    fn parsed(&self, name: &str) -> Input {
        Input::parse(self.input(name).as_bytes(), "Claude Code").unwrap()
    }

    /// The in-process teammate's files as Claude Code left them: its `.meta.json` beside its
    /// transcript, its plan file, and the team's folder with its inboxes.
    fn in_process_files(&self) -> PathBuf {
        let input = self.parsed("pre-tool-use-exit-plan-mode-teammate-in-process.json");
        let lead = input.transcript_path.unwrap();
        let subagents = Path::new(lead.strip_suffix(".jsonl").unwrap()).join("subagents");
        std::fs::create_dir_all(&subagents).unwrap();
        std::fs::write(
            subagents.join("agent-aplanner-576dc0bc00f0cd93.meta.json"),
            fixture("teammate-in-process-agent.meta.json"),
        )
        .unwrap();
        std::fs::write(
            subagents.join("agent-aplanner-576dc0bc00f0cd93.jsonl"),
            "{}\n",
        )
        .unwrap();
        let plan = input.tool_input["planFilePath"]
            .as_str()
            .unwrap()
            .to_owned();
        std::fs::create_dir_all(Path::new(&plan).parent().unwrap()).unwrap();
        std::fs::write(&plan, input.tool_input["plan"].as_str().unwrap()).unwrap();
        let team = teams_dir(&self.roots).join("session-b6004b4f");
        std::fs::create_dir_all(team.join("inboxes")).unwrap();
        std::fs::write(team.join("config.json"), "{\"name\":\"session-b6004b4f\"}").unwrap();
        std::fs::write(team.join("inboxes/team-lead.json"), "[]").unwrap();
        std::fs::write(team.join("inboxes/planner.json"), "[]").unwrap();
        PathBuf::from(plan)
    }
}

/// Hook options for a hook run by this test: this process is the agent.
fn opts(deadline: Duration) -> HookOptions {
    HookOptions {
        deadline,
        hook_pid: std::process::id(),
        agent_pid: Some(std::process::id()),
        tmux_env: None,
    }
}

fn pane_args() -> Vec<String> {
    fixture("teammate-pane-process-args.txt")
        .lines()
        .map(str::to_owned)
        .collect()
}

fn answer_of(out: &HookOutcome) -> serde_json::Value {
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out:?}"))
}

/// Every file under `dir` with its bytes and modification time.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>, std::time::SystemTime)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(p) = stack.pop() {
        if p.is_dir() {
            for e in std::fs::read_dir(&p).unwrap() {
                stack.push(e.unwrap().path());
            }
        } else {
            let meta = std::fs::metadata(&p).unwrap();
            out.push((
                p.clone(),
                std::fs::read(&p).unwrap(),
                meta.modified().unwrap(),
            ));
        }
    }
    out.sort();
    out
}

/// Waits for the one request the hook filed.
fn filed(roots: &Roots) -> GateRequest {
    plandeck_testkit::wait_for("the request the hook filed", || {
        crate::gate::pending(roots).into_iter().next()
    })
}

/// Fails when a request was ever filed (waiting, decided or timed out): a hook that files none
/// never held the call, whatever its deadline.
#[track_caller]
fn never_filed(roots: &Roots) {
    for dir in [store::requests_dir(roots), store::done_dir(roots)] {
        let files = std::fs::read_dir(&dir).map_or(0, |d| d.count());
        assert_eq!(files, 0, "something was filed in {}", dir.display());
    }
}

#[test]
fn an_in_process_teammate_is_named_by_its_hook_input_and_its_meta() {
    let h = home();
    h.in_process_files();
    let input = h.parsed("pre-tool-use-exit-plan-mode-teammate-in-process.json");
    let mate = teammate_of(&input, &[]).expect("a teammate");
    assert_eq!(mate.name, "planner");
    assert_eq!(mate.team.as_deref(), Some("session-b6004b4f"));
    assert_eq!(
        mate.lead_session_id.as_deref(),
        Some("b6004b4f-2c90-4383-92a5-43165d94a013")
    );
    assert!(mate.in_process);
    assert!(mate.transcript.unwrap().ends_with(
        "/b6004b4f-2c90-4383-92a5-43165d94a013/subagents/agent-aplanner-576dc0bc00f0cd93.jsonl"
    ));

    // Without its meta (not written yet): the name from agent_type, no team.
    let bare = home();
    let mate = teammate_of(
        &bare.parsed("pre-tool-use-exit-plan-mode-teammate-in-process.json"),
        &[],
    )
    .unwrap();
    assert_eq!((mate.name.as_str(), mate.team), ("planner", None));
    assert_eq!(name_of_agent_id("aplanner-576dc0bc00f0cd93"), "planner");
    assert_eq!(name_of_agent_id("ab-c-0123456789abcdef"), "b-c");
}

#[test]
fn a_teammate_in_its_own_pane_is_named_by_its_process_arguments() {
    let h = home();
    let input = h.parsed("pre-tool-use-exit-plan-mode-teammate-pane.json");
    assert!(input.agent_id.is_none(), "pane mode sends no agent field");
    let mate = teammate_of(&input, &pane_args()).expect("a teammate");
    assert_eq!(mate.name, "planner");
    assert_eq!(mate.team.as_deref(), Some("session-4b87e72c"));
    assert_eq!(
        mate.lead_session_id.as_deref(),
        Some("4b87e72c-17f0-455d-b7a6-8b41f610789d")
    );
    assert!(!mate.in_process);
    assert_eq!(mate.transcript, input.transcript_path);
}

#[test]
fn the_leads_own_exit_plan_mode_is_left_at_once_with_no_decision() {
    let h = home();
    let _app = app_heartbeat(&h.roots).unwrap();
    let lead_args: Vec<String> = ["claude", "--permission-mode", "plan"]
        .map(str::to_owned)
        .to_vec();
    let input = h.parsed("pre-tool-use-exit-plan-mode-teammate-pane.json");
    assert_eq!(teammate_of(&input, &lead_args), None);

    // The hook, run by this test (no --agent-id among its arguments): no answer, nothing filed,
    // so nothing held (a held call is a filed request).
    let out = hook_claude_team(
        &h.roots,
        h.input("pre-tool-use-exit-plan-mode-teammate-pane.json")
            .as_bytes(),
        opts(Duration::from_secs(30)),
    );
    assert_eq!(out.stdout, "");
    assert_eq!(out.exit_code, 0);
    assert!(out.stderr.contains("not a teammate"), "{}", out.stderr);
    never_filed(&h.roots);
}

#[test]
fn with_plandeck_not_running_a_teammate_is_not_held() {
    let h = home();
    h.in_process_files();
    let out = hook_claude_team(
        &h.roots,
        h.input("pre-tool-use-exit-plan-mode-teammate-in-process.json")
            .as_bytes(),
        opts(Duration::from_secs(30)),
    );
    assert_eq!(out.stdout, "", "no decision");
    assert!(out.stderr.contains("not running"), "{}", out.stderr);
    never_filed(&h.roots);
}

#[test]
fn a_call_with_no_plan_yet_is_left_to_claude_code_which_refuses_it() {
    let h = home();
    let _app = app_heartbeat(&h.roots).unwrap();
    let out = hook_claude_team(
        &h.roots,
        h.input("pre-tool-use-exit-plan-mode-teammate-in-process-no-plan.json")
            .as_bytes(),
        opts(Duration::from_secs(30)),
    );
    assert_eq!(out.stdout, "");
    assert!(out.stderr.contains("no plan"), "{}", out.stderr);
    assert!(crate::gate::pending(&h.roots).is_empty());

    // A call naming a plan file that holds a plan, with no `plan` beside it: held all the same.
    let plan_file = h.in_process_files();
    let mut input: serde_json::Value =
        serde_json::from_str(&h.input("pre-tool-use-exit-plan-mode-teammate-in-process.json"))
            .unwrap();
    input["tool_input"] = serde_json::json!({ "planFilePath": plan_file });
    let out = hook_claude_team(
        &h.roots,
        input.to_string().as_bytes(),
        opts(Duration::from_millis(300)),
    );
    assert_eq!(
        answer_of(&out)["hookSpecificOutput"]["permissionDecision"],
        "deny"
    );
}

#[test]
fn nobody_deciding_by_the_deadline_denies_and_tells_the_teammate_to_wait() {
    let h = home();
    h.in_process_files();
    let _app = app_heartbeat(&h.roots).unwrap();
    let out = hook_claude_team(
        &h.roots,
        h.input("pre-tool-use-exit-plan-mode-teammate-in-process.json")
            .as_bytes(),
        opts(Duration::from_millis(300)),
    );
    let v = answer_of(&out);
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PreToolUse");
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
    let reason = v["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap();
    assert!(reason.contains("wait"), "{reason}");
    assert!(reason.contains("call ExitPlanMode again later"), "{reason}");
    let done = std::fs::read_dir(store::done_dir(&h.roots))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let closed: GateRequest = serde_json::from_slice(&std::fs::read(done).unwrap()).unwrap();
    assert_eq!(closed.status, GateStatus::Expired);
}

/// The request names the team, the teammate and the lead; a rejection is a deny with the feedback,
/// an approval an allow, an edit goes into the plan file (what the lead is sent) and the answer;
/// nothing under `~/.claude/teams` changes.
#[test]
fn the_persons_decision_reaches_the_teammate_and_the_team_files_are_never_written() {
    let h = home();
    let plan_file = h.in_process_files();
    let teams_before = snapshot(&teams_dir(&h.roots));
    let _app = app_heartbeat(&h.roots).unwrap();
    let input = h.input("pre-tool-use-exit-plan-mode-teammate-in-process.json");

    let run = |decision: GateDecision| {
        let roots = h.roots.clone();
        let input = input.clone();
        let hook = std::thread::spawn(move || {
            hook_claude_team(&roots, input.as_bytes(), opts(Duration::from_secs(30)))
        });
        let req = filed(&h.roots);
        assert_eq!(req.team.as_deref(), Some("session-b6004b4f"));
        assert_eq!(req.teammate.as_deref(), Some("planner"));
        assert_eq!(
            req.lead_session_id.as_deref(),
            Some("b6004b4f-2c90-4383-92a5-43165d94a013")
        );
        assert_eq!(req.tmux_pane, None, "never typed into");
        assert!(req.approves_through_hook);
        let outcome = decide(&h.roots, &req.id, decision).unwrap();
        (answer_of(&hook.join().unwrap()), outcome, req)
    };

    let (v, outcome, _) = run(GateDecision::Reject {
        feedback: "Cursor pagination only.".into(),
    });
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
    assert_eq!(
        v["hookSpecificOutput"]["permissionDecisionReason"],
        "Cursor pagination only."
    );
    assert_eq!(outcome.status, GateStatus::Rejected);

    let (v, outcome, req) = run(GateDecision::Approve {
        mode: ApproveMode::Auto,
        edited: None,
        started_from: None,
    });
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "allow");
    assert_eq!(v["hookSpecificOutput"]["updatedInput"]["plan"], req.plan);
    assert_eq!(outcome.status, GateStatus::Approved);
    assert!(outcome.delivered);

    let edited = "# Plan: cursors only\n\n1. Return a cursor\n";
    let (v, outcome, _) = run(GateDecision::Approve {
        mode: ApproveMode::Manual,
        edited: Some(edited.into()),
        started_from: None,
    });
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "allow");
    assert_eq!(v["hookSpecificOutput"]["updatedInput"]["plan"], edited);
    assert_eq!(
        v["hookSpecificOutput"]["updatedInput"]["planFilePath"],
        plan_file.to_str().unwrap()
    );
    assert_eq!(std::fs::read_to_string(&plan_file).unwrap(), edited);
    assert_eq!(outcome.status, GateStatus::Approved);

    assert_eq!(snapshot(&teams_dir(&h.roots)), teams_before);
}

#[test]
fn the_teammate_gate_is_a_pre_tool_use_hook_that_blocks_on_failure_beside_the_plan_hook() {
    let h = home();
    const CMD: &str = "/opt/plandeck/bin/plandeck hook claude-team";
    crate::gate::install_with(
        &h.roots,
        Agent::Claude,
        "/opt/plandeck/bin/plandeck hook claude",
    )
    .unwrap();
    let plan = install_plan_with(&h.roots, CMD).unwrap();
    assert!(plan.changed);
    assert!(plan.unified_diff().contains("onFailure"));
    install_with(&h.roots, CMD).unwrap();
    let settings = claude::settings_file(&h.roots.claude);
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    let group = &v["hooks"]["PreToolUse"][0];
    assert_eq!(group["matcher"], "ExitPlanMode");
    assert_eq!(group["hooks"][0]["command"], CMD);
    assert_eq!(group["hooks"][0]["onFailure"], "block");
    assert!(
        group["hooks"][0]["timeout"].as_u64().unwrap() > crate::gate::DEFAULT_DEADLINE.as_secs()
    );
    assert_eq!(
        v["hooks"]["PermissionRequest"][0]["hooks"][0]["command"],
        "/opt/plandeck/bin/plandeck hook claude"
    );
    let preview = hook_preview_with(&h.roots, CMD).unwrap();
    assert!(preview.installed);
    let out = uninstall_plan(&h.roots).unwrap();
    assert!(!out.after.contains("claude-team"));
    assert!(out.after.contains("hook claude\""));
}

#[test]
fn answers_hold_nothing_a_person_cannot_see() {
    let v = answer_of(&deny("no\u{1b}]52;c;eA==\u{7}way\u{200B}"));
    assert_eq!(
        v["hookSpecificOutput"]["permissionDecisionReason"],
        "no]52;c;eA==way"
    );
}
