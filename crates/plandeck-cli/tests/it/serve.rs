//! `plandeck serve --stdio`, the real binary as another machine's Plandeck runs it over SSH: the
//! hello, reads, a decision and the events it causes, a change on disk, the event cursor across
//! subscriptions and server processes, hostile frames, and the end of input.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};

use plandeck_testkit::home::Home;
use plandeck_testkit::PATIENCE;
use serde_json::{json, Value};

/// A client of one server process: frames in order, events set aside while it waits for an
/// answer.
struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    frames: mpsc::Receiver<Value>,
    events: VecDeque<Value>,
    next_id: u64,
    hello: Value,
    /// The seq of every event received, in order.
    seen: Vec<u64>,
    /// What the server said on stderr.
    log: Arc<Mutex<String>>,
}

impl Client {
    /// A server of its own, in the client's process (`--no-daemon`).
    fn start(home: &Path, extra: &[&str]) -> Client {
        let mut args = vec!["--no-daemon"];
        args.extend_from_slice(extra);
        Self::spawn(home, &args)
    }

    /// `plandeck serve --stdio` as ssh runs it: a relay to this user's long-lived server.
    fn through_daemon(home: &Path) -> Client {
        Self::spawn(home, &[])
    }

    fn spawn(home: &Path, extra: &[&str]) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_plandeck"))
            .args(["serve", "--stdio"])
            .args(extra)
            .env_clear()
            .env("HOME", home)
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("SSH_CLIENT", "192.0.2.7 51234 22")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("plandeck serve starts");
        let stdout = child.stdout.take().unwrap();
        let (tx, frames) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let line = line.expect("a line of UTF-8");
                let frame: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("not a JSON frame ({e}): {line}"));
                if tx.send(frame).is_err() {
                    return;
                }
            }
        });
        let log = Arc::new(Mutex::new(String::new()));
        {
            let (stderr, log) = (child.stderr.take().unwrap(), log.clone());
            std::thread::spawn(move || {
                for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                    let mut log = log.lock().unwrap();
                    log.push_str(&line);
                    log.push('\n');
                }
            });
        }
        let stdin = child.stdin.take();
        let mut client = Client {
            child,
            stdin,
            frames,
            events: VecDeque::new(),
            next_id: 1,
            hello: Value::Null,
            seen: Vec::new(),
            log,
        };
        client.hello = client.frame()["hello"].clone();
        assert_eq!(client.hello["protocol"], 1, "{}", client.hello);
        client
    }

    fn frame(&mut self) -> Value {
        let frame = self
            .frames
            .recv_timeout(PATIENCE)
            .expect("the server sends a frame");
        if frame.get("event").is_some() {
            self.seen.push(seq(&frame));
        }
        frame
    }

    fn send_line(&mut self, line: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// The next frame that is not an event (events are kept for [`Client::event`]).
    fn answer(&mut self) -> Value {
        loop {
            let frame = self.frame();
            if frame.get("event").is_some() {
                self.events.push_back(frame);
            } else {
                return frame;
            }
        }
    }

    /// Sends a request and returns its whole answer frame (one request at a time: the server
    /// answers several side by side, each under its id).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send_line(
            json!({ "id": id, "method": method, "params": params })
                .to_string()
                .as_bytes(),
        );
        let answer = self.answer();
        assert_eq!(answer["id"], id, "answers come in order: {answer}");
        answer
    }

    /// The result of `method`, failing the test on an error.
    fn call(&mut self, method: &str, params: Value) -> Value {
        let answer = self.request(method, params);
        assert!(answer.get("error").is_none(), "{method}: {answer}");
        answer["result"].clone()
    }

    /// The error kind of `method`.
    fn refused(&mut self, method: &str, params: Value) -> String {
        let answer = self.request(method, params);
        assert!(
            answer.get("result").is_none(),
            "{method} was not refused: {answer}"
        );
        answer["error"]["kind"].as_str().unwrap().to_owned()
    }

    /// The next event `want` holds for, from those set aside, then from the stream.
    fn event(&mut self, want: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.events.iter().position(&want) {
            return self.events.remove(i).unwrap();
        }
        loop {
            let frame = self.frame();
            assert!(
                frame.get("event").is_some(),
                "an answer nobody asked for: {frame}"
            );
            if want(&frame) {
                return frame;
            }
            self.events.push_back(frame);
        }
    }

    /// Closes stdin and waits for the process; returns its exit code.
    fn end(mut self) -> i32 {
        drop(self.stdin.take());
        self.child.wait().unwrap().code().unwrap_or(-1)
    }
}

fn seq(event: &Value) -> u64 {
    event["seq"].as_u64().expect("an event has a seq")
}

fn presence(home: &Home) -> std::path::PathBuf {
    home.data().join("gate/app.json")
}

/// The server announces itself in the gate while it runs (so hooks wait for a decision).
fn presence_of(home: &Home, client: &Client) -> bool {
    std::fs::read_to_string(presence(home))
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .is_some_and(|app| app["pid"] == client.child.id())
}

fn home_with_plan() -> Home {
    let home = Home::with_agents();
    let plans = home.claude().join("plans");
    std::fs::create_dir_all(&plans).unwrap();
    std::fs::write(plans.join("ship.md"), "# Ship it\n\n1. Build the thing\n").unwrap();
    home
}

/// Waits for the startup's background reads to be done, so that what follows is the only source
/// of events.
/// The server's first reads are done: asked, not waited for as events (they may have come before
/// a subscription that replays nothing).
fn settled(client: &mut Client) {
    plandeck_testkit::wait_until("the history's first scan", || {
        client.call("history_progress", json!({}))["done"] == true
    });
    plandeck_testkit::wait_until("the session index", || {
        client.call("session_index_progress", json!({}))["ready"] == true
    });
}

#[test]
fn a_remote_client_lists_reads_decides_and_hears_every_change_in_order() {
    let home = home_with_plan();
    let mut c = Client::start(home.path(), &[]);
    plandeck_testkit::wait_until("the server's presence in the gate", || {
        presence_of(&home, &c)
    });
    let hello = c.call("hello", json!({ "protocol": 1 }));
    assert_eq!(hello, c.hello);
    // From the first event: what happened before the subscription is replayed, in order.
    let sub = c.call(
        "subscribe",
        json!({ "after": 0, "instance": c.hello["instance"] }),
    );
    assert_eq!(sub["gap"], false, "{sub}");
    let upto = sub["seq"].as_u64().unwrap();
    let replayed: Vec<u64> = c.seen.iter().copied().filter(|s| *s <= upto).collect();
    assert_eq!(replayed, (1..=upto).collect::<Vec<_>>());
    settled(&mut c);

    let listing = c.call("list_plans", json!({}));
    let plans = listing["plans"].as_array().unwrap();
    assert_eq!(plans.len(), 1, "{listing}");
    let id = plans[0]["id"].as_str().unwrap().to_owned();
    let doc = c.call("get_plan", json!({ "id": id }));
    assert_eq!(doc["plan"]["title"], "Ship it");

    // A record-only rejection with feedback: decided on this machine, heard of as a change.
    let outcome = c.call(
        "decide_plan",
        json!({
            "id": id,
            "seenHash": doc["contentHash"],
            "decision": { "decision": "reject", "feedback": "Say which thing." },
            "withComments": true,
        }),
    );
    assert_eq!(outcome["route"], "recordedOnly", "{outcome}");
    let changed = c.event(|e| e["event"] == "plans:changed");
    assert_eq!(changed["payload"]["ids"], json!([id]), "{changed}");
    let listing = c.call("list_plans", json!({}));
    assert_eq!(listing["plans"][0]["state"], "rejected", "{listing}");
    let log = c.call("decision_log", json!({}));
    assert_eq!(log[0]["feedback"], "Say which thing.", "{log}");

    // A plan written on this machine arrives as the next event.
    let before = *c.seen.last().unwrap();
    std::fs::write(
        home.claude().join("plans/next.md"),
        "# Next\n\n1. Then this\n",
    )
    .unwrap();
    let arrived = c.event(|e| {
        e["event"] == "plans:changed"
            && e["payload"]["paths"]
                .as_array()
                .is_some_and(|p| p.iter().any(|p| p.as_str().unwrap().ends_with("next.md")))
    });
    assert!(seq(&arrived) > before);
    assert_eq!(
        c.call("list_plans", json!({}))["plans"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    // Nothing lost, nothing doubled: every seq once, in order.
    let last = *c.seen.last().unwrap();
    assert_eq!(c.seen, (1..=last).collect::<Vec<_>>());

    // The end of input ends the server cleanly: its presence in the gate goes with it.
    assert_eq!(c.end(), 0);
    assert!(!presence(&home).exists(), "the gate presence file is gone");
}

#[test]
fn subscribe_replays_after_a_cursor_and_says_gap_when_the_events_are_gone_or_of_another_server() {
    let home = home_with_plan();
    let mut c = Client::start(home.path(), &["--event-buffer", "5"]);
    let sub = c.call("subscribe", json!({}));
    assert_eq!(sub["gap"], false, "{sub}");
    settled(&mut c);
    let id = c.call("list_plans", json!({}))["plans"][0]["id"].clone();
    for text in ["one", "two", "three"] {
        c.call(
            "add_comment",
            json!({ "id": id, "quote": "Build the thing", "text": text }),
        );
        c.event(|e| e["event"] == "comments:changed");
    }
    let last = *c.seen.last().unwrap();
    assert!(last > 6, "more events than the server keeps: {:?}", c.seen);

    // After `last - 2`: the two events since, again, then the stream.
    let from = c.seen.len();
    let again = c.call(
        "subscribe",
        json!({ "after": last - 2, "instance": c.hello["instance"] }),
    );
    assert_eq!(again["gap"], false, "{again}");
    let upto = again["seq"].as_u64().unwrap();
    let replayed = &c.seen[from..];
    let want: Vec<u64> = (last - 1..=upto).collect();
    assert!(replayed.ends_with(&want), "{replayed:?} ends with {want:?}");

    // After 1: events 2… are no longer kept (five are): a gap, read everything again.
    let gap = c.call("subscribe", json!({ "after": 1 }));
    assert_eq!(gap["gap"], true, "{gap}");
    // A cursor of another server process means nothing here.
    let other = c.call(
        "subscribe",
        json!({ "after": upto, "instance": "another-server" }),
    );
    assert_eq!(other["gap"], true, "{other}");
    // And the stream goes on.
    c.call(
        "add_comment",
        json!({ "id": id, "quote": "Build the thing", "text": "four" }),
    );
    c.event(|e| e["event"] == "comments:changed" && seq(e) > upto);
    assert_eq!(c.end(), 0);
}

/// The long-lived servers of `home` still running (each names itself in its lock).
fn daemons(home: &Home) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir(home.data().join("serve")) else {
        return Vec::new();
    };
    dir.flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "lock"))
        .filter_map(|e| std::fs::read_to_string(e.path()).ok()?.trim().parse().ok())
        .filter(|pid: &u32| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains("serve\0--daemon"))
        })
        .collect()
}

/// Stops the long-lived servers of `home` when dropped.
struct StopDaemons<'a>(&'a Home);

impl Drop for StopDaemons<'_> {
    fn drop(&mut self) {
        for pid in daemons(self.0) {
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
        }
    }
}

#[test]
fn through_the_daemon_a_reconnect_is_the_same_server_and_resumes_from_its_cursor() {
    let home = home_with_plan();
    let _stop = StopDaemons(&home);
    let mut first = Client::through_daemon(home.path());
    let daemon = daemons(&home);
    assert_eq!(daemon.len(), 1, "started on demand");
    plandeck_testkit::wait_until("the server's presence while a client is connected", || {
        std::fs::read_to_string(presence(&home))
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            .is_some_and(|app| app["pid"] == daemon[0])
    });
    first.call("subscribe", json!({}));
    let id = first.call("list_plans", json!({}))["plans"][0]["id"].clone();
    first.call(
        "add_comment",
        json!({ "id": id, "quote": "Build the thing", "text": "Which thing?" }),
    );
    let cursor = seq(&first.event(|e| e["event"] == "comments:changed"));
    let instance = first.hello["instance"].clone();
    assert_eq!(first.end(), 0);
    plandeck_testkit::wait_until("the presence to go with the last client", || {
        !presence(&home).exists()
    });

    // While nobody is connected, the plan changes; the server sees it.
    let text = "# Ship it\n\n1. Build the thing\n2. Ship it\n";
    std::fs::write(home.claude().join("plans/ship.md"), text).unwrap();
    let version = plandeck_core::review::store::version_path(
        &home.data(),
        &plandeck_core::review::store::hash(text.as_bytes()),
    )
    .unwrap();
    plandeck_testkit::wait_until("the server to record the change", || version.exists());

    let mut second = Client::through_daemon(home.path());
    assert_eq!(second.hello["instance"], instance, "the same server");
    assert_eq!(daemons(&home), daemon, "no second one");
    let sub = second.call(
        "subscribe",
        json!({ "after": cursor, "instance": instance }),
    );
    assert_eq!(sub["gap"], false, "{sub}");
    let changed = second.event(|e| e["event"] == "plans:changed");
    assert_eq!(
        seq(&changed),
        cursor + 1,
        "the next event after the cursor: {changed}"
    );
    let upto = sub["seq"].as_u64().unwrap();
    let replayed: Vec<u64> = second.seen.iter().copied().filter(|s| *s <= upto).collect();
    assert_eq!(
        replayed,
        (cursor + 1..=upto).collect::<Vec<_>>(),
        "none lost, none twice"
    );
    assert_eq!(second.end(), 0);
}

#[test]
fn the_daemon_leaves_by_itself_after_its_idle_time_with_no_client_and_takes_its_socket() {
    let home = home_with_plan();
    let _stop = StopDaemons(&home);
    let mut c = Client::spawn(home.path(), &["--idle-exit", "1"]);
    c.call("list_plans", json!({}));
    let daemon = daemons(&home);
    assert_eq!(daemon.len(), 1);
    let serve = home.data().join("serve");
    let socket = std::fs::read_dir(&serve)
        .unwrap()
        .flatten()
        .find(|e| e.path().extension().is_some_and(|x| x == "sock"))
        .expect("its socket")
        .path();
    assert_eq!(c.end(), 0);
    // Gone, or ended and not yet reaped by whoever adopted it.
    plandeck_testkit::wait_until("the idle daemon to leave", || {
        std::fs::read_to_string(format!("/proc/{}/stat", daemon[0])).map_or(true, |stat| {
            stat.rsplit(") ").next().is_some_and(|s| s.starts_with('Z'))
        })
    });
    assert!(!socket.exists(), "its socket goes with it");
    let log = std::fs::read_to_string(serve.join("plandeck.log")).unwrap();
    assert!(log.contains("no client for 1 s: exiting"), "{log}");
    // The next connection starts another one.
    let mut again = Client::through_daemon(home.path());
    again.call("list_plans", json!({}));
    assert_eq!(again.end(), 0);
}

#[test]
fn a_second_server_over_the_same_home_is_another_instance_with_what_the_first_did() {
    let home = home_with_plan();
    let mut first = Client::start(home.path(), &[]);
    first.call("subscribe", json!({ "after": 0 }));
    let id = first.call("list_plans", json!({}))["plans"][0]["id"].clone();
    first.call(
        "add_comment",
        json!({ "id": id, "quote": "Build the thing", "text": "Which thing?" }),
    );
    let cursor = seq(&first.event(|e| e["event"] == "comments:changed"));
    let instance = first.hello["instance"].clone();
    assert_eq!(first.end(), 0);

    // Reconnecting starts another server: the old cursor is a gap, and the state is all there.
    let mut second = Client::start(home.path(), &[]);
    assert_ne!(second.hello["instance"], instance);
    let sub = second.call(
        "subscribe",
        json!({ "after": cursor, "instance": instance }),
    );
    assert_eq!(sub["gap"], true, "{sub}");
    let comments = second.call("list_comments", json!({ "id": id }));
    assert_eq!(comments[0]["text"], "Which thing?", "{comments}");
    assert_eq!(second.end(), 0);
    assert!(!presence(&home).exists());
}

#[test]
fn hostile_and_malformed_frames_are_answered_with_an_error_and_the_server_goes_on() {
    let home = home_with_plan();
    let mut c = Client::start(home.path(), &[]);
    let bad_line = |c: &mut Client, line: &[u8]| {
        c.send_line(line);
        let answer = c.answer();
        assert_eq!(answer["id"], Value::Null, "{answer}");
        answer["error"]["kind"].as_str().unwrap().to_owned()
    };
    assert_eq!(bad_line(&mut c, b"not json at all"), "badInput");
    assert_eq!(bad_line(&mut c, b"\xff\xfe\x00garbage"), "badInput");
    assert_eq!(bad_line(&mut c, b"[1, 2, 3]"), "badInput");
    assert_eq!(bad_line(&mut c, br#"{"method":"list_plans"}"#), "badInput");
    // A line longer than a frame may be is skipped whole (16 MiB).
    let long = vec![b'x'; 16 * 1024 * 1024 + 10];
    assert_eq!(bad_line(&mut c, &long), "badInput");

    assert_eq!(c.refused("format_disk", json!({})), "unsupported");
    assert_eq!(
        c.refused("get_plan", json!({})),
        "badInput",
        "a missing argument"
    );
    assert_eq!(
        c.refused("get_plan", json!({ "id": "p", "path": "/etc/passwd" })),
        "badInput",
        "an argument the command does not have"
    );
    // A path where an id is wanted: refused before anything is read (not an id, or no such id).
    let passwd = json!({ "id": "/etc/passwd" });
    assert_eq!(c.refused("get_plan", passwd.clone()), "badInput");
    for method in [
        "worktree_details",
        "verify_report",
        "recovered_plan",
        "list_comments",
    ] {
        let kind = c.refused(method, passwd.clone());
        assert!(
            ["badInput", "notFound"].contains(&kind.as_str()),
            "{method}: {kind}"
        );
    }
    // The window's own dialogs are not served.
    assert_eq!(c.refused("add_plan_folder", json!({})), "unsupported");
    assert_eq!(c.refused("add_repo", json!({})), "unsupported");
    assert_eq!(c.refused("load_demo", json!({})), "unsupported");
    // Another protocol, older or newer: said clearly.
    let older = c.request("hello", json!({ "protocol": 0 }));
    assert_eq!(older["error"]["kind"], "unsupported", "{older}");
    assert!(
        older["error"]["message"]
            .as_str()
            .unwrap()
            .contains("protocol 1"),
        "{older}"
    );
    assert_eq!(c.refused("hello", json!({ "protocol": 2 })), "unsupported");

    // Still serving.
    let listing = c.call("list_plans", json!({}));
    assert_eq!(listing["plans"].as_array().unwrap().len(), 1);
    let log = c.log.clone();
    assert_eq!(c.end(), 0);
    // Each refusal was logged with its reason (on stderr; stdout holds frames only).
    for reason in [
        "not a JSON frame",
        "a line over 16777216 bytes, skipped",
        "no method `format_disk`",
        "unknown field `path`",
        "speaks protocol 1, the client speaks 0",
    ] {
        plandeck_testkit::wait_until(reason, || log.lock().unwrap().contains(reason));
    }
    assert!(!presence(&home).exists());
}

#[test]
fn a_worktree_is_removed_only_with_the_token_of_the_removal_the_server_showed() {
    let home = Home::with_agents();
    let clean = crate::common::repo_with_clean_worktree(home.path());
    let mut c = Client::start(home.path(), &[]);
    c.call("subscribe", json!({}));
    let list = c.call("list_worktrees", json!({}));
    let id = list
        .as_array()
        .unwrap()
        .iter()
        .find(|w| Path::new(w["path"].as_str().unwrap()) == clean)
        .unwrap_or_else(|| panic!("{} in {list}", clean.display()))["id"]
        .clone();

    // The window's one-step removal asks a dialog: here it takes the token of a preview.
    assert_eq!(
        c.refused("remove_worktree", json!({ "id": id })),
        "badInput"
    );
    assert_eq!(
        c.refused("remove_worktree", json!({ "id": id, "token": "made-up" })),
        "conflict"
    );
    assert!(clean.exists());

    let shown = c.call("removal_to_confirm", json!({ "id": id }));
    assert_eq!(
        shown["confirmation"]["action"], "Remove worktree",
        "{shown}"
    );
    assert_eq!(shown["confirmation"]["destructive"], false);
    let token = shown["preview"]["token"].clone();
    let outcome = c.call("remove_worktree", json!({ "id": id, "token": token }));
    assert_eq!(outcome["removed"], true, "{outcome}");
    assert!(!clean.exists());
    c.event(|e| e["event"] == "worktrees:changed");
    // A token is good once.
    assert_eq!(
        c.refused("remove_worktree", json!({ "id": id, "token": token })),
        "conflict"
    );
    assert_eq!(c.end(), 0);
}

#[test]
fn a_waiting_agent_gets_the_rejection_decided_over_serve_and_the_gate_names_who_decided() {
    let s = crate::gate::claude_setup();
    let mut c = Client::start(&s.home, &[]);
    c.call("subscribe", json!({}));
    // The server holds the presence hooks wait for: a real hook files its request and waits.
    let home = s.home.clone();
    let stdin = s.stdin.clone();
    let hook =
        std::thread::spawn(move || crate::common::run_binary(&home, &["hook", "claude"], &stdin));
    c.event(|e| e["event"] == "gate:changed" && e["payload"]["arrived"] != json!([]));
    let pending = c.call("list_pending", json!({}));
    let request = &pending[0];
    let id = request["id"].as_str().unwrap().to_owned();
    let outcome = c.call(
        "decide_request",
        json!({
            "id": id,
            "decision": { "decision": "reject", "feedback": "split step 2" },
            "seenHash": request["planHash"],
        }),
    );
    assert_eq!(outcome["delivered"], true, "{outcome}");
    let (code, out, err) = hook.join().unwrap();
    assert_eq!(code, 0, "{}", String::from_utf8_lossy(&err));
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.contains("deny") && out.contains("split step 2"),
        "{out}"
    );
    let closed = plandeck_core::gate::request(&s.roots, &id).unwrap();
    let by = closed.decided_by.unwrap_or_default();
    assert!(
        by.contains("by plandeck serve (over SSH from 192.0.2.7)"),
        "{by}"
    );
    assert_eq!(c.end(), 0);
}

#[test]
fn clean_worktrees_are_removed_only_with_the_tokens_the_server_showed() {
    let home = Home::with_agents();
    let clean = crate::common::repo_with_clean_worktree(home.path());
    let mut c = Client::start(home.path(), &[]);
    let list = c.call("list_worktrees", json!({}));
    let repo_id = list[0]["repoId"].clone();

    let shown = c.call("clean_removals_to_confirm", json!({ "repoId": repo_id }));
    let previews = shown["previews"].as_array().unwrap();
    assert_eq!(previews.len(), 1, "{shown}");
    assert_eq!(
        shown["confirmation"]["action"], "Remove worktree",
        "{shown}"
    );
    let tokens: Vec<Value> = previews.iter().map(|p| p["token"].clone()).collect();

    let made_up = json!({ "repoId": repo_id, "tokens": ["made-up"] });
    assert_eq!(c.refused("remove_clean_worktrees", made_up), "conflict");
    assert_eq!(
        c.refused("remove_clean_worktrees", json!({ "repoId": repo_id })),
        "badInput",
        "the window's form, without tokens"
    );
    assert!(clean.exists());
    let removed = c.call(
        "remove_clean_worktrees",
        json!({ "repoId": repo_id, "tokens": tokens }),
    );
    assert_eq!(removed.as_array().unwrap().len(), 1, "{removed}");
    assert!(!clean.exists());
    assert_eq!(c.end(), 0);
}

#[test]
fn requests_sent_at_once_are_each_answered_under_their_id() {
    let home = home_with_plan();
    let mut c = Client::start(home.path(), &[]);
    let mut batch = String::new();
    for id in 1..=24 {
        let method = [
            "list_plans",
            "list_worktrees",
            "get_overview",
            "list_pending",
        ][id % 4];
        batch.push_str(&json!({ "id": id, "method": method }).to_string());
        batch.push('\n');
    }
    c.send_line(batch.trim_end().as_bytes());
    let mut ids: Vec<u64> = (0..24)
        .map(|_| {
            let answer = c.answer();
            assert!(answer.get("result").is_some(), "{answer}");
            answer["id"].as_u64().unwrap()
        })
        .collect();
    ids.sort();
    assert_eq!(ids, (1..=24).collect::<Vec<_>>());
    assert_eq!(c.end(), 0);
}
