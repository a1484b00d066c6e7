//! Sessions: the live index.

use plandeck_core::ipc::IpcError;
use plandeck_core::sessions::{SessionIndex, SessionSummary};
use tauri::State;

use super::blocking;
use crate::state::lock;
use crate::AppState;

#[tauri::command]
#[tracing::instrument(skip_all)]
pub async fn list_sessions(state: State<'_, AppState>) -> Result<Vec<SessionSummary>, IpcError> {
    let roots = state.roots();
    let sessions = state.sessions.clone();
    blocking(move || {
        let mut slot = lock(&sessions);
        let index = slot.get_or_insert_with(|| SessionIndex::open(&roots));
        let mut list = index.sessions();
        plandeck_core::sessions::mark_gate_requests(
            &mut list,
            &plandeck_core::gate::pending(&roots),
        );
        Ok(list)
    })
    .await
}
