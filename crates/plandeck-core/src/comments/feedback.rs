//! The plain-text layout in which a reviewer's comments reach the agent.
//!
//! One layout for every agent and every path (a hook's `deny` message, keys typed into a card,
//! a "Reviewer notes" section appended to an approved plan), documented in `docs/agents.md`:
//!
//! ```text
//! <the typed feedback>
//!
//! Comments on the plan (2), each on the quoted text:
//!
//! 1. On "Return a `Link` header.":
//!    RFC 8288 format, please.
//!
//! 2. On lines 12-13:
//!    > 3. Test with 0, 1 and 1000 items.
//!    > 4. Ship it.
//!    Add a test for a negative page.
//! ```
//!
//! A one-line quote is quoted inline; a longer one is a `>` block, so the model sees exactly
//! which text a comment is about. Comment text keeps its lines, indented under its quote.

use super::PlacedComment;

/// The heading of the section an approval with notes appends to the plan.
pub const NOTES_HEADING: &str = "## Reviewer notes";

/// The feedback text for a rejection: the typed feedback, then every comment with its quote.
pub fn rejection(typed: &str, comments: &[PlacedComment]) -> String {
    let typed = typed.trim();
    let list = comment_list(comments);
    match (typed.is_empty(), list.is_empty()) {
        (_, true) => typed.to_owned(),
        (true, false) => list,
        (false, false) => format!("{typed}\n\n{list}"),
    }
}

/// The plan text an approval with notes delivers: the plan, then a "Reviewer notes" section with
/// every comment and its quote. The plan itself is unchanged above the section.
pub fn plan_with_notes(plan: &str, comments: &[PlacedComment]) -> String {
    if comments.is_empty() {
        return plan.to_owned();
    }
    let mut out = plan.trim_end().to_owned();
    out.push_str("\n\n");
    out.push_str(&notes_section(comments));
    out.push('\n');
    out
}

/// The "Reviewer notes" section alone (what the decision log records for an approval with notes).
pub fn notes_section(comments: &[PlacedComment]) -> String {
    format!("{NOTES_HEADING}\n\n{}", items(comments))
}

/// "Comments on the plan (N), each on the quoted text:" and the numbered comments.
pub fn comment_list(comments: &[PlacedComment]) -> String {
    if comments.is_empty() {
        return String::new();
    }
    let n = comments.len();
    let noun = if n == 1 { "Comment" } else { "Comments" };
    format!(
        "{noun} on the plan ({n}), each on the quoted text:\n\n{}",
        items(comments)
    )
}

fn items(comments: &[PlacedComment]) -> String {
    let mut out = String::new();
    for (i, c) in comments.iter().enumerate() {
        if i > 0 {
            out.push_str("\n\n");
        }
        out.push_str(&item(i + 1, c));
    }
    out
}

/// One comment with its quote. Both are cleaned like all text handed to an agent
/// ([`crate::terminal::clean_text`]): the notes of an approval are not typed, they reach the
/// agent in the plan, so they are cleaned here.
fn item(n: usize, c: &PlacedComment) -> String {
    let quote = crate::terminal::clean_text(&c.comment.anchor.quote, usize::MAX);
    let comment = crate::terminal::clean_text(&c.comment.text, usize::MAX);
    let quote = quote.trim();
    let indent = " ".repeat(format!("{n}. ").len());
    let mut out = String::new();
    let quote_lines: Vec<&str> = quote.lines().collect();
    if quote_lines.len() <= 1 {
        out.push_str(&format!("{n}. On \"{quote}\":\n"));
    } else {
        let lines = match c.line {
            Some(first) => format!("lines {first}-{}", first as usize + quote_lines.len() - 1),
            None => "the quoted lines".to_owned(),
        };
        out.push_str(&format!("{n}. On {lines}:\n"));
        for line in &quote_lines {
            out.push_str(&format!("{indent}> {line}\n").replace("> \n", ">\n"));
        }
    }
    let text: Vec<String> = comment
        .trim()
        .lines()
        .map(|l| {
            if l.trim().is_empty() {
                String::new()
            } else {
                format!("{indent}{l}")
            }
        })
        .collect();
    out.push_str(&text.join("\n"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::comments::{anchor, place, Comment};

    fn comment(plan: &str, quote: &str, text: &str) -> PlacedComment {
        let a = anchor::create(plan, quote, anchor::Position::Only).unwrap();
        place(
            Comment {
                id: "c1".into(),
                plan_path: "/p.md".into(),
                version: "v".into(),
                anchor: a,
                text: text.into(),
                created_at: "2026-11-23T10:00:00Z".into(),
                author: "dev".into(),
                resolved_at: None,
                sent_with: vec![],
            },
            plan,
        )
    }

    const PLAN: &str = "# Plan\n\n1. Add `page`.\n2. Return a `Link` header.\n3. Test with 0 items.\n4. Ship it.\n";

    #[test]
    fn rejection_layout_carries_every_quote_and_every_line() {
        let a = comment(PLAN, "Return a `Link` header.", "RFC 8288 format, please.");
        let b = comment(
            PLAN,
            "3. Test with 0 items.\n4. Ship it.",
            "Add a negative page.\n\n- and a huge one",
        );
        let text = rejection("Close, but:", &[a, b]);
        insta::assert_snapshot!(text, @r###"
        Close, but:

        Comments on the plan (2), each on the quoted text:

        1. On "Return a `Link` header.":
           RFC 8288 format, please.

        2. On lines 5-6:
           > 3. Test with 0 items.
           > 4. Ship it.
           Add a negative page.

           - and a huge one
        "###);
    }

    #[test]
    fn feedback_without_comments_or_without_typed_text() {
        assert_eq!(rejection("  just this ", &[]), "just this");
        let a = comment(PLAN, "Ship it.", "not yet");
        assert_eq!(
            rejection("", &[a]),
            "Comment on the plan (1), each on the quoted text:\n\n1. On \"Ship it.\":\n   not yet"
        );
    }

    #[test]
    fn approval_with_notes_appends_a_section_and_keeps_the_plan() {
        let a = comment(PLAN, "Ship it.", "after the release branch is cut");
        let out = plan_with_notes(PLAN, &[a]);
        assert!(out.starts_with(PLAN.trim_end()));
        assert!(out.ends_with(
            "\n\n## Reviewer notes\n\n1. On \"Ship it.\":\n   after the release branch is cut\n"
        ));
        assert_eq!(plan_with_notes(PLAN, &[]), PLAN);
    }
}
