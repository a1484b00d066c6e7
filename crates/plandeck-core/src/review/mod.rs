//! Reviews: the versions of each plan Plandeck has seen, which one was approved, and the
//! append-only decision log.

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
}
