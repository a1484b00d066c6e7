//! `plandeck sessions list`: every agent session on the machine with its state, those that need
//! the person first.

use clap::{Args, Subcommand};
use plandeck_core::ipc::{ErrorKind, IpcError};
use plandeck_core::sessions::{self, SessionSummary};

use crate::{print_json, Context, Out};

#[derive(Debug, Args)]
pub struct SessionsArgs {
    /// With none, `list`.
    #[command(subcommand)]
    pub command: Option<SessionsCommand>,
    /// Print JSON instead of text (`plandeck sessions --json` is `sessions list --json`).
    #[arg(long)]
    pub json: bool,
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
            Some(SessionsCommand::List { json }) => *json || self.json,
            None => self.json,
        }
    }
}

pub fn run(ctx: &Context, args: SessionsArgs, out: &mut Out<'_>) -> Result<i32, IpcError> {
    let roots = ctx.roots()?;
    let json = args.json();
    match args.command.unwrap_or(SessionsCommand::List { json }) {
        SessionsCommand::List { .. } => {
            let mut list = sessions::list(&roots);
            // ACP sessions hosted by this user's server (`plandeck start --agent claude-acp`),
            // with what their agents' own records tell and they did not (read before those
            // records are folded into them).
            let mut hosted = plandeck_core::acp::host::list(&roots);
            for h in &mut hosted {
                plandeck_core::acp::host::fill_from_records(h, |sid| {
                    list.iter().find(|s| s.session_id == sid).cloned()
                });
            }
            plandeck_core::standing::settle_listed(&roots, &mut list);
            if hosted.is_empty() {
                return print_sessions(&list, &roots.home, json, out);
            }
            if json {
                let mut rows: Vec<serde_json::Value> = Vec::new();
                for s in &list {
                    rows.push(
                        serde_json::to_value(s)
                            .map_err(|e| IpcError::new(ErrorKind::Internal, e.to_string()))?,
                    );
                }
                rows.extend(hosted.iter().map(|h| h.row()));
                print_json(out, &rows)?;
                return Ok(0);
            }
            print_sessions(&list, &roots.home, false, out)?;
            let io = |e: std::io::Error| {
                IpcError::new(ErrorKind::Io, format!("cannot write output: {e}"))
            };
            writeln!(out, "\nACP sessions hosted by this user's Plandeck server:").map_err(io)?;
            for h in &hosted {
                let cost = h
                    .usage
                    .cost_usd
                    .map(|c| format!("  ${c:.4}"))
                    .unwrap_or_default();
                writeln!(
                    out,
                    "{:<22} {:<10} {:<22} {:<12} {}{}{cost}",
                    h.live_state(),
                    h.agent,
                    h.id,
                    h.mode.as_deref().unwrap_or("-"),
                    tilde(&h.cwd, &roots.home),
                    if h.gated { "" } else { "  UNGATED" }
                )
                .map_err(io)?;
            }
            Ok(0)
        }
    }
}

/// The sessions as `sessions list` prints them (here or from another machine: `home` shortens
/// paths, empty for none).
pub(crate) fn print_sessions(
    list: &[SessionSummary],
    home: &std::path::Path,
    json: bool,
    out: &mut Out<'_>,
) -> Result<i32, IpcError> {
    if json {
        print_json(out, &list)?;
    } else {
        write_table(out, list, home)
            .map_err(|e| IpcError::new(ErrorKind::Io, format!("cannot write output: {e}")))?;
    }
    Ok(0)
}

/// `~/…` for paths under the home folder: shorter and just as clear.
fn tilde(path: &str, home: &std::path::Path) -> String {
    match std::path::Path::new(path).strip_prefix(home) {
        Ok(rest) if !home.as_os_str().is_empty() => format!("~/{}", rest.display()),
        _ => path.to_owned(),
    }
}

use crate::clip;

fn write_table(
    out: &mut Out<'_>,
    list: &[SessionSummary],
    home: &std::path::Path,
) -> std::io::Result<()> {
    if list.is_empty() {
        writeln!(out, "No agent sessions found.")?;
        return Ok(());
    }
    writeln!(
        out,
        "{:<22} {:<7} {:<10} {:<19} {:<12} WHERE / WHAT",
        "STATE", "AGENT", "SESSION", "LAST ACTIVITY (UTC)", "MODE"
    )?;
    for s in list {
        let last = s
            .last_activity
            .as_deref()
            .map(|t| t.get(..16).unwrap_or(t).replace('T', " "))
            .unwrap_or_else(|| "-".into());
        let id: String = s.session_id.chars().take(8).collect();
        let place = s.worktree.as_deref().unwrap_or(&s.cwd);
        let mut what = tilde(place, home);
        if let Some(b) = &s.git_branch {
            what.push_str(&format!(" [{b}]"));
        }
        writeln!(
            out,
            "{:<22} {:<7} {:<10} {:<19} {:<12} {}",
            s.state.as_str(),
            s.agent.as_str(),
            id,
            last,
            clip(s.permission_mode.as_deref().unwrap_or("-"), 12),
            what
        )?;
        let mut details = Vec::new();
        if let Some(t) = &s.title {
            details.push(format!("\"{}\"", clip(t, 60)));
        }
        if let Some(p) = &s.plan_path {
            details.push(format!("plan {}", tilde(p, home)));
        }
        if let Some(t) = &s.tasks {
            details.push(format!("tasks {}/{}", t.done, t.total));
        }
        if let Some(p) = &s.tmux_pane {
            details.push(format!("tmux {p}"));
        }
        if s.unreadable_lines > 0 {
            details.push(format!("{} unreadable lines", s.unreadable_lines));
        }
        if !details.is_empty() {
            writeln!(out, "{:<22} {}", "", details.join(" · "))?;
        }
    }
    Ok(())
}
