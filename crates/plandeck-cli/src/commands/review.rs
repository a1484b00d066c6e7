//! `plandeck approve|reject|log` and `plandeck plans diff`: the same core calls as the window's
//! review buttons, so a decision made here is the same record in the same store.

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::Args;
use plandeck_core::ipc::{ErrorKind, IpcError};
use plandeck_core::plans;
use plandeck_core::review::{self, Decision, LineKind, Verdict};
use plandeck_core::route::{self, PlanDecision, PlanOutcome, RouteOptions};

use crate::{print_json, Context, Out, Style};

/// The choice on the agent's approval card.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum ApproveModeArg {
    Auto,
    Manual,
}

impl From<ApproveModeArg> for plandeck_core::gate::ApproveMode {
    fn from(m: ApproveModeArg) -> Self {
        match m {
            ApproveModeArg::Auto => Self::Auto,
            ApproveModeArg::Manual => Self::Manual,
        }
    }
}

#[derive(Debug, Args)]
pub struct ApproveArgs {
    /// A waiting request's id (`plandeck pending`), or a plan's id or path.
    pub target: String,
    /// Approve this edited version instead: the plan file is rewritten with it first.
    #[arg(long, value_name = "FILE")]
    pub edit: Option<PathBuf>,
    /// For a waiting request: `auto` accepts the agent's edits, `manual` asks for each.
    #[arg(long, value_enum, default_value = "auto")]
    pub mode: ApproveModeArg,
    /// For a plan file: the hash (`plandeck plans show --json` contentHash) of the version you
    /// read; refused, nothing decided, if the file no longer holds it.
    #[arg(long, value_name = "HASH")]
    pub expect_hash: Option<String>,
    /// For an ACP agent's request: answer with this option of the agent's own (its `optionId`,
    /// as `pending --json` lists them: `acp.options`), e.g. its "allow always"; refused unless
    /// the agent offered it for this request. Default: its "allow once".
    #[arg(long, value_name = "OPTION_ID")]
    pub option: Option<String>,
    /// Leave the plan's open comments out of the decision (they go with it by default).
    #[arg(long)]
    pub no_comments: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct RejectArgs {
    /// A waiting request's id (`plandeck pending`), or a plan's id or path.
    pub target: String,
    /// What the agent should change. May start with `-` (a Markdown bullet).
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    pub feedback: String,
    /// For a plan file: the hash of the version you read; refused, nothing decided, if the file
    /// no longer holds it.
    #[arg(long, value_name = "HASH")]
    pub expect_hash: Option<String>,
    /// For an ACP agent's request: reject with this option of the agent's own (its `optionId`,
    /// `pending --json`'s `acp.options`); refused unless the agent offered it. Default: its
    /// "reject once".
    #[arg(long, value_name = "OPTION_ID")]
    pub option: Option<String>,
    /// Leave the plan's open comments out of the decision (they go with it by default).
    #[arg(long)]
    pub no_comments: bool,
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

fn io_err(e: std::io::Error) -> IpcError {
    IpcError::new(ErrorKind::Io, format!("cannot write output: {e}"))
}

fn short(hash: Option<&str>) -> &str {
    hash.map_or("-", |h| h.get(..8).unwrap_or(h))
}

pub fn approve(ctx: &Context, args: ApproveArgs, out: &mut Out<'_>) -> Result<i32, IpcError> {
    if args.option.is_some() {
        return Err(IpcError::new(
            ErrorKind::BadInput,
            format!(
                "--option names an ACP agent's option for a waiting request; {} is not one \
                 (`plandeck pending` lists them)",
                args.target
            ),
        ));
    }
    let roots = ctx.roots()?;
    let plan = plans::resolve(&roots, &args.target)?;
    // The version decided: the one named by --expect-hash, else the file as it is now (an edit
    // was made against it; if the agent rewrites it before the approval lands, that is a
    // conflict, not a silent overwrite).
    let seen = match &args.expect_hash {
        Some(h) => h.clone(),
        None => review::store::hash(&review::store::read_plan_bytes(&plan)?),
    };
    let edited = match &args.edit {
        None => None,
        Some(file) => Some(std::fs::read_to_string(file).map_err(|e| {
            let kind = if e.kind() == std::io::ErrorKind::NotFound {
                ErrorKind::NotFound
            } else {
                ErrorKind::BadInput
            };
            IpcError::new(
                kind,
                format!("cannot read the edited plan {}: {e}", file.display()),
            )
        })?),
    };
    let outcome = route::decide_plan(
        &roots,
        &plan,
        &seen,
        PlanDecision::Approve {
            mode: Some(args.mode.into()),
            edited,
        },
        &RouteOptions {
            comments: !args.no_comments,
            delivery: plandeck_core::gate::DeliveryOptions {
                by: format!("the command line (pid {})", std::process::id()),
                ..Default::default()
            },
        },
    )?;
    print_plan_outcome(&outcome, args.json, out)
}

pub fn reject(ctx: &Context, args: RejectArgs, out: &mut Out<'_>) -> Result<i32, IpcError> {
    if args.option.is_some() {
        return Err(IpcError::new(
            ErrorKind::BadInput,
            format!(
                "--option names an ACP agent's option for a waiting request; {} is not one \
                 (`plandeck pending` lists them)",
                args.target
            ),
        ));
    }
    let roots = ctx.roots()?;
    let plan = plans::resolve(&roots, &args.target)?;
    let seen = match &args.expect_hash {
        Some(h) => h.clone(),
        None => review::store::hash(&review::store::read_plan_bytes(&plan)?),
    };
    let outcome = route::decide_plan(
        &roots,
        &plan,
        &seen,
        PlanDecision::Reject {
            feedback: args.feedback.clone(),
        },
        &RouteOptions {
            comments: !args.no_comments,
            delivery: plandeck_core::gate::DeliveryOptions {
                by: format!("the command line (pid {})", std::process::id()),
                ..Default::default()
            },
        },
    )?;
    print_plan_outcome(&outcome, args.json, out)
}

/// `--json`: the decision's log line as before (every key kept), with where it went added
/// (`route`, `message`, `tmuxPane`, `written`, `unchangedEdit`, `undoId`). Text: the outcome's
/// sentence, and the feedback of a rejection. Exit 0 when recorded or delivered, 3 when the agent
/// has not taken it yet (answer in the terminal), 1 with the reason when delivery failed.
pub(crate) fn print_plan_outcome(
    outcome: &PlanOutcome,
    json: bool,
    out: &mut Out<'_>,
) -> Result<i32, IpcError> {
    if outcome.delivery == Some(review::Delivery::Failed) {
        return Err(IpcError::new(ErrorKind::Refused, outcome.message.clone()));
    }
    if json {
        let mut value = match &outcome.decision {
            Some(d) => serde_json::to_value(d),
            None => Ok(serde_json::json!({})),
        }
        .map_err(|e| IpcError::new(ErrorKind::Internal, e.to_string()))?;
        if let (Some(map), Ok(serde_json::Value::Object(extra))) =
            (value.as_object_mut(), serde_json::to_value(outcome))
        {
            for key in [
                "route",
                "message",
                "tmuxPane",
                "written",
                "unchangedEdit",
                "undoId",
            ] {
                map.insert(key.to_owned(), extra.get(key).cloned().unwrap_or_default());
            }
            for key in ["requestId", "delivery"] {
                map.entry(key)
                    .or_insert_with(|| extra.get(key).cloned().unwrap_or_default());
            }
        }
        print_json(out, &value)?;
    } else {
        writeln!(out, "{}", outcome.message).map_err(io_err)?;
        if let (Verdict::Rejected, Some(d)) = (outcome.verdict, &outcome.decision) {
            for line in d.feedback.as_deref().unwrap_or("").lines() {
                writeln!(out, "  {line}").map_err(io_err)?;
            }
        }
    }
    Ok(match outcome.delivery {
        Some(review::Delivery::Pending | review::Delivery::AnsweredInTerminal) => 3,
        _ => 0,
    })
}

pub fn log(ctx: &Context, args: LogArgs, out: &mut Out<'_>) -> Result<i32, IpcError> {
    let roots = ctx.roots()?;
    let plan = match &args.plan {
        Some(p) => Some(plans::resolve(&roots, p)?),
        None => None,
    };
    // The audit trail: undone decisions stay, each followed by the line that undid it.
    let decisions = review::audit_log(&roots, plan.as_deref())?;
    print_log(&decisions, args.json, out)
}

/// The decision log, as `plandeck log` prints it.
pub(crate) fn print_log(
    decisions: &[Decision],
    json: bool,
    out: &mut Out<'_>,
) -> Result<i32, IpcError> {
    if json {
        print_json(out, &decisions)?;
        return Ok(0);
    }
    if decisions.is_empty() {
        writeln!(out, "No decisions yet.").map_err(io_err)?;
    }
    for d in decisions {
        write_decision(out, d).map_err(io_err)?;
    }
    Ok(0)
}

fn write_decision(out: &mut Out<'_>, d: &Decision) -> std::io::Result<()> {
    use plandeck_core::review::Delivery;
    // A decision that did not reach the agent is not an approval (or a rejection): say so.
    let verdict = match (d.decision, d.delivery) {
        _ if d.revokes.is_some() => "undone",
        (Verdict::Approved, Some(Delivery::Failed)) => "approve FAILED",
        (Verdict::Rejected, Some(Delivery::Failed)) => "reject FAILED",
        (Verdict::Approved, Some(Delivery::AnsweredInTerminal)) => "approve unsent",
        (Verdict::Rejected, Some(Delivery::AnsweredInTerminal)) => "reject unsent",
        (Verdict::Approved, Some(Delivery::Pending)) => "approve pending",
        (Verdict::Rejected, Some(Delivery::Pending)) => "reject pending",
        (Verdict::Approved, _) if d.edited => "approved (edited)",
        (Verdict::Approved, _) => "approved",
        (Verdict::Rejected, _) => "rejected",
    };
    let hash = d.approved_hash.as_deref().or(d.content_hash.as_deref());
    writeln!(
        out,
        "{}  {verdict:<17}  {:<6}  {}  {}  by {}",
        plandeck_core::timestamp::format(d.time),
        d.agent,
        short(hash),
        d.plan_path,
        d.reviewer
    )?;
    // Who decided from where: another machine's Plandeck over SSH names the client.
    if let Some(by) = &d.decided_by {
        writeln!(out, "    decided through {by}")?;
    }
    if let Some(reason) = d.delivery_reason.as_deref().filter(|_| !d.stands()) {
        writeln!(out, "    not delivered: {reason}")?;
    }
    if let Some(feedback) = &d.feedback {
        for line in feedback.lines() {
            writeln!(out, "    {line}")?;
        }
    }
    Ok(())
}

pub fn diff(ctx: &Context, args: DiffArgs, out: &mut Out<'_>) -> Result<i32, IpcError> {
    let roots = ctx.roots()?;
    let plan = plans::resolve(&roots, &args.plan)?;
    let d = review::diff(&roots, &plan, None, None)?;
    print_diff(ctx, &d, &plan.display().to_string(), args.json, out)
}

/// A plan's diff since its last decision, as `plans diff` prints it (`plan`: how it is named).
pub(crate) fn print_diff(
    ctx: &Context,
    d: &review::PlanDiff,
    plan: &str,
    json: bool,
    out: &mut Out<'_>,
) -> Result<i32, IpcError> {
    if json {
        print_json(out, d)?;
        return Ok(0);
    }
    if d.is_empty() {
        writeln!(out, "No changes: {plan} is the {}.", d.from_label).map_err(io_err)?;
        return Ok(0);
    }
    // Only asks whether stdout is a terminal; the output still goes through `out`.
    #[allow(clippy::disallowed_methods)]
    let color = ctx.env.get("NO_COLOR").is_none() && std::io::stdout().is_terminal();
    if !color {
        write!(out, "{}", d.unified_text()).map_err(io_err)?;
        return Ok(0);
    }
    // Colour by line, and make the words that changed inside a line bold. The colours are the
    // CLI's own ([`Style`]); the plan's text goes through the filter like all text.
    let io = io_err;
    out.style(Style::Bold).map_err(io)?;
    write!(out, "--- {}\n+++ {}", d.from_label, d.to_label).map_err(io)?;
    out.style(Style::Reset).map_err(io)?;
    writeln!(out).map_err(io)?;
    for h in &d.hunks {
        out.style(Style::Cyan).map_err(io)?;
        write!(out, "{}", h.header()).map_err(io)?;
        out.style(Style::Reset).map_err(io)?;
        writeln!(out).map_err(io)?;
        for line in &h.lines {
            let (sign, tint) = match line.kind {
                LineKind::Equal => (' ', None),
                LineKind::Insert => ('+', Some(Style::Green)),
                LineKind::Delete => ('-', Some(Style::Red)),
            };
            if let Some(t) = tint {
                out.style(t).map_err(io)?;
            }
            write!(out, "{sign}").map_err(io)?;
            for seg in &line.segments {
                if seg.changed {
                    out.style(Style::Bold).map_err(io)?;
                    write!(out, "{}", seg.text).map_err(io)?;
                    out.style(Style::Reset).map_err(io)?;
                    if let Some(t) = tint {
                        out.style(t).map_err(io)?;
                    }
                } else {
                    write!(out, "{}", seg.text).map_err(io)?;
                }
            }
            out.style(Style::Reset).map_err(io)?;
            writeln!(out).map_err(io)?;
        }
    }
    Ok(0)
}
