//! Finding the tmux pane an agent runs in: from Claude Code's session registry
//! (`<claude>/sessions/<pid>.json`, field `tmux` = `session:@window.%pane`), else from the agent
//! process's terminal (`/proc/<pid>/fd/0` → `/dev/pts/N` → `tmux list-panes -a`).

use std::path::Path;

pub(crate) use crate::terminal::socket_from_env;

/// The screen of the pane of a request filed from a screen, while its agent still runs (the same
/// process); `None` when there is no pane, the agent is gone or the pane cannot be read (an agent
/// gone is told by `store::ended`).
pub(crate) fn live_screen(req: &super::GateRequest) -> Option<String> {
    let (Some(pane), Some(pid)) = (req.tmux_pane.clone(), req.agent_pid) else {
        return None;
    };
    if !crate::process::is_running(pid, req.agent_start_time) {
        return None;
    }
    let target = crate::terminal::Target {
        socket: req.tmux_socket.clone(),
        pane,
        agent: Some(crate::terminal::ProcessId {
            pid,
            start_time: req.agent_start_time,
        }),
    };
    target.capture(0).ok()
}

/// The pane id in a registry's `tmux` value: `cc:@0.%3` → `%3`; anything else is used as given.
pub(crate) fn normalize_pane(value: &str) -> String {
    match value.rsplit_once('.') {
        Some((_, pane)) if pane.starts_with('%') => pane.to_owned(),
        _ => value.to_owned(),
    }
}

/// The pane named by the Claude Code session registry for `session_id`.
pub(crate) fn from_registry(claude_root: &Path, session_id: &str) -> Option<String> {
    crate::sessions::claude::registry(claude_root)
        .ok()?
        .into_iter()
        .filter(|(_, r)| r.session_id == session_id)
        .find_map(|(_, r)| r.tmux.filter(|t| !t.is_empty()))
        .map(|t| normalize_pane(&t))
}

/// The pane whose terminal is the stdin of process `pid`.
/// tmux is asked with a bound ([`crate::terminal::EXTERNAL_TIMEOUT`]): a hung server costs the
/// hook seconds, never the agent's whole turn.
pub(crate) fn from_process(pid: u32, socket: Option<&str>) -> Option<String> {
    let tty = crate::terminal::terminal_of(pid)?;
    let out = crate::terminal::Tmux::on(socket, "list-panes")
        .flag("-a")
        .format_flag("#{pane_tty} #{pane_id}")
        .output()
        .map_err(|e| tracing::warn!("cannot find the agent's tmux pane: {e}"))
        .ok()?;
    out.lines().find_map(|line| {
        let (pane_tty, pane_id) = line.split_once(' ')?;
        (pane_tty == tty).then(|| pane_id.trim().to_owned())
    })
}

/// Whether the agent runs headless: `claude -p`/`--print`, its print-mode formats
/// (`--output-format`, `--input-format`), or a permission prompt handler
/// (`--permission-prompt-tool`, as the Agent SDK starts it). Only the agent's own arguments
/// count: `pid` is the agent itself ([`crate::terminal::agent_of_hook`] has already stepped over
/// the hook's shell), and an ancestor's `-p` (`npx -p @anthropic-ai/claude-code claude`,
/// `nix-shell -p nodejs`) says nothing about how the agent runs. The hook input holds nothing
/// that tells the two apart (Claude Code 2.1.328 sends the same fields, `permission_mode: plan`
/// included, either way). An interactive session outside tmux is not headless: its card still
/// waits for the person.
pub(crate) fn runs_headless(pid: u32) -> bool {
    if pid <= 1 {
        return false;
    }
    let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
        return false;
    };
    // argv[0] is the program, never a flag; the arguments end at `--`.
    cmdline
        .split(|b| *b == 0)
        .skip(1)
        .take_while(|a| *a != b"--")
        .any(|a| {
            a == b"-p"
                || a == b"--print"
                || [
                    &b"--permission-prompt-tool"[..],
                    b"--output-format",
                    b"--input-format",
                ]
                .iter()
                .any(|flag| a == *flag || a.starts_with(&[*flag, b"="].concat()))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_pane_is_found_and_normalized() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("sessions")).unwrap();
        std::fs::write(
            dir.path().join("sessions/1.json"),
            r#"{"pid":1,"sessionId":"a","tmux":"cc:@0.%7"}"#,
        )
        .unwrap();
        std::fs::write(dir.path().join("sessions/2.json"), "{damaged").unwrap();
        assert_eq!(from_registry(dir.path(), "a").as_deref(), Some("%7"));
        assert_eq!(from_registry(dir.path(), "b"), None);
        assert_eq!(
            socket_from_env(Some("/tmp/tmux-0/default,12,0")).as_deref(),
            Some("/tmp/tmux-0/default")
        );
    }

    /// A real process tree from `script` (run by `sh`, its own process group): returns the
    /// group leader and the pid the script wrote to `$PIDFILE` once it is there.
    struct Tree {
        leader: std::process::Child,
        _dir: tempfile::TempDir,
    }

    impl Drop for Tree {
        fn drop(&mut self) {
            if let Some(pgid) = rustix::process::Pid::from_raw(self.leader.id() as i32) {
                let _ = rustix::process::kill_process_group(pgid, rustix::process::Signal::KILL);
            }
            let _ = self.leader.wait();
        }
    }

    fn spawn(name: &str, script: &str, args: &[&str]) -> (Tree, u32) {
        use std::os::unix::process::CommandExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, script).unwrap();
        let pidfile = dir.path().join("pid");
        let leader = std::process::Command::new("sh")
            .arg(&path)
            .args(args)
            .env("PIDFILE", &pidfile)
            .process_group(0)
            .spawn()
            .unwrap();
        let tree = Tree { leader, _dir: dir };
        let pid: u32 = plandeck_testkit::wait_for(&format!("{name} to start"), || {
            std::fs::read_to_string(&pidfile)
                .ok()
                .filter(|s| s.ends_with('\n'))
                .and_then(|s| s.trim().parse().ok())
        });
        // A background job's pid is known at fork, while it still runs the script's shell with
        // the script's arguments: wait until it has become the program (here `sleep`).
        if pid != tree.leader.id() {
            plandeck_testkit::wait_until(&format!("{name}'s job to become sleep"), || {
                std::fs::read_to_string(format!("/proc/{pid}/comm"))
                    .ok()
                    .as_deref()
                    == Some("sleep\n")
            });
        }
        (tree, pid)
    }

    #[test]
    fn only_the_agents_own_arguments_make_it_headless() {
        // `npx -p @anthropic-ai/claude-code claude`: npx holds `-p`, the agent it starts does not.
        let (npx, agent) = spawn(
            "npx",
            "sleep 1000 &\necho $! > \"$PIDFILE\"\nwait\n",
            &["-p", "@anthropic-ai/claude-code", "claude"],
        );
        let parent_args = std::fs::read(format!("/proc/{}/cmdline", npx.leader.id())).unwrap();
        assert!(parent_args.split(|b| *b == 0).any(|a| a == b"-p"));
        assert_eq!(crate::terminal::parent_of(agent), Some(npx.leader.id()));
        assert!(
            !runs_headless(agent),
            "an ancestor's -p made an interactive agent headless"
        );
        drop(npx);

        // `nix-shell -p nodejs --run claude`, one level more.
        let (nix, agent) = spawn(
            "nix-shell",
            "sh -c 'sleep 1000 & echo $! > \"$PIDFILE\"; wait'\n",
            &["-p", "nodejs", "--run", "claude"],
        );
        assert!(!runs_headless(agent));
        drop(nix);

        // `claude -p "…"` (and the SDK's flags) itself: headless.
        for args in [
            &["-p", "make a plan"][..],
            &["--print", "make a plan"],
            &["--output-format=stream-json"],
            &["--permission-prompt-tool", "stdio"],
        ] {
            let (claude, _) = spawn(
                "claude",
                "echo $$ > \"$PIDFILE\"\nsleep 1000\nexit 0\n",
                args,
            );
            assert!(runs_headless(claude.leader.id()), "{args:?}");
        }
        // A prompt that mentions -p, or a -p after `--`, is not the flag.
        for args in [&["fix the -p flag"][..], &["--", "-p"]] {
            let (claude, _) = spawn(
                "claude",
                "echo $$ > \"$PIDFILE\"\nsleep 1000\nexit 0\n",
                args,
            );
            assert!(!runs_headless(claude.leader.id()), "{args:?}");
        }
    }
}
