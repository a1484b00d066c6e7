//! `plandeck worktrees list|remove|keep` on real temporary repositories.

use crate::common;

use std::path::{Path, PathBuf};

use common::plandeck;
use plandeck_testkit::git::{add_worktree, new_repo, write};
use plandeck_testkit::home::Home;

/// A home whose settings list one repository with a clean and a dirty worktree.
fn setup() -> (Home, PathBuf, PathBuf, PathBuf, PathBuf) {
    let h = Home::new();
    let home = h.path.clone();
    let repo_dir = home.join("repo");
    let repo = new_repo(&repo_dir, &[("README.md", "hi\n")]);
    let add = |name: &str| {
        let path = home.join(format!("wt-{name}"));
        add_worktree(&repo, name, &path, name);
        path
    };
    let clean = add("clean");
    let dirty = add("dirty");
    write(&dirty.join("scratch.txt"), "unsaved work\n");
    h.settings(&serde_json::json!({ "extraRepos": [repo_dir] }));
    (h, home, repo_dir, clean, dirty)
}

#[test]
fn list_json_has_the_contract_fields() {
    let (_tmp, home, repo_dir, clean, dirty) = setup();
    let (code, out, err) = plandeck(&home, &["worktrees", "list", "--json"]);
    assert_eq!(code, 0, "{err}");
    let list: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
    assert_eq!(list.len(), 3);
    for w in &list {
        for key in [
            "repo",
            "path",
            "branch",
            "head",
            "base",
            "changedFiles",
            "unmergedCommits",
            "locked",
            "isMain",
        ] {
            assert!(w.get(key).is_some(), "missing {key} in {w}");
        }
    }
    let find = |p: &Path| {
        list.iter()
            .find(|w| w["path"] == p.to_str().unwrap())
            .unwrap()
            .clone()
    };
    assert_eq!(find(&dirty)["changedFiles"], 1);
    assert_eq!(find(&clean)["changedFiles"], 0);
    assert_eq!(find(&clean)["unmergedCommits"], 0);
    assert_eq!(find(&repo_dir)["isMain"], true);

    let (code, out, _) = plandeck(
        &home,
        &[
            "worktrees",
            "list",
            "--repo",
            clean.to_str().unwrap(),
            "--json",
        ],
    );
    assert_eq!(code, 0);
    assert_eq!(
        serde_json::from_str::<Vec<serde_json::Value>>(&out)
            .unwrap()
            .len(),
        3
    );

    let (code, text, _) = plandeck(&home, &["worktrees", "list"]);
    assert_eq!(code, 0);
    assert!(
        text.contains("1 changed") && text.contains("clean, 0 unmerged vs main"),
        "{text}"
    );
}

#[test]
fn list_walks_no_folder_unless_sizes_are_asked_for() {
    let (_tmp, home, _repo_dir, clean, _dirty) = setup();
    let size_of = |args: &[&str]| {
        let (code, out, err) = plandeck(&home, args);
        assert_eq!(code, 0, "{err}");
        let list: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
        list.into_iter()
            .find(|w| w["path"] == clean.to_str().unwrap())
            .unwrap()["sizeBytes"]
            .clone()
    };
    assert_eq!(
        size_of(&["worktrees", "list", "--json"]),
        serde_json::Value::Null
    );
    let sized = size_of(&["worktrees", "list", "--sizes", "--json"]);
    assert!(sized.as_u64().is_some_and(|b| b > 0), "{sized}");
    let (code, text, _) = plandeck(&home, &["worktrees", "list", "--sizes"]);
    assert_eq!(code, 0);
    assert!(text.contains(" KB"), "{text}");
}

#[test]
fn remove_refuses_without_discard_and_removes_with_it() {
    let (_tmp, home, repo_dir, clean, dirty) = setup();
    let (code, _, err) = plandeck(&home, &["worktrees", "remove", dirty.to_str().unwrap()]);
    assert_ne!(code, 0);
    assert!(
        err.contains("scratch.txt") && err.contains("--discard"),
        "{err}"
    );
    assert!(dirty.join("scratch.txt").exists());

    let (code, out, _) = plandeck(
        &home,
        &["worktrees", "remove", dirty.to_str().unwrap(), "--json"],
    );
    assert_ne!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["error"]["kind"], "refused");

    let (code, _, err) = plandeck(
        &home,
        &[
            "worktrees",
            "remove",
            repo_dir.to_str().unwrap(),
            "--discard",
        ],
    );
    assert_ne!(code, 0);
    assert!(err.contains("main worktree"), "{err}");

    let (code, out, err) = plandeck(
        &home,
        &[
            "worktrees",
            "remove",
            dirty.to_str().unwrap(),
            "--discard",
            "--json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["removed"], true);
    assert_eq!(v["archiveRef"], "refs/plandeck/archive/dirty");
    assert_eq!(v["branchDeleted"], "dirty");
    assert!(!dirty.exists());

    let (code, out, err) = plandeck(&home, &["worktrees", "remove", clean.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("Removed") && out.contains("refs/plandeck/archive/clean"),
        "{out}"
    );
}

#[test]
fn keep_is_remembered() {
    let (_tmp, home, _repo, clean, _dirty) = setup();
    let (code, out, err) = plandeck(&home, &["worktrees", "keep", clean.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Keeping"));
    let (_, out, _) = plandeck(&home, &["worktrees", "list", "--json"]);
    let list: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
    assert!(list
        .iter()
        .any(|w| w["path"] == clean.to_str().unwrap() && w["kept"] == true));
    let (code, _, err) = plandeck(&home, &["worktrees", "keep", home.to_str().unwrap()]);
    assert_ne!(code, 0);
    assert!(err.contains("not"), "{err}");
}

#[test]
fn remove_with_the_token_of_an_outdated_preview_is_refused() {
    let (_tmp, home, _repo, clean, _dirty) = setup();
    let path = clean.to_str().unwrap();
    let preview = |home: &Path| {
        let (code, out, err) = plandeck(home, &["worktrees", "preview", path, "--json"]);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert!(
            v["panesToEnd"].is_array() && v["personPanes"].is_array(),
            "{v}"
        );
        v["token"].as_str().unwrap().to_owned()
    };
    let shown = preview(&home);
    // A file is written after the person looked.
    write(&clean.join("late.txt"), "written after the preview\n");
    let (code, out, _) = plandeck(
        &home,
        &[
            "worktrees",
            "remove",
            path,
            "--discard",
            "--expect",
            &shown,
            "--json",
        ],
    );
    assert_ne!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["error"]["kind"], "conflict", "{v}");
    assert!(clean.join("late.txt").exists());

    let shown = preview(&home);
    let (code, out, err) = plandeck(
        &home,
        &[
            "worktrees",
            "remove",
            path,
            "--discard",
            "--expect",
            &shown,
            "--json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["removed"], true);
    // The contract's fields stay; nothing kills tmux sessions any more.
    assert!(
        v.get("tmuxSessionKilled").is_some_and(|t| t.is_null()),
        "{v}"
    );
    assert_eq!(v["panesEnded"], serde_json::json!([]));
    assert!(!clean.exists());
}
