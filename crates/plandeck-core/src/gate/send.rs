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

use crate::config::Roots;
use crate::ipc::{ErrorKind, IpcError};
use crate::sessions::claude::{pid_alive, registry};
use crate::terminal::{self, Key, ProcessId, Target, TerminalError};

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

/// The live Claude Code session `session_id` as its pane to type into.
pub fn session_target(roots: &Roots, session_id: &str) -> Result<Target, SendError> {
    let no_session = || SendError::NoLiveSession {
        session_id: session_id.to_owned(),
    };
    let registry = registry(&roots.claude)
        .map_err(|_| no_session())?
        .into_iter()
        .map(|(_, r)| r)
        .find(|r| r.session_id == session_id && pid_alive(r.pid, r.proc_start.as_deref()))
        .ok_or_else(no_session)?;
    let socket = terminal::tmux_socket_of(registry.pid);
    // The registry's pane, else the pane whose terminal is the agent's (checked again before
    // anything is typed).
    let pane = registry
        .tmux
        .as_deref()
        .filter(|t| !t.is_empty())
        .map(super::pane::normalize_pane)
        .or_else(|| {
            socket
                .as_deref()
                .and_then(|s| super::pane::from_process(registry.pid, Some(s)))
        })
        .ok_or_else(|| SendError::NoPane {
            session_id: session_id.to_owned(),
        })?;
    let start_time = registry
        .proc_start
        .as_deref()
        .and_then(|s| s.parse::<u64>().ok())
        .or_else(|| terminal::start_time(registry.pid));
    Ok(Target {
        socket,
        pane,
        agent: Some(ProcessId {
            pid: registry.pid,
            start_time,
        }),
    })
}

/// Whether a menu whose choices a typed key could pick is open at the bottom of the screen: an
/// approval card, or a numbered choice with the cursor on it (`❯ 1.`).
pub(crate) fn menu_open(screen: &str) -> bool {
    if super::delivery::card_visible(crate::agents::Agent::Claude, screen) {
        return true;
    }
    let lines: Vec<&str> = screen.lines().filter(|l| !l.trim().is_empty()).collect();
    let tail = &lines[lines.len().saturating_sub(15)..];
    tail.iter().any(|l| {
        let t = l.trim_start_matches(|c: char| c.is_whitespace() || c == '│');
        t.strip_prefix('❯')
            .map(str::trim_start)
            .and_then(|rest| rest.split_once('.'))
            .is_some_and(|(n, _)| {
                !n.is_empty() && n.len() <= 2 && n.bytes().all(|b| b.is_ascii_digit())
            })
    })
}

/// The text in Claude Code's input line, if any: the line starting with `❯` right under a rule
/// (`────`), and the lines under it up to the next rule (Claude Code 2.1.328 draws its prompt
/// so). Empty input shows a bare `❯`.
pub(crate) fn input_draft(screen: &str) -> Option<String> {
    let lines: Vec<&str> = screen.lines().collect();
    let is_rule = |l: &str| {
        let t = l.trim();
        t.chars().count() >= 10 && t.chars().all(|c| c == '─')
    };
    let start = (1..lines.len()).rev().find(|&i| {
        lines[i].trim_start().starts_with('❯')
            && lines[..i]
                .iter()
                .rev()
                .find(|l| !l.trim().is_empty())
                .is_some_and(|l| is_rule(l))
    })?;
    let mut draft = lines[start]
        .trim_start()
        .trim_start_matches('❯')
        .trim()
        .to_owned();
    for l in &lines[start + 1..] {
        if is_rule(l) {
            break;
        }
        if !l.trim().is_empty() {
            draft.push(' ');
            draft.push_str(l.trim());
        }
    }
    let draft = draft.trim().to_owned();
    (!draft.is_empty()).then(|| draft.chars().take(60).collect())
}

/// Types `text` into the live Claude Code session `session_id` and submits it. Returns what was
/// done, for the person.
pub fn send_to_session(roots: &Roots, session_id: &str, text: &str) -> Result<String, SendError> {
    if terminal::needs_truncation(text, terminal::MAX_TYPED_CHARS) {
        return Err(SendError::TooLong {
            max: terminal::MAX_TYPED_CHARS,
        });
    }
    let text = terminal::clean_text(text, terminal::MAX_TYPED_CHARS);
    if text.trim().is_empty() {
        return Err(SendError::Empty);
    }
    let target = session_target(roots, session_id)?;
    send_to_target(&target, &text)?;
    Ok(format!(
        "typed into tmux pane {} and submitted: the agent has the report",
        target.pane
    ))
}

/// [`send_to_session`] once the pane is known (tests type into a private tmux server).
pub fn send_to_target(target: &Target, text: &str) -> Result<(), SendError> {
    target.verify()?;
    let screen = target.capture(0)?;
    if menu_open(&screen) {
        return Err(SendError::MenuOpen {
            pane: target.pane.clone(),
        });
    }
    // A person's half-typed words would be submitted with the report.
    if let Some(draft) = input_draft(&screen) {
        return Err(SendError::DraftInInput {
            pane: target.pane.clone(),
            draft,
        });
    }
    type_then_enter(target, text, menu_open)
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
