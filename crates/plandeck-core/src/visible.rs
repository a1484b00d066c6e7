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

/// Characters that are invisible, or change the direction or look of the text around them, as
/// sorted inclusive ranges of code points: soft hyphen, combining grapheme joiner, Arabic letter
/// mark, Hangul and Khmer fillers, Mongolian variation selectors, zero width and joiners, bidi
/// marks, line and paragraph separators, embeddings and overrides, invisible operators and
/// isolates, variation selectors, BOM, interlinear annotation, Egyptian and shorthand format
/// controls, musical format controls, tag characters (and the rest of plane 14's
/// default-ignorable block, with the supplementary variation selectors). The UI's bindings carry
/// the same table (`HIDDEN_RANGES`).
pub const HIDDEN: &[(u32, u32)] = &[
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x2028, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFFB),
    (0x13430, 0x1343F),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
];

/// Characters that can take VS15/VS16 (a text or an emoji look): keycap bases, ©, ®, the symbol
/// blocks from General Punctuation to Enclosed CJK, and the emoji planes. Sorted inclusive
/// ranges (`SELECTOR_BASES` in the UI's bindings).
pub const SELECTOR_BASES: &[(u32, u32)] = &[
    (0x23, 0x23),
    (0x2A, 0x2A),
    (0x30, 0x39),
    (0xA9, 0xA9),
    (0xAE, 0xAE),
    (0x203C, 0x3299),
    (0x1F000, 0x1FAFF),
];

fn in_ranges(c: char, ranges: &[(u32, u32)]) -> bool {
    let c = c as u32;
    ranges
        .binary_search_by(|&(lo, hi)| {
            if hi < c {
                std::cmp::Ordering::Less
            } else if lo > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// Whether `c` is one of the characters a person cannot see ([`HIDDEN`]).
pub fn hidden(c: char) -> bool {
    c >= '\u{00AD}' && in_ranges(c, HIDDEN)
}

/// Control characters but the line feed and the tab: C0, DEL and C1. On a terminal they are
/// commands, not text.
pub fn control(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t'
}

fn takes_selector(c: char) -> bool {
    in_ranges(c, SELECTOR_BASES)
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

/// Texts and what [`shown`] makes of them: the UI's mirror of [`shown`] (for text it shows
/// outside rendered markdown) is tested against these (`SHOWN_EXAMPLES` in its bindings).
const EXAMPLES: &[&str] = &[
    "plain ✓ 日本\n\ttab",
    "a\r\nb\rc\u{1b}[2Kd\u{1b}]52;c;eA==\u{7}\u{9b}\u{7f}\u{0}",
    "src/extra.rs\u{E0053}\u{E0074}\u{E0065}\u{E0070}",
    "a\u{200B}b\u{200C}c\u{200D}d\u{200E}e\u{200F}f\u{2028}g\u{2060}h\u{FEFF}i\u{00AD}j\u{061C}",
    "I ❤\u{FE0F} it ✔\u{FE0F} 1\u{FE0F}\u{20E3} 😀\u{FE0F}\u{FE01}\u{E0100}",
    "a\u{FE0F} ❤\u{FE00} \u{FE0F} \u{2060}\u{FE0F} 🏴\u{E0067}\u{E007F}",
];

/// TypeScript declarations: the tables and the examples above.
pub(crate) fn ts_declarations() -> Vec<String> {
    let table = |name: &str, doc: &str, ranges: &[(u32, u32)]| {
        let items: Vec<String> = ranges
            .iter()
            .map(|(a, b)| format!("[0x{a:04x}, 0x{b:04x}]"))
            .collect();
        format!(
            "const {name}: ReadonlyArray<readonly [number, number]> =\n  // {doc}\n  [{}];",
            items.join(", ")
        )
    };
    // Control and hidden characters as `\u{…}`: the file holds none a person cannot see.
    let literal = |s: &str| {
        let mut out = String::from("\"");
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                c if control(c) || hidden(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
                c => out.push(c),
            }
        }
        out.push('"');
        out
    };
    let examples: Vec<String> = EXAMPLES
        .iter()
        .map(|e| format!("  [{}, {}],", literal(e), literal(&shown(e))))
        .collect();
    vec![
        table(
            "HIDDEN_RANGES",
            "Characters a person cannot see (`plandeck_core::visible::HIDDEN`): marked `⟨U+XXXX⟩` when shown.",
            HIDDEN,
        ),
        table(
            "SELECTOR_BASES",
            "Characters after which one VS15/VS16 is an emoji's own (`plandeck_core::visible::SELECTOR_BASES`).",
            SELECTOR_BASES,
        ),
        format!(
            "const SHOWN_EXAMPLES: ReadonlyArray<readonly [string, string]> = [\n  // Texts and what `plandeck_core::visible::shown` makes of them (the UI's `shown` is tested against them).\n{}\n];",
            examples.join("\n")
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_tables_are_sorted_and_disjoint() {
        for table in [HIDDEN, SELECTOR_BASES] {
            assert!(table.iter().all(|(a, b)| a <= b));
            assert!(table.windows(2).all(|w| w[0].1 < w[1].0), "{table:x?}");
        }
        for c in [
            '\u{AD}',
            '\u{200B}',
            '\u{2069}',
            '\u{FE0F}',
            '\u{E0001}',
            '\u{E01EF}',
        ] {
            assert!(hidden(c), "{c:?}");
        }
        for c in [
            'a',
            ' ',
            '\u{AC}',
            '\u{AE}',
            '\u{2070}',
            '\u{FE10}',
            '😀',
            '\u{E1000}',
        ] {
            assert!(!hidden(c), "{c:?}");
        }
    }

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
