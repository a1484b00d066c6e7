//! Telling the person: desktop notifications (a plan waiting for the reviewer, a session that
//! starts waiting), the window's title ("Plandeck (1 waiting)") and, for a plan that arrives while
//! the window is not focused, the window asking for attention (an urgency hint).

use plandeck_core::gate::GateRequest;
use tauri::{AppHandle, Manager, UserAttentionType};
use tauri_plugin_notification::NotificationExt;

use crate::AppState;

/// Sets the window's title from the requests waiting now ([`plandeck_core::gate::window_title`]).
pub fn waiting_title(app: &AppHandle) {
    // This machine's requests and what the other machines last said (none asked now).
    let waiting = app.state::<AppState>().deck().waiting_now();
    let title = plandeck_core::gate::window_title(&waiting);
    if let Some(window) = app.get_webview_window("main") {
        if let Err(e) = window.set_title(&title) {
            tracing::debug!("cannot set the window title: {e}");
        }
    }
}

/// What to ask of the window manager when a request arrives: attention (an urgency hint, the
/// taskbar entry marked) only when the window is not the focused one, informational (it does
/// not steal focus).
pub fn attention(focused: bool) -> Option<UserAttentionType> {
    (!focused).then_some(UserAttentionType::Informational)
}

/// A request arrived: the window asks for attention unless the person is looking at it.
pub fn ask_attention(app: &AppHandle) {
    let Some(window) = app.get_webview_window("main") else {
        return;
    };
    if let Some(kind) = attention(window.is_focused().unwrap_or(false)) {
        if let Err(e) = window.request_user_attention(Some(kind)) {
            tracing::debug!("cannot ask for attention: {e}");
        }
    }
}

/// Tells the person a plan is waiting (best effort: no notification daemon is not an error).
pub fn request_arrived(app: &AppHandle, request: &GateRequest) {
    // Another machine's words are one line of text a person can see, markup escaped, bounded,
    // and the machine is named first.
    let (title, body) = plandeck_core::gate::arrival_notice(request);
    if let Err(e) = app.notification().builder().title(title).body(body).show() {
        tracing::debug!("no desktop notification: {e}");
    }
}

/// Tells the person a session started waiting for them.
pub fn session_waiting(app: &AppHandle, what: &str) {
    if let Err(e) = app
        .notification()
        .builder()
        .title("A session needs you")
        .body(plandeck_core::gate::notice_text(what, 300))
        .show()
    {
        tracing::debug!("no desktop notification: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attention_only_while_the_window_is_not_focused() {
        assert!(matches!(
            attention(false),
            Some(UserAttentionType::Informational)
        ));
        assert!(attention(true).is_none());
    }
}
