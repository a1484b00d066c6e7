//! Typing a text (the verification report) into a live Claude Code session, the way the gate
//! answers its cards (docs/architecture.md §7, trust rules, SECURITY.md):
//!
//! - the session must be live: its registry entry (`<claude>/sessions/<pid>.json`) names a pid
//!   that runs and is the process that wrote the entry (same start time), and a tmux pane;
//! - the tmux server is the one in the agent's own environment (`$TMUX`);
//! - before every key [`Target::send`] checks that the pane is the agent's terminal with the
//!   agent in front ([`Target::verify`]);
//! - nothing is typed while a menu (an approval card, a permission prompt) is open in the pane:
//!   text typed there could pick a choice;
//! - the text is cleaned ([`terminal::clean_text`]) and bounded (refused when too long, never
//!   cut), typed as one bracketed paste (its line breaks do not submit), then `Enter` once the
//!   paste is on screen.
//!
//! Anything else is refused with the reason, and nothing is typed.

use std::time::{Duration, Instant};

use crate::agents::Driver;
use crate::ipc::{ErrorKind, IpcError};
use crate::terminal::{self, Key, Target, TerminalError};

#[cfg(test)]
use crate::agents::claude::screen::{input_draft, menu_open};
pub use crate::agents::claude::send::{send_to_session, send_to_target, session_target};

/// Why a text was not typed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SendError {
    #[error("no live Claude Code session {session_id} on this machine (it ended, or it was never started here); nothing was typed")]
    NoLiveSession { session_id: String },
    #[error("session {session_id} does not run in tmux, so Plandeck cannot type into it; paste the report yourself")]
    NoPane { session_id: String },
    #[error("a menu (an approval card or a permission prompt) is open in tmux pane {pane}: typed text could pick a choice; answer it, then send again. Nothing was typed")]
    MenuOpen { pane: String },
    #[error("the agent's input line in tmux pane {pane} holds text someone is typing ({draft:?}): the report would be sent glued to it. Send or clear it, then send again. Nothing was typed")]
    DraftInInput { pane: String, draft: String },
    #[error("the text is longer than {max} characters; nothing was typed")]
    TooLong { max: usize },
    #[error("there is nothing to send")]
    Empty,
    #[error("the text was typed into tmux pane {pane} but did not show up on screen; Enter was not pressed: look at the terminal")]
    NotShown { pane: String },
    #[error(transparent)]
    Terminal(#[from] TerminalError),
}

impl From<SendError> for IpcError {
    fn from(e: SendError) -> Self {
        let kind = match &e {
            SendError::NoLiveSession { .. } => ErrorKind::NotFound,
            SendError::TooLong { .. } | SendError::Empty => ErrorKind::BadInput,
            SendError::Terminal(TerminalError::Tmux { .. }) | SendError::NotShown { .. } => {
                ErrorKind::Internal
            }
            _ => ErrorKind::Refused,
        };
        IpcError::new(kind, e.to_string())
    }
}

/// How long to wait for the pasted text to show up before pressing Enter.
const SHOWN_TIMEOUT: Duration = Duration::from_secs(3);

/// Types `text` into the pane of an agent `driver` drives and submits it, the one checked path:
/// the pane is the agent's, no menu is open ([`Driver::menu_open`]) and no draft is in its
/// input line ([`Driver::draft`]), then [`type_then_enter`].
pub(crate) fn type_checked(
    driver: &dyn Driver,
    target: &Target,
    text: &str,
) -> Result<(), SendError> {
    target.verify()?;
    let screen = target.capture(0)?;
    if driver.menu_open(&screen) {
        return Err(SendError::MenuOpen {
            pane: target.pane.clone(),
        });
    }
    // A person's half-typed words would be submitted with the text.
    if let Some(draft) = driver.draft(&screen) {
        return Err(SendError::DraftInInput {
            pane: target.pane.clone(),
            draft,
        });
    }
    type_then_enter(target, text, |s| driver.menu_open(s))
}

/// Types `text` into the pane (one checked send), waits until it is drawn, then presses Enter,
/// unless `menu_up` says a card or menu opened meanwhile (the text is left for the person).
pub(crate) fn type_then_enter(
    target: &Target,
    text: &str,
    menu_up: impl Fn(&str) -> bool,
) -> Result<(), SendError> {
    target.send(&Key::Text(text.to_owned()))?;
    // Claude Code shows a long paste as "[Pasted text #1 +N lines]".
    let probe: String = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
        .chars()
        .take(20)
        .collect();
    let start = Instant::now();
    loop {
        let screen = target.capture(0)?;
        if screen.contains("[Pasted text") || screen.contains(probe.as_str()) {
            break;
        }
        if start.elapsed() >= SHOWN_TIMEOUT {
            return Err(SendError::NotShown {
                pane: target.pane.clone(),
            });
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    // Gemini CLI takes an Enter within 30 ms of other keys as a line break.
    std::thread::sleep(terminal::KEY_GAP);
    if menu_up(&target.capture(0)?) {
        return Err(SendError::MenuOpen {
            pane: target.pane.clone(),
        });
    }
    target.send(&Key::Enter)?;
    Ok(())
}

/// Claude Code's session registry entry for a pid (used by tests).
#[cfg(test)]
fn registry_path(claude: &std::path::Path, pid: u32) -> std::path::PathBuf {
    crate::agents::claude::registry_file(claude, pid)
}

#[cfg(test)]
#[path = "send_tests.rs"]
mod tests;
