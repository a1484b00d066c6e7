//! One module per area; each command is a one-call adapter over `plandeck-core`.

pub mod comments;
pub mod control;
pub mod demo;
pub mod gate;
pub mod history;
pub mod machines;
pub mod overview;
pub mod pick;
pub mod plans;
pub mod review;
pub mod sessions;
pub mod settings;
pub mod terminals;
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

#[cfg(test)]
mod tests {
    /// The webview names plans by the ids discovery gave it, never by path: no command calls a
    /// core function that takes "an id or a path" (the CLI's form). Core gives each an ids-only
    /// twin (`plans::resolve_id`, `plans::get_by_id`, `comments::add_to_plan_id`, …).
    #[test]
    fn commands_take_ids_never_paths() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src-tauri/commands");
        let id_or_path = [
            "plans::resolve(",
            "plans::get(",
            "comments::add_to_plan(",
            "history::find(",
            "history::restore(",
        ];
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            // This test names the calls it looks for.
            let code = text.split("#[cfg(test)]").next().unwrap_or("");
            for call in id_or_path {
                assert!(
                    !code.contains(call),
                    "{} calls {call}…), which takes a path: use its ids-only form",
                    path.display()
                );
            }
        }
    }
}
