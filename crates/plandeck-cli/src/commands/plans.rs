//! `plandeck plans list|show|diff`: the plans of every agent (`diff` belongs to the review commands).

use std::io::Write;

use clap::{Args, Subcommand};
use plandeck_core::ipc::{ErrorKind, IpcError};
use plandeck_core::plans::{self, PlanSummary};

use crate::{print_json, Context};

#[derive(Debug, Args)]
pub struct PlansArgs {
    #[command(subcommand)]
    pub command: PlansCommand,
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
}

impl PlansArgs {
    pub fn json(&self) -> bool {
        match &self.command {
            PlansCommand::List { json } | PlansCommand::Show { json, .. } => *json,
            PlansCommand::Diff(d) => d.json,
        }
    }
}

pub fn run(ctx: &Context, args: PlansArgs, out: &mut dyn Write) -> Result<i32, IpcError> {
    match args.command {
        PlansCommand::Diff(d) => super::review::diff(ctx, d, out),
        PlansCommand::List { json } => list(ctx, json, out),
        PlansCommand::Show {
            plan,
            html,
            md,
            json,
        } => show(ctx, &plan, html, md, json, out),
    }
}

fn io(e: std::io::Error) -> IpcError {
    IpcError::new(ErrorKind::Io, format!("cannot write output: {e}"))
}

fn list(ctx: &Context, json: bool, out: &mut dyn Write) -> Result<i32, IpcError> {
    let roots = ctx.roots()?;
    let listing = plans::list(&roots);
    if json {
        // The contract is an array of plans; folder problems go to stderr.
        for problem in &listing.problems {
            eprintln!("plandeck: {problem}");
        }
        print_json(out, &listing.plans)?;
        return Ok(0);
    }
    if listing.plans.is_empty() {
        writeln!(
            out,
            "No plans found. `plandeck sources` shows where Plandeck looked."
        )
        .map_err(io)?;
    } else {
        write_table(&listing.plans, &roots.home, out).map_err(io)?;
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
    out: &mut dyn Write,
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
            let state = serde_json::to_value(p.state)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
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
    out: &mut dyn Write,
) -> Result<i32, IpcError> {
    let roots = ctx.roots()?;
    let doc = plans::get(&roots, plan)?;
    if json {
        print_json(out, &doc)?;
    } else if html {
        writeln!(out, "{}", doc.html.trim_end()).map_err(io)?;
    } else if md {
        write!(out, "{}", doc.source).map_err(io)?;
        if !doc.source.ends_with('\n') {
            writeln!(out).map_err(io)?;
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
