//! A decision claims its request before anything is written or typed, so that exactly one
//! decider (the window, `plandeck approve|reject`, a script) ever delivers a decision for it.
//!
//! Two files per request under `<data>/gate/claims/`:
//! - `<id>.lock`: an exclusive `flock` held for as long as a decider works on the request. The
//!   kernel gives it to one open file at a time, across processes and threads alike, and takes it
//!   back when its holder exits or crashes, so a crashed decider never blocks the request.
//! - `<id>.json`: who decided, written (atomically) once the lock is held and kept while the
//!   decision stands (delivered, or pending in the hook or the terminal). A later decider reads it
//!   and is told "already decided by …"; a decision that did not go (refused before a key was
//!   typed, or answered in the terminal first) takes it away again, so the person can decide anew.
//!
//! The request's own state is read again only once the lock is held: what another decider did
//! before is then on disk.

use std::fs;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::files::{self, read_json, write_json};
use super::{GateDecision, GateError};
use crate::config::Roots;
use crate::durable;

pub(crate) fn claims_dir(roots: &Roots) -> PathBuf {
    files::gate_dir(roots).join("claims")
}

fn lock_path(roots: &Roots, id: &str) -> PathBuf {
    claims_dir(roots).join(format!("{id}.lock"))
}

fn info_path(roots: &Roots, id: &str) -> PathBuf {
    claims_dir(roots).join(format!("{id}.json"))
}

/// Who took a decision on a request, and which.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ClaimInfo {
    /// The decider, for a person: "the Plandeck window", "`plandeck approve` (pid 4242)".
    pub by: String,
    /// "approve" or "reject".
    pub decision: String,
    #[serde(with = "time::serde::rfc3339")]
    pub at: time::OffsetDateTime,
}

impl ClaimInfo {
    /// "approve by the Plandeck window at 18:42:03 UTC".
    pub fn describe(&self) -> String {
        let t = self.at;
        format!(
            "{} by {} at {:02}:{:02}:{:02} UTC",
            self.decision,
            self.by,
            t.hour(),
            t.minute(),
            t.second()
        )
    }
}

/// Held while one decider works on a request; the lock goes with it (or with the process).
#[derive(Debug)]
pub(crate) struct Claim {
    _lock: fs::File,
    info: PathBuf,
}

impl Drop for Claim {
    fn drop(&mut self) {
        // Unlocked explicitly: a child process forked meanwhile (tmux, git: the window and the
        // CLI start many) shares the open file until it execs, and would hold the lock a moment
        // longer if it went only with the file.
        let _ = self._lock.unlock();
    }
}

impl Claim {
    /// Records who decided (kept after the claim is dropped, until the decision is withdrawn).
    pub fn record(&self, by: &str, decision: &GateDecision) -> Result<(), GateError> {
        let info = ClaimInfo {
            by: by.to_owned(),
            decision: match decision {
                GateDecision::Approve { .. } => "approve".to_owned(),
                GateDecision::Reject { .. } => "reject".to_owned(),
            },
            at: crate::timestamp::now_seconds(),
        };
        write_json(&self.info, &info)
    }

    /// The decision did not go (nothing reached the agent): another one may be taken.
    pub fn withdraw(&self) {
        let _ = fs::remove_file(&self.info);
    }
}

/// Claims request `id` for one decider. `Err(AlreadyDeciding)` while another decider holds it;
/// `Err(AlreadyDecided)` when a decision taken before still stands.
pub(crate) fn take(roots: &Roots, id: &str) -> Result<Claim, GateError> {
    files::check_id(id)?;
    let lock = durable::open_private(&lock_path(roots, id))?;
    match lock.try_lock() {
        Ok(()) => {}
        Err(fs::TryLockError::WouldBlock) => {
            return Err(GateError::AlreadyDeciding {
                id: id.to_owned(),
                by: decided(roots, id)
                    .map(|i| i.describe())
                    .unwrap_or_else(|| "another decider".to_owned()),
            })
        }
        Err(fs::TryLockError::Error(source)) => {
            return Err(GateError::Read {
                path: lock_path(roots, id),
                source,
            })
        }
    }
    if let Some(info) = decided(roots, id) {
        return Err(GateError::AlreadyDecided {
            id: id.to_owned(),
            by: info.describe(),
        });
    }
    Ok(Claim {
        _lock: lock,
        info: info_path(roots, id),
    })
}

/// Who decided request `id`, while that decision stands.
pub(crate) fn decided(roots: &Roots, id: &str) -> Option<ClaimInfo> {
    read_json(&info_path(roots, id)).ok().flatten()
}

/// Once a request is closed its claim files can go: every later decider finds it closed. The
/// decider is kept in the closed request (`decidedBy`).
pub(crate) fn forget(roots: &Roots, id: &str) {
    let _ = fs::remove_file(info_path(roots, id));
    let _ = fs::remove_file(lock_path(roots, id));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_claim_at_a_time_and_a_standing_decision_refuses_the_next() {
        let dir = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(dir.path());
        let first = take(&roots, "r1").unwrap();
        // Another open file (another thread or process) cannot have it meanwhile.
        assert!(matches!(
            take(&roots, "r1"),
            Err(GateError::AlreadyDeciding { .. })
        ));
        let approve = GateDecision::Approve {
            mode: super::super::ApproveMode::Auto,
            edited: None,
            started_from: None,
        };
        first.record("the Plandeck window", &approve).unwrap();
        drop(first);
        match take(&roots, "r1") {
            Err(GateError::AlreadyDecided { by, .. }) => {
                assert!(by.starts_with("approve by the Plandeck window at "), "{by}")
            }
            other => panic!("{other:?}"),
        }
        // A decision that did not go is withdrawn: the next decider may take the request.
        let again = {
            let c = Claim {
                _lock: durable::open_private(&lock_path(&roots, "r1")).unwrap(),
                info: info_path(&roots, "r1"),
            };
            c.withdraw();
            drop(c);
            take(&roots, "r1")
        };
        assert!(again.is_ok());
    }

    #[test]
    fn a_crashed_decider_leaves_no_lock_behind() {
        let dir = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(dir.path());
        let path = lock_path(&roots, "r2");
        durable::create_private_dir(path.parent().unwrap()).unwrap();
        // Another process takes the lock and is killed while holding it.
        let mut child = std::process::Command::new("flock")
            .arg("-o")
            .arg(&path)
            .args(["sleep", "30"])
            .spawn()
            .unwrap();
        let held = (0..200).any(|_| {
            std::thread::sleep(std::time::Duration::from_millis(10));
            matches!(take(&roots, "r2"), Err(GateError::AlreadyDeciding { .. }))
        });
        assert!(held, "the other process never held the lock");
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(take(&roots, "r2").is_ok());
    }
}
