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
    /// claude, gemini or codex (in tmux), or an ACP agent (`plandeck agents list`: claude-acp,
    /// codex-acp, gemini-acp, opencode), hosted by this user's Plandeck server.
    #[arg(long)]
    pub agent: String,
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

/// The terminal agent `--agent` names, or why not (an ACP agent is no terminal agent).
pub(crate) fn terminal_agent(args: &StartArgs) -> Result<Agent, IpcError> {
    args.agent.parse::<Agent>().map_err(|_| {
        IpcError::new(
            ErrorKind::BadInput,
            format!(
                "{:?} is not an agent Plandeck starts here: claude, gemini, codex, or an ACP agent                  of `plandeck agents list` on this machine",
                args.agent.chars().take(80).collect::<String>()
            ),
        )
    })
}

pub(crate) fn request(args: &StartArgs, agent: Agent) -> StartRequest {
    StartRequest {
        agent,
        repo: args.repo.clone(),
        worktree: args.worktree.clone(),
        base: args.base.clone(),
        plan: args.plan,
        prompt: args.prompt.clone(),
    }
}

pub fn start(ctx: &Context, args: StartArgs, out: &mut Out<'_>) -> Result<i32, IpcError> {
    let roots = ctx.roots()?;
    if plandeck_core::acp::catalog::acp_entry(&args.agent).is_some() {
        return start_acp(&roots, &args, out);
    }
    let agent = terminal_agent(&args)?;
    let started = control::start(&roots, &request(&args, agent))?;
    print_started(&started, args.json, out)
}

/// `plandeck start --agent <ACP agent>`: the session is asked of this user's Plandeck server
/// (started when none runs), which starts the agent and hosts it: it outlives this command and
/// the window. Waits until the agent started (or failed), then prints the session.
fn start_acp(
    roots: &plandeck_core::config::Roots,
    args: &StartArgs,
    out: &mut Out<'_>,
) -> Result<i32, IpcError> {
    ensure_server(roots)?;
    let asked = control::start_acp(
        roots,
        &args.agent,
        &args.repo,
        args.worktree.as_deref(),
        args.base.as_deref(),
        args.plan,
        args.prompt.clone(),
    )?;
    let hosted = hosted_once(
        roots,
        &asked.id,
        |_| true,
        || {
            format!(
                "the Plandeck server did not start {} within 150 s (session {}): see its log",
                asked.agent, asked.id
            )
        },
        |problem| format!("{} did not start: {problem}", asked.agent),
    )?;
    if args.json {
        print_json(
            out,
            &serde_json::json!({
                "id": asked.id,
                "agent": asked.agent,
                "kind": "acp",
                "cwd": asked.cwd,
                "worktree": asked.worktree,
                "branch": asked.branch,
                "plan": asked.plan,
                "sessionId": hosted.session_id,
                "mode": hosted.mode,
                "modes": hosted.modes,
                "state": hosted.state,
                "hostPid": hosted.host_pid,
                "agentPid": hosted.agent_pid,
            }),
        )?;
        return Ok(0);
    }
    writeln!(
        out,
        "started {} in {} (session {}, hosted by this user's Plandeck server, pid {}){}",
        hosted.display_name,
        asked.cwd,
        asked.id,
        hosted.host_pid,
        match &hosted.mode {
            Some(m) => format!("; mode {m}"),
            None => String::new(),
        }
    )
    .map_err(io)?;
    if let (Some(w), Some(b)) = (&asked.worktree, &asked.branch) {
        writeln!(out, "worktree: {w} (branch {b})").map_err(io)?;
    }
    Ok(0)
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

/// An ACP session hosted by this user's server (`acps-…`): Send, Interrupt and Stop are handed
/// to its host.
fn acp_command(
    ctx: &Context,
    id: &str,
    command: plandeck_core::acp::host::Command,
    done: &str,
    json: bool,
    out: &mut Out<'_>,
) -> Result<i32, IpcError> {
    use plandeck_core::acp::host;
    let roots = ctx.roots()?;
    host::command(&roots, id, &command).map_err(IpcError::from)?;
    print_message(done, json, out)
}

/// Starts this user's Plandeck server unless it runs (it hosts the ACP sessions).
fn ensure_server(roots: &plandeck_core::config::Roots) -> Result<(), IpcError> {
    super::serve::ensure_daemon(roots).map_err(|e| {
        IpcError::new(
            ErrorKind::Io,
            format!("cannot start the Plandeck server: {e}"),
        )
    })
}

/// The record of the hosted ACP session `id` once its host took it (`taken`) and it is past
/// starting, read every 50 ms for 150 s at most: refused with `timed_out`'s words when it did not
/// come, and with `failed`'s (given the host's problem) when the agent failed.
fn hosted_once(
    roots: &plandeck_core::config::Roots,
    id: &str,
    taken: impl Fn(&plandeck_core::acp::host::Hosted) -> bool,
    timed_out: impl FnOnce() -> String,
    failed: impl FnOnce(&str) -> String,
) -> Result<plandeck_core::acp::host::Hosted, IpcError> {
    let asked = std::time::Instant::now();
    let hosted = loop {
        match plandeck_core::acp::host::get(roots, id) {
            Some(h) if taken(&h) && h.state != "starting" => break h,
            _ if asked.elapsed() > std::time::Duration::from_secs(150) => {
                return Err(IpcError::new(ErrorKind::Internal, timed_out()))
            }
            _ => std::thread::sleep(std::time::Duration::from_millis(50)),
        }
    };
    if hosted.state == "failed" {
        return Err(IpcError::new(
            ErrorKind::Unsupported,
            failed(hosted.problem.as_deref().unwrap_or("?")),
        ));
    }
    Ok(hosted)
}

/// `plandeck resume acps-…`: a hosted ACP session whose host ended is hosted again by this
/// user's server (started when none runs): its agent started anew, its session loaded
/// (`session/load`, where the agent offers it). Waits until it is loaded (or failed).
fn resume_acp(ctx: &Context, args: &IdArgs, out: &mut Out<'_>) -> Result<i32, IpcError> {
    use plandeck_core::acp::host;
    let roots = ctx.roots()?;
    // The same server may host it again: its record's next write tells the new host took it.
    let before = host::get(&roots, &args.id)
        .map(|h| h.updated)
        .ok_or_else(|| IpcError::from(host::HostError::NotFound(args.id.clone())))?;
    host::request_resume(&roots, &args.id).map_err(IpcError::from)?;
    ensure_server(&roots)?;
    let hosted = hosted_once(
        &roots,
        &args.id,
        |h| h.updated != before,
        || {
            format!(
                "the Plandeck server did not resume {} within 150 s: see its log",
                args.id
            )
        },
        |problem| format!("{} was not resumed: {problem}", args.id),
    )?;
    print_resumed(&hosted, "plandeck", args.json, out)
}

/// A resumed hosted ACP session, as text or JSON; `plandeck` is how the person names the command
/// that reaches it (`plandeck --host NAME` for another machine's).
pub(crate) fn print_resumed(
    hosted: &plandeck_core::acp::host::Hosted,
    plandeck: &str,
    json: bool,
    out: &mut Out<'_>,
) -> Result<i32, IpcError> {
    if json {
        print_json(
            out,
            &serde_json::json!({
                "id": hosted.id,
                "agent": hosted.agent,
                "kind": "acp",
                "cwd": hosted.cwd,
                "sessionId": hosted.session_id,
                "mode": hosted.mode,
                "state": hosted.state,
                "hostPid": hosted.host_pid,
                "agentPid": hosted.agent_pid,
            }),
        )?;
        return Ok(0);
    }
    print_message(
        &format!(
            "Resumed {} ({}): its agent loaded the session; send it a message with `{plandeck} send {}`.",
            cut(&hosted.id, 80), cut(&hosted.agent, 80), cut(&hosted.id, 80)
        ),
        false,
        out,
    )
}

/// Whether `id` names a hosted ACP session (`acps-…`) rather than a terminal one.
pub(crate) fn is_acp_session(id: &str) -> bool {
    id.starts_with("acps-")
}

/// What Send of a hosted ACP session did.
pub(crate) const ACP_SENT: &str = "Sent: the agent's next turn starts with it (session/prompt).";
/// What Interrupt of a hosted ACP session did.
pub(crate) const ACP_INTERRUPTED: &str =
    "Interrupted: the agent was asked to end its turn (session/cancel).";

/// What Stop of the hosted session `hosted` ends, for a person; refused when it no longer runs
/// (there is nothing to end).
pub(crate) fn acp_stop_what(hosted: &plandeck_core::acp::host::Hosted) -> Result<String, IpcError> {
    if matches!(hosted.live_state(), "ended" | "failed") {
        return Err(IpcError::from(plandeck_core::acp::host::HostError::Ended(
            hosted.id.clone(),
        )));
    }
    Ok(format!(
        "{} (its process group, pid {}) in {}",
        cut(&hosted.display_name, 100),
        hosted
            .agent_pid
            .map_or_else(|| "?".to_owned(), |p| p.to_string()),
        cut(&hosted.cwd, 300)
    ))
}

/// `text` cut to `max` characters (`…` said where it was cut): what another machine sends is
/// printed bounded.
pub(crate) fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut t: String = text.chars().take(max).collect();
    t.push('…');
    t
}

/// The most processes Stop's preview lists one by one (the rest counted).
const STOP_LISTED: usize = 200;

/// Stop's preview: every process it ends, the agent first, as the window lists them (at most
/// [`STOP_LISTED`], each command at most 300 characters, the rest counted: another machine's
/// list is printed bounded).
pub(crate) fn acp_stop_listing(
    what: &str,
    processes: &[plandeck_core::control::ProcessLine],
) -> String {
    let mut message = format!("would end {what}:");
    for p in processes.iter().take(STOP_LISTED) {
        message.push_str(&format!("\n  {} {}", p.pid, cut(&p.command, 300)));
    }
    if processes.len() > STOP_LISTED {
        message.push_str(&format!(
            "\n  … and {} more processes",
            processes.len() - STOP_LISTED
        ));
    }
    message.push_str("\nrerun with --yes to end them");
    message
}

pub fn send(ctx: &Context, args: SendArgs, out: &mut Out<'_>) -> Result<i32, IpcError> {
    if is_acp_session(&args.id) {
        return acp_command(
            ctx,
            &args.id,
            plandeck_core::acp::host::Command::Send { text: args.text },
            ACP_SENT,
            args.json,
            out,
        );
    }
    let roots = ctx.roots()?;
    let said = control::send_message(&roots, &args.id, &args.text)?;
    print_message(&said, args.json, out)
}

pub fn interrupt(ctx: &Context, args: IdArgs, out: &mut Out<'_>) -> Result<i32, IpcError> {
    if is_acp_session(&args.id) {
        return acp_command(
            ctx,
            &args.id,
            plandeck_core::acp::host::Command::Interrupt,
            ACP_INTERRUPTED,
            args.json,
            out,
        );
    }
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
    if is_acp_session(&args.id) {
        let roots = ctx.roots()?;
        let hosted = plandeck_core::acp::host::get(&roots, &args.id).ok_or_else(|| {
            IpcError::new(
                ErrorKind::NotFound,
                format!(
                    "no hosted ACP session {}",
                    args.id.chars().take(80).collect::<String>()
                ),
            )
        })?;
        let what = acp_stop_what(&hosted)?;
        if !args.yes {
            let processes = plandeck_core::control::acp_stop_preview(&hosted);
            return print_message(&acp_stop_listing(&what, &processes), args.json, out);
        }
        return acp_command(
            ctx,
            &args.id,
            plandeck_core::acp::host::Command::Stop,
            &format!("Stopping {what}."),
            args.json,
            out,
        );
    }
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
    if is_acp_session(&args.id) {
        return resume_acp(ctx, &args, out);
    }
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
