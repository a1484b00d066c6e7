//! Session control: `plandeck start` (an agent in a new worktree, in the person's own tmux),
//! `send`, `interrupt`, `stop`, `resume` and `attach` (the same core calls as the window's).

use clap::Args;
use plandeck_core::agents::Agent;
use plandeck_core::control::{self, StartRequest, Started, StopPreview};
use plandeck_core::ipc::{ErrorKind, IpcError};
use plandeck_core::sessions;

use crate::{print_json, Context, Out};

#[derive(Debug, Args)]
pub struct StartArgs {
    /// claude, gemini or codex.
    #[arg(long)]
    pub agent: Agent,
    /// The repository to start in (its folder on this machine).
    #[arg(long)]
    pub repo: String,
    /// Start in a new worktree of this name (its branch is named so), beside the repository.
    #[arg(long)]
    pub worktree: Option<String>,
    /// The new worktree's base branch (default: the repository's HEAD).
    #[arg(long, requires = "worktree")]
    pub base: Option<String>,
    /// Start in the agent's plan mode.
    #[arg(long)]
    pub plan: bool,
    /// The first prompt.
    #[arg(long, allow_hyphen_values = true)]
    pub prompt: Option<String>,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct SendArgs {
    /// The session: its id, or the tmux session `plandeck start` named.
    pub id: String,
    /// The message.
    #[arg(allow_hyphen_values = true)]
    pub text: String,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct IdArgs {
    /// The session: its id, or the tmux session `plandeck start` named.
    pub id: String,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct StopArgs {
    /// The session: its id, or the tmux session `plandeck start` named.
    pub id: String,
    /// End what is listed; without it, only list what would be ended.
    #[arg(long)]
    pub yes: bool,
    #[arg(long)]
    pub json: bool,
}

fn io(e: std::io::Error) -> IpcError {
    IpcError::new(ErrorKind::Io, format!("cannot write output: {e}"))
}

pub(crate) fn request(args: &StartArgs) -> StartRequest {
    StartRequest {
        agent: args.agent,
        repo: args.repo.clone(),
        worktree: args.worktree.clone(),
        base: args.base.clone(),
        plan: args.plan,
        prompt: args.prompt.clone(),
    }
}

pub fn start(ctx: &Context, args: StartArgs, out: &mut Out<'_>) -> Result<i32, IpcError> {
    let roots = ctx.roots()?;
    let started = control::start(&roots, &request(&args))?;
    print_started(&started, args.json, out)
}

pub(crate) fn print_started(s: &Started, json: bool, out: &mut Out<'_>) -> Result<i32, IpcError> {
    if json {
        print_json(out, s)?;
        return Ok(0);
    }
    let mode = if s.plan { " in plan mode" } else { "" };
    writeln!(
        out,
        "started {}{mode} in {} (tmux session {}, pane {}, pid {})",
        s.agent.display_name(),
        s.cwd,
        s.tmux_session,
        s.pane,
        s.pid
    )
    .map_err(io)?;
    if let (Some(w), Some(b)) = (&s.worktree, &s.branch) {
        writeln!(out, "worktree: {w} (branch {b})").map_err(io)?;
    }
    match &s.session_id {
        Some(id) => writeln!(out, "session: {id}").map_err(io)?,
        None => writeln!(out, "session: found by {}", s.found_by).map_err(io)?,
    }
    writeln!(out, "attach: {}", s.attach).map_err(io)?;
    if let Some(h) = &s.hook {
        writeln!(
            out,
            "note: the plan hook of {} is not installed ({}): its plan will not wait in Plandeck. \
             Install it with `plandeck hooks install --agent {}`",
            h.agent.display_name(),
            h.settings_path,
            h.agent
        )
        .map_err(io)?;
    }
    Ok(0)
}

/// A done-message, as text or `{"message": …}`.
pub(crate) fn print_message(message: &str, json: bool, out: &mut Out<'_>) -> Result<i32, IpcError> {
    if json {
        print_json(out, &serde_json::json!({ "message": message }))?;
    } else {
        writeln!(out, "{message}").map_err(io)?;
    }
    Ok(0)
}

pub fn send(ctx: &Context, args: SendArgs, out: &mut Out<'_>) -> Result<i32, IpcError> {
    let roots = ctx.roots()?;
    let said = control::send_message(&roots, &args.id, &args.text)?;
    print_message(&said, args.json, out)
}

pub fn interrupt(ctx: &Context, args: IdArgs, out: &mut Out<'_>) -> Result<i32, IpcError> {
    let roots = ctx.roots()?;
    let said = control::interrupt(&roots, &args.id)?;
    print_message(&said, args.json, out)
}

pub(crate) fn print_preview(
    p: &StopPreview,
    json: bool,
    out: &mut Out<'_>,
) -> Result<i32, IpcError> {
    if json {
        print_json(out, p)?;
        return Ok(0);
    }
    writeln!(
        out,
        "would end {} (session {}):",
        p.agent.display_name(),
        p.id
    )
    .map_err(io)?;
    for line in &p.processes {
        writeln!(out, "  {} {}", line.pid, line.command).map_err(io)?;
    }
    writeln!(out, "run again with --yes to end them").map_err(io)?;
    Ok(0)
}

pub fn stop(ctx: &Context, args: StopArgs, out: &mut Out<'_>) -> Result<i32, IpcError> {
    let roots = ctx.roots()?;
    let preview = control::stop_preview(&roots, &args.id)?;
    if !args.yes {
        return print_preview(&preview, args.json, out);
    }
    let outcome = control::stop(&roots, &args.id, &preview.token)?;
    if args.json {
        print_json(out, &outcome)?;
    } else {
        writeln!(out, "{}", outcome.message).map_err(io)?;
    }
    Ok(0)
}

pub fn resume(ctx: &Context, args: IdArgs, out: &mut Out<'_>) -> Result<i32, IpcError> {
    let roots = ctx.roots()?;
    let known = sessions::list(&roots)
        .into_iter()
        .find(|s| s.session_id == args.id)
        .map(|s| (s.agent, s.cwd));
    let started = control::resume(&roots, &args.id, known)?;
    print_started(&started, args.json, out)
}

pub fn attach(ctx: &Context, args: IdArgs, out: &mut Out<'_>) -> Result<i32, IpcError> {
    let roots = ctx.roots()?;
    let said = control::open_in_terminal(&roots, &args.id)?;
    print_message(&said, args.json, out)
}
