use plandeck_core::ipc::{ErrorKind, IpcError};
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

/// "Leave the demo": points the app back at the person's own folders (resolved now, from the
/// flags, settings and environment it was started with). The demo workspace is left as it is.
#[tauri::command]
#[tracing::instrument(skip_all)]
pub async fn leave_demo(app: AppHandle, state: State<'_, AppState>) -> Result<Overview, IpcError> {
    let own = state.own_roots()?;
    if own.is_demo() {
        // Started as `HOME=<demo> plandeck`: its own folders are the demo's.
        return Err(IpcError::new(
            ErrorKind::BadInput,
            format!(
                "this window was opened with HOME={}, the demo workspace: close it and run \
                 `plandeck` to see your own folders",
                own.home.display()
            ),
        ));
    }
    state.switch(own.clone(), false);
    crate::live::start(&app);
    state.start_machines(&app);
    crate::live::emit(&app, plandeck_core::live::RootsChanged { demo: false });
    super::blocking(move || Ok(overview(&own, false))).await
}
