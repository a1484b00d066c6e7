//! `plandeck agents list [--json]`: every agent a person can start, terminal and ACP, whether it
//! was found and what it can do (`core::acp::catalog`).

use clap::{Args, Subcommand};
use plandeck_core::acp::catalog;
use plandeck_core::ipc::{ErrorKind, IpcError};

use crate::{print_json, Context, Out};

#[derive(Debug, Args)]
pub struct AgentsArgs {
    #[command(subcommand)]
    pub action: AgentsAction,
}

#[derive(Debug, Subcommand)]
pub enum AgentsAction {
    /// The agents Plandeck can start: terminal agents (in tmux) and ACP agents, each found on
    /// the PATH or under the npm prefix.
    List {
        /// Print JSON (an array of {name, displayName, kind: terminal|acp, command, found, path,
        /// package, capabilities: {planGate, permissions, plans, sessions}}).
        #[arg(long)]
        json: bool,
    },
}

impl AgentsArgs {
    pub fn json(&self) -> bool {
        matches!(self.action, AgentsAction::List { json: true })
    }
}

pub fn run(ctx: &Context, args: AgentsArgs, out: &mut Out<'_>) -> Result<i32, IpcError> {
    let AgentsAction::List { json } = args.action;
    let rows = catalog::list(&ctx.env);
    if json {
        print_json(out, &rows)?;
        return Ok(0);
    }
    let io = |e: std::io::Error| IpcError::new(ErrorKind::Io, format!("cannot write output: {e}"));
    let width = rows.iter().map(|r| r.name.len()).max().unwrap_or(4).max(4);
    writeln!(out, "{:<width$}  KIND      FOUND  COMMAND", "NAME").map_err(io)?;
    for r in &rows {
        let kind = match r.kind {
            catalog::AgentKind::Terminal => "terminal",
            catalog::AgentKind::Acp => "acp",
        };
        let found = if r.found { "yes" } else { "no" };
        let hint = match (&r.package, r.found) {
            (Some(p), false) => format!("  (npm package {p})"),
            _ => String::new(),
        };
        writeln!(
            out,
            "{:<width$}  {kind:<8}  {found:<5}  {}{hint}",
            r.name, r.command
        )
        .map_err(io)?;
    }
    Ok(0)
}
