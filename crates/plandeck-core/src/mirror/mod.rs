//! Live terminal views: a faithful, read-only mirror of an agent's tmux pane, and the person
//! typing into it once they take control (docs/architecture.md §9).
//!
//! - **Watching never changes the pane.** A view is a tmux control-mode client attached with
//!   `-f ignore-size,read-only`: it reads what the pane's program writes (`%output`), never
//!   resizes the pane (the person may be looking at it in a terminal of their own), and can run
//!   no command that changes anything. The window draws the pane at the pane's own size.
//! - **A view starts from the screen as it is**: `capture-pane -e` with scrollback, the cursor
//!   where tmux has it, then every byte the program writes, in order, coalesced into at most one
//!   event per frame. A pane that resizes (another client) is captured again and the view reset.
//! - **Typing is the person's, and checked.** Only a view the person took control of takes keys;
//!   taking control checks the pane is the agent's with nothing else in front of it
//!   ([`Target::verify`]), and the check is made again before keys when the last is older than a
//!   second. Keys go as bytes on tmux's stdin (`load-buffer -`, then `paste-buffer -d -r` of a
//!   buffer of the call's own), never in argv, bounded per call.
//! - A view ends when asked, when the pane closes or its session ends (the window is told why),
//!   or when the live handle that holds it is dropped.

mod control;
mod seed;

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::ipc::{ErrorKind, IpcError};
use crate::sessions::SessionSummary;
use crate::sync::lock;
use crate::terminal::{self, Paste, Target, TerminalError, Tmux};

pub use seed::Screen;

/// At most one output event per view in this time while the person types into it (their keys'
/// echo shows at once)…
pub const FRAME: Duration = Duration::from_millis(16);
/// …and while it is only watched: eight views of agents streaming stay cheap for the window.
pub const WATCHED_FRAME: Duration = Duration::from_millis(250);
/// Lines of scrollback a view starts with.
pub const SCROLLBACK: u32 = 2000;
/// Bytes a view holds for one frame before it gives up streaming them and captures the screen
/// again (a program flooding its terminal).
const FLOOD: usize = 1 << 20;
/// Bytes typed into a view in one call.
pub const MAX_TYPED_BYTES: usize = 4096;
/// How old a check of the pane may be when keys are typed.
const VERIFY_FRESH: Duration = Duration::from_secs(1);
/// The first tmux with `attach -f ignore-size,read-only` for control clients.
const TMUX_MIN: (u32, u32) = (3, 2);

/// A view opened on a session's pane: its id (for every later call and event), the pane's size
/// and the screen to start from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TerminalView {
    /// `t7` here; `@box/t7` on another machine.
    pub view: String,
    pub session_id: String,
    /// The tmux pane (`%3`).
    pub pane: String,
    /// The tmux session holding it: `tmux attach -t` it from any terminal.
    pub tmux_session: String,
    pub screen: Screen,
    /// The agent is known and its pane may take the person's keys (take control); else why not.
    pub control_refused: Option<String>,
    /// The machine this is on; `null`: this one.
    #[serde(default)]
    pub machine: Option<String>,
}

/// What a pane's program wrote, for the view `view` (the `terminal:output` event).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TerminalOutput {
    pub view: String,
    /// The bytes as text (whole characters; bytes that are not UTF-8 as U+FFFD).
    pub data: String,
    /// Start again from this screen first (the pane resized, or its output was too much to
    /// stream): clear the view, take this size, write `screen.data`, then `data`.
    pub reset: Option<Screen>,
}

/// A view ended by itself (the `terminal:closed` event): the pane closed, its session ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TerminalClosed {
    pub view: String,
    pub reason: String,
}

/// What a view tells its holder.
#[derive(Debug, Clone)]
pub enum TerminalEvent {
    Output(TerminalOutput),
    Closed(TerminalClosed),
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MirrorError {
    #[error("no session {0} is known")]
    UnknownSession(String),
    #[error("session {0} is not running, so it has no terminal to show")]
    NotRunning(String),
    #[error("session {0} does not run in a tmux pane, so Plandeck cannot show its terminal")]
    NoPane(String),
    #[error("tmux is not installed (Plandeck shows terminals through tmux 3.2 or newer)")]
    NoTmux,
    #[error("tmux {0} is too old: showing a terminal without resizing it needs tmux 3.2 or newer")]
    TmuxTooOld(String),
    #[error("no terminal view {0} is open (it was closed, or its pane went away)")]
    NoView(String),
    #[error("take control of the terminal before typing into it")]
    NotInControl,
    #[error("at most {MAX_TYPED_BYTES} bytes can be typed at once ({0} were given)")]
    TooMuch(usize),
    #[error("{0}")]
    Refused(TerminalError),
    #[error("tmux: {0}")]
    Tmux(String),
}

impl From<MirrorError> for IpcError {
    fn from(e: MirrorError) -> Self {
        let kind = match &e {
            MirrorError::UnknownSession(_) | MirrorError::NoView(_) => ErrorKind::NotFound,
            MirrorError::NotRunning(_)
            | MirrorError::NoPane(_)
            | MirrorError::NoTmux
            | MirrorError::TmuxTooOld(_) => ErrorKind::Unsupported,
            MirrorError::NotInControl | MirrorError::Refused(_) => ErrorKind::Refused,
            MirrorError::TooMuch(_) => ErrorKind::BadInput,
            MirrorError::Tmux(_) => ErrorKind::Io,
        };
        IpcError::new(kind, e.to_string())
    }
}

/// The IPC types of this module, for `ui/src/lib/bindings.ts`.
pub fn ts_declarations() -> Vec<String> {
    vec![
        Screen::decl(),
        TerminalView::decl(),
        TerminalOutput::decl(),
        TerminalClosed::decl(),
    ]
}

/// The pane a session runs in, and the agent that must be in it.
pub fn target_of(session: &SessionSummary) -> Result<Target, MirrorError> {
    let pid = session
        .pid
        .ok_or_else(|| MirrorError::NotRunning(session.session_id.clone()))?;
    let socket = terminal::tmux_socket_of(pid);
    let pane = session
        .tmux_pane
        .as_deref()
        .filter(|p| !p.is_empty())
        .map(crate::gate::normalize_pane)
        .or_else(|| crate::gate::pane_of_process(pid, socket.as_deref()))
        .ok_or_else(|| MirrorError::NoPane(session.session_id.clone()))?;
    Ok(Target {
        socket,
        pane,
        agent: Some(terminal::ProcessId::current(pid)),
    })
}

/// tmux's version, checked once it is asked for.
fn check_tmux(socket: Option<&str>) -> Result<(), MirrorError> {
    let out = Tmux::version(socket)
        .run()
        .map_err(|_| MirrorError::NoTmux)?;
    let version = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    match terminal::tmux_version(&version) {
        Some(v) if v >= TMUX_MIN => Ok(()),
        Some(_) => Err(MirrorError::TmuxTooOld(version)),
        // A build that names itself otherwise (`tmux next-3.6`, `tmux master`): let it try.
        None => Ok(()),
    }
}

/// One open view.
struct View {
    target: Target,
    /// The control client; ended when the view goes.
    client: Child,
    /// Held open: the client detaches when its input closes.
    _input: ChildStdin,
    /// When the person took control and the pane was last checked; `None`: read-only.
    control: Option<Instant>,
    /// Whether the person has control now (the pump's frame: [`FRAME`] or [`WATCHED_FRAME`]).
    typing: Arc<AtomicBool>,
}

impl Drop for View {
    fn drop(&mut self) {
        let _ = self.client.kill();
        let _ = self.client.wait();
    }
}

/// Every open view of one live handle.
pub struct Terminals {
    views: Arc<Mutex<HashMap<String, View>>>,
    next: AtomicU64,
    emit: Arc<dyn Fn(TerminalEvent) + Send + Sync>,
}

impl Terminals {
    pub fn new(emit: Arc<dyn Fn(TerminalEvent) + Send + Sync>) -> Self {
        Self {
            views: Arc::default(),
            next: AtomicU64::new(1),
            emit,
        }
    }

    /// Opens a view of `target`'s pane for session `session_id`: starts following its output,
    /// then captures the screen to start from.
    pub fn open(&self, session_id: &str, target: Target) -> Result<TerminalView, MirrorError> {
        check_tmux(target.socket.as_deref())?;
        let info = seed::pane_info(&target)?;
        let view_id = format!("t{}", self.next.fetch_add(1, Ordering::Relaxed));
        // Follow first, capture second: nothing written in between is lost (a little may be
        // drawn twice, which a terminal redraws over).
        let mut client = Tmux::watch(target.socket.as_deref(), &target.pane)
            .command()
            .map_err(|e| MirrorError::Tmux(e.to_string()))?
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .map_err(|e| MirrorError::Tmux(format!("cannot start a control client: {e}")))?;
        let input = client
            .stdin
            .take()
            .ok_or_else(|| MirrorError::Tmux("no input".into()))?;
        let output = client
            .stdout
            .take()
            .ok_or_else(|| MirrorError::Tmux("no output".into()))?;
        let screen = match seed::capture(&target, SCROLLBACK) {
            Ok(screen) => screen,
            Err(e) => {
                let _ = client.kill();
                let _ = client.wait();
                return Err(e);
            }
        };
        let control_refused = target.verify().err().map(|e| e.to_string());
        let (chunks, pump) = mpsc::channel::<Chunk>();
        let typing = Arc::new(AtomicBool::new(false));
        let tmux_session = info.session.clone();
        spawn_reader(output, target.clone(), info, chunks);
        spawn_pump(
            view_id.clone(),
            target.clone(),
            pump,
            typing.clone(),
            self.emit.clone(),
            Arc::downgrade(&self.views),
        );
        lock(&self.views).insert(
            view_id.clone(),
            View {
                target: target.clone(),
                client,
                _input: input,
                control: None,
                typing,
            },
        );
        Ok(TerminalView {
            view: view_id,
            session_id: session_id.to_owned(),
            pane: target.pane.clone(),
            tmux_session,
            screen,
            control_refused,
            machine: None,
        })
    }

    /// Ends view `view` (closing one that is gone already is no error).
    pub fn close(&self, view: &str) {
        lock(&self.views).remove(view);
    }

    /// Ends every view.
    pub fn close_all(&self) {
        lock(&self.views).clear();
    }

    /// How many views are open.
    pub fn open_count(&self) -> usize {
        lock(&self.views).len()
    }

    /// The person takes control of `view`: checked now, and again before keys once the check is
    /// older than a second.
    pub fn take_control(&self, view: &str) -> Result<(), MirrorError> {
        let target = self.target(view)?;
        target.verify().map_err(MirrorError::Refused)?;
        if let Some(v) = lock(&self.views).get_mut(view) {
            v.control = Some(Instant::now());
            v.typing.store(true, Ordering::Relaxed);
        }
        Ok(())
    }

    /// The view is read-only again.
    pub fn release_control(&self, view: &str) -> Result<(), MirrorError> {
        let mut views = lock(&self.views);
        let v = views
            .get_mut(view)
            .ok_or_else(|| MirrorError::NoView(view.to_owned()))?;
        v.control = None;
        v.typing.store(false, Ordering::Relaxed);
        Ok(())
    }

    /// Types `data` (what the person's keys make, escape sequences included) into the pane of
    /// `view`, which they took control of.
    pub fn type_into(&self, view: &str, data: &str) -> Result<(), MirrorError> {
        if data.len() > MAX_TYPED_BYTES {
            return Err(MirrorError::TooMuch(data.len()));
        }
        if data.is_empty() {
            return Ok(());
        }
        let (target, checked) = {
            let views = lock(&self.views);
            let v = views
                .get(view)
                .ok_or_else(|| MirrorError::NoView(view.to_owned()))?;
            (
                v.target.clone(),
                v.control.ok_or(MirrorError::NotInControl)?,
            )
        };
        if checked.elapsed() > VERIFY_FRESH {
            if let Err(e) = target.verify() {
                // Whatever is in the pane now is not the agent: the view is read-only again.
                if let Some(v) = lock(&self.views).get_mut(view) {
                    v.control = None;
                    v.typing.store(false, Ordering::Relaxed);
                }
                return Err(MirrorError::Refused(e));
            }
            if let Some(v) = lock(&self.views).get_mut(view) {
                v.control = Some(Instant::now());
            }
        }
        // Read from tmux's stdin and pasted as they came: never in a process's argv, where any
        // local user would read them (a password typed into the view).
        terminal::tmux::paste(
            target.socket.as_deref(),
            &target.pane,
            data.as_bytes(),
            Paste::Raw,
        )
        .map_err(|e| match e {
            TerminalError::Tmux { message } => MirrorError::Tmux(message),
            other => MirrorError::Refused(other),
        })
    }

    fn target(&self, view: &str) -> Result<Target, MirrorError> {
        lock(&self.views)
            .get(view)
            .map(|v| v.target.clone())
            .ok_or_else(|| MirrorError::NoView(view.to_owned()))
    }
}

/// What the reader hands the pump.
enum Chunk {
    Bytes(Vec<u8>),
    /// Capture the screen again (the pane resized).
    Reset,
    Closed(String),
}

/// Reads the control client's lines, keeps the watched pane's output, and notices the pane
/// resizing or going.
fn spawn_reader(
    output: std::process::ChildStdout,
    target: Target,
    mut info: seed::PaneInfo,
    chunks: mpsc::Sender<Chunk>,
) {
    std::thread::spawn(move || {
        let mut reader = BufReader::with_capacity(64 * 1024, output);
        let mut line = Vec::with_capacity(4096);
        let reason = loop {
            line.clear();
            match reader.read_until(b'\n', &mut line) {
                Ok(0) | Err(_) => break "the tmux session ended".to_owned(),
                Ok(_) => {}
            }
            if line.last() == Some(&b'\n') {
                line.pop();
            }
            match control::parse(&line) {
                control::Notice::Output { pane, bytes } => {
                    // Other panes of the session are not this view's.
                    if pane != target.pane {
                        continue;
                    }
                    if chunks.send(Chunk::Bytes(bytes)).is_err() {
                        return;
                    }
                }
                control::Notice::Exit { reason } => {
                    break if reason.is_empty() {
                        "the tmux session ended".to_owned()
                    } else {
                        format!("tmux: {reason}")
                    };
                }
                control::Notice::Layout => match seed::pane_info(&target) {
                    Ok(now) if now.dead => break "the agent's program exited".to_owned(),
                    Ok(now) => {
                        if (now.cols, now.rows) != (info.cols, info.rows) {
                            info = now;
                            if chunks.send(Chunk::Reset).is_err() {
                                return;
                            }
                        }
                    }
                    Err(_) => break "the pane closed".to_owned(),
                },
                _ => {}
            }
        };
        let _ = chunks.send(Chunk::Closed(reason));
    });
}

/// What one frame of a view holds.
#[derive(Default)]
struct Frame {
    pending: Vec<u8>,
    reset: bool,
    closed: Option<String>,
}

impl Frame {
    fn take(&mut self, chunk: Chunk) {
        match chunk {
            Chunk::Bytes(b) => self.pending.extend_from_slice(&b),
            Chunk::Reset => {
                self.reset = true;
                self.pending.clear();
            }
            Chunk::Closed(reason) => self.closed = Some(reason),
        }
    }
}

/// Hands output on, at most once a frame, as whole characters; captures the screen again when
/// the reader asks or the output is a flood.
fn spawn_pump(
    view: String,
    target: Target,
    chunks: mpsc::Receiver<Chunk>,
    typing: Arc<AtomicBool>,
    emit: Arc<dyn Fn(TerminalEvent) + Send + Sync>,
    views: std::sync::Weak<Mutex<HashMap<String, View>>>,
) {
    std::thread::spawn(move || {
        let mut carry = control::Utf8Carry::default();
        let mut last = Instant::now() - WATCHED_FRAME;
        loop {
            let Ok(first) = chunks.recv() else { return };
            let mut frame = Frame::default();
            frame.take(first);
            // The first bytes after a quiet frame go at once (a key's echo); a stream waits
            // for the frame to end.
            let period = if typing.load(Ordering::Relaxed) {
                FRAME
            } else {
                WATCHED_FRAME
            };
            let due = last + period;
            while frame.closed.is_none() && frame.pending.len() <= FLOOD {
                let now = Instant::now();
                let next = if now >= due {
                    // Take what already came, without waiting.
                    chunks.try_recv().ok()
                } else {
                    chunks.recv_timeout(due - now).ok()
                };
                match next {
                    Some(chunk) => frame.take(chunk),
                    None => break,
                }
            }
            if frame.pending.len() > FLOOD {
                frame.reset = true;
                frame.pending.clear();
                // Drop what is queued: the capture shows where it got to.
                while let Ok(chunk) = chunks.try_recv() {
                    if let Chunk::Closed(reason) = chunk {
                        frame.closed = Some(reason);
                    }
                }
            }
            let Frame {
                pending,
                reset,
                closed,
            } = frame;
            let screen = if reset {
                carry = control::Utf8Carry::default();
                seed::capture(&target, SCROLLBACK).ok()
            } else {
                None
            };
            let data = carry.push(&pending);
            if !data.is_empty() || screen.is_some() {
                emit(TerminalEvent::Output(TerminalOutput {
                    view: view.clone(),
                    data,
                    reset: screen,
                }));
                last = Instant::now();
            }
            if let Some(reason) = closed {
                // Gone from the open views (its client has exited), then told; a view the person
                // closed is gone already, and nobody is told.
                let was_open = views
                    .upgrade()
                    .is_some_and(|views| lock(&views).remove(&view).is_some());
                if was_open {
                    emit(TerminalEvent::Closed(TerminalClosed {
                        view: view.clone(),
                        reason,
                    }));
                }
                return;
            }
        }
    });
}

#[cfg(test)]
mod tests;
