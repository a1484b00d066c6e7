//! Plans: list, open, search, and extra plan folders. The webview names plans by the ids the
//! listing gave it, never by path, and never sends a folder path (the shell picks it).

use plandeck_core::ipc::IpcError;
use plandeck_core::plans::{self, PlanDocument, PlanListing, SearchHit};
use tauri::{AppHandle, State};

use super::blocking;
use crate::AppState;

#[tauri::command]
#[tracing::instrument(skip_all)]
pub async fn list_plans(
    app: AppHandle,
    state: State<'_, AppState>,
) -> Result<PlanListing, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.list_plans()).await
}

/// One plan, rendered; the version is recorded in the review store as seen.
#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn get_plan(
    app: AppHandle,
    state: State<'_, AppState>,
    id: String,
) -> Result<PlanDocument, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.get_plan(&id)).await
}

#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn search_plans(
    app: AppHandle,
    state: State<'_, AppState>,
    query: String,
) -> Result<Vec<SearchHit>, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.search_plans(&query)).await
}

/// Adds a folder of plans to the settings, then re-arms the watchers so its plans show up live.
/// The folder is picked in a native folder dialog the shell opens: the webview never sends a
/// path. Returns the folder added, or `None` when the dialog was cancelled.
#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn add_plan_folder(
    app: AppHandle,
    state: State<'_, AppState>,
) -> Result<Option<String>, IpcError> {
    let Some(path) =
        super::pick::pick_folder(&app, "Add a folder of plans", &state.roots().home).await?
    else {
        return Ok(None);
    };
    let mut roots = state.roots();
    let added = path.clone();
    let roots = blocking(move || {
        roots.add_extra_plan_folder(&added)?;
        Ok(roots)
    })
    .await?;
    state.switch(roots, state.current().demo);
    crate::live::start(&app);
    crate::live::emit(&app, plans::PlansChanged::of(Vec::new()));
    Ok(Some(path.to_string_lossy().into_owned()))
}
