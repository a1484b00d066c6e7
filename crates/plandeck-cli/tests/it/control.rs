//! Session control through the CLI: `plandeck start` in a real temp repository, on the person's
//! default tmux server made private with `TMUX_TMPDIR` (never `-L`), a fake agent CLI (a bash
//! script under the CLI's name, drawing Claude Code's input box) on the PATH; then `send`,
//! `interrupt`, `stop`, `resume` and `attach`, and every refusal with nothing half-made left.
//! Each command runs as a process of its own (it needs another PATH and TMUX_TMPDIR).

use std::path::{Path, PathBuf};
use std::process::Command;

use plandeck_testkit::tmux::Recording;
use plandeck_testkit::wait_for;

use crate::common::{output, plandeck_process, write_executable};

/// A scratch machine: a home with a repository `work/app`, a `bin` of fake programs first on the
/// PATH, and a tmux default server of its own (`TMUX_TMPDIR`), killed when dropped.
struct Machine {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    repo: PathBuf,
    bin: PathBuf,
    tmux_dir: PathBuf,
}

impl Machine {
    fn new() -> Machine {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        let home = root.join("home");
        let repo = home.join("work/app");
        plandeck_testkit::git::new_repo(&repo, &[("README.md", "# app\n")]);
        let bin = root.join("bin");
        let tmux_dir = root.join("tmux");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::create_dir_all(&tmux_dir).unwrap();
        Machine {
            _tmp: tmp,
            root,
            home,
            repo,
            bin,
            tmux_dir,
        }
    }

    /// A fake `name` CLI: writes its arguments to `<root>/<name>.args`, its folder to
    /// `<root>/<name>.cwd` and the CI variables it sees to `<root>/<name>.ci`, draws Claude Code's empty input box, then records every byte
    /// typed into `<root>/got` (under the same name, so it is the agent's own process).
    fn fake_agent(&self, name: &str) {
        let script = format!(
            "#!/bin/bash\npwd -P > {cwd}.tmp && mv {cwd}.tmp {cwd}\nprintf '%s' \"${{CI-no CI}} ${{CONTINUOUS_INTEGRATION-no CONTINUOUS_INTEGRATION}}\" > {ci}.tmp && mv {ci}.tmp {ci}\nprintf '%s\\n' \"$@\" > {args}.tmp && mv {args}.tmp {args}\nrule=$(printf '─%.0s' $(seq 40))\nprintf '\\033[?2004h%s\\n❯ \\n%s\\n' \"$rule\" \"$rule\"\nstty raw\ncat >> {got}\n",
            args = self.root.join(format!("{name}.args")).display(),
            ci = self.root.join(format!("{name}.ci")).display(),
            cwd = self.root.join(format!("{name}.cwd")).display(),
            got = self.root.join("got").display(),
        );
        write_executable(&self.bin.join(name), &script, 0o755);
    }

    fn path(&self) -> String {
        format!(
            "{}:{}",
            self.bin.display(),
            std::env::var("PATH").unwrap_or_default()
        )
    }

    /// The CLI run as CI machines run it (`CI=true`): the tmux server it starts has them in its
    /// environment, and the agents it starts must not (Gemini CLI would run headless).
    fn cli(&self, args: &[&str]) -> (i32, String, String) {
        self.cli_with(
            &self.path(),
            &[("CI", "true"), ("CONTINUOUS_INTEGRATION", "true")],
            args,
        )
    }

    fn cli_with(&self, path: &str, vars: &[(&str, &str)], args: &[&str]) -> (i32, String, String) {
        let mut cmd = plandeck_process(&self.home);
        cmd.args(args)
            .env("PATH", path)
            .env("TMUX_TMPDIR", &self.tmux_dir)
            .env_remove("TMUX")
            .env_remove("TMUX_PANE")
            .env_remove("TERMINAL");
        for (k, v) in vars {
            cmd.env(k, v);
        }
        output(&mut cmd)
    }

    /// `tmux` on this machine's default server.
    fn tmux(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .args(args)
            .env("TMUX_TMPDIR", &self.tmux_dir)
            .env_remove("TMUX")
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn read(&self, name: &str) -> String {
        String::from_utf8_lossy(&std::fs::read(self.root.join(name)).unwrap_or_default())
            .into_owned()
    }

    fn branches(&self) -> Vec<String> {
        let out = plandeck_testkit::git::git(&self.repo, &["branch", "--format=%(refname:short)"]);
        out.lines().map(str::to_owned).collect()
    }

    fn worktrees_dir(&self) -> PathBuf {
        self.repo.parent().unwrap().join("app.worktrees")
    }
}

impl Drop for Machine {
    fn drop(&mut self) {
        // The fake agents (bash and cat) end on the hang-up their panes get.
        self.tmux(&["kill-server"]);
    }
}

fn json(stdout: &str) -> serde_json::Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}

#[test]
fn start_runs_the_agent_in_a_new_worktree_in_the_persons_tmux_and_steers_it() {
    plandeck_testkit::require_tool("tmux");
    let m = Machine::new();
    m.fake_agent("claude");
    let repo = m.repo.to_str().unwrap();
    let (code, out, err) = m.cli(&[
        "start",
        "--agent",
        "claude",
        "--repo",
        repo,
        "--worktree",
        "feat",
        "--plan",
        "--prompt",
        "plan pagination",
        "--json",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let s = json(&out);
    assert_eq!(s["tmuxSession"], "app-feat-claude");
    assert_eq!(s["agent"], "claude");
    assert_eq!(s["plan"], true);
    let wt = m.worktrees_dir().join("feat");
    assert_eq!(s["cwd"], wt.to_str().unwrap());
    assert_eq!(s["worktree"], wt.to_str().unwrap());
    assert_eq!(s["branch"], "feat");
    assert_eq!(s["attach"], "tmux attach -t app-feat-claude");
    let session_id = s["sessionId"].as_str().unwrap().to_owned();
    assert_eq!(session_id.len(), 36);
    // The plan hook is not installed in this home: the start says so, with its preview.
    assert_eq!(s["hook"]["agent"], "claude");
    assert_eq!(s["hook"]["installed"], false);
    // The CLI got plan mode, the session id and the prompt as its own arguments.
    let args = wait_for("the agent's arguments", || {
        let a = m.read("claude.args");
        (!a.is_empty()).then_some(a)
    });
    assert_eq!(
        args,
        format!("--session-id\n{session_id}\n--permission-mode\nplan\nplan pagination\n")
    );
    assert_eq!(m.read("claude.ci"), "no CI no CONTINUOUS_INTEGRATION");
    // On the default server (TMUX_TMPDIR, no -L), in the worktree on its new branch.
    let listed = m.tmux(&[
        "list-panes",
        "-a",
        "-F",
        "#{session_name} #{pane_current_path}",
    ]);
    assert_eq!(listed.trim(), format!("app-feat-claude {}", wt.display()));
    assert!(m.branches().contains(&"feat".to_owned()));

    // The same name again: refused, nothing new made.
    let (code, out, _) = m.cli(&[
        "start",
        "--agent",
        "claude",
        "--repo",
        repo,
        "--worktree",
        "feat",
        "--json",
    ]);
    assert_eq!(code, 1);
    assert_eq!(json(&out)["error"]["kind"], "conflict", "{out}");

    // Send: typed and submitted into the empty input box.
    let (code, out, err) = m.cli(&["send", "app-feat-claude", "next: write the tests", "--json"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(json(&out)["message"]
        .as_str()
        .unwrap()
        .contains("submitted"));
    wait_for("the message and Enter", || {
        (m.read("got") == "next: write the tests\r").then_some(())
    });
    // Interrupt: the agent's own key, by its session id.
    let (code, out, err) = m.cli(&["interrupt", &session_id]);
    assert_eq!(code, 0, "{out}{err}");
    wait_for("the Esc", || {
        m.read("got").ends_with('\u{1b}').then_some(())
    });

    // Stop lists first and ends nothing without --yes.
    let pid = s["pid"].as_u64().unwrap() as u32;
    let (code, out, err) = m.cli(&["stop", "app-feat-claude", "--json"]);
    assert_eq!(code, 0, "{out}{err}");
    let preview = json(&out);
    assert_eq!(preview["pid"], pid);
    assert!(
        preview["command"].as_str().unwrap().contains("/bin/claude"),
        "{out}"
    );
    assert_eq!(preview["processes"][0]["pid"], pid);
    assert!(Path::new(&format!("/proc/{pid}")).exists());
    let (code, out, err) = m.cli(&["stop", "app-feat-claude", "--yes"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains(&format!("pid {pid}")), "{out}");
    wait_for("the tmux session to close", || {
        (!m.tmux(&["ls", "-F", "#{session_name}"])
            .contains("app-feat-claude"))
        .then_some(())
    });
    // Ended: not steered any more.
    let (code, _, err) = m.cli(&["send", "app-feat-claude", "hello"]);
    assert_eq!(code, 1);
    assert!(err.contains("has ended"), "{err}");

    // Resume: in its folder, in a new tmux session, with the CLI's own resume.
    std::fs::remove_file(m.root.join("claude.args")).unwrap();
    std::fs::remove_file(m.root.join("claude.ci")).unwrap();
    let (code, out, err) = m.cli(&["resume", &session_id, "--json"]);
    assert_eq!(code, 0, "{out}{err}");
    let r = json(&out);
    assert_eq!(r["tmuxSession"], "feat-claude");
    assert_eq!(r["cwd"], wt.to_str().unwrap());
    let args = wait_for("the resumed agent's arguments", || {
        let a = m.read("claude.args");
        (!a.is_empty()).then_some(a)
    });
    assert_eq!(args, format!("--resume\n{session_id}\n"));
    // Interactive in its pane: the CI variables of the server's environment were not passed on.
    assert_eq!(m.read("claude.ci"), "no CI no CONTINUOUS_INTEGRATION");
    // Running: not resumed twice.
    let (code, _, err) = m.cli(&["resume", &session_id]);
    assert_eq!(code, 1);
    assert!(err.contains("still runs"), "{err}");

    // Attach: the person's terminal emulator runs `tmux attach`; without one, a clear error.
    let term = m.bin.join("my-term");
    write_executable(
        &term,
        &format!(
            "#!/bin/bash\nprintf '%s\\n' \"$@\" > {0}.tmp && mv {0}.tmp {0}\n",
            m.root.join("term.args").display()
        ),
        0o755,
    );
    let (code, out, err) = m.cli_with(
        &m.path(),
        &[("TERMINAL", term.to_str().unwrap())],
        &["attach", &session_id],
    );
    assert_eq!(code, 0, "{out}{err}");
    let term_args = wait_for("the terminal's arguments", || {
        let a = m.read("term.args");
        (!a.is_empty()).then_some(a)
    });
    assert_eq!(term_args, "-e\ntmux\nattach\n-t\n=feat-claude\n");
    let (code, _, err) = m.cli_with(&m.bin.display().to_string(), &[], &["attach", &session_id]);
    assert_eq!(code, 1);
    assert!(err.contains("no terminal emulator found"), "{err}");
    assert!(err.contains("tmux attach -t"), "{err}");
}

#[test]
fn a_start_that_cannot_be_done_is_refused_with_why_and_leaves_nothing() {
    let m = Machine::new();
    m.fake_agent("claude");
    let repo = m.repo.to_str().unwrap();
    let start = |extra: &[&str]| {
        let mut args = vec!["start", "--agent", "claude", "--json"];
        args.extend_from_slice(extra);
        let (code, out, _) = m.cli(&args);
        assert_ne!(code, 0, "{out}");
        json(&out)["error"].clone()
    };
    let not_repo = m.home.join("work");
    let e = start(&["--repo", not_repo.to_str().unwrap(), "--worktree", "x"]);
    assert_eq!(e["kind"], "badInput", "{e}");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("is not a git repository"),
        "{e}"
    );
    let e = start(&["--repo", repo, "--worktree", "a..b"]);
    assert!(
        e["message"].as_str().unwrap().contains("git refuses it"),
        "{e}"
    );
    let e = start(&["--repo", repo, "--worktree", "x", "--base", "nope"]);
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("\"nope\" is not a branch"),
        "{e}"
    );
    plandeck_testkit::git::git(&m.repo, &["branch", "taken"]);
    let e = start(&["--repo", repo, "--worktree", "taken"]);
    assert!(
        e["message"].as_str().unwrap().contains("already exists"),
        "{e}"
    );
    // Gemini CLI is not installed on this PATH (only the fake `claude` is).
    let path_without_gemini = format!("{}:/usr/bin:/bin", m.bin.display());
    let (code, out, _) = m.cli_with(
        &path_without_gemini,
        &[],
        &[
            "start",
            "--agent",
            "gemini",
            "--repo",
            repo,
            "--worktree",
            "g",
            "--json",
        ],
    );
    assert_eq!(code, 1);
    let e = &json(&out)["error"];
    assert_eq!(e["kind"], "unsupported", "{e}");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("\"gemini\" is not on the PATH"),
        "{e}"
    );
    // tmux missing: a PATH with the agent and nothing else.
    let (code, out, _) = m.cli_with(
        &m.bin.display().to_string(),
        &[],
        &[
            "start",
            "--agent",
            "claude",
            "--repo",
            repo,
            "--worktree",
            "t",
            "--json",
        ],
    );
    assert_eq!(code, 1);
    assert!(
        json(&out)["error"]["message"]
            .as_str()
            .unwrap()
            .contains("tmux is not installed"),
        "{out}"
    );
    // tmux too old.
    write_executable(&m.bin.join("tmux"), "#!/bin/sh\necho 'tmux 2.6'\n", 0o755);
    let e = start(&["--repo", repo, "--worktree", "old"]);
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("tmux 2.6 is too old"),
        "{e}"
    );
    std::fs::remove_file(m.bin.join("tmux")).unwrap();
    // An agent that exits right after it started: its reason said, its worktree removed. Its own
    // words, when the pane showed them before it exited (the fake agent waits until tmux shows
    // them: one path of reading the dead pane, whatever the machine's load). Below the pane's
    // first line: tmux 3.3 scrolls a dead pane up by one line for its "Pane is dead"...
    write_executable(
        &m.bin.join("claude"),
        "#!/bin/bash\nprintf '\\n\\n'\necho 'error: unknown option --permission-mode'\nuntil tmux capture-pane -p -t \"$TMUX_PANE\" | grep -q 'unknown option'; do sleep 0.05; done\nexit 1\n",
        0o755,
    );
    let e = start(&["--repo", repo, "--worktree", "dies", "--plan"]);
    let said = e["message"].as_str().unwrap();
    assert!(
        said.contains("exited right after it started")
            && said.contains("unknown option --permission-mode"),
        "{e}"
    );
    // ...and its exit status when it showed nothing (the other path).
    write_executable(&m.bin.join("claude"), "#!/bin/bash\nexit 7\n", 0o755);
    let e = start(&["--repo", repo, "--worktree", "silent", "--plan"]);
    let said = e["message"].as_str().unwrap();
    assert!(
        said.contains("exited right after it started") && said.contains("exit status 7"),
        "{e}"
    );
    // Nothing half-made: no branch but the two the test made, no worktree folder, no session.
    assert_eq!(m.branches(), ["main", "taken"]);
    assert!(!m.worktrees_dir().exists());
    assert_eq!(m.tmux(&["ls", "-F", "#{session_name}"]).trim(), "");
}

#[test]
fn a_persons_own_process_is_never_stopped_and_a_draft_never_sent_onto() {
    let m = Machine::new();
    // A live Claude Code registry entry naming a plain shell in a pane: the person's own. What is
    // typed into the pane is recorded.
    let ready = m.root.join("ready");
    let got = Recording::at(&m.root.join("mine.got"));
    m.tmux(&[
        "new-session",
        "-d",
        "-s",
        "mine",
        "-x",
        "120",
        "-y",
        "30",
        "bash",
        "--norc",
        "-c",
        &format!(
            "rule=$(printf '─%.0s' $(seq 40)); printf '%s\\n❯ half a thought\\n%s\\n' \"$rule\" \"$rule\"; touch {}; exec bash --norc -c 'stty raw -echo; cat > {}'",
            ready.display(),
            got.path.display()
        ),
    ]);
    wait_for("the pane", || ready.exists().then_some(()));
    let line = m.tmux(&["list-panes", "-t", "=mine", "-F", "#{pane_pid} #{pane_id}"]);
    let (pid, pane) = line.trim().split_once(' ').unwrap();
    let claude = m.home.join(".claude/sessions");
    std::fs::create_dir_all(&claude).unwrap();
    std::fs::write(
        claude.join(format!("{pid}.json")),
        serde_json::json!({"pid": pid.parse::<u32>().unwrap(), "sessionId": "s-mine", "cwd": "/w", "tmux": format!("mine:@0.{pane}")})
            .to_string(),
    )
    .unwrap();
    let (code, _, err) = m.cli(&["stop", "s-mine", "--yes"]);
    assert_eq!(code, 1);
    assert!(err.contains("is not Claude Code's own process"), "{err}");
    assert!(err.contains("nothing was ended"), "{err}");
    assert!(Path::new(&format!("/proc/{pid}")).exists());
    let (code, _, err) = m.cli(&["send", "s-mine", "do it"]);
    assert_eq!(code, 1);
    assert!(err.contains("\"half a thought\""), "{err}");
    assert!(err.contains("Nothing was typed"), "{err}");
    // Nor was anything: a barrier typed after the refusal is all the pane got.
    wait_for("the pane's recorder", || got.path.exists().then_some(()));
    got.assert_nothing_typed(|sentinel| {
        m.tmux(&["send-keys", "-t", pane, "-l", sentinel]);
    });
}

/// Every file and folder under `dir` named `name` (the canary a format job would make).
fn found_named(dir: &Path, name: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for e in entries.flatten() {
        let path = e.path();
        if e.file_name() == name {
            found.push(path.clone());
        }
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            found.extend(found_named(&path, name));
        }
    }
    found
}

/// Issue 33, finding 1: tmux expands `-c` as a format, so a worktree named `w#(touch${IFS}X)` ran
/// `touch X` as the person, and `wip#S` started the agent in another folder while Plandeck
/// reported the worktree. Now every name starts the agent in exactly its folder, runs nothing,
/// and so does a resume of a session whose recorded folder is so named.
#[test]
fn a_folder_name_is_never_a_tmux_format_on_start_or_resume() {
    let m = Machine::new();
    m.fake_agent("claude");
    let repo = m.repo.to_str().unwrap();
    // Where a `#(…)` job would run: the tmux server's folder, this CLI's, the home.
    let server_dir = || {
        let pid = m.tmux(&["display-message", "-p", "#{pid}"]);
        std::fs::read_link(format!("/proc/{}/cwd", pid.trim())).ok()
    };
    let no_canary = |what: &str| {
        // A job tmux started runs a moment later: a command run through the server after it
        // (`run-shell` waits for it) has run.
        let flushed = m.root.join(format!("flushed-{}", what.len()));
        m.tmux(&["run-shell", &format!("touch {}", flushed.display())]);
        assert!(flushed.exists(), "the server ran no command");
        let mut found = found_named(&m.root, "X");
        let mut places = vec![std::env::current_dir().unwrap()];
        places.extend(server_dir());
        found.extend(places.iter().map(|p| p.join("X")).filter(|x| x.exists()));
        assert!(
            found.is_empty(),
            "{what}: a folder name ran as a command: {found:?}"
        );
    };
    let mut session_id = String::new();
    for name in ["w#(touch${IFS}X)", "fix##1", "wip#S", "semi;"] {
        let _ = std::fs::remove_file(m.root.join("claude.cwd"));
        let (code, out, err) = m.cli(&[
            "start",
            "--agent",
            "claude",
            "--repo",
            repo,
            "--worktree",
            name,
            "--json",
        ]);
        assert_eq!(code, 0, "{name}: {out}{err}");
        no_canary(name);
        let s = json(&out);
        let wt = m.worktrees_dir().join(name);
        assert_eq!(s["cwd"], wt.to_str().unwrap(), "{name}");
        // The agent runs there, as tmux and the agent itself see it.
        let cwd = wait_for("the agent's folder", || {
            let c = m.read("claude.cwd");
            (!c.is_empty()).then_some(c)
        });
        assert_eq!(cwd.trim_end_matches('\n'), wt.to_str().unwrap(), "{name}");
        let session = s["tmuxSession"].as_str().unwrap();
        if name.starts_with("w#") {
            session_id = s["sessionId"].as_str().unwrap().to_owned();
        }
        let path = m.tmux(&[
            "display-message",
            "-p",
            "-t",
            &format!("={session}:"),
            "#{pane_current_path}",
        ]);
        assert_eq!(path.trim_end_matches('\n'), wt.to_str().unwrap(), "{name}");
    }

    // Resume of the session whose recorded folder is `w#(touch${IFS}X)`: stopped, then resumed.
    let (code, out, err) = m.cli(&["stop", "app-w__touch__IFS_X_-claude", "--yes"]);
    assert_eq!(code, 0, "{out}{err}");
    wait_for("the session to close", || {
        (!m.tmux(&["ls", "-F", "#{session_name}"])
            .contains("app-w__touch__IFS_X_-claude"))
        .then_some(())
    });
    let _ = std::fs::remove_file(m.root.join("claude.cwd"));
    let (code, out, err) = m.cli(&["resume", &session_id, "--json"]);
    assert_eq!(code, 0, "{out}{err}");
    let wt = m.worktrees_dir().join("w#(touch${IFS}X)");
    assert_eq!(json(&out)["cwd"], wt.to_str().unwrap());
    let cwd = wait_for("the resumed agent's folder", || {
        let c = m.read("claude.cwd");
        (!c.is_empty()).then_some(c)
    });
    assert_eq!(cwd.trim_end_matches('\n'), wt.to_str().unwrap());
    no_canary("resume");
}

/// Issue 33, findings 5 and 9: a message reaches the agent byte for byte (a trailing `;` too,
/// which tmux reads as the end of a command when it ends an argument), and is in no process's
/// argv: every tmux Plandeck runs here is a wrapper that logs its arguments first.
#[test]
fn a_message_arrives_byte_for_byte_and_is_in_no_tmux_argv() {
    let m = Machine::new();
    m.fake_agent("claude");
    let real = String::from_utf8(
        Command::new("sh")
            .args(["-c", "command -v tmux"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let log = m.root.join("tmux-argv.log");
    write_executable(
        &m.bin.join("tmux"),
        &format!(
            "#!/bin/sh\nprintf '%s\\n' \"$*\" >> {}\nexec {} \"$@\"\n",
            log.display(),
            real.trim()
        ),
        0o755,
    );
    let repo = m.repo.to_str().unwrap();
    let (code, out, err) = m.cli(&[
        "start",
        "--agent",
        "claude",
        "--repo",
        repo,
        "--worktree",
        "msg",
        "--json",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let mut want = String::new();
    for text in ["p4ssw0rd-42 hello", "run make;", ";", "#{pane_id} #(id);"] {
        let (code, out, err) = m.cli(&["send", "app-msg-claude", text]);
        assert_eq!(code, 0, "{text}: {out}{err}");
        let argv = m.read("tmux-argv.log");
        assert!(argv.contains("send-keys"), "the wrapper ran: {argv}");
        assert!(
            !argv.contains("p4ssw0rd"),
            "a message was in tmux's argv: {argv}"
        );
        want.push_str(text);
        want.push('\r');
        let got = wait_for("the message and Enter", || {
            let got = m.read("got");
            got.ends_with('\r').then_some(got)
        });
        assert_eq!(got, want, "{text}");
    }
}
