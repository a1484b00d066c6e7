//! Markdown to sanitized HTML, with the headings a table of contents needs.
//!
//! A plan is text an agent wrote after reading untrusted input, so every byte of HTML that leaves
//! here has been through ammonia, with an allow-list trimmed to what rendered markdown needs:
//! `language-*` classes on code (the webview highlights them), ids on headings (anchors, the table
//! of contents) and footnotes, and task-list checkboxes that are always disabled.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::OnceLock;

use pulldown_cmark::{html, CowStr, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
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
pub fn render(markdown: &str) -> Rendered {
    let mut events: Vec<Event<'_>> = Parser::new_ext(markdown, options()).collect();
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
            if let Event::Start(Tag::Heading {
                id: slot,
                classes,
                attrs,
                ..
            }) = &mut events[start]
            {
                // `{#id .class}` attribute syntax is off, but clear them anyway: ids are ours.
                *slot = Some(CowStr::from(id.clone()));
                classes.clear();
                attrs.clear();
            }
            headings.push(Heading { id, level, text });
        }
        i += 1;
    }
    let mut raw = String::with_capacity(markdown.len() * 3 / 2);
    html::push_html(&mut raw, events.into_iter());
    Rendered {
        html: sanitize(&raw),
        headings,
    }
}

/// Renders `markdown` to HTML that is safe to put into the webview (the HTML of [`render`]).
pub fn markdown_html(markdown: &str) -> String {
    render(markdown).html
}

/// Sanitizes HTML with Plandeck's allow-list (ammonia's defaults plus what rendered markdown needs).
pub fn sanitize(html: &str) -> String {
    sanitizer().clean(html).to_string()
}

fn sanitizer() -> &'static ammonia::Builder<'static> {
    static BUILDER: OnceLock<ammonia::Builder<'static>> = OnceLock::new();
    BUILDER.get_or_init(|| {
        let mut b = ammonia::Builder::default();
        b.add_tags(["input"])
            .add_tag_attributes("code", ["class"])
            .add_tag_attributes("div", ["class", "id"])
            .add_tag_attributes("sup", ["class"])
            .add_tag_attributes("input", ["type", "checked"])
            // Every checkbox is a read-only view of a task list item.
            .set_tag_attribute_value("input", "disabled", "")
            .set_tag_attribute_value("input", "type", "checkbox");
        for h in ["h1", "h2", "h3", "h4", "h5", "h6"] {
            b.add_tag_attributes(h, ["id"]);
        }
        b.attribute_filter(|element, attribute, value| filter_attribute(element, attribute, value));
        b
    })
}

fn filter_attribute<'u>(element: &str, attribute: &str, value: &'u str) -> Option<Cow<'u, str>> {
    match (element, attribute) {
        ("code", "class") => {
            let ok = value.strip_prefix("language-").is_some_and(|lang| {
                !lang.is_empty()
                    && lang
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || "+-_#.".contains(c))
            });
            ok.then(|| value.into())
        }
        ("div", "class") => (value == "footnote-definition").then(|| value.into()),
        ("sup", "class") => (value == "footnote-reference").then(|| value.into()),
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
