//! tmux under a locale that is not UTF-8 (`LANG=C`, or none): tmux then prints `_` for the tab
//! between format fields, and a pane list read without care parses as empty. A person's shell in
//! a worktree must still be seen, and a removal refused for it.
//!
//! One test in this binary: it sets the process's own locale and tmux folder.

mod common;

use std::process::Command;

use common::plandeck;

#[test]
fn a_persons_pane_in_a_worktree_is_seen_whatever_the_locale() {
    let tmp = tempfile::tempdir().unwrap();
    let home = std::fs::canonicalize(tmp.path()).unwrap();
    // The "default" tmux server of this process lives in a folder of its own.
    let tmux_dir = home.join("tmux");
    std::fs::create_dir_all(&tmux_dir).unwrap();
    std::env::set_var("TMUX_TMPDIR", &tmux_dir);
    std::env::remove_var("TMUX");
    std::env::set_var("LANG", "C");
    std::env::remove_var("LC_ALL");
    std::env::remove_var("LC_CTYPE");

    let clean = common::repo_with_clean_worktree(&home);

    // The person's shell, in the worktree, on this process's default server.
    let out = Command::new("tmux")
        .args(["-f", "/dev/null", "new-session", "-d", "-s", "person", "-c"])
        .arg(&clean)
        .args(["-P", "-F", "#{pane_id}", "exec sh"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let pane = String::from_utf8_lossy(&out.stdout).trim().to_owned();

    let (code, _, err) = plandeck(&home, &["worktrees", "remove", clean.to_str().unwrap()]);
    let _ = Command::new("tmux").arg("kill-server").status();
    assert_ne!(code, 0, "removed with the person's pane {pane} in it");
    assert!(err.contains(&pane), "{err}");
    assert!(clean.exists());
}
