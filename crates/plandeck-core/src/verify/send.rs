//! "Send report to agent": the verification report typed into the agent's live Claude Code
//! session, through the gate's checked path ([`crate::gate::send_to_session`]), once per report
//! and session whoever sends it (this, or the Stop hook).

use crate::config::Roots;
use crate::ipc::{ErrorKind, IpcError};

/// The text "Send report to agent" types for the plan `id` (shown to the person first).
pub fn report_text(roots: &Roots, id: &str) -> Result<String, IpcError> {
    let report = super::report_by_id(roots, id)?;
    Ok(super::agent_report_text(&report))
}

/// Types the verification report of the plan `id` into its live Claude Code session, if it is
/// still `shown` (the text the person read): a report that changed since is refused as a
/// `conflict`, to be read again.
pub fn send_report(roots: &Roots, id: &str, shown: &str) -> Result<String, IpcError> {
    let report = super::report_by_id(roots, id)?;
    let Some(session) = report.session.as_ref() else {
        return Err(IpcError::new(
            ErrorKind::Refused,
            "this plan's session is not known, so there is no agent to send the report to",
        ));
    };
    // Reports are typed into the sessions of the agent whose Stop hook sends them too (Claude
    // Code), once per report and session whoever sends it.
    let typed_into = super::install::stop_hook_agent();
    if session.agent != typed_into {
        return Err(IpcError::new(
            ErrorKind::Refused,
            format!(
                "Plandeck types reports only into {} sessions; paste it into {} yourself",
                typed_into.display_name(),
                session.agent.display_name()
            ),
        ));
    }
    let text = super::agent_report_text(&report);
    if text != shown {
        return Err(IpcError::new(
            ErrorKind::Conflict,
            "the report changed since it was shown (the agent kept working); nothing was typed: read it again",
        ));
    }
    // Once per report and session, whoever sends it: this button, or the Stop hook.
    let hash = crate::durable::sha256_hex(text.as_bytes());
    match super::stop_hook::send_once(roots, &session.id, &hash, || {
        crate::gate::send_to_session(roots, &session.id, &text)
    }) {
        Ok(sent) => Ok(sent?),
        Err(super::stop_hook::SentError::AlreadySent) => Err(IpcError::new(
            ErrorKind::Refused,
            "this report was already sent to the agent (by you or by the Stop hook); nothing was typed",
        )),
        Err(e) => Err(IpcError::new(ErrorKind::Io, e.to_string())),
    }
}
