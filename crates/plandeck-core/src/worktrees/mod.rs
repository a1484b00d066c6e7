//! Agent worktrees: changed files, unmerged commits, keep and safe removal. (Being built: issue 7.)

/// TypeScript declarations of the types this module sends over IPC.
pub(crate) fn ts_declarations() -> Vec<String> {
    Vec::new()
}
