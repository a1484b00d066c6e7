//! The phone page over HTTPS: a small server of plain threads (rustls over a `TcpListener`, one
//! bounded HTTP/1.1 request per connection, parsed by `httparse`), on the one address the person
//! chose, with the certificate and key they named.
//!
//! What it serves:
//! - `GET /`, `/app.js`, `/app.css`: the page itself (no data; strict CSP, nothing loaded from
//!   elsewhere, no inline script).
//! - `POST /api/pair`: pairing with the one-time secret from the link's fragment.
//! - `POST /api/pending`, `/api/plan`, `/api/decide`: each authorised by a device signature only
//!   ([`super::verify`]); no cookie or header is ever an authorisation.
//! - Push and install ([`super::push::route`]): `GET /manifest.webmanifest`, `/sw.js`, `/icon.svg`,
//!   `/api/push/key` (the VAPID public key), and `POST /api/push/subscribe` (signed like a
//!   decision). While it runs, each request filed is pushed to the paired devices
//!   ([`super::push::watch`]).
//!
//! On Tailscale (`phone on --tailscale`, [`super::tailscale`]), every request is answered only
//! when tailscaled's whois names its caller as a device of the machine's own user.
//!
//! Its config (`<data>/phone/config.json`) is read twice a second: turned off or changed, the
//! server ends. One server per store (`<data>/phone/server.lock`), its state in `server.json`
//! (who serves it: the per-user server `plandeck serve --daemon`, which [`host`]s the page for as
//! long as it is on, or `plandeck phone serve` where there is no such server).
//!
//! Each connection has one overall deadline ([`CONNECTION_DEADLINE`], handshake to last byte
//! written), not only a timeout per read: a client that sends a byte every few seconds is cut at
//! the deadline and its slot freed.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{PhoneError, SignedDecision};
use crate::config::Roots;

/// How the person turned the page on (`plandeck phone on`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PhoneConfig {
    pub on: bool,
    /// `ADDR:PORT`, exactly as typed.
    pub listen: String,
    pub cert: PathBuf,
    pub key: PathBuf,
    /// The name the link uses (the certificate's name); the listen address when `None`.
    #[serde(default)]
    pub name: Option<String>,
    /// Hooks wait for a decision while a paired device was seen within this many minutes (as
    /// they wait while the window is open); 0: the phone never keeps a hook waiting.
    #[serde(default = "default_wait_minutes")]
    pub wait_minutes: u32,
}

/// How long after a paired phone was last seen hooks still wait for it, unless the person chose.
pub const DEFAULT_WAIT_MINUTES: u32 = 15;
/// The longest wait a person may choose (a day).
pub const MAX_WAIT_MINUTES: u32 = 24 * 60;

fn default_wait_minutes() -> u32 {
    DEFAULT_WAIT_MINUTES
}

impl PhoneConfig {
    /// Whether `other` serves the same page: the same address, certificate, key and name (the
    /// hooks' wait is not the server's business: changing it does not restart it).
    pub fn same_server(&self, other: &PhoneConfig) -> bool {
        self.on == other.on
            && self.listen == other.listen
            && self.cert == other.cert
            && self.key == other.key
            && self.name == other.name
    }
}

impl PhoneConfig {
    /// The address the link names: `https://NAME:PORT/`.
    pub fn base_url(&self) -> Result<String, PhoneError> {
        let addr = parse_listen(&self.listen)?;
        let host = match &self.name {
            Some(n) => n.clone(),
            None if addr.is_ipv6() => format!("[{}]", addr.ip()),
            None => addr.ip().to_string(),
        };
        Ok(format!("https://{host}:{}/", addr.port()))
    }
}

/// An address to listen on: `ADDR:PORT` with an IP (never a name that could resolve to many).
pub fn parse_listen(listen: &str) -> Result<SocketAddr, PhoneError> {
    listen.parse().map_err(|_| PhoneError::BadInput {
        message: format!(
            "\"{listen}\" is not ADDR:PORT with an IP address (e.g. 100.64.0.7:8443, [fd7a::1]:8443)"
        ),
    })
}

/// Whether `addr` is every interface (`0.0.0.0`, `[::]`): said plainly whenever it is used.
pub fn is_all_interfaces(addr: &SocketAddr) -> bool {
    addr.ip().is_unspecified()
}

pub fn read_config(roots: &Roots) -> Result<Option<PhoneConfig>, PhoneError> {
    let c: Option<PhoneConfig> = super::read(roots, "config.json")?;
    Ok(c)
}

pub fn write_config(roots: &Roots, config: &PhoneConfig) -> Result<(), PhoneError> {
    let _lock = super::lock(roots)?;
    super::write(roots, "config.json", &Some(config))
}

/// What a running server says of itself (`server.json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerState {
    pub pid: u32,
    pub listen: String,
    pub url: String,
    pub started: String,
    /// Who serves it: `plandeck serve --daemon` or `plandeck phone serve`.
    #[serde(default)]
    pub by: String,
}

/// Why the page could not be served with the config it names (`server-error.json`): a port in
/// use, a certificate gone. Cleared when a server starts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerError {
    pub listen: String,
    pub message: String,
    pub at: String,
}

/// Forgets the last reason the page could not be served (`phone on` asks again).
pub fn clear_error(roots: &Roots) {
    let _ = std::fs::remove_file(super::dir(roots).join("server-error.json"));
}

/// The last reason the page could not be served, when the server that tried has not served since.
pub fn last_error(roots: &Roots) -> Option<ServerError> {
    super::read::<Option<ServerError>>(roots, "server-error.json")
        .ok()
        .flatten()
}

/// The running server's state, when one runs (its lock is held).
pub fn running(roots: &Roots) -> Option<ServerState> {
    let lock = std::fs::File::open(super::dir(roots).join("server.lock")).ok()?;
    match lock.try_lock() {
        Ok(()) => {
            let _ = lock.unlock();
            None
        }
        Err(_) => super::read::<Option<ServerState>>(roots, "server.json")
            .ok()
            .flatten(),
    }
}

/// On Tailscale, how often the server asks tailscaled again who this machine is.
const TAILSCALE_RECHECK: Duration = Duration::from_secs(5);
/// At most this many connections are served at once; more are closed at once.
const MAX_CONNECTIONS: usize = 32;
/// A request's head (line and headers) is at most this many bytes.
const MAX_HEAD: usize = 16 * 1024;
/// A request's body is at most this many bytes (feedback is bounded at 16 KiB).
const MAX_BODY: usize = 64 * 1024;
/// A connection that says nothing for this long is closed.
const IO_TIMEOUT: Duration = Duration::from_secs(10);
/// A connection is closed this long after it was accepted, however it trickles: the handshake,
/// one request and its answer fit well within it.
pub const CONNECTION_DEADLINE: Duration = Duration::from_secs(20);

/// How a server runs.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// Each connection's overall deadline ([`CONNECTION_DEADLINE`]; tests shorten it).
    pub deadline: Duration,
    /// Who serves (said in `server.json`).
    pub by: String,
    /// Set: the server ends (the daemon leaving).
    pub stop: Arc<std::sync::atomic::AtomicBool>,
}

impl Default for ServeOptions {
    fn default() -> Self {
        Self {
            deadline: CONNECTION_DEADLINE,
            by: "plandeck phone serve".to_owned(),
            stop: Arc::default(),
        }
    }
}

fn tls_config(config: &PhoneConfig) -> Result<Arc<rustls::ServerConfig>, PhoneError> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(&config.cert)
        .and_then(|i| i.collect::<Result<_, _>>())
        .map_err(|e| PhoneError::BadInput {
            message: format!("cannot read the certificate {}: {e}", config.cert.display()),
        })?;
    if certs.is_empty() {
        return Err(PhoneError::BadInput {
            message: format!("no certificate in {}", config.cert.display()),
        });
    }
    let key = PrivateKeyDer::from_pem_file(&config.key).map_err(|e| PhoneError::BadInput {
        message: format!("cannot read the key {}: {e}", config.key.display()),
    })?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let tls = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .and_then(|b| b.with_no_client_auth().with_single_cert(certs, key))
        .map_err(|e| PhoneError::BadInput {
            message: format!("the certificate and key do not make a TLS server: {e}"),
        })?;
    Ok(Arc::new(tls))
}

/// Checks what `phone on` is given before it is saved: the address parses, the certificate and
/// key load and match.
pub fn check_config(config: &PhoneConfig) -> Result<(), PhoneError> {
    parse_listen(&config.listen)?;
    tls_config(config).map(|_| ())
}

/// Serves the page until the config is turned off or changed. Holds `server.lock` while it runs
/// (waiting up to 10 s for a server it replaces to end).
pub fn serve(roots: &Roots) -> Result<(), PhoneError> {
    serve_with(roots, &ServeOptions::default())
}

/// [`serve`] with its options: until the config is turned off or changed, or `opts.stop` is set.
pub fn serve_with(roots: &Roots, opts: &ServeOptions) -> Result<(), PhoneError> {
    let Some(config) = read_config(roots)?.filter(|c| c.on) else {
        return Err(PhoneError::BadInput {
            message: "the phone page is off: turn it on with `plandeck phone on --listen ADDR:PORT --cert FILE --key FILE`".to_owned(),
        });
    };
    // On Tailscale: its certificate fetched again (it renews them), and every caller checked
    // by whois; Tailscale not answering, the page is not served.
    let tailscale = super::tailscale::chosen(roots)?;
    let guard = match &tailscale {
        Some(t) => {
            if let Some(name) = &config.name {
                if let Err(e) = super::tailscale::fetch_certificate(roots, &t.socket(), name) {
                    tracing::warn!("the Tailscale certificate was not renewed: {e}");
                }
            }
            Some(Arc::new(super::tailscale::Guard::new(t)?))
        }
        None => None,
    };
    let tls = tls_config(&config)?;
    let lock_path = super::dir(roots).join("server.lock");
    let lock = crate::durable::open_private(&lock_path)?;
    let mut held = false;
    for _ in 0..200 {
        if opts.stop.load(Ordering::SeqCst) {
            return Ok(());
        }
        if lock.try_lock().is_ok() {
            held = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    if !held {
        return Err(PhoneError::BadInput {
            message: ANOTHER_SERVER.to_owned(),
        });
    }
    let addr = parse_listen(&config.listen)?;
    let listener = match TcpListener::bind(addr) {
        Ok(l) => l,
        Err(e) => {
            let _ = lock.unlock();
            return Err(PhoneError::BadInput {
                message: format!("cannot listen on {addr}: {e}"),
            });
        }
    };
    listener
        .set_nonblocking(true)
        .map_err(|e| PhoneError::BadInput {
            message: format!("{addr}: {e}"),
        })?;
    let state = ServerState {
        pid: std::process::id(),
        listen: config.listen.clone(),
        url: config.base_url()?,
        started: crate::timestamp::format(crate::timestamp::now_seconds()),
        by: opts.by.clone(),
    };
    super::write(roots, "server.json", &Some(&state))?;
    let _ = std::fs::remove_file(super::dir(roots).join("server-error.json"));
    tracing::info!("phone page on {}", state.url);
    // Each request filed from now on is pushed to the paired devices (no plan text).
    let stop_push = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut push = Vec::new();
    match super::push::Notifier::new(roots, super::outbound::Outbound::from_env()) {
        Ok(n) => {
            let n = Arc::new(n);
            push.push(super::push::watch(n.clone(), stop_push.clone()));
            // And each plan that starts waiting on another machine, naming it.
            if let Some(other) = super::other_machines() {
                let roots = roots.clone();
                push.push(super::push::watch_others(
                    n,
                    Box::new(move || other.waiting(&roots)),
                    super::push::OTHERS_EVERY,
                    stop_push.clone(),
                ));
            }
        }
        Err(e) => tracing::warn!("push is off: {e}"),
    }
    // The other machines of the settings, kept connected while the page is served: their
    // waiting plans are on it too.
    let machines = super::other_machines().map(|o| o.attach_settings(roots));
    let busy = Arc::new(AtomicUsize::new(0));
    let mut last_check = std::time::Instant::now();
    // On Tailscale: the machine re-asked every few seconds (logged in as another user, tailscaled
    // gone: the page ends, and is served again only for who it is now), on a thread of its own:
    // a tailscaled slow to answer never holds the page's accepting loop.
    let moved = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stop_asking = Arc::new(std::sync::atomic::AtomicBool::new(false));
    if let Some(g) = guard.clone() {
        let (moved, stop) = (moved.clone(), stop_asking.clone());
        std::thread::spawn(move || {
            let mut last_asked = std::time::Instant::now();
            while !stop.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(100));
                if last_asked.elapsed() < TAILSCALE_RECHECK {
                    continue;
                }
                if !g.still_same() {
                    moved.store(true, Ordering::SeqCst);
                    break;
                }
                last_asked = std::time::Instant::now();
            }
        });
    }
    loop {
        if last_check.elapsed() >= Duration::from_millis(500) {
            last_check = std::time::Instant::now();
            match read_config(roots) {
                Ok(Some(c)) if c.same_server(&config) => {}
                _ => break,
            }
            if let Some(m) = &machines {
                m.follow(roots);
            }
            if super::tailscale::chosen(roots).ok() != Some(tailscale.clone()) {
                break;
            }
        }
        if moved.load(Ordering::SeqCst) {
            tracing::warn!("Tailscale names this machine otherwise now: the phone page restarts");
            break;
        }
        if opts.stop.load(Ordering::SeqCst) {
            break;
        }
        match listener.accept() {
            Ok((stream, _)) => {
                if busy.load(Ordering::SeqCst) >= MAX_CONNECTIONS {
                    continue;
                }
                busy.fetch_add(1, Ordering::SeqCst);
                let (roots, tls, busy) = (roots.clone(), tls.clone(), busy.clone());
                let deadline = std::time::Instant::now() + opts.deadline;
                let guard = guard.clone();
                std::thread::spawn(move || {
                    if let Err(e) = connection(&roots, stream, tls, deadline, guard.as_deref()) {
                        tracing::debug!("phone connection: {e}");
                    }
                    busy.fetch_sub(1, Ordering::SeqCst);
                });
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => tracing::debug!("accept: {e}"),
        }
    }
    drop(machines);
    // The asking thread ends by itself (after the question it may be waiting on, at most 5 s).
    stop_asking.store(true, Ordering::SeqCst);
    stop_push.store(true, Ordering::SeqCst);
    for p in push {
        let _ = p.join();
    }
    let _ = std::fs::remove_file(super::dir(roots).join("server.json"));
    let _ = lock.unlock();
    Ok(())
}

/// Whether the page is turned on (its config says so).
pub fn turned_on(roots: &Roots) -> bool {
    read_config(roots).ok().flatten().is_some_and(|c| c.on)
}

/// Hosts the page for as long as `opts.stop` is not set (the per-user server's thread): serves it
/// while it is on, through every change of its config (`phone on` with a new address takes
/// effect without a restart), and waits while it is off. A config that cannot be served (a port
/// in use, a certificate gone) is said once on `say` and in `server-error.json`, and tried again
/// when the config changes; a server of another process holding the lock is waited for.
pub fn host(roots: &Roots, opts: &ServeOptions, say: &dyn Fn(&str)) {
    let mut failed: Option<PhoneConfig> = None;
    while !opts.stop.load(Ordering::SeqCst) {
        let config = read_config(roots).ok().flatten().filter(|c| c.on);
        let Some(config) = config else {
            failed = None;
            std::thread::sleep(Duration::from_millis(250));
            continue;
        };
        // A config that failed is tried again once it changes, or `phone on` asks again (and
        // clears the error).
        if failed.as_ref().is_some_and(|f| f.same_server(&config)) && last_error(roots).is_some() {
            std::thread::sleep(Duration::from_millis(250));
            continue;
        }
        say(&format!("serving the phone page on {}", config.listen));
        match serve_with(roots, opts) {
            Ok(()) => say("the phone page stopped (turned off or changed)"),
            Err(e) if e.to_string() == ANOTHER_SERVER => {
                std::thread::sleep(Duration::from_millis(500));
            }
            Err(e) => {
                say(&format!("cannot serve the phone page: {e}"));
                let error = ServerError {
                    listen: config.listen.clone(),
                    message: e.to_string(),
                    at: crate::timestamp::format(crate::timestamp::now_seconds()),
                };
                let _ = super::write(roots, "server-error.json", &Some(error));
                failed = Some(config);
            }
        }
    }
}

/// What "another server holds the lock" says (the daemon's [`host`] waits for that one).
const ANOTHER_SERVER: &str = "another phone server runs for this store";

/// A connection bounded by one deadline: every read and write may wait only what is left of it
/// (and at most [`IO_TIMEOUT`]); past it, each fails at once.
struct Deadlined {
    stream: TcpStream,
    deadline: std::time::Instant,
}

impl Deadlined {
    fn left(&self) -> std::io::Result<Duration> {
        let left = self
            .deadline
            .saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the connection's deadline passed",
            ));
        }
        Ok(left.min(IO_TIMEOUT))
    }
}

impl Read for Deadlined {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = self.left()?;
        self.stream.set_read_timeout(Some(left))?;
        self.stream.read(buf)
    }
}

impl Write for Deadlined {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let left = self.left()?;
        self.stream.set_write_timeout(Some(left))?;
        self.stream.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.stream.flush()
    }
}

fn connection(
    roots: &Roots,
    stream: TcpStream,
    tls: Arc<rustls::ServerConfig>,
    deadline: std::time::Instant,
    guard: Option<&super::tailscale::Guard>,
) -> Result<(), String> {
    stream.set_nonblocking(false).map_err(|e| e.to_string())?;
    let peer = stream.peer_addr().map_err(|e| e.to_string())?;
    let stream = Deadlined { stream, deadline };
    let conn = rustls::ServerConnection::new(tls).map_err(|e| e.to_string())?;
    let mut tls = rustls::StreamOwned::new(conn, stream);
    let Some(req) = read_request(&mut tls)? else {
        return Ok(());
    };
    // On Tailscale, only the machine's user's own devices are answered (whois, each request).
    let resp = match guard.map(|g| g.check(peer)) {
        Some(Err(e)) => {
            tracing::debug!("phone page: {e}");
            refusal(&e)
        }
        _ => respond_to(roots, &req),
    };
    tls.write_all(head(&resp).as_bytes())
        .map_err(|e| e.to_string())?;
    tls.write_all(&resp.body).map_err(|e| e.to_string())?;
    tls.flush().map_err(|e| e.to_string())?;
    tls.conn.send_close_notify();
    let _ = tls.flush();
    Ok(())
}

/// The page may load only itself; nothing frames it; no address leaves in a referrer.
const SECURITY_HEADERS: [(&str, &str); 6] = [
    (
        "Content-Security-Policy",
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; manifest-src 'self'; worker-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    ),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("Cache-Control", "no-store"),
    ("X-Frame-Options", "DENY"),
    ("Strict-Transport-Security", "max-age=31536000"),
];

/// A response's head: its status, type and length, and [`SECURITY_HEADERS`] on every answer
/// (the page, a file, a refusal, a whois refusal, a 404): nothing served may be framed.
pub(super) fn head(resp: &Response) -> String {
    let mut head = format!(
        "HTTP/1.1 {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n",
        resp.status,
        resp.content_type,
        resp.body.len()
    );
    for (k, v) in SECURITY_HEADERS {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    head
}

/// One request as read: its method, path, body, and the headers that say which page sent it
/// (a browser sets them; a page cannot forge them).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Request {
    pub(super) method: String,
    pub(super) path: String,
    pub(super) body: Vec<u8>,
    /// `Origin`, when sent (a browser sends it with every POST).
    pub(super) origin: Option<String>,
    /// `Sec-Fetch-Site` (`same-origin`, `same-site`, `cross-site`, `none`), when sent.
    pub(super) fetch_site: Option<String>,
}

/// Reads one request: its method, path, body and origin; `None` when the peer closed first.
pub(super) fn read_request<S: Read>(s: &mut S) -> Result<Option<Request>, String> {
    let mut buf = Vec::with_capacity(2048);
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        if buf.len() > MAX_HEAD {
            return Err("request head too long".to_owned());
        }
        let n = s.read(&mut chunk).map_err(|e| e.to_string())?;
        if n == 0 {
            return Ok(None);
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let mut headers = [httparse::EMPTY_HEADER; 48];
    let mut req = httparse::Request::new(&mut headers);
    match req.parse(&buf[..head_end]) {
        Ok(httparse::Status::Complete(_)) => {}
        _ => return Err("not an HTTP request".to_owned()),
    }
    let method = req.method.unwrap_or_default().to_owned();
    let path = req.path.unwrap_or_default().to_owned();
    let length = req
        .headers
        .iter()
        .find(|h| h.name.eq_ignore_ascii_case("content-length"))
        .and_then(|h| std::str::from_utf8(h.value).ok())
        .and_then(|v| v.trim().parse::<usize>().ok())
        .unwrap_or(0);
    if length > MAX_BODY {
        return Err("request body too long".to_owned());
    }
    let header = |name: &str| -> Result<Option<String>, String> {
        let mut found = req
            .headers
            .iter()
            .filter(|h| h.name.eq_ignore_ascii_case(name))
            .map(|h| String::from_utf8_lossy(h.value).trim().to_owned());
        let first = found.next();
        // Twice (a proxy or a forger hoping one of them is read): refused, never guessed.
        if found.next().is_some() {
            return Err(format!("{name} sent twice"));
        }
        Ok(first)
    };
    let origin = header("origin")?;
    let fetch_site = header("sec-fetch-site")?;
    let mut body = buf[head_end..].to_vec();
    while body.len() < length {
        let n = s.read(&mut chunk).map_err(|e| e.to_string())?;
        if n == 0 {
            return Err("body cut short".to_owned());
        }
        body.extend_from_slice(&chunk[..n]);
    }
    body.truncate(length);
    Ok(Some(Request {
        method,
        path,
        body,
        origin,
        fetch_site,
    }))
}

pub(super) struct Response {
    pub(super) status: &'static str,
    pub(super) content_type: &'static str,
    pub(super) body: Vec<u8>,
}

fn json(status: &'static str, value: &serde_json::Value) -> Response {
    Response {
        status,
        content_type: "application/json",
        body: value.to_string().into_bytes(),
    }
}

fn refusal(e: &PhoneError) -> Response {
    let status = match e {
        PhoneError::Write(_) | PhoneError::Read { .. } => "500 Internal Server Error",
        PhoneError::BadInput { .. } | PhoneError::BadKey { .. } => "400 Bad Request",
        PhoneError::PlanChanged { .. } | PhoneError::Gate(_) => "409 Conflict",
        PhoneError::Elsewhere(e) if e.kind == crate::ipc::ErrorKind::Unreachable => {
            "503 Service Unavailable"
        }
        PhoneError::Elsewhere(_) => "409 Conflict",
        _ => "403 Forbidden",
    };
    json(
        status,
        &serde_json::json!({"error": {"kind": e.kind(), "message": e.to_string()}}),
    )
}

/// The origins the page is served at: its name's (the link's) and its address's, each
/// `https://HOST[:PORT]` as a browser writes an origin. A page of any other origin is another
/// site: a hostile page open in the phone's browser.
fn own_origins(roots: &Roots) -> Vec<String> {
    let Some(config) = read_config(roots).ok().flatten() else {
        return Vec::new();
    };
    let mut own = Vec::new();
    if let Ok(e) = super::webauthn::Expect::for_config(&config) {
        own.push(e.origin);
    }
    if let Ok(e) = super::webauthn::Expect::for_config(&PhoneConfig {
        name: None,
        ..config
    }) {
        own.push(e.origin);
    }
    own
}

/// Refuses a call made by another site's page in the phone's browser: a POST whose `Origin` is
/// not the page's own, or that the browser says came from another site (`Sec-Fetch-Site`). No
/// call is authorised by where it comes from (each is signed); this refuses, before anything is
/// read, what a hostile page sends to the page's API from the phone itself (a cross-site
/// request, a form posted as `text/plain`, the pairing secret it saw).
fn check_origin(roots: &Roots, req: &Request) -> Result<(), PhoneError> {
    if req.method == "GET" || req.method == "HEAD" {
        // The page itself holds no data: a link from anywhere may open it (framing is refused
        // by the headers on every answer).
        return Ok(());
    }
    let refuse = |why: String| PhoneError::CrossOrigin {
        message: format!("refused: {why}; the page's own calls come from the page itself"),
    };
    if let Some(site) = &req.fetch_site {
        if site != "same-origin" && site != "none" {
            return Err(refuse(format!(
                "the browser says this call came from a page of another site ({})",
                crate::visible::shown(&site.chars().take(40).collect::<String>())
            )));
        }
    }
    if let Some(origin) = &req.origin {
        let own = own_origins(roots);
        if !own.iter().any(|o| o == origin) {
            return Err(refuse(format!(
                "this call came from a page at {}, not this page ({})",
                crate::visible::shown(&origin.chars().take(200).collect::<String>()),
                own.join(" or ")
            )));
        }
    }
    Ok(())
}

/// Answers one request read from a connection: a call from another site's page is refused
/// first ([`check_origin`]), then [`respond`].
pub(super) fn respond_to(roots: &Roots, req: &Request) -> Response {
    if let Err(e) = check_origin(roots, req) {
        tracing::debug!("phone page: {e}");
        return refusal(&e);
    }
    respond(roots, &req.method, &req.path, &req.body)
}

const PAGE: &str = include_str!("page/index.html");
const SCRIPT: &str = include_str!("page/app.js");
const STYLE: &str = include_str!("page/app.css");

fn respond(roots: &Roots, method: &str, path: &str, body: &[u8]) -> Response {
    let file = |content_type, text: &str| Response {
        status: "200 OK",
        content_type,
        body: text.as_bytes().to_vec(),
    };
    let path = path.split('?').next().unwrap_or_default();
    if let Some((status, content_type, body)) = super::push::route(roots, method, path, body) {
        return Response {
            status,
            content_type,
            body,
        };
    }
    match (method, path) {
        ("GET", "/") => file("text/html; charset=utf-8", PAGE),
        ("GET", "/app.js") => file("text/javascript; charset=utf-8", SCRIPT),
        ("GET", "/app.css") => file("text/css; charset=utf-8", STYLE),
        ("POST", "/api/pair") => api(body, |req: PairCall| {
            let d = super::pair_finish_with(roots, &req.pair, req.passkey.as_ref())?;
            Ok(serde_json::json!({"device": {"id": d.id, "name": d.name}}))
        }),
        ("POST", "/api/pending") => api(body, |req: ReadCall| {
            let msg = super::canonical_read("pending", "", &req.signed.nonce, req.signed.expires)?;
            super::verify(roots, &req.signed, msg.as_bytes())?;
            let others = crate::gate::pending(roots)
                .iter()
                .filter(|r| r.kind != crate::gate::RequestKind::Plan)
                .count();
            // And the plans waiting on the other machines, each card naming its machine.
            let (theirs, machines) = super::other_machines()
                .map(|o| o.cards(roots))
                .unwrap_or_default();
            let mut all = pending(roots);
            all.extend(theirs);
            Ok(
                serde_json::json!({"machine": machine(), "pending": all, "inTheWindow": others, "machines": machines}),
            )
        }),
        ("POST", "/api/plan") => api(body, |req: ReadCall| {
            let msg = super::canonical_read(
                "plan",
                &req.request_id,
                &req.signed.nonce,
                req.signed.expires,
            )?;
            super::verify(roots, &req.signed, msg.as_bytes())?;
            if let Some(other) = super::other_machines().filter(|o| o.owns(&req.request_id)) {
                return other.plan(roots, &req.request_id);
            }
            plan(roots, &req.request_id)
        }),
        ("POST", "/api/decide") => api(body, |req: DecideCall| {
            let o = super::decide_with_passkey(roots, &req.decision, req.passkey.as_ref())?;
            Ok(serde_json::to_value(&o).unwrap_or_default())
        }),
        ("GET" | "POST", _) => json(
            "404 Not Found",
            &serde_json::json!({"error": {"kind": "notFound", "message": "no such page"}}),
        ),
        _ => json(
            "405 Method Not Allowed",
            &serde_json::json!({"error": {"kind": "badInput", "message": "method not allowed"}}),
        ),
    }
}

fn api<T: for<'de> Deserialize<'de>>(
    body: &[u8],
    f: impl FnOnce(T) -> Result<serde_json::Value, PhoneError>,
) -> Response {
    let req = match serde_json::from_slice::<T>(body) {
        Ok(r) => r,
        Err(e) => {
            return refusal(&PhoneError::BadInput {
                message: format!("not the call the page sends: {e}"),
            })
        }
    };
    match f(req) {
        Ok(v) => json("200 OK", &v),
        Err(e) => refusal(&e),
    }
}

/// Pairing as the page sends it: with the passkey made, where the phone offers passkeys.
#[derive(Debug, Deserialize)]
struct PairCall {
    #[serde(flatten)]
    pair: super::PairRequest,
    #[serde(default)]
    passkey: Option<super::webauthn::Registration>,
}

/// A decision as the page sends it: with the passkey's assertion, when the phone has one.
#[derive(Debug, Deserialize)]
struct DecideCall {
    #[serde(flatten)]
    decision: SignedDecision,
    #[serde(default)]
    passkey: Option<super::webauthn::Assertion>,
}

/// A signed read: the list, or one request's plan.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ReadCall {
    #[serde(default)]
    request_id: String,
    #[serde(flatten)]
    signed: super::Signed,
}

/// This machine's name, as the cards say it.
pub fn machine() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_owned())
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "this machine".to_owned())
}

/// The waiting plans as the page's cards show them: machine, agent, project, since, hash. A
/// tool's permission (an ACP agent's command, edit or fetch) is not listed: the page shows plans
/// only, so it is decided in the window (its count is `inTheWindow`).
fn pending(roots: &Roots) -> Vec<serde_json::Value> {
    let machine = machine();
    crate::gate::pending(roots)
        .into_iter()
        .filter(|r| r.kind == crate::gate::RequestKind::Plan)
        .map(|r| {
            let project = std::path::Path::new(&r.cwd)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| r.cwd.clone());
            serde_json::json!({
                "id": r.id,
                "agent": r.agent.display_name(),
                "machine": crate::visible::shown(&r.machine.clone().unwrap_or_else(|| machine.clone())),
                "project": crate::visible::shown(&project),
                "waitingSince": crate::timestamp::format(r.waiting_since),
                "planHash": r.plan_hash,
            })
        })
        .collect()
}

/// One waiting request's plan, rendered by the window's renderer and sanitizer.
fn plan(roots: &Roots, id: &str) -> Result<serde_json::Value, PhoneError> {
    let Some(r) = crate::gate::pending(roots).into_iter().find(|r| r.id == id) else {
        return Err(crate::gate::GateError::NotFound { id: id.to_owned() }.into());
    };
    let text = r.plan_read.clone().unwrap_or_else(|| r.plan.clone());
    // Its diff against the last approved version and its comments, as the window shows them.
    let (diff, comments) = super::queue::review_here(roots, &r);
    Ok(serde_json::json!({
        "id": r.id,
        "agent": r.agent.display_name(),
        "machine": crate::visible::shown(&r.machine.clone().unwrap_or_else(machine)),
        "cwd": crate::visible::shown(&r.cwd),
        "planHash": r.plan_hash,
        "html": crate::render::render(&text).html,
        "diff": diff,
        "comments": comments,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_call_reads_or_decides_without_a_device_signature() {
        let dir = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(dir.path());
        let unsigned = br#"{"device":"0123456789abcdef","nonce":"aaaaaaaaaaaaaaaaaaaa","expires":1,"signature":"AA"}"#;
        for path in ["/api/pending", "/api/plan"] {
            let r = respond(&roots, "POST", path, unsigned);
            assert_eq!(r.status, "403 Forbidden", "{path}");
            assert!(String::from_utf8_lossy(&r.body).contains("noDevice"));
        }
        let decision = br#"{"requestId":"r1","planHash":"h","decision":"approve","device":"0123456789abcdef","nonce":"aaaaaaaaaaaaaaaaaaaa","expires":1,"signature":"AA"}"#;
        let r = respond(&roots, "POST", "/api/decide", decision);
        assert_eq!(r.status, "403 Forbidden");
        // Nothing but a device's signature authorises: no body at all is bad input.
        assert_eq!(
            respond(&roots, "POST", "/api/pending", b"").status,
            "400 Bad Request"
        );
        // The page itself holds no data.
        let page = respond(&roots, "GET", "/", b"");
        assert_eq!(page.status, "200 OK");
        assert!(!String::from_utf8_lossy(&page.body).contains("<script>"));
        assert_eq!(
            respond(&roots, "GET", "/api/pending", b"").status,
            "404 Not Found"
        );
    }

    #[test]
    fn requests_are_bounded() {
        let mut head = b"POST /api/pending HTTP/1.1\r\nX: ".to_vec();
        head.extend(std::iter::repeat_n(b'a', MAX_HEAD + 10));
        assert!(read_request(&mut &head[..]).is_err());
        let big = format!(
            "POST /api/decide HTTP/1.1\r\nContent-Length: {}\r\n\r\n",
            MAX_BODY + 1
        );
        assert!(read_request(&mut big.as_bytes()).is_err());
        let ok = b"POST /api/pending HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}";
        let r = read_request(&mut &ok[..]).unwrap().unwrap();
        assert_eq!(
            (r.method.as_str(), r.path.as_str(), &r.body[..]),
            ("POST", "/api/pending", &b"{}"[..])
        );
    }

    #[test]
    fn every_interface_is_told_apart() {
        assert!(is_all_interfaces(&parse_listen("0.0.0.0:8443").unwrap()));
        assert!(is_all_interfaces(&parse_listen("[::]:8443").unwrap()));
        assert!(!is_all_interfaces(
            &parse_listen("100.64.0.7:8443").unwrap()
        ));
        assert!(parse_listen("phone.example:8443").is_err());
    }

    /// The page shows plans only: a tool's permission (an ACP agent's command) is not listed
    /// (it would show as an empty plan the phone could not decide), only counted for the window.
    #[test]
    fn the_page_lists_plans_only_and_counts_the_tool_requests_left_to_the_window() {
        let dir = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(dir.path());
        let pid = std::process::id();
        for (id, kind) in [
            ("plan1", crate::gate::RequestKind::Plan),
            ("tool1", crate::gate::RequestKind::Permission),
        ] {
            let req = crate::gate::GateRequest {
                kind,
                hook_pid: pid,
                hook_start_time: crate::process::start_time(pid),
                ..crate::gate::GateRequest::for_test(id)
            };
            let path = roots.data.join(format!("gate/requests/{id}.json"));
            crate::durable::write_private(&path, &serde_json::to_vec(&req).unwrap()).unwrap();
        }
        assert_eq!(crate::gate::pending(&roots).len(), 2);
        let listed: Vec<_> = pending(&roots)
            .into_iter()
            .map(|r| r["id"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(listed, ["plan1"]);
    }

    /// On Tailscale the server asks tailscaled again every few seconds who this machine is. A
    /// tailscaled slow to answer that (here: held until the test lets it go) must not hold the
    /// page: a phone's request made meanwhile is answered (the question is asked beside the
    /// accepting loop, never in it).
    #[test]
    fn a_slow_tailscaled_recheck_does_not_hold_the_page() {
        use std::io::{BufRead, BufReader};
        use std::os::unix::net::UnixListener;
        let dir = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(dir.path());
        let certs = dir.path().join("certs");
        let ca = plandeck_testkit::tls::test_ca_for(&certs, "IP:127.0.0.1");
        let socket = dir.path().join("tailscaled.sock");
        let listener = UnixListener::bind(&socket).unwrap();
        let (asked_tx, asked_rx) = std::sync::mpsc::channel::<()>();
        let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
        let go = Arc::new(std::sync::Mutex::new(go_rx));
        std::thread::spawn(move || {
            let statuses = Arc::new(AtomicUsize::new(0));
            for s in listener.incoming().flatten() {
                let (statuses, asked_tx, go) = (statuses.clone(), asked_tx.clone(), go.clone());
                // Each question on its own thread, as tailscaled answers them.
                std::thread::spawn(move || {
                    let status = r#"{"BackendState":"Running","Self":{"DNSName":"m.example.ts.net.","TailscaleIPs":["127.0.0.1"],"UserID":1},"User":{}}"#;
                    let who = r#"{"Node":{"Name":"p.","User":1,"Addresses":["127.0.0.1/32"]},"UserProfile":{"ID":1,"LoginName":"amy@example.com"}}"#;
                    let mut line = String::new();
                    let _ = BufReader::new(s.try_clone().unwrap()).read_line(&mut line);
                    let body = if line.contains("/status") {
                        if statuses.fetch_add(1, Ordering::SeqCst) == 1 {
                            // The first recheck: held until the test has its answer.
                            let _ = asked_tx.send(());
                            let _ = go.lock().unwrap().recv();
                        }
                        status
                    } else {
                        who
                    };
                    let mut s = s;
                    let _ = write!(
                        s,
                        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{body}",
                        body.len()
                    );
                });
            }
        });
        let port = plandeck_testkit::free_port();
        super::super::tailscale::write_config(
            &roots,
            &super::super::tailscale::TailscaleConfig {
                on: true,
                socket: Some(socket),
                allow_users: vec![],
            },
        )
        .unwrap();
        write_config(
            &roots,
            &PhoneConfig {
                on: true,
                listen: format!("127.0.0.1:{port}"),
                cert: ca.server_pem.clone(),
                key: ca.server_key.clone(),
                name: None,
                wait_minutes: 15,
            },
        )
        .unwrap();
        let opts = ServeOptions::default();
        let stop = opts.stop.clone();
        let server = {
            let roots = roots.clone();
            std::thread::spawn(move || serve_with(&roots, &opts))
        };
        asked_rx
            .recv_timeout(Duration::from_secs(60))
            .expect("the server asks tailscaled again");
        let out = std::process::Command::new("curl")
            .args([
                "-s",
                "-o",
                "/dev/null",
                "-w",
                "%{http_code}",
                "--max-time",
                "60",
            ])
            .arg("--cacert")
            .arg(&ca.ca_pem)
            .arg(format!("https://127.0.0.1:{port}/"))
            .output()
            .unwrap_or_else(|e| panic!("curl is needed by this test: {e}"));
        let code = String::from_utf8_lossy(&out.stdout).into_owned();
        let _ = go_tx.send(());
        stop.store(true, Ordering::SeqCst);
        server.join().unwrap().unwrap();
        assert_eq!(code, "200", "answered while tailscaled was asked again");
    }
}
