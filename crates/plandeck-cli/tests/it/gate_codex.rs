//! Codex CLI's plan popup through the CLI: a fake `codex` (a process of that name holding a real
//! 0.169 rollout open, its pane showing the popup as the real TUI draws it) in a real tmux pane.
//! `plandeck pending` files the request once, `approve` types the key of the row labelled
//! "Yes, implement this plan", and the popup answered in the terminal first closes the request.

use crate::common::plandeck;

use std::path::{Path, PathBuf};

use plandeck_testkit::tmux::Tmux;
use plandeck_testkit::wait_for;

const FIXTURES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/fixtures/codex-cli-0.169.0"
);
/// The `undecided` recording: a plan proposed, the popup left open.
const UNDECIDED: &str =
    "sessions/2026/11/23/rollout-2026-11-23T09-06-18-01a207a7-f7fe-7201-ac2d-8334cc0ede60.jsonl";
const SESSION: &str = "01a207a7-f7fe-7201-ac2d-8334cc0ede60";

/// A fake Codex in a pane of a private tmux server: `codex [args]` (bash under that name) holds the
/// rollout open, draws the real popup capture (blank runs squeezed to fit the pane), reads one key
/// into `<home>/got`, then clears the popup, draws an empty composer and reads one line (a
/// message) into `<home>/said`. tmux missing fails the test.
fn fake_codex(home: &Path, args: &str, popup: bool) -> (Tmux, String, PathBuf) {
    fake_codex_with(home, args, popup, EMPTY_COMPOSER)
}

/// The empty composer as 0.169 draws it: its placeholder dim.
const EMPTY_COMPOSER: &str = r"printf '\e[1m›\e[0m \e[2mAsk Codex to do anything\e[0m\n'";

/// [`fake_codex`] drawing `composer` (a shell command) once the popup closed.
fn fake_codex_with(
    home: &Path,
    args: &str,
    popup: bool,
    composer: &str,
) -> (Tmux, String, PathBuf) {
    plandeck_testkit::require_tool("tmux");
    let rollout = home.join(".codex").join(UNDECIDED);
    std::fs::create_dir_all(rollout.parent().unwrap()).unwrap();
    std::fs::copy(Path::new(FIXTURES).join(UNDECIDED), &rollout).unwrap();
    let bash = String::from_utf8(
        std::process::Command::new("bash")
            .args(["-c", "command -v bash"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let codex = home.join("codex");
    // A second fake in the same home (a test's twin) replaces the first's link.
    let _ = std::fs::remove_file(&codex);
    std::os::unix::fs::symlink(bash.trim(), &codex).unwrap();
    let card = if popup {
        Path::new(FIXTURES).join("screens/approval-card.txt")
    } else {
        // The same screen with the popup's rows gone (the turn still running, say).
        let shown = std::fs::read_to_string(Path::new(FIXTURES).join("screens/approval-card.txt"))
            .unwrap()
            .replace("No, stay in Plan mode", "")
            .replace("Yes, clear context and implement", "")
            .replace("Yes, implement this plan", "Working");
        let path = home.join("no-popup.txt");
        std::fs::write(&path, shown).unwrap();
        path
    };
    let body = home.join("codex.sh");
    std::fs::write(
        &body,
        format!(
            "exec 3<{rollout}\nclear\ncat -s {card}\nread -rsn1 k\nprintf '%s' \"$k\" > {got}\nclear\n{composer}\nread -r line\nprintf '%s' \"$line\" > {said}\nclear\n{EMPTY_COMPOSER}\nsleep 60\n",
            rollout = rollout.display(),
            card = card.display(),
            got = home.join("got").display(),
            said = home.join("said").display(),
            composer = composer
        ),
    )
    .unwrap();
    let script = format!(
        "exec -a codex {codex} {body} {args}\n",
        codex = codex.display(),
        body = body.display()
    );
    let (server, pane, _) = Tmux::start(home, &script);
    let want = if popup {
        "No, stay in Plan mode"
    } else {
        "Working"
    };
    wait_for("the screen drawn", || {
        server.capture(&pane).contains(want).then_some(())
    });
    (server, pane, rollout)
}

fn pending(home: &Path) -> Vec<serde_json::Value> {
    let (code, out, err) = plandeck(home, &["pending", "--json"]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

#[test]
fn a_codex_popup_is_filed_once_and_approved_by_its_label() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().canonicalize().unwrap();
    let (server, pane, rollout) = fake_codex(&home, "", true);
    let list = pending(&home);
    assert_eq!(list.len(), 1, "{list:?}");
    let req = &list[0];
    assert_eq!(req["agent"], "codex");
    assert_eq!(req["sessionId"], SESSION);
    assert_eq!(req["cwd"], "/home/dev/work/api");
    assert_eq!(
        req["plan"],
        "# Plan: add pagination\n\n1. Add `page` and `limit` params\n2. Return a cursor\n3. Write tests\n"
    );
    assert_eq!(req["tmuxPane"], pane.as_str());
    assert_eq!(req["transcriptPath"], rollout.to_str().unwrap());
    assert_eq!(req["planPath"], serde_json::Value::Null);
    // Filed once per plan: the next look files nothing new.
    let again = pending(&home);
    assert_eq!(again.len(), 1);
    assert_eq!(again[0]["id"], req["id"]);

    let id = req["id"].as_str().unwrap();
    let (code, out, err) = plandeck(&home, &["approve", id, "--json"]);
    assert_eq!(code, 0, "{out}{err}");
    let outcome: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(outcome["status"], "approved", "{out}");
    let got = wait_for("the key the popup read", || {
        std::fs::read_to_string(home.join("got")).ok()
    });
    assert_eq!(got, "1");
    assert!(pending(&home).is_empty());
    drop(server);
}

#[test]
fn a_codex_popup_answered_in_the_terminal_first_closes_its_request() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().canonicalize().unwrap();
    let (server, pane, _) = fake_codex(&home, "", true);
    let list = pending(&home);
    assert_eq!(list.len(), 1, "{list:?}");
    let id = list[0]["id"].as_str().unwrap().to_owned();
    // The person presses Esc's twin, `3`: nothing reaches the rollout, the popup goes.
    server.keys(&pane, &["3"]);
    wait_for("the popup to close", || {
        (!server.capture(&pane).contains("No, stay in Plan mode")).then_some(())
    });
    assert!(pending(&home).is_empty());
    let (code, out, err) = plandeck(&home, &["approve", &id, "--json"]);
    assert_eq!(code, 1, "{out}{err}");
    let v: serde_json::Value =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}{err}"));
    assert_eq!(v["error"]["kind"], "conflict", "{v}");
    assert!(
        v["error"]["message"].as_str().unwrap().contains(&format!(
            "request {id} is already closed (AnsweredInTerminal)"
        )),
        "{v}"
    );
    assert_eq!(std::fs::read_to_string(home.join("got")).unwrap(), "3");
}

/// A rejection stays in Plan mode (the row labelled so) and sends the feedback as the next
/// message once the popup is closed and the composer is empty.
#[test]
fn a_codex_rejection_stays_in_plan_mode_and_sends_the_feedback() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().canonicalize().unwrap();
    let (_server, _pane, _) = fake_codex(&home, "", true);
    let list = pending(&home);
    let id = list[0]["id"].as_str().unwrap().to_owned();
    let (code, out, err) = plandeck(
        &home,
        &["reject", &id, "--feedback", "Use cursors only", "--json"],
    );
    assert_eq!(code, 0, "{out}{err}");
    let outcome: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(outcome["status"], "rejected", "{out}");
    assert_eq!(std::fs::read_to_string(home.join("got")).unwrap(), "3");
    let said = wait_for("the message the composer read", || {
        std::fs::read_to_string(home.join("said")).ok()
    });
    assert_eq!(said, "Use cursors only");
    assert!(pending(&home).is_empty());
}

/// Ends a fake Codex's tmux server and waits until its Codex is gone.
fn end(server: Tmux, pane: &str) {
    let pid = server.pane_pid(pane);
    drop(server);
    wait_for("the fake Codex to end", || {
        (!Path::new(&format!("/proc/{pid}")).exists()).then_some(())
    });
}

#[test]
fn headless_codex_exec_is_never_gated() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().canonicalize().unwrap();
    let (server, pane, _) = fake_codex(&home, "exec", true);
    assert!(pending(&home).is_empty());
    end(server, &pane);
    // Its twin, the same Codex with the same popup as the TUI: filed.
    let (_server, _pane, _) = fake_codex(&home, "", true);
    assert_eq!(pending(&home).len(), 1);
}

#[test]
fn a_codex_plan_without_its_popup_on_screen_is_not_filed() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().canonicalize().unwrap();
    let (server, pane, _) = fake_codex(&home, "", false);
    assert!(pending(&home).is_empty());
    end(server, &pane);
    // Its twin, the same Codex with its popup on screen: filed.
    let (_server, _pane, _) = fake_codex(&home, "", true);
    assert_eq!(pending(&home).len(), 1);
}

/// A draft of the person's in the composer once the popup closed: the feedback is not typed
/// after it, and the outcome says so.
#[test]
fn a_codex_rejection_never_types_after_a_draft() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().canonicalize().unwrap();
    let draft = r"printf '\e[1m›\e[0m half a thought'";
    let (server, pane, _) = fake_codex_with(&home, "", true, draft);
    let id = pending(&home)[0]["id"].as_str().unwrap().to_owned();
    let (code, out, err) = plandeck(
        &home,
        &["reject", &id, "--feedback", "Use cursors only", "--json"],
    );
    assert_ne!(code, 0, "{out}{err}");
    assert!(format!("{out}{err}").contains("holds text"), "{out}{err}");
    assert_eq!(std::fs::read_to_string(home.join("got")).unwrap(), "3");
    assert!(!server.capture(&pane).contains("Use cursors only"));
    assert!(!home.join("said").exists());
}
