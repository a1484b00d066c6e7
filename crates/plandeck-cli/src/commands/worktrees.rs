//! `plandeck worktrees list|remove|keep`: agent worktrees with what removing them would lose.

use std::collections::BTreeMap;
use std::path::PathBuf;

use clap::{Args, Subcommand};
use plandeck_core::ipc::{ErrorKind, IpcError};

use plandeck_core::worktrees::{self, WorktreeSummary};

use crate::{print_json, Context, Out};

#[derive(Debug, Args)]
pub struct WorktreesArgs {
    #[command(subcommand)]
    pub command: WorktreesCommand,
}

#[derive(Debug, Subcommand)]
pub enum WorktreesCommand {
    /// Every worktree of every repository seen in sessions (or only of --repo).
    List {
        /// Only this repository.
        #[arg(long, value_name = "PATH")]
        repo: Option<PathBuf>,
        /// Also measure each folder's size (walks every file, `target/` and `node_modules/`
        /// included; slow on large worktrees).
        #[arg(long)]
        sizes: bool,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// What removing a worktree would do and lose (the panes it would end), with its token.
    Preview {
        path: PathBuf,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Remove a worktree and its branch; refuses when work would be lost unless --discard.
    Remove(RemoveArgs),
    /// Keep a worktree: leave it on disk and remember the choice.
    Keep {
        path: PathBuf,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

/// `worktrees remove`'s arguments (here and over `--host`).
#[derive(Debug, Args)]
pub struct RemoveArgs {
    pub path: PathBuf,
    /// Confirm that changed files and unmerged commits may be discarded.
    #[arg(long)]
    pub discard: bool,
    /// Remove only if the worktree is still exactly as the preview with this token showed it.
    #[arg(long, value_name = "TOKEN")]
    pub expect: Option<String>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

impl WorktreesArgs {
    pub fn json(&self) -> bool {
        match &self.command {
            WorktreesCommand::List { json, .. }
            | WorktreesCommand::Preview { json, .. }
            | WorktreesCommand::Remove(RemoveArgs { json, .. })
            | WorktreesCommand::Keep { json, .. } => *json,
        }
    }
}

pub fn run(ctx: &Context, args: WorktreesArgs, out: &mut Out<'_>) -> Result<i32, IpcError> {
    let roots = ctx.roots()?;
    match args.command {
        WorktreesCommand::List { repo, sizes, json } => {
            let hints = plandeck_core::sessions::worktree_hints(&roots);
            let opts = worktrees::ListOptions { sizes };
            let list = worktrees::list_with(&roots, repo.as_deref(), &hints, opts)?;
            if json {
                print_json(out, &list)?;
            } else {
                print_list(out, &list)?;
            }
        }
        WorktreesCommand::Preview { path, json } => {
            let preview = worktrees::removal_preview(&roots, &path, None)?;
            print_preview(&path.display().to_string(), &preview, json, out)?;
        }
        WorktreesCommand::Remove(args) => {
            let opts = worktrees::RemoveOptions {
                discard: args.discard,
                expected: args.expect,
                tmux_socket: None,
            };
            let outcome = worktrees::remove(&roots, &args.path, &opts)?;
            print_removed(&args.path.display().to_string(), &outcome, args.json, out)?;
        }
        WorktreesCommand::Keep { path, json } => {
            worktrees::keep(&roots, &path)?;
            print_kept(&path.display().to_string(), json, out)?;
        }
    }
    Ok(0)
}

/// What removing a worktree would do, as `worktrees preview` says it.
pub(crate) fn print_preview(
    path: &str,
    preview: &worktrees::RemovalPreview,
    json: bool,
    out: &mut Out<'_>,
) -> Result<(), IpcError> {
    if json {
        print_json(out, preview)?;
    } else if preview.loss_summary.is_empty() {
        line(
            out,
            &format!("Removing {path} loses nothing (token {}).", preview.token),
        )?;
    } else {
        line(
            out,
            &format!(
                "{}{} (token {})",
                preview.loss_summary,
                if preview.confirmable {
                    "It can be removed with --discard"
                } else {
                    "It cannot be removed"
                },
                preview.token
            ),
        )?;
    }
    Ok(())
}

/// What removing a worktree did, as `worktrees remove` says it.
pub(crate) fn print_removed(
    path: &str,
    outcome: &worktrees::RemoveOutcome,
    json: bool,
    out: &mut Out<'_>,
) -> Result<(), IpcError> {
    if json {
        return print_json(out, outcome);
    }
    let mut text = format!("Removed {path}.");
    if let Some(b) = &outcome.branch_deleted {
        text.push_str(&format!(" Deleted branch {b}."));
    }
    if let Some(r) = &outcome.archive_ref {
        text.push_str(&format!(
            "\nIts commits are saved under {r} (restore: git branch <name> {r})."
        ));
    }
    if !outcome.panes_ended.is_empty() {
        text.push_str(&format!(
            "\nEnded the agent's tmux pane {}.",
            outcome.panes_ended.join(", ")
        ));
    }
    line(out, &text)
}

/// A worktree kept, as `worktrees keep` says it.
pub(crate) fn print_kept(path: &str, json: bool, out: &mut Out<'_>) -> Result<(), IpcError> {
    if json {
        print_json(out, &serde_json::json!({ "kept": path }))
    } else {
        line(out, &format!("Keeping {path}."))
    }
}

fn line(out: &mut Out<'_>, text: &str) -> Result<(), IpcError> {
    writeln!(out, "{text}")
        .map_err(|e| IpcError::new(ErrorKind::Io, format!("cannot write output: {e}")))
}

/// Grouped by repository: one line per worktree with its branch and what removing it would lose.
pub(crate) fn print_list(out: &mut Out<'_>, list: &[WorktreeSummary]) -> Result<(), IpcError> {
    if list.is_empty() {
        return line(out, "No worktrees: no session worked in a repository yet (add one with extraRepos in settings.json).");
    }
    let mut by_repo: BTreeMap<&str, Vec<&WorktreeSummary>> = BTreeMap::new();
    for w in list {
        by_repo.entry(w.repo.as_str()).or_default().push(w);
    }
    for (repo, items) in by_repo {
        line(out, repo)?;
        for w in items {
            let branch = w.branch.clone().unwrap_or_else(|| match &w.head {
                Some(h) => format!("(detached {})", &h[..h.len().min(10)]),
                None => "(none)".to_owned(),
            });
            let mut state = Vec::new();
            if w.is_main {
                state.push("main".to_owned());
            }
            if let Some(p) = &w.problem {
                state.push(format!("problem: {p}"));
            } else {
                state.push(if w.changed_files == 0 {
                    "clean".to_owned()
                } else {
                    format!("{} changed", w.changed_files)
                });
                state.push(match (w.unmerged_commits, &w.base_name) {
                    (Some(n), Some(b)) => format!("{n} unmerged vs {b}"),
                    _ => "base unknown".to_owned(),
                });
                if w.submodule_commits > 0 {
                    state.push(format!(
                        "{} submodule {} only here",
                        w.submodule_commits,
                        if w.submodule_commits == 1 {
                            "commit"
                        } else {
                            "commits"
                        }
                    ));
                }
            }
            if w.locked {
                state.push(match &w.lock_reason {
                    Some(r) => format!("locked ({r})"),
                    None => "locked".to_owned(),
                });
            }
            if w.kept {
                state.push("kept".to_owned());
            }
            if let Some(s) = &w.session_id {
                state.push(format!("session {s}"));
            }
            if let Some(bytes) = w.size_bytes {
                state.push(size_text(bytes));
            }
            line(
                out,
                &format!("  {branch:<24} {}  {}", w.path, state.join(", ")),
            )?;
        }
    }
    Ok(())
}

/// A size as people read it ("12.3 MB").
fn size_text(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    let mut v = bytes as f64;
    let mut i = 0;
    while v >= 1024.0 && i < UNITS.len() - 1 {
        v /= 1024.0;
        i += 1;
    }
    if i == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.1} {}", UNITS[i])
    }
}
