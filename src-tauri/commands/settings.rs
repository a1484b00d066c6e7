//! The settings view: agent hooks (the change is shown in the window first and written by its one
//! "Install"/"Uninstall" button, only while it is still the change shown), extra repositories
//! (picked in a native folder dialog).

use plandeck_core::agents::Agent;
use plandeck_core::gate::{self, HookPreview, InstallReport};
use plandeck_core::ipc::IpcError;
use tauri::{AppHandle, State};

use super::blocking;
use crate::AppState;

/// Whether `agent`'s plan-approval hook is installed, and the diff of installing/uninstalling it.
#[tauri::command]
#[tracing::instrument(skip(state))]
pub async fn hook_status(
    state: State<'_, AppState>,
    agent: Agent,
) -> Result<HookPreview, IpcError> {
    let roots = state.roots();
    blocking(move || Ok(gate::hook_preview(&roots, agent)?)).await
}

/// Installs or uninstalls `agent`'s hook. `token` names the change the window showed
/// ([`HookPreview::token`]) and the person confirmed with its one button: the write is refused
/// when the settings file changed since (the window then shows the new change). A backup of the
/// settings file is written beside it.
#[tauri::command]
#[tracing::instrument(skip(state, token))]
pub async fn set_hook(
    state: State<'_, AppState>,
    agent: Agent,
    installed: bool,
    token: String,
) -> Result<InstallReport, IpcError> {
    let roots = state.roots();
    blocking(move || {
        Ok(if installed {
            gate::install_if_unchanged(&roots, agent, &token)?
        } else {
            gate::uninstall_if_unchanged(&roots, agent, &token)?
        })
    })
    .await
}

/// Whether Claude Code's Stop hook (verification, `hook claude-stop`) is installed, and the diff of
/// installing/uninstalling it.
#[tauri::command]
#[tracing::instrument(skip(state))]
pub async fn stop_hook_status(state: State<'_, AppState>) -> Result<HookPreview, IpcError> {
    let roots = state.roots();
    blocking(move || Ok(plandeck_core::verify::install::hook_preview(&roots)?)).await
}

/// Installs or uninstalls the Stop hook: the change `token` names, as [`set_hook`] does.
#[tauri::command]
#[tracing::instrument(skip(state, token))]
pub async fn set_stop_hook(
    state: State<'_, AppState>,
    installed: bool,
    token: String,
) -> Result<InstallReport, IpcError> {
    let roots = state.roots();
    blocking(move || {
        Ok(plandeck_core::verify::install::set_if_unchanged(
            &roots, installed, &token,
        )?)
    })
    .await
}

/// Adds a repository whose worktrees are listed even when no session was seen in it. The folder
/// is picked in the native folder dialog opened here; the webview sends no path. Returns the
/// folder added (`None` when the person cancelled).
#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn add_repo(
    app: AppHandle,
    state: State<'_, AppState>,
) -> Result<Option<String>, IpcError> {
    let Some(path) =
        super::pick::pick_folder(&app, "Add a repository", &state.roots().home).await?
    else {
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
