//! `plandeck approve|reject|log` and `plandeck plans diff`. (Being built: issue 4.)

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use plandeck_core::ipc::{ErrorKind, IpcError};

use crate::Context;

#[derive(Debug, Args)]
pub struct ApproveArgs {
    /// The plan's id or path.
    pub target: String,
    /// Approve this edited version instead: the plan file is rewritten with it first.
    #[arg(long, value_name = "FILE")]
    pub edit: Option<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct RejectArgs {
    /// The plan's id or path.
    pub target: String,
    /// What the agent should change.
    #[arg(long)]
    pub feedback: String,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct LogArgs {
    /// Only decisions on this plan (id or path).
    #[arg(long)]
    pub plan: Option<String>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The plan's id or path.
    pub plan: String,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

impl ApproveArgs {
    pub fn json(&self) -> bool {
        self.json
    }
}
impl RejectArgs {
    pub fn json(&self) -> bool {
        self.json
    }
}
impl LogArgs {
    pub fn json(&self) -> bool {
        self.json
    }
}

fn not_yet() -> IpcError {
    IpcError::new(ErrorKind::Internal, "not built yet")
}

pub fn approve(_ctx: &Context, _args: ApproveArgs, _out: &mut dyn Write) -> Result<i32, IpcError> {
    Err(not_yet())
}
pub fn reject(_ctx: &Context, _args: RejectArgs, _out: &mut dyn Write) -> Result<i32, IpcError> {
    Err(not_yet())
}
pub fn log(_ctx: &Context, _args: LogArgs, _out: &mut dyn Write) -> Result<i32, IpcError> {
    Err(not_yet())
}
pub fn diff(_ctx: &Context, _args: DiffArgs, _out: &mut dyn Write) -> Result<i32, IpcError> {
    Err(not_yet())
}
