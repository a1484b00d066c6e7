//! The window's commands. Each one the IPC table gives a deck call is generated here from it
//! ([`calls`]: the deck call, off the main thread, deciding as the window); the few it does not
//! (a native dialog first) are written by hand in the module the table names.

pub mod control;
pub mod demo;
pub mod machines;
pub mod phone;
pub mod pick;
pub mod plans;
pub mod settings;
pub mod worktrees;

/// A command's adapter when the table gives its deck call; none (written by hand) when not.
macro_rules! adapter {
    ($name:ident ( $( $arg:ident : $argty:ty ),* ) -> $ret:ty []) => {};
    ($name:ident ( $( $arg:ident : $argty:ty ),* ) -> $ret:ty [$body:expr]) => {
        #[tauri::command]
        #[tracing::instrument(skip_all)]
        pub async fn $name(
            state: State<'_, AppState>,
            $( $arg: $argty ),*
        ) -> Result<$ret, IpcError> {
            let deck = state.deck();
            super::blocking(move || deck.call(WINDOW, $body)).await
        }
    };
}

/// Every command of the table with a deck call.
macro_rules! adapters {
    (
        commands { $(
            $module:ident :: $name:ident ( $( $arg:ident : $argty:ty ),* ) -> $ret:ty
                [$( $body:expr )?] [$( $served:expr )?] [$( $why:literal )?] [$( #[$flag:ident] )*];
        )* }
        wire { $($wire:tt)* }
        events { $($events:tt)* }
    ) => {
        $( adapter!{ $name ( $( $arg : $argty ),* ) -> $ret [$( $body )?] } )*
    };
}

/// The adapters generated from the IPC table.
pub mod calls {
    use plandeck_core::deck::WINDOW;
    use plandeck_core::ipc::IpcError;
    use tauri::State;

    use crate::AppState;

    plandeck_core::ipc_table!(adapters);
}

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

/// `call` on the workspace, off the main thread.
pub async fn on_workspace<T: Send + 'static>(
    app: &tauri::AppHandle,
    call: impl FnOnce(&crate::AppState) -> Result<T, IpcError> + Send + 'static,
) -> Result<T, IpcError> {
    let app = app.clone();
    blocking(move || call(&tauri::Manager::state::<crate::AppState>(&app))).await
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
