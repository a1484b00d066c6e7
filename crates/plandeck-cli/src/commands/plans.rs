//! `plandeck plans list|show|diff`. (Being built: issue 3; `diff` with issue 4.)

use std::io::Write;

use clap::{Args, Subcommand};
use plandeck_core::ipc::{ErrorKind, IpcError};

use crate::Context;

#[derive(Debug, Args)]
pub struct PlansArgs {
    #[command(subcommand)]
    pub command: PlansCommand,
}

#[derive(Debug, Subcommand)]
pub enum PlansCommand {
    /// Every plan found, newest first.
    List {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// One plan, by id or path.
    Show {
        /// The plan's id (from `plans list`) or its path.
        plan: String,
        /// Print the sanitized HTML.
        #[arg(long, conflicts_with = "md")]
        html: bool,
        /// Print the markdown source.
        #[arg(long)]
        md: bool,
        /// Print JSON (summary, html, source).
        #[arg(long)]
        json: bool,
    },
    /// The plan against its approved version (or two given versions).
    Diff(super::review::DiffArgs),
}

impl PlansArgs {
    pub fn json(&self) -> bool {
        match &self.command {
            PlansCommand::List { json } | PlansCommand::Show { json, .. } => *json,
            PlansCommand::Diff(d) => d.json,
        }
    }
}

pub fn run(ctx: &Context, args: PlansArgs, out: &mut dyn Write) -> Result<i32, IpcError> {
    match args.command {
        PlansCommand::Diff(d) => super::review::diff(ctx, d, out),
        _ => Err(IpcError::new(ErrorKind::Internal, "not built yet")),
    }
}
