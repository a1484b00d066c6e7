//! What the shell keeps between commands: the resolved roots (switchable to the demo workspace).

use std::sync::RwLock;

use plandeck_core::config::Roots;

pub struct AppState {
    inner: RwLock<Current>,
}

#[derive(Clone)]
pub struct Current {
    pub roots: Roots,
    pub demo: bool,
}

impl AppState {
    pub fn new(roots: Roots, demo: bool) -> Self {
        Self { inner: RwLock::new(Current { roots, demo }) }
    }

    pub fn current(&self) -> Current {
        self.inner.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub fn switch(&self, roots: Roots, demo: bool) {
        *self.inner.write().unwrap_or_else(|e| e.into_inner()) = Current { roots, demo };
    }
}
