//! Sessions: the live index's sessions, settled with the gate. Each command is one call on core's
//! deck.

use plandeck_core::ipc::IpcError;
use plandeck_core::sessions::{IndexProgress, SessionSummary};
use tauri::{AppHandle, State};

use super::blocking;
use crate::AppState;

#[tauri::command]
#[tracing::instrument(skip_all)]
pub async fn list_sessions(
    app: AppHandle,
    state: State<'_, AppState>,
) -> Result<Vec<SessionSummary>, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.sessions(None)).await
}

#[tauri::command]
#[tracing::instrument(skip_all, fields(ids = ids.len()))]
pub async fn get_sessions(
    app: AppHandle,
    state: State<'_, AppState>,
    ids: Vec<String>,
) -> Result<Vec<SessionSummary>, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.sessions(Some(&ids))).await
}

#[tauri::command]
pub async fn session_index_progress(
    app: AppHandle,
    state: State<'_, AppState>,
) -> Result<IndexProgress, IpcError> {
    state.deck(&app).session_index_progress()
}
