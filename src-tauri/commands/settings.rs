//! The settings view's extra repositories, picked in a native folder dialog (its agent hooks are
//! the table's deck calls).

use plandeck_core::ipc::IpcError;
use tauri::{AppHandle, State};

use crate::AppState;

#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn add_repo(
    app: AppHandle,
    state: State<'_, AppState>,
) -> Result<Option<String>, IpcError> {
    add_picked_repo(&app, &state, "Add a repository").await
}

/// The native folder picker titled `title`; the folder picked is added to the repositories
/// Plandeck lists (settings). `None` when cancelled.
pub async fn add_picked_repo(
    app: &AppHandle,
    state: &State<'_, AppState>,
    title: &str,
) -> Result<Option<String>, IpcError> {
    let home = state.roots().home;
    let Some(path) = super::pick::pick_folder(app, title, &home).await? else {
        return Ok(None);
    };
    super::on_workspace(app, move |ws| ws.add_repo(&path).map(Some)).await
}
