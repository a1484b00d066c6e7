//! Tests on real temporary repositories: built with git2 (fixed signature and time), checked with
//! the git CLI.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use git2::Repository;
use plandeck_testkit::git::{add_worktree, commit_all, git, write};
use plandeck_testkit::tmux::{in_folder, Tmux};
use plandeck_testkit::{self as testkit, wait_until};

use super::*;
use crate::config::Roots;

/// A repository on `main` with a few files and one commit.
fn new_repo(dir: &Path) -> Repository {
    testkit::git::new_repo(
        dir,
        &[("README.md", "hello\n"), ("src/lib.rs", "pub fn a() {}\n")],
    )
}

/// `git status --porcelain` in `dir`, line by line.
pub(super) fn porcelain(dir: &Path) -> BTreeSet<String> {
    git(dir, &["status", "--porcelain"])
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Our changed-file scan of `dir`, as porcelain lines.
pub(super) fn ours(dir: &Path) -> BTreeSet<String> {
    changed_files(dir)
        .unwrap()
        .files
        .iter()
        .map(ChangedFile::line)
        .collect()
}

fn roots_with(home: &Path, repos: &[&Path]) -> Roots {
    let mut roots = Roots::under_home(home);
    roots.extra_repos = repos.iter().map(|p| p.to_path_buf()).collect();
    roots
}

#[test]
fn each_kind_of_change_is_counted_like_git_status() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("repo");
    let repo = new_repo(&dir);
    for name in [
        "a.txt",
        "b.txt",
        "c.txt",
        "d.txt",
        "same.txt",
        "dir/e.txt",
        "sub/deep/f.txt",
        "run.sh",
    ] {
        write(&dir.join(name), &format!("content of {name}\n"));
    }
    write(&dir.join(".gitignore"), "*.log\nbuild/\n");
    commit_all(&repo, "files");
    assert_eq!(ours(&dir), BTreeSet::new());
    assert_eq!(porcelain(&dir), BTreeSet::new());

    write(&dir.join("a.txt"), "modified, not staged\n");
    write(&dir.join("b.txt"), "modified and staged\n");
    fs::remove_file(dir.join("c.txt")).unwrap();
    fs::rename(dir.join("d.txt"), dir.join("d-renamed.txt")).unwrap();
    let mut index = repo.index().unwrap();
    index.add_path(Path::new("b.txt")).unwrap();
    index.remove_path(Path::new("d.txt")).unwrap();
    index.add_path(Path::new("d-renamed.txt")).unwrap();
    index.write().unwrap();
    // Same size, same second: only the content (racy check) can tell.
    write(&dir.join("same.txt"), "CONTENT of same.txt\n");
    write(&dir.join("sub/deep/f.txt"), "changed deep\n");
    write(&dir.join("new.txt"), "untracked\n");
    write(&dir.join("debug.log"), "ignored\n");
    write(&dir.join("build/out/bin"), "ignored dir\n");
    write(&dir.join("newdir/inner/z.txt"), "nested untracked\n");
    write(&dir.join("only-ignored/x.log"), "ignored only\n");
    fs::create_dir_all(dir.join("empty-dir")).unwrap();
    write(
        &dir.join("dir/new-in-tracked.txt"),
        "untracked in a tracked dir\n",
    );
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(dir.join("run.sh"), fs::Permissions::from_mode(0o755)).unwrap();

    let git_lines = porcelain(&dir);
    assert!(
        git_lines.contains("R  d.txt -> d-renamed.txt"),
        "{git_lines:?}"
    );
    assert!(git_lines.contains("?? newdir/"), "{git_lines:?}");
    assert_eq!(ours(&dir), git_lines);
    assert_eq!(
        changed_files(&dir).unwrap().count() as usize,
        git_lines.len()
    );
}

#[test]
fn staged_then_deleted_and_unborn_branch_match_git() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("repo");
    let repo = Repository::init(&dir).unwrap();
    write(&dir.join("one.txt"), "1\n");
    write(&dir.join("two.txt"), "2\n");
    let mut index = repo.index().unwrap();
    index.add_path(Path::new("one.txt")).unwrap();
    index.add_path(Path::new("two.txt")).unwrap();
    index.write().unwrap();
    fs::remove_file(dir.join("two.txt")).unwrap();
    assert_eq!(ours(&dir), porcelain(&dir));
}

#[test]
fn linked_worktree_changes_match_git() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = new_repo(&tmp.path().join("repo"));
    let wt = tmp.path().join("wt");
    add_worktree(&repo, "wt", &wt, "feature");
    write(&wt.join("README.md"), "changed in the worktree\n");
    write(&wt.join("notes/todo.md"), "untracked\n");
    assert_eq!(ours(&wt), porcelain(&wt));
    assert_eq!(ours(&wt).len(), 2);
}

#[test]
fn unmerged_counts_against_several_bases() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("repo");
    let repo = new_repo(&dir);
    let start = repo.head().unwrap().target().unwrap();
    let wt_path = tmp.path().join("wt");
    let wt = add_worktree(&repo, "wt", &wt_path, "feature");
    for i in 0..3 {
        write(&wt_path.join(format!("f{i}.txt")), "x\n");
        commit_all(&wt, &format!("feature {i}"));
    }
    // main moves on too.
    write(&dir.join("main.txt"), "m\n");
    commit_all(&repo, "main moves");
    let head = wt.head().unwrap().target().unwrap();

    let rev_list = |base: &str| {
        git(&wt_path, &["rev-list", "--count", &format!("{base}..HEAD")])
            .trim()
            .parse::<u32>()
            .unwrap()
    };

    // Default branch.
    let base = resolve_base(&wt, Some("feature"), None).unwrap();
    assert_eq!(base.name, "main");
    assert_eq!(
        unmerged::count_unmerged(&wt, head, base.id).unwrap(),
        rev_list("main")
    );
    assert_eq!(rev_list("main"), 3);

    // originalHeadCommit wins.
    let base = resolve_base(&wt, Some("feature"), Some(&start.to_string())).unwrap();
    assert_eq!(base.name, "originalHeadCommit");
    assert_eq!(
        unmerged::count_unmerged(&wt, head, base.id).unwrap(),
        rev_list(&start.to_string())
    );

    // An upstream wins over the default branch.
    let second = wt.revparse_single("HEAD~1").unwrap().id();
    repo.reference("refs/remotes/origin/feature", second, true, "test")
        .unwrap();
    repo.remote("origin", "https://example.invalid/repo.git")
        .unwrap();
    let mut cfg = repo.config().unwrap();
    cfg.set_str("branch.feature.remote", "origin").unwrap();
    cfg.set_str("branch.feature.merge", "refs/heads/feature")
        .unwrap();
    let wt = Repository::open(&wt_path).unwrap();
    let base = resolve_base(&wt, Some("feature"), None).unwrap();
    assert_eq!(base.name, "origin/feature");
    assert_eq!(
        unmerged::count_unmerged(&wt, head, base.id).unwrap(),
        rev_list("origin/feature")
    );
    assert_eq!(rev_list("origin/feature"), 1);

    // A branch of its own with no main/master and no upstream: unknown.
    let tmp2 = tempfile::tempdir().unwrap();
    let mut opts = git2::RepositoryInitOptions::new();
    opts.initial_head("trunk");
    let lone = Repository::init_opts(tmp2.path(), &opts).unwrap();
    write(&tmp2.path().join("a"), "a\n");
    commit_all(&lone, "a");
    assert_eq!(resolve_base(&lone, Some("trunk"), None), None);
}

struct Fixture {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    repo_dir: PathBuf,
    repo: Repository,
}

fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let base = fs::canonicalize(tmp.path()).unwrap();
    let home = base.join("home");
    fs::create_dir_all(&home).unwrap();
    let repo_dir = base.join("repo");
    let repo = new_repo(&repo_dir);
    Fixture {
        _tmp: tmp,
        home,
        repo_dir,
        repo,
    }
}

impl Fixture {
    fn roots(&self) -> Roots {
        roots_with(&self.home, &[&self.repo_dir])
    }
    fn worktree(&self, name: &str) -> (PathBuf, Repository) {
        let path = self.repo_dir.parent().unwrap().join(format!("wt-{name}"));
        let wt = add_worktree(&self.repo, name, &path, name);
        (path, wt)
    }
}

fn kinds(p: &RemovalPreview) -> Vec<&'static str> {
    p.refusals
        .iter()
        .map(|r| match r {
            Refusal::Dirty { .. } => "dirty",
            Refusal::Unmerged { .. } => "unmerged",
            Refusal::BaseUnknown => "baseUnknown",
            Refusal::Locked { .. } => "locked",
            Refusal::Main => "main",
            Refusal::NotAWorktree { .. } => "notAWorktree",
            Refusal::RunningSession { .. } => "running",
            Refusal::Unreadable { .. } => "unreadable",
            Refusal::AgentPane { .. } => "agentPane",
            Refusal::PersonPane { .. } => "personPane",
            Refusal::SubmoduleCommits { .. } => "submoduleCommits",
            Refusal::Unvalidated { .. } => "unvalidated",
        })
        .collect()
}

fn opts(discard: bool) -> RemoveOptions {
    RemoveOptions {
        discard,
        ..RemoveOptions::default()
    }
}

/// Removes `path` (with `discard` as asked), expects a refusal and that the folder (and the one a
/// link leads to) is byte for byte as it was before: its message.
#[track_caller]
fn assert_refused(roots: &Roots, path: &Path, discard: bool) -> String {
    // The path as given (a link stays a link) and the folder it leads to.
    let snapshot = || {
        let target = fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        (
            plandeck_testkit::tree::snapshot(path),
            plandeck_testkit::tree::snapshot(&target),
        )
    };
    let before = snapshot();
    assert!(
        !before.0.is_empty(),
        "{} is there to refuse",
        path.display()
    );
    match remove(roots, path, &opts(discard)) {
        Err(WorktreeError::Refused { message, .. }) => {
            assert!(
                snapshot() == before,
                "refused, but {} changed",
                path.display()
            );
            message
        }
        other => panic!("expected a refusal for {}, got {other:?}", path.display()),
    }
}

#[test]
fn list_shows_main_and_linked_with_counts() {
    let f = fixture();
    let (clean, _) = f.worktree("clean");
    let (dirty, dirty_repo) = f.worktree("dirty");
    write(&dirty.join("new.txt"), "x\n");
    write(&dirty.join("README.md"), "changed\n");
    commit_all(&dirty_repo, "one commit");
    write(&dirty.join("README.md"), "changed again\n");
    let list = list(&f.roots(), None).unwrap();
    assert_eq!(list.len(), 3, "{list:#?}");
    let main = list.iter().find(|w| w.is_main).unwrap();
    assert_eq!(main.branch.as_deref(), Some("main"));
    let c = list.iter().find(|w| Path::new(&w.path) == clean).unwrap();
    assert_eq!(
        (c.changed_files, c.unmerged_commits, c.base_name.as_deref()),
        (0, Some(0), Some("main"))
    );
    // The listing walks no folder: sizes come later, or when asked for.
    assert_eq!(c.size_bytes, None);
    let sized = list_with(&f.roots(), None, &[], ListOptions { sizes: true }).unwrap();
    let c_sized = sized.iter().find(|w| Path::new(&w.path) == clean).unwrap();
    assert!(c_sized.size_bytes.unwrap() > 0);
    let d = list.iter().find(|w| Path::new(&w.path) == dirty).unwrap();
    assert_eq!(d.changed_files as usize, porcelain(&dirty).len());
    assert_eq!((d.changed_files, d.unmerged_commits), (1, Some(1)));
    assert_eq!(d.repo, main.path);
    let json = serde_json::to_value(d).unwrap();
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
        assert!(json.get(key).is_some(), "missing {key}: {json}");
    }
    // Only one repository, through --repo.
    assert_eq!(
        super::list(&Roots::under_home(&f.home), Some(&clean))
            .unwrap()
            .len(),
        3
    );
    let watch = watch_targets(&list);
    assert_eq!(watch.len(), 3, "{watch:?}");
    assert!(
        watch.iter().any(|w| w.path == clean)
            && watch.iter().all(|w| w.common_dir.ends_with(".git")),
        "{watch:?}"
    );
}

#[test]
fn a_broken_extra_repository_is_a_problem_entry() {
    let f = fixture();
    let missing = f.home.join("nope");
    let roots = roots_with(&f.home, &[&f.repo_dir, &missing]);
    let list = list(&roots, None).unwrap();
    let bad = list.iter().find(|w| Path::new(&w.path) == missing).unwrap();
    assert!(
        bad.problem
            .as_deref()
            .unwrap()
            .contains("not a git repository"),
        "{bad:?}"
    );
}

#[test]
fn refuses_every_unsafe_case() {
    let f = fixture();
    let roots = f.roots();

    // Dirty (tracked change) and untracked only.
    let (dirty, _) = f.worktree("dirty");
    write(&dirty.join("README.md"), "edited\n");
    let p = removal_preview(&roots, &dirty, None).unwrap();
    assert_eq!(kinds(&p), ["dirty"]);
    assert!(p.confirmable);
    assert_eq!(p.changed_files, [" M README.md"]);
    let msg = assert_refused(&roots, &dirty, false);
    assert!(
        msg.contains("README.md") && msg.contains("--discard"),
        "{msg}"
    );

    let (untracked, _) = f.worktree("untracked");
    write(&untracked.join("scratch.txt"), "only untracked\n");
    assert_eq!(
        kinds(&removal_preview(&roots, &untracked, None).unwrap()),
        ["dirty"]
    );
    assert_refused(&roots, &untracked, false);

    // Unmerged.
    let (ahead, ahead_repo) = f.worktree("ahead");
    write(&ahead.join("x.txt"), "x\n");
    commit_all(&ahead_repo, "work only here");
    let p = removal_preview(&roots, &ahead, None).unwrap();
    assert_eq!(kinds(&p), ["unmerged"]);
    assert_eq!(p.unmerged_commits[0].summary, "work only here");
    assert!(assert_refused(&roots, &ahead, false).contains("work only here"));

    // Unknown base: the repository's default branch is renamed away.
    let (lost, _) = f.worktree("lost");
    f.repo
        .find_branch("main", git2::BranchType::Local)
        .unwrap()
        .rename("trunk", false)
        .unwrap();
    assert_eq!(
        kinds(&removal_preview(&roots, &lost, None).unwrap()),
        ["baseUnknown"]
    );
    assert_refused(&roots, &lost, false);
    f.repo
        .find_branch("trunk", git2::BranchType::Local)
        .unwrap()
        .rename("main", false)
        .unwrap();

    // Locked by a person (no pid): never, even with discard.
    let (locked, _) = f.worktree("locked");
    f.repo
        .find_worktree("locked")
        .unwrap()
        .lock(Some("on a usb disk"))
        .unwrap();
    let p = removal_preview(&roots, &locked, None).unwrap();
    assert_eq!(kinds(&p), ["locked"]);
    assert!(!p.confirmable);
    assert!(assert_refused(&roots, &locked, true).contains("usb disk"));
    // Locked by a process that is gone: stale, confirmable.
    let (stale, _) = f.worktree("stale");
    f.repo
        .find_worktree("stale")
        .unwrap()
        .lock(Some("claude agent (pid 999999999)"))
        .unwrap();
    let p = removal_preview(&roots, &stale, None).unwrap();
    assert!(p.confirmable, "{p:?}");
    assert_refused(&roots, &stale, false);
    assert!(remove(&roots, &stale, &opts(true)).unwrap().removed);

    // Main.
    let p = removal_preview(&roots, &f.repo_dir, None).unwrap();
    assert!(kinds(&p).contains(&"main") && !p.confirmable);
    assert_refused(&roots, &f.repo_dir, true);
    assert!(f.repo_dir.join(".git").exists());

    // A path outside any worktree, and a folder inside one.
    let outside = f.home.join("elsewhere");
    fs::create_dir_all(&outside).unwrap();
    assert_eq!(
        kinds(&removal_preview(&roots, &outside, None).unwrap()),
        ["notAWorktree"]
    );
    assert_refused(&roots, &outside, true);
    assert_refused(&roots, &dirty.join("src"), true);
    assert!(dirty.join("src/lib.rs").exists());

    // A symlink given as the path, and a worktree folder replaced by a symlink to elsewhere.
    let link = f.home.join("link");
    std::os::unix::fs::symlink(&outside, &link).unwrap();
    assert_refused(&roots, &link, true);
    let (swapped, _) = f.worktree("swapped");
    fs::remove_dir_all(&swapped).unwrap();
    write(&outside.join("precious.txt"), "keep me\n");
    std::os::unix::fs::symlink(&outside, &swapped).unwrap();
    let p = removal_preview(&roots, &swapped, None).unwrap();
    assert!(kinds(&p).contains(&"notAWorktree"), "{p:?}");
    assert_refused(&roots, &swapped, true);
    assert!(outside.join("precious.txt").exists());

    // Every refused worktree is still there.
    for p in [&dirty, &untracked, &ahead, &lost, &locked] {
        assert!(p.join("README.md").exists(), "{}", p.display());
    }
}

#[test]
fn removal_archives_commits_and_restore_brings_them_back() {
    let f = fixture();
    let roots = f.roots();
    let (ahead, ahead_repo) = f.worktree("ahead");
    write(&ahead.join("x.txt"), "x\n");
    let tip = commit_all(&ahead_repo, "work only here");
    write(&ahead.join("x.txt"), "uncommitted\n");
    drop(ahead_repo);
    f.worktree("other-ahead");
    f.repo
        .reference(
            "refs/plandeck/archive/ahead",
            tip,
            false,
            "an older archive",
        )
        .unwrap();
    keep(&roots, &ahead).unwrap();

    let out = remove(&roots, &ahead, &opts(true)).unwrap();
    assert!(out.removed);
    assert_eq!(
        out.archive_ref.as_deref(),
        Some("refs/plandeck/archive/ahead-2")
    );
    assert_eq!(out.branch_deleted.as_deref(), Some("ahead"));
    assert!(!ahead.exists());
    assert!(!git(&f.repo_dir, &["worktree", "list"]).contains("wt-ahead"));
    assert!(f
        .repo
        .find_branch("ahead", git2::BranchType::Local)
        .is_err());
    assert!(!is_kept(&roots, &ahead).unwrap());
    assert_eq!(
        git(&f.repo_dir, &["rev-parse", "refs/plandeck/archive/ahead-2"]).trim(),
        tip.to_string()
    );

    let branch = restore(&roots, &f.repo_dir, "refs/plandeck/archive/ahead-2").unwrap();
    assert_eq!(branch, "ahead");
    assert_eq!(
        git(&f.repo_dir, &["rev-parse", "ahead"]).trim(),
        tip.to_string()
    );
    for bad in [
        "nope",
        "refs/heads/main",
        "HEAD",
        "refs/plandeck/archive/../../heads/main",
    ] {
        assert!(
            matches!(
                restore(&roots, &f.repo_dir, bad),
                Err(WorktreeError::ArchiveNotFound { .. })
            ),
            "{bad}"
        );
    }
}

#[test]
fn remove_clean_touches_only_clean_merged_unlocked_unkept_worktrees() {
    let f = fixture();
    let roots = f.roots();
    let (clean, _) = f.worktree("clean");
    let (kept, _) = f.worktree("kept");
    let (dirty, _) = f.worktree("dirty");
    let (locked, _) = f.worktree("locked");
    let (ahead, ahead_repo) = f.worktree("ahead");
    write(&dirty.join("u.txt"), "u\n");
    f.repo.find_worktree("locked").unwrap().lock(None).unwrap();
    write(&ahead.join("x.txt"), "x\n");
    commit_all(&ahead_repo, "ahead");
    keep(&roots, &kept).unwrap();
    assert!(list(&roots, None)
        .unwrap()
        .iter()
        .any(|w| w.kept && Path::new(&w.path) == kept));

    // What the confirmation names is exactly what goes.
    let shown = clean_removals(&roots, &f.repo_dir, None).unwrap();
    assert_eq!(shown.len(), 1);
    assert!(clean_confirmation_text(&shown).contains(clean.to_str().unwrap()));
    assert!(shown[0]
        .confirmation_text()
        .contains("Nothing would be lost"));
    let removed = remove_clean(&roots, &f.repo_dir, None).unwrap();
    assert_eq!(removed, [clean.to_string_lossy().to_string()]);
    assert!(!clean.exists());
    for p in [&kept, &dirty, &locked, &ahead, &f.repo_dir] {
        assert!(p.exists(), "{}", p.display());
    }
    // A clean removal needs no confirmation.
    assert!(remove(&roots, &kept, &opts(false)).unwrap().removed);
}

#[test]
fn keep_refuses_a_path_that_is_not_a_worktree() {
    let f = fixture();
    let err = keep(&f.roots(), &f.repo_dir.join("src")).unwrap_err();
    assert!(matches!(err, WorktreeError::NotAWorktree { .. }), "{err}");
    assert_eq!(
        crate::ipc::IpcError::from(err).kind,
        crate::ipc::ErrorKind::NotFound
    );
}

// ---- Trust: panes, folders git cannot validate, submodules, the dialog race, ids. ----

/// The git CLI with a fixed identity and time, allowing file:// submodules.
fn git_cli(dir: &Path, args: &[&str]) -> String {
    let mut all = vec![
        "-c",
        "protocol.file.allow=always",
        "-c",
        "commit.gpgsign=false",
    ];
    all.extend_from_slice(args);
    git(dir, &all)
}

/// Field 22 of `/proc/<pid>/stat`: the process's start time, as Claude Code's registry records it.
fn proc_start(pid: u32) -> String {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let (_, rest) = stat.rsplit_once(')').unwrap();
    rest.split_whitespace().nth(19).unwrap().to_owned()
}

/// Claude Code's registry entry `<claude>/sessions/<pid>.json` for a running CLI.
fn register(roots: &Roots, pid: u32, session_id: &str, cwd: &Path, tmux: &str, start: &str) {
    let entry = serde_json::json!({
        "pid": pid,
        "sessionId": session_id,
        "cwd": cwd,
        "procStart": start,
        "tmux": tmux,
        "status": "idle",
        "version": "2.1.328",
    });
    write(
        &roots.claude.join(format!("sessions/{pid}.json")),
        &entry.to_string(),
    );
}

fn alive(pid: u32) -> bool {
    crate::sessions::pid_alive(pid, None)
        && !fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
            s.rsplit_once(')')
                .is_some_and(|(_, r)| r.trim_start().starts_with('Z'))
        })
}

#[test]
fn removal_ends_only_the_agents_own_pane_and_never_the_persons_session() {
    let f = fixture();
    let roots = f.roots();
    let (wt, _) = f.worktree("agent");
    let tmux = Tmux::server(f.home.parent().unwrap());
    // The agent runs as its pane's own process; the person has a shell in the worktree, in a
    // session of their own, and an editor-like process in a second pane of the agent's session
    // that a stale registry entry (a reused pid: another start time) claims.
    let (agent_pane, agent_pid) = tmux.session("agent", &wt, "exec sleep 100000");
    let (shell_pane, shell_pid) = tmux.session("person", &wt, "exec sh");
    let editor = tmux.run(&[
        "split-window",
        "-d",
        "-t",
        "agent",
        "-c",
        wt.to_str().unwrap(),
        "-P",
        "-F",
        "#{pane_id} #{pane_pid}",
        "exec sleep 100001",
    ]);
    let (editor_pane, editor_pid) = editor.trim().split_once(' ').unwrap();
    let editor_pid: u32 = editor_pid.parse().unwrap();
    in_folder(editor_pid, &wt);
    register(
        &roots,
        agent_pid,
        "agent-session-1",
        &wt,
        &format!("agent:@0.{agent_pane}"),
        &proc_start(agent_pid),
    );
    register(
        &roots,
        editor_pid,
        "old-session",
        &wt,
        &format!("agent:@0.{editor_pane}"),
        "1",
    );

    // The agent holds the worktree's lock, as Claude Code does while it runs: ending its pane
    // ends the lock's owner, so the lock may be confirmed past.
    f.repo
        .find_worktree("agent")
        .unwrap()
        .lock(Some(&format!("claude agent (pid {agent_pid})")))
        .unwrap();

    let p = removal_preview(&roots, &wt, Some(&tmux.socket)).unwrap();
    assert!(
        p.refusals
            .iter()
            .any(|r| matches!(r, Refusal::Locked { stale: true, .. })),
        "{p:#?}"
    );
    let ended: Vec<&str> = p.panes_to_end.iter().map(|x| x.pane.as_str()).collect();
    assert_eq!(ended, [agent_pane.as_str()], "{p:#?}");
    assert_eq!(
        p.panes_to_end[0].agent_session_id.as_deref(),
        Some("agent-session-1")
    );
    let mut person: Vec<&str> = p.person_panes.iter().map(|x| x.pane.as_str()).collect();
    person.sort();
    let mut expected = vec![shell_pane.as_str(), editor_pane];
    expected.sort();
    assert_eq!(person, expected, "{p:#?}");
    assert!(p.confirmable, "{p:#?}");
    assert!(
        p.loss_summary.contains(&agent_pane) && p.loss_summary.contains(&shell_pane),
        "the confirmation names each pane: {}",
        p.loss_summary
    );
    let text = p.confirmation_text();
    assert!(
        text.contains(&format!("runs in tmux pane {agent_pane}"))
            && text.contains("that pane will be ended")
            && text.contains(&format!("your tmux pane {shell_pane}"))
            && text.contains("it is not closed"),
        "{text}"
    );
    let opts_for = |discard: bool, expected: Option<String>| RemoveOptions {
        discard,
        expected,
        tmux_socket: Some(tmux.socket.clone()),
    };

    // Nothing is ended without the person's confirmation.
    assert!(matches!(
        remove(&roots, &wt, &opts_for(false, None)),
        Err(WorktreeError::Refused { .. })
    ));
    assert!(alive(agent_pid) && alive(shell_pid) && alive(editor_pid));

    let out = remove(&roots, &wt, &opts_for(true, Some(p.token.clone()))).unwrap();
    assert!(out.removed && !wt.exists());
    assert_eq!(out.panes_ended, std::slice::from_ref(&agent_pane));
    assert_eq!(out.tmux_session_killed, None);
    wait_until("the agent's pane to end", || {
        !tmux.panes().contains(&agent_pane)
    });
    // The person's panes, their session and the agent session's other pane are all still there.
    let left = tmux.panes();
    assert!(
        left.contains(&shell_pane) && left.iter().any(|x| x == editor_pane),
        "{left:?}"
    );
    assert!(tmux.cmd(&["has-session", "-t", "=person"]).status.success());
    assert!(alive(shell_pid) && alive(editor_pid));
}

#[test]
fn an_existing_folder_git_cannot_validate_is_never_pruned_or_deleted() {
    let f = fixture();
    let roots = f.roots();
    // The worktree's .git link is broken: git cannot open the folder, but it is full of work.
    let (broken, _) = f.worktree("broken");
    write(&broken.join("work.txt"), "hours of work\n");
    write(
        &broken.join(".git"),
        "gitdir: /nonexistent/worktrees/broken\n",
    );
    // Another's .git leads to a different worktree's git dir.
    let (crossed, _) = f.worktree("crossed");
    write(&crossed.join("mine.txt"), "mine\n");
    let other = f.repo_dir.join(".git/worktrees/broken");
    write(
        &crossed.join(".git"),
        &format!("gitdir: {}\n", other.display()),
    );

    // Git's own record of a third is damaged (its `commondir` leads nowhere), so git cannot
    // validate it.
    let (unlinked, _) = f.worktree("unlinked");
    write(&unlinked.join("draft.txt"), "draft\n");
    write(
        &f.repo_dir.join(".git/worktrees/unlinked/commondir"),
        "/nonexistent-common\n",
    );
    assert!(f
        .repo
        .find_worktree("unlinked")
        .unwrap()
        .validate()
        .is_err());

    let listed = list(&roots, None).unwrap();
    for path in [&broken, &crossed, &unlinked] {
        let w = listed.iter().find(|w| Path::new(&w.path) == path).unwrap();
        assert!(!w.prunable, "an existing folder is not prunable: {w:?}");
        assert!(w.problem.is_some(), "{w:?}");
        let p = removal_preview(&roots, path, None).unwrap();
        assert!(kinds(&p).contains(&"unvalidated"), "{p:#?}");
        assert!(!p.confirmable);
        assert_refused(&roots, path, true);
        assert!(remove_clean(&roots, &f.repo_dir, None).unwrap().is_empty());
    }
    assert!(broken.join("work.txt").exists() && crossed.join("mine.txt").exists());
    assert!(unlinked.join("draft.txt").exists());
    assert!(f.repo_dir.join(".git/worktrees/broken").exists());

    // A folder that is really gone is prunable, and its removal only drops git's record.
    let (gone, _) = f.worktree("gone");
    fs::remove_dir_all(&gone).unwrap();
    let w = list(&roots, None)
        .unwrap()
        .into_iter()
        .find(|w| Path::new(&w.path) == gone)
        .unwrap();
    assert!(w.prunable);
    assert!(remove(&roots, &gone, &opts(true)).unwrap().removed);
    assert!(!f.repo_dir.join(".git/worktrees/gone").exists());
}

/// A repository whose `sub` is a submodule (a real clone of `subsrc`), and a worktree of it on
/// branch `subwork` with the submodule checked out.
fn with_submodule(f: &Fixture) -> PathBuf {
    let base = f.repo_dir.parent().unwrap();
    let src = base.join("subsrc");
    fs::create_dir_all(&src).unwrap();
    git_cli(&src, &["init", "-q", "-b", "main"]);
    write(&src.join("lib.txt"), "library\n");
    git_cli(&src, &["add", "-A"]);
    git_cli(&src, &["commit", "-q", "-m", "library"]);
    git_cli(
        &f.repo_dir,
        &["submodule", "add", "-q", src.to_str().unwrap(), "sub"],
    );
    git_cli(&f.repo_dir, &["commit", "-q", "-m", "add sub"]);
    let wt = base.join("wt-subwork");
    git_cli(
        &f.repo_dir,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "subwork",
            wt.to_str().unwrap(),
        ],
    );
    git_cli(&wt, &["submodule", "update", "-q", "--init"]);
    wt
}

#[test]
fn submodule_changes_and_commits_found_nowhere_else_make_a_worktree_dirty() {
    let f = fixture();
    let roots = f.roots();
    let wt = with_submodule(&f);
    let sub = wt.join("sub");
    let summary = |path: &Path| {
        list(&roots, None)
            .unwrap()
            .into_iter()
            .find(|w| Path::new(&w.path) == path)
            .unwrap()
    };
    let clean = summary(&wt);
    assert_eq!(
        (
            clean.changed_files,
            clean.submodule_commits,
            clean.problem.as_deref()
        ),
        (0, 0, None),
        "{clean:?}"
    );
    assert!(kinds(&removal_preview(&roots, &wt, None).unwrap()).is_empty());

    // A modified file inside the submodule, then an untracked one: the worktree is dirty, as git
    // status shows it.
    write(&sub.join("lib.txt"), "edited\n");
    assert_eq!(ours(&wt), porcelain(&wt));
    assert_eq!(summary(&wt).changed_files, 1);
    let p = removal_preview(&roots, &wt, None).unwrap();
    assert_eq!(kinds(&p), ["dirty"]);
    assert_eq!(p.changed_files, [" M sub"]);
    assert_refused(&roots, &wt, false);
    git_cli(&sub, &["checkout", "-q", "--", "lib.txt"]);
    write(&sub.join("notes.txt"), "untracked in the submodule\n");
    assert_eq!(summary(&wt).changed_files, 1);
    assert_eq!(ours(&wt).len(), porcelain(&wt).len());
    fs::remove_file(sub.join("notes.txt")).unwrap();
    assert_eq!(summary(&wt).changed_files, 0);

    // A commit made in the submodule checkout: another commit is checked out, and it exists
    // nowhere else (the submodule's git dir lives in this worktree's git dir).
    write(&sub.join("lib.txt"), "local work\n");
    git_cli(&sub, &["commit", "-q", "-am", "submodule work only here"]);
    let s = summary(&wt);
    assert_eq!((s.changed_files, s.submodule_commits), (1, 1), "{s:?}");
    assert_eq!(ours(&wt), porcelain(&wt));

    // The worktree records the new submodule commit: git status is clean, but removing the folder
    // would still lose the submodule's commit.
    git_cli(&wt, &["commit", "-q", "-am", "bump sub"]);
    assert!(porcelain(&wt).is_empty());
    let s = summary(&wt);
    assert_eq!((s.changed_files, s.submodule_commits), (0, 1), "{s:?}");
    let p = removal_preview(&roots, &wt, None).unwrap();
    assert!(kinds(&p).contains(&"submoduleCommits"), "{p:#?}");
    assert_eq!(p.submodule_commits[0].submodule, "sub");
    assert_eq!(
        p.submodule_commits[0].commits[0].summary,
        "submodule work only here"
    );
    assert!(
        p.loss_summary.contains("submodule work only here"),
        "{}",
        p.loss_summary
    );
    assert!(assert_refused(&roots, &wt, false).contains("submodule sub"));
    assert!(remove_clean(&roots, &f.repo_dir, None).unwrap().is_empty());
    assert!(sub.join("lib.txt").exists());
    // Once confirmed, it goes.
    assert!(remove(&roots, &wt, &opts(true)).unwrap().removed);
}

#[test]
fn removal_refuses_when_the_worktree_changed_since_the_preview() {
    let f = fixture();
    let roots = f.roots();
    let (wt, wt_repo) = f.worktree("racy");
    let confirmed = |token: &str| RemoveOptions {
        discard: true,
        expected: Some(token.to_owned()),
        tmux_socket: None,
    };

    // A clean worktree is shown; a file is written before the person's click lands.
    let shown = removal_preview(&roots, &wt, None).unwrap();
    write(&wt.join("late.txt"), "written after the dialog\n");
    let err = remove(&roots, &wt, &confirmed(&shown.token)).unwrap_err();
    assert!(matches!(err, WorktreeError::Changed { .. }), "{err}");
    assert_eq!(
        crate::ipc::IpcError::from(err).kind,
        crate::ipc::ErrorKind::Conflict
    );
    assert!(wt.join("late.txt").exists());

    // The dirty state is shown; then a commit is made (HEAD moves, the file list changes).
    let shown = removal_preview(&roots, &wt, None).unwrap();
    assert_eq!(kinds(&shown), ["dirty"]);
    commit_all(&wt_repo, "late commit");
    let err = remove(&roots, &wt, &confirmed(&shown.token)).unwrap_err();
    assert!(matches!(err, WorktreeError::Changed { .. }), "{err}");
    assert!(wt.join("late.txt").exists());
    assert!(git(&f.repo_dir, &["worktree", "list"]).contains("wt-racy"));
    // No archive ref was written for a refused removal.
    assert!(git(&f.repo_dir, &["for-each-ref", "refs/plandeck"]).is_empty());

    // The same file edited to other content of the same size: still a change.
    write(&wt.join("late.txt"), "edited one more time.....\n");
    let shown = removal_preview(&roots, &wt, None).unwrap();
    write(&wt.join("late.txt"), "edited one more time!!!!!\n");
    assert!(matches!(
        remove(&roots, &wt, &confirmed(&shown.token)),
        Err(WorktreeError::Changed { .. })
    ));

    // What is shown now is what goes.
    let shown = removal_preview(&roots, &wt, None).unwrap();
    assert!(
        remove(&roots, &wt, &confirmed(&shown.token))
            .unwrap()
            .removed
    );
    assert!(!wt.exists());
}

#[test]
fn commands_take_listed_ids_not_paths() {
    let f = fixture();
    let roots = f.roots();
    let (wt, _) = f.worktree("byid");
    let listed = list(&roots, None).unwrap();
    let ids: BTreeSet<&str> = listed.iter().map(|w| w.id.as_str()).collect();
    assert_eq!(ids.len(), listed.len(), "ids are distinct");
    let w = listed.iter().find(|w| Path::new(&w.path) == wt).unwrap();
    assert_eq!(resolve_id(&roots, &w.id).unwrap(), wt);
    assert_eq!(resolve_repo_id(&roots, &w.repo_id).unwrap(), f.repo_dir);
    // Ids are stable across listings.
    assert_eq!(
        list(&roots, None)
            .unwrap()
            .iter()
            .find(|x| x.id == w.id)
            .map(|x| x.path.clone()),
        Some(w.path.clone())
    );

    // A path, or any folder, is not an id.
    let outside = f.home.join("elsewhere");
    fs::create_dir_all(&outside).unwrap();
    for bad in [wt.to_str().unwrap(), outside.to_str().unwrap(), "", "../x"] {
        let err = resolve_id(&roots, bad).unwrap_err();
        assert!(matches!(err, WorktreeError::UnknownId { .. }), "{err}");
        assert_eq!(
            crate::ipc::IpcError::from(err).kind,
            crate::ipc::ErrorKind::NotFound
        );
        assert!(resolve_repo_id(&roots, bad).is_err());
    }
    // Once removed, its id no longer resolves.
    assert!(remove(&roots, &wt, &opts(false)).unwrap().removed);
    assert!(matches!(
        resolve_id(&roots, &w.id),
        Err(WorktreeError::UnknownId { .. })
    ));
}

#[test]
fn a_pane_that_is_no_longer_the_agents_is_never_ended() {
    let f = fixture();
    let roots = f.roots();
    let (wt, _) = f.worktree("swap");
    let tmux = Tmux::server(f.home.parent().unwrap());
    let (pane, pid) = tmux.session("agent", &wt, "exec sleep 100000");
    register(
        &roots,
        pid,
        "agent-session-2",
        &wt,
        &format!("agent:@0.{pane}"),
        &proc_start(pid),
    );
    let shown = removal_preview(&roots, &wt, Some(&tmux.socket)).unwrap();
    assert_eq!(shown.panes_to_end.len(), 1, "{shown:#?}");
    // The agent exits and the person starts a shell in the same pane before confirming.
    tmux.run(&["respawn-pane", "-k", "-t", &pane, "exec sh"]);
    wait_until("the agent to exit", || !alive(pid));
    let opts = RemoveOptions {
        discard: true,
        expected: Some(shown.token.clone()),
        tmux_socket: Some(tmux.socket.clone()),
    };
    let err = remove(&roots, &wt, &opts).unwrap_err();
    assert!(matches!(err, WorktreeError::Changed { .. }), "{err}");
    assert!(tmux.panes().contains(&pane) && wt.exists());
    // Looked at again, the pane is the person's: removal leaves it open.
    let now = removal_preview(&roots, &wt, Some(&tmux.socket)).unwrap();
    assert!(now.panes_to_end.is_empty(), "{now:#?}");
    assert_eq!(now.person_panes.len(), 1);
    let opts = RemoveOptions {
        expected: Some(now.token.clone()),
        ..opts
    };
    let out = remove(&roots, &wt, &opts).unwrap();
    assert!(out.removed && out.panes_ended.is_empty());
    assert!(tmux.panes().contains(&pane));
}

#[test]
fn remove_all_clean_leaves_a_worktree_with_the_persons_pane_in_it() {
    let f = fixture();
    let roots = f.roots();
    let (occupied, _) = f.worktree("occupied");
    let (free, _) = f.worktree("free");
    let tmux = Tmux::server(f.home.parent().unwrap());
    let (pane, pid) = tmux.session("person", &occupied, "exec sh");

    let shown = clean_removals(&roots, &f.repo_dir, Some(&tmux.socket)).unwrap();
    let paths: Vec<&str> = shown.iter().map(|p| p.worktree.path.as_str()).collect();
    assert_eq!(paths, [free.to_str().unwrap()]);
    let removed = remove_clean(&roots, &f.repo_dir, Some(&tmux.socket)).unwrap();
    assert_eq!(removed, [free.to_string_lossy().to_string()]);
    assert!(occupied.exists() && !free.exists());
    assert!(tmux.panes().contains(&pane) && alive(pid));
}

/// Waits for a size report for `id` on `rx`.
fn size_for(rx: &std::sync::mpsc::Receiver<WorktreeSize>, id: &str) -> Option<u64> {
    testkit::wait_for(&format!("a size report for {id}"), || {
        rx.try_iter().find(|s| s.id == id).map(|s| s.size_bytes)
    })
}

#[test]
fn listing_never_walks_a_folder_for_its_size() {
    use inotify::{Inotify, WatchMask};
    let f = fixture();
    let (wt, _) = f.worktree("built");
    write(&wt.join(".gitignore"), "target/\n");
    write(&wt.join("target/debug/deep/out.o"), "object\n");
    // A folder only a size walk opens: git status skips an ignored folder without reading it.
    let mut opened = Inotify::init().unwrap();
    opened
        .watches()
        .add(wt.join("target/debug/deep"), WatchMask::OPEN)
        .unwrap();
    let mut buf = vec![0u8; 4096];
    let opens = |ino: &mut Inotify, buf: &mut [u8]| match ino.read_events(buf) {
        Ok(events) => events.count(),
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => 0,
        Err(e) => panic!("{e}"),
    };

    let listed = list(&f.roots(), None).unwrap();
    let hints = crate::sessions::worktree_hints(&f.roots());
    let refreshed = refresh(&f.roots(), &hints, &[listed[0].id.clone()]).unwrap();
    assert_eq!(
        opens(&mut opened, &mut buf),
        0,
        "the listing opened target/"
    );
    assert!(listed.iter().all(|w| w.size_bytes.is_none()), "{listed:#?}");
    assert_eq!(refreshed.len(), 1);
    assert_eq!(refreshed[0].size_bytes, None);
    let built = listed.iter().find(|w| Path::new(&w.path) == wt).unwrap();
    assert_eq!(built.changed_files, 1, "only .gitignore: {built:#?}");

    // The probe sees a walk when there is one (asked for: --sizes).
    let sized = list_with(&f.roots(), None, &[], ListOptions { sizes: true }).unwrap();
    assert!(
        opens(&mut opened, &mut buf) > 0,
        "the size walk was not seen"
    );
    assert!(sized.iter().all(|w| w.size_bytes.is_some()));
}

#[test]
fn sizes_arrive_later_and_are_forgotten_when_the_worktree_changes() {
    let f = fixture();
    let (wt, _) = f.worktree("sized");
    let mut listed = list(&f.roots(), None).unwrap();
    let id = listed
        .iter()
        .find(|w| Path::new(&w.path) == wt)
        .unwrap()
        .id
        .clone();
    let sizes = Sizes::new();
    // Nothing known yet: every worktree is to be measured, and the listing keeps its none.
    let missing = sizes.fill(&mut listed);
    assert_eq!(missing.len(), listed.len());
    assert!(listed.iter().all(|w| w.size_bytes.is_none()));

    let (tx, rx) = std::sync::mpsc::channel();
    let report = move |s: WorktreeSize| {
        let _ = tx.send(s);
    };
    sizes.measure(missing, report.clone());
    let first = size_for(&rx, &id).expect("a size");
    assert!(first > 0);
    assert_eq!(sizes.known(&id), Some(Some(first)));
    // Known now: filled in at once, and a new request reports it without a walk.
    let mut again = list(&f.roots(), None).unwrap();
    let missing = sizes.fill(&mut again);
    let filled = again.iter().find(|w| w.id == id).unwrap();
    assert_eq!(filled.size_bytes, Some(first));
    assert!(missing.iter().all(|(m, _)| *m != id));

    // The worktree changes (the watcher says so): the size is forgotten and measured again.
    write(&wt.join("big.bin"), &"x".repeat(1 << 20));
    sizes.invalidate(&id);
    assert_eq!(sizes.known(&id), None);
    let mut third = list(&f.roots(), None).unwrap();
    let missing = sizes.fill(&mut third);
    assert!(third
        .iter()
        .find(|w| w.id == id)
        .unwrap()
        .size_bytes
        .is_none());
    assert!(missing.iter().any(|(m, _)| *m == id));
    sizes.measure(missing, report);
    let second = size_for(&rx, &id).expect("a size");
    assert!(second >= first + (1 << 20), "{first} then {second}");
    assert_eq!(sizes.known(&id), Some(Some(second)));
}

#[test]
fn details_list_the_files_in_words_and_the_unmerged_commits_the_counts_stand_for() {
    let f = fixture();
    let roots = f.roots();
    let (work, work_repo) = f.worktree("work");
    write(&work.join("greet.rs"), "pub fn greet() {}\n");
    let tip = commit_all(&work_repo, "add greet");
    drop(work_repo);
    write(&work.join("src/lib.rs"), "pub fn a() { changed() }\n");
    write(&work.join("notes.txt"), "todo\n");
    write(&work.join("staged.rs"), "new\n");
    git(&work, &["add", "staged.rs"]);
    fs::remove_file(work.join("greet.rs")).unwrap();

    let d = details(&roots, &work).unwrap();
    let files: Vec<(&str, FileStatus)> = d
        .files
        .iter()
        .map(|l| (l.path.as_str(), l.status))
        .collect();
    assert_eq!(
        files,
        [
            ("greet.rs", FileStatus::Deleted),
            ("notes.txt", FileStatus::Untracked),
            ("src/lib.rs", FileStatus::Modified),
            ("staged.rs", FileStatus::Added),
        ]
    );
    assert_eq!(d.files_total, 4);
    assert_eq!(d.commits_total, 1);
    assert_eq!(d.commits[0].id, tip.to_string());
    assert_eq!(d.commits[0].summary, "add greet");
    assert_eq!(d.problem, None);
    // The listing's counts are what the details list.
    let listed = list(&roots, None).unwrap();
    let row = listed
        .iter()
        .find(|w| w.path == work.to_str().unwrap())
        .unwrap();
    assert_eq!((row.changed_files, row.unmerged_commits), (4, Some(1)));

    // The removal dialog says it in words too, never in porcelain codes.
    let text = removal_preview(&roots, &work, None)
        .unwrap()
        .confirmation_text();
    for line in [
        "deleted: greet.rs",
        "untracked: notes.txt",
        "modified: src/lib.rs",
        "added: staged.rs",
    ] {
        assert!(text.contains(line), "{line:?} missing from {text}");
    }
    for code in [
        " D greet.rs",
        "?? notes.txt",
        " M src/lib.rs",
        "A  staged.rs",
    ] {
        assert!(!text.contains(code), "{code:?} in {text}");
    }
    // Each fact once (the counts are the lists below), in words: "archive ref" is nobody's word
    // (issue 34); the ref saved is named once, as what restores the commits.
    assert!(!text.contains("would be deleted"), "{text}");
    assert!(!text.contains("would leave the branch"), "{text}");
    assert!(!text.contains("archive ref"), "{text}");
    assert_eq!(text.matches("refs/plandeck/archive/").count(), 1, "{text}");

    // A path that is no worktree has no details.
    assert!(matches!(
        details(&roots, &f.home),
        Err(WorktreeError::NotAWorktree { .. })
    ));
}

#[test]
fn porcelain_codes_in_words() {
    for (x, y, word) in [
        (' ', 'M', "modified"),
        ('M', 'M', "modified"),
        ('T', ' ', "modified"),
        ('A', ' ', "added"),
        ('A', 'M', "added"),
        (' ', 'D', "deleted"),
        ('D', ' ', "deleted"),
        ('?', '?', "untracked"),
        ('R', ' ', "renamed"),
        ('C', ' ', "copied"),
        ('U', 'U', "in conflict"),
        ('A', 'A', "in conflict"),
    ] {
        assert_eq!(FileStatus::of(x, y).word(), word, "{x}{y}");
    }
    let f = ChangedFile::from_line("R  old.rs -> new.rs").unwrap();
    assert_eq!(
        (f.path.as_str(), f.status()),
        ("old.rs -> new.rs", FileStatus::Renamed)
    );
    assert_eq!(ChangedFile::from_line("?"), None);
}

/// A pane's folder is data, whatever it holds: a folder named with a line break and tabs
/// (`x⏎%7⇥<pid>⇥person⇥claude⇥<worktree>`) made tmux's pane list hold a second, forged line, and
/// the removal of that worktree ended the person's pane `%7` in another folder as "the agent's".
#[test]
fn a_folder_name_cannot_forge_a_pane_in_the_list() {
    let f = fixture();
    let roots = f.roots();
    let (wt, _) = f.worktree("agent");
    let root = f.home.parent().unwrap();
    let tmux = Tmux::server(root);
    // The person's shell, in a folder of theirs.
    let elsewhere = root.join("elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();
    let (person_pane, person_pid) = tmux.session("person", &elsewhere, "exec sleep 100002");
    // A live process a (forged) registry entry names as an agent in the person's pane.
    let mut agent = std::process::Command::new("sleep")
        .arg("100003")
        .spawn()
        .unwrap();
    let agent_pid = agent.id();
    register(
        &roots,
        agent_pid,
        "forged-session",
        &wt,
        &format!("person:@0.{person_pane}"),
        &proc_start(agent_pid),
    );
    // A pane whose folder's name forges a line of the list.
    let forged = root.join(format!(
        "x\n{person_pane}\t{agent_pid}\tperson\tclaude\t{}",
        wt.display()
    ));
    fs::create_dir_all(&forged).unwrap();
    let _ = tmux.session("evil", &forged, "exec sleep 100004");

    let p = removal_preview(&roots, &wt, Some(&tmux.socket)).unwrap();
    assert!(p.panes_to_end.is_empty(), "{p:#?}");
    assert!(p.person_panes.is_empty(), "{p:#?}");
    let out = remove(
        &roots,
        &wt,
        &RemoveOptions {
            discard: !p.refusals.is_empty(),
            expected: Some(p.token.clone()),
            tmux_socket: Some(tmux.socket.clone()),
        },
    )
    .unwrap();
    assert!(out.panes_ended.is_empty(), "{out:?}");
    assert!(tmux.panes().contains(&person_pane) && alive(person_pid));
    // The folder that holds the line is seen for what it is: a pane in it is in it.
    let forged_panes = super::panes::panes_in(&roots, &forged, Some(&tmux.socket)).unwrap();
    assert_eq!(forged_panes.person.len(), 1, "{:?}", forged_panes.person);
    let _ = agent.kill();
    let _ = agent.wait();
}

/// A hosted ACP session's record (`<data>/acp/sessions/<id>.json`) as its host writes it: of
/// `agent`, in `cwd`, its agent's own id of the session `session_id`, its host this process.
fn hosted_record(roots: &Roots, id: &str, agent: &str, cwd: &Path, session_id: &str) {
    let now = "2026-11-29T02:50:00Z".to_owned();
    let hosted = crate::acp::host::Hosted {
        session_id: Some(session_id.to_owned()),
        state: "idle".into(),
        mode: Some("plan".into()),
        modes: vec!["default".into(), "plan".into()],
        can_load: Some(true),
        ..crate::acp::host::Hosted::new(
            id.to_owned(),
            agent.to_owned(),
            agent.to_owned(),
            cwd.to_string_lossy().into_owned(),
            std::process::id(),
            now,
        )
    };
    let dir = roots.data.join("acp").join("sessions");
    fs::create_dir_all(&dir).unwrap();
    fs::write(
        dir.join(format!("{id}.json")),
        serde_json::to_vec(&hosted).unwrap(),
    )
    .unwrap();
}

/// Issue 36: the Claude Code claude-agent-acp runs writes its transcript under the ACP session's
/// id, and that transcript is folded into the ACP session's card (`acp::host::fold_hosted`). The
/// worktree it works in names the ACP session (the card's id, not the folded transcript's, which
/// no list shows any more) and that session's plan (from its transcript), so "Verify its plan"
/// stays; an ACP session whose agent keeps no transcript here (codex-acp) names its worktree too,
/// and a running one holds its worktree against removal like any running session.
#[test]
fn a_worktree_names_the_acp_session_hosted_in_it_and_its_plan() {
    const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures");
    let f = fixture();
    let roots = f.roots();
    let (claude_wt, _) = f.worktree("claude-acp");
    let (codex_wt, _) = f.worktree("codex-acp");
    // The transcript of claude-agent-acp's Claude Code, working in the first worktree.
    let sid = "616b9e27-ce4d-4e5c-aa43-9d801b0ce4b1";
    let claude = f.home.join(".claude");
    let fixture = fs::read_to_string(format!(
        "{FIXTURES}/claude-code-2.1.328/projects/-home-dev-work-api/{sid}.jsonl"
    ))
    .unwrap()
    .replace("/home/dev/.claude", &claude.to_string_lossy())
    .replace("/home/dev/work/api", &claude_wt.to_string_lossy());
    let folder = claude_wt.to_string_lossy().replace('/', "-");
    write(
        &claude
            .join("projects")
            .join(folder)
            .join(format!("{sid}.jsonl")),
        &fixture,
    );
    let plan = claude.join("plans/plan-pagination-four-wiggly-kernighan.md");
    write(
        &plan,
        &fs::read_to_string(format!(
            "{FIXTURES}/claude-code-2.1.328/plans/plan-pagination-four-wiggly-kernighan.md"
        ))
        .unwrap(),
    );
    let row = |list: &[WorktreeSummary], wt: &Path| {
        let w = list.iter().find(|w| Path::new(&w.path) == wt).unwrap();
        (w.session_id.clone(), w.plan_path.clone())
    };
    let plan_text = Some(plan.to_string_lossy().into_owned());

    // Before it is hosted: the transcript's own session, and its plan.
    let before = list(&roots, None).unwrap();
    assert_eq!(
        row(&before, &claude_wt),
        (Some(sid.to_owned()), plan_text.clone())
    );
    assert_eq!(row(&before, &codex_wt), (None, None));

    hosted_record(
        &roots,
        "acps-00000000000000c1",
        "claude-acp",
        &claude_wt,
        sid,
    );
    hosted_record(
        &roots,
        "acps-00000000000000c2",
        "codex-acp",
        &codex_wt,
        "019ad7c0-codex-thread",
    );
    let hints = crate::sessions::worktree_hints(&roots);
    for listed in [
        list(&roots, None).unwrap(),
        list_with(&roots, None, &hints, ListOptions::default()).unwrap(),
        refresh(
            &roots,
            &hints,
            &before.iter().map(|w| w.id.clone()).collect::<Vec<_>>(),
        )
        .unwrap(),
    ] {
        assert_eq!(
            row(&listed, &claude_wt),
            (Some("acps-00000000000000c1".to_owned()), plan_text.clone()),
            "{listed:#?}"
        );
        assert_eq!(
            row(&listed, &codex_wt),
            (Some("acps-00000000000000c2".to_owned()), None),
            "{listed:#?}"
        );
    }
    // It runs (its host is this process): removing its worktree waits for it to be stopped.
    let p = removal_preview(&roots, &codex_wt, None).unwrap();
    assert!(
        p.refusals.iter().any(|r| matches!(
            r,
            Refusal::RunningSession { session_id } if session_id == "acps-00000000000000c2"
        )),
        "{p:#?}"
    );
    let clean = clean_removals(&roots, &f.repo_dir, None).unwrap();
    assert!(clean.is_empty(), "{clean:#?}");
}
