//! `plandeck sessions list`. (Being built: issue 6.)

use std::io::Write;

use clap::{Args, Subcommand};
use plandeck_core::ipc::{ErrorKind, IpcError};

use crate::Context;

#[derive(Debug, Args)]
pub struct SessionsArgs {
    #[command(subcommand)]
    pub command: SessionsCommand,
}

#[derive(Debug, Subcommand)]
pub enum SessionsCommand {
    /// Every session found, those that need you first.
    List {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

impl SessionsArgs {
    pub fn json(&self) -> bool {
        match &self.command {
            SessionsCommand::List { json } => *json,
        }
    }
}

pub fn run(_ctx: &Context, _args: SessionsArgs, _out: &mut dyn Write) -> Result<i32, IpcError> {
    Err(IpcError::new(ErrorKind::Internal, "not built yet"))
}
