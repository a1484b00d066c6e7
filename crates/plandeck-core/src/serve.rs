//! A headless Plandeck on a byte stream (`plandeck serve --stdio`): the live state of the machine
//! it runs on, every call of the window, and its events, over line-delimited JSON frames.
//!
//! The frames, the protocol version and the events' names are the wire's ([`crate::wire`]), which
//! the client ([`crate::remote`]) reads too.
//!
//! **Methods**: `hello {protocol}` (an other protocol is refused as [`ErrorKind::Unsupported`]);
//! `subscribe {after?, instance?}` (below); every command of the IPC table by its name, served by
//! the [`Deck`] call the window's adapter makes; and in place of the window's native dialogs, the
//! deck's preview → apply pairs: `removal_to_confirm {id}` → `{preview, confirmation}` then
//! `remove_worktree {id, token}`, and `clean_removals_to_confirm {repoId}` →
//! `{previews, confirmation}` then `remove_clean_worktrees {repoId, tokens}`; an apply goes ahead
//! only with a token this server showed, for what it showed. The window's other dialogs
//! (`add_plan_folder`, `add_repo`) and switching to the demo are refused as `unsupported`.
//!
//! **Events with a cursor**: every event is kept (the last `event_buffer` of them) and nothing is
//! sent until `subscribe`: `{"after":N,"instance":"…"}` replays the kept events after `seq` N,
//! then streams the new ones; its result `{"gap":false,"seq":M}` names the last seq replayed.
//! `gap: true` when events after N are no longer kept (or `instance` names another server
//! process): read everything again, then follow the stream. No `after`: only new events. Replay
//! and stream are in order with nothing doubled; a later `subscribe` replays again after its
//! cursor (the stream goes on).
//!
//! Nothing in a frame names a path the server reads: the deck takes ids only, and a malformed
//! frame (not JSON, too long, unknown method, wrong params) gets an error frame and the server goes
//! on.

pub mod daemon;

use std::collections::{HashMap, VecDeque};
use std::io::{BufRead, Write};
use std::sync::{mpsc, Arc, Mutex};

use serde::Serialize;
use serde_json::{json, Value};

use crate::config::Roots;
use crate::deck::{Confirmation, Deck};
use crate::gate::{DecisionOutcome, GateDecision};
use crate::ipc::{ErrorKind, IpcError};
use crate::live::{Live, LiveEvent};
use crate::wire::{
    calls, event_line, event_of, parse_request, read_line, response, CleanRemovalsToConfirm,
    ConfirmationWords, Hello, RemovalToConfirm, Request, Served, Subscribed, MAX_LINE, PROTOCOL,
};
use crate::worktrees::{RemovalPreview, RemoveOutcome};

/// How many events are kept for a client that resumes.
pub const EVENT_BUFFER: usize = 10_000;
/// How many requests are answered at once.
const WORKERS: usize = 4;

/// Who decides through a server, as the decision log and the agent's feedback name them: the
/// client's address when it came over SSH (`SSH_CLIENT`'s first word).
pub fn decided_by(ssh_client: Option<&str>) -> String {
    match ssh_client.and_then(|c| c.split_whitespace().next()) {
        Some(ip) => format!("plandeck serve (over SSH from {ip})"),
        None => "plandeck serve".to_owned(),
    }
}

/// The most characters kept of whom a client decides for ([`on_behalf`]).
const MAX_ON_BEHALF: usize = 200;

/// Who decides when a client relays a decision it checked for someone ("the phone \"Pixel\"
/// (device …) via laptop"): their words as the client sent them (one visible line, bounded: the
/// client's claim, kept as data), then this server's own name for the client, so the log tells
/// whom the client vouched for and who the client is.
pub fn on_behalf(words: &str, by: &str) -> Result<String, IpcError> {
    let words: String = crate::terminal::clean_text(words, MAX_ON_BEHALF * 4)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if words.is_empty() || words.chars().count() > MAX_ON_BEHALF {
        return Err(IpcError::new(
            ErrorKind::BadInput,
            format!("whom a decision is made for is 1 to {MAX_ON_BEHALF} visible characters"),
        ));
    }
    Ok(format!("{words}, through {by}"))
}

/// Where an event frame goes: a connection's writer.
pub type Sink = Arc<dyn Fn(String) + Send + Sync>;

/// The event frames of this server: each numbered, the last `cap` kept for a client that
/// resumes, sent to each connection that subscribed (a server that outlives its connections
/// keeps numbering across them: a client that reconnects resumes after its cursor).
pub struct EventLog {
    cap: usize,
    inner: Mutex<LogInner>,
    /// The one connection's sink of a log made with [`EventLog::new`].
    sink: Option<Sink>,
}

struct LogInner {
    /// The last seq given (0: none yet).
    last: u64,
    kept: VecDeque<(u64, String)>,
    /// The connections that subscribed, by their id.
    subscribers: Vec<(u64, Sink)>,
}

impl EventLog {
    /// A log for one connection, whose events go to `sink` once it subscribed.
    pub fn new(cap: usize, sink: impl Fn(String) + Send + Sync + 'static) -> EventLog {
        EventLog {
            sink: Some(Arc::new(sink)),
            ..Self::shared(cap)
        }
    }

    /// A log for many connections, each subscribing with its own sink
    /// ([`EventLog::subscribe_as`]).
    pub fn shared(cap: usize) -> EventLog {
        EventLog {
            cap: cap.max(1),
            inner: Mutex::new(LogInner {
                last: 0,
                kept: VecDeque::new(),
                subscribers: Vec::new(),
            }),
            sink: None,
        }
    }

    /// Numbers the event `name` and keeps it; sends it to every connection that subscribed.
    pub fn push(&self, name: &str, payload: Value) -> u64 {
        let mut inner = lock(&self.inner);
        inner.last += 1;
        let seq = inner.last;
        let frame = event_line(name, seq, &payload);
        for (_, sink) in &inner.subscribers {
            sink(frame.clone());
        }
        inner.kept.push_back((seq, frame));
        while inner.kept.len() > self.cap {
            inner.kept.pop_front();
        }
        seq
    }

    /// Sends the event `name` to every connection that subscribed, without numbering or keeping
    /// it: its frame carries the last seq given, so a client's cursor stays where it was.
    pub fn pass(&self, name: &str, payload: Value) {
        let inner = lock(&self.inner);
        let frame = event_line(name, inner.last, &payload);
        for (_, sink) in &inner.subscribers {
            sink(frame.clone());
        }
    }

    /// Whether any connection is subscribed.
    pub fn has_subscribers(&self) -> bool {
        !lock(&self.inner).subscribers.is_empty()
    }

    /// The last seq given (0: none yet).
    pub fn last(&self) -> u64 {
        lock(&self.inner).last
    }

    /// Replays what came after `after` (nothing when `None`), then streams every new event, to
    /// the sink of [`EventLog::new`]. `same_instance`: the cursor is this server's (else it means
    /// nothing here: a gap).
    pub fn subscribe(&self, after: Option<u64>, same_instance: bool) -> Subscribed {
        match self.sink.clone() {
            Some(sink) => self.subscribe_as(0, after, same_instance, sink),
            None => Subscribed {
                gap: true,
                seq: self.last(),
            },
        }
    }

    /// [`EventLog::subscribe`] for the connection `id`, its events going to `sink` (a later
    /// subscribe of the same connection replays again after its cursor; the stream goes on).
    pub fn subscribe_as(
        &self,
        id: u64,
        after: Option<u64>,
        same_instance: bool,
        sink: Sink,
    ) -> Subscribed {
        let mut inner = lock(&self.inner);
        inner.subscribers.retain(|(i, _)| *i != id);
        inner.subscribers.push((id, sink.clone()));
        let last = inner.last;
        let Some(after) = after else {
            return Subscribed {
                gap: false,
                seq: last,
            };
        };
        let oldest = inner.kept.front().map_or(last + 1, |(s, _)| *s);
        // Kept: `oldest..=last`; a cursor before `oldest - 1` lost some, one past `last` is
        // not ours.
        if !same_instance || after > last || after + 1 < oldest {
            return Subscribed {
                gap: true,
                seq: last,
            };
        }
        for (seq, frame) in &inner.kept {
            if *seq > after {
                sink(frame.clone());
            }
        }
        Subscribed {
            gap: false,
            seq: last,
        }
    }

    /// The connection `id` is gone: nothing more is sent to it.
    pub fn unsubscribe(&self, id: u64) {
        lock(&self.inner).subscribers.retain(|(i, _)| *i != id);
    }
}

impl From<Confirmation> for ConfirmationWords {
    fn from(c: Confirmation) -> Self {
        Self {
            title: c.title,
            text: c.text,
            destructive: c.destructive,
            action: c.action,
        }
    }
}

/// How a server runs.
#[derive(Debug, Clone)]
pub struct Options {
    /// Who decides, as the decision log records it ([`decided_by`]).
    pub by: String,
    /// How many events are kept for a client that resumes.
    pub event_buffer: usize,
    pub max_line: usize,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            by: decided_by(None),
            event_buffer: EVENT_BUFFER,
            max_line: MAX_LINE,
        }
    }
}

/// What every connection of one server shares: the live state of the machine, the deck over
/// it, the numbered events and the hello (its `instance` names this server for its whole life).
pub struct Shared {
    deck: Deck,
    log: Arc<EventLog>,
    hello: Hello,
    /// Last: the deck's parts go first, then the watchers and the presence.
    live: Live,
}

impl Shared {
    /// Starts the live state of `roots`, holding the gate presence when `present` (see
    /// [`Shared::set_present`]), its events kept for clients that resume (`event_buffer`).
    pub fn start(roots: &Roots, present: bool, event_buffer: usize) -> Arc<Shared> {
        let events = Arc::new(EventLog::shared(event_buffer));
        let live = {
            let events = events.clone();
            Live::start_with(roots, Arc::new(Mutex::new(None)), present, move |event| {
                // A terminal's output streams to whoever is connected now; it is not kept for
                // a client that resumes (it opens its views again).
                let passing = matches!(event, LiveEvent::Terminal(_));
                if let Some((name, payload)) = event_of(event) {
                    if passing {
                        events.pass(name, payload);
                    } else {
                        events.push(name, payload);
                    }
                }
            })
        };
        Arc::new(Shared {
            deck: Deck::of(&live, roots.is_demo()),
            log: events,
            hello: Hello {
                protocol: PROTOCOL,
                version: env!("CARGO_PKG_VERSION").to_owned(),
                instance: instance(),
            },
            live,
        })
    }

    /// The hello every connection gets first.
    pub fn hello(&self) -> &Hello {
        &self.hello
    }

    /// The events of this server.
    pub fn events(&self) -> &EventLog {
        &self.log
    }

    /// Holds the app's presence in the gate (hooks here wait for a decision) or gives it up
    /// (they fall back to the agent's own prompt): a server holds it only while a client is
    /// connected, someone who can decide.
    pub fn set_present(&self, present: bool) {
        self.live.set_present(present);
    }

    /// Whether the gate presence is held.
    pub fn is_present(&self) -> bool {
        self.live.is_present()
    }
}

/// The calls of one connection over the server's deck.
struct Server {
    shared: Arc<Shared>,
    /// This connection, as its subscription is known.
    conn: u64,
    sink: Sink,
    by: String,
    /// The last removal preview shown per worktree id, and per repository id the clean ones:
    /// an apply takes a token, never a preview, so only what this server showed is removed.
    shown: Mutex<HashMap<String, RemovalPreview>>,
    shown_clean: Mutex<HashMap<String, Vec<RemovalPreview>>>,
}

fn lock<T: ?Sized>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn unsupported(message: impl Into<String>) -> IpcError {
    IpcError::new(ErrorKind::Unsupported, message)
}

fn params_of<T: serde::de::DeserializeOwned>(params: Value) -> Result<T, IpcError> {
    serde_json::from_value(params)
        .map_err(|e| IpcError::new(ErrorKind::BadInput, format!("wrong params: {e}")))
}

fn to_json<T: Serialize>(value: &T) -> Result<Value, IpcError> {
    serde_json::to_value(value).map_err(|e| IpcError::new(ErrorKind::Internal, e.to_string()))
}

/// One command of the table as a server answers it: its deck call (the server's own when the
/// table gives one), or refused with the table's reason when it is kept to the window.
macro_rules! serve_one {
    ($s:ident, $params:ident, $name:ident ( $( $arg:ident ),* ) -> $ret:ty
        [$( $body:expr )?] [] [$why:literal]) => {
        Err(unsupported($why))
    };
    ($s:ident, $params:ident, $name:ident ( $( $arg:ident ),* ) -> $ret:ty
        [$body:expr] [$( $served:expr )?] []) => {
        serve_one!(@call $s, $params, $name ( $( $arg ),* ) -> $ret, $( $served, )? $body)
    };
    (@call $s:ident, $params:ident, $name:ident ( $( $arg:ident ),* ) -> $ret:ty,
        $call:expr $(, $_window:expr )?) => {
        (|| {
            let calls::$name::Params { $( $arg ),* } = params_of($params)?;
            let result: Result<$ret, IpcError> = $s.shared.deck.call(&$s.by, $call);
            to_json(&result?)
        })()
    };
}

/// Every call of the IPC table, by its wire name: params read as the call's one params type
/// (the client's), then its deck call; a `wire` call is the [`Served`] method of its name.
macro_rules! serve_table {
    (
        commands { $(
            $module:ident :: $name:ident ( $( $arg:ident : $argty:ty ),* ) -> $ret:ty
                [$( $body:expr )?] [$( $served:expr )?] [$( $why:literal )?] [$( $flags:tt )*];
        )* }
        wire { $( $wname:literal => $wfn:ident ( $( $warg:ident : $wargty:ty ),* ) -> $wret:ty; )* }
        events { $($events:tt)* }
    ) => {
        impl Server {
            fn table(&self, method: &str, params: Value) -> Option<Result<Value, IpcError>> {
                // A `wire` call of a command's name (`remove_worktree`) is the one served.
                #[allow(unreachable_patterns)]
                match method {
                    $( $wname => Some((|| {
                        let calls::$wfn::Params { $( $warg ),* } = params_of(params)?;
                        to_json(&<Self as Served>::$wfn(self, $( $warg ),*)?)
                    })()), )*
                    $( stringify!($name) => Some(serve_one!(
                        self, params, $name ( $( $arg ),* ) -> $ret
                        [$( $body )?] [$( $served )?] [$( $why )?]
                    )), )*
                    _ => None,
                }
            }
        }
    };
}
crate::ipc_table!(serve_table);

impl Server {
    fn call(&self, method: &str, params: Value) -> Result<Value, IpcError> {
        match self.table(method, params) {
            Some(result) => result,
            None => Err(unsupported(format!("no method `{method}`"))),
        }
    }
}

impl Served for Server {
    fn hello(&self, protocol: u32) -> Result<Hello, IpcError> {
        if protocol != PROTOCOL {
            let update = if protocol < PROTOCOL {
                "the client is older: update Plandeck on this side"
            } else {
                "this plandeck is older: update it on the machine it runs on"
            };
            return Err(unsupported(format!(
                "this plandeck {} speaks protocol {PROTOCOL}, the client speaks {protocol}: {update}",
                self.shared.hello.version
            )));
        }
        Ok(self.shared.hello.clone())
    }

    fn subscribe(
        &self,
        after: Option<u64>,
        instance: Option<String>,
    ) -> Result<Subscribed, IpcError> {
        let same = instance.is_none_or(|i| i == self.shared.hello.instance);
        Ok(self
            .shared
            .log
            .subscribe_as(self.conn, after, same, self.sink.clone()))
    }

    fn removal_to_confirm(&self, id: String) -> Result<RemovalToConfirm, IpcError> {
        let (preview, confirmation) = self.shared.deck.removal_to_confirm(&id)?;
        lock(&self.shown).insert(id, preview.clone());
        Ok(RemovalToConfirm {
            preview,
            confirmation: confirmation.into(),
        })
    }

    fn remove_shown(&self, id: String, token: String) -> Result<RemoveOutcome, IpcError> {
        let shown = lock(&self.shown).get(&id).cloned();
        let preview = match shown {
            Some(preview) if preview.token == token => preview,
            _ => {
                return Err(IpcError::new(
                    ErrorKind::Conflict,
                    "this is not the removal last shown for this worktree: ask \
                     removal_to_confirm again",
                ))
            }
        };
        let outcome = self.shared.deck.remove_worktree(&id, &preview);
        lock(&self.shown).remove(&id);
        outcome
    }

    fn decide_request_for(
        &self,
        id: String,
        decision: GateDecision,
        seen_hash: Option<String>,
        on_behalf_of: String,
    ) -> Result<DecisionOutcome, IpcError> {
        let by = on_behalf(&on_behalf_of, &self.by)?;
        self.shared
            .deck
            .decide_request(&id, decision, None, seen_hash, None, &by)
    }

    fn clean_removals_to_confirm(
        &self,
        repo_id: String,
    ) -> Result<CleanRemovalsToConfirm, IpcError> {
        let (previews, confirmation) = self.shared.deck.clean_removals_to_confirm(&repo_id)?;
        lock(&self.shown_clean).insert(repo_id, previews.clone());
        Ok(CleanRemovalsToConfirm {
            previews,
            confirmation: confirmation.map(ConfirmationWords::from),
        })
    }

    fn remove_clean_shown(
        &self,
        repo_id: String,
        tokens: Vec<String>,
    ) -> Result<Vec<String>, IpcError> {
        let shown = lock(&self.shown_clean)
            .get(&repo_id)
            .cloned()
            .unwrap_or_default();
        let mut confirmed = Vec::new();
        for token in &tokens {
            match shown.iter().find(|s| &s.token == token) {
                Some(preview) => confirmed.push(preview.clone()),
                None => {
                    return Err(IpcError::new(
                        ErrorKind::Conflict,
                        "a token is not of the clean removals last shown for this \
                         repository: ask clean_removals_to_confirm again",
                    ))
                }
            }
        }
        let removed = self.shared.deck.remove_clean(&confirmed);
        lock(&self.shown_clean).remove(&repo_id);
        removed
    }
}

/// This process, as a server instance: its pid and when it started.
fn instance() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{}-{nanos:x}", std::process::id())
}

/// What the thread that reads requests hands the one that writes.
enum Out {
    Frame(String),
    Log(String),
    /// The input ended and the connection's calls are done.
    End,
}

/// Serves `roots` until `input` ends: starts the live state (the gate presence, the watchers),
/// writes the hello, answers each request line and sends the events once subscribed, all on
/// `output` from the calling thread, a frame per line, flushed each (requests are read on a
/// thread of their own and answered by a few workers: answers may come in another order than
/// their requests, each with its request's `id`). What the server cannot use is said on `log`. The
/// live state is dropped before this returns (the gate presence goes with it).
pub fn run(
    roots: &Roots,
    input: impl BufRead + Send + 'static,
    output: &mut dyn Write,
    log: &mut dyn Write,
    opts: Options,
) -> std::io::Result<()> {
    let shared = Shared::start(roots, true, opts.event_buffer);
    let written = serve_connection(&shared, input, output, log, &opts);
    // The live state goes (its watchers stop, the presence file goes) before this returns.
    drop(shared);
    written
}

/// Serves one connection over `shared` until `input` ends: the hello, then each request answered
/// and the events sent once subscribed, on `output` from the calling thread (as [`run`]). The
/// connection decides as `opts.by`. Its subscription ends with it; the server goes on.
pub fn serve_connection(
    shared: &Arc<Shared>,
    input: impl BufRead + Send + 'static,
    output: &mut dyn Write,
    log: &mut dyn Write,
    opts: &Options,
) -> std::io::Result<()> {
    static CONNECTIONS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    let conn = CONNECTIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let (tx, rx) = mpsc::channel::<Out>();
    let _ = tx.send(Out::Frame(json!({ "hello": shared.hello }).to_string()));
    let reader = {
        let (shared, opts) = (shared.clone(), opts.clone());
        std::thread::spawn(move || serve_input(shared, conn, input, opts, tx))
    };
    let mut written = Ok(());
    for out in rx.iter() {
        match out {
            Out::Frame(frame) if written.is_ok() => {
                written = output
                    .write_all(format!("{frame}\n").as_bytes())
                    .and_then(|()| output.flush());
            }
            Out::Frame(_) => {}
            Out::Log(line) => {
                let _ = writeln!(log, "plandeck serve: {line}");
            }
            Out::End => break,
        }
    }
    let _ = reader.join();
    written
}

/// Reads and answers requests until the input ends, then ends the connection's subscription and
/// says `End`.
fn serve_input(
    shared: Arc<Shared>,
    conn: u64,
    mut input: impl BufRead,
    opts: Options,
    tx: mpsc::Sender<Out>,
) {
    let sink: Sink = {
        let sink = Mutex::new(tx.clone());
        Arc::new(move |frame| {
            let _ = lock(&sink).send(Out::Frame(frame));
        })
    };
    let server = Arc::new(Server {
        shared: shared.clone(),
        conn,
        sink,
        by: opts.by,
        shown: Mutex::default(),
        shown_clean: Mutex::default(),
    });

    // Requests are answered by a few workers, as the window's calls run side by side (a slow
    // listing does not hold up a plan); each answer names its request's id.
    // Bounded: a client that sends faster than the answers go waits (its pipe fills), memory does
    // not grow.
    let (jobs, queue) = mpsc::sync_channel::<Request>(64);
    let queue = Arc::new(Mutex::new(queue));
    let workers: Vec<_> = (0..WORKERS)
        .map(|_| {
            let (server, queue, tx) = (server.clone(), queue.clone(), tx.clone());
            std::thread::spawn(move || loop {
                let Ok(request) = lock(&queue).recv() else {
                    return;
                };
                // A call that panics is answered as a bug; the worker and the server go on.
                let call = || server.call(&request.method, request.params);
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(call))
                    .unwrap_or_else(|_| {
                        Err(IpcError::new(
                            ErrorKind::Internal,
                            format!("{} failed (a bug: see the server's log)", request.method),
                        ))
                    });
                if let Err(e) = &result {
                    if matches!(e.kind, ErrorKind::BadInput | ErrorKind::Unsupported) {
                        let _ = tx.send(Out::Log(format!("{}: {e}", request.method)));
                    }
                }
                let _ = tx.send(Out::Frame(response(&request.id, result)));
            })
        })
        .collect();

    let say = |line: String| {
        let _ = tx.send(Out::Log(line));
    };
    let refuse = |id: &Value, e: IpcError| {
        let _ = tx.send(Out::Frame(response(id, Err(e))));
    };
    let mut line = Vec::new();
    while let Some(fits) = read_line(&mut input, &mut line, opts.max_line) {
        if !fits {
            say(format!("a line over {} bytes, skipped", opts.max_line));
            refuse(
                &Value::Null,
                IpcError::new(
                    ErrorKind::BadInput,
                    format!("a frame is at most {} bytes", opts.max_line),
                ),
            );
            continue;
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match parse_request(&line) {
            Ok(request) => {
                let _ = jobs.send(request);
            }
            Err((id, e)) => {
                say(e.to_string());
                refuse(&id, e);
            }
        }
    }
    // What was asked is answered before the end.
    drop(jobs);
    for worker in workers {
        let _ = worker.join();
    }

    // The end of input: nothing more is sent to this connection, then the writer is told.
    shared.log.unsubscribe(conn);
    // Nobody is left to watch this server's terminal views.
    if !shared.log.has_subscribers() {
        shared.deck.close_all_terminals();
    }
    drop(server);
    let _ = tx.send(Out::End);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{parse_server_frame, request_line, ServerFrame};

    #[test]
    fn a_client_reads_back_every_frame_a_server_writes_and_refuses_the_rest() {
        let hello = Hello {
            protocol: PROTOCOL,
            version: "9.9.9".into(),
            instance: "1-2".into(),
        };
        let line = json!({ "hello": hello }).to_string();
        assert_eq!(
            parse_server_frame(line.as_bytes()).unwrap(),
            ServerFrame::Hello(hello)
        );
        let ok = response(&json!(4), Ok(json!([1])));
        assert_eq!(
            parse_server_frame(ok.as_bytes()).unwrap(),
            ServerFrame::Answer {
                id: json!(4),
                result: Ok(json!([1]))
            }
        );
        let gone = IpcError::new(ErrorKind::NotFound, "gone");
        let err = response(&json!(5), Err(gone.clone()));
        assert_eq!(
            parse_server_frame(err.as_bytes()).unwrap(),
            ServerFrame::Answer {
                id: json!(5),
                result: Err(gone)
            }
        );
        let frames = Arc::new(Mutex::new(Vec::new()));
        let into = frames.clone();
        let events = EventLog::new(3, move |f| lock(&into).push(f));
        events.subscribe(None, true);
        events.push("gate:changed", json!({ "arrived": ["r"] }));
        let event = lock(&frames)[0].clone();
        assert_eq!(
            parse_server_frame(event.as_bytes()).unwrap(),
            ServerFrame::Event {
                name: "gate:changed".into(),
                seq: 1,
                payload: json!({ "arrived": ["r"] })
            }
        );
        // A request's form, a request line, is not a server's frame.
        let request = request_line(1, "list_plans", json!({}));
        assert_eq!(
            parse_request(request.as_bytes()).unwrap().method,
            "list_plans"
        );
        for hostile in [
            &b"garbage"[..],
            b"[]",
            br#"{"event":"x"}"#,
            br#"{"id":1}"#,
            br#"{"id":1,"result":1,"error":{"kind":"io","message":"m"}}"#,
            br#"{"id":1,"error":{"kind":"rootkit","message":"m"}}"#,
            br#"{"hello":{"protocol":"one"}}"#,
        ] {
            let e = parse_server_frame(hostile).unwrap_err();
            assert_eq!(
                e.kind,
                ErrorKind::BadInput,
                "{}",
                String::from_utf8_lossy(hostile)
            );
        }
        assert!(parse_server_frame(request.as_bytes()).is_err());
    }

    fn log(cap: usize) -> (EventLog, Arc<Mutex<Vec<u64>>>) {
        let sent = Arc::new(Mutex::new(Vec::new()));
        let into = sent.clone();
        let log = EventLog::new(cap, move |frame| {
            let frame: Value = serde_json::from_str(&frame).unwrap();
            lock(&into).push(frame["seq"].as_u64().unwrap());
        });
        (log, sent)
    }

    #[test]
    fn events_are_kept_until_a_subscription_then_replayed_after_its_cursor_and_streamed() {
        let (events, sent) = log(100);
        for _ in 0..5 {
            events.push("plans:changed", json!({}));
        }
        assert!(lock(&sent).is_empty(), "nothing is sent before subscribe");
        let answer = events.subscribe(Some(2), true);
        assert_eq!(answer, Subscribed { gap: false, seq: 5 });
        assert_eq!(events.push("gate:changed", json!({})), 6);
        assert_eq!(
            *lock(&sent),
            vec![3, 4, 5, 6],
            "replayed in order, then streamed"
        );
    }

    #[test]
    fn a_cursor_older_than_what_is_kept_or_of_another_instance_is_a_gap() {
        let (events, sent) = log(3);
        for _ in 0..10 {
            events.push("plans:changed", json!({}));
        }
        // Kept: 8, 9, 10. After 7 nothing is lost; after 6, 7 is.
        let (fresh, fresh_sent) = log(3);
        for _ in 0..10 {
            fresh.push("plans:changed", json!({}));
        }
        assert_eq!(
            fresh.subscribe(Some(7), true),
            Subscribed {
                gap: false,
                seq: 10
            }
        );
        assert_eq!(*lock(&fresh_sent), vec![8, 9, 10]);

        assert_eq!(
            events.subscribe(Some(6), true),
            Subscribed { gap: true, seq: 10 }
        );
        assert!(
            lock(&sent).is_empty(),
            "a gap replays nothing: read everything again"
        );
        events.push("plans:changed", json!({}));
        assert_eq!(*lock(&sent), vec![11], "and the stream goes on");

        for (after, same) in [(11, false), (12, true)] {
            let (other, _) = log(3);
            other.push("plans:changed", json!({}));
            assert!(other.subscribe(Some(after), same).gap, "{after} {same}");
        }
        let (quiet, quiet_sent) = log(3);
        assert_eq!(
            quiet.subscribe(Some(0), true),
            Subscribed { gap: false, seq: 0 }
        );
        assert_eq!(
            quiet.subscribe(None, true),
            Subscribed { gap: false, seq: 0 }
        );
        assert!(lock(&quiet_sent).is_empty());
    }

    #[test]
    fn connections_each_get_their_own_subscription_over_one_numbering() {
        let events = EventLog::shared(100);
        let sinks: Vec<(Arc<Mutex<Vec<u64>>>, Sink)> = (0..2)
            .map(|_| {
                let sent = Arc::new(Mutex::new(Vec::new()));
                let into = sent.clone();
                let sink: Sink = Arc::new(move |frame: String| {
                    let frame: Value = serde_json::from_str(&frame).unwrap();
                    lock(&into).push(frame["seq"].as_u64().unwrap());
                });
                (sent, sink)
            })
            .collect();
        events.subscribe_as(1, None, true, sinks[0].1.clone());
        events.push("plans:changed", json!({}));
        events.push("plans:changed", json!({}));
        // The first connection goes; the events go on being numbered and kept.
        events.unsubscribe(1);
        events.push("plans:changed", json!({}));
        // A second one resumes after what the first saw.
        let answer = events.subscribe_as(2, Some(2), true, sinks[1].1.clone());
        assert_eq!(answer, Subscribed { gap: false, seq: 3 });
        events.push("plans:changed", json!({}));
        assert_eq!(*lock(&sinks[0].0), vec![1, 2]);
        assert_eq!(*lock(&sinks[1].0), vec![3, 4]);
        // A log without a sink of its own has nobody to replay to.
        assert!(events.subscribe(Some(0), true).gap);
    }

    #[test]
    fn every_event_the_window_hears_of_is_named_as_the_table_names_it() {
        let (name, payload) = event_of(LiveEvent::Worktrees(
            crate::live::WorktreesChanged::default(),
        ))
        .unwrap();
        assert_eq!(name, "worktrees:changed");
        assert_eq!(payload, json!({"ids": []}));
        let waiting = LiveEvent::SessionWaiting {
            session_id: "s".into(),
            message: "m".into(),
        };
        assert!(event_of(waiting).is_none(), "a desktop notification only");
    }

    /// The names of every call of the table, as a server is asked them.
    macro_rules! wire_names {
        (
            commands { $(
                $module:ident :: $name:ident ( $($args:tt)* ) -> $ret:ty $( [$($part:tt)*] )*;
            )* }
            wire { $( $wname:literal => $wfn:ident ( $($wargs:tt)* ) -> $wret:ty; )* }
            events { $($events:tt)* }
        ) => {
            vec![$( stringify!($name), )* $( $wname, )*]
        };
    }

    /// Every call of the table is served by its name: its params read as the call's own type
    /// (one it does not know is refused, so nothing runs here), or refused with the table's
    /// reason when it is kept to the window; an unknown name is no call at all.
    #[test]
    fn every_call_of_the_table_is_served_by_its_name() {
        let home = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(&home.path().canonicalize().unwrap());
        let server = Server {
            shared: Shared::start(&roots, false, 16),
            conn: 1,
            sink: Arc::new(|_| {}),
            by: "a test".into(),
            shown: Mutex::default(),
            shown_clean: Mutex::default(),
        };
        let names: Vec<&str> = crate::ipc_table!(wire_names);
        assert!(names.len() > 60, "{names:?}");
        for name in names {
            let answer = server
                .table(name, json!({ "notAParam": true }))
                .unwrap_or_else(|| panic!("`{name}` is not served"));
            let e = answer.expect_err(name);
            assert!(
                matches!(e.kind, ErrorKind::BadInput | ErrorKind::Unsupported),
                "{name}: {e:?}"
            );
            assert!(!e.message.starts_with("no method"), "{name}: {e:?}");
        }
        assert!(server.table("format_disk", json!({})).is_none());
        let e = server.table("load_demo", json!({})).unwrap().unwrap_err();
        assert_eq!(e.kind, ErrorKind::Unsupported, "{e:?}");
        assert!(e.message.contains("the demo is not served"), "{e:?}");
    }

    #[test]
    fn who_decides_names_the_ssh_client_when_there_is_one() {
        assert_eq!(
            decided_by(Some("192.0.2.7 51234 22")),
            "plandeck serve (over SSH from 192.0.2.7)"
        );
        assert_eq!(decided_by(None), "plandeck serve");
    }

    #[test]
    fn whom_a_client_decides_for_is_one_bounded_line_then_the_client() {
        assert_eq!(
            on_behalf(
                "the phone \"Pixel\"\n(device 0123)\u{1b}[2J via laptop",
                "plandeck serve (over SSH from 192.0.2.7)"
            )
            .unwrap(),
            "the phone \"Pixel\" (device 0123)[2J via laptop, through plandeck serve (over SSH from 192.0.2.7)"
        );
        assert!(on_behalf(" \n ", "x").is_err());
        assert!(on_behalf(&"a".repeat(MAX_ON_BEHALF + 1), "x").is_err());
    }

    /// Another machine reached in-process: its calls answered by a server of its own store, as
    /// `plandeck serve` there answers this side's ssh (from 192.0.2.7).
    /// `.1`: a server older than `decide_request_for` (it says it has no such method).
    struct InProcess(Server, bool);

    impl crate::elsewhere::Elsewhere for InProcess {
        fn call(&self, _machine: &str, method: &str, params: Value) -> Result<Value, IpcError> {
            if self.1 && method == calls::decide_request_for::NAME {
                return Err(unsupported(format!("no method `{method}`")));
            }
            self.0
                .table(method, params)
                .unwrap_or_else(|| Err(unsupported(format!("no method `{method}`"))))
        }
        fn gather(&self, method: &str) -> Vec<crate::elsewhere::Gathered> {
            vec![crate::elsewhere::Gathered {
                machine: "box".into(),
                current: true,
                answer: self.call("box", method, json!({})),
            }]
        }
        fn last(&self, method: &str) -> Vec<crate::elsewhere::Gathered> {
            self.gather(method)
        }
        fn statuses(&self) -> Vec<crate::elsewhere::MachineStatus> {
            Vec::new()
        }
        fn hosts_changed(&self, _hosts: Vec<crate::config::Host>) {}
        fn reconnect(&self, _machine: &str) -> Result<(), IpcError> {
            Ok(())
        }
    }

    /// A phone paired here rejects a plan waiting on another machine (its server `older` than
    /// `decide_request_for`, or not): the hook there gets it. Returns the phone's device id and
    /// who decided, as the records there say it.
    fn a_phone_decides_there(older: bool) -> (String, Vec<String>) {
        use ring::rand::SystemRandom;
        use ring::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
        let b64 = |b: &[u8]| {
            use base64::Engine as _;
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(b)
        };
        let here_home = tempfile::tempdir().unwrap();
        let there_home = tempfile::tempdir().unwrap();
        let here = Roots::under_home(here_home.path());
        let there = Roots::under_home(there_home.path());
        // There: its server holds the presence (a client is connected), so its hook waits.
        let server = Server {
            shared: Shared::start(&there, true, 16),
            conn: 1,
            sink: Arc::new(|_| {}),
            by: decided_by(Some("192.0.2.7 51234 22")),
            shown: Mutex::default(),
            shown_clean: Mutex::default(),
        };
        let stdin = json!({
            "session_id": "s-box", "cwd": "/w/shop", "hook_event_name": "PreToolUse",
            "tool_name": "ExitPlanMode", "tool_input": {"plan": "# Plan\n\n1. Do it.\n"},
        })
        .to_string();
        let hook = {
            let there = there.clone();
            let opts = crate::gate::HookOptions {
                deadline: std::time::Duration::from_secs(120),
                hook_pid: std::process::id(),
                agent_pid: None,
                tmux_env: None,
            };
            std::thread::spawn(move || crate::gate::hook_claude(&there, stdin.as_bytes(), opts))
        };
        let req = plandeck_testkit::wait_for("the plan to wait there", || {
            crate::gate::pending(&there).into_iter().next()
        });
        // Here: a phone paired, the other machine shown on its page.
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
        let key = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng)
            .unwrap();
        let sign = |m: &str| b64(key.sign(&rng, m.as_bytes()).unwrap().as_ref());
        let p = crate::phone::pair_start(&here).unwrap();
        let device = crate::phone::pair_finish(
            &here,
            &crate::phone::PairRequest {
                secret: p.secret.clone(),
                name: "Pixel".to_owned(),
                public_key: Value::String(b64(key.public_key().as_ref())),
                signature: sign(&crate::phone::sign::canonical_pairing(&p.secret)),
            },
        )
        .unwrap();
        crate::phone_elsewhere::reach();
        let _shown = crate::phone_elsewhere::attach(&here, Arc::new(InProcess(server, older)));
        let id = crate::elsewhere::on_machine("box", &req.id);
        // What the page's push asks of the other machines: the plan waiting there, named.
        let waiting = crate::phone_elsewhere::waiting_there(&here);
        assert_eq!(waiting.len(), 1, "{waiting:?}");
        assert_eq!(waiting[0].0, "box");
        assert_eq!(
            waiting[0]
                .1
                .iter()
                .map(|r| (r.id.as_str(), r.machine.as_deref()))
                .collect::<Vec<_>>(),
            [(id.as_str(), Some("box"))]
        );
        let hash = req.plan_hash.clone().unwrap();
        let nonce = crate::phone::sign::random_token(18).unwrap();
        let expires = crate::timestamp::now().unix_timestamp() + 60;
        let verdict = crate::phone::Verdict::Reject;
        let msg =
            crate::phone::canonical_decision(&id, &hash, verdict, "Not yet.", &nonce, expires)
                .unwrap();
        let d = crate::phone::SignedDecision {
            request_id: id,
            plan_hash: hash,
            decision: verdict,
            feedback: "Not yet.".to_owned(),
            signed: crate::phone::Signed {
                device: device.id.clone(),
                nonce,
                expires,
                signature: sign(&msg),
            },
        };
        crate::phone::decide(&here, &d).unwrap();
        let out = hook.join().unwrap();
        assert!(out.stdout.contains("Not yet."), "{out:?}");
        // There, the closed request (and the decision log, where the plan is logged) names the
        // phone, the machine it came through, and the ssh.
        let closed: Value = serde_json::from_slice(
            &std::fs::read(there.data.join(format!("gate/done/{}.json", req.id))).unwrap(),
        )
        .unwrap();
        let decisions = crate::review::log::read_all(&there.data).unwrap_or_default();
        let mut by: Vec<String> = decisions.into_iter().filter_map(|d| d.decided_by).collect();
        by.extend(closed["decidedBy"].as_str().map(str::to_owned));
        assert!(!by.is_empty());
        (device.id, by)
    }

    /// A phone paired here rejects a plan waiting on another machine: that machine's record of
    /// the decision names the phone (relayed by this machine, through its ssh), not only "over
    /// SSH" (issue 37: the log names the device).
    #[test]
    fn a_phones_decision_on_another_machine_names_the_phone_in_that_machines_log() {
        let (device, bys) = a_phone_decides_there(false);
        for by in bys {
            let phone = format!("the phone \"Pixel\" (device {device}) via ");
            assert!(
                by.contains(&phone)
                    && by.contains(", through plandeck serve (over SSH from 192.0.2.7)"),
                "{by}"
            );
        }
    }

    /// The other machine's Plandeck is older (no `decide_request_for`): the phone's decision
    /// still goes, as the plain decision, recorded there as by its ssh.
    #[test]
    fn a_phones_decision_on_an_older_machine_goes_as_the_plain_decision() {
        let (_, bys) = a_phone_decides_there(true);
        for by in bys {
            assert!(
                by.contains("plandeck serve (over SSH from 192.0.2.7)") && !by.contains("Pixel"),
                "{by}"
            );
        }
    }
}
