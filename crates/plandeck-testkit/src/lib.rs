//! Test support shared by Plandeck's tests and benchmarks (a dev-dependency; never in the app).
//!
//! - [`wait_for`] / [`wait_until`]: the one way a test waits for something to happen;
//! - [`fixtures`]: the recorded agent folders copied into a home;
//! - [`git`]: temporary repositories, commits and linked worktrees;
//! - [`tmux`]: a private tmux server with real panes;
//! - [`home`]: a temporary `$HOME` with the agents' folders;
//! - [`verify`]: a Claude Code transcript being written and a repository with a reflog at chosen
//!   times (what verification reads).
//!
//! Paths, strings and std only: it must not depend on `plandeck-core`, whose own unit tests use it
//! (a cycle would build two copies of core's types).

pub mod fixtures;
pub mod git;
pub mod home;
pub mod tmux;
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
