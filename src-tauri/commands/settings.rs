//! The settings view's extra repositories, picked in a native folder dialog (its agent hooks are
//! the table's deck calls).

use plandeck_core::ipc::IpcError;
use tauri::{AppHandle, State};

use super::blocking;
use crate::AppState;

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
