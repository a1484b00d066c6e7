//! Reviews: the versions of each plan Plandeck has seen, which one was approved, the append-only
//! decision log, and diffs between versions.
//!
//! - [`store`]: content-addressed versions, the per-plan index of versions seen, the store lock.
//! - [`log`]: the decision log (`decisions.jsonl`) and the [`Decision`] it records.
//! - [`decide`]: record a version; approve, edit-and-approve, reject; read the log and history.
//! - [`state`]: [`Approvals`], the review state of every plan for a listing.
//! - [`diff`]: [`PlanDiff`], hunks, side-by-side rows, rendered diff HTML, unified text.
//!
//! The window and the CLI call the same functions here.

use std::path::PathBuf;

use crate::ipc::{ErrorKind, IpcError};

pub mod decide;
pub mod diff;
pub mod log;
mod patience;
mod safe_html;
pub mod state;
pub mod store;

pub use decide::{
    agent_for_path, approve, audit_log, history, log, record_version, reject, reject_seen, version,
    version_of,
};
pub use decide::{ApproveRequest, PlanHistory, VersionInfo};
pub use diff::{diff, DiffLine, DiffStats, Hunk, LineKind, PlanDiff, Segment, SideRow};
pub use log::{Decision, Delivery, Verdict};
pub use state::{Approvals, DecidedIn, ReviewState};

#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not a file")]
    NotAFile { path: PathBuf },
    #[error("{path} is not UTF-8 text")]
    NotText { path: PathBuf },
    #[error(
        "{path} is {size} bytes; plans over {} bytes are not reviewed",
        store::MAX_PLAN_BYTES
    )]
    TooLarge { path: PathBuf, size: u64 },
    #[error(transparent)]
    Write(#[from] crate::durable::WriteError),
    /// The plan file no longer holds what the reviewer started from. Nothing was written to the
    /// plan; both texts are in the store (`theirs_hash`, `yours_hash`), yours at `saved`.
    #[error(
        "{path} changed on disk since you started (it now holds version {theirs_hash}); nothing was \
         written. Your version {yours_hash} is kept at {saved}"
    )]
    Conflict {
        path: PathBuf,
        /// What the plan file holds now.
        theirs: String,
        /// What the reviewer wanted to approve.
        yours: String,
        theirs_hash: String,
        yours_hash: String,
        saved: PathBuf,
    },
    /// The plan file no longer holds the version the reviewer saw: nothing was decided. The UI
    /// shows the diff from `seen_hash` to the file as it is now.
    #[error(
        "{path} changed since you read it (you saw version {seen_hash}, it now holds \
         {current_hash}); nothing was decided. Read the change, then decide again"
    )]
    PlanChanged {
        path: PathBuf,
        seen_hash: String,
        current_hash: String,
    },
    #[error(transparent)]
    UnsafePath(#[from] crate::plans::UnsafePlanPath),
    #[error("a rejection needs feedback for the agent")]
    EmptyFeedback,
    #[error("{hash:?} is not a version hash (64 lowercase hex digits)")]
    BadHash { hash: String },
    #[error("no stored version {hash}")]
    NoVersion { hash: String },
    /// An undo was refused: nothing was written.
    #[error("cannot undo: {reason}")]
    CannotUndo { reason: String },
    #[error("internal error: {0}")]
    Internal(String),
}

impl From<ReviewError> for IpcError {
    fn from(e: ReviewError) -> Self {
        let kind = match &e {
            ReviewError::Read { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
                ErrorKind::NotFound
            }
            ReviewError::Read { .. } | ReviewError::Write(_) => ErrorKind::Io,
            ReviewError::NotAFile { .. }
            | ReviewError::NotText { .. }
            | ReviewError::TooLarge { .. }
            | ReviewError::EmptyFeedback
            | ReviewError::BadHash { .. } => ErrorKind::BadInput,
            ReviewError::Conflict { .. } => ErrorKind::Conflict,
            ReviewError::PlanChanged { .. } => ErrorKind::PlanChanged,
            ReviewError::UnsafePath(_) => ErrorKind::Refused,
            ReviewError::NoVersion { .. } => ErrorKind::NotFound,
            ReviewError::CannotUndo { .. } => ErrorKind::Refused,
            ReviewError::Internal(_) => ErrorKind::Internal,
        };
        IpcError::new(kind, e.to_string())
    }
}

/// TypeScript declarations of the types this module sends over IPC.
pub(crate) fn ts_declarations() -> Vec<String> {
    use ts_rs::TS;
    vec![
        <ReviewState as TS>::decl(),
        <DecidedIn as TS>::decl(),
        <Verdict as TS>::decl(),
        <log::Delivery as TS>::decl(),
        <Decision as TS>::decl(),
        <ApproveRequest as TS>::decl(),
        <VersionInfo as TS>::decl(),
        <PlanHistory as TS>::decl(),
        <DiffStats as TS>::decl(),
        <LineKind as TS>::decl(),
        <Segment as TS>::decl(),
        <DiffLine as TS>::decl(),
        <Hunk as TS>::decl(),
        <SideRow as TS>::decl(),
        <PlanDiff as TS>::decl(),
    ]
}

#[cfg(test)]
mod tests;
