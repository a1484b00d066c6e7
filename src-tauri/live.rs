//! Turns file changes into events: plan files → `plans:changed`, transcripts and registries →
//! the session index → `sessions:changed`, worktree files → `worktrees:changed`.
//!
//! The watchers live in the core; this module only connects their callbacks to Tauri events and
//! re-arms them when the roots change (the demo is loaded).

use std::time::Duration;

use plandeck_core::sessions::SessionIndex;
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

    // Sessions: the index loads in the background (seconds on a heavy home) while the window
    // shows plans; `sessions:progress` tells how far it is, `sessions:changed` when it is in.
    // The watcher starts first: what it reports meanwhile waits in the backlog.
    *lock(&state.sessions) = None;
    lock(&state.sessions_backlog).clear();
    *lock(&state.sessions_progress) = Default::default();
    let sessions = state.sessions.clone();
    let backlog = state.sessions_backlog.clone();
    let session_app = app.clone();
    // Sessions already waiting when the index came in are not news (no notification).
    let mut waiting: Option<std::collections::HashMap<String, String>> = None;
    match watch::watch(
        SessionIndex::watch_roots_of(&roots),
        DEBOUNCE,
        move |paths| {
            let changed = {
                let mut slot = lock(&sessions);
                match slot.as_mut() {
                    Some(index) => {
                        if waiting.is_none() {
                            waiting = Some(waiting_sessions(index));
                        }
                        index.apply(&paths)
                    }
                    None => {
                        lock(&backlog).extend(paths);
                        false
                    }
                }
            };
            if changed {
                emit(&session_app, "sessions:changed", ());
                // A session that starts waiting for the person gets a desktop notification.
                let now = lock(&sessions)
                    .as_ref()
                    .map(waiting_sessions)
                    .unwrap_or_default();
                let before = waiting.take().unwrap_or_default();
                for (id, what) in &now {
                    if !before.contains_key(id) {
                        crate::notify::session_waiting(&session_app, what);
                    }
                }
                waiting = Some(now);
            }
        },
    ) {
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
    load_sessions(app, roots, std::sync::Arc::downgrade(&generation));
    *lock(&state.tick) = Some(generation);
    *lock(&state.worktree_watcher) = None;
}

/// The threads that read the session index: a pool of their own, so the commands' parallel work
/// (listing plans uses rayon's global pool) does not queue behind a heavy home's thousand
/// transcripts, and at low priority (nice 10), so the window stays responsive while they read.
fn index_pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: std::sync::OnceLock<Option<rayon::ThreadPool>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(std::thread::available_parallelism().map_or(2, |n| n.get()))
            .thread_name(|i| format!("session-index-{i}"))
            .start_handler(|_| {
                // SAFETY: setpriority with PRIO_PROCESS and who = 0 changes only the calling
                // thread's nice value on Linux; it has no memory-safety preconditions.
                #[cfg(target_os = "linux")]
                unsafe {
                    libc::setpriority(libc::PRIO_PROCESS, 0, 10);
                }
            })
            .build()
            .map_err(|e| tracing::warn!("the session index reads on the shared threads: {e}"))
            .ok()
    })
    .as_ref()
}

/// Reads the session index on a thread of its own, emitting `sessions:progress` as it goes (at
/// most every 100 ms, and when done), then stores it unless the roots changed meanwhile
/// (`generation` gone) and applies what the watcher reported while it read.
fn load_sessions(
    app: &AppHandle,
    roots: plandeck_core::config::Roots,
    generation: std::sync::Weak<()>,
) {
    let app = app.clone();
    std::thread::spawn(move || {
        let state = app.state::<AppState>();
        let last = std::sync::Mutex::new(None::<std::time::Instant>);
        let progress = state.sessions_progress.clone();
        let read = || {
            SessionIndex::open_with_progress(&roots, &|p| {
                if generation.upgrade().is_none() {
                    return;
                }
                let mut last = lock(&last);
                if !p.ready && last.is_some_and(|t| t.elapsed() < Duration::from_millis(100)) {
                    return;
                }
                *last = Some(std::time::Instant::now());
                if p.ready {
                    return; // said once the index is stored, below
                }
                *lock(&progress) = p;
                emit(&app, "sessions:progress", p);
            })
        };
        let index = match index_pool() {
            Some(pool) => pool.install(read),
            None => read(),
        };
        let done = {
            let mut slot = lock(&state.sessions);
            // Checked under the lock: a newer start() clears the slot before its own load.
            if generation.upgrade().is_none() {
                return;
            }
            let mut index = index;
            let backlog = std::mem::take(&mut *lock(&state.sessions_backlog));
            if !backlog.is_empty() {
                index.apply(&backlog);
            }
            let n = index.sessions().len();
            *slot = Some(index);
            let p = plandeck_core::sessions::IndexProgress::new(n, n, true);
            *lock(&state.sessions_progress) = p;
            p
        };
        tracing::info!(sessions = done.total, "session index loaded");
        emit(&app, "sessions:progress", done);
        emit(&app, "sessions:changed", ());
    });
}

/// Watches the given worktrees (dirs and git dirs) for live counts; re-armed only when the set
/// of paths changes.
pub fn watch_worktrees(app: &AppHandle, paths: Vec<std::path::PathBuf>) {
    let state = app.state::<AppState>();
    let mut slot = lock(&state.worktree_watcher);
    if slot.as_ref().is_some_and(|(p, _)| *p == paths) {
        return;
    }
    let wt_app = app.clone();
    match watch::watch(paths.clone(), Duration::from_millis(250), move |_| {
        emit(&wt_app, "worktrees:changed", ());
    }) {
        Ok(h) => *slot = Some((paths, h)),
        Err(e) => tracing::warn!("worktrees are not watched live: {e}"),
    }
}

/// Sessions waiting for the person (approval or input), by id, with a line saying which.
fn waiting_sessions(index: &SessionIndex) -> std::collections::HashMap<String, String> {
    use plandeck_core::sessions::SessionState;
    index
        .sessions()
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
