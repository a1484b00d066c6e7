//! `plandeck hook claude-stop`: Claude Code's `Stop` hook (opt-in: `plandeck hooks install --agent
//! claude --verify`).
//!
//! When the session trying to stop has an approved plan whose report still has `missing` or
//! `partial` steps, it prints `{"decision":"block","reason":"<the report>"}` and the model goes on
//! with the report as its next instruction. It never loops:
//! - once per report: the hashes of the reports sent to the session, by this hook or by "Send
//!   report to agent" ([`crate::verify::send_report`]), are kept in the store
//!   (`<data>/verify/stop-hook/<hash of the session id>.json`, the last [`MAX_REMEMBERED`]); the
//!   same report is never sent twice, also not after another one went in between (A, B, A);
//! - with `stop_hook_active` (Claude Code says the model is already continuing because of a Stop
//!   hook) a changed report blocks again at most [`MAX_CHAIN`] times in a row;
//! - never when Plandeck's window is not running (the same check as the plan-approval hook), and
//!   never when the setting `verify.stopHook` is `false` in Plandeck's settings file.
//!
//! Everything else (bad input, no approved plan, a report that cannot be made, a store that
//! cannot be written) means: exit 0, print nothing, let the agent stop.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::config::Roots;
use crate::gate::HookOutcome;

/// Blocks in a row while `stop_hook_active` (each with a new report) before the hook lets go.
pub const MAX_CHAIN: u32 = 3;

/// How many sent reports are remembered per session.
pub const MAX_REMEMBERED: usize = 256;

#[derive(Debug, Deserialize)]
struct Input {
    session_id: String,
    #[serde(default)]
    stop_hook_active: bool,
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct State {
    session_id: String,
    last_hash: String,
    /// Every report sent to the session (hashes, oldest first), by the hook or by a person.
    #[serde(default)]
    sent: Vec<String>,
    /// Blocks in a row while `stop_hook_active`.
    chain: u32,
    at: String,
}

impl State {
    fn load(roots: &Roots, session: &str) -> State {
        std::fs::read(state_path(roots, session))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default()
    }

    fn has_sent(&self, hash: &str) -> bool {
        self.last_hash == hash || self.sent.iter().any(|h| h == hash)
    }

    fn remember(&mut self, hash: &str) {
        self.last_hash = hash.to_owned();
        if !self.sent.iter().any(|h| h == hash) {
            self.sent.push(hash.to_owned());
        }
        let over = self.sent.len().saturating_sub(MAX_REMEMBERED);
        self.sent.drain(..over);
        self.at = crate::review::log::now();
    }

    fn save(&self, roots: &Roots) -> Result<(), crate::durable::WriteError> {
        let mut json = serde_json::to_vec(self).unwrap_or_default();
        json.push(b'\n');
        crate::durable::write_private(&state_path(roots, &self.session_id), &json)
    }
}

/// Why a report was not sent again.
#[derive(Debug, thiserror::Error)]
pub enum SentError {
    #[error("this report was already sent to the agent; nothing was typed")]
    AlreadySent,
    #[error(transparent)]
    Store(#[from] crate::review::ReviewError),
    #[error(transparent)]
    Write(#[from] crate::durable::WriteError),
}

/// Sends a report to `session` once: `send` runs (and the report is remembered as sent) only when
/// no report with `hash` went to the session before, from the hook or from a person. Held under
/// the store's lock, so the hook and a person's "Send report" cannot both send it.
pub(crate) fn send_once<T, E>(
    roots: &Roots,
    session: &str,
    hash: &str,
    send: impl FnOnce() -> Result<T, E>,
) -> Result<Result<T, E>, SentError> {
    let _lock = crate::review::store::lock(&roots.data)?;
    let mut state = State::load(roots, session);
    if state.has_sent(hash) {
        return Err(SentError::AlreadySent);
    }
    let sent = send();
    if sent.is_ok() {
        state.session_id = session.to_owned();
        state.remember(hash);
        state.save(roots)?;
    }
    Ok(sent)
}

fn state_path(roots: &Roots, session: &str) -> PathBuf {
    roots.data.join("verify").join("stop-hook").join(format!(
        "{}.json",
        &crate::durable::sha256_hex(session.as_bytes())[..16]
    ))
}

/// Whether the Stop hook is on in Plandeck's settings (`"verify": {"stopHook": false}` turns it
/// off; absent means on, the hook being installed only by choice).
pub fn enabled(roots: &Roots) -> bool {
    let settings = crate::config::Settings::load(&roots.settings_path()).unwrap_or_default();
    settings
        .other
        .get("verify")
        .and_then(|v| v.get("stopHook"))
        .and_then(serde_json::Value::as_bool)
        .unwrap_or(true)
}

fn quiet(msg: impl std::fmt::Display) -> HookOutcome {
    HookOutcome {
        stdout: String::new(),
        stderr: format!("plandeck hook claude-stop: {msg}\n"),
        exit_code: 0,
    }
}

/// Runs the Stop hook on `stdin` (Claude Code's hook JSON); see the module docs.
pub fn hook_claude_stop(roots: &Roots, stdin: &[u8]) -> HookOutcome {
    if stdin.len() > crate::gate::MAX_HOOK_INPUT {
        return quiet("input too large; not blocking");
    }
    let input: Input = match serde_json::from_slice(stdin) {
        Ok(i) => i,
        Err(e) => {
            return quiet(format!(
                "input is not the Stop hook JSON Claude Code sends ({e}); not blocking"
            ))
        }
    };
    if !enabled(roots) {
        return quiet("off (verify.stopHook is false in Plandeck's settings); not blocking");
    }
    if !crate::gate::app_running(roots) {
        return quiet("Plandeck is not running; not blocking");
    }
    let report = match super::report_for_session(
        roots,
        super::install::stop_hook_agent(),
        &input.session_id,
    ) {
        Ok(Some(r)) => r,
        Ok(None) => return quiet("no approved plan for this session; not blocking"),
        Err(e) => return quiet(format!("{e}; not blocking")),
    };
    if !super::needs_work(&report) {
        return quiet("every step of the approved plan is done or unverifiable; not blocking");
    }
    let _lock = match crate::review::store::lock(&roots.data) {
        Ok(l) => l,
        Err(e) => return quiet(format!("{e}; not blocking")),
    };
    let previous = State::load(roots, &input.session_id);
    if previous.has_sent(&report.report_hash) {
        return quiet("this report was already sent to the agent; not blocking again");
    }
    let chain = if input.stop_hook_active {
        previous.chain + 1
    } else {
        1
    };
    if input.stop_hook_active && chain > MAX_CHAIN {
        return quiet(format!(
            "blocked {MAX_CHAIN} times in a row already; not blocking again"
        ));
    }
    let mut state = previous;
    state.session_id = input.session_id.clone();
    state.chain = chain;
    state.remember(&report.report_hash);
    // Without the record the hook could not promise "once": it does not block.
    if let Err(e) = state.save(roots) {
        return quiet(format!("{e}; not blocking"));
    }
    let reason = super::agent_report_text(&report);
    HookOutcome {
        stdout: format!(
            "{}\n",
            serde_json::json!({ "decision": "block", "reason": reason })
        ),
        stderr: String::new(),
        exit_code: 0,
    }
}
