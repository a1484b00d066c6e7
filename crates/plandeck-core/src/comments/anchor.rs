//! Anchoring a comment to quoted text, and finding that text again in a later version.
//!
//! An [`Anchor`] keeps the quote, a little text on each side of it and where it was in the
//! version the comment was made on. [`locate`] finds it in another version:
//!
//! 1. the quote itself, exactly: the occurrence whose surroundings match best (then the one
//!    nearest the old place) wins. Same place and same surroundings is [`Placement::Kept`];
//!    anything else is [`Placement::Moved`];
//! 2. the surroundings without the quote: the text between them was edited, and is the comment's
//!    new place when it still resembles the quote ([`Placement::Changed`]);
//! 3. lines that resemble the quote closely enough ([`Placement::Changed`]);
//! 4. otherwise the quote is gone ([`Placement::Gone`]): the comment is outdated, never dropped.
//!
//! The work is bounded for huge plans: exact search is linear, the fuzzy passes look at a capped
//! number of candidates.

use serde::{Deserialize, Serialize};
use similar::TextDiff;
use ts_rs::TS;

/// How much text on each side of the quote is kept to tell occurrences apart.
const CONTEXT_CHARS: usize = 48;
/// A quote longer than this is refused: a comment anchors to a passage, not a whole plan.
pub const MAX_QUOTE_BYTES: usize = 8 * 1024;
/// The least similarity (0..1) at which edited text is still the comment's text.
const MIN_SIMILARITY: f32 = 0.6;
/// Lines must resemble the quote more closely than edited text between its surroundings.
const MIN_LINE_SIMILARITY: f32 = 0.75;
/// How much better than any other place the best resembling line must be.
const AMBIGUITY_MARGIN: f32 = 0.05;
/// The most line windows the similarity pass compares, whatever the plan's size.
const MAX_FUZZY_CANDIDATES: usize = 20_000;

/// Where a comment's quote was in the version it was made on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Anchor {
    /// The quoted text, exactly as it was.
    pub quote: String,
    /// Up to 48 characters before the quote.
    pub before: String,
    /// Up to 48 characters after the quote.
    pub after: String,
    /// Byte offset of the quote in that version.
    pub start: usize,
}

/// Where an anchor is in a given version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Placement {
    /// The same text at the same place.
    Kept { start: usize, end: usize },
    /// The same text elsewhere (or with other text around it).
    Moved { start: usize, end: usize },
    /// Text that resembles the quote: the quote was edited.
    Changed {
        start: usize,
        end: usize,
        /// 0..1, how much of the quote is left.
        similarity: f32,
    },
    /// Nothing resembles the quote any more.
    Gone,
}

impl Placement {
    /// The byte range of the comment's text in the version, when it is there.
    pub fn range(&self) -> Option<(usize, usize)> {
        match *self {
            Placement::Kept { start, end }
            | Placement::Moved { start, end }
            | Placement::Changed { start, end, .. } => Some((start, end)),
            Placement::Gone => None,
        }
    }
}

/// Why a quote cannot anchor a comment.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnchorError {
    #[error("the quote is empty: select the text the comment is about")]
    EmptyQuote,
    #[error("the quote is {len} bytes; quote at most {MAX_QUOTE_BYTES} bytes of the plan")]
    QuoteTooLong { len: usize },
    #[error("the plan does not hold the quoted text")]
    NotFound,
    #[error(
        "the quoted text occurs {count} times in the plan; give its position (occurrence 1 to \
         {count}) or quote more of it"
    )]
    Ambiguous { count: usize },
    #[error("occurrence {occurrence} was asked for, but the quoted text occurs {count} times")]
    NoSuchOccurrence { occurrence: usize, count: usize },
}

/// Which occurrence of a quote is meant when it occurs more than once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    /// The only one (refused when there are several).
    Only,
    /// The n-th, from 1.
    Occurrence(usize),
    /// The one containing or nearest this byte offset (a click in the window).
    Near(usize),
}

/// Anchors a comment to `quote` in `text`.
pub fn create(text: &str, quote: &str, position: Position) -> Result<Anchor, AnchorError> {
    if quote.trim().is_empty() {
        return Err(AnchorError::EmptyQuote);
    }
    if quote.len() > MAX_QUOTE_BYTES {
        return Err(AnchorError::QuoteTooLong { len: quote.len() });
    }
    let mut ranges: Vec<(usize, usize)> = text
        .match_indices(quote)
        .map(|(i, q)| (i, i + q.len()))
        .collect();
    if ranges.is_empty() {
        // Text selected in the rendered plan has lost its markup (`code`, **bold**, line breaks).
        ranges = find_rendered(text, quote);
    }
    let count = ranges.len();
    let (start, end) = match (count, position) {
        (0, _) => return Err(AnchorError::NotFound),
        (1, Position::Only | Position::Near(_)) => ranges[0],
        (_, Position::Only) => return Err(AnchorError::Ambiguous { count }),
        (_, Position::Occurrence(n)) if n >= 1 && n <= count => ranges[n - 1],
        (_, Position::Occurrence(n)) => {
            return Err(AnchorError::NoSuchOccurrence {
                occurrence: n,
                count,
            })
        }
        (_, Position::Near(at)) => *ranges
            .iter()
            .min_by_key(|(s, e)| distance(*s, *e, at))
            .expect("count > 0"),
    };
    Ok(anchor_at(text, start, end))
}

/// Inline markup a rendered selection drops.
fn is_markup(c: char) -> bool {
    matches!(c, '*' | '_' | '`' | '~' | '\\')
}

/// The source ranges whose text, without inline markup and with whitespace runs as one space,
/// is the quote's (also so normalized). Each range starts and ends on a character of the quote.
fn find_rendered(text: &str, quote: &str) -> Vec<(usize, usize)> {
    fn normalize(s: &str) -> (String, Vec<usize>) {
        let mut out = String::with_capacity(s.len());
        let mut at = Vec::with_capacity(s.len());
        let mut space = false;
        for (i, c) in s.char_indices() {
            if is_markup(c) {
                continue;
            }
            if c.is_whitespace() {
                space = !out.is_empty();
                continue;
            }
            if space {
                out.push(' ');
                at.push(i);
                space = false;
            }
            at.extend(std::iter::repeat_n(i, c.len_utf8()));
            out.push(c);
        }
        (out, at)
    }
    let (norm_quote, _) = normalize(quote);
    if norm_quote.is_empty() {
        return Vec::new();
    }
    let (norm_text, at) = normalize(text);
    norm_text
        .match_indices(norm_quote.as_str())
        .map(|(i, q)| {
            let last = at[i + q.len() - 1];
            let end = last + text[last..].chars().next().map_or(0, char::len_utf8);
            (at[i], end)
        })
        .collect()
}

/// The anchor of `text[start..end]` (both on char boundaries).
pub fn anchor_at(text: &str, start: usize, end: usize) -> Anchor {
    Anchor {
        quote: text[start..end].to_owned(),
        before: tail_chars(&text[..start], CONTEXT_CHARS).to_owned(),
        after: head_chars(&text[end..], CONTEXT_CHARS).to_owned(),
        start,
    }
}

/// Where `anchor` is in `text`.
pub fn locate(anchor: &Anchor, text: &str) -> Placement {
    if anchor.quote.is_empty() {
        return Placement::Gone;
    }
    if let Some(found) = exact(anchor, text) {
        return found;
    }
    if let Some(found) = between_context(anchor, text) {
        return found;
    }
    similar_lines(anchor, text).unwrap_or(Placement::Gone)
}

fn exact(anchor: &Anchor, text: &str) -> Option<Placement> {
    let len = anchor.quote.len();
    let best = text
        .match_indices(anchor.quote.as_str())
        .map(|(start, _)| {
            let before = common_suffix_chars(&text[..start], &anchor.before);
            let after = common_prefix_chars(&text[start + len..], &anchor.after);
            // Surroundings first, nearness to the old place second.
            (
                before + after,
                std::cmp::Reverse(start.abs_diff(anchor.start)),
                start,
            )
        })
        .max()?;
    let (context, _, start) = best;
    let full = anchor.before.chars().count() + anchor.after.chars().count();
    let end = start + len;
    Some(if start == anchor.start && context == full {
        Placement::Kept { start, end }
    } else {
        Placement::Moved { start, end }
    })
}

/// The quote was edited in place: its surroundings are still there, one after the other.
fn between_context(anchor: &Anchor, text: &str) -> Option<Placement> {
    // Short surroundings (a quote at the very start or end) say too little to trust.
    if anchor.before.chars().count() < 8 || anchor.after.chars().count() < 8 {
        return None;
    }
    let max_gap = anchor.quote.len() * 3 + 200;
    let mut best: Option<(f32, usize, usize)> = None;
    for (b, _) in text.match_indices(anchor.before.as_str()).take(1000) {
        let start = b + anchor.before.len();
        let window_end = floor_char_boundary(text, (start + max_gap).min(text.len()));
        let Some(rel) = text[start..window_end].find(anchor.after.as_str()) else {
            continue;
        };
        let end = start + rel;
        let similarity = similarity(&anchor.quote, &text[start..end]);
        if best.is_none_or(|(s, _, _)| similarity > s) {
            best = Some((similarity, start, end));
        }
    }
    let (similarity, start, end) = best?;
    (similarity >= MIN_SIMILARITY && start < end).then_some(Placement::Changed {
        start,
        end,
        similarity,
    })
}

/// Line windows as long as the quote (in lines) that resemble it.
fn similar_lines(anchor: &Anchor, text: &str) -> Option<Placement> {
    let quote = anchor.quote.trim();
    let quote_lines = quote.lines().count().max(1);
    // Byte ranges of the text's lines.
    let mut lines = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let content = line.trim_end_matches(['\n', '\r']);
        lines.push((at, at + content.len()));
        at += line.len();
    }
    let mut best: Option<(f32, usize, usize)> = None;
    let mut runner_up = 0.0f32;
    let mut compared = 0;
    for n in [
        quote_lines,
        quote_lines + 1,
        quote_lines.saturating_sub(1).max(1),
    ] {
        for w in lines.windows(n) {
            let (start, end) = (w[0].0, w[n - 1].1);
            let candidate = text[start..end].trim();
            // Windows of a very different length cannot reach the threshold: skip them cheaply.
            let (a, b) = (candidate.len(), quote.len());
            if a == 0 || a * 3 < b || b * 3 < a {
                continue;
            }
            compared += 1;
            if compared > MAX_FUZZY_CANDIDATES {
                break;
            }
            let s = similarity(quote, candidate);
            let lead = text[start..end].len() - text[start..end].trim_start().len();
            let placed = (start + lead, start + lead + candidate.len());
            match best {
                Some((bs, bstart, bend)) if s <= bs => {
                    // The same place seen through a wider window is not a rival.
                    if !(placed.0 <= bend && bstart <= placed.1) {
                        runner_up = runner_up.max(s);
                    }
                }
                Some((bs, bstart, bend)) => {
                    if !(placed.0 <= bend && bstart <= placed.1) {
                        runner_up = runner_up.max(bs);
                    }
                    best = Some((s, placed.0, placed.1));
                }
                None => best = Some((s, placed.0, placed.1)),
            }
        }
    }
    let (similarity, start, end) = best?;
    // Two places that resemble the quote about as well (sibling steps): do not guess.
    let clear = similarity - runner_up >= AMBIGUITY_MARGIN;
    (similarity >= MIN_LINE_SIMILARITY && clear).then_some(Placement::Changed {
        start,
        end,
        similarity,
    })
}

/// 0..1: how alike two texts are, by characters.
fn similarity(a: &str, b: &str) -> f32 {
    if a == b {
        return 1.0;
    }
    // Long texts are compared by words, which keeps the diff cheap.
    if a.len() + b.len() > 4096 {
        TextDiff::from_words(a, b).ratio()
    } else {
        TextDiff::from_chars(a, b).ratio()
    }
}

fn distance(start: usize, end: usize, at: usize) -> usize {
    if at < start {
        start - at
    } else {
        at.saturating_sub(end)
    }
}

fn tail_chars(s: &str, n: usize) -> &str {
    match s.char_indices().rev().nth(n.saturating_sub(1)) {
        Some((i, _)) if n > 0 => &s[i..],
        _ if n == 0 => "",
        _ => s,
    }
}

fn head_chars(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

fn common_suffix_chars(a: &str, b: &str) -> usize {
    a.chars()
        .rev()
        .zip(b.chars().rev())
        .take_while(|(x, y)| x == y)
        .count()
}

fn common_prefix_chars(a: &str, b: &str) -> usize {
    a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count()
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAN: &str = "# Pagination\n\n1. Add `page` and `per_page` to `GET /items`.\n\
        2. Return a `Link` header with next/prev.\n3. Test with 0, 1 and 1000 items.\n";

    fn quoted(text: &str, p: &Placement) -> String {
        let (s, e) = p.range().expect("placed");
        text[s..e].to_owned()
    }

    #[test]
    fn same_text_same_place_is_kept() {
        let a = create(PLAN, "Return a `Link` header", Position::Only).unwrap();
        assert!(matches!(locate(&a, PLAN), Placement::Kept { .. }));
    }

    #[test]
    fn text_moved_by_an_insertion_above_is_moved() {
        let a = create(PLAN, "Return a `Link` header", Position::Only).unwrap();
        let v2 = PLAN.replace(
            "# Pagination\n",
            "# Pagination\n\nContext: the API is slow.\n",
        );
        let p = locate(&a, &v2);
        assert!(matches!(p, Placement::Moved { .. }), "{p:?}");
        assert_eq!(quoted(&v2, &p), "Return a `Link` header");
    }

    #[test]
    fn edited_text_is_changed_and_found_between_its_surroundings() {
        let a = create(
            PLAN,
            "Return a `Link` header with next/prev.",
            Position::Only,
        )
        .unwrap();
        let v2 = PLAN.replace("with next/prev.", "with next, prev and last.");
        let p = locate(&a, &v2);
        assert!(matches!(p, Placement::Changed { .. }), "{p:?}");
        assert_eq!(
            quoted(&v2, &p),
            "Return a `Link` header with next, prev and last."
        );
    }

    #[test]
    fn an_edited_line_that_also_moved_is_found_by_resemblance() {
        let a = create(PLAN, "3. Test with 0, 1 and 1000 items.", Position::Only).unwrap();
        let v2 = "# Pagination v2\n\n- Test with 0, 1 and 10000 items.\n- Ship it.\n";
        let p = locate(&a, v2);
        assert!(matches!(p, Placement::Changed { .. }), "{p:?}");
        assert_eq!(quoted(v2, &p), "- Test with 0, 1 and 10000 items.");
    }

    #[test]
    fn a_removed_step_is_not_pinned_on_its_sibling() {
        let text = "1. Add the index on users.email\n2. Add the index on users.name\n";
        let a = create(text, "1. Add the index on users.email", Position::Only).unwrap();
        let v2 = "2. Add the index on users.name\n3. Add the index on users.city\n";
        assert_eq!(locate(&a, v2), Placement::Gone);
    }

    #[test]
    fn removed_text_is_gone() {
        let a = create(
            PLAN,
            "Return a `Link` header with next/prev.",
            Position::Only,
        )
        .unwrap();
        let v2 = PLAN.replace("2. Return a `Link` header with next/prev.\n", "");
        assert_eq!(locate(&a, &v2), Placement::Gone);
        assert_eq!(locate(&a, ""), Placement::Gone);
    }

    #[test]
    fn duplicate_quotes_need_a_position_and_keep_theirs() {
        let text = "- run `cargo test`\n- edit lib.rs\n- run `cargo test`\n";
        assert_eq!(
            create(text, "run `cargo test`", Position::Only),
            Err(AnchorError::Ambiguous { count: 2 })
        );
        let second = create(text, "run `cargo test`", Position::Occurrence(2)).unwrap();
        assert_eq!(second.start, text.rfind("run").unwrap());
        let near = create(text, "run `cargo test`", Position::Near(text.len() - 3)).unwrap();
        assert_eq!(near, second);
        assert!(matches!(
            create(text, "run `cargo test`", Position::Occurrence(3)),
            Err(AnchorError::NoSuchOccurrence {
                occurrence: 3,
                count: 2
            })
        ));
        // A line inserted at the top: the second occurrence is still the one with its own
        // surroundings, not the first.
        let v2 = format!("- plan\n{text}");
        let p = locate(&second, &v2);
        assert_eq!(p.range().unwrap().0, v2.rfind("run").unwrap());
    }

    #[test]
    fn a_selection_from_the_rendered_plan_is_found_in_the_source() {
        // The webview's selection of "Add page and per_page to GET /items." lost the backticks.
        let a = create(PLAN, "Add page and per_page to GET /items.", Position::Only).unwrap();
        assert_eq!(a.quote, "Add `page` and `per_page` to `GET /items`.");
        // Across a line break, with emphasis.
        let text = "Use **strong**\ncaching here.\n";
        let a = create(text, "Use strong caching", Position::Only).unwrap();
        assert_eq!(a.quote, "Use **strong**\ncaching");
        assert_eq!(
            create(text, "nothing like it", Position::Only),
            Err(AnchorError::NotFound)
        );
    }

    #[test]
    fn bad_quotes_are_refused_with_a_reason() {
        assert_eq!(
            create(PLAN, "  ", Position::Only),
            Err(AnchorError::EmptyQuote)
        );
        assert_eq!(
            create(PLAN, "nowhere", Position::Only),
            Err(AnchorError::NotFound)
        );
        let long = "x".repeat(MAX_QUOTE_BYTES + 1);
        assert!(matches!(
            create(&long, &long, Position::Only),
            Err(AnchorError::QuoteTooLong { .. })
        ));
    }

    #[test]
    fn multibyte_text_is_cut_on_char_boundaries() {
        let text = "é".repeat(100) + "Ünïcödé quote" + &"ß".repeat(100);
        let a = create(&text, "Ünïcödé quote", Position::Only).unwrap();
        assert_eq!(a.before.chars().count(), CONTEXT_CHARS);
        assert_eq!(a.after.chars().count(), CONTEXT_CHARS);
        assert!(matches!(locate(&a, &text), Placement::Kept { .. }));
        let v2 = text.replace("Ünïcödé quote", "Ünïcödé qúote");
        assert!(matches!(locate(&a, &v2), Placement::Changed { .. }));
    }

    #[test]
    fn a_huge_plan_is_searched_within_bounds() {
        let mut text = String::new();
        for i in 0..200_000 {
            text.push_str(&format!("- step {i}: change file_{i}.rs\n"));
        }
        let a = create(
            &text,
            "- step 123456: change file_123456.rs",
            Position::Only,
        )
        .unwrap();
        assert!(matches!(locate(&a, &text), Placement::Kept { .. }));
        // Gone from a huge plan: the fuzzy pass stops at its cap instead of comparing every
        // line, and sibling lines that resemble it as well as each other are no guess.
        let v2 = text.replace("- step 123456: change file_123456.rs\n", "");
        assert_eq!(locate(&a, &v2), Placement::Gone);
    }
}
