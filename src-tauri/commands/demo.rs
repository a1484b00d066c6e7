use plandeck_core::ipc::IpcError;
use plandeck_core::overview::{overview, Overview};
use tauri::{AppHandle, State};

use crate::AppState;

/// Creates the demo workspace and points the app at it ("Load demo" on the empty state).
#[tauri::command]
#[tracing::instrument(skip_all)]
pub async fn load_demo(app: AppHandle, state: State<'_, AppState>) -> Result<Overview, IpcError> {
    let roots =
        super::blocking(|| Ok(plandeck_core::demo::create(&std::env::temp_dir())?.roots())).await?;
    state.switch(roots.clone(), true);
    crate::live::start(&app);
    crate::live::emit(&app, plandeck_core::live::RootsChanged { demo: true });
    Ok(overview(&roots, true))
}
