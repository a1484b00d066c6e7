//! One module per area; each command is a one-call adapter over `plandeck-core`.

pub mod comments;
pub mod demo;
pub mod gate;
pub mod history;
pub mod overview;
pub mod pick;
pub mod plans;
pub mod review;
pub mod sessions;
pub mod settings;
pub mod verify;
pub mod worktrees;

use plandeck_core::ipc::{ErrorKind, IpcError};

/// Runs blocking core work (file reads, git2) off the main thread.
pub async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, IpcError> + Send + 'static,
) -> Result<T, IpcError> {
    let done = tauri::async_runtime::spawn_blocking(f)
        .await
        .map_err(|e| IpcError::new(ErrorKind::Internal, format!("background task failed: {e}")))?;
    crate::memory::after_work();
    done
}
