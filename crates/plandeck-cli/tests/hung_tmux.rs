//! A tmux that hangs must not hang a worktree's preview or removal: every tmux call is bounded,
//! and an answer that never came is a refusal with the reason, never "no panes".
//!
//! One test in this binary: it puts a `tmux` of its own first on the process's PATH.

mod common;

use std::os::unix::fs::PermissionsExt;

use common::plandeck;

#[test]
fn a_hung_tmux_never_hangs_a_removal_and_removes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let home = std::fs::canonicalize(tmp.path()).unwrap();
    let bin = home.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let fake = bin.join("tmux");
    std::fs::write(&fake, "#!/bin/sh\nexec sleep 120\n").unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = std::env::var("PATH").unwrap_or_default();
    std::env::set_var("PATH", format!("{}:{path}", bin.display()));

    let clean = common::repo_with_clean_worktree(&home);

    // Unbounded, the call would wait for the fake tmux (2 minutes), then read its silence as
    // "no panes" and remove the worktree.
    let (code, _, err) = plandeck(&home, &["worktrees", "remove", clean.to_str().unwrap()]);
    assert_ne!(code, 0, "removed although which panes are in it is unknown");
    assert!(err.contains("which tmux panes are in the folder"), "{err}");
    assert!(clean.exists());
}
