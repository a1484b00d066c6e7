//! Submodules of a worktree: what removing the folder would lose in them.
//!
//! - A submodule with changes (modified or untracked files inside it, or a checked-out commit
//!   other than the one the worktree records) is a changed path of the worktree, " M sub", as
//!   `git status --porcelain` shows it (`status::submodule_changed`, part of the status scan).
//! - Commits in a submodule's checkout that exist nowhere else: reachable from its HEAD, branches
//!   or tags but from none of its remote-tracking refs, when its git dir goes with the worktree (it
//!   lives in the folder or in the worktree's own git dir), and not in the repository's shared
//!   module of the same submodule ([`lost_commits`]).

use std::path::Path;

use git2::{Repository, Sort};

use super::{canonical, CommitLine, SubmoduleCommits, WorktreeError};

const COMMITS_SHOWN: usize = 100;

/// The commits of each submodule (`submodules`: their paths, as the index records them) of the
/// worktree at `workdir` that removing it would lose.
pub(crate) fn lost_commits(
    workdir: &Path,
    submodules: &[String],
) -> Result<Vec<SubmoduleCommits>, WorktreeError> {
    if submodules.is_empty() {
        return Ok(Vec::new());
    }
    let repo = Repository::open(workdir).map_err(WorktreeError::git(workdir))?;
    let private_git_dir = canonical(repo.path());
    let top = canonical(workdir);
    let mut out = Vec::new();
    for rel in submodules {
        let rel = rel.clone();
        let dir = workdir.join(&rel);
        let Ok(sub) = Repository::open(&dir) else {
            continue;
        };
        let sub_git = canonical(sub.path());
        // A git dir shared with other worktrees keeps its commits after this one is gone.
        if !sub_git.starts_with(&top) && !sub_git.starts_with(&private_git_dir) {
            continue;
        }
        let shared = Repository::open(canonical(repo.commondir()).join("modules").join(&rel))
            .ok()
            .filter(|s| canonical(s.path()) != sub_git);
        let (count, commits) =
            only_here(&sub, shared.as_ref()).map_err(WorktreeError::git(&dir))?;
        if count > 0 {
            out.push(SubmoduleCommits {
                submodule: rel,
                count,
                commits,
            });
        }
    }
    Ok(out)
}

/// Commits reachable from HEAD, branches and tags of `sub` but from none of its remote-tracking
/// refs, and absent from `shared`: (count, the first ones newest first).
fn only_here(
    sub: &Repository,
    shared: Option<&Repository>,
) -> Result<(u32, Vec<CommitLine>), git2::Error> {
    let mut walk = sub.revwalk()?;
    walk.set_sorting(Sort::TOPOLOGICAL | Sort::TIME)?;
    let mut any = false;
    if let Some(head) = sub.head().ok().and_then(|h| h.target()) {
        walk.push(head)?;
        any = true;
    }
    for r in sub.references()?.flatten() {
        let Some(name) = r.name() else { continue };
        let Some(id) = r.peel_to_commit().ok().map(|c| c.id()) else {
            continue;
        };
        if name.starts_with("refs/remotes/") {
            walk.hide(id)?;
        } else if name.starts_with("refs/heads/") || name.starts_with("refs/tags/") {
            walk.push(id)?;
            any = true;
        }
    }
    if !any {
        return Ok((0, Vec::new()));
    }
    let shared_odb = shared.and_then(|s| s.odb().ok());
    let mut count = 0u32;
    let mut lines = Vec::new();
    for id in walk {
        let id = id?;
        if shared_odb.as_ref().is_some_and(|o| o.exists(id)) {
            continue;
        }
        count += 1;
        if lines.len() < COMMITS_SHOWN {
            lines.push(CommitLine::of(sub, id));
        }
    }
    Ok((count, lines))
}
