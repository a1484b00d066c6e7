//! The screen a view starts from: what `tmux capture-pane -e` shows (styles kept), with its
//! scrollback, written so that a terminal of the pane's size ends up showing the same screen with
//! the cursor where tmux has it.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::MirrorError;
use crate::terminal::{Target, TerminalError, Tmux};

/// A pane's screen to start a view from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Screen {
    /// The pane's size: the view draws exactly this many columns and rows.
    pub cols: u16,
    pub rows: u16,
    /// Written into a fresh terminal of that size, it shows the pane's screen (and its
    /// scrollback above), cursor included.
    pub data: String,
}

/// What tmux says of a pane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PaneInfo {
    pub cols: u16,
    pub rows: u16,
    pub cursor_x: u16,
    pub cursor_y: u16,
    pub cursor_visible: bool,
    pub alternate: bool,
    pub dead: bool,
    /// The tmux session holding the pane (`tmux attach -t` it).
    pub session: String,
}

const FORMAT: &str = "#{pane_id}\t#{pane_width}\t#{pane_height}\t#{cursor_x}\t#{cursor_y}\t#{cursor_flag}\t#{alternate_on}\t#{pane_dead}\t#{session_name}";

fn tmux_error(target: &Target, e: TerminalError) -> MirrorError {
    match e {
        TerminalError::Tmux { message } if message.contains("can't find") => {
            MirrorError::Refused(TerminalError::PaneGone {
                pane: target.pane.clone(),
                detail: message,
            })
        }
        TerminalError::Tmux { message } => MirrorError::Tmux(message),
        other => MirrorError::Refused(other),
    }
}

pub(crate) fn pane_info(target: &Target) -> Result<PaneInfo, MirrorError> {
    let out = Tmux::on(target.socket.as_deref(), "display-message")
        .flag("-p")
        .pane(&target.pane)
        .format(FORMAT)
        .output()
        .map_err(|e| tmux_error(target, e))?;
    parse_info(&target.pane, out.trim_end_matches('\n')).ok_or_else(|| {
        MirrorError::Refused(TerminalError::PaneGone {
            pane: target.pane.clone(),
            detail: "tmux does not know it".to_owned(),
        })
    })
}

fn parse_info(pane: &str, line: &str) -> Option<PaneInfo> {
    let f: Vec<&str> = line.split('\t').collect();
    if f.len() < 9 || f[0] != pane {
        return None;
    }
    Some(PaneInfo {
        cols: f[1].parse().ok()?,
        rows: f[2].parse().ok()?,
        cursor_x: f[3].parse().ok()?,
        cursor_y: f[4].parse().ok()?,
        cursor_visible: f[5] != "0",
        alternate: f[6] == "1",
        dead: f[7] == "1",
        session: f[8..].join("\t"),
    })
}

/// The pane's screen now, with up to `history` lines of scrollback.
pub(crate) fn capture(target: &Target, history: u32) -> Result<Screen, MirrorError> {
    let info = pane_info(target)?;
    let mut t = Tmux::on(target.socket.as_deref(), "capture-pane")
        .flag("-p")
        .flag("-e")
        .flag("-N")
        .pane(&target.pane);
    // The alternate screen has no scrollback of its own.
    if !info.alternate && history > 0 {
        t = t.number("-S", -i64::from(history));
    }
    let lines = t.output().map_err(|e| tmux_error(target, e))?;
    Ok(Screen {
        cols: info.cols,
        rows: info.rows,
        data: compose(&info, &lines),
    })
}

/// The bytes that draw `captured` (one line per pane row, the screen's rows last) into a fresh
/// terminal, then put the cursor back.
pub(crate) fn compose(info: &PaneInfo, captured: &str) -> String {
    let mut lines: Vec<&str> = captured.split('\n').collect();
    // capture-pane ends its last line with a newline too.
    if lines.last() == Some(&"") {
        lines.pop();
    }
    // Never fewer rows than the screen has: the cursor's row counts from the screen's top.
    while lines.len() < usize::from(info.rows) {
        lines.push("");
    }
    let mut out = String::with_capacity(captured.len() + 64);
    if info.alternate {
        out.push_str("\x1b[?1049h");
    }
    out.push_str("\x1b[H\x1b[2J");
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            // Styles end with their row, as tmux's capture means them.
            out.push_str("\x1b[0m\r\n");
        }
        out.push_str(line);
    }
    out.push_str("\x1b[0m");
    out.push_str(&format!(
        "\x1b[{};{}H",
        u32::from(info.cursor_y) + 1,
        u32::from(info.cursor_x) + 1
    ));
    out.push_str(if info.cursor_visible {
        "\x1b[?25h"
    } else {
        "\x1b[?25l"
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(rows: u16) -> PaneInfo {
        PaneInfo {
            cols: 10,
            rows,
            cursor_x: 2,
            cursor_y: 1,
            cursor_visible: true,
            alternate: false,
            dead: false,
            session: "work".into(),
        }
    }

    #[test]
    fn display_message_is_read_field_by_field() {
        let got = parse_info("%3", "%3\t80\t24\t5\t7\t0\t1\t0\tmy\tsession").unwrap();
        assert_eq!(
            (got.cols, got.rows, got.cursor_x, got.cursor_y),
            (80, 24, 5, 7)
        );
        assert!(!got.cursor_visible && got.alternate && !got.dead);
        assert_eq!(got.session, "my\tsession");
        assert_eq!(parse_info("%3", "%4\t80\t24\t5\t7\t1\t0\t0\ts"), None);
        assert_eq!(parse_info("%3", "garbage"), None);
    }

    #[test]
    fn the_screen_is_drawn_row_by_row_and_the_cursor_put_back() {
        let data = compose(&info(3), "\x1b[31mred\nplain\n");
        assert_eq!(
            data,
            "\x1b[H\x1b[2J\x1b[31mred\x1b[0m\r\nplain\x1b[0m\r\n\x1b[0m\x1b[2;3H\x1b[?25h"
        );
    }

    #[test]
    fn the_alternate_screen_is_entered_and_a_hidden_cursor_stays_hidden() {
        let mut i = info(1);
        i.alternate = true;
        i.cursor_visible = false;
        let data = compose(&i, "menu\n");
        assert!(data.starts_with("\x1b[?1049h\x1b[H\x1b[2J menu".replace(' ', "").as_str()));
        assert!(data.ends_with("\x1b[?25l"));
    }
}
