//! Delivery by hook answer: a decision handed to the agent's waiting hook (Claude Code's), which
//! answers with it (`deny` with the feedback, `allow` with the plan). Nothing is ever typed on this
//! path: whether the agent took the answer, or the person answered the card first, is read from
//! the request's closing and the transcript.

use std::path::Path;
use std::time::{Duration, Instant};

use super::reached::{whom, Reached};
use super::store::{self, close, hook_alive, save_open_request, write_decision};
use super::transcript::{Answer, Follower};
use super::{Delivery, GateDecision, GateError, GateRequest, GateStatus};
use crate::config::Roots;

/// What became of a decision handed to the waiting hook.
enum HookTook {
    /// The hook took it (its decision file went) and answered; the request is still open.
    Taken,
    /// The request closed first (by the hook or another closer), as it says.
    Closed(GateStatus),
    /// Not taken within the time (the hook may be gone).
    NotYet,
}

/// Waits (at most `timeout`) for the waiting hook to take the decision on `req`.
fn hook_takes(roots: &Roots, req: &GateRequest, timeout: Duration) -> HookTook {
    let decision = store::decisions_dir(roots).join(format!("{}.json", req.id));
    let open = store::requests_dir(roots).join(format!("{}.json", req.id));
    let start = Instant::now();
    loop {
        // The closer renames the open file before the decision file goes: look at it first.
        let gone = !hook_alive(req);
        if !open.exists() {
            return HookTook::Closed(closed_status(roots, &req.id, timeout));
        }
        if !decision.exists() {
            return HookTook::Taken;
        }
        // A hook gone without taking it never will (looked at once more after it went).
        if gone || start.elapsed() >= timeout {
            return HookTook::NotYet;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// The status of request `id` once closed: the closer renames it away first, then writes the
/// closed record (waited for, at most `timeout`).
fn closed_status(roots: &Roots, id: &str, timeout: Duration) -> GateStatus {
    let start = Instant::now();
    loop {
        match store::request(roots, id) {
            Ok(r) if r.status != GateStatus::Waiting && r.status != GateStatus::Approving => {
                return r.status
            }
            _ if start.elapsed() >= timeout => return GateStatus::Waiting,
            _ => std::thread::sleep(Duration::from_millis(5)),
        }
    }
}

/// An approval given to the waiting hook. Once the hook took it, the transcript says whether
/// Claude Code did (the card closes 80–200 ms after the hook answers) or the person answered the
/// card first (then the hook's answer was ignored): the request closes as that, once. Nothing is
/// ever typed: a key sent after the hook's approval would answer the agent's next card.
pub(super) fn approved_through_hook(
    roots: &Roots,
    req: &GateRequest,
    hook_timeout: Duration,
    close_timeout: Duration,
) -> Reached {
    let taken = hook_takes(roots, req, hook_timeout);
    if let HookTook::Closed(status) = taken {
        return reached_through_hook(req, status);
    }
    if let HookTook::NotYet = taken {
        if !hook_alive(req) {
            // The hook went away without it (nothing reached the agent): taken back, so the
            // request waits again and a new decision answers the card itself.
            withdraw_decision(roots, &req.id);
            let open = store::requests_dir(roots).join(format!("{}.json", req.id));
            let mut back = req.clone();
            back.status = GateStatus::Waiting;
            back.decision = None;
            back.decided_by = None;
            back.through_hook = false;
            if open.exists() {
                let _ = save_open_request(roots, &back);
            }
            return Reached::new(
                Delivery::Failed,
                "the hook went away before it took the approval; nothing reached the agent: decide again, or answer in the terminal",
                GateStatus::Waiting,
            );
        }
        return Reached::new(
            Delivery::Pending,
            "approval filed; the hook has not taken it yet",
            GateStatus::Approving,
        );
    }
    let Some(transcript) = &req.transcript_path else {
        // Nothing will tell: the hook's answer is what Claude Code takes.
        let status = match close(roots, req, GateStatus::Approved) {
            Ok(true) => GateStatus::Approved,
            _ => closed_status(roots, &req.id, close_timeout),
        };
        return reached_through_hook(req, status);
    };
    let mut follower = Follower::new(
        transcript.into(),
        req.agent,
        req.transcript_offset,
        req.tool_use_id.clone(),
    );
    let open = store::requests_dir(roots).join(format!("{}.json", req.id));
    let start = Instant::now();
    loop {
        if follower.poll() {
            let by = follower.answer().unwrap_or(Answer::UNKNOWN);
            let mut closing = req.clone();
            closing.tool_use_id = follower
                .tool_use_id()
                .map(str::to_owned)
                .or(closing.tool_use_id);
            let status = store::status_of_answer(req, by);
            let status = match close(roots, &closing, status) {
                Ok(true) => status,
                _ => closed_status(roots, &req.id, close_timeout),
            };
            if status == GateStatus::AnsweredInTerminal && by.accepted == Some(false) {
                return Reached::new(
                    Delivery::AnsweredInTerminal,
                    "another answer refused the plan first (the person on the card, or another hook's deny); Plandeck's approval was not taken",
                    status,
                );
            }
            return reached_through_hook(req, status);
        }
        if !open.exists() {
            // Closed meanwhile (the liveness tick read the same answer).
            return reached_through_hook(req, closed_status(roots, &req.id, close_timeout));
        }
        if start.elapsed() >= close_timeout {
            return Reached::new(
                Delivery::Pending,
                format!(
                    "the approval was sent to {} through its hook, and it has not taken it yet: look at the terminal",
                    whom_through_hook(req)
                ),
                GateStatus::Approving,
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Who an approval through the hook went to: "Claude Code in tmux pane %3", "the headless Claude
/// Code".
fn whom_through_hook(req: &GateRequest) -> String {
    if req.headless {
        format!("the headless {}", req.agent.display_name())
    } else {
        whom(req)
    }
}

/// What an approval given to the hook achieved, by how its request closed.
fn reached_through_hook(req: &GateRequest, status: GateStatus) -> Reached {
    match status {
        GateStatus::Approved => Reached::new(
            Delivery::Delivered,
            format!("Approved: sent to {} through its hook.", whom_through_hook(req)),
            GateStatus::Approved,
        ),
        GateStatus::AnsweredInTerminal => Reached::new(
            Delivery::AnsweredInTerminal,
            "the approval card was answered in the terminal first; Plandeck's approval was not taken",
            GateStatus::AnsweredInTerminal,
        ),
        GateStatus::AgentGone => Reached::new(
            Delivery::Failed,
            "the agent went away before it took the approval",
            GateStatus::AgentGone,
        ),
        other => Reached::new(
            Delivery::Failed,
            format!("the request closed ({other:?}) before the hook took the approval"),
            other,
        ),
    }
}

/// Waits (at most `timeout`) for the waiting hook to take its decision: it renames `file` away.
/// Whether it did.
fn hook_took(file: &Path, timeout: Duration) -> bool {
    let start = Instant::now();
    while file.exists() && start.elapsed() < timeout {
        std::thread::sleep(Duration::from_millis(5));
    }
    !file.exists()
}

/// Takes back a decision a card did not take, so the hook never reads it as the answer.
pub(super) fn withdraw_decision(roots: &Roots, id: &str) {
    let _ = std::fs::remove_file(store::decisions_dir(roots).join(format!("{id}.json")));
}

/// A Claude hook still waits: it takes the rejection itself (deny, with the feedback).
pub(super) fn reject_through_hook(
    roots: &Roots,
    req: &GateRequest,
    decision: &GateDecision,
    timeout: Duration,
) -> Result<Reached, GateError> {
    write_decision(roots, &req.id, decision)?;
    let file = store::requests_dir(roots).join(format!("{}.json", req.id));
    if !hook_took(&file, timeout) {
        return Ok(Reached::new(
            Delivery::Pending,
            "rejection filed; the hook has not taken it yet",
            GateStatus::Waiting,
        ));
    }
    // The hook closes by a rename, then writes the closed record: wait for it.
    let start = Instant::now();
    let mut closed = store::request(roots, &req.id);
    while closed.is_err() && start.elapsed() < timeout {
        std::thread::sleep(Duration::from_millis(5));
        closed = store::request(roots, &req.id);
    }
    Ok(match closed.map(|r| r.status) {
        Ok(GateStatus::Rejected) => Reached::new(
            Delivery::Delivered,
            format!("Rejected: your feedback was sent to {}.", whom(req)),
            GateStatus::Rejected,
        ),
        Ok(status) => Reached::new(
            Delivery::Failed,
            format!("the request closed ({status:?}) before the hook took the rejection"),
            status,
        ),
        Err(e) => Reached::new(Delivery::Failed, e.to_string(), GateStatus::Waiting),
    })
}
