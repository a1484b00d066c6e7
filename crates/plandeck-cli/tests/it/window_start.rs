//! `plandeck` (the slim binary people type) with no subcommand becomes the window's binary,
//! `plandeck-window` beside it, in the same process with the same arguments; it never runs one
//! that others could have changed, and says what to do when there is none. The real window
//! behind it is tested by the package and end-to-end tests (tests/package, tests/e2e).

use crate::common;

use std::path::Path;
use std::process::Command;

/// A folder holding a copy of the `plandeck` binary, as the package installs it.
fn installed() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("plandeck");
    // With `cp`, as common::write_executable does, for the same reason.
    let ok = Command::new("cp")
        .arg(env!("CARGO_BIN_EXE_plandeck"))
        .arg(&bin)
        .status()
        .unwrap();
    assert!(ok.success());
    (dir, bin)
}

/// A `plandeck-window` that writes its pid and arguments to `out` (a stand-in for the window,
/// which needs a display: what is tested here is that `plandeck` becomes it).
fn window(dir: &Path, out: &Path, mode: u32) {
    common::write_executable(
        &dir.join("plandeck-window"),
        &format!("#!/bin/sh\necho \"$$ $*\" > '{}'\nexit 7\n", out.display()),
        mode,
    );
}

#[test]
fn with_no_subcommand_it_becomes_the_window_beside_it() {
    let (dir, bin) = installed();
    let out = dir.path().join("ran");
    window(dir.path(), &out, 0o755);
    let child = Command::new(&bin)
        .args(["--demo", "--data-dir", "/x y"])
        .spawn()
        .unwrap();
    let pid = child.id();
    let status = child.wait_with_output().unwrap().status;
    assert_eq!(
        status.code(),
        Some(7),
        "the window's exit code is plandeck's"
    );
    let ran = std::fs::read_to_string(&out).unwrap();
    assert_eq!(
        ran.trim(),
        format!("{pid} --demo --data-dir /x y"),
        "same process, same arguments"
    );
}

#[test]
fn a_subcommand_never_starts_the_window() {
    let (dir, bin) = installed();
    let out = dir.path().join("ran");
    window(dir.path(), &out, 0o755);
    let home = tempfile::tempdir().unwrap();
    let r = Command::new(&bin)
        .args(["plans", "list", "--json"])
        .env("HOME", home.path())
        .env_remove("XDG_DATA_HOME")
        .env_remove("XDG_CONFIG_HOME")
        .output()
        .unwrap();
    assert_eq!(
        r.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );
    assert!(!out.exists());
}

#[test]
fn no_window_beside_it_or_one_others_can_change_is_refused_with_what_to_do() {
    let (dir, bin) = installed();
    let out = dir.path().join("ran");
    for window_mode in [None, Some(0o775), Some(0o757)] {
        let _ = std::fs::remove_file(dir.path().join("plandeck-window"));
        if let Some(mode) = window_mode {
            window(dir.path(), &out, mode);
        }
        let r = Command::new(&bin).output().unwrap();
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(1), "{window_mode:?}: {err}");
        assert!(
            err.starts_with("plandeck: the window is not installed beside this command")
                && err.contains("plandeck-window")
                && err.contains("`plandeck --help`"),
            "{err}"
        );
        assert!(
            !out.exists(),
            "{window_mode:?}: ran a window others can change"
        );
    }
}
