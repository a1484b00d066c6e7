//! The characters a person cannot see, defined once.
//!
//! Text an agent wrote (a plan, a transcript, a file name) or a person pasted can hold characters
//! that show nothing, or change how the text around them shows: zero-width characters, bidi
//! controls, tag characters (a whole sentence fits in them), variation selectors, fillers, and
//! control characters (which a terminal takes as commands: `\r` and `ESC [2K` erase a line,
//! `ESC [8m` conceals text, OSC 52 writes the clipboard). Two uses, one definition:
//!
//! - What a person is shown marks each of them as `⟨U+XXXX⟩` ([`shown`]): the window's renderer
//!   ([`crate::render`]), the CLI's human-readable output.
//! - What an agent is handed drops them ([`crate::terminal::clean_text`]): text typed into a pane,
//!   the Stop hook's reason, a hook's deny message, the reviewer's notes.
//!
//! A variation selector is normal in one place: a single VS15/VS16 right after a character that
//! has a text and an emoji look (`❤️` is `❤` + U+FE0F). That one is left as it is on screen; any
//! other selector (a second one, one after a letter, the supplementary ones) is marked, so no run
//! of selectors can carry text.

use std::borrow::Cow;

/// Characters that are invisible, or change the direction or look of the text around them: zero
/// width and joiners, bidi marks, embeddings, overrides and isolates, line and paragraph
/// separators, invisible operators, soft hyphen, fillers, variation selectors, interlinear
/// annotation, format controls of other scripts, tag characters (and the rest of plane 14's
/// default-ignorable block).
pub fn hidden(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
        | '\u{180B}'..='\u{180F}' | '\u{200B}'..='\u{200F}' | '\u{2028}'..='\u{202E}'
        | '\u{2060}'..='\u{206F}' | '\u{3164}' | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}'
        | '\u{FFA0}' | '\u{FFF0}'..='\u{FFFB}' | '\u{13430}'..='\u{1343F}'
        | '\u{1BCA0}'..='\u{1BCA3}' | '\u{1D173}'..='\u{1D17A}' | '\u{E0000}'..='\u{E0FFF}')
}

/// Control characters but the line feed and the tab: C0, DEL and C1. On a terminal they are
/// commands, not text.
pub fn control(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t'
}

/// Characters that can take VS15/VS16 (text or emoji look): keycap bases, ©, ®, the symbol
/// blocks from General Punctuation to Enclosed CJK, and the emoji planes.
fn takes_selector(c: char) -> bool {
    matches!(c,
        '#' | '*' | '0'..='9' | '\u{00A9}' | '\u{00AE}' | '\u{203C}'..='\u{3299}'
        | '\u{1F000}'..='\u{1FAFF}')
}

/// Whether `c` (after `prev`) is shown as `⟨U+XXXX⟩`.
fn marked(prev: Option<char>, c: char) -> bool {
    if control(c) {
        return true;
    }
    if !hidden(c) {
        return false;
    }
    // One emoji-presentation selector right after a character that takes it is how emoji are
    // written; everything else hidden is marked.
    !(matches!(c, '\u{FE0E}' | '\u{FE0F}') && prev.is_some_and(|p| takes_selector(p) && !hidden(p)))
}

/// How a character is marked: `⟨U+XXXX⟩`.
pub fn mark(c: char) -> String {
    format!("⟨U+{:04X}⟩", c as u32)
}

/// `text` as a person may be shown it: every control character (but line feed and tab) and every
/// [`hidden`] character as `⟨U+XXXX⟩` (a single VS15/VS16 after an emoji excepted); `\r\n` is a
/// line break, `\n`. Borrowed when nothing changes.
pub fn shown(text: &str) -> Cow<'_, str> {
    let needs = |c: char| control(c) || hidden(c);
    if !text.chars().any(needs) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut prev = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' && chars.peek() == Some(&'\n') {
            // The line feed that follows is the line break.
        } else if marked(prev, c) {
            out.push_str(&mark(c));
        } else {
            out.push(c);
        }
        prev = Some(c);
    }
    if out == text {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(out)
    }
}

/// Whether a person sees every character of `text` as it is (nothing [`shown`] would mark).
pub fn all_visible(text: &str) -> bool {
    matches!(shown(text), Cow::Borrowed(_))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn controls_and_hidden_characters_are_marked() {
        assert_eq!(
            shown("plan\r\u{1b}[2Kgone \u{1b}]52;c;eA==\u{7} \u{9b}x\u{7f}"),
            "plan⟨U+000D⟩⟨U+001B⟩[2Kgone ⟨U+001B⟩]52;c;eA==⟨U+0007⟩ ⟨U+009B⟩x⟨U+007F⟩"
        );
        assert_eq!(shown("a\r\nb\tc\n"), "a\nb\tc\n");
        assert_eq!(shown("x\u{E0053}\u{E0074}"), "x⟨U+E0053⟩⟨U+E0074⟩");
        assert_eq!(
            shown("a\u{200B}b\u{200E}c\u{2028}d\u{00AD}e\u{FEFF}"),
            "a⟨U+200B⟩b⟨U+200E⟩c⟨U+2028⟩d⟨U+00AD⟩e⟨U+FEFF⟩"
        );
        assert!(matches!(shown("plain ✓ 日本\n\ttab"), Cow::Borrowed(_)));
    }

    #[test]
    fn a_single_emoji_selector_stays_and_every_other_selector_is_marked() {
        // ❤️, ✔️ and the keycap 1️⃣ are how people write emoji.
        assert_eq!(
            shown("I ❤\u{FE0F} it ✔\u{FE0F} 1\u{FE0F}\u{20E3}"),
            "I ❤\u{FE0F} it ✔\u{FE0F} 1\u{FE0F}\u{20E3}"
        );
        // A run of selectors after an emoji carries text: all but the first are marked.
        assert_eq!(
            shown("😀\u{FE0F}\u{FE01}\u{E0143}"),
            "😀\u{FE0F}⟨U+FE01⟩⟨U+E0143⟩"
        );
        // After a letter, or a selector other than VS15/VS16: marked.
        assert_eq!(shown("a\u{FE0F}"), "a⟨U+FE0F⟩");
        assert_eq!(shown("❤\u{FE00}"), "❤⟨U+FE00⟩");
        assert_eq!(shown("\u{FE0F}"), "⟨U+FE0F⟩");
        // Emoji tag sequences (a subdivision flag) are tag characters: marked.
        assert!(shown("🏴\u{E0067}\u{E007F}").contains("⟨U+E0067⟩"));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn shown_text_has_no_controls_and_no_hidden_run(s in any::<String>()) {
            let out = shown(&s);
            prop_assert!(!out.chars().any(control), "{out:?}");
            // At most one hidden character in a row survives (an emoji's selector).
            let chars: Vec<char> = out.chars().collect();
            prop_assert!(!chars.windows(2).any(|w| hidden(w[0]) && hidden(w[1])), "{out:?}");
            for (i, c) in chars.iter().enumerate() {
                if hidden(*c) {
                    prop_assert!(matches!(c, '\u{FE0E}' | '\u{FE0F}'), "{out:?}");
                    prop_assert!(i > 0 && takes_selector(chars[i - 1]), "{out:?}");
                }
            }
            // Marking is idempotent, and what was visible stays.
            let again = shown(&out);
            prop_assert_eq!(again.as_ref(), out.as_ref());
        }

        #[test]
        fn visible_text_is_kept(s in "[ -~\n\t\u{a0}-\u{ac}\u{ae}-\u{17f}\u{4e00}-\u{4e20}]{0,200}") {
            prop_assert!(matches!(shown(&s), Cow::Borrowed(_)));
        }
    }
}
