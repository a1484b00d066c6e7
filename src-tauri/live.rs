//! Forwards the core's live events ([`plandeck_core::live`]) to the window and the desktop, and
//! starts a new live handle when the roots change (the demo is loaded). Event names come from the
//! IPC table ([`IpcEvent`]), never spelled here.

use plandeck_core::ipc_table::IpcEvent;

use plandeck_core::live::{Live, LiveEvent};
use plandeck_core::mirror::TerminalEvent;
use tauri::{AppHandle, Emitter, Manager};

use crate::state::{lock, AppState};

/// Emits `payload` under its event's name, logging (not failing) when the window is gone.
pub fn emit<E: IpcEvent>(app: &AppHandle, payload: E) {
    if let Err(e) = app.emit(E::NAME, payload) {
        tracing::warn!("cannot emit {}: {e}", E::NAME);
    }
}

/// (Re)starts every watcher over the current roots and rebuilds the session index.
#[tracing::instrument(skip_all)]
pub fn start(app: &AppHandle) {
    // One start at a time (the first runs on a thread of its own while a command may restart).
    static STARTING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = lock(&STARTING);
    let state = app.state::<AppState>();
    // The old handle goes first, so its presence file and watchers are gone before new ones start.
    *lock(&state.live) = None;
    let handle = Live::start(&state.roots(), state.sessions.clone(), forward(app.clone()));
    *lock(&state.live) = Some(handle);
    // The title counts the requests of these roots (some may wait already).
    crate::notify::waiting_title(app);
}

/// What each live event becomes: an event to the window, a desktop notification, the title.
pub fn forward(app: AppHandle) -> impl Fn(LiveEvent) + Send + Sync + 'static {
    let forward = app;
    move |event| match event {
        LiveEvent::Plans(changed) => emit(&forward, changed),
        LiveEvent::Sessions(changed) => {
            emit(&forward, changed);
            crate::memory::after_work();
        }
        LiveEvent::Gate(changed) => {
            emit(&forward, changed);
            crate::notify::waiting_title(&forward);
        }
        LiveEvent::SessionIndex(progress) => {
            let ready = progress.ready;
            emit(&forward, progress);
            if ready {
                crate::memory::after_work();
            }
        }
        LiveEvent::RequestArrived(request) => {
            crate::notify::request_arrived(&forward, &request);
            crate::notify::ask_attention(&forward);
        }
        LiveEvent::SessionWaiting { message, .. } => {
            crate::notify::session_waiting(&forward, &message)
        }
        LiveEvent::HistoryProgress(progress) => emit(&forward, progress),
        LiveEvent::History(changed) => {
            crate::memory::after_work();
            emit(&forward, changed);
        }
        LiveEvent::Worktrees(changed) => emit(&forward, changed),
        LiveEvent::WorktreesUpdated(fresh) => emit(&forward, fresh),
        LiveEvent::WorktreeSize(size) => emit(&forward, size),
        LiveEvent::Comments(changed) => emit(&forward, changed),
        LiveEvent::Machines(statuses) => emit(&forward, statuses),
        LiveEvent::Terminal(TerminalEvent::Output(output)) => emit(&forward, output),
        LiveEvent::Terminal(TerminalEvent::Closed(closed)) => emit(&forward, closed),
    }
}
