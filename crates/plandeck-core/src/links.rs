//! Where a navigation in the window may go (docs/architecture.md §7, trust rules: navigation never leaves the app).
//!
//! The shell asks [`navigation`] for every navigation the webview starts. The app's own pages
//! load; an `http(s)` link a plan holds is never loaded in the window: the shell shows the full
//! URL in a native confirmation and, only if the person agrees, hands it to the system browser.
//! Any other scheme is refused.

/// What to do with a navigation to a URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Navigation {
    /// The app's own origin (its pages, in-page anchors): load it in the window.
    App,
    /// An `http`/`https` URL elsewhere: never in the window; the system browser after a confirm
    /// showing this URL in full.
    External(String),
    /// Any other scheme (`file:`, `data:`, `javascript:`, custom handlers …): refused.
    Refused(String),
}

/// Classifies `url` (as the webview reports it) against the app's origins (`scheme://host[:port]`,
/// e.g. `tauri://localhost`, or the dev server's `http://localhost:5173`).
pub fn navigation(url: &str, app_origins: &[&str]) -> Navigation {
    if url == "about:blank" {
        return Navigation::App;
    }
    let origin = origin_of(url);
    if let Some(origin) = &origin {
        if app_origins
            .iter()
            .any(|o| o.trim_end_matches('/').eq_ignore_ascii_case(origin))
        {
            return Navigation::App;
        }
    }
    let scheme = url
        .split_once(':')
        .map(|(s, _)| s.to_ascii_lowercase())
        .unwrap_or_default();
    if (scheme == "http" || scheme == "https") && origin.is_some() && !has_controls(url) {
        Navigation::External(url.to_owned())
    } else {
        Navigation::Refused(url.to_owned())
    }
}

/// `scheme://authority` of a hierarchical URL, lower case; `None` when it has none.
fn origin_of(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    if scheme.is_empty()
        || !scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    {
        return None;
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    if authority.is_empty() {
        return None;
    }
    Some(format!("{scheme}://{authority}").to_ascii_lowercase())
}

/// Control or invisible characters in a URL ([`crate::visible::hidden`]) would make what the
/// confirmation shows differ from what opens.
fn has_controls(url: &str) -> bool {
    url.chars()
        .any(|c| c.is_control() || crate::visible::hidden(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    const APP: &[&str] = &["tauri://localhost", "http://tauri.localhost"];

    #[test]
    fn the_app_stays_in_the_window_and_links_leave_it_only_through_the_browser() {
        assert_eq!(navigation("tauri://localhost/", APP), Navigation::App);
        assert_eq!(
            navigation("tauri://localhost/index.html#steps", APP),
            Navigation::App
        );
        assert_eq!(navigation("http://tauri.localhost/x", APP), Navigation::App);
        assert_eq!(navigation("about:blank", APP), Navigation::App);
        let ext = "https://example.com/a?b=c#d";
        assert_eq!(navigation(ext, APP), Navigation::External(ext.to_owned()));
        assert_eq!(
            navigation("http://localhost:5173/", APP),
            Navigation::External("http://localhost:5173/".into()),
            "the dev server is the app only when it is the app's origin"
        );
        assert_eq!(
            navigation("http://localhost:5173/x", &["http://localhost:5173"]),
            Navigation::App
        );
        // A look-alike host is not the app.
        assert!(matches!(
            navigation("tauri://localhost.evil.example/", APP),
            Navigation::Refused(_)
        ));
        assert!(matches!(
            navigation("https://tauri.localhost.evil.example/", APP),
            Navigation::External(_)
        ));
        for refused in [
            "file:///etc/passwd",
            "javascript:alert(1)",
            "data:text/html,<script>x</script>",
            "mailto:a@b.c",
            "vscode://file/x",
            "ftp://example.com/x",
            "https:example.com",
            "https://example.com/\u{202E}gpj.exe",
        ] {
            assert!(
                matches!(navigation(refused, APP), Navigation::Refused(_)),
                "{refused}"
            );
        }
    }
}
