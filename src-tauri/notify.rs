//! Desktop notifications: a plan waiting for the reviewer, a session that starts waiting.

use plandeck_core::gate::GateRequest;
use tauri::AppHandle;
use tauri_plugin_notification::NotificationExt;

/// Tells the person a plan is waiting (best effort: no notification daemon is not an error).
pub fn request_arrived(app: &AppHandle, request: &GateRequest) {
    let project = std::path::Path::new(&request.cwd)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| request.cwd.clone());
    let body = format!(
        "{} in {project} waits for your decision.",
        request.agent.display_name()
    );
    if let Err(e) = app
        .notification()
        .builder()
        .title("A plan is waiting")
        .body(body)
        .show()
    {
        tracing::debug!("no desktop notification: {e}");
    }
}

/// Tells the person a session started waiting for them.
pub fn session_waiting(app: &AppHandle, what: &str) {
    if let Err(e) = app
        .notification()
        .builder()
        .title("A session needs you")
        .body(what)
        .show()
    {
        tracing::debug!("no desktop notification: {e}");
    }
}
