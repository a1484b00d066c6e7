//! `plandeck agents list [--json]`: every agent a person can start, terminal and ACP, whether it
//! was found and what it can do (`core::acp::catalog`).

use clap::{Args, Subcommand};
use plandeck_core::acp::{catalog, requests};
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
    /// Start an ACP agent in a folder, in plan mode where it offers it (unless --no-plan), give
    /// it a prompt and show what it asks. Every request is rejected (nothing runs) unless
    /// --approve; a plan rejected with --feedback gets that text as the next prompt. Prints each
    /// turn: its stop reason, the requests (kind plan|permission, title, plan and planHash,
    /// options, outcome), the mode, whether the session stayed gated, the cost.
    Check {
        /// The ACP agent (`agents list`: claude-acp, codex-acp, gemini-acp, opencode).
        name: String,
        /// The folder it works in.
        #[arg(long, value_name = "DIR")]
        repo: std::path::PathBuf,
        /// The first prompt.
        #[arg(
            long,
            default_value = "Make a short plan to add a README section, then stop."
        )]
        prompt: String,
        /// Reject the first plan with this feedback, sent as the next prompt.
        #[arg(long)]
        feedback: Option<String>,
        /// Approve plans (after the one --feedback rejects) with the agent's narrowest allow
        /// option; tool permissions too.
        #[arg(long)]
        approve: bool,
        /// Wait for the person instead: each request is filed for `plandeck pending`, and
        /// `plandeck approve|reject <id>` decides it (reject --feedback: the next prompt).
        #[arg(long, conflicts_with_all = ["approve", "feedback"])]
        wait: bool,
        /// Seconds to wait for each answer of the agent's; a turn whose agent says nothing that
        /// long (nothing waiting for you) is cancelled.
        #[arg(long, default_value_t = 120)]
        timeout: u64,
        /// Leave the agent in its own default mode, not plan mode.
        #[arg(long)]
        no_plan: bool,
        /// Print JSON ({name, agentInfo, sessionId, modes, planMode, turns: [{stopReason,
        /// requests, mode, gated, ungatedWhy, said, costUsd, skipped, agentEnded}]}).
        #[arg(long)]
        json: bool,
    },
}

impl AgentsArgs {
    pub fn json(&self) -> bool {
        matches!(
            self.action,
            AgentsAction::List { json: true } | AgentsAction::Check { json: true, .. }
        )
    }
}

pub fn run(ctx: &Context, args: AgentsArgs, out: &mut Out<'_>) -> Result<i32, IpcError> {
    let json = match args.action {
        AgentsAction::List { json } => json,
        AgentsAction::Check {
            name,
            repo,
            prompt,
            feedback,
            approve,
            wait,
            timeout,
            no_plan,
            json,
        } => {
            return check(
                ctx,
                &name,
                &repo,
                &prompt,
                !no_plan,
                feedback,
                if wait {
                    Decider::Person
                } else if approve {
                    Decider::Approve
                } else {
                    Decider::Reject
                },
                std::time::Duration::from_secs(timeout),
                json,
                out,
            )
        }
    };
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

/// Who decides an `agents check` session's requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Decider {
    /// Everything rejected (nothing runs).
    Reject,
    /// Everything approved (after the plan `--feedback` rejects).
    Approve,
    /// The person, through `plandeck pending` and `approve|reject <id>`.
    Person,
}

/// Files `w` for the person and waits for their decision.
fn ask_person(
    roots: &plandeck_core::config::Roots,
    agent: &str,
    cwd: &str,
    w: &plandeck_core::acp::Waiting,
    agent_process: (u32, Option<u64>),
    filed: &mut Vec<(String, String)>,
) -> plandeck_core::acp::session::Choice {
    use plandeck_core::acp::session::Choice;
    let Ok(f) = requests::file(roots, agent, cwd, w, agent_process) else {
        // Nowhere to ask: refused, never allowed.
        return Choice::Reject(None);
    };
    filed.push((w.tool_call_id.clone(), f.id.clone()));
    // The agent gone (it asked, then died): nobody to answer; the request ends with no outcome.
    let gone = || !plandeck_core::process::is_running(agent_process.0, agent_process.1);
    match requests::wait_decision(roots, &f.id, gone) {
        Some(d) if d.approve => Choice::ApproveThen(d.option_id, d.feedback),
        Some(d) => Choice::Reject(d.feedback),
        None => Choice::Reject(None),
    }
}

#[allow(clippy::too_many_arguments)]
fn check(
    ctx: &Context,
    name: &str,
    repo: &std::path::Path,
    prompt: &str,
    plan: bool,
    feedback: Option<String>,
    decider: Decider,
    timeout: std::time::Duration,
    json: bool,
    out: &mut Out<'_>,
) -> Result<i32, IpcError> {
    use plandeck_core::acp::session::{Choice, Session};
    use plandeck_core::acp::{agent_env, AgentCommand, RequestKind};
    let entry = catalog::acp_entry(name).ok_or_else(|| {
        IpcError::new(
            ErrorKind::BadInput,
            format!("{name:?} is no ACP agent: see `plandeck agents list`"),
        )
    })?;
    let program =
        catalog::find(entry.program, &catalog::search_dirs(&ctx.env)).ok_or_else(|| {
            IpcError::new(
                ErrorKind::NotFound,
                format!(
                "{} is not installed (not on the PATH nor under the npm prefix); the npm package \
                 {} brings it",
                entry.program, entry.package
            ),
            )
        })?;
    let cwd = std::fs::canonicalize(repo)
        .map_err(|e| IpcError::new(ErrorKind::NotFound, format!("{}: {e}", repo.display())))?;
    let cmd = AgentCommand {
        program,
        args: entry.args.iter().map(|a| (*a).to_owned()).collect(),
        env: agent_env(
            entry.env,
            ctx.env.vars().map(|(k, v)| (k.to_owned(), v.to_owned())),
        ),
        cwd: cwd.clone(),
    };
    let failed = |e: plandeck_core::acp::AcpError| {
        IpcError::new(ErrorKind::Internal, format!("{}: {e}", entry.name))
    };
    let mut session = Session::start(&cmd, &cwd, plan, timeout).map_err(failed)?;
    // Plan mode of an agent that asks nothing to leave it holds no plan for the person.
    if !entry.plan_gate {
        session.tracker.plan_mode_without_gate(entry.display_name);
    }
    let roots = ctx.roots()?;
    let mut feedback = feedback;
    let mut turns = Vec::new();
    let mut next = Some(prompt.to_owned());
    // Requests filed for the person: (tool call id, request id).
    let mut filed: Vec<(String, String)> = Vec::new();
    let cwd_text = cwd.to_string_lossy().into_owned();
    let agent = session.agent_process();
    while let Some(text) = next.take() {
        let report = session
            .turn(&text, |w| match decider {
                Decider::Person => ask_person(&roots, entry.name, &cwd_text, w, agent, &mut filed),
                _ => match (w.kind, feedback.take()) {
                    (RequestKind::Plan, Some(f)) => Choice::Reject(Some(f)),
                    (_, f) => {
                        feedback = f;
                        if decider == Decider::Approve {
                            Choice::Approve(None)
                        } else {
                            Choice::Reject(None)
                        }
                    }
                },
            })
            .map_err(failed)?;
        for r in &report.requests {
            if let Some((_, id)) = filed.iter().find(|(c, _)| c == &r.request.tool_call_id) {
                requests::close(&roots, id, &r.outcome);
            }
        }
        next = report.feedback.clone();
        let ended = report.agent_ended;
        turns.push(report);
        if ended || turns.len() >= 4 {
            break;
        }
    }
    session.stop();
    let io = |e: std::io::Error| IpcError::new(ErrorKind::Io, format!("cannot write output: {e}"));
    if json {
        print_json(
            out,
            &serde_json::json!({
                "name": entry.name,
                "agentInfo": session.agent.get("agentInfo"),
                "sessionId": session.info.session_id,
                "modes": session.info.modes,
                "planMode": session.plan_mode_offered(),
                "turns": turns,
            }),
        )?;
        return Ok(0);
    }
    writeln!(
        out,
        "{} started in {} (session {}, modes: {}).",
        entry.name,
        cwd.display(),
        session.info.session_id,
        session.info.modes.join(", ")
    )
    .map_err(io)?;
    for (i, t) in turns.iter().enumerate() {
        writeln!(
            out,
            "Turn {}: {}; mode {}; {}.",
            i + 1,
            t.stop_reason.as_deref().unwrap_or("the agent ended"),
            t.mode.as_deref().unwrap_or("?"),
            if t.gated { "gated" } else { "NOT gated" }
        )
        .map_err(io)?;
        for r in &t.requests {
            let kind = match r.request.kind {
                RequestKind::Plan => "plan",
                RequestKind::Permission => "permission",
            };
            writeln!(out, "  {kind}: {} -> {:?}", r.request.title, r.outcome).map_err(io)?;
        }
    }
    Ok(0)
}

/// Whether `target` names an ACP session's request (waiting or closed) in the gate's store.
pub fn is_acp_request(ctx: &Context, target: &str) -> bool {
    target.starts_with("acp-")
        && ctx.roots().is_ok_and(|roots| {
            plandeck_core::gate::request(&roots, target).is_ok_and(|r| r.acp.is_some())
        })
}

/// `plandeck approve|reject <acp request id>`: decided through the gate's claim like every
/// request; the decision is handed to the session's host, which answers the agent with its own
/// option (`option`: one of its allow options, or the one the approval's mode prefers).
/// The edited plan of `approve --edit FILE`, when given.
pub fn read_edit(file: Option<&std::path::Path>) -> Result<Option<String>, IpcError> {
    file.map(|p| {
        std::fs::read_to_string(p).map_err(|e| {
            IpcError::new(
                ErrorKind::BadInput,
                format!("cannot read the edited plan {}: {e}", p.display()),
            )
        })
    })
    .transpose()
}

pub fn decide_acp(
    ctx: &Context,
    target: &str,
    decision: plandeck_core::gate::GateDecision,
    option: Option<String>,
    expect_hash: Option<&str>,
    json: bool,
    out: &mut Out<'_>,
) -> Result<i32, IpcError> {
    use plandeck_core::gate;
    let roots = ctx.roots()?;
    let approve = matches!(decision, gate::GateDecision::Approve { .. });
    let opts = gate::DeliveryOptions {
        by: "plandeck on the command line".to_owned(),
        seen_hash: expect_hash.map(str::to_owned),
        option,
        ..gate::DeliveryOptions::default()
    };
    let outcome = gate::decide_with(&roots, target, decision, &opts)?;
    let req = gate::request(&roots, target).ok();
    if json {
        print_json(
            out,
            &serde_json::json!({
                "id": outcome.request_id,
                "kind": req.as_ref().map(|r| r.kind.name()),
                "decision": if approve { "approve" } else { "reject" },
                "optionId": req.and_then(|r| r.acp).and_then(|a| a.chosen),
                "message": outcome.message,
                "delivered": outcome.delivered,
                "status": outcome.status,
                "delivery": outcome.delivery,
            }),
        )?;
    } else {
        writeln!(out, "{}", outcome.message)
            .map_err(|e| IpcError::new(ErrorKind::Io, format!("cannot write output: {e}")))?;
    }
    Ok(0)
}
