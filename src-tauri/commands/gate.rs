//! The gate: requests from agent hooks waiting for a decision, and deciding them. Each command is
//! one call on core's deck.

use plandeck_core::comments::PlacedComment;
use plandeck_core::deck::WINDOW;
use plandeck_core::gate::{DecisionOutcome, GateDecision, GateRequest};
use plandeck_core::ipc::IpcError;
use tauri::{AppHandle, State};

use super::blocking;
use crate::AppState;

#[tauri::command]
#[tracing::instrument(skip_all)]
pub async fn list_pending(
    app: AppHandle,
    state: State<'_, AppState>,
) -> Result<Vec<GateRequest>, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.list_pending()).await
}

#[tauri::command]
#[tracing::instrument(skip(app, state, decision))]
pub async fn decide_request(
    app: AppHandle,
    state: State<'_, AppState>,
    id: String,
    decision: GateDecision,
    with_comments: Option<bool>,
    seen_hash: Option<String>,
) -> Result<DecisionOutcome, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.decide_request(&id, decision, with_comments, seen_hash, WINDOW)).await
}

#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn request_comments(
    app: AppHandle,
    state: State<'_, AppState>,
    id: String,
) -> Result<Vec<PlacedComment>, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.request_comments(&id)).await
}

#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn list_teams(
    app: AppHandle,
    state: State<'_, AppState>,
) -> Result<Vec<plandeck_core::gate::teams::Team>, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.list_teams()).await
}
