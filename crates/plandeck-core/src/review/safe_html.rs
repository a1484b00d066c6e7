//! Markdown to sanitized HTML, byte for byte what ammonia's defaults make of pulldown-cmark's
//! HTML, without running the HTML parser when the markdown cannot carry anything to remove.
//!
//! Sanitizing is most of the cost of a rendered diff (html5ever parses, rebuilds and serializes
//! every byte), yet most of a plan is headings, paragraphs, lists and code, for which the HTML
//! pulldown-cmark writes is already well formed and safe: all ammonia changes there is `<hr />`
//! to `<hr>`, `<br />` to `<br>`, a no-break space to `&nbsp;` and the dropped `class` of a code
//! block. So a piece of markdown whose events are all of that kind, with at most a few balanced
//! attribute-less inline tags such as `<b>`, is written directly; anything else (links, images,
//! tables, footnotes, task lists, any other raw HTML, carriage returns, NULs) goes through
//! ammonia. The test below checks both paths agree on a corpus of plan-like markdown.

use pulldown_cmark::{html, CodeBlockKind, Event, Parser, Tag};

use super::diff::markdown_options;

/// Inline tags a plan may write by hand that ammonia keeps as they are (without attributes).
const INLINE_TAGS: &[&str] = &[
    "b", "i", "em", "strong", "code", "kbd", "sub", "sup", "s", "u", "mark", "small", "var",
    "samp", "del", "ins",
];

/// `src` rendered and sanitized, as `ammonia::clean(pulldown_cmark html of src)`.
pub(crate) fn markdown_sanitized(src: &str) -> String {
    match fast(src) {
        Some(html) => html,
        None => slow(src),
    }
}

/// The reference path: render, then sanitize with ammonia's defaults (no classes allowed, so a
/// plan cannot forge the diff markup the caller wraps around the result).
pub(crate) fn slow(src: &str) -> String {
    let mut raw = String::with_capacity(src.len() * 3 / 2);
    html::push_html(&mut raw, Parser::new_ext(src, markdown_options()));
    ammonia::clean(&raw)
}

/// The direct path, or `None` when the markdown holds anything it does not handle.
fn fast(src: &str) -> Option<String> {
    // html5ever turns CR and CRLF into LF and NUL into U+FFFD; leave those texts to it.
    if src.bytes().any(|b| b == b'\r' || b == 0) {
        return None;
    }
    let mut events = Vec::new();
    // Hand-written inline tags still open; they must close before any markdown element starts or
    // ends, so the parser would never have to repair the nesting.
    let mut open: Vec<&'static str> = Vec::new();
    for event in Parser::new_ext(src, markdown_options()) {
        let event = match event {
            Event::Start(tag) => {
                if !open.is_empty() {
                    return None;
                }
                Event::Start(match tag {
                    // ammonia drops the `language-` class; an indented block renders without it.
                    Tag::CodeBlock(CodeBlockKind::Fenced(_)) => {
                        Tag::CodeBlock(CodeBlockKind::Indented)
                    }
                    Tag::CodeBlock(CodeBlockKind::Indented)
                    | Tag::Paragraph
                    | Tag::BlockQuote(None)
                    | Tag::List(_)
                    | Tag::Item
                    | Tag::Emphasis
                    | Tag::Strong
                    | Tag::Strikethrough => tag,
                    Tag::Heading {
                        ref id,
                        ref classes,
                        ref attrs,
                        ..
                    } if id.is_none() && classes.is_empty() && attrs.is_empty() => tag,
                    _ => return None,
                })
            }
            Event::End(_) => {
                if !open.is_empty() {
                    return None;
                }
                event
            }
            Event::Text(_) | Event::Code(_) | Event::SoftBreak | Event::HardBreak | Event::Rule => {
                event
            }
            Event::InlineHtml(ref tag) => {
                let tag: &str = tag;
                if tag == "<br>" {
                    event
                } else if let Some(name) = tag.strip_prefix("</").and_then(|t| t.strip_suffix('>'))
                {
                    if open.pop() != Some(name) {
                        return None;
                    }
                    event
                } else if let Some(name) = tag.strip_prefix('<').and_then(|t| t.strip_suffix('>')) {
                    let known = INLINE_TAGS.iter().find(|t| **t == name)?;
                    open.push(*known);
                    event
                } else {
                    return None;
                }
            }
            _ => return None,
        };
        events.push(event);
    }
    if !open.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(src.len() * 3 / 2);
    html::push_html(&mut out, events.into_iter());
    // The only spellings that differ from html5ever's serialization; text is escaped, so `<`
    // starts only the tags written above.
    if out.contains("<hr />") {
        out = out.replace("<hr />", "<hr>");
    }
    if out.contains("<br />") {
        out = out.replace("<br />", "<br>");
    }
    if out.contains('\u{a0}') {
        out = out.replace('\u{a0}', "&nbsp;");
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Markdown the direct path takes, each of which must come out as ammonia's.
    const SAME: &[&str] = &[
        "# Plan: cache\n\nWe add a *small* cache in **front** of the ~~API~~.\n",
        "## Steps\n\n1. Add `cache.rs` with an LRU.\n2. Wire it into the client.\n",
        "2. Wire it\n3. Test\n",
        "- Risk 23: <b>stale</b> reads when the clock of host 1 drifts.\n- Risk 24: <b>stale</b> reads\n",
        "- a\n\n- b\n\n  more\n\n  - nested <i>x</i> and <code>y</code>\n",
        "```rust\n    let v = compute(3, \"q\")?; // <tag> & 'x'\n```\n",
        "```\nplain\n```\n\n    indented <x>\n",
        "> quote with \"quotes\" and 'apostrophes' & ampersands < >\n",
        "line one  \nline two\\\nthree\n\n---\n\n***\ntext\n",
        "no\u{a0}break and entities &amp; &lt; &copy; &quot; &#39; &nbsp;\n",
        "Setext\n======\n\nsub\n---\n",
        "a <b><i>nested</i></b> <sup>1</sup> <sub>2</sub> <kbd>K</kbd> <mark>m</mark> <del>d</del> <ins>i</ins> <s>s</s> <u>u</u> <small>s</small> <var>v</var> <samp>s</samp> <em>e</em> <strong>s</strong>\n",
        "x<br>y\n",
        "1) one\n2) two\n\n5. five\n",
        "",
        "\n\n",
        "* [not a task\n",
        "Unicode: café — “quotes” ✓ 🎉\n",
    ];

    /// Markdown the direct path must leave to ammonia.
    const SLOW: &[&str] = &[
        "[link](javascript:alert(1))\n",
        "![img](x.png)\n",
        "<script>alert(1)</script>\n",
        "a <b>unclosed\n",
        "a </b> stray\n",
        "<b class=\"x\">c</b>\n",
        "| a | b |\n|---|---|\n| 1 | 2 |\n",
        "- [ ] task\n",
        "note[^1]\n\n[^1]: foot\n",
        "<https://example.com>\n",
        "a\r\nb\n",
        "<div class=\"diff-ins\">forged</div>\n",
        "<!-- comment\n",
        "*<b>crossing*</b>\n",
    ];

    #[test]
    fn direct_path_matches_ammonia() {
        for src in SAME {
            let fast = fast(src).unwrap_or_else(|| panic!("direct path refused {src:?}"));
            assert_eq!(fast, slow(src), "for {src:?}");
        }
        for src in SLOW {
            assert!(fast(src).is_none(), "direct path took {src:?}");
            assert_eq!(markdown_sanitized(src), slow(src));
        }
    }

    #[test]
    fn plan_like_document_matches_ammonia() {
        let mut doc = String::new();
        for i in 0..200 {
            doc.push_str(&match i % 25 {
                0 => format!("## Part {i}: move the {} module behind a trait\n", i * 7 % 97),
                1 | 8 | 16 => "\n".to_owned(),
                2..=7 => format!("The step {i} changes `src/mod_{i}.rs` so that the cache of kind {} is filled lazily.\n", i % 13),
                9..=15 => format!("{}. Update `crate::part{}::run` and its tests (case {i}).\n", i % 25 - 8, i / 25),
                17 => "```rust\n".to_owned(),
                18..=21 => format!("    let value_{i} = compute({i}, \"{}\")?;\n", i * 31 % 1000),
                22 => "```\n".to_owned(),
                _ => format!("- Risk {i}: <b>stale</b> reads when the clock of host {} drifts.\n", i % 11),
            });
        }
        let fast = fast(&doc).expect("plan-like markdown takes the direct path");
        assert_eq!(fast, slow(&doc));
    }
}
