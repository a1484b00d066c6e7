//! A private tmux server for tests (`tmux -S <dir>/tmux.sock`), killed when dropped: the tests of
//! the terminal, the gate and worktree removal type into and look at real panes on it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A tmux server of its own on a private socket.
pub struct Tmux {
    pub socket: PathBuf,
}

impl Tmux {
    /// An empty server at `<dir>/tmux.sock` that stays up with no session.
    pub fn server(dir: &Path) -> Tmux {
        crate::require_tool("tmux");
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
        crate::require_tool("tmux");
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
            .expect("tmux runs (scripts/setup.sh installs it)")
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

/// What was typed into a pane whose program records every byte it reads into a file (`stty raw
/// -echo; exec cat > file`), read with a barrier rather than after a sleep.
///
/// To show that nothing (more) was typed, [`Recording::settled`] types a sentinel into the same
/// pane through the same tmux, waits until it is recorded and gives what came before it: tmux
/// delivers keys to a pane in order, so anything typed before the sentinel is in the recording by
/// then, however slow the machine.
pub struct Recording {
    pub path: PathBuf,
}

/// Typed by [`Recording::settled`]; nothing under test types it.
pub const SENTINEL: &str = "<plandeck-test-barrier>";

impl Recording {
    /// The recording kept at `path` (made by the pane's program).
    pub fn at(path: &Path) -> Recording {
        Recording {
            path: path.to_path_buf(),
        }
    }

    /// Everything recorded so far (empty before the pane's program made the file).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&std::fs::read(&self.path).unwrap_or_default()).into_owned()
    }

    /// Types [`SENTINEL`] with `type_it` (through the same channel as what is being watched for:
    /// the same tmux, the same pane), waits until the recording ends with it and gives what was
    /// recorded before it. The sentinel stays in the file: a second call gives what came between
    /// the two.
    #[track_caller]
    pub fn settled(&self, type_it: impl FnOnce(&str)) -> String {
        let before = self.text().matches(SENTINEL).count();
        type_it(SENTINEL);
        let all = crate::wait_for("the barrier typed into the pane", || {
            let t = self.text();
            (t.matches(SENTINEL).count() > before && t.ends_with(SENTINEL)).then_some(t)
        });
        let body = &all[..all.len() - SENTINEL.len()];
        match body.rfind(SENTINEL) {
            Some(i) => body[i + SENTINEL.len()..].to_owned(),
            None => body.to_owned(),
        }
    }

    /// [`Recording::settled`], the sentinel typed into `pane` of `tmux` (`send-keys -l`).
    #[track_caller]
    pub fn settled_in(&self, tmux: &Tmux, pane: &str) -> String {
        self.settled(|sentinel| tmux.keys(pane, &["-l", sentinel]))
    }

    /// Fails the test when anything was typed before the barrier [`Recording::settled`] types.
    #[track_caller]
    pub fn assert_nothing_typed(&self, type_it: impl FnOnce(&str)) {
        assert_eq!(self.settled(type_it), "", "something was typed");
    }

    /// [`Recording::assert_nothing_typed`] into `pane` of `tmux`.
    #[track_caller]
    pub fn assert_nothing_typed_in(&self, tmux: &Tmux, pane: &str) {
        assert_eq!(
            self.settled_in(tmux, pane),
            "",
            "something was typed into {pane}"
        );
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A recording pane: what its program read, and a barrier after it.
    fn recording_pane(dir: &Path) -> (Tmux, String, Recording) {
        let got = dir.join("got");
        let ready = dir.join("ready");
        let (tmux, pane, _) = Tmux::start(
            dir,
            &format!(
                "stty raw -echo; touch {}; exec cat > {}\n",
                ready.display(),
                got.display()
            ),
        );
        crate::wait_until("the pane's recorder", || ready.exists() && got.exists());
        (tmux, pane, Recording::at(&got))
    }

    #[test]
    fn the_barrier_sees_what_was_typed_before_it_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let (tmux, pane, got) = recording_pane(dir.path());
        got.assert_nothing_typed_in(&tmux, &pane);
        tmux.keys(&pane, &["-l", "late"]);
        assert_eq!(got.settled_in(&tmux, &pane), "late");
        assert_eq!(got.settled_in(&tmux, &pane), "");
    }

    #[test]
    #[should_panic(expected = "something was typed")]
    fn a_byte_typed_before_the_barrier_fails_the_test() {
        let dir = tempfile::tempdir().unwrap();
        let (tmux, pane, got) = recording_pane(dir.path());
        tmux.keys(&pane, &["-l", "x"]);
        got.assert_nothing_typed_in(&tmux, &pane);
    }
}
