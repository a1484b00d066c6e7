//! The settings view: agent hooks (the change is shown in the window first and written by its one
//! "Install"/"Uninstall" button, only while it is still the change shown), extra repositories
//! (picked in a native folder dialog).

use plandeck_core::agents::Agent;
use plandeck_core::gate::{HookPreview, InstallReport};
use plandeck_core::ipc::IpcError;
use tauri::{AppHandle, State};

use super::blocking;
use crate::AppState;

/// Whether `agent`'s plan-approval hook is installed, and the diff of installing/uninstalling it.
#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn hook_status(
    app: AppHandle,
    state: State<'_, AppState>,
    agent: Agent,
) -> Result<HookPreview, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.hook_status(agent)).await
}

#[tauri::command]
#[tracing::instrument(skip(app, state, token))]
pub async fn set_hook(
    app: AppHandle,
    state: State<'_, AppState>,
    agent: Agent,
    installed: bool,
    token: String,
) -> Result<InstallReport, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.set_hook(agent, installed, &token)).await
}

#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn stop_hook_status(
    app: AppHandle,
    state: State<'_, AppState>,
) -> Result<HookPreview, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.stop_hook_status()).await
}

#[tauri::command]
#[tracing::instrument(skip(app, state, token))]
pub async fn set_stop_hook(
    app: AppHandle,
    state: State<'_, AppState>,
    installed: bool,
    token: String,
) -> Result<InstallReport, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.set_stop_hook(installed, &token)).await
}

#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn team_hook_status(
    app: AppHandle,
    state: State<'_, AppState>,
) -> Result<HookPreview, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.team_hook_status()).await
}

#[tauri::command]
#[tracing::instrument(skip(app, state, token))]
pub async fn set_team_hook(
    app: AppHandle,
    state: State<'_, AppState>,
    installed: bool,
    token: String,
) -> Result<InstallReport, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.set_team_hook(installed, &token)).await
}

#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn add_repo(
    app: AppHandle,
    state: State<'_, AppState>,
) -> Result<Option<String>, IpcError> {
    add_picked_repo(&app, &state, "Add a repository").await
}

/// The native folder picker titled `title`; the folder picked is added to the repositories
/// Plandeck lists (settings). `None` when cancelled.
pub async fn add_picked_repo(
    app: &AppHandle,
    state: &State<'_, AppState>,
    title: &str,
) -> Result<Option<String>, IpcError> {
    let app = app.clone();
    let Some(path) = super::pick::pick_folder(&app, title, &state.roots().home).await? else {
        return Ok(None);
    };
    let mut roots = state.roots();
    let added = path.clone();
    let roots = blocking(move || {
        roots.add_extra_repo(&added)?;
        Ok(roots)
    })
    .await?;
    state.switch(roots, state.current().demo);
    crate::live::emit(&app, plandeck_core::live::WorktreesChanged::default());
    Ok(Some(path.display().to_string()))
}
