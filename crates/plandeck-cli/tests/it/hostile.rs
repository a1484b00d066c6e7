//! A hostile machine (issue 33, "a hostile machine to test against"): a stand-in for the remote
//! `plandeck serve --stdio`, reached through the same spawn path as ssh (`PLANDECK_SSH` is a
//! script that joins its stdin and stdout to two named pipes), spoken for by the test itself. It
//! hangs, floods (100k events, frames of 16 MiB), answers late, lies about ids and kinds,
//! raises requests without end and disconnects mid-call; meanwhile the window's deck lists and
//! decides this machine's plans as usual, every call to the stand-in ends by its deadline, one
//! listing at a time is asked of it, and what reaches the window stays bounded.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use plandeck_core::config::{Env, Host, Roots};
use plandeck_core::deck::{Deck, WINDOW};
use plandeck_core::elsewhere::{Elsewhere, MachineState};
use plandeck_core::ipc::ErrorKind;
use plandeck_core::live::LiveEvent;
use plandeck_core::machines::{Machines, Timing};
use plandeck_core::route::PlanDecision;
use plandeck_testkit::home::Home;
use plandeck_testkit::wait_until;
use serde_json::{json, Value};

/// The stand-in's pipes, and the "ssh" that joins a connection to them.
struct StandIn {
    dir: tempfile::TempDir,
}

/// One connection as the stand-in sees it.
struct Conn {
    from_client: BufReader<std::fs::File>,
    to_client: std::fs::File,
}

impl StandIn {
    fn new() -> StandIn {
        let dir = tempfile::tempdir().unwrap();
        for pipe in ["in", "out"] {
            let made = std::process::Command::new("mkfifo")
                .arg(dir.path().join(pipe))
                .status()
                .unwrap();
            assert!(made.success(), "mkfifo");
        }
        // Its first word is the folder; ssh's options, the destination and the command follow,
        // and are not read. (The foreground reads stdin: a background command's is /dev/null.)
        std::fs::write(
            dir.path().join("ssh.sh"),
            "d=$1\ncat < \"$d/out\" &\nexec cat > \"$d/in\"\n",
        )
        .unwrap();
        StandIn { dir }
    }

    fn env(&self) -> Env {
        let d = self.dir.path().display();
        Env::from_pairs([("PLANDECK_SSH", format!("sh {d}/ssh.sh {d}").as_str())])
    }

    fn pipe(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Waits for the next connection (the link's "ssh" opening the pipes).
    fn accept(&self) -> Conn {
        let from_client = BufReader::new(std::fs::File::open(self.pipe("in")).unwrap());
        let to_client = std::fs::OpenOptions::new()
            .write(true)
            .open(self.pipe("out"))
            .unwrap();
        Conn {
            from_client,
            to_client,
        }
    }
}

impl Conn {
    fn send(&mut self, line: &str) {
        self.to_client.write_all(line.as_bytes()).unwrap();
        self.to_client.write_all(b"\n").unwrap();
        self.to_client.flush().unwrap();
    }

    /// The next request (heartbeats, empty lines, skipped): its id and method.
    fn request(&mut self) -> (u64, String, Value) {
        loop {
            let mut line = String::new();
            let n = self.from_client.read_line(&mut line).unwrap();
            assert!(n > 0, "the client closed the connection");
            if line.trim().is_empty() {
                continue;
            }
            let v: Value = serde_json::from_str(&line).unwrap();
            return (
                v["id"].as_u64().unwrap(),
                v["method"].as_str().unwrap().to_owned(),
                v["params"].clone(),
            );
        }
    }

    fn answer(&mut self, id: u64, result: Value) {
        self.send(&json!({ "id": id, "result": result }).to_string());
    }

    /// The hello, the subscription and the first reading of the requests waiting there: the
    /// link is connected.
    fn greet(&mut self) {
        self.send(r#"{"hello":{"protocol":1,"version":"6.6.6","instance":"hostile-1"}}"#);
        let (id, method, _) = self.request();
        assert_eq!(method, "subscribe");
        self.answer(id, json!({"gap": true, "seq": 0}));
        let (id, method, _) = self.request();
        assert_eq!(method, "list_pending");
        self.answer(id, json!([]));
    }
}

type Heard = Arc<Mutex<Vec<LiveEvent>>>;

/// A home here with one plan of its own, and the window's deck over it showing the stand-in as
/// `box`.
fn deck_with(stand: &StandIn, timing: Timing) -> (Home, Arc<Machines>, Arc<Deck>, Heard) {
    let home = Home::with_agents();
    let plans = home.claude().join("plans");
    std::fs::create_dir_all(&plans).unwrap();
    std::fs::write(plans.join("here.md"), "# Here\n\n1. Ship here\n").unwrap();
    let heard: Heard = Arc::default();
    let keep = heard.clone();
    let host = Host {
        name: "box".into(),
        ssh: "box".into(),
        forward_agent: false,
    };
    let machines = Arc::new(Machines::with_timing(
        vec![host],
        stand.env(),
        Arc::new(move |e| keep.lock().unwrap().push(e)),
        timing,
    ));
    let roots = Roots::under_home(&home.path().canonicalize().unwrap());
    let deck = Deck::starting(roots, false, Arc::default(), Arc::new(|_| {}))
        .with_elsewhere(machines.clone());
    (home, machines, Arc::new(deck), heard)
}

fn timing(call_patience: Duration) -> Timing {
    Timing {
        first_retry: Duration::from_millis(200),
        max_retry: Duration::from_secs(1),
        listing_patience: Duration::from_millis(300),
        tick: Duration::from_millis(50),
        call_patience,
    }
}

fn connected(machines: &Machines) -> bool {
    machines.statuses()[0].state == MachineState::Connected
}

/// The local plan is listed and decided as usual.
fn decide_here(deck: &Deck) {
    let listing = deck.list_plans().unwrap();
    let plan = listing
        .plans
        .iter()
        .find(|p| p.title == "Here")
        .unwrap_or_else(|| panic!("{listing:?}"));
    assert!(plan.machine.is_none());
    let doc = deck.get_plan(&plan.id).unwrap();
    let outcome = deck
        .decide_plan(
            &plan.id,
            &doc.content_hash,
            PlanDecision::Reject {
                feedback: "Not yet.".into(),
            },
            None,
            WINDOW,
        )
        .unwrap();
    assert!(outcome.decision.is_some(), "{outcome:?}");
}

#[test]
fn a_machine_that_hangs_holds_up_nothing_here_and_its_call_says_not_known_whether_it_went() {
    let stand = StandIn::new();
    let (_home, machines, deck, _heard) = deck_with(&stand, timing(Duration::from_secs(2)));
    let mut conn = stand.accept();
    conn.greet();
    wait_until("box connected", || connected(&machines));

    // From now on it reads and never answers. A listing shows this machine's rows and goes on.
    decide_here(&deck);
    let (_, method, _) = conn.request();
    assert_eq!(method, "list_plans");
    // One listing at a time is asked of it: the next ones show what it last said, ask nothing.
    for _ in 0..5 {
        let listing = deck.list_plans().unwrap();
        assert!(listing.plans.iter().any(|p| p.title == "Here"));
    }
    // A call on it ends at its deadline, saying it is not known whether it went.
    let call = {
        let deck = deck.clone();
        std::thread::spawn(move || {
            deck.decide_plan(
                "@box/p1",
                "0",
                PlanDecision::Reject {
                    feedback: "No.".into(),
                },
                None,
                WINDOW,
            )
        })
    };
    let (late, method, params) = conn.request();
    assert_eq!(
        method, "decide_plan",
        "no second list_plans was asked before it"
    );
    assert_eq!(params["id"], "p1");
    let e = call.join().unwrap().unwrap_err();
    assert_eq!(e.kind, ErrorKind::Unreachable, "{e:?}");
    assert!(
        e.message.contains("not known whether it went"),
        "{}",
        e.message
    );
    // Its late answer changes nothing; the local plan is decided as usual meanwhile.
    conn.answer(late, json!({"decision": null}));
    decide_here(&deck);
    assert!(connected(&machines));
}

#[test]
fn a_flood_of_events_and_huge_frames_reaches_the_window_bounded_as_one_reload() {
    let stand = StandIn::new();
    let (_home, machines, deck, heard) = deck_with(&stand, timing(Duration::from_secs(20)));
    let mut conn = stand.accept();
    conn.greet();
    wait_until("box connected", || connected(&machines));
    heard.lock().unwrap().clear();

    const FLOOD: usize = 100_000;
    let writer = std::thread::spawn(move || {
        let mut all = String::with_capacity(FLOOD * 64);
        for seq in 1..=FLOOD {
            all.push_str(&format!(
                "{{\"event\":\"plans:changed\",\"seq\":{seq},\"payload\":{{\"paths\":[\"/p/{seq}\"],\"ids\":[]}}}}\n"
            ));
        }
        conn.to_client.write_all(all.as_bytes()).unwrap();
        // A frame of 16 MiB and one byte more (over the limit, skipped whole), and one of 16 MiB
        // that is JSON but no frame.
        let mut huge = vec![b'x'; (16 << 20) + 1];
        huge.push(b'\n');
        conn.to_client.write_all(&huge).unwrap();
        let mut junk = vec![b' '; (16 << 20) - 2];
        junk[0] = b'[';
        junk[(16 << 20) - 3] = b']';
        junk.push(b'\n');
        conn.to_client.write_all(&junk).unwrap();
        conn.to_client.flush().unwrap();
        conn
    });
    let mut conn = writer.join().unwrap();

    // After it, the machine still answers, and the window was told to read everything again
    // (a Plans change naming no path) rather than 100k times.
    let reloaded = |heard: &Heard| {
        heard
            .lock()
            .unwrap()
            .iter()
            .any(|e| matches!(e, LiveEvent::Plans(p) if p.paths.is_empty()))
    };
    wait_until("the window told to read everything again", || {
        reloaded(&heard)
    });
    let lister = {
        let deck = deck.clone();
        std::thread::spawn(move || deck.list_plans())
    };
    // (The reload reads the requests waiting there too.)
    loop {
        let (id, method, _) = conn.request();
        if method == "list_pending" {
            conn.answer(id, json!([]));
            continue;
        }
        assert_eq!(method, "list_plans");
        conn.answer(id, json!({"plans": [], "problems": []}));
        break;
    }
    lister.join().unwrap().unwrap();
    let plans_heard = heard
        .lock()
        .unwrap()
        .iter()
        .filter(|e| matches!(e, LiveEvent::Plans(_)))
        .count();
    assert!(
        plans_heard < FLOOD / 10,
        "{plans_heard} of {FLOOD} events reached the window"
    );
    assert!(connected(&machines));
}

#[test]
fn lies_about_ids_and_kinds_are_ignored_and_a_drop_mid_call_is_said() {
    let stand = StandIn::new();
    let (_home, machines, deck, heard) = deck_with(&stand, timing(Duration::from_secs(20)));
    let mut conn = stand.accept();
    conn.greet();
    wait_until("box connected", || connected(&machines));

    let get = |deck: &Arc<Deck>| {
        let deck = deck.clone();
        std::thread::spawn(move || deck.get_plan("@box/p1"))
    };
    // An answer to another id, the same id as a string, then an answer of another kind.
    let call = get(&deck);
    let (id, method, _) = conn.request();
    assert_eq!(method, "get_plan");
    conn.answer(id + 1000, json!({"plan": "not this one"}));
    conn.send(&json!({"id": id.to_string(), "result": 1}).to_string());
    conn.send(r#"{"event":"gate:changed","seq":1,"payload":{"arrived":"not a list"}}"#);
    conn.send(r#"{"event":"no:such","seq":2,"payload":{}}"#);
    conn.answer(id, json!(42));
    let e = call.join().unwrap().unwrap_err();
    assert_eq!(e.kind, ErrorKind::BadInput, "{e:?}");
    assert!(
        e.message
            .contains("box answered what this Plandeck does not read"),
        "{e:?}"
    );
    assert!(
        !heard
            .lock()
            .unwrap()
            .iter()
            .any(|e| matches!(e, LiveEvent::RequestArrived(_))),
        "an event of the wrong shape is dropped"
    );

    // It drops the connection while a call waits: said, nothing sent again.
    let call = get(&deck);
    let (_, method, _) = conn.request();
    assert_eq!(method, "get_plan");
    drop(conn);
    let e = call.join().unwrap().unwrap_err();
    assert_eq!(e.kind, ErrorKind::Unreachable, "{e:?}");
    assert!(e.message.contains("dropped"), "{e:?}");
    wait_until("box unreachable", || {
        machines.statuses()[0].state == MachineState::Unreachable
    });
    decide_here(&deck);
}

/// A waiting request of the stand-in, as its `list_pending` lists it.
fn request(id: &str) -> Value {
    json!({
        "id": id, "agent": "gemini", "sessionId": "s", "cwd": "/w/x", "plan": "",
        "transcriptOffset": 0, "waitingSince": "2026-01-01T00:00:00Z",
        "deadline": "2026-01-01T00:10:00Z", "hookPid": 0, "status": "waiting", "closedAt": null,
    })
}

#[test]
fn a_machine_raising_requests_without_end_is_notified_a_few_times_a_minute() {
    let stand = StandIn::new();
    let (_home, machines, _deck, heard) = deck_with(&stand, timing(Duration::from_secs(20)));
    let mut conn = stand.accept();
    conn.greet();
    wait_until("box connected", || connected(&machines));
    // Ten rounds of twenty new requests each: each round a gate change, then its listing.
    let mut n = 0;
    for round in 1..=10u64 {
        conn.send(
            &json!({"event": "gate:changed", "seq": round,
                "payload": {"arrived": [], "updated": [], "closed": []}})
            .to_string(),
        );
        let (id, method, _) = conn.request();
        assert_eq!(method, "list_pending");
        let pending: Vec<Value> = (0..20)
            .map(|_| {
                n += 1;
                request(&format!("r{n}"))
            })
            .collect();
        conn.answer(id, Value::Array(pending));
    }
    // The last listing was read (its gate change reached the window) …
    wait_until("the tenth listing read", || {
        heard
            .lock()
            .unwrap()
            .iter()
            .filter(|e| matches!(e, LiveEvent::Gate(_)))
            .count()
            >= 10
    });
    let notified = heard
        .lock()
        .unwrap()
        .iter()
        .filter(|e| matches!(e, LiveEvent::RequestArrived(_)))
        .count();
    assert!(
        (1..=5).contains(&notified),
        "{notified} notifications of 200 arrivals"
    );
}

/// Issue 33, finding 7: a machine added from the window is confirmed in a native dialog naming
/// its destination (the shell shows `Deck::machine_to_confirm`'s words); a name or destination
/// that is not one is refused before any dialog.
#[test]
fn adding_a_machine_is_confirmed_naming_its_destination_and_a_bad_one_is_refused_first() {
    let home = Home::with_agents();
    let roots = Roots::under_home(&home.path().canonicalize().unwrap());
    let deck = Deck::starting(roots, false, Arc::default(), Arc::new(|_| {}));
    let ask = deck
        .machine_to_confirm("lab", "me@lab.example", false)
        .unwrap();
    assert!(ask.title.contains("lab (me@lab.example)"), "{ask:?}");
    assert!(ask.text.contains("ssh me@lab.example"), "{ask:?}");
    assert!(ask.text.contains("not forwarded"), "{ask:?}");
    assert!(!ask.destructive);
    // Forwarding the agent there, turned on by the person, is said and warned of.
    let ask = deck
        .machine_to_confirm("lab", "me@lab.example", true)
        .unwrap();
    assert!(
        ask.text.contains("IS forwarded") && ask.destructive,
        "{ask:?}"
    );
    for (name, ssh) in [
        ("lab", "me@-oProxyCommand=id"),
        ("lab", "h$(id)"),
        ("lab", "h;id"),
        ("../x", "lab"),
    ] {
        let e = deck.machine_to_confirm(name, ssh, false).unwrap_err();
        assert_eq!(e.kind, ErrorKind::BadInput, "{name} {ssh}: {e:?}");
    }
    assert!(!home.path().join(".config/plandeck/settings.json").exists());
}

/// `plandeck --host box stop acps-…` against a machine whose answers are hostile: the session's
/// name and folder hold escape sequences, bidi controls and 100k characters, and its list of
/// processes runs to 5000 lines of 1000 characters each with escapes in them. What reaches this
/// terminal is data (no ESC, no bidi control), bounded (the list counted past its first lines),
/// and nothing is ended without `--yes`.
#[test]
fn a_hostile_machines_acp_stop_preview_is_printed_as_bounded_data() {
    use crate::common::{output, plandeck_process};
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let evil = format!("\u{1b}]52;c;eA==\u{7}\u{202e}{}", "x".repeat(100_000));
    let hosted = json!({
        "id": "acps-00000000000000ee", "agent": "claude-acp", "displayName": evil,
        "cwd": format!("/w\u{1b}[2J{evil}"), "sessionId": "s", "state": "idle", "mode": null,
        "modes": [], "gated": true, "ungatedWhy": null,
        "usage": {"inputTokens": null, "outputTokens": null, "costUsd": null},
        "canLoad": true, "problem": null, "hostPid": 1, "hostStartTime": null, "agentPid": 7,
        "started": "2026-11-29T00:00:00Z", "updated": "2026-11-29T00:00:00Z", "entries": [],
        "machine": null
    });
    let processes: Vec<Value> = (0..5000)
        .map(|i| json!({"pid": i + 7, "command": format!("\u{1b}[8m{}", "y".repeat(1000))}))
        .collect();
    std::fs::write(d.join("session.json"), hosted.to_string()).unwrap();
    std::fs::write(d.join("preview.json"), Value::from(processes).to_string()).unwrap();
    // The "ssh": answers each request by its id, the session first, then its processes.
    std::fs::write(
        d.join("ssh.sh"),
        format!(
            r#"d={}
echo '{{"hello":{{"protocol":1,"version":"6.6.6","instance":"1-a"}}}}'
for f in session preview; do
  read -r line
  id=$(printf '%s' "$line" | sed 's/.*"id":\([0-9][0-9]*\)[,}}].*/\1/')
  printf '{{"id":%s,"result":' "$id"; cat "$d/$f.json"; printf '}}\n'
done
cat >/dev/null
"#,
            d.display()
        ),
    )
    .unwrap();
    let ssh = add_stand_in_box(home.path(), d);
    let (code, out, err) = output(
        plandeck_process(home.path())
            .args(["--host", "box", "stop", "acps-00000000000000ee"])
            .env("PLANDECK_SSH", &ssh),
    );
    assert_eq!(code, 0, "{err}");
    for shown in [&out, &err] {
        assert!(
            !shown.contains('\u{1b}') && !shown.contains('\u{7}') && !shown.contains('\u{202e}'),
            "raw control characters reached the terminal"
        );
    }
    assert!(out.len() < 256 * 1024, "{} bytes printed", out.len());
    assert!(out.contains("and 4800 more processes"), "{}", &out[..2000]);
    assert!(
        out.contains("rerun with --yes"),
        "{}",
        &out[out.len() - 500..]
    );
}

/// A hostile machine refusing `--host box send acps-…` with a message of a megabyte, escapes and
/// bidi controls in it: the refusal is said in its words, marked and cut.
#[test]
fn a_hostile_machines_refusal_is_said_marked_and_bounded() {
    use crate::common::{output, plandeck_process};
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let refusal = json!({"kind": "refused", "message": format!(
        "busy \u{1b}]52;c;eA==\u{7}\u{202e}{}", "z".repeat(1 << 20)
    )});
    std::fs::write(d.join("refusal.json"), refusal.to_string()).unwrap();
    std::fs::write(
        d.join("ssh.sh"),
        format!(
            r#"d={}
echo '{{"hello":{{"protocol":1,"version":"6.6.6","instance":"1-a"}}}}'
read -r line
id=$(printf '%s' "$line" | sed 's/.*"id":\([0-9][0-9]*\)[,}}].*/\1/')
printf '{{"id":%s,"error":' "$id"; cat "$d/refusal.json"; printf '}}\n'
cat >/dev/null
"#,
            d.display()
        ),
    )
    .unwrap();
    let ssh = add_stand_in_box(home.path(), d);
    let (code, out, err) = output(
        plandeck_process(home.path())
            .args(["--host", "box", "send", "acps-00000000000000ee", "hi"])
            .env("PLANDECK_SSH", &ssh),
    );
    assert_ne!(code, 0, "{out}");
    assert!(err.contains("box: busy"), "{}", &err[..err.len().min(500)]);
    assert!(
        !err.contains('\u{1b}') && !err.contains('\u{7}') && !err.contains('\u{202e}'),
        "raw control characters reached the terminal"
    );
    assert!(err.len() < 128 * 1024, "{} bytes printed", err.len());
}

/// The window's Stop of another machine's ACP session lists what that machine answers: here 5000
/// processes, one pid twice, commands with escapes and bidi controls. The window gets each pid
/// once (it keys its rows by pid), the commands marked and cut, at most 200 lines and one more
/// counting the rest.
#[test]
fn a_hostile_machines_acp_stop_list_reaches_the_window_marked_unique_and_bounded() {
    let stand = StandIn::new();
    let (_home, machines, deck, _heard) = deck_with(&stand, timing(Duration::from_secs(10)));
    let mut conn = stand.accept();
    conn.greet();
    wait_until("box connected", || connected(&machines));
    let call = {
        let deck = deck.clone();
        std::thread::spawn(move || deck.acp_stop_preview("@box/acps-00000000000000ee"))
    };
    let (id, method, _) = conn.request();
    assert_eq!(method, "acp_stop_preview");
    let mut lines: Vec<Value> = (0..5000)
        .map(|i| json!({"pid": i + 7, "command": format!("\u{1b}[8m\u{202e}{}", "y".repeat(1000))}))
        .collect();
    lines.insert(1, json!({"pid": 7, "command": "again"}));
    conn.answer(id, Value::from(lines));
    let listed = call.join().unwrap().unwrap();
    let mut pids: Vec<u32> = listed.iter().map(|l| l.pid).collect();
    pids.sort_unstable();
    pids.dedup();
    assert_eq!(pids.len(), listed.len(), "a pid listed twice");
    assert_eq!(listed.len(), 201);
    assert_eq!(listed[200].command, "… and 4800 more processes");
    for l in &listed {
        assert!(
            !l.command.contains('\u{1b}') && !l.command.contains('\u{202e}'),
            "{:?}",
            &l.command[..40.min(l.command.len())]
        );
        assert!(l.command.chars().count() <= 300);
    }
}

/// Adds the machine `box` to `home`'s settings, reached through the stand-in `<d>/ssh.sh` (as
/// `PLANDECK_SSH`); returns that `PLANDECK_SSH` for the calls that follow.
fn add_stand_in_box(home: &std::path::Path, d: &std::path::Path) -> String {
    let ssh = format!("sh {}", d.join("ssh.sh").display());
    use crate::common::{output, plandeck_process};
    let (code, out, err) = output(
        plandeck_process(home)
            .args(["hosts", "add", "box", "--ssh", "box"])
            .env("PLANDECK_SSH", &ssh),
    );
    assert_eq!(code, 0, "{out}{err}");
    ssh
}
