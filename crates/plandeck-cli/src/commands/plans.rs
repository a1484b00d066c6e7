//! `plandeck plans list|show|diff`: the plans of every agent (`diff` belongs to the review commands).

use clap::{Args, Subcommand};
use plandeck_core::history::{self, HistoryVerdict, PlanSource};
use plandeck_core::ipc::{ErrorKind, IpcError};
use plandeck_core::plans::{self, PlanSummary};
use plandeck_core::review::DecidedIn;
use plandeck_core::{gate, standing};

use crate::{print_json, Context, Out};

#[derive(Debug, Args)]
pub struct PlansArgs {
    /// With none, `list`.
    #[command(subcommand)]
    pub command: Option<PlansCommand>,
    /// Print JSON instead of text (`plandeck plans --json` is `plans list --json`).
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
pub enum PlansCommand {
    /// Every plan found, newest first.
    List {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// One plan, by id or path.
    Show {
        /// The plan's id (from `plans list`) or its path.
        plan: String,
        /// Print the sanitized HTML.
        #[arg(long, conflicts_with = "md")]
        html: bool,
        /// Print the markdown source.
        #[arg(long)]
        md: bool,
        /// Print JSON (summary, html, source).
        #[arg(long)]
        json: bool,
    },
    /// The plan against its approved version (or two given versions).
    Diff(super::review::DiffArgs),
    /// Every version an agent submitted of a plan, oldest first, with its decision (read from
    /// the agents' transcripts, so it works for a plan whose file is gone).
    History {
        /// The plan's id (from `plans list`) or the path its file has or had.
        plan: String,
        /// Print JSON: an array of versions (with --diff: the diff's structure).
        #[arg(long)]
        json: bool,
        /// Compare two versions (numbered from 1, oldest first, as listed): a unified diff.
        #[arg(long, num_args = 2, value_names = ["A", "B"])]
        diff: Option<Vec<usize>>,
    },
    /// Write a plan whose file is gone back to its own path, from the transcripts. Never over a
    /// file holding different text; only inside a plans folder Plandeck knows.
    Restore {
        /// The plan's id (from `plans list`).
        plan: String,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

impl PlansArgs {
    pub fn json(&self) -> bool {
        match &self.command {
            None => self.json,
            Some(c) => c.json() || self.json,
        }
    }
}

impl PlansCommand {
    fn json(&self) -> bool {
        match self {
            PlansCommand::List { json }
            | PlansCommand::Show { json, .. }
            | PlansCommand::History { json, .. }
            | PlansCommand::Restore { json, .. } => *json,
            PlansCommand::Diff(d) => d.json,
        }
    }
}

pub fn run(
    ctx: &Context,
    args: PlansArgs,
    out: &mut Out<'_>,
    err: &mut Out<'_>,
) -> Result<i32, IpcError> {
    let command = args
        .command
        .unwrap_or(PlansCommand::List { json: args.json });
    match command {
        PlansCommand::Diff(d) => super::review::diff(ctx, d, out),
        PlansCommand::List { json } => list(ctx, json, out, err),
        PlansCommand::Show {
            plan,
            html,
            md,
            json,
        } => show(ctx, &plan, html, md, json, out),
        PlansCommand::History { plan, json, diff } => match diff.as_deref() {
            Some(&[a, b]) => history_diff(ctx, &plan, a, b, json, out),
            _ => history(ctx, &plan, json, out),
        },
        PlansCommand::Restore { plan, json } => restore(ctx, &plan, json, out),
    }
}

fn io(e: std::io::Error) -> IpcError {
    IpcError::new(ErrorKind::Io, format!("cannot write output: {e}"))
}

/// A plan only the transcripts hold, in the shape of a listed plan (`path` is null for a plan
/// that never had a file), with `source: "transcript"`.
fn transcript_entry(r: &history::RecoveredPlan) -> serde_json::Value {
    let state = match r.state {
        Some(HistoryVerdict::Approved) => "approved",
        Some(HistoryVerdict::Rejected) => "rejected",
        _ => "unreviewed",
    };
    serde_json::json!({
        "id": r.id,
        "path": r.path,
        "agent": r.agent,
        "title": r.title,
        "project": r.project,
        "sessionId": r.session_id,
        "gitBranch": null,
        "state": state,
        "decidedIn": r.versions.last().and_then(|v| v.decided_in),
        "waitingRequest": null,
        "updatedAt": r.versions.last().and_then(|v| v.submitted_at.clone()),
        "sizeBytes": r.text.len(),
        "problem": null,
        "subagentId": null,
        "source": PlanSource::Transcript,
        "verdict": r.state,
        "versions": r.versions.len(),
    })
}

fn list(ctx: &Context, json: bool, out: &mut Out<'_>, err: &mut Out<'_>) -> Result<i32, IpcError> {
    let roots = ctx.roots()?;
    let standing::Listing {
        files: listing,
        transcript_only,
        notes,
    } = standing::listing(&roots);
    for note in &notes {
        writeln!(err, "plandeck: {note}").map_err(io)?;
    }
    print_listing(listing, &transcript_only, &roots.home, json, out, err)
}

/// The plans as `plans list` prints them (here or from another machine: `home` shortens project
/// paths, empty for none): `--json` an array of plans, each with its `source`, folder problems on
/// stderr; else a table.
pub(crate) fn print_listing(
    listing: plans::PlanListing,
    transcript_only: &[history::RecoveredPlan],
    home: &std::path::Path,
    json: bool,
    out: &mut Out<'_>,
    err: &mut Out<'_>,
) -> Result<i32, IpcError> {
    if json {
        // The contract is an array of plans; folder problems go to stderr.
        for problem in &listing.problems {
            writeln!(err, "plandeck: {problem}").map_err(io)?;
        }
        let mut rows = Vec::with_capacity(listing.plans.len() + transcript_only.len());
        for p in &listing.plans {
            let mut v = serde_json::to_value(p)
                .map_err(|e| IpcError::new(ErrorKind::Internal, e.to_string()))?;
            if let Some(o) = v.as_object_mut() {
                o.insert("source".into(), serde_json::json!(PlanSource::File));
            }
            rows.push(v);
        }
        rows.extend(transcript_only.iter().map(transcript_entry));
        print_json(out, &rows)?;
        return Ok(0);
    }
    let mut listing = listing;
    for r in transcript_only {
        let mut row: PlanSummary = match serde_json::from_value(transcript_entry(r)) {
            Ok(row) => row,
            Err(_) => continue,
        };
        row.title = format!("{} [transcript only]", row.title);
        listing.plans.push(row);
    }
    if listing.plans.is_empty() {
        writeln!(
            out,
            "No plans found. `plandeck sources` shows where Plandeck looked."
        )
        .map_err(io)?;
    } else {
        write_table(&listing.plans, home, out).map_err(io)?;
    }
    for problem in &listing.problems {
        writeln!(out, "! {problem}").map_err(io)?;
    }
    Ok(0)
}

/// One line per plan: id, agent, state, when, title, project — columns sized to their content.
fn write_table(
    plans: &[PlanSummary],
    home: &std::path::Path,
    out: &mut Out<'_>,
) -> std::io::Result<()> {
    let rows: Vec<[String; 6]> = plans
        .iter()
        .map(|p| {
            let when = p
                .updated_at
                .as_deref()
                .map(|t| t.get(..16).unwrap_or(t).replace('T', " "))
                .unwrap_or_default();
            let mut title = clip(&p.title, 48);
            if let Some(problem) = &p.problem {
                title = format!("{title} [{}]", clip(problem, 40));
            }
            let project = p
                .project
                .as_deref()
                .map(|s| match std::path::Path::new(s).strip_prefix(home) {
                    Ok(rel) if !home.as_os_str().is_empty() => format!("~/{}", rel.display()),
                    _ => s.to_owned(),
                })
                .unwrap_or_else(|| "-".into());
            let word = |v: serde_json::Result<serde_json::Value>| {
                v.ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default()
            };
            let mut state = word(serde_json::to_value(p.state));
            // Decided by the agent's own prompt or a hook: say so ("rejected (hook)").
            if let Some(place) = p.decided_in.filter(|d| *d != DecidedIn::Plandeck) {
                state = format!("{state} ({})", word(serde_json::to_value(place)));
            }
            [
                p.id.clone(),
                p.agent.to_string(),
                state,
                when,
                title,
                project,
            ]
        })
        .collect();
    let header = ["ID", "AGENT", "STATE", "UPDATED (UTC)", "TITLE", "PROJECT"];
    let mut widths = header.map(|h| h.chars().count());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: [&str; 6]| {
        let mut s = String::new();
        for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
            if i == 5 {
                s.push_str(cell);
            } else {
                s.push_str(cell);
                s.push_str(&" ".repeat(w - cell.chars().count() + 2));
            }
        }
        s.trim_end().to_owned()
    };
    writeln!(out, "{}", line(header))?;
    for row in &rows {
        writeln!(
            out,
            "{}",
            line([&row[0], &row[1], &row[2], &row[3], &row[4], &row[5]])
        )?;
    }
    writeln!(
        out,
        "{} plan{}",
        rows.len(),
        if rows.len() == 1 { "" } else { "s" }
    )
}

use crate::clip;

fn show(
    ctx: &Context,
    plan: &str,
    html: bool,
    md: bool,
    json: bool,
    out: &mut Out<'_>,
) -> Result<i32, IpcError> {
    let roots = ctx.roots()?;
    let mut doc = plans::get(&roots, plan)?;
    if json || !(html || md) {
        // The state from every source, as the list shows it (the bare text needs none of it).
        let recovered = history::scan(&roots).map(|h| h.plans).unwrap_or_default();
        standing::settle(
            &roots,
            std::slice::from_mut(&mut doc.plan),
            &recovered,
            &gate::pending(&roots),
        );
    }
    print_doc(&doc, html, md, json, out)
}

/// One plan as `plans show` prints it (here or from another machine).
pub(crate) fn print_doc(
    doc: &plans::PlanDocument,
    html: bool,
    md: bool,
    json: bool,
    out: &mut Out<'_>,
) -> Result<i32, IpcError> {
    if json {
        print_json(out, doc)?;
    } else if html {
        // Sanitized, with every control and invisible character marked by the renderer (and
        // again here: it is read on a terminal).
        writeln!(out, "{}", doc.html.trim_end()).map_err(io)?;
    } else if md {
        // The source exactly as the file holds it (for a program or a file, not for reading).
        out.exact(&doc.source).map_err(io)?;
        if !doc.source.ends_with('\n') {
            out.exact("\n").map_err(io)?;
        }
    } else {
        let p = &doc.plan;
        writeln!(out, "{}\n", p.title).map_err(io)?;
        writeln!(out, "  id       {}", p.id).map_err(io)?;
        writeln!(out, "  path     {}", p.path).map_err(io)?;
        writeln!(out, "  agent    {}", p.agent.display_name()).map_err(io)?;
        for (label, value) in [
            ("project", &p.project),
            ("session", &p.session_id),
            ("branch", &p.git_branch),
            ("updated", &p.updated_at),
        ] {
            if let Some(v) = value {
                writeln!(out, "  {label:<8} {v}").map_err(io)?;
            }
        }
        writeln!(out, "\n{}", doc.source.trim_end()).map_err(io)?;
    }
    Ok(0)
}

fn history(ctx: &Context, plan: &str, json: bool, out: &mut Out<'_>) -> Result<i32, IpcError> {
    let roots = ctx.roots()?;
    let p = history::find(&roots, plan)?;
    print_history(&p, json, out)
}

/// A recovered plan's versions, as `plans history` prints them (here or over `--host`).
pub(crate) fn print_history(
    p: &history::RecoveredPlan,
    json: bool,
    out: &mut Out<'_>,
) -> Result<i32, IpcError> {
    if json {
        print_json(out, &p.versions)?;
        return Ok(0);
    }
    writeln!(out, "{}\n", p.title).map_err(io)?;
    writeln!(out, "  id       {}", p.id).map_err(io)?;
    writeln!(out, "  agent    {}", p.agent.display_name()).map_err(io)?;
    if let Some(path) = &p.path {
        let source = match p.source {
            PlanSource::File => "",
            PlanSource::Transcript => " (the file no longer holds it)",
        };
        writeln!(out, "  path     {path}{source}").map_err(io)?;
    }
    if let Some(s) = &p.session_id {
        writeln!(out, "  session  {s}").map_err(io)?;
    }
    for (i, v) in p.versions.iter().enumerate() {
        let verdict = v
            .verdict
            .and_then(|x| serde_json::to_value(x).ok())
            .and_then(|x| x.as_str().map(str::to_owned))
            .unwrap_or_else(|| "no decision".into());
        let place = v
            .decided_in
            .and_then(|x| serde_json::to_value(x).ok())
            .and_then(|x| x.as_str().map(|s| format!(" in {s}")))
            .unwrap_or_default();
        writeln!(
            out,
            "\n#{} {}  {verdict}{place}",
            i + 1,
            v.submitted_at.as_deref().unwrap_or("(no time)")
        )
        .map_err(io)?;
        if let Some(f) = &v.feedback {
            writeln!(out, "   feedback: {f}").map_err(io)?;
        }
        if v.approved_text.is_some() {
            writeln!(out, "   approved with the person's edits").map_err(io)?;
        }
        if let Some(n) = &v.note {
            writeln!(out, "   note: {n}").map_err(io)?;
        }
        writeln!(out, "   {}", clip(v.text.lines().next().unwrap_or(""), 80)).map_err(io)?;
    }
    Ok(0)
}

fn history_diff(
    ctx: &Context,
    plan: &str,
    a: usize,
    b: usize,
    json: bool,
    out: &mut Out<'_>,
) -> Result<i32, IpcError> {
    let roots = ctx.roots()?;
    let d = history::diff_versions(&roots, plan, a, b)?;
    print_history_diff(&d, a, b, json, out)
}

/// Two versions of a recovered plan compared, as `plans history --diff A B` prints them.
pub(crate) fn print_history_diff(
    d: &plandeck_core::review::PlanDiff,
    a: usize,
    b: usize,
    json: bool,
    out: &mut Out<'_>,
) -> Result<i32, IpcError> {
    if json {
        print_json(out, &d)?;
    } else if d.is_empty() {
        writeln!(out, "No changes between version {a} and version {b}.").map_err(io)?;
    } else {
        write!(out, "{}", d.unified_text()).map_err(io)?;
    }
    Ok(0)
}

fn restore(ctx: &Context, plan: &str, json: bool, out: &mut Out<'_>) -> Result<i32, IpcError> {
    let roots = ctx.roots()?;
    let r = history::restore(&roots, plan)?;
    print_restored(&r, json, out)
}

/// What `plans restore` wrote.
pub(crate) fn print_restored(
    r: &history::Restored,
    json: bool,
    out: &mut Out<'_>,
) -> Result<i32, IpcError> {
    if json {
        print_json(out, &r)?;
    } else if r.written {
        writeln!(out, "Restored {} to {}", r.id, r.path).map_err(io)?;
    } else {
        writeln!(out, "{} already holds this plan; nothing written.", r.path).map_err(io)?;
    }
    Ok(0)
}
