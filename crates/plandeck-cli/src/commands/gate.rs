//! `plandeck hook claude|gemini`, `plandeck hooks install|uninstall`, `plandeck pending`, and the
//! request side of `plandeck approve|reject` ([`approve_request`], [`reject_request`]).

use std::io::{BufRead, IsTerminal, Read};
use std::path::Path;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Args, Subcommand};
use plandeck_core::agents::driver::HookRun;
use plandeck_core::agents::{self, Agent};
use plandeck_core::gate::{
    self, ApproveMode, DecisionOutcome, DeliveryOptions, GateDecision, InstallPlan,
};
use plandeck_core::ipc::{ErrorKind, IpcError};

use crate::{print_json, Context, Out};

/// The agents whose plan approvals can be gated (a plan-approval hook), as `--agent` values: the
/// list is core's ([`plandeck_core::agents::all`]).
fn gated_agent() -> impl TypedValueParser<Value = Agent> {
    let ids = agents::all()
        .iter()
        .filter(|d| d.capabilities.gate)
        .map(|d| d.id);
    PossibleValuesParser::new(ids).try_map(|id| id.parse::<Agent>().map_err(std::io::Error::other))
}

/// Every hook `plandeck hook <name>` runs, with its agent: each agent's driver lists its own
/// ([`plandeck_core::agents::Driver::hooks`]).
fn all_hooks() -> impl Iterator<Item = (Agent, &'static HookRun)> {
    agents::all()
        .iter()
        .flat_map(|d| agents::driver(d.agent).hooks().iter().map(|h| (d.agent, h)))
}

/// Which hook runs: an agent's plan-approval hook, Claude Code's Stop hook (`claude-stop`) or
/// its teammate gate (`claude-team`).
fn hook_name() -> impl TypedValueParser<Value = String> {
    let values = all_hooks().map(|(_, h)| PossibleValue::new(h.name).help(h.help));
    PossibleValuesParser::new(values.collect::<Vec<_>>())
}

#[derive(Debug, Args)]
pub struct HookArgs {
    /// Which hook this is (reads the agent's hook JSON on stdin).
    #[arg(value_parser = hook_name())]
    pub agent: String,
}

#[derive(Debug, Args)]
pub struct HooksArgs {
    #[command(subcommand)]
    pub action: HooksAction,
}

#[derive(Debug, Subcommand)]
pub enum HooksAction {
    /// Add Plandeck's plan-approval hook to the agent's settings (shows the change first).
    Install(HooksTarget),
    /// Remove exactly what `install` added.
    Uninstall(HooksTarget),
}

#[derive(Debug, Args)]
pub struct HooksTarget {
    #[arg(long, value_parser = gated_agent())]
    pub agent: Agent,
    /// The Claude Code `Stop` hook that sends the verification report back (`hook claude-stop`)
    /// instead of the plan-approval hook.
    #[arg(long)]
    pub verify: bool,
    /// The teammate gate for Claude Code agent teams (`hook claude-team`): holds a teammate's
    /// plan until you decide, before its lead approves it.
    #[arg(long, conflicts_with = "verify")]
    pub team: bool,
    /// Write without asking.
    #[arg(long)]
    pub yes: bool,
}

#[derive(Debug, Args)]
pub struct PendingArgs {
    /// Print JSON (an array of requests).
    #[arg(long)]
    pub json: bool,
}

impl PendingArgs {
    pub fn json(&self) -> bool {
        self.json
    }
}

fn io_err(e: std::io::Error) -> IpcError {
    IpcError::new(ErrorKind::Io, format!("cannot write output: {e}"))
}

/// `plandeck hook <agent>`: never fails the agent; every problem is a line on stderr and exit 0.
pub fn hook(
    ctx: &Context,
    args: HookArgs,
    out: &mut Out<'_>,
    err: &mut Out<'_>,
) -> Result<i32, IpcError> {
    let Some((agent, run)) = all_hooks().find(|(_, h)| h.name == args.agent) else {
        let _ = writeln!(err, "plandeck hook {}: no such hook", args.agent);
        return Ok(0);
    };
    let roots = match ctx.roots() {
        Ok(r) => r,
        Err(e) => {
            let _ = writeln!(
                err,
                "plandeck hook {agent}: {}; no decision given",
                e.message
            );
            if !run.no_answer.is_empty() {
                let _ = out.exact(run.no_answer);
            }
            return Ok(0);
        }
    };
    let mut stdin = Vec::new();
    // The hook JSON is small; a bound keeps a runaway writer from filling memory (one byte more
    // than the parser takes, so it can say the input was too big).
    let _ = std::io::stdin()
        .lock()
        .take(gate::MAX_HOOK_INPUT as u64 + 1)
        .read_to_end(&mut stdin);
    let outcome = (run.run)(&roots, &stdin);
    // The hook's answer is read by the agent: exact. Its messages are read by a person.
    let _ = out.exact(&outcome.stdout);
    let _ = out.flush();
    let _ = write!(err, "{}", outcome.stderr);
    Ok(outcome.exit_code)
}

/// `plandeck hooks install|uninstall --agent …`.
pub fn hooks(
    ctx: &Context,
    args: HooksArgs,
    out: &mut Out<'_>,
    err: &mut Out<'_>,
) -> Result<i32, IpcError> {
    let roots = ctx.roots()?;
    let (install, target) = match args.action {
        HooksAction::Install(t) => (true, t),
        HooksAction::Uninstall(t) => (false, t),
    };
    let agent = target.agent;
    if target.verify && !agent.descriptor().is_some_and(|d| d.capabilities.stop_hook) {
        return Err(IpcError::new(
            ErrorKind::BadInput,
            "--verify installs Claude Code's Stop hook: use it with --agent claude",
        ));
    }
    if target.team && !agents::driver(agent).team_gate() {
        return Err(IpcError::new(
            ErrorKind::BadInput,
            "--team installs the teammate gate of Claude Code agent teams: use it with --agent claude",
        ));
    }
    use plandeck_core::gate::hook_team as team;
    use plandeck_core::verify::install as stop;
    let plan = match (install, target.verify, target.team) {
        (true, _, true) => team::install_plan(&roots)?,
        (false, _, true) => team::uninstall_plan(&roots)?,
        (true, false, _) => gate::install_plan(&roots, agent)?,
        (false, false, _) => gate::uninstall_plan(&roots, agent)?,
        (true, true, _) => stop::install_plan(&roots)?,
        (false, true, _) => stop::uninstall_plan(&roots)?,
    };
    if !plan.changed {
        let what = if install {
            "already installed"
        } else {
            "not installed"
        };
        writeln!(
            out,
            "{}: {what}; nothing to change in {}",
            agent.display_name(),
            plan.settings_path
        )
        .map_err(io_err)?;
        return Ok(0);
    }
    show_plan(&plan, out)?;
    if !target.yes && !confirm(&plan, out, err)? {
        return Ok(1);
    }
    // Written only if the change is still the one shown above (the file did not change since).
    let report = match (install, target.verify, target.team) {
        (_, _, true) => team::set_if_unchanged(&roots, install, &plan.token)?,
        (true, false, _) => gate::install_if_unchanged(&roots, agent, &plan.token)?,
        (false, false, _) => gate::uninstall_if_unchanged(&roots, agent, &plan.token)?,
        (true, true, _) => stop::install_if_unchanged(&roots, &plan.token)?,
        (false, true, _) => stop::uninstall_if_unchanged(&roots, &plan.token)?,
    };
    writeln!(out, "{}", report.message).map_err(io_err)?;
    Ok(0)
}

fn show_plan(plan: &InstallPlan, out: &mut Out<'_>) -> Result<(), IpcError> {
    write!(out, "{}", plan.unified_diff()).map_err(io_err)
}

fn confirm(plan: &InstallPlan, out: &mut Out<'_>, err: &mut Out<'_>) -> Result<bool, IpcError> {
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        let _ = writeln!(
            err,
            "plandeck: not writing {} without confirmation: rerun with --yes",
            plan.settings_path
        );
        return Ok(false);
    }
    write!(out, "Write these changes to {}? [y/N] ", plan.settings_path).map_err(io_err)?;
    out.flush().map_err(io_err)?;
    let mut line = String::new();
    let _ = stdin.lock().read_line(&mut line);
    let yes = matches!(line.trim(), "y" | "Y" | "yes" | "Yes");
    if !yes {
        let _ = writeln!(err, "plandeck: nothing written");
    }
    Ok(yes)
}

/// `plandeck pending [--json]`: the requests waiting for a decision, oldest first. Requests the
/// terminal answered, or whose agent is gone, are closed first (moved to `done/` with how).
pub fn pending(ctx: &Context, args: PendingArgs, out: &mut Out<'_>) -> Result<i32, IpcError> {
    let roots = ctx.roots()?;
    gate::look_codex(&roots);
    gate::look_claude_cards(&roots);
    gate::close_ended(&roots);
    let requests = gate::pending(&roots);
    if args.json {
        // Every row says what it asks (`kind`: `plan` or `permission`); an ACP session's row
        // also carries what its agent asked at the top level (`title`, `command`, `path`,
        // `options`, …) and the ACP agent's name as `agent`.
        let mut rows = Vec::new();
        for r in &requests {
            let mut v = serde_json::to_value(r)
                .map_err(|e| IpcError::new(ErrorKind::Internal, e.to_string()))?;
            if let (Some(acp), Some(row)) = (&r.acp, v.as_object_mut()) {
                if let Ok(serde_json::Value::Object(fields)) = serde_json::to_value(acp) {
                    for (k, f) in fields {
                        row.entry(k).or_insert(f);
                    }
                }
                row.insert("agent".into(), acp.agent_name.clone().into());
                if r.plan.is_empty() {
                    row.insert("plan".into(), serde_json::Value::Null);
                }
            }
            rows.push(v);
        }
        print_json(out, &rows)?;
        return Ok(0);
    }
    print_pending(&requests, false, out)
}

/// The waiting requests as `pending` prints them (here or from another machine).
pub(crate) fn print_pending(
    requests: &[gate::GateRequest],
    json: bool,
    out: &mut Out<'_>,
) -> Result<i32, IpcError> {
    if json {
        print_json(out, &requests)?;
        return Ok(0);
    }
    if requests.is_empty() {
        writeln!(out, "No plan is waiting for you.").map_err(io_err)?;
        return Ok(0);
    }
    for r in requests {
        let waited = r
            .waiting_secs()
            .map(human_duration)
            .unwrap_or_else(|| "?".to_owned());
        if let Some(acp) = &r.acp {
            // An ACP session's request: what its agent asked, as it said it.
            writeln!(
                out,
                "{}  {:<11} waiting {waited:<6} {}: {}",
                r.id,
                acp.agent_name,
                r.kind.name(),
                acp.title
            )
            .map_err(io_err)?;
            let what = acp.command.as_deref().or(acp.path.as_deref()).unwrap_or("");
            writeln!(out, "    {}  session {}  {what}", r.cwd, r.session_id).map_err(io_err)?;
            continue;
        }
        let plan = r
            .plan_path
            .as_deref()
            .and_then(|p| Path::new(p).file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "(plan file unknown)".to_owned());
        let pane = r
            .tmux_pane
            .as_deref()
            .map(|p| format!("tmux {p}"))
            .unwrap_or_else(|| "no tmux pane".to_owned());
        writeln!(
            out,
            "{}  {:<11} waiting {waited:<6} {plan}",
            r.id,
            r.agent.display_name()
        )
        .map_err(io_err)?;
        writeln!(out, "    {}  session {}  {pane}", r.cwd, r.session_id).map_err(io_err)?;
        if let Some(mate) = &r.teammate {
            // An agent team's teammate: approving lets its plan go on to its lead.
            writeln!(
                out,
                "    teammate {mate} of team {}  lead session {}",
                r.team.as_deref().unwrap_or("?"),
                r.lead_session_id.as_deref().unwrap_or("?")
            )
            .map_err(io_err)?;
        }
    }
    Ok(0)
}

fn human_duration(secs: u64) -> String {
    match secs {
        0..=59 => format!("{secs}s"),
        60..=3599 => format!("{}m", secs / 60),
        _ => format!("{}h{:02}m", secs / 3600, (secs % 3600) / 60),
    }
}

/// How a decision on a request is taken from the command line.
pub struct RequestDecision {
    /// Carry the plan's open comments.
    pub comments: bool,
    /// `--expect-hash`: the plan's hash as read (`pending --json`'s `planHash`).
    pub seen_hash: Option<String>,
    /// `--option`: an ACP agent's own option to answer with.
    pub option: Option<String>,
    pub json: bool,
}

impl RequestDecision {
    fn delivery(&self) -> DeliveryOptions {
        DeliveryOptions {
            comments: self.comments,
            by: format!("the command line (pid {})", std::process::id()),
            seen_hash: self.seen_hash.clone(),
            option: self.option.clone(),
            ..Default::default()
        }
    }
}

pub(crate) fn print_outcome(
    o: &DecisionOutcome,
    json: bool,
    out: &mut Out<'_>,
) -> Result<i32, IpcError> {
    if o.delivery == gate::Delivery::Failed {
        // Refused or failed: nothing (more) reached the agent. An error, with the reason.
        return Err(IpcError::new(
            ErrorKind::Refused,
            format!("{}: not delivered: {}", o.request_id, o.message),
        ));
    }
    if json {
        let line = serde_json::to_string(o).map_err(|e| {
            IpcError::new(
                ErrorKind::Internal,
                format!("cannot encode the outcome: {e}"),
            )
        })?;
        out.exact(&format!("{line}\n")).map_err(io_err)?;
    } else {
        writeln!(out, "{}: {}", o.request_id, o.message).map_err(io_err)?;
    }
    // Left to the terminal is not a failure of the command, but scripts may want to know.
    Ok(if o.delivered { 0 } else { 3 })
}

/// `plandeck approve <request-id> [--mode auto|manual] [--edit FILE] [--no-comments]`. With
/// `--edit`, the plan file is rewritten with FILE's text first (refused if the plan changed since
/// the request). The plan's open comments go with it as "Reviewer notes" unless `comments` is
/// false.
/// Exit 0 when the card was answered, 3 when the person must answer in the terminal (or it
/// answered first), 1 with the reason on stderr when delivery was refused or failed.
pub fn approve_request(
    ctx: &Context,
    id: &str,
    mode: ApproveMode,
    edit_file: Option<&Path>,
    how: RequestDecision,
    out: &mut Out<'_>,
) -> Result<i32, IpcError> {
    let roots = ctx.roots()?;
    only_acp_takes_an_option(&roots, id, &how)?;
    let edited = match edit_file {
        Some(p) => Some(std::fs::read_to_string(p).map_err(|e| {
            IpcError::new(
                ErrorKind::BadInput,
                format!("cannot read the edited plan {}: {e}", p.display()),
            )
        })?),
        None => None,
    };
    let outcome = gate::decide_with(
        &roots,
        id,
        GateDecision::Approve {
            mode,
            edited,
            started_from: None,
        },
        &how.delivery(),
    )?;
    print_outcome(&outcome, how.json, out)
}

/// `--option` names one of an ACP agent's own options: a hook's or a terminal card's request has
/// none, and is refused, nothing decided, rather than decided without it.
fn only_acp_takes_an_option(
    roots: &plandeck_core::config::Roots,
    id: &str,
    how: &RequestDecision,
) -> Result<(), IpcError> {
    if how.option.is_none() {
        return Ok(());
    }
    match gate::pending(roots).into_iter().find(|r| r.id == id) {
        Some(r) if r.acp.is_none() => Err(IpcError::new(
            ErrorKind::BadInput,
            format!(
                "{id} is {}'s request through its hook or terminal: it has no options to name; \
                 decide it without --option",
                r.agent.display_name()
            ),
        )),
        _ => Ok(()),
    }
}

/// `plandeck reject <request-id> --feedback TEXT [--no-comments]`: the plan's open comments
/// follow the feedback unless `comments` is false.
pub fn reject_request(
    ctx: &Context,
    id: &str,
    feedback: &str,
    how: RequestDecision,
    out: &mut Out<'_>,
) -> Result<i32, IpcError> {
    let roots = ctx.roots()?;
    only_acp_takes_an_option(&roots, id, &how)?;
    let outcome = gate::decide_with(
        &roots,
        id,
        GateDecision::Reject {
            feedback: feedback.to_owned(),
        },
        &how.delivery(),
    )?;
    print_outcome(&outcome, how.json, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a hook, an agent or another machine wrote is shown, never obeyed by the terminal
    /// (`Out` marks every control character; this holds it for `pending`, here and `--host`).
    #[test]
    fn pending_prints_no_control_character_it_was_given() {
        let hostile = "s\u{1b}]52;c;ZXZpbA==\u{7}\u{1b}[2K\u{202e}x";
        let request: gate::GateRequest = serde_json::from_value(serde_json::json!({
            "id": "r1", "agent": "claude", "sessionId": hostile, "cwd": hostile, "plan": "",
            "planPath": format!("/p/{hostile}.md"), "tmuxPane": hostile,
            "transcriptOffset": 0, "waitingSince": "2026-11-28T19:00:00Z",
            "deadline": "2026-11-28T19:00:00Z", "hookPid": 0, "status": "waiting", "closedAt": null,
        }))
        .unwrap();
        let mut buf = Vec::new();
        print_pending(&[request], false, &mut Out::new(&mut buf)).unwrap();
        let text = String::from_utf8(buf).unwrap();
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{7}') && !text.contains('\u{202e}'),
            "{text:?}"
        );
        assert!(text.contains("⟨U+001B⟩"), "{text:?}");
    }
}
