//! `plandeck comment` and `plandeck comments`: comments on quoted plan text, the same core calls
//! as the window's comment margin.

use clap::Args;
use plandeck_core::comments::{self, CommentStatus, NewComment, PlacedComment, Position};
use plandeck_core::ipc::{ErrorKind, IpcError};
use plandeck_core::review::log::now;

use crate::{print_json, Context, Out};

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("action").args(["resolve", "reopen", "delete"])))]
pub struct CommentArgs {
    /// The plan's id or path (to add a comment).
    #[arg(required_unless_present = "action")]
    pub plan: Option<String>,
    /// The exact text of the plan the comment is about. May start with `-` (a list item).
    #[arg(
        long,
        requires = "text",
        conflicts_with = "action",
        allow_hyphen_values = true
    )]
    pub quote: Option<String>,
    /// The comment. May start with `-` (a Markdown bullet).
    #[arg(
        long,
        requires = "quote",
        conflicts_with = "action",
        allow_hyphen_values = true
    )]
    pub text: Option<String>,
    /// Which occurrence of the quote, from 1, when the plan holds it more than once.
    #[arg(long, value_name = "N", requires = "quote")]
    pub occurrence: Option<usize>,
    /// Resolve comment ID (it stays, shown as resolved).
    #[arg(long, value_name = "ID")]
    pub resolve: Option<String>,
    /// Open resolved comment ID again.
    #[arg(long, value_name = "ID")]
    pub reopen: Option<String>,
    /// Delete comment ID.
    #[arg(long, value_name = "ID")]
    pub delete: Option<String>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct CommentsArgs {
    /// The plan's id or path.
    pub plan: String,
    /// Print JSON: an array of comments, each with at least id, quote, text, status
    /// (open | outdated | resolved), createdAt and version.
    #[arg(long, conflicts_with = "markdown")]
    pub json: bool,
    /// Print the review as Markdown: the plan's title, each comment with its quote and status,
    /// and the latest decision (what the window's "Copy review as Markdown" copies).
    #[arg(long)]
    pub markdown: bool,
}

/// A comment as `--json` prints it: the stored comment, its status in the plan's current text,
/// and the contract fields `quote` and `status` at the top level.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct CommentJson<'a> {
    id: &'a str,
    quote: &'a str,
    text: &'a str,
    status: CommentStatus,
    created_at: &'a str,
    version: &'a str,
    author: &'a str,
    plan_path: &'a str,
    line: Option<u32>,
    /// kept | moved | changed | gone.
    placement: &'static str,
    resolved_at: Option<&'a str>,
    sent_with: &'a [String],
}

impl<'a> From<&'a PlacedComment> for CommentJson<'a> {
    fn from(p: &'a PlacedComment) -> Self {
        let c = &p.comment;
        CommentJson {
            id: &c.id,
            quote: &c.anchor.quote,
            text: &c.text,
            status: p.status,
            created_at: &c.created_at,
            version: &c.version,
            author: &c.author,
            plan_path: &c.plan_path,
            line: p.line,
            placement: match p.placement {
                comments::Placement::Kept { .. } => "kept",
                comments::Placement::Moved { .. } => "moved",
                comments::Placement::Changed { .. } => "changed",
                comments::Placement::Gone => "gone",
            },
            resolved_at: c.resolved_at.as_deref(),
            sent_with: &c.sent_with,
        }
    }
}

fn io_err(e: std::io::Error) -> IpcError {
    IpcError::new(ErrorKind::Io, format!("cannot write output: {e}"))
}

pub fn comment(ctx: &Context, args: CommentArgs, out: &mut Out<'_>) -> Result<i32, IpcError> {
    let roots = ctx.roots()?;
    let data = &roots.data;
    let (id, verb) = match (&args.resolve, &args.reopen, &args.delete) {
        (Some(id), _, _) => {
            comments::resolve(data, id, &now())?;
            (id, "Resolved")
        }
        (_, Some(id), _) => {
            comments::reopen(data, id)?;
            (id, "Reopened")
        }
        (_, _, Some(id)) => {
            comments::delete(data, id)?;
            (id, "Deleted")
        }
        _ => return add(ctx, &args, out),
    };
    print_changed(id, verb, args.json, out)
}

/// A comment resolved, reopened or deleted (`verb`), as `comment` says it.
pub(crate) fn print_changed(
    id: &str,
    verb: &str,
    json: bool,
    out: &mut Out<'_>,
) -> Result<i32, IpcError> {
    if json {
        print_json(
            out,
            &serde_json::json!({ "id": id, "done": verb.to_lowercase() }),
        )?;
    } else {
        writeln!(out, "{verb} comment {id}.").map_err(io_err)?;
    }
    Ok(0)
}

fn add(ctx: &Context, args: &CommentArgs, out: &mut Out<'_>) -> Result<i32, IpcError> {
    let (Some(plan), Some(quote), Some(text)) = (&args.plan, &args.quote, &args.text) else {
        return Err(IpcError::new(
            ErrorKind::BadInput,
            "give --quote TEXT and --text COMMENT (or --resolve/--reopen/--delete ID)",
        ));
    };
    let roots = ctx.roots()?;
    let position = args.occurrence.map_or(Position::Only, Position::Occurrence);
    let placed = comments::add_to_plan(
        &roots,
        plan,
        NewComment {
            quote,
            text,
            position,
        },
        &now(),
    )?;
    print_added(&placed, args.json, out)
}

/// A comment added, as `comment --quote --text` says it.
pub(crate) fn print_added(
    placed: &PlacedComment,
    json: bool,
    out: &mut Out<'_>,
) -> Result<i32, IpcError> {
    if json {
        print_json(out, &CommentJson::from(placed))?;
    } else {
        writeln!(
            out,
            "Comment {} on line {} of {}.",
            placed.comment.id,
            placed.line.unwrap_or(0),
            placed.comment.plan_path
        )
        .map_err(io_err)?;
    }
    Ok(0)
}

pub fn list(ctx: &Context, args: CommentsArgs, out: &mut Out<'_>) -> Result<i32, IpcError> {
    let roots = ctx.roots()?;
    if args.markdown {
        // Exact, like `plans show --md`: what the window's "Copy review as Markdown" copies.
        let md = comments::review_markdown(&roots, &args.plan)?;
        out.exact(&md).map_err(io_err)?;
        return Ok(0);
    }
    let (path, placed) = comments::for_plan(&roots, &args.plan)?;
    print_list(&path.display().to_string(), &placed, args.json, out)
}

/// The comments on a plan (`plan`: how it is named), as `comments` prints them.
pub(crate) fn print_list(
    plan: &str,
    placed: &[PlacedComment],
    json: bool,
    out: &mut Out<'_>,
) -> Result<i32, IpcError> {
    if json {
        let rows: Vec<CommentJson<'_>> = placed.iter().map(CommentJson::from).collect();
        print_json(out, &rows)?;
        return Ok(0);
    }
    if placed.is_empty() {
        writeln!(out, "No comments on {plan}.").map_err(io_err)?;
    }
    for p in placed {
        let status = match p.status {
            CommentStatus::Open => "open",
            CommentStatus::Outdated => "outdated",
            CommentStatus::Resolved => "resolved",
        };
        let at = p.line.map_or("-".to_owned(), |l| format!("line {l}"));
        writeln!(
            out,
            "{}  {status:<8}  {at:<9}  {}",
            p.comment.id, p.comment.created_at
        )
        .map_err(io_err)?;
        for line in p.comment.anchor.quote.trim().lines() {
            writeln!(out, "    > {line}").map_err(io_err)?;
        }
        for line in p.comment.text.lines() {
            writeln!(out, "    {line}").map_err(io_err)?;
        }
    }
    Ok(0)
}
