//! Locks that outlive a panic: a thread that panicked while holding one leaves data that is still
//! whole (every writer here replaces values, never leaves them half-made), so the next holder
//! takes it as it is instead of failing too.

use std::sync::{Mutex, MutexGuard};

/// `m`, locked, even if a holder panicked.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
