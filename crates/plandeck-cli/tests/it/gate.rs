//! The gate end to end in-process: the hooks fed the exact stdin of the fixtures, decisions taken
//! from the test thread, and a fake approval card in a real tmux pane.

use crate::common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::plandeck;
use plandeck_core::config::Roots;
use plandeck_core::gate::{
    self, ApproveMode, DeliveryOptions, GateDecision, GateError, GateRequest, GateStatus,
    HookOptions, HookOutcome,
};
use plandeck_testkit::tmux::{Recording, Tmux};
use plandeck_testkit::wait_for;

const CLAUDE_STDIN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/fixtures/claude-code-2.1.328/hook-input/permission-request-exit-plan-mode.json"
);
const GEMINI_STDIN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/fixtures/gemini-cli-0.61.0/hook-input/before-tool-exit-plan-mode.json"
);
const TOOL_USE: &str = "toolu_test_exit_plan";

fn opts(deadline: Duration) -> HookOptions {
    HookOptions {
        deadline,
        hook_pid: std::process::id(),
        agent_pid: None,
        tmux_env: None,
    }
}

pub(crate) struct Setup {
    _dir: tempfile::TempDir,
    pub(crate) home: PathBuf,
    pub(crate) roots: Roots,
    transcript: PathBuf,
    pub(crate) plan_file: PathBuf,
    pub(crate) stdin: Vec<u8>,
    pub(crate) plan: String,
}

/// A temp home with a transcript holding a pending `ExitPlanMode` call, and the fixture's stdin
/// pointed at it (only the paths are changed).
pub(crate) fn claude_setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().to_path_buf();
    let roots = Roots::under_home(&home);
    let mut input: serde_json::Value =
        serde_json::from_slice(&std::fs::read(CLAUDE_STDIN).unwrap()).unwrap();
    let plan = input["tool_input"]["plan"].as_str().unwrap().to_owned();
    let transcript = home.join(".claude/projects/-w/s.jsonl");
    let plan_file = home.join(".claude/plans/p.md");
    std::fs::create_dir_all(transcript.parent().unwrap()).unwrap();
    std::fs::create_dir_all(plan_file.parent().unwrap()).unwrap();
    std::fs::write(&plan_file, &plan).unwrap();
    let call = serde_json::json!({"type":"assistant","message":{"role":"assistant","content":[
        {"type":"tool_use","id":TOOL_USE,"name":"ExitPlanMode","input":{"plan":plan,"planFilePath":plan_file}}]}});
    std::fs::write(
        &transcript,
        format!("{{\"type\":\"user\",\"message\":{{\"content\":\"hi\"}}}}\n{call}\n"),
    )
    .unwrap();
    input["transcript_path"] = serde_json::json!(transcript);
    input["tool_input"]["planFilePath"] = serde_json::json!(plan_file);
    Setup {
        _dir: dir,
        home,
        roots,
        transcript,
        plan_file,
        stdin: serde_json::to_vec(&input).unwrap(),
        plan,
    }
}

fn answer_in_transcript(path: &Path) {
    let rec = serde_json::json!({"type":"user","message":{"role":"user","content":[
        {"type":"tool_result","tool_use_id":TOOL_USE,"content":"User has approved your plan."}]}});
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    writeln!(f, "{rec}").unwrap();
}

/// The call's answer as Claude Code 2.1.328 writes it, with who decided
/// (`permissionDecision.source`: `"hook"`, `"user_temporary"`).
fn answer_in_transcript_by(path: &Path, source: &str) {
    let rec = serde_json::json!({"type":"user","message":{"role":"user","content":[
        {"type":"tool_result","tool_use_id":TOOL_USE,"content":"User has approved your plan."}]},
        "permissionDecision":{"decision":"accept","source":source}});
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    writeln!(f, "{rec}").unwrap();
}

/// The hook's `allow`, checked for the shape Claude Code takes as the card's answer (a bare
/// `allow` is ignored): `updatedInput` with the plan and its file, and `setMode` for the mode.
#[track_caller]
fn allow_of(out: &HookOutcome, plan_file: &Path, mode: &str) -> String {
    assert_eq!(out.exit_code, 0, "{out:?}");
    let v: serde_json::Value = serde_json::from_str(out.stdout.trim()).expect("hook JSON");
    let d = &v["hookSpecificOutput"]["decision"];
    assert_eq!(
        v["hookSpecificOutput"]["hookEventName"],
        "PermissionRequest"
    );
    assert_eq!(d["behavior"], "allow", "{v}");
    assert_eq!(
        d["updatedInput"]["planFilePath"],
        plan_file.to_str().unwrap(),
        "{v}"
    );
    assert_eq!(
        d["updatedPermissions"],
        serde_json::json!([{"type":"setMode","mode":mode,"destination":"session"}]),
        "{v}"
    );
    d["updatedInput"]["plan"].as_str().unwrap().to_owned()
}

/// Claude Code taking the hook's answer, as 2.1.328 does: once `hook` prints an `allow` with an
/// `updatedInput`, the card closes and the transcript gets the call's result, decided by the hook.
fn claude_takes_the_hooks_answer(
    transcript: &Path,
    hook: std::thread::JoinHandle<HookOutcome>,
) -> std::thread::JoinHandle<HookOutcome> {
    let transcript = transcript.to_owned();
    std::thread::spawn(move || {
        let out = hook.join().unwrap();
        if out.stdout.contains("\"allow\"") && out.stdout.contains("updatedInput") {
            answer_in_transcript_by(&transcript, "hook");
        }
        out
    })
}

fn spawn_hook(
    roots: &Roots,
    stdin: &[u8],
    deadline: Duration,
) -> std::thread::JoinHandle<HookOutcome> {
    let (roots, stdin) = (roots.clone(), stdin.to_vec());
    std::thread::spawn(move || gate::hook_claude(&roots, &stdin, opts(deadline)))
}

/// The Claude hook of `s` for the agent `agent_pid`, on a thread of its own, and its request once
/// filed.
fn hook_for_agent(
    s: &Setup,
    agent_pid: u32,
    deadline: Duration,
) -> (std::thread::JoinHandle<HookOutcome>, GateRequest) {
    let o = HookOptions {
        agent_pid: Some(agent_pid),
        ..opts(deadline)
    };
    let (roots, stdin) = (s.roots.clone(), s.stdin.clone());
    let hook = std::thread::spawn(move || gate::hook_claude(&roots, &stdin, o));
    (hook, wait_request(&s.roots))
}

fn wait_request(roots: &Roots) -> GateRequest {
    wait_for("the request to be filed", || {
        gate::pending(roots).into_iter().next()
    })
}

/// The window up and a Claude agent's hook waiting on its request (deadline a minute away):
/// (the window's presence, the hook's thread, the request).
fn claude_waiting(
    s: &Setup,
) -> (
    gate::AppPresence,
    std::thread::JoinHandle<HookOutcome>,
    GateRequest,
) {
    let app = gate::app_heartbeat(&s.roots).unwrap();
    let hook = spawn_hook(&s.roots, &s.stdin, Duration::from_secs(60));
    (app, hook, wait_request(&s.roots))
}

/// "Approve (auto)", as the window's button sends it.
fn approve_auto() -> GateDecision {
    GateDecision::Approve {
        mode: ApproveMode::Auto,
        edited: None,
        started_from: None,
    }
}

/// The request's status as the store has it now.
#[track_caller]
fn assert_status(roots: &Roots, req: &GateRequest, want: GateStatus) {
    assert_eq!(gate::request(roots, &req.id).unwrap().status, want);
}

fn assert_no_decision(out: &HookOutcome) {
    assert_eq!(out.exit_code, 0, "{out:?}");
    assert_eq!(out.stdout, "", "{out:?}");
}

#[test]
fn reject_prints_deny_with_the_feedback() {
    let s = claude_setup();
    let (_app, hook, req) = claude_waiting(&s);
    assert_eq!(req.session_id, "fecae38a-0653-4970-8e6f-118f15e00ee0");
    assert_eq!(req.tool_use_id.as_deref(), Some(TOOL_USE));
    assert_eq!(req.plan, s.plan);
    let outcome = gate::decide(
        &s.roots,
        &req.id,
        GateDecision::Reject {
            feedback: "split step 2".into(),
        },
    )
    .unwrap();
    assert!(outcome.delivered, "{outcome:?}");
    // It says where the feedback went.
    assert!(
        outcome
            .message
            .starts_with("Rejected: your feedback was sent to Claude Code"),
        "{outcome:?}"
    );
    let out = hook.join().unwrap();
    assert_eq!(out.exit_code, 0);
    let v: serde_json::Value = serde_json::from_str(out.stdout.trim()).unwrap();
    assert_eq!(
        v,
        serde_json::json!({"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"split step 2"}}})
    );
    assert_status(&s.roots, &req, GateStatus::Rejected);
    assert!(gate::pending(&s.roots).is_empty());
}

/// `--option` names one of an ACP agent's own options: a request waiting on a hook has none, so
/// `approve --option` and `reject --option` on it are refused with the reason, and nothing is
/// decided (the hook still waits, nothing is logged); decided without it, it goes as always.
#[test]
fn an_option_named_for_a_hooks_request_is_refused_and_nothing_is_decided() {
    let s = claude_setup();
    let (_app, hook, req) = claude_waiting(&s);
    assert!(req.acp.is_none());
    for args in [
        vec!["approve", req.id.as_str(), "--option", "default", "--json"],
        vec!["approve", req.id.as_str(), "--option", "bogus", "--json"],
        vec![
            "reject",
            req.id.as_str(),
            "--feedback",
            "split step 2",
            "--option",
            "plan",
            "--json",
        ],
    ] {
        let (code, out, _) = plandeck(&s.home, &args);
        assert_ne!(code, 0, "{args:?}: {out}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["error"]["kind"], "badInput", "{v}");
        let message = v["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("Claude Code's request through its hook or terminal")
                && message.contains("no options to name"),
            "{message}"
        );
        assert_status(&s.roots, &req, GateStatus::Waiting);
        assert!(!hook.is_finished(), "the hook got an answer");
        assert!(log_json(&s.home).is_empty());
    }
    // Without --option: decided, once.
    let (code, out, err) = plandeck(
        &s.home,
        &["reject", &req.id, "--feedback", "split step 2", "--json"],
    );
    assert_eq!(code, 0, "{out}{err}");
    let out = hook.join().unwrap();
    assert!(out.stdout.contains("\"deny\""), "{out:?}");
    assert_status(&s.roots, &req, GateStatus::Rejected);
    assert_eq!(log_json(&s.home).len(), 1);
}

/// A Claude Code session outside tmux (no pane): approved through its waiting hook, never left
/// for the terminal. The request closes as approved once the transcript shows the hook's answer
/// taken.
#[test]
fn approve_without_a_pane_goes_through_the_waiting_hook() {
    let s = claude_setup();
    let (_app, hook, req) = claude_waiting(&s);
    assert_eq!(req.tmux_pane, None);
    assert!(
        req.approves_through_hook,
        "listed as approved through its hook"
    );
    let claude = claude_takes_the_hooks_answer(&s.transcript, hook);
    let outcome = gate::decide(&s.roots, &req.id, approve_auto()).unwrap();
    assert!(outcome.delivered, "{outcome:?}");
    assert_eq!(
        outcome.message,
        "Approved: sent to Claude Code through its hook."
    );
    assert_eq!(outcome.status, GateStatus::Approved);
    let out = claude.join().unwrap();
    assert_eq!(allow_of(&out, &s.plan_file, "auto"), s.plan);
    let done = gate::request(&s.roots, &req.id).unwrap();
    assert_eq!(done.status, GateStatus::Approved);
    assert!(done.through_hook);
    assert!(gate::pending(&s.roots).is_empty());
    // One decision, logged once, delivered.
    let log = log_json(&s.home);
    assert_eq!(log.len(), 1, "{log:?}");
    assert_eq!(log[0]["delivery"], "delivered");
}

/// The person answers the card in the terminal after the hook handed Plandeck's approval over:
/// Claude Code keeps the person's answer (the hook's is ignored), and the request closes as
/// answered in the terminal, not approved: by the decider, or by the liveness tick once the
/// decider is gone.
#[test]
fn the_person_answering_first_wins_over_the_hooks_approval() {
    for decider_waits in [true, false] {
        let s = claude_setup();
        let _app = gate::app_heartbeat(&s.roots).unwrap();
        // The hook's process: it exits once it has answered.
        let mut hook_process = Command::new("sleep").arg("1000").spawn().unwrap();
        let o = HookOptions {
            hook_pid: hook_process.id(),
            ..opts(Duration::from_secs(60))
        };
        let (roots, stdin) = (s.roots.clone(), s.stdin.clone());
        let hook = std::thread::spawn(move || gate::hook_claude(&roots, &stdin, o));
        let req = wait_request(&s.roots);
        let transcript = s.transcript.clone();
        // The person's key reached the card first: the transcript says so (while the decider
        // waits for it, or after it gave up waiting).
        let claude = std::thread::spawn(move || {
            let out = hook.join().unwrap();
            if decider_waits {
                answer_in_transcript_by(&transcript, "user_temporary");
            }
            out
        });
        let opts = DeliveryOptions {
            close_timeout: if decider_waits {
                Duration::from_secs(10)
            } else {
                Duration::ZERO
            },
            ..DeliveryOptions::default()
        };
        let outcome = gate::decide_with(&s.roots, &req.id, approve_auto(), &opts).unwrap();
        let out = claude.join().unwrap();
        hook_process.kill().unwrap();
        hook_process.wait().unwrap();
        allow_of(&out, &s.plan_file, "auto");
        if decider_waits {
            assert_eq!(
                outcome.delivery,
                gate::Delivery::AnsweredInTerminal,
                "{outcome:?}"
            );
            assert!(!outcome.delivered);
        } else {
            assert_eq!(outcome.delivery, gate::Delivery::Pending, "{outcome:?}");
            assert_eq!(gate::pending(&s.roots)[0].status, GateStatus::Approving);
            answer_in_transcript_by(&s.transcript, "user_temporary");
            assert!(gate::pending(&s.roots).is_empty(), "it ended");
            assert_eq!(gate::close_ended(&s.roots), std::slice::from_ref(&req.id));
        }
        assert_status(&s.roots, &req, GateStatus::AnsweredInTerminal);
    }
}

/// The hook goes away with the approval handed to it but not taken (Claude Code ended it):
/// nothing reached the agent, so the approval is taken back and the request waits again.
#[test]
fn an_approval_the_hook_never_took_is_taken_back() {
    let s = claude_setup();
    let _app = gate::app_heartbeat(&s.roots).unwrap();
    let mut hook_process = Command::new("sleep").arg("1000").spawn().unwrap();
    let hook_pid = hook_process.id();
    let req: GateRequest = serde_json::from_value(serde_json::json!({
        "id": "r-hook-gone", "agent": "claude", "sessionId": "s", "cwd": "/w",
        "planPath": s.plan_file, "plan": s.plan, "toolUseId": TOOL_USE,
        "transcriptPath": s.transcript, "transcriptOffset": 0,
        "waitingSince": "2026-01-01T00:00:00Z", "deadline": "2026-01-01T00:10:00Z",
        "hookPid": hook_pid, "hookStartTime": plandeck_core::process::start_time(hook_pid),
        "status": "waiting", "closedAt": null,
    }))
    .unwrap();
    let requests = s.roots.data.join("gate/requests");
    std::fs::create_dir_all(&requests).unwrap();
    std::fs::write(
        requests.join("r-hook-gone.json"),
        serde_json::to_vec(&req).unwrap(),
    )
    .unwrap();
    // The hook's process ends once the approval is handed to it, without taking it.
    let decision_file = s.roots.data.join("gate/decisions/r-hook-gone.json");
    let killer = std::thread::spawn(move || {
        wait_for("the approval handed to the hook", || {
            decision_file.exists().then_some(())
        });
        hook_process.kill().unwrap();
        hook_process.wait().unwrap();
    });
    let outcome = gate::decide(&s.roots, &req.id, approve_auto()).unwrap();
    killer.join().unwrap();
    assert_eq!(outcome.delivery, gate::Delivery::Failed, "{outcome:?}");
    assert!(
        outcome.message.contains("the hook went away"),
        "{outcome:?}"
    );
    let again = gate::request(&s.roots, &req.id).unwrap();
    assert_eq!((again.status, again.decision), (GateStatus::Waiting, None));
    assert!(!s
        .roots
        .data
        .join("gate/decisions/r-hook-gone.json")
        .exists());
}

#[test]
fn edit_and_approve_writes_the_plan_file_unless_it_changed() {
    let s = claude_setup();
    let (_app, hook, req) = claude_waiting(&s);
    assert_eq!(
        req.plan_path.as_deref(),
        Some(s.plan_file.to_str().unwrap())
    );

    // The plan moved on under the reviewer: refused, nothing written.
    std::fs::write(&s.plan_file, "agent rewrote it").unwrap();
    let edit = |text: &str| GateDecision::Approve {
        mode: ApproveMode::Manual,
        edited: Some(text.into()),
        started_from: Some(s.plan.clone()),
    };
    let err = gate::decide(&s.roots, &req.id, edit("# edited")).unwrap_err();
    assert!(
        matches!(err, GateError::PlanConflict { ref current, .. } if current == "agent rewrote it"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(&s.plan_file).unwrap(),
        "agent rewrote it"
    );

    std::fs::write(&s.plan_file, &s.plan).unwrap();
    let claude = claude_takes_the_hooks_answer(&s.transcript, hook);
    let outcome = gate::decide(&s.roots, &req.id, edit("# edited plan\n")).unwrap();
    assert!(outcome.delivered, "{outcome:?}");
    // It says the edits went (issue 34).
    assert_eq!(
        outcome.message,
        "Approved with your edits: sent to Claude Code through its hook."
    );
    assert_eq!(
        std::fs::read_to_string(&s.plan_file).unwrap(),
        "# edited plan\n"
    );
    // The edited text is what the hook hands to Claude Code (it reaches the model as "Approved
    // Plan (edited by user)"), with the manual mode.
    let out = claude.join().unwrap();
    assert_eq!(allow_of(&out, &s.plan_file, "default"), "# edited plan\n");
    assert_status(&s.roots, &req, GateStatus::Approved);
}

#[test]
fn plandeck_not_running_means_no_decision_at_once() {
    let s = claude_setup();
    let exact = std::fs::read(CLAUDE_STDIN).unwrap();
    for stdin in [&exact, &s.stdin] {
        let out = gate::hook_claude(&s.roots, stdin, opts(Duration::from_secs(60)));
        assert_no_decision(&out);
        assert!(out.stderr.contains("not running"), "{out:?}");
    }
    assert!(!s.roots.data.join("gate/requests").exists());
}

#[test]
fn deadline_passed_means_no_decision() {
    let s = claude_setup();
    let _app = gate::app_heartbeat(&s.roots).unwrap();
    let exact = std::fs::read(CLAUDE_STDIN).unwrap();
    let out = gate::hook_claude(&s.roots, &exact, opts(Duration::from_millis(200)));
    assert_no_decision(&out);
    assert!(out.stderr.contains("no decision"), "{out:?}");
    assert!(gate::pending(&s.roots).is_empty());
    let done: Vec<_> = std::fs::read_dir(s.roots.data.join("gate/done"))
        .unwrap()
        .collect();
    assert_eq!(done.len(), 1, "closed requests are kept");
}

#[test]
fn malformed_stdin_gives_a_clear_message_and_no_decision() {
    let s = claude_setup();
    let _app = gate::app_heartbeat(&s.roots).unwrap();
    let mut wrong_tool: serde_json::Value = serde_json::from_slice(&s.stdin).unwrap();
    wrong_tool["tool_name"] = "Bash".into();
    let wrong_tool = serde_json::to_vec(&wrong_tool).unwrap();
    for (stdin, says) in [
        (&b""[..], "empty"),
        (&b"not json {"[..], "not the hook JSON"),
        (&b"[1,2]"[..], "not the hook JSON"),
        (&wrong_tool[..], "not an ExitPlanMode"),
    ] {
        let out = gate::hook_claude(&s.roots, stdin, opts(Duration::from_secs(60)));
        assert_no_decision(&out);
        assert!(out.stderr.contains(says), "{says}: {out:?}");
        let g = gate::hook_gemini(&s.roots, stdin, opts(Duration::from_secs(60)));
        assert_eq!((g.exit_code, g.stdout.as_str()), (0, "{}\n"), "{g:?}");
    }
    assert!(gate::pending(&s.roots).is_empty());
}

#[test]
fn answered_in_terminal_closes_the_request_and_later_decisions_conflict() {
    let s = claude_setup();
    let (_app, hook, req) = claude_waiting(&s);
    answer_in_transcript(&s.transcript);
    assert_no_decision(&hook.join().unwrap());
    assert_status(&s.roots, &req, GateStatus::AnsweredInTerminal);
    let err = gate::decide(
        &s.roots,
        &req.id,
        GateDecision::Reject {
            feedback: "late".into(),
        },
    )
    .unwrap_err();
    let ipc: plandeck_core::ipc::IpcError = err.into();
    assert_eq!(ipc.kind, plandeck_core::ipc::ErrorKind::Conflict);
    let err: plandeck_core::ipc::IpcError = gate::decide(
        &s.roots,
        "nosuch",
        GateDecision::Reject {
            feedback: "x".into(),
        },
    )
    .unwrap_err()
    .into();
    assert_eq!(err.kind, plandeck_core::ipc::ErrorKind::NotFound);
}

#[test]
fn app_stopping_releases_the_hook() {
    let s = claude_setup();
    let app = gate::app_heartbeat(&s.roots).unwrap();
    let hook = spawn_hook(&s.roots, &s.stdin, Duration::from_secs(60));
    let req = wait_request(&s.roots);
    drop(app);
    assert_no_decision(&hook.join().unwrap());
    assert_status(&s.roots, &req, GateStatus::AppStopped);
}

/// A pid that is certainly gone: a child that ran and was reaped.
fn dead_pid() -> u32 {
    let mut child = Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

struct GeminiSetup {
    _dir: tempfile::TempDir,
    roots: Roots,
    chat: PathBuf,
    plan_file: PathBuf,
    stdin: Vec<u8>,
}

fn gemini_setup() -> GeminiSetup {
    let dir = tempfile::tempdir().unwrap();
    let roots = Roots::under_home(dir.path());
    let mut input: serde_json::Value =
        serde_json::from_slice(&std::fs::read(GEMINI_STDIN).unwrap()).unwrap();
    let sid = input["session_id"].as_str().unwrap().to_owned();
    let slug = roots.gemini.join("tmp/gemproj");
    let chat = slug.join("chats/session-2026-11-22T12-31-bfc1b571.jsonl");
    let plan_file = slug.join(&sid).join("plans/pagination.md");
    std::fs::create_dir_all(chat.parent().unwrap()).unwrap();
    std::fs::create_dir_all(plan_file.parent().unwrap()).unwrap();
    std::fs::write(&chat, "{\"sessionId\":\"x\",\"kind\":\"main\"}\n").unwrap();
    std::fs::write(&plan_file, "# Gemini plan\n").unwrap();
    input["transcript_path"] = serde_json::json!(chat);
    GeminiSetup {
        _dir: dir,
        roots,
        chat,
        plan_file,
        stdin: serde_json::to_vec(&input).unwrap(),
    }
}

#[test]
fn gemini_hook_files_the_request_and_returns_at_once() {
    let s = gemini_setup();
    let _app = gate::app_heartbeat(&s.roots).unwrap();
    let mut o = opts(Duration::from_secs(60));
    o.hook_pid = dead_pid(); // the hook has returned by the time anyone looks
    let out = gate::hook_gemini(&s.roots, &s.stdin, o.clone());
    assert_eq!((out.exit_code, out.stdout.as_str()), (0, "{}\n"), "{out:?}");
    let pending = gate::pending(&s.roots);
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].plan, "# Gemini plan\n");
    assert_eq!(
        pending[0].plan_path.as_deref(),
        Some(s.plan_file.to_str().unwrap())
    );

    // Found by searching the slug folders when the transcript path says nothing useful.
    let mut other: serde_json::Value = serde_json::from_slice(&s.stdin).unwrap();
    other["transcript_path"] = "/nowhere/x.jsonl".into();
    gate::hook_gemini(&s.roots, &serde_json::to_vec(&other).unwrap(), o);
    assert!(gate::pending(&s.roots)
        .iter()
        .all(|r| r.plan_path.as_deref() == Some(s.plan_file.to_str().unwrap())));

    // The terminal answered: the chat gets the functionResponse.
    let resp = r#"{"id":"m","type":"user","content":[{"functionResponse":{"id":"c","name":"exit_plan_mode","response":{"output":"Plan approved."}}}]}"#;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&s.chat)
        .unwrap();
    writeln!(f, "{resp}").unwrap();
    let still = gate::pending(&s.roots);
    // Listing only reads; closing what the terminal answered is its own call.
    assert_eq!(
        gate::request(&s.roots, &pending[0].id).unwrap().status,
        GateStatus::Waiting
    );
    assert_eq!(gate::close_ended(&s.roots), [pending[0].id.clone()]);
    assert_eq!(
        still.len(),
        1,
        "only the one whose transcript we follow is answered"
    );
    assert_eq!(
        gate::request(&s.roots, &pending[0].id).unwrap().status,
        GateStatus::AnsweredInTerminal
    );
}

/// Issue 34 (major 2): Gemini CLI's card waits for the person whether or not a Plandeck runs
/// (its hook returns at once either way). A card shown while no window was open is a waiting
/// request in the next window, decided through the card's keys, and its plan is waiting, never
/// "approved" by a decision only recorded meanwhile.
#[test]
fn a_gemini_card_shown_while_no_plandeck_ran_waits_in_the_next_window() {
    let s = gemini_setup();
    assert!(!gate::app_running(&s.roots));
    let mut o = opts(Duration::from_secs(60));
    o.hook_pid = dead_pid();
    o.agent_pid = Some(std::process::id());
    let out = gate::hook_gemini(&s.roots, &s.stdin, o);
    assert_eq!((out.exit_code, out.stdout.as_str()), (0, "{}\n"), "{out:?}");
    // The window opens later.
    let _app = gate::app_heartbeat(&s.roots).unwrap();
    let pending = gate::pending(&s.roots);
    assert_eq!(pending.len(), 1, "{pending:?}");
    assert_eq!(pending[0].status, GateStatus::Waiting);
    assert_eq!(pending[0].plan, "# Gemini plan\n");
    plandeck_core::review::approve(
        &s.roots,
        &s.plan_file,
        plandeck_core::review::ApproveRequest::default(),
    )
    .unwrap();
    let listing = plandeck_core::standing::listing(&s.roots);
    let plan = listing
        .files
        .plans
        .iter()
        .find(|p| p.path == s.plan_file.to_str().unwrap())
        .expect("the plan is listed");
    assert_eq!(plan.state, plandeck_core::review::ReviewState::Waiting);
    assert_eq!(
        plan.waiting_request.as_deref(),
        Some(pending[0].id.as_str())
    );
}

#[test]
fn pending_json_has_the_contract_fields() {
    let s = gemini_setup();
    let _app = gate::app_heartbeat(&s.roots).unwrap();
    gate::hook_gemini(&s.roots, &s.stdin, opts(Duration::from_secs(60)));
    let home = s.roots.home.clone();
    let (code, stdout, stderr) = plandeck(&home, &["pending", "--json"]);
    assert_eq!(code, 0, "{stderr}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let r = &v.as_array().unwrap()[0];
    for field in [
        "id",
        "agent",
        "sessionId",
        "cwd",
        "planPath",
        "waitingSince",
        "tmuxPane",
        "plan",
        "deadline",
        "status",
    ] {
        assert!(r.get(field).is_some(), "missing {field}: {r}");
    }
    assert_eq!(r["agent"], "gemini");
    assert_eq!(r["status"], "waiting");
    // What it asks (ACP requests, listed beside, can be tool permissions).
    assert_eq!(r["kind"], "plan");
    let (code, text, _) = plandeck(&home, &["pending"]);
    assert_eq!(code, 0);
    assert!(
        text.contains("Gemini CLI") && text.contains("pagination.md"),
        "{text}"
    );
}

#[test]
fn hooks_install_shows_the_change_and_uninstall_restores() {
    use std::io::IsTerminal;
    let s = claude_setup();
    let settings = s.roots.claude.join("settings.json");
    let original = "{\n  \"theme\": \"dark\",\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"notify.sh\"\n          }\n        ]\n      }\n    ]\n  }\n}\n";
    std::fs::write(&settings, original).unwrap();
    if !std::io::stdin().is_terminal() {
        let (code, out, err) = plandeck(&s.home, &["hooks", "install", "--agent", "claude"]);
        assert_ne!(code, 0);
        assert!(
            out.contains("+") && out.contains("PermissionRequest"),
            "{out}"
        );
        assert!(err.contains("--yes"), "{err}");
        assert_eq!(std::fs::read_to_string(&settings).unwrap(), original);
    }
    let (code, out, err) = plandeck(&s.home, &["hooks", "install", "--agent", "claude", "--yes"]);
    assert_eq!(code, 0, "{out}{err}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(v["theme"], "dark");
    assert_eq!(v["hooks"]["Stop"][0]["hooks"][0]["command"], "notify.sh");
    let cmd = v["hooks"]["PermissionRequest"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap();
    assert!(cmd.ends_with(" hook claude"), "{cmd}");
    let (code, out, _) = plandeck(&s.home, &["hooks", "install", "--agent", "claude", "--yes"]);
    assert_eq!(code, 0);
    assert!(out.contains("nothing to change"), "{out}");
    let (code, _, err) = plandeck(
        &s.home,
        &["hooks", "uninstall", "--agent", "claude", "--yes"],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), original);
}

#[test]
fn the_binary_never_breaks_the_agent() {
    let s = claude_setup();
    for stdin in [&b"garbage"[..], &std::fs::read(CLAUDE_STDIN).unwrap()[..]] {
        let (code, out, err) = common::run_binary(&s.home, &["hook", "claude"], stdin);
        assert_eq!(code, 0);
        assert!(out.is_empty());
        assert!(!err.is_empty());
    }
}

// ---- tmux: a fake approval card in a real pane ----

/// A fake card (`script`) in a pane of a private tmux server (tmux missing fails the test).
fn card_pane(dir: &Path, script: &str) -> (Tmux, String) {
    let (server, pane, _) = Tmux::start(dir, script);
    (server, pane)
}

/// A Gemini agent at `card` (a script) in a tmux pane, its request filed through the real hook
/// with the window up; the card's own process is the agent (its stdin is the pane's tty). Bind `tmux` and `_app` by name: they hold the server and the
/// window's presence (a field left to `..` is dropped at once).
struct GeminiOnCard {
    tmux: Tmux,
    pane: String,
    req: GateRequest,
    hook: HookOutcome,
    _app: gate::AppPresence,
}

fn gemini_on_card(s: &GeminiSetup, card: &str) -> GeminiOnCard {
    let (tmux, pane) = card_pane(&s.roots.home, card);
    let app = gate::app_heartbeat(&s.roots).unwrap();
    let mut o = opts(Duration::from_secs(60));
    o.hook_pid = dead_pid();
    o.agent_pid = Some(tmux.pane_pid(&pane));
    o.tmux_env = Some(tmux.env());
    let hook = gate::hook_gemini(&s.roots, &s.stdin, o);
    let req = wait_request(&s.roots);
    GeminiOnCard {
        tmux,
        pane,
        req,
        hook,
        _app: app,
    }
}

fn fast_delivery() -> DeliveryOptions {
    DeliveryOptions {
        settle: Duration::from_millis(300),
        ..DeliveryOptions::default()
    }
}

/// A fake Claude Code card in a pane, as 2.1.328 draws it (the plan, then its rows in `rows`),
/// reading one key into `<home>/got`.
fn claude_card_script(s: &Setup, rows: &[&str]) -> String {
    let rows: String = rows
        .iter()
        .enumerate()
        .map(|(i, r)| format!(" {}. {r}\\n", i + 1))
        .collect();
    format!(
        "cat {plan}\nprintf '\\nClaude has written up a plan and is ready to execute. Would you like to proceed?\\n{rows}'\nread -rsn1 k\nprintf '%s' \"$k\" > {got}\nclear\necho done\nsleep 60\n",
        plan = s.plan_file.display(),
        got = s.home.join("got").display()
    )
}

/// What the card's process read: typed by Plandeck, or (once Plandeck is done) the test's own
/// `x`. A key typed by Plandeck arrives before the `x`, and is what the card read.
fn first_key_read(tmux: &Tmux, pane: &str, home: &Path) -> String {
    tmux.keys(pane, &["-l", "x"]);
    wait_for("a key read by the card", || {
        std::fs::read_to_string(home.join("got"))
            .ok()
            .filter(|k| !k.is_empty())
    })
}

/// Claude Code in tmux with its hook waiting: an approval goes through the hook's answer, and no
/// key reaches the pane (a key after the hook's approval would answer the agent's next card).
#[test]
fn approve_of_a_claude_plan_in_tmux_goes_through_the_hook_and_types_nothing() {
    let s = claude_setup();
    let script = claude_card_script(
        &s,
        &[
            "Yes, and use auto mode",
            "Yes, manually approve edits",
            "Tell Claude what to change",
        ],
    );
    let (tmux, pane) = card_pane(&s.home, &script);
    // The session registry names the pane, as Claude Code's sessions/<pid>.json does.
    let sid = "fecae38a-0653-4970-8e6f-118f15e00ee0";
    std::fs::create_dir_all(s.roots.claude.join("sessions")).unwrap();
    std::fs::write(
        s.roots.claude.join("sessions/4242.json"),
        serde_json::json!({"pid":4242,"sessionId":sid,"tmux":format!("fake:@0.{pane}")})
            .to_string(),
    )
    .unwrap();
    let _app = gate::app_heartbeat(&s.roots).unwrap();
    let (roots, stdin) = (s.roots.clone(), s.stdin.clone());
    let mut o = opts(Duration::from_secs(60));
    o.tmux_env = Some(tmux.env());
    // The agent is the card script, whose stdin is the pane's terminal.
    o.agent_pid = Some(tmux.pane_pid(&pane));
    let hook = std::thread::spawn(move || gate::hook_claude(&roots, &stdin, o));
    let req = wait_request(&s.roots);
    assert_eq!(req.tmux_pane.as_deref(), Some(pane.as_str()));
    wait_for("the card on screen", || {
        tmux.capture(&pane)
            .contains("Tell Claude what to change")
            .then_some(())
    });
    let claude = claude_takes_the_hooks_answer(&s.transcript, hook);
    let decision = GateDecision::Approve {
        mode: ApproveMode::Manual,
        edited: None,
        started_from: None,
    };
    let outcome = gate::decide_with(&s.roots, &req.id, decision, &fast_delivery()).unwrap();
    assert!(outcome.delivered, "{outcome:?}");
    // It says where the approval went, and how.
    assert_eq!(
        outcome.message,
        format!("Approved: sent to Claude Code in tmux pane {pane} through its hook.")
    );
    assert_eq!(
        allow_of(&claude.join().unwrap(), &s.plan_file, "default"),
        s.plan
    );
    assert_eq!(
        first_key_read(&tmux, &pane, &s.home),
        "x",
        "Plandeck typed a key"
    );
    assert_status(&s.roots, &req, GateStatus::Approved);
}

/// A Claude request filed with the card in `pane` whose hook is no longer waiting (it went away
/// while the card stays up): only keys can answer it.
fn claude_request_without_hook(s: &Setup, tmux: &Tmux, pane: &str) -> GateRequest {
    let agent = tmux.pane_pid(pane);
    let socket = tmux.env().split(',').next().unwrap().to_owned();
    let req: GateRequest = serde_json::from_value(serde_json::json!({
        "id": "r-no-hook", "agent": "claude", "sessionId": "s", "cwd": "/w",
        "planPath": s.plan_file, "plan": s.plan, "toolUseId": TOOL_USE,
        "transcriptPath": s.transcript, "transcriptOffset": 0,
        "tmuxPane": pane, "tmuxSocket": socket,
        "waitingSince": "2026-01-01T00:00:00Z", "deadline": "2026-01-01T00:10:00Z",
        "hookPid": dead_pid(), "agentPid": agent,
        "agentStartTime": plandeck_core::process::start_time(agent),
        "status": "waiting", "closedAt": null,
    }))
    .unwrap();
    let dir = s.roots.data.join("gate/requests");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join(format!("{}.json", req.id)),
        serde_json::to_vec(&req).unwrap(),
    )
    .unwrap();
    req
}

/// With no hook waiting, the card is answered by keys, each row chosen by its label: on a card
/// whose first two rows are swapped, "approve (auto)" types the key of the row that says so.
#[test]
fn a_claude_card_with_no_hook_waiting_is_answered_by_its_labels() {
    let s = claude_setup();
    let script = claude_card_script(
        &s,
        &[
            "Yes, manually approve edits",
            "Yes, and use auto mode",
            "Tell Claude what to change",
        ],
    );
    let (tmux, pane) = card_pane(&s.home, &script);
    let _app = gate::app_heartbeat(&s.roots).unwrap();
    wait_for("the card on screen", || {
        tmux.capture(&pane)
            .contains("Tell Claude what to change")
            .then_some(())
    });
    let req = claude_request_without_hook(&s, &tmux, &pane);
    assert!(!gate::pending(&s.roots)[0].approves_through_hook);
    let outcome = gate::decide_with(&s.roots, &req.id, approve_auto(), &fast_delivery()).unwrap();
    assert!(outcome.delivered, "{outcome:?}");
    assert_eq!(
        outcome.message,
        format!("Approved: sent to Claude Code in tmux pane {pane}.")
    );
    assert_eq!(first_key_read(&tmux, &pane, &s.home), "2");
    assert_status(&s.roots, &req, GateStatus::Approved);
}

/// A card showing a choice Plandeck does not know is refused with its own error kind, and nothing
/// is typed; the request stays open for the person.
#[test]
fn a_card_with_an_unexpected_label_is_refused_and_nothing_is_typed() {
    let s = claude_setup();
    let script = claude_card_script(
        &s,
        &[
            "Yes, and use auto mode",
            "Yes, and bypass all permissions",
            "Tell Claude what to change",
        ],
    );
    let (tmux, pane) = card_pane(&s.home, &script);
    let _app = gate::app_heartbeat(&s.roots).unwrap();
    wait_for("the card on screen", || {
        tmux.capture(&pane)
            .contains("Tell Claude what to change")
            .then_some(())
    });
    let req = claude_request_without_hook(&s, &tmux, &pane);
    for decision in [
        approve_auto(),
        GateDecision::Reject {
            feedback: "no".into(),
        },
    ] {
        let err = gate::decide_with(&s.roots, &req.id, decision, &fast_delivery()).unwrap_err();
        assert!(
            matches!(err, GateError::CardNotRecognised { .. }),
            "{err:?}"
        );
        assert!(
            err.to_string()
                .contains("2. Yes, and bypass all permissions"),
            "{err}"
        );
        let ipc: plandeck_core::ipc::IpcError = err.into();
        assert_eq!(ipc.kind, plandeck_core::ipc::ErrorKind::Refused);
        assert_eq!(gate::pending(&s.roots)[0].status, GateStatus::Waiting);
    }
    assert_eq!(
        first_key_read(&tmux, &pane, &s.home),
        "x",
        "Plandeck typed a key"
    );
}

#[test]
fn reject_answers_the_gemini_card_with_typed_feedback() {
    let s = gemini_setup();
    let got = s.roots.home.join("got");
    let script = format!(
        "printf 'Ready to start?\\n\\nGemini plan\\n\\n 1. Yes, automatically accept edits\\n 2. Yes, manually accept edits\\n 3. Type your feedback...\\n'\nread -rsn1 k\nclear\nprintf 'Ready to start?\\n\\nGemini plan\\n\\n 1. Yes, automatically accept edits\\n 2. Yes, manually accept edits\\n 3. '\nIFS= read -r line\nprintf '%s:%s' \"$k\" \"$line\" > {got}\nclear\necho done\nsleep 60\n",
        got = got.display()
    );
    // No registry for Gemini: the pane is found from the agent's terminal. Here the "agent" is the
    // card script itself, whose stdin is the pane's tty.
    let GeminiOnCard {
        tmux: _tmux,
        pane,
        req,
        hook,
        _app,
    } = gemini_on_card(&s, &script);
    assert_eq!(hook.stdout, "{}\n");
    assert_eq!(req.tmux_pane.as_deref(), Some(pane.as_str()));
    let outcome = gate::decide_with(
        &s.roots,
        &req.id,
        GateDecision::Reject {
            feedback: "split step 2".into(),
        },
        &fast_delivery(),
    )
    .unwrap();
    assert!(outcome.delivered, "{outcome:?}");
    assert_eq!(
        wait_for("the feedback", || std::fs::read_to_string(&got)
            .ok()
            .filter(|k| !k.is_empty())),
        "3:split step 2"
    );
    assert_status(&s.roots, &req, GateStatus::Rejected);
}

/// A Gemini-like card: the plan, the choices, bracketed paste on, raw keys; the choice goes to
/// `<dir>/key`, everything typed after it to `<dir>/got`, byte for byte. As the real CLIs do, the
/// card stays on screen after `3`, the feedback typed in place of that choice.
fn recording_card(dir: &Path, plan_line: &str) -> String {
    format!(
        "echo $$ > {dir}/card-pid\nprintf 'Ready to start?\\n\\n{plan_line}\\n\\n 1. Yes, automatically accept edits\\n 2. Yes, manually accept edits\\n 3. Type your feedback...\\n'\nprintf '\\033[?2004h'\nstty raw -echo\nIFS= read -rsn1 k\nprintf '%s' \"$k\" > {dir}/key\nclear\nprintf 'Ready to start?\\n\\n{plan_line}\\n\\n 1. Yes, automatically accept edits\\n 2. Yes, manually accept edits\\n 3. '\nperl -e '$/ = \"\\r\"; my $l = <STDIN>; open(my $f, \">\", \"{dir}/got\") or die; print $f $l;'\nclear\necho done\nsleep 60\n",
        dir = dir.display()
    )
}

fn log_json(home: &Path) -> Vec<serde_json::Value> {
    let (code, out, err) = plandeck(home, &["log", "--json"]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

#[test]
fn feedback_with_a_dash_lines_and_control_characters_reaches_the_card_as_text() {
    let s = gemini_setup();
    let home = s.roots.home.clone();
    let GeminiOnCard {
        tmux: _tmux,
        pane: _,
        req,
        hook: _,
        _app,
    } = gemini_on_card(&s, &recording_card(&home, "Gemini plan"));
    let marker = home.join("ran");
    let feedback = format!(
        "- split step 2\r\n- keep `x` $(touch {m})\u{3}\n\u{1b}[201~touch {m}\u{1b}[A",
        m = marker.display()
    );
    let outcome = gate::decide_with(
        &s.roots,
        &req.id,
        GateDecision::Reject { feedback },
        &fast_delivery(),
    )
    .unwrap();
    assert!(outcome.delivered, "{outcome:?}");
    assert_eq!(outcome.delivery, gate::Delivery::Delivered);
    let typed = wait_for("the typed feedback", || {
        std::fs::read_to_string(home.join("got"))
            .ok()
            .filter(|g| g.ends_with('\r'))
    });
    assert_eq!(std::fs::read_to_string(home.join("key")).unwrap(), "3");
    // One bracketed paste holding every line, then one Enter; no key hidden in the text.
    assert_eq!(
        typed,
        format!(
            "\u{1b}[200~- split step 2\n- keep `x` $(touch {m})\n[201~touch {m}[A\u{1b}[201~\r",
            m = marker.display()
        )
    );
    assert!(!marker.exists());
    let log = log_json(&home);
    assert_eq!(log[0]["delivery"], "delivered", "{log:?}");
    assert_eq!(log[0]["requestId"], req.id.as_str());
    assert_eq!(log[0]["decision"], "rejected");
}

#[test]
fn a_decision_for_an_agent_that_died_types_nothing_into_the_shell_left_behind() {
    let s = gemini_setup();
    let home = s.roots.home.clone();
    std::fs::write(
        home.join("agent-card.sh"),
        recording_card(&home, "Gemini plan"),
    )
    .unwrap();
    // A shell in the pane; the "agent" (the card) runs in it, as a person starts an agent.
    let shell = format!(
        "export PS1='shell$ ' HISTFILE={h}/history\nset -o history\nexec bash --norc --noprofile -i\n",
        h = home.display()
    );
    let (tmux, pane) = card_pane(&home, &shell);
    wait_for("the shell prompt", || {
        tmux.capture(&pane).contains("shell$").then_some(())
    });
    tmux.keys(
        &pane,
        &[
            "-l",
            "--",
            &format!("bash {}/agent-card.sh", home.display()),
        ],
    );
    tmux.keys(&pane, &["Enter"]);
    let agent: u32 = wait_for("the card", || {
        std::fs::read_to_string(home.join("card-pid"))
            .ok()?
            .trim()
            .parse()
            .ok()
    });
    wait_for("the card on screen", || {
        tmux.capture(&pane)
            .contains("Type your feedback")
            .then_some(())
    });
    let _app = gate::app_heartbeat(&s.roots).unwrap();
    let mut o = opts(Duration::from_secs(60));
    o.hook_pid = dead_pid();
    o.agent_pid = Some(agent);
    o.tmux_env = Some(tmux.env());
    gate::hook_gemini(&s.roots, &s.stdin, o);
    let req = wait_request(&s.roots);
    assert_eq!(req.tmux_pane.as_deref(), Some(pane.as_str()));
    // The agent dies with its card on screen; the shell prints its prompt below the card.
    let _ = Command::new("kill")
        .args(["-9", &agent.to_string()])
        .status();
    wait_for("the shell to take the pane back", || {
        let screen = tmux.capture(&pane);
        (screen.contains("Type your feedback") && screen.matches("shell$").count() >= 2)
            .then_some(())
    });
    let marker = home.join("PWNED");
    let feedback = format!("touch {}", marker.display());
    let (code, out, err) = plandeck(&home, &["reject", &req.id, "--feedback", &feedback]);
    assert_ne!(code, 0, "{out}{err}");
    assert!(
        err.contains("not delivered") && err.contains("gone"),
        "{err}"
    );
    // Nothing reached the shell: not its screen, not its history, nothing ran.
    tmux.keys(&pane, &["-l", "--", "history -a"]);
    tmux.keys(&pane, &["Enter"]);
    wait_for("the history to be written", || {
        home.join("history").exists().then_some(())
    });
    let history = std::fs::read_to_string(home.join("history")).unwrap();
    assert!(!history.contains("PWNED"), "{history}");
    assert!(!tmux.capture(&pane).contains("PWNED"));
    assert!(!marker.exists());
    assert_status(&s.roots, &req, GateStatus::AgentGone);
    let log = log_json(&home);
    assert_eq!(log[0]["delivery"], "failed", "{log:?}");
    assert!(
        log[0]["deliveryReason"].as_str().unwrap().contains("gone"),
        "{log:?}"
    );
}

#[test]
fn a_card_that_shows_another_plan_is_not_answered() {
    let s = gemini_setup();
    let home = s.roots.home.clone();
    let GeminiOnCard {
        tmux,
        pane,
        req,
        hook: _,
        _app,
    } = gemini_on_card(&s, &recording_card(&home, "Rewrite the auth layer"));
    wait_for("the card on screen", || {
        tmux.capture(&pane)
            .contains("Type your feedback")
            .then_some(())
    });
    let outcome = gate::decide_with(&s.roots, &req.id, approve_auto(), &fast_delivery()).unwrap();
    assert_eq!(outcome.delivery, gate::Delivery::Failed, "{outcome:?}");
    assert!(
        outcome
            .message
            .contains("does not show this request's plan"),
        "{outcome:?}"
    );
    assert!(!home.join("key").exists());
    // Still open, still waiting: the person can answer in the terminal.
    assert_eq!(gate::pending(&s.roots)[0].status, GateStatus::Waiting);
    // A decision that did not go is not an approval: the log says it failed and why, the plan
    // is not approved, and no version is pinned for it.
    let (code, text, _) = plandeck(&home, &["log"]);
    assert_eq!(code, 0);
    assert!(text.contains("approve FAILED"), "{text}");
    assert!(text.contains("not delivered: "), "{text}");
    assert!(!text.contains(" approved "), "{text}");
    let plan = s.plan_file.to_str().unwrap();
    let (code, shown, err) = plandeck(&home, &["plans", "show", plan, "--json"]);
    assert_eq!(code, 0, "{err}");
    let shown: serde_json::Value = serde_json::from_str(&shown).unwrap();
    // Not approved: its agent still waits on it.
    assert_eq!(shown["plan"]["state"], "waiting", "{shown}");
    let approvals = plandeck_core::review::Approvals::load(&s.roots.data);
    assert_eq!(approvals.approved_hash(&s.plan_file), None);
    // And a later decision may go: the failed one was withdrawn.
    let again = gate::decide_with(
        &s.roots,
        &req.id,
        GateDecision::Reject {
            feedback: "no".into(),
        },
        &fast_delivery(),
    );
    assert!(again.is_ok(), "{again:?}");
}

#[test]
fn the_claude_hook_closes_its_request_when_the_agent_dies() {
    let s = claude_setup();
    let _app = gate::app_heartbeat(&s.roots).unwrap();
    let mut agent = Command::new("sleep")
        .arg("1000")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (hook, req) = hook_for_agent(&s, agent.id(), Duration::from_secs(600));
    agent.kill().unwrap();
    agent.wait().unwrap();
    wait_for("the hook to notice", || hook.is_finished().then_some(()));
    let out = hook.join().unwrap();
    assert_no_decision(&out);
    assert!(out.stderr.contains("agent went away"), "{out:?}");
    assert_status(&s.roots, &req, GateStatus::AgentGone);
}

#[test]
fn a_hung_tmux_is_stopped_and_the_decision_says_why() {
    let s = gemini_setup();
    let home = s.roots.home.clone();
    let _app = gate::app_heartbeat(&s.roots).unwrap();
    let mut o = opts(Duration::from_secs(60));
    o.hook_pid = dead_pid();
    gate::hook_gemini(&s.roots, &s.stdin, o);
    let mut req = wait_request(&s.roots);
    // A live agent in a pane, as far as the request knows; then tmux hangs.
    let mut agent = Command::new("sleep")
        .arg("1000")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", agent.id())).unwrap();
    let start: u64 = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .nth(19)
        .unwrap()
        .parse()
        .unwrap();
    req.tmux_pane = Some("%0".into());
    req.agent_pid = Some(agent.id());
    req.agent_start_time = Some(start);
    let file = s.roots.data.join(format!("gate/requests/{}.json", req.id));
    std::fs::write(&file, serde_json::to_vec(&req).unwrap()).unwrap();
    let fake = home.join("fakebin");
    std::fs::create_dir_all(&fake).unwrap();
    common::write_executable(&fake.join("tmux"), "#!/bin/sh\nexec sleep 1000\n", 0o755);
    let path = format!(
        "{}:{}",
        fake.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_plandeck-cli"))
        .args(["reject", &req.id, "--feedback", "split step 2"])
        .env("HOME", &home)
        .env("PATH", path)
        .env_remove("DISPLAY")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The test's own bound: without one in Plandeck, the CLI would wait for tmux forever.
    let start_wait = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start_wait.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = agent.kill();
            panic!("plandeck reject hung on a hung tmux");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("did not answer"), "{err}");
    assert_eq!(gate::pending(&s.roots)[0].status, GateStatus::Waiting);
    let _ = agent.kill();
    let _ = agent.wait();
}

/// A comment on `quote` of `plan`, made as a reviewer makes it; its id.
fn comment_on(home: &Path, plan: &Path, quote: &str, text: &str) -> String {
    let plan = plan.to_str().unwrap();
    let args = ["comment", plan, "--quote", quote, "--text", text, "--json"];
    let (code, out, err) = plandeck(home, &args);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    v["id"].as_str().unwrap().to_owned()
}

fn comment_json(home: &Path, plan: &Path, id: &str) -> serde_json::Value {
    let (code, out, err) = plandeck(home, &["comments", plan.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{err}");
    let all: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
    all.into_iter()
        .find(|c| c["id"] == id)
        .expect("the comment")
}

/// The stdin of a request for `plan` (the setup's stdin with another plan text).
fn stdin_for(s: &Setup, plan: &str) -> Vec<u8> {
    let mut input: serde_json::Value = serde_json::from_slice(&s.stdin).unwrap();
    input["tool_input"]["plan"] = serde_json::json!(plan);
    serde_json::to_vec(&input).unwrap()
}

fn deny_message(out: &HookOutcome) -> String {
    let v: serde_json::Value = serde_json::from_str(out.stdout.trim()).expect("hook JSON");
    assert_eq!(
        v["hookSpecificOutput"]["decision"]["behavior"], "deny",
        "{v}"
    );
    v["hookSpecificOutput"]["decision"]["message"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn a_rejected_request_carries_the_open_comments_and_the_log_records_them() {
    let s = claude_setup();
    let _app = gate::app_heartbeat(&s.roots).unwrap();
    // Two comments on the plan; the agent then revises it: one stays open, one is outdated.
    let kept = comment_on(
        &s.home,
        &s.plan_file,
        "Return a cursor",
        "opaque, not an offset:\n  base64 of the last id",
    );
    let gone = comment_on(&s.home, &s.plan_file, "3. Write tests", "which ones?");
    let revised = s.plan.replace("3. Write tests", "3. Ship it");
    std::fs::write(&s.plan_file, &revised).unwrap();
    let hook = spawn_hook(&s.roots, &stdin_for(&s, &revised), Duration::from_secs(60));
    let req = wait_request(&s.roots);

    let (code, out, err) = plandeck(&s.home, &["reject", &req.id, "--feedback", "Close, but:"]);
    assert_eq!(code, 0, "{out}{err}");
    let message = deny_message(&hook.join().unwrap());
    assert_eq!(
        message,
        "Close, but:\n\nComment on the plan (1), each on the quoted text:\n\n\
         1. On \"Return a cursor\":\n   opaque, not an offset:\n     base64 of the last id"
    );
    let log = log_json(&s.home);
    assert_eq!(log[0]["requestId"], req.id.as_str());
    assert_eq!(log[0]["feedback"], message.as_str());
    assert_eq!(log[0]["comments"], serde_json::json!([kept]));
    let sent = comment_json(&s.home, &s.plan_file, &kept);
    assert_eq!(sent["sentWith"], serde_json::json!([log[0]["time"]]));
    let outdated = comment_json(&s.home, &s.plan_file, &gone);
    assert_eq!(outdated["status"], "outdated");
    assert_eq!(outdated["sentWith"], serde_json::json!([]));
}

#[test]
fn a_request_rejected_with_no_comments_sends_the_typed_words_alone() {
    let s = claude_setup();
    let _app = gate::app_heartbeat(&s.roots).unwrap();
    let id = comment_on(&s.home, &s.plan_file, "Return a cursor", "opaque");
    let hook = spawn_hook(&s.roots, &s.stdin, Duration::from_secs(60));
    let req = wait_request(&s.roots);
    let args = ["reject", &req.id, "--feedback", "not now", "--no-comments"];
    let (code, out, err) = plandeck(&s.home, &args);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(deny_message(&hook.join().unwrap()), "not now");
    assert_eq!(log_json(&s.home)[0]["comments"], serde_json::json!([]));
    let c = comment_json(&s.home, &s.plan_file, &id);
    assert_eq!(
        (&c["status"], &c["sentWith"]),
        (&serde_json::json!("open"), &serde_json::json!([]))
    );
}

#[test]
fn an_approved_request_carries_the_open_comments_as_reviewer_notes() {
    let s = claude_setup();
    let _app = gate::app_heartbeat(&s.roots).unwrap();
    let id = comment_on(&s.home, &s.plan_file, "Return a cursor", "opaque, please");
    let hook = spawn_hook(&s.roots, &s.stdin, Duration::from_secs(60));
    let req = wait_request(&s.roots);
    let claude = claude_takes_the_hooks_answer(&s.transcript, hook);
    // The plan file gets the notes, and the hook hands that text to Claude Code.
    let (code, out, err) = plandeck(&s.home, &["approve", &req.id]);
    assert_eq!(code, 0, "{out}{err}");
    let notes = "## Reviewer notes\n\n1. On \"Return a cursor\":\n   opaque, please";
    let with_notes = format!("{}\n\n{notes}\n", s.plan.trim_end());
    assert_eq!(std::fs::read_to_string(&s.plan_file).unwrap(), with_notes);
    let out = claude.join().unwrap();
    assert_eq!(allow_of(&out, &s.plan_file, "auto"), with_notes);
    let log = log_json(&s.home);
    assert_eq!(log[0]["decision"], "approved");
    assert_eq!(log[0]["edited"], true);
    assert_eq!(log[0]["feedback"], notes);
    assert_eq!(log[0]["comments"], serde_json::json!([id]));
    let c = comment_json(&s.home, &s.plan_file, &id);
    assert_eq!(c["sentWith"], serde_json::json!([log[0]["time"]]));
}

#[test]
fn a_hostile_comment_reaches_the_hook_as_text_without_control_characters() {
    let s = claude_setup();
    let _app = gate::app_heartbeat(&s.roots).unwrap();
    let marker = s.home.join("ran");
    let hostile = format!(
        "- $(touch {m}) `rm -rf ~`\u{1b}[201~\u{3}\nsecond line <script>alert(1)</script>",
        m = marker.display()
    );
    comment_on(&s.home, &s.plan_file, "Write tests", &hostile);
    let hook = spawn_hook(&s.roots, &s.stdin, Duration::from_secs(60));
    let req = wait_request(&s.roots);
    let (code, out, err) = plandeck(&s.home, &["reject", &req.id]);
    assert_eq!(code, 0, "{out}{err}");
    let message = deny_message(&hook.join().unwrap());
    assert!(
        message.contains(&format!(
            "   - $(touch {m}) `rm -rf ~`[201~",
            m = marker.display()
        )),
        "{message:?}"
    );
    assert!(
        message.contains("\n   second line <script>alert(1)</script>"),
        "{message:?}"
    );
    assert!(
        !message.chars().any(|c| c.is_control() && c != '\n'),
        "no control characters: {message:?}"
    );
    assert!(!marker.exists(), "nothing the comment says was run");
}

// ---- exactly once: concurrent deciders ----

/// A Gemini-like card that takes one answer: `1`/`2` close it; `3` keeps it up with the feedback
/// typed in place of that choice, until Enter. The first key goes to `<dir>/key`, the feedback to
/// `<dir>/got`; whatever is typed once the card is gone goes to `<dir>/extra` (a prompt, where a
/// second decider's keys would land).
fn one_answer_card(dir: &Path) -> String {
    let card = |third: &str| {
        format!("printf 'Ready to start?\\n\\nGemini plan\\n\\n 1. Yes, automatically accept edits\\n 2. Yes, manually accept edits\\n 3. {third}'\n")
    };
    format!(
        "{first}printf '\\033[?2004h'\nstty raw -echo\nIFS= read -rsn1 k\nprintf '%s' \"$k\" > {dir}/key\nif [ \"$k\" = 3 ]; then\nclear\n{second}perl -e '$/ = \"\\r\"; my $l = <STDIN>; open(my $f, \">\", \"{dir}/got\") or die; print $f $l;'\nfi\nclear\necho 'prompt>'\nexec cat > {dir}/extra\n",
        first = card("Type your feedback...\\n"),
        second = card(""),
        dir = dir.display()
    )
}

/// The window and two `plandeck` processes decide one request at the same instant, many times
/// over: exactly one decision reaches the card and the log; the others type nothing and say who
/// decided.
#[test]
fn concurrent_deciders_deliver_exactly_one_decision() {
    use std::sync::{Arc, Barrier};
    for round in 0..6 {
        let s = gemini_setup();
        let home = s.roots.home.clone();
        let GeminiOnCard {
            tmux,
            pane,
            req,
            hook: _,
            _app,
        } = gemini_on_card(&s, &one_answer_card(&home));
        wait_for("the card", || {
            tmux.capture(&pane)
                .contains("Type your feedback")
                .then_some(())
        });
        let start = Arc::new(Barrier::new(3));
        let window = {
            let (roots, id, start) = (s.roots.clone(), req.id.clone(), start.clone());
            let decision = if round % 2 == 0 {
                approve_auto()
            } else {
                GateDecision::Reject {
                    feedback: "window: split step 2".into(),
                }
            };
            std::thread::spawn(move || {
                start.wait();
                gate::decide_with(
                    &roots,
                    &id,
                    decision,
                    &DeliveryOptions {
                        by: "the Plandeck window".into(),
                        ..fast_delivery()
                    },
                )
            })
        };
        let cli = |args: Vec<String>| {
            let (home, start) = (home.clone(), start.clone());
            std::thread::spawn(move || {
                let mut cmd = Command::new(env!("CARGO_BIN_EXE_plandeck-cli"));
                cmd.args(&args)
                    .env("HOME", &home)
                    .env_remove("XDG_DATA_HOME")
                    .env_remove("XDG_CONFIG_HOME")
                    .env_remove("DISPLAY");
                start.wait();
                cmd.output().unwrap()
            })
        };
        let approving = cli(vec!["approve".into(), req.id.clone(), "--json".into()]);
        let rejecting = cli(vec![
            "reject".into(),
            req.id.clone(),
            "--feedback".into(),
            "cli: keep it".into(),
            "--json".into(),
        ]);
        let window = window.join().unwrap();
        let outs = [approving.join().unwrap(), rejecting.join().unwrap()];

        let mut delivered = 0;
        match &window {
            Ok(o) => {
                assert!(o.delivered, "round {round}: {o:?}");
                delivered += 1;
            }
            Err(e @ (GateError::AlreadyDeciding { .. } | GateError::AlreadyDecided { .. })) => {
                assert!(e.to_string().contains("nothing was typed"), "{e}");
            }
            Err(e) => panic!("round {round}: the window failed otherwise: {e}"),
        }
        for out in &outs {
            let stdout = String::from_utf8_lossy(&out.stdout);
            if out.status.code() == Some(0) {
                delivered += 1;
            } else {
                let v: serde_json::Value = serde_json::from_str(&stdout)
                    .unwrap_or_else(|e| panic!("round {round}: {e}: {stdout} {out:?}"));
                assert_eq!(v["error"]["kind"], "conflict", "round {round}: {v}");
                let msg = v["error"]["message"].as_str().unwrap();
                assert!(
                    msg.contains("already decided") || msg.contains("being decided"),
                    "round {round}: {msg}"
                );
            }
        }
        assert_eq!(
            delivered, 1,
            "round {round}: {window:?} {outs:?} — one decision must go, exactly"
        );
        // One answer on the card, nothing typed after it closed.
        let key = wait_for("the answer", || {
            std::fs::read_to_string(home.join("key"))
                .ok()
                .filter(|k| !k.is_empty())
        });
        assert_eq!(key.len(), 1, "round {round}: {key:?}");
        wait_for("the card to close", || {
            tmux.capture(&pane).contains("prompt>").then_some(())
        });
        // A barrier typed now is all the prompt got: no key reached it after the card closed.
        assert_eq!(
            Recording::at(&home.join("extra")).settled_in(&tmux, &pane),
            "",
            "round {round}: keys reached the prompt after the card closed"
        );
        // The log holds one outcome for the request.
        let for_request: Vec<_> = log_json(&home)
            .into_iter()
            .filter(|d| d["requestId"] == req.id.as_str())
            .collect();
        assert_eq!(for_request.len(), 1, "round {round}: {for_request:?}");
        assert_eq!(for_request[0]["delivery"], "delivered");
        // Later deciders are told who decided.
        let late = gate::decide(
            &s.roots,
            &req.id,
            GateDecision::Reject {
                feedback: "too late".into(),
            },
        )
        .unwrap_err();
        assert!(
            matches!(late, GateError::AlreadyDecided { .. }),
            "round {round}: {late}"
        );
        assert!(late.to_string().contains(" by "), "{late}");
    }
}

/// A decision is about the version the reviewer read (issue 33): `--expect-hash` (the listing's
/// `planHash`) is refused once the plan file was rewritten, and a rewrite nobody made in Plandeck
/// is never handed to the agent as the person's edit ("Approved Plan (edited by user)"), whatever
/// hash comes with the approval: the agent gets the text it submitted and the reviewer read.
#[test]
fn a_decision_is_tied_to_the_version_read_and_a_rewritten_plan_is_never_sent_as_an_edit() {
    let s = claude_setup();
    let _app = gate::app_heartbeat(&s.roots).unwrap();
    // A headless agent: `claude -p` in its own arguments, no terminal. (`; :` keeps `sh` from
    // exec-ing `sleep`, which would drop those arguments: a race with the hook reading them.)
    let mut agent = Command::new("sh")
        .args(["-c", "sleep 60; :", "claude", "-p"])
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let (hook, req) = hook_for_agent(&s, agent.id(), Duration::from_secs(60));
    assert!(req.headless, "{req:?}");
    let read = plandeck_core::review::store::hash(s.plan.as_bytes());
    assert_eq!(req.plan_hash.as_deref(), Some(read.as_str()));
    assert_eq!(
        req.plan_read, None,
        "the file holds what the agent submitted"
    );

    // A background job appends a step after the reviewer read the plan.
    let rewritten = format!("{}\n\n4. Push to production\n", s.plan.trim_end());
    std::fs::write(&s.plan_file, &rewritten).unwrap();
    let rewritten_hash = plandeck_core::review::store::hash(rewritten.as_bytes());
    let error_of = |args: &[&str]| {
        let (code, out, err) = plandeck(&s.home, args);
        assert_ne!(code, 0, "{out}{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        (
            v["error"]["kind"].as_str().unwrap().to_owned(),
            v["error"]["message"].as_str().unwrap().to_owned(),
        )
    };
    // The version read is refused: the file holds another.
    let (kind, message) = error_of(&["approve", &req.id, "--expect-hash", &read, "--json"]);
    assert_eq!(kind, "conflict", "{message}");
    assert!(message.contains("changed since you read it"), "{message}");
    // A listing now names the rewritten version, with its text to compare.
    let (code, out, _) = plandeck(&s.home, &["pending", "--json"]);
    assert_eq!(code, 0);
    assert!(out.contains(&rewritten_hash), "{out}");
    assert!(out.contains("Push to production"), "{out}");
    // Approving the rewritten version (a window that re-listed), or with no version named: the
    // rewrite is not the person's edit, so it is refused with its reason, nothing sent.
    for args in [
        vec![
            "approve",
            &req.id,
            "--expect-hash",
            &rewritten_hash,
            "--json",
        ],
        vec!["approve", &req.id, "--json"],
    ] {
        let (kind, message) = error_of(&args);
        assert_eq!(kind, "refused", "{message}");
        assert!(
            message.contains("no longer holds the plan the agent submitted"),
            "{message}"
        );
    }
    assert_eq!(
        gate::pending(&s.roots).len(),
        1,
        "the request still waits, nothing was decided"
    );
    assert!(log_json(&s.home).is_empty(), "nothing was recorded");

    // The file back as read: approved, and the agent gets the text it submitted, not an edit.
    std::fs::write(&s.plan_file, &s.plan).unwrap();
    let (code, out, err) = plandeck(
        &s.home,
        &["approve", &req.id, "--expect-hash", &read, "--json"],
    );
    assert_eq!(code, 0, "{out}{err}");
    let outcome: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(outcome["delivered"], true, "{outcome}");
    let answer = hook.join().unwrap();
    assert!(!answer.stdout.contains("Push to production"), "{answer:?}");
    let v: serde_json::Value = serde_json::from_str(answer.stdout.trim()).unwrap();
    assert_eq!(
        v["hookSpecificOutput"]["decision"]["updatedInput"]["plan"], s.plan,
        "{v}"
    );
    let log = log_json(&s.home);
    assert_eq!(log.len(), 1, "{log:?}");
    assert_eq!(log[0]["edited"], false, "{log:?}");
    let _ = agent.kill();
    let _ = agent.wait();
}

/// One decision per plan (issue 26): a decision taken on the plan itself (`plandeck reject
/// <plan>`, as the window's plan view does) while its agent waits answers the agent's request.
#[test]
fn a_plan_decision_on_a_waiting_plan_answers_the_agent() {
    let s = claude_setup();
    let _app = gate::app_heartbeat(&s.roots).unwrap();
    // Short enough that, were the decision only recorded, the hook would give up and the test
    // would fail on its output rather than hang.
    let hook = spawn_hook(&s.roots, &s.stdin, Duration::from_secs(8));
    let req = wait_request(&s.roots);
    let plan = s.plan_file.to_str().unwrap();
    let (code, out, err) = plandeck(
        &s.home,
        &[
            "reject",
            plan,
            "--feedback",
            "From the plan: split step 2",
            "--json",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["route"], "agent", "{v}");
    assert_eq!(v["requestId"], req.id.as_str());
    assert_eq!(v["delivery"], "delivered");
    // The log line's keys are all there (the --json contract), with where it went added.
    assert_eq!(v["decision"], "rejected");
    assert!(v["message"]
        .as_str()
        .unwrap()
        .starts_with("Rejected: your feedback was sent to Claude Code"));
    let out = hook.join().unwrap();
    assert!(
        deny_message(&out).contains("From the plan: split step 2"),
        "{out:?}"
    );
    assert_status(&s.roots, &req, GateStatus::Rejected);
    // One decision, one log line: the gate's.
    let log = log_json(&s.home);
    assert_eq!(log.len(), 1, "{log:?}");
    assert_eq!(log[0]["requestId"], req.id.as_str());
}

#[test]
fn a_plan_decision_with_no_agent_waiting_says_it_was_recorded_only() {
    let s = claude_setup();
    let plan = s.plan_file.to_str().unwrap();
    let (code, out, err) = plandeck(&s.home, &["approve", plan]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.starts_with("Recorded only: no agent is waiting for this plan."),
        "{out}"
    );
    // Approving the same version again records nothing new.
    let (code, out, err) = plandeck(&s.home, &["approve", plan, "--json"]);
    assert_eq!(code, 0, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["route"], "alreadyApproved", "{v}");
    assert_eq!(v["decision"], "approved");
    assert_eq!(log_json(&s.home).len(), 1);
}

#[test]
fn a_plan_decision_on_another_version_than_the_waiting_one_is_recorded_only() {
    let s = claude_setup();
    let (_app, hook, req) = claude_waiting(&s);
    // The file moved on since the agent submitted its plan: the request waits for another text.
    std::fs::write(&s.plan_file, format!("{}\n\n5. Added later.\n", s.plan)).unwrap();
    let plan = s.plan_file.to_str().unwrap();
    let (code, out, err) = plandeck(&s.home, &["reject", plan, "--feedback", "no", "--json"]);
    assert_eq!(code, 0, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["route"], "recordedOnly", "{v}");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("waits with another version of this plan"),
        "{v}"
    );
    assert!(gate::pending(&s.roots).iter().any(|r| r.id == req.id));
    gate::decide(
        &s.roots,
        &req.id,
        GateDecision::Reject {
            feedback: "done".into(),
        },
    )
    .unwrap();
    hook.join().unwrap();
}

/// A plan an agent waits on right now is listed `waiting`, with the request, before any other
/// state (its file was approved in Plandeck before); once decided it shows Plandeck's decision.
#[test]
fn a_plan_an_agent_waits_on_is_listed_waiting() {
    let s = claude_setup();
    let (code, _, err) = plandeck(&s.home, &["approve", s.plan_file.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let (_app, hook, req) = claude_waiting(&s);
    let state_of = |home: &Path| {
        let (code, out, err) = plandeck(home, &["plans", "list", "--json"]);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        v.as_array()
            .unwrap()
            .iter()
            .find(|p| p["path"] == s.plan_file.to_str().unwrap())
            .cloned()
            .unwrap_or_else(|| panic!("{v:#}"))
    };
    let row = state_of(&s.home);
    assert_eq!(row["state"], "waiting", "{row}");
    assert_eq!(row["waitingRequest"], req.id.as_str());
    assert!(row["decidedIn"].is_null());
    let (code, show, _) = plandeck(
        &s.home,
        &["plans", "show", row["id"].as_str().unwrap(), "--json"],
    );
    assert_eq!(code, 0);
    let show: serde_json::Value = serde_json::from_str(&show).unwrap();
    assert_eq!(show["plan"]["state"], "waiting", "{show}");

    let (code, _, err) = plandeck(&s.home, &["reject", &req.id, "--feedback", "smaller steps"]);
    assert_eq!(code, 0, "{err}");
    hook.join().unwrap();
    let row = state_of(&s.home);
    assert_eq!(row["state"], "rejected", "{row}");
    assert_eq!(row["decidedIn"], "plandeck");
    assert!(row["waitingRequest"].is_null());
}

// ---- a Claude Code card left waiting by its hook (issue 34) ----

/// Claude Code whose hook stepped aside (the window closed) and whose own card waits in a tmux
/// pane: its registry entry names the card's process and pane, its transcript ends with the
/// unanswered `ExitPlanMode` call (made a minute ago). `script` is the card. Bind `tmux`.
struct ClaudeAtItsCard {
    tmux: Tmux,
    pane: String,
    /// The hook's request, closed as the window went.
    hook_req: GateRequest,
}

const CARD_SESSION: &str = "fecae38a-0653-4970-8e6f-118f15e00ee0";

fn claude_at_its_card(s: &Setup, script: &str) -> ClaudeAtItsCard {
    let (tmux, pane) = card_pane(&s.home, script);
    wait_for("the card on screen", || {
        tmux.capture(&pane)
            .contains("Tell Claude what to change")
            .then_some(())
    });
    // The session's transcript under its own name, the call made a minute ago.
    let transcript = s
        .roots
        .claude
        .join(format!("projects/-w/{CARD_SESSION}.jsonl"));
    let a_minute_ago =
        plandeck_core::timestamp::format(plandeck_core::timestamp::now() - Duration::from_secs(60));
    let call = serde_json::json!({"type":"assistant","timestamp":a_minute_ago,"sessionId":CARD_SESSION,
        "message":{"role":"assistant","content":[{"type":"tool_use","id":TOOL_USE,"name":"ExitPlanMode",
        "input":{"plan":s.plan,"planFilePath":s.plan_file}}]}});
    std::fs::write(
        &transcript,
        format!("{{\"type\":\"user\",\"message\":{{\"content\":\"hi\"}}}}\n{call}\n"),
    )
    .unwrap();
    let mut input: serde_json::Value = serde_json::from_slice(&s.stdin).unwrap();
    input["transcript_path"] = serde_json::json!(transcript);
    let stdin = serde_json::to_vec(&input).unwrap();
    // The agent is the card's process, its stdin the pane's terminal; its entry names the pane.
    let agent = tmux.pane_pid(&pane);
    std::fs::create_dir_all(s.roots.claude.join("sessions")).unwrap();
    std::fs::write(
        s.roots.claude.join(format!("sessions/{agent}.json")),
        serde_json::json!({"pid":agent,"sessionId":CARD_SESSION,"cwd":"/w",
            "tmux":format!("fake:@0.{pane}"),"status":"waiting"})
        .to_string(),
    )
    .unwrap();

    // The window is up and the hook waits: its request is the plan's, and a listing files no
    // other for the card on screen.
    let app = gate::app_heartbeat(&s.roots).unwrap();
    let hook = spawn_hook(&s.roots, &stdin, Duration::from_secs(60));
    let hook_req = wait_request(&s.roots);
    let listed = pending_json(&s.home);
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["id"], hook_req.id.as_str());
    // The window closes: the hook gives the card back to the person.
    drop(app);
    assert_no_decision(&hook.join().unwrap());
    assert_status(&s.roots, &hook_req, GateStatus::AppStopped);
    ClaudeAtItsCard {
        tmux,
        pane,
        hook_req,
    }
}

/// `plandeck pending --json`, as a list.
fn pending_json(home: &Path) -> Vec<serde_json::Value> {
    let (code, out, err) = plandeck(home, &["pending", "--json"]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

fn standard_claude_card(s: &Setup) -> String {
    claude_card_script(
        s,
        &[
            "Yes, and use auto mode",
            "Yes, manually approve edits",
            "Tell Claude what to change",
        ],
    )
}

/// Issue 34: the window closed with a plan waiting, the hook returned and Claude Code's own card
/// waits. A listing files a request for that card (once), and approving it types the card's key
/// (the row labelled "Yes, and use auto mode"); the log records it delivered.
#[test]
fn a_claude_card_left_by_its_hook_is_listed_and_approved_by_its_key() {
    let s = claude_setup();
    let c = claude_at_its_card(&s, &standard_claude_card(&s));
    let listed = pending_json(&s.home);
    assert_eq!(listed.len(), 1, "{listed:?}");
    let r = &listed[0];
    let id = r["id"].as_str().unwrap().to_owned();
    assert_ne!(id, c.hook_req.id);
    assert_eq!(r["agent"], "claude");
    assert_eq!(r["sessionId"], CARD_SESSION);
    assert_eq!(r["status"], "waiting");
    assert_eq!(r["tmuxPane"], c.pane.as_str());
    assert_eq!(r["planPath"], s.plan_file.to_str().unwrap());
    assert_eq!(r["approvesThroughHook"], false);
    // Listed again: the same request, no second one.
    let again = pending_json(&s.home);
    assert_eq!(again.len(), 1, "{again:?}");
    assert_eq!(again[0]["id"], id.as_str());

    let (code, out, err) = plandeck(&s.home, &["approve", &id]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains(&format!("sent to Claude Code in tmux pane {}", c.pane)),
        "{out}"
    );
    assert_eq!(first_key_read(&c.tmux, &c.pane, &s.home), "1");
    assert_eq!(
        gate::request(&s.roots, &id).unwrap().status,
        GateStatus::Approved
    );
    let log = log_json(&s.home);
    let last = log.last().expect("a log line");
    assert_eq!(last["requestId"], id.as_str(), "{last}");
    assert_eq!(last["decision"], "approved", "{last}");
    assert_eq!(last["delivery"], "delivered", "{last}");
    assert!(pending_json(&s.home).is_empty());
}

/// The card answered in the terminal (it left the screen) before anyone decided in Plandeck: a
/// listing closes its request, and a decision on it is refused with nothing typed.
#[test]
fn a_claude_card_gone_from_the_screen_closes_its_request_and_nothing_is_typed() {
    let s = claude_setup();
    // A card that, once it read a key, is gone, and then reads one more key into `<home>/after`.
    let script = format!(
        "{}read -rsn1 k2\nprintf '%s' \"$k2\" > {after}\nsleep 60\n",
        standard_claude_card(&s).replace("sleep 60\n", ""),
        after = s.home.join("after").display()
    );
    let c = claude_at_its_card(&s, &script);
    let listed = pending_json(&s.home);
    assert_eq!(listed.len(), 1, "{listed:?}");
    let id = listed[0]["id"].as_str().unwrap().to_owned();
    // The person answers the card in the terminal: it leaves the screen.
    assert_eq!(first_key_read(&c.tmux, &c.pane, &s.home), "x");
    wait_for("the card gone", || {
        c.tmux.capture(&c.pane).contains("done").then_some(())
    });
    assert!(pending_json(&s.home).is_empty());
    assert_eq!(
        gate::request(&s.roots, &id).unwrap().status,
        GateStatus::AnsweredInTerminal
    );
    let (code, out, err) = plandeck(&s.home, &["approve", &id]);
    assert_ne!(code, 0, "{out}");
    assert!(err.contains("already closed"), "{err}");
    // The next key the pane reads is the test's own: Plandeck typed nothing.
    c.tmux.keys(&c.pane, &["-l", "y"]);
    let after = wait_for("a key read after the card", || {
        std::fs::read_to_string(s.home.join("after"))
            .ok()
            .filter(|k| !k.is_empty())
    });
    assert_eq!(after, "y", "Plandeck typed a key");
    // And it is never filed again.
    assert!(pending_json(&s.home).is_empty());
}
