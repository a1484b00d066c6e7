//! Reviews: the versions of each plan Plandeck has seen, which one was approved, and the
//! append-only decision log. (Being built: see issue 4.)

use std::path::Path;

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

/// The last decision on every plan, loaded once (e.g. per listing) so that the state of each plan
/// is a lookup, not a read of the log.
#[derive(Debug, Clone, Default)]
pub struct Approvals {}

impl Approvals {
    /// Loads what the store in `data_dir` knows. A missing or damaged store gives no decisions.
    pub fn load(_data_dir: &Path) -> Self {
        Self {}
    }

    /// The review state of the plan at `plan_path` whose file now holds `content`.
    pub fn state(&self, _plan_path: &Path, _content: &[u8]) -> ReviewState {
        ReviewState::Unreviewed
    }
}

/// TypeScript declarations of the types this module sends over IPC.
pub(crate) fn ts_declarations() -> Vec<String> {
    vec![<ReviewState as TS>::decl()]
}
