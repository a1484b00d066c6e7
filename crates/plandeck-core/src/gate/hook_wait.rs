//! How a hook waits on its request: woken the moment a decision file lands (inotify on the
//! decisions folder; polled fast where that cannot be watched), checking now and then that the
//! agent still runs and someone can still decide (Plandeck open, or a paired phone seen lately). Shared by the Claude Code hook and the teammate
//! gate; each reads the decision and answers in its own way. The host of an ACP session waits on
//! its requests' decisions the same way ([`DecisionsWatch`], used by `crate::acp::requests`).

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use notify::{RecommendedWatcher, RecursiveMode, Watcher};

use super::store;
use super::{GateRequest, GateStatus};
use crate::config::Roots;

/// How often the transcript, the deadline and the request are checked while waiting: decisions
/// wake the hook at once through inotify; without it they are polled at the faster rate.
const TICK: Duration = Duration::from_millis(50);
const TICK_WITHOUT_WATCHER: Duration = Duration::from_millis(10);
const APP_CHECK: Duration = Duration::from_millis(250);

/// A folder of the gate's watched: the decisions folder (a hook, or the host of an ACP session,
/// waits there for a decision), or the closed requests' (a decider waits there for the host of an
/// ACP session to close the request it handed over). A waiter sleeps until a file lands there
/// (inotify), or its next look is due. Made before the first look, so nothing lands unseen
/// between the two.
pub(crate) struct DecisionsWatch {
    _watcher: Option<RecommendedWatcher>,
    rx: mpsc::Receiver<()>,
}

impl DecisionsWatch {
    /// The decisions folder watched.
    pub(crate) fn new(roots: &Roots) -> Self {
        Self::of(&store::decisions_dir(roots))
    }

    /// The closed requests' folder watched (`done/`).
    pub(crate) fn closed(roots: &Roots) -> Self {
        Self::of(&store::done_dir(roots))
    }

    fn of(folder: &std::path::Path) -> Self {
        let _ = crate::durable::create_private_dir(folder);
        let (tx, rx) = mpsc::channel();
        let watcher = notify::recommended_watcher(move |_| {
            let _ = tx.send(());
        })
        .and_then(|mut w| w.watch(folder, RecursiveMode::NonRecursive).map(|()| w))
        .ok();
        if watcher.is_none() {
            tracing::debug!("{} cannot be watched: it is polled", folder.display());
        }
        DecisionsWatch {
            _watcher: watcher,
            rx,
        }
    }

    /// A watch that watches nothing (as where inotify fails): waiters poll.
    #[cfg(test)]
    pub(crate) fn unwatched() -> Self {
        DecisionsWatch {
            _watcher: None,
            rx: mpsc::channel().1,
        }
    }

    /// Whether a decision wakes the waiter at once (else it is seen at the next look).
    pub(crate) fn watching(&self) -> bool {
        self._watcher.is_some()
    }

    /// Sleeps until something lands in the decisions folder, or for `at_most`.
    pub(crate) fn sleep(&self, at_most: Duration) {
        if let Err(mpsc::RecvTimeoutError::Disconnected) = self.rx.recv_timeout(at_most) {
            // No watcher sends (none could be made): a plain wait, never a spin.
            std::thread::sleep(at_most);
        }
        // Drain a burst of events so one decision does not cause many wake-ups.
        while self.rx.try_recv().is_ok() {}
    }

    /// What `look` finds, looked for now and again each time something lands in the folder (or
    /// every `tick` at most: where the folder is not watched, that is the poll), until `timeout`
    /// has passed; `None` then. The last look is at the deadline.
    pub(crate) fn until<T>(
        &self,
        timeout: Duration,
        tick: Duration,
        mut look: impl FnMut() -> Option<T>,
    ) -> Option<T> {
        let start = Instant::now();
        loop {
            if let Some(found) = look() {
                return Some(found);
            }
            let left = timeout.saturating_sub(start.elapsed());
            if left.is_zero() {
                return None;
            }
            self.sleep(tick.min(left));
        }
    }
}

/// One hook's wait on one request.
pub(crate) struct HookWait {
    watch: DecisionsWatch,
    tick: Duration,
    request_file: PathBuf,
    start: Instant,
    last_check: Instant,
    /// Whether someone can still decide (the caller's: the window, or a paired phone seen lately).
    someone_to_decide: fn(&Roots) -> bool,
}

impl HookWait {
    pub(crate) fn new(
        roots: &Roots,
        req: &GateRequest,
        someone_to_decide: fn(&Roots) -> bool,
    ) -> Self {
        let watch = DecisionsWatch::new(roots);
        let start = Instant::now();
        HookWait {
            tick: if watch.watching() {
                TICK
            } else {
                TICK_WITHOUT_WATCHER
            },
            watch,
            request_file: store::requests_dir(roots).join(format!("{}.json", req.id)),
            start,
            last_check: start,
            someone_to_decide,
        }
    }

    /// The request is still open (no one closed it meanwhile).
    pub(crate) fn request_open(&self) -> bool {
        self.request_file.exists()
    }

    /// How long the hook has waited.
    pub(crate) fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Every quarter second: why nobody is left to decide (the agent went away, or Plandeck
    /// stopped), as the status to close the request with.
    pub(crate) fn nobody_left(&mut self, roots: &Roots, req: &GateRequest) -> Option<GateStatus> {
        if self.last_check.elapsed() < APP_CHECK {
            return None;
        }
        self.last_check = Instant::now();
        let agent_gone = req.agent_pid.is_some_and(|pid| {
            let agent = crate::terminal::ProcessId {
                pid,
                start_time: req.agent_start_time,
            };
            crate::terminal::alive(&agent).is_err()
        });
        if agent_gone {
            Some(GateStatus::AgentGone)
        } else if !(self.someone_to_decide)(roots) {
            Some(GateStatus::AppStopped)
        } else {
            None
        }
    }

    /// Sleeps until a decision file lands or the next look is due, never past `deadline`.
    pub(crate) fn sleep(&self, deadline: Duration) {
        let left = deadline.saturating_sub(self.elapsed());
        self.watch.sleep(self.tick.min(left));
    }
}
