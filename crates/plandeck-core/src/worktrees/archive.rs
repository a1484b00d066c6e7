//! Archive refs: before a worktree is removed, its branch tip (or detached HEAD) is saved as
//! `refs/plandeck/archive/<branch>` (with `-2`, `-3`… when taken), so its commits stay reachable
//! and git's gc keeps them. Only commits are archived: uncommitted changes are not, which is why
//! removal of a dirty worktree needs confirming. Each archive is also recorded in
//! `<data>/worktrees/archive.jsonl` (repository, ref, branch, folder, commit) so [`restore`] can
//! give the branch back its own name.

use std::path::Path;

use git2::{BranchType, Oid, Repository};
use serde::{Deserialize, Serialize};

use super::{canonical, path_text, WorktreeError};
use crate::config::Roots;
use crate::durable;

pub(crate) const PREFIX: &str = "refs/plandeck/archive/";

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Record {
    repo: String,
    archive_ref: String,
    branch: Option<String>,
    path: String,
    commit: String,
}

/// The first free archive ref name for `branch` (or a detached `head`).
pub(crate) fn free_name(repo: &Repository, branch: Option<&str>, head: Oid) -> String {
    let stem = match branch {
        Some(b) => format!("{PREFIX}{b}"),
        None => format!("{PREFIX}detached-{}", &head.to_string()[..12]),
    };
    let taken = |name: &str| repo.find_reference(name).is_ok();
    if !taken(&stem) {
        return stem;
    }
    (2u32..)
        .map(|n| format!("{stem}-{n}"))
        .find(|n| !taken(n))
        .unwrap_or(stem)
}

/// Saves `head` under a free archive ref and records it; returns the ref's name.
pub(crate) fn save(
    roots: &Roots,
    repo: &Repository,
    branch: Option<&str>,
    head: Oid,
    worktree: &Path,
) -> Result<String, WorktreeError> {
    let name = free_name(repo, branch, head);
    let msg = format!(
        "plandeck: archive before removing worktree {}",
        worktree.display()
    );
    repo.reference(&name, head, false, &msg)
        .map_err(WorktreeError::git(repo.path()))?;
    let record = Record {
        repo: path_text(&canonical(repo.commondir())),
        archive_ref: name.clone(),
        branch: branch.map(str::to_owned),
        path: path_text(worktree),
        commit: head.to_string(),
    };
    if let Ok(line) = serde_json::to_string(&record) {
        // The ref is what keeps the commits; the record only remembers the branch name, so a
        // failed append is logged rather than undoing the archive.
        if let Err(e) = durable::append_line(&roots.data.join("worktrees/archive.jsonl"), &line) {
            tracing::warn!("cannot record archive {name}: {e}");
        }
    }
    Ok(name)
}

/// Recreates the branch saved under `archive_ref` (full name, or the part after
/// `refs/plandeck/archive/`) in the repository at `repo`; returns the branch name. The branch gets
/// its original name when that is free; a branch of that name already at the archived commit is
/// fine. The archive ref itself is kept.
pub fn restore(roots: &Roots, repo: &Path, archive_ref: &str) -> Result<String, WorktreeError> {
    let r = Repository::discover(repo).map_err(|source| WorktreeError::NotARepo {
        path: repo.to_owned(),
        source,
    })?;
    let full = if archive_ref.starts_with("refs/") {
        archive_ref.to_owned()
    } else {
        format!("{PREFIX}{archive_ref}")
    };
    let not_found = || WorktreeError::ArchiveNotFound {
        repo: repo.to_owned(),
        name: full.clone(),
    };
    // Only Plandeck's archive refs are restored: any other ref is not an archive.
    if !full.starts_with(PREFIX) || full.contains("..") {
        return Err(not_found());
    }
    let target = r
        .find_reference(&full)
        .ok()
        .and_then(|x| x.target())
        .ok_or_else(not_found)?;
    let commit = r.find_commit(target).map_err(WorktreeError::git(repo))?;

    let common = path_text(&canonical(r.commondir()));
    let recorded = std::fs::read_to_string(roots.data.join("worktrees/archive.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Record>(l).ok())
        .rfind(|rec| rec.archive_ref == full && rec.repo == common)
        .and_then(|rec| rec.branch);
    let from_ref = full.strip_prefix(PREFIX).unwrap_or(&full).to_owned();
    let mut names = Vec::new();
    names.extend(recorded);
    names.push(from_ref);
    for name in &names {
        match r.find_branch(name, BranchType::Local) {
            Ok(b) if b.get().target() == Some(target) => return Ok(name.clone()),
            Ok(_) => continue,
            Err(_) => {
                r.branch(name, &commit, false)
                    .map_err(WorktreeError::git(repo))?;
                return Ok(name.clone());
            }
        }
    }
    Err(WorktreeError::Refused {
        path: repo.to_owned(),
        message: format!(
            "a different branch named {} already exists; rename it first",
            names.join(" / ")
        ),
    })
}
