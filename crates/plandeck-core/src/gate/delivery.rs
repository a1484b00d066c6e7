//! Delivering the reviewer's decision to the live agent.
//!
//! - Claude Code, reject: a decision file; the waiting hook prints `deny` with the feedback.
//! - Everything else answers the approval card in the agent's tmux pane: `1` (auto) / `2`
//!   (manual) approve; Gemini's reject is `3`, the feedback typed literally, then `Enter` in a
//!   separate call (sent together they were taken as a paste). Keys sent the instant the card is
//!   drawn can be lost, so the card must have been on screen for about a second first, and
//!   `capture-pane` must show it closed afterwards (one retry, else the person is told).
//! - With no pane the request stays open and the person answers in the terminal.

use std::path::Path;
use std::time::{Duration, Instant};

use super::pane::tmux;
use super::store::{
    self, answered, close, load_open, pid_alive, save_open_request, write_decision,
};
use super::{ApproveMode, DecisionOutcome, GateDecision, GateError, GateRequest, GateStatus};
use crate::agent::Agent;
use crate::config::Roots;

/// Timing of card delivery; the defaults follow what the real CLIs needed.
#[derive(Debug, Clone)]
pub struct DeliveryOptions {
    /// How long to wait for the card to be on screen at all.
    pub card_timeout: Duration,
    /// How long the card must have been visible before a key is sent.
    pub settle: Duration,
    /// How long to wait for the card to close after a key.
    pub close_timeout: Duration,
    /// How long to wait for the hook to take a rejection.
    pub hook_timeout: Duration,
}

impl Default for DeliveryOptions {
    fn default() -> Self {
        Self {
            card_timeout: Duration::from_secs(10),
            settle: Duration::from_millis(1000),
            close_timeout: Duration::from_secs(3),
            hook_timeout: Duration::from_secs(3),
        }
    }
}

const POLL: Duration = Duration::from_millis(50);

/// Applies the reviewer's decision to request `request_id` with the default timing.
/// Errors: `NotFound`; `Closed` when the terminal (or another decision) answered first;
/// `PlanConflict` when an edit's plan file changed since the edit started.
pub fn decide(
    roots: &Roots,
    request_id: &str,
    decision: GateDecision,
) -> Result<DecisionOutcome, GateError> {
    decide_with(roots, request_id, decision, &DeliveryOptions::default())
}

/// [`decide`] with explicit timing (tests, benchmarks).
pub fn decide_with(
    roots: &Roots,
    request_id: &str,
    decision: GateDecision,
    opts: &DeliveryOptions,
) -> Result<DecisionOutcome, GateError> {
    let mut req = load_open(roots, request_id)?;
    if !pid_alive(req.hook_pid) && answered(&req) {
        let _ = close(roots, &req, GateStatus::AnsweredInTerminal);
        return Err(GateError::Closed {
            id: req.id,
            status: GateStatus::AnsweredInTerminal,
        });
    }
    if let GateDecision::Reject { feedback } = &decision {
        if feedback.trim().is_empty() {
            return Err(GateError::BadInput {
                message: "a rejection needs feedback for the agent".to_owned(),
            });
        }
    }
    let outcome =
        |req: &GateRequest, delivered: bool, message: &str, status: GateStatus| DecisionOutcome {
            request_id: req.id.clone(),
            delivered,
            message: message.to_owned(),
            status,
        };
    match decision.clone() {
        GateDecision::Reject { .. } if req.agent == Agent::Claude && pid_alive(req.hook_pid) => {
            record_review(roots, &req, &decision);
            write_decision(roots, &req.id, &decision)?;
            let file = store::requests_dir(roots).join(format!("{}.json", req.id));
            let start = Instant::now();
            while file.exists() && start.elapsed() < opts.hook_timeout {
                std::thread::sleep(Duration::from_millis(5));
            }
            Ok(if file.exists() {
                outcome(
                    &req,
                    false,
                    "rejection filed; the hook has not taken it yet",
                    GateStatus::Waiting,
                )
            } else {
                outcome(
                    &req,
                    true,
                    "rejected: the agent has the feedback",
                    GateStatus::Rejected,
                )
            })
        }
        GateDecision::Reject { feedback } => {
            let Some(pane) = req.tmux_pane.clone() else {
                return Ok(outcome(
                    &req,
                    false,
                    "no tmux pane known: reject in the terminal",
                    GateStatus::Waiting,
                ));
            };
            record_review(roots, &req, &decision);
            write_decision(roots, &req.id, &decision)?;
            let keys = [Key::Press("3"), Key::Text(feedback), Key::Press("Enter")];
            match answer_card(&req, &pane, &keys, false, opts) {
                Ok(()) => {
                    let _ = close(roots, &req, GateStatus::Rejected);
                    Ok(outcome(
                        &req,
                        true,
                        "rejected in the terminal card",
                        GateStatus::Rejected,
                    ))
                }
                Err(msg) => Ok(outcome(&req, false, &msg, GateStatus::Waiting)),
            }
        }
        GateDecision::Approve {
            mode,
            edited,
            started_from,
        } => {
            match &edited {
                Some(edited) => {
                    write_edited_plan(roots, &req, edited, started_from.as_deref(), mode)?
                }
                None => record_review(roots, &req, &decision),
            }
            // Mark the request as approving before the decision is written: once the decision
            // file exists a waiting hook may close the request at once (headless), and saving the
            // open request after that would bring it back.
            req.status = GateStatus::Approving;
            req.decision = Some(decision.clone());
            if store::requests_dir(roots)
                .join(format!("{}.json", req.id))
                .exists()
            {
                save_open_request(roots, &req)?;
            }
            // Whether a headless hook waits must be known before the decision is written: it
            // takes the decision, answers and exits within milliseconds.
            let hook_delivers =
                req.headless && req.agent == Agent::Claude && pid_alive(req.hook_pid);
            write_decision(roots, &req.id, &decision)?;
            if hook_delivers {
                // No card: the waiting hook answers `allow` with the (edited) plan.
                let file = store::requests_dir(roots).join(format!("{}.json", req.id));
                let start = Instant::now();
                while file.exists() && start.elapsed() < opts.hook_timeout {
                    std::thread::sleep(Duration::from_millis(5));
                }
                return Ok(if file.exists() {
                    outcome(
                        &req,
                        false,
                        "approval filed; the hook has not taken it yet",
                        GateStatus::Approving,
                    )
                } else {
                    outcome(
                        &req,
                        true,
                        "approved: the headless agent has the plan",
                        GateStatus::Approved,
                    )
                });
            }
            let Some(pane) = req.tmux_pane.clone() else {
                return Ok(outcome(
                    &req,
                    false,
                    "approve in the terminal",
                    GateStatus::Approving,
                ));
            };
            let key = match mode {
                ApproveMode::Auto => "1",
                ApproveMode::Manual => "2",
            };
            match answer_card(&req, &pane, &[Key::Press(key)], true, opts) {
                Ok(()) => {
                    // A waiting Claude hook closes the request once the transcript shows the
                    // answer; otherwise nobody else will.
                    if !pid_alive(req.hook_pid) {
                        let _ = close(roots, &req, GateStatus::Approved);
                    }
                    Ok(outcome(
                        &req,
                        true,
                        "approved in the terminal card",
                        GateStatus::Approved,
                    ))
                }
                Err(msg) => Ok(outcome(&req, false, &msg, GateStatus::Approving)),
            }
        }
    }
}

/// Edit-and-approve: the reviewer's text goes through [`crate::review::approve`], which writes the
/// plan file atomically only if it still holds what the reviewer started from (the submitted plan
/// when no base is given), pins the approved version and logs the decision.
fn write_edited_plan(
    roots: &Roots,
    req: &GateRequest,
    edited: &str,
    started_from: Option<&str>,
    mode: ApproveMode,
) -> Result<(), GateError> {
    let path = req
        .plan_path
        .as_deref()
        .ok_or_else(|| GateError::NoPlanFile { id: req.id.clone() })?;
    let path = Path::new(path);
    let current = match std::fs::read(path) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(source) => {
            return Err(GateError::Read {
                path: path.to_owned(),
                source,
            })
        }
    };
    let base = started_from.unwrap_or(&req.plan);
    if current.trim_end() != base.trim_end() {
        return Err(GateError::PlanConflict {
            path: path.to_owned(),
            current,
        });
    }
    if !path.exists() {
        // The agent never wrote the file (or it was removed): there is nothing to conflict with.
        crate::fsx::write_atomic(path, current.as_bytes())?;
    }
    crate::review::approve(
        roots,
        path,
        crate::review::ApproveRequest {
            edited: Some(edited.to_owned()),
            started_from: Some(crate::review::store::hash(current.as_bytes())),
            agent: Some(req.agent),
            session_id: Some(req.session_id.clone()),
            mode: Some(mode_name(mode).to_owned()),
        },
    )?;
    Ok(())
}

/// Records a decision taken through the gate in the review log (pinning the approved version).
/// A plan file that cannot be read is not a reason to keep the agent waiting: it is logged.
fn record_review(roots: &Roots, req: &GateRequest, decision: &GateDecision) {
    let Some(path) = req.plan_path.as_deref().map(Path::new) else {
        return;
    };
    let result = match decision {
        GateDecision::Approve { mode, .. } => crate::review::approve(
            roots,
            path,
            crate::review::ApproveRequest {
                agent: Some(req.agent),
                session_id: Some(req.session_id.clone()),
                mode: Some(mode_name(*mode).to_owned()),
                ..Default::default()
            },
        )
        .map(drop),
        GateDecision::Reject { feedback } => crate::review::reject(
            roots,
            path,
            feedback,
            Some(req.agent),
            Some(req.session_id.clone()),
        )
        .map(drop),
    };
    if let Err(e) = result {
        tracing::warn!(
            "the decision on {} was delivered but not recorded in the review log: {e}",
            path.display()
        );
    }
}

fn mode_name(mode: ApproveMode) -> &'static str {
    match mode {
        ApproveMode::Auto => "auto",
        ApproveMode::Manual => "manual",
    }
}

enum Key {
    /// A key name (`1`, `Enter`).
    Press(&'static str),
    /// Literal text (`send-keys -l`).
    Text(String),
}

/// The texts of the approval card's choices, per agent (fixtures READMEs).
fn card_markers(agent: Agent) -> &'static [&'static str] {
    match agent {
        Agent::Gemini => &[
            "automatically accept edits",
            "manually accept edits",
            "Type your feedback",
        ],
        _ => &[
            "Yes, and use auto mode",
            "manually approve edits",
            "Tell Claude what to change",
        ],
    }
}

fn card_visible(agent: Agent, screen: &str) -> bool {
    card_markers(agent)
        .iter()
        .filter(|m| screen.contains(**m))
        .count()
        >= 2
}

fn capture(req: &GateRequest, pane: &str) -> Result<String, String> {
    let out = tmux(req.tmux_socket.as_deref())
        .args(["capture-pane", "-p", "-t", pane])
        .output()
        .map_err(|e| format!("cannot run tmux: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "tmux pane {pane} is gone ({}); answer in the terminal",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn send(req: &GateRequest, pane: &str, key: &Key) -> Result<(), String> {
    let mut cmd = tmux(req.tmux_socket.as_deref());
    cmd.args(["send-keys", "-t", pane]);
    match key {
        Key::Press(k) => cmd.arg(k),
        Key::Text(t) => cmd.arg("-l").arg(t),
    };
    let out = cmd.output().map_err(|e| format!("cannot run tmux: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "tmux send-keys failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// Waits for `pred(screen)` up to `timeout`.
fn wait_screen(
    req: &GateRequest,
    pane: &str,
    timeout: Duration,
    pred: impl Fn(&str) -> bool,
) -> Result<bool, String> {
    let start = Instant::now();
    loop {
        if pred(&capture(req, pane)?) {
            return Ok(true);
        }
        if start.elapsed() >= timeout {
            return Ok(false);
        }
        std::thread::sleep(POLL);
    }
}

/// Answers the card in `pane` with `keys`, once it has been visible for `opts.settle`, and
/// confirms it closed. `retry`: send the keys once more if the card is still open.
fn answer_card(
    req: &GateRequest,
    pane: &str,
    keys: &[Key],
    retry: bool,
    opts: &DeliveryOptions,
) -> Result<(), String> {
    let agent = req.agent;
    if !wait_screen(req, pane, opts.card_timeout, |s| card_visible(agent, s))? {
        return Err(format!(
            "the approval card is not on screen in tmux pane {pane}; answer in the terminal"
        ));
    }
    // Visible since now; it must stay visible for the settle time.
    let seen = Instant::now();
    while seen.elapsed() < opts.settle {
        std::thread::sleep(POLL.min(opts.settle));
        if !card_visible(agent, &capture(req, pane)?) {
            return Err(
                "the approval card closed before Plandeck answered it: the terminal answered first"
                    .to_owned(),
            );
        }
    }
    for attempt in 0..(if retry { 2 } else { 1 }) {
        for (i, key) in keys.iter().enumerate() {
            if i > 0 {
                // Separate calls with a short gap, so text and Enter are not taken as one paste.
                std::thread::sleep(Duration::from_millis(100));
            }
            send(req, pane, key)?;
            if let Key::Text(text) = key {
                // Gemini CLI 0.61 takes an Enter read within 30 ms of the previous key as a
                // newline, not a submit, and it reads keys only between renders: a gap between
                // our calls is not enough. Once the text is drawn, every key of it has been read.
                let probe: String = text
                    .lines()
                    .next()
                    .unwrap_or("")
                    .trim()
                    .chars()
                    .take(20)
                    .collect();
                if !probe.is_empty()
                    && !wait_screen(req, pane, opts.close_timeout, |s| s.contains(&probe))?
                {
                    tracing::warn!(
                        pane,
                        "typed text not seen on screen; sending the next key anyway"
                    );
                }
            }
        }
        if wait_screen(req, pane, opts.close_timeout, |s| !card_visible(agent, s))? {
            return Ok(());
        }
        tracing::warn!(
            pane,
            attempt,
            "approval card still open after sending the keys"
        );
        // A final Enter taken as a newline leaves the typed answer in place: submit it again.
        if matches!(keys.last(), Some(Key::Press("Enter"))) && keys.len() > 1 {
            send(req, pane, &Key::Press("Enter"))?;
            if wait_screen(req, pane, opts.close_timeout, |s| !card_visible(agent, s))? {
                return Ok(());
            }
        }
    }
    Err(format!(
        "the approval card in tmux pane {pane} did not close; answer in the terminal"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn card_is_recognised_per_agent() {
        let claude = "Would you like to proceed?\n❯ 1. Yes, and use auto mode\n  2. Yes, manually approve edits\n  3. Tell Claude what to change";
        assert!(card_visible(Agent::Claude, claude));
        assert!(!card_visible(Agent::Gemini, claude));
        assert!(card_visible(Agent::Gemini, "1. Yes, automatically accept edits\n2. Yes, manually accept edits\n3. Type your feedback…"));
        assert!(!card_visible(Agent::Claude, "> implementing step 1"));
    }
}
