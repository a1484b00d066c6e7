//! The base of a worktree and its unmerged commits (on HEAD, not on the base).
//!
//! The base, first found wins: the `originalHeadCommit` a Claude Code transcript recorded for this
//! worktree; the branch's upstream; the branch it was created from (its reflog's first entry says
//! "branch: Created from X"); the repository's default branch (`origin/HEAD`, else `main`, else
//! `master`) when that is not the worktree's own branch. Otherwise unknown, and removal fails closed.

use git2::{Oid, Repository, Sort};

use super::CommitLine;

/// What unmerged commits are counted against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Base {
    pub id: Oid,
    /// "originalHeadCommit", "origin/feature", "main"…
    pub name: String,
}

/// The base of a worktree on `branch` (none when detached), given the `originalHeadCommit` a
/// transcript recorded for it.
pub fn resolve_base(
    repo: &Repository,
    branch: Option<&str>,
    original_head: Option<&str>,
) -> Option<Base> {
    let commit = |id: Oid| repo.find_commit(id).ok().map(|c| c.id());
    if let Some(id) = original_head
        .and_then(|s| Oid::from_str(s.trim()).ok())
        .and_then(commit)
    {
        return Some(Base {
            id,
            name: "originalHeadCommit".to_owned(),
        });
    }
    if let Some(branch) = branch {
        if let Ok(local) = repo.find_branch(branch, git2::BranchType::Local) {
            if let Ok(up) = local.upstream() {
                if let (Some(id), Ok(Some(name))) = (up.get().target(), up.name()) {
                    return Some(Base {
                        id,
                        name: name.to_owned(),
                    });
                }
            }
        }
        if let Some(from) = created_from(repo, branch) {
            return Some(from);
        }
    }
    default_branch(repo).filter(|b| Some(b.name.as_str()) != branch)
}

/// "branch: Created from X" in the branch's oldest reflog entry, when X is another branch.
fn created_from(repo: &Repository, branch: &str) -> Option<Base> {
    let reflog = repo.reflog(&format!("refs/heads/{branch}")).ok()?;
    let oldest = reflog.get(reflog.len().checked_sub(1)?)?;
    let from = oldest
        .message()?
        .strip_prefix("branch: Created from ")?
        .trim();
    if from == "HEAD" || from == branch || from.is_empty() {
        return None;
    }
    let short = from.strip_prefix("refs/heads/").unwrap_or(from);
    let id = repo
        .resolve_reference_from_short_name(short)
        .ok()?
        .target()?;
    Some(Base {
        id,
        name: short.to_owned(),
    })
}

/// The repository's default branch: `origin/HEAD`'s target, else `main`, else `master`.
fn default_branch(repo: &Repository) -> Option<Base> {
    if let Ok(head) = repo.find_reference("refs/remotes/origin/HEAD") {
        if let Some(target) = head.symbolic_target().map(str::to_owned) {
            if let Ok(r) = repo.find_reference(&target) {
                if let Some(id) = r.target() {
                    let name = target
                        .strip_prefix("refs/remotes/")
                        .unwrap_or(&target)
                        .to_owned();
                    return Some(Base { id, name });
                }
            }
        }
    }
    ["main", "master"].iter().find_map(|name| {
        let id = repo
            .find_reference(&format!("refs/heads/{name}"))
            .ok()?
            .target()?;
        Some(Base {
            id,
            name: (*name).to_owned(),
        })
    })
}

/// How many commits are reachable from `head` and not from `base` (`git rev-list --count base..head`).
pub fn count_unmerged(repo: &Repository, head: Oid, base: Oid) -> Result<u32, git2::Error> {
    if head == base {
        return Ok(0);
    }
    let mut walk = repo.revwalk()?;
    walk.set_sorting(Sort::NONE)?;
    walk.push(head)?;
    walk.hide(base)?;
    let mut n: u32 = 0;
    for id in walk {
        id?;
        n = n.saturating_add(1);
    }
    Ok(n)
}

/// The count and the first `limit` unmerged commits, newest first.
pub fn unmerged_commits(
    repo: &Repository,
    head: Oid,
    base: Oid,
    limit: usize,
) -> Result<(u32, Vec<CommitLine>), git2::Error> {
    let mut walk = repo.revwalk()?;
    walk.set_sorting(Sort::TIME)?;
    walk.push(head)?;
    walk.hide(base)?;
    let mut n: u32 = 0;
    let mut lines = Vec::new();
    for id in walk {
        let id = id?;
        n = n.saturating_add(1);
        if lines.len() < limit {
            lines.push(CommitLine::of(repo, id));
        }
    }
    Ok((n, lines))
}
