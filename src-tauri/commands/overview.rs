//! The overview: what Plandeck reads and where.

use plandeck_core::agents::{self, AgentInfo};
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

/// Every agent Plandeck knows: its id, the name a person reads, and what Plandeck can do with it
/// (the window's agent lists are made from it).
#[tauri::command]
#[tracing::instrument]
pub async fn list_agents() -> Result<Vec<AgentInfo>, IpcError> {
    Ok(agents::list())
}
