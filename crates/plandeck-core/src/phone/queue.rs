//! What the page shows of a waiting plan besides its text: its diff against the last approved
//! version ([`crate::review::diff::against_approved`], the window's compare) and the plan's
//! comments with their anchors ([`crate::comments::list`], placed in the text shown), as the
//! window's plan view shows them.
//!
//! The other machines' plans on the page are `crate::phone_elsewhere`'s (above the deck).
//!
//! Everything goes to the page as data, never as markup: the diff as lines of text with their
//! kind, the comments as their quote, text, line and status; the page puts each in the DOM as
//! text (`textContent`), so nothing of them is ever parsed as HTML. Characters a person cannot see
//! are marked (`⟨U+202E⟩`, [`crate::visible::shown`]) as the window marks them.

use std::path::Path;

use serde_json::{json, Value};

use crate::comments::{CommentStatus, PlacedComment};
use crate::config::Roots;
use crate::gate::GateRequest;
use crate::review::{LineKind, PlanDiff};
use crate::visible::shown;

/// At most this many lines of a diff go to the page; the rest are counted ("n more lines").
pub const MAX_DIFF_LINES: usize = 2000;
/// At most this many comments go to the page (a plan keeps at most 1000).
pub const MAX_COMMENTS: usize = 1000;

/// The text of a waiting request the person is shown: the plan file as it is now when it holds
/// other text than the agent submitted (what the hash binds), else the submitted plan.
pub fn shown_text(req: &GateRequest) -> &str {
    req.plan_read.as_deref().unwrap_or(&req.plan)
}

/// A diff as the page shows it: where from, the counts, and its hunks as lines of text.
pub fn diff_json(d: &PlanDiff) -> Value {
    let mut left = MAX_DIFF_LINES;
    let mut cut = 0usize;
    let hunks: Vec<Value> = d
        .hunks
        .iter()
        .filter_map(|h| {
            if left == 0 {
                cut += h.lines.len();
                return None;
            }
            let take = h.lines.len().min(left);
            left -= take;
            cut += h.lines.len() - take;
            let lines: Vec<Value> = h.lines[..take]
                .iter()
                .map(|l| {
                    let kind = match l.kind {
                        LineKind::Equal => "equal",
                        LineKind::Insert => "insert",
                        LineKind::Delete => "delete",
                    };
                    json!({"kind": kind, "text": shown(&l.text())})
                })
                .collect();
            Some(json!({"header": h.header(), "lines": lines}))
        })
        .collect();
    json!({
        "from": shown(&d.from_label),
        "fromHash": d.from_hash,
        "approvedBefore": d.from_hash.is_some(),
        "added": d.stats.added,
        "removed": d.stats.removed,
        "hunks": hunks,
        "linesLeftOut": cut,
    })
}

/// Comments as the page lists them: each with its anchor (the quoted text and its line in the
/// text shown), its status there (open, outdated, resolved), who wrote it and when.
pub fn comments_json(comments: &[PlacedComment]) -> Value {
    let listed: Vec<Value> = comments
        .iter()
        .take(MAX_COMMENTS)
        .map(|c| {
            let status = match c.status {
                CommentStatus::Open => "open",
                CommentStatus::Outdated => "outdated",
                CommentStatus::Resolved => "resolved",
            };
            json!({
                "id": c.comment.id,
                "quote": shown(&c.comment.anchor.quote),
                "text": shown(&c.comment.text),
                "line": c.line,
                "status": status,
                "author": shown(&c.comment.author),
                "createdAt": c.comment.created_at,
            })
        })
        .collect();
    Value::Array(listed)
}

/// A part of the review the page could not be given, in words (the rest is still shown).
pub(crate) fn unknown(what: &str, e: impl std::fmt::Display) -> Value {
    json!({"unknown": format!("{what} could not be read: {e}")})
}

/// The diff and comments of a request waiting on this machine, for its text as shown.
pub fn review_here(roots: &Roots, req: &GateRequest) -> (Value, Value) {
    let text = shown_text(req);
    let path = req.plan_path.as_deref().map(Path::new);
    let diff = match crate::review::diff::against_approved(roots, path, text) {
        Ok(d) => diff_json(&d),
        Err(e) => unknown("the diff", e),
    };
    let comments = match path {
        Some(p) => match crate::comments::list(&roots.data, p, text) {
            Ok(c) => comments_json(&c),
            Err(e) => unknown("the comments", e),
        },
        None => json!([]),
    };
    (diff, comments)
}

/// A waiting request as a card of the page: machine, agent, project, since, hash; `known`:
/// false when its machine is not connected (the card is what it last said).
pub fn card(r: &GateRequest, machine: &str, known: bool) -> Value {
    let project = Path::new(&r.cwd)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| r.cwd.clone());
    json!({
        "id": r.id,
        "agent": r.agent.display_name(),
        "machine": shown(r.machine.as_deref().unwrap_or(machine)),
        "project": shown(&project),
        "waitingSince": crate::timestamp::format(r.waiting_since),
        "planHash": r.plan_hash,
        "known": known,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diff_goes_as_lines_of_text_bounded_with_hidden_characters_marked() {
        let old = "# Plan\n\n1. One\n";
        let new = format!(
            "# Plan\n\n1. One\n2. <img src=x onerror=alert(1)> \u{202e}two\n{}",
            "x\n".repeat(MAX_DIFF_LINES + 10)
        );
        let d = PlanDiff::between(old, &new);
        let v = diff_json(&d);
        let lines: Vec<&Value> = v["hunks"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|h| h["lines"].as_array().unwrap())
            .collect();
        assert_eq!(lines.len(), MAX_DIFF_LINES);
        assert!(v["linesLeftOut"].as_u64().unwrap() > 0);
        let added = lines
            .iter()
            .find(|l| l["text"].as_str().unwrap().starts_with("2. "))
            .unwrap();
        assert_eq!(added["kind"], json!("insert"));
        // Text, as the plan wrote it (the page sets it as text), with the bidi override marked.
        assert_eq!(
            added["text"],
            json!("2. <img src=x onerror=alert(1)> ⟨U+202E⟩two")
        );
    }
}
