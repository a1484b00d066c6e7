//! The plan history, kept live (issue 13): in memory, brought up to date on a thread of its own.
//! The first scan of a home reads every transcript the store does not cover, so it runs in the
//! background, reporting [`LiveEvent::HistoryProgress`] while it reads and [`LiveEvent::History`]
//! when the plans it found changed; then a watcher on the transcript folders refreshes it (only
//! the appended bytes are read). Readers take the plans from memory and never scan.
//!
//! It belongs to a [`super::Live`] handle: when the handle is dropped (the roots changed), its
//! scans stop reporting and its watcher goes.

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use super::{in_background, lock, LiveEvent};
use crate::agents::{claude, codex, gemini};
use crate::config::Roots;
use crate::history::{Follower as Folded, HistoryChanged, RecoveredPlan, ScanProgress};
use crate::watch::{self, WatchHandle};

type Emit = Arc<dyn Fn(LiveEvent) + Send + Sync>;

/// The live history of one set of roots.
pub struct LiveHistory {
    roots: Roots,
    inner: Mutex<Inner>,
    ready: Condvar,
    /// One refresh at a time (the watcher's, a restore's).
    scanning: Mutex<()>,
    emit: Emit,
}

#[derive(Default)]
struct Inner {
    folded: Folded,
    progress: ScanProgress,
    /// The watcher of the transcript folders (dropped with this).
    watcher: Option<WatchHandle>,
}

impl LiveHistory {
    /// Starts the first scan and then the watcher of `roots`' transcript folders, on a thread of
    /// their own; reports through `emit`.
    pub fn start(roots: &Roots, emit: Emit) -> Arc<Self> {
        let this = Arc::new(Self {
            roots: roots.clone(),
            inner: Mutex::default(),
            ready: Condvar::new(),
            scanning: Mutex::new(()),
            emit,
        });
        let weak = Arc::downgrade(&this);
        std::thread::spawn(move || {
            let Some(this) = weak.upgrade() else { return };
            // The watcher is armed before the first scan, so that nothing written while it reads
            // is missed: a change then waits for the scan and reads what it appended.
            // Transcripts, and plan files (a plan whose file is deleted or written back changes
            // which plans only the transcripts hold).
            let folders = vec![
                claude::projects_dir(&this.roots.claude),
                claude::plans_dir(&this.roots.claude),
                gemini::tmp_dir(&this.roots.gemini),
                codex::sessions_dir(&this.roots.codex),
            ];
            let on_change = weak.clone();
            match watch::watch(folders, Duration::from_millis(250), move |paths| {
                let plan_file = paths
                    .iter()
                    .any(|p| p.extension().is_some_and(|x| x == "md"));
                if let Some(this) = on_change.upgrade() {
                    this.refresh(plan_file);
                }
            }) {
                Ok(h) => lock(&this.inner).watcher = Some(h),
                Err(e) => tracing::warn!("transcripts are not watched for plan history: {e}"),
            }
            this.refresh(false);
        });
        this
    }

    /// A history with no plans, already scanned (before any roots are watched).
    pub fn empty(roots: &Roots) -> Arc<Self> {
        let this = Self {
            roots: roots.clone(),
            inner: Mutex::default(),
            ready: Condvar::new(),
            scanning: Mutex::new(()),
            emit: Arc::new(|_| {}),
        };
        lock(&this.inner).folded = Folded::failed("The plan history is not read yet.".into());
        Arc::new(this)
    }

    /// The plans as the last scan left them; waits for the first scan to end.
    pub fn plans(&self) -> Vec<RecoveredPlan> {
        let mut g = lock(&self.inner);
        while g.folded.history().is_none() {
            g = self.ready.wait(g).unwrap_or_else(|e| e.into_inner());
        }
        g.folded
            .history()
            .map(|h| h.plans.clone())
            .unwrap_or_default()
    }

    /// The plans as the last scan left them, without waiting: empty before the first scan ends
    /// ([`LiveEvent::History`] follows when it does).
    pub fn plans_now(&self) -> Vec<RecoveredPlan> {
        lock(&self.inner)
            .folded
            .history()
            .map(|h| h.plans.clone())
            .unwrap_or_default()
    }

    /// How far the first scan is.
    pub fn progress(&self) -> ScanProgress {
        lock(&self.inner).progress
    }

    /// One scan (the first, or after a change: with `refold`, folds again even when no
    /// transcript changed), with progress at most every 100 ms during the first.
    pub fn refresh(&self, refold: bool) {
        let _one = lock(&self.scanning);
        let mut g = lock(&self.inner);
        let first = g.folded.history().is_none();
        let last_sent = Mutex::new(Instant::now() - Duration::from_secs(1));
        let progress = |p: ScanProgress| {
            if !first {
                return;
            }
            lock(&self.inner).progress = p;
            let mut last = lock(&last_sent);
            if p.done || p.files_done == 0 || last.elapsed() >= Duration::from_millis(100) {
                *last = Instant::now();
                (self.emit)(LiveEvent::HistoryProgress(p));
            }
        };
        // Taken out while reading, so the progress can be read; `plans` waits for it to be back.
        let mut folded = std::mem::take(&mut g.folded);
        drop(g);
        // A scan that panics must not leave readers waiting for it: they get no plans, with a note.
        let changed = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            // On the background pool, so listing plans never queues behind the first scan.
            in_background(|| folded.refresh(&self.roots, refold, &progress))
        })) {
            Ok(changed) => changed,
            Err(_) => {
                tracing::error!("the plan history scan failed");
                folded =
                    Folded::failed("The plan history could not be read (the scan failed).".into());
                true
            }
        };
        let mut g = lock(&self.inner);
        if first {
            let stats = folded
                .history()
                .map(|h| h.stats.clone())
                .unwrap_or_default();
            g.progress = ScanProgress {
                files_done: stats.files,
                files: stats.files,
                bytes_done: stats.bytes_read,
                bytes: stats.bytes_read,
                done: true,
            };
        }
        let plans = folded.history().map_or(0, |h| h.plans.len() as u32);
        g.folded = folded;
        drop(g);
        self.ready.notify_all();
        if changed {
            (self.emit)(LiveEvent::History(HistoryChanged { plans }));
        }
    }
}
