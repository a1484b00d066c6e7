//! Session control's own dialog: the repository a new session starts in, picked natively (the
//! other control commands are the table's deck calls).

use plandeck_core::ipc::IpcError;
use tauri::{AppHandle, State};

use crate::AppState;

#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn pick_repo(
    app: AppHandle,
    state: State<'_, AppState>,
) -> Result<Option<String>, IpcError> {
    super::settings::add_picked_repo(&app, &state, "Start a session in a repository").await
}
