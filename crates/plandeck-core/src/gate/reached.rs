//! What delivering a decision achieved, before it becomes a [`super::DecisionOutcome`], and whom
//! it went to, for a person.

use super::{Delivery, GateRequest, GateStatus};

/// Who a delivered decision went to, for a person: "Claude Code in tmux pane %3".
pub(crate) fn whom(req: &GateRequest) -> String {
    match &req.tmux_pane {
        Some(p) => format!("{} in tmux pane {p}", req.agent.display_name()),
        None => req.agent.display_name().to_owned(),
    }
}

/// What delivery achieved, before it becomes a [`DecisionOutcome`].
pub(super) struct Reached {
    pub delivery: Delivery,
    pub message: String,
    pub status: GateStatus,
}

impl Reached {
    pub fn new(delivery: Delivery, message: impl Into<String>, status: GateStatus) -> Self {
        Self {
            delivery,
            message: message.into(),
            status,
        }
    }
}
