//! Forwards the core's live events ([`plandeck_core::live`]) to the window and the desktop, and
//! re-arms the watchers when the roots change (the demo is loaded). Event names come from the IPC
//! table ([`IpcEvent`]), never spelled here.

use plandeck_core::ipc_table::IpcEvent;
use plandeck_core::live::{self, Live, LiveEvent, WorktreesChanged};
use tauri::{AppHandle, Emitter, Manager};

use crate::state::{lock, AppState};

/// Emits `payload` under its event's name, logging (not failing) when the window is gone.
pub fn emit<E: IpcEvent>(app: &AppHandle, payload: E) {
    if let Err(e) = app.emit(E::NAME, payload) {
        tracing::warn!("cannot emit {}: {e}", E::NAME);
    }
}

/// (Re)starts every watcher over the current roots and rebuilds the session index.
pub fn start(app: &AppHandle) {
    let state = app.state::<AppState>();
    // The old handle goes first, so its presence file and watchers are gone before new ones start.
    *lock(&state.live) = None;
    let forward = app.clone();
    let handle = Live::start(
        &state.roots(),
        state.sessions.clone(),
        move |event| match event {
            LiveEvent::Plans(changed) => emit(&forward, changed),
            LiveEvent::Sessions(changed) => emit(&forward, changed),
            LiveEvent::Gate(changed) => emit(&forward, changed),
            LiveEvent::RequestArrived(request) => {
                crate::notify::request_arrived(&forward, &request)
            }
            LiveEvent::SessionWaiting { message, .. } => {
                crate::notify::session_waiting(&forward, &message)
            }
        },
    );
    *lock(&state.live) = Some(handle);
    *lock(&state.worktree_watcher) = None;

    // Plan history: its first scan and its watcher run on a thread of their own.
    crate::history_live::start(app);
}

/// Watches the listed worktrees (dirs and git dirs) for live counts; re-armed only when the set
/// of paths changes.
pub fn watch_worktrees(app: &AppHandle, listed: &[plandeck_core::worktrees::WorktreeSummary]) {
    let state = app.state::<AppState>();
    let paths = plandeck_core::worktrees::watch_paths(listed);
    let mut slot = lock(&state.worktree_watcher);
    if slot.as_ref().is_some_and(|(p, _)| *p == paths) {
        return;
    }
    let wt_app = app.clone();
    match live::watch_worktrees(listed, move |changed: WorktreesChanged| {
        emit(&wt_app, changed)
    }) {
        Ok(h) => *slot = Some((paths, h)),
        Err(e) => tracing::warn!("worktrees are not watched live: {e}"),
    }
}
