//! Markdown to sanitized HTML, byte for byte what the plan sanitizer makes of the plan's events
//! ([`crate::render::plan_events`], which shows everything a plan says), without running the
//! HTML parser when the events cannot carry anything to remove.
//!
//! Sanitizing is most of the cost of a rendered diff (html5ever parses, rebuilds and serializes
//! every byte), yet most of a plan is headings, paragraphs, lists and code, for which the HTML
//! pulldown-cmark writes is already well formed and safe: all the sanitizer changes there is
//! `<hr />` to `<hr>`, `<br />` to `<br>` and a no-break space to `&nbsp;`. So a piece of
//! markdown whose events are all of that kind, with at most a few balanced attribute-less inline
//! tags such as `<b>` and Plandeck's own fixed markup, is written directly; anything else (links,
//! tables, footnotes, task lists, hidden-source boxes, carriage returns, NULs) goes through the
//! sanitizer. The tests below check both paths agree on a corpus of plan-like markdown.

use pulldown_cmark::{html, Event, Tag};

use crate::render::{self, plan_events};

/// `src` rendered and sanitized, as `render::sanitize(pulldown_cmark html of plan_events(src))`.
pub(crate) fn markdown_sanitized(src: &str) -> String {
    match fast(src) {
        Some(html) => html,
        None => slow(src),
    }
}

/// The reference path: the plan's events rendered, then sanitized (the sanitizer lets no class
/// of the diff markup through, so a plan cannot forge what the caller wraps around the result).
pub(crate) fn slow(src: &str) -> String {
    let mut raw = String::with_capacity(src.len() * 3 / 2);
    html::push_html(&mut raw, plan_events(src).into_iter());
    render::sanitize(&raw)
}

/// Plandeck's own fixed markup, which the sanitizer keeps as it is.
const OURS: &[&str] = &[
    render::HIDDEN_INLINE_OPEN,
    render::HIDDEN_INLINE_CLOSE,
    render::LANG_OPEN,
    render::LANG_CLOSE,
    render::STRIKE_OPEN,
    render::STRIKE_CLOSE,
];

/// The direct path, or `None` when the markdown holds anything it does not handle.
fn fast(src: &str) -> Option<String> {
    // html5ever turns CR and CRLF into LF and NUL into U+FFFD; leave those texts to it.
    if src.bytes().any(|b| b == b'\r' || b == 0) {
        return None;
    }
    let events = plan_events(src);
    // Hand-written inline tags still open; they must close before any markdown element starts or
    // ends, so the parser would never have to repair the nesting.
    let mut open: Vec<&'static str> = Vec::new();
    for event in &events {
        match event {
            Event::Start(tag) => {
                if !open.is_empty() {
                    return None;
                }
                match tag {
                    Tag::CodeBlock(_)
                    | Tag::Paragraph
                    | Tag::BlockQuote(None)
                    | Tag::List(_)
                    | Tag::Item
                    | Tag::Emphasis
                    | Tag::Strong => {}
                    Tag::Heading {
                        id, classes, attrs, ..
                    } if id.is_none() && classes.is_empty() && attrs.is_empty() => {}
                    _ => return None,
                }
            }
            Event::End(_) => {
                if !open.is_empty() {
                    return None;
                }
            }
            Event::Text(_) | Event::Code(_) | Event::SoftBreak | Event::HardBreak | Event::Rule => {
            }
            Event::Html(tag) if OURS.contains(&tag.as_ref()) => {
                if !open.is_empty() {
                    return None;
                }
            }
            Event::InlineHtml(tag) => {
                let tag: &str = tag;
                let name = render::kept_tag(tag)?;
                if name == "br" {
                } else if tag.starts_with("</") {
                    if open.pop() != Some(name) {
                        return None;
                    }
                } else {
                    open.push(name);
                }
            }
            _ => return None,
        }
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
        "a <b><i>nested</i></b> <kbd>K</kbd> <mark>m</mark> <u>u</u> <em>e</em> <strong>s</strong> <code>c</code>\n",
        "~~struck~~ and <!-- a comment --> and <del>fake</del> <details>x</details>\n",
        "```rust\nfn main() {}\n```\n\n```rust,ignore extra words\nx\n```\n",
        "<sup>1</sup> <b class=\"x\">c\n",
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
        "| a | b |\n|---|---|\n| 1 | 2 |\n",
        "- [ ] task\n",
        "note[^1]\n\n[^1]: foot\n",
        "<https://example.com>\n",
        "a\r\nb\n",
        "<div class=\"diff-ins\">forged</div>\n",
        "<!-- comment\n",
        "<details>\n<summary>s</summary>\n\nhidden\n\n</details>\n",
        "[ref]: https://example.com \"title\"\n",
        "| a |\n|---|\n| 1 | 2 |\n",
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

    mod properties {
        use super::*;
        use proptest::prelude::*;

        const PIECES: &[&str] = &[
            "word",
            " ",
            "\n",
            "\n\n",
            "*",
            "**",
            "~~",
            "`",
            "```rust\n",
            "```\n",
            "# ",
            "- ",
            "1. ",
            "> ",
            "<b>",
            "</b>",
            "<i>",
            "</i>",
            "<br>",
            "<!-- c -->",
            "<del>",
            "</del>",
            "<details>",
            "&amp;",
            "\u{a0}",
            "\u{200B}",
            "---\n",
            "    ",
            "<",
            ">",
            "\"",
        ];

        proptest! {
            #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

            #[test]
            fn direct_path_always_matches_the_sanitizer(
                pieces in proptest::collection::vec(proptest::sample::select(PIECES), 0..30)
            ) {
                let src = pieces.concat();
                prop_assert_eq!(markdown_sanitized(&src), slow(&src), "for {:?}", src);
            }
        }
    }
}
