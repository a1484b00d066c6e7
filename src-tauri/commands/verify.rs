//! Verify: the approved plan against what the agent did. Every command takes a plan id from the
//! listing (a path is refused) and is one call into `plandeck-core`.

use plandeck_core::ipc::IpcError;
use plandeck_core::review::PlanDiff;
use plandeck_core::verify::{self, StepOverride, StepStatus, VerifyReport};
use tauri::State;

use super::blocking;
use crate::AppState;

/// The verification report of a plan (recomputed on each call).
#[tauri::command]
#[tracing::instrument(skip(state))]
pub async fn verify_report(
    state: State<'_, AppState>,
    id: String,
) -> Result<VerifyReport, IpcError> {
    let roots = state.roots();
    blocking(move || verify::report_by_id(&roots, &id)).await
}

/// The diff of one changed file of a plan's report, from the base to the worktree now.
#[tauri::command]
#[tracing::instrument(skip(state))]
pub async fn verify_file_diff(
    state: State<'_, AppState>,
    id: String,
    path: String,
) -> Result<PlanDiff, IpcError> {
    let roots = state.roots();
    blocking(move || plandeck_core::verify::changed_file_diff(&roots, &id, &path)).await
}

/// Overrides a step's status with a note (kept in Plandeck's store, shown as an override).
#[tauri::command]
#[tracing::instrument(skip(state, note))]
pub async fn set_step_override(
    state: State<'_, AppState>,
    id: String,
    index: u32,
    status: StepStatus,
    note: String,
) -> Result<StepOverride, IpcError> {
    let roots = state.roots();
    blocking(move || {
        verify::check_id(&id)?;
        Ok(verify::set_override(&roots, &id, index, status, &note)?)
    })
    .await
}

/// Removes a step's override; whether there was one.
#[tauri::command]
#[tracing::instrument(skip(state))]
pub async fn clear_step_override(
    state: State<'_, AppState>,
    id: String,
    index: u32,
) -> Result<bool, IpcError> {
    let roots = state.roots();
    blocking(move || {
        verify::check_id(&id)?;
        Ok(verify::clear_override(&roots, &id, index)?)
    })
    .await
}

/// The text "Send report to agent" would type, to show before sending.
#[tauri::command]
#[tracing::instrument(skip(state))]
pub async fn verify_report_text(
    state: State<'_, AppState>,
    id: String,
) -> Result<String, IpcError> {
    let roots = state.roots();
    blocking(move || plandeck_core::verify::report_text(&roots, &id)).await
}

/// Types the report into the plan's live Claude Code session, if it is still the text `shown`
/// (else `conflict`); refused with the reason when the pane cannot be verified or a menu is open.
#[tauri::command]
#[tracing::instrument(skip(state, shown))]
pub async fn send_verify_report(
    state: State<'_, AppState>,
    id: String,
    shown: String,
) -> Result<String, IpcError> {
    let roots = state.roots();
    blocking(move || plandeck_core::verify::send_report(&roots, &id, &shown)).await
}
