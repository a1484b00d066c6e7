//! Typing a report into a live session's pane, on a private tmux server (`tmux -S <tmp>/sock`).

use super::*;
use crate::config::Roots;
use plandeck_testkit::tmux::{Recording, Tmux};
use plandeck_testkit::wait_for;
use std::path::Path;

/// A pane standing in for an idle agent: bracketed paste on, the terminal echoing what is typed
/// (so it shows on screen), every byte read recorded into `got`. With `card`, an approval card
/// is on screen first and nothing is echoed.
fn agent_pane(dir: &Path, card: bool) -> (Tmux, String, u32) {
    let got = dir.join("got");
    let ready = dir.join("ready");
    let script = if card {
        format!(
            "printf 'Would you like to proceed?\\n\\n ❯ 1. Yes, and use auto mode\\n   2. Yes, manually approve edits\\n   3. Tell Claude what to change\\n'; stty raw -echo; touch {r}; exec cat > {g}\n",
            r = ready.display(),
            g = got.display()
        )
    } else {
        format!(
            "printf '\\033[?2004h> '; stty raw; touch {r}; exec cat > {g}\n",
            r = ready.display(),
            g = got.display()
        )
    };
    let started = Tmux::start(dir, &script);
    wait_for("the pane", || ready.exists().then_some(()));
    // The script ends in `exec cat`: wait until the exec is done, so the agent's environment
    // (where its tmux socket is read from) is not read mid-exec.
    let comm = format!("/proc/{}/comm", started.2);
    wait_for("the pane's program", || {
        (std::fs::read_to_string(&comm).ok()?.trim() == "cat").then_some(())
    });
    started
}

/// What the pane's program recorded (`<dir>/got`), read with a barrier.
fn recording(dir: &Path) -> Recording {
    Recording::at(&dir.join("got"))
}

fn got(dir: &Path) -> String {
    String::from_utf8_lossy(&std::fs::read(dir.join("got")).unwrap_or_default()).into_owned()
}

/// A Claude Code registry entry for `pid` in `session_id`, in tmux pane `pane`.
fn register(home: &Path, pid: u32, session_id: &str, pane: Option<&str>, proc_start: Option<u64>) {
    let claude = home.join(".claude");
    std::fs::create_dir_all(claude.join("sessions")).unwrap();
    let mut entry = serde_json::json!({"pid": pid, "sessionId": session_id, "cwd": "/w"});
    if let Some(p) = pane {
        entry["tmux"] = format!("agent:@0.{p}").into();
    }
    if let Some(s) = proc_start {
        entry["procStart"] = s.to_string().into();
    }
    std::fs::write(registry_path(&claude, pid), entry.to_string()).unwrap();
}

#[test]
fn a_report_reaches_the_live_sessions_own_pane_as_one_paste_then_enter() {
    let tmp = tempfile::tempdir().unwrap();
    let (_server, pane, pid) = agent_pane(tmp.path(), false);
    let home = tmp.path().join("home");
    register(&home, pid, "s1", Some(&pane), terminal::start_time(pid));
    let roots = Roots::under_home(&home);
    let report = "Plandeck verify: 1 of 3 steps missing\n- 3. Write `docs/usage.md` — missing\u{1b}[201~$(touch x)";
    let said = send_to_session(&roots, "s1", report).unwrap();
    assert!(said.contains(&pane), "{said}");
    let typed = wait_for("the Enter", || {
        let g = got(tmp.path());
        g.ends_with('\r').then_some(g)
    });
    assert_eq!(
        typed,
        "\u{1b}[200~Plandeck verify: 1 of 3 steps missing\n- 3. Write `docs/usage.md` — missing[201~$(touch x)\u{1b}[201~\r"
    );
}

#[test]
fn nothing_is_typed_while_a_card_is_open() {
    let tmp = tempfile::tempdir().unwrap();
    let (server, pane, pid) = agent_pane(tmp.path(), true);
    let home = tmp.path().join("home");
    register(&home, pid, "s1", Some(&pane), terminal::start_time(pid));
    let roots = Roots::under_home(&home);
    let err = send_to_session(&roots, "s1", "1").unwrap_err();
    assert!(matches!(err, SendError::MenuOpen { .. }), "{err}");
    assert!(err.to_string().contains("Nothing was typed"), "{err}");
    assert_eq!(IpcError::from(err).kind, ErrorKind::Refused);
    recording(tmp.path()).assert_nothing_typed_in(&server, &pane);
}

#[test]
fn a_session_that_is_gone_replaced_or_outside_tmux_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (server, pane, pid) = agent_pane(tmp.path(), false);
    let home = tmp.path().join("home");
    let roots = Roots::under_home(&home);
    // No registry at all.
    assert!(matches!(
        send_to_session(&roots, "s1", "hello"),
        Err(SendError::NoLiveSession { .. })
    ));
    // The pid now belongs to another process (its start time differs).
    let start = terminal::start_time(pid).unwrap();
    register(&home, pid, "s1", Some(&pane), Some(start + 1));
    let err = send_to_session(&roots, "s1", "hello").unwrap_err();
    assert!(matches!(err, SendError::NoLiveSession { .. }), "{err}");
    assert_eq!(IpcError::from(err).kind, ErrorKind::NotFound);
    // Live, but not in tmux (no pane in the registry, no tmux server in its environment).
    let mut outside = std::process::Command::new("sleep")
        .arg("1000")
        .env_remove("TMUX")
        .stdin(std::process::Stdio::null())
        .spawn()
        .unwrap();
    register(&home, outside.id(), "s2", None, None);
    let not_in_tmux = send_to_session(&roots, "s2", "hello");
    let _ = outside.kill();
    let _ = outside.wait();
    assert!(
        matches!(not_in_tmux, Err(SendError::NoPane { .. })),
        "{not_in_tmux:?}"
    );
    // In tmux with no pane in the registry: the pane whose terminal is the agent's.
    register(&home, pid, "s1", None, Some(start));
    assert_eq!(session_target(&roots, "s1").unwrap().pane, pane);
    // Live in tmux, but the registry names another pane: not the agent's terminal.
    register(&home, pid, "s1", Some("%77"), Some(start));
    assert!(matches!(
        send_to_session(&roots, "s1", "hello"),
        Err(SendError::Terminal(TerminalError::PaneGone { .. }))
    ));
    // Too long: refused, never cut.
    register(&home, pid, "s1", Some(&pane), Some(start));
    let long = "x".repeat(terminal::MAX_TYPED_CHARS + 1);
    assert!(matches!(
        send_to_session(&roots, "s1", &long),
        Err(SendError::TooLong { .. })
    ));
    assert!(matches!(
        send_to_session(&roots, "s1", " \u{7}\n"),
        Err(SendError::Empty)
    ));
    recording(tmp.path()).assert_nothing_typed_in(&server, &pane);
}

#[test]
fn a_menu_with_the_cursor_on_a_choice_counts_as_open() {
    assert!(menu_open(
        "Do you want to create a.txt?\n ❯ 1. Yes\n   2. No\n\nEsc to cancel"
    ));
    assert!(menu_open("│ ❯ 2. Yes, allow all edits │"));
    assert!(!menu_open("> \n  ? for shortcuts"));
    assert!(!menu_open("❯ fix the tests\n"));
}

/// A session whose plan (two steps) was approved, with step 1 done: (tempdir, roots, plan id).
fn approved_plan() -> (
    tempfile::TempDir,
    Roots,
    std::path::PathBuf,
    plandeck_testkit::verify::ClaudeSession,
) {
    use plandeck_testkit::verify::{git_init, write_file, ClaudeSession};
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().to_path_buf();
    let repo = home.join("work/g");
    git_init(&repo, &[("README.md", "# g\n")], 0);
    let mut s = ClaudeSession::new(
        &home,
        &repo,
        "5f0c2b9e-1111-4222-8333-944455556666",
        "plan-send-kite",
    );
    s.prompt(30, "plan greetings");
    s.plan_approved(
        120,
        150,
        "# Plan\n\n1. Create `greet.js`\n2. Document it in `USAGE.md`\n",
    );
    write_file(&repo, "greet.js", "export const greet = 1;\n");
    s.write(200, &repo.join("greet.js"), "export const greet = 1;\n");
    s.save();
    let roots = Roots::under_home(&s.home);
    (dir, roots, repo, s)
}

#[test]
fn a_report_that_changed_since_it_was_shown_is_not_sent() {
    let (_dir, roots, repo, mut s) = approved_plan();
    let id = crate::ids::plan_id(&s.plan_path);
    let shown = crate::verify::report_text(&roots, &id).unwrap();
    assert!(shown.contains("USAGE.md"), "{shown}");
    // The agent keeps working: step 2 is done now, the report shown is stale.
    plandeck_testkit::verify::write_file(&repo, "USAGE.md", "# usage\n");
    s.write(300, &repo.join("USAGE.md"), "# usage\n");
    s.save();
    let err = crate::verify::send_report(&roots, &id, &shown).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Conflict, "{err:?}");
    assert!(err.message.contains("nothing was typed"), "{err:?}");
    // The current text, but the session runs nowhere: refused, with the reason.
    let now = crate::verify::report_text(&roots, &id).unwrap();
    let err = crate::verify::send_report(&roots, &id, &now).unwrap_err();
    assert_eq!(err.kind, ErrorKind::NotFound, "{err:?}");
    assert!(
        err.message.contains("no live Claude Code session"),
        "{err:?}"
    );
    // A path is not an id.
    let err = crate::verify::send_report(&roots, &s.plan_path.to_string_lossy(), &now).unwrap_err();
    assert_eq!(err.kind, ErrorKind::BadInput, "{err:?}");
}

#[test]
fn a_changed_files_diff_is_the_review_diff_of_its_two_sides() {
    let (_dir, roots, repo, mut s) = approved_plan();
    let id = crate::ids::plan_id(&s.plan_path);
    let diff = crate::verify::changed_file_diff(&roots, &id, "greet.js").unwrap();
    assert_eq!(diff.stats.added, 1);
    assert_eq!(diff.stats.removed, 0);
    assert_eq!(diff.from_label, "greet.js (new file)");
    assert_eq!(diff.to_label, "greet.js now");
    // A file the report does not list is not read.
    let err = crate::verify::changed_file_diff(&roots, &id, "../../etc/passwd").unwrap_err();
    assert_eq!(err.kind, ErrorKind::NotFound, "{err:?}");
    // Not text: no diff, a clear message.
    std::fs::write(repo.join("logo.bin"), [0u8, 159, 146, 150, 0, 1]).unwrap();
    s.write(250, &repo.join("logo.bin"), "");
    s.save();
    let err = crate::verify::changed_file_diff(&roots, &id, "logo.bin").unwrap_err();
    assert_eq!(err.kind, ErrorKind::BadInput, "{err:?}");
}

#[test]
fn the_input_line_is_read_as_claude_code_draws_it() {
    let rule = "─".repeat(40);
    // As Claude Code 2.1.328 drew it in tmux: empty, then holding a person's draft.
    let empty =
        format!("▝▜██████▀  Opus\n\n{rule}\n❯ \n{rule}\n  ⏵⏵ auto mode on (shift+tab to cycle)\n");
    assert_eq!(input_draft(&empty), None);
    let draft =
        format!("● done\n\n{rule}\n❯ also drop the users table and\n{rule}\n  ⏵⏵ auto mode on\n");
    assert_eq!(
        input_draft(&draft).as_deref(),
        Some("also drop the users table and")
    );
    let two_lines = format!("{rule}\n❯ first line\n  second line\n{rule}\n");
    assert_eq!(
        input_draft(&two_lines).as_deref(),
        Some("first line second line")
    );
    // A prompt the transcript shows above is not the input line.
    let old = format!("❯ plan greetings\n\n● Plan ready\n\n{rule}\n❯ \n{rule}\n");
    assert_eq!(input_draft(&old), None);
}

/// "Send report to agent" while the person is half-way through typing: the report would go
/// glued to their words ("also drop the users table and" + the report) and be submitted.
#[test]
fn nothing_is_typed_onto_a_persons_draft() {
    let tmp = tempfile::tempdir().unwrap();
    let got = tmp.path().join("got");
    let ready = tmp.path().join("ready");
    let rule = "─".repeat(40);
    let script = format!(
        "printf '\\033[?2004h{rule}\\n❯ also drop the users table and\\n{rule}\\n'; stty raw -echo; touch {r}; exec cat > {g}\n",
        r = ready.display(),
        g = got.display()
    );
    let (server, pane, pid) = Tmux::start(tmp.path(), &script);
    wait_for("the pane", || ready.exists().then_some(()));
    let comm = format!("/proc/{pid}/comm");
    wait_for("the pane's program", || {
        (std::fs::read_to_string(&comm).ok()?.trim() == "cat").then_some(())
    });
    let home = tmp.path().join("home");
    register(&home, pid, "s1", Some(&pane), terminal::start_time(pid));
    let roots = Roots::under_home(&home);
    let err = send_to_session(&roots, "s1", "Plandeck verify: step 2 missing").unwrap_err();
    assert!(
        matches!(&err, SendError::DraftInInput { draft, .. } if draft == "also drop the users table and"),
        "{err}"
    );
    assert_eq!(IpcError::from(err).kind, ErrorKind::Refused);
    recording(tmp.path()).assert_nothing_typed_in(&server, &pane);
}

/// The same report goes to a session once, whoever sends it: "Send report" twice, A → B → A,
/// and "Send report" followed by the Stop hook.
#[test]
fn a_report_is_sent_to_a_session_once_whoever_sends_it() {
    let (dir, roots, _repo, s) = approved_plan();
    let id = crate::ids::plan_id(&s.plan_path);
    let (server, pane, pid) = agent_pane(dir.path(), false);
    register(
        &roots.home,
        pid,
        &s.session,
        Some(&pane),
        terminal::start_time(pid),
    );
    let _app = crate::gate::app_heartbeat(&roots).unwrap();
    let shown = crate::verify::report_text(&roots, &id).unwrap();
    crate::verify::send_report(&roots, &id, &shown).unwrap();
    wait_for("the Enter", || {
        got(dir.path()).ends_with('\r').then_some(())
    });
    let typed = got(dir.path());
    // Again: refused, nothing more typed.
    let err = crate::verify::send_report(&roots, &id, &shown).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Refused, "{err:?}");
    assert!(err.message.contains("already sent"), "{err:?}");
    // The Stop hook does not send it a third time.
    let input = serde_json::json!({"session_id": s.session, "stop_hook_active": false});
    let out = crate::verify::stop_hook::hook_claude_stop(&roots, input.to_string().as_bytes());
    assert_eq!(out.stdout, "", "{out:?}");
    assert!(out.stderr.contains("already sent"), "{out:?}");
    // Nothing after the first report: a barrier typed now follows it directly.
    assert_eq!(recording(dir.path()).settled_in(&server, &pane), typed);
    // A → B → A: the first report is still remembered after another went in between.
    let ok = || Ok::<(), ()>(());
    let once = |h: &str| crate::verify::stop_hook::send_once(&roots, &s.session, h, ok);
    assert!(once("report-b").is_ok());
    let a = crate::durable::sha256_hex(shown.as_bytes());
    assert!(matches!(
        once(&a),
        Err(crate::verify::stop_hook::SentError::AlreadySent)
    ));
}
