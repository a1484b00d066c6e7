//! Forwards the workspace's events ([`plandeck_core::workspace`]) to the window, named as the
//! wire names them ([`plandeck_core::wire::event_of`], never spelled here), and to the desktop
//! (notifications, the title, memory after heavy work).

use plandeck_core::live::LiveEvent;
use tauri::{AppHandle, Emitter};

/// What each event becomes: an event to the window, a desktop notification, the title.
pub fn forward(app: AppHandle) -> impl Fn(LiveEvent) + Send + Sync + 'static {
    move |event| {
        let gate = matches!(event, LiveEvent::Gate(_));
        let heavy = match &event {
            LiveEvent::Sessions(_) | LiveEvent::History(_) => true,
            LiveEvent::SessionIndex(progress) => progress.ready,
            LiveEvent::RequestArrived(request) => {
                crate::notify::request_arrived(&app, request);
                crate::notify::ask_attention(&app);
                false
            }
            LiveEvent::SessionWaiting { message, .. } => {
                crate::notify::session_waiting(&app, message);
                false
            }
            _ => false,
        };
        if let Some((name, payload)) = plandeck_core::wire::event_of(event) {
            if let Err(e) = app.emit(name, payload) {
                tracing::warn!("cannot emit {name}: {e}");
            }
        }
        if gate {
            crate::notify::waiting_title(&app);
        }
        if heavy {
            crate::memory::after_work();
        }
    }
}
