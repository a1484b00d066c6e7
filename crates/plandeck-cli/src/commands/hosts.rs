//! `plandeck hosts add|list|remove`: the other machines Plandeck reaches over your own SSH
//! (`plandeck --host NAME …`), kept in the settings file.

use clap::{Args, Subcommand};
use plandeck_core::config;
use plandeck_core::ipc::{ErrorKind, IpcError};

use crate::{print_json, Context, Out};

#[derive(Debug, Args)]
pub struct HostsArgs {
    #[command(subcommand)]
    pub action: HostsAction,
}

#[derive(Debug, Subcommand)]
pub enum HostsAction {
    /// Add a machine: `plandeck hosts add lab --ssh me@lab.example` (any destination your own
    /// `ssh` takes, with your ~/.ssh/config, keys, agent and known_hosts).
    Add {
        /// What you call it (`--host NAME`): letters, digits, `-`, `_`.
        name: String,
        /// Where ssh goes: `user@host`, `host` or an alias of ~/.ssh/config.
        #[arg(long, value_name = "DEST", allow_hyphen_values = true)]
        ssh: String,
        /// Forward your ssh agent there (off unless given, whatever your ssh config says): the
        /// Plandeck there, and every agent it starts, can then use your keys while connected.
        #[arg(long)]
        forward_agent: bool,
    },
    /// The machines added, in order.
    List {
        /// Print JSON (an array of {name, ssh, forwardAgent}).
        #[arg(long)]
        json: bool,
    },
    /// Copy this plandeck to the machine's ~/.local/bin/plandeck over your ssh (same system and
    /// processor only; otherwise install the package there), then check that it answers.
    Install {
        /// Its name.
        name: String,
    },
    /// Forget a machine (nothing on it is touched).
    Remove {
        /// Its name.
        name: String,
    },
}

impl HostsArgs {
    pub fn json(&self) -> bool {
        matches!(self.action, HostsAction::List { json: true })
    }
}

fn io(e: std::io::Error) -> IpcError {
    IpcError::new(ErrorKind::Io, format!("cannot write output: {e}"))
}

pub fn run(ctx: &Context, args: HostsArgs, out: &mut Out<'_>) -> Result<i32, IpcError> {
    let roots = ctx.roots()?;
    let settings = roots.settings_path();
    match args.action {
        HostsAction::Add {
            name,
            ssh,
            forward_agent,
        } => {
            let host = config::add_host_with(&settings, &name, &ssh, forward_agent)?;
            let agent = if host.forward_agent {
                "your ssh agent is forwarded there"
            } else {
                "nothing forwarded"
            };
            writeln!(
                out,
                "Added {} (ssh {}, {agent}). Try: plandeck --host {} plans list",
                host.name, host.ssh, host.name
            )
            .map_err(io)?;
        }
        HostsAction::List { json } => {
            let hosts = config::hosts(&settings)?;
            if json {
                let rows: Vec<_> = hosts
                    .iter()
                    .map(|h| {
                        serde_json::json!({
                            "name": h.name,
                            "ssh": h.ssh,
                            "forwardAgent": h.forward_agent,
                        })
                    })
                    .collect();
                print_json(out, &rows)?;
            } else if hosts.is_empty() {
                writeln!(
                    out,
                    "No machines yet: plandeck hosts add NAME --ssh user@host"
                )
                .map_err(io)?;
            } else {
                let width = hosts.iter().map(|h| h.name.len()).max().unwrap_or(0).max(4);
                writeln!(out, "{:<width$}  AGENT      SSH", "NAME").map_err(io)?;
                for h in &hosts {
                    let agent = if h.forward_agent { "forwarded" } else { "-" };
                    writeln!(out, "{:<width$}  {agent:<9}  {}", h.name, h.ssh).map_err(io)?;
                }
            }
        }
        HostsAction::Install { name } => {
            let host = config::host(&settings, &name)?;
            let exe = std::env::current_exe().map_err(|e| {
                IpcError::new(
                    ErrorKind::Io,
                    format!("cannot tell where this plandeck is: {e}"),
                )
            })?;
            // The `plandeck` people type (installed beside `plandeck-cli`) when only its owner
            // (or root) can change it, else this one: a `plandeck` someone else could have put
            // or changed there is never copied.
            let binary = plandeck_core::shell::trusted_sibling(&exe, "plandeck").unwrap_or(exe);
            let done = plandeck_core::remote::install(&host, &ctx.env, &binary)?;
            writeln!(
                out,
                "{} runs {}, as this build does.\nCopied {} ({:.1} MB, SHA-256 {}, checked \
                 there) to {} on {} (ssh {}).\nIt answers: plandeck {}, protocol {}.\nTry: \
                 plandeck --host {} plans list",
                host.name,
                done.platform,
                binary.display(),
                done.bytes as f64 / 1e6,
                done.sha256,
                done.path,
                host.name,
                host.ssh,
                done.hello.version,
                done.hello.protocol,
                host.name
            )
            .map_err(io)?;
        }
        HostsAction::Remove { name } => {
            let host = config::remove_host(&settings, &name)?;
            writeln!(out, "Removed {} (ssh {}).", host.name, host.ssh).map_err(io)?;
        }
    }
    Ok(0)
}
