//! tmux under a locale that is not UTF-8 (`LANG=C`, or none): tmux then prints `_` for the tab
//! between format fields, and a pane list read without care parses as empty. A person's shell in
//! a worktree must still be seen, and a removal refused for it.
//!
//! The command and the person's tmux run as processes of their own, with that locale and a tmux
//! folder of the test's.

use crate::common;

use std::process::Command;

use common::{output, plandeck_process};

#[test]
fn a_persons_pane_in_a_worktree_is_seen_whatever_the_locale() {
    let h = plandeck_testkit::home::Home::new();
    let home = h.path.clone();
    // The "default" tmux server of these processes lives in a folder of its own.
    let tmux_dir = home.join("tmux");
    std::fs::create_dir_all(&tmux_dir).unwrap();
    let locale = |cmd: &mut Command| {
        cmd.env("TMUX_TMPDIR", &tmux_dir)
            .env_remove("TMUX")
            .env("LANG", "C")
            .env_remove("LC_ALL")
            .env_remove("LC_CTYPE");
    };
    let tmux = |args: &[&str]| {
        let mut cmd = Command::new("tmux");
        locale(&mut cmd);
        cmd.args(args);
        cmd
    };

    let clean = common::repo_with_clean_worktree(&home);

    // The person's shell, in the worktree, on the default server of that tmux folder.
    let out = tmux(&["-f", "/dev/null", "new-session", "-d", "-s", "person", "-c"])
        .arg(&clean)
        .args(["-P", "-F", "#{pane_id}", "exec sh"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let pane = String::from_utf8_lossy(&out.stdout).trim().to_owned();

    let mut remove = plandeck_process(&home);
    locale(&mut remove);
    let (code, _, err) = output(remove.args(["worktrees", "remove", clean.to_str().unwrap()]));
    let _ = tmux(&["kill-server"]).status();
    assert_ne!(code, 0, "removed with the person's pane {pane} in it");
    assert!(err.contains(&pane), "{err}");
    assert!(clean.exists());
}
