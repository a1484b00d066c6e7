//! Agent worktrees: changed files, unmerged commits, keep and safe removal.
//!
//! Plandeck never loses work. Every worktree of every repository seen in sessions (plus the
//! repositories the user adds) is listed with what removing it would lose: its changed files
//! (staged + unstaged + untracked, not ignored, counted like the lines of `git status --porcelain`)
//! and its unmerged commits (commits on HEAD not on its base). Removal refuses while anything would be
//! lost unless the person confirms, and never touches the main worktree or a path that is not a
//! listed worktree. Before removing, the branch tip is saved under `refs/plandeck/archive/<branch>`
//! so [`restore`] can bring the commits back.
//!
//! One file per operation:
//! - [`list`](list()): repositories from session hints and settings, each worktree summarised.
//! - `status`: the fast changed-file scan (parallel stat of the index, untracked walk).
//! - `unmerged`: the base of a worktree and the commits on HEAD not on it.
//! - `remove`: the removal preview (typed refusals), removal, "remove all clean and merged".
//! - `keep`: the remembered Keep choices (`<data>/worktrees/kept.json`).
//! - `archive`: archive refs and restore.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::ipc::{ErrorKind, IpcError};

mod archive;
mod keep;
mod list;
mod remove;
mod status;
mod unmerged;

pub use archive::restore;
pub use keep::{is_kept, keep, unkeep};
pub use list::{list, watch_paths};
pub use remove::{removal_preview, remove, remove_clean};
pub use status::{changed_files, ChangedFile, ChangedFiles};
pub use unmerged::{count_unmerged, resolve_base, unmerged_commits, Base};

/// One worktree of a repository, as `git worktree list` shows it, with what removing it would lose.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct WorktreeSummary {
    /// The repository: its main worktree's folder (the common git dir for a bare repository).
    pub repo: String,
    /// The worktree's folder.
    pub path: String,
    /// The checked-out branch (short name); none when HEAD is detached.
    pub branch: Option<String>,
    /// HEAD's commit id; none on an unborn branch.
    pub head: Option<String>,
    /// Commit id of the base that unmerged commits are counted against; none when unknown.
    pub base: Option<String>,
    /// Where the base came from: "originalHeadCommit", an upstream ("origin/feature"), the branch it
    /// was created from, or the default branch ("origin/main", "main").
    pub base_name: Option<String>,
    /// Staged + unstaged + untracked paths, not ignored: the lines `git status --porcelain` prints.
    pub changed_files: u32,
    /// Commits on HEAD not on the base; none when the base is unknown.
    pub unmerged_commits: Option<u32>,
    pub locked: bool,
    pub lock_reason: Option<String>,
    pub is_main: bool,
    /// Git's metadata is left but the folder is gone (`git worktree prune` would drop it).
    pub prunable: bool,
    /// Bytes on disk under the folder (git dir excluded); none when not measured.
    #[ts(type = "number | null")]
    pub size_bytes: Option<u64>,
    /// The session working in this worktree, from the transcripts.
    pub session_id: Option<String>,
    /// The person chose Keep for it.
    pub kept: bool,
    /// Something that could not be read, said plainly; the counts are then incomplete.
    pub problem: Option<String>,
}

/// A commit that removal would leave only in the archive ref.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CommitLine {
    pub id: String,
    pub summary: String,
}

/// Why removal is refused. Some can be confirmed (`--discard`, the native dialog); others never.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Refusal {
    /// Changed files (staged, unstaged or untracked) would be deleted. Confirmable.
    Dirty { count: u32 },
    /// Commits not on the base would leave the branch (they stay in the archive ref). Confirmable.
    Unmerged { count: u32 },
    /// The base cannot be determined, so Plandeck cannot tell what is unmerged. Confirmable.
    BaseUnknown,
    /// `git worktree lock`ed. Confirmable only when the lock is stale: its reason names a process
    /// that is gone and no running session works in the worktree.
    Locked {
        reason: Option<String>,
        #[serde(rename = "sessionId")]
        session_id: Option<String>,
        stale: bool,
    },
    /// The main worktree is the repository itself. Never.
    Main,
    /// The path is not a worktree git lists (or is a symlink to somewhere else). Never.
    NotAWorktree { why: String },
    /// Something could not be read (changed files, commits), so what would be lost is not fully
    /// known. Confirmable, like an unknown base.
    Unreadable { problem: String },
    /// A running agent session works in it. Never: stop the session first.
    RunningSession {
        #[serde(rename = "sessionId")]
        session_id: String,
    },
}

impl Refusal {
    /// Whether the person may confirm past this refusal.
    pub fn confirmable(&self) -> bool {
        match self {
            Refusal::Dirty { .. }
            | Refusal::Unmerged { .. }
            | Refusal::BaseUnknown
            | Refusal::Unreadable { .. } => true,
            Refusal::Locked { stale, .. } => *stale,
            Refusal::Main | Refusal::NotAWorktree { .. } | Refusal::RunningSession { .. } => false,
        }
    }

    /// One plain sentence.
    pub fn message(&self) -> String {
        match self {
            Refusal::Dirty { count } => format!(
                "{count} changed {} would be deleted (uncommitted changes are not archived)",
                plural(*count, "file", "files")
            ),
            Refusal::Unmerged { count } => format!(
                "{count} unmerged {} would leave the branch (kept under the archive ref)",
                plural(*count, "commit", "commits")
            ),
            Refusal::BaseUnknown => {
                "its base is unknown, so Plandeck cannot tell which commits are unmerged".to_owned()
            }
            Refusal::Locked {
                reason,
                session_id,
                stale,
            } => {
                let mut s = "it is locked".to_owned();
                if let Some(id) = session_id {
                    s.push_str(&format!(" by session {id}"));
                }
                if let Some(r) = reason.as_deref().filter(|r| !r.is_empty()) {
                    s.push_str(&format!(" ({r})"));
                }
                if *stale {
                    s.push_str("; the lock looks stale (its process is gone)");
                } else {
                    s.push_str("; unlock it with `git worktree unlock` once nobody uses it");
                }
                s
            }
            Refusal::Unreadable { problem } => format!("not everything could be read ({problem})"),
            Refusal::Main => {
                "it is the main worktree: the repository itself is never removed".to_owned()
            }
            Refusal::NotAWorktree { why } => format!("it is not a listed worktree: {why}"),
            Refusal::RunningSession { session_id } => {
                format!("session {session_id} is running in it; stop the session first")
            }
        }
    }
}

fn plural<'a>(n: u32, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 {
        one
    } else {
        many
    }
}

/// What removing a worktree would do and lose; shown before the person confirms.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RemovalPreview {
    pub worktree: WorktreeSummary,
    /// The first 200 changed paths, each as `git status --porcelain` prints it ("XY path").
    pub changed_files: Vec<String>,
    /// The first 100 unmerged commits, newest first.
    pub unmerged_commits: Vec<CommitLine>,
    pub refusals: Vec<Refusal>,
    /// True when every refusal may be confirmed (then removal with `discard` goes ahead).
    pub confirmable: bool,
    /// The ref the branch tip would be saved under.
    pub archive_ref: Option<String>,
    /// Exactly what would be lost, as text for the confirmation dialog; empty when nothing.
    pub loss_summary: String,
}

/// What a removal did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RemoveOutcome {
    pub removed: bool,
    /// Where the branch tip (or detached HEAD) was saved: `refs/plandeck/archive/<branch>`.
    pub archive_ref: Option<String>,
    pub branch_deleted: Option<String>,
    pub tmux_session_killed: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum WorktreeError {
    #[error("{path} is not a git repository: {source}")]
    NotARepo { path: PathBuf, source: git2::Error },
    #[error("git failed on {path}: {source}")]
    Git { path: PathBuf, source: git2::Error },
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not a worktree Plandeck lists: {why}")]
    NotAWorktree { path: PathBuf, why: String },
    #[error("refused to remove {path}: {message}")]
    Refused { path: PathBuf, message: String },
    #[error("no archive ref {name} in {repo}")]
    ArchiveNotFound { repo: PathBuf, name: String },
    #[error("kept worktrees file {path} is damaged: {source}")]
    KeptDamaged {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error(transparent)]
    Write(#[from] crate::fsx::WriteError),
}

impl WorktreeError {
    pub(crate) fn git(path: &Path) -> impl FnOnce(git2::Error) -> WorktreeError + '_ {
        move |source| WorktreeError::Git {
            path: path.to_owned(),
            source,
        }
    }
    pub(crate) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> WorktreeError + '_ {
        move |source| WorktreeError::Io {
            path: path.to_owned(),
            source,
        }
    }
}

impl From<WorktreeError> for IpcError {
    fn from(e: WorktreeError) -> Self {
        let kind = match &e {
            WorktreeError::NotARepo { .. } | WorktreeError::NotAWorktree { .. } => {
                ErrorKind::NotFound
            }
            WorktreeError::ArchiveNotFound { .. } => ErrorKind::NotFound,
            WorktreeError::Git { .. } => ErrorKind::Git,
            WorktreeError::Io { .. } | WorktreeError::Write(_) => ErrorKind::Io,
            WorktreeError::Refused { .. } => ErrorKind::Refused,
            WorktreeError::KeptDamaged { .. } => ErrorKind::BadInput,
        };
        IpcError::new(kind, e.to_string())
    }
}

/// A path as text for the DTOs.
pub(crate) fn path_text(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// The canonical form of a path, or the path itself (absolute, trailing slash dropped) when it
/// does not exist: comparisons of worktree paths go through this.
pub(crate) fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| {
        let abs = if p.is_absolute() {
            p.to_owned()
        } else {
            std::env::current_dir()
                .map(|d| d.join(p))
                .unwrap_or_else(|_| p.to_owned())
        };
        abs.components().collect()
    })
}

/// TypeScript declarations of the types this module sends over IPC.
pub(crate) fn ts_declarations() -> Vec<String> {
    vec![
        <WorktreeSummary as TS>::decl(),
        <CommitLine as TS>::decl(),
        <Refusal as TS>::decl(),
        <RemovalPreview as TS>::decl(),
        <RemoveOutcome as TS>::decl(),
    ]
}

#[cfg(test)]
mod tests;
