//! Safe removal: a preview with typed refusals, removal that archives the branch tip first, and
//! "remove all clean and merged" for one repository.
//!
//! Refusals that may be confirmed (`discard`): changed files, unmerged commits, an unknown base, an
//! unreadable state, a stale lock. Never: the main worktree, a path git does not list as a worktree
//! (a symlink is never followed: the path given, and the folder git records, must both be real
//! folders), a worktree a running session works in, a lock that is not provably stale.
//!
//! A lock is stale when its reason names a process (`pid 1234`) that no longer exists and no
//! running session works in the worktree. A lock without a pid (a person's `git worktree lock`) is
//! never stale: it is an explicit "keep this", so it has to be unlocked by hand.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use git2::{BranchType, Oid, Repository, WorktreePruneOptions};

use super::list::{self, assign_sessions, Found, Sessions};
use super::{
    archive, canonical, keep, path_text, status, unmerged, Refusal, RemovalPreview, RemoveOutcome,
    WorktreeError,
};
use crate::config::Roots;
use crate::sessions::worktree_hints;

const FILES_SHOWN: usize = 200;
const COMMITS_SHOWN: usize = 100;

/// The worktree a path names, with its repository's other worktrees and the sessions in it.
struct Located {
    found: Found,
    sessions: Sessions,
    kept: HashSet<PathBuf>,
}

/// Finds the listed worktree whose folder is `path`, or says why there is none.
fn locate(roots: &Roots, path: &Path) -> Result<Result<Located, String>, WorktreeError> {
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        if meta.file_type().is_symlink() {
            let target = std::fs::read_link(path)
                .map(|t| t.display().to_string())
                .unwrap_or_default();
            return Ok(Err(format!(
                "{} is a symlink to {target}; give the worktree's own folder",
                path.display()
            )));
        }
    }
    let me = canonical(path);
    let hints = worktree_hints(roots);
    let all = match list::common_dir_of(path) {
        Ok(common) => list::worktrees_of(&common)?,
        // The folder may be gone (a prunable worktree): look through every known repository.
        Err(_) => list::find_all(roots, &hints).0,
    };
    let Some(i) = all
        .iter()
        .position(|f| canonical(&f.path) == me || f.path == me)
    else {
        return Ok(Err(format!("git lists no worktree at {}", path.display())));
    };
    let found = all[i].clone();
    if std::fs::symlink_metadata(&found.path).is_ok_and(|m| m.file_type().is_symlink()) {
        let target = std::fs::read_link(&found.path)
            .map(|t| t.display().to_string())
            .unwrap_or_default();
        return Ok(Err(format!(
            "the worktree folder {} was replaced by a symlink to {target}",
            found.path.display()
        )));
    }
    let sessions = assign_sessions(&all, &hints).swap_remove(i);
    let kept = keep::kept_set(roots)?;
    Ok(Ok(Located {
        found,
        sessions,
        kept,
    }))
}

/// What removing the worktree at `path` would do and lose, and why it may be refused.
pub fn removal_preview(roots: &Roots, path: &Path) -> Result<RemovalPreview, WorktreeError> {
    Ok(preview(roots, path)?.0)
}

fn preview(roots: &Roots, path: &Path) -> Result<(RemovalPreview, Option<Located>), WorktreeError> {
    let located = match locate(roots, path)? {
        Ok(l) => l,
        Err(why) => {
            let mut worktree = list::summarize(
                &Found {
                    repo: path.to_owned(),
                    common_dir: path.to_owned(),
                    path: path.to_owned(),
                    name: None,
                    is_main: false,
                    locked: None,
                    prunable: true,
                },
                &Sessions::default(),
                &HashSet::new(),
                false,
            );
            worktree.problem = Some(why.clone());
            let refusals = vec![Refusal::NotAWorktree { why }];
            let loss_summary = refusals[0].message();
            let preview = RemovalPreview {
                worktree,
                changed_files: Vec::new(),
                unmerged_commits: Vec::new(),
                refusals,
                confirmable: false,
                archive_ref: None,
                loss_summary,
            };
            return Ok((preview, None));
        }
    };
    let f = &located.found;
    let summary = list::summarize(f, &located.sessions, &located.kept, false);
    let mut refusals = Vec::new();
    if f.is_main {
        refusals.push(Refusal::Main);
    }
    if let Some(id) = &located.sessions.running {
        refusals.push(Refusal::RunningSession {
            session_id: id.clone(),
        });
    }
    if let Some(reason) = &f.locked {
        let stale = located.sessions.running.is_none() && lock_is_stale(reason.as_deref());
        refusals.push(Refusal::Locked {
            reason: reason.clone().filter(|r| !r.is_empty()),
            session_id: located.sessions.session_id.clone(),
            stale,
        });
    }
    let mut changed_files = Vec::new();
    let mut unmerged_commits = Vec::new();
    let mut archive_ref = None;
    if !f.prunable {
        if let Some(problem) = &summary.problem {
            refusals.push(Refusal::Unreadable {
                problem: problem.clone(),
            });
        }
        if summary.changed_files > 0 {
            refusals.push(Refusal::Dirty {
                count: summary.changed_files,
            });
            if let Ok(c) = status::changed_files(&f.path) {
                changed_files = c.files.iter().take(FILES_SHOWN).map(|c| c.line()).collect();
            }
        }
        let repo = Repository::open(&f.path).map_err(WorktreeError::git(&f.path))?;
        let head = summary.head.as_deref().and_then(|h| Oid::from_str(h).ok());
        match (
            summary.base.as_deref().and_then(|b| Oid::from_str(b).ok()),
            head,
        ) {
            (None, Some(_)) => refusals.push(Refusal::BaseUnknown),
            (Some(base), Some(head)) => {
                let (count, lines) = unmerged::unmerged_commits(&repo, head, base, COMMITS_SHOWN)
                    .map_err(WorktreeError::git(&f.path))?;
                if count > 0 {
                    refusals.push(Refusal::Unmerged { count });
                    unmerged_commits = lines;
                }
            }
            _ => {}
        }
        if let Some(head) = head {
            archive_ref = Some(archive::free_name(&repo, summary.branch.as_deref(), head));
        }
    } else if summary.head.is_none() {
        // The folder is gone; the branch may still hold commits, which the archive keeps.
        let repo = Repository::open(&f.common_dir).map_err(WorktreeError::git(&f.common_dir))?;
        if let Some(head) = prunable_head(&repo, f) {
            archive_ref = Some(archive::free_name(
                &repo,
                prunable_branch(&repo, f).as_deref(),
                head,
            ));
        }
    }
    let confirmable = refusals.iter().all(Refusal::confirmable);
    let loss_summary = loss_summary(
        &summary.path,
        &refusals,
        &changed_files,
        &unmerged_commits,
        archive_ref.as_deref(),
    );
    let preview = RemovalPreview {
        worktree: summary,
        changed_files,
        unmerged_commits,
        refusals,
        confirmable,
        archive_ref,
        loss_summary,
    };
    Ok((preview, Some(located)))
}

fn loss_summary(
    path: &str,
    refusals: &[Refusal],
    files: &[String],
    commits: &[super::CommitLine],
    archive_ref: Option<&str>,
) -> String {
    if refusals.is_empty() {
        return String::new();
    }
    let mut s = format!("Removing {path}:\n");
    for r in refusals {
        s.push_str(&format!("- {}\n", r.message()));
    }
    if !files.is_empty() {
        s.push_str("Changed files that will be deleted:\n");
        for f in files {
            s.push_str(&format!("  {f}\n"));
        }
    }
    if !commits.is_empty() {
        s.push_str(&format!(
            "Unmerged commits (kept under {}):\n",
            archive_ref.unwrap_or("no archive ref")
        ));
        for c in commits {
            s.push_str(&format!(
                "  {} {}\n",
                &c.id[..c.id.len().min(10)],
                c.summary
            ));
        }
    }
    s
}

/// A lock is stale when its reason names a process id that is not alive.
fn lock_is_stale(reason: Option<&str>) -> bool {
    let Some(reason) = reason else { return false };
    let Some(at) = reason.find("pid") else {
        return false;
    };
    let digits: String = reason[at + 3..]
        .trim_start_matches([' ', ':', '='])
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    let Ok(pid) = digits.parse::<i32>() else {
        return false;
    };
    if pid <= 0 {
        return false;
    }
    // SAFETY: kill with signal 0 only checks whether the process exists; it sends nothing.
    let alive = unsafe { libc::kill(pid, 0) } == 0
        || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
    !alive
}

/// HEAD of a worktree whose folder is gone, read from its git dir.
fn prunable_head(repo: &Repository, f: &Found) -> Option<Oid> {
    let name = f.name.as_deref()?;
    let head =
        std::fs::read_to_string(f.common_dir.join("worktrees").join(name).join("HEAD")).ok()?;
    let head = head.trim();
    match head.strip_prefix("ref: ") {
        Some(r) => repo.find_reference(r).ok()?.target(),
        None => Oid::from_str(head).ok(),
    }
}

fn prunable_branch(_repo: &Repository, f: &Found) -> Option<String> {
    let name = f.name.as_deref()?;
    let head =
        std::fs::read_to_string(f.common_dir.join("worktrees").join(name).join("HEAD")).ok()?;
    head.trim()
        .strip_prefix("ref: refs/heads/")
        .map(str::to_owned)
}

/// Removes the worktree at `path` and its branch, after saving the branch tip under
/// `refs/plandeck/archive/…`. Refuses (naming exactly what would be lost) unless every refusal is
/// confirmable and `discard` is true. Kills the tmux session whose pane is in the worktree.
pub fn remove(roots: &Roots, path: &Path, discard: bool) -> Result<RemoveOutcome, WorktreeError> {
    let (preview, located) = preview(roots, path)?;
    let refuse = |message: String| WorktreeError::Refused {
        path: path.to_owned(),
        message,
    };
    let Some(located) = located else {
        return Err(refuse(preview.loss_summary.trim_end().to_owned()));
    };
    if !preview.confirmable {
        let never: Vec<String> = preview
            .refusals
            .iter()
            .filter(|r| !r.confirmable())
            .map(Refusal::message)
            .collect();
        return Err(refuse(never.join("; ")));
    }
    if !preview.refusals.is_empty() && !discard {
        return Err(refuse(format!(
            "{}\nConfirm with --discard to remove it anyway.",
            preview.loss_summary.trim_end()
        )));
    }
    let f = &located.found;
    let repo = Repository::open(&f.common_dir).map_err(WorktreeError::git(&f.common_dir))?;
    let (branch, head) = if f.prunable {
        (prunable_branch(&repo, f), prunable_head(&repo, f))
    } else {
        (
            preview.worktree.branch.clone(),
            preview
                .worktree
                .head
                .as_deref()
                .and_then(|h| Oid::from_str(h).ok()),
        )
    };

    // The archive comes first: if it cannot be saved, nothing is touched.
    let archive_ref = match head {
        Some(head) => Some(archive::save(
            roots,
            &repo,
            branch.as_deref(),
            head,
            &f.path,
        )?),
        None => None,
    };
    let tmux_session_killed = kill_tmux_sessions_in(&f.path);
    keep::unkeep(roots, &f.path)?;
    if f.path.exists() {
        std::fs::remove_dir_all(&f.path).map_err(WorktreeError::io(&f.path))?;
    }
    if let Some(name) = &f.name {
        let pruned = repo.find_worktree(name).and_then(|wt| {
            wt.prune(Some(
                WorktreePruneOptions::new()
                    .valid(true)
                    .locked(true)
                    .working_tree(false),
            ))
        });
        if let Err(e) = pruned {
            tracing::warn!("git2 prune of {name} failed ({e}); removing its metadata directly");
            let meta = f.common_dir.join("worktrees").join(name);
            if meta.exists() {
                std::fs::remove_dir_all(&meta).map_err(WorktreeError::io(&meta))?;
            }
        }
    }
    let branch_deleted = match &branch {
        Some(b) if !is_default_branch(&repo, b) => match repo.find_branch(b, BranchType::Local) {
            Ok(mut br) => {
                br.delete().map_err(WorktreeError::git(&f.common_dir))?;
                Some(b.clone())
            }
            Err(_) => None,
        },
        _ => None,
    };
    Ok(RemoveOutcome {
        removed: true,
        archive_ref,
        branch_deleted,
        tmux_session_killed,
    })
}

/// The default branch is never deleted with a worktree, even when a linked worktree had it out.
fn is_default_branch(repo: &Repository, branch: &str) -> bool {
    if branch == "main" || branch == "master" {
        return true;
    }
    repo.find_reference("refs/remotes/origin/HEAD")
        .ok()
        .and_then(|r| r.symbolic_target().map(str::to_owned))
        .is_some_and(|t| t.rsplit('/').next() == Some(branch))
}

/// Kills each tmux session with a pane whose current folder is in `worktree`; returns their names.
/// Without tmux (or a server), nothing happens.
fn kill_tmux_sessions_in(worktree: &Path) -> Option<String> {
    let out = Command::new("tmux")
        .args([
            "list-panes",
            "-a",
            "-F",
            "#{session_name}\t#{pane_current_path}",
        ])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let root = canonical(worktree);
    let mut names: Vec<String> = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Some((session, pane_path)) = line.split_once('\t') else {
            continue;
        };
        if canonical(Path::new(pane_path)).starts_with(&root) && !names.iter().any(|n| n == session)
        {
            names.push(session.to_owned());
        }
    }
    let killed: Vec<String> = names
        .into_iter()
        .filter(|n| {
            Command::new("tmux")
                .args(["kill-session", "-t", &format!("={n}")])
                .status()
                .is_ok_and(|s| s.success())
        })
        .collect();
    (!killed.is_empty()).then(|| killed.join(", "))
}

/// "Remove all clean and merged" for the repository at `repo`: only linked worktrees that are
/// unlocked, not kept, not in use by a running session, with no changed files and zero unmerged
/// commits against a known base. Returns the removed folders.
pub fn remove_clean(roots: &Roots, repo: &Path) -> Result<Vec<String>, WorktreeError> {
    let common = list::common_dir_of(repo)?;
    let all = list::worktrees_of(&common)?;
    let hints = worktree_hints(roots);
    let sessions = assign_sessions(&all, &hints);
    let kept = keep::kept_set(roots)?;
    let mut removed = Vec::new();
    for (f, s) in all.iter().zip(&sessions) {
        if f.is_main
            || f.locked.is_some()
            || f.prunable
            || s.running.is_some()
            || kept.contains(&canonical(&f.path))
        {
            continue;
        }
        let summary = list::summarize(f, s, &kept, false);
        let clean = summary.problem.is_none()
            && summary.changed_files == 0
            && summary.unmerged_commits == Some(0);
        if !clean {
            continue;
        }
        // `remove` checks everything again and refuses (without discard) if anything changed since.
        match remove(roots, &f.path, false) {
            Ok(_) => removed.push(path_text(&f.path)),
            Err(WorktreeError::Refused { .. }) => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(removed)
}
