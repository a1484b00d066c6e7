//! Plans: list, open, search, and extra plan folders.

use plandeck_core::config::Settings;
use plandeck_core::ipc::IpcError;
use plandeck_core::plans::{self, PlanDocument, PlanListing, SearchHit};
use plandeck_core::review;
use tauri::{AppHandle, State};

use super::blocking;
use crate::AppState;

#[tauri::command]
#[tracing::instrument(skip_all)]
pub async fn list_plans(state: State<'_, AppState>) -> Result<PlanListing, IpcError> {
    let roots = state.roots();
    blocking(move || Ok(plans::list(&roots))).await
}

/// One plan, rendered; the version is recorded in the review store as seen.
#[tauri::command]
#[tracing::instrument(skip(state))]
pub async fn get_plan(state: State<'_, AppState>, id: String) -> Result<PlanDocument, IpcError> {
    let roots = state.roots();
    blocking(move || {
        let doc = plans::get(&roots, &id)?;
        if let Err(e) = review::record_version(
            &roots,
            std::path::Path::new(&doc.plan.path),
            doc.source.as_bytes(),
        ) {
            tracing::warn!("cannot record a version of {}: {e}", doc.plan.path);
        }
        Ok(doc)
    })
    .await
}

#[tauri::command]
#[tracing::instrument(skip(state))]
pub async fn search_plans(
    state: State<'_, AppState>,
    query: String,
) -> Result<Vec<SearchHit>, IpcError> {
    let roots = state.roots();
    blocking(move || Ok(plans::search(&roots, &query))).await
}

/// Adds a folder of plans (picked in the native folder dialog) to the settings, then re-arms the
/// watchers so its plans show up live.
#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn add_plan_folder(
    app: AppHandle,
    state: State<'_, AppState>,
    path: String,
) -> Result<(), IpcError> {
    let mut roots = state.roots();
    let path = std::path::PathBuf::from(path);
    if !path.is_dir() {
        return Err(IpcError::new(
            plandeck_core::ipc::ErrorKind::NotFound,
            format!("{} is not a folder", path.display()),
        ));
    }
    let settings_path = roots.settings_path();
    let saved = roots.clone();
    let path2 = path.clone();
    blocking(move || {
        let mut settings = Settings::load(&settings_path)?;
        if !settings.extra_plan_folders.contains(&path2) {
            settings.extra_plan_folders.push(path2);
        }
        settings.save(&settings_path)?;
        Ok(())
    })
    .await?;
    if !roots.extra_plan_folders.contains(&path) {
        roots.extra_plan_folders.push(path);
    }
    state.switch(roots, state.current().demo);
    let _ = saved;
    crate::live::start(&app);
    crate::live::emit(
        &app,
        "plans:changed",
        plans::PlansChanged { paths: Vec::new() },
    );
    Ok(())
}
