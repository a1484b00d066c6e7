//! A private tmux server for tests (`tmux -S <dir>/tmux.sock`), killed when dropped: the tests of
//! the terminal, the gate and worktree removal type into and look at real panes on it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A tmux server of its own on a private socket.
pub struct Tmux {
    pub socket: PathBuf,
}

/// Whether a `tmux` can be run at all (tests that need one and may be skipped ask first).
pub fn installed() -> bool {
    Command::new("tmux").arg("-V").output().is_ok()
}

impl Tmux {
    /// An empty server at `<dir>/tmux.sock` that stays up with no session.
    pub fn server(dir: &Path) -> Tmux {
        let t = Tmux {
            socket: dir.join("tmux.sock"),
        };
        t.run(&[
            "-f",
            "/dev/null",
            "start-server",
            ";",
            "set",
            "-g",
            "exit-empty",
            "off",
        ]);
        t
    }

    /// A server running `script` (bash, written to `<dir>/pane.sh`) in one 120×30 pane:
    /// (server, pane id, pane pid).
    pub fn start(dir: &Path, script: &str) -> (Tmux, String, u32) {
        let path = dir.join("pane.sh");
        std::fs::write(&path, script).expect("pane script");
        let t = Tmux {
            socket: dir.join("tmux.sock"),
        };
        let out = t.run(&[
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-x",
            "120",
            "-y",
            "30",
            "-P",
            "-F",
            "#{pane_id} #{pane_pid}",
            "bash",
            path.to_str().expect("a UTF-8 path"),
        ]);
        let (pane, pid) = out.trim().split_once(' ').expect("pane id and pid");
        (t, pane.to_owned(), pid.parse().expect("a pid"))
    }

    /// `tmux -u -S <socket> args` (outside any tmux of the person running the tests).
    pub fn cmd(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .arg("-u")
            .arg("-S")
            .arg(&self.socket)
            .args(args)
            .env_remove("TMUX")
            .output()
            .expect("tmux runs")
    }

    /// [`Tmux::cmd`], failing the test when tmux does; its stdout.
    #[track_caller]
    pub fn run(&self, args: &[&str]) -> String {
        let out = self.cmd(args);
        assert!(
            out.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// A new session `name` running `command` in `dir`, once its process is in `dir` (tmux returns
    /// once the process is forked; it moves into `dir` a moment later): (pane id, pane pid).
    pub fn session(&self, name: &str, dir: &Path, command: &str) -> (String, u32) {
        let out = self.run(&[
            "new-session",
            "-d",
            "-s",
            name,
            "-c",
            dir.to_str().expect("a UTF-8 path"),
            "-P",
            "-F",
            "#{pane_id} #{pane_pid}",
            command,
        ]);
        let (pane, pid) = out.trim().split_once(' ').expect("pane id and pid");
        let pid: u32 = pid.parse().expect("a pid");
        in_folder(pid, dir);
        (pane.to_owned(), pid)
    }

    /// Every pane of the server.
    pub fn panes(&self) -> Vec<String> {
        let out = self.cmd(&["list-panes", "-a", "-F", "#{pane_id}"]);
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// `$TMUX` as a process in this server's pane sees it.
    pub fn env(&self) -> String {
        format!("{},1,0", self.socket.display())
    }

    /// The pid of `pane`'s process.
    pub fn pane_pid(&self, pane: &str) -> u32 {
        self.run(&["display-message", "-p", "-t", pane, "#{pane_pid}"])
            .trim()
            .parse()
            .expect("a pid")
    }

    /// What `pane` shows.
    pub fn capture(&self, pane: &str) -> String {
        String::from_utf8_lossy(&self.cmd(&["capture-pane", "-p", "-t", pane]).stdout).into_owned()
    }

    /// `send-keys -t pane keys…`.
    #[track_caller]
    pub fn keys(&self, pane: &str, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", pane];
        args.extend_from_slice(keys);
        self.run(&args);
    }
}

/// Waits until process `pid` is in `dir`. tmux returns once a pane's process is forked; it moves
/// into its folder a moment later (and a loaded machine can make that moment long). What reads
/// where a pane is from /proc waits for this, as a pane a person opened long ago would be there.
pub fn in_folder(pid: u32, dir: &Path) {
    let want = std::fs::canonicalize(dir).expect("the folder");
    crate::wait_until(
        &format!("process {pid} to move into {}", want.display()),
        || {
            std::fs::read_link(format!("/proc/{pid}/cwd"))
                .ok()
                .as_deref()
                == Some(want.as_path())
        },
    );
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd(&["kill-server"]);
    }
}
