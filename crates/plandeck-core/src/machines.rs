//! The other machines of the settings (`plandeck hosts`), kept connected for the window: the
//! [`Elsewhere`] its deck shows them through.
//!
//! Each machine has a link: a thread that connects ([`Remote::connect`], the person's own ssh),
//! subscribes to the remote's events from the last one it heard (a server that outlived the
//! connection resumes; a new one says so and everything is read again), and hands each event to
//! the window with its ids namespaced ([`crate::elsewhere`]). When the connection drops the
//! machine is unreachable since that moment: its rows stay as it last gave them, its calls are
//! refused (never queued to go later), and it is tried again after 1 s, 2 s, 4 s … at most a
//! minute (at once on [`Elsewhere::reconnect`]).
//!
//! The remote's bytes are data: an event is read as the one type its name says or dropped with
//! a logged reason; an answer is read as the call's result type ([`crate::elsewhere::answer`]);
//! nothing in either names a local path, command or window address.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::time::Duration;

use serde_json::{json, Value};

use crate::config::{Env, Host};
use crate::elsewhere::{self, Elsewhere, Gathered, MachineState, MachineStatus, OnMachine};
use crate::gate::GateRequest;
use crate::ipc::{ErrorKind, IpcError};
use crate::live::{GateChanged, LiveEvent, SessionsChanged, WorktreesChanged};
use crate::plans::PlansChanged;
use crate::remote::{Remote, RemoteError};
use crate::sync::lock;
use crate::wire::calls;

/// How often a machine is tried again, and how long a listing waits for one.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    /// The wait before the first try again; doubled each time it fails.
    pub first_retry: Duration,
    pub max_retry: Duration,
    /// How long a listing waits for a machine before it shows what that one last said.
    pub listing_patience: Duration,
    /// How long the link waits for an event before it looks whether the connection still holds.
    pub tick: Duration,
    /// How long a call waits for its answer (then: not known whether it went).
    pub call_patience: Duration,
}

impl Default for Timing {
    fn default() -> Self {
        Self {
            first_retry: Duration::from_secs(1),
            max_retry: Duration::from_secs(60),
            listing_patience: Duration::from_secs(5),
            tick: Duration::from_millis(250),
            call_patience: crate::remote::CALL_PATIENCE,
        }
    }
}

type Emit = Arc<dyn Fn(LiveEvent) + Send + Sync>;

/// At most this many read answers are kept per machine (the oldest go first).
const READS_KEPT: usize = 64;
/// At most this many of a machine's events are handed to the window each second; the rest of
/// that second are dropped and the window reads everything again once (a flood is one reload).
const EVENTS_PER_SECOND: usize = 500;
/// At most this many desktop notifications of one machine's arrivals each minute (more are
/// counted in the window, never notified).
const NOTICES_PER_MINUTE: usize = 5;
/// The requests waiting there are read again at most this often (a burst of the gate's events
/// is one reading).
const PENDING_EVERY: Duration = Duration::from_millis(500);

/// The machines, each kept connected by a thread of its own until this is dropped.
pub struct Machines {
    inner: Arc<Inner>,
}

struct Inner {
    env: Env,
    emit: Emit,
    timing: Timing,
    /// In the settings' order.
    links: Mutex<Vec<Arc<Link>>>,
}

struct Link {
    host: Host,
    state: Mutex<LinkState>,
    /// Set to stop the thread; the condvar wakes it (stop, or try again now).
    stop: AtomicBool,
    wake: (Mutex<bool>, Condvar),
    /// The last answer of each listing, shown while the machine is unreachable.
    kept: Mutex<HashMap<String, Value>>,
    /// The last answers of reads (by method and params), newest last.
    reads: Mutex<std::collections::VecDeque<(String, Value)>>,
    /// The requests waiting there that the person was told of (those still waiting).
    told: Mutex<Option<HashSet<String>>>,
    /// When the last notifications of this machine were shown (the last minute's).
    noticed: Mutex<std::collections::VecDeque<std::time::Instant>>,
    /// The listings asked of it and not answered yet: one at a time per listing.
    listing: Mutex<HashSet<String>>,
}

struct LinkState {
    status: MachineStatus,
    remote: Option<Arc<Remote>>,
}

fn now() -> String {
    crate::timestamp::format(crate::timestamp::now_seconds())
}

fn later(by: Duration) -> String {
    crate::timestamp::format(crate::timestamp::now_seconds() + by)
}

impl Machines {
    /// Starts a link to each of `hosts`, reached with `env`'s ssh; what happens is told through
    /// `emit` (the machines' states, their events).
    pub fn start(
        hosts: Vec<Host>,
        env: Env,
        emit: impl Fn(LiveEvent) + Send + Sync + 'static,
    ) -> Machines {
        Self::with_timing(hosts, env, Arc::new(emit), Timing::default())
    }

    pub fn with_timing(hosts: Vec<Host>, env: Env, emit: Emit, timing: Timing) -> Machines {
        let machines = Machines {
            inner: Arc::new(Inner {
                env,
                emit,
                timing,
                links: Mutex::new(Vec::new()),
            }),
        };
        machines.hosts_changed(hosts);
        machines
    }

    /// The link of `name`, or why there is none.
    fn link(&self, name: &str) -> Result<Arc<Link>, IpcError> {
        lock(&self.inner.links)
            .iter()
            .find(|l| l.host.name == name)
            .cloned()
            .ok_or_else(|| {
                IpcError::new(
                    ErrorKind::NotFound,
                    format!("no machine named {name:?} (Settings → Machines lists them)"),
                )
            })
    }
}

impl Drop for Machines {
    fn drop(&mut self) {
        for link in lock(&self.inner.links).drain(..) {
            link.halt();
        }
    }
}

impl Link {
    fn new(host: Host) -> Link {
        Link {
            state: Mutex::new(LinkState {
                status: MachineStatus {
                    name: host.name.clone(),
                    ssh: host.ssh.clone(),
                    forward_agent: host.forward_agent,
                    state: MachineState::Connecting,
                    since: now(),
                    problem: None,
                    next_try: None,
                    version: None,
                    last_seen: None,
                },
                remote: None,
            }),
            host,
            stop: AtomicBool::new(false),
            wake: (Mutex::new(false), Condvar::new()),
            kept: Mutex::default(),
            reads: Mutex::default(),
            told: Mutex::default(),
            noticed: Mutex::default(),
            listing: Mutex::default(),
        }
    }

    fn halt(&self) {
        self.stop.store(true, Ordering::SeqCst);
        self.poke();
        // The connection goes now: its thread may be waiting for an event.
        lock(&self.state).remote = None;
    }

    fn poke(&self) {
        *lock(&self.wake.0) = true;
        self.wake.1.notify_all();
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    /// Waits `delay`, or less when poked; true when poked or stopped.
    fn rest(&self, delay: Duration) -> bool {
        let mut poked = lock(&self.wake.0);
        if !*poked {
            poked = self
                .wake
                .1
                .wait_timeout_while(poked, delay, |p| !*p)
                .map(|(g, _)| g)
                .unwrap_or_else(|e| e.into_inner().0);
        }
        std::mem::take(&mut *poked) || self.stopped()
    }

    fn status(&self) -> MachineStatus {
        lock(&self.state).status.clone()
    }

    fn remote(&self) -> Option<Arc<Remote>> {
        lock(&self.state).remote.clone()
    }

    fn seen(&self) {
        lock(&self.state).status.last_seen = Some(now());
    }
}

/// Whether a machine's failure is one that trying again soon will not mend (a person must act):
/// then it is tried at the longest wait.
fn needs_a_person(e: &RemoteError) -> bool {
    matches!(
        e,
        RemoteError::HostKeyChanged { .. }
            | RemoteError::HostKeyUnknown { .. }
            | RemoteError::PermissionDenied { .. }
            | RemoteError::NotInstalled { .. }
            | RemoteError::Protocol { .. }
            | RemoteError::BadHost(_)
    )
}

/// Keeps `link` connected until it is stopped.
fn run_link(inner: Arc<Inner>, link: Arc<Link>) {
    let timing = inner.timing;
    let mut delay = timing.first_retry;
    // The server and the last event heard of it: a reconnect resumes after it.
    let mut cursor: Option<(String, u64)> = None;
    while !link.stopped() {
        let connected = Remote::connect(&link.host, &inner.env).and_then(|remote| {
            let instance = remote.hello().instance.clone();
            let after = match &cursor {
                Some((seen, seq)) if *seen == instance => Some(*seq),
                _ => None,
            };
            let subscribed = remote.subscribe(after)?;
            Ok((
                remote,
                instance,
                after.is_some() && !subscribed.gap,
                subscribed.seq,
            ))
        });
        let (remote, instance, resumed, seq) = match connected {
            Ok(c) => c,
            Err(e) => {
                let wait = if needs_a_person(&e) {
                    timing.max_retry
                } else {
                    delay
                };
                delay = (delay * 2).min(timing.max_retry);
                unreachable(&inner, &link, IpcError::from(e), wait);
                link.rest(wait);
                continue;
            }
        };
        delay = timing.first_retry;
        if link.stopped() {
            return;
        }
        remote.set_patience(timing.call_patience);
        let remote = Arc::new(remote);
        cursor = Some((instance, seq));
        {
            let mut state = lock(&link.state);
            state.remote = Some(remote.clone());
            let s = &mut state.status;
            s.state = MachineState::Connected;
            s.since = now();
            s.problem = None;
            s.next_try = None;
            s.version = Some(crate::visible::shown(&remote.hello().version).into_owned());
            s.last_seen = Some(now());
        }
        tell_states(&inner);
        if !resumed {
            // A server that does not know where this one left off: read everything again.
            everything_changed(&inner);
        }
        let mut flow = Flow::default();
        for request in told_of_arrivals(&link, &remote) {
            tell_arrival(&inner, &link, request);
        }
        flow.pending_read = Some(std::time::Instant::now());
        while !link.stopped() {
            match remote.next_event(timing.tick) {
                Some(event) => {
                    if let Some((_, last)) = &mut cursor {
                        *last = event.seq;
                    }
                    link.seen();
                    if flow.take() {
                        heard(
                            &inner,
                            &link,
                            &remote,
                            &mut flow,
                            &event.name,
                            event.payload,
                        );
                    }
                }
                None if !remote.is_open() || link.remote().is_none() => break,
                None => {}
            }
            // More events than the queue holds came: some are lost, read everything again.
            if remote.lost_events() {
                flow.flooded = true;
            }
            flow.settle(&inner, &link, &remote);
        }
        if link.stopped() {
            return;
        }
        let dropped = IpcError::new(
            ErrorKind::Unreachable,
            format!("the connection to {} dropped", link.host.name),
        );
        drop(remote);
        unreachable(&inner, &link, dropped, delay);
        everything_changed(&inner);
        link.rest(delay);
    }
}

/// `link` is not connected: since when (kept while it stays so), why, and the next try.
fn unreachable(inner: &Inner, link: &Link, problem: IpcError, wait: Duration) {
    {
        let mut state = lock(&link.state);
        state.remote = None;
        let s = &mut state.status;
        if s.state != MachineState::Unreachable {
            s.since = now();
        }
        s.state = MachineState::Unreachable;
        s.problem = Some(problem);
        s.next_try = Some(later(wait));
    }
    tell_states(inner);
}

fn tell_states(inner: &Inner) {
    let statuses = lock(&inner.links).iter().map(|l| l.status()).collect();
    (inner.emit)(LiveEvent::Machines(statuses));
}

/// What the window shows may all have changed (a machine came or went): every list is read again.
fn everything_changed(inner: &Inner) {
    (inner.emit)(LiveEvent::Plans(PlansChanged::of(Vec::new())));
    (inner.emit)(LiveEvent::Sessions(SessionsChanged {
        session_ids: Vec::new(),
        started_waiting: Vec::new(),
    }));
    (inner.emit)(LiveEvent::Gate(GateChanged::default()));
    (inner.emit)(LiveEvent::Worktrees(WorktreesChanged::default()));
}

/// How a connected machine's events flow to the window: at most [`EVENTS_PER_SECOND`] (a flood
/// becomes one reload), and the requests waiting there read at most every [`PENDING_EVERY`].
#[derive(Default)]
struct Flow {
    /// The second being counted, and how many events were handed on in it.
    second: Option<std::time::Instant>,
    handed: usize,
    /// Events were dropped: everything is read again once the flood ends.
    flooded: bool,
    /// The gate changed there since the requests were last read.
    gate_changed: bool,
    pending_read: Option<std::time::Instant>,
}

impl Flow {
    /// Whether one more event may be handed on now.
    fn take(&mut self) -> bool {
        let now = std::time::Instant::now();
        match self.second {
            Some(start) if now.duration_since(start) < Duration::from_secs(1) => {}
            _ => {
                self.second = Some(now);
                self.handed = 0;
            }
        }
        if self.handed >= EVENTS_PER_SECOND {
            self.flooded = true;
            return false;
        }
        self.handed += 1;
        true
    }

    /// What was put off: the requests read again, the reload after a flood.
    fn settle(&mut self, inner: &Inner, link: &Link, remote: &Remote) {
        let now = std::time::Instant::now();
        let quiet = self
            .second
            .is_none_or(|s| now.duration_since(s) >= Duration::from_secs(1));
        if self.flooded && quiet {
            self.flooded = false;
            self.gate_changed = true;
            tracing::warn!(
                machine = link.host.name.as_str(),
                "more events than the window takes came: everything is read again"
            );
            everything_changed(inner);
        }
        let due = self
            .pending_read
            .is_none_or(|t| now.duration_since(t) >= PENDING_EVERY);
        if self.gate_changed && due {
            self.gate_changed = false;
            self.pending_read = Some(now);
            let arrived = told_of_arrivals(link, remote);
            (inner.emit)(LiveEvent::Gate(GateChanged::default()));
            for request in arrived {
                tell_arrival(inner, link, request);
            }
        }
    }
}

/// Tells the window a request arrived there (a desktop notification), at most
/// [`NOTICES_PER_MINUTE`] of one machine's each minute.
fn tell_arrival(inner: &Inner, link: &Link, request: GateRequest) {
    let now = std::time::Instant::now();
    let mut noticed = lock(&link.noticed);
    while noticed
        .front()
        .is_some_and(|t| now.duration_since(*t) >= Duration::from_secs(60))
    {
        noticed.pop_front();
    }
    if noticed.len() >= NOTICES_PER_MINUTE {
        tracing::info!(
            machine = link.host.name.as_str(),
            "a request arrived there: not notified (more than {NOTICES_PER_MINUTE} this minute)"
        );
        return;
    }
    noticed.push_back(now);
    drop(noticed);
    (inner.emit)(LiveEvent::RequestArrived(Box::new(request)));
}

/// An event of the remote, handed on as the same event here (its ids namespaced), or dropped
/// with why.
fn heard(inner: &Inner, link: &Link, remote: &Remote, flow: &mut Flow, name: &str, payload: Value) {
    let machine = link.host.name.as_str();
    match crate::wire::event_here(machine, name, payload) {
        Ok(Some(event)) => {
            // The requests waiting there are read first, so the title counts them when the
            // window hears of the change; then the ones new to the person are told. Read at
            // most every PENDING_EVERY: a burst is read once, after it.
            let gate = matches!(&event, LiveEvent::Gate(_));
            let due = flow
                .pending_read
                .is_none_or(|t| t.elapsed() >= PENDING_EVERY);
            if gate && !due {
                flow.gate_changed = true;
                return;
            }
            let arrived = if gate {
                flow.pending_read = Some(std::time::Instant::now());
                told_of_arrivals(link, remote)
            } else {
                Vec::new()
            };
            (inner.emit)(event);
            for request in arrived {
                tell_arrival(inner, link, request);
            }
        }
        Ok(None) => {}
        Err(why) => tracing::warn!(machine, "an event of the remote was dropped: {why}"),
    }
}

/// Reads the requests waiting on the remote (kept for the title) and returns those the person
/// was not told of yet, to tell as arrived (a desktop notification). The first time, those already
/// waiting are only noted.
fn told_of_arrivals(link: &Link, remote: &Remote) -> Vec<GateRequest> {
    let Ok(value) = remote.call(calls::list_pending::NAME, json!({})) else {
        return Vec::new();
    };
    lock(&link.kept).insert(calls::list_pending::NAME.to_owned(), value.clone());
    let machine = link.host.name.as_str();
    let Ok(pending) = elsewhere::answer::<Vec<GateRequest>>(machine, value) else {
        return Vec::new();
    };
    let mut told = lock(&link.told);
    let first = told.is_none();
    let before = told.take().unwrap_or_default();
    // Only those waiting now are remembered: what the remote says cannot grow this.
    *told = Some(pending.iter().map(|r| r.id.clone()).collect());
    if first {
        return Vec::new();
    }
    pending
        .into_iter()
        .filter(|r| !before.contains(&r.id))
        .collect()
}

// The live handle's changes, as another machine's.

impl OnMachine for SessionsChanged {
    fn on_machine(&mut self, machine: &str) {
        elsewhere::all(machine, &mut self.session_ids);
        elsewhere::all(machine, &mut self.started_waiting);
    }
}

impl OnMachine for GateChanged {
    fn on_machine(&mut self, machine: &str) {
        elsewhere::all(machine, &mut self.arrived);
        elsewhere::all(machine, &mut self.updated);
        elsewhere::all(machine, &mut self.closed);
    }
}

impl OnMachine for crate::live::AcpChanged {
    fn on_machine(&mut self, machine: &str) {
        elsewhere::all(machine, &mut self.ids);
    }
}

impl OnMachine for WorktreesChanged {
    fn on_machine(&mut self, machine: &str) {
        elsewhere::all(machine, &mut self.ids);
    }
}

/// A failure of a connected machine's call, for the window.
fn call_error(host: &str, e: RemoteError) -> IpcError {
    match e {
        RemoteError::Answered { error, .. } => {
            IpcError::new(error.kind, format!("{host}: {}", error.message))
        }
        RemoteError::Dropped { .. } => IpcError::new(
            ErrorKind::Unreachable,
            format!("{e}: nothing more was sent, and it is not sent again by itself"),
        ),
        other => other.into(),
    }
}

impl Elsewhere for Machines {
    fn call(&self, machine: &str, method: &str, params: Value) -> Result<Value, IpcError> {
        let link = self.link(machine)?;
        // A call the table marks `#[read]`: its last answer is kept, and shown (as it was)
        // while the machine is unreachable. Every other call is refused then.
        let read = crate::wire::is_read(method).then(|| format!("{method} {params}"));
        let Some(remote) = link.remote() else {
            // A read it answered before: as it was (the window shows the machine unreachable).
            if let Some(key) = &read {
                let reads = lock(&link.reads);
                if let Some((_, value)) = reads.iter().rev().find(|(k, _)| k == key) {
                    return Ok(value.clone());
                }
            }
            let status = link.status();
            let since = crate::timestamp::parse(&status.since)
                .map(|t| format!("{:02}:{:02} UTC", t.hour(), t.minute()))
                .unwrap_or(status.since);
            return Err(IpcError::new(
                ErrorKind::Unreachable,
                format!(
                    "{machine} is not connected (unreachable since {since}): nothing was sent, \
                     and a decision is never queued to go later; decide once it is back, or on \
                     {machine} itself"
                ),
            ));
        };
        let answer = remote
            .call(method, params)
            .map_err(|e| call_error(machine, e));
        if let Ok(value) = &answer {
            link.seen();
            if let Some(key) = read {
                let mut reads = lock(&link.reads);
                reads.retain(|(k, _)| *k != key);
                reads.push_back((key, value.clone()));
                while reads.len() > READS_KEPT {
                    reads.pop_front();
                }
            }
        }
        answer
    }

    fn gather(&self, method: &str) -> Vec<Gathered> {
        let links = lock(&self.inner.links).clone();
        // Every machine asked at once; each waited for at most the patience.
        let asked: Vec<_> = links
            .into_iter()
            .map(|link| {
                let (tx, rx) = mpsc::channel();
                // One listing of each kind asked of a machine at a time: while one is not
                // answered, the next shows what it last said (no thread piles up behind a
                // machine that says nothing; each waits at most the call's deadline).
                let asking = link
                    .remote()
                    .filter(|_| lock(&link.listing).insert(method.to_owned()));
                if let Some(remote) = asking {
                    let (link, method) = (link.clone(), method.to_owned());
                    std::thread::spawn(move || {
                        let answer = remote.call(&method, json!({}));
                        if let Ok(value) = &answer {
                            lock(&link.kept).insert(method.clone(), value.clone());
                            link.seen();
                        }
                        lock(&link.listing).remove(&method);
                        let _ = tx.send(answer.map_err(|e| call_error(&link.host.name, e)));
                    });
                }
                (link, rx)
            })
            .collect();
        let patience = self.inner.timing.listing_patience;
        asked
            .into_iter()
            .map(|(link, rx)| {
                let machine = link.host.name.clone();
                match rx.recv_timeout(patience) {
                    Ok(Ok(answer)) => Gathered {
                        machine,
                        current: true,
                        answer: Ok(answer),
                    },
                    _ => Gathered {
                        current: false,
                        answer: lock(&link.kept).get(method).cloned().ok_or_else(|| {
                            IpcError::new(
                                ErrorKind::Unreachable,
                                format!("{machine} has not answered yet"),
                            )
                        }),
                        machine,
                    },
                }
            })
            .collect()
    }

    fn last(&self, method: &str) -> Vec<Gathered> {
        let links = lock(&self.inner.links).clone();
        links
            .iter()
            .filter_map(|link| {
                let kept = lock(&link.kept).get(method).cloned()?;
                Some(Gathered {
                    machine: link.host.name.clone(),
                    current: link.remote().is_some(),
                    answer: Ok(kept),
                })
            })
            .collect()
    }

    fn statuses(&self) -> Vec<MachineStatus> {
        lock(&self.inner.links).iter().map(|l| l.status()).collect()
    }

    fn hosts_changed(&self, hosts: Vec<Host>) {
        let mut links = lock(&self.inner.links);
        let mut kept = Vec::new();
        for host in hosts {
            match links.iter().position(|l| l.host == host) {
                Some(i) => kept.push(links.remove(i)),
                None => {
                    let link = Arc::new(Link::new(host));
                    let (inner, started) = (self.inner.clone(), link.clone());
                    std::thread::Builder::new()
                        .name(format!("machine {}", link.host.name))
                        .spawn(move || run_link(inner, started))
                        .ok();
                    kept.push(link);
                }
            }
        }
        for gone in links.drain(..) {
            gone.halt();
        }
        *links = kept;
        drop(links);
        tell_states(&self.inner);
    }

    fn reconnect(&self, machine: &str) -> Result<(), IpcError> {
        self.link(machine)?.poke();
        Ok(())
    }
}
