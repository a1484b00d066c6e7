//! The settings view: agent hooks (the change shown before it is made, and confirmed in a native
//! dialog that shows it again), extra repositories (picked in a native folder dialog).

use plandeck_core::agent::Agent;
use plandeck_core::gate::{self, GateError, HookPreview, InstallReport};
use plandeck_core::ipc::IpcError;
use tauri::{AppHandle, State};
use tauri_plugin_dialog::{DialogExt, MessageDialogButtons, MessageDialogKind};

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
/// ([`HookPreview::token`]): it must still be the change, the person confirms it in a native dialog
/// showing the same diff, and the write is refused if the settings file changed meanwhile. A backup
/// of the settings file is written beside it.
#[tauri::command]
#[tracing::instrument(skip(app, state, token))]
pub async fn set_hook(
    app: AppHandle,
    state: State<'_, AppState>,
    agent: Agent,
    installed: bool,
    token: String,
) -> Result<InstallReport, IpcError> {
    let roots = state.roots();
    let r = roots.clone();
    let plan = blocking(move || {
        Ok(if installed {
            gate::install_plan(&r, agent)?
        } else {
            gate::uninstall_plan(&r, agent)?
        })
    })
    .await?;
    if plan.token != token {
        return Err(GateError::SettingsChanged {
            path: plan.settings_path.into(),
        }
        .into());
    }
    if plan.changed {
        let verb = if installed { "Install" } else { "Uninstall" };
        let (app, title) = (
            app.clone(),
            format!(
                "{verb} the Plandeck hook in {}'s settings?",
                agent.display_name()
            ),
        );
        let message = format!(
            "This change will be made to {} (every other setting is kept; a backup is written \
             beside it):\n\n{}",
            plan.settings_path,
            plan.unified_diff()
        );
        let confirmed = blocking(move || {
            Ok(app
                .dialog()
                .message(message)
                .title(title)
                .kind(MessageDialogKind::Warning)
                .buttons(MessageDialogButtons::OkCancelCustom(
                    verb.into(),
                    "Cancel".into(),
                ))
                .blocking_show())
        })
        .await?;
        if !confirmed {
            return Ok(InstallReport {
                settings_path: plan.settings_path,
                backup_path: None,
                changed: false,
                message: "Cancelled: nothing was written.".to_owned(),
            });
        }
    }
    blocking(move || {
        Ok(if installed {
            gate::install_if_unchanged(&roots, agent, &token)?
        } else {
            gate::uninstall_if_unchanged(&roots, agent, &token)?
        })
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
    let Some(path) = super::pick::pick_folder(&app, "Add a repository").await? else {
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
