//! Terminal views over real panes of a private tmux server. What a view shows is checked by
//! feeding its bytes to a real terminal state machine (`vt100`) and comparing that screen with
//! `tmux capture-pane`.

use std::path::Path;
use std::sync::{Arc, Mutex};

use plandeck_testkit::tmux::Tmux;
use plandeck_testkit::{wait_for, wait_until};

use super::*;
use crate::terminal::ProcessId;

/// A view's events, as they came.
#[derive(Default, Clone)]
struct Heard(Arc<Mutex<Vec<TerminalEvent>>>);

impl Heard {
    fn terminals(&self) -> Terminals {
        let heard = self.0.clone();
        Terminals::new(Arc::new(move |e| heard.lock().unwrap().push(e)))
    }
    fn output(&self, view: &str) -> Vec<TerminalOutput> {
        self.0
            .lock()
            .unwrap()
            .iter()
            .filter_map(|e| match e {
                TerminalEvent::Output(o) if o.view == view => Some(o.clone()),
                _ => None,
            })
            .collect()
    }
    fn closed(&self, view: &str) -> Option<String> {
        self.0.lock().unwrap().iter().find_map(|e| match e {
            TerminalEvent::Closed(c) if c.view == view => Some(c.reason.clone()),
            _ => None,
        })
    }
}

fn target(tmux: &Tmux, pane: &str, pid: u32) -> Target {
    Target {
        socket: Some(tmux.socket.to_string_lossy().into_owned()),
        pane: pane.to_owned(),
        agent: Some(ProcessId::current(pid)),
    }
}

/// What a terminal of the view's size shows after the view's start and every output since.
fn drawn(view: &TerminalView, outputs: &[TerminalOutput]) -> vt100::Parser {
    let mut term = vt100::Parser::new(view.screen.rows, view.screen.cols, 0);
    term.process(view.screen.data.as_bytes());
    for o in outputs {
        if let Some(screen) = &o.reset {
            term = vt100::Parser::new(screen.rows, screen.cols, 0);
            term.process(screen.data.as_bytes());
        }
        term.process(o.data.as_bytes());
    }
    term
}

/// The rows of `screen` as `capture-pane -p` prints them (trailing blanks dropped).
fn rows_of(term: &vt100::Parser) -> Vec<String> {
    let screen = term.screen();
    let (rows, cols) = screen.size();
    (0..rows)
        .map(|r| {
            screen
                .rows(0, cols)
                .nth(usize::from(r))
                .unwrap_or_default()
                .trim_end()
                .to_owned()
        })
        .collect()
}

fn captured(tmux: &Tmux, pane: &str) -> Vec<String> {
    let text = tmux.capture(pane);
    let mut rows: Vec<String> = text.lines().map(|l| l.trim_end().to_owned()).collect();
    let height: usize = tmux
        .run(&["display-message", "-p", "-t", pane, "#{pane_height}"])
        .trim()
        .parse()
        .unwrap();
    rows.resize(height, String::new());
    rows
}

fn start(dir: &Path, script: &str) -> (Tmux, String, u32) {
    Tmux::start(dir, script)
}

/// A pane running [`ECHO_LOOP`], its history printed, and a view of it open.
fn echo_view() -> (
    tempfile::TempDir,
    Tmux,
    String,
    u32,
    Heard,
    Terminals,
    TerminalView,
) {
    let dir = tempfile::tempdir().unwrap();
    let (tmux, pane, pid) = start(dir.path(), ECHO_LOOP);
    wait_until("the script's output", || {
        tmux.capture(&pane).contains("history line 60")
    });
    let heard = Heard::default();
    let terminals = heard.terminals();
    let view = terminals.open("s1", target(&tmux, &pane, pid)).unwrap();
    (dir, tmux, pane, pid, heard, terminals, view)
}

const ECHO_LOOP: &str = r#"printf '\033[32mgreen\033[0m 日本 wide\n'
for i in $(seq 1 60); do echo "history line $i"; done
while IFS= read -r line; do printf 'got:%s\n' "$line"; done
"#;

#[test]
fn a_view_starts_from_the_screen_and_mirrors_what_follows() {
    let (_dir, tmux, pane, _pid, heard, _terminals, view) = echo_view();
    assert_eq!((view.screen.cols, view.screen.rows), (120, 30));
    assert_eq!(
        view.control_refused, None,
        "bash reading its input is in front"
    );
    // The start draws what the pane shows, colours kept, scrollback above.
    let term = drawn(&view, &[]);
    assert_eq!(rows_of(&term), captured(&tmux, &pane));
    assert!(
        view.screen.data.contains("\x1b[32mgreen"),
        "{:?}",
        view.screen.data
    );
    assert!(view.screen.data.contains("history line 1\x1b[0m\r\n"));
    let cursor = tmux.run(&[
        "display-message",
        "-p",
        "-t",
        &pane,
        "#{cursor_y} #{cursor_x}",
    ]);
    let (y, x) = term.screen().cursor_position();
    assert_eq!(format!("{y} {x}\n"), cursor);

    // Typed elsewhere (the person's own terminal): the view follows.
    tmux.keys(&pane, &["-l", "hello 世界"]);
    tmux.keys(&pane, &["Enter"]);
    wait_until("the echo in the view", || {
        heard
            .output(&view.view)
            .iter()
            .map(|o| o.data.as_str())
            .collect::<String>()
            .contains("got:hello 世界")
    });
    wait_until("the view to draw what the pane shows", || {
        rows_of(&drawn(&view, &heard.output(&view.view))) == captured(&tmux, &pane)
    });
    // Watching never resized the pane.
    assert_eq!(
        tmux.run(&[
            "display-message",
            "-p",
            "-t",
            &pane,
            "#{pane_width}x#{pane_height}"
        ]),
        "120x30\n"
    );
}

#[test]
fn typing_needs_control_and_control_checks_the_pane() {
    let (_dir, tmux, pane, _pid, _heard, terminals, view) = echo_view();
    assert_eq!(
        terminals.type_into(&view.view, "x"),
        Err(MirrorError::NotInControl)
    );
    terminals.take_control(&view.view).unwrap();
    // Keys as the window's terminal makes them: text, an arrow's escape sequence, Enter.
    terminals.type_into(&view.view, "ok\x1b[D!\r").unwrap();
    wait_until("the typed line to reach the program", || {
        // The line holds the arrow's bytes: printed, they move the cursor back over the `k`.
        tmux.capture(&pane).contains("got:o!")
    });
    terminals.release_control(&view.view).unwrap();
    assert_eq!(
        terminals.type_into(&view.view, "x"),
        Err(MirrorError::NotInControl)
    );
    assert!(matches!(
        terminals.type_into(&view.view, &"x".repeat(MAX_TYPED_BYTES + 1)),
        Err(MirrorError::TooMuch(_))
    ));

    // A pane that is not the agent's: watching is fine, control is refused with the reason.
    let other = terminals
        .open("s2", target(&tmux, &pane, std::process::id()))
        .unwrap();
    assert!(other.control_refused.is_some());
    assert!(matches!(
        terminals.take_control(&other.view),
        Err(MirrorError::Refused(_))
    ));
}

#[test]
fn a_pane_that_closes_ends_its_view_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let (tmux, pane, pid) = start(dir.path(), "read -r line\n");
    // A second window keeps the session (and the control client) up when the pane goes.
    tmux.run(&["new-window", "-d", "sleep 600"]);
    let heard = Heard::default();
    let terminals = heard.terminals();
    let view = terminals.open("s1", target(&tmux, &pane, pid)).unwrap();
    tmux.keys(&pane, &["Enter"]);
    let reason = wait_for("the view to close", || heard.closed(&view.view));
    assert_eq!(reason, "the pane closed");
    assert_eq!(terminals.open_count(), 0);
    assert!(matches!(
        terminals.take_control(&view.view),
        Err(MirrorError::NoView(_))
    ));
    // Opening it again says why not.
    assert!(matches!(
        terminals.open("s1", target(&tmux, &pane, pid)),
        Err(MirrorError::Refused(TerminalError::PaneGone { .. }))
    ));
}

#[test]
fn a_session_that_ends_ends_its_view() {
    let dir = tempfile::tempdir().unwrap();
    let (tmux, pane, pid) = start(dir.path(), "read -r line\n");
    tmux.run(&["set", "-g", "exit-empty", "off"]);
    let heard = Heard::default();
    let terminals = heard.terminals();
    let view = terminals.open("s1", target(&tmux, &pane, pid)).unwrap();
    tmux.keys(&pane, &["Enter"]);
    // The session's only pane ends, so the session does: the control client is told it ended
    // (the pane closing alone, its session kept, is
    // `a_pane_that_closes_ends_its_view_with_the_reason`).
    let reason = wait_for("the view to close", || heard.closed(&view.view));
    assert_eq!(reason, "the tmux session ended");
}

#[test]
fn a_pane_resized_elsewhere_resets_the_view_at_its_new_size() {
    let (_dir, tmux, pane, _pid, heard, _terminals, view) = echo_view();
    tmux.run(&["resize-window", "-t", &pane, "-x", "90", "-y", "20"]);
    let reset = wait_for("a reset", || {
        heard.output(&view.view).into_iter().find_map(|o| o.reset)
    });
    assert_eq!((reset.cols, reset.rows), (90, 20));
    wait_until("the view to draw what the pane shows", || {
        rows_of(&drawn(&view, &heard.output(&view.view))) == captured(&tmux, &pane)
    });
}

#[test]
fn closing_a_view_ends_its_client_and_tells_nobody() {
    let dir = tempfile::tempdir().unwrap();
    let (tmux, pane, pid) = start(dir.path(), ECHO_LOOP);
    let heard = Heard::default();
    let terminals = heard.terminals();
    let view = terminals.open("s1", target(&tmux, &pane, pid)).unwrap();
    let clients = || tmux.run(&["list-clients", "-F", "#{client_control_mode}"]);
    assert_eq!(clients(), "1\n");
    terminals.close(&view.view);
    wait_until("the control client to go", || clients().is_empty());
    tmux.keys(&pane, &["-l", "after"]);
    tmux.keys(&pane, &["Enter"]);
    wait_until("the pane to echo", || {
        tmux.capture(&pane).contains("got:after")
    });
    assert_eq!(heard.closed(&view.view), None);
    assert_eq!(terminals.open_count(), 0);
}

#[test]
fn a_view_needs_tmux_3_2() {
    use crate::terminal::tmux_version;
    assert!(tmux_version("tmux 3.1c").unwrap() < TMUX_MIN);
    assert!(tmux_version("tmux 3.2").unwrap() >= TMUX_MIN);
}

/// Issue 33, finding 5: keys typed into a view (a password, say) are never in a process's argv,
/// where any local user reads them: every argv the tmux builder made is checked; the keys reach
/// the program byte for byte, `;` and `#` included.
#[test]
fn keys_typed_into_a_view_are_never_in_a_process_argv() {
    let (_dir, tmux, pane, _pid, _heard, terminals, view) = echo_view();
    terminals.take_control(&view.view).unwrap();
    let secret = format!("s3cret-{}-#{{pane_id}};", std::process::id());
    terminals
        .type_into(&view.view, &format!("{secret}\r"))
        .unwrap();
    wait_until("the typed line to reach the program", || {
        tmux.capture(&pane).contains(&format!("got:{secret}"))
    });
    assert!(
        !crate::terminal::tmux::argv_ever_held(b"s3cret-")
            && !crate::terminal::tmux::argv_ever_held_hex(b"s3cret-"),
        "typed keys were in tmux's argv"
    );
}

/// Issue 33, "one way to speak to tmux": whatever the person's keys make in a view (any bytes as
/// text: controls, escape sequences, `;`, `#{…}`, wide characters) reaches the program byte for
/// byte, and is in no process's argv. `PLANDECK_TMUX_CASES` cases (CI sets more).
#[test]
fn any_keys_typed_into_a_view_arrive_byte_for_byte_and_never_in_argv() {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};
    let dir = tempfile::tempdir().unwrap();
    let ready = dir.path().join("ready");
    let got_file = dir.path().join("got");
    let (tmux, pane, pid) = start(
        dir.path(),
        &format!(
            "stty raw -echo; touch {}; exec cat > {}\n",
            ready.display(),
            got_file.display()
        ),
    );
    wait_until("the recorder", || ready.exists());
    let comm = format!("/proc/{pid}/comm");
    wait_until("the recorder's cat", || {
        std::fs::read_to_string(&comm).is_ok_and(|c| c.trim() == "cat")
    });
    let heard = Heard::default();
    let terminals = heard.terminals();
    let view = terminals.open("s1", target(&tmux, &pane, pid)).unwrap();
    terminals.take_control(&view.view).unwrap();
    let keys = proptest::collection::vec(
        prop_oneof![
            Just("#(touch /nonexistent/x)".to_owned()),
            Just("#{pane_id}".to_owned()),
            Just(";".to_owned()),
            Just("\\;".to_owned()),
            Just("\r".to_owned()),
            Just("\u{1b}[A".to_owned()),
            Just("\u{1b}[200~".to_owned()),
            Just("日本🦀\u{200b}".to_owned()),
            "[\u{0}-\u{1f}\u{7f}]{1,3}",
            "\\PC{1,4}",
            "[ -~]{1,8}",
        ],
        1..8,
    )
    .prop_map(|v| v.concat());
    let mut runner = TestRunner::new(Config {
        cases: crate::terminal::tmux::prop_cases(2),
        failure_persistence: None,
        max_shrink_iters: 32,
        ..Config::default()
    });
    runner
        .run(&(keys, any::<u64>()), |(keys, n)| {
            let data = format!("kk{n:016x}{keys}");
            let from = std::fs::metadata(&got_file).map_or(0, |m| m.len() as usize);
            terminals.type_into(&view.view, &data).unwrap();
            let got = wait_for("the typed bytes", || {
                let got = std::fs::read(&got_file).unwrap_or_default();
                (got.len() >= from + data.len()).then_some(got)
            });
            prop_assert_eq!(&got[from..], data.as_bytes(), "typed {:?}", data);
            let marker = &data.as_bytes()[..18];
            prop_assert!(
                !crate::terminal::tmux::argv_ever_held(marker)
                    && !crate::terminal::tmux::argv_ever_held_hex(marker),
                "in argv: {data:?}"
            );
            Ok(())
        })
        .unwrap();
}
