//! Test support shared by Plandeck's tests and benchmarks (a dev-dependency; never in the app).
//!
//! - [`wait_for`] / [`wait_until`]: the one way a test waits for something to happen;
//! - [`fixtures`]: the recorded agent folders copied into a home;
//! - [`git`]: temporary repositories, commits and linked worktrees;
//! - [`tmux`]: a private tmux server with real panes;
//! - [`home`]: a temporary `$HOME` with the agents' folders;
//! - [`tls`]: a test certificate authority and a certificate for 127.0.0.1 (openssl);
//! - [`tree`]: a snapshot of a folder, to show that something left it as it was;
//! - [`require_tool`]: a tool the test needs and does not find fails it, never skips it;
//! - [`verify`]: a Claude Code transcript being written and a repository with a reflog at chosen
//!   times (what verification reads).
//!
//! Paths, strings and std only: it must not depend on `plandeck-core`, whose own unit tests use it
//! (a cycle would build two copies of core's types).

pub mod fixtures;
pub mod git;
pub mod home;
pub mod tls;
pub mod tmux;
pub mod tree;
pub mod verify;

use std::time::{Duration, Instant};

/// How long a test waits for something before it fails: generous, so that a loaded machine is
/// slow, not failing. Nothing is timed against it.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// Polls `f` until it gives something and returns it; fails the test, naming `what`, when nothing
/// came within [`PATIENCE`].
#[track_caller]
pub fn wait_for<T>(what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(
            start.elapsed() < PATIENCE,
            "timed out after {PATIENCE:?} waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Polls `cond` until it holds; fails the test, naming `what`, when it did not within
/// [`PATIENCE`].
#[track_caller]
pub fn wait_until(what: &str, mut cond: impl FnMut() -> bool) {
    wait_for(what, || cond().then_some(()))
}

/// Fails the test, in plain words, when `tool` is not on `PATH`: a test never passes by skipping
/// what it needs (`scripts/setup.sh` installs every tool the tests use).
#[track_caller]
pub fn require_tool(tool: &str) {
    let found = std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|dir| {
            use std::os::unix::fs::PermissionsExt;
            std::fs::metadata(dir.join(tool))
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
    });
    assert!(
        found,
        "this test needs `{tool}`, which is not on PATH here: install it (scripts/setup.sh does), \
         the test does not skip"
    );
}

/// A TCP port on loopback that was free a moment ago (for a server a test starts).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[cfg(test)]
mod tests {
    #[test]
    #[should_panic(expected = "this test needs `plandeck-no-such-tool`")]
    fn a_missing_tool_fails_the_test() {
        super::require_tool("plandeck-no-such-tool");
    }

    #[test]
    fn a_tool_on_path_is_found() {
        super::require_tool("sh");
    }
}
