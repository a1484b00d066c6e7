//! Temporary git repositories: built with git2 (fixed signature and time) or with the git CLI
//! (no user configuration, fixed identity and time), so every run makes the same objects.

use std::path::Path;
use std::process::Command;

use git2::{Oid, Repository, Signature, Time, WorktreeAddOptions};

/// The tests' commit time (2023-11-14T22:13:20Z).
pub const TIME: i64 = 1_700_000_000;

/// The tests' author and committer, at [`TIME`].
pub fn sig() -> Signature<'static> {
    Signature::new("Test", "test@example.com", &Time::new(TIME, 0)).expect("signature")
}

/// The git CLI in `dir`, with no user configuration and a fixed identity and time.
pub fn git_command(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new("git");
    cmd.args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com")
        .env("GIT_AUTHOR_DATE", format!("{TIME} +0000"))
        .env("GIT_COMMITTER_DATE", format!("{TIME} +0000"));
    cmd
}

/// Runs `git args` in `dir` (see [`git_command`]); its stdout. Fails the test with git's answer
/// when git fails.
#[track_caller]
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = git_command(dir, args).output().expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?} in {}: {}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Writes `text` to `path`, making its folders.
pub fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("folders");
    std::fs::write(path, text).expect("write");
}

/// Stages everything under the workdir (like `git add -A`) and commits it with `sig`, on `update`
/// (a ref, or none to leave every ref alone), with HEAD's commit as the parent.
pub fn commit_staged_all(
    repo: &Repository,
    update: Option<&str>,
    sig: &Signature<'_>,
    msg: &str,
) -> Oid {
    let mut index = repo.index().expect("index");
    index
        .add_all(["*"], git2::IndexAddOption::DEFAULT, None)
        .expect("add");
    index.update_all(["*"], None).expect("update (deletions)");
    index.write().expect("index write");
    let tree = repo
        .find_tree(index.write_tree().expect("tree"))
        .expect("tree");
    let parent = repo.head().ok().and_then(|h| h.peel_to_commit().ok());
    let parents: Vec<&git2::Commit<'_>> = parent.iter().collect();
    repo.commit(update, sig, sig, msg, &tree, &parents)
        .expect("commit")
}

/// Stages everything under the workdir (like `git add -A`) and commits on HEAD.
pub fn commit_all(repo: &Repository, msg: &str) -> Oid {
    commit_staged_all(repo, Some("HEAD"), &sig(), msg)
}

/// A repository at `dir` on branch `main` with `files` (path, text) committed as "initial".
pub fn new_repo(dir: &Path, files: &[(&str, &str)]) -> Repository {
    let mut opts = git2::RepositoryInitOptions::new();
    opts.initial_head("main");
    let repo = Repository::init_opts(dir, &opts).expect("init");
    for (path, text) in files {
        write(&dir.join(path), text);
    }
    commit_all(&repo, "initial");
    repo
}

/// A linked worktree `name` at `path` on a new branch `branch` from HEAD (`git worktree add -b`).
pub fn add_worktree(repo: &Repository, name: &str, path: &Path, branch: &str) -> Repository {
    let head = repo
        .head()
        .expect("HEAD")
        .peel_to_commit()
        .expect("a commit");
    let b = repo.branch(branch, &head, false).expect("branch");
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("worktree's parent");
    }
    let mut opts = WorktreeAddOptions::new();
    opts.reference(Some(b.get()));
    repo.worktree(name, path, Some(&opts)).expect("worktree");
    Repository::open(path).expect("open worktree")
}
