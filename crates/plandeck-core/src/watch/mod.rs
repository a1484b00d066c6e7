//! Coalesced file watching; a [`WatchHandle`] stops its watcher when dropped.
//!
//! Built on `notify`'s recommended (inotify on Linux) watcher rather than notify-debouncer-full:
//! the full debouncer only emits an event once it is `timeout` old, so a 100 ms window would put
//! every single change at least 100 ms late, over the "plan written to event out of the core"
//! budget. Here a batch is flushed once the paths have been quiet for a short moment (`debounce / 8`,
//! 5–50 ms) or, for a steady stream, when the batch is `debounce` old: one write arrives in a few
//! milliseconds, a burst (an editor's save, `git checkout`) comes out as one batch per window.
//!
//! Watched paths need not exist yet: until one does, its nearest existing ancestor is watched
//! (non-recursively) and the watch is re-armed when the path appears, or falls back to the
//! ancestor when it disappears. Folders that appear inside a watched tree are walked once so files
//! created in them before their watch was added are reported too. `.git/objects` churn is dropped.
//!
//! [`tree`] is the other watcher, for large trees that hold much to skip (worktrees with their
//! `target/` and `node_modules/`): it never watches a skipped folder and reports each burst once,
//! on its trailing edge.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};

pub mod tree;
pub use tree::{watch_tree, Timing, TreeRules, TreeWatch};

#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    #[error("cannot start a file watcher: {0}")]
    Start(#[source] notify::Error),
    #[error("cannot start the watch thread: {0}")]
    Thread(#[source] std::io::Error),
}

impl From<WatchError> for crate::ipc::IpcError {
    fn from(e: WatchError) -> Self {
        crate::ipc::IpcError::new(crate::ipc::ErrorKind::Io, e.to_string())
    }
}

/// Keeps a watcher running; dropping it stops the watcher and its thread (no callback runs after).
pub struct WatchHandle {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for WatchHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WatchHandle").finish_non_exhaustive()
    }
}

impl Drop for WatchHandle {
    fn drop(&mut self) {
        self.shared.stopped.store(true, Ordering::SeqCst);
        // Dropping the watcher drops its event sender, which ends the coalescing thread.
        if let Ok(mut state) = self.shared.state.lock() {
            state.watcher = None;
        }
    }
}

impl WatchHandle {
    /// Adds `path` to what is watched (recursively; armed on its nearest ancestor until it exists).
    pub fn add(&self, path: PathBuf) {
        if let Ok(mut state) = self.shared.state.lock() {
            state.add(path);
        }
    }
}

/// Lets a batch callback add paths to its own watcher (e.g. a new project's plans folder).
pub struct Arming<'a> {
    shared: &'a Shared,
}

impl Arming<'_> {
    /// Adds `path` to what is watched, as [`WatchHandle::add`].
    pub fn add(&self, path: PathBuf) {
        if let Ok(mut state) = self.shared.state.lock() {
            state.add(path);
        }
    }
}

struct Shared {
    stopped: AtomicBool,
    state: Mutex<State>,
}

struct State {
    watcher: Option<RecommendedWatcher>,
    /// The paths asked for, in order.
    targets: Vec<PathBuf>,
    /// What is actually watched now, how, and which inode it was (a folder removed and made again
    /// under the same name has lost its watch).
    armed: BTreeMap<PathBuf, (RecursiveMode, Option<(u64, u64)>)>,
    /// Targets that appeared since the last batch: walked and reported with it.
    appeared: Vec<PathBuf>,
}

impl State {
    fn add(&mut self, path: PathBuf) {
        if !self.targets.contains(&path) {
            self.targets.push(path);
            self.rearm();
        }
    }

    /// Brings the watches in line with which targets exist now.
    fn rearm(&mut self) {
        self.rearm_forcing(&BTreeSet::new());
    }

    /// As [`rearm`](Self::rearm), re-watching the paths in `gone` even when they look unchanged:
    /// they were removed or renamed, and inode numbers are reused at once, so a folder made again
    /// under the same name can have the same inode yet no watch.
    ///
    /// A folder made between looking and arming would have no watch to report it (an ancestor's
    /// watch armed after its child appeared sees nothing), so the watches are brought in line again
    /// until what exists stops moving under them (bounded).
    fn rearm_forcing(&mut self, gone: &BTreeSet<PathBuf>) {
        let mut desired = self.desired();
        self.arm(&desired, gone);
        for _ in 0..16 {
            let now = self.desired();
            if now == desired {
                return;
            }
            desired = now;
            self.arm(&desired, &BTreeSet::new());
        }
    }

    /// What should be watched given which targets exist now: each existing target recursively,
    /// else its nearest existing ancestor, not recursively.
    fn desired(&self) -> BTreeMap<PathBuf, RecursiveMode> {
        let mut desired: BTreeMap<PathBuf, RecursiveMode> = BTreeMap::new();
        for target in &self.targets {
            if target.is_dir() || target.is_file() {
                desired.insert(target.clone(), RecursiveMode::Recursive);
            } else if let Some(ancestor) = target.ancestors().skip(1).find(|a| a.is_dir()) {
                desired
                    .entry(ancestor.to_owned())
                    .or_insert(RecursiveMode::NonRecursive);
            }
        }
        // A path under a recursive watch needs no watch of its own.
        let recursive: Vec<PathBuf> = desired
            .iter()
            .filter(|(_, m)| **m == RecursiveMode::Recursive)
            .map(|(p, _)| p.clone())
            .collect();
        desired.retain(|p, _| !recursive.iter().any(|r| p != r && p.starts_with(r)));
        desired
    }

    /// Watches what `desired` names and unwatches the rest (and what is in `gone`).
    fn arm(&mut self, desired: &BTreeMap<PathBuf, RecursiveMode>, gone: &BTreeSet<PathBuf>) {
        let Some(watcher) = self.watcher.as_mut() else {
            return;
        };
        let stale: Vec<PathBuf> = self
            .armed
            .iter()
            .filter(|(p, (m, ino))| {
                desired.get(*p) != Some(m) || inode(p) != *ino || gone.contains(*p)
            })
            .map(|(p, _)| p.clone())
            .collect();
        for path in stale {
            let _ = watcher.unwatch(&path);
            self.armed.remove(&path);
        }
        for (path, &mode) in desired {
            if self.armed.contains_key(path) {
                continue;
            }
            match watcher.watch(path, mode) {
                Ok(()) => {
                    if mode == RecursiveMode::Recursive && self.targets.contains(path) {
                        self.appeared.push(path.clone());
                    }
                    let ino = inode(path);
                    self.armed.insert(path.clone(), (mode, ino));
                }
                Err(e) => tracing::warn!(path = %path.display(), error = %e, "cannot watch"),
            }
        }
    }
}

/// Watches `paths` (recursively) and calls `on_batch` with the changed paths of each coalesced
/// burst, sorted and without duplicates, on a thread of its own. `debounce` is the longest a
/// batch is held (100–250 ms is a good value). Stops when the returned handle is dropped.
pub fn watch(
    paths: Vec<PathBuf>,
    debounce: Duration,
    mut on_batch: impl FnMut(Vec<PathBuf>) + Send + 'static,
) -> Result<WatchHandle, WatchError> {
    watch_with(paths, debounce, move |batch, _| on_batch(batch))
}

/// [`watch`], with a callback that may add paths to its own watcher.
pub fn watch_with(
    paths: Vec<PathBuf>,
    debounce: Duration,
    on_batch: impl FnMut(Vec<PathBuf>, &Arming<'_>) + Send + 'static,
) -> Result<WatchHandle, WatchError> {
    let (tx, rx) = mpsc::channel::<notify::Result<notify::Event>>();
    let watcher = notify::recommended_watcher(move |res| {
        let _ = tx.send(res);
    })
    .map_err(WatchError::Start)?;
    let shared = Arc::new(Shared {
        stopped: AtomicBool::new(false),
        state: Mutex::new(State {
            watcher: Some(watcher),
            targets: Vec::new(),
            armed: BTreeMap::new(),
            appeared: Vec::new(),
        }),
    });
    if let Ok(mut state) = shared.state.lock() {
        for path in paths {
            if !state.targets.contains(&path) {
                state.targets.push(path);
            }
        }
        state.rearm();
        // What exists at start is not news.
        state.appeared.clear();
    }
    let thread_shared = Arc::clone(&shared);
    std::thread::Builder::new()
        .name("plandeck-watch".into())
        .spawn(move || coalesce(rx, debounce, &thread_shared, on_batch))
        .map_err(WatchError::Thread)?;
    Ok(WatchHandle { shared })
}

fn coalesce(
    rx: Receiver<notify::Result<notify::Event>>,
    debounce: Duration,
    shared: &Shared,
    mut on_batch: impl FnMut(Vec<PathBuf>, &Arming<'_>),
) {
    let cap = debounce.max(Duration::from_millis(1));
    let quiet = (debounce / 8).clamp(Duration::from_millis(5), Duration::from_millis(50));
    let mut batch: BTreeSet<PathBuf> = BTreeSet::new();
    let mut gone: BTreeSet<PathBuf> = BTreeSet::new();
    while let Ok(first) = rx.recv() {
        let start = Instant::now();
        let mut last = start;
        let mut open = take(first, &mut batch, &mut gone);
        loop {
            let deadline = (last + quiet).min(start + cap);
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            match rx.recv_timeout(deadline - now) {
                Ok(event) => {
                    open |= take(event, &mut batch, &mut gone);
                    last = Instant::now();
                }
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => return,
            }
        }
        if shared.stopped.load(Ordering::SeqCst) {
            return;
        }
        let targets = match shared.state.lock() {
            Ok(mut state) => {
                // Any event may mean a missing target appeared or a watched one went away.
                state.rearm_forcing(&std::mem::take(&mut gone));
                for path in std::mem::take(&mut state.appeared) {
                    batch.insert(path.clone());
                    walk_into(&path, &mut batch);
                }
                state.targets.clone()
            }
            Err(_) => return,
        };
        // New folders inside a watched tree: their contents may predate their watch. Only those
        // under a target: a folder an ancestor's watch saw beside a missing target (anything made
        // in /tmp beside a home that is gone) is never walked.
        if open {
            let dirs: Vec<PathBuf> = batch
                .iter()
                .filter(|p| targets.iter().any(|t| p.starts_with(t)) && p.is_dir())
                .cloned()
                .collect();
            for dir in dirs {
                walk_into(&dir, &mut batch);
            }
        }
        // Drop what only the ancestor watches saw: siblings of a target that does not exist yet.
        let out: Vec<PathBuf> = std::mem::take(&mut batch)
            .into_iter()
            .filter(|p| targets.iter().any(|t| p.starts_with(t)) && !in_git_objects(p))
            .collect();
        if !out.is_empty() {
            on_batch(out, &Arming { shared });
        }
        // Paths the callback just added that exist already: report what is in them now, since
        // it was made before their watch and no event will say so.
        for _ in 0..8 {
            let appeared = match shared.state.lock() {
                Ok(mut state) => std::mem::take(&mut state.appeared),
                Err(_) => return,
            };
            if appeared.is_empty() || shared.stopped.load(Ordering::SeqCst) {
                break;
            }
            let mut found = BTreeSet::new();
            for path in appeared {
                found.insert(path.clone());
                walk_into(&path, &mut found);
            }
            on_batch(found.into_iter().collect(), &Arming { shared });
        }
    }
}

/// Adds an event's paths to the batch; true when it created something (maybe a folder to walk).
fn take(
    event: notify::Result<notify::Event>,
    batch: &mut BTreeSet<PathBuf>,
    gone: &mut BTreeSet<PathBuf>,
) -> bool {
    match event {
        Ok(event) => {
            if matches!(event.kind, EventKind::Access(_)) {
                return false;
            }
            let renamed = matches!(
                event.kind,
                EventKind::Modify(notify::event::ModifyKind::Name(_))
            );
            let created = renamed || matches!(event.kind, EventKind::Create(_));
            if renamed || matches!(event.kind, EventKind::Remove(_)) {
                gone.extend(event.paths.iter().cloned());
            }
            batch.extend(event.paths.into_iter().filter(|p| !in_git_objects(p)));
            created
        }
        Err(e) => {
            tracing::warn!(error = %e, "file watcher error");
            // Keep the paths it names: something happened there.
            batch.extend(e.paths);
            false
        }
    }
}

/// Adds the files under `dir` (bounded: 5 levels, 10,000 entries, no symlinked folders).
fn walk_into(dir: &Path, batch: &mut BTreeSet<PathBuf>) {
    let mut budget = 10_000usize;
    let mut stack = vec![(dir.to_owned(), 0u32)];
    while let Some((dir, depth)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            if budget == 0 {
                return;
            }
            budget -= 1;
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if depth < 5 && !in_git_objects(&path) {
                    stack.push((path, depth + 1));
                }
            } else {
                batch.insert(path);
            }
        }
    }
}

fn inode(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

fn in_git_objects(path: &Path) -> bool {
    let mut prev_git = false;
    for c in path.components() {
        if let Component::Normal(name) = c {
            if prev_git && name == "objects" {
                return true;
            }
            prev_git = name == ".git";
        } else {
            prev_git = false;
        }
    }
    false
}

#[cfg(test)]
mod tests;
