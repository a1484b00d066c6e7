//! The plan history in the window (issue 13): kept in memory and brought up to date on its own
//! thread — the first scan of a home reads every transcript the store does not cover, so it runs
//! after the window is up, sending `history:progress` while it reads and `history:changed` when
//! the plans it found changed; then a watcher on the transcript folders refreshes it (only the
//! appended bytes are read). Commands read the plans from memory and never scan.

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use plandeck_core::config::Roots;
use plandeck_core::history::{Live, RecoveredPlan, ScanProgress};
use plandeck_core::watch;
use tauri::{AppHandle, Manager};

use crate::state::{lock, AppState};

/// The live history and the last progress of its scan.
#[derive(Default)]
pub struct HistoryState {
    inner: Mutex<Inner>,
    ready: Condvar,
    /// One refresh at a time (the watcher's, a command's).
    scanning: Mutex<()>,
}

#[derive(Default)]
struct Inner {
    live: Live,
    progress: ScanProgress,
    /// Bumped when the roots change: a scan of old roots does not land in the new state.
    generation: u64,
    /// The watcher of the transcript folders (dropped with the roots).
    watcher: Option<watch::WatchHandle>,
}

impl HistoryState {
    /// The plans as the last scan left them; waits for the first scan of these roots to end.
    pub fn plans(&self) -> Vec<RecoveredPlan> {
        let mut g = lock(&self.inner);
        while g.live.history().is_none() {
            g = self.ready.wait(g).unwrap_or_else(|e| e.into_inner());
        }
        g.live
            .history()
            .map(|h| h.plans.clone())
            .unwrap_or_default()
    }

    /// The plans as the last scan left them, without waiting: empty before the first scan ends
    /// (`history:changed` follows when it does).
    pub fn plans_now(&self) -> Vec<RecoveredPlan> {
        lock(&self.inner)
            .live
            .history()
            .map(|h| h.plans.clone())
            .unwrap_or_default()
    }

    /// How far the scan is.
    pub fn progress(&self) -> ScanProgress {
        lock(&self.inner).progress
    }

    /// The roots' generation (see [`refresh`]).
    pub fn generation(&self) -> u64 {
        lock(&self.inner).generation
    }
}

/// Starts (or restarts, for new roots) the history's scan and its watcher, on a thread of its own.
pub fn start(app: &AppHandle) {
    let state = app.state::<AppState>();
    let roots = state.roots();
    let history = state.history.clone();
    let generation = {
        let mut g = lock(&history.inner);
        g.generation += 1;
        g.live = Live::new();
        g.progress = ScanProgress::default();
        g.watcher = None;
        g.generation
    };
    let app = app.clone();
    std::thread::spawn(move || {
        refresh(&app, &history, &roots, generation, false);
        // Transcripts, and plan files (a plan whose file is deleted or written back changes
        // which plans only the transcripts hold).
        let folders = vec![
            roots.claude.join("projects"),
            roots.claude.join("plans"),
            roots.gemini.join("tmp"),
            roots.codex.join("sessions"),
        ];
        let (w_app, w_history, w_roots) = (app.clone(), history.clone(), roots.clone());
        match watch::watch(folders, Duration::from_millis(250), move |paths| {
            let plan_file = paths
                .iter()
                .any(|p| p.extension().is_some_and(|x| x == "md"));
            refresh(&w_app, &w_history, &w_roots, generation, plan_file);
        }) {
            Ok(h) => {
                let mut g = lock(&history.inner);
                if g.generation == generation {
                    g.watcher = Some(h);
                }
            }
            Err(e) => tracing::warn!("transcripts are not watched for plan history: {e}"),
        }
    });
}

/// One scan (the first, or after a change), with progress events at most every 100 ms.
pub fn refresh(
    app: &AppHandle,
    history: &Arc<HistoryState>,
    roots: &Roots,
    generation: u64,
    refold: bool,
) {
    let _one = lock(&history.scanning);
    let mut g = lock(&history.inner);
    if g.generation != generation {
        return;
    }
    let first = g.live.history().is_none();
    let last_sent = Mutex::new(Instant::now() - Duration::from_secs(1));
    let progress = |p: ScanProgress| {
        if first {
            lock(&history.inner).progress = p;
        }
        let mut last = lock(&last_sent);
        if first && (p.done || p.files_done == 0 || last.elapsed() >= Duration::from_millis(100)) {
            *last = Instant::now();
            crate::live::emit(app, p);
        }
    };
    // Taken out while reading, so the progress can be read; `plans` waits for it to be back.
    let mut live = std::mem::take(&mut g.live);
    drop(g);
    // A scan that panics must not leave commands waiting for it: they get no plans, with a note.
    let changed = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // On the background pool, so listing plans never queues behind the first scan.
        plandeck_core::live::in_background(|| live.refresh(roots, refold, &progress))
    })) {
        Ok(changed) => changed,
        Err(_) => {
            tracing::error!("the plan history scan failed");
            live = Live::failed("The plan history could not be read (the scan failed).".into());
            true
        }
    };
    let mut g = lock(&history.inner);
    if g.generation != generation {
        return;
    }
    if first {
        let stats = live.history().map(|h| h.stats.clone()).unwrap_or_default();
        g.progress = ScanProgress {
            files_done: stats.files,
            files: stats.files,
            bytes_done: stats.bytes_read,
            bytes: stats.bytes_read,
            done: true,
        };
    }
    let plans = live.history().map_or(0, |h| h.plans.len() as u32);
    g.live = live;
    drop(g);
    history.ready.notify_all();
    crate::memory::after_work();
    if changed {
        crate::live::emit(app, plandeck_core::history::HistoryChanged { plans });
    }
}
