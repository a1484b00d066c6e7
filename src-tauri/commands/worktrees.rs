//! Worktrees: list, keep, remove (with a native confirmation when work would be lost), restore.

use std::path::PathBuf;

use plandeck_core::ipc::{ErrorKind, IpcError};
use plandeck_core::worktrees::{self, RemoveOutcome, WorktreeSummary};
use tauri::{AppHandle, State};
use tauri_plugin_dialog::{DialogExt, MessageDialogButtons, MessageDialogKind};

use super::blocking;
use crate::AppState;

#[tauri::command]
#[tracing::instrument(skip_all)]
pub async fn list_worktrees(
    app: AppHandle,
    state: State<'_, AppState>,
) -> Result<Vec<WorktreeSummary>, IpcError> {
    let roots = state.roots();
    let list = blocking(move || Ok(worktrees::list(&roots, None)?)).await?;
    crate::live::watch_worktrees(&app, worktrees::watch_paths(&list));
    Ok(list)
}

#[tauri::command]
#[tracing::instrument(skip(state))]
pub async fn keep_worktree(state: State<'_, AppState>, path: String) -> Result<(), IpcError> {
    let roots = state.roots();
    blocking(move || Ok(worktrees::keep(&roots, &PathBuf::from(path))?)).await
}

/// Removes a worktree. When work would be lost (changed files, unmerged commits) or the base is
/// unknown, a native dialog lists exactly what, and only "Discard and remove" goes on. What can
/// never be removed (the main worktree, a path that is not a listed worktree) is refused outright.
#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn remove_worktree(
    app: AppHandle,
    state: State<'_, AppState>,
    path: String,
) -> Result<RemoveOutcome, IpcError> {
    let roots = state.roots();
    let path = PathBuf::from(path);
    let (r, p) = (roots.clone(), path.clone());
    let preview = blocking(move || Ok(worktrees::removal_preview(&r, &p)?)).await?;
    let mut discard = false;
    if !preview.refusals.is_empty() {
        if !preview.confirmable {
            let why: Vec<String> = preview.refusals.iter().map(|r| r.message()).collect();
            return Err(IpcError::new(
                ErrorKind::Refused,
                format!("{} cannot be removed: {}", path.display(), why.join("; ")),
            ));
        }
        let confirmed = app
            .dialog()
            .message(format!(
                "{}\n\nThe branch tip is saved as {} first, so commits can be restored.",
                preview.loss_summary,
                preview.archive_ref.as_deref().unwrap_or("an archive ref")
            ))
            .title(format!("Remove {}?", path.display()))
            .kind(MessageDialogKind::Warning)
            .buttons(MessageDialogButtons::OkCancelCustom(
                "Discard and remove".into(),
                "Cancel".into(),
            ))
            .blocking_show();
        if !confirmed {
            return Ok(RemoveOutcome {
                removed: false,
                archive_ref: None,
                branch_deleted: None,
                tmux_session_killed: None,
            });
        }
        discard = true;
    }
    let outcome = blocking(move || Ok(worktrees::remove(&roots, &path, discard)?)).await?;
    crate::live::emit(&app, "worktrees:changed", ());
    Ok(outcome)
}

/// "Remove all clean and merged" for one repository.
#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn remove_clean_worktrees(
    app: AppHandle,
    state: State<'_, AppState>,
    repo: String,
) -> Result<Vec<String>, IpcError> {
    let roots = state.roots();
    let removed =
        blocking(move || Ok(worktrees::remove_clean(&roots, &PathBuf::from(repo))?)).await?;
    crate::live::emit(&app, "worktrees:changed", ());
    Ok(removed)
}

#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn restore_worktree(
    app: AppHandle,
    state: State<'_, AppState>,
    repo: String,
    archive_ref: String,
) -> Result<String, IpcError> {
    let roots = state.roots();
    let branch = blocking(move || {
        Ok(worktrees::restore(
            &roots,
            &PathBuf::from(repo),
            &archive_ref,
        )?)
    })
    .await?;
    crate::live::emit(&app, "worktrees:changed", ());
    Ok(branch)
}
