//! The app's live view of its roots, as one handle: watchers over plan files, transcripts and
//! registries, and gate requests; the liveness tick (a process that died changes nothing on disk);
//! and what each change means (a plan version to record, sessions that started waiting for the
//! person, requests that arrived or ended). The shell only forwards the [`LiveEvent`]s to the
//! window and the desktop (docs/architecture.md §3).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::config::Roots;
use crate::gate::{self, AppPresence, GateRequest, GateStatus};
use crate::plans::{self, PlansChanged};
use crate::review;
use crate::sessions::{IndexProgress, SessionIndex, SessionState, SessionSummary};
use crate::sync::lock;
use crate::watch::{self, WatchHandle};

mod history;
mod worktrees;
pub use history::LiveHistory;
pub use worktrees::LiveWorktrees;

/// How long a burst of transcript changes is held before the index reads it.
const SESSION_DEBOUNCE: Duration = Duration::from_millis(150);
/// Gate requests are small files a hook waits on: report them fast.
const GATE_DEBOUNCE: Duration = Duration::from_millis(30);
/// How often registry pids and waiting hooks are looked at again.
pub const LIVENESS_TICK: Duration = Duration::from_secs(3);

/// The roots changed (the demo was loaded): everything shown is to be read again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RootsChanged {
    /// The app now shows the demo workspace.
    pub demo: bool,
}

/// Sessions whose summary changed (appeared, changed state, went away).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionsChanged {
    pub session_ids: Vec<String>,
    /// Of those, the ones that started waiting for the person (approval or input).
    pub started_waiting: Vec<String>,
}

/// Worktree folders or their git dirs changed, or a worktree was kept, removed or restored.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct WorktreesChanged {
    /// The ids of the worktrees that changed, when known (empty: read the list again).
    pub ids: Vec<String>,
}

/// Gate requests that arrived, changed (an approval being delivered), or were closed (decided,
/// answered in the terminal, ended).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct GateChanged {
    pub arrived: Vec<String>,
    pub updated: Vec<String>,
    pub closed: Vec<String>,
}

/// Hosted ACP sessions whose record changed (issue 36): their host wrote `acp/sessions/<id>.json`
/// (state, mode, gated, usage, conversation). The window reads those again instead of polling.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AcpChanged {
    pub ids: Vec<String>,
}

/// Hosted sessions' records are rewritten on every update: report them fast, one event a burst.
const ACP_DEBOUNCE: Duration = Duration::from_millis(30);

/// What the live handle reports.
#[derive(Debug, Clone)]
pub enum LiveEvent {
    Plans(PlansChanged),
    Sessions(SessionsChanged),
    Gate(GateChanged),
    /// A plan started waiting in the gate: worth a desktop notification.
    RequestArrived(Box<GateRequest>),
    /// How far the session index's background load is (at most every 100 ms, and when done).
    SessionIndex(IndexProgress),
    /// A session started waiting for the person; the sentence says which and for what.
    SessionWaiting {
        session_id: String,
        message: String,
    },
    /// Comments on a plan (or any plan) were added, changed or resolved.
    Comments(crate::comments::CommentsChanged),
    /// How far the plan history's first scan is (at most every 100 ms, and when done).
    HistoryProgress(crate::history::ScanProgress),
    /// The plan history's plans changed.
    History(crate::history::HistoryChanged),
    /// Worktrees came or went: list them again.
    Worktrees(WorktreesChanged),
    /// These worktrees changed (their counts, their sessions), read again.
    WorktreesUpdated(Vec<crate::worktrees::WorktreeSummary>),
    /// A worktree's folder size, measured.
    WorktreeSize(crate::worktrees::WorktreeSize),
    /// The other machines and how each is now ([`crate::machines`]).
    Machines(Vec<crate::elsewhere::MachineStatus>),
    /// A terminal view's output, or its end ([`crate::mirror`]).
    Terminal(crate::mirror::TerminalEvent),
    /// The roots shown changed (the demo loaded or left: [`crate::workspace`]).
    Roots(RootsChanged),
    /// Hosted ACP sessions' records changed.
    Acp(AcpChanged),
}

/// Watches `roots` until dropped. Holds the app's presence in the gate (so hooks wait for a
/// decision) for as long as it lives.
pub struct Live {
    _watchers: Vec<WatchHandle>,
    /// How far the session index's background load is.
    pub(crate) index_progress: Arc<Mutex<IndexProgress>>,
    /// Held while the handle lives: a background load finishing after the handle was replaced
    /// (the roots changed) throws its index away.
    _alive: Arc<()>,
    /// The app's presence in the gate while it is held ([`Live::set_present`]).
    presence: Mutex<Option<AppPresence>>,
    /// Dropping it stops the liveness tick.
    _stop_tick: mpsc::Sender<()>,
    /// The plan history, scanned in the background and followed since.
    history: Arc<LiveHistory>,
    /// The worktrees' sizes and watcher.
    worktrees: Arc<LiveWorktrees>,
    /// What discovery found, kept until a watcher sees a change.
    plan_index: Arc<plans::PlanIndex>,
    /// The open terminal views of sessions' panes.
    pub(crate) terminals: Arc<crate::mirror::Terminals>,
    /// What a [`crate::deck::Deck`] over this handle holds.
    pub(crate) roots: Roots,
    pub(crate) sessions: Arc<Mutex<Option<SessionIndex>>>,
    pub(crate) emit: Arc<dyn Fn(LiveEvent) + Send + Sync>,
}

impl Live {
    /// Starts every watcher over `roots`, opens a fresh session index into `sessions` (shared with
    /// whoever lists sessions), and reports through `emit` from the watchers' threads. A watcher
    /// that cannot start is logged and the rest go on.
    pub fn start(
        roots: &Roots,
        sessions: Arc<Mutex<Option<SessionIndex>>>,
        emit: impl Fn(LiveEvent) + Send + Sync + 'static,
    ) -> Live {
        Self::start_with(roots, sessions, true, emit)
    }

    /// [`Live::start`], holding the app's presence in the gate only when `present` (a server
    /// holds it only while someone is connected to decide: [`Live::set_present`]).
    pub fn start_with(
        roots: &Roots,
        sessions: Arc<Mutex<Option<SessionIndex>>>,
        present: bool,
        emit: impl Fn(LiveEvent) + Send + Sync + 'static,
    ) -> Live {
        let emit: Arc<dyn Fn(LiveEvent) + Send + Sync> = Arc::new(emit);
        let mut watchers = Vec::new();
        let sessions_for_worktrees = sessions.clone();
        let sessions_for_deck = sessions.clone();

        // The gate: announce that Plandeck is running, and follow requests filed by hooks.
        let presence = if present { hold_presence(roots) } else { None };
        let gate_seen = Arc::new(Mutex::new(GateSeen::new(roots)));
        {
            let (roots, emit, seen) = (roots.clone(), emit.clone(), gate_seen.clone());
            match watch::watch(vec![roots.data.join("gate")], GATE_DEBOUNCE, move |_| {
                lock(&seen).look(&roots, &*emit);
            }) {
                Ok(h) => watchers.push(h),
                Err(e) => tracing::warn!("gate requests are not watched live: {e}"),
            }
        }

        // Hosted ACP sessions: their host rewrites a session's record as it changes.
        {
            let emit = emit.clone();
            let dir = roots.data.join("acp").join("sessions");
            match watch::watch(vec![dir.clone()], ACP_DEBOUNCE, move |paths| {
                let ids = acp_ids(&dir, &paths);
                if !ids.is_empty() {
                    emit(LiveEvent::Acp(AcpChanged { ids }));
                }
            }) {
                Ok(h) => watchers.push(h),
                Err(e) => tracing::warn!("hosted ACP sessions are not watched live: {e}"),
            }
        }

        // Plans: one discovery, then again only after a change (every plan call on these roots
        // reads this index while the handle lives); record each version seen, then report.
        let plan_index = plans::PlanIndex::hold(roots);
        {
            // Weak: the index is held by the handle alone, and goes with it.
            let index = Arc::downgrade(&plan_index);
            let (plan_roots, emit) = (roots.clone(), emit.clone());
            match plans::watch(roots, move |changed| {
                index.upgrade().inspect(|i| i.refresh());
                for path in &changed.paths {
                    if let Ok(bytes) = std::fs::read(path) {
                        if let Err(e) =
                            review::record_version(&plan_roots, std::path::Path::new(path), &bytes)
                        {
                            tracing::warn!("cannot record a version of {path}: {e}");
                        }
                    }
                }
                emit(LiveEvent::Plans(changed));
            }) {
                Ok(h) => watchers.push(h),
                Err(e) => tracing::warn!("plans are not watched live: {e}"),
            }
        }

        // Sessions: the index loads in the background (seconds on a heavy home) while the window
        // shows plans, then follows appended bytes. The watcher starts first: what it reports
        // while the index loads waits in the backlog and is applied once the index is in.
        *lock(&sessions) = None;
        let alive = Arc::new(());
        let index_progress = Arc::new(Mutex::new(IndexProgress::default()));
        let backlog: Arc<Mutex<Vec<PathBuf>>> = Arc::default();
        let before = Arc::new(Mutex::new(HashMap::new()));
        {
            let (sessions, emit, before) = (sessions.clone(), emit.clone(), before.clone());
            let (backlog, plan_index) = (backlog.clone(), Arc::downgrade(&plan_index));
            let paths = SessionIndex::watch_roots_of(roots);
            match watch::watch(paths, SESSION_DEBOUNCE, move |paths| {
                // A transcript or session file may link a plan to its session, or name a project
                // with a plans folder of its own.
                plan_index.upgrade().inspect(|i| i.refresh());
                let changed = {
                    let mut slot = lock(&sessions);
                    match slot.as_mut() {
                        Some(index) => index.apply(&paths),
                        None => {
                            lock(&backlog).extend(paths);
                            false
                        }
                    }
                };
                if changed {
                    report_sessions(&sessions, &before, &*emit);
                }
            }) {
                Ok(h) => watchers.push(h),
                Err(e) => tracing::warn!("sessions are not watched live: {e}"),
            }
        }
        load_sessions(LoadSessions {
            roots: roots.clone(),
            sessions: sessions.clone(),
            backlog,
            before: before.clone(),
            progress: index_progress.clone(),
            alive: Arc::downgrade(&alive),
            emit: emit.clone(),
        });

        // Liveness: a registry entry whose process died, or a hook whose agent died, changes
        // nothing on disk: look again every few seconds, until the handle is dropped.
        let (stop_tick, stopped) = mpsc::channel::<()>();
        {
            let (roots, emit) = (roots.clone(), emit.clone());
            std::thread::spawn(move || {
                let mut exited = crate::control::exited(&roots);
                while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(LIVENESS_TICK)
                {
                    let changed = lock(&sessions).as_mut().is_some_and(SessionIndex::tick);
                    if changed {
                        report_sessions(&sessions, &before, &*emit);
                    }
                    // An agent Plandeck started went away (Stop, a killed tmux session): its
                    // card ends (crate::control::mark_exited); which session it was is read then.
                    let now = crate::control::exited(&roots);
                    if now != exited {
                        exited = now;
                        emit(LiveEvent::Sessions(SessionsChanged {
                            session_ids: Vec::new(),
                            started_waiting: Vec::new(),
                        }));
                    }
                    lock(&gate_seen).look(&roots, &*emit);
                }
            });
        }

        // Plan history: its first scan and its watcher run on a thread of their own.
        let history = LiveHistory::start(roots, emit.clone());
        let worktrees = LiveWorktrees::new(roots, sessions_for_worktrees, emit.clone());
        let terminals = {
            let emit = emit.clone();
            Arc::new(crate::mirror::Terminals::new(Arc::new(move |e| {
                emit(LiveEvent::Terminal(e))
            })))
        };

        Live {
            _watchers: watchers,
            index_progress,
            _alive: alive,
            presence: Mutex::new(presence),
            _stop_tick: stop_tick,
            history,
            worktrees,
            plan_index,
            terminals,
            roots: roots.clone(),
            sessions: sessions_for_deck,
            emit,
        }
    }
}

/// The app's presence in the gate (hooks wait for a decision while it is held).
fn hold_presence(roots: &Roots) -> Option<AppPresence> {
    gate::app_heartbeat(roots)
        .map_err(|e| tracing::warn!("agent hooks will not wait for Plandeck: {e}"))
        .ok()
}

impl Live {
    /// Holds the app's presence in the gate (hooks on this machine wait for a decision) or gives
    /// it up (hooks fall back to the agent's own prompt).
    pub fn set_present(&self, present: bool) {
        let mut held = lock(&self.presence);
        match (present, held.is_some()) {
            (true, false) => *held = hold_presence(&self.roots),
            (false, true) => *held = None,
            _ => {}
        }
    }

    /// Whether the app's presence is held.
    pub fn is_present(&self) -> bool {
        lock(&self.presence).is_some()
    }

    /// The plan history of these roots (plans read from memory; see [`LiveHistory`]).
    pub fn history(&self) -> Arc<LiveHistory> {
        self.history.clone()
    }

    /// The worktrees of these roots (sizes remembered, watched once listed; see [`LiveWorktrees`]).
    pub fn worktrees(&self) -> Arc<LiveWorktrees> {
        self.worktrees.clone()
    }

    /// The plan index every plan call on these roots reads while the handle lives.
    pub fn plan_index(&self) -> Arc<plans::PlanIndex> {
        self.plan_index.clone()
    }

    /// How far the session index's background load is (the last [`LiveEvent::SessionIndex`]).
    pub fn index_progress(&self) -> IndexProgress {
        *lock(&self.index_progress)
    }
}

/// What the background load of the session index needs.
struct LoadSessions {
    roots: Roots,
    sessions: Arc<Mutex<Option<SessionIndex>>>,
    backlog: Arc<Mutex<Vec<PathBuf>>>,
    before: Arc<Mutex<HashMap<String, SessionSummary>>>,
    progress: Arc<Mutex<IndexProgress>>,
    alive: std::sync::Weak<()>,
    emit: Arc<dyn Fn(LiveEvent) + Send + Sync>,
}

/// Runs `f` on the background pool: the threads that read the session index and scan the plan
/// history, a pool of their own, so the window's parallel work (listing plans uses rayon's global
/// pool) does not queue behind a heavy home's thousand transcripts, and at low priority (nice 10),
/// so the window stays responsive while they read. Inside `f`, rayon's parallel iterators run on
/// this pool.
pub fn in_background<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    match background_pool() {
        Some(pool) => pool.install(f),
        None => f(),
    }
}

fn background_pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: std::sync::OnceLock<Option<rayon::ThreadPool>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(std::thread::available_parallelism().map_or(2, |n| n.get()))
            .thread_name(|i| format!("background-{i}"))
            .start_handler(|_| {
                // On Linux a priority set for "this process" with pid 0 is the calling thread's.
                #[cfg(target_os = "linux")]
                if let Err(e) = rustix::process::setpriority_process(None, 10) {
                    tracing::debug!("the session index reads at normal priority: {e}");
                }
            })
            .build()
            .map_err(|e| tracing::warn!("transcripts are read on the shared threads: {e}"))
            .ok()
    })
    .as_ref()
}

/// Reads the session index on a thread of its own, reporting progress (at most every 100 ms),
/// then stores it unless the handle is gone (the roots changed meanwhile), applies what the
/// watcher reported while it read, and reports every session. Sessions already waiting when it
/// comes in are not news (no notification): `before` starts from them.
fn load_sessions(load: LoadSessions) {
    std::thread::spawn(move || {
        let last = Mutex::new(None::<std::time::Instant>);
        let read = || {
            SessionIndex::open_with_progress(&load.roots, &|p| {
                if p.ready || load.alive.upgrade().is_none() {
                    return; // `ready` is said once the index is stored, below
                }
                let mut last = lock(&last);
                if last.is_some_and(|t| t.elapsed() < Duration::from_millis(100)) {
                    return;
                }
                *last = Some(std::time::Instant::now());
                *lock(&load.progress) = p;
                (load.emit)(LiveEvent::SessionIndex(p));
            })
        };
        let mut index = in_background(read);
        let (done, ids) = {
            let mut slot = lock(&load.sessions);
            // Checked under the lock: a newer handle clears the slot before its own load.
            if load.alive.upgrade().is_none() {
                return;
            }
            let backlog = std::mem::take(&mut *lock(&load.backlog));
            if !backlog.is_empty() {
                index.apply(&backlog);
            }
            let now = summaries(&index);
            let ids: Vec<String> = now.keys().cloned().collect();
            *lock(&load.before) = now;
            *slot = Some(index);
            let done = IndexProgress::new(ids.len(), ids.len(), true);
            *lock(&load.progress) = done;
            (done, ids)
        };
        tracing::info!(sessions = done.total, "session index loaded");
        (load.emit)(LiveEvent::SessionIndex(done));
        (load.emit)(LiveEvent::Sessions(SessionsChanged {
            session_ids: ids,
            started_waiting: Vec::new(),
        }));
    });
}

/// The open requests last reported (their status and session), to tell what changed.
struct GateSeen {
    open: BTreeMap<String, (GateStatus, String)>,
}

fn open_requests(pending: &[GateRequest]) -> BTreeMap<String, (GateStatus, String)> {
    pending
        .iter()
        .map(|r| (r.id.clone(), (r.status, r.session_id.clone())))
        .collect()
}

impl GateSeen {
    fn new(roots: &Roots) -> Self {
        Self {
            open: open_requests(&gate::pending(roots)),
        }
    }

    /// Closes requests that ended (the terminal answered, the agent is gone), then reports what
    /// arrived, changed and closed since the last look, and the sessions they belong to (a
    /// session shows its waiting request).
    fn look(&mut self, roots: &Roots, emit: &dyn Fn(LiveEvent)) {
        gate::look_codex(roots);
        gate::look_claude_cards(roots);
        gate::close_ended(roots);
        let pending = gate::pending(roots);
        let now = open_requests(&pending);
        let mut change = GateChanged::default();
        let mut sessions = BTreeSet::new();
        for (id, (status, session)) in &now {
            match self.open.get(id) {
                None => change.arrived.push(id.clone()),
                Some((before, _)) if before != status => change.updated.push(id.clone()),
                Some(_) => continue,
            }
            sessions.insert(session.clone());
        }
        for (id, (_, session)) in &self.open {
            if !now.contains_key(id) {
                change.closed.push(id.clone());
                sessions.insert(session.clone());
            }
        }
        if change == GateChanged::default() {
            return;
        }
        for request in pending
            .into_iter()
            .filter(|r| change.arrived.contains(&r.id))
        {
            emit(LiveEvent::RequestArrived(Box::new(request)));
        }
        self.open = now;
        emit(LiveEvent::Gate(change));
        emit(LiveEvent::Sessions(SessionsChanged {
            session_ids: sessions.into_iter().collect(),
            started_waiting: Vec::new(),
        }));
    }
}

fn summaries(index: &SessionIndex) -> HashMap<String, SessionSummary> {
    index
        .sessions()
        .into_iter()
        .map(|s| (s.session_id.clone(), s))
        .collect()
}

/// Reports the sessions whose summary changed since `before`, and those that started waiting.
fn report_sessions(
    sessions: &Mutex<Option<SessionIndex>>,
    before: &Mutex<HashMap<String, SessionSummary>>,
    emit: &dyn Fn(LiveEvent),
) {
    let Some(now) = lock(sessions).as_ref().map(summaries) else {
        return;
    };
    let mut before = lock(before);
    let diff = sessions_diff(&before, &now);
    *before = now;
    drop(before);
    for (session_id, message) in &diff.1 {
        emit(LiveEvent::SessionWaiting {
            session_id: session_id.clone(),
            message: message.clone(),
        });
    }
    if !diff.0.session_ids.is_empty() {
        emit(LiveEvent::Sessions(diff.0));
    }
}

fn waiting(s: &SessionSummary) -> bool {
    matches!(
        s.state,
        SessionState::WaitingForApproval | SessionState::WaitingForInput
    )
}

/// What changed between two views of the sessions: the ids whose summary differs (sorted), and
/// for each session that started waiting, a sentence for the person.
pub fn sessions_diff(
    before: &HashMap<String, SessionSummary>,
    now: &HashMap<String, SessionSummary>,
) -> (SessionsChanged, Vec<(String, String)>) {
    let mut ids: Vec<String> = now
        .iter()
        .filter(|(id, s)| before.get(*id) != Some(*s))
        .map(|(id, _)| id.clone())
        .chain(before.keys().filter(|id| !now.contains_key(*id)).cloned())
        .collect();
    ids.sort();
    let mut started: Vec<(String, String)> = now
        .iter()
        .filter(|(id, s)| waiting(s) && !before.get(*id).is_some_and(waiting))
        .map(|(id, s)| (id.clone(), waiting_sentence(s)))
        .collect();
    started.sort();
    (
        SessionsChanged {
            session_ids: ids,
            started_waiting: started.iter().map(|(id, _)| id.clone()).collect(),
        },
        started,
    )
}

fn waiting_sentence(s: &SessionSummary) -> String {
    let project = std::path::Path::new(&s.cwd)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let what = match s.state {
        SessionState::WaitingForApproval => "waits for your approval of its plan",
        _ => "waits for your input",
    };
    format!("{} in {project} {what}.", s.agent.display_name())
}

/// TypeScript declarations of the event payloads defined here.
pub(crate) fn ts_declarations() -> Vec<String> {
    vec![
        <RootsChanged as TS>::decl(),
        <SessionsChanged as TS>::decl(),
        <WorktreesChanged as TS>::decl(),
        <GateChanged as TS>::decl(),
        <AcpChanged as TS>::decl(),
    ]
}

/// The ids of the hosted sessions whose records (`<dir>/<id>.json`) are among `paths` (a
/// durable write's temporary file beside them is none).
fn acp_ids(dir: &std::path::Path, paths: &[PathBuf]) -> Vec<String> {
    let mut ids: Vec<String> = paths
        .iter()
        .filter(|p| p.parent() == Some(dir))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .filter_map(|p| p.file_stem()?.to_str().map(str::to_owned))
        .filter(|id| !id.starts_with('.') && crate::acp::host::check_id(id).is_ok())
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

#[cfg(test)]
mod tests;
