//! Worktrees: list, keep, remove (after a native confirmation of what core's preview shows; the
//! removal goes ahead only while the worktree is still what the dialog showed), restore. Each
//! command is one call on core's deck, or preview → dialog → apply for a removal.

use plandeck_core::ipc::IpcError;
use plandeck_core::worktrees::{RemoveOutcome, WorktreeDetails, WorktreeSummary};
use tauri::{AppHandle, State};

use super::blocking;
use crate::AppState;

#[tauri::command]
#[tracing::instrument(skip_all)]
pub async fn list_worktrees(
    app: AppHandle,
    state: State<'_, AppState>,
) -> Result<Vec<WorktreeSummary>, IpcError> {
    // Sizes are not walked here: known ones are filled in, the others come as `worktrees:size`
    // (the window keeps a size that arrives before the listing does).
    let deck = state.deck(&app);
    blocking(move || deck.list_worktrees()).await
}

/// Keeps the worktree whose listed id is `id` (the webview passes ids, never paths).
#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn keep_worktree(
    app: AppHandle,
    state: State<'_, AppState>,
    id: String,
) -> Result<(), IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.keep_worktree(&id)).await
}

/// Forgets the Keep choice for the worktree whose listed id is `id` (nothing on disk changes).
#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn unkeep_worktree(
    app: AppHandle,
    state: State<'_, AppState>,
    id: String,
) -> Result<(), IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.unkeep_worktree(&id)).await
}

/// The changed files (status in words) and unmerged commits behind a worktree row's counts.
#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn worktree_details(
    app: AppHandle,
    state: State<'_, AppState>,
    id: String,
) -> Result<WorktreeDetails, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.worktree_details(&id)).await
}

/// Removes the worktree whose listed id is `id`, after a native dialog showing what it does (core's
/// words: the folder and branch, each agent pane it ends, each of the person's panes it leaves,
/// what would be lost, and then only "Discard and remove" goes on; Cancel on the left:
/// `confirm.rs`). What can never be removed is refused by core before any dialog.
#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn remove_worktree(
    app: AppHandle,
    state: State<'_, AppState>,
    id: String,
) -> Result<RemoveOutcome, IpcError> {
    let deck = state.deck(&app);
    let (deck, id, preview, ask) = blocking(move || {
        let (preview, ask) = deck.removal_to_confirm(&id)?;
        Ok((deck, id, preview, ask))
    })
    .await?;
    let asked = app.clone();
    if !blocking(move || Ok(crate::confirm::ask(&asked, ask))).await? {
        return Ok(RemoveOutcome::not_removed());
    }
    blocking(move || deck.remove_worktree(&id, &preview)).await
}

/// "Remove all clean and merged" for the repository whose listed id is `repo_id`: a native dialog
/// names each worktree it would remove; each goes only while it is still what the dialog showed.
#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn remove_clean_worktrees(
    app: AppHandle,
    state: State<'_, AppState>,
    repo_id: String,
) -> Result<Vec<String>, IpcError> {
    let deck = state.deck(&app);
    let (deck, previews, ask) = blocking(move || {
        let (previews, ask) = deck.clean_removals_to_confirm(&repo_id)?;
        Ok((deck, previews, ask))
    })
    .await?;
    let Some(ask) = ask else {
        return Ok(Vec::new());
    };
    let asked = app.clone();
    if !blocking(move || Ok(crate::confirm::ask(&asked, ask))).await? {
        return Ok(Vec::new());
    }
    blocking(move || deck.remove_clean(&previews)).await
}

#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn restore_worktree(
    app: AppHandle,
    state: State<'_, AppState>,
    repo_id: String,
    archive_ref: String,
) -> Result<String, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.restore_worktree(&repo_id, &archive_ref)).await
}
