//! Plandeck's ACP client against the scripted ACP agent of the repository
//! (`tests/agents/acp-scripted.mjs`, run with node): plans and tool permissions become waiting
//! requests, decisions answer with the agent's own options, and what real agents cannot be made
//! to show (death with a request open, a mode change with no permission asked, hostile text, a
//! flood of updates) is handled.

use std::path::{Path, PathBuf};
use std::sync::mpsc::Receiver;
use std::time::Duration;

use plandeck_core::acp::client::AgentCommand;
use plandeck_core::acp::{
    agent_env, AcpError, Client, DecideError, Event, Outcome, RequestKind, Tracker, Update, Waiting,
};
use serde_json::{json, Value};

const T: Duration = Duration::from_secs(30);
const PLAN: &str =
    "# Plan: add pagination\n\n1. Add `page` and `limit` params\n2. Return a cursor\n3. Write tests\n";

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/agents/acp-scripted.mjs")
}

/// node on the PATH; the test fails loudly without it.
fn node() -> PathBuf {
    std::env::var_os("PATH")
        .and_then(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join("node"))
                .find(|n| n.is_file())
        })
        .expect("node is needed on the PATH for the scripted ACP agent")
}

struct Run {
    client: Client,
    events: Receiver<Event>,
    tracker: Tracker,
    log: PathBuf,
    sid: String,
    dir: tempfile::TempDir,
}

impl Run {
    fn start(scenario: &str) -> Run {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("agent-read.jsonl");
        let cmd = AgentCommand {
            program: node(),
            args: vec![
                script().to_string_lossy().into_owned(),
                "--scenario".into(),
                scenario.into(),
                "--log".into(),
                log.to_string_lossy().into_owned(),
            ],
            env: agent_env(&[], std::env::vars()),
            cwd: dir.path().to_owned(),
        };
        let (client, events) = Client::spawn(&cmd).unwrap();
        let caps = client.initialize(T).unwrap();
        assert_eq!(caps["agentCapabilities"]["loadSession"], true);
        let info = client.new_session(dir.path(), T).unwrap();
        assert_eq!(info.current_mode.as_deref(), Some("default"));
        assert!(info.modes.contains(&"plan".to_owned()));
        Run {
            client,
            events,
            tracker: Tracker::new(),
            log,
            sid: info.session_id,
            dir,
        }
    }

    fn plan_mode(&mut self) {
        self.client.set_mode(&self.sid, "plan", T).unwrap();
        self.tracker.mode_set("plan");
    }

    /// Follows events until one is a new waiting request.
    fn next_waiting(&mut self) -> Waiting {
        loop {
            let e = self.events.recv_timeout(T).expect("a permission request");
            if let Some(w) = self.tracker.on_event(&e) {
                return w;
            }
            assert_ne!(e, Event::Exited, "the agent ended before asking");
        }
    }

    /// Follows what has come so far (after a call's answer: everything the agent sent before it).
    fn drain(&mut self) -> Vec<Event> {
        let mut all = Vec::new();
        while let Ok(e) = self.events.try_recv() {
            self.tracker.on_event(&e);
            all.push(e);
        }
        all
    }

    fn until_exit(&mut self) {
        loop {
            let e = self.events.recv_timeout(T).expect("the agent to end");
            self.tracker.on_event(&e);
            if e == Event::Exited {
                return;
            }
        }
    }

    /// The frames the agent read, in order.
    fn agent_read(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    fn answered(&self, rpc_id: &Value) -> Value {
        self.agent_read()
            .into_iter()
            .find(|f| f.get("method").is_none() && &f["id"] == rpc_id)
            .expect("the agent got an answer")
    }

    fn decide(&mut self, d: plandeck_core::acp::Decided) {
        self.client.respond(&d.rpc_id, d.response).unwrap();
    }
}

#[test]
fn a_plan_waits_with_its_text_and_hash_and_approve_answers_with_the_agents_allow_option() {
    let mut run = Run::start("plan");
    run.plan_mode();
    let turn = run.client.prompt(&run.sid, "make a plan").unwrap();
    let w = run.next_waiting();
    assert_eq!(w.kind, RequestKind::Plan);
    assert_eq!(w.plan.as_deref(), Some(PLAN));
    assert_eq!(
        w.plan_hash.as_deref(),
        Some(plandeck_core::review::store::hash(PLAN.as_bytes()).as_str())
    );
    assert_eq!(w.title, "Ready to code?");
    let d = run.tracker.approve(&w.rpc_id, None).unwrap();
    assert_eq!(
        d.outcome,
        Outcome::Approved {
            option_id: "default".into()
        }
    );
    run.decide(d);
    assert_eq!(turn.wait(T).unwrap()["stopReason"], "end_turn");
    run.drain();
    assert_eq!(
        run.answered(&w.rpc_id)["result"],
        json!({"outcome": {"outcome": "selected", "optionId": "default"}})
    );
    // The agent left plan mode after the person approved: still gated.
    assert_eq!(run.tracker.mode(), Some("default"));
    assert!(run.tracker.gated());
}

#[test]
fn reject_answers_with_the_agents_reject_option_and_the_feedback_is_the_next_prompt() {
    let mut run = Run::start("plan");
    run.plan_mode();
    let turn = run.client.prompt(&run.sid, "make a plan").unwrap();
    let w = run.next_waiting();
    let d = run.tracker.reject(&w.rpc_id).unwrap();
    assert_eq!(
        d.outcome,
        Outcome::Rejected {
            option_id: "plan".into()
        }
    );
    run.decide(d);
    assert_eq!(turn.wait(T).unwrap()["stopReason"], "end_turn");
    let feedback =
        "Use keyset pagination, not offsets.\nAnd \"quote\" this; `rm -rf /` stays text.";
    let next = run.client.prompt(&run.sid, feedback).unwrap();
    assert_eq!(next.wait(T).unwrap()["stopReason"], "end_turn");
    let read = run.agent_read();
    assert_eq!(
        run.answered(&w.rpc_id)["result"]["outcome"]["optionId"],
        "plan"
    );
    let prompts: Vec<&Value> = read
        .iter()
        .filter(|f| f["method"] == "session/prompt")
        .collect();
    assert_eq!(prompts.len(), 2);
    assert_eq!(
        prompts[1]["params"]["prompt"],
        json!([{"type": "text", "text": feedback}])
    );
    run.drain();
    assert_eq!(run.tracker.mode(), Some("plan"));
    assert!(run.tracker.gated());
}

#[test]
fn a_tool_permission_is_kind_permission_and_the_file_system_is_refused() {
    let mut run = Run::start("tool");
    let turn = run.client.prompt(&run.sid, "list the files").unwrap();
    let w = run.next_waiting();
    assert_eq!(w.kind, RequestKind::Permission);
    assert_eq!(w.command.as_deref(), Some("ls -la"));
    assert_eq!(w.tool_kind.as_deref(), Some("execute"));
    assert!(w.plan.is_none() && w.plan_hash.is_none());
    // An option of another request, or a reject option, does not approve.
    assert_eq!(
        run.tracker.approve(&w.rpc_id, Some("acceptEdits")),
        Err(DecideError::NotAnOption {
            option_id: "acceptEdits".into()
        })
    );
    assert_eq!(
        run.tracker.approve(&w.rpc_id, Some("reject")),
        Err(DecideError::NotAnAllow {
            option_id: "reject".into()
        })
    );
    let d = run.tracker.approve(&w.rpc_id, Some("always")).unwrap();
    run.decide(d);
    assert_eq!(turn.wait(T).unwrap()["stopReason"], "end_turn");
    assert_eq!(
        run.answered(&w.rpc_id)["result"]["outcome"]["optionId"],
        "always"
    );
    // The agent asked to read /etc/passwd through the client: refused, nothing read.
    let fs = run
        .agent_read()
        .into_iter()
        .find(|f| f.get("error").is_some())
        .expect("the fs request answered");
    assert_eq!(fs["error"]["code"], -32601);
    assert!(!fs.to_string().contains("root:"));
    // A second tool permission, refused.
    let turn = run.client.prompt(&run.sid, "again").unwrap();
    let w = run.next_waiting();
    let d = run.tracker.reject(&w.rpc_id).unwrap();
    assert_eq!(
        d.outcome,
        Outcome::Rejected {
            option_id: "reject".into()
        }
    );
    run.decide(d);
    turn.wait(T).unwrap();
    assert_eq!(
        run.answered(&w.rpc_id)["result"]["outcome"]["optionId"],
        "reject"
    );
}

#[test]
fn an_agent_that_dies_with_a_request_open_leaves_no_outcome() {
    let mut run = Run::start("die");
    run.plan_mode();
    let turn = run.client.prompt(&run.sid, "make a plan").unwrap();
    let w = run.next_waiting();
    run.until_exit();
    assert!(run.tracker.open().is_empty());
    assert_eq!(run.tracker.ended(), &[(w.clone(), Outcome::NoOutcome)]);
    assert_eq!(
        run.tracker.approve(&w.rpc_id, None),
        Err(DecideError::NotWaiting)
    );
    assert!(matches!(turn.wait(T), Err(AcpError::Gone { .. })));
}

#[test]
fn hostile_plan_text_stays_data_and_a_hostile_title_is_one_visible_bounded_line() {
    let mut run = Run::start("hostile");
    run.plan_mode();
    let _turn = run.client.prompt(&run.sid, "make a plan").unwrap();
    let w = run.next_waiting();
    let plan = w.plan.clone().unwrap();
    assert!(plan.contains("<script>alert(1)</script>") && plan.contains('\u{1b}'));
    assert_eq!(
        w.plan_hash.as_deref(),
        Some(plandeck_core::review::store::hash(plan.as_bytes()).as_str())
    );
    assert!(!w.title.chars().any(|c| c.is_control()), "{:?}", w.title);
    assert!(w.title.starts_with("Ready to code? ⟨U+001B⟩[2J"));
    assert!(w.title.chars().count() <= plandeck_core::acp::MAX_TITLE_CHARS + 1);
}

#[test]
fn a_flood_of_updates_unknown_kinds_and_bad_lines_are_read_or_skipped_never_fatal() {
    let mut run = Run::start("flood");
    let _turn = run.client.prompt(&run.sid, "go").unwrap();
    let mut chunks = 0;
    let mut skipped = Vec::new();
    let w = loop {
        let e = run.events.recv_timeout(T).expect("events");
        match &e {
            Event::Update {
                update: Update::Chunk { .. },
                ..
            } => chunks += 1,
            Event::Skipped(why) => skipped.push(why.clone()),
            Event::Exited => panic!("the agent ended"),
            _ => {}
        }
        if let Some(w) = run.tracker.on_event(&e) {
            break w;
        }
    };
    assert_eq!(chunks, 2000);
    // hologram, a kind that is no string, no JSON, a line over 8 MiB, an answer to no call, a
    // notification not served.
    assert_eq!(skipped.len(), 6, "{skipped:?}");
    assert!(skipped.iter().any(|s| s.contains("hologram")));
    assert!(skipped.iter().any(|s| s.contains("over the limit")));
    assert_eq!(w.kind, RequestKind::Plan);
    assert_eq!(run.tracker.skipped(), 6);
}

#[test]
fn leaving_plan_mode_with_no_permission_asked_is_ungated() {
    let mut run = Run::start("ungated");
    run.plan_mode();
    let turn = run.client.prompt(&run.sid, "make a plan").unwrap();
    turn.wait(T).unwrap();
    run.drain();
    assert!(!run.tracker.gated());
    assert!(run
        .tracker
        .ungated_why()
        .unwrap()
        .contains("left plan mode"));
    assert!(run.tracker.open().is_empty());
}

#[test]
fn a_plan_with_no_reject_option_cannot_be_rejected_and_stays_waiting() {
    let mut run = Run::start("nooptions");
    run.plan_mode();
    let turn = run.client.prompt(&run.sid, "make a plan").unwrap();
    let w = run.next_waiting();
    assert_eq!(
        run.tracker.reject(&w.rpc_id),
        Err(DecideError::NoRejectOption)
    );
    assert_eq!(run.tracker.open().len(), 1);
    let d = run.tracker.approve(&w.rpc_id, None).unwrap();
    run.decide(d);
    turn.wait(T).unwrap();
}

#[test]
fn load_and_cancel_reach_the_agent_and_stop_ends_it() {
    let mut run = Run::start("plan");
    let info = run.client.load_session("s1", run.dir.path(), T).unwrap();
    assert_eq!(info.session_id, "s1");
    run.client.cancel("s1").unwrap();
    plandeck_testkit::wait_for("the agent to read the cancel", || {
        run.agent_read()
            .iter()
            .any(|f| f["method"] == "session/cancel" && f["params"]["sessionId"] == "s1")
            .then_some(())
    });
    assert!(run
        .agent_read()
        .iter()
        .any(|f| f["method"] == "session/load"));
    let pid = run.client.pid();
    run.client.stop();
    run.until_exit();
    assert!(!Path::new(&format!("/proc/{pid}")).exists());
}

fn scripted(scenario: &str, log: &Path, cwd: &Path) -> AgentCommand {
    AgentCommand {
        program: node(),
        args: vec![
            script().to_string_lossy().into_owned(),
            "--scenario".into(),
            scenario.into(),
            "--log".into(),
            log.to_string_lossy().into_owned(),
        ],
        env: agent_env(&[], std::env::vars()),
        cwd: cwd.to_owned(),
    }
}

#[test]
fn a_hosted_session_rejects_a_plan_then_sends_the_feedback_as_the_next_turn() {
    use plandeck_core::acp::session::{Choice, Session};
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("read.jsonl");
    let mut s = Session::start(&scripted("plan", &log, dir.path()), dir.path(), true, T).unwrap();
    assert_eq!(s.tracker.mode(), Some("plan"));
    let mut seen = Vec::new();
    let report = s
        .turn("make a plan", |w| {
            seen.push(w.clone());
            Choice::Reject(Some("Smaller steps, please.".into()))
        })
        .unwrap();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].plan.as_deref(), Some(PLAN));
    assert_eq!(report.stop_reason.as_deref(), Some("end_turn"));
    assert_eq!(report.requests.len(), 1);
    assert_eq!(
        report.requests[0].outcome,
        Outcome::Rejected {
            option_id: "plan".into()
        }
    );
    assert!(report.gated);
    let feedback = report.feedback.clone().unwrap();
    let next = s.turn(&feedback, |_| Choice::Reject(None)).unwrap();
    assert!(next.requests.is_empty());
    let read: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let last_prompt = read
        .iter()
        .rev()
        .find(|f| f["method"] == "session/prompt")
        .unwrap();
    assert_eq!(
        last_prompt["params"]["prompt"][0]["text"],
        "Smaller steps, please."
    );
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["requests"][0]["kind"], "plan");
    assert_eq!(json["requests"][0]["outcome"], "rejected");
    assert_eq!(json["requests"][0]["optionId"], "plan");
}

#[test]
fn a_hosted_session_whose_agent_dies_reports_no_outcome() {
    use plandeck_core::acp::session::{Choice, Session};
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("read.jsonl");
    let mut s = Session::start(&scripted("die", &log, dir.path()), dir.path(), true, T).unwrap();
    // The request is seen; the agent is gone before the answer reaches it.
    let report = s.turn("make a plan", |_| Choice::Reject(None));
    let report = match report {
        Ok(r) => r,
        Err(e) => panic!("{e}"),
    };
    assert!(report.agent_ended);
    assert_eq!(report.stop_reason, None);
    // Whether the rejection was written before the pipe closed or not, it reached no agent.
    assert_eq!(report.requests.len(), 1);
    assert_eq!(report.requests[0].outcome, Outcome::NoOutcome);
}

#[test]
fn a_hosted_turn_whose_agent_falls_silent_is_cancelled() {
    use plandeck_core::acp::session::{Choice, Session};
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("read.jsonl");
    let mut s = Session::start(&scripted("silent", &log, dir.path()), dir.path(), true, T).unwrap();
    // Short here, so the cancel comes soon.
    s.cancel_after_silence(Duration::from_millis(200));
    let report = s.turn("make a plan", |_| Choice::Reject(None)).unwrap();
    assert_eq!(report.stop_reason.as_deref(), Some("cancelled"));
    let read = std::fs::read_to_string(&log).unwrap();
    assert_eq!(read.matches("session/cancel").count(), 1, "{read}");
}

/// The members of process group `pgrp` and their command lines, read from /proc.
fn group_of(pgrp: u32) -> Vec<(u32, String)> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|p| {
            std::fs::read_to_string(format!("/proc/{p}/stat")).is_ok_and(|s| {
                s.rsplit_once(')').is_some_and(|(_, rest)| {
                    let f: Vec<&str> = rest.split_whitespace().collect();
                    f.first() != Some(&"Z") && f.get(2) == Some(&pgrp.to_string().as_str())
                })
            })
        })
        .map(|p| {
            let cmd = std::fs::read(format!("/proc/{p}/cmdline")).unwrap_or_default();
            (p, String::from_utf8_lossy(&cmd).replace('\0', " "))
        })
        .collect()
}

/// A process of the agent's own running the watchdog's words (`/bin/sh -c 'read -r line; kill
/// -TERM 0'`) is listed: only the watchdog the host started is left out, so nothing Stop ends is
/// hidden from its list.
#[test]
fn a_process_of_the_agents_posing_as_its_watchdog_is_listed() {
    let dir = tempfile::tempdir().unwrap();
    let script = "sleep 600 | /bin/sh -c 'read -r line; kill -TERM 0' & exec sleep 600".to_owned();
    let cmd = AgentCommand {
        program: "/bin/sh".into(),
        args: vec!["-c".into(), script],
        env: vec![("PATH".into(), std::env::var("PATH").unwrap_or_default())],
        cwd: dir.path().to_owned(),
    };
    let (client, _events) = plandeck_core::acp::client::Client::spawn(&cmd).unwrap();
    let pid = client.pid();
    let posing = |group: &[(u32, String)]| {
        group
            .iter()
            .filter(|(_, c)| c.contains("kill -TERM 0"))
            .count()
    };
    plandeck_testkit::wait_until("the watchdog and the one posing as it", || {
        posing(&group_of(pid)) == 2
    });
    let now = "2026-11-28T20:00:00Z".to_owned();
    let hosted = plandeck_core::acp::host::Hosted {
        session_id: Some("s".into()),
        state: "idle".into(),
        can_load: Some(true),
        host_start_time: None,
        agent_pid: Some(pid),
        ..plandeck_core::acp::host::Hosted::new(
            "acps-00000000000000de",
            "claude-acp",
            "Claude Code (ACP)",
            dir.path().to_string_lossy().into_owned(),
            std::process::id(),
            now,
        )
    };
    let listed = plandeck_core::control::acp_stop_preview(&hosted);
    assert_eq!(
        listed
            .iter()
            .filter(|l| l.command.contains("kill -TERM 0"))
            .count(),
        1,
        "{listed:?}"
    );
    assert_eq!(listed.len(), group_of(pid).len() - 1, "{listed:?}");
}

/// The watchdog ends only the agent's group, whoever wakes it: a line written into its input by
/// a process of the person's (as the agent could, through `/proc/<watchdog>/fd/0`) ends the
/// agent's group and itself, and a process of the person's outside it runs on; a child of the
/// agent that left the group (`setsid`, its own choice) is not the watchdog's to end.
#[test]
fn the_watchdog_woken_by_anyone_ends_only_the_agents_group() {
    let dir = tempfile::tempdir().unwrap();
    let cmd = AgentCommand {
        program: "/bin/sh".into(),
        args: vec![
            "-c".into(),
            "setsid sleep 600 </dev/null >/dev/null 2>&1 & exec sleep 600".into(),
        ],
        env: vec![("PATH".into(), std::env::var("PATH").unwrap_or_default())],
        cwd: dir.path().to_owned(),
    };
    let mut person = std::process::Command::new("sleep")
        .arg("600")
        .spawn()
        .unwrap();
    let (client, _events) = plandeck_core::acp::client::Client::spawn(&cmd).unwrap();
    let pid = client.pid();
    let watchdog = plandeck_testkit::wait_for("the watchdog", || {
        group_of(pid)
            .into_iter()
            .find(|(_, c)| c.contains("kill -TERM 0"))
            .map(|(p, _)| p)
    });
    // The agent's child in a session (and group) of its own.
    let escaped = plandeck_testkit::wait_for("the child that left the group", || {
        std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
            .find(|p| {
                std::fs::read_to_string(format!("/proc/{p}/stat")).is_ok_and(|s| {
                    s.rsplit_once(')').is_some_and(|(_, rest)| {
                        let f: Vec<&str> = rest.split_whitespace().collect();
                        let (me, agent) = (p.to_string(), pid.to_string());
                        f.first() != Some(&"Z")
                            && f.get(1) == Some(&agent.as_str())
                            && f.get(3) == Some(&me.as_str())
                    })
                })
            })
    });
    std::fs::OpenOptions::new()
        .write(true)
        .open(format!("/proc/{watchdog}/fd/0"))
        .and_then(|mut f| std::io::Write::write_all(&mut f, b"\n"))
        .unwrap();
    plandeck_testkit::wait_until("the agent's group to end", || group_of(pid).is_empty());
    assert!(
        person.try_wait().unwrap().is_none(),
        "the person's process ended"
    );
    assert!(
        plandeck_core::process::is_running(escaped, None),
        "what left the group is not the watchdog's"
    );
    let _ = rustix::process::kill_process(
        rustix::process::Pid::from_raw(escaped as i32).unwrap(),
        rustix::process::Signal::TERM,
    );
    person.kill().unwrap();
    person.wait().unwrap();
    drop(client);
}

/// Stop lists what it ends first: the processes of the agent's group, the agent first, read
/// now; the agent's watchdog (in the group, Plandeck's own) is not listed. A record whose host is
/// not the agent's parent (its pid reused, or another host's) lists nothing.
#[test]
fn stop_lists_the_agents_group_the_agent_first_and_not_its_watchdog() {
    let run = Run::start("plan");
    let pid = run.client.pid();
    let group = group_of(pid);
    assert!(
        group.iter().any(|(_, c)| c.contains("kill -TERM 0")),
        "the watchdog is in the agent's group: {group:?}"
    );
    let now = "2026-11-28T20:00:00Z".to_owned();
    let mut hosted = plandeck_core::acp::host::Hosted {
        session_id: Some(run.sid.clone()),
        state: "idle".into(),
        can_load: Some(true),
        host_start_time: None,
        agent_pid: Some(pid),
        ..plandeck_core::acp::host::Hosted::new(
            "acps-00000000000000dd",
            "claude-acp",
            "Claude Code (ACP)",
            run.dir.path().to_string_lossy().into_owned(),
            std::process::id(),
            now,
        )
    };
    let listed = plandeck_core::control::acp_stop_preview(&hosted);
    assert_eq!(listed.len(), group.len() - 1, "{listed:?} of {group:?}");
    assert_eq!(listed[0].pid, pid);
    assert!(listed[0].command.contains("acp-scripted.mjs"), "{listed:?}");
    assert!(
        !listed.iter().any(|l| l.command.contains("kill -TERM 0")),
        "{listed:?}"
    );
    hosted.host_pid = 1;
    assert!(plandeck_core::control::acp_stop_preview(&hosted).is_empty());
}
