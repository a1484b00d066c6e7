//! What the transcript readers (this module's siblings) pull out of a transcript for the plan
//! history ([`crate::history`], which names this module `history::events`): the raw facts, in
//! file order, kept in the store between scans so that a later scan folds the facts of the
//! appended bytes onto them (see `history::fold`).

use serde::{Deserialize, Serialize};

/// How an agent answered a plan submission, as the tool result says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Outcome {
    /// Approved; `text` is the approved text when the result carries it (it differs from the
    /// submitted one when the person edited the plan).
    Approved { text: Option<String> },
    /// Rejected with the words the agent got.
    Rejected { feedback: String },
    /// Closed with no answer (Esc in the terminal).
    Cancelled,
}

/// One fact of a transcript about plans.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "e", rename_all = "camelCase")]
pub enum PlanEvent {
    /// A plan submitted for approval (Claude `ExitPlanMode`, Gemini `exit_plan_mode`, a Codex
    /// `Plan` item). `text` is `None` when the record names only a file (Gemini).
    Submitted {
        call: String,
        at: Option<String>,
        text: Option<String>,
        path: Option<String>,
        /// A Codex turn id, to tie a `<proposed_plan>` fallback to its turn.
        turn: Option<String>,
    },
    /// The answer to a submission.
    Answered {
        call: String,
        at: Option<String>,
        outcome: Outcome,
        /// The result shows a hook's answer (a hook message, a hook decision record).
        hook: bool,
    },
    /// A teammate's plan went on to its agent team's lead (Claude Code agent teams: "Your plan has
    /// been submitted to the team lead for approval."): the lead decides it.
    SentToLead { call: String, at: Option<String> },
    /// The lead approved a teammate's plan sent to it (`<teammate-message
    /// teammate_id="team-lead">[Plan Approved] …` in the teammate's transcript).
    LeadApproved { call: String, at: Option<String> },
    /// A hook's deny recorded before the result (Claude `hook_permission_decision`).
    HookDenied { call: String },
    /// A plan's text carried into the conversation without a submission: `planContent` (clear
    /// context and implement) and `plan_file_reference` (after a compaction).
    Carried {
        at: Option<String>,
        text: String,
        path: Option<String>,
    },
    /// A plan file written by the agent (Gemini `write_file` into a plans folder).
    Wrote { path: String, text: String },
    /// A Codex turn began, in `mode` (`plan`, `default`).
    Turn {
        id: Option<String>,
        at: Option<String>,
        mode: String,
    },
    /// The person's message (Codex).
    Said { at: Option<String>, text: String },
    /// A `<proposed_plan>` block in a Codex assistant message (the fallback when no `Plan` item).
    Proposed { at: Option<String>, text: String },
    /// A Codex thread started from an approved plan file (`Read the approved plan at <path> …`).
    FreshThread {
        at: Option<String>,
        attachment: String,
    },
}

/// What a reader knows of one transcript, kept between scans.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PlanFacts {
    pub session_id: Option<String>,
    pub slug: Option<String>,
    pub cwd: Option<String>,
    /// Codex `session_meta.source` (`cli`, `exec`, `vscode`), Claude `entrypoint` (`cli`,
    /// `sdk-cli`, …).
    pub source: Option<String>,
    pub events: Vec<PlanEvent>,
    /// Lines that could not be read (not JSON, cut short, too long).
    pub unreadable: u32,
    /// Gemini: the CLI is re-writing old history (after a cancel or resume).
    pub replaying: bool,
}

impl PlanFacts {
    pub(crate) fn submitted(&self, call: &str) -> bool {
        self.events
            .iter()
            .any(|e| matches!(e, PlanEvent::Submitted { call: c, .. } if c == call))
    }

    pub(crate) fn answered(&self, call: &str) -> bool {
        self.events
            .iter()
            .any(|e| matches!(e, PlanEvent::Answered { call: c, .. } if c == call))
    }

    /// Calls submitted and not answered yet.
    pub(crate) fn open_calls(&self) -> impl Iterator<Item = &str> {
        self.events.iter().filter_map(move |e| match e {
            PlanEvent::Submitted { call, .. } if !self.answered(call) => Some(call.as_str()),
            _ => None,
        })
    }

    pub(crate) fn set_once(slot: &mut Option<String>, v: Option<&str>) {
        if slot.is_none() {
            if let Some(v) = v.filter(|v| !v.is_empty()) {
                *slot = Some(v.to_owned());
            }
        }
    }
}
