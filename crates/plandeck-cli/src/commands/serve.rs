//! `plandeck serve --stdio`: a headless Plandeck holding the live state of this machine, speaking
//! line-delimited JSON frames on stdin/stdout ([`plandeck_core::serve`]) until stdin ends; what
//! it cannot use is said on stderr. Started by another machine's Plandeck over its SSH.
//!
//! By default the frames go to this user's long-lived server on this machine (started when none
//! answers, [`plandeck_core::serve::daemon`]), so that a client that reconnects resumes its
//! events; `--no-daemon` serves from this process alone (its events end with it).

use std::io::Write;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use clap::Args;
use plandeck_core::config::Roots;
use plandeck_core::daemon_home::{self, Launch, LaunchOptions};
use plandeck_core::ipc::{ErrorKind, IpcError};
use plandeck_core::serve::{self, daemon};

use crate::{Context, Out};

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Speak on stdin/stdout (the only transport: run it through `ssh -T`).
    #[arg(long, required_unless_present_any = ["daemon", "daemon_launch"])]
    pub stdio: bool,
    /// Serve from this process alone, not through this user's long-lived server here (events
    /// then do not outlive the connection: a client that reconnects reads everything again).
    #[arg(long)]
    pub no_daemon: bool,
    /// How long this user's server here stays with no client before it exits, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = daemon::IDLE_EXIT.as_secs())]
    pub idle_exit: u64,
    /// How many events are kept for a client that resumes (tests make it small).
    #[arg(long, hide = true, default_value_t = serve::EVENT_BUFFER)]
    pub event_buffer: usize,
    /// Run as this user's long-lived server (started by `--stdio` when none answers).
    #[arg(long, hide = true, conflicts_with_all = ["stdio", "daemon_launch"])]
    pub daemon: bool,
    /// Start `--daemon` detached and exit.
    #[arg(long, hide = true, conflicts_with = "stdio")]
    pub daemon_launch: bool,
}

/// Frames go out exactly as serialized (JSON escapes what needs escaping).
struct Exact<'a, 'b>(&'a mut Out<'b>);

impl Write for Exact<'_, '_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.bytes(buf)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// A person reads the log: written through their [`Out`].
struct Said<'a, 'b>(&'a mut Out<'b>);

impl Write for Said<'_, '_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        write!(self.0, "{}", String::from_utf8_lossy(buf))?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

fn io(what: &str) -> impl Fn(std::io::Error) -> IpcError + '_ {
    move |e| IpcError::new(ErrorKind::Io, format!("{what}: {e}"))
}

// The requests are stdin, read on the server's own thread.
#[allow(clippy::disallowed_methods)]
pub fn run(
    ctx: &Context,
    args: ServeArgs,
    out: &mut Out<'_>,
    err: &mut Out<'_>,
) -> Result<i32, IpcError> {
    let roots = ctx.roots()?;
    let by = serve::decided_by(ctx.env.get("SSH_CLIENT"));
    if args.daemon_launch {
        launch(&args, &roots, Launch::Server).map_err(io("cannot start the server"))?;
        return Ok(0);
    }
    if args.daemon {
        daemon::detach();
        let log = daemon::private_file(
            std::fs::OpenOptions::new().create(true).append(true),
            &daemon::log_path(&roots),
        )
        .map_err(io("cannot open the server's log"))?;
        // Tests only: a connection taken as gone sooner than after 45 s of silence.
        let silence = ctx
            .env
            .get("PLANDECK_SERVE_SILENCE_MS")
            .and_then(|ms| ms.parse().ok())
            .map_or(daemon::SILENCE, Duration::from_millis);
        let opts = daemon::DaemonOptions {
            idle: Duration::from_secs(args.idle_exit),
            event_buffer: args.event_buffer,
            silence,
            ..Default::default()
        };
        daemon::run(&roots, opts, Arc::new(Mutex::new(log))).map_err(io("the server stopped"))?;
        return Ok(0);
    }
    // Without a way to check a socket peer's uid, no daemon: this process serves.
    if args.no_daemon || !daemon::AVAILABLE {
        let opts = serve::Options {
            by,
            event_buffer: args.event_buffer,
            ..Default::default()
        };
        let stdin = std::io::BufReader::new(std::io::stdin());
        serve::run(&roots, stdin, &mut Exact(out), &mut Said(err), opts)
            .map_err(io("cannot write a frame"))?;
        return Ok(0);
    }
    let start = || launch(&args, &roots, Launch::Launcher);
    daemon::relay(&roots, &by, std::io::stdin(), &mut Exact(out), &start)
        .map_err(io("cannot reach the Plandeck server on this machine"))?;
    Ok(0)
}

/// Runs this `plandeck` again as `serve --daemon-launch` or `--daemon` with the same folders and
/// options ([`daemon_home::launch`]): the launcher (waited for) starts the server (not waited for:
/// it outlives the launcher and belongs to no ssh session).
fn launch(args: &ServeArgs, roots: &Roots, how: Launch) -> std::io::Result<()> {
    let options = LaunchOptions {
        how,
        idle_exit: Some(Duration::from_secs(args.idle_exit)),
        event_buffer: Some(args.event_buffer),
    };
    daemon_home::launch(roots, &std::env::current_exe()?, &options)
}

/// Starts this user's long-lived server here (detached, through its launcher) unless it answers
/// already: what `plandeck phone on` does so that the page outlives the window.
/// Whether it runs is read from its lock, not by connecting (a connection would count as a
/// client). Waits until it holds its lock (30 s at most): `plandeck start --agent` hands it the
/// session next.
pub fn ensure_daemon(roots: &Roots) -> std::io::Result<()> {
    if daemon::is_running(roots) {
        return Ok(());
    }
    daemon_home::launch(roots, &std::env::current_exe()?, &LaunchOptions::default())?;
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !daemon::is_running(roots) {
        if std::time::Instant::now() > deadline {
            return Err(std::io::Error::other(format!(
                "it did not start within 30 s: see {}",
                daemon::log_path(roots).display()
            )));
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    Ok(())
}
