//! The one way the phone module reaches out: an HTTPS POST to a push service or a ntfy topic. The
//! address comes from a phone (a push subscription's endpoint) or the person (a ntfy URL), so it
//! is treated as hostile:
//! - only `https://`, at most [`MAX_URL`] characters, visible ASCII only, no user info, no
//!   fragment;
//! - the name resolved here, and refused when any address it gives is loopback, private, link-local,
//!   carrier-grade NAT (a tailnet), multicast or unspecified (so a phone cannot make this server
//!   call something on its own network) — unless [`Outbound::allow_private`], which only tests set;
//! - connected to the address checked (no second look-up), the certificate checked against the
//!   public roots (or the test's own CA);
//! - no redirect followed (a 3xx is a failure), every step within [`DEADLINE`] in all, the answer's
//!   head bounded.

use std::io::{Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::PhoneError;

/// A URL from outside: at most this many characters.
pub const MAX_URL: usize = 1024;
/// A whole call (look-up, connect, TLS, request, answer) ends by then.
pub const DEADLINE: Duration = Duration::from_secs(10);
/// The answer's head: at most this many bytes are read.
const MAX_ANSWER: usize = 16 * 1024;

/// Why an outbound call did not happen or failed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum OutboundError {
    #[error("{0}")]
    BadUrl(String),
    #[error("{host} resolves to {addr}, a loopback, private or link-local address: refused")]
    PrivateAddress { host: String, addr: IpAddr },
    #[error("{0}")]
    Failed(String),
    #[error("no answer within {} s", DEADLINE.as_secs())]
    TimedOut,
}

impl From<OutboundError> for PhoneError {
    fn from(e: OutboundError) -> Self {
        PhoneError::BadInput {
            message: e.to_string(),
        }
    }
}

/// An `https://` URL, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpsUrl {
    pub host: String,
    pub port: u16,
    /// The path and query, starting with `/`.
    pub path: String,
}

impl HttpsUrl {
    /// `https://host[:port]`: a VAPID token's audience.
    pub fn origin(&self) -> String {
        format!("https://{}", self.authority())
    }

    /// `host[:port]` as a Host header says it (an IPv6 address in brackets, 443 left out).
    pub fn authority(&self) -> String {
        let host = if self.host.contains(':') {
            format!("[{}]", self.host)
        } else {
            self.host.clone()
        };
        if self.port == 443 {
            host
        } else {
            format!("{host}:{}", self.port)
        }
    }
}

/// Checks `url` is an `https://` URL this module may call (see the module's list).
pub fn parse_https(url: &str) -> Result<HttpsUrl, OutboundError> {
    let bad = |m: &str| OutboundError::BadUrl(m.to_owned());
    if url.len() > MAX_URL {
        return Err(bad(&format!(
            "the address is over {MAX_URL} characters: refused"
        )));
    }
    if !url.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(bad(
            "the address holds a space, a control or a non-ASCII character: refused",
        ));
    }
    let Some(rest) = url.strip_prefix("https://") else {
        return Err(bad("only an https:// address is called"));
    };
    if url.contains('#') {
        return Err(bad("the address holds a fragment (#): refused"));
    }
    let (authority, path) = match rest.find(['/', '?']) {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let path = if path.starts_with('?') {
        format!("/{path}")
    } else {
        path.to_owned()
    };
    if authority.contains('@') {
        return Err(bad("the address holds a user name or password: refused"));
    }
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let (ip, after) = v6
            .split_once(']')
            .ok_or_else(|| bad("an IPv6 address without its closing ]"))?;
        let port = match after {
            "" => None,
            p => Some(
                p.strip_prefix(':')
                    .ok_or_else(|| bad("not host:port after the IPv6 address"))?,
            ),
        };
        (ip.to_owned(), port)
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h.to_owned(), Some(p)),
            None => (authority.to_owned(), None),
        }
    };
    let port = match port {
        None => 443,
        Some(p) => p
            .parse::<u16>()
            .ok()
            .filter(|p| *p != 0)
            .ok_or_else(|| bad("the port is not a number from 1 to 65535"))?,
    };
    let host = host.to_ascii_lowercase();
    let name_ok = !host.is_empty()
        && host.len() <= 253
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.' || b == b':');
    if !name_ok || (host.contains(':') && host.parse::<IpAddr>().is_err()) {
        return Err(bad("the host is not a name or an IP address"));
    }
    Ok(HttpsUrl { host, port, path })
}

/// Whether `ip` is an address on the public internet (not loopback, private, link-local,
/// carrier-grade NAT, multicast, unspecified, documentation or benchmarking).
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            !(v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_multicast()
                || v4.is_broadcast()
                || v4.is_documentation()
                || o[0] == 0
                || (o[0] == 100 && (o[1] & 0xc0) == 64)
                || (o[0] == 198 && (o[1] & 0xfe) == 18)
                || o[0] >= 240)
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_public(IpAddr::V4(v4));
            }
            let s = v6.segments();
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (s[0] & 0xfe00) == 0xfc00
                || (s[0] & 0xffc0) == 0xfe80
                || (s[0] == 0x2001 && s[1] == 0x0db8)
                || (s[0] == 0x64 && s[1] == 0xff9b))
        }
    }
}

/// How this module reaches out: the roots it trusts, and whether loopback and private addresses
/// may be called (tests only).
#[derive(Debug, Clone)]
pub struct Outbound {
    pub roots: Arc<rustls::RootCertStore>,
    pub allow_private: bool,
}

impl Default for Outbound {
    fn default() -> Self {
        Self::public()
    }
}

impl Outbound {
    /// The public roots; private addresses refused.
    pub fn public() -> Self {
        let roots = rustls::RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        };
        Self {
            roots: Arc::new(roots),
            allow_private: false,
        }
    }

    /// Only the CA in `pem` trusted, and loopback allowed: a test's own push service.
    pub fn for_test(pem: &[u8]) -> Result<Self, PhoneError> {
        use rustls::pki_types::pem::PemObject;
        use rustls::pki_types::CertificateDer;
        let mut roots = rustls::RootCertStore::empty();
        for cert in CertificateDer::pem_slice_iter(pem) {
            let cert = cert.map_err(|e| PhoneError::BadInput {
                message: format!("the test CA is not PEM: {e}"),
            })?;
            roots.add(cert).map_err(|e| PhoneError::BadInput {
                message: format!("the test CA: {e}"),
            })?;
        }
        Ok(Self {
            roots: Arc::new(roots),
            allow_private: true,
        })
    }

    /// What the phone server uses: the public roots, unless this is a debug build run with
    /// `PLANDECK_PUSH_TEST_CA` naming a CA file (the integration tests' loopback push service).
    /// A release build never reads that variable.
    pub fn from_env() -> Self {
        if cfg!(debug_assertions) {
            if let Some(path) = std::env::var_os("PLANDECK_PUSH_TEST_CA") {
                match std::fs::read(&path)
                    .map_err(|e| e.to_string())
                    .and_then(|pem| Self::for_test(&pem).map_err(|e| e.to_string()))
                {
                    Ok(o) => return o,
                    Err(e) => tracing::warn!("PLANDECK_PUSH_TEST_CA: {e}"),
                }
            }
        }
        Self::public()
    }

    /// Resolves `url`'s host (within the deadline) and checks every address it gives.
    fn resolve(&self, url: &HttpsUrl, deadline: Instant) -> Result<SocketAddr, OutboundError> {
        let addrs: Vec<SocketAddr> = if let Ok(ip) = url.host.parse::<IpAddr>() {
            vec![SocketAddr::new(ip, url.port)]
        } else {
            // The system's resolver has no timeout of its own: it runs on a thread of its own.
            let (tx, rx) = std::sync::mpsc::channel();
            let target = (url.host.clone(), url.port);
            std::thread::spawn(move || {
                let _ = tx.send(target.to_socket_addrs().map(|a| a.collect::<Vec<_>>()));
            });
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(Ok(a)) => a,
                Ok(Err(e)) => {
                    return Err(OutboundError::Failed(format!(
                        "cannot resolve {}: {e}",
                        url.host
                    )))
                }
                Err(_) => return Err(OutboundError::TimedOut),
            }
        };
        let Some(first) = addrs.first().copied() else {
            return Err(OutboundError::Failed(format!(
                "{} has no address",
                url.host
            )));
        };
        if !self.allow_private {
            if let Some(a) = addrs.iter().find(|a| !is_public(a.ip())) {
                return Err(OutboundError::PrivateAddress {
                    host: url.host.clone(),
                    addr: a.ip(),
                });
            }
        }
        Ok(first)
    }

    /// POSTs `body` to `url` with `headers` (names and values this module made, never from the
    /// phone); returns the answer's status. A redirect is not followed.
    pub fn post(
        &self,
        url: &HttpsUrl,
        headers: &[(&str, String)],
        body: &[u8],
    ) -> Result<u16, OutboundError> {
        let deadline = Instant::now() + DEADLINE;
        let left = || {
            let l = deadline.saturating_duration_since(Instant::now());
            if l.is_zero() {
                Err(OutboundError::TimedOut)
            } else {
                Ok(l)
            }
        };
        let addr = self.resolve(url, deadline)?;
        let io = |e: std::io::Error| {
            if matches!(
                e.kind(),
                std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
            ) {
                OutboundError::TimedOut
            } else {
                OutboundError::Failed(e.to_string())
            }
        };
        let tcp = TcpStream::connect_timeout(&addr, left()?).map_err(io)?;
        tcp.set_nodelay(true).map_err(io)?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| OutboundError::Failed(e.to_string()))?
            .with_root_certificates(self.roots.clone())
            .with_no_client_auth();
        let name = rustls::pki_types::ServerName::try_from(url.host.clone())
            .map_err(|e| OutboundError::BadUrl(format!("{}: {e}", url.host)))?;
        let conn = rustls::ClientConnection::new(Arc::new(config), name)
            .map_err(|e| OutboundError::Failed(e.to_string()))?;
        let mut tls = rustls::StreamOwned::new(conn, tcp);
        let host = url.authority();
        let mut head = format!(
            "POST {} HTTP/1.1\r\nHost: {host}\r\nContent-Length: {}\r\nConnection: close\r\nUser-Agent: Plandeck\r\n",
            url.path,
            body.len()
        );
        for (k, v) in headers {
            debug_assert!(!v.contains(['\r', '\n']) && !k.contains(['\r', '\n', ':']));
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str("\r\n");
        let mut request = head.into_bytes();
        request.extend_from_slice(body);
        tls.sock.set_write_timeout(Some(left()?)).map_err(io)?;
        tls.write_all(&request).map_err(io)?;
        tls.flush().map_err(io)?;
        let mut buf = Vec::with_capacity(1024);
        let mut chunk = [0u8; 2048];
        loop {
            tls.sock.set_read_timeout(Some(left()?)).map_err(io)?;
            let mut headers = [httparse::EMPTY_HEADER; 32];
            let mut resp = httparse::Response::new(&mut headers);
            if let Ok(httparse::Status::Complete(_)) = resp.parse(&buf) {
                let code = resp.code.unwrap_or(0);
                return Ok(code);
            }
            if buf.len() > MAX_ANSWER {
                return Err(OutboundError::Failed(
                    "the answer's head is too long".into(),
                ));
            }
            let n = tls.read(&mut chunk).map_err(io)?;
            if n == 0 {
                return Err(OutboundError::Failed(
                    "the connection closed before an answer".into(),
                ));
            }
            buf.extend_from_slice(&chunk[..n]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_https_addresses_are_taken() {
        let u = parse_https("https://fcm.googleapis.com/fcm/send/abc:def?x=1").unwrap();
        assert_eq!(
            (u.host.as_str(), u.port, u.path.as_str()),
            ("fcm.googleapis.com", 443, "/fcm/send/abc:def?x=1")
        );
        assert_eq!(u.origin(), "https://fcm.googleapis.com");
        let u = parse_https("https://[::1]:8443").unwrap();
        assert_eq!(
            (u.host.as_str(), u.port, u.path.as_str()),
            ("::1", 8443, "/")
        );
        assert_eq!(u.origin(), "https://[::1]:8443");
        for refused in [
            "http://push.example/x",
            "HTTPS://push.example/x",
            "ftp://push.example/x",
            "https://user:pw@push.example/x",
            "https://push.example/x#frag",
            "https://push.example/a b",
            "https://push.example/a\r\nX-Evil: 1",
            "https://push.example:0/x",
            "https://push.example:99999/x",
            "https:///x",
            "https://pu_sh.example/x",
            "https://[::1/x",
            "https://push.example/é",
        ] {
            assert!(parse_https(refused).is_err(), "{refused}");
        }
        let long = format!("https://push.example/{}", "a".repeat(MAX_URL));
        assert!(matches!(parse_https(&long), Err(OutboundError::BadUrl(m)) if m.contains("1024")));
    }

    #[test]
    fn loopback_private_and_tailnet_addresses_are_refused_unless_in_a_test() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.7",
            "0.0.0.0",
            "224.0.0.1",
            "::1",
            "::",
            "fd7a:115c:a1e0::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
        ] {
            assert!(!is_public(ip.parse().unwrap()), "{ip}");
        }
        for ip in ["8.8.8.8", "142.250.1.1", "2a00:1450:4001::1"] {
            assert!(is_public(ip.parse().unwrap()), "{ip}");
        }
        let o = Outbound::public();
        let deadline = Instant::now() + DEADLINE;
        for url in [
            "https://127.0.0.1:9/x",
            "https://[::1]:9/x",
            "https://localhost:9/x",
            "https://169.254.169.254/latest",
        ] {
            let e = o
                .resolve(&parse_https(url).unwrap(), deadline)
                .expect_err(url);
            assert!(
                matches!(e, OutboundError::PrivateAddress { .. }),
                "{url}: {e}"
            );
            // Nor does a POST go out: it is refused before any connection.
            let e = o
                .post(&parse_https(url).unwrap(), &[], b"x")
                .expect_err(url);
            assert!(
                matches!(e, OutboundError::PrivateAddress { .. }),
                "{url}: {e}"
            );
        }
    }
}
