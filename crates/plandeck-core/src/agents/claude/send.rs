//! Typing the verification report into a live Claude Code session (`plandeck send`, Send report):
//! the session is found in Claude Code's registry, and the text goes through the one checked
//! typing path ([`crate::gate::type_checked`]).

use crate::config::Roots;
use crate::gate::SendError;
use crate::terminal::{self, Target};

pub use super::session::session_target;

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
    crate::gate::type_checked(&super::driver::Claude, target, text)
}
