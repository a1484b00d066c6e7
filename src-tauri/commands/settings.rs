//! The settings view: agent hooks (with the change shown before it is made), extra repositories.

use plandeck_core::agent::Agent;
use plandeck_core::config::Settings;
use plandeck_core::gate::{self, HookPreview, InstallReport};
use plandeck_core::ipc::{ErrorKind, IpcError};
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

/// Installs or uninstalls `agent`'s hook (a backup of the settings file is written beside it).
#[tauri::command]
#[tracing::instrument(skip(state))]
pub async fn set_hook(
    state: State<'_, AppState>,
    agent: Agent,
    installed: bool,
) -> Result<InstallReport, IpcError> {
    let roots = state.roots();
    blocking(move || {
        Ok(if installed {
            gate::install(&roots, agent)?
        } else {
            gate::uninstall(&roots, agent)?
        })
    })
    .await
}

/// Adds a repository whose worktrees are listed even when no session was seen in it.
#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn add_repo(
    app: AppHandle,
    state: State<'_, AppState>,
    path: String,
) -> Result<(), IpcError> {
    let mut roots = state.roots();
    let path = std::path::PathBuf::from(path);
    if !path.join(".git").exists() {
        return Err(IpcError::new(
            ErrorKind::BadInput,
            format!("{} is not a git repository", path.display()),
        ));
    }
    let settings_path = roots.settings_path();
    let saved = path.clone();
    blocking(move || {
        let mut settings = Settings::load(&settings_path)?;
        if !settings.extra_repos.contains(&saved) {
            settings.extra_repos.push(saved);
        }
        settings.save(&settings_path)?;
        Ok(())
    })
    .await?;
    if !roots.extra_repos.contains(&path) {
        roots.extra_repos.push(path);
    }
    state.switch(roots, state.current().demo);
    crate::live::emit(&app, "worktrees:changed", ());
    Ok(())
}
