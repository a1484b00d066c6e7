//! Review: diffs, history, and one decision per plan (approve / reject / edit-and-approve, routed
//! by the core to the waiting agent or recorded only; undo of a record-only decision). Every command takes a plan id
//! from the listing (resolved against discovery; a path or an unknown id is refused) and the
//! decisions take the hash of the version the reviewer read.

use plandeck_core::ipc::IpcError;
use plandeck_core::plans;
use plandeck_core::review::{self, Decision, PlanDiff, PlanHistory};
use plandeck_core::route::{self, PlanDecision, PlanOutcome};
use tauri::{AppHandle, State};

use super::blocking;
use crate::AppState;

#[tauri::command]
#[tracing::instrument(skip(state))]
pub async fn plan_diff(
    state: State<'_, AppState>,
    id: String,
    from: Option<String>,
    to: Option<String>,
) -> Result<PlanDiff, IpcError> {
    let roots = state.roots();
    blocking(move || {
        let path = plans::resolve_id(&roots, &id)?;
        Ok(review::diff(&roots, &path, from.as_deref(), to.as_deref())?)
    })
    .await
}

#[tauri::command]
#[tracing::instrument(skip(state))]
pub async fn plan_history(state: State<'_, AppState>, id: String) -> Result<PlanHistory, IpcError> {
    let roots = state.roots();
    blocking(move || {
        let path = plans::resolve_id(&roots, &id)?;
        Ok(review::history(&roots, &path)?)
    })
    .await
}

#[tauri::command]
#[tracing::instrument(skip(state))]
pub async fn plan_version(
    state: State<'_, AppState>,
    id: String,
    hash: String,
) -> Result<String, IpcError> {
    let roots = state.roots();
    blocking(move || {
        let path = plans::resolve_id(&roots, &id)?;
        Ok(review::version_of(&roots, &path, &hash)?)
    })
    .await
}

#[tauri::command]
#[tracing::instrument(skip(state))]
pub async fn decision_log(state: State<'_, AppState>) -> Result<Vec<Decision>, IpcError> {
    let roots = state.roots();
    blocking(move || Ok(review::log(&roots, None)?)).await
}

/// One decision on the version of a plan the reviewer read (`seenHash`): to the agent waiting
/// for it in its terminal, else recorded only; the outcome says where it went
/// ([`route::decide_plan`]).
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
    let roots = state.roots();
    let opts = route::RouteOptions {
        comments: with_comments.unwrap_or(true),
        delivery: plandeck_core::gate::DeliveryOptions {
            by: "the Plandeck window".to_owned(),
            ..Default::default()
        },
    };
    let outcome = blocking(move || {
        let path = plans::resolve_id(&roots, &id)?;
        route::decide_plan(&roots, &path, &seen_hash, decision, &opts)
    })
    .await?;
    if let Some(request) = &outcome.request_id {
        crate::live::emit(
            &app,
            plandeck_core::live::GateChanged {
                updated: vec![request.clone()],
                ..Default::default()
            },
        );
    }
    let changed = outcome
        .decision
        .as_ref()
        .map(|d| vec![d.plan_path.clone()])
        .unwrap_or_default();
    crate::live::emit(&app, plans::PlansChanged::of(changed));
    Ok(outcome)
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
    let roots = state.roots();
    let line = blocking(move || {
        let path = plans::resolve_id(&roots, &id)?;
        Ok(route::undo(&roots, &path, &decision_id)?)
    })
    .await?;
    crate::live::emit(&app, plans::PlansChanged::of(vec![line.plan_path.clone()]));
    Ok(line)
}
