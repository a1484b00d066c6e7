//! Another machine's Plandeck, over the person's own OpenSSH: the client of
//! `plandeck serve --stdio` ([`crate::serve`]; `docs/architecture.md` §3, "Headless").
//!
//! [`Remote::connect`] runs `ssh -T -a -x -o ClearAllForwardings=yes -o PermitLocalCommand=no -o
//! BatchMode=yes -o ConnectTimeout=10 … -- DEST plandeck serve --stdio` with the person's own
//! `~/.ssh/config`, keys and `known_hosts`: host keys are checked as their config says (never
//! weakened here), no password is asked or stored (batch mode), and nothing of this machine is
//! forwarded there whatever the config says (no agent unless the person turned it on for that
//! machine, `forwardAgent`; no X11, no ports, no local command). It reads the server's hello,
//! checks the protocol, then sends requests and matches the answers by id ([`Remote::call`], each
//! with a deadline); events after [`Remote::subscribe`] come through [`Remote::next_event`], at
//! most [`EVENTS_QUEUED`] waiting (more are dropped and said as a gap, [`Remote::lost_events`]).
//! An empty line goes to the server every [`HEARTBEAT`] while nothing else does: a server that
//! hears nothing for a while takes the client as gone ([`crate::serve::daemon`]).
//!
//! What fails is told apart ([`RemoteError`]): the machine unreachable, its host key changed or
//! unknown, permission denied, no `plandeck` there, another protocol, the connection dropped
//! mid-call. Each says what to do.
//!
//! The remote's bytes are untrusted: lines are bounded ([`crate::wire::MAX_LINE`]), a frame that
//! is none of the server's is logged and ignored, an answer to no request is ignored, and nothing
//! in a frame is taken as a local path, command or address: frames are data for the caller.
//!
//! For tests only: `PLANDECK_SSH` is the ssh command (words split on whitespace, e.g.
//! `ssh -F /tmp/t/config`), `PLANDECK_REMOTE_COMMAND` what is run on the remote in place of
//! `plandeck serve --stdio`.

use std::collections::HashMap;
use std::io::{BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::config::{check_ssh_dest, Env, Host};
use crate::elsewhere::OnMachine;
use crate::ipc::{ErrorKind, IpcError};
use crate::sync::lock;
use crate::wire::{self, calls, Client, Hello, ServerFrame, Subscribed};

/// What is run on the remote.
pub const REMOTE_COMMAND: &str = "plandeck serve --stdio";
/// What ssh asks the remote's shell to run: [`REMOTE_COMMAND`], or when `plandeck` is not on the
/// PATH of a non-interactive ssh command (`~/.local/bin` often is only for login shells), the one
/// `plandeck hosts install` puts in `~/.local/bin`. Said the same in sh, bash, zsh and fish.
pub const REMOTE_LAUNCH: &str = "command -v plandeck >/dev/null 2>&1 && exec plandeck serve \
                                 --stdio || exec ~/.local/bin/plandeck serve --stdio";
/// Where `plandeck hosts install` puts the binary on the remote (its user's home).
pub const INSTALLED_AT: &str = "~/.local/bin/plandeck";
/// How much of ssh's (and the server's) stderr is kept to say why a connection failed.
const STDERR_KEPT: usize = 64 << 10;
/// How long a connection waits for the server's hello (ssh's own connect timeout is shorter;
/// this bounds a login or a remote command that hangs).
const HELLO_PATIENCE: Duration = Duration::from_secs(120);
/// How long closing waits for ssh to end by itself before it is stopped.
const CLOSE_PATIENCE: Duration = Duration::from_secs(5);
/// How long a call waits for its answer by default ([`Remote::set_patience`]).
pub const CALL_PATIENCE: Duration = Duration::from_secs(30);
/// How many events wait to be read at most; more are dropped, and the loss is said
/// ([`Remote::lost_events`]): the reader reads everything again.
pub const EVENTS_QUEUED: usize = 4096;
/// How many bytes of events' frames wait to be read at most (a frame may be 16 MiB, and 4,096 of
/// them would be 64 GiB, more once parsed): an event beyond it is dropped as one beyond
/// [`EVENTS_QUEUED`] is.
pub const EVENT_BYTES_QUEUED: usize = 32 << 20;
/// How many requests wait to be written at most (a remote that reads nothing fills its pipe).
const REQUESTS_QUEUED: usize = 256;
/// How often the client says it is there (an empty line) while it sends nothing else.
pub const HEARTBEAT: Duration = Duration::from_secs(15);
/// ssh's own limits: reaching the machine (TCP and ssh's greeting), then how long a connection
/// that stopped answering is kept (`ServerAliveInterval` × `ServerAliveCountMax`).
const CONNECT_TIMEOUT_S: u32 = 10;
const ALIVE_INTERVAL_S: u32 = 5;
const ALIVE_COUNT: u32 = 2;

/// Why a machine could not be used. Every message names the machine and says what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RemoteError {
    #[error("{host} is unreachable: {detail}")]
    Unreachable { host: String, detail: String },
    #[error(
        "refused: the host key of {host} CHANGED since it was last seen (someone may be in \
         between, or the machine was reinstalled). Nothing was sent. Check the new key with the \
         machine's owner, then update known_hosts (`ssh-keygen -R`); Plandeck never skips this \
         check. ssh said: {detail}"
    )]
    HostKeyChanged { host: String, detail: String },
    #[error(
        "refused: the host key of {host} is not known yet, and Plandeck never accepts one \
         unseen. Connect once with `ssh` yourself to check and keep it, then try again. ssh \
         said: {detail}"
    )]
    HostKeyUnknown { host: String, detail: String },
    #[error(
        "{host} refused the login (permission denied): Plandeck uses your ssh keys and agent, \
         never a password; check that `ssh {dest}` works without one. ssh said: {detail}"
    )]
    PermissionDenied {
        host: String,
        dest: String,
        detail: String,
    },
    #[error(
        "Plandeck is not installed on {host} (`plandeck` was not found there, nor \
         ~/.local/bin/plandeck): run `plandeck hosts install {host}` to copy this one there, or \
         install the plandeck package on that machine"
    )]
    NotInstalled { host: String },
    #[error(
        "{host} speaks Plandeck protocol {theirs} (plandeck {version}), this one {ours}: {update}"
    )]
    Protocol {
        host: String,
        theirs: u32,
        ours: u32,
        version: String,
        update: String,
    },
    #[error("the connection to {host} dropped{during}: {detail}")]
    Dropped {
        host: String,
        during: String,
        detail: String,
    },
    #[error("{host} did not start Plandeck: {detail}")]
    Failed { host: String, detail: String },
    /// No answer within the call's deadline: the request may or may not have been carried out
    /// there (its answer, if it comes, is ignored).
    #[error(
        "{host} did not answer {method} within {seconds} s: not known whether it went (look on \
         {host} before doing it again)"
    )]
    TimedOut {
        host: String,
        method: String,
        seconds: u64,
    },
    /// The remote answered with an error (its own deck's).
    #[error("{host}: {}", .error.message)]
    Answered { host: String, error: IpcError },
    #[error("{0}")]
    BadHost(String),
}

impl From<RemoteError> for IpcError {
    fn from(e: RemoteError) -> Self {
        let kind = match &e {
            RemoteError::Answered { error, .. } => error.kind,
            RemoteError::Unreachable { .. }
            | RemoteError::Dropped { .. }
            | RemoteError::Failed { .. } => ErrorKind::Io,
            RemoteError::TimedOut { .. } => ErrorKind::Unreachable,
            RemoteError::HostKeyChanged { .. }
            | RemoteError::HostKeyUnknown { .. }
            | RemoteError::PermissionDenied { .. } => ErrorKind::Refused,
            RemoteError::NotInstalled { .. } | RemoteError::Protocol { .. } => {
                ErrorKind::Unsupported
            }
            RemoteError::BadHost(_) => ErrorKind::BadInput,
        };
        IpcError::new(kind, e.to_string())
    }
}

/// What to check for ssh's own words on a connection that never opened (issue 34: a raw
/// "Connection refused" told the person nothing to do).
fn ssh_advice(stderr: &str) -> Option<&'static str> {
    let has = |s: &str| stderr.contains(s);
    if has("Connection refused") {
        Some("is sshd running on that port? An ssh://user@host:port destination names the port")
    } else if has("Could not resolve hostname") {
        Some("check the name: it is neither a host name that resolves nor a Host in ~/.ssh/config")
    } else if has("Connection timed out")
        || has("No route to host")
        || has("Network is unreachable")
    {
        Some("the machine does not answer: is it on, on this network, and the port open?")
    } else {
        None
    }
}

/// Reads why ssh (or the remote shell) ended before the server said hello: `status` is ssh's
/// exit (255: ssh's own failure; else the remote command's), `stderr` what it said. Only ssh's
/// own failure (255) is read for ssh's verdicts (a host key, a refused login): the remote's shell
/// and its dotfiles write to the same stderr, and what they print is theirs, never ssh's.
pub fn classify(host: &Host, status: Option<ExitStatus>, stderr: &str) -> RemoteError {
    let name = host.name.clone();
    let detail = last_words(stderr);
    let has = |s: &str| stderr.contains(s);
    let code = status.and_then(|s| s.code());
    let ssh_said = code == Some(255);
    if ssh_said && (has("REMOTE HOST IDENTIFICATION HAS CHANGED") || has("POSSIBLE DNS SPOOFING")) {
        RemoteError::HostKeyChanged { host: name, detail }
    } else if ssh_said && (has("Host key verification failed") || has("No matching host key")) {
        RemoteError::HostKeyUnknown { host: name, detail }
    } else if ssh_said && (has("Permission denied") || has("Too many authentication failures")) {
        RemoteError::PermissionDenied {
            host: name,
            dest: host.ssh.clone(),
            detail,
        }
    } else if code == Some(127)
        || (!ssh_said
            && (has("plandeck: command not found")
                || has("plandeck: not found")
                || has("Unknown command: plandeck")))
    {
        RemoteError::NotInstalled { host: name }
    } else if !ssh_said
        && (has("unrecognized subcommand 'serve'") || has("unexpected argument '--stdio'"))
    {
        // A plandeck from before `serve`.
        RemoteError::Protocol {
            host: name.clone(),
            theirs: 0,
            ours: wire::PROTOCOL,
            version: "older, without `serve`".to_owned(),
            update: format!("the plandeck on {name} is older: update it there"),
        }
    } else if ssh_said || code.is_none() {
        let detail = if detail.is_empty() {
            "ssh ended without saying why".to_owned()
        } else if let Some(advice) = ssh_advice(stderr).filter(|_| ssh_said) {
            format!("{detail} ({advice})")
        } else {
            detail
        };
        RemoteError::Unreachable { host: name, detail }
    } else {
        let detail = if detail.is_empty() {
            format!("the remote command ended ({})", exit_words(status))
        } else {
            format!(
                "the remote command ended ({}): {detail}",
                exit_words(status)
            )
        };
        RemoteError::Failed { host: name, detail }
    }
}

fn exit_words(status: Option<ExitStatus>) -> String {
    match status.and_then(|s| s.code()) {
        Some(code) => format!("exit code {code}"),
        None => "no exit code".to_owned(),
    }
}

/// The last few lines of what ssh said, as one line (its banner and warnings are long).
fn last_words(stderr: &str) -> String {
    let lines: Vec<&str> = stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("@@@"))
        .collect();
    let from = lines.len().saturating_sub(3);
    crate::visible::shown(&lines[from..].join(" / ")).into_owned()
}

/// The `ssh …` command for `host`: the person's ssh (or `PLANDECK_SSH`), `-T`, nothing forwarded
/// (`-a -x`, `ClearAllForwardings`, no `LocalCommand`; the agent only when the person turned it
/// on for this machine: `-A`), batch mode (no password, no question), a connect timeout and a
/// keep-alive, then `--` and the destination as one argument, then the remote command. These
/// come before the person's config is read and win over it (ssh takes the first value given).
pub fn ssh_command(host: &Host, env: &Env) -> Result<Command, RemoteError> {
    let remote = env.get("PLANDECK_REMOTE_COMMAND").unwrap_or(REMOTE_LAUNCH);
    ssh_command_for(host, env, remote)
}

/// [`ssh_command`] running `remote_command` there (`plandeck hosts install`'s steps).
pub fn ssh_command_for(
    host: &Host,
    env: &Env,
    remote_command: &str,
) -> Result<Command, RemoteError> {
    check_ssh_dest(&host.ssh).map_err(|e| RemoteError::BadHost(e.to_string()))?;
    let ssh = env.get("PLANDECK_SSH").unwrap_or("ssh");
    let mut words = ssh.split_whitespace();
    let program = words.next().unwrap_or("ssh");
    let mut cmd = Command::new(program);
    cmd.args(words)
        .args(ssh_options(host))
        .arg("--")
        .arg(&host.ssh)
        .arg(remote_command);
    Ok(cmd)
}

/// The options of every ssh Plandeck runs to `host` ([`ssh_command_for`]).
pub fn ssh_options(host: &Host) -> Vec<String> {
    let agent = if host.forward_agent { "-A" } else { "-a" };
    let mut options: Vec<String> = ["-T", agent, "-x"].map(str::to_owned).into();
    for option in [
        "ClearAllForwardings=yes".to_owned(),
        "PermitLocalCommand=no".to_owned(),
        format!(
            "ForwardAgent={}",
            if host.forward_agent { "yes" } else { "no" }
        ),
        "ForwardX11=no".to_owned(),
        "BatchMode=yes".to_owned(),
        format!("ConnectTimeout={CONNECT_TIMEOUT_S}"),
        format!("ServerAliveInterval={ALIVE_INTERVAL_S}"),
        format!("ServerAliveCountMax={ALIVE_COUNT}"),
    ] {
        options.push("-o".to_owned());
        options.push(option);
    }
    options
}

/// The system and machine this build runs on, as `uname -sm` says them (`Linux x86_64`).
pub fn this_platform() -> String {
    let os = match std::env::consts::OS {
        "linux" => "Linux",
        "macos" => "Darwin",
        "freebsd" => "FreeBSD",
        other => other,
    };
    let arch = match (std::env::consts::OS, std::env::consts::ARCH) {
        ("macos", "aarch64") => "arm64",
        (_, arch) => arch,
    };
    format!("{os} {arch}")
}

/// Whether a machine whose `uname -sm` said `remote` runs this build (`arm64` and `aarch64`,
/// `amd64` and `x86_64` are the same machine).
pub fn same_platform(remote: &str, here: &str) -> bool {
    let norm = |s: &str| -> Vec<String> {
        s.split_whitespace()
            .map(|w| match w {
                "arm64" => "aarch64".to_owned(),
                "amd64" => "x86_64".to_owned(),
                w => w.to_owned(),
            })
            .collect()
    };
    let (remote, here) = (norm(remote), norm(here));
    remote.len() == 2 && remote == here
}

/// What `plandeck hosts install` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installed {
    /// The remote's `uname -sm`.
    pub platform: String,
    /// Where the binary went, in the remote user's home.
    pub path: String,
    pub bytes: u64,
    /// The SHA-256 of what was sent, and checked there.
    pub sha256: String,
    /// The hello of the server started from it.
    pub hello: Hello,
}

/// The remote shell's first step: the binary on stdin into a temporary file beside the target,
/// then its SHA-256 said (`SUM` is the system's tool for it).
const INSTALL_COPY: &str =
    "mkdir -p ~/.local/bin && cat > ~/.local/bin/.plandeck.tmp && SUM ~/.local/bin/.plandeck.tmp";
/// Then, when what arrived is what was sent: made executable, renamed over the target (a reader
/// never sees half a binary; a running one goes on).
const INSTALL_PLACE: &str = "chmod 755 ~/.local/bin/.plandeck.tmp && mv -f \
                             ~/.local/bin/.plandeck.tmp ~/.local/bin/plandeck";
/// Else the temporary file goes, and nothing was installed.
const INSTALL_DISCARD: &str = "rm -f ~/.local/bin/.plandeck.tmp";

/// The SHA-256 of what `file` holds (hex), read from its start.
fn sha256_of(file: &mut std::fs::File) -> std::io::Result<String> {
    use sha2::Digest;
    use std::io::Seek;
    file.seek(std::io::SeekFrom::Start(0))?;
    let mut hasher = sha2::Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match file.read(&mut buf)? {
            0 => break,
            n => hasher.update(&buf[..n]),
        }
    }
    file.seek(std::io::SeekFrom::Start(0))?;
    Ok(hex::encode(hasher.finalize()))
}

/// Runs `steps` on `host` with `stdin`; its stdout, or why it failed (said as `what` failing).
fn run_steps(
    host: &Host,
    env: &Env,
    steps: &str,
    stdin: Stdio,
    what: &str,
) -> Result<String, RemoteError> {
    let out = ssh_command_for(host, env, steps)?
        .stdin(stdin)
        .output()
        .map_err(|e| RemoteError::Failed {
            host: host.name.clone(),
            detail: format!("cannot run ssh: {e}"),
        })?;
    if !out.status.success() {
        let said = String::from_utf8_lossy(&out.stderr);
        return Err(match classify(host, Some(out.status), &said) {
            RemoteError::Failed { .. } | RemoteError::NotInstalled { .. } => RemoteError::Failed {
                host: host.name.clone(),
                detail: format!("{what} failed: {}", last_words(&said)),
            },
            other => other,
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Copies `binary` (this build's `plandeck`: the caller chose one only its owner can change,
/// [`crate::shell::trusted_sibling`]) to the remote user's [`INSTALLED_AT`] over the person's ssh,
/// after checking that the remote runs the same system and machine (else refused, saying how to
/// install the package there). What arrived is checked against what was sent (its SHA-256, said
/// by the remote) before it takes the place of anything; then the handshake is checked.
pub fn install(host: &Host, env: &Env, binary: &std::path::Path) -> Result<Installed, IpcError> {
    let name = &host.name;
    let platform = {
        let said = run_steps(host, env, "uname -sm", Stdio::null(), "asking its system")?;
        crate::visible::shown(said.trim()).into_owned()
    };
    let here = this_platform();
    if !same_platform(&platform, &here) {
        return Err(IpcError::new(
            ErrorKind::Unsupported,
            format!(
                "{name} runs {platform}, this plandeck is built for {here}: nothing was copied. \
                 Install the plandeck package for {platform} on {name} (see README, Install), \
                 or copy a plandeck built for it to ~/.local/bin there"
            ),
        ));
    }
    let cannot_read = |e: std::io::Error| {
        IpcError::new(
            ErrorKind::Io,
            format!("cannot read this plandeck ({}): {e}", binary.display()),
        )
    };
    let mut file = std::fs::File::open(binary).map_err(cannot_read)?;
    let bytes = file.metadata().map(|m| m.len()).unwrap_or(0);
    let sent = sha256_of(&mut file).map_err(cannot_read)?;
    let sum = if platform.starts_with("Darwin") {
        "shasum -a 256"
    } else {
        "sha256sum"
    };
    let said = run_steps(
        host,
        env,
        &INSTALL_COPY.replace("SUM", sum),
        Stdio::from(file),
        &format!("copying to {INSTALLED_AT}"),
    )?;
    let arrived = said
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    if arrived != sent {
        let _ = run_steps(host, env, INSTALL_DISCARD, Stdio::null(), "cleaning up");
        let arrived = if arrived.is_empty() {
            "nothing readable".to_owned()
        } else {
            crate::visible::shown(&arrived.chars().take(64).collect::<String>()).into_owned()
        };
        return Err(IpcError::new(
            ErrorKind::Refused,
            format!(
                "what arrived on {name} is not what was sent (SHA-256 {arrived} there, {sent} \
                 here): it was removed and nothing was installed; try again, and if it happens \
                 again look at that machine"
            ),
        ));
    }
    run_steps(
        host,
        env,
        INSTALL_PLACE,
        Stdio::null(),
        &format!("putting it at {INSTALLED_AT}"),
    )?;
    let remote = Remote::connect(host, env)?;
    Ok(Installed {
        platform,
        path: INSTALLED_AT.to_owned(),
        bytes,
        sha256: sent,
        hello: remote.hello().clone(),
    })
}

type Waiting = HashMap<u64, mpsc::Sender<Result<Value, IpcError>>>;

/// An event the remote sent after [`Remote::subscribe`].
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteEvent {
    pub name: String,
    pub seq: u64,
    pub payload: Value,
}

/// One connection to another machine's `plandeck serve --stdio`. Dropping it closes the
/// connection (the server ends at the end of its input).
pub struct Remote {
    host: Host,
    hello: Hello,
    child: Mutex<Child>,
    /// The requests to write (a thread of its own writes them, and the heartbeat): `None` once
    /// closing.
    out: Mutex<Option<mpsc::SyncSender<String>>>,
    waiting: Arc<Mutex<Option<Waiting>>>,
    /// Each event with the size of its frame.
    events: Mutex<mpsc::Receiver<(RemoteEvent, usize)>>,
    /// The bytes of the frames of the events waiting ([`EVENT_BYTES_QUEUED`] at most).
    queued_bytes: Arc<AtomicUsize>,
    /// Events were dropped since the last [`Remote::lost_events`] (the queue was full).
    lost: Arc<AtomicBool>,
    /// How long a call waits for its answer.
    patience: Mutex<Duration>,
    next_id: AtomicU64,
    stderr: Arc<Mutex<String>>,
    stderr_done: Mutex<Option<std::thread::JoinHandle<()>>>,
    ignored: Arc<Ignored>,
}

/// The frames of the remote that were not used: how many, and why (the first few).
#[derive(Default)]
struct Ignored {
    count: AtomicUsize,
    reasons: Mutex<Vec<String>>,
}

/// How many reasons for ignored frames are kept.
const REASONS_KEPT: usize = 10;
/// The most characters of an error message the remote answers that are kept.
const MESSAGE_KEPT: usize = 16 * 1024;

/// The table's calls on the machine this connection reaches, their answers read as the server
/// gave them (ids as that machine knows them: `--host` prints them so).
impl Client for Remote {
    fn ask<T: DeserializeOwned + OnMachine>(
        &self,
        method: &'static str,
        params: Value,
    ) -> Result<T, IpcError> {
        Ok(self.call_as(method, params)?)
    }
}

impl Remote {
    /// Connects to `host` and reads its hello; refused, with why, when ssh fails, the remote has
    /// no `plandeck`, or it speaks another protocol.
    pub fn connect(host: &Host, env: &Env) -> Result<Remote, RemoteError> {
        let mut cmd = ssh_command(host, env)?;
        // Tests only: a heartbeat more often than every 15 s.
        let heartbeat = env
            .get("PLANDECK_HEARTBEAT_MS")
            .and_then(|ms| ms.parse().ok())
            .map(Duration::from_millis)
            .unwrap_or(HEARTBEAT);
        Self::start_with(host, &mut cmd, heartbeat)
    }

    /// Runs `cmd` (ssh, or in tests anything that speaks for a server) as the connection to
    /// `host`.
    pub fn start(host: &Host, cmd: &mut Command) -> Result<Remote, RemoteError> {
        Self::start_with(host, cmd, HEARTBEAT)
    }

    fn start_with(
        host: &Host,
        cmd: &mut Command,
        heartbeat: Duration,
    ) -> Result<Remote, RemoteError> {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| RemoteError::Failed {
                host: host.name.clone(),
                detail: format!("cannot run ssh: {e}"),
            })?;
        let (stdout, stderr_pipe) = (child.stdout.take(), child.stderr.take());
        let stderr = Arc::new(Mutex::new(String::new()));
        let stderr_done = stderr_pipe.map(|pipe| {
            let stderr = stderr.clone();
            std::thread::spawn(move || keep_stderr(pipe, &stderr))
        });
        let waiting = Arc::new(Mutex::new(Some(Waiting::new())));
        let ignored = Arc::new(Ignored::default());
        let lost = Arc::new(AtomicBool::new(false));
        let (hello_tx, hello_rx) = mpsc::channel();
        let (event_tx, events) = mpsc::sync_channel(EVENTS_QUEUED);
        let queued_bytes = Arc::new(AtomicUsize::new(0));
        if let Some(stdout) = stdout {
            let (waiting, ignored, lost, name, bytes) = (
                waiting.clone(),
                ignored.clone(),
                lost.clone(),
                host.name.clone(),
                queued_bytes.clone(),
            );
            std::thread::spawn(move || {
                let events = Events {
                    tx: event_tx,
                    lost,
                    bytes,
                };
                read_frames(stdout, &name, hello_tx, events, &waiting, &ignored)
            });
        }
        let (out_tx, out_rx) = mpsc::sync_channel(REQUESTS_QUEUED);
        if let Some(stdin) = child.stdin.take() {
            std::thread::spawn(move || write_frames(stdin, out_rx, heartbeat));
        }
        let mut remote = Remote {
            host: host.clone(),
            hello: Hello {
                protocol: 0,
                version: String::new(),
                instance: String::new(),
            },
            out: Mutex::new(Some(out_tx)),
            child: Mutex::new(child),
            waiting,
            events: Mutex::new(events),
            queued_bytes,
            lost,
            patience: Mutex::new(CALL_PATIENCE),
            next_id: AtomicU64::new(1),
            stderr,
            stderr_done: Mutex::new(stderr_done),
            ignored,
        };
        let hello = match hello_rx.recv_timeout(HELLO_PATIENCE) {
            Ok(hello) => hello,
            // Ended before its hello: ssh or the remote shell said why.
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                let (status, said) = remote.finish();
                return Err(classify(host, status, &said));
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let (_, said) = remote.finish();
                let said = last_words(&said);
                return Err(RemoteError::Failed {
                    host: host.name.clone(),
                    detail: format!(
                        "no answer from Plandeck there within {} s{}",
                        HELLO_PATIENCE.as_secs(),
                        if said.is_empty() {
                            String::new()
                        } else {
                            format!(" (ssh said: {said})")
                        }
                    ),
                });
            }
        };
        if hello.protocol != wire::PROTOCOL {
            let update = if hello.protocol < wire::PROTOCOL {
                format!("the plandeck on {} is older: update it there", host.name)
            } else {
                "this Plandeck is older: update it here".to_owned()
            };
            return Err(RemoteError::Protocol {
                host: host.name.clone(),
                theirs: hello.protocol,
                ours: wire::PROTOCOL,
                version: crate::visible::shown(&hello.version).into_owned(),
                update,
            });
        }
        remote.hello = hello;
        Ok(remote)
    }

    /// The machine this connection is to.
    pub fn host(&self) -> &Host {
        &self.host
    }

    /// The server's hello.
    pub fn hello(&self) -> &Hello {
        &self.hello
    }

    /// How many frames from the remote were not used (malformed, unasked answers).
    pub fn ignored(&self) -> usize {
        self.ignored.count.load(Ordering::Relaxed)
    }

    /// Why frames were ignored (the first few), for a person: control characters marked.
    pub fn ignored_reasons(&self) -> Vec<String> {
        lock(&self.ignored.reasons).clone()
    }

    /// How long each call waits for its answer from now on ([`CALL_PATIENCE`] at first).
    pub fn set_patience(&self, patience: Duration) {
        *lock(&self.patience) = patience;
    }

    /// Calls `method` with `params` on the remote and waits for its answer, at most the patience
    /// ([`Remote::set_patience`]): then it is [`RemoteError::TimedOut`] (not known whether it
    /// went; a late answer is ignored). Several calls may run at once from several threads; each
    /// answer is matched by its id.
    pub fn call(&self, method: &str, params: Value) -> Result<Value, RemoteError> {
        let patience = *lock(&self.patience);
        self.call_within(method, params, patience)
    }

    /// [`Remote::call`] waiting at most `patience`.
    pub fn call_within(
        &self,
        method: &str,
        params: Value,
        patience: Duration,
    ) -> Result<Value, RemoteError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = mpsc::channel();
        match lock(&self.waiting).as_mut() {
            Some(waiting) => {
                waiting.insert(id, tx);
            }
            None => return Err(self.dropped(method)),
        }
        let forget = || {
            if let Some(w) = lock(&self.waiting).as_mut() {
                w.remove(&id);
            }
        };
        let line = wire::request_line(id, method, params);
        let queued = match lock(&self.out).as_ref() {
            Some(out) => out.try_send(line),
            None => Err(mpsc::TrySendError::Disconnected(String::new())),
        };
        match queued {
            Ok(()) => {}
            // The remote has not read what was sent before: nothing more goes.
            Err(mpsc::TrySendError::Full(_)) => {
                forget();
                return Err(RemoteError::Unreachable {
                    host: self.host.name.clone(),
                    detail: format!(
                        "it has not read the requests sent before: {method} was not sent"
                    ),
                });
            }
            Err(mpsc::TrySendError::Disconnected(_)) => {
                forget();
                return Err(self.dropped(method));
            }
        }
        match rx.recv_timeout(patience) {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(mut error)) => {
                // The remote's words, bounded: a hostile machine's refusal of megabytes is cut.
                if error.message.chars().count() > MESSAGE_KEPT {
                    error.message = error.message.chars().take(MESSAGE_KEPT).collect();
                    error.message.push('…');
                }
                Err(RemoteError::Answered {
                    host: self.host.name.clone(),
                    error,
                })
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                forget();
                Err(RemoteError::TimedOut {
                    host: self.host.name.clone(),
                    method: method.to_owned(),
                    seconds: patience.as_secs().max(1),
                })
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => Err(self.dropped(method)),
        }
    }

    /// [`Remote::call`], the result read as `T`.
    pub fn call_as<T: DeserializeOwned>(
        &self,
        method: &str,
        params: Value,
    ) -> Result<T, RemoteError> {
        let value = self.call(method, params)?;
        serde_json::from_value(value).map_err(|e| RemoteError::Answered {
            host: self.host.name.clone(),
            error: IpcError::new(
                ErrorKind::BadInput,
                format!("{method}: not the answer this Plandeck reads: {e}"),
            ),
        })
    }

    /// Starts the events: those after `after` (of this server instance) are replayed, then new
    /// ones stream ([`Remote::next_event`]).
    pub fn subscribe(&self, after: Option<u64>) -> Result<Subscribed, RemoteError> {
        let params = serde_json::json!({ "after": after, "instance": self.hello.instance });
        self.call_as(calls::subscribe::NAME, params)
    }

    /// Resumes the events of a connection before this one: those after `after` of the server
    /// `instance` (the hello's of that connection) are replayed, then new ones stream. The answer
    /// says whether it resumed (`gap: false`: nothing lost, nothing doubled) or the events are
    /// lost (`gap: true`: another server, or too long ago) and everything is to be read again.
    pub fn subscribe_from(&self, after: u64, instance: &str) -> Result<Subscribed, RemoteError> {
        let params = serde_json::json!({ "after": after, "instance": instance });
        self.call_as(calls::subscribe::NAME, params)
    }

    /// The next event, waiting at most `patience`; `None` when none came (or the connection is
    /// gone).
    pub fn next_event(&self, patience: Duration) -> Option<RemoteEvent> {
        let (event, size) = lock(&self.events).recv_timeout(patience).ok()?;
        self.queued_bytes.fetch_sub(size, Ordering::SeqCst);
        Some(event)
    }

    /// Whether events were dropped since the last time this was asked (more came than
    /// [`EVENTS_QUEUED`] waiting): a gap, everything is to be read again.
    pub fn lost_events(&self) -> bool {
        self.lost.swap(false, Ordering::SeqCst)
    }

    /// Whether the connection still holds (the server's output has not ended).
    pub fn is_open(&self) -> bool {
        lock(&self.waiting).is_some()
    }

    /// The connection dropped during `method`: ssh's words say how.
    fn dropped(&self, method: &str) -> RemoteError {
        let (status, said) = self.finish();
        let detail = last_words(&said);
        RemoteError::Dropped {
            host: self.host.name.clone(),
            during: format!(" during {method}"),
            detail: if detail.is_empty() {
                format!("ssh ended ({})", exit_words(status))
            } else {
                detail
            },
        }
    }

    /// Waits for ssh to end (stopping it after [`CLOSE_PATIENCE`]) and returns its status and
    /// everything it said.
    fn finish(&self) -> (Option<ExitStatus>, String) {
        // The writer ends, and with it the server's input (unless it is stuck writing to a
        // remote that reads nothing: then ssh is stopped below, which ends it).
        drop(lock(&self.out).take());
        let status = {
            let mut child = lock(&self.child);
            let deadline = std::time::Instant::now() + CLOSE_PATIENCE;
            loop {
                match child.try_wait() {
                    Ok(Some(status)) => break Some(status),
                    Ok(None) if std::time::Instant::now() < deadline => {
                        std::thread::sleep(Duration::from_millis(20));
                    }
                    _ => {
                        let _ = child.kill();
                        break child.wait().ok();
                    }
                }
            }
        };
        if let Some(done) = lock(&self.stderr_done).take() {
            let _ = done.join();
        }
        (status, lock(&self.stderr).clone())
    }
}

impl Drop for Remote {
    fn drop(&mut self) {
        self.finish();
    }
}

fn keep_stderr(mut pipe: impl Read, into: &Mutex<String>) {
    let mut buf = [0u8; 4096];
    loop {
        match pipe.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                let mut kept = lock(into);
                kept.push_str(&String::from_utf8_lossy(&buf[..n]));
                if kept.len() > STDERR_KEPT {
                    let mut cut = kept.len() - STDERR_KEPT;
                    while !kept.is_char_boundary(cut) {
                        cut += 1;
                    }
                    kept.drain(..cut);
                }
            }
        }
    }
}

/// Writes each request (a line) to the server, and an empty line every `heartbeat` while there
/// is nothing else to write, until the requests end or the server's input does.
fn write_frames(mut stdin: ChildStdin, requests: mpsc::Receiver<String>, heartbeat: Duration) {
    loop {
        let line = match requests.recv_timeout(heartbeat) {
            Ok(line) => line,
            Err(mpsc::RecvTimeoutError::Timeout) => String::new(),
            Err(mpsc::RecvTimeoutError::Disconnected) => return,
        };
        let written = stdin
            .write_all(line.as_bytes())
            .and_then(|()| stdin.write_all(b"\n"))
            .and_then(|()| stdin.flush());
        if written.is_err() {
            return;
        }
    }
}

/// Where the events go: a bounded queue; when it is full they are dropped and the loss noted.
struct Events {
    tx: mpsc::SyncSender<(RemoteEvent, usize)>,
    lost: Arc<AtomicBool>,
    /// The bytes of the frames waiting: at most [`EVENT_BYTES_QUEUED`].
    bytes: Arc<AtomicUsize>,
}

/// Reads the server's frames until its output ends: the hello, answers to whoever waits for
/// them, events; what is none of these is logged and ignored. At the end, every call still
/// waiting is told (its sender dropped) and no new one is taken.
fn read_frames(
    stdout: impl Read,
    host: &str,
    hello_tx: mpsc::Sender<Hello>,
    events: Events,
    waiting: &Mutex<Option<Waiting>>,
    ignored: &Ignored,
) {
    let mut input = BufReader::new(stdout);
    let mut line = Vec::new();
    let mut hello = Some(hello_tx);
    let ignore = |why: String| {
        ignored.count.fetch_add(1, Ordering::Relaxed);
        tracing::warn!(host, "a frame from the remote was ignored: {why}");
        let mut reasons = lock(&ignored.reasons);
        if reasons.len() < REASONS_KEPT {
            let mut why = crate::visible::shown(&why).into_owned();
            if why.len() > 200 {
                let mut cut = 200;
                while !why.is_char_boundary(cut) {
                    cut -= 1;
                }
                why.truncate(cut);
                why.push('…');
            }
            reasons.push(why);
        }
    };
    while let Some(fits) = wire::read_line(&mut input, &mut line, wire::MAX_LINE) {
        if !fits {
            ignore(format!("a line over {} bytes", wire::MAX_LINE));
            continue;
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let frame = match wire::parse_server_frame(&line) {
            Ok(frame) => frame,
            Err(e) => {
                ignore(e.message);
                continue;
            }
        };
        match frame {
            // The first hello is the server's; a later one changes nothing.
            ServerFrame::Hello(h) => match hello.take() {
                Some(tx) => {
                    let _ = tx.send(h);
                }
                None => ignore("a second hello".into()),
            },
            _ if hello.is_some() => ignore("a frame before the hello".into()),
            ServerFrame::Answer { id, result } => {
                let tx = id
                    .as_u64()
                    .and_then(|id| lock(waiting).as_mut().and_then(|w| w.remove(&id)));
                match tx {
                    Some(tx) => {
                        let _ = tx.send(result);
                    }
                    None => ignore(format!("an answer to no request (id {id})")),
                }
            }
            ServerFrame::Event { name, seq, payload } => {
                let event = RemoteEvent { name, seq, payload };
                let size = line.len();
                let fits = events
                    .bytes
                    .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |b| {
                        (b + size <= EVENT_BYTES_QUEUED).then_some(b + size)
                    })
                    .is_ok();
                if !fits {
                    events.lost.store(true, Ordering::SeqCst);
                } else if let Err(mpsc::TrySendError::Full(_)) = events.tx.try_send((event, size)) {
                    events.bytes.fetch_sub(size, Ordering::SeqCst);
                    events.lost.store(true, Ordering::SeqCst);
                }
            }
        }
    }
    // The end: whoever waits hears it (their sender goes), nobody new is taken.
    lock(waiting).take();
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::ExitStatusExt;

    fn host() -> Host {
        Host {
            name: "lab".into(),
            ssh: "me@lab".into(),
            forward_agent: false,
        }
    }

    fn exit(code: i32) -> Option<ExitStatus> {
        Some(ExitStatus::from_raw(code << 8))
    }

    #[test]
    fn what_ssh_says_is_told_apart() {
        let changed = "@@@@@@@@@@@\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\n\
                       Host key verification failed.\n";
        assert!(matches!(
            classify(&host(), exit(255), changed),
            RemoteError::HostKeyChanged { .. }
        ));
        let unknown = "No ED25519 host key is known for [127.0.0.1]:2222 and you have requested \
                       strict checking.\nHost key verification failed.\n";
        assert!(matches!(
            classify(&host(), exit(255), unknown),
            RemoteError::HostKeyUnknown { .. }
        ));
        let denied = "me@lab: Permission denied (publickey).\n";
        let e = classify(&host(), exit(255), denied);
        assert!(matches!(e, RemoteError::PermissionDenied { .. }), "{e}");
        assert!(e.to_string().contains("ssh me@lab"), "{e}");
        let refused = "ssh: connect to host 127.0.0.1 port 2222: Connection refused\n";
        let e = classify(&host(), exit(255), refused);
        assert!(matches!(e, RemoteError::Unreachable { .. }), "{e}");
        assert!(e.to_string().contains("Connection refused"), "{e}");
        assert!(
            e.to_string().contains("is sshd running on that port?"),
            "{e}"
        );
        let unknown_name =
            "ssh: Could not resolve hostname lab.exmaple: Name or service not known\n";
        let e = classify(&host(), exit(255), unknown_name);
        assert!(e.to_string().contains("check the name"), "{e}");
        let silent = "ssh: connect to host 10.9.9.9 port 22: Connection timed out\n";
        let e = classify(&host(), exit(255), silent);
        assert!(e.to_string().contains("does not answer"), "{e}");
        let missing = "bash: line 1: plandeck: command not found\n";
        let e = classify(&host(), exit(127), missing);
        assert!(matches!(e, RemoteError::NotInstalled { .. }), "{e}");
        assert!(e.to_string().contains("plandeck hosts install lab"), "{e}");
        // Nor in ~/.local/bin, where the launch looks next.
        let missing = "bash: line 1: /home/me/.local/bin/plandeck: No such file or directory\n";
        let e = classify(&host(), exit(127), missing);
        assert!(matches!(e, RemoteError::NotInstalled { .. }), "{e}");
        let old = "error: unrecognized subcommand 'serve'\n\nUsage: plandeck [OPTIONS]\n";
        let e = classify(&host(), exit(2), old);
        assert!(matches!(e, RemoteError::Protocol { .. }), "{e}");
        assert!(e.to_string().contains("update it there"), "{e}");
        let e = classify(&host(), exit(3), "");
        assert!(matches!(e, RemoteError::Failed { .. }), "{e}");
        // Issue 33, finding 12: the remote's shell (a `.bashrc`) prints what it likes on the same
        // stderr; only ssh's own failure (255) is read as ssh's verdict.
        for code in [0, 1, 2, 127] {
            let e = classify(&host(), exit(code), changed);
            assert!(
                !matches!(
                    e,
                    RemoteError::HostKeyChanged { .. } | RemoteError::HostKeyUnknown { .. }
                ),
                "{code}: {e}"
            );
            assert!(!e.to_string().contains("ssh-keygen -R"), "{code}: {e}");
            let e = classify(&host(), exit(code), denied);
            assert!(
                !matches!(e, RemoteError::PermissionDenied { .. }),
                "{code}: {e}"
            );
        }
        // What ssh said is shown, never run: a control character in it is marked.
        let e = classify(&host(), exit(255), "evil\u{1b}]52;c;x\u{7}\n");
        assert!(!e.to_string().contains('\u{1b}'), "{e}");
    }

    #[test]
    fn a_remote_of_another_system_or_machine_is_told_apart() {
        assert!(same_platform("Linux x86_64", "Linux x86_64"));
        assert!(same_platform("Darwin arm64\n", "Darwin aarch64"));
        assert!(same_platform("Linux amd64", "Linux x86_64"));
        assert!(!same_platform("Linux aarch64", "Linux x86_64"));
        assert!(!same_platform("Darwin x86_64", "Linux x86_64"));
        assert!(!same_platform("", "Linux x86_64"));
        assert!(!same_platform("Linux x86_64 extra", "Linux x86_64"));
        // This build's platform is what `uname -sm` says of this machine.
        let uname = std::process::Command::new("uname")
            .arg("-sm")
            .output()
            .expect("uname runs");
        let here = String::from_utf8_lossy(&uname.stdout);
        assert!(same_platform(&here, &this_platform()), "{here}");
    }

    #[test]
    fn the_destination_is_one_argument_after_the_options_and_a_bad_one_is_refused() {
        let env = Env::from_pairs([("PLANDECK_SSH", "ssh -F /t/config")]);
        let cmd = ssh_command(&host(), &env).unwrap();
        let args: Vec<_> = cmd.get_args().map(|a| a.to_str().unwrap()).collect();
        assert_eq!(cmd.get_program(), "ssh");
        assert_eq!(&args[..2], ["-F", "/t/config"]);
        let n = args.len();
        assert_eq!(&args[n - 3..], ["--", "me@lab", REMOTE_LAUNCH]);
        // Issue 33, finding 3: nothing of this machine is forwarded there, whatever the
        // person's ssh config says (options given first win over the config's).
        for want in [
            "-T",
            "-a",
            "-x",
            "ClearAllForwardings=yes",
            "PermitLocalCommand=no",
            "ForwardAgent=no",
            "BatchMode=yes",
            "ConnectTimeout=10",
        ] {
            assert!(args.contains(&want), "{want} in {args:?}");
        }
        assert!(!args.contains(&"-A"), "{args:?}");
        // The agent only where the person turned it on.
        let forwarding = Host {
            forward_agent: true,
            ..host()
        };
        let cmd = ssh_command(&forwarding, &env).unwrap();
        let args: Vec<_> = cmd.get_args().map(|a| a.to_str().unwrap()).collect();
        assert!(
            args.contains(&"-A") && args.contains(&"ForwardAgent=yes"),
            "{args:?}"
        );
        assert!(!args.contains(&"-a"), "{args:?}");
        assert!(args.contains(&"-x") && args.contains(&"ClearAllForwardings=yes"));
        assert!(!args.iter().any(|a| a.contains("StrictHostKeyChecking")));
        let smuggled = Host {
            name: "x".into(),
            ssh: "-oProxyCommand=touch /tmp/pwned".into(),
            forward_agent: false,
        };
        assert!(matches!(
            ssh_command(&smuggled, &Env::default()),
            Err(RemoteError::BadHost(_))
        ));
    }

    /// A "remote" that is a shell script: what a hostile or broken server sends.
    fn scripted(script: &str) -> Command {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", script]);
        cmd
    }

    const HELLO: &str = r#"{"hello":{"protocol":1,"version":"9.9.9","instance":"1-a"}}"#;

    #[test]
    fn malformed_and_hostile_frames_are_ignored_and_answers_matched_by_id() {
        // Reads one request, then sends junk, an answer to no request, an event, and the answer.
        let script = format!(
            "echo '{HELLO}'; read line; echo 'not json'; echo '[1]'; \
             echo '{{\"id\":99,\"result\":1}}'; echo '{{\"hello\":{{\"protocol\":1,\"version\":\"x\",\"instance\":\"y\"}}}}'; \
             echo '{{\"event\":\"plans:changed\",\"seq\":1,\"payload\":{{\"paths\":[\"/etc/passwd\"]}}}}'; \
             echo '{{\"id\":1,\"result\":{{\"ok\":true}}}}'; read rest"
        );
        let remote = Remote::start(&host(), &mut scripted(&script)).unwrap();
        assert_eq!(remote.hello().version, "9.9.9");
        let got = remote.call("list_plans", serde_json::json!({})).unwrap();
        assert_eq!(got, serde_json::json!({"ok": true}));
        assert_eq!(
            remote.ignored(),
            4,
            "junk, [1], an unasked answer, a second hello"
        );
        let event = remote.next_event(Duration::from_secs(30)).unwrap();
        assert_eq!(event.name, "plans:changed");
    }

    #[test]
    fn an_error_answer_is_the_remotes_and_a_dropped_connection_is_said() {
        let script = format!(
            "echo '{HELLO}'; read line; \
             echo '{{\"id\":1,\"error\":{{\"kind\":\"notFound\",\"message\":\"no plan\"}}}}'; \
             read line; echo 'Connection to lab closed by remote host.' >&2; exit 255"
        );
        let remote = Remote::start(&host(), &mut scripted(&script)).unwrap();
        let e = remote
            .call("get_plan", serde_json::json!({"id": "x"}))
            .unwrap_err();
        let ipc = IpcError::from(e);
        assert_eq!(ipc.kind, ErrorKind::NotFound);
        assert!(ipc.message.contains("no plan"), "{ipc:?}");
        let e = remote
            .call("list_plans", serde_json::json!({}))
            .unwrap_err();
        assert!(matches!(e, RemoteError::Dropped { .. }), "{e}");
        assert!(e.to_string().contains("closed by remote host"), "{e}");
        assert!(e.to_string().contains("during list_plans"), "{e}");
    }

    #[test]
    fn another_protocol_says_which_side_to_update() {
        for (protocol, side) in [(0, "update it there"), (2, "update it here")] {
            let script = format!(
                "echo '{{\"hello\":{{\"protocol\":{protocol},\"version\":\"0.0.1\",\"instance\":\"i\"}}}}'; read x"
            );
            let Err(e) = Remote::start(&host(), &mut scripted(&script)) else {
                panic!("protocol {protocol} was taken");
            };
            assert!(matches!(e, RemoteError::Protocol { .. }), "{e}");
            assert!(e.to_string().contains(side), "{e}");
        }
    }

    /// Issue 33, finding 4: a remote that never answers holds a call only until its deadline
    /// (said: not known whether it went); its late answer is ignored, and the next call goes on.
    #[test]
    fn a_call_ends_at_its_deadline_and_a_late_answer_is_ignored() {
        let script = format!(
            "echo '{HELLO}'; read a; sleep 1; echo '{{\"id\":1,\"result\":\"late\"}}'; \
             read b; echo '{{\"id\":2,\"result\":\"on time\"}}'; cat >/dev/null"
        );
        let remote = Remote::start(&host(), &mut scripted(&script)).unwrap();
        let e = remote
            .call_within(
                "decide_plan",
                serde_json::json!({}),
                Duration::from_millis(200),
            )
            .unwrap_err();
        assert!(matches!(e, RemoteError::TimedOut { .. }), "{e}");
        assert!(e.to_string().contains("not known whether it went"), "{e}");
        assert_eq!(IpcError::from(e).kind, ErrorKind::Unreachable);
        let got = remote.call("list_plans", serde_json::json!({})).unwrap();
        assert_eq!(got, "on time");
        assert_eq!(remote.ignored(), 1, "{:?}", remote.ignored_reasons());
    }

    /// A remote that says hello and then nothing, reading nothing either: every call still ends.
    #[test]
    fn a_remote_that_hangs_never_holds_a_call_forever() {
        let script = format!("echo '{HELLO}'; exec sleep 600");
        let remote = Remote::start(&host(), &mut scripted(&script)).unwrap();
        remote.set_patience(Duration::from_millis(100));
        for _ in 0..3 {
            let e = remote
                .call("list_plans", serde_json::json!({}))
                .unwrap_err();
            assert!(
                matches!(
                    e,
                    RemoteError::TimedOut { .. } | RemoteError::Unreachable { .. }
                ),
                "{e}"
            );
        }
    }

    /// A flood of events fills a bounded queue: the rest are dropped and the loss is said; the
    /// answers still come through, and a frame over the limit is skipped whole.
    #[test]
    fn a_flood_of_events_is_bounded_and_said_as_lost() {
        let event = r#"{"event":"plans:changed","seq":1,"payload":{"paths":[]}}"#;
        let script = format!(
            "echo '{HELLO}'; read a; yes '{event}' | head -n 100000; \
             head -c 16777300 /dev/zero | tr '\\0' x; echo; \
             echo '{{\"id\":1,\"result\":\"after\"}}'; cat >/dev/null"
        );
        let remote = Remote::start(&host(), &mut scripted(&script)).unwrap();
        let got = remote.call("list_plans", serde_json::json!({})).unwrap();
        assert_eq!(got, "after");
        assert!(remote.lost_events(), "the loss is said");
        assert!(!remote.lost_events(), "once");
        let mut queued = 0;
        while remote.next_event(Duration::ZERO).is_some() {
            queued += 1;
        }
        assert!(queued <= EVENTS_QUEUED, "{queued} events kept");
        assert!(
            remote
                .ignored_reasons()
                .iter()
                .any(|r| r.contains("a line over")),
            "{:?}",
            remote.ignored_reasons()
        );
    }

    /// Big events fill the queue by their bytes, not only by their count: 48 frames of 1 MiB that
    /// nobody reads keep at most [`EVENT_BYTES_QUEUED`] waiting, and the loss is said.
    #[test]
    fn big_events_are_bounded_by_their_bytes() {
        let script = format!(
            "echo '{HELLO}'; read a; big=$(head -c 1048576 /dev/zero | tr '\\0' x); \
             for n in $(seq 48); do \
             printf '{{\"event\":\"plans:changed\",\"seq\":%s,\"payload\":{{\"paths\":[\"%s\"]}}}}\\n' $n \"$big\"; \
             done; echo '{{\"id\":1,\"result\":\"after\"}}'; cat >/dev/null"
        );
        let remote = Remote::start(&host(), &mut scripted(&script)).unwrap();
        let got = remote.call("list_plans", serde_json::json!({})).unwrap();
        assert_eq!(got, "after");
        assert!(remote.lost_events(), "the loss is said");
        let mut bytes = 0;
        while let Some(e) = remote.next_event(Duration::ZERO) {
            bytes += e.payload.to_string().len();
        }
        assert!(bytes > 0, "the events that fit are kept");
        assert!(bytes <= EVENT_BYTES_QUEUED, "{bytes} bytes of events kept");
        // Read, they make room again.
        assert_eq!(remote.queued_bytes.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn a_remote_without_plandeck_is_said_with_how_to_install() {
        let script = "echo 'bash: line 1: plandeck: command not found' >&2; exit 127";
        let Err(e) = Remote::start(&host(), &mut scripted(script)) else {
            panic!("connected to nothing");
        };
        assert!(matches!(e, RemoteError::NotInstalled { .. }), "{e}");
    }
}

/// Issue 33: the frame reader is a reader of outside text. Whatever bytes a remote sends, it
/// answers without a panic, keeps no line over its limit, and holds a bounded number of events.
#[cfg(test)]
mod frame_properties {
    use super::*;
    use proptest::prelude::*;

    /// Lines a remote could send: frames, near-frames and junk.
    fn a_line() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            Just(br#"{"hello":{"protocol":1,"version":"x","instance":"i"}}"#.to_vec()),
            Just(br#"{"event":"plans:changed","seq":1,"payload":{"paths":[]}}"#.to_vec()),
            Just(br#"{"event":"gate:changed","seq":18446744073709551615,"payload":null}"#.to_vec()),
            Just(br#"{"event":7,"seq":-1}"#.to_vec()),
            Just(br#"{"id":1,"result":{"ok":true}}"#.to_vec()),
            Just(br#"{"id":1,"error":{"kind":"nope","message":1}}"#.to_vec()),
            Just(br#"{"id":"1","result":1,"error":{}}"#.to_vec()),
            Just(br#"{"id":1e400}"#.to_vec()),
            Just(
                b"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
                    .to_vec()
            ),
            Just(b"\x1b]52;c;eA==\x07".to_vec()),
            proptest::collection::vec(any::<u8>(), 0..200),
            "[ -~]{0,100}".prop_map(String::into_bytes),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn any_bytes_are_read_as_bounded_lines(
            bytes in proptest::collection::vec(any::<u8>(), 0..2048),
            max in 1usize..64,
        ) {
            let mut input = std::io::Cursor::new(&bytes);
            let mut line = Vec::new();
            let mut lines = 0;
            while let Some(fits) = wire::read_line(&mut input, &mut line, max) {
                prop_assert!(line.len() <= max);
                if !fits {
                    prop_assert!(line.is_empty());
                }
                lines += 1;
                prop_assert!(lines <= bytes.len() + 1);
            }
            let _ = wire::parse_server_frame(&bytes);
        }

        #[test]
        fn any_stream_of_frames_is_read_without_a_panic_and_bounded(
            lines in proptest::collection::vec(a_line(), 0..64),
        ) {
            let mut stream = Vec::new();
            for line in &lines {
                stream.extend_from_slice(line);
                stream.push(b'\n');
            }
            let (hello_tx, _hello_rx) = mpsc::channel();
            let (tx, rx) = mpsc::sync_channel(8);
            let lost = Arc::new(AtomicBool::new(false));
            let bytes = Arc::new(AtomicUsize::new(0));
            let waiting = Mutex::new(Some(Waiting::new()));
            let (answer_tx, answer_rx) = mpsc::channel();
            lock(&waiting).as_mut().unwrap().insert(1, answer_tx);
            let ignored = Ignored::default();
            read_frames(
                std::io::Cursor::new(stream),
                "box",
                hello_tx,
                Events { tx, lost: lost.clone(), bytes: bytes.clone() },
                &waiting,
                &ignored,
            );
            let kept: Vec<(RemoteEvent, usize)> = rx.try_iter().collect();
            prop_assert!(kept.len() <= 8);
            prop_assert_eq!(kept.iter().map(|(_, n)| n).sum::<usize>(), bytes.load(Ordering::SeqCst));
            prop_assert!(bytes.load(Ordering::SeqCst) <= EVENT_BYTES_QUEUED);
            prop_assert!(lock(&waiting).is_none(), "the end is said");
            prop_assert!(answer_rx.try_iter().count() <= 1, "one answer per request");
            prop_assert!(lock(&ignored.reasons).len() <= REASONS_KEPT);
            for reason in lock(&ignored.reasons).iter() {
                prop_assert!(!reason.contains('\x1b'), "{}", reason);
                prop_assert!(reason.len() <= 200 + '…'.len_utf8());
            }
        }
    }
}
