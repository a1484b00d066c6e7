//! One decision per plan: where a decision taken on a plan (the window's plan view, `plandeck
//! approve|reject <plan>`) goes.
//!
//! - When an agent waits in its terminal for this plan (a gate request for the same plan file,
//!   with the version the reviewer read), the decision answers that request through the gate
//!   ([`crate::gate::decide_with`]): it reaches the agent, and the outcome says which agent and
//!   which tmux pane.
//! - Otherwise it is recorded only (the decision log, the approved version pinned) and the outcome
//!   says so: no agent is waiting for this plan.
//! - An approval of the version already approved, with nothing to add, records nothing new.
//! - An "edit" equal to the plan is a plain approval ("No changes: approved as is"); the plan file
//!   is written only for a real change, and the outcome says whether it was ([`PlanOutcome::written`]
//!   is read back from the file, not assumed).
//! - A record-only decision that wrote no edit can be undone ([`undo`]): a revocation line is
//!   appended (nothing is deleted), and the comments it carried are unsent again.
//!
//! The window and the CLI call [`decide_plan`], so they cannot diverge.

use std::path::Path;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::agents::Agent;
use crate::config::Roots;
use crate::gate::{self, ApproveMode, DeliveryOptions, GateDecision, GateRequest};
use crate::ipc::IpcError;
use crate::review::log::{self, Decision, Delivery, Verdict};
use crate::review::{store, ApproveRequest, ReviewError};
use crate::review::{Approvals, ReviewState};

/// What the reviewer decided on a plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", tag = "decision")]
pub enum PlanDecision {
    #[serde(rename_all = "camelCase")]
    Approve {
        /// For a waiting agent: auto-accept its edits (the default) or review each.
        #[serde(default)]
        mode: Option<ApproveMode>,
        /// The reviewer's edit of the plan; `None` approves the plan as read.
        #[serde(default)]
        edited: Option<String>,
    },
    #[serde(rename_all = "camelCase")]
    Reject { feedback: String },
}

/// Where a decision went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum Route {
    /// An agent was waiting for this version of the plan: the decision went to it through the
    /// gate (`delivery` says whether it got there).
    Agent,
    /// No agent was waiting for this plan: the decision is in the log only.
    RecordedOnly,
    /// The version read was approved already and nothing was added: nothing new was recorded.
    AlreadyApproved,
}

/// What [`decide_plan`] did, for a person and for scripts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PlanOutcome {
    pub route: Route,
    pub verdict: Verdict,
    /// What happened, in a sentence: "Approved: sent to Claude Code in tmux pane %3." or
    /// "Recorded only: no agent is waiting for this plan. …".
    pub message: String,
    /// The agent the decision went to (route `agent`).
    pub agent: Option<Agent>,
    /// Its tmux pane, when known.
    pub tmux_pane: Option<String>,
    /// The gate request answered (route `agent`).
    pub request_id: Option<String>,
    /// How it reached the agent (route `agent`).
    pub delivery: Option<Delivery>,
    /// The plan file now holds another text than the version read (the edit, or the reviewer
    /// notes), read back from the file after the decision.
    pub written: bool,
    /// An edit was given, but it was the plan as read: approved as is, nothing written.
    pub unchanged_edit: bool,
    /// The log line of this decision (for `alreadyApproved`: the approval in force), when known.
    pub decision: Option<Decision>,
    /// The id to pass to [`undo`]: set for a record-only decision that wrote no edit (an
    /// approval or a rejection; the comments it carried are unsent again on undo).
    pub undo_id: Option<String>,
}

/// How [`decide_plan`] decides: carry the plan's open comments (the default), and the gate's
/// delivery timing.
#[derive(Debug, Clone)]
pub struct RouteOptions {
    pub comments: bool,
    pub delivery: DeliveryOptions,
}

impl Default for RouteOptions {
    fn default() -> Self {
        Self {
            comments: true,
            delivery: DeliveryOptions::default(),
        }
    }
}

/// The gate request waiting for `plan_path` with the version whose text is `read`, if any; else
/// the agent waiting with another version of it (for the message).
fn waiting_for(
    roots: &Roots,
    plan_path: &Path,
    read: &str,
) -> (Option<GateRequest>, Option<GateRequest>) {
    let key = store::plan_key(plan_path);
    let read_hash = store::hash(read.as_bytes());
    let mut same = None;
    let mut other = None;
    // Oldest first: the newest request for the plan wins.
    for req in gate::pending(roots) {
        let Some(p) = req.plan_path.as_deref() else {
            continue;
        };
        if Path::new(p) != plan_path && store::plan_key(Path::new(p)) != key {
            continue;
        }
        let same_version =
            store::hash(req.plan.as_bytes()) == read_hash || req.plan.trim_end() == read.trim_end();
        if same_version {
            same = Some(req);
        } else {
            other = Some(req);
        }
    }
    (same, other)
}

fn pane_words(agent: Agent, pane: Option<&str>) -> String {
    match pane {
        Some(p) => format!("{} in tmux pane {p}", agent.display_name()),
        None => agent.display_name().to_owned(),
    }
}

/// Decides on the plan at `plan_path`, whose version the reviewer read is `seen` (a content
/// hash): through the gate when an agent waits for that version, else recorded only (see the
/// module docs). Errors as the review and the gate refuse: `planChanged` when the file no longer
/// holds `seen` (a plain decision), `conflict` for an edit of a version that moved on, `badInput`
/// for a rejection without feedback or comments, `conflict` when the agent's request closed
/// before the decision reached it (nothing decided).
pub fn decide_plan(
    roots: &Roots,
    plan_path: &Path,
    seen: &str,
    decision: PlanDecision,
    opts: &RouteOptions,
) -> Result<PlanOutcome, IpcError> {
    store::version_path(&roots.data, seen)?;
    let current = store::read_plan(plan_path)?;
    let current_hash = store::hash(current.as_bytes());
    // An "edit" that is the plan as read approves it as is: nothing to write.
    let (decision, unchanged_edit) = match decision {
        PlanDecision::Approve {
            mode,
            edited: Some(text),
        } if current_hash == seen && text == current => {
            (PlanDecision::Approve { mode, edited: None }, true)
        }
        other => (other, false),
    };
    let verdict = match &decision {
        PlanDecision::Approve { .. } => Verdict::Approved,
        PlanDecision::Reject { .. } => Verdict::Rejected,
    };
    // Only the version read is decided: when the file moved on, the record path below refuses
    // (planChanged / conflict) and nothing goes to any agent.
    let (waiting, other) = if current_hash == seen {
        waiting_for(roots, plan_path, &current)
    } else {
        (None, None)
    };

    if let Some(req) = waiting {
        let gate_decision = match decision {
            PlanDecision::Approve { mode, edited } => GateDecision::Approve {
                mode: mode.unwrap_or(ApproveMode::Auto),
                started_from: edited.as_ref().map(|_| current.clone()),
                edited,
            },
            PlanDecision::Reject { feedback } => GateDecision::Reject { feedback },
        };
        // The gate checks again, under its claim, that the plan is still the version read.
        let delivery = DeliveryOptions {
            comments: opts.comments,
            seen_hash: Some(seen.to_owned()),
            ..opts.delivery.clone()
        };
        let out = gate::decide_with(roots, &req.id, gate_decision, &delivery)?;
        let who = pane_words(req.agent, req.tmux_pane.as_deref());
        let did = match verdict {
            Verdict::Approved => "Approved",
            Verdict::Rejected => "Rejected",
        };
        let message = match out.delivery {
            Delivery::Delivered => match verdict {
                // The gate says how: "…in tmux pane %3." or "…through its hook."
                Verdict::Approved => out.message.clone(),
                Verdict::Rejected => format!("Rejected: your feedback was sent to {who}."),
            },
            Delivery::Pending => format!("{did} for {who}, not delivered yet: {}.", out.message),
            Delivery::AnsweredInTerminal => {
                format!("Not delivered: {}. Nothing reached {who}.", out.message)
            }
            Delivery::Failed => format!("Not delivered to {who}: {}.", out.message),
        };
        let decision = log::read_raw(&roots.data).ok().and_then(|all| {
            all.into_iter()
                .rev()
                .find(|d| d.request_id.as_deref() == Some(req.id.as_str()))
        });
        return Ok(PlanOutcome {
            route: Route::Agent,
            verdict,
            message: prefixed(unchanged_edit, message),
            agent: Some(req.agent),
            tmux_pane: req.tmux_pane.clone(),
            request_id: Some(out.request_id),
            delivery: Some(out.delivery),
            written: file_moved_on(plan_path, seen),
            unchanged_edit,
            decision,
            undo_id: None,
        });
    }

    let nobody = match &other {
        Some(req) => format!(
            "Recorded only: {} waits with another version of this plan; decide that one in the waiting queue.",
            pane_words(req.agent, req.tmux_pane.as_deref())
        ),
        None => "Recorded only: no agent is waiting for this plan.".to_owned(),
    };

    if let PlanDecision::Approve { edited: None, .. } = &decision {
        if current_hash == seen {
            if let Some(standing) = already_approved(roots, plan_path, &current, opts.comments)? {
                return Ok(PlanOutcome {
                    route: Route::AlreadyApproved,
                    verdict,
                    message: prefixed(
                        unchanged_edit,
                        format!(
                            "Already approved: this version was approved {}; nothing new was recorded.",
                            crate::timestamp::format(standing.time)
                        ),
                    ),
                    agent: None,
                    tmux_pane: None,
                    request_id: None,
                    delivery: None,
                    written: false,
                    unchanged_edit,
                    decision: Some(standing),
                    undo_id: None,
                });
            }
        }
    }

    let recorded = match decision {
        PlanDecision::Approve { edited, .. } => {
            let started_from = Some(seen.to_owned());
            crate::comments::approve(
                roots,
                plan_path,
                ApproveRequest {
                    edited,
                    started_from,
                    ..Default::default()
                },
                opts.comments,
                Some(&opts.delivery.by),
            )?
        }
        PlanDecision::Reject { feedback } => crate::comments::reject(
            roots,
            plan_path,
            &feedback,
            (None, None),
            Some(seen),
            opts.comments,
            Some(&opts.delivery.by),
        )?,
    };
    let written = file_moved_on(plan_path, seen);
    let what = match (verdict, written, recorded.comments.len()) {
        (Verdict::Rejected, _, 0) => "Rejected with your feedback.".to_owned(),
        (Verdict::Rejected, _, n) => {
            format!(
                "Rejected with your feedback and {}.",
                crate::words::count(n as u64, "comment", "comments")
            )
        }
        (Verdict::Approved, true, 0) => {
            "Approved; your edit was written to the plan file.".to_owned()
        }
        (Verdict::Approved, true, n) => format!(
            "Approved; the plan file now holds your text with {}.",
            crate::words::count(n as u64, "reviewer note", "reviewer notes")
        ),
        (Verdict::Approved, false, _) => "Approved; this version is pinned.".to_owned(),
    };
    // Undone as long as it wrote nothing: an approval or a rejection, with comments or without.
    let undo_id = recorded.id.clone().filter(|_| !written);
    Ok(PlanOutcome {
        route: Route::RecordedOnly,
        verdict,
        message: prefixed(unchanged_edit, format!("{nobody} {what}")),
        agent: None,
        tmux_pane: None,
        request_id: None,
        delivery: None,
        written,
        unchanged_edit,
        decision: Some(recorded),
        undo_id,
    })
}

fn prefixed(unchanged_edit: bool, message: String) -> String {
    if unchanged_edit {
        format!("No changes: approved as is. {message}")
    } else {
        message
    }
}

/// Whether the plan file holds another version than `seen` now (read back, never assumed).
fn file_moved_on(plan_path: &Path, seen: &str) -> bool {
    store::read_plan_bytes(plan_path).is_ok_and(|b| store::hash(&b) != seen)
}

/// The approval in force when the plan's last decision approved exactly `current`, and an
/// approval now would add nothing (no open comment to carry).
fn already_approved(
    roots: &Roots,
    plan_path: &Path,
    current: &str,
    comments: bool,
) -> Result<Option<Decision>, IpcError> {
    let approvals = Approvals::load(&roots.data);
    if approvals.state(plan_path, current.as_bytes()) != ReviewState::Approved {
        return Ok(None);
    }
    if comments && !crate::comments::open_for_decision(&roots.data, plan_path, current)?.is_empty()
    {
        return Ok(None);
    }
    let hash = store::hash(current.as_bytes());
    Ok(crate::review::decide::log(roots, Some(plan_path))?
        .into_iter()
        .find(|d| d.approved_hash.as_deref() == Some(hash.as_str())))
}

/// Undoes the record-only decision `id` on the plan at `plan_path`: appends a line revoking it
/// (the log stays append-only) and returns that line; the plan then stands as it did before.
/// Refused (nothing written) unless `id` is the plan's last decision in force, was recorded only
/// (it reached no agent), and wrote no edit; comments it carried (to nobody) are unsent again.
pub fn undo(roots: &Roots, plan_path: &Path, id: &str) -> Result<Decision, ReviewError> {
    let key = store::plan_key(plan_path);
    let key_text = key.to_string_lossy();
    let _lock = store::lock(&roots.data)?;
    let in_force = log::read_all(&roots.data)?;
    let last = in_force
        .iter()
        .rev()
        .find(|d| d.plan_path == key_text || Path::new(&d.plan_path) == plan_path);
    let refuse = |reason: &str| ReviewError::CannotUndo {
        reason: reason.to_owned(),
    };
    let Some(last) = last.filter(|d| d.id.as_deref() == Some(id)) else {
        return Err(if in_force.iter().any(|d| d.id.as_deref() == Some(id)) {
            refuse("a later decision on this plan stands; nothing was undone")
        } else {
            refuse("no such decision in force on this plan (already undone?); nothing was undone")
        });
    };
    if last.request_id.is_some() {
        return Err(refuse(
            "this decision went to the agent; it cannot be taken back from here",
        ));
    }
    if last.edited {
        return Err(refuse(
            "this decision wrote the plan file; it cannot be undone",
        ));
    }
    let line = last
        .revocation(crate::timestamp::now_seconds())
        .ok_or_else(|| refuse("this decision has no id"))?;
    // The comments it carried reached nobody: they are open and unsent again.
    let (ids, at) = (last.comments.clone(), crate::timestamp::format(last.time));
    log::append(&roots.data, &line)?;
    drop(_lock);
    if let Err(e) = crate::comments::unmark_sent(&roots.data, plan_path, &ids, &at) {
        tracing::warn!("the comments of an undone decision stay marked sent: {e}");
    }
    Ok(line)
}

/// TypeScript declarations of the types this module sends over IPC.
pub(crate) fn ts_declarations() -> Vec<String> {
    use ts_rs::TS;
    vec![
        <PlanDecision as TS>::decl(),
        <Route as TS>::decl(),
        <PlanOutcome as TS>::decl(),
    ]
}
