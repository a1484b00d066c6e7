//! Worktrees: list, keep, remove (with a native confirmation when work would be lost), restore.

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

/// Keeps the worktree whose listed id is `id` (the webview passes ids, never paths).
#[tauri::command]
#[tracing::instrument(skip(state))]
pub async fn keep_worktree(state: State<'_, AppState>, id: String) -> Result<(), IpcError> {
    let roots = state.roots();
    blocking(move || {
        let path = worktrees::resolve_id(&roots, &id)?;
        Ok(worktrees::keep(&roots, &path)?)
    })
    .await
}

/// Removes the worktree whose listed id is `id`. When work would be lost (changed files,
/// unmerged or submodule commits), the base is unknown, or tmux panes are in it, a native dialog
/// lists exactly what (each agent pane it ends, each of the person's panes it leaves), and only
/// "Discard and remove" goes on; the removal then goes ahead only while the worktree is still
/// what the dialog showed (its preview token), else it is refused as a conflict. What can never
/// be removed (the main worktree, a path that is not a listed worktree) is refused outright.
#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn remove_worktree(
    app: AppHandle,
    state: State<'_, AppState>,
    id: String,
) -> Result<RemoveOutcome, IpcError> {
    let roots = state.roots();
    let r = roots.clone();
    let (path, preview) = blocking(move || {
        let path = worktrees::resolve_id(&r, &id)?;
        let preview = worktrees::removal_preview(&r, &path, None)?;
        Ok((path, preview))
    })
    .await?;
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
                panes_ended: Vec::new(),
            });
        }
        discard = true;
    }
    let opts = worktrees::RemoveOptions {
        discard,
        expected: Some(preview.token),
        tmux_socket: None,
    };
    let outcome = blocking(move || Ok(worktrees::remove(&roots, &path, &opts)?)).await;
    // Removed or refused because it changed: either way the list shows the new state.
    crate::live::emit(&app, "worktrees:changed", ());
    outcome
}

/// "Remove all clean and merged" for one repository.
#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn remove_clean_worktrees(
    app: AppHandle,
    state: State<'_, AppState>,
    repo_id: String,
) -> Result<Vec<String>, IpcError> {
    let roots = state.roots();
    let removed = blocking(move || {
        let repo = worktrees::resolve_repo_id(&roots, &repo_id)?;
        Ok(worktrees::remove_clean(&roots, &repo, None)?)
    })
    .await?;
    crate::live::emit(&app, "worktrees:changed", ());
    Ok(removed)
}

#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn restore_worktree(
    app: AppHandle,
    state: State<'_, AppState>,
    repo_id: String,
    archive_ref: String,
) -> Result<String, IpcError> {
    let roots = state.roots();
    let branch = blocking(move || {
        let repo = worktrees::resolve_repo_id(&roots, &repo_id)?;
        Ok(worktrees::restore(&roots, &repo, &archive_ref)?)
    })
    .await?;
    crate::live::emit(&app, "worktrees:changed", ());
    Ok(branch)
}
