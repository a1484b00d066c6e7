//! Plan files of every agent: discovery, linking to sessions, search. (Being built: see issue 3.)

use std::path::PathBuf;

use crate::config::Roots;
use crate::ipc::{ErrorKind, IpcError};

/// Finds a plan by id (see [`crate::ids::plan_id`]) or by path. Until discovery lands, only paths.
pub fn resolve(_roots: &Roots, id_or_path: &str) -> Result<PathBuf, IpcError> {
    let path = PathBuf::from(id_or_path);
    if path.is_file() {
        return path.canonicalize().map_err(|e| IpcError::new(ErrorKind::Io, format!("{id_or_path}: {e}")));
    }
    Err(IpcError::new(ErrorKind::NotFound, format!("no plan {id_or_path:?}")))
}

/// TypeScript declarations of the types this module sends over IPC.
pub(crate) fn ts_declarations() -> Vec<String> {
    Vec::new()
}
