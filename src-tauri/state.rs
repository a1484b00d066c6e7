//! What the shell keeps between commands: the resolved roots (switchable to the demo workspace),
//! the session index, and the watchers that turn file changes into events.

use std::sync::{Arc, Mutex, RwLock};

use plandeck_core::config::Roots;
use plandeck_core::sessions::SessionIndex;
use plandeck_core::watch::TreeWatch;
use plandeck_core::worktrees::{Sizes, Watched};

pub struct AppState {
    inner: RwLock<Current>,
    /// The live session index, followed by byte offset as transcripts grow.
    pub sessions: Arc<Mutex<Option<SessionIndex>>>,
    /// The watchers, liveness tick and gate presence of the current roots (core's
    /// [`plandeck_core::live::Live`]); replaced when the roots change, dropping it stops them.
    pub live: Mutex<Option<plandeck_core::live::Live>>,
    /// The worktree watcher, re-armed whenever the list of worktrees changes.
    pub worktree_watcher: Mutex<Option<(Vec<Watched>, TreeWatch)>>,
    /// Worktree folder sizes, measured in the background and remembered until a change.
    pub worktree_sizes: Sizes,
    /// The plan history, scanned in the background and kept up to date (history_live.rs).
    pub history: Arc<crate::history_live::HistoryState>,
    /// Resolves the person's own roots (flags, settings, environment): where "Leave the demo"
    /// goes. Resolved only then, so a window started on the demo reads nothing of the person's.
    own_roots: OwnRoots,
}

/// How the person's own roots are resolved.
pub type OwnRoots = Box<dyn Fn() -> Result<Roots, plandeck_core::ipc::IpcError> + Send + Sync>;

#[derive(Clone)]
pub struct Current {
    pub roots: Roots,
    pub demo: bool,
}

impl AppState {
    pub fn new(roots: Roots, demo: bool, own_roots: OwnRoots) -> Self {
        Self {
            own_roots,
            inner: RwLock::new(Current { roots, demo }),
            sessions: Arc::new(Mutex::new(None)),
            live: Mutex::new(None),
            worktree_watcher: Mutex::new(None),
            worktree_sizes: Sizes::new(),
            history: Arc::default(),
        }
    }

    pub fn current(&self) -> Current {
        self.inner.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub fn roots(&self) -> Roots {
        self.current().roots
    }

    /// The person's own roots, resolved now.
    pub fn own_roots(&self) -> Result<Roots, plandeck_core::ipc::IpcError> {
        (self.own_roots)()
    }

    pub fn switch(&self, roots: Roots, demo: bool) {
        *self.inner.write().unwrap_or_else(|e| e.into_inner()) = Current { roots, demo };
    }
}

/// Locks a mutex, recovering the data if a thread panicked while holding it.
pub fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
