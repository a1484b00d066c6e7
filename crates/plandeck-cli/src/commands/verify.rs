//! `plandeck verify <plan> [--json]`: the approved plan against what the agent did after the
//! approval (the same core call as the window's Verify tab). `--override N --status S --note T`
//! and `--clear-override N` keep a person's verdict on a step.

use clap::Args;
use plandeck_core::ipc::{ErrorKind, IpcError};
use plandeck_core::verify::{self, Evidence, NameKind, StepStatus, VerifyReport};
use plandeck_core::words;

use crate::{clip, print_json, Context, Out};

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// A plan's id or path.
    pub plan: String,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Override step N's status (with --status and --note), then print the report.
    #[arg(long = "override", value_name = "N", requires_all = ["status", "note"])]
    pub override_step: Option<u32>,
    /// The status of --override: done, partial, missing or unverifiable.
    #[arg(long, value_parser = parse_status)]
    pub status: Option<StepStatus>,
    /// Why (--override).
    #[arg(long, allow_hyphen_values = true)]
    pub note: Option<String>,
    /// Remove the override of step N, then print the report.
    #[arg(long, value_name = "N", conflicts_with = "override_step")]
    pub clear_override: Option<u32>,
}

fn parse_status(s: &str) -> Result<StepStatus, String> {
    s.parse()
}

fn io_err(e: std::io::Error) -> IpcError {
    IpcError::new(ErrorKind::Io, format!("cannot write output: {e}"))
}

pub fn run(ctx: &Context, args: VerifyArgs, out: &mut Out<'_>) -> Result<i32, IpcError> {
    let roots = ctx.roots()?;
    if let (Some(n), Some(status), Some(note)) = (args.override_step, args.status, &args.note) {
        verify::set_override(&roots, &args.plan, n, status, note)?;
    }
    if let Some(n) = args.clear_override {
        verify::clear_override(&roots, &args.plan, n)?;
    }
    let report = verify::report(&roots, &args.plan)?;
    if args.json {
        print_json(out, &report)?;
    } else {
        print_text(&report, out).map_err(io_err)?;
    }
    Ok(0)
}

pub(crate) fn print_text(r: &VerifyReport, out: &mut Out<'_>) -> std::io::Result<()> {
    writeln!(out, "{} ({})", r.title, r.plan)?;
    match (&r.approval, &r.approved_at) {
        (Some(a), at) => writeln!(
            out,
            "approved {} ({})",
            at.as_deref().unwrap_or("at an unknown time"),
            match a.source {
                verify::ApprovalSource::Plandeck => "in Plandeck",
                verify::ApprovalSource::Transcript => "the agent's record",
            }
        )?,
        (None, _) => writeln!(out, "not approved")?,
    }
    if let Some(w) = &r.worktree {
        let base = match (&r.base.kind, &r.base.commit) {
            (verify::BaseKind::ApprovalHead, Some(c)) => format!("HEAD at approval {}", &c[..8]),
            (verify::BaseKind::MergeBase, Some(c)) => format!(
                "merge base with {} {}",
                r.base.branch.as_deref().unwrap_or("?"),
                &c[..8]
            ),
            _ => "no base commit".to_owned(),
        };
        writeln!(out, "worktree {w} (against {base})")?;
    }
    writeln!(out)?;
    for s in &r.steps {
        let mark = match s.status {
            StepStatus::Done => "done",
            StepStatus::Partial => "partial",
            StepStatus::Missing => "missing",
            StepStatus::Unverifiable => "unverifiable",
        };
        let over = if s.overridden.is_some() {
            format!(" (overridden; computed {})", s.computed_status)
        } else {
            String::new()
        };
        writeln!(
            out,
            "{:>3}. {:<12} {}{over}",
            s.index,
            mark,
            clip(&s.text, 100)
        )?;
        if matches!(s.status, StepStatus::Missing | StepStatus::Partial) {
            let untouched: Vec<&str> = s
                .names
                .iter()
                .filter(|n| !n.touched)
                .map(|n| n.value.as_str())
                .collect();
            let files: Vec<&str> = s
                .names
                .iter()
                .filter(|n| n.kind == NameKind::Path)
                .map(|n| n.value.as_str())
                .collect();
            if !files.is_empty() {
                writeln!(out, "       files: {}", files.join(", "))?;
            }
            if !untouched.is_empty() {
                writeln!(out, "       not touched: {}", untouched.join(", "))?;
            }
        }
        for e in &s.evidence {
            match e {
                Evidence::GitChange { file, hunk, .. } => match hunk {
                    Some(h) => writeln!(out, "       git: {file} {h}")?,
                    None => writeln!(out, "       git: {file}")?,
                },
                Evidence::ToolCall {
                    tool,
                    file,
                    record_line,
                    ..
                } => writeln!(out, "       {tool}: {file} (record {record_line})")?,
                Evidence::Command {
                    command,
                    success,
                    exit_code,
                    ..
                } => {
                    let result = match (success, exit_code) {
                        (Some(true), _) => "passed".to_owned(),
                        (Some(false), Some(c)) => format!("failed, exit {c}"),
                        (Some(false), None) => "failed".to_owned(),
                        (None, _) => "no result".to_owned(),
                    };
                    writeln!(out, "       ran: {} ({result})", clip(command, 80))?
                }
                Evidence::NotTouched { .. } => {}
            }
        }
    }
    if !r.unplanned.is_empty() {
        writeln!(out, "\nunplanned (changed, named by no step):")?;
        for f in &r.unplanned {
            writeln!(out, "  {}", f.path)?;
        }
    }
    if !r.tests.is_empty() {
        writeln!(out, "\ntests run since the approval:")?;
        for t in &r.tests {
            let result = match t.passed {
                Some(true) => "passed",
                Some(false) => "failed",
                None => "no result",
            };
            writeln!(out, "  {} ({result})", clip(&t.command, 80))?;
        }
    }
    let c = &r.counts;
    writeln!(
        out,
        "\n{} done, {} partial, {} missing, {} unverifiable; {}, {}",
        c.done,
        c.partial,
        c.missing,
        c.unverifiable,
        words::count(r.changes.len() as u64, "changed file", "changed files"),
        words::count(r.commits.len() as u64, "commit", "commits")
    )?;
    for n in &r.notes {
        writeln!(out, "note: {n}")?;
    }
    Ok(())
}
