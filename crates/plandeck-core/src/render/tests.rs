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

fn assert_inert(html: &str, payload: &str) {
    const ALLOWED_URL: &[&str] = &["http://", "https://", "mailto:", "#"];
    for (name, attrs) in tags(html) {
        assert!(
            ![
                "script", "iframe", "object", "embed", "svg", "style", "form", "meta", "link",
                "base", "math", "template", "noscript", "body", "button", "frame", "frameset"
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
                !["style", "srcdoc", "formaction", "action"].contains(&attr.as_str()),
                "{attr} in {html:?}"
            );
            if ["href", "src", "xlink:href", "data", "poster", "background"]
                .contains(&attr.as_str())
            {
                let v = value.to_ascii_lowercase();
                let relative = !v.contains(':');
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
    assert!(h.contains("<h1 id=\"plan\">Plan</h1>"), "{h}");
    assert!(h.contains("<table>") && h.contains("<td>1</td>"), "{h}");
    assert!(h.contains("<del>gone</del>"), "{h}");
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
    assert!(!r.html.contains("onclick"), "{}", r.html);
    assert!(r.html.contains("class=\"language-c++\""), "{}", r.html);
}

#[test]
fn markdown_html_wraps_render() {
    let html = markdown_html("# Hi\n\n<script>alert(1)</script>\n\n[x](javascript:alert(1))");
    assert!(html.contains("<h1 id=\"hi\">Hi</h1>"), "{html}");
    assert!(!html.contains("<script"), "{html}");
    assert!(!html.contains("javascript:"), "{html}");
}

#[test]
fn safe_links_survive() {
    let html = render("[a](https://example.com/x) [b](#steps) [c](mailto:a@b.c)").html;
    assert!(html.contains("href=\"https://example.com/x\""), "{html}");
    assert!(html.contains("href=\"#steps\""), "{html}");
    assert!(html.contains("rel=\"noopener noreferrer\""), "{html}");
}
