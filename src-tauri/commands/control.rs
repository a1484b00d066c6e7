//! Session control's own dialog: the repository a new session starts in, picked natively (the
//! other control commands are the table's deck calls).

use plandeck_core::ipc::IpcError;
use tauri::{AppHandle, State};

use crate::AppState;

#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn pick_repo(
    app: AppHandle,
    state: State<'_, AppState>,
) -> Result<Option<String>, IpcError> {
    super::settings::add_picked_repo(&app, &state, "Start a session in a repository").await
}

/// The window's New session of an ACP agent (issue 36): this user's server is started when none
/// runs (this program, `serve --daemon-launch`), then asked to start and host the agent in the
/// repository (or a new worktree of it); closing the window does not end it.
#[tauri::command]
#[tracing::instrument(skip(state))]
pub async fn start_acp_session(
    state: State<'_, AppState>,
    agent: String,
    repo: String,
    worktree: Option<String>,
    base: Option<String>,
    plan: bool,
    prompt: Option<String>,
) -> Result<plandeck_core::control::AcpStartAsked, IpcError> {
    use plandeck_core::ipc::ErrorKind;
    let roots = state.roots();
    tauri::async_runtime::spawn_blocking(move || {
        let exe = std::env::current_exe()
            .map_err(|e| IpcError::new(ErrorKind::Io, format!("cannot find this program: {e}")))?;
        plandeck_core::serve::daemon::ensure_running(&roots, &exe).map_err(|e| {
            IpcError::new(
                ErrorKind::Io,
                format!("cannot start the Plandeck server: {e}"),
            )
        })?;
        // `~/…` as the window writes paths.
        let repo = plandeck_core::deck::expand_home(&repo, &roots.home);
        Ok(plandeck_core::control::start_acp(
            &roots,
            &agent,
            &repo.to_string_lossy(),
            worktree.as_deref(),
            base.as_deref(),
            plan,
            prompt,
        )?)
    })
    .await
    .map_err(|e| IpcError::new(ErrorKind::Internal, e.to_string()))?
}
