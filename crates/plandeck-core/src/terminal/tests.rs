//! Typing into real tmux panes on a private server (`tmux -S <tmp>/sock`).

use super::*;
use plandeck_testkit::tmux::Tmux as TestTmux;
use plandeck_testkit::wait_for;
use std::path::Path;
use std::process::Command;

/// A pane whose program turns bracketed paste on and records every byte it reads into `got`,
/// once `ready` exists.
const RECORDER: &str = "printf '\\033[?2004h'; stty raw -echo; touch ready; exec cat > got\n";

fn recorder(dir: &Path) -> (TestTmux, Target) {
    let script = RECORDER
        .replace("ready", dir.join("ready").to_str().unwrap())
        .replace("got", dir.join("got").to_str().unwrap());
    let (server, pane, pid) = TestTmux::start(dir, &script);
    wait_for("the recorder", || dir.join("ready").exists().then_some(()));
    let target = Target {
        socket: server.socket.to_str().map(str::to_owned),
        pane,
        agent: Some(ProcessId::current(pid)),
    };
    (server, target)
}

fn got(dir: &Path, ends_with: &str) -> String {
    wait_for("the typed bytes", || {
        let s = String::from_utf8_lossy(&std::fs::read(dir.join("got")).unwrap_or_default())
            .into_owned();
        s.ends_with(ends_with).then_some(s)
    })
}

#[test]
fn one_line_starting_with_a_dash_is_typed_literally() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, target) = recorder(dir.path());
    target.send(&Key::Choice(3)).unwrap();
    target
        .send(&Key::Text("-x --help `date` $(id)".into()))
        .unwrap();
    target.send(&Key::Enter).unwrap();
    assert_eq!(got(dir.path(), "\r"), "3-x --help `date` $(id)\r");
}

#[test]
fn lines_arrive_as_one_paste_and_control_characters_as_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, target) = recorder(dir.path());
    let text = "- first\r\n- second `x` $(touch marker)\u{3}\nthird\u{1b}[201~\u{1b}[Aend";
    target.send(&Key::Text(text.into())).unwrap();
    target.send(&Key::Enter).unwrap();
    // The paste's own brackets are the only escape sequences; no line break is a carriage
    // return (which submits), and the text's ESC [201~ could not end the paste early.
    assert_eq!(
        got(dir.path(), "\r"),
        "\u{1b}[200~- first\n- second `x` $(touch marker)\nthird[201~[Aend\u{1b}[201~\r"
    );
}

#[test]
fn nothing_is_typed_for_an_agent_that_is_gone_or_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, target) = recorder(dir.path());
    let mut child = Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    let gone = Target {
        agent: Some(ProcessId::current(dead)),
        ..target.clone()
    };
    assert_eq!(
        gone.send(&Key::Text("rm -rf ~".into())),
        Err(TerminalError::AgentGone { pid: dead })
    );
    let agent = target.agent.unwrap();
    let replaced = Target {
        agent: Some(ProcessId {
            pid: agent.pid,
            start_time: agent.start_time.map(|t| t + 1),
        }),
        ..target.clone()
    };
    assert_eq!(
        replaced.send(&Key::Enter),
        Err(TerminalError::AgentReplaced { pid: agent.pid })
    );
    let unknown = Target {
        agent: None,
        ..target.clone()
    };
    assert_eq!(unknown.send(&Key::Enter), Err(TerminalError::AgentUnknown));
    // The recorder got nothing at all.
    target.send(&Key::Choice(1)).unwrap();
    assert_eq!(got(dir.path(), "1"), "1");
}

#[test]
fn nothing_is_typed_into_a_pane_that_is_not_the_agents() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, target) = recorder(dir.path());
    // A live process elsewhere (its stdin is not the pane's terminal).
    let mut other = Command::new("sleep")
        .arg("1000")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let wrong = Target {
        agent: Some(ProcessId::current(other.id())),
        ..target.clone()
    };
    let err = wrong.send(&Key::Text("hello".into())).unwrap_err();
    let _ = other.kill();
    let _ = other.wait();
    assert!(matches!(err, TerminalError::NotAgentsPane { .. }), "{err}");
    assert!(err.to_string().contains("nothing was typed"), "{err}");
    let missing = Target {
        pane: "%99".into(),
        ..target.clone()
    };
    assert!(matches!(
        missing.send(&Key::Enter),
        Err(TerminalError::PaneGone { .. })
    ));
    target.send(&Key::Choice(2)).unwrap();
    assert_eq!(got(dir.path(), "2"), "2");
}

#[test]
fn nothing_is_typed_when_a_shell_is_in_front_of_the_agent() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("agent-pid");
    // An interactive shell whose "agent" was sent to the background: the shell reads the keys.
    let script = format!(
        "set -m\nsleep 1000 &\necho $! > {}\nexec bash --norc --noprofile -i\n",
        pidfile.display()
    );
    let (server, pane, _) = TestTmux::start(dir.path(), &script);
    let pid: u32 = wait_for("the background agent", || {
        std::fs::read_to_string(&pidfile).ok()?.trim().parse().ok()
    });
    let target = Target {
        socket: server.socket.to_str().map(str::to_owned),
        pane,
        agent: Some(ProcessId::current(pid)),
    };
    assert_eq!(
        target.send(&Key::Text("touch typed".into())),
        Err(TerminalError::AgentNotInForeground { pid })
    );
    let _ = std::process::Command::new("kill")
        .arg(pid.to_string())
        .status();
}

/// Gemini CLI relaunches itself as a child process. When the first process dies and the child
/// lives on, the pane's shell takes the terminal back in the same process group as the orphaned
/// agent: every earlier check passed, and the shell got half the keys.
#[test]
fn nothing_is_typed_when_the_agent_is_orphaned_and_a_shell_shares_its_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("agent-pid");
    let typed = dir.path().join("typed");
    // The launcher (an inner sh) starts the agent reading the pane's terminal, then exits; the
    // pane's process then becomes a reader of the same terminal, in the same group.
    let script = format!(
        "sh -c 'exec 3<&0; sleep 1000 <&3 & echo $! > {pid}; exit 0'\nexec bash --norc --noprofile\n",
        pid = pidfile.display()
    );
    let (server, pane, pane_pid) = TestTmux::start(dir.path(), &script);
    let pid: u32 = wait_for("the orphaned agent", || {
        std::fs::read_to_string(&pidfile).ok()?.trim().parse().ok()
    });
    let target = Target {
        socket: server.socket.to_str().map(str::to_owned),
        pane,
        agent: Some(ProcessId::current(pid)),
    };
    // The launcher ran before the pane's process became the shell: once it has, the agent is
    // an orphan in the shell's group.
    wait_for("the pane's shell", || {
        std::fs::read(format!("/proc/{pane_pid}/cmdline"))
            .ok()?
            .windows(6)
            .any(|w| w == b"--norc")
            .then_some(())
    });
    assert!(!is_descendant(pid, pane_pid));
    let err = target
        .send(&Key::Text(format!("touch {}", typed.display())))
        .unwrap_err();
    assert!(
        matches!(err, TerminalError::AgentOrphaned { pid: p, .. } if p == pid),
        "{err:?}"
    );
    let _ = super::tmux::press(target.socket.as_deref(), &target.pane, NamedKey::Enter);
    assert!(!typed.exists());
    let _ = std::process::Command::new("kill")
        .arg(pid.to_string())
        .status();
}

/// A reader in the agent's foreground group that is neither its launcher nor its descendant.
#[test]
fn nothing_is_typed_when_another_program_reads_the_agents_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("agent-pid");
    // The pane's bash (no job control) starts a "reader" and the "agent" side by side: both in
    // the pane's group, both reading the terminal; the agent's parent is the pane's process.
    let script = format!(
        "exec 3<&0\ncat >/dev/null <&3 &\nsleep 1000 <&3 &\necho $! > {pid}\nwait\n",
        pid = pidfile.display()
    );
    let (server, pane, _) = TestTmux::start(dir.path(), &script);
    let pid: u32 = wait_for("the agent", || {
        std::fs::read_to_string(&pidfile).ok()?.trim().parse().ok()
    });
    let target = Target {
        socket: server.socket.to_str().map(str::to_owned),
        pane,
        agent: Some(ProcessId::current(pid)),
    };
    let err = target.verify().unwrap_err();
    assert!(
        matches!(&err, TerminalError::SharedTerminal { pid: p, comm, .. } if *p == pid && comm == "cat"),
        "{err:?}"
    );
    let _ = std::process::Command::new("kill")
        .arg(pid.to_string())
        .status();
}

#[test]
fn hook_parents_that_are_shells_are_skipped() {
    let me = std::process::id();
    assert_eq!(agent_of_hook(me), Some(me));
    use std::os::unix::process::CommandExt;
    // Its own process group, and none of the test's output: the sleeping child must neither
    // outlive the test nor hold the test runner's stdout open (a `cargo test | tee` would wait).
    let mut sh = Command::new("sh")
        .args(["-c", "sleep 1000; true"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap();
    let comm = format!("/proc/{}/comm", sh.id());
    wait_for("the shell to start", || {
        (std::fs::read_to_string(&comm).ok()?.trim() == "sh").then_some(())
    });
    let found = agent_of_hook(sh.id());
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{}", sh.id())])
        .status();
    let _ = sh.wait();
    assert_eq!(found, Some(me));
}

/// Issue 33, finding 9: tmux reads an argument ending in `;` as the end of a command and drops
/// the `;` (`run make;` typed `run make`, `;` alone typed nothing). Every text arrives byte for
/// byte.
#[test]
fn a_trailing_semicolon_and_a_lone_one_arrive_as_typed() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, target) = recorder(dir.path());
    for text in ["run make;", ";", "a\\;", "x;\ny;", "#{pane_id} #(id) ;;"] {
        target.send(&Key::Text(text.into())).unwrap();
        target.send(&Key::Enter).unwrap();
    }
    assert_eq!(
        got(dir.path(), "#{pane_id} #(id) ;;\r"),
        "run make;\r;\ra\\;\r\u{1b}[200~x;\ny;\u{1b}[201~\r#{pane_id} #(id) ;;\r"
    );
}

/// Issue 33, finding 5: text typed into a pane is never in a process's argv (any local user reads
/// `/proc/*/cmdline`): every argv the tmux builder made is checked, and the text arrives.
#[test]
fn typed_text_is_never_in_a_process_argv() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, target) = recorder(dir.path());
    let one = format!("hunter2-{}-one-line", std::process::id());
    let two = format!("hunter2-{}-two\nlines", std::process::id());
    target.send(&Key::Text(one.clone())).unwrap();
    target.send(&Key::Text(two.clone())).unwrap();
    target.send(&Key::Enter).unwrap();
    assert_eq!(
        got(dir.path(), "\r"),
        format!("{one}\u{1b}[200~{two}\u{1b}[201~\r")
    );
    assert!(
        !tmux::argv_ever_held(b"hunter2-"),
        "a secret was in tmux's argv"
    );
    // The check sees what is in argv.
    let _ = Tmux::on(target.socket.as_deref(), "display-message")
        .flag("-p")
        .pane(&target.pane)
        .format("hunter3-in-argv")
        .run();
    assert!(tmux::argv_ever_held(b"hunter3-in-argv"));
}

/// Pieces of hostile text: tmux formats and separators, shell words, controls, wide and invisible
/// characters.
fn hostile_text() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let piece = prop_oneof![
        Just("#(touch${IFS}$PLANDECK_CANARY)".to_owned()),
        Just("#{pane_id}".to_owned()),
        Just("#S".to_owned()),
        Just(";".to_owned()),
        Just("\\;".to_owned()),
        Just("\\".to_owned()),
        Just("\n".to_owned()),
        Just("\r\n".to_owned()),
        Just("\t".to_owned()),
        Just("\u{1b}[201~".to_owned()),
        Just("\u{200b}\u{202e}\u{e0041}".to_owned()),
        Just("日本語".to_owned()),
        Just("👨\u{200d}👩".to_owned()),
        Just("-".to_owned()),
        Just(" ".to_owned()),
        "[\u{0}-\u{1f}\u{7f}\u{80}-\u{9f}]{1,2}",
        "[ -~]{1,6}",
        "\\PC{1,3}",
    ];
    proptest::collection::vec(piece, 0..8).prop_map(|v| v.concat())
}

/// Issue 33, "one way to speak to tmux": any text typed into a pane (a message, feedback: both go
/// through [`Target::send`]) arrives exactly as [`clean_text`] leaves it (`;`, `#{…}`, `\` and
/// all), runs nothing, and is in no process's argv. `PLANDECK_TMUX_CASES` cases (CI sets more).
#[test]
fn any_text_arrives_as_cleaned_runs_nothing_and_is_never_in_argv() {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};
    let dir = tempfile::tempdir().unwrap();
    let (server, target) = recorder(dir.path());
    let canary = dir.path().join("canary");
    server.run(&[
        "set-environment",
        "-g",
        "PLANDECK_CANARY",
        canary.to_str().unwrap(),
    ]);
    let got_file = dir.path().join("got");
    let mut runner = TestRunner::new(Config {
        cases: tmux::prop_cases(2),
        failure_persistence: None,
        max_shrink_iters: 32,
        ..Config::default()
    });
    runner
        .run(
            &(hostile_text(), any::<u64>(), any::<prop::sample::Index>()),
            |(text, n, at)| {
                let marker = format!("pw{n:016x}");
                let cut = text
                    .char_indices()
                    .map(|(i, _)| i)
                    .chain([text.len()])
                    .nth(at.index(text.chars().count() + 1))
                    .unwrap_or(text.len());
                let text = format!("{}{marker}{}", &text[..cut], &text[cut..]);
                let from = std::fs::metadata(&got_file).map_or(0, |m| m.len() as usize);
                // Enter after every fourth text (a named key: `send-keys Enter`).
                let enter = n % 4 == 0;
                target.send(&Key::Text(text.clone())).unwrap();
                if enter {
                    target.send(&Key::Enter).unwrap();
                }
                let cleaned = clean_text(&text, MAX_TYPED_CHARS);
                let mut want = if cleaned.contains('\n') {
                    format!("\u{1b}[200~{cleaned}\u{1b}[201~")
                } else {
                    cleaned
                };
                if enter {
                    want.push('\r');
                }
                let got = wait_for("the typed bytes", || {
                    let got = std::fs::read(&got_file).unwrap_or_default();
                    (got.len() >= from + want.len()).then_some(got)
                });
                prop_assert_eq!(
                    String::from_utf8_lossy(&got[from..]),
                    want.as_str(),
                    "typed {:?}",
                    text
                );
                prop_assert!(
                    !tmux::argv_ever_held(marker.as_bytes()),
                    "in argv: {text:?}"
                );
                prop_assert!(!canary.exists(), "ran: {text:?}");
                Ok(())
            },
        )
        .unwrap();
}
