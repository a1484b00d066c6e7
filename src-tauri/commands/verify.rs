//! Verify: the approved plan against what the agent did after the approval, step overrides, and
//! sending the report to the agent. Each command is one call on core's deck.

use plandeck_core::ipc::IpcError;
use plandeck_core::review::PlanDiff;
use plandeck_core::verify::{StepOverride, StepStatus, VerifyReport};
use tauri::{AppHandle, State};

use super::blocking;
use crate::AppState;

#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn verify_report(
    app: AppHandle,
    state: State<'_, AppState>,
    id: String,
) -> Result<VerifyReport, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.verify_report(&id)).await
}

#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn verify_file_diff(
    app: AppHandle,
    state: State<'_, AppState>,
    id: String,
    path: String,
) -> Result<PlanDiff, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.verify_file_diff(&id, &path)).await
}

#[tauri::command]
#[tracing::instrument(skip(app, state, note))]
pub async fn set_step_override(
    app: AppHandle,
    state: State<'_, AppState>,
    id: String,
    index: u32,
    status: StepStatus,
    note: String,
) -> Result<StepOverride, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.set_step_override(&id, index, status, &note)).await
}

#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn clear_step_override(
    app: AppHandle,
    state: State<'_, AppState>,
    id: String,
    index: u32,
) -> Result<bool, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.clear_step_override(&id, index)).await
}

#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn verify_report_text(
    app: AppHandle,
    state: State<'_, AppState>,
    id: String,
) -> Result<String, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.verify_report_text(&id)).await
}

#[tauri::command]
#[tracing::instrument(skip(app, state, shown))]
pub async fn send_verify_report(
    app: AppHandle,
    state: State<'_, AppState>,
    id: String,
    shown: String,
) -> Result<String, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.send_verify_report(&id, &shown)).await
}
