//! Typing into an agent's terminal, the one module for it: the gate's answers that are typed
//! (a Codex composer's message), `plandeck send` and the window's Send box
//! ([`crate::control::send_message`]), and "Send report" ([`send_to_session`]) all go through it.
//! The trust rules (docs/architecture.md §7, SECURITY.md):
//!
//! - the pane is found from the agent's own records (Claude Code's registry entry names a pid
//!   that runs and wrote the entry, same start time); the tmux server is the one in the agent's
//!   own environment (`$TMUX`);
//! - before every key [`Target::send`] checks that the pane is the agent's terminal with the
//!   agent in front ([`Target::verify`]);
//! - nothing is typed while a menu (an approval card, a permission prompt) is open in the pane,
//!   nor onto a person's draft in its input line ([`type_checked`], asking the agent's driver):
//!   text typed there could pick a choice, or be sent glued to theirs;
//! - the text is cleaned ([`terminal::clean_text`]) and bounded (refused when too long, never
//!   cut), typed as one bracketed paste (its line breaks do not submit), then `Enter` once the
//!   paste is on screen ([`type_then_enter`], [`type_into_composer`]).
//!
//! Anything else is refused with the reason, and nothing is typed. The keys of an approval card
//! are the gate's own ([`super::delivery`]): chosen by the labels on screen.

use std::time::{Duration, Instant};

use crate::agents::{Driver, Input};
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

/// How often a screen is looked at while waiting for it.
const POLL: Duration = Duration::from_millis(50);

/// Why a text was not typed into a composer: the terminal failed, or what the screen showed (in a
/// person's words).
#[derive(Debug)]
pub(crate) enum NotTyped {
    Terminal(TerminalError),
    Said(String),
}

impl From<TerminalError> for NotTyped {
    fn from(e: TerminalError) -> Self {
        Self::Terminal(e)
    }
}

/// What of `text` is looked for on screen once it is typed: the start of its first line, cleaned
/// as it is typed (a long paste shows as "[Pasted …]" instead, which the callers accept too).
pub(crate) fn probe(text: &str) -> String {
    terminal::clean_text(text, terminal::MAX_TYPED_CHARS)
        .lines()
        .next()
        .unwrap_or("")
        .trim()
        .chars()
        .take(20)
        .collect()
}

/// Waits for `pred(screen)` up to `timeout`.
pub(crate) fn wait_screen(
    target: &Target,
    timeout: Duration,
    pred: impl Fn(&str) -> bool,
) -> Result<bool, TerminalError> {
    let start = Instant::now();
    loop {
        if pred(&target.capture(0)?) {
            return Ok(true);
        }
        if start.elapsed() >= timeout {
            return Ok(false);
        }
        std::thread::sleep(POLL);
    }
}

/// Types `text` into the agent's composer (Codex CLI's) and submits it: only once the composer is drawn and empty
/// (a draft of the person's is never glued to it), the text seen on screen before `Enter`, and
/// `Enter` again once if the text is still in the composer (taken as a newline of a fast paste).
pub(crate) fn type_into_composer(
    driver: &dyn Driver,
    target: &Target,
    text: &str,
    timeout: Duration,
) -> Result<(), NotTyped> {
    let composer_empty = |styled: &str| match driver.input("", styled) {
        Input::Empty => Some(true),
        Input::Draft(_) => Some(false),
        Input::Absent(_) => None,
    };
    let start = Instant::now();
    loop {
        match composer_empty(&target.capture_styled()?) {
            Some(true) => break,
            Some(false) if start.elapsed() >= timeout => {
                return Err(NotTyped::Said(format!(
                    "the popup was closed (staying in Plan mode), but Codex's input in tmux pane {} holds text: nothing more was typed; type your message in the terminal",
                    target.pane
                )))
            }
            None if start.elapsed() >= timeout => {
                return Err(NotTyped::Said(format!(
                    "the popup was closed (staying in Plan mode), but Codex's input did not show in tmux pane {}: nothing more was typed; type your message in the terminal",
                    target.pane
                )))
            }
            _ => std::thread::sleep(POLL),
        }
    }
    target.send(&Key::Text(text.to_owned()))?;
    let probe = probe(text);
    let shown = |s: &str| s.contains(&probe) || s.contains("[Pasted Content");
    if !wait_screen(target, timeout, shown)? {
        return Err(NotTyped::Said(format!(
            "the message was typed into tmux pane {} but did not show up; Enter was not pressed: look at the terminal",
            target.pane
        )));
    }
    // Codex takes keys that come fast after each other as a paste, where Enter is a newline.
    std::thread::sleep(terminal::KEY_GAP * 3);
    for _ in 0..2 {
        target.send(&Key::Enter)?;
        let sent = Instant::now();
        while sent.elapsed() < timeout {
            if composer_empty(&target.capture_styled()?) == Some(true) {
                return Ok(());
            }
            std::thread::sleep(POLL);
        }
    }
    Err(NotTyped::Said(format!(
        "the message is in Codex's input in tmux pane {} but was not sent: press Enter in the terminal",
        target.pane
    )))
}

/// Claude Code's session registry entry for a pid (used by tests).
#[cfg(test)]
fn registry_path(claude: &std::path::Path, pid: u32) -> std::path::PathBuf {
    crate::agents::claude::registry_file(claude, pid)
}

#[cfg(test)]
#[path = "typing_tests.rs"]
mod tests;
