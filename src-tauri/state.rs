//! What the shell keeps between commands: the resolved roots (switchable to the demo workspace),
//! the session index, and the watchers that turn file changes into events.

use std::sync::{Arc, Mutex, OnceLock, RwLock};

use plandeck_core::config::Roots;
use plandeck_core::deck::Deck;
use plandeck_core::machines::Machines;
use plandeck_core::sessions::SessionIndex;

pub struct AppState {
    inner: RwLock<Current>,
    /// The live session index, followed by byte offset as transcripts grow.
    pub sessions: Arc<Mutex<Option<SessionIndex>>>,
    /// The watchers, liveness tick and gate presence of the current roots (core's
    /// [`plandeck_core::live::Live`]); replaced when the roots change, dropping it stops them.
    pub live: Mutex<Option<plandeck_core::live::Live>>,
    /// Resolves the person's own roots (flags, settings, environment): where "Leave the demo"
    /// goes. Resolved only then, so a window started on the demo reads nothing of the person's.
    own_roots: OwnRoots,
    /// The other machines (`plandeck hosts`), connected from the start (none in the demo).
    pub machines: OnceLock<Arc<Machines>>,
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
            machines: OnceLock::new(),
        }
    }

    pub fn current(&self) -> Current {
        self.inner.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub fn roots(&self) -> Roots {
        self.current().roots
    }

    /// Every call on the current roots, over their live state (core's
    /// [`plandeck_core::deck::Deck`]); while the live handle starts (at launch, or the roots
    /// changing), over a fresh one reporting through the same forwarding, so a listing in that
    /// moment still gets its sizes.
    pub fn deck(&self, app: &tauri::AppHandle) -> Deck {
        let current = self.current();
        let deck = match lock(&self.live).as_ref() {
            Some(live) => Deck::of(live, current.demo),
            None => Deck::starting(
                current.roots,
                current.demo,
                self.sessions.clone(),
                Arc::new(crate::live::forward(app.clone())),
            ),
        };
        match self.machines.get() {
            Some(machines) => deck.with_elsewhere(machines.clone()),
            None => deck,
        }
    }

    /// Connects the machines of the current roots' settings (none in the demo).
    pub fn start_machines(&self, app: &tauri::AppHandle) {
        let current = self.current();
        let hosts = if current.demo {
            Vec::new()
        } else {
            plandeck_core::config::hosts(&current.roots.settings_path()).unwrap_or_else(|e| {
                tracing::warn!("no machines: {e}");
                Vec::new()
            })
        };
        match self.machines.get() {
            Some(machines) => {
                use plandeck_core::elsewhere::Elsewhere;
                machines.hosts_changed(hosts);
            }
            None => {
                let env = plandeck_core::config::Env::from_process();
                let machines = Machines::start(hosts, env, crate::live::forward(app.clone()));
                let _ = self.machines.set(Arc::new(machines));
            }
        }
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
