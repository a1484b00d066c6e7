//! Listing: the repositories seen in sessions (plus `extra_repos`), every worktree of each (like
//! `git worktree list`), each summarised with its counts. A repository that cannot be read becomes
//! an entry with a `problem`, never a failure of the whole list.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use git2::{Repository, WorktreeLockStatus};
use rayon::prelude::*;

use super::{
    canonical, path_text, repo_id, status, submodules, unmerged, worktree_id, WorktreeError,
    WorktreeSummary,
};
use crate::config::Roots;
use crate::sessions::{worktree_hints, WorktreeHint};

/// A worktree as git records it, before anything is counted.
#[derive(Debug, Clone)]
pub(crate) struct Found {
    /// The repository's display folder: the main worktree (or the common dir when bare).
    pub repo: PathBuf,
    pub common_dir: PathBuf,
    /// The folder as git records it.
    pub path: PathBuf,
    /// The linked worktree's name under `<common>/worktrees/`; none for the main worktree.
    pub name: Option<String>,
    pub is_main: bool,
    pub locked: Option<Option<String>>,
    pub prunable: bool,
}

/// The sessions that work in a worktree, for its summary and its refusals.
#[derive(Debug, Clone, Default)]
pub(crate) struct Sessions {
    pub session_id: Option<String>,
    pub running: Option<String>,
    pub original_head: Option<String>,
    /// The plan of the session named by `session_id`, where it has one.
    pub plan_path: Option<PathBuf>,
}

/// What a listing measures besides the counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ListOptions {
    /// Walk each folder for its size (slow on a worktree with a `target/`; the window measures
    /// sizes in the background instead, see [`super::Sizes`]).
    pub sizes: bool,
}

/// Every worktree of every repository seen in sessions plus `roots.extra_repos` (or only of
/// `repo`), each summarised, without sizes. Unreadable repositories are entries with a `problem`.
/// Reads the sessions once for their hints; with a session index at hand, use [`list_with`].
pub fn list(roots: &Roots, repo: Option<&Path>) -> Result<Vec<WorktreeSummary>, WorktreeError> {
    list_with(roots, repo, &worktree_hints(roots), ListOptions::default())
}

/// The sessions' worktree hints `hints` with the hosted ACP sessions folded in
/// ([`crate::acp::host::fold_hints`]): a worktree an ACP-hosted session works in names that
/// session (its card's id) and its plan.
pub(crate) fn with_hosted(roots: &Roots, hints: &[WorktreeHint]) -> Vec<WorktreeHint> {
    let mut hints = hints.to_vec();
    crate::acp::host::fold_hints(roots, &mut hints);
    hints
}

/// Every session's worktree hints, the hosted ACP sessions' folded in ([`with_hosted`]).
pub(crate) fn hints(roots: &Roots) -> Vec<WorktreeHint> {
    with_hosted(roots, &worktree_hints(roots))
}

/// [`list`], with the sessions' worktree hints from the caller (the live session index's
/// [`crate::sessions::SessionIndex::worktree_hints`]) and sizes when asked for.
pub fn list_with(
    roots: &Roots,
    repo: Option<&Path>,
    hints: &[WorktreeHint],
    opts: ListOptions,
) -> Result<Vec<WorktreeSummary>, WorktreeError> {
    let hints = &with_hosted(roots, hints);
    let kept = super::keep::kept_set(roots)?;
    let (found, mut problems) = match repo {
        Some(repo) => {
            let common = common_dir_of(repo)?;
            (worktrees_of(&common)?, Vec::new())
        }
        None => find_all(roots, hints),
    };
    let sessions = assign_sessions(&found, hints);
    let mut out: Vec<WorktreeSummary> = found
        .par_iter()
        .zip(sessions.par_iter())
        .map(|(f, s)| summarize(f, s, &kept, opts.sizes))
        .collect();
    out.append(&mut problems);
    Ok(out)
}

/// The listed worktrees whose ids are in `ids`, each summarised again (no sizes): what a change
/// the watcher reported needs re-reading, and nothing else. Ids no longer listed are left out.
pub fn refresh<S: AsRef<str>>(
    roots: &Roots,
    hints: &[WorktreeHint],
    ids: &[S],
) -> Result<Vec<WorktreeSummary>, WorktreeError> {
    let hints = &with_hosted(roots, hints);
    let kept = super::keep::kept_set(roots)?;
    let (found, _) = find_all(roots, hints);
    let sessions = assign_sessions(&found, hints);
    let wanted: HashSet<&str> = ids.iter().map(AsRef::as_ref).collect();
    let picked: Vec<(&Found, &Sessions)> = found
        .iter()
        .zip(sessions.iter())
        .filter(|(f, _)| wanted.contains(worktree_id(&f.path, &f.common_dir).as_str()))
        .collect();
    Ok(picked
        .par_iter()
        .map(|(f, s)| summarize(f, s, &kept, false))
        .collect())
}

/// Keep the worktree at `path`: leave it on disk and remember the choice. `path` must be a
/// worktree git lists (not the main one: it is never removed anyway, so keeping it means nothing).
pub fn keep(roots: &Roots, path: &Path) -> Result<(), WorktreeError> {
    let common = common_dir_of(path)?;
    let me = canonical(path);
    let listed = worktrees_of(&common)?
        .into_iter()
        .any(|f| canonical(&f.path) == me);
    if !listed {
        return Err(WorktreeError::NotAWorktree {
            path: path.to_owned(),
            why: "git does not list it as a worktree".into(),
        });
    }
    super::keep::remember(roots, me)
}

/// The git common dir of the repository holding `path` (a worktree of it, or any folder inside).
pub(crate) fn common_dir_of(path: &Path) -> Result<PathBuf, WorktreeError> {
    let repo = Repository::discover(path).map_err(|source| WorktreeError::NotARepo {
        path: path.to_owned(),
        source,
    })?;
    Ok(canonical(repo.commondir()))
}

/// Every repository's worktrees, and problem entries for repositories that cannot be read.
pub(crate) fn find_all(
    roots: &Roots,
    hints: &[WorktreeHint],
) -> (Vec<Found>, Vec<WorktreeSummary>) {
    let mut commons: BTreeMap<PathBuf, ()> = BTreeMap::new();
    let mut problems = Vec::new();
    // Many sessions share a folder: each folder is looked up once.
    let mut seen: HashSet<&Path> = HashSet::new();
    for hint in hints {
        let at = hint
            .worktree_path
            .as_deref()
            .filter(|p| p.exists())
            .unwrap_or(&hint.cwd);
        if !seen.insert(at) {
            continue;
        }
        // A session folder that is not (or no longer) a repository is ordinary: skip it quietly.
        if let Ok(common) = common_dir_of(at) {
            commons.insert(common, ());
        }
    }
    for extra in &roots.extra_repos {
        match common_dir_of(extra) {
            Ok(common) => {
                commons.insert(common, ());
            }
            Err(e) => problems.push(problem_entry(extra, &e.to_string())),
        }
    }
    let mut found = Vec::new();
    for common in commons.keys() {
        match worktrees_of(common) {
            Ok(mut f) => found.append(&mut f),
            Err(e) => problems.push(problem_entry(common, &e.to_string())),
        }
    }
    (found, problems)
}

fn problem_entry(path: &Path, problem: &str) -> WorktreeSummary {
    WorktreeSummary {
        id: worktree_id(path, path),
        repo_id: repo_id(path),
        repo: path_text(path),
        path: path_text(path),
        branch: None,
        head: None,
        base: None,
        base_name: None,
        changed_files: 0,
        unmerged_commits: None,
        locked: false,
        lock_reason: None,
        is_main: false,
        prunable: false,
        submodule_commits: 0,
        size_bytes: None,
        session_id: None,
        plan_path: None,
        kept: false,
        problem: Some(problem.to_owned()),
        machine: None,
    }
}

/// The main worktree and every linked one of the repository whose common dir is `common`.
pub(crate) fn worktrees_of(common: &Path) -> Result<Vec<Found>, WorktreeError> {
    let repo = Repository::open(common).map_err(|source| WorktreeError::NotARepo {
        path: common.to_owned(),
        source,
    })?;
    let main = repo.workdir().map(canonical);
    let display = main.clone().unwrap_or_else(|| common.to_owned());
    let mut out = Vec::new();
    if let Some(main) = main {
        out.push(Found {
            repo: display.clone(),
            common_dir: common.to_owned(),
            path: main,
            name: None,
            is_main: true,
            locked: None,
            prunable: false,
        });
    }
    let names = repo.worktrees().map_err(WorktreeError::git(common))?;
    for name in names.iter().flatten() {
        let wt = match repo.find_worktree(name) {
            Ok(wt) => wt,
            Err(e) => {
                tracing::warn!(repo = %common.display(), name, "unreadable worktree metadata: {e}");
                continue;
            }
        };
        let locked = match wt.is_locked() {
            Ok(WorktreeLockStatus::Locked(reason)) => Some(reason),
            _ => None,
        };
        let path = wt.path();
        // Prunable means the folder is gone, nothing else: a folder that exists but that git
        // cannot validate (a broken `.git` link) is checked, and refused when it cannot be.
        let prunable = std::fs::symlink_metadata(path).is_err();
        out.push(Found {
            repo: display.clone(),
            common_dir: common.to_owned(),
            // Not canonicalised: a worktree folder replaced by a symlink must stay visible as such.
            path: if path.is_absolute() {
                path.components().collect()
            } else {
                common.join(path)
            },
            name: Some(name.to_owned()),
            is_main: false,
            locked,
            prunable,
        });
    }
    Ok(out)
}

/// The sessions working in each of `all` (same order): a hint whose `worktree_path` is the worktree,
/// or whose cwd is inside it and not inside a deeper worktree of the list.
pub(crate) fn assign_sessions(all: &[Found], hints: &[WorktreeHint]) -> Vec<Sessions> {
    let paths: Vec<PathBuf> = all.iter().map(|w| canonical(&w.path)).collect();
    let mut out = vec![Sessions::default(); all.len()];
    for hint in hints {
        let at = canonical(hint.worktree_path.as_deref().unwrap_or(&hint.cwd));
        let best = (0..paths.len())
            .filter(|&i| at.starts_with(&paths[i]))
            .max_by_key(|&i| paths[i].as_os_str().len());
        let Some(i) = best else { continue };
        let s = &mut out[i];
        if hint.worktree_path.is_some() && hint.original_head_commit.is_some() {
            s.original_head = hint.original_head_commit.clone();
        }
        if hint.running || s.running.is_none() {
            s.session_id = Some(hint.session_id.clone());
            s.plan_path = hint.plan_path.clone();
        }
        if hint.running {
            s.running = Some(hint.session_id.clone());
        }
    }
    out
}

/// Opens the worktree at `f` and checks that git's links hold: its `.git` leads to this
/// worktree's own git dir (for the main worktree, the common dir). The error says plainly why not.
pub(crate) fn open_validated(f: &Found) -> Result<Repository, String> {
    let repo = Repository::open(&f.path)
        .map_err(|e| format!("git cannot open the folder: {}", e.message()))?;
    let expected = match &f.name {
        Some(name) => canonical(&f.common_dir.join("worktrees").join(name)),
        None => canonical(&f.common_dir),
    };
    if canonical(repo.path()) != expected {
        return Err(format!(
            "its .git leads to {}, not to this worktree's git dir {}",
            repo.path().display(),
            expected.display()
        ));
    }
    if repo.workdir().map(canonical) != Some(canonical(&f.path)) {
        return Err("git does not take the folder for this worktree's files".to_owned());
    }
    Ok(repo)
}

/// The worktree path whose id is `id`, from a fresh listing (what the window passes instead of a
/// path). An id not listed now is refused.
pub fn resolve_id(roots: &Roots, id: &str) -> Result<PathBuf, WorktreeError> {
    let (found, _) = find_all(roots, &hints(roots));
    found
        .into_iter()
        .find(|f| worktree_id(&f.path, &f.common_dir) == id)
        .map(|f| f.path)
        .ok_or_else(|| WorktreeError::UnknownId { id: id.to_owned() })
}

/// The repository folder whose id is `id`, from a fresh listing.
pub fn resolve_repo_id(roots: &Roots, id: &str) -> Result<PathBuf, WorktreeError> {
    let (found, _) = find_all(roots, &hints(roots));
    found
        .into_iter()
        .find(|f| repo_id(&f.common_dir) == id)
        .map(|f| f.repo)
        .ok_or_else(|| WorktreeError::UnknownId { id: id.to_owned() })
}

/// Counts everything about one worktree. Failures become the `problem`.
pub(crate) fn summarize(
    f: &Found,
    sessions: &Sessions,
    kept: &HashSet<PathBuf>,
    with_size: bool,
) -> WorktreeSummary {
    summarize_in_full(f, sessions, kept, with_size).summary
}

/// A worktree's summary with the changed files and submodule commits it was counted from (each
/// none when it could not be read: the summary's `problem` then says why).
pub(crate) struct Counted {
    pub summary: WorktreeSummary,
    pub changed: Option<status::ChangedFiles>,
    pub submodules: Option<Vec<super::SubmoduleCommits>>,
}

/// [`summarize`], keeping what was read for the preview.
pub(crate) fn summarize_in_full(
    f: &Found,
    sessions: &Sessions,
    kept: &HashSet<PathBuf>,
    with_size: bool,
) -> Counted {
    let mut counted = Counted {
        summary: problem_entry(&f.path, ""),
        changed: None,
        submodules: None,
    };
    let s = &mut counted.summary;
    s.problem = None;
    s.problem = None;
    s.id = worktree_id(&f.path, &f.common_dir);
    s.repo_id = repo_id(&f.common_dir);
    s.repo = path_text(&f.repo);
    s.is_main = f.is_main;
    s.locked = f.locked.is_some();
    s.lock_reason = f.locked.clone().flatten().filter(|r| !r.is_empty());
    s.prunable = f.prunable;
    s.session_id = sessions.session_id.clone();
    s.plan_path = sessions.plan_path.as_deref().map(path_text);
    s.kept = kept.contains(&canonical(&f.path));
    if f.prunable {
        s.problem =
            Some("the folder is gone; git still records the worktree (prunable)".to_owned());
        return counted;
    }
    let repo = match open_validated(f) {
        Ok(r) => r,
        Err(why) => {
            s.problem = Some(why);
            return counted;
        }
    };
    let head = repo.head().ok();
    s.branch = head
        .as_ref()
        .filter(|h| h.is_branch())
        .and_then(|h| h.shorthand().map(str::to_owned));
    if s.branch.is_none() {
        // An unborn branch has no HEAD commit but still has a name.
        if let Ok(r) = repo.find_reference("HEAD") {
            s.branch = r
                .symbolic_target()
                .and_then(|t| t.strip_prefix("refs/heads/"))
                .map(str::to_owned);
        }
    }
    let head_id = head.as_ref().and_then(|h| h.target());
    s.head = head_id.map(|id| id.to_string());
    if let Some(base) = unmerged::resolve_base(
        &repo,
        s.branch.as_deref(),
        sessions.original_head.as_deref(),
    ) {
        s.base = Some(base.id.to_string());
        s.base_name = Some(base.name);
        s.unmerged_commits = match head_id {
            Some(head) => match unmerged::count_unmerged(&repo, head, base.id) {
                Ok(n) => Some(n),
                Err(e) => {
                    s.problem = Some(format!("cannot count unmerged commits: {}", e.message()));
                    None
                }
            },
            None => Some(0),
        };
    }
    match status::changed_files(&f.path) {
        Ok(c) => {
            s.changed_files = c.count();
            match submodules::lost_commits(&f.path, &c.submodules) {
                Ok(lost) => {
                    s.submodule_commits = lost.iter().map(|l| l.count).sum();
                    counted.submodules = Some(lost);
                }
                Err(e) => s.problem = Some(format!("cannot read its submodules: {e}")),
            }
            counted.changed = Some(c);
        }
        Err(e) => s.problem = Some(format!("cannot read changed files: {e}")),
    }
    if with_size {
        counted.summary.size_bytes = super::sizes::dir_size(&f.path);
    }
    counted
}
