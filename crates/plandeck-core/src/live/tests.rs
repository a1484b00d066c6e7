use super::*;
use plandeck_testkit::wait_for;
use std::path::Path;

fn summary(id: &str, state: &str) -> SessionSummary {
    serde_json::from_value(serde_json::json!({
        "agent": "claude", "sessionId": id, "cwd": "/work/api", "state": state,
        "unreadableLines": 0
    }))
    .unwrap()
}

fn by_id(list: &[SessionSummary]) -> HashMap<String, SessionSummary> {
    list.iter()
        .map(|s| (s.session_id.clone(), s.clone()))
        .collect()
}

#[test]
fn a_session_that_starts_waiting_is_told_once_with_what_changed() {
    let before = by_id(&[
        summary("a", "working"),
        summary("b", "waiting_for_input"),
        summary("gone", "idle"),
    ]);
    let now = by_id(&[
        summary("a", "waiting_for_approval"),
        summary("b", "waiting_for_input"),
        summary("new", "waiting_for_input"),
    ]);
    let (changed, started) = sessions_diff(&before, &now);
    assert_eq!(changed.session_ids, ["a", "gone", "new"]);
    assert_eq!(changed.started_waiting, ["a", "new"]);
    assert_eq!(
        started[0].1,
        "Claude Code in api waits for your approval of its plan."
    );
    // Still waiting is not "started waiting".
    let (changed, started) = sessions_diff(&now, &now);
    assert!(changed.session_ids.is_empty() && started.is_empty());
}

fn request(id: &str, pid: u32) -> GateRequest {
    serde_json::from_value(serde_json::json!({
        "id": id, "agent": "gemini", "sessionId": "s", "cwd": "/work/api", "planPath": null,
        "plan": "# Plan\n", "toolUseId": null, "transcriptPath": null, "transcriptOffset": 0,
        "tmuxPane": null, "tmuxSocket": null, "waitingSince": "2026-11-23T10:00:00Z",
        "deadline": "2026-11-23T10:10:00Z", "hookPid": pid, "agentPid": pid,
        "status": "waiting", "closedAt": null, "decision": null
    }))
    .unwrap()
}

fn dead_pid() -> u32 {
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

#[test]
fn gate_requests_arriving_and_ending_are_reported_with_their_ids() {
    let home = tempfile::tempdir().unwrap();
    let roots = Roots::under_home(home.path());
    let requests = roots.data.join("gate/requests");
    std::fs::create_dir_all(&requests).unwrap();
    let events = Arc::new(Mutex::new(Vec::<LiveEvent>::new()));
    let sink = events.clone();
    let live = Live::start(&roots, Arc::new(Mutex::new(None)), move |e| {
        lock(&sink).push(e)
    });
    assert!(
        gate::app_running(&roots),
        "the handle holds the app's presence"
    );

    let write = |req: &GateRequest| {
        crate::durable::write_atomic(
            &requests.join(format!("{}.json", req.id)),
            &serde_json::to_vec(req).unwrap(),
        )
        .unwrap()
    };
    write(&request("r1", std::process::id()));
    let arrived = wait_for("the request to be reported", || {
        lock(&events).iter().find_map(|e| match e {
            LiveEvent::Gate(g) if !g.arrived.is_empty() => Some(g.clone()),
            _ => None,
        })
    });
    assert_eq!(arrived.arrived, ["r1"]);
    assert!(lock(&events)
        .iter()
        .any(|e| matches!(e, LiveEvent::RequestArrived(r) if r.id == "r1")));

    // Its session is told too (the sessions view shows the waiting request).
    assert!(lock(&events)
        .iter()
        .any(|e| matches!(e, LiveEvent::Sessions(s) if s.session_ids == ["s"])));

    // An approval being delivered: the same request, changed.
    let mut approving = request("r1", std::process::id());
    approving.status = crate::gate::GateStatus::Approving;
    write(&approving);
    let updated = wait_for("the changed request to be reported", || {
        lock(&events).iter().find_map(|e| match e {
            LiveEvent::Gate(g) if !g.updated.is_empty() => Some(g.clone()),
            _ => None,
        })
    });
    assert_eq!(updated.updated, ["r1"]);

    // Its hook and agent die: nothing changes on disk, the liveness tick closes it.
    write(&request("r1", dead_pid()));
    let closed = wait_for("the ended request to be reported closed", || {
        lock(&events).iter().find_map(|e| match e {
            LiveEvent::Gate(g) if !g.closed.is_empty() => Some(g.clone()),
            _ => None,
        })
    });
    assert_eq!(closed.closed, ["r1"]);
    assert_eq!(
        gate::request(&roots, "r1").unwrap().status,
        crate::gate::GateStatus::AgentGone
    );
    drop(live);
    assert!(
        !gate::app_running(&roots),
        "dropping the handle ends the presence"
    );
}

/// Issue 36: a hosted ACP session's host rewrites its record as it changes; the window hears of
/// it as `acp:changed` with the session's id (no polling), also when the folder is made after
/// the start. Other files there (a durable write's temporary one) are nobody's id.
#[test]
fn a_hosted_acp_sessions_record_changing_is_reported_with_its_id() {
    let home = tempfile::tempdir().unwrap();
    let roots = Roots::under_home(home.path());
    let events = Arc::new(Mutex::new(Vec::<LiveEvent>::new()));
    let sink = events.clone();
    let _live = Live::start_with(&roots, Arc::new(Mutex::new(None)), false, move |e| {
        lock(&sink).push(e)
    });
    let dir = roots.data.join("acp/sessions");
    crate::durable::create_private_dir(&dir).unwrap();
    std::fs::write(dir.join("notes.txt"), b"x").unwrap();
    crate::durable::write_private(&dir.join("acps-0123abcd.json"), b"{}").unwrap();
    let changed = wait_for("the record's change to be reported", || {
        lock(&events).iter().find_map(|e| match e {
            LiveEvent::Acp(c) => Some(c.clone()),
            _ => None,
        })
    });
    assert_eq!(changed.ids, ["acps-0123abcd"]);
    let (name, payload) = crate::wire::event_of(LiveEvent::Acp(changed)).unwrap();
    assert_eq!(name, "acp:changed");
    assert_eq!(payload, serde_json::json!({ "ids": ["acps-0123abcd"] }));
}

/// A headless process (no Tauri) holds the same live state as the window: the live handle scans
/// the plan history in the background, reports it, follows appended transcript bytes, and stops
/// when dropped.
#[test]
fn a_headless_process_holds_the_live_plan_history() {
    let dir = tempfile::tempdir().unwrap();
    let roots = Roots::under_home(dir.path());
    let transcript = roots.claude.join("projects/-w/s1.jsonl");
    std::fs::create_dir_all(transcript.parent().unwrap()).unwrap();
    let plan = roots.claude.join("plans/gone.md");
    let record = |call: &str, text: &str| {
        serde_json::json!({"type":"assistant","sessionId":"s1","cwd":"/w",
            "timestamp":"2026-01-01T00:00:00Z","message":{"content":[{"type":"tool_use","id":call,
            "name":"ExitPlanMode","input":{"plan":text,"planFilePath":plan}}]}})
        .to_string()
            + "\n"
    };
    std::fs::write(&transcript, record("c1", "# One\n")).unwrap();

    let (tx, rx) = mpsc::channel::<LiveEvent>();
    let tx = Mutex::new(tx);
    let live = Live::start(&roots, Arc::new(Mutex::new(None)), move |e| {
        let _ = lock(&tx).send(e);
    });
    let next_history = |rx: &mpsc::Receiver<LiveEvent>| loop {
        match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(LiveEvent::History(changed)) => return changed,
            Ok(_) => continue,
            Err(e) => panic!("no history event: {e}"),
        }
    };
    assert_eq!(next_history(&rx).plans, 1);
    let history = live.history();
    assert_eq!(history.plans(), crate::history::scan(&roots).unwrap().plans);
    assert!(history.progress().done);

    // The agent submits another plan: only the appended bytes are read, and it is reported.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&transcript)
        .unwrap();
    std::io::Write::write_all(&mut f, record("c2", "# Two\n").as_bytes()).unwrap();
    drop(f);
    wait_for("the appended plan", || {
        let versions: usize = history.plans_now().iter().map(|p| p.versions.len()).sum();
        (versions == 2).then_some(())
    });
    next_history(&rx);

    // Dropped (the roots changed): its watcher goes, nothing more is reported.
    drop(history);
    drop(live);
    while rx.try_recv().is_ok() {}
    std::fs::write(&transcript, record("c3", "# Three\n")).unwrap();
    match rx.recv_timeout(Duration::from_secs(2)) {
        Err(mpsc::RecvTimeoutError::Timeout | mpsc::RecvTimeoutError::Disconnected) => {}
        Ok(e) => panic!("reported after the handle was dropped: {e:?}"),
    }
}

#[test]
fn plan_calls_share_one_discovery_until_something_changes() {
    let home = tempfile::tempdir().unwrap();
    let roots = Roots::under_home(&home.path().canonicalize().unwrap());
    let folder = roots.claude.join("plans");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("a.md"), "# A\n").unwrap();

    let (tx, rx) = mpsc::channel::<LiveEvent>();
    let tx = Mutex::new(tx);
    let live = Live::start(&roots, Arc::new(Mutex::new(None)), move |e| {
        let _ = lock(&tx).send(e);
    });
    let index = live.plan_index();
    let first = plans::list(&roots);
    assert_eq!(first.plans.len(), 1);
    let runs = index.discoveries();
    for _ in 0..5 {
        assert_eq!(plans::list(&roots).plans.len(), 1);
    }
    let id = &first.plans[0].id;
    plans::get_by_id(&roots, id).unwrap();
    plans::resolve(&roots, id).unwrap();
    assert!(plans::owner(&roots, Path::new(&first.plans[0].path)).is_some());
    assert_eq!(
        index.discoveries(),
        runs,
        "nothing changed: every call read the same discovery"
    );

    // A plan written a moment ago is found by id before its watcher has said anything.
    let b = folder.join("b.md");
    std::fs::write(&b, "# B\n").unwrap();
    let b_id = crate::ids::plan_id(&b);
    assert_eq!(plans::get_by_id(&roots, &b_id).unwrap().plan.title, "B");

    // Once the watcher has reported it, listings see it, and share one discovery again.
    wait_for("the new plan to be reported", || loop {
        match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(LiveEvent::Plans(c)) if c.ids.contains(&b_id) => return Some(()),
            Ok(_) => continue,
            Err(e) => panic!("no plan event: {e}"),
        }
    });
    assert_eq!(plans::list(&roots).plans.len(), 2);
    let runs = index.discoveries();
    assert_eq!(plans::list(&roots).plans.len(), 2);
    assert_eq!(index.discoveries(), runs);

    // Without a live handle every call discovers for itself: a plan written now is listed.
    drop((live, index));
    std::fs::write(folder.join("c.md"), "# C\n").unwrap();
    assert_eq!(plans::list(&roots).plans.len(), 3);
}

/// A server holds the presence only while someone is connected to decide: it starts without
/// and takes it, then gives it up, when told.
#[test]
fn the_presence_is_held_only_while_asked_for() {
    let home = tempfile::tempdir().unwrap();
    let roots = Roots::under_home(home.path());
    let live = Live::start_with(&roots, Arc::new(Mutex::new(None)), false, |_| {});
    assert!(!gate::app_running(&roots) && !live.is_present());
    live.set_present(true);
    assert!(gate::app_running(&roots) && live.is_present());
    live.set_present(true);
    assert!(gate::app_running(&roots), "asked twice, held once");
    live.set_present(false);
    assert!(!gate::app_running(&roots) && !live.is_present());
    live.set_present(true);
    drop(live);
    assert!(!gate::app_running(&roots), "and it goes with the handle");
}

/// Issue 34: on a first run no agent has made its folders yet; each one that appears after the
/// window opened is followed, without a restart.
#[test]
fn agent_folders_made_after_the_start_are_followed() {
    let home = tempfile::tempdir().unwrap();
    let roots = Roots::under_home(home.path());
    let events = Arc::new(Mutex::new(Vec::<LiveEvent>::new()));
    let sink = events.clone();
    let sessions = Arc::new(Mutex::new(None));
    let _live = Live::start(&roots, sessions.clone(), move |e| lock(&sink).push(e));
    wait_for("the empty index to load", || {
        lock(&sessions).as_ref().map(|_| ())
    });
    let told = |id: &str| {
        lock(&events)
            .iter()
            .any(|e| matches!(e, LiveEvent::Sessions(s) if s.session_ids.iter().any(|s| s == id)))
    };

    // Claude Code's first session: its projects folder, its transcript, its registry entry.
    let project = roots.claude.join("projects/-work-shop");
    std::fs::create_dir_all(&project).unwrap();
    let record = serde_json::json!({"type": "user", "sessionId": "s-first", "cwd": "/work/shop",
        "timestamp": "2026-11-23T10:00:00Z", "message": {"role": "user", "content": "plan it"}});
    std::fs::write(project.join("s-first.jsonl"), format!("{record}\n")).unwrap();
    wait_for("the first transcript to be told", || {
        told("s-first").then_some(())
    });
    let registry = roots.claude.join("sessions");
    std::fs::create_dir_all(&registry).unwrap();
    let entry = serde_json::json!({"pid": std::process::id(), "sessionId": "s-running",
        "cwd": "/work/shop", "status": "busy", "updatedAt": 0});
    std::fs::write(registry.join("1.json"), entry.to_string()).unwrap();
    wait_for("the running session to be told", || {
        told("s-running").then_some(())
    });

    // Codex CLI's first rollout, in a folder tree made at once.
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/codex-cli-0.169.0/sessions/2026/11/23");
    let rollout = std::fs::read_dir(&fixtures)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .unwrap();
    let day = roots.codex.join("sessions/2026/11/23");
    std::fs::create_dir_all(&day).unwrap();
    std::fs::copy(&rollout, day.join(rollout.file_name().unwrap())).unwrap();
    wait_for("the Codex session to be listed", || {
        lock(&sessions)
            .as_ref()
            .is_some_and(|i| {
                i.sessions()
                    .iter()
                    .any(|s| s.agent == crate::agents::Agent::Codex)
            })
            .then_some(())
    });
    // And a plan Claude Code writes into its plans folder, made now.
    std::fs::create_dir_all(roots.claude.join("plans")).unwrap();
    std::fs::write(roots.claude.join("plans/first-plan.md"), "# First\n").unwrap();
    wait_for("the plan to be told", || {
        lock(&events)
            .iter()
            .any(|e| matches!(e, LiveEvent::Plans(p) if p.paths.iter().any(|p| p.ends_with("first-plan.md"))))
            .then_some(())
    });
}

/// A Claude Code session waiting at its approval card in tmux: (tmux, its transcript). The pane's
/// stand-in writes the registry entry the CLI writes and, when `cleans_up`, removes it on SIGHUP
/// as the CLI does on exit.
fn claude_in_tmux(
    dir: &Path,
    roots: &Roots,
    sid: &str,
    cleans_up: bool,
) -> plandeck_testkit::tmux::Tmux {
    let project = roots.claude.join("projects/-work-shop");
    std::fs::create_dir_all(&project).unwrap();
    let now = time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap();
    let records = [
        serde_json::json!({"type": "user", "sessionId": sid, "cwd": "/work/shop", "timestamp": now,
            "permissionMode": "plan", "message": {"role": "user", "content": "plan it"}}),
        serde_json::json!({"type": "assistant", "sessionId": sid, "timestamp": now,
            "message": {"role": "assistant", "stop_reason": "tool_use", "content": [{"type": "tool_use",
            "id": "toolu_1", "name": "ExitPlanMode", "input": {"plan": "# Plan\n"}}]}}),
    ];
    let text: String = records.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(project.join(format!("{sid}.jsonl")), text).unwrap();
    let registry = roots.claude.join("sessions");
    std::fs::create_dir_all(&registry).unwrap();
    let trap = if cleans_up {
        r#"trap 'rm -f "$reg"; exit 0' HUP TERM"#
    } else {
        "trap '' TERM; trap 'kill -9 $$' HUP"
    };
    let script = format!(
        r#"reg="{registry}/$$.json"
printf '{{"pid":%d,"sessionId":"{sid}","cwd":"/work/shop","status":"waiting","updatedAt":0}}' $$ > "$reg.tmp"
mv "$reg.tmp" "$reg"
{trap}
while :; do sleep 0.2; done
"#,
        registry = registry.display()
    );
    let (tmux, _pane, _pid) = plandeck_testkit::tmux::Tmux::start(dir, &script);
    tmux
}

fn state_in(sessions: &Mutex<Option<SessionIndex>>, sid: &str) -> Option<SessionState> {
    lock(sessions)
        .as_ref()?
        .sessions()
        .into_iter()
        .find(|s| s.session_id == sid)
        .map(|s| s.state)
}

/// Issue 34: a session whose tmux session was killed is over within seconds, not "waiting for
/// approval" for the ten minutes its last records are taken as current.
#[test]
fn a_killed_tmux_session_is_ended_and_one_that_left_its_entry_crashed() {
    for (cleans_up, after) in [(true, SessionState::Ended), (false, SessionState::Crashed)] {
        let home = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(home.path());
        let sid = "s-kill";
        let tmux = claude_in_tmux(home.path(), &roots, sid, cleans_up);
        let sessions = Arc::new(Mutex::new(None));
        let _live = Live::start(&roots, sessions.clone(), |_| {});
        wait_for("the session to wait for approval", || {
            (state_in(&sessions, sid) == Some(SessionState::WaitingForApproval)).then_some(())
        });
        tmux.run(&["kill-server"]);
        wait_for(&format!("the killed session to be {after:?}"), || {
            (state_in(&sessions, sid) == Some(after)).then_some(())
        });
    }
}
