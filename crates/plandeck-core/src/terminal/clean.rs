//! Making a person's text safe to type into an agent's input box.
//!
//! Typed into a terminal, a control character is a key, not text: `\r` submits, `^C` interrupts,
//! `ESC` starts an escape sequence (`ESC [201~` would even end a bracketed paste early and type the
//! rest as keys). So the text keeps only printable characters and line breaks: line breaks are
//! normalised to `\n` (delivered inside a bracketed paste, see [`super::type_text`]), tabs become a
//! space, every other control character (C0, DEL, C1) and the bidirectional-override characters
//! (which make text read differently from what it says) are dropped.

/// The most characters of feedback Plandeck types into a pane. Longer feedback is refused by the
/// caller, never cut silently (see [`clean_text`]).
pub const MAX_TYPED_CHARS: usize = 16 * 1024;

/// Whether `c` is dropped from typed text (line breaks and tabs are handled before this).
fn is_dropped(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{202A}'..='\u{202E}' // embeddings and overrides
            | '\u{2066}'..='\u{2069}' // isolates
        )
}

/// `text` as it may be typed: `\r\n` and `\r` become `\n`, a tab a space, other control
/// characters are removed; trailing whitespace (and blank lines) at the ends are trimmed. At most
/// `max_chars` characters come out (work is bounded by the input's length); compare with
/// [`needs_truncation`] to refuse instead of cutting.
pub fn clean_text(text: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max_chars.saturating_mul(4)));
    let mut count = 0usize;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if count >= max_chars {
            break;
        }
        let kept = match c {
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                '\n'
            }
            '\n' => '\n',
            '\t' => ' ',
            c if is_dropped(c) => continue,
            c => c,
        };
        out.push(kept);
        count += 1;
    }
    // No blank lines or spaces at the ends: an agent's input box would keep them as typed.
    let trimmed_end = out.trim_end().len();
    out.truncate(trimmed_end);
    let start = out.len() - out.trim_start_matches(['\n', ' ']).len();
    // Keep the indentation of the first line; only whole blank lines go from the start.
    let start = out[..start].rfind('\n').map_or(0, |i| i + 1);
    out.drain(..start);
    out
}

/// Whether [`clean_text`] with `max_chars` would cut `text` short.
pub fn needs_truncation(text: &str, max_chars: usize) -> bool {
    let kept = text
        .chars()
        .filter(|c| !is_dropped(*c) || matches!(c, '\r' | '\n' | '\t'))
        .count();
    kept > max_chars
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn keys_are_removed_and_text_is_kept() {
        assert_eq!(
            clean_text(
                "- first\r\n- `second` $(touch /tmp/x)\rthird\u{3}\u{1b}[201~x\u{7f}\u{9b}",
                100
            ),
            "- first\n- `second` $(touch /tmp/x)\nthird[201~x"
        );
        assert_eq!(clean_text("a\tb", 100), "a b");
        assert_eq!(clean_text("\n\n  indented\n\n", 100), "  indented");
        assert_eq!(clean_text("evil\u{202E}txt.exe", 100), "eviltxt.exe");
        assert_eq!(clean_text("ünïcødé ✓ 日本", 100), "ünïcødé ✓ 日本");
        assert_eq!(clean_text("abcdef", 3), "abc");
        assert!(needs_truncation("abcdef", 5));
        assert!(!needs_truncation("abc\u{1b}\u{1b}\u{1b}", 3));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn cleaned_text_has_no_keys(s in any::<String>(), max in 0usize..300) {
            let out = clean_text(&s, max);
            prop_assert!(out.chars().count() <= max);
            prop_assert!(out.chars().all(|c| c == '\n' || !is_dropped(c)), "{out:?}");
            prop_assert!(!out.contains(['\r', '\u{1b}']), "{:?}", out);
        }

        #[test]
        fn printable_text_is_kept(s in "[ -~\u{a0}-\u{17f}\u{4e00}-\u{4e20}]{0,200}") {
            // Printable characters only (no line breaks): kept exactly, but for trailing spaces.
            let out = clean_text(&s, MAX_TYPED_CHARS);
            prop_assert_eq!(out.as_str(), s.trim_end());
        }

        #[test]
        fn lines_survive(lines in proptest::collection::vec("[!-~][ -~]{0,40}", 1..8)) {
            let text = lines.join("\r\n");
            let joined = lines.join("\n");
            prop_assert_eq!(clean_text(&text, MAX_TYPED_CHARS), joined.trim_end());
        }
    }
}
