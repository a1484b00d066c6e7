//! Markdown to sanitized HTML, with the headings a table of contents needs.
//!
//! A plan is text an agent wrote after reading untrusted input, so every byte of HTML that leaves
//! here has been through ammonia, with an allow-list trimmed to what rendered markdown needs:
//! `language-*` classes on code (the webview highlights them), ids on headings (anchors, the table
//! of contents) and footnotes, and task-list checkboxes that are always disabled.
//!
//! Everything a plan says is visible to the reviewer (see [`plan_events`]): nothing it holds is
//! hidden by rendering (HTML comments, collapsed blocks, fake diff markup, invisible characters).

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use pulldown_cmark::{
    html, CodeBlockKind, CowStr, Event, HeadingLevel, Options, Parser, Tag, TagEnd,
};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// One heading of a rendered plan: its anchor id (unique in the document), level 1–6 and text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Heading {
    pub id: String,
    pub level: u8,
    pub text: String,
}

/// A rendered markdown document: sanitized HTML plus its headings, in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Rendered {
    pub html: String,
    pub headings: Vec<Heading>,
}

/// The markdown features plans use (also what the rendered diff parses with).
pub(crate) fn options() -> Options {
    let mut options = Options::empty();
    options.insert(Options::ENABLE_TABLES);
    options.insert(Options::ENABLE_TASKLISTS);
    options.insert(Options::ENABLE_STRIKETHROUGH);
    options.insert(Options::ENABLE_FOOTNOTES);
    options
}

/// Renders `markdown` to sanitized HTML with anchored headings (GitHub-style slugs, made unique
/// with `-1`, `-2` … suffixes) and returns the headings for a table of contents.
///
/// Everything the plan says stays visible (see [`plan_events`]): raw HTML and comments are shown
/// as written in a marked box, and source the rendering would drop is shown beside it.
pub fn render(markdown: &str) -> Rendered {
    let mut marks = Vec::new();
    let mut events = plan_events_marked(markdown, Some(&mut marks));
    let mut headings = Vec::new();
    let mut used: HashMap<String, usize> = HashMap::new();
    let mut i = 0;
    while i < events.len() {
        if let Event::Start(Tag::Heading { level, .. }) = &events[i] {
            let level = heading_level(*level);
            let start = i;
            let mut text = String::new();
            i += 1;
            while i < events.len() {
                match &events[i] {
                    Event::End(TagEnd::Heading(_)) => break,
                    Event::Text(t) | Event::Code(t) => text.push_str(t),
                    Event::SoftBreak | Event::HardBreak => text.push(' '),
                    _ => {}
                }
                i += 1;
            }
            let text = text.trim().to_owned();
            let id = unique(slugify(&text), &mut used);
            if let Event::Start(Tag::Heading { id: slot, .. }) = &mut events[start] {
                *slot = Some(CowStr::from(id.clone()));
            }
            headings.push(Heading { id, level, text });
        }
        i += 1;
    }
    let nonce = marker_nonce();
    let mut raw = String::with_capacity(markdown.len() * 3 / 2);
    html::push_html(&mut raw, with_markers(events, &marks, &nonce));
    let html = place_sources(&sanitize(&raw), &marks, &nonce, markdown);
    // Text is marked already; what is left is in attribute values (a link's destination or
    // title): no control character leaves here raw (the CLI prints this HTML to a terminal).
    let html = match crate::visible::shown(&html) {
        Cow::Borrowed(_) => html,
        Cow::Owned(marked) => marked,
    };
    Rendered { html, headings }
}

/// A block the rendered view marks with its source range (`data-src="start-end"`, byte offsets
/// into the plan's text), so a click on it can comment on exactly that text.
#[derive(Debug, Clone)]
pub(crate) struct Mark {
    /// Where in the events its marker goes (before the event at this index).
    at: usize,
    /// The element that gets the attribute.
    tag: &'static str,
    range: std::ops::Range<usize>,
}

/// Marker characters: tag characters, which a plan's text can never carry into the HTML (they
/// are shown as `⟨U+E0001⟩`, see [`visible`]), around a nonce drawn for each render that a plan
/// cannot know (for attribute values, where characters are not made visible).
const MARK_OPEN: char = '\u{E0001}';
const MARK_CLOSE: char = '\u{E007F}';

fn marker_nonce() -> String {
    use std::hash::{BuildHasher, Hasher};
    let a = std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish();
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(a);
    format!("{a:016x}{:016x}", h.finish())
}

fn marker(nonce: &str, i: usize) -> String {
    format!("{MARK_OPEN}{nonce}{i}{MARK_CLOSE}")
}

/// The events with each mark's marker (a text event) inserted where it goes.
fn with_markers<'a>(
    events: Vec<Event<'a>>,
    marks: &[Mark],
    nonce: &str,
) -> impl Iterator<Item = Event<'a>> {
    let mut out = Vec::with_capacity(events.len() + marks.len());
    let mut next = marks.iter().enumerate().peekable();
    for (i, event) in events.into_iter().enumerate() {
        while let Some((n, _)) = next.next_if(|(_, m)| m.at <= i) {
            out.push(Event::Text(CowStr::from(marker(nonce, n))));
        }
        out.push(event);
    }
    for (n, _) in next {
        out.push(Event::Text(CowStr::from(marker(nonce, n))));
    }
    out.into_iter()
}

/// Sanitized `html` with each marker replaced by a `data-src` attribute on the element it marks
/// (the nearest such opening tag before it). Written after sanitizing, like the differ's
/// `data-pd-diff`: the sanitizer lets no `data-` attribute through, so a plan cannot write one.
fn place_sources(html: &str, marks: &[Mark], nonce: &str, markdown: &str) -> String {
    let open = format!("{MARK_OPEN}{nonce}");
    if !html.contains(&open) {
        return html.to_owned();
    }
    let mut out = String::with_capacity(html.len() + marks.len() * 20);
    let mut done = 0;
    let mut rest_at = 0;
    while let Some(found) = html[rest_at..].find(&open) {
        let pos = rest_at + found;
        let digits_at = pos + open.len();
        let Some(len) = html[digits_at..].find(MARK_CLOSE) else {
            break;
        };
        let end = digits_at + len + MARK_CLOSE.len_utf8();
        let mark = html[digits_at..digits_at + len]
            .parse::<usize>()
            .ok()
            .and_then(|n| marks.get(n))
            .filter(|m| markdown.get(m.range.clone()).is_some());
        // The end of the element's opening tag, between what is written already and the marker.
        // (Its attributes, a heading's slug id at most, never hold a `>`.)
        let tag_at = mark.and_then(|m| {
            let needle = format!("<{}", m.tag);
            let start = html[done..pos]
                .rmatch_indices(needle.as_str())
                .map(|(i, _)| done + i + needle.len())
                .find(|after| matches!(html.as_bytes().get(*after), Some(b' ' | b'>')))?;
            html[start..pos].find('>').map(|i| start + i)
        });
        if let (Some(m), Some(after)) = (mark, tag_at) {
            out.push_str(&html[done..after]);
            out.push_str(&format!(" data-src=\"{}-{}\"", m.range.start, m.range.end));
            out.push_str(&html[after..pos]);
        } else {
            out.push_str(&html[done..pos]);
        }
        done = end;
        rest_at = end;
    }
    out.push_str(&html[done..]);
    out
}

/// Renders `markdown` to HTML that is safe to put into the webview (the HTML of [`render`]).
pub fn markdown_html(markdown: &str) -> String {
    render(markdown).html
}

/// Inline tags a plan may write by hand that stay markup (exactly `<name>` or `</name>`, no
/// attributes): none of them can hide, shrink, collapse or disguise text. Any other HTML a plan
/// holds is shown as written.
pub(crate) const KEPT_TAGS: &[&str] = &["b", "i", "em", "strong", "code", "kbd", "u", "mark"];

/// Plandeck's own markup around plan text; the sanitizer lets these classes through, and a plan
/// cannot write them (its raw HTML is shown as text, and markdown writes no such class).
/// Raw HTML (or a comment) in a paragraph, shown as written.
pub(crate) const HIDDEN_INLINE_OPEN: &str = "<code class=\"pd-hidden\">";
pub(crate) const HIDDEN_INLINE_CLOSE: &str = "</code>";
/// An HTML block, or source the rendering would drop (a link definition, an excess table
/// cell …), shown as written.
pub(crate) const HIDDEN_BLOCK_OPEN: &str = "<pre class=\"pd-hidden\">";
pub(crate) const HIDDEN_BLOCK_CLOSE: &str = "</pre>\n";
/// The info string of a fenced code block (its language), shown above the code.
pub(crate) const LANG_OPEN: &str = "<div class=\"pd-lang\">";
pub(crate) const LANG_CLOSE: &str = "</div>\n";
/// Markdown strikethrough (`~~x~~`): `<s>`, never `<del>`, which reads as diff markup.
pub(crate) const STRIKE_OPEN: &str = "<s>";
pub(crate) const STRIKE_CLOSE: &str = "</s>";

/// `html` is one of [`KEPT_TAGS`] opening or closing, or `<br>`, exactly as written here.
pub(crate) fn kept_tag(html: &str) -> Option<&'static str> {
    if html == "<br>" {
        return Some("br");
    }
    let inner = html.strip_prefix('<')?.strip_suffix('>')?;
    let name = inner.strip_prefix('/').unwrap_or(inner);
    KEPT_TAGS.iter().find(|t| **t == name).copied()
}

/// The markdown's events, made safe to show to a reviewer: everything the plan says is visible.
///
/// - Raw HTML and HTML comments become text (in `code.pd-hidden` inline, `pre.pd-hidden` for a
///   block), except the attribute-less [`KEPT_TAGS`] and `<br>`.
/// - Source that no block renders (link reference definitions) is shown in `pre.pd-hidden` where
///   it stands; a block whose rendering would lose words of its source (an excess table cell, a
///   reference label …) is followed by its source in `pre.pd-hidden`.
/// - Links and images show their destination (and title) as text; images are links, never
///   loaded. Fenced code shows its info string. Footnotes show their labels.
/// - Invisible and direction-changing characters are shown as `⟨U+XXXX⟩`.
/// - Strikethrough is `<s>`.
///
/// Headings get no ids here; [`render`] adds them.
pub(crate) fn plan_events(markdown: &str) -> Vec<Event<'_>> {
    plan_events_marked(markdown, None)
}

/// [`plan_events`], recording in `marks` (when given) each block a reviewer can comment on:
/// headings, paragraphs, list items (their own lines, without nested lists), table rows and code
/// blocks, with their source ranges.
fn plan_events_marked<'a>(markdown: &'a str, marks: Option<&mut Vec<Mark>>) -> Vec<Event<'a>> {
    let mut safe = SafeEvents {
        markdown,
        out: Vec::with_capacity(markdown.len() / 8 + 8),
        marks,
        open_items: Vec::new(),
        pending_row: None,
        depth: 0,
        covered: 0,
        block: 0..0,
        seen: String::new(),
        in_html_block: false,
        lists: Vec::new(),
        links: Vec::new(),
    };
    for (event, range) in Parser::new_ext(markdown, options()).into_offset_iter() {
        safe.event(event, range);
    }
    safe.finish()
}

/// The walk of [`plan_events_marked`]: the events out so far and what is open.
struct SafeEvents<'a, 'm> {
    markdown: &'a str,
    out: Vec<Event<'a>>,
    marks: Option<&'m mut Vec<Mark>>,
    /// Open list items (their mark, and whether a nested block already ended their own lines).
    open_items: Vec<(Option<usize>, bool)>,
    /// A table row whose mark goes into its first cell.
    pending_row: Option<std::ops::Range<usize>>,
    depth: usize,
    /// The end of the source the events out so far cover.
    covered: usize,
    /// The top-level block being walked.
    block: std::ops::Range<usize>,
    /// The words this top-level block shows, to compare with the words of its source.
    seen: String,
    in_html_block: bool,
    /// Open lists: whether each is ordered.
    lists: Vec<bool>,
    /// Open links: destination, title, and where their text starts in `seen`.
    links: Vec<(CowStr<'a>, CowStr<'a>, usize)>,
}

impl<'a> SafeEvents<'a, '_> {
    fn event(&mut self, event: Event<'a>, range: std::ops::Range<usize>) {
        if self.depth == 0 {
            if range.start > self.covered {
                hidden_block(&self.markdown[self.covered..range.start], &mut self.out);
            }
            self.block = range.clone();
            self.seen.clear();
        }
        match event {
            Event::Start(tag) => self.start(tag, &range),
            Event::End(end) => self.end(end),
            event => self.leaf(event, &range),
        }
        if self.depth == 0 {
            self.covered = self.covered.max(range.end).max(self.block.end);
            if let Some(src) = self.markdown.get(self.block.clone()) {
                if !shows_every_word(src, &self.seen) {
                    hidden_block(src, &mut self.out);
                }
            }
        }
    }

    /// `text` counts as shown, apart from its neighbours.
    fn saw(&mut self, text: &str) {
        self.seen.push(' ');
        self.seen.push_str(text);
        self.seen.push(' ');
    }

    fn start(&mut self, tag: Tag<'a>, range: &std::ops::Range<usize>) {
        self.depth += 1;
        self.seen.push(' ');
        let marked: Option<&'static str> = match &tag {
            Tag::Paragraph => Some("p"),
            Tag::Heading { level, .. } => Some(match level {
                HeadingLevel::H1 => "h1",
                HeadingLevel::H2 => "h2",
                HeadingLevel::H3 => "h3",
                HeadingLevel::H4 => "h4",
                HeadingLevel::H5 => "h5",
                HeadingLevel::H6 => "h6",
            }),
            Tag::Item => Some("li"),
            Tag::CodeBlock(_) => Some("pre"),
            _ => None,
        };
        if let (Some(marks), Tag::List(_) | Tag::CodeBlock(_) | Tag::BlockQuote(_)) =
            (self.marks.as_deref_mut(), &tag)
        {
            // A nested block ends the enclosing item's own lines.
            if let Some((Some(m), cut @ false)) = self.open_items.last_mut() {
                marks[*m].range.end = range.start.max(marks[*m].range.start);
                *cut = true;
            }
        }
        if matches!(tag, Tag::TableHead | Tag::TableRow) {
            self.pending_row = Some(range.clone());
        }
        let is_cell = matches!(tag, Tag::TableCell);
        self.start_tag(tag, range);
        self.mark(marked, is_cell, range);
    }

    /// The safe form of an opening tag.
    fn start_tag(&mut self, tag: Tag<'a>, range: &std::ops::Range<usize>) {
        let image = matches!(tag, Tag::Image { .. });
        let out = &mut self.out;
        match tag {
            Tag::HtmlBlock => {
                self.in_html_block = true;
                out.push(Event::Html(HIDDEN_BLOCK_OPEN.into()));
            }
            Tag::Strikethrough => out.push(Event::Html(STRIKE_OPEN.into())),
            Tag::CodeBlock(CodeBlockKind::Fenced(info)) => {
                // ASCII blanks only: `str::trim` also takes U+2028, U+2029 and U+0085 (Unicode
                // white space), which would drop an unseen character from the info string shown.
                let info_text = info.trim_matches(|c: char| c.is_ascii_whitespace());
                let lang = info_text.split_whitespace().next().unwrap_or("");
                let kind = if valid_language(lang) {
                    CodeBlockKind::Fenced(CowStr::from(lang.to_owned()))
                } else {
                    CodeBlockKind::Indented
                };
                if !info_text.is_empty() {
                    out.push(Event::Html(LANG_OPEN.into()));
                    out.push(Event::Text(visible(CowStr::from(info_text.to_owned()))));
                    out.push(Event::Html(LANG_CLOSE.into()));
                    self.seen.push_str(info_text);
                    self.seen.push(' ');
                }
                out.push(Event::Start(Tag::CodeBlock(kind)));
            }
            Tag::List(first) => {
                self.lists.push(first.is_some());
                out.push(Event::Start(Tag::List(first)));
            }
            Tag::Item => {
                if self.lists.last() == Some(&true) {
                    // The number of the item as written counts as shown (the list numbers its
                    // items itself).
                    let digits: String = self.markdown[range.clone()]
                        .trim_start()
                        .chars()
                        .take_while(char::is_ascii_digit)
                        .collect();
                    self.seen.push_str(&digits);
                    self.seen.push(' ');
                }
                out.push(Event::Start(Tag::Item));
            }
            Tag::Heading { level, .. } => out.push(Event::Start(Tag::Heading {
                level,
                id: None,
                classes: Vec::new(),
                attrs: Vec::new(),
            })),
            Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }
            | Tag::Image {
                link_type,
                dest_url,
                title,
                id,
            } => {
                // An image is never loaded (a remote image is a beacon, and its alt text would be
                // hidden): a link to it, its alt text visible.
                self.links
                    .push((dest_url.clone(), title.clone(), self.seen.len()));
                out.push(Event::Start(Tag::Link {
                    link_type,
                    dest_url,
                    title,
                    id,
                }));
                if image {
                    out.push(Event::Text("image: ".into()));
                }
            }
            Tag::FootnoteDefinition(label) => {
                out.push(Event::Html(
                    format!(
                        "<div class=\"footnote-definition\" id=\"fn-{}\"><sup class=\"footnote-definition-label\">",
                        slugify(&label)
                    )
                    .into(),
                ));
                self.seen.push_str(&label);
                self.seen.push(' ');
                // The label as written: CommonMark folds a vertical tab or form feed in it into a
                // space, which would hide it.
                let written = raw_footnote_label(&self.markdown[range.clone()], &label);
                out.push(Event::Text(visible(written.map_or(label, CowStr::from))));
                out.push(Event::Html("</sup>".into()));
            }
            tag => out.push(Event::Start(tag)),
        }
    }

    /// Records the block just opened as one a reviewer can comment on, when it is one.
    fn mark(
        &mut self,
        marked: Option<&'static str>,
        is_cell: bool,
        range: &std::ops::Range<usize>,
    ) {
        let Some(marks) = self.marks.as_deref_mut() else {
            return;
        };
        if let Some(tag) = marked {
            marks.push(Mark {
                at: self.out.len(),
                tag,
                range: range.clone(),
            });
            if tag == "li" {
                self.open_items.push((Some(marks.len() - 1), false));
            }
        } else if is_cell {
            if let Some(row) = self.pending_row.take() {
                marks.push(Mark {
                    at: self.out.len(),
                    tag: "tr",
                    range: row,
                });
            }
        }
    }

    fn end(&mut self, end: TagEnd) {
        self.depth = self.depth.saturating_sub(1);
        self.seen.push(' ');
        if matches!(end, TagEnd::Item) {
            self.open_items.pop();
        }
        match end {
            TagEnd::HtmlBlock => {
                self.in_html_block = false;
                self.out.push(Event::Html(HIDDEN_BLOCK_CLOSE.into()));
            }
            TagEnd::Strikethrough => self.out.push(Event::Html(STRIKE_CLOSE.into())),
            TagEnd::List(ordered) => {
                self.lists.pop();
                self.out.push(Event::End(TagEnd::List(ordered)));
            }
            TagEnd::Link | TagEnd::Image => self.close_link(),
            TagEnd::FootnoteDefinition => self.out.push(Event::Html("</div>\n".into())),
            end => self.out.push(Event::End(end)),
        }
    }

    /// Ends a link (or an image, shown as one), its destination and title shown after it unless
    /// its text already says exactly where it goes.
    fn close_link(&mut self) {
        self.out.push(Event::End(TagEnd::Link));
        let Some((dest, title, from)) = self.links.pop() else {
            return;
        };
        let text = self.seen.get(from..).unwrap_or("").trim();
        if text != dest.as_ref() || !title.is_empty() {
            let mut shown = format!(" ⟨{dest}");
            if !title.is_empty() {
                shown.push_str(&format!(" “{title}”"));
            }
            shown.push('⟩');
            self.seen.push_str(&shown);
            self.out.push(Event::Html("<small>".into()));
            self.out.push(Event::Text(visible(shown.into())));
            self.out.push(Event::Html("</small>".into()));
        }
    }

    /// Everything but tags: text, code, HTML, footnote references, task markers.
    fn leaf(&mut self, event: Event<'a>, range: &std::ops::Range<usize>) {
        match event {
            Event::Html(html) | Event::InlineHtml(html) => {
                self.saw(&html);
                if self.in_html_block {
                    self.out.push(Event::Text(visible(html)));
                } else if kept_tag(&html).is_some() {
                    self.out.push(Event::InlineHtml(html));
                } else {
                    self.out.push(Event::Html(HIDDEN_INLINE_OPEN.into()));
                    self.out.push(Event::Text(visible(html)));
                    self.out.push(Event::Html(HIDDEN_INLINE_CLOSE.into()));
                }
            }
            Event::Text(text) => {
                self.seen.push_str(&text);
                self.out.push(Event::Text(visible(text)));
            }
            Event::Code(text) => {
                self.saw(&text);
                self.out.push(Event::Code(visible(text)));
            }
            Event::FootnoteReference(label) => {
                self.saw(&label);
                self.out.push(Event::Html(
                    format!(
                        "<sup class=\"footnote-reference\"><a href=\"#fn-{}\">",
                        slugify(&label)
                    )
                    .into(),
                ));
                let written = raw_footnote_label(&self.markdown[range.clone()], &label);
                self.out
                    .push(Event::Text(visible(written.map_or(label, CowStr::from))));
                self.out.push(Event::Html("</a></sup>".into()));
            }
            Event::TaskListMarker(checked) => {
                // `[x]` or `[X]` as written: the checkbox shows it.
                let markdown = self.markdown;
                self.saw(&markdown[range.clone()]);
                self.out.push(Event::TaskListMarker(checked));
            }
            other => {
                self.seen.push(' ');
                self.out.push(other);
            }
        }
    }

    /// The events, with any source after the last block shown as written, and each mark's range
    /// trimmed of the blank space after its block.
    fn finish(mut self) -> Vec<Event<'a>> {
        if self.covered < self.markdown.len() {
            hidden_block(&self.markdown[self.covered..], &mut self.out);
        }
        if let Some(marks) = self.marks {
            for m in marks.iter_mut() {
                let text = &self.markdown[m.range.clone()];
                m.range.end = m.range.start + text.trim_end().len();
            }
        }
        self.out
    }
}

/// Source text shown as written in `pre.pd-hidden` (nothing when it is only blank space).
fn hidden_block<'a>(src: &'a str, out: &mut Vec<Event<'a>>) {
    let src = src.trim_matches(|c: char| c == '\n' || c == '\r');
    if src.trim().is_empty() {
        return;
    }
    out.push(Event::Html(HIDDEN_BLOCK_OPEN.into()));
    out.push(Event::Text(visible(CowStr::Borrowed(src))));
    out.push(Event::Html(HIDDEN_BLOCK_CLOSE.into()));
}

/// A code block's language as a class may carry it.
pub(crate) fn valid_language(lang: &str) -> bool {
    !lang.is_empty()
        && lang.len() <= 40
        && lang
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-_#.".contains(c))
}

/// The words of `text` (runs of letters and digits), without the names of character references
/// (`&amp;`, `&#39;`), which render as the character they name.
pub(crate) fn words(text: &str) -> impl Iterator<Item = &str> + '_ {
    let mut rest = text;
    std::iter::from_fn(move || loop {
        let start = rest.find(|c: char| c.is_alphanumeric() || c == '&')?;
        rest = &rest[start..];
        if let Some(after) = rest.strip_prefix('&') {
            let name_len = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '#'))
                .unwrap_or(after.len());
            if name_len > 0 && after[name_len..].starts_with(';') {
                rest = &after[name_len + 1..];
            } else {
                rest = after;
            }
            continue;
        }
        let end = rest
            .find(|c: char| !c.is_alphanumeric())
            .unwrap_or(rest.len());
        let word = &rest[..end];
        rest = &rest[end..];
        return Some(word);
    })
}

/// Every word of `src`, as often as it occurs there, is among the words of `shown`.
fn shows_every_word(src: &str, shown: &str) -> bool {
    // Almost always the words are shown in the order they are written: check that first, without
    // allocating.
    let mut shown_words = words(shown);
    if words(src).all(|w| shown_words.by_ref().any(|s| s == w)) {
        return true;
    }
    let mut want: Vec<&str> = words(src).collect();
    let mut have: Vec<&str> = words(shown).collect();
    want.sort_unstable();
    have.sort_unstable();
    let mut have = have.into_iter().peekable();
    want.into_iter().all(|w| {
        while have.next_if(|h| *h < w).is_some() {}
        have.next_if(|h| *h == w).is_some()
    })
}

/// `text` with every character a person cannot see shown as `⟨U+XXXX⟩` ([`crate::visible`]: zero
/// width, bidi controls, tag characters, fillers, variation selectors that are not an emoji's,
/// control characters).
fn visible(text: CowStr<'_>) -> CowStr<'_> {
    match crate::visible::shown(&text) {
        Cow::Borrowed(_) => text,
        Cow::Owned(s) => s.into(),
    }
}

/// Sanitizes HTML with Plandeck's allow-list: the elements rendered markdown needs, and nothing
/// that can hide, collapse or disguise text (no `details`, `ins`, `del`, `style`, `hidden` …).
pub fn sanitize(html: &str) -> String {
    sanitizer().clean(html).to_string()
}

fn sanitizer() -> &'static ammonia::Builder<'static> {
    static BUILDER: OnceLock<ammonia::Builder<'static>> = OnceLock::new();
    BUILDER.get_or_init(|| {
        let mut b = ammonia::Builder::default();
        b.tags(
            [
                "p",
                "h1",
                "h2",
                "h3",
                "h4",
                "h5",
                "h6",
                "ul",
                "ol",
                "li",
                "blockquote",
                "pre",
                "code",
                "em",
                "strong",
                "s",
                "a",
                "table",
                "thead",
                "tbody",
                "tr",
                "th",
                "td",
                "hr",
                "br",
                "input",
                "sup",
                "div",
                "small",
                "b",
                "i",
                "kbd",
                "u",
                "mark",
            ]
            .into_iter()
            .collect(),
        )
        .generic_attributes(HashSet::new())
        .tag_attributes(HashMap::new())
        .add_tag_attributes("a", ["href", "title"])
        // Only links a person can read and a browser opens as a page or a mail: ammonia's default
        // list also passes `ssh:`, `magnet:`, `sip:`, `mx:` …, schemes that hand a plan's link to
        // another program.
        .url_schemes(["http", "https", "mailto"].into_iter().collect())
        .add_tag_attributes("ol", ["start"])
        .add_tag_attributes("code", ["class"])
        .add_tag_attributes("pre", ["class"])
        .add_tag_attributes("div", ["class", "id"])
        .add_tag_attributes("sup", ["class"])
        .add_tag_attributes("input", ["type", "checked"])
        // Every checkbox is a read-only view of a task list item.
        .set_tag_attribute_value("input", "disabled", "")
        .set_tag_attribute_value("input", "type", "checkbox");
        for h in ["h1", "h2", "h3", "h4", "h5", "h6"] {
            b.add_tag_attributes(h, ["id"]);
        }
        b.attribute_filter(filter_attribute);
        b
    })
}

fn filter_attribute<'u>(element: &str, attribute: &str, value: &'u str) -> Option<Cow<'u, str>> {
    match (element, attribute) {
        ("code", "class") => {
            let ok =
                value == "pd-hidden" || value.strip_prefix("language-").is_some_and(valid_language);
            ok.then(|| value.into())
        }
        ("pre", "class") => (value == "pd-hidden").then(|| value.into()),
        ("div", "class") => {
            matches!(value, "footnote-definition" | "pd-lang").then(|| value.into())
        }
        ("sup", "class") => matches!(value, "footnote-reference" | "footnote-definition-label")
            .then(|| value.into()),
        (_, "id") => {
            // Plain slugs only: nothing that could look like markup or clobber much in the DOM.
            let ok = !value.is_empty()
                && value.len() <= 200
                && value
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '-' || c == '_');
            ok.then(|| value.into())
        }
        ("input", "type") => (value == "checkbox").then(|| value.into()),
        _ => Some(value.into()),
    }
}

fn heading_level(level: HeadingLevel) -> u8 {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

/// GitHub-style anchor: lower case, letters/digits/`-`/`_` kept, spaces to `-`, the rest dropped.
pub fn slugify(text: &str) -> String {
    let mut slug = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_alphanumeric() || c == '_' || c == '-' {
            slug.extend(c.to_lowercase());
        } else if c.is_whitespace() {
            slug.push('-');
        }
    }
    if slug.is_empty() {
        slug.push_str("section");
    }
    slug
}

fn unique(slug: String, used: &mut HashMap<String, usize>) -> String {
    let mut candidate = slug.clone();
    while let Some(n) = used.get_mut(&candidate) {
        *n += 1;
        candidate = format!("{slug}-{n}");
        if !used.contains_key(&candidate) {
            break;
        }
    }
    used.entry(candidate.clone()).or_insert(0);
    candidate
}

/// TypeScript declarations of the types this module sends over IPC.
pub(crate) fn ts_declarations() -> Vec<String> {
    vec![<Heading as TS>::decl(), <Rendered as TS>::decl()]
}

#[cfg(test)]
mod tests;

/// A footnote's label as its source (`[^label]`, `[^label]: …`) spells it, when that is the
/// label pulldown-cmark gave (the same words once blanks are folded); else `None`.
fn raw_footnote_label<'a>(source: &'a str, label: &str) -> Option<&'a str> {
    let rest = source.strip_prefix("[^")?;
    let raw = &rest[..rest.find(']')?];
    let folded = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    (raw != label && folded(raw) == folded(label)).then_some(raw)
}
