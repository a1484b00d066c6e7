//! The demo workspace: loaded from the empty state, left for the person's own folders (core's
//! [`plandeck_core::workspace::Workspace`]).

use plandeck_core::ipc::IpcError;
use plandeck_core::overview::Overview;
use tauri::AppHandle;

/// Creates the demo workspace and points the app at it ("Load demo" on the empty state).
#[tauri::command]
#[tracing::instrument(skip_all)]
pub async fn load_demo(app: AppHandle) -> Result<Overview, IpcError> {
    super::on_workspace(&app, |ws| ws.load_demo(&std::env::temp_dir())).await
}

/// "Leave the demo": points the app back at the person's own folders (resolved now, from the
/// flags, settings and environment it was started with). The demo workspace is left as it is.
#[tauri::command]
#[tracing::instrument(skip_all)]
pub async fn leave_demo(app: AppHandle) -> Result<Overview, IpcError> {
    super::on_workspace(&app, |ws| ws.leave_demo()).await
}
