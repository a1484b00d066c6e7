//! A folder-tree watcher that never looks inside what it is told to skip, and reports each burst
//! once, on its trailing edge.
//!
//! [`watch`](super::watch) hands whole trees to notify, which puts an inotify watch on every folder
//! below (an agent's `target/` and `node_modules/` included) and asks for `IN_OPEN` too, so a build
//! or a `git status` in a watched worktree floods the process with events it then throws away.
//! Here the tree is armed folder by folder, each folder asked of [`TreeRules::skip`] first: a
//! skipped folder (an ignored `target/`) gets no watch, so the kernel never queues its events. Only
//! changes are asked for (no opens, no reads). Each event's path is asked again (an ignored
//! `*.log` beside the sources), then the paths of a burst are handed to [`TreeRules::batch`] once
//! the tree has been quiet for `quiet` (or, in a change that never stops, every `max_wait`). The
//! batch runs on the watcher's own thread, so one runs at a time: what changes meanwhile waits in
//! the kernel's queue and comes out as the next single batch.
//!
//! Folders created (or moved in) are armed as they appear and the files already in them reported.
//! A kernel queue overflow reports the roots themselves (something changed, not known what) and
//! arms the trees again.

use std::collections::{BTreeSet, HashMap};
use std::ffi::OsStr;
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask};

use super::WatchError;

/// What a tree watcher skips and what it does with each burst.
pub trait TreeRules: Send + 'static {
    /// Whether `path` is of no interest. A skipped folder is not watched at all (nor anything in
    /// it); a skipped file or folder is not reported. `is_dir` says what the path is (or was).
    fn skip(&mut self, path: &Path, is_dir: bool) -> bool;

    /// One burst's paths, sorted, without duplicates; runs on the watcher's thread. Returns true
    /// when what [`skip`](Self::skip) answers may have changed (an ignore file changed): the trees
    /// are then walked again and folders no longer skipped are armed.
    fn batch(&mut self, paths: Vec<PathBuf>) -> bool;
}

/// When a burst is reported: once nothing changed for `quiet`, and at least every `max_wait` while
/// changes keep coming.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timing {
    pub quiet: Duration,
    pub max_wait: Duration,
}

/// Keeps a tree watcher running; dropping it stops the watcher (no batch starts after).
pub struct TreeWatch {
    stopped: Arc<AtomicBool>,
}

impl std::fmt::Debug for TreeWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TreeWatch").finish_non_exhaustive()
    }
}

impl Drop for TreeWatch {
    fn drop(&mut self) {
        self.stopped.store(true, Ordering::SeqCst);
    }
}

/// How often an idle watcher looks whether its handle was dropped.
const STOP_CHECK: Duration = Duration::from_millis(200);

/// What the watches ask the kernel for: changes only (no opens, no reads).
fn mask() -> WatchMask {
    WatchMask::CREATE
        | WatchMask::DELETE
        | WatchMask::MODIFY
        | WatchMask::CLOSE_WRITE
        | WatchMask::ATTRIB
        | WatchMask::MOVED_FROM
        | WatchMask::MOVED_TO
        | WatchMask::DELETE_SELF
        | WatchMask::MOVE_SELF
        | WatchMask::ONLYDIR
        | WatchMask::DONT_FOLLOW
}

/// Watches the folder trees at `roots` by the `rules`, on a thread of its own; the trees are armed
/// on that thread (what exists at start is not reported). Stops when the handle is dropped.
pub fn watch_tree<R: TreeRules>(
    roots: Vec<PathBuf>,
    timing: Timing,
    rules: R,
) -> Result<TreeWatch, WatchError> {
    let inotify = Inotify::init().map_err(|e| WatchError::Start(notify::Error::io(e)))?;
    let stopped = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stopped);
    std::thread::Builder::new()
        .name("plandeck-tree-watch".into())
        .spawn(move || {
            let mut tree = Tree {
                inotify,
                roots,
                by_wd: HashMap::new(),
                by_path: HashMap::new(),
                rules,
                full_warned: false,
            };
            tree.run(timing, &flag);
        })
        .map_err(WatchError::Thread)?;
    Ok(TreeWatch { stopped })
}

struct Tree<R> {
    inotify: Inotify,
    roots: Vec<PathBuf>,
    by_wd: HashMap<WatchDescriptor, PathBuf>,
    by_path: HashMap<PathBuf, WatchDescriptor>,
    rules: R,
    full_warned: bool,
}

impl<R: TreeRules> Tree<R> {
    fn run(&mut self, timing: Timing, stopped: &AtomicBool) {
        self.arm_roots(None);
        let mut buf = vec![0u8; 64 * 1024];
        let mut batch: BTreeSet<PathBuf> = BTreeSet::new();
        loop {
            if stopped.load(Ordering::SeqCst) {
                return;
            }
            if !readable(&self.inotify, STOP_CHECK) {
                continue;
            }
            self.drain(&mut buf, &mut batch);
            if batch.is_empty() {
                continue;
            }
            // A burst: wait for it to go quiet (trailing edge), bounded by `max_wait`.
            let start = Instant::now();
            let mut last = start;
            loop {
                let deadline = (last + timing.quiet).min(start + timing.max_wait);
                let now = Instant::now();
                if now >= deadline || stopped.load(Ordering::SeqCst) {
                    break;
                }
                if !readable(&self.inotify, (deadline - now).min(STOP_CHECK)) {
                    if Instant::now() >= deadline {
                        break;
                    }
                    continue;
                }
                if self.drain(&mut buf, &mut batch) {
                    last = Instant::now();
                }
            }
            if stopped.load(Ordering::SeqCst) {
                return;
            }
            let rules_changed = self
                .rules
                .batch(std::mem::take(&mut batch).into_iter().collect());
            if rules_changed {
                // What changed while walking is in the kernel's queue: the next batch has it.
                self.arm_roots(None);
            }
        }
    }

    /// Arms every root (the paths in `report` get the files found in folders armed now).
    fn arm_roots(&mut self, mut report: Option<&mut BTreeSet<PathBuf>>) {
        for root in self.roots.clone() {
            self.arm(&root, report.as_deref_mut());
        }
    }

    /// Watches `dir` and every folder below it that the rules do not skip. Files found are added
    /// to `report` when given (they may predate the watch).
    fn arm(&mut self, dir: &Path, mut report: Option<&mut BTreeSet<PathBuf>>) {
        let mut stack = vec![dir.to_owned()];
        while let Some(dir) = stack.pop() {
            if !self.by_path.contains_key(&dir) {
                match self.inotify.watches().add(&dir, mask()) {
                    Ok(wd) => {
                        if let Some(old) = self.by_wd.insert(wd.clone(), dir.clone()) {
                            // The same folder under another name (moved): the new name holds.
                            self.by_path.remove(&old);
                        }
                        self.by_path.insert(dir.clone(), wd);
                    }
                    Err(e) if e.raw_os_error() == Some(rustix::io::Errno::NOSPC.raw_os_error()) => {
                        if !self.full_warned {
                            self.full_warned = true;
                            tracing::warn!(
                                "no inotify watches left (fs.inotify.max_user_watches): \
                                 changes under {} are not all seen",
                                dir.display()
                            );
                        }
                        continue;
                    }
                    // Gone already, or not a folder: nothing to watch.
                    Err(_) => continue,
                }
            }
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                let path = entry.path();
                if kind.is_dir() {
                    if !self.rules.skip(&path, true) {
                        stack.push(path);
                    }
                } else if let Some(report) = report.as_deref_mut() {
                    if !self.rules.skip(&path, false) {
                        report.insert(path);
                    }
                }
            }
        }
    }

    /// Stops watching `dir` and every folder below it (moved away: its watches would report under
    /// the old name).
    fn disarm(&mut self, dir: &Path) {
        let gone: Vec<PathBuf> = self
            .by_path
            .keys()
            .filter(|p| p.starts_with(dir))
            .cloned()
            .collect();
        for path in gone {
            if let Some(wd) = self.by_path.remove(&path) {
                self.by_wd.remove(&wd);
                let _ = self.inotify.watches().remove(wd);
            }
        }
    }

    /// Reads every queued event into `batch`; true when one was not skipped.
    fn drain(&mut self, buf: &mut [u8], batch: &mut BTreeSet<PathBuf>) -> bool {
        let mut any = false;
        loop {
            let events: Vec<(WatchDescriptor, EventMask, Option<PathBuf>)> =
                match self.inotify.read_events(buf) {
                    Ok(events) => events
                        .map(|e| (e.wd, e.mask, e.name.map(|n: &OsStr| PathBuf::from(n))))
                        .collect(),
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return any,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => {
                        tracing::warn!(error = %e, "cannot read file events");
                        return any;
                    }
                };
            if events.is_empty() {
                return any;
            }
            for (wd, mask, name) in events {
                any |= self.take(wd, mask, name, batch);
            }
        }
    }

    /// Adds one event's path to `batch`; true when it was not skipped.
    fn take(
        &mut self,
        wd: WatchDescriptor,
        mask: EventMask,
        name: Option<PathBuf>,
        batch: &mut BTreeSet<PathBuf>,
    ) -> bool {
        if mask.contains(EventMask::Q_OVERFLOW) {
            // Events were lost: say that the roots changed and arm again what may be new.
            tracing::warn!("file events overflowed the kernel's queue; looking at everything");
            batch.extend(self.roots.iter().cloned());
            self.arm_roots(None);
            return true;
        }
        let Some(dir) = self.by_wd.get(&wd).cloned() else {
            return false;
        };
        if mask.contains(EventMask::IGNORED) {
            // The watch is gone (its folder was deleted or unmounted).
            self.by_wd.remove(&wd);
            if self.by_path.get(&dir) == Some(&wd) {
                self.by_path.remove(&dir);
            }
            return false;
        }
        let is_dir = mask.contains(EventMask::ISDIR);
        let path = match name {
            Some(name) => dir.join(name),
            // About the watched folder itself (deleted or moved).
            None => dir,
        };
        if self.rules.skip(&path, is_dir) {
            return false;
        }
        if is_dir && mask.intersects(EventMask::CREATE | EventMask::MOVED_TO) {
            self.arm(&path, Some(batch));
        } else if is_dir && mask.contains(EventMask::MOVED_FROM) {
            self.disarm(&path);
        }
        batch.insert(path);
        true
    }
}

/// Waits up to `timeout` for `fd` to have something to read.
fn readable(fd: &impl AsFd, timeout: Duration) -> bool {
    use rustix::event::{poll, PollFd, PollFlags, Timespec};
    let mut fds = [PollFd::new(fd, PollFlags::IN)];
    let timeout = Timespec {
        tv_sec: timeout.as_secs() as i64,
        tv_nsec: i64::from(timeout.subsec_nanos()),
    };
    poll(&mut fds, Some(&timeout)).is_ok_and(|n| n > 0)
}

#[cfg(test)]
#[path = "tree_tests.rs"]
mod tests;
