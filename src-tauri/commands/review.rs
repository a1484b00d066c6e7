//! Review: diffs, history, and one decision per plan (approve / reject / edit-and-approve, routed
//! by the core to the waiting agent or recorded only; undo of a record-only decision). Every
//! command takes a plan id from the listing and the decisions take the hash of the version the
//! reviewer read; each is one call on core's deck.

use plandeck_core::deck::WINDOW;
use plandeck_core::ipc::IpcError;
use plandeck_core::review::{Decision, PlanDiff, PlanHistory};
use plandeck_core::route::{PlanDecision, PlanOutcome};
use tauri::{AppHandle, State};

use super::blocking;
use crate::AppState;

#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn plan_diff(
    app: AppHandle,
    state: State<'_, AppState>,
    id: String,
    from: Option<String>,
    to: Option<String>,
) -> Result<PlanDiff, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.plan_diff(&id, from.as_deref(), to.as_deref())).await
}

#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn plan_history(
    app: AppHandle,
    state: State<'_, AppState>,
    id: String,
) -> Result<PlanHistory, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.plan_history(&id)).await
}

#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn plan_version(
    app: AppHandle,
    state: State<'_, AppState>,
    id: String,
    hash: String,
) -> Result<String, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.plan_version(&id, &hash)).await
}

#[tauri::command]
#[tracing::instrument(skip_all)]
pub async fn decision_log(
    app: AppHandle,
    state: State<'_, AppState>,
) -> Result<Vec<Decision>, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.decision_log()).await
}

/// One decision on the version of a plan the reviewer read (`seenHash`): to the agent waiting
/// for it in its terminal, else recorded only; the outcome says where it went.
#[tauri::command]
#[tracing::instrument(skip(app, state, decision))]
pub async fn decide_plan(
    app: AppHandle,
    state: State<'_, AppState>,
    id: String,
    seen_hash: String,
    decision: PlanDecision,
    with_comments: Option<bool>,
) -> Result<PlanOutcome, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.decide_plan(&id, &seen_hash, decision, with_comments, WINDOW)).await
}

/// Undoes a record-only decision on a plan (appends a revocation; the log keeps both lines).
#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn undo_decision(
    app: AppHandle,
    state: State<'_, AppState>,
    id: String,
    decision_id: String,
) -> Result<Decision, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.undo_decision(&id, &decision_id)).await
}
