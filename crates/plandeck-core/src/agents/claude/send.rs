//! Typing the verification report into a live Claude Code session (`plandeck send`, Send report):
//! the session is found in Claude Code's registry, and the text goes through the one checked
//! typing path ([`crate::gate::type_checked`]).

use crate::config::Roots;
use crate::gate::SendError;
use crate::sessions::claude::{pid_alive, registry};
use crate::terminal::{self, ProcessId, Target};

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
        .map(crate::gate::pane::normalize_pane)
        .or_else(|| {
            socket
                .as_deref()
                .and_then(|s| crate::gate::pane::from_process(registry.pid, Some(s)))
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
