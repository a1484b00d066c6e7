//! "Copy review as Markdown": a plan's review as a Markdown document a person pastes into an
//! issue or a chat: the plan's title, each comment with its quote and status, and the decision.
//!
//! ```text
//! # Review: Plan: add pagination
//!
//! - Plan: `/home/dev/.claude/plans/p.md`
//! - Decision: rejected by dev at 2026-11-23T10:05:00Z, with 1 comment
//!
//! ## Comments (2)
//!
//! ### 1. Open, line 4
//!
//! > 2. Return a cursor
//!
//! opaque, not an offset
//!
//! _dev, 2026-11-23T10:00:00Z; sent with the decision of 2026-11-23T10:05:00Z_
//! ```
//!
//! The quote is a `>` block, line for line; the comment's own text is kept as written.

use std::path::Path;

use super::{CommentStatus, PlacedComment};
use crate::review::{Decision, Verdict};

/// The review of the plan at `plan` (holding `content`) as Markdown: its title, `comments` (as
/// placed in `content`) and `decision`, the latest on it, if any.
pub fn review_markdown(
    plan: &Path,
    content: &str,
    comments: &[PlacedComment],
    decision: Option<&Decision>,
) -> String {
    let title = crate::plans::first_heading(content).unwrap_or_else(|| {
        plan.file_name()
            .map_or_else(|| "Plan".to_owned(), |n| n.to_string_lossy().into_owned())
    });
    let mut out = format!("# Review: {}\n\n", one_line(&title));
    out.push_str(&format!(
        "- Plan: `{}`\n",
        one_line(&plan.display().to_string())
    ));
    out.push_str(&match decision {
        Some(d) => {
            let verdict = match d.decision {
                Verdict::Approved if d.edited => "approved with edits",
                Verdict::Approved => "approved",
                Verdict::Rejected => "rejected",
            };
            let n = d.comments.len();
            let carried = match n {
                0 => String::new(),
                1 => ", with 1 comment".to_owned(),
                n => format!(", with {n} comments"),
            };
            format!(
                "- Decision: {verdict} by {} at {}{carried}\n",
                one_line(&d.reviewer),
                crate::timestamp::format(d.time)
            )
        }
        None => "- Decision: none yet\n".to_owned(),
    });
    if comments.is_empty() {
        out.push_str("\nNo comments.\n");
        return out;
    }
    out.push_str(&format!("\n## Comments ({})\n", comments.len()));
    for (i, c) in comments.iter().enumerate() {
        let status = match c.status {
            CommentStatus::Open => "Open",
            CommentStatus::Outdated => "Outdated (its text is gone from this version)",
            CommentStatus::Resolved => "Resolved",
        };
        let at = c.line.map_or(String::new(), |l| format!(", line {l}"));
        out.push_str(&format!("\n### {}. {status}{at}\n\n", i + 1));
        for line in c.comment.anchor.quote.trim().lines() {
            if line.trim().is_empty() {
                out.push_str(">\n");
            } else {
                out.push_str(&format!("> {line}\n"));
            }
        }
        out.push('\n');
        out.push_str(c.comment.text.trim());
        out.push_str("\n\n");
        let mut by = format!("_{}, {}", one_line(&c.comment.author), c.comment.created_at);
        if let Some(last) = c.comment.sent_with.last() {
            by.push_str(&format!("; sent with the decision of {last}"));
        }
        by.push_str("_\n");
        out.push_str(&by);
    }
    out
}

/// Text that must stay on one line of the document.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::Agent;
    use crate::comments::{anchor, place, Comment};

    const PLAN: &str = "# Plan: add pagination\n\n1. Add `page`\n2. Return a cursor\n3. Test\n";

    fn comment(quote: &str, text: &str, sent: &[&str], resolved: bool) -> PlacedComment {
        let a = anchor::create(PLAN, quote, anchor::Position::Only).unwrap();
        place(
            Comment {
                id: format!("c{}", quote.len()),
                plan_path: "/p/plan.md".into(),
                version: "v".into(),
                anchor: a,
                text: text.into(),
                created_at: "2026-11-23T10:00:00Z".into(),
                author: "dev".into(),
                resolved_at: resolved.then(|| "2026-11-23T10:01:00Z".into()),
                sent_with: sent.iter().map(|s| s.to_string()).collect(),
            },
            PLAN,
        )
    }

    fn decision() -> Decision {
        Decision {
            time: crate::timestamp::parse("2026-11-23T10:05:00Z").unwrap(),
            reviewer: "dev".into(),
            plan_path: "/p/plan.md".into(),
            agent: Agent::Claude,
            session_id: None,
            decision: Verdict::Rejected,
            feedback: Some("x".into()),
            approved_hash: None,
            content_hash: None,
            edited: false,
            mode: None,
            request_id: None,
            delivery: None,
            delivery_reason: None,
            comments: vec!["c17".into()],
            id: None,
            revokes: None,
            machine: None,
            decided_by: None,
        }
    }

    #[test]
    fn the_review_has_title_every_comment_with_its_quote_and_status_and_the_decision() {
        let comments = [
            comment(
                "2. Return a cursor",
                "opaque, not an offset\n\n- base64",
                &["2026-11-23T10:05:00Z"],
                false,
            ),
            comment("1. Add `page`\n2. Return", "and `limit`", &[], true),
        ];
        let md = review_markdown(Path::new("/p/plan.md"), PLAN, &comments, Some(&decision()));
        insta::assert_snapshot!(md, @r###"
        # Review: Plan: add pagination

        - Plan: `/p/plan.md`
        - Decision: rejected by dev at 2026-11-23T10:05:00Z, with 1 comment

        ## Comments (2)

        ### 1. Open, line 4

        > 2. Return a cursor

        opaque, not an offset

        - base64

        _dev, 2026-11-23T10:00:00Z; sent with the decision of 2026-11-23T10:05:00Z_

        ### 2. Resolved, line 3

        > 1. Add `page`
        > 2. Return

        and `limit`

        _dev, 2026-11-23T10:00:00Z_
        "###);
    }

    #[test]
    fn no_decision_no_comments_and_no_heading() {
        let md = review_markdown(Path::new("/p/notes.md"), "just text\n", &[], None);
        assert_eq!(
            md,
            "# Review: notes.md\n\n- Plan: `/p/notes.md`\n- Decision: none yet\n\nNo comments.\n"
        );
    }
}
