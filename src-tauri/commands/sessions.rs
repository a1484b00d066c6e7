//! Sessions: the live index.

use plandeck_core::ipc::IpcError;
use plandeck_core::sessions::{IndexProgress, SessionSummary};
use tauri::State;

use super::blocking;
use crate::state::lock;
use crate::AppState;

#[tauri::command]
#[tracing::instrument(skip_all)]
pub async fn list_sessions(state: State<'_, AppState>) -> Result<Vec<SessionSummary>, IpcError> {
    summaries(&state, None).await
}

/// Only the sessions named (those a `sessions:changed` listed): a live session changes every few
/// hundred ms, and the window refreshes its card, not the whole list. A session named that is gone
/// is left out.
#[tauri::command]
#[tracing::instrument(skip_all, fields(ids = ids.len()))]
pub async fn get_sessions(
    state: State<'_, AppState>,
    ids: Vec<String>,
) -> Result<Vec<SessionSummary>, IpcError> {
    summaries(&state, Some(ids)).await
}

async fn summaries(
    state: &AppState,
    ids: Option<Vec<String>>,
) -> Result<Vec<SessionSummary>, IpcError> {
    let roots = state.roots();
    let sessions = state.sessions.clone();
    blocking(move || {
        // While the index loads in the background the list is empty and `session_index_progress`
        // says how far it is; `sessions:changed` follows when it is in.
        let mut list = match lock(&sessions).as_ref() {
            Some(index) => index.sessions(),
            None => Vec::new(),
        };
        if let Some(ids) = ids {
            let wanted: std::collections::HashSet<String> = ids.into_iter().collect();
            list.retain(|s| wanted.contains(&s.session_id));
        }
        plandeck_core::standing::settle_sessions(
            &roots,
            &mut list,
            &plandeck_core::gate::pending(&roots),
        );
        Ok(list)
    })
    .await
}

/// How far the background load of the session index is (the last `sessions:progress`).
#[tauri::command]
pub async fn session_index_progress(state: State<'_, AppState>) -> Result<IndexProgress, IpcError> {
    Ok(lock(&state.live)
        .as_ref()
        .map(|live| live.index_progress())
        .unwrap_or_default())
}
