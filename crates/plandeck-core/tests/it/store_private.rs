//! The store is private (docs/architecture.md §7, trust rules): after a realistic run (a plan approved and rejected, a
//! gate request filed and rejected, a worktree kept and one removed, a hook installed, settings
//! saved) every folder of the store and of the settings is 0700 and every file 0600, whatever the
//! umask; and a store left with looser modes is tightened when it is opened.
//!
//! The umask is set to 0 for this test binary (every module of tests/it), so nothing passes by the
//! grace of a default umask: a file created without an explicit mode would be 0666 here.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use plandeck_core::config::{Roots, Settings};
use plandeck_core::gate::{self, GateDecision, HookOptions};
use plandeck_core::review::{self, ApproveRequest};
use plandeck_core::worktrees;
use plandeck_testkit::git::{add_worktree, new_repo};
use plandeck_testkit::wait_for;

const CLAUDE_STDIN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/fixtures/claude-code-2.1.328/hook-input/permission-request-exit-plan-mode.json"
);

fn no_umask() {
    // Every test of this binary wants the same value.
    rustix::process::umask(rustix::fs::Mode::empty());
}

fn mode(path: &Path) -> u32 {
    fs::symlink_metadata(path).unwrap().permissions().mode() & 0o7777
}

/// Every entry under `root` (itself included) with a mode that is not private.
fn loose_entries(root: &Path) -> Vec<(PathBuf, u32)> {
    let mut loose = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(p) = stack.pop() {
        let meta = fs::symlink_metadata(&p).unwrap();
        let m = meta.permissions().mode() & 0o7777;
        if meta.is_dir() {
            if m != 0o700 {
                loose.push((p.clone(), m));
            }
            for e in fs::read_dir(&p).unwrap() {
                stack.push(e.unwrap().path());
            }
        } else if meta.file_type().is_symlink() || m != 0o600 {
            // A store holds no symlinks of its own; a file is 0600.
            loose.push((p.clone(), m));
        }
    }
    loose
}

fn count_files(root: &Path) -> usize {
    let mut n = 0;
    let mut stack = vec![root.to_path_buf()];
    while let Some(p) = stack.pop() {
        if p.is_dir() {
            for e in fs::read_dir(&p).unwrap() {
                stack.push(e.unwrap().path());
            }
        } else {
            n += 1;
        }
    }
    n
}

/// A repository with two clean worktrees (branches `keep-me` and `drop-me`).
fn repo_with_worktrees(home: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let repo_dir = home.join("repo");
    let repo = new_repo(&repo_dir, &[("README.md", "hi\n")]);
    let [keep, drop] = ["keep-me", "drop-me"].map(|name| {
        let path = home.join("wt").join(name);
        add_worktree(&repo, name, &path, name);
        path
    });
    (repo_dir, keep, drop)
}

/// Files a Claude gate request through the real hook and rejects it from "the window".
fn gate_request_rejected(home: &Path, roots: &Roots) {
    let mut input: serde_json::Value =
        serde_json::from_slice(&fs::read(CLAUDE_STDIN).unwrap()).unwrap();
    let plan = input["tool_input"]["plan"].as_str().unwrap().to_owned();
    let transcript = home.join(".claude/projects/-w/s.jsonl");
    let plan_file = home.join(".claude/plans/gated.md");
    fs::create_dir_all(transcript.parent().unwrap()).unwrap();
    fs::write(&plan_file, &plan).unwrap();
    let call = serde_json::json!({"type":"assistant","message":{"role":"assistant","content":[
        {"type":"tool_use","id":"toolu_private","name":"ExitPlanMode","input":{"plan":plan,"planFilePath":plan_file}}]}});
    fs::write(&transcript, format!("{call}\n")).unwrap();
    input["transcript_path"] = serde_json::json!(transcript);
    input["tool_input"]["planFilePath"] = serde_json::json!(plan_file);
    let stdin = serde_json::to_vec(&input).unwrap();

    let _app = gate::app_heartbeat(roots).unwrap();
    let hook = {
        let roots = roots.clone();
        std::thread::spawn(move || {
            gate::hook_claude(
                &roots,
                &stdin,
                HookOptions {
                    deadline: Duration::from_secs(60),
                    hook_pid: std::process::id(),
                    agent_pid: None,
                    tmux_env: None,
                },
            )
        })
    };
    let req = wait_for("the gate request", || {
        gate::pending(roots).into_iter().next()
    });
    let outcome = gate::decide(
        roots,
        &req.id,
        GateDecision::Reject {
            feedback: "smaller steps".into(),
        },
    )
    .unwrap();
    assert!(outcome.delivered, "{outcome:?}");
    let out = hook.join().unwrap();
    assert!(out.stdout.contains("deny"), "{out:?}");
}

#[test]
fn every_file_and_folder_of_the_store_is_private_after_a_realistic_run() {
    no_umask();
    let tmp = tempfile::tempdir().unwrap();
    let home = fs::canonicalize(tmp.path()).unwrap();
    let roots = Roots::under_home(&home);

    // A plan approved, changed, rejected.
    let plan = home.join(".claude/plans/cache.md");
    fs::create_dir_all(plan.parent().unwrap()).unwrap();
    fs::write(&plan, "# Cache\n\n1. Add it.\n").unwrap();
    review::approve(&roots, &plan, ApproveRequest::default()).unwrap();
    fs::write(&plan, "# Cache\n\n1. Add it.\n2. Everywhere.\n").unwrap();
    review::reject(&roots, &plan, "not everywhere", None, None).unwrap();

    // A comment on it.
    plandeck_core::comments::add(
        &roots.data,
        &plan,
        &fs::read_to_string(&plan).unwrap(),
        plandeck_core::comments::NewComment {
            quote: "Everywhere",
            text: "only the API",
            position: plandeck_core::comments::Position::Only,
        },
        "2026-11-25T00:00:00Z",
    )
    .unwrap();

    // A plan waiting in Claude Code, rejected from Plandeck through the gate.
    gate_request_rejected(&home, &roots);

    // The plan history read from the transcripts (the window does this at start).
    plandeck_core::history::scan(&roots).unwrap();

    // A worktree kept, another removed (its branch tip archived).
    let (repo, kept, dropped) = repo_with_worktrees(&home);
    worktrees::keep(&roots, &kept).unwrap();
    worktrees::remove(&roots, &dropped, &worktrees::RemoveOptions::default()).unwrap();

    // A hook installed (its record is in the store) and the settings saved.
    gate::install_with(
        &roots,
        plandeck_core::agents::Agent::Gemini,
        "/opt/plandeck hook gemini",
    )
    .unwrap();
    Settings {
        extra_repos: vec![repo],
        ..Default::default()
    }
    .save(&roots.settings_path())
    .unwrap();

    // The run really wrote a store: versions, index, log, lock, gate files, kept, archive.
    for p in [
        "versions",
        "index",
        "decisions.jsonl",
        "review.lock",
        "gate/done",
        "gate/install-gemini.json",
        "worktrees/kept.json",
        "worktrees/archive.jsonl",
        "history/transcripts.json",
        "comments",
    ] {
        assert!(roots.data.join(p).exists(), "{p} missing in the store");
    }
    assert!(count_files(&roots.data) >= 8);

    assert_eq!(loose_entries(&roots.data), [], "store entries not private");
    assert_eq!(loose_entries(&roots.config), [], "settings not private");
    // The folders the store and settings live in were missing: created 0700 too (XDG).
    assert_eq!(mode(&home.join(".local/share")), 0o700);
    assert_eq!(mode(&home.join(".config")), 0o700);
}

#[test]
fn a_history_scan_on_a_fresh_store_creates_it_private() {
    no_umask();
    let tmp = tempfile::tempdir().unwrap();
    let home = fs::canonicalize(tmp.path()).unwrap();
    let roots = Roots::under_home(&home);
    let transcript = home.join(".claude/projects/-w/s.jsonl");
    fs::create_dir_all(transcript.parent().unwrap()).unwrap();
    fs::write(
        &transcript,
        "{\"type\":\"user\",\"sessionId\":\"s\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n",
    )
    .unwrap();
    // The first thing a start does, before anything else made the store.
    assert!(!roots.data.exists());
    plandeck_core::history::scan(&roots).unwrap();
    assert!(roots.data.join("history/transcripts.json").exists());
    assert_eq!(loose_entries(&roots.data), [], "store entries not private");
    assert_eq!(mode(&home.join(".local/share")), 0o700);
}

#[test]
fn a_store_with_looser_modes_is_tightened_when_opened() {
    no_umask();
    let tmp = tempfile::tempdir().unwrap();
    let home = fs::canonicalize(tmp.path()).unwrap();
    let roots = Roots::under_home(&home);
    // An older Plandeck (or a copy) left the store readable by everyone.
    let loose_dirs = [
        "",
        "versions",
        "index",
        "gate",
        "gate/requests",
        "worktrees",
    ];
    for d in loose_dirs {
        fs::create_dir_all(roots.data.join(d)).unwrap();
    }
    let loose_files = [
        "decisions.jsonl",
        "versions/0000000000000000000000000000000000000000000000000000000000000000",
        "index/x.json",
        "gate/requests/abc.json",
        "worktrees/kept.json",
    ];
    for f in loose_files {
        fs::write(roots.data.join(f), "{}\n").unwrap();
        fs::set_permissions(roots.data.join(f), fs::Permissions::from_mode(0o644)).unwrap();
    }
    for d in loose_dirs {
        fs::set_permissions(roots.data.join(d), fs::Permissions::from_mode(0o755)).unwrap();
    }
    // A symlink in the store to something of the person's elsewhere: neither followed nor changed.
    let elsewhere = home.join("shared.txt");
    fs::write(&elsewhere, "mine").unwrap();
    fs::set_permissions(&elsewhere, fs::Permissions::from_mode(0o644)).unwrap();
    std::os::unix::fs::symlink(&elsewhere, roots.data.join("link")).unwrap();
    // The settings file too, in a config folder that may hold more (only ours is touched).
    fs::create_dir_all(&roots.config).unwrap();
    fs::set_permissions(&roots.config, fs::Permissions::from_mode(0o755)).unwrap();
    fs::write(roots.settings_path(), "{}\n").unwrap();
    fs::set_permissions(roots.settings_path(), fs::Permissions::from_mode(0o644)).unwrap();

    let fixed = roots.secure_store().unwrap();
    assert_eq!(fixed, loose_dirs.len() + loose_files.len() + 2);

    fs::remove_file(roots.data.join("link")).unwrap();
    assert_eq!(loose_entries(&roots.data), []);
    assert_eq!(loose_entries(&roots.config), []);
    assert_eq!(mode(&elsewhere), 0o644, "the symlink's target was changed");
    assert_eq!(
        roots.secure_store().unwrap(),
        0,
        "a private store is left alone"
    );
}
