//! The overview: what Plandeck reads and where.

use plandeck_core::ipc::IpcError;
use plandeck_core::overview::Overview;
use tauri::{AppHandle, State};

use crate::AppState;

#[tauri::command]
#[tracing::instrument(skip_all)]
pub async fn get_overview(
    app: AppHandle,
    state: State<'_, AppState>,
) -> Result<Overview, IpcError> {
    let deck = state.deck(&app);
    super::blocking(move || deck.overview()).await
}
