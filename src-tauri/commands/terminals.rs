//! Live terminal views of sessions' tmux panes (core's `mirror`): opened read-only, typed into
//! once the person takes control. Each command is one call on core's deck; the output comes as
//! `terminal:output` events.

use plandeck_core::ipc::IpcError;
use plandeck_core::mirror::TerminalView;
use tauri::{AppHandle, State};

use super::blocking;
use crate::AppState;

#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn open_terminal(
    app: AppHandle,
    state: State<'_, AppState>,
    session_id: String,
) -> Result<TerminalView, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.open_terminal(&session_id)).await
}

#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn close_terminal(
    app: AppHandle,
    state: State<'_, AppState>,
    view: String,
) -> Result<(), IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.close_terminal(&view)).await
}

#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn take_terminal_control(
    app: AppHandle,
    state: State<'_, AppState>,
    view: String,
) -> Result<(), IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.take_terminal_control(&view)).await
}

#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn release_terminal_control(
    app: AppHandle,
    state: State<'_, AppState>,
    view: String,
) -> Result<(), IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.release_terminal_control(&view)).await
}

/// The person's keys, as the terminal view made them (never logged: they may be a password).
#[tauri::command]
#[tracing::instrument(skip_all)]
pub async fn type_into_terminal(
    app: AppHandle,
    state: State<'_, AppState>,
    view: String,
    data: String,
) -> Result<(), IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.type_into_terminal(&view, &data)).await
}
