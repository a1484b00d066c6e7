//! Forwards the core's live events ([`plandeck_core::live`]) to the window and the desktop, and
//! re-arms the watchers when the roots change (the demo is loaded). Worktree files → the changed
//! worktrees re-read → `worktrees:updated` (`worktrees:changed` when worktrees come or go), sizes →
//! `worktrees:size`. Event names come from the IPC
//! table ([`IpcEvent`]), never spelled here.

use plandeck_core::ipc_table::IpcEvent;
use std::path::PathBuf;

use plandeck_core::live::{Live, LiveEvent, WorktreesChanged};
use plandeck_core::worktrees::{self, WorktreeSummary};
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
    let forward = app.clone();
    let handle = Live::start(
        &state.roots(),
        state.sessions.clone(),
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
        },
    );
    *lock(&state.live) = Some(handle);
    // The title counts the requests of these roots (some may wait already).
    crate::notify::waiting_title(app);
    *lock(&state.worktree_watcher) = None;
    state.worktree_sizes.clear();

    // Plan history: its first scan and its watcher run on a thread of their own.
    crate::history_live::start(app);
}

/// The sessions' worktree hints from the live index (read once at start and followed since), or
/// from the transcripts when the index is not there yet.
pub fn worktree_hints(state: &AppState) -> Vec<plandeck_core::sessions::WorktreeHint> {
    if let Some(index) = lock(&state.sessions).as_ref() {
        return index.worktree_hints();
    }
    plandeck_core::sessions::worktree_hints(&state.roots())
}

/// Puts the sizes known into `list` and returns the others, for [`measure_sizes`].
pub fn known_sizes(app: &AppHandle, list: &mut [WorktreeSummary]) -> Vec<(String, PathBuf)> {
    app.state::<AppState>().worktree_sizes.fill(list)
}

/// Measures `missing` in the background; each size comes as `worktrees:size`. Called after the
/// listing it completes is sent, so a size never arrives before its row.
pub fn measure_sizes(app: &AppHandle, missing: Vec<(String, PathBuf)>) {
    let size_app = app.clone();
    app.state::<AppState>()
        .worktree_sizes
        .measure(missing, move |size| emit(&size_app, size));
}

/// Watches the listed worktrees for live counts; re-armed only when the set of worktrees changes.
/// Each burst of changes that matters (ignored paths never do) re-reads only the worktrees it
/// concerns, on the watcher's thread (one re-read at a time; what changes meanwhile comes out as
/// one more), and sends them as `worktrees:updated`; a worktree added or removed asks the window to
/// list again (`worktrees:changed`).
pub fn watch_worktrees(app: &AppHandle, list: &[WorktreeSummary]) {
    let targets = worktrees::watch_targets(list);
    let state = app.state::<AppState>();
    let mut slot = lock(&state.worktree_watcher);
    if slot.as_ref().is_some_and(|(t, _)| *t == targets) {
        return;
    }
    let wt_app = app.clone();
    let on_change = move |changed: worktrees::Changed| {
        let state = wt_app.state::<AppState>();
        for id in &changed.ids {
            state.worktree_sizes.invalidate(id);
        }
        if changed.listing {
            emit(&wt_app, WorktreesChanged::default());
            return;
        }
        let roots = state.roots();
        let ids: Vec<&String> = changed.ids.iter().collect();
        match worktrees::refresh(&roots, &worktree_hints(&state), &ids) {
            Ok(mut fresh) => {
                let missing = known_sizes(&wt_app, &mut fresh);
                emit(&wt_app, fresh);
                measure_sizes(&wt_app, missing);
            }
            Err(e) => {
                tracing::warn!("cannot re-read changed worktrees: {e}");
                emit(&wt_app, WorktreesChanged::default());
            }
        }
    };
    match worktrees::watch(targets.clone(), worktrees::WATCH_TIMING, on_change) {
        Ok(h) => *slot = Some((targets, h)),
        Err(e) => tracing::warn!("worktrees are not watched live: {e}"),
    }
}
