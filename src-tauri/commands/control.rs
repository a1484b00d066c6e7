//! Session control: start an agent in a new worktree, steer a running one. Each command is one
//! call on core's deck (`core::control`); the window confirms an interrupt and a stop first.

use plandeck_core::control::{StartRequest, Started, StopOutcome, StopPreview};
use plandeck_core::ipc::IpcError;
use tauri::{AppHandle, State};

use super::blocking;
use crate::AppState;

/// The native folder picker, for the New session dialog's repository; the folder picked is added
/// to the repositories Plandeck lists (a session starts only in one of those). `None` when
/// cancelled.
#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn pick_repo(
    app: AppHandle,
    state: State<'_, AppState>,
) -> Result<Option<String>, IpcError> {
    super::settings::add_picked_repo(&app, &state, "Start a session in a repository").await
}

#[tauri::command]
#[tracing::instrument(skip(app, state, request))]
pub async fn start_session(
    app: AppHandle,
    state: State<'_, AppState>,
    request: StartRequest,
) -> Result<Started, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.start_session(&request)).await
}

#[tauri::command]
#[tracing::instrument(skip(app, state, text))]
pub async fn send_to_agent(
    app: AppHandle,
    state: State<'_, AppState>,
    id: String,
    text: String,
) -> Result<String, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.send_to_agent(&id, &text)).await
}

#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn interrupt_session(
    app: AppHandle,
    state: State<'_, AppState>,
    id: String,
) -> Result<String, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.interrupt_session(&id)).await
}

#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn stop_preview(
    app: AppHandle,
    state: State<'_, AppState>,
    id: String,
) -> Result<StopPreview, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.stop_preview(&id)).await
}

#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn stop_session(
    app: AppHandle,
    state: State<'_, AppState>,
    id: String,
    token: String,
) -> Result<StopOutcome, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.stop_session(&id, &token)).await
}

#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn resume_session(
    app: AppHandle,
    state: State<'_, AppState>,
    id: String,
) -> Result<Started, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.resume_session(&id)).await
}

#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn open_in_terminal(
    app: AppHandle,
    state: State<'_, AppState>,
    id: String,
) -> Result<String, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.open_in_terminal(&id)).await
}
