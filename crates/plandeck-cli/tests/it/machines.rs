//! The window's machines (issue 24), over a real OpenSSH server on loopback (the kit of
//! `remote.rs`): core's `Machines` keeps the remote connected, the window's deck lists its rows
//! under ids of its own (`@box/…`) naming the machine, sends a decision on one of them to the
//! remote (decided there, recorded there), hears the remote's events, and when sshd goes: shows
//! the machine unreachable since then, keeps its rows as last seen, refuses a decision (nothing
//! queued), and connects again by itself once sshd is back.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use plandeck_core::config::{Env, Host, Roots};
use plandeck_core::deck::{Deck, WINDOW};
use plandeck_core::elsewhere::{Elsewhere, MachineState};
use plandeck_core::gate::GateDecision;
use plandeck_core::ipc::ErrorKind;
use plandeck_core::live::LiveEvent;
use plandeck_core::machines::{Machines, Timing};
use plandeck_core::route::PlanDecision;
use plandeck_testkit::{wait_for, wait_until};

use crate::remote::{run, run_hook, waiting_agent, Machines as Ssh, USER};

fn quick() -> Timing {
    Timing {
        first_retry: Duration::from_millis(200),
        max_retry: Duration::from_secs(1),
        listing_patience: Duration::from_secs(20),
        tick: Duration::from_millis(50),
        call_patience: Duration::from_secs(60),
    }
}

/// The events the machines told, kept for the test to look at.
type Heard = Arc<Mutex<Vec<LiveEvent>>>;

fn connect(m: &Ssh) -> (Arc<Machines>, Deck, Heard) {
    let env = Env::from_pairs([(
        "PLANDECK_SSH",
        format!("ssh -F {}", m.file("ssh_config").display()).as_str(),
    )]);
    let heard: Heard = Arc::default();
    let keep = heard.clone();
    let host = Host {
        name: "box".into(),
        ssh: "plandeck-test".into(),
        forward_agent: false,
    };
    let machines = Arc::new(Machines::with_timing(
        vec![host],
        env,
        Arc::new(move |e| keep.lock().unwrap().push(e)),
        quick(),
    ));
    let roots = Roots::under_home(&m.local.path().canonicalize().unwrap());
    let deck = Deck::starting(roots, false, Arc::default(), Arc::new(|_| {}))
        .with_elsewhere(machines.clone());
    (machines, deck, heard)
}

fn state(machines: &Machines) -> MachineState {
    machines.statuses()[0].state
}

#[test]
fn the_windows_deck_shows_a_machines_rows_decides_there_and_refuses_while_it_is_unreachable() {
    let mut m = Ssh::new(true);
    m.start_sshd();
    let (machines, deck, heard) = connect(&m);
    wait_until("box connected", || {
        state(&machines) == MachineState::Connected
    });
    let status = &machines.statuses()[0];
    assert_eq!(status.version.as_deref(), Some(env!("CARGO_PKG_VERSION")));

    // Its plan is listed here under an id of its own, naming the machine.
    let listing = deck.list_plans().unwrap();
    let plan = listing
        .plans
        .iter()
        .find(|p| p.title == "Ship it")
        .unwrap_or_else(|| panic!("{listing:?}"));
    assert!(plan.id.starts_with("@box/"), "{}", plan.id);
    assert_eq!(plan.machine.as_deref(), Some("box"));
    let id = plan.id.clone();
    let doc = deck.get_plan(&id).unwrap();
    assert!(doc.source.contains("Build the thing"));
    assert_eq!(doc.plan.id, id);

    // A rejection goes there: recorded in the remote's log, none here; the log rows name it.
    let outcome = deck
        .decide_plan(
            &id,
            &doc.content_hash,
            PlanDecision::Reject {
                feedback: "Say which thing.".into(),
            },
            None,
            WINDOW,
        )
        .unwrap();
    let decision = outcome.decision.expect("recorded");
    assert_eq!(decision.machine.as_deref(), Some("box"));
    let log = std::fs::read_to_string(m.remote_data().join("decisions.jsonl")).unwrap();
    assert!(log.contains("Say which thing."), "{log}");
    assert!(!m.local.data().join("decisions.jsonl").exists());
    let decisions = deck.decision_log().unwrap();
    assert_eq!(decisions[0].machine.as_deref(), Some("box"));
    assert_eq!(decisions[0].feedback.as_deref(), Some("Say which thing."));

    // Its agent teams are listed here with the ids of its sessions as they are listed here.
    let team = m.remote.join(".claude/teams/session-4b87e72c");
    std::fs::create_dir_all(&team).unwrap();
    std::fs::write(
        team.join("config.json"),
        r#"{"name":"session-4b87e72c","leadSessionId":"4b87e72c-17f0","members":[
            {"agentId":"team-lead@session-4b87e72c","name":"team-lead","agentType":"team-lead"},
            {"agentId":"planner@session-4b87e72c","name":"planner","planModeRequired":true,"backendType":"tmux"}]}"#,
    )
    .unwrap();
    run(std::process::Command::new("chown")
        .arg("-R")
        .arg(format!("{USER}:"))
        .arg(m.remote.join(".claude/teams")));
    let teams = deck.list_teams().unwrap();
    let theirs = teams
        .iter()
        .find(|t| t.machine.as_deref() == Some("box"))
        .unwrap_or_else(|| panic!("{teams:?}"));
    assert_eq!(
        theirs.lead_session_id.as_deref(),
        Some("@box/4b87e72c-17f0")
    );
    assert_eq!(theirs.members[0].name, "planner");

    // The remote's events come through with its ids namespaced.
    let new_plan = m.remote.join(".claude/plans/next.md");
    std::fs::write(&new_plan, "# Next\n\n1. Then this\n").unwrap();
    run(std::process::Command::new("chown")
        .arg(format!("{USER}:"))
        .arg(&new_plan));
    wait_until("the remote's plan event", || {
        heard.lock().unwrap().iter().any(|e| match e {
            LiveEvent::Plans(c) => c.ids.iter().any(|i| i.starts_with("@box/")),
            _ => false,
        })
    });

    let approve = |seen: &str| {
        let approval = PlanDecision::Approve {
            mode: None,
            edited: None,
        };
        deck.decide_plan(&id, seen, approval, None, WINDOW)
    };

    // sshd goes: unreachable since now, rows kept as last seen, a decision refused.
    m.stop_sshd();
    wait_until("box unreachable", || {
        state(&machines) == MachineState::Unreachable
    });
    let status = &machines.statuses()[0];
    assert!(
        status.problem.is_some() && status.next_try.is_some(),
        "{status:?}"
    );
    let kept = deck.list_plans().unwrap();
    assert!(kept.plans.iter().any(|p| p.id == id), "{kept:?}");
    // A plan read before is shown as it was; a call that changes something is refused.
    let shown = deck.get_plan(&id).unwrap();
    assert_eq!(shown.source, doc.source);
    let refused = approve(&doc.content_hash).unwrap_err();
    assert_eq!(refused.kind, ErrorKind::Unreachable, "{refused}");
    assert!(
        refused.message.contains("unreachable since") && refused.message.contains("never queued"),
        "{refused}"
    );
    let log = std::fs::read_to_string(m.remote_data().join("decisions.jsonl")).unwrap();
    assert_eq!(log.lines().count(), 1, "nothing went: {log}");

    // sshd is back: it connects again by itself, and the decision can be made.
    m.start_sshd();
    wait_until("box connected again", || {
        state(&machines) == MachineState::Connected
    });
    let doc = wait_for("the plan there again", || deck.get_plan(&id).ok());
    approve(&doc.content_hash).unwrap();
    let log = std::fs::read_to_string(m.remote_data().join("decisions.jsonl")).unwrap();
    assert_eq!(log.lines().count(), 2, "{log}");
    // Each change of state was told.
    let told: Vec<MachineState> = heard
        .lock()
        .unwrap()
        .iter()
        .filter_map(|e| match e {
            LiveEvent::Machines(s) => Some(s[0].state),
            _ => None,
        })
        .collect();
    assert!(
        told.windows(2)
            .any(|w| w == [MachineState::Connected, MachineState::Unreachable]),
        "{told:?}"
    );
}

#[test]
fn an_id_of_a_machine_never_reaches_the_local_deck_and_a_local_id_never_the_machine() {
    let mut m = Ssh::new(true);
    m.start_sshd();
    let (machines, deck, _) = connect(&m);
    wait_until("box connected", || {
        state(&machines) == MachineState::Connected
    });
    // A machine that is not in the settings: refused, nothing local tried.
    let e = deck.get_plan("@elsewhere/abc").unwrap_err();
    assert_eq!(e.kind, ErrorKind::NotFound, "{e}");
    // A path where an id goes, through the machine: refused there.
    let e = deck.get_plan("@box//etc/passwd").unwrap_err();
    assert_eq!(e.kind, ErrorKind::BadInput, "{e}");
    assert!(e.message.starts_with("box: "), "{e}");
    // An undo naming a decision of another machine: refused before anything is sent.
    let listing = deck.list_plans().unwrap();
    let id = &listing
        .plans
        .iter()
        .find(|p| p.machine.is_some())
        .unwrap()
        .id;
    let e = deck.undo_decision(id, "local-decision").unwrap_err();
    assert_eq!(e.kind, ErrorKind::BadInput, "{e}");
    drop(machines);
}

#[test]
fn a_request_arriving_on_a_machine_is_told_naming_it_counted_and_decided_there() {
    let mut m = Ssh::new(true);
    m.start_sshd();
    let agent = waiting_agent(&m);
    let (machines, deck, heard) = connect(&m);
    wait_until("box connected", || {
        state(&machines) == MachineState::Connected
    });
    // Its server holds the presence while the window is connected: the hook waits.
    let presence = m.remote_data().join("gate/app.json");
    wait_until("the remote server's presence", || presence.exists());
    let hook = run_hook(&m, &agent);

    // Told as arrived (the desktop notification), naming its machine, and counted in the title.
    let arrived = wait_for("the request told as arrived", || {
        heard.lock().unwrap().iter().find_map(|e| match e {
            LiveEvent::RequestArrived(r) => Some((**r).clone()),
            _ => None,
        })
    });
    assert!(arrived.id.starts_with("@box/"), "{}", arrived.id);
    assert_eq!(arrived.machine.as_deref(), Some("box"));
    assert!(deck.waiting_now().iter().any(|r| r.id == arrived.id));
    // The hash of what it would approve is the remote's, carried back with the decision.
    assert!(arrived.plan_hash.is_some());

    let outcome = deck
        .decide_request(
            &arrived.id,
            GateDecision::Reject {
                feedback: "split step 2".into(),
            },
            None,
            arrived.plan_hash.clone(),
            None,
            WINDOW,
        )
        .unwrap();
    assert_eq!(outcome.request_id, arrived.id);
    let done = hook.join().unwrap();
    let said = String::from_utf8_lossy(&done.stdout);
    assert!(
        said.contains("deny") && said.contains("split step 2"),
        "{said}"
    );
}

/// A session's terminal on the machine (issue 25): a pane of the remote user's own tmux, named by
/// a Claude Code registry file there, is opened through the window's deck: the view, its screen
/// and its output come over the same SSH connection as everything else, under ids of the
/// machine; keys reach the pane only once control is taken; closing the view ends the remote's
/// control client.
#[test]
fn a_sessions_terminal_on_a_machine_streams_over_the_connection_and_takes_keys_once_controlled() {
    use std::os::unix::process::CommandExt;
    use std::process::Command;

    let mut m = Ssh::new(true);
    let user = crate::remote::remote_user();
    let sock = m.remote.join("tmux.sock");
    let script = m.remote.join("pane.sh");
    std::fs::write(
        &script,
        "printf 'remote pane ready\\n'\nwhile IFS= read -r l; do printf 'got:%s\\n' \"$l\"; done\n",
    )
    .unwrap();
    let home = m.remote.clone();
    let as_remote = |args: &[&str]| {
        let out = Command::new("tmux")
            .arg("-u")
            .arg("-S")
            .arg(&sock)
            .args(args)
            .env_clear()
            .env("HOME", &home)
            .env("PATH", "/usr/bin:/bin")
            .uid(user.uid)
            .gid(user.gid)
            .current_dir(&home)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    run(Command::new("chown")
        .arg("-R")
        .arg(format!("{USER}:"))
        .arg(&m.remote));
    let started = as_remote(&[
        "-f",
        "/dev/null",
        "new-session",
        "-d",
        "-s",
        "work",
        "-x",
        "80",
        "-y",
        "20",
        "-P",
        "-F",
        "#{pane_id} #{pane_pid}",
        "bash",
        script.to_str().unwrap(),
    ]);
    let (pane, pid) = started.trim().split_once(' ').unwrap();
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let proc_start = stat[stat.rfind(')').unwrap() + 2..]
        .split(' ')
        .nth(19)
        .unwrap()
        .to_owned();
    let sessions = m.remote.join(".claude/sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    std::fs::write(
        sessions.join(format!("{pid}.json")),
        serde_json::json!({
            "pid": pid.parse::<u32>().unwrap(), "sessionId": "remote-term-1", "cwd": m.remote,
            "procStart": proc_start, "version": "2.1.328", "kind": "interactive",
            "tmux": format!("work:@0.{pane}"), "status": "busy", "updatedAt": 1
        })
        .to_string(),
    )
    .unwrap();
    run(Command::new("chown")
        .arg("-R")
        .arg(format!("{USER}:"))
        .arg(&m.remote));
    wait_until("the pane's first line", || {
        as_remote(&["capture-pane", "-p", "-t", pane]).contains("remote pane ready")
    });

    m.start_sshd();
    let (machines, deck, heard) = connect(&m);
    wait_until("box connected", || {
        state(&machines) == MachineState::Connected
    });
    let id = wait_for("the remote session listed here", || {
        deck.sessions(None)
            .ok()?
            .into_iter()
            .find(|s| s.session_id == "@box/remote-term-1")
    })
    .session_id;

    let view = deck.open_terminal(&id).unwrap();
    assert!(view.view.starts_with("@box/t"), "{}", view.view);
    assert_eq!(view.session_id, id);
    assert_eq!(view.machine.as_deref(), Some("box"));
    assert_eq!((view.screen.cols, view.screen.rows), (80, 20));
    assert!(
        view.screen.data.contains("remote pane ready"),
        "{:?}",
        view.screen.data
    );
    assert_eq!(view.control_refused, None);

    // Read-only until the person takes control; then keys reach the pane there, and its output
    // is heard here under the view's id.
    let refused = deck.type_into_terminal(&view.view, "x\r").unwrap_err();
    assert_eq!(refused.kind, ErrorKind::Refused, "{refused:?}");
    deck.take_terminal_control(&view.view).unwrap();
    deck.type_into_terminal(&view.view, "over ssh\r").unwrap();
    wait_until("the echo heard here", || {
        heard.lock().unwrap().iter().any(|e| {
            matches!(e, LiveEvent::Terminal(plandeck_core::mirror::TerminalEvent::Output(o))
                if o.view == view.view && o.data.contains("got:over ssh"))
        })
    });
    assert!(as_remote(&["capture-pane", "-p", "-t", pane]).contains("got:over ssh"));

    // Closing it ends the control client on the machine.
    assert!(as_remote(&["list-clients", "-F", "#{client_control_mode}"]).contains('1'));
    deck.close_terminal(&view.view).unwrap();
    wait_until("the remote's control client to go", || {
        as_remote(&["list-clients", "-F", "#{client_control_mode}"])
            .trim()
            .is_empty()
    });
    let _ = as_remote(&["kill-server"]);
}
