//! A live Claude Code session's pane, found from its registry entry (`<claude>/sessions/<pid>.json`):
//! the process that wrote it still runs, and its tmux pane.

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
