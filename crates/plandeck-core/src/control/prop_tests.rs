//! Issue 33, "one way to speak to tmux": random worktree names, folder names and prompts (with
//! `#(…)`, `#{…}`, `;`, `\`, control, wide and invisible characters) through start and resume,
//! against a real tmux server of the test's own (`-S` in a temp folder). Nothing runs (the
//! canary a `#(touch …)` would make is never made), and the agent runs in exactly the folder
//! reported with exactly the prompt given, or the start is refused with its reason.
//!
//! Cases: a quarter of `PLANDECK_TMUX_CASES` each (512 unless set; `scripts/test.sh` sets 1,500:
//! 375 here, 750 for each typing property in `terminal` and `mirror`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

use super::start::{command_line, start_with, Server};
use super::steer::{resume_line, resume_with};
use super::*;
use crate::config::Roots;
use plandeck_testkit::tmux::Tmux as TestTmux;

use crate::terminal::tmux::prop_cases as cases;

fn config(cases: u32) -> Config {
    Config {
        cases,
        failure_persistence: None,
        max_shrink_iters: 64,
        ..Config::default()
    }
}

/// A private tmux server whose `#(…)` jobs would make `canary`, a repository, and a fake agent
/// CLI that writes its arguments (NUL-separated) to `<args>/<pid>`, draws a line, and waits.
struct Bench {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    server: TestTmux,
    socket: String,
    canary: PathBuf,
    args: PathBuf,
    program: PathBuf,
    roots: Roots,
    repo: PathBuf,
}

impl Bench {
    fn new() -> Bench {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        let server = TestTmux::server(&root);
        let canary = root.join("canary");
        server.run(&[
            "set-environment",
            "-g",
            "PLANDECK_CANARY",
            canary.to_str().unwrap(),
        ]);
        let args = root.join("args");
        std::fs::create_dir_all(&args).unwrap();
        let program = root.join("bin/claude");
        std::fs::create_dir_all(program.parent().unwrap()).unwrap();
        std::fs::write(
            &program,
            format!(
                "#!/bin/sh\nprintf '%s\\0' \"$@\" > {a}/$$.tmp && mv {a}/$$.tmp {a}/$$\nprintf 'ready\\n'\nexec cat > /dev/null\n",
                a = args.display()
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        let repo = root.join("app");
        plandeck_testkit::git::new_repo(&repo, &[("a.txt", "a\n")]);
        Bench {
            socket: server.socket.display().to_string(),
            roots: Roots::under_home(&root.join("home")),
            _tmp: tmp,
            root,
            server,
            canary,
            args,
            program,
            repo,
        }
    }

    fn server(&self) -> Server<'_> {
        Server {
            socket: Some(&self.socket),
            settle: Duration::ZERO,
        }
    }

    /// The arguments the agent with `pid` was started with.
    fn args_of(&self, pid: u32) -> Vec<Vec<u8>> {
        let file = self.args.join(pid.to_string());
        let bytes =
            plandeck_testkit::wait_for("the agent's arguments", || std::fs::read(&file).ok());
        let mut words: Vec<Vec<u8>> = bytes.split(|b| *b == 0).map(<[u8]>::to_vec).collect();
        words.pop(); // after the last NUL
        words
    }

    /// Checks what a started agent runs with, then closes its session.
    fn check_started(
        &self,
        s: &Started,
        folder: &Path,
        argv: &[String],
    ) -> Result<(), TestCaseError> {
        let cwd = std::fs::read_link(format!("/proc/{}/cwd", s.pid));
        let want = folder.canonicalize().unwrap();
        let args = self.args_of(s.pid);
        let _ = self
            .server
            .cmd(&["kill-session", "-t", &format!("={}", s.tmux_session)]);
        prop_assert_eq!(cwd.ok(), Some(want));
        prop_assert_eq!(&s.cwd, &folder.display().to_string());
        let want_args: Vec<Vec<u8>> = argv[1..].iter().map(|a| a.as_bytes().to_vec()).collect();
        prop_assert_eq!(args, want_args);
        Ok(())
    }

    /// No `#(…)` ran: a command the test runs through the server after the call (`run-shell`
    /// waits for it) has run, and the canary is not there.
    fn nothing_ran(&self, n: u64) -> Result<(), TestCaseError> {
        let flushed = self.root.join(format!("flushed-{n}"));
        self.server
            .run(&["run-shell", &format!("touch {}", flushed.display())]);
        prop_assert!(flushed.exists(), "the server ran no command");
        prop_assert!(!self.canary.exists(), "a name ran as a command");
        Ok(())
    }
}

/// Pieces of a hostile name.
fn piece(any_char: bool) -> BoxedStrategy<String> {
    let common = prop_oneof![
        Just("#(touch${IFS}$PLANDECK_CANARY)".to_owned()),
        Just("#(touch $PLANDECK_CANARY)".to_owned()),
        Just("#{session_name}".to_owned()),
        Just("#{pane_id}".to_owned()),
        Just("#S".to_owned()),
        Just("##".to_owned()),
        Just("#".to_owned()),
        Just(";".to_owned()),
        Just("\\;".to_owned()),
        Just("$(x)".to_owned()),
        Just("{,}".to_owned()),
        Just("日本".to_owned()),
        Just("🦀".to_owned()),
        "[a-z0-9_=+%!&'\"<>|,-]{1,4}",
    ];
    if any_char {
        prop_oneof![
            4 => common,
            1 => Just("\\".to_owned()),
            1 => Just(" ".to_owned()),
            1 => Just("\u{200b}\u{202e}".to_owned()),
            1 => "[\u{1}-\u{1f}\u{7f}]{1,2}",
            1 => "[^/\u{0}]{1,3}",
        ]
        .boxed()
    } else {
        prop_oneof![
            6 => common,
            // What git refuses in a branch name: refused, with the reason.
            1 => Just(" ".to_owned()),
            1 => Just("..".to_owned()),
            1 => Just("\\".to_owned()),
        ]
        .boxed()
    }
}

fn name(any_char: bool) -> impl Strategy<Value = String> {
    proptest::collection::vec(piece(any_char), 1..5).prop_map(|v| v.concat())
}

fn prompt() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![piece(true), Just(";".to_owned()), "[^\u{0}]{0,6}"],
        0..4,
    )
    .prop_map(|v| v.concat())
}

#[test]
fn worktree_names_and_prompts_through_start_are_data() {
    let b = Bench::new();
    let count = std::cell::Cell::new(0u64);
    let mut runner = TestRunner::new(config(cases(4)));
    runner
        .run(&(name(false), prompt()), |(worktree, prompt)| {
            let n = count.get() + 1;
            count.set(n);
            let req = StartRequest {
                agent: Agent::Claude,
                repo: b.repo.display().to_string(),
                worktree: Some(worktree.clone()),
                base: None,
                plan: false,
                prompt: Some(prompt.clone()),
            };
            match start_with(&b.roots, &req, &b.program, b.server()) {
                Ok(s) => {
                    // A name of only spaces is no name: the agent starts in the repository.
                    let folder = if worktree.trim().is_empty() {
                        prop_assert_eq!(s.worktree.as_deref(), None);
                        b.repo.clone()
                    } else {
                        prop_assert_eq!(s.worktree.as_deref(), Some(s.cwd.as_str()));
                        super::start::worktree_dir(&b.repo, worktree.trim())
                    };
                    let argv = command_line(
                        &b.program,
                        Agent::Claude,
                        false,
                        s.session_id.as_deref(),
                        Some(&prompt),
                    );
                    b.check_started(&s, &folder, &argv)?;
                }
                Err(
                    e @ (ControlError::BadWorktreeName { .. }
                    | ControlError::BranchExists { .. }
                    | ControlError::WorktreeExists { .. }),
                ) => {
                    prop_assert!(!e.to_string().is_empty());
                }
                Err(e) => prop_assert!(false, "{worktree:?}: {e}"),
            }
            b.nothing_ran(n)
        })
        .unwrap();
}

#[test]
fn folder_names_through_resume_are_data() {
    let b = Bench::new();
    let folders = b.root.join("folders");
    std::fs::create_dir_all(&folders).unwrap();
    let count = std::cell::Cell::new(0u64);
    let mut runner = TestRunner::new(config(cases(4)));
    runner
        .run(&name(true), |folder_name| {
            let n = count.get() + 1;
            count.set(n);
            prop_assume!(folder_name != "." && folder_name != ".." && folder_name.len() < 200);
            let folder = folders.join(&folder_name);
            prop_assume!(std::fs::create_dir_all(&folder).is_ok());
            let id = format!("resumed-{n}");
            let known = Some((Agent::Claude, folder.display().to_string()));
            // A home of its own per case: the records of earlier cases are not read again.
            let roots = Roots::under_home(&b.root.join(format!("homes/{n}")));
            match resume_with(&roots, &id, known, Some(&b.program), b.server()) {
                Ok(s) => {
                    let argv = resume_line(&b.program, Agent::Claude, &id);
                    b.check_started(&s, &folder, &argv)?;
                }
                Err(e) => prop_assert!(false, "{folder_name:?}: {e}"),
            }
            b.nothing_ran(n)
        })
        .unwrap();
}

/// A session id comes from files an agent can write (a Claude transcript's file name, a Gemini
/// chat's `sessionId`, a Codex rollout's `id`) and becomes the resumed agent's argument: one that
/// reads as an option (`--settings={"hooks":…}` runs a command on every tool call,
/// `--dangerously-skip-permissions`, Codex's `-c…`) or holds a second word is refused, and no
/// agent is started.
#[test]
fn a_session_id_is_never_an_option_of_the_resumed_agent() {
    let b = Bench::new();
    let folder = b.root.join("resumed");
    std::fs::create_dir_all(&folder).unwrap();
    let hostile = [
        r#"--settings={"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"touch /tmp/x"}]}]}}"#,
        "--dangerously-skip-permissions",
        "--yolo",
        "-cnotify=[\"touch\",\"/tmp/x\"]",
        "-",
        "",
        " 1b2c",
        "1b2c --yolo",
        "1b2c\n--yolo",
        "a/../b",
    ];
    for (n, id) in hostile.iter().enumerate() {
        for agent in [Agent::Claude, Agent::Gemini, Agent::Codex] {
            let roots = Roots::under_home(&b.root.join(format!("homes/{n}-{agent}")));
            let known = Some((agent, folder.display().to_string()));
            match resume_with(&roots, id, known, Some(&b.program), b.server()) {
                Err(ControlError::BadSessionId { .. }) => {}
                other => panic!("{id:?} ({agent}): {other:?}"),
            }
        }
    }
    let started: Vec<_> = std::fs::read_dir(&b.args).unwrap().collect();
    assert!(started.is_empty(), "an agent was started: {started:?}");
    // A real id still resumes.
    let id = "0b8f6c1e-2f3a-4d5b-9c6d-7e8f9a0b1c2d";
    let roots = Roots::under_home(&b.root.join("homes/real"));
    let known = Some((Agent::Claude, folder.display().to_string()));
    let s = resume_with(&roots, id, known, Some(&b.program), b.server()).unwrap();
    b.check_started(&s, &folder, &resume_line(&b.program, Agent::Claude, id))
        .unwrap();
}
