//! Folder sizes, off the listing's path: measured in the background, one walk at a time, and
//! remembered until the worktree changes.
//!
//! Walking a worktree with a `target/` or `node_modules/` costs more than everything else the
//! listing reads, and nothing about safety depends on it (removal shows files and commits, never a
//! size). So [`list`](super::list()) never walks: [`Sizes::fill`] puts in the sizes already known,
//! [`Sizes::measure`] walks the others on a background thread and reports each as a
//! [`WorktreeSize`] as it comes. A size is forgotten when the watcher says its worktree changed
//! ([`Sizes::invalidate`]) and after [`MAX_AGE`] (changes in ignored folders, a build's output, are
//! not watched); a measurement overtaken by a change is measured again before it is reported.

use std::collections::{HashMap, VecDeque};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::WorktreeSummary;

/// A worktree's size, measured after the listing (event `worktrees:size`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct WorktreeSize {
    /// The listing's id.
    pub id: String,
    /// Bytes on disk under the folder (`.git` excluded); none when it could not be measured.
    #[ts(type = "number | null")]
    pub size_bytes: Option<u64>,
}

/// How long a measured size is trusted without a change being seen.
pub const MAX_AGE: Duration = Duration::from_secs(60);

type Report = Arc<dyn Fn(WorktreeSize) + Send + Sync>;

/// Remembered sizes and the background measurements; cheap to clone (shared).
#[derive(Clone, Default)]
pub struct Sizes {
    inner: Arc<Mutex<State>>,
}

impl std::fmt::Debug for Sizes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sizes").finish_non_exhaustive()
    }
}

#[derive(Default)]
struct State {
    by_id: HashMap<String, Slot>,
    queue: VecDeque<(String, PathBuf, Report)>,
    worker: bool,
}

#[derive(Default)]
struct Slot {
    /// Bumped by every invalidation; a measurement keeps its result only if it is unchanged.
    generation: u64,
    known: Option<(Option<u64>, Instant)>,
    queued: bool,
}

impl Slot {
    fn fresh(&self) -> Option<Option<u64>> {
        self.known
            .filter(|(_, at)| at.elapsed() < MAX_AGE)
            .map(|(v, _)| v)
    }
}

impl Sizes {
    pub fn new() -> Sizes {
        Sizes::default()
    }

    /// The size remembered for `id`, when still trusted (`Some(None)`: it could not be measured).
    pub fn known(&self, id: &str) -> Option<Option<u64>> {
        self.lock().by_id.get(id).and_then(Slot::fresh)
    }

    /// Forgets the size of `id` (its worktree changed); a measurement under way is done again.
    pub fn invalidate(&self, id: &str) {
        let mut state = self.lock();
        let slot = state.by_id.entry(id.to_owned()).or_default();
        slot.generation += 1;
        slot.known = None;
    }

    /// Forgets every size (the roots changed).
    pub fn clear(&self) {
        let mut state = self.lock();
        for slot in state.by_id.values_mut() {
            slot.generation += 1;
            slot.known = None;
        }
    }

    /// Puts the sizes known into `list`; returns the (id, folder) of the others, to measure.
    pub fn fill(&self, list: &mut [WorktreeSummary]) -> Vec<(String, PathBuf)> {
        let state = self.lock();
        let mut missing = Vec::new();
        for w in list {
            match state.by_id.get(&w.id).and_then(Slot::fresh) {
                Some(Some(bytes)) => w.size_bytes = Some(bytes),
                _ => missing.push((w.id.clone(), PathBuf::from(&w.path))),
            }
        }
        missing
    }

    /// Measures each of `items` (id, folder) on a background thread, one walk at a time, and calls
    /// `report` with each size (a size still known is reported at once, without a walk). An id
    /// already waiting for its walk is not queued twice: it reports through the first request.
    pub fn measure(
        &self,
        items: Vec<(String, PathBuf)>,
        report: impl Fn(WorktreeSize) + Send + Sync + 'static,
    ) {
        let report: Report = Arc::new(report);
        let mut state = self.lock();
        for (id, path) in items {
            let slot = state.by_id.entry(id.clone()).or_default();
            if let Some(size) = slot.fresh() {
                report(WorktreeSize {
                    id,
                    size_bytes: size,
                });
                continue;
            }
            if slot.queued {
                continue;
            }
            slot.queued = true;
            state.queue.push_back((id, path, Arc::clone(&report)));
        }
        if !state.worker && !state.queue.is_empty() {
            state.worker = true;
            let this = self.clone();
            let spawned = std::thread::Builder::new()
                .name("plandeck-sizes".into())
                .spawn(move || this.work());
            if let Err(e) = spawned {
                tracing::warn!("cannot measure worktree sizes: {e}");
                state.worker = false;
                for (id, _, _) in std::mem::take(&mut state.queue) {
                    if let Some(slot) = state.by_id.get_mut(&id) {
                        slot.queued = false;
                    }
                }
            }
        }
    }

    fn work(&self) {
        loop {
            let (id, path, report, generation) = {
                let mut state = self.lock();
                let Some((id, path, report)) = state.queue.pop_front() else {
                    state.worker = false;
                    return;
                };
                let generation = state.by_id.entry(id.clone()).or_default().generation;
                (id, path, report, generation)
            };
            let size = if path.is_dir() { dir_size(&path) } else { None };
            let mut state = self.lock();
            let slot = state.by_id.entry(id.clone()).or_default();
            if slot.generation != generation {
                // Changed while it was walked: walk it again (later, behind the others).
                state.queue.push_back((id, path, report));
                continue;
            }
            slot.known = Some((size, Instant::now()));
            slot.queued = false;
            drop(state);
            report(WorktreeSize {
                id,
                size_bytes: size,
            });
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

const SIZE_ENTRY_CAP: u64 = 2_000_000;

/// Bytes on disk under `dir`, `.git` excluded, walked in parallel; none past 2 million entries
/// (a size that slow to measure is not worth the wait).
pub(crate) fn dir_size(dir: &Path) -> Option<u64> {
    let entries = AtomicU64::new(0);
    fn walk(dir: &Path, entries: &AtomicU64) -> Option<u64> {
        let read = std::fs::read_dir(dir).ok()?;
        let mut total = 0u64;
        let mut subdirs = Vec::new();
        for entry in read.flatten() {
            if entries.fetch_add(1, Ordering::Relaxed) > SIZE_ENTRY_CAP {
                return None;
            }
            if entry.file_name() == ".git" {
                continue;
            }
            let Ok(meta) = entry.metadata() else { continue };
            if meta.is_dir() {
                subdirs.push(entry.path());
            } else {
                total += meta.blocks() * 512;
            }
        }
        let nested: Option<Vec<u64>> = subdirs.par_iter().map(|d| walk(d, entries)).collect();
        Some(total + nested?.into_iter().sum::<u64>())
    }
    walk(dir, &entries)
}
