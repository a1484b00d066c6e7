//! `plandeck phone on|off|status|pair|devices|revoke|serve`: the phone page (issue 37), served
//! over HTTPS on one address you choose, to phones you paired.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::{Args, Subcommand};
use plandeck_core::ipc::{ErrorKind, IpcError};
use plandeck_core::phone::{self, server};

use crate::{print_json, Context, Out};

#[derive(Debug, Args)]
pub struct PhoneArgs {
    #[command(subcommand)]
    pub action: PhoneAction,
}

#[derive(Debug, Subcommand)]
pub enum PhoneAction {
    /// Serve the phone page on ADDR:PORT with your certificate and key (off until you do; never
    /// every interface unless you type 0.0.0.0 or [::]). This user's Plandeck server here
    /// (`plandeck serve --daemon`, started when none runs) serves it, also when the window is
    /// closed, until `plandeck phone off`.
    On {
        /// The one address and port to listen on: a tailnet or LAN address of this machine.
        #[arg(long, value_name = "ADDR:PORT", required_unless_present = "tailscale")]
        listen: Option<String>,
        /// The certificate (PEM, its chain after it) the phone trusts for this address.
        #[arg(long, value_name = "FILE", required_unless_present = "tailscale")]
        cert: Option<PathBuf>,
        /// The certificate's private key (PEM).
        #[arg(long, value_name = "FILE", required_unless_present = "tailscale")]
        key: Option<PathBuf>,
        /// The name the pairing link uses (the certificate's name); the address when not given.
        #[arg(long, value_name = "NAME", conflicts_with = "tailscale")]
        name: Option<String>,
        /// On this machine's Tailscale (tailscaled must run): its address, its MagicDNS name and
        /// the certificate Tailscale gives for it; only devices of this machine's Tailscale user
        /// (or of users given with --allow-user) are answered, each caller checked by whois.
        #[arg(long, conflicts_with_all = ["listen", "cert", "key"])]
        tailscale: bool,
        /// The port on the Tailscale address (8443 unless given).
        #[arg(long, value_name = "PORT", requires = "tailscale")]
        port: Option<u16>,
        /// Also answer devices of this Tailscale user (login name), besides this machine's own.
        #[arg(long, value_name = "LOGIN", requires = "tailscale")]
        allow_user: Vec<String>,
        /// Plan hooks wait for a decision while a paired phone was seen within this many minutes
        /// (as they wait while the window is open); 0: never for the phone. 15 unless given.
        #[arg(long, value_name = "MINUTES")]
        wait_minutes: Option<u32>,
        #[arg(long)]
        json: bool,
    },
    /// Stop serving the phone page.
    Off {
        #[arg(long)]
        json: bool,
    },
    /// Whether the page is on, where, and the devices paired.
    Status {
        #[arg(long)]
        json: bool,
    },
    /// A one-time pairing link (valid 10 minutes, used once): open it on the phone.
    Pair {
        /// Print {link, expires}.
        #[arg(long)]
        json: bool,
    },
    /// The paired devices, with when each was last seen.
    Devices {
        #[arg(long)]
        json: bool,
    },
    /// Revoke a paired device by name: its calls are refused from now on.
    Revoke {
        name: String,
        #[arg(long)]
        json: bool,
    },
    /// Also tell your own ntfy topic when a plan waits (a view link only, no plan text; at most
    /// 12 messages a minute with the phone's pushes), or stop: `--ntfy URL` or `--off`. With
    /// neither, says what is set.
    Notify {
        /// Your ntfy topic's https:// URL (e.g. https://ntfy.sh/your-own-long-topic).
        #[arg(long, value_name = "URL", conflicts_with = "off")]
        ntfy: Option<String>,
        /// Stop telling the ntfy topic.
        #[arg(long)]
        off: bool,
        #[arg(long)]
        json: bool,
    },
    /// Serve the page in this process (what `phone on` starts in the background).
    #[command(hide = true)]
    Serve,
}

impl PhoneArgs {
    pub fn json(&self) -> bool {
        match &self.action {
            PhoneAction::On { json, .. }
            | PhoneAction::Off { json }
            | PhoneAction::Status { json }
            | PhoneAction::Pair { json }
            | PhoneAction::Devices { json }
            | PhoneAction::Revoke { json, .. }
            | PhoneAction::Notify { json, .. } => *json,
            PhoneAction::Serve => false,
        }
    }
}

fn io(e: std::io::Error) -> IpcError {
    IpcError::new(ErrorKind::Io, format!("cannot write output: {e}"))
}

/// Said whenever the page listens on every interface.
const ALL_INTERFACES: &str = "The phone page listens on ALL interfaces: anyone who can reach this machine on that port can load the page (a decision still needs a paired device's signature).";

pub fn run(ctx: &Context, args: PhoneArgs, out: &mut Out<'_>) -> Result<i32, IpcError> {
    let roots = ctx.roots()?;
    match args.action {
        PhoneAction::On {
            listen,
            cert,
            key,
            name,
            tailscale,
            port,
            allow_user,
            wait_minutes,
            json,
        } => {
            let before = server::read_config(&roots)?;
            let wait_minutes = wait_minutes
                .or(before.as_ref().map(|c| c.wait_minutes))
                .unwrap_or(server::DEFAULT_WAIT_MINUTES);
            let (config, ts) = if tailscale {
                let socket = ctx.env.get(phone::tailscale::SOCKET_ENV).map(PathBuf::from);
                let (c, t) = phone::settings::tailscale_config(
                    &roots,
                    socket,
                    port.unwrap_or(8443),
                    allow_user,
                    wait_minutes,
                )?;
                (c, Some(t))
            } else {
                let (Some(listen), Some(cert), Some(key)) = (listen, cert, key) else {
                    return Err(IpcError::new(
                        ErrorKind::BadInput,
                        "give --listen ADDR:PORT --cert FILE --key FILE, or --tailscale",
                    ));
                };
                (
                    phone::settings::config_for(&listen, &cert, &key, name, wait_minutes)?,
                    None,
                )
            };
            let all = server::is_all_interfaces(&server::parse_listen(&config.listen)?);
            phone::settings::choose_tailscale(&roots, ts.as_ref())?;
            let state = start(ctx, &roots, &config)?;
            if json {
                print_json(
                    out,
                    &serde_json::json!({"on": true, "listen": config.listen, "url": state.url,
                        "pid": state.pid, "allInterfaces": all, "by": state.by,
                        "waitMinutes": config.wait_minutes, "tailscale": ts.is_some()}),
                )?;
            } else {
                writeln!(
                    out,
                    "The phone page is on at {}, served by {}.",
                    state.url, state.by
                )
                .map_err(io)?;
                if ts.is_some() {
                    writeln!(out, "On Tailscale: only devices of this machine's Tailscale user{} are answered.",
                        if config_allows(&roots) { " and the users you allowed" } else { "" }).map_err(io)?;
                }
                if all {
                    writeln!(out, "{ALL_INTERFACES}").map_err(io)?;
                }
                writeln!(out, "Pair a phone: plandeck phone pair").map_err(io)?;
            }
            Ok(0)
        }
        PhoneAction::Off { json } => {
            let still = phone::settings::turn_off(&roots)?;
            if json {
                print_json(
                    out,
                    &serde_json::json!({"on": false, "running": still.is_some()}),
                )?;
            } else if let Some(s) = still {
                writeln!(
                    out,
                    "Turned off, but the server (pid {}) has not ended yet.",
                    s.pid
                )
                .map_err(io)?;
            } else {
                writeln!(out, "The phone page is off.").map_err(io)?;
            }
            Ok(0)
        }
        PhoneAction::Status { json } => {
            let config = server::read_config(&roots)?;
            let state = server::running(&roots);
            let devices = phone::devices(&roots)?;
            let active = devices.iter().filter(|d| !d.revoked).count();
            let push = phone::push::subscriptions(&roots)?.len();
            let ntfy = phone::push::ntfy(&roots)?;
            let on = config.as_ref().is_some_and(|c| c.on);
            let error = server::last_error(&roots).filter(|e| {
                state.is_none() && config.as_ref().is_some_and(|c| c.listen == e.listen)
            });
            let all = config
                .as_ref()
                .and_then(|c| server::parse_listen(&c.listen).ok())
                .is_some_and(|a| server::is_all_interfaces(&a));
            let tailscale = phone::tailscale::chosen(&roots)?;
            if json {
                print_json(
                    out,
                    &serde_json::json!({"on": on, "running": state.is_some(),
                        "listen": config.as_ref().map(|c| c.listen.clone()),
                        "url": state.as_ref().map(|s| s.url.clone()),
                        "pid": state.as_ref().map(|s| s.pid),
                        "by": state.as_ref().map(|s| s.by.clone()),
                        "error": error.as_ref().map(|e| e.message.clone()),
                        "waitMinutes": config.as_ref().map(|c| c.wait_minutes),
                        "allInterfaces": all, "devices": active,
                        "pushDevices": push, "ntfy": ntfy,
                        "tailscale": tailscale.is_some(),
                        "tailscaleAllowUsers": tailscale.as_ref().map(|t| t.allow_users.clone())}),
                )?;
            } else {
                match (&config, &state) {
                    (Some(c), Some(s)) if c.on => {
                        writeln!(out, "On at {}, served by {}.", s.url, s.by).map_err(io)?;
                        if tailscale.is_some() {
                            writeln!(out, "On Tailscale: each caller checked by whois.")
                                .map_err(io)?;
                        }
                        if all {
                            writeln!(out, "{ALL_INTERFACES}").map_err(io)?;
                        }
                    }
                    (Some(c), None) if c.on => match &error {
                        Some(e) => writeln!(
                            out,
                            "On ({}), but it cannot be served: {}",
                            c.listen, e.message
                        )
                        .map_err(io)?,
                        None => writeln!(
                            out,
                            "On ({}), but no server runs: `plandeck phone on` again.",
                            c.listen
                        )
                        .map_err(io)?,
                    },
                    _ => writeln!(out, "Off.").map_err(io)?,
                }
                writeln!(
                    out,
                    "{active} paired device(s), {push} told by push when a plan waits{}.",
                    if ntfy.is_some() {
                        "; your ntfy topic too"
                    } else {
                        ""
                    }
                )
                .map_err(io)?;
            }
            Ok(0)
        }
        PhoneAction::Pair { json } => {
            let Some(config) = server::read_config(&roots)?.filter(|c| c.on) else {
                return Err(IpcError::new(
                    ErrorKind::Refused,
                    "the phone page is off: turn it on first (plandeck phone on --listen ADDR:PORT --cert FILE --key FILE)",
                ));
            };
            let pairing = phone::pair_start(&roots)?;
            let link = format!("{}#pair={}", config.base_url()?, pairing.secret);
            if json {
                print_json(
                    out,
                    &serde_json::json!({"link": link, "expires": pairing.expires}),
                )?;
            } else {
                writeln!(
                    out,
                    "Open this on the phone (once, before {}):\n{link}",
                    pairing.expires
                )
                .map_err(io)?;
            }
            Ok(0)
        }
        PhoneAction::Devices { json } => {
            let devices = phone::devices(&roots)?;
            if json {
                print_json(out, &devices)?;
            } else if devices.is_empty() {
                writeln!(out, "No paired devices.").map_err(io)?;
            } else {
                for d in devices {
                    writeln!(
                        out,
                        "{}  {}  paired {}  last seen {}{}",
                        d.name,
                        d.id,
                        d.paired_at,
                        d.last_seen.as_deref().unwrap_or("never"),
                        if d.revoked { "  REVOKED" } else { "" }
                    )
                    .map_err(io)?;
                }
            }
            Ok(0)
        }
        PhoneAction::Revoke { name, json } => {
            let d = phone::revoke(&roots, &name)?;
            if json {
                print_json(out, &d)?;
            } else {
                writeln!(
                    out,
                    "Revoked \"{}\" ({}): its calls are refused from now on.",
                    d.name, d.id
                )
                .map_err(io)?;
            }
            Ok(0)
        }
        PhoneAction::Notify { ntfy, off, json } => {
            if off {
                phone::push::set_ntfy(&roots, None)?;
            } else if let Some(url) = &ntfy {
                phone::push::set_ntfy(&roots, Some(url))?;
            }
            let now = phone::push::ntfy(&roots)?;
            if json {
                print_json(
                    out,
                    &serde_json::json!({"ntfy": now, "perMinute": phone::push::MAX_PER_MINUTE}),
                )?;
            } else {
                match &now {
                    Some(url) => writeln!(
                        out,
                        "Your ntfy topic {url} is told when a plan waits (a link to the page only, no plan text)."
                    ),
                    None => writeln!(out, "No ntfy topic is told."),
                }
                .map_err(io)?;
            }
            Ok(0)
        }
        PhoneAction::Serve => {
            // Its own session: it outlives the terminal and the window that started it.
            phone::detach();
            server::serve(&roots)?;
            Ok(0)
        }
    }
}

fn config_allows(roots: &plandeck_core::config::Roots) -> bool {
    phone::tailscale::chosen(roots)
        .ok()
        .flatten()
        .is_some_and(|t| !t.allow_users.is_empty())
}

/// Has the page served by this user's long-lived server here (`plandeck serve --daemon`, started
/// when none answers; a running one takes the new config without a restart), and waits until it
/// listens or says why not. Where there is no such server, `plandeck phone serve` serves it.
fn start(
    ctx: &Context,
    roots: &plandeck_core::config::Roots,
    config: &server::PhoneConfig,
) -> Result<server::ServerState, IpcError> {
    if !plandeck_core::serve::daemon::AVAILABLE {
        server::write_config(roots, config)?;
        return start_alone(ctx, roots, config);
    }
    Ok(phone::settings::turn_on(roots, config, &|| {
        super::serve::ensure_daemon(roots)
    })?)
}

/// Starts `plandeck phone serve` in the background and waits until it listens (or says why not).
fn start_alone(
    ctx: &Context,
    roots: &plandeck_core::config::Roots,
    config: &server::PhoneConfig,
) -> Result<server::ServerState, IpcError> {
    let dir = roots.data.join("phone");
    let log_path = dir.join("server.log");
    let log = plandeck_core::durable::open_private(&log_path)?;
    let log2 = log
        .try_clone()
        .map_err(|e| IpcError::new(ErrorKind::Io, e.to_string()))?;
    let exe = std::env::current_exe()
        .map_err(|e| IpcError::new(ErrorKind::Io, format!("cannot find plandeck: {e}")))?;
    let mut cmd = std::process::Command::new(exe);
    // The same store as this command's: its roots, given as flags.
    let mut dirs = Vec::new();
    for (flag, dir) in [
        ("--claude-root", &roots.claude),
        ("--gemini-root", &roots.gemini),
        ("--codex-root", &roots.codex),
        ("--data-dir", &roots.data),
        ("--config-dir", &roots.config),
    ] {
        dirs.push(std::ffi::OsString::from(flag));
        dirs.push(dir.clone().into_os_string());
    }
    cmd.args(["phone", "serve"])
        .args(dirs)
        .stdin(std::process::Stdio::null())
        .stdout(log)
        .stderr(log2);
    if let Some(home) = ctx.env.get("HOME") {
        cmd.env("HOME", home);
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| IpcError::new(ErrorKind::Io, format!("cannot start the server: {e}")))?;
    let pid = child.id();
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        if let Some(s) =
            server::running(roots).filter(|s| s.pid == pid && s.listen == config.listen)
        {
            // It runs on after this command, in a session of its own.
            drop(child);
            return Ok(s);
        }
        if let Ok(Some(status)) = child.try_wait() {
            let tail = std::fs::read_to_string(&log_path).unwrap_or_default();
            let last = tail
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("");
            return Err(IpcError::new(
                ErrorKind::Refused,
                format!("the phone server ended ({status}): {last}"),
            ));
        }
        if Instant::now() > deadline {
            return Err(IpcError::new(
                ErrorKind::Io,
                format!(
                    "the phone server did not start within 15 s (see {})",
                    log_path.display()
                ),
            ));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}
