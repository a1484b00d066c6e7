//! Plan history recovered from the agents' transcripts: the plans only transcripts hold, one
//! recovered plan with its versions, the diff of two of its versions, and restoring a lost plan
//! file. Plans are named by id. The history is kept live by core (`live::LiveHistory`): these
//! commands read it from memory, never scan.

use plandeck_core::history::{self, RecoveredPlan, RecoveredPlanView, Restored, ScanProgress};
use plandeck_core::ipc::IpcError;
use plandeck_core::review::diff::PlanDiff;
use tauri::{AppHandle, State};

use super::blocking;
use crate::AppState;

/// The plans whose file is gone (or never was), from the transcripts. Answers once the first
/// scan is over (`history:progress` says how far it is).
#[tauri::command]
#[tracing::instrument(skip_all)]
pub async fn transcript_plans(state: State<'_, AppState>) -> Result<Vec<RecoveredPlan>, IpcError> {
    let h = state.history();
    blocking(move || Ok(history::transcript_only_in(&h.plans()))).await
}

/// How far the history's scan is (the last `history:progress`).
#[tauri::command]
pub async fn history_progress(state: State<'_, AppState>) -> Result<ScanProgress, IpcError> {
    Ok(state.history().progress())
}

/// One recovered plan, every version the agent submitted with its decision, latest text rendered.
#[tauri::command]
#[tracing::instrument(skip(state))]
pub async fn recovered_plan(
    state: State<'_, AppState>,
    id: String,
) -> Result<RecoveredPlanView, IpcError> {
    let (roots, h) = (state.roots(), state.history());
    blocking(move || history::view_in(&roots, &h.plans(), &id)).await
}

/// The diff between versions `a` and `b` (from 1, oldest first) of a recovered plan.
#[tauri::command]
#[tracing::instrument(skip(state))]
pub async fn recovered_plan_diff(
    state: State<'_, AppState>,
    id: String,
    a: u32,
    b: u32,
) -> Result<PlanDiff, IpcError> {
    let (roots, h) = (state.roots(), state.history());
    blocking(move || history::diff_versions_in(&roots, &h.plans(), &id, a as usize, b as usize))
        .await
}

/// Writes a lost plan back to its own path (atomically; never over a file holding other text).
#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn restore_plan(
    app: AppHandle,
    state: State<'_, AppState>,
    id: String,
) -> Result<Restored, IpcError> {
    let (roots, h) = (state.roots(), state.history());
    let restored = {
        let (roots, h) = (roots.clone(), h.clone());
        blocking(move || history::restore_in(&roots, &h.plans(), &id)).await?
    };
    // The plan has its file again: fold now, not on the watcher's next batch.
    blocking(move || {
        h.refresh(true);
        Ok(())
    })
    .await?;
    crate::live::emit(
        &app,
        plandeck_core::plans::PlansChanged::of(vec![restored.path.clone()]),
    );
    Ok(restored)
}
