//! A tmux that hangs must not hang a worktree's preview or removal: every tmux call is bounded,
//! and an answer that never came is a refusal with the reason, never "no panes".
//!
//! The command runs as a process of its own, with a `tmux` of the test's first on its PATH.

use crate::common;

use common::{output, plandeck_process};

#[test]
fn a_hung_tmux_never_hangs_a_removal_and_removes_nothing() {
    let h = plandeck_testkit::home::Home::new();
    let home = h.path.clone();
    let bin = home.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let fake = bin.join("tmux");
    common::write_executable(&fake, "#!/bin/sh\nexec sleep 120\n", 0o755);
    let path = std::env::var("PATH").unwrap_or_default();

    let clean = common::repo_with_clean_worktree(&home);

    // Unbounded, the call would wait for the fake tmux (2 minutes), then read its silence as
    // "no panes" and remove the worktree.
    let (code, _, err) = output(
        plandeck_process(&home)
            .env("PATH", format!("{}:{path}", bin.display()))
            .args(["worktrees", "remove", clean.to_str().unwrap()]),
    );
    assert_ne!(code, 0, "removed although which panes are in it is unknown");
    assert!(err.contains("which tmux panes are in the folder"), "{err}");
    assert!(clean.exists());
}
