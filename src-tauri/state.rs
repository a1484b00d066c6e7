//! What the shell keeps between commands: the resolved roots (switchable to the demo workspace),
//! the session index, and the watchers that turn file changes into events.

use std::sync::{Arc, Mutex, RwLock};

use plandeck_core::config::Roots;
use plandeck_core::sessions::SessionIndex;
use plandeck_core::watch::WatchHandle;

pub struct AppState {
    inner: RwLock<Current>,
    /// The live session index, followed by byte offset as transcripts grow.
    pub sessions: Arc<Mutex<Option<SessionIndex>>>,
    /// Watchers of the current roots; dropping them stops them.
    pub watchers: Mutex<Vec<WatchHandle>>,
    /// The worktree watcher, re-armed whenever the list of worktrees changes.
    pub worktree_watcher: Mutex<Option<(Vec<std::path::PathBuf>, WatchHandle)>>,
    /// Keeps the liveness tick of the current roots running; replaced (so the old tick stops)
    /// when the roots change.
    pub tick: Mutex<Option<std::sync::Arc<()>>>,
    /// Tells agent hooks that Plandeck is running (so they wait for a decision); removed on drop.
    pub presence: Mutex<Option<plandeck_core::gate::AppPresence>>,
    /// How far the background load of the session index is (`sessions:progress`).
    pub sessions_progress: Arc<Mutex<plandeck_core::sessions::IndexProgress>>,
    /// Paths the session watcher reported while the index was still loading; applied once it
    /// is in (lock `sessions` first, then this).
    pub sessions_backlog: Arc<Mutex<Vec<std::path::PathBuf>>>,
}

#[derive(Clone)]
pub struct Current {
    pub roots: Roots,
    pub demo: bool,
}

impl AppState {
    pub fn new(roots: Roots, demo: bool) -> Self {
        Self {
            inner: RwLock::new(Current { roots, demo }),
            sessions: Arc::new(Mutex::new(None)),
            watchers: Mutex::new(Vec::new()),
            worktree_watcher: Mutex::new(None),
            tick: Mutex::new(None),
            presence: Mutex::new(None),
            sessions_progress: Arc::new(Mutex::new(Default::default())),
            sessions_backlog: Arc::new(Mutex::new(Vec::new())),
        }
    }

    pub fn current(&self) -> Current {
        self.inner.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub fn roots(&self) -> Roots {
        self.current().roots
    }

    pub fn switch(&self, roots: Roots, demo: bool) {
        *self.inner.write().unwrap_or_else(|e| e.into_inner()) = Current { roots, demo };
    }
}

/// Locks a mutex, recovering the data if a thread panicked while holding it.
pub fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
