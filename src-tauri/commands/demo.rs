use plandeck_core::ipc::IpcError;
use plandeck_core::overview::{overview, Overview};
use tauri::{AppHandle, Emitter, State};

use crate::AppState;

/// Creates the demo workspace and points the app at it ("Load demo" on the empty state).
#[tauri::command]
#[tracing::instrument(skip_all)]
pub async fn load_demo(app: AppHandle, state: State<'_, AppState>) -> Result<Overview, IpcError> {
    let roots =
        super::blocking(|| Ok(plandeck_core::demo::create(&std::env::temp_dir())?.roots())).await?;
    state.switch(roots.clone(), true);
    crate::live::start(&app);
    if let Err(e) = app.emit("app:roots-changed", ()) {
        tracing::warn!("cannot emit app:roots-changed: {e}");
    }
    Ok(overview(&roots, true))
}
