//! The server that outlives one connection: `plandeck serve --stdio` (over `ssh -T`) is a relay to
//! a per-user `plandeck serve` daemon on the same machine, reached over a Unix socket, so that a
//! client that reconnects after a drop resumes its events from its cursor (the daemon's events
//! and its hello's `instance` live as long as it does).
//!
//! - **Where**: `<store>/serve/plandeck-<version>.sock`, in a folder made private (0700, owned by
//!   this user; one owned by anyone else is refused). No TCP, no port.
//! - **Who**: each connection's peer uid (`SO_PEERCRED`) must be the daemon's own; any other is
//!   closed before a byte is read (root included: the folder's mode does not stop root).
//! - **One per store and version**: the daemon holds an exclusive lock on
//!   `plandeck-<version>.lock` (which names its pid) for its life; a second one started meanwhile
//!   waits a little for it, then leaves.
//! - **Started on demand**: a relay that finds nobody answering launches the daemon detached (a
//!   launcher process starts it and exits, so it belongs to no ssh session; it calls `setsid`), its
//!   output appended to `<store>/serve/plandeck.log`, and waits for its socket.
//! - **Presence**: the daemon holds the gate presence ("Plandeck is running": hooks wait for a
//!   decision) only while at least one client is connected. With nobody connected, hooks fall
//!   back to the agent's own prompt.
//! - **Idle exit**: with no client for [`DaemonOptions::idle`] (10 min by default), it removes its
//!   socket and exits; never while the phone page is on (unless another process serves it: an
//!   older version's server, which keeps it until it is turned off or changed).
//! - **The phone page**: it hosts the phone page ([`crate::phone::server::host`]) while that is
//!   turned on, so the page keeps being served when the window is closed; `plandeck phone on`
//!   and `off` take effect in it without a restart.
//! - **Heartbeat**: a client says something at least every 15 s (an empty line when it has
//!   nothing to ask, [`crate::remote::HEARTBEAT`]); a connection silent for
//!   [`DaemonOptions::silence`] (45 s) is taken as gone (a laptop that slept, a half-open ssh
//!   connection) and closed: its presence goes with it, hooks fall back as with nobody connected.
//! - **Files**: the lock and the log are this user's only (0600), in the private folder.
//!
//! The relay first sends one line, `{"relay":{"by":"…"}}` (who decides, for the decision log),
//! then passes bytes both ways unchanged: the daemon speaks [`super`]'s frames.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::{lock, read_line, serve_connection, Options, Shared};
use crate::config::Roots;
pub use crate::daemon_home::{
    check_socket_path, dir, ensure_running, is_running, launch, lock_path, log_path, own_uid,
    private_dir, private_file, socket_path, wait_for_socket, Launch, LaunchOptions,
};

/// How long a daemon waits with nobody connected before it exits.
pub const IDLE_EXIT: Duration = Duration::from_secs(600);
/// How long a new daemon waits for an exiting one to let go of the lock.
const LOCK_PATIENCE: Duration = Duration::from_secs(10);
/// How long the daemon waits for a connection's first line.
const RELAY_LINE_PATIENCE: Duration = Duration::from_secs(10);
/// How long a connection may stay silent before it is taken as gone.
pub const SILENCE: Duration = Duration::from_secs(45);
/// How often the daemon looks whether the phone page is on (it does not idle out while it is).
const PHONE_CHECK: Duration = Duration::from_secs(1);

/// How a daemon runs.
#[derive(Debug, Clone)]
pub struct DaemonOptions {
    /// With no client for this long, it exits.
    pub idle: Duration,
    /// How many events are kept for clients that resume.
    pub event_buffer: usize,
    pub max_line: usize,
    /// A connection that says nothing for this long (not even a heartbeat) is closed.
    pub silence: Duration,
}

impl Default for DaemonOptions {
    fn default() -> Self {
        Self {
            silence: SILENCE,
            idle: IDLE_EXIT,
            event_buffer: super::EVENT_BUFFER,
            max_line: crate::wire::MAX_LINE,
        }
    }
}

/// A relay's first line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RelayLine {
    /// Who decides through this connection ([`super::decided_by`]).
    pub by: String,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RelayFrame {
    relay: RelayLine,
}

/// Whether a peer of uid `peer` may use the daemon of uid `own`: only the same user.
pub fn peer_allowed(peer: u32, own: u32) -> bool {
    peer == own
}

/// Whether this system can tell a Unix socket peer's uid (`SO_PEERCRED`): where it cannot, there
/// is no daemon (`serve --stdio` serves from its own process).
pub const AVAILABLE: bool = cfg!(target_os = "linux");

/// The uid of the process at the other end of `stream` (`SO_PEERCRED`).
#[cfg(target_os = "linux")]
pub fn peer_uid(stream: &UnixStream) -> std::io::Result<u32> {
    let cred = rustix::net::sockopt::socket_peercred(stream)?;
    Ok(cred.uid.as_raw())
}

/// Not known on this system: every peer is refused.
#[cfg(not(target_os = "linux"))]
pub fn peer_uid(_stream: &UnixStream) -> std::io::Result<u32> {
    Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        "a Unix socket peer's uid is not known on this system",
    ))
}

/// Where the daemon says what it does.
type Log = Arc<Mutex<dyn Write + Send>>;

fn say(log: &Log, line: &str) {
    let mut log = lock(log);
    let _ = writeln!(
        log,
        "{} plandeck serve daemon {}: {line}",
        crate::timestamp::format(crate::timestamp::now()),
        std::process::id()
    );
    let _ = log.flush();
}

struct Clients {
    connected: usize,
    since: Instant,
    closing: bool,
}

/// Runs the daemon for `roots` until it has had no client for `opts.idle`: takes the lock (or
/// leaves when another daemon holds it), listens on its socket, serves each connection of this
/// user over one shared live state. What it does is said on `log`.
pub fn run(roots: &Roots, opts: DaemonOptions, log: Log) -> std::io::Result<()> {
    let say = |line: &str| say(&log, line);
    let uid = own_uid();
    private_dir(&dir(roots), uid)?;
    let socket = socket_path(roots);
    check_socket_path(&socket)?;

    // One daemon per store and version: the lock is held for this process's life.
    let lock_file = private_file(
        std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true),
        &lock_path(roots),
    )?;
    let deadline = Instant::now() + LOCK_PATIENCE;
    loop {
        match rustix::fs::flock(
            &lock_file,
            rustix::fs::FlockOperation::NonBlockingLockExclusive,
        ) {
            Ok(()) => break,
            Err(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(50)),
            Err(_) => {
                say("another server holds the lock: leaving it to that one");
                return Ok(());
            }
        }
    }
    lock_file.set_len(0)?;
    (&lock_file).write_all(format!("{}\n", std::process::id()).as_bytes())?;

    let _ = std::fs::remove_file(&socket);
    let listener = UnixListener::bind(&socket)?;
    std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o600))?;
    let bound = std::fs::metadata(&socket)?.ino();

    // Nobody is connected yet: no presence until someone is.
    let shared = Shared::start(roots, false, opts.event_buffer);
    say(&format!(
        "serving {} as instance {}",
        roots.data.display(),
        shared.hello().instance
    ));

    // The phone page, while it is on.
    let phone_stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let phone = {
        let (roots, log) = (roots.clone(), log.clone());
        let opts = crate::phone::server::ServeOptions {
            by: format!("plandeck serve --daemon (pid {})", std::process::id()),
            stop: phone_stop.clone(),
            ..Default::default()
        };
        std::thread::spawn(move || {
            crate::phone_elsewhere::reach();
            crate::phone::server::host(&roots, &opts, &|line| self::say(&log, line));
        })
    };

    let clients = Arc::new((
        Mutex::new(Clients {
            connected: 0,
            since: Instant::now(),
            closing: false,
        }),
        Condvar::new(),
    ));
    {
        let (shared, clients, log) = (shared.clone(), clients.clone(), log.clone());
        let (max_line, silence) = (opts.max_line, opts.silence);
        std::thread::spawn(move || {
            accept(&listener, uid, &shared, &clients, &log, max_line, silence);
        });
    }

    // ACP sessions asked for (`plandeck start --agent`, the window's New session) are hosted
    // here: closing the window that started one does not end it (issue 36).
    let leaving = Arc::new(std::sync::atomic::AtomicBool::new(false));
    {
        let (roots, leaving) = (roots.clone(), leaving.clone());
        std::thread::spawn(move || {
            crate::acp::host::serve(roots, crate::config::Env::from_process(), || {
                !leaving.load(std::sync::atomic::Ordering::SeqCst)
            });
        });
    }

    // Idle: nobody connected for `idle`, and no ACP session hosted.
    {
        let (state, changed) = &*clients;
        let mut state = lock(state);
        loop {
            // The phone page on, and not served by another process (an older version's server,
            // `plandeck phone serve`): it serves on, as if someone were connected.
            let phone_on = crate::phone::server::turned_on(roots)
                && crate::phone::server::running(roots).is_none_or(|s| s.pid == std::process::id());
            if (phone_on && state.connected == 0) || crate::acp::host::hosted_here() > 0 {
                state.since = Instant::now();
            }
            let idle_for = state.since.elapsed();
            if state.connected == 0 && idle_for >= opts.idle {
                state.closing = true;
                break;
            }
            let wait = if phone_on {
                PHONE_CHECK
            } else if state.connected == 0 {
                opts.idle - idle_for
            } else {
                opts.idle.min(PHONE_CHECK)
            }
            // A hosted session's end is seen within a second.
            .min(Duration::from_secs(1));
            state = changed
                .wait_timeout(state, wait)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
    // Only our own socket goes (a later daemon's is never removed).
    if std::fs::metadata(&socket).is_ok_and(|m| m.ino() == bound) {
        let _ = std::fs::remove_file(&socket);
    }
    say(&format!(
        "no client for {} s: exiting",
        opts.idle.as_secs_f32()
    ));
    phone_stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let _ = phone.join();
    leaving.store(true, std::sync::atomic::Ordering::SeqCst);
    drop(shared);
    drop(lock_file);
    Ok(())
}

fn accept(
    listener: &UnixListener,
    uid: u32,
    shared: &Arc<Shared>,
    clients: &Arc<(Mutex<Clients>, Condvar)>,
    log: &Log,
    max_line: usize,
    silence: Duration,
) {
    let tell = |line: String| say(log, &line);
    for stream in listener.incoming() {
        let stream = match stream {
            Ok(s) => s,
            Err(e) => {
                tell(format!("cannot accept a connection: {e}"));
                std::thread::sleep(Duration::from_millis(100));
                continue;
            }
        };
        match peer_uid(&stream) {
            Ok(peer) if peer_allowed(peer, uid) => {}
            Ok(peer) => {
                tell(format!(
                    "refused a connection of uid {peer}: only this user (uid {uid}) is served"
                ));
                continue;
            }
            Err(e) => {
                tell(format!("refused a connection whose peer is unknown: {e}"));
                continue;
            }
        }
        {
            let (state, _) = &**clients;
            let mut state = lock(state);
            if state.closing {
                return;
            }
            state.connected += 1;
            if state.connected == 1 {
                shared.set_present(true);
            }
        }
        let (shared, clients, log) = (shared.clone(), clients.clone(), log.clone());
        std::thread::spawn(move || {
            if let Err(e) = connection(stream, &shared, &log, max_line, silence) {
                say(&log, &format!("a connection ended: {e}"));
            }
            let (state, changed) = &*clients;
            let mut state = lock(state);
            state.connected -= 1;
            if state.connected == 0 {
                // Nobody can decide now: hooks fall back to the agent's own prompt.
                shared.set_present(false);
                state.since = Instant::now();
            }
            changed.notify_all();
        });
    }
}

/// Serves one relay's connection: its first line says who decides, then the frames.
fn connection(
    stream: UnixStream,
    shared: &Arc<Shared>,
    log: &Log,
    max_line: usize,
    silence: Duration,
) -> std::io::Result<()> {
    stream.set_read_timeout(Some(RELAY_LINE_PATIENCE))?;
    let mut input = BufReader::new(stream.try_clone()?);
    let mut line = Vec::new();
    let relay = match read_line(&mut input, &mut line, 64 << 10) {
        Some(true) => serde_json::from_slice::<RelayFrame>(&line)
            .map_err(|e| std::io::Error::other(format!("not a relay's first line: {e}")))?,
        _ => return Err(std::io::Error::other("no first line from the relay")),
    };
    // A client says something at least every heartbeat: one silent for `silence` is gone (its
    // end of input, as if it had closed).
    stream.set_read_timeout(Some(silence))?;
    let opts = Options {
        by: crate::visible::shown(&relay.relay.by).into_owned(),
        event_buffer: 0,
        max_line,
    };
    let mut output = stream;
    let mut said = LogWriter(log.clone());
    serve_connection(shared, input, &mut output, &mut said, &opts)
}

/// A connection's log lines, into the daemon's log.
struct LogWriter(Log);

impl Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        lock(&self.0).write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        lock(&self.0).flush()
    }
}

/// Connects to the daemon of `roots` (launching it with `launch` when nobody answers), sends
/// the relay's line naming `by`, then passes `input` to it and what it says to `output` until
/// either side ends.
pub fn relay(
    roots: &Roots,
    by: &str,
    input: impl Read + Send + 'static,
    output: &mut dyn Write,
    launch: &dyn Fn() -> std::io::Result<()>,
) -> std::io::Result<()> {
    let uid = own_uid();
    private_dir(&dir(roots), uid)?;
    let socket = socket_path(roots);
    check_socket_path(&socket)?;
    let first = serde_json::to_string(&RelayFrame {
        relay: RelayLine { by: by.to_owned() },
    })
    .map_err(std::io::Error::other)?;

    // A daemon that was just leaving (idle) may close a connection before its hello: try again.
    let mut tries = 0;
    let (stream, hello) = loop {
        tries += 1;
        let stream = match UnixStream::connect(&socket) {
            Ok(s) => s,
            Err(_) => {
                launch()?;
                wait_for_socket(&socket)?
            }
        };
        (&stream).write_all(format!("{first}\n").as_bytes())?;
        let mut reader = BufReader::new(stream.try_clone()?);
        let mut hello = Vec::new();
        reader.read_until(b'\n', &mut hello)?;
        if hello.ends_with(b"\n") {
            break (reader, hello);
        }
        if tries >= 3 {
            return Err(std::io::Error::other(
                "the Plandeck server on this machine closed the connection before its hello: \
                 see its log",
            ));
        }
    };
    output.write_all(&hello)?;
    output.flush()?;

    let mut to_daemon = stream.get_ref().try_clone()?;
    std::thread::spawn(move || {
        let mut input = input;
        let _ = std::io::copy(&mut input, &mut to_daemon);
        // The client is gone: the daemon ends this connection (and goes on).
        let _ = to_daemon.shutdown(std::net::Shutdown::Write);
    });
    let mut from_daemon = stream;
    let mut buf = vec![0u8; 64 << 10];
    loop {
        // What is buffered first, then straight from the socket.
        let n = match from_daemon.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        output.write_all(&buf[..n])?;
        output.flush()?;
    }
}

/// Detaches the calling process from its session (the daemon, started by a launcher that
/// exited: it belongs to no ssh session, no terminal).
pub fn detach() {
    if let Err(e) = rustix::process::setsid() {
        tracing::debug!("setsid: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_same_user_is_served() {
        assert!(peer_allowed(1000, 1000));
        assert!(!peer_allowed(0, 1000), "not even root");
        assert!(!peer_allowed(1001, 1000));
    }

    #[test]
    fn the_socket_folder_is_made_private_and_one_of_another_user_is_refused() {
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("a/serve");
        private_dir(&dir, own_uid()).unwrap();
        let mode = std::fs::metadata(&dir).unwrap().mode() & 0o777;
        assert_eq!(mode, 0o700);
        // Loosened: tightened again.
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        private_dir(&dir, own_uid()).unwrap();
        assert_eq!(std::fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
        // Of another user (as this one sees it): refused, said why.
        let e = private_dir(&dir, own_uid() + 1).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::PermissionDenied);
        assert!(e.to_string().contains("not to this user"), "{e}");
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_connection_of_this_user_is_known_by_its_peer_uid() {
        let (a, _b) = UnixStream::pair().unwrap();
        assert_eq!(peer_uid(&a).unwrap(), own_uid());
    }
}
