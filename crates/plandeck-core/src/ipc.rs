//! The one error type that crosses IPC (and the CLI's `--json`): `{ kind, message }`.
//!
//! The UI branches on `kind` and shows `message`; it never matches message strings. A `kind` is
//! added only when some caller branches on it.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum ErrorKind {
    /// The thing asked for (plan, session, worktree, request) does not exist (any more).
    NotFound,
    /// The file changed under the person (edit-and-approve on a plan that changed on disk).
    Conflict,
    /// The plan changed since the person read it (approve / reject of the version they saw):
    /// nothing was decided; show them the change.
    PlanChanged,
    /// A safety rule refused the action; confirming (e.g. `--discard`) may allow it.
    Refused,
    /// The input could not be used (bad JSON, binary file, bad argument).
    BadInput,
    /// Reading or writing a file failed.
    Io,
    /// A git operation failed.
    Git,
    /// Not available here: a method a headless server does not have or serves otherwise (the
    /// window's own dialogs), or a protocol version it does not speak ([`crate::serve`]).
    Unsupported,
    /// The machine it is on is not connected now: nothing was sent, nothing queued.
    Unreachable,
    /// Anything else; a bug.
    Internal,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, thiserror::Error)]
#[error("{message}")]
pub struct IpcError {
    pub kind: ErrorKind,
    pub message: String,
}

impl IpcError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }
}

impl From<crate::config::ConfigError> for IpcError {
    fn from(e: crate::config::ConfigError) -> Self {
        use crate::config::ConfigError::*;
        let kind = match &e {
            NoHome | Parse { .. } | NotARepository { .. } | BadHost(_) => ErrorKind::BadInput,
            NotAFolder { .. } | NoSuchHost(_) => ErrorKind::NotFound,
            Read { .. } | Write(_) => ErrorKind::Io,
        };
        Self::new(kind, e.to_string())
    }
}

impl From<crate::durable::WriteError> for IpcError {
    fn from(e: crate::durable::WriteError) -> Self {
        Self::new(ErrorKind::Io, e.to_string())
    }
}
