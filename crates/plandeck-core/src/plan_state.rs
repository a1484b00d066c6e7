//! Where a plan stands: the states a plan can be in, and where a decision on it was made. Shared
//! by the plans list, the sessions (a session's plan) and the review store; settled from every
//! source by [`crate::standing`].

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Where a plan stands with its reviewer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum ReviewState {
    /// No decision was ever recorded for this plan.
    Unreviewed,
    /// The file holds exactly the approved version.
    Approved,
    /// Approved once, but the file now differs from the approved version.
    Changed,
    /// The last decision was a rejection.
    Rejected,
    /// An agent waits for a decision on this plan right now (a gate request is open for it).
    Waiting,
}

/// Where a decision was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum DecidedIn {
    Plandeck,
    Terminal,
    Hook,
    Headless,
    /// By the lead of an agent team, on its teammate's plan (Claude Code approves it by itself).
    Lead,
}
