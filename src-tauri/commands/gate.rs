//! The gate: plans waiting in an agent's terminal, and the reviewer's decision on them.

use plandeck_core::gate::{self, DecisionOutcome, GateDecision, GateRequest};
use plandeck_core::ipc::IpcError;
use tauri::{AppHandle, State};

use super::blocking;
use crate::AppState;

/// Every request waiting for the reviewer, oldest first.
#[tauri::command]
#[tracing::instrument(skip_all)]
pub async fn list_pending(state: State<'_, AppState>) -> Result<Vec<GateRequest>, IpcError> {
    let roots = state.roots();
    blocking(move || Ok(gate::pending(&roots))).await
}

/// Delivers a decision to the waiting agent (the hook, or the approval card in its tmux pane),
/// with the plan's open comments unless `with_comments` is false; refused when the plan is no
/// longer the version the reviewer read (`seen_hash`, the listing's `planHash`).
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
    let roots = state.roots();
    let opts = gate::DeliveryOptions {
        comments: with_comments.unwrap_or(true),
        by: "the Plandeck window".to_owned(),
        seen_hash,
        ..Default::default()
    };
    let outcome = blocking(move || Ok(gate::decide_with(&roots, &id, decision, &opts)?)).await?;
    crate::live::emit(
        &app,
        plandeck_core::live::GateChanged {
            updated: vec![outcome.request_id.clone()],
            ..Default::default()
        },
    );
    crate::live::emit(&app, plandeck_core::plans::PlansChanged::of(Vec::new()));
    Ok(outcome)
}

/// The open comments a decision on request `id` would carry.
#[tauri::command]
#[tracing::instrument(skip(state))]
pub async fn request_comments(
    state: State<'_, AppState>,
    id: String,
) -> Result<Vec<plandeck_core::comments::PlacedComment>, IpcError> {
    let roots = state.roots();
    blocking(move || Ok(gate::open_comments(&roots, &id)?)).await
}
