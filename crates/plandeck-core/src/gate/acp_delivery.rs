//! A decision on an ACP session's request (issue 36): the request waits in this store like every
//! other, is claimed like every other, and its decision is handed to the process hosting the
//! session (`hookPid`: the per-user server, or `plandeck agents check`), which answers the agent
//! with the option chosen here and closes the request with how the agent took it. One claim, one
//! outcome, one log line, as for a hook's request.
//!
//! The host's side (filing, waiting for the decision, closing) is `crate::acp::requests`.

use std::path::Path;
use std::time::Duration;

use super::claim::Claim;
use super::hook_wait::DecisionsWatch;
use super::store::{self, done_dir, hook_alive, read_request, save_open_request, write_decision};
use super::{
    DecisionOutcome, Delivery, DeliveryOptions, GateDecision, GateError, GateRequest, GateStatus,
    RequestKind,
};
use crate::config::Roots;

/// The most characters of a rejection's feedback (sent to the agent as its next prompt).
pub const MAX_FEEDBACK_CHARS: usize = 64 * 1024;

/// While the decider waits for the host to close the request: the closed requests' folder is
/// watched, so the close wakes it at once; it looks again this often all the same (a wake-up lost
/// to a full event queue costs at most this). Where the folder cannot be watched, it is polled
/// every [`POLL_UNWATCHED`].
const LOOK_EVERY: Duration = Duration::from_secs(1);
const POLL_UNWATCHED: Duration = Duration::from_millis(10);

pub(super) fn deliver(
    roots: &Roots,
    mut req: GateRequest,
    claim: Claim,
    decision: GateDecision,
    opts: &DeliveryOptions,
) -> Result<DecisionOutcome, GateError> {
    let Some(ask) = req.acp.clone() else {
        return Err(GateError::BadInput {
            message: format!("request {} is no ACP request", req.id),
        });
    };
    let (option, decision) = match decision {
        // An edited plan: approved with the agent's option, the edit sent as the next prompt
        // (ACP's answer carries no edited input).
        GateDecision::Approve {
            edited: Some(edited),
            mode,
            ..
        } => {
            if req.kind != RequestKind::Plan {
                return Err(GateError::BadInput {
                    message: "only a plan can be approved with an edit".to_owned(),
                });
            }
            if edited.trim().is_empty() {
                return Err(GateError::BadInput {
                    message: "the edited plan is empty".to_owned(),
                });
            }
            if edited.chars().count() > MAX_FEEDBACK_CHARS {
                return Err(GateError::BadInput {
                    message: format!(
                        "the edited plan is longer than {MAX_FEEDBACK_CHARS} characters; shorten it"
                    ),
                });
            }
            (
                ask.allow_option(opts.option.as_deref(), mode)?,
                GateDecision::Approve {
                    mode,
                    edited: Some(edited),
                    started_from: None,
                },
            )
        }
        GateDecision::Approve { mode, .. } => (
            ask.allow_option(opts.option.as_deref(), mode)?,
            GateDecision::Approve {
                mode,
                edited: None,
                started_from: None,
            },
        ),
        GateDecision::Reject { feedback } => {
            if feedback.chars().count() > MAX_FEEDBACK_CHARS {
                return Err(GateError::BadInput {
                    message: format!(
                        "the feedback is longer than {MAX_FEEDBACK_CHARS} characters; shorten it"
                    ),
                });
            }
            (
                ask.reject_option(opts.option.as_deref())?,
                GateDecision::Reject { feedback },
            )
        }
    };
    if !hook_alive(&req) {
        let _ = store::close(roots, &req, GateStatus::AgentGone);
        return Err(GateError::Closed {
            id: req.id,
            status: GateStatus::AgentGone,
        });
    }
    claim.record(&opts.by, &decision)?;
    // The option is on the request before the decision file tells the host to read it.
    if let Some(a) = req.acp.as_mut() {
        a.chosen = Some(option.clone());
    }
    req.decision = Some(decision.clone());
    // The host answers the agent and closes the request: wait for that, a while, woken when it
    // lands in the closed requests' folder (watched before the decision is handed over, so the
    // close is never missed between the two).
    let watch = DecisionsWatch::closed(roots);
    let handed =
        save_open_request(roots, &req).and_then(|()| write_decision(roots, &req.id, &decision));
    if let Err(e) = handed {
        claim.withdraw();
        return Err(e);
    }
    let done = done_dir(roots).join(format!("{}.json", req.id));
    let tick = if watch.watching() {
        LOOK_EVERY
    } else {
        POLL_UNWATCHED
    };
    let closed = watch.until(opts.hook_timeout, tick, || {
        read_request(&done).ok().flatten()
    });
    let agent = crate::visible::shown(&ask.agent_name);
    let (status, delivery, message) = match closed.map(|c| c.status) {
        Some(s @ (GateStatus::Approved | GateStatus::Rejected)) => (
            s,
            Delivery::Delivered,
            format!(
                "{}: {agent} answered with its option {:?}.",
                if s == GateStatus::Approved {
                    "Approved"
                } else {
                    "Rejected"
                },
                crate::visible::shown(&option)
            ),
        ),
        Some(s) => (
            s,
            Delivery::Failed,
            format!("{agent} ended before it took the decision: no outcome."),
        ),
        None => (
            GateStatus::Waiting,
            Delivery::Pending,
            format!("Sent to the session of {agent}, which answers the agent with its option."),
        ),
    };
    let edited = matches!(
        decision,
        GateDecision::Approve {
            edited: Some(_),
            ..
        }
    );
    let message = if edited && delivery != Delivery::Failed {
        format!(
            "{message} Your edited plan goes to it as the next prompt (ACP's answer carries only \
             the option, not an edited plan)."
        )
    } else {
        message
    };
    if delivery == Delivery::Failed {
        claim.withdraw();
    }
    log(
        roots, &req, &decision, &option, delivery, &message, &opts.by,
    );
    Ok(DecisionOutcome {
        request_id: req.id,
        delivered: delivery == Delivery::Delivered,
        message,
        status,
        delivery,
    })
}

/// The decision's line in the review log: the plan's hash for a plan, the option answered.
fn log(
    roots: &Roots,
    req: &GateRequest,
    decision: &GateDecision,
    option: &str,
    delivery: Delivery,
    message: &str,
    by: &str,
) {
    let ask = req.acp.as_ref();
    let what = format!(
        "acp:{}",
        ask.map(|a| a.agent_name.as_str()).unwrap_or("agent")
    );
    let plan_hash =
        (req.kind == RequestKind::Plan).then(|| crate::review::store::hash(req.plan.as_bytes()));
    let (verdict, feedback) = match decision {
        GateDecision::Approve { .. } => (crate::review::Verdict::Approved, None),
        GateDecision::Reject { feedback } => (
            crate::review::Verdict::Rejected,
            Some(feedback.clone()).filter(|f| !f.trim().is_empty()),
        ),
    };
    // Approved with an edit: the version approved is the edit.
    let approved = match decision {
        GateDecision::Approve {
            edited: Some(e), ..
        } => Some(crate::review::store::hash(e.as_bytes())),
        GateDecision::Approve { .. } => plan_hash.clone(),
        GateDecision::Reject { .. } => None,
    };
    let facts = crate::review::log::Facts {
        feedback,
        approved_hash: approved,
        content_hash: plan_hash,
        edited: matches!(
            decision,
            GateDecision::Approve {
                edited: Some(_),
                ..
            }
        ),
        mode: Some(format!("acp option {option}")),
    };
    let mut line = crate::review::Decision::record(
        crate::timestamp::now(),
        Path::new(&what),
        (req.agent, Some(req.session_id.clone())),
        verdict,
        facts,
    );
    line.request_id = Some(req.id.clone());
    line.delivery = Some(delivery);
    line.delivery_reason = (delivery != Delivery::Delivered).then(|| message.to_owned());
    line.decided_by = Some(by.to_owned());
    if let Err(e) = crate::review::decide::append_decision(roots, &line) {
        tracing::warn!(
            "the decision on request {} was not recorded in the review log: {e}",
            req.id
        );
    }
}
