//! Review: diffs, history, approve / reject / edit-and-approve. Every command takes a plan id
//! from the listing (resolved against discovery; a path or an unknown id is refused) and the
//! decisions take the hash of the version the reviewer read.

use plandeck_core::comments;
use plandeck_core::ipc::IpcError;
use plandeck_core::plans;
use plandeck_core::review::{
    self, ApproveRequest, Decision, PlanDecision, PlanDiff, PlanHistory, PlanOutcome,
};
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

/// Approves the version of a plan the reviewer read, with its open comments as "Reviewer notes"
/// (unless `withComments` is false) (`startedFrom`; refused as `planChanged` when
/// the file holds another now); with `edited`, writes that text to the plan file first, but only
/// if the file still holds `startedFrom` (else a conflict that loses neither version).
#[tauri::command]
#[tracing::instrument(skip(app, state, edited))]
pub async fn approve_plan(
    app: AppHandle,
    state: State<'_, AppState>,
    id: String,
    edited: Option<String>,
    started_from: Option<String>,
    mode: Option<String>,
    with_comments: Option<bool>,
) -> Result<Decision, IpcError> {
    let roots = state.roots();
    let decision = blocking(move || {
        let path = plans::resolve_id(&roots, &id)?;
        comments::approve(
            &roots,
            &path,
            ApproveRequest {
                edited,
                started_from,
                mode,
                ..Default::default()
            },
            with_comments.unwrap_or(true),
        )
    })
    .await?;
    crate::live::emit(
        &app,
        plans::PlansChanged::of(vec![decision.plan_path.clone()]),
    );
    Ok(decision)
}

/// Rejects the version of a plan the reviewer read, with its open comments after the feedback
/// (unless `withComments` is false) (`seenHash`; refused as `planChanged` when
/// the file holds another now).
#[tauri::command]
#[tracing::instrument(skip(app, state, feedback))]
pub async fn reject_plan(
    app: AppHandle,
    state: State<'_, AppState>,
    id: String,
    feedback: String,
    seen_hash: Option<String>,
    with_comments: Option<bool>,
) -> Result<Decision, IpcError> {
    let roots = state.roots();
    let decision = blocking(move || {
        let path = plans::resolve_id(&roots, &id)?;
        comments::reject(
            &roots,
            &path,
            &feedback,
            (None, None),
            seen_hash.as_deref(),
            with_comments.unwrap_or(true),
        )
    })
    .await?;
    crate::live::emit(
        &app,
        plans::PlansChanged::of(vec![decision.plan_path.clone()]),
    );
    Ok(decision)
}

#[tauri::command]
#[tracing::instrument(skip(state))]
pub async fn decision_log(state: State<'_, AppState>) -> Result<Vec<Decision>, IpcError> {
    let roots = state.roots();
    blocking(move || Ok(review::log(&roots, None)?)).await
}

/// One decision on the version of a plan the reviewer read (`seenHash`): to the agent waiting
/// for it in its terminal, else recorded only; the outcome says where it went
/// ([`review::decide_plan`]).
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
    let opts = review::RouteOptions {
        comments: with_comments.unwrap_or(true),
        delivery: plandeck_core::gate::DeliveryOptions {
            by: "the Plandeck window".to_owned(),
            ..Default::default()
        },
    };
    let outcome = blocking(move || {
        let path = plans::resolve_id(&roots, &id)?;
        review::decide_plan(&roots, &path, &seen_hash, decision, &opts)
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
        Ok(review::undo(&roots, &path, &decision_id)?)
    })
    .await?;
    crate::live::emit(&app, plans::PlansChanged::of(vec![line.plan_path.clone()]));
    Ok(line)
}
