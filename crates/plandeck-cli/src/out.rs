//! The one way the CLI writes: text a person reads is filtered, output a program reads is exact.
//!
//! Most of what the CLI prints was written by an agent (plan titles and text, file names, commands
//! from transcripts, feedback). Printed raw to a terminal, a control character in it is a command:
//! `\r` and `ESC [2K` erase a line, `ESC [8m` conceals a step, OSC 52 writes the clipboard. So
//! every subcommand writes through an [`Out`], which has no raw `io::Write`:
//!
//! - `write!`/`writeln!` (its [`Out::write_fmt`]) show every control character but line feed and
//!   tab, and every character a person cannot see, as `⟨U+XXXX⟩`: the same marks as the window,
//!   from the same definition ([`plandeck_core::visible::shown`]).
//! - [`Out::exact`] writes as is: only for output a program reads (`--json`, `--md`, a hook's
//!   answer to its agent).
//! - [`Out::style`] writes one of the CLI's own colours, never text.

use std::fmt;
use std::io::{self, Write};

/// A terminal colour the CLI writes itself (a fixed SGR sequence; no text goes with it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Bold,
    Reset,
    Cyan,
    Green,
    Red,
}

impl Style {
    fn sequence(self) -> &'static str {
        match self {
            Style::Bold => "\x1b[1m",
            Style::Reset => "\x1b[0m",
            Style::Cyan => "\x1b[36m",
            Style::Green => "\x1b[32m",
            Style::Red => "\x1b[31m",
        }
    }
}

/// stdout or stderr of a subcommand; see the module docs.
pub struct Out<'a> {
    inner: &'a mut dyn Write,
}

impl<'a> Out<'a> {
    pub fn new(inner: &'a mut dyn Write) -> Self {
        Self { inner }
    }

    /// Writes formatted text as a person may be shown it (what `write!` and `writeln!` call).
    pub fn write_fmt(&mut self, args: fmt::Arguments<'_>) -> io::Result<()> {
        let text = match args.as_str() {
            Some(s) => std::borrow::Cow::Borrowed(s),
            None => std::borrow::Cow::Owned(args.to_string()),
        };
        quiet_on_closed_pipe(
            self.inner
                .write_all(plandeck_core::visible::shown(&text).as_bytes()),
        )
    }

    /// Writes `text` exactly as it is: only for output a program reads (`--json`, `--md`, a hook's
    /// answer), never for text a person reads.
    pub fn exact(&mut self, text: &str) -> io::Result<()> {
        quiet_on_closed_pipe(self.inner.write_all(text.as_bytes()))
    }

    /// Writes `bytes` exactly, and says when the reader is gone (a relay ends then): only for a
    /// byte stream a program reads (`serve --stdio`).
    pub fn bytes(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.inner.write_all(bytes)
    }

    /// Writes one of the CLI's own colours.
    pub fn style(&mut self, style: Style) -> io::Result<()> {
        quiet_on_closed_pipe(self.inner.write_all(style.sequence().as_bytes()))
    }

    pub fn flush(&mut self) -> io::Result<()> {
        quiet_on_closed_pipe(self.inner.flush())
    }
}

/// A reader that went away (`plandeck plans list | head -3`) wants no more: the rest is
/// dropped quietly, not reported as an error on stderr.
fn quiet_on_closed_pipe(result: io::Result<()>) -> io::Result<()> {
    match result {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_shown_and_exact_is_exact() {
        let mut buf = Vec::new();
        let mut out = Out::new(&mut buf);
        let hostile = "a\r\u{1b}[2Kb\u{1b}]52;c;eA==\u{7}\u{9b}\u{E0041}";
        writeln!(out, "{hostile}").unwrap();
        out.style(Style::Bold).unwrap();
        out.exact(hostile).unwrap();
        let text = String::from_utf8(buf).unwrap();
        assert_eq!(
            text,
            format!("a⟨U+000D⟩⟨U+001B⟩[2Kb⟨U+001B⟩]52;c;eA==⟨U+0007⟩⟨U+009B⟩⟨U+E0041⟩\n\x1b[1m{hostile}")
        );
    }
}
