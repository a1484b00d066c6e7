//! Where each plan stands: the last decision on every plan, loaded once, so a listing of
//! thousands of plans costs one read of the log plus at most one hash per plan.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::log::{self, Verdict};
use super::store;

pub use crate::plans::{DecidedIn, ReviewState};

#[derive(Debug, Clone)]
enum Last {
    Approved { hash: String },
    Rejected,
}

/// The last decision on every plan, loaded once (e.g. per listing) so that the state of each plan
/// is a lookup, not a read of the log.
#[derive(Debug, Clone, Default)]
pub struct Approvals {
    last: HashMap<PathBuf, Last>,
    /// Per session, the approval mode ("auto", "manual") of its last decision taken through the
    /// gate that reached the agent (`None` when that decision was a rejection).
    session_mode: HashMap<String, Option<String>>,
}

impl Approvals {
    /// Loads what the store in `data_dir` knows. A missing or damaged store gives no decisions.
    pub fn load(data_dir: &Path) -> Self {
        let decisions = match log::read_all(data_dir) {
            Ok(d) => d,
            Err(e) => {
                tracing::warn!(error = %e, "cannot read the decision log; every plan shows as unreviewed");
                Vec::new()
            }
        };
        let mut last = HashMap::new();
        let mut session_mode = HashMap::new();
        for d in decisions {
            // A decision that never reached the agent (refused, failed, the terminal answered
            // first, or still waiting for the terminal) did not change where the plan stands.
            if !d.stands() {
                continue;
            }
            if let (Some(session), Some(log::Delivery::Delivered)) = (&d.session_id, d.delivery) {
                let mode = (d.decision == Verdict::Approved)
                    .then(|| d.mode.clone())
                    .flatten();
                session_mode.insert(session.clone(), mode);
            }
            let entry = match (d.decision, d.approved_hash) {
                (Verdict::Approved, Some(hash)) => Last::Approved { hash },
                (Verdict::Approved, None) => continue,
                (Verdict::Rejected, _) => Last::Rejected,
            };
            last.insert(PathBuf::from(d.plan_path), entry);
        }
        Self { last, session_mode }
    }

    /// The approval mode ("auto" or "manual") of session `session_id`'s last decision taken in
    /// Plandeck that reached the agent, when that decision approved its plan.
    pub fn approved_mode(&self, session_id: &str) -> Option<&str> {
        self.session_mode.get(session_id)?.as_deref()
    }

    /// The review state of the plan at `plan_path` whose file now holds `content`.
    pub fn state(&self, plan_path: &Path, content: &[u8]) -> ReviewState {
        if self.last.is_empty() {
            return ReviewState::Unreviewed;
        }
        // Decisions are keyed by canonical path; try the path as given first to spare a syscall.
        let found = self
            .last
            .get(plan_path)
            .or_else(|| self.last.get(&store::plan_key(plan_path)));
        match found {
            None => ReviewState::Unreviewed,
            Some(Last::Rejected) => ReviewState::Rejected,
            Some(Last::Approved { hash }) if *hash == store::hash(content) => ReviewState::Approved,
            Some(Last::Approved { .. }) => ReviewState::Changed,
        }
    }

    /// Whether Plandeck has a standing decision on the plan at `plan_path`.
    pub fn decided(&self, plan_path: &Path) -> bool {
        !self.last.is_empty()
            && (self.last.contains_key(plan_path)
                || self.last.contains_key(&store::plan_key(plan_path)))
    }

    /// The approved version's hash of the plan at `plan_path`, if its last decision approved it.
    pub fn approved_hash(&self, plan_path: &Path) -> Option<&str> {
        let found = self
            .last
            .get(plan_path)
            .or_else(|| self.last.get(&store::plan_key(plan_path)));
        match found {
            Some(Last::Approved { hash }) => Some(hash),
            _ => None,
        }
    }
}
