use plandeck_core::agents::{self, AgentInfo};
use plandeck_core::ipc::IpcError;
use plandeck_core::overview::{overview, Overview};
use tauri::State;

use crate::AppState;

/// Which folders were looked at and what was found there.
#[tauri::command]
#[tracing::instrument(skip_all)]
pub async fn get_overview(state: State<'_, AppState>) -> Result<Overview, IpcError> {
    let current = state.current();
    super::blocking(move || Ok(overview(&current.roots, current.demo))).await
}

/// Every agent Plandeck knows: its id, the name a person reads, and what Plandeck can do with it
/// (the window's agent lists are made from it).
#[tauri::command]
#[tracing::instrument]
pub async fn list_agents() -> Result<Vec<AgentInfo>, IpcError> {
    Ok(agents::list())
}
