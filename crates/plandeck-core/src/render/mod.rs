//! Markdown to sanitized HTML. (Being completed: see issue 3 — headings, anchors, TOC.)
//!
//! A plan is text an agent wrote after reading untrusted input, so every byte of HTML that leaves
//! here has been through ammonia.

use pulldown_cmark::{html, Options, Parser};

/// Renders `markdown` to HTML that is safe to put into the webview.
pub fn markdown_html(markdown: &str) -> String {
    let mut options = Options::empty();
    options.insert(Options::ENABLE_TABLES);
    options.insert(Options::ENABLE_TASKLISTS);
    options.insert(Options::ENABLE_STRIKETHROUGH);
    options.insert(Options::ENABLE_FOOTNOTES);
    let mut raw = String::with_capacity(markdown.len() * 3 / 2);
    html::push_html(&mut raw, Parser::new_ext(markdown, options));
    sanitize(&raw)
}

/// Sanitizes HTML with ammonia's defaults.
pub fn sanitize(html: &str) -> String {
    ammonia::Builder::default().clean(html).to_string()
}

/// TypeScript declarations of the types this module sends over IPC.
pub(crate) fn ts_declarations() -> Vec<String> {
    Vec::new()
}

#[cfg(test)]
mod tests {
    #[test]
    fn scripts_are_removed() {
        let html = super::markdown_html("# Hi\n\n<script>alert(1)</script>\n\n[x](javascript:alert(1))");
        assert!(html.contains("<h1>Hi</h1>"), "{html}");
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("javascript:"), "{html}");
    }
}
