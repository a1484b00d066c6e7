//! Extra plan folders: the webview never sends a folder path (the shell picks it).

use plandeck_core::ipc::IpcError;
use tauri::{AppHandle, State};

use crate::AppState;

/// Adds a folder of plans to the settings, then re-arms the watchers so its plans show up live.
/// The folder is picked in a native folder dialog the shell opens: the webview never sends a
/// path. Returns the folder added, or `None` when the dialog was cancelled.
#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn add_plan_folder(
    app: AppHandle,
    state: State<'_, AppState>,
) -> Result<Option<String>, IpcError> {
    let home = state.roots().home;
    let Some(path) = super::pick::pick_folder(&app, "Add a folder of plans", &home).await? else {
        return Ok(None);
    };
    super::on_workspace(&app, move |ws| ws.add_plan_folder(&path).map(Some)).await
}
