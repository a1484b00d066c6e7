//! Agent sessions from transcripts and registries, and their state. (Being built: see issue 6.)

use std::path::PathBuf;

use crate::config::Roots;

/// What sessions tell about worktrees: where a session works, and the commit its worktree started
/// from when a `worktree-state` record gave it. Used by [`crate::worktrees`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WorktreeHint {
    pub session_id: String,
    /// The session's working directory (a repository, or a worktree of one).
    pub cwd: PathBuf,
    /// `worktreePath` of the last `worktree-state` record, when the session is in a worktree.
    pub worktree_path: Option<PathBuf>,
    /// `originalHeadCommit` of that record: the worktree's base.
    pub original_head_commit: Option<String>,
    /// `originalBranch` of that record.
    pub original_branch: Option<String>,
    /// True when a live registry entry (`sessions/<pid>.json`) names this session.
    pub running: bool,
}

/// Every session's working directory and worktree facts. Until discovery lands, none.
pub fn worktree_hints(_roots: &Roots) -> Vec<WorktreeHint> {
    Vec::new()
}

/// TypeScript declarations of the types this module sends over IPC.
pub(crate) fn ts_declarations() -> Vec<String> {
    Vec::new()
}
