//! Plan history recovered from the agents' transcripts: the plans only transcripts hold, one
//! recovered plan with its versions, and restoring a lost plan file. Plans are named by id.

use plandeck_core::history::{self, RecoveredPlan, RecoveredPlanView, Restored};
use plandeck_core::ipc::IpcError;
use tauri::{AppHandle, State};

use super::blocking;
use crate::AppState;

/// The plans whose file is gone (or never was), from the transcripts. The first call on a home
/// reads every transcript once, off the main thread; later calls read only appended bytes.
#[tauri::command]
#[tracing::instrument(skip_all)]
pub async fn transcript_plans(state: State<'_, AppState>) -> Result<Vec<RecoveredPlan>, IpcError> {
    let roots = state.roots();
    blocking(move || history::transcript_only(&roots)).await
}

/// One recovered plan, every version the agent submitted with its decision, latest text rendered.
#[tauri::command]
#[tracing::instrument(skip(state))]
pub async fn recovered_plan(
    state: State<'_, AppState>,
    id: String,
) -> Result<RecoveredPlanView, IpcError> {
    let roots = state.roots();
    blocking(move || history::view_by_id(&roots, &id)).await
}

/// Writes a lost plan back to its own path (atomically; never over a file holding other text).
#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn restore_plan(
    app: AppHandle,
    state: State<'_, AppState>,
    id: String,
) -> Result<Restored, IpcError> {
    let roots = state.roots();
    let restored = blocking(move || history::restore_by_id(&roots, &id)).await?;
    crate::live::emit(
        &app,
        plandeck_core::plans::PlansChanged::of(vec![restored.path.clone()]),
    );
    Ok(restored)
}
