//! The live plan index: discovery once, then again only after a watcher saw something change.
//!
//! Discovery (every plan folder, every plan file, each linked to its session through the heads
//! and tails of transcripts) is the costly part of every plan call. A one-shot command runs it
//! once per call. A process that watches its roots (the window, a headless `Live` handle) holds a
//! [`PlanIndex`] for them: every plan call on those roots reads the index's snapshot, and the
//! watchers [`PlanIndex::refresh`] it when plan files, plan folders, transcripts or session files
//! change, so the next call discovers again (once, however many calls follow).
//!
//! A lookup that misses in a snapshot (a plan written a moment ago, before its watcher's debounce
//! ran out) discovers again before it says "no such plan": the index only ever saves work, it
//! never answers older than the disk.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};

use super::discover::{self, Discovery};
use crate::config::Roots;
use crate::sync::lock;

/// Discovery for one set of roots, kept until a watcher says it is out of date.
pub struct PlanIndex {
    roots: Roots,
    /// Bumped by every [`PlanIndex::refresh`]; a snapshot taken at an older generation is stale.
    generation: AtomicU64,
    snapshot: Mutex<Option<(u64, Arc<Discovery>)>>,
    /// How many times discovery ran for this index.
    discoveries: AtomicUsize,
}

/// The indexes held by live handles, by their roots. Weak: an index lives as long as its holder.
static HELD: Mutex<Vec<(Roots, Weak<PlanIndex>)>> = Mutex::new(Vec::new());

impl PlanIndex {
    /// An index over `roots` that every plan call on equal roots uses for as long as the returned
    /// handle lives. The holder must call [`PlanIndex::refresh`] on every change it watches.
    pub fn hold(roots: &Roots) -> Arc<PlanIndex> {
        let index = Arc::new(PlanIndex {
            roots: roots.clone(),
            generation: AtomicU64::new(0),
            snapshot: Mutex::new(None),
            discoveries: AtomicUsize::new(0),
        });
        let mut held = lock(&HELD);
        held.retain(|(r, w)| w.strong_count() > 0 && r != roots);
        held.push((roots.clone(), Arc::downgrade(&index)));
        index
    }

    /// Something under the roots changed: the next call discovers again.
    pub fn refresh(&self) {
        self.generation.fetch_add(1, Ordering::SeqCst);
    }

    /// How many times discovery ran for this index (for tests and benchmarks).
    pub fn discoveries(&self) -> usize {
        self.discoveries.load(Ordering::SeqCst)
    }

    /// The current snapshot, discovering first when a change came since the last one. Callers
    /// arriving while discovery runs wait for it rather than run their own.
    pub(crate) fn snapshot(&self) -> Arc<Discovery> {
        let mut slot = lock(&self.snapshot);
        let generation = self.generation.load(Ordering::SeqCst);
        if let Some((taken, found)) = slot.as_ref() {
            if *taken == generation {
                return found.clone();
            }
        }
        let found = Arc::new(discover::discover(&self.roots));
        self.discoveries.fetch_add(1, Ordering::SeqCst);
        // Taken at `generation`: a change reported while discovery ran makes it stale again.
        *slot = Some((generation, found.clone()));
        found
    }

    fn held(roots: &Roots) -> Option<Arc<PlanIndex>> {
        lock(&HELD)
            .iter()
            .find(|(r, _)| r == roots)
            .and_then(|(_, w)| w.upgrade())
    }
}

/// What discovery finds under `roots` now: the held index's snapshot, or a fresh discovery when no
/// live handle holds these roots.
pub(crate) fn current(roots: &Roots) -> Arc<Discovery> {
    match PlanIndex::held(roots) {
        Some(index) => index.snapshot(),
        None => Arc::new(discover::discover(roots)),
    }
}

/// `find` on what discovery finds under `roots`; when it finds nothing in a held snapshot, on a
/// fresh discovery (the plan may be newer than the snapshot). Also gives the discovery it looked
/// in last, so a caller can say why nothing was found, or go on, without discovering again.
pub(crate) fn lookup<T>(
    roots: &Roots,
    find: impl Fn(&Discovery) -> Option<T>,
) -> (Option<T>, Arc<Discovery>) {
    let Some(index) = PlanIndex::held(roots) else {
        let found = Arc::new(discover::discover(roots));
        return (find(&found), found);
    };
    let found = index.snapshot();
    if let Some(hit) = find(&found) {
        return (Some(hit), found);
    }
    index.refresh();
    let found = index.snapshot();
    (find(&found), found)
}
