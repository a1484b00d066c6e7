//! Worktree removals: after a native confirmation of what core's preview shows, going ahead only
//! while the worktree is still what the dialog showed (preview → dialog → apply).

use plandeck_core::ipc::IpcError;
use plandeck_core::worktrees::RemoveOutcome;
use tauri::{AppHandle, State};

use super::blocking;
use crate::AppState;

#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn remove_worktree(
    app: AppHandle,
    state: State<'_, AppState>,
    id: String,
) -> Result<RemoveOutcome, IpcError> {
    let deck = state.deck();
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

#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn remove_clean_worktrees(
    app: AppHandle,
    state: State<'_, AppState>,
    repo_id: String,
) -> Result<Vec<String>, IpcError> {
    let deck = state.deck();
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
