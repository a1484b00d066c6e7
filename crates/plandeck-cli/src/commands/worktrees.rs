//! `plandeck worktrees list|remove|keep`. (Being built: issue 7.)

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, Subcommand};
use plandeck_core::ipc::{ErrorKind, IpcError};

use crate::Context;

#[derive(Debug, Args)]
pub struct WorktreesArgs {
    #[command(subcommand)]
    pub command: WorktreesCommand,
}

#[derive(Debug, Subcommand)]
pub enum WorktreesCommand {
    /// Every worktree of every repository seen in sessions (or only of --repo).
    List {
        /// Only this repository.
        #[arg(long, value_name = "PATH")]
        repo: Option<PathBuf>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Remove a worktree and its branch; refuses when work would be lost unless --discard.
    Remove {
        path: PathBuf,
        /// Confirm that changed files and unmerged commits may be discarded.
        #[arg(long)]
        discard: bool,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Keep a worktree: leave it on disk and remember the choice.
    Keep {
        path: PathBuf,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

impl WorktreesArgs {
    pub fn json(&self) -> bool {
        match &self.command {
            WorktreesCommand::List { json, .. } | WorktreesCommand::Remove { json, .. } | WorktreesCommand::Keep { json, .. } => *json,
        }
    }
}

pub fn run(_ctx: &Context, _args: WorktreesArgs, _out: &mut dyn Write) -> Result<i32, IpcError> {
    Err(IpcError::new(ErrorKind::Internal, "not built yet"))
}
