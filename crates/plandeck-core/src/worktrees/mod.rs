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
//! Trust: the window names worktrees and repositories by the listing's ids ([`resolve_id`],
//! [`resolve_repo_id`] against a fresh listing), never by paths. A removal goes ahead only while
//! the worktree still matches the preview the person confirmed (its token). It may end an agent's
//! own tmux pane, listed first, never a tmux session and never a pane the person opened. A
//! submodule's changes and its commits found nowhere else count as work to lose. "Prunable" means
//! the folder is gone; an existing folder git cannot validate is refused, never deleted.
//!
//! One file per operation:
//! - [`list`](list()): repositories from session hints and settings, each worktree summarised.
//! - `status`: the fast changed-file scan (parallel stat of the index, untracked walk).
//! - `live`: the watcher that keeps the counts live (ignores what git ignores, one call per burst).
//! - `sizes`: folder sizes measured in the background and remembered, never on the listing's path.
//! - `unmerged`: the base of a worktree and the commits on HEAD not on it.
//! - `remove`: the removal preview (typed refusals), removal, "remove all clean and merged".
//! - `panes`: the tmux panes in a worktree, the agents' own told from the person's.
//! - `submodules`: submodule changes and submodule commits found nowhere else.
//! - `keep`: the remembered Keep choices (`<data>/worktrees/kept.json`).
//! - `archive`: archive refs and restore.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::ipc::{ErrorKind, IpcError};
use crate::words;

mod archive;
mod keep;
mod list;
mod panes;
mod remove;
mod sizes;
mod status;
mod submodules;
mod unmerged;
mod watcher;

pub use archive::restore;
pub use keep::{is_kept, unkeep};
pub use list::{keep, list, list_with, refresh, resolve_id, resolve_repo_id, ListOptions};
pub use remove::{
    clean_confirmation_text, clean_removals, details, removal_preview, remove, remove_clean,
    remove_previewed, RemoveOptions,
};
pub use sizes::{Sizes, WorktreeSize, MAX_AGE as SIZE_MAX_AGE};
pub use status::{changed_files, ChangedFile, ChangedFiles, FileStatus};
pub use unmerged::{count_unmerged, resolve_base, unmerged_commits, Base};
pub use watcher::{watch, watch_targets, Changed, Watched, TIMING as WATCH_TIMING};

/// One worktree of a repository, as `git worktree list` shows it, with what removing it would lose.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct WorktreeSummary {
    /// Stable id of this worktree (a hash of its folder and its repository's common git dir): what
    /// the window passes back to keep or remove it; resolved against a fresh listing.
    pub id: String,
    /// Stable id of the repository (a hash of its common git dir), for "remove all clean" and
    /// restore.
    pub repo_id: String,
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
    /// Git's metadata is left but the folder is gone (`git worktree prune` would drop it). Only a
    /// missing folder: a folder that exists is checked like any other, or refused.
    pub prunable: bool,
    /// Commits in its submodules found nowhere else (not on any branch or remote-tracking ref of
    /// the submodule's own repository): removing the folder would lose them.
    pub submodule_commits: u32,
    /// Bytes on disk under the folder (git dir excluded); none when not measured (the listing does
    /// not walk folders: sizes come later, see [`Sizes`], or with [`ListOptions::sizes`]).
    #[ts(type = "number | null")]
    pub size_bytes: Option<u64>,
    /// The session working in this worktree, from the transcripts; a session hosted over ACP by
    /// its card's id (`acps-…`).
    pub session_id: Option<String>,
    /// That session's plan file, where it has one (what "Verify its plan" opens).
    #[serde(default)]
    pub plan_path: Option<String>,
    /// The person chose Keep for it.
    pub kept: bool,
    /// Something that could not be read, said plainly; the counts are then incomplete.
    pub problem: Option<String>,
    /// The machine this is on (`plandeck hosts`), named by its rows in the window; `null`: this one.
    #[serde(default)]
    pub machine: Option<String>,
}

/// A commit that removal would leave only in the archive ref.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CommitLine {
    pub id: String,
    pub summary: String,
}

impl CommitLine {
    /// Commit `id` of `repo` with its summary line (empty when the commit cannot be read).
    pub(crate) fn of(repo: &git2::Repository, id: git2::Oid) -> CommitLine {
        let summary = repo
            .find_commit(id)
            .ok()
            .and_then(|c| c.summary().map(str::to_owned))
            .unwrap_or_default();
        CommitLine {
            id: id.to_string(),
            summary,
        }
    }
}

/// A changed file of a worktree, its status in words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct FileLine {
    /// Relative to the worktree; "old -> new" for a rename; ends with "/" for an untracked folder.
    pub path: String,
    pub status: FileStatus,
}

/// What a worktree's counts stand for: its changed files and its unmerged commits (the row's
/// counts opened).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct WorktreeDetails {
    /// The first 200 changed files, by path.
    pub files: Vec<FileLine>,
    /// How many changed files there are in all.
    pub files_total: u32,
    /// The first 100 unmerged commits, newest first.
    pub commits: Vec<CommitLine>,
    /// How many unmerged commits there are in all (0 when the base is unknown).
    pub commits_total: u32,
    /// Something that could not be read, said plainly.
    pub problem: Option<String>,
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
    /// A running agent session works in it and Plandeck cannot end it safely (its own tmux pane is
    /// not known). Never: stop the session first.
    RunningSession {
        #[serde(rename = "sessionId")]
        session_id: String,
    },
    /// An agent's own tmux pane (the pane's process is a known agent session's process) works in
    /// it: removal ends that pane (only that pane, and only while it is still that agent's).
    /// Confirmable.
    AgentPane {
        pane: String,
        #[serde(rename = "sessionId")]
        session_id: String,
        pid: u32,
    },
    /// A tmux pane the person opened (a shell, an editor) is in the folder. It is never ended: it
    /// stays open in a deleted folder. Confirmable.
    PersonPane {
        pane: String,
        session: String,
        command: String,
    },
    /// A submodule holds commits found nowhere else; they are lost with the folder. Confirmable.
    SubmoduleCommits { submodule: String, count: u32 },
    /// The folder exists but git cannot open or validate it as this worktree (a broken `.git`
    /// link), so what removing it would lose cannot be checked. Never.
    Unvalidated { why: String },
}

impl Refusal {
    /// Whether the person may confirm past this refusal.
    pub fn confirmable(&self) -> bool {
        match self {
            Refusal::Dirty { .. }
            | Refusal::Unmerged { .. }
            | Refusal::BaseUnknown
            | Refusal::Unreadable { .. }
            | Refusal::AgentPane { .. }
            | Refusal::PersonPane { .. }
            | Refusal::SubmoduleCommits { .. } => true,
            Refusal::Locked { stale, .. } => *stale,
            Refusal::Main
            | Refusal::NotAWorktree { .. }
            | Refusal::RunningSession { .. }
            | Refusal::Unvalidated { .. } => false,
        }
    }

    /// One plain sentence.
    pub fn message(&self) -> String {
        match self {
            Refusal::Dirty { count } => format!(
                "{} would be deleted (uncommitted changes are not archived)",
                words::count(*count, "changed file", "changed files")
            ),
            Refusal::Unmerged { count } => format!(
                "{} would leave the branch (saved first, so they can be restored)",
                words::count(*count, "unmerged commit", "unmerged commits")
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
            Refusal::AgentPane {
                pane,
                session_id,
                pid,
            } => format!(
                "the agent of session {session_id} runs in tmux pane {pane} (pid {pid}); \
                 that pane will be ended"
            ),
            Refusal::PersonPane {
                pane,
                session,
                command,
            } => format!(
                "your tmux pane {pane} (session {session}, running {command}) is in this folder; \
                 it is not closed and will be left in a deleted folder"
            ),
            Refusal::SubmoduleCommits { submodule, count } => format!(
                "submodule {submodule} has {} found nowhere else; {} lost",
                words::count(*count, "commit", "commits"),
                if *count == 1 {
                    "it would be"
                } else {
                    "they would be"
                }
            ),
            Refusal::Unvalidated { why } => format!(
                "git cannot check this folder ({why}), so Plandeck will not delete it; repair it \
                 with `git worktree repair` or remove it by hand"
            ),
        }
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
    /// The agents' own tmux panes removal would end (each also a refusal to confirm).
    pub panes_to_end: Vec<PaneLine>,
    /// The person's tmux panes in the folder: never ended, left in a deleted folder.
    pub person_panes: Vec<PaneLine>,
    /// Submodule commits found nowhere else, per submodule.
    pub submodule_commits: Vec<SubmoduleCommits>,
    /// A fingerprint of exactly what this preview shows (HEAD, every changed file, the unmerged
    /// commits, the panes): removal with it goes ahead only while it is still true.
    pub token: String,
}

/// A tmux pane in a worktree's folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PaneLine {
    /// tmux's pane id ("%3").
    pub pane: String,
    /// The tmux session it belongs to.
    pub session: String,
    /// What runs in it (`pane_current_command`).
    pub command: String,
    /// The pane's process.
    pub pid: u32,
    /// The agent session whose process the pane runs; none for the person's panes.
    pub agent_session_id: Option<String>,
}

/// Commits of one submodule that exist nowhere else.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SubmoduleCommits {
    /// The submodule's path in the worktree.
    pub submodule: String,
    pub count: u32,
    /// The first 100, newest first.
    pub commits: Vec<CommitLine>,
}

/// What a removal did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RemoveOutcome {
    pub removed: bool,
    /// Where the branch tip (or detached HEAD) was saved: `refs/plandeck/archive/<branch>`.
    pub archive_ref: Option<String>,
    pub branch_deleted: Option<String>,
    /// Always none: Plandeck no longer kills tmux sessions (kept for the `--json` contract).
    pub tmux_session_killed: Option<String>,
    /// The agents' own panes that were ended ("%3").
    pub panes_ended: Vec<String>,
}

impl RemoveOutcome {
    /// Nothing was removed (the person cancelled).
    pub fn not_removed() -> Self {
        RemoveOutcome {
            removed: false,
            archive_ref: None,
            branch_deleted: None,
            tmux_session_killed: None,
            panes_ended: Vec::new(),
        }
    }
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
    #[error("no listed worktree or repository has the id {id} (list the worktrees again)")]
    UnknownId { id: String },
    /// The worktree changed since the preview the person confirmed; nothing was removed.
    #[error("refused to remove {path}: it changed since it was shown ({what}); nothing was removed, look again")]
    Changed { path: PathBuf, what: String },
    #[error("no archive ref {name} in {repo}")]
    ArchiveNotFound { repo: PathBuf, name: String },
    #[error("kept worktrees file {path} is damaged: {source}")]
    KeptDamaged {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error(transparent)]
    Write(#[from] crate::durable::WriteError),
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
            WorktreeError::ArchiveNotFound { .. } | WorktreeError::UnknownId { .. } => {
                ErrorKind::NotFound
            }
            WorktreeError::Changed { .. } => ErrorKind::Conflict,
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

/// The id of a worktree: a hash of its (canonical) folder and its repository's common dir.
pub(crate) fn worktree_id(path: &Path, common_dir: &Path) -> String {
    let mut bytes = canonical(path).into_os_string().into_encoded_bytes();
    bytes.push(0);
    bytes.extend_from_slice(canonical(common_dir).as_os_str().as_encoded_bytes());
    crate::ids::short_hash(&bytes)
}

/// The id of a repository: a hash of its common dir.
pub(crate) fn repo_id(common_dir: &Path) -> String {
    crate::ids::short_hash(canonical(common_dir).as_os_str().as_encoded_bytes())
}

/// The canonical form of a path, or the path itself (absolute, trailing slash dropped) when it
/// does not exist: comparisons of worktree paths go through this.
pub(crate) fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| crate::durable::absolute(p).components().collect())
}

/// TypeScript declarations of the types this module sends over IPC.
pub(crate) fn ts_declarations() -> Vec<String> {
    vec![
        <WorktreeSummary as TS>::decl(),
        <CommitLine as TS>::decl(),
        <FileStatus as TS>::decl(),
        <FileLine as TS>::decl(),
        <WorktreeDetails as TS>::decl(),
        <Refusal as TS>::decl(),
        <RemovalPreview as TS>::decl(),
        <RemoveOutcome as TS>::decl(),
        <PaneLine as TS>::decl(),
        <SubmoduleCommits as TS>::decl(),
        <WorktreeSize as TS>::decl(),
    ]
}

#[cfg(test)]
mod tests;
