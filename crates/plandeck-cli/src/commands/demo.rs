//! `plandeck demo [--into DIR] [--json]`: creates the demo workspace and says where it is, so
//! `HOME=<home> plandeck` opens the window on it (and tests can drive it).

use std::path::PathBuf;

use clap::Args;
use plandeck_core::ipc::{ErrorKind, IpcError};

use crate::{print_json, Context, Out};

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// The folder to create the workspace in (default: the temp dir).
    #[arg(long, value_name = "DIR")]
    pub into: Option<PathBuf>,
    /// Print JSON (`home`, `repo`).
    #[arg(long)]
    pub json: bool,
}

pub fn run(_ctx: &Context, args: DemoArgs, out: &mut Out<'_>) -> Result<i32, IpcError> {
    let parent = args.into.unwrap_or_else(std::env::temp_dir);
    let ws = plandeck_core::demo::create_with(&parent, None)?;
    if args.json {
        print_json(
            out,
            &serde_json::json!({ "home": ws.home, "repo": ws.repo }),
        )?;
    } else {
        writeln!(
            out,
            "Demo workspace: {}\nOpen it with: HOME={} plandeck",
            ws.home.display(),
            ws.home.display()
        )
        .map_err(|e| IpcError::new(ErrorKind::Io, e.to_string()))?;
    }
    Ok(0)
}
