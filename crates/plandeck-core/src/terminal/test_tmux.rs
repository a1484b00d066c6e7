//! A private tmux server for tests (`tmux -S <tmp>/sock`): the terminal's and the gate's tests
//! type into real panes on it.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::tmux_output;

pub(crate) struct Server {
    pub(crate) socket: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = tmux_output(self.socket.to_str(), &["kill-server"]);
    }
}

/// A private tmux server running `script` (bash) in one pane: (server, pane id, pane pid).
pub(crate) fn start(dir: &Path, script: &str) -> (Server, String, u32) {
    let socket = dir.join("sock");
    let path = dir.join("pane.sh");
    std::fs::write(&path, script).unwrap();
    let out = tmux_output(
        socket.to_str(),
        &[
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
            path.to_str().unwrap(),
        ],
    )
    .unwrap();
    let (pane, pid) = out.trim().split_once(' ').unwrap();
    (Server { socket }, pane.to_owned(), pid.parse().unwrap())
}

pub(crate) fn wait_for<T>(what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}
