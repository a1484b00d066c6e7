//! Settings → Phone in the window, and `plandeck phone on|off`: turning the page on (served by
//! this user's Plandeck server here, [`crate::daemon_home`]), off, a pairing link with its QR
//! code, the paired devices.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::server::{self, PhoneConfig, ServerState};
use super::{Device, PhoneError};
use crate::config::Roots;

/// What Settings → Phone shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PhoneStatus {
    /// Turned on (the person's choice), whether or not it is served right now.
    pub on: bool,
    /// Served right now.
    pub running: bool,
    /// `ADDR:PORT` as typed; the certificate, key and name as given.
    pub listen: Option<String>,
    pub cert: Option<String>,
    pub key: Option<String>,
    pub name: Option<String>,
    /// The page's address while served.
    pub url: Option<String>,
    /// Who serves it ("plandeck serve --daemon (pid 123)").
    pub by: Option<String>,
    /// Why it cannot be served (a port in use, a certificate gone).
    pub error: Option<String>,
    /// It listens on every interface (said plainly).
    pub all_interfaces: bool,
    /// Served on this machine's Tailscale: only its user's own devices are answered (whois).
    pub tailscale: bool,
    /// Plan hooks wait while a paired phone was seen within this many minutes.
    pub wait_minutes: u32,
    pub devices: Vec<PhoneDevice>,
}

/// A paired phone as Settings lists it (its key stays in the store).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PhoneDevice {
    pub id: String,
    pub name: String,
    pub paired_at: String,
    pub last_seen: Option<String>,
    pub revoked: bool,
}

impl From<Device> for PhoneDevice {
    fn from(d: Device) -> Self {
        Self {
            id: d.id,
            name: crate::visible::shown(&d.name).into_owned(),
            paired_at: d.paired_at,
            last_seen: d.last_seen,
            revoked: d.revoked,
        }
    }
}

/// A pairing link: the link (its secret in the fragment), when it expires, and its QR code as an
/// SVG document made here (black modules on white, nothing but `<svg>`, `<rect>` and `<path>`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PhonePairing {
    pub link: String,
    pub expires: String,
    pub qr_svg: String,
}

/// What Settings → Phone (or `plandeck phone status`) shows now.
pub fn status(roots: &Roots) -> Result<PhoneStatus, PhoneError> {
    let config = server::read_config(roots)?;
    let state = server::running(roots);
    let error = server::last_error(roots)
        .filter(|e| state.is_none() && config.as_ref().is_some_and(|c| c.listen == e.listen));
    let all = config
        .as_ref()
        .and_then(|c| server::parse_listen(&c.listen).ok())
        .is_some_and(|a| server::is_all_interfaces(&a));
    Ok(PhoneStatus {
        on: config.as_ref().is_some_and(|c| c.on),
        running: state.is_some(),
        listen: config.as_ref().map(|c| c.listen.clone()),
        cert: config.as_ref().map(|c| c.cert.display().to_string()),
        key: config.as_ref().map(|c| c.key.display().to_string()),
        name: config.as_ref().and_then(|c| c.name.clone()),
        url: state.as_ref().map(|s| s.url.clone()),
        by: state.as_ref().map(|s| s.by.clone()),
        error: error.map(|e| e.message),
        all_interfaces: all,
        tailscale: super::tailscale::chosen(roots)?.is_some(),
        wait_minutes: config
            .as_ref()
            .map_or(server::DEFAULT_WAIT_MINUTES, |c| c.wait_minutes),
        devices: super::devices(roots)?
            .into_iter()
            .map(PhoneDevice::from)
            .collect(),
    })
}

/// The config `phone on` saves: the address parsed, the files read and matching, the wait
/// bounded. Paths are made absolute.
pub fn config_for(
    listen: &str,
    cert: &std::path::Path,
    key: &std::path::Path,
    name: Option<String>,
    wait_minutes: u32,
) -> Result<PhoneConfig, PhoneError> {
    if wait_minutes > server::MAX_WAIT_MINUTES {
        return Err(PhoneError::BadInput {
            message: format!(
                "the wait for a phone is at most {} minutes (a day)",
                server::MAX_WAIT_MINUTES
            ),
        });
    }
    if let Some(n) = &name {
        if n.is_empty()
            || n.len() > 253
            || !n
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
        {
            return Err(PhoneError::BadInput {
                message: format!(
                    "\"{}\" is not a host name (letters, digits, dots and dashes)",
                    crate::visible::shown(n)
                ),
            });
        }
    }
    let abs = |p: &std::path::Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let config = PhoneConfig {
        on: true,
        listen: listen.trim().to_owned(),
        cert: abs(cert),
        key: abs(key),
        name: name.filter(|n| !n.is_empty()),
        wait_minutes,
    };
    server::check_config(&config)?;
    Ok(config)
}

/// Whether Settings → Phone can offer this machine's Tailscale: what `tailscaled` says of it now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TailscaleOffer {
    /// `tailscaled` answers, its state is Running, and it names this machine's address and
    /// MagicDNS name: the page can be served there.
    pub running: bool,
    /// This machine's Tailscale address (IPv4 first), when running.
    pub ip: Option<String>,
    /// Its MagicDNS name (the name in the link and of the certificate), when running.
    pub name: Option<String>,
    /// Why not, in words (not running, no MagicDNS name, the LocalAPI not answering).
    pub reason: Option<String>,
}

/// The LocalAPI socket the window asks: the one the person chose before (`phone on
/// --tailscale`), else `from_env` ([`super::tailscale::SOCKET_ENV`]), else the default.
pub fn tailscale_socket(roots: &Roots, from_env: Option<String>) -> std::path::PathBuf {
    super::tailscale::read_config(roots)
        .ok()
        .flatten()
        .and_then(|c| c.socket)
        .or(from_env
            .filter(|s| !s.is_empty())
            .map(std::path::PathBuf::from))
        .unwrap_or_else(|| std::path::PathBuf::from(super::tailscale::DEFAULT_SOCKET))
}

/// What Settings → Phone offers of Tailscale: asked of `tailscaled` now (at most 5 s).
pub fn tailscale_offer(socket: &std::path::Path) -> TailscaleOffer {
    match super::tailscale::machine(socket) {
        Ok(m) => TailscaleOffer {
            running: true,
            ip: Some(m.ip.to_string()),
            name: Some(m.name),
            reason: None,
        },
        Err(e) => TailscaleOffer {
            running: false,
            ip: None,
            name: None,
            reason: Some(e.to_string()),
        },
    }
}

/// The address and name the page would have on Tailscale at `port`, asked of `tailscaled` now
/// and written nowhere: what the window's native dialog names before anything is turned on.
pub fn tailscale_preview(
    socket: &std::path::Path,
    port: u16,
) -> Result<(std::net::SocketAddr, String), PhoneError> {
    if port == 0 {
        return Err(PhoneError::BadInput {
            message: "the port is 1 to 65535".to_owned(),
        });
    }
    let m = super::tailscale::machine(socket)?;
    Ok((std::net::SocketAddr::new(m.ip, port), m.name))
}

/// What `phone on --tailscale` (Settings → Phone on Tailscale) saves: this machine's Tailscale
/// address with `port`, its MagicDNS name, and the certificate `tailscaled` gives for it (kept
/// in the phone store); `socket` the LocalAPI's ([`super::tailscale::DEFAULT_SOCKET`] when
/// `None`); `allow_users` other users' login names whose devices may load the page too.
pub fn tailscale_config(
    roots: &Roots,
    socket: Option<std::path::PathBuf>,
    port: u16,
    allow_users: Vec<String>,
    wait_minutes: u32,
) -> Result<(PhoneConfig, super::tailscale::TailscaleConfig), PhoneError> {
    for u in &allow_users {
        if u.is_empty() || u.len() > 256 || u.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(PhoneError::BadInput {
                message: format!(
                    "\"{}\" is not a Tailscale login name",
                    crate::visible::shown(u)
                ),
            });
        }
    }
    if port == 0 {
        return Err(PhoneError::BadInput {
            message: "the port is 1 to 65535".to_owned(),
        });
    }
    let ts = super::tailscale::TailscaleConfig {
        on: true,
        socket,
        allow_users,
    };
    let machine = super::tailscale::machine(&ts.socket())?;
    super::tailscale::fetch_certificate(roots, &ts.socket(), &machine.name)?;
    let (cert, key) = super::tailscale::cert_paths(roots);
    let listen = std::net::SocketAddr::new(machine.ip, port).to_string();
    let config = config_for(&listen, &cert, &key, Some(machine.name), wait_minutes)?;
    Ok((config, ts))
}

/// Saves whether the page is served on Tailscale (before [`turn_on`]): off for an address the
/// person names.
pub fn choose_tailscale(
    roots: &Roots,
    tailscale: Option<&super::tailscale::TailscaleConfig>,
) -> Result<(), PhoneError> {
    let before = super::tailscale::read_config(roots)?;
    match tailscale {
        Some(t) if before.as_ref() != Some(t) => super::tailscale::write_config(roots, t),
        None if before.as_ref().is_some_and(|b| b.on) => {
            super::tailscale::write_config(roots, &super::tailscale::TailscaleConfig::default())
        }
        _ => Ok(()),
    }
}

/// The window turns the page on with an address named (before [`turn_on`]): another address,
/// certificate or name than the page's now is not on Tailscale any more; the same (only the
/// hooks' wait changed) stays on Tailscale, each caller still checked by whois.
pub fn address_named(roots: &Roots, config: &PhoneConfig) -> Result<(), PhoneError> {
    let same = server::read_config(roots)?.is_some_and(|c| {
        c.listen == config.listen
            && c.cert == config.cert
            && c.key == config.key
            && c.name == config.name
    });
    if same {
        Ok(())
    } else {
        choose_tailscale(roots, None)
    }
}

/// Turns the page on with `config`: saved, then served by this user's Plandeck server here
/// (`launch` starts it when none answers; a running one takes the new config without a
/// restart). Returns once it is served, or says why it cannot be. Already served exactly so:
/// nothing is restarted.
pub fn turn_on(
    roots: &Roots,
    config: &PhoneConfig,
    launch: &dyn Fn() -> std::io::Result<()>,
) -> Result<ServerState, PhoneError> {
    let before = server::read_config(roots)?;
    let same = before.as_ref().is_some_and(|b| b.same_server(config));
    if before.as_ref() != Some(config) {
        server::write_config(roots, config)?;
    }
    if let Some(state) = server::running(roots).filter(|_| same) {
        return Ok(state);
    }
    server::clear_error(roots);
    launch().map_err(|e| PhoneError::BadInput {
        message: format!("cannot start the Plandeck server on this machine: {e}"),
    })?;
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut asked = Instant::now();
    loop {
        // A server that was just leaving (idle) when asked: another is started.
        if asked.elapsed() >= Duration::from_secs(1) {
            asked = Instant::now();
            let _ = launch();
        }
        if let Some(s) = server::running(roots).filter(|s| s.listen == config.listen) {
            return Ok(s);
        }
        if let Some(e) = server::last_error(roots).filter(|e| e.listen == config.listen) {
            return Err(PhoneError::BadInput {
                message: format!("the phone page cannot be served: {}", e.message),
            });
        }
        if Instant::now() > deadline {
            return Err(PhoneError::BadInput {
                message: format!(
                    "the Plandeck server on this machine did not serve the phone page within 20 s (see {})",
                    crate::daemon_home::log_path(roots).display()
                ),
            });
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Turns the page off and waits (up to 10 s) for its server to stop: whether one still runs.
pub fn turn_off(roots: &Roots) -> Result<Option<ServerState>, PhoneError> {
    if let Some(mut c) = server::read_config(roots)? {
        if c.on {
            c.on = false;
            server::write_config(roots, &c)?;
        }
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while server::running(roots).is_some() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(server::running(roots))
}

/// Starts this user's Plandeck server here, detached, with this store's folders (the window's
/// own binary runs the command line too): what the window does to turn the page on.
pub fn launch_daemon(roots: &Roots) -> std::io::Result<()> {
    if crate::daemon_home::is_running(roots) {
        return Ok(());
    }
    crate::daemon_home::launch(
        roots,
        &std::env::current_exe()?,
        &crate::daemon_home::LaunchOptions::default(),
    )
}

/// Makes a one-time pairing link (the page must be on) with its QR code.
pub fn pair_link(roots: &Roots) -> Result<PhonePairing, PhoneError> {
    let Some(config) = server::read_config(roots)?.filter(|c| c.on) else {
        return Err(PhoneError::BadInput {
            message: "the phone page is off: turn it on first".to_owned(),
        });
    };
    let pairing = super::pair_start(roots)?;
    let link = format!("{}#pair={}", config.base_url()?, pairing.secret);
    Ok(PhonePairing {
        qr_svg: qr_svg(&link)?,
        link,
        expires: pairing.expires,
    })
}

/// `text` as a QR code (error correction M), an SVG of black squares on white with its quiet
/// zone, scaled by its viewBox.
pub fn qr_svg(text: &str) -> Result<String, PhoneError> {
    use qrcode::render::svg;
    let code = qrcode::QrCode::with_error_correction_level(text.as_bytes(), qrcode::EcLevel::M)
        .map_err(|e| PhoneError::BadInput {
            message: format!("the link does not fit a QR code: {e}"),
        })?;
    let svg = code
        .render::<svg::Color<'_>>()
        .min_dimensions(200, 200)
        .dark_color(svg::Color("#000000"))
        .light_color(svg::Color("#ffffff"))
        .quiet_zone(true)
        .build();
    // The element alone (no XML declaration): it is put in the window's page as it is.
    Ok(svg
        .find("<svg")
        .map_or(svg.clone(), |at| svg[at..].to_owned()))
}

pub(crate) fn ts_declarations() -> Vec<String> {
    vec![
        PhoneStatus::decl(),
        PhoneDevice::decl(),
        PhonePairing::decl(),
        TailscaleOffer::decl(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_qr_code_is_our_own_svg_and_holds_the_link() {
        let link = "https://100.64.0.7:8443/#pair=abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG";
        let svg = qr_svg(link).unwrap();
        assert!(svg.contains("<svg") && svg.contains("<path"), "{svg}");
        for bad in ["<script", "href", "on", "<foreignObject", "<image"] {
            let lower = svg.to_lowercase();
            let found = match bad {
                // Attribute names starting with "on" (event handlers) only.
                "on" => lower.contains(" on"),
                _ => lower.contains(&bad.to_lowercase()),
            };
            assert!(!found, "{bad} in {svg}");
        }
        assert!(
            !svg.contains("pair="),
            "the secret is drawn, never written out"
        );
    }

    #[test]
    fn the_window_keeps_tailscale_only_for_the_same_address() {
        let dir = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(dir.path());
        let (cert, key) = super::super::tailscale::cert_paths(&roots);
        let config = PhoneConfig {
            on: true,
            listen: "100.64.0.7:8443".to_owned(),
            cert,
            key,
            name: Some("m.tail1234.ts.net".to_owned()),
            wait_minutes: 15,
        };
        server::write_config(&roots, &config).unwrap();
        let ts = super::super::tailscale::TailscaleConfig {
            on: true,
            ..Default::default()
        };
        choose_tailscale(&roots, Some(&ts)).unwrap();
        // Only the wait changed: still on Tailscale.
        address_named(
            &roots,
            &PhoneConfig {
                wait_minutes: 5,
                ..config.clone()
            },
        )
        .unwrap();
        assert!(status(&roots).unwrap().tailscale);
        // Another address: not on Tailscale any more.
        let other = PhoneConfig {
            listen: "192.168.1.5:8443".to_owned(),
            ..config
        };
        address_named(&roots, &other).unwrap();
        assert!(!status(&roots).unwrap().tailscale);
    }

    /// Settings → Phone offers Tailscale only when `tailscaled` (a LocalAPI stand-in in its
    /// shapes) says it runs, naming the address and name; otherwise it says why, plainly.
    #[test]
    fn tailscale_is_offered_with_its_address_and_name_only_when_it_runs() {
        use super::super::tailscale::tests::answering;
        let dir = tempfile::tempdir().unwrap();
        let running = answering(
            dir.path(),
            200,
            r#"{"BackendState":"Running","Self":{"DNSName":"box.tail1234.ts.net.","TailscaleIPs":["fd7a:115c:a1e0::7","100.64.0.7"],"UserID":7},"User":{}}"#,
            2,
        );
        assert_eq!(
            tailscale_offer(&running),
            TailscaleOffer {
                running: true,
                ip: Some("100.64.0.7".to_owned()),
                name: Some("box.tail1234.ts.net".to_owned()),
                reason: None,
            }
        );
        let (addr, name) = tailscale_preview(&running, 8443).unwrap();
        assert_eq!(
            (addr.to_string(), name.as_str()),
            ("100.64.0.7:8443".to_owned(), "box.tail1234.ts.net")
        );
        let stopped = answering(
            dir.path(),
            200,
            r#"{"BackendState":"Stopped","Self":null,"User":{}}"#,
            1,
        );
        let offer = tailscale_offer(&stopped);
        assert!(!offer.running && offer.ip.is_none());
        assert!(offer
            .reason
            .unwrap()
            .contains("not running on this machine (its state: Stopped)"));
        let none = tailscale_offer(&dir.path().join("no-tailscaled.sock"));
        assert!(!none.running);
        assert!(none.reason.unwrap().contains("is tailscaled running?"));
        // The socket chosen before wins over the environment's, which wins over the default.
        let roots = Roots::under_home(dir.path());
        assert_eq!(
            tailscale_socket(&roots, None),
            std::path::PathBuf::from(super::super::tailscale::DEFAULT_SOCKET)
        );
        assert_eq!(
            tailscale_socket(&roots, Some("/e.sock".into())),
            std::path::PathBuf::from("/e.sock")
        );
        super::super::tailscale::write_config(
            &roots,
            &super::super::tailscale::TailscaleConfig {
                on: false,
                socket: Some("/chosen.sock".into()),
                allow_users: vec![],
            },
        )
        .unwrap();
        assert_eq!(
            tailscale_socket(&roots, Some("/e.sock".into())),
            std::path::PathBuf::from("/chosen.sock")
        );
        assert!(tailscale_preview(&running, 0).is_err());
    }

    #[test]
    fn status_names_the_devices_and_no_key() {
        let dir = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(dir.path());
        let s = status(&roots).unwrap();
        assert!(!s.on && !s.running && s.devices.is_empty());
        assert_eq!(s.wait_minutes, server::DEFAULT_WAIT_MINUTES);
        assert!(pair_link(&roots).is_err(), "no link while the page is off");
    }
}
