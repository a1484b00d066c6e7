//! Extra plan folders: the webview never sends a folder path (the shell picks it).

use plandeck_core::ipc::IpcError;
use plandeck_core::plans;
use tauri::{AppHandle, State};

use super::blocking;
use crate::AppState;

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
