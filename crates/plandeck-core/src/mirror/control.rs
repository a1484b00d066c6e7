//! Reading a tmux control-mode client (`tmux -C attach`): one notification per line. Only what the
//! mirror needs is told apart: a pane's output, the client's exit, and a change of layout or
//! windows (after which the watched pane's size and presence are asked again).

/// One line of a control client, as the mirror reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Notice {
    /// `%output %3 bytes…`: what the pane's program wrote, unescaped.
    Output { pane: String, bytes: Vec<u8> },
    /// `%exit [reason]`: the client is detached (the session ended, the server went away).
    Exit { reason: String },
    /// A window's layout changed, or a window closed: the pane may have resized or gone.
    Layout,
    /// Anything else (command replies, other sessions' news).
    Other,
}

/// Reads one line (without its newline).
pub(crate) fn parse(line: &[u8]) -> Notice {
    if let Some(rest) = line.strip_prefix(b"%output ") {
        let (pane, data) = match rest.iter().position(|b| *b == b' ') {
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (rest, &b""[..]),
        };
        return Notice::Output {
            pane: String::from_utf8_lossy(pane).into_owned(),
            bytes: unescape(data),
        };
    }
    if let Some(rest) = line.strip_prefix(b"%exit") {
        return Notice::Exit {
            reason: String::from_utf8_lossy(rest).trim().to_owned(),
        };
    }
    const LAYOUT: [&[u8]; 4] = [
        b"%layout-change ",
        b"%window-close ",
        b"%unlinked-window-close ",
        b"%session-window-changed ",
    ];
    if LAYOUT.iter().any(|p| line.starts_with(p)) {
        return Notice::Layout;
    }
    Notice::Other
}

/// tmux writes a control byte or a backslash in `%output` as `\ooo` (three octal digits); every
/// other byte is itself. A malformed escape is kept as it came.
pub(crate) fn unescape(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    let mut i = 0;
    while i < data.len() {
        if data[i] == b'\\' && i + 3 < data.len() && is_octal(&data[i + 1..i + 4]) {
            let d = &data[i + 1..i + 4];
            let value = (u32::from(d[0] - b'0') << 6)
                | (u32::from(d[1] - b'0') << 3)
                | u32::from(d[2] - b'0');
            out.push(value as u8);
            i += 4;
        } else {
            out.push(data[i]);
            i += 1;
        }
    }
    out
}

fn is_octal(d: &[u8]) -> bool {
    d.len() == 3 && d.iter().all(|b| (b'0'..=b'7').contains(b)) && d[0] <= b'3'
}

/// Turns byte chunks into text without splitting a character: an incomplete UTF-8 sequence at a
/// chunk's end waits for the next chunk; bytes that are not UTF-8 become U+FFFD.
#[derive(Debug, Default)]
pub(crate) struct Utf8Carry {
    pending: Vec<u8>,
}

impl Utf8Carry {
    pub(crate) fn push(&mut self, bytes: &[u8]) -> String {
        self.pending.extend_from_slice(bytes);
        let keep = incomplete_tail(&self.pending);
        let tail = self.pending.split_off(self.pending.len() - keep);
        let text = String::from_utf8_lossy(&self.pending).into_owned();
        self.pending = tail;
        text
    }
}

/// How many bytes at the end of `bytes` begin a UTF-8 sequence that is not complete yet.
fn incomplete_tail(bytes: &[u8]) -> usize {
    for back in 1..=3.min(bytes.len()) {
        let b = bytes[bytes.len() - back];
        if b & 0xC0 == 0x80 {
            continue; // a continuation byte: look further back for the lead
        }
        let needed = match b {
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => return 0,
        };
        return if needed > back { back } else { 0 };
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_is_unescaped_and_names_its_pane() {
        let line = br"%output %12 \033[31mred\033[0m \134n\015\012";
        assert_eq!(
            parse(line),
            Notice::Output {
                pane: "%12".into(),
                bytes: b"\x1b[31mred\x1b[0m \\n\r\n".to_vec(),
            }
        );
    }

    #[test]
    fn raw_utf8_bytes_pass_through_and_a_bad_escape_is_kept() {
        let mut line = b"%output %0 ".to_vec();
        line.extend_from_slice("日本 \\9x \\".as_bytes());
        let Notice::Output { bytes, .. } = parse(&line) else {
            panic!("not output")
        };
        assert_eq!(String::from_utf8(bytes).unwrap(), "日本 \\9x \\");
    }

    #[test]
    fn exit_layout_and_the_rest() {
        assert_eq!(
            parse(b"%exit"),
            Notice::Exit {
                reason: String::new()
            }
        );
        assert_eq!(
            parse(b"%exit server exited"),
            Notice::Exit {
                reason: "server exited".into()
            }
        );
        assert_eq!(
            parse(b"%layout-change @1 b25d,80x24,0,0,2 b25d,80x24,0,0,2 *"),
            Notice::Layout
        );
        assert_eq!(parse(b"%window-close @3"), Notice::Layout);
        assert_eq!(parse(b"%begin 1 2 0"), Notice::Other);
        assert_eq!(parse(b"%session-changed $0 t1"), Notice::Other);
    }

    #[test]
    fn a_character_split_across_chunks_is_whole_once() {
        let text = "a日b".as_bytes();
        let mut carry = Utf8Carry::default();
        assert_eq!(carry.push(&text[..2]), "a");
        assert_eq!(carry.push(&text[2..3]), "");
        assert_eq!(carry.push(&text[3..]), "日b");
        // Not UTF-8 at all: replaced, never held back forever.
        assert_eq!(carry.push(&[0xFF, b'x']), "\u{FFFD}x");
    }
}
