//! The plan history: plans recovered from transcripts, their versions, and restoring one as a
//! plan file. Each command is one call on core's deck, over the live history.

use plandeck_core::history::{RecoveredPlan, RecoveredPlanView, Restored, ScanProgress};
use plandeck_core::ipc::IpcError;
use plandeck_core::review::diff::PlanDiff;
use tauri::{AppHandle, State};

use super::blocking;
use crate::AppState;

#[tauri::command]
#[tracing::instrument(skip_all)]
pub async fn transcript_plans(
    app: AppHandle,
    state: State<'_, AppState>,
) -> Result<Vec<RecoveredPlan>, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.transcript_plans()).await
}

#[tauri::command]
pub async fn history_progress(
    app: AppHandle,
    state: State<'_, AppState>,
) -> Result<ScanProgress, IpcError> {
    state.deck(&app).history_progress()
}

#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn recovered_plan(
    app: AppHandle,
    state: State<'_, AppState>,
    id: String,
) -> Result<RecoveredPlanView, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.recovered_plan(&id)).await
}

#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn recovered_plan_diff(
    app: AppHandle,
    state: State<'_, AppState>,
    id: String,
    a: u32,
    b: u32,
) -> Result<PlanDiff, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.recovered_plan_diff(&id, a, b)).await
}

#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn restore_plan(
    app: AppHandle,
    state: State<'_, AppState>,
    id: String,
) -> Result<Restored, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.restore_plan(&id)).await
}
