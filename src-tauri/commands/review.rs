//! Review: diffs, history, approve / reject / edit-and-approve.

use std::path::PathBuf;

use plandeck_core::ipc::IpcError;
use plandeck_core::plans;
use plandeck_core::review::{self, ApproveRequest, Decision, PlanDiff, PlanHistory};
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
        let path = plans::resolve(&roots, &id)?;
        Ok(review::diff(&roots, &path, from.as_deref(), to.as_deref())?)
    })
    .await
}

#[tauri::command]
#[tracing::instrument(skip(state))]
pub async fn plan_history(state: State<'_, AppState>, id: String) -> Result<PlanHistory, IpcError> {
    let roots = state.roots();
    blocking(move || {
        let path = plans::resolve(&roots, &id)?;
        Ok(review::history(&roots, &path)?)
    })
    .await
}

#[tauri::command]
#[tracing::instrument(skip(state))]
pub async fn plan_version(state: State<'_, AppState>, hash: String) -> Result<String, IpcError> {
    let roots = state.roots();
    blocking(move || Ok(review::version(&roots, &hash)?)).await
}

/// Approves a plan; with `edited`, writes that text to the plan file first, but only if the file
/// still holds `startedFrom` (else a conflict that loses neither version).
#[tauri::command]
#[tracing::instrument(skip(app, state, edited))]
pub async fn approve_plan(
    app: AppHandle,
    state: State<'_, AppState>,
    id: String,
    edited: Option<String>,
    started_from: Option<String>,
    mode: Option<String>,
) -> Result<Decision, IpcError> {
    let roots = state.roots();
    let decision = blocking(move || {
        let path = plans::resolve(&roots, &id)?;
        let (agent, session_id) = plan_owner(&roots, &path);
        Ok(review::approve(
            &roots,
            &path,
            ApproveRequest {
                edited,
                started_from,
                agent,
                session_id,
                mode,
            },
        )?)
    })
    .await?;
    crate::live::emit(
        &app,
        "plans:changed",
        plans::PlansChanged {
            paths: vec![decision.plan_path.clone()],
        },
    );
    Ok(decision)
}

#[tauri::command]
#[tracing::instrument(skip(app, state, feedback))]
pub async fn reject_plan(
    app: AppHandle,
    state: State<'_, AppState>,
    id: String,
    feedback: String,
) -> Result<Decision, IpcError> {
    let roots = state.roots();
    let decision = blocking(move || {
        let path = plans::resolve(&roots, &id)?;
        let (agent, session_id) = plan_owner(&roots, &path);
        Ok(review::reject(&roots, &path, &feedback, agent, session_id)?)
    })
    .await?;
    crate::live::emit(
        &app,
        "plans:changed",
        plans::PlansChanged {
            paths: vec![decision.plan_path.clone()],
        },
    );
    Ok(decision)
}

#[tauri::command]
#[tracing::instrument(skip(state))]
pub async fn decision_log(state: State<'_, AppState>) -> Result<Vec<Decision>, IpcError> {
    let roots = state.roots();
    blocking(move || Ok(review::log(&roots, None)?)).await
}

/// The agent and session a plan belongs to, as plan discovery linked them.
fn plan_owner(
    roots: &plandeck_core::config::Roots,
    path: &PathBuf,
) -> (Option<plandeck_core::agent::Agent>, Option<String>) {
    match plans::get(roots, &path.to_string_lossy()) {
        Ok(doc) => (Some(doc.plan.agent), doc.plan.session_id),
        Err(_) => (None, None),
    }
}
