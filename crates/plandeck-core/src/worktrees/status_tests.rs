//! Tests of the changed-file scan's own index reading and cache-tree shortcut, on repositories
//! built with the git CLI (so the index is the one git writes), each compared line by line with
//! `git status --porcelain`.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use plandeck_testkit::git::{git, git_command, write};

use super::index_file::{parse, CacheTree};
use crate::worktrees::tests::{ours, porcelain};

fn index_bytes(dir: &Path) -> Vec<u8> {
    fs::read(dir.join(".git/index")).unwrap()
}

/// A committed repository with files in nested folders; the index is git's, cache-tree included.
fn repo(dir: &Path) {
    fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "-q", "-b", "main"]);
    for name in [
        "top.txt",
        "a/one.txt",
        "a/b/c/deep.txt",
        "a/b/c/other.txt",
        "a/b/side.txt",
        "z/last.txt",
        "a-b.txt",
    ] {
        write(&dir.join(name), &format!("content of {name}\n"));
    }
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "files"]);
}

fn valid(node: &CacheTree) -> bool {
    node.valid.is_some()
}

#[test]
fn a_clean_index_has_a_cache_tree_equal_to_head_and_nothing_changed() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    repo(dir);
    let bytes = index_bytes(dir);
    let parsed = parse(&bytes).expect("git's index parses");
    let root = parsed.tree.expect("git commit writes the cache-tree");
    let head_tree = git(dir, &["rev-parse", "HEAD^{tree}"]);
    assert_eq!(
        root.valid.map(|(id, n)| (id.to_string(), n)),
        Some((head_tree.trim().to_owned(), 7))
    );
    assert_eq!(parsed.entries.len(), 7);
    assert_eq!(ours(dir), BTreeSet::new());
    assert_eq!(porcelain(dir), BTreeSet::new());
}

#[test]
fn a_staged_change_in_a_deep_folder_invalidates_only_its_path() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    repo(dir);
    write(&dir.join("a/b/c/deep.txt"), "staged deep change\n");
    git(dir, &["add", "a/b/c/deep.txt"]);
    write(&dir.join("a/b/c/new.txt"), "staged new file deep\n");
    git(dir, &["add", "a/b/c/new.txt"]);
    write(&dir.join("z/last.txt"), "unstaged change\n");
    let bytes = index_bytes(dir);
    let root = parse(&bytes).unwrap().tree.unwrap();
    let a = root.child(b"a").unwrap();
    assert!(!valid(&root) && !valid(a) && !valid(a.child(b"b").unwrap().child(b"c").unwrap()));
    assert!(
        valid(root.child(b"z").unwrap()),
        "untouched folders stay valid, so they are skipped"
    );
    let git_lines = porcelain(dir);
    assert!(
        git_lines.contains("M  a/b/c/deep.txt") && git_lines.contains("A  a/b/c/new.txt"),
        "{git_lines:?}"
    );
    assert_eq!(ours(dir), git_lines);
}

#[test]
fn an_index_without_a_cache_tree_is_compared_in_full() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    repo(dir);
    // update-index builds an index without the TREE extension.
    fs::remove_file(dir.join(".git/index")).unwrap();
    write(&dir.join("a/b/side.txt"), "changed, then staged\n");
    write(&dir.join("a/new.txt"), "added\n");
    let files = [
        "top.txt",
        "a/one.txt",
        "a/b/c/deep.txt",
        "a/b/c/other.txt",
        "a/b/side.txt",
        "a/new.txt",
        "a-b.txt",
    ];
    let mut args = vec!["update-index", "--add"];
    args.extend(files);
    git(dir, &args);
    assert!(parse(&index_bytes(dir)).unwrap().tree.is_none());
    let git_lines = porcelain(dir);
    assert!(
        git_lines.contains("D  z/last.txt") && git_lines.contains("A  a/new.txt"),
        "{git_lines:?}"
    );
    assert_eq!(ours(dir), git_lines);
}

#[test]
fn index_version_4_and_intent_to_add_match_git() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    repo(dir);
    write(&dir.join("a/b/c/planned.txt"), "intent to add\n");
    git(dir, &["add", "-N", "a/b/c/planned.txt"]);
    write(&dir.join("a/b/c/other.txt"), "unstaged\n");
    git(dir, &["update-index", "--index-version", "4"]);
    let bytes = index_bytes(dir);
    assert_eq!(&bytes[4..8], &[0, 0, 0, 4]);
    let parsed = parse(&bytes).unwrap();
    let paths: Vec<&[u8]> = parsed.entries.iter().map(|e| e.path.as_ref()).collect();
    assert!(
        paths.contains(&b"a/b/c/planned.txt".as_slice())
            && paths.contains(&b"z/last.txt".as_slice())
    );
    assert!(parsed.entries.iter().any(|e| e.intent_to_add));
    let git_lines = porcelain(dir);
    assert!(git_lines.contains(" A a/b/c/planned.txt"), "{git_lines:?}");
    assert_eq!(ours(dir), git_lines);
}

#[test]
fn a_merge_conflict_matches_git() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    repo(dir);
    git(dir, &["checkout", "-q", "-b", "other"]);
    write(&dir.join("a/b/c/deep.txt"), "theirs\n");
    fs::remove_file(dir.join("a/one.txt")).unwrap();
    write(&dir.join("both-added.txt"), "theirs\n");
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "theirs"]);
    git(dir, &["checkout", "-q", "main"]);
    write(&dir.join("a/b/c/deep.txt"), "ours\n");
    write(&dir.join("z/last.txt"), "ours too\n");
    write(&dir.join("a/one.txt"), "changed on our side\n");
    write(&dir.join("both-added.txt"), "ours\n");
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "ours"]);
    let out = git_command(dir, &["merge", "-q", "other"])
        .output()
        .unwrap();
    assert!(!out.status.success(), "the merge conflicts");
    let git_lines = porcelain(dir);
    for line in ["UU a/b/c/deep.txt", "UD a/one.txt", "AA both-added.txt"] {
        assert!(git_lines.contains(line), "{line} in {git_lines:?}");
    }
    assert_eq!(ours(dir), git_lines);
}

#[test]
fn a_damaged_index_never_panics() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    repo(dir);
    write(&dir.join("a/b/c/deep.txt"), "staged\n");
    git(dir, &["add", "a/b/c/deep.txt"]);
    let bytes = index_bytes(dir);
    for len in 0..bytes.len() {
        let _ = parse(&bytes[..len]);
    }
    for at in 0..bytes.len() {
        for bit in [0x01u8, 0x80] {
            let mut damaged = bytes.clone();
            damaged[at] ^= bit;
            let _ = parse(&damaged);
        }
    }
    // An index we cannot read ourselves falls back to libgit2's reading.
    let mut unknown = bytes.clone();
    let end = unknown.len() - 20;
    unknown.splice(end..end, *b"zzzz\0\0\0\0");
    assert!(
        parse(&unknown).is_none(),
        "an unknown required extension is declined"
    );
}
