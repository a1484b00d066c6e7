//! `plandeck serve --stdio`: a headless Plandeck holding the live state of this machine, speaking
//! line-delimited JSON frames on stdin/stdout ([`plandeck_core::serve`]) until stdin ends; what
//! it cannot use is said on stderr. Started by another machine's Plandeck over its SSH.

use std::io::Write;

use clap::Args;
use plandeck_core::ipc::{ErrorKind, IpcError};
use plandeck_core::serve;

use crate::{Context, Out};

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Speak on stdin/stdout (the only transport: run it through `ssh -T`).
    #[arg(long, required = true)]
    pub stdio: bool,
    /// How many events are kept for a client that resumes (tests make it small).
    #[arg(long, hide = true, default_value_t = serve::EVENT_BUFFER)]
    pub event_buffer: usize,
}

/// Frames go out exactly as serialized (JSON escapes what needs escaping).
struct Exact<'a, 'b>(&'a mut Out<'b>);

impl Write for Exact<'_, '_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let text = std::str::from_utf8(buf).map_err(std::io::Error::other)?;
        self.0.exact(text)?;
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

// The requests are stdin, read on the server's own thread.
#[allow(clippy::disallowed_methods)]
pub fn run(
    ctx: &Context,
    args: ServeArgs,
    out: &mut Out<'_>,
    err: &mut Out<'_>,
) -> Result<i32, IpcError> {
    let roots = ctx.roots()?;
    let opts = serve::Options {
        by: serve::decided_by(ctx.env.get("SSH_CLIENT")),
        event_buffer: args.event_buffer,
        ..Default::default()
    };
    let stdin = std::io::BufReader::new(std::io::stdin());
    serve::run(&roots, stdin, &mut Exact(out), &mut Said(err), opts)
        .map_err(|e| IpcError::new(ErrorKind::Io, format!("cannot write a frame: {e}")))?;
    Ok(0)
}
