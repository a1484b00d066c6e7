//! The phone page on the machine's Tailscale (`plandeck phone on --tailscale`, Settings → Phone):
//! the address, the certificate for the machine's MagicDNS name, and who each caller is, all from
//! the local `tailscaled` through its LocalAPI (HTTP on a unix socket, by default
//! [`DEFAULT_SOCKET`]; [`SOCKET_ENV`] or the saved setting names another).
//!
//! - `GET /localapi/v0/status?peers=false`: `Self.TailscaleIPs` (the address listened on, IPv4
//!   first), `Self.DNSName` (the page's name), `Self.UserID` and `Self.Tags` (whose machine it is).
//! - `GET /localapi/v0/cert/<name>?type=pair`: the key and certificate (PEM) for that name, kept
//!   in `<data>/phone/` (0600) and fetched again each time the page is served.
//! - `GET /localapi/v0/whois?addr=<ip:port>`: who each caller is. Served on Tailscale, every
//!   request is answered only when whois names a node of the machine's own user (or a user the
//!   person allowed by login name) that is not a tagged node; a caller whois does not name, a
//!   LocalAPI that does not answer or answers what is not its JSON: refused, with the reason.
//!
//! The choice is kept in `<data>/phone/tailscale.json`.

use std::io::{Read, Write};
use std::net::{IpAddr, SocketAddr};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::PhoneError;
use crate::config::Roots;

/// Where `tailscaled` listens unless told otherwise.
pub const DEFAULT_SOCKET: &str = "/var/run/tailscale/tailscaled.sock";
/// An environment variable naming another LocalAPI socket (read by `phone on --tailscale`).
pub const SOCKET_ENV: &str = "PLANDECK_TAILSCALE_SOCKET";
/// The host name the LocalAPI answers to.
const LOCALAPI_HOST: &str = "local-tailscaled.sock";
/// A LocalAPI answer is at most this long.
const MAX_ANSWER: usize = 4 * 1024 * 1024;
/// Each LocalAPI call ends within this.
const TIMEOUT: Duration = Duration::from_secs(5);

/// The person's choice: the page on Tailscale, through which socket, and whom else to let in.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TailscaleConfig {
    pub on: bool,
    /// The LocalAPI socket (the default when `None`).
    #[serde(default)]
    pub socket: Option<PathBuf>,
    /// Login names of other users whose nodes may load the page (besides the machine's own).
    #[serde(default)]
    pub allow_users: Vec<String>,
}

impl TailscaleConfig {
    pub fn socket(&self) -> PathBuf {
        self.socket
            .clone()
            .unwrap_or_else(|| PathBuf::from(DEFAULT_SOCKET))
    }
}

/// The saved choice (`None`: never chosen; off is `on: false`).
pub fn read_config(roots: &Roots) -> Result<Option<TailscaleConfig>, PhoneError> {
    super::read(roots, "tailscale.json")
}

pub fn write_config(roots: &Roots, config: &TailscaleConfig) -> Result<(), PhoneError> {
    let _lock = super::lock(roots)?;
    super::write(roots, "tailscale.json", &Some(config))
}

/// Whether the page is to be served on Tailscale (an unreadable choice counts as on: every
/// caller is then refused rather than let in unchecked).
pub fn chosen(roots: &Roots) -> Result<Option<TailscaleConfig>, PhoneError> {
    Ok(read_config(roots)?.filter(|c| c.on))
}

fn unreachable(socket: &Path, e: impl std::fmt::Display) -> PhoneError {
    PhoneError::BadInput {
        message: format!(
            "Tailscale cannot be asked (is tailscaled running? its LocalAPI at {}): {e}",
            socket.display()
        ),
    }
}

/// What is left of `deadline`, or the error saying it passed.
fn left(socket: &Path, deadline: Instant) -> Result<Duration, PhoneError> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(unreachable(socket, "no whole answer within 5 s"));
    }
    Ok(left)
}

/// Connects to the LocalAPI by `deadline`: a tailscaled that accepts nobody (its queue of
/// connections full) makes `connect` wait forever on a blocking socket, so it is made
/// non-blocking and tried again until the deadline.
fn connect(socket: &Path, deadline: Instant) -> Result<UnixStream, PhoneError> {
    use rustix::net::{AddressFamily, SocketAddrUnix, SocketFlags, SocketType};
    let fd = rustix::net::socket_with(
        AddressFamily::UNIX,
        SocketType::STREAM,
        SocketFlags::NONBLOCK | SocketFlags::CLOEXEC,
        None,
    )
    .map_err(|e| unreachable(socket, e))?;
    let addr = SocketAddrUnix::new(socket).map_err(|e| unreachable(socket, e))?;
    loop {
        match rustix::net::connect(&fd, &addr) {
            Ok(()) => break,
            Err(rustix::io::Errno::AGAIN | rustix::io::Errno::INTR) => {
                left(socket, deadline)
                    .map_err(|_| unreachable(socket, "it accepts no connection within 5 s"))?;
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => return Err(unreachable(socket, e)),
        }
    }
    let s = UnixStream::from(fd);
    s.set_nonblocking(false)
        .map_err(|e| unreachable(socket, e))?;
    Ok(s)
}

/// One GET to the LocalAPI: the status code and the body. The whole call (connecting, asking,
/// reading) ends within [`TIMEOUT`], however slowly the LocalAPI trickles its answer.
fn get(socket: &Path, path: &str) -> Result<(u16, Vec<u8>), PhoneError> {
    let deadline = Instant::now() + TIMEOUT;
    let mut s = connect(socket, deadline)?;
    s.set_write_timeout(Some(left(socket, deadline)?))
        .map_err(|e| unreachable(socket, e))?;
    // HTTP/1.0: the answer ends when the connection does (no chunks to undo).
    let request =
        format!("GET {path} HTTP/1.0\r\nHost: {LOCALAPI_HOST}\r\nUser-Agent: Plandeck\r\n\r\n");
    s.write_all(request.as_bytes())
        .map_err(|e| unreachable(socket, e))?;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 16 * 1024];
    loop {
        s.set_read_timeout(Some(left(socket, deadline)?))
            .map_err(|e| unreachable(socket, e))?;
        let n = match s.read(&mut chunk) {
            Ok(n) => n,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return Err(unreachable(socket, "no whole answer within 5 s"))
            }
            Err(e) => return Err(unreachable(socket, e)),
        };
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
        if buf.len() > MAX_ANSWER {
            return Err(unreachable(socket, "its answer is too long"));
        }
    }
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut resp = httparse::Response::new(&mut headers);
    let head = match resp.parse(&buf) {
        Ok(httparse::Status::Complete(n)) => n,
        _ => return Err(unreachable(socket, "its answer is not HTTP")),
    };
    let code = resp.code.unwrap_or(0);
    let chunked = resp.headers.iter().any(|h| {
        h.name.eq_ignore_ascii_case("transfer-encoding")
            && String::from_utf8_lossy(h.value)
                .to_ascii_lowercase()
                .contains("chunked")
    });
    let body = buf[head..].to_vec();
    let body = if chunked {
        dechunk(&body).ok_or_else(|| unreachable(socket, "its chunked answer is broken"))?
    } else {
        body
    };
    Ok((code, body))
}

/// Undoes HTTP/1.1 chunking (a server that chunks an HTTP/1.0 answer anyway).
fn dechunk(mut body: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let line_end = body.windows(2).position(|w| w == b"\r\n")?;
        let size_text = std::str::from_utf8(&body[..line_end]).ok()?;
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        body = &body[line_end + 2..];
        if size == 0 {
            return Some(out);
        }
        if body.len() < size.checked_add(2)? {
            return None;
        }
        out.extend_from_slice(&body[..size]);
        body = &body[size + 2..];
    }
}

fn get_json<T: for<'de> Deserialize<'de>>(socket: &Path, path: &str) -> Result<T, PhoneError> {
    let (code, body) = get(socket, path)?;
    if code != 200 {
        return Err(unreachable(
            socket,
            format!(
                "{path} answered {code}: {}",
                crate::visible::shown(String::from_utf8_lossy(&body[..body.len().min(200)]).trim())
            ),
        ));
    }
    serde_json::from_slice(&body)
        .map_err(|e| unreachable(socket, format!("{path} answered what is not its JSON: {e}")))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Status {
    #[serde(default)]
    backend_state: String,
    #[serde(rename = "Self")]
    me: Option<PeerStatus>,
    #[serde(default)]
    user: std::collections::HashMap<String, UserProfile>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct PeerStatus {
    #[serde(rename = "DNSName", default)]
    dns_name: String,
    #[serde(rename = "TailscaleIPs", default)]
    tailscale_ips: Vec<IpAddr>,
    #[serde(rename = "UserID", default)]
    user_id: i64,
    #[serde(default)]
    tags: Option<Vec<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct UserProfile {
    #[serde(rename = "ID", default)]
    id: i64,
    #[serde(default)]
    login_name: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct WhoIs {
    node: Option<WhoIsNode>,
    user_profile: Option<UserProfile>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct WhoIsNode {
    #[serde(default)]
    name: String,
    #[serde(default)]
    user: Option<i64>,
    #[serde(default)]
    tags: Option<Vec<String>>,
    /// The node's own addresses (`100.64.0.2/32`): the caller's is one of them.
    #[serde(default)]
    addresses: Option<Vec<String>>,
}

/// At most this many characters of a name Tailscale gives are said in a refusal.
const MAX_SAID: usize = 120;

/// A name from the LocalAPI as a refusal says it: its invisible and control characters marked,
/// cut to [`MAX_SAID`] characters.
fn said(text: &str) -> String {
    let mut cut: String = text.chars().take(MAX_SAID).collect();
    if cut.len() < text.len() {
        cut.push('…');
    }
    crate::visible::shown(&cut).into_owned()
}

/// This machine on its tailnet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Machine {
    /// The address listened on (its Tailscale IPv4 when it has one).
    pub ip: IpAddr,
    /// Its MagicDNS name, without the final dot.
    pub name: String,
    pub user_id: i64,
    pub login: String,
    /// A tagged machine belongs to no person: only users allowed by name get in.
    pub tagged: bool,
}

/// Asks `tailscaled` for this machine's address, name and user.
pub fn machine(socket: &Path) -> Result<Machine, PhoneError> {
    let status: Status = get_json(socket, "/localapi/v0/status?peers=false")?;
    if status.backend_state != "Running" {
        return Err(PhoneError::BadInput {
            message: format!(
                "Tailscale is not running on this machine (its state: {})",
                crate::visible::shown(&status.backend_state)
            ),
        });
    }
    let Some(me) = status.me else {
        return Err(unreachable(socket, "its status names no machine"));
    };
    // No user (0 is nobody's id): whose devices to let in is not known, so nobody is.
    if me.user_id <= 0 {
        return Err(unreachable(
            socket,
            "its status names no user of this machine",
        ));
    }
    let ip = me
        .tailscale_ips
        .iter()
        .find(|ip| ip.is_ipv4())
        .or(me.tailscale_ips.first())
        .copied()
        .ok_or_else(|| unreachable(socket, "this machine has no Tailscale address"))?;
    let name = me.dns_name.trim_end_matches('.').to_ascii_lowercase();
    if name.is_empty()
        || name.len() > 253
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
    {
        return Err(PhoneError::BadInput {
            message: "this machine has no MagicDNS name (turn on MagicDNS and HTTPS certificates in the tailnet's settings)".to_owned(),
        });
    }
    let login = status
        .user
        .get(&me.user_id.to_string())
        .map(|u| u.login_name.clone())
        .unwrap_or_default();
    Ok(Machine {
        ip,
        name,
        user_id: me.user_id,
        login,
        tagged: me.tags.is_some_and(|t| !t.is_empty()),
    })
}

/// The certificate (its chain) and key for `name`, as PEM.
pub fn certificate(socket: &Path, name: &str) -> Result<(Vec<u8>, Vec<u8>), PhoneError> {
    let (code, body) = get(socket, &format!("/localapi/v0/cert/{name}?type=pair"))?;
    if code != 200 {
        return Err(PhoneError::BadInput {
            message: format!(
                "Tailscale gave no certificate for {name} ({code}: {}); HTTPS certificates must be on in the tailnet's settings",
                crate::visible::shown(String::from_utf8_lossy(&body[..body.len().min(200)]).trim())
            ),
        });
    }
    let text = String::from_utf8_lossy(&body);
    let (mut cert, mut key) = (String::new(), String::new());
    let mut rest = text.as_ref();
    while let Some(start) = rest.find("-----BEGIN ") {
        let block = &rest[start..];
        let Some(end_at) = block.find("-----END ") else {
            break;
        };
        let end = block[end_at..]
            .find('\n')
            .map_or(block.len(), |n| end_at + n + 1);
        let pem = &block[..end];
        if pem.starts_with("-----BEGIN CERTIFICATE-----") {
            cert.push_str(pem.trim_end());
            cert.push('\n');
        } else if pem.contains("PRIVATE KEY-----") && key.is_empty() {
            key.push_str(pem.trim_end());
            key.push('\n');
        }
        rest = &block[end..];
    }
    if cert.is_empty() || key.is_empty() {
        return Err(PhoneError::BadInput {
            message: format!("Tailscale's answer for {name} holds no certificate and key"),
        });
    }
    Ok((cert.into_bytes(), key.into_bytes()))
}

/// Where the page's Tailscale certificate and key are kept.
pub fn cert_paths(roots: &Roots) -> (PathBuf, PathBuf) {
    let dir = super::dir(roots);
    (
        dir.join("tailscale-cert.pem"),
        dir.join("tailscale-key.pem"),
    )
}

/// Fetches the certificate for `name` and keeps it (0600) where [`cert_paths`] says.
pub fn fetch_certificate(roots: &Roots, socket: &Path, name: &str) -> Result<(), PhoneError> {
    let (cert, key) = certificate(socket, name)?;
    let (cert_path, key_path) = cert_paths(roots);
    crate::durable::write_private(&key_path, &key)?;
    crate::durable::write_private(&cert_path, &cert)?;
    Ok(())
}

/// Who may load the page served on Tailscale: checked for each request by whois.
#[derive(Debug, Clone)]
pub struct Guard {
    socket: PathBuf,
    machine: Machine,
    allow_users: Vec<String>,
}

impl Guard {
    /// Asks `tailscaled` whose machine this is (the page is not served when it cannot say).
    pub fn new(config: &TailscaleConfig) -> Result<Self, PhoneError> {
        let socket = config.socket();
        Ok(Self {
            machine: machine(&socket)?,
            socket,
            allow_users: config.allow_users.clone(),
        })
    }

    /// Whether tailscaled still names this machine as when the guard was made (the same
    /// address, name and user): a machine logged in as another user, or a tailscaled that no
    /// longer answers, ends the page (served again only once it is asked anew).
    pub fn still_same(&self) -> bool {
        machine(&self.socket).is_ok_and(|m| m == self.machine)
    }

    /// Whether `peer` may be answered: whois names a node, not tagged, of the machine's own
    /// user (or an allowed one). Any doubt (no answer, an answer not its JSON, no node) refuses.
    /// Returns who it is ("pixel.tail1234.ts.net of amy@example.com").
    pub fn check(&self, peer: SocketAddr) -> Result<String, PhoneError> {
        let refused = |why: String| PhoneError::NotYourTailnet {
            message: format!("refused on Tailscale: {why}"),
        };
        let addr = match peer {
            SocketAddr::V4(a) => a.to_string(),
            SocketAddr::V6(a) => format!("%5B{}%5D:{}", a.ip(), a.port()),
        };
        let who: WhoIs = get_json(&self.socket, &format!("/localapi/v0/whois?addr={addr}"))
            .map_err(|e| refused(format!("Tailscale does not say who {peer} is ({e})")))?;
        let (Some(node), Some(user)) = (who.node, who.user_profile) else {
            return Err(refused(format!(
                "Tailscale names no node and user for {peer}"
            )));
        };
        let name = said(node.name.trim_end_matches('.'));
        let login = said(&user.login_name);
        if let Some(tags) = node.tags.filter(|t| !t.is_empty()) {
            return Err(refused(format!(
                "{peer} is {name}, a tagged node ({}), no person's device",
                said(&tags.join(", "))
            )));
        }
        // The node and its user each named, by the same id (0 is nobody's): an answer missing
        // either is no answer.
        match node.user {
            Some(u) if u == user.id && u > 0 => {}
            Some(u) if u != user.id => {
                return Err(refused(format!(
                    "Tailscale's answer for {peer} names two users"
                )))
            }
            _ => {
                return Err(refused(format!(
                    "Tailscale's answer for {peer} names no user of {name}"
                )))
            }
        }
        // The node named is the caller's: one of its addresses is the caller's own.
        let theirs = node.addresses.unwrap_or_default().iter().any(|a| {
            a.split('/')
                .next()
                .and_then(|ip| ip.parse::<IpAddr>().ok())
                .is_some_and(|ip| ip.to_canonical() == peer.ip().to_canonical())
        });
        if !theirs {
            return Err(refused(format!(
                "Tailscale's answer for {peer} names {name}, whose addresses are not the caller's"
            )));
        }
        let own = !self.machine.tagged && user.id == self.machine.user_id;
        let allowed = !user.login_name.is_empty()
            && self
                .allow_users
                .iter()
                .any(|a| a.eq_ignore_ascii_case(&user.login_name));
        if !own && !allowed {
            // The caller is told who it is, never who this machine's user is.
            return Err(refused(format!(
                "{peer} is {name} of {login}, not a device of this machine's Tailscale user{}",
                if self.allow_users.is_empty() {
                    ""
                } else {
                    " nor of a user allowed"
                }
            )));
        }
        Ok(format!("{name} of {login}"))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn chunked_answers_are_undone_and_broken_ones_refused() {
        assert_eq!(
            dechunk(b"4\r\nabcd\r\n3;x=1\r\nefg\r\n0\r\n\r\n").as_deref(),
            Some(&b"abcdefg"[..])
        );
        assert_eq!(dechunk(b"ff\r\nabc"), None);
        assert_eq!(dechunk(b"zz\r\n"), None);
        // A size that overflows when its line end is added: refused, no panic.
        assert_eq!(dechunk(b"ffffffffffffffff\r\nabc"), None);
        assert_eq!(dechunk(b""), None);
    }

    /// A LocalAPI stand-in answering every request with `code` and `body`, for `n` requests.
    pub(crate) fn answering(dir: &Path, code: u16, body: &str, n: usize) -> PathBuf {
        let socket = dir.join(format!(
            "ts-{}.sock",
            crate::durable::sha256_hex(body.as_bytes())
        ));
        let listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        let body = body.to_owned();
        std::thread::spawn(move || {
            for mut s in listener.incoming().flatten().take(n) {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                    match s.read(&mut chunk) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                }
                let _ = write!(
                    s,
                    "HTTP/1.1 {code} X\r\nContent-Length: {}\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        socket
    }

    fn guard(socket: PathBuf, tagged: bool, allow: &[&str]) -> Guard {
        Guard {
            socket,
            machine: Machine {
                ip: "100.64.0.1".parse().unwrap(),
                name: "m.example.ts.net".to_owned(),
                user_id: 1,
                login: "amy@example.com".to_owned(),
                tagged,
            },
            allow_users: allow.iter().map(|a| (*a).to_owned()).collect(),
        }
    }

    #[test]
    fn whois_lets_in_only_the_users_own_untagged_nodes_or_allowed_users() {
        let dir = tempfile::tempdir().unwrap();
        let who = |user: i64, node_user: i64, login: &str, tags: &str| {
            format!(
                r#"{{"Node":{{"ID":2,"Name":"p.example.ts.net.","User":{node_user},"Tags":{tags},"Addresses":["100.64.0.2/32","fd7a:115c:a1e0::2/128"]}},"UserProfile":{{"ID":{user},"LoginName":"{login}","DisplayName":"x"}},"CapMap":{{}}}}"#
            )
        };
        let peer: SocketAddr = "100.64.0.2:40000".parse().unwrap();
        let own = answering(dir.path(), 200, &who(1, 1, "amy@example.com", "null"), 3);
        let ok = guard(own.clone(), false, &[]).check(peer);
        assert!(ok.is_ok(), "{ok:?}");
        // A tagged machine has no user of its own: its "own" user's nodes are not let in.
        assert!(guard(own, true, &[]).check(peer).is_err());
        let bob = answering(dir.path(), 200, &who(2, 2, "bob@example.com", "null"), 2);
        let e = guard(bob.clone(), false, &[]).check(peer).unwrap_err();
        assert_eq!(e.kind(), "notYourTailnet");
        assert!(e.to_string().contains("bob@example.com"), "{e}");
        let ok = guard(bob, false, &["BOB@example.com"]).check(peer);
        assert!(ok.is_ok(), "{ok:?}");
        let tagged = answering(
            dir.path(),
            200,
            &who(1, 1, "amy@example.com", r#"["tag:ci"]"#),
            1,
        );
        assert!(guard(tagged, false, &[])
            .check(peer)
            .unwrap_err()
            .to_string()
            .contains("tagged"));
        let two = answering(dir.path(), 200, &who(1, 2, "amy@example.com", "null"), 1);
        assert!(guard(two, false, &[])
            .check(peer)
            .unwrap_err()
            .to_string()
            .contains("two users"));
        let none = answering(dir.path(), 200, r#"{"Node":null,"UserProfile":null}"#, 1);
        assert!(guard(none, false, &[]).check(peer).is_err());
        let missing = answering(dir.path(), 404, "no match for IP:port", 1);
        assert!(guard(missing, false, &[]).check(peer).is_err());
        let garbage = answering(dir.path(), 200, "[1,2", 1);
        assert!(guard(garbage, false, &[]).check(peer).is_err());
    }

    #[test]
    fn no_tailscaled_means_no_caller_is_let_in() {
        let dir = tempfile::tempdir().unwrap();
        let guard = Guard {
            socket: dir.path().join("none.sock"),
            machine: Machine {
                ip: "100.64.0.1".parse().unwrap(),
                name: "m.example.ts.net".to_owned(),
                user_id: 1,
                login: "amy@example.com".to_owned(),
                tagged: false,
            },
            allow_users: vec![],
        };
        let e = guard.check("100.64.0.2:5555".parse().unwrap()).unwrap_err();
        assert_eq!(e.kind(), "notYourTailnet");
        assert!(e.to_string().contains("does not say who"), "{e}");
        assert!(machine(&dir.path().join("none.sock")).is_err());
    }

    // ---- Attacks (issue 37's hostile review): a hostile peer on the tailnet, and a LocalAPI
    // that answers what tailscaled never would (malformed, huge, slow, or never).

    /// Runs `f` on a thread and gives its result, failing (not hanging) when it never returns.
    fn within<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(f());
        });
        rx.recv_timeout(Duration::from_secs(120))
            .expect("the LocalAPI call never returned")
    }

    /// A LocalAPI whose queue of connections is full (a hung tailscaled accepting nobody): a
    /// blocking `connect` would wait forever, and with it every request of the page and the
    /// server's own loop (`phone off` never taking effect). Refused within the call's deadline.
    #[test]
    fn a_localapi_that_accepts_nobody_is_refused_not_waited_for() {
        use rustix::net::{AddressFamily, SocketAddrUnix, SocketFlags, SocketType};
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("hung.sock");
        let listener = rustix::net::socket(AddressFamily::UNIX, SocketType::STREAM, None).unwrap();
        let addr = SocketAddrUnix::new(&socket).unwrap();
        rustix::net::bind(&listener, &addr).unwrap();
        rustix::net::listen(&listener, 0).unwrap();
        // Fill its queue: connections it never accepts, until one more would wait.
        let mut fillers = Vec::new();
        loop {
            let fd = rustix::net::socket_with(
                AddressFamily::UNIX,
                SocketType::STREAM,
                SocketFlags::NONBLOCK,
                None,
            )
            .unwrap();
            match rustix::net::connect(&fd, &addr) {
                Ok(()) => fillers.push(fd),
                Err(rustix::io::Errno::AGAIN) => break,
                Err(e) => panic!("{e}"),
            }
            assert!(fillers.len() < 10_000, "the queue never filled");
        }
        let s = socket.clone();
        let e = within(move || machine(&s)).unwrap_err();
        assert!(e.to_string().contains("accepts no connection"), "{e}");
        let g = guard(socket, false, &[]);
        let e = within(move || g.check("100.64.0.2:40000".parse().unwrap())).unwrap_err();
        assert_eq!(e.kind(), "notYourTailnet", "{e}");
        drop((listener, fillers));
    }

    /// A LocalAPI that trickles its answer (a byte every half second, forever), or sends more
    /// than 4 MiB: refused with the reason, the call ended.
    #[test]
    fn a_slow_or_huge_localapi_answer_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let slow = dir.path().join("slow.sock");
        let listener = std::os::unix::net::UnixListener::bind(&slow).unwrap();
        std::thread::spawn(move || {
            for mut s in listener.incoming().flatten() {
                std::thread::spawn(move || {
                    let _ =
                        s.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{");
                    while s.write_all(b" ").is_ok() {
                        std::thread::sleep(Duration::from_millis(500));
                    }
                });
            }
        });
        let e = within(move || machine(&slow)).unwrap_err();
        assert!(e.to_string().contains("no whole answer within 5 s"), "{e}");
        let huge = answering(
            dir.path(),
            200,
            &format!("{{\"BackendState\":\"{}\"}}", "x".repeat(MAX_ANSWER)),
            1,
        );
        let e = within(move || machine(&huge)).unwrap_err();
        assert!(e.to_string().contains("too long"), "{e}");
    }

    /// tailscaled's status in its shape, with `Self.UserID` as given (`null`: left out).
    fn status(user: &str) -> String {
        format!(
            r#"{{"BackendState":"Running","Self":{{"DNSName":"m.example.ts.net.","TailscaleIPs":["100.64.0.1"]{user}}},"User":{{}}}}"#
        )
    }

    /// A status naming no user (or user 0) and a whois naming none, or 0, for the caller: with
    /// both, a check of `user == own user` would read 0 == 0 and let anyone in. Refused: a
    /// machine with no user is not served, a caller with no user not answered.
    #[test]
    fn no_user_named_lets_nobody_in() {
        let dir = tempfile::tempdir().unwrap();
        for user in ["", r#","UserID":0"#, r#","UserID":-5"#] {
            let s = answering(dir.path(), 200, &status(user), 1);
            let e = machine(&s).unwrap_err();
            assert!(e.to_string().contains("no user"), "{user}: {e}");
        }
        let ok = answering(dir.path(), 200, &status(r#","UserID":7"#), 1);
        assert_eq!(machine(&ok).unwrap().user_id, 7);
        let peer: SocketAddr = "100.64.0.2:40000".parse().unwrap();
        let mut g = guard(PathBuf::new(), false, &[]);
        g.machine.user_id = 0;
        for (what, who) in [
            (
                "no ids at all",
                r#"{"Node":{"Name":"p.","Addresses":["100.64.0.2/32"]},"UserProfile":{"LoginName":"x"}}"#,
            ),
            (
                "ids of 0",
                r#"{"Node":{"Name":"p.","User":0,"Addresses":["100.64.0.2/32"]},"UserProfile":{"ID":0,"LoginName":"x"}}"#,
            ),
            (
                "the node's user left out",
                r#"{"Node":{"Name":"p.","Addresses":["100.64.0.2/32"]},"UserProfile":{"ID":1,"LoginName":"amy@example.com"}}"#,
            ),
        ] {
            let s = answering(dir.path(), 200, who, 2);
            g.socket = s.clone();
            let e = g.check(peer).unwrap_err();
            assert_eq!(e.kind(), "notYourTailnet", "{what}: {e}");
            let mut own = guard(s, false, &[]);
            own.machine.user_id = 1;
            assert!(own.check(peer).is_err(), "{what}: let in");
        }
    }

    /// A whois answer naming the user's own device, but another node than the caller (its
    /// addresses not the caller's, or none): refused, the caller is not that device.
    #[test]
    fn a_whois_naming_another_node_than_the_caller_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let peer: SocketAddr = "100.64.0.9:40000".parse().unwrap();
        for addresses in [
            r#","Addresses":["100.64.0.2/32"]"#,
            r#","Addresses":[]"#,
            "",
            r#","Addresses":["nonsense"]"#,
        ] {
            let who = format!(
                r#"{{"Node":{{"Name":"pixel.example.ts.net.","User":1{addresses}}},"UserProfile":{{"ID":1,"LoginName":"amy@example.com"}}}}"#
            );
            let s = answering(dir.path(), 200, &who, 1);
            let e = guard(s, false, &[]).check(peer).unwrap_err();
            assert!(
                e.to_string().contains("not the caller's"),
                "{addresses}: {e}"
            );
        }
        // Its own address, IPv4 or IPv6: let in.
        let who = r#"{"Node":{"Name":"p.","User":1,"Addresses":["100.64.0.9/32","fd7a:115c:a1e0::9/128"]},"UserProfile":{"ID":1,"LoginName":"amy@example.com"}}"#;
        let s = answering(dir.path(), 200, who, 2);
        assert!(guard(s.clone(), false, &[]).check(peer).is_ok());
        let v6: SocketAddr = "[fd7a:115c:a1e0::9]:40000".parse().unwrap();
        assert!(guard(s, false, &[]).check(v6).is_ok());
    }

    /// Names from the LocalAPI in a refusal (shown to the caller, logged): control and invisible
    /// characters marked, and cut, however long.
    #[test]
    fn hostile_names_from_the_localapi_are_marked_and_cut() {
        let dir = tempfile::tempdir().unwrap();
        let login = format!("bob\u{1b}[2J\u{202e}{}", "b".repeat(100_000));
        let who = serde_json::json!({
            "Node": {"Name": "x\u{1b}]0;owned\u{7}.", "User": 2, "Addresses": ["100.64.0.2/32"]},
            "UserProfile": {"ID": 2, "LoginName": login},
        })
        .to_string();
        let s = answering(dir.path(), 200, &who, 1);
        let e = guard(s, false, &[])
            .check("100.64.0.2:40000".parse().unwrap())
            .unwrap_err()
            .to_string();
        assert!(e.len() < 1_000, "{} bytes", e.len());
        assert!(
            !e.contains('\u{1b}') && !e.contains('\u{202e}') && !e.contains('\u{7}'),
            "{e}"
        );
        assert!(e.contains("U+001B"), "{e}");
    }
}
