//! Turns file changes into events: plan files → `plans:changed`, transcripts and registries →
//! the session index → `sessions:changed`, worktree files → the changed worktrees re-read →
//! `worktrees:updated` (`worktrees:changed` when worktrees come or go), sizes → `worktrees:size`.
//!
//! The watchers live in the core; this module only connects their callbacks to Tauri events and
//! re-arms them when the roots change (the demo is loaded).

use std::path::PathBuf;
use std::time::Duration;

use plandeck_core::sessions::SessionIndex;
use plandeck_core::worktrees::{self, WorktreeSummary};
use plandeck_core::{gate, plans, review, watch};
use tauri::{AppHandle, Emitter, Manager};

use crate::state::{lock, AppState};

const DEBOUNCE: Duration = Duration::from_millis(150);

/// Emits `name` with `payload`, logging (not failing) when the window is gone.
pub fn emit<S: serde::Serialize + Clone>(app: &AppHandle, name: &str, payload: S) {
    if let Err(e) = app.emit(name, payload) {
        tracing::warn!("cannot emit {name}: {e}");
    }
}

/// (Re)starts every watcher over the current roots and rebuilds the session index.
pub fn start(app: &AppHandle) {
    let state = app.state::<AppState>();
    let roots = state.roots();
    let mut handles = Vec::new();

    // The gate: announce that Plandeck is running, and follow requests filed by hooks.
    *lock(&state.presence) = None;
    match gate::app_heartbeat(&roots) {
        Ok(p) => *lock(&state.presence) = Some(p),
        Err(e) => tracing::warn!("agent hooks will not wait for Plandeck: {e}"),
    }
    let gate_app = app.clone();
    let gate_roots = roots.clone();
    let seen = std::sync::Mutex::new(std::collections::HashSet::<String>::new());
    match watch::watch(
        vec![roots.data.join("gate")],
        Duration::from_millis(30),
        move |_| {
            let pending = gate::pending(&gate_roots);
            let mut seen = lock(&seen);
            for request in &pending {
                if seen.insert(request.id.clone()) {
                    crate::notify::request_arrived(&gate_app, request);
                }
            }
            emit(&gate_app, "gate:changed", ());
            if pending
                .iter()
                .any(|r| r.agent == plandeck_core::agent::Agent::Claude)
            {
                emit(&gate_app, "sessions:changed", ());
            }
        },
    ) {
        Ok(h) => handles.push(h),
        Err(e) => tracing::warn!("gate requests are not watched live: {e}"),
    }

    // Plans: record each version seen, then tell the window.
    let plan_app = app.clone();
    let plan_roots = roots.clone();
    match plans::watch(&roots, move |changed| {
        for path in &changed.paths {
            if let Ok(bytes) = std::fs::read(path) {
                if let Err(e) =
                    review::record_version(&plan_roots, std::path::Path::new(path), &bytes)
                {
                    tracing::warn!("cannot record a version of {path}: {e}");
                }
            }
        }
        emit(&plan_app, "plans:changed", changed);
    }) {
        Ok(h) => handles.push(h),
        Err(e) => tracing::warn!("plans are not watched live: {e}"),
    }

    // Sessions: a fresh index, then follow appended bytes.
    let index = SessionIndex::open(&roots);
    let session_paths = index.watch_roots();
    *lock(&state.sessions) = Some(index);
    let sessions = state.sessions.clone();
    let session_app = app.clone();
    let mut waiting = waiting_sessions(&sessions);
    match watch::watch(session_paths, DEBOUNCE, move |paths| {
        let changed = match lock(&sessions).as_mut() {
            Some(index) => index.apply(&paths),
            None => false,
        };
        if changed {
            emit(&session_app, "sessions:changed", ());
            // A session that starts waiting for the person gets a desktop notification.
            let now = waiting_sessions(&sessions);
            for (id, what) in &now {
                if !waiting.contains_key(id) {
                    crate::notify::session_waiting(&session_app, what);
                }
            }
            waiting = now;
        }
    }) {
        Ok(h) => handles.push(h),
        Err(e) => tracing::warn!("sessions are not watched live: {e}"),
    }

    // A registry entry whose process died changes nothing on disk: look again every few seconds.
    let tick_app = app.clone();
    let tick_sessions = state.sessions.clone();
    let generation = std::sync::Arc::new(());
    let weak = std::sync::Arc::downgrade(&generation);
    std::thread::spawn(move || loop {
        std::thread::sleep(Duration::from_secs(3));
        if weak.upgrade().is_none() {
            return;
        }
        let changed = match lock(&tick_sessions).as_mut() {
            Some(index) => index.tick(),
            None => false,
        };
        if changed {
            emit(&tick_app, "sessions:changed", ());
        }
    });
    *lock(&state.watchers) = handles;
    *lock(&state.tick) = Some(generation);
    *lock(&state.worktree_watcher) = None;
    state.worktree_sizes.clear();
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
        .measure(missing, move |size| emit(&size_app, "worktrees:size", size));
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
            emit(&wt_app, "worktrees:changed", ());
            return;
        }
        let roots = state.roots();
        let ids: Vec<&String> = changed.ids.iter().collect();
        match worktrees::refresh(&roots, &worktree_hints(&state), &ids) {
            Ok(mut fresh) => {
                let missing = known_sizes(&wt_app, &mut fresh);
                emit(&wt_app, "worktrees:updated", fresh);
                measure_sizes(&wt_app, missing);
            }
            Err(e) => {
                tracing::warn!("cannot re-read changed worktrees: {e}");
                emit(&wt_app, "worktrees:changed", ());
            }
        }
    };
    match worktrees::watch(targets.clone(), worktrees::WATCH_TIMING, on_change) {
        Ok(h) => *slot = Some((targets, h)),
        Err(e) => tracing::warn!("worktrees are not watched live: {e}"),
    }
}

/// Sessions waiting for the person (approval or input), by id, with a line saying which.
fn waiting_sessions(
    sessions: &std::sync::Mutex<Option<SessionIndex>>,
) -> std::collections::HashMap<String, String> {
    use plandeck_core::sessions::SessionState;
    let Some(index) = lock(sessions).as_ref().map(|i| i.sessions()) else {
        return Default::default();
    };
    index
        .into_iter()
        .filter(|s| {
            matches!(
                s.state,
                SessionState::WaitingForApproval | SessionState::WaitingForInput
            )
        })
        .map(|s| {
            let project = std::path::Path::new(&s.cwd)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let what = match s.state {
                SessionState::WaitingForApproval => "waits for your approval of its plan",
                _ => "waits for your input",
            };
            (
                s.session_id.clone(),
                format!("{} in {project} {what}.", s.agent.display_name()),
            )
        })
        .collect()
}
