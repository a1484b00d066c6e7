//! The decision log: `decisions.jsonl`, one JSON [`Decision`] per line, append-only and fsynced.
//!
//! A crash can leave at most one unterminated last line; readers skip it. A damaged line in the
//! middle (someone edited the file) is skipped with a warning, never fatal.

use std::fs;
use std::io;
use std::path::Path;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{store, ReviewError};
use crate::agents::Agent;
use crate::durable;

/// Approved or rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Approved,
    Rejected,
}

/// How a decision taken through the gate reached the agent (docs/architecture.md §7, trust rules: the log records what
/// was delivered, not what was intended).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum Delivery {
    /// The agent has it (the card took the keys, or the hook took the decision).
    Delivered,
    /// The terminal answered the card first; Plandeck typed nothing.
    AnsweredInTerminal,
    /// Not delivered yet: the person answers in the terminal (no tmux pane), or the hook has not
    /// taken it yet.
    Pending,
    /// Typing was refused or failed; `deliveryReason` says why.
    Failed,
}

/// One decision a reviewer made on a plan: a line of the audit log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Decision {
    /// When (RFC 3339 UTC, to the second, in the log).
    #[serde(with = "time::serde::rfc3339")]
    #[ts(type = "string")]
    pub time: time::OffsetDateTime,
    /// The OS user who decided.
    pub reviewer: String,
    pub plan_path: String,
    pub agent: Agent,
    #[serde(default)]
    pub session_id: Option<String>,
    pub decision: Verdict,
    /// The reviewer's words to the agent (required on a rejection).
    #[serde(default)]
    pub feedback: Option<String>,
    /// The version approved (its snapshot is in the store before this line is written).
    #[serde(default)]
    pub approved_hash: Option<String>,
    /// The version the decision was about: the approved one, or the rejected file's content.
    #[serde(default)]
    pub content_hash: Option<String>,
    /// The reviewer edited the plan before approving it.
    #[serde(default)]
    pub edited: bool,
    /// How the decision reached the agent: "auto" (Plandeck answered it) or "manual".
    #[serde(default)]
    pub mode: Option<String>,
    /// The gate request the decision answered (decisions taken through the gate only).
    #[serde(default)]
    pub request_id: Option<String>,
    /// How the decision reached the agent (decisions taken through the gate only).
    #[serde(default)]
    pub delivery: Option<Delivery>,
    /// Why delivery failed or is pending, for a person.
    #[serde(default)]
    pub delivery_reason: Option<String>,
    /// The ids of the reviewer's comments that went with the decision (their quotes and text are
    /// in `feedback`, or in the approved plan's "Reviewer notes").
    #[serde(default)]
    pub comments: Vec<String>,
    /// This decision's id (decisions recorded before ids were given have none): what a
    /// revocation names.
    #[serde(default)]
    pub id: Option<String>,
    /// This line undoes the decision with this id (the person chose Undo on a decision that was
    /// only recorded). The log is append-only: the undone decision stays in it, and readers of
    /// where a plan stands ([`read_all`]) skip both.
    #[serde(default)]
    pub revokes: Option<String>,
    /// The machine this is on (`plandeck hosts`), named by its rows in the window; `null`: this one.
    #[serde(default)]
    pub machine: Option<String>,
    /// Who decided, from where, as the deciding Plandeck names itself: `plandeck serve (over SSH
    /// from 192.0.2.7)` for a decision made from another machine; the window's or the command
    /// line's own words here. Lines recorded before it was kept have none.
    #[serde(default)]
    pub decided_by: Option<String>,
}

/// What a decision says about the plan, besides who decided, when, and whose plan it is.
#[derive(Debug, Clone, Default)]
pub(crate) struct Facts {
    pub feedback: Option<String>,
    pub approved_hash: Option<String>,
    pub content_hash: Option<String>,
    pub edited: bool,
    pub mode: Option<String>,
}

impl Decision {
    /// Whether this decision stands for where the plan is: a decision recorded by the person
    /// (no gate request), or one that reached the agent. A gate decision that failed, that the
    /// terminal answered first, or that still waits for the terminal did not approve anything:
    /// it pins no version, drives no verification, and is not shown as approved.
    pub fn stands(&self) -> bool {
        matches!(self.delivery, None | Some(Delivery::Delivered))
    }

    /// The version this decision approved, when it stands.
    pub fn pinned_hash(&self) -> Option<&str> {
        (self.decision == Verdict::Approved && self.stands())
            .then_some(self.approved_hash.as_deref())
            .flatten()
    }

    /// The one place a decision record is made, for the window, the CLI and the gate alike: the
    /// time, the reviewer, the plan, its owner (`agent`, `session_id`: see
    /// [`super::decide::owner`]) and the [`Facts`]. Gate decisions add how they were delivered
    /// with [`Decision::delivered`].
    pub(crate) fn record(
        time: time::OffsetDateTime,
        plan_path: &Path,
        owner: (Agent, Option<String>),
        decision: Verdict,
        facts: Facts,
    ) -> Self {
        Self {
            time,
            reviewer: reviewer(),
            plan_path: plan_path.to_string_lossy().into_owned(),
            agent: owner.0,
            session_id: owner.1,
            decision,
            feedback: facts.feedback,
            approved_hash: facts.approved_hash,
            content_hash: facts.content_hash,
            edited: facts.edited,
            mode: facts.mode,
            request_id: None,
            delivery: None,
            delivery_reason: None,
            comments: Vec::new(),
            id: Some(new_id(time, plan_path, decision)),
            revokes: None,
            machine: None,
            decided_by: None,
        }
    }

    /// A line that undoes this decision: same plan, owner and verdict, naming it in `revokes`,
    /// with no hash approved (so nothing reads it as an approval). `None` when this decision has
    /// no id (recorded before ids were given).
    pub(crate) fn revocation(&self, time: time::OffsetDateTime) -> Option<Self> {
        let revoked = self.id.clone()?;
        let mut line = Self::record(
            time,
            Path::new(&self.plan_path),
            (self.agent, self.session_id.clone()),
            self.decision,
            Facts {
                content_hash: self.content_hash.clone(),
                ..Default::default()
            },
        );
        line.revokes = Some(revoked);
        Some(line)
    }

    /// The decision as it answered gate request `request_id`: how it reached the agent, and why
    /// not when it did not.
    pub(crate) fn delivered(
        mut self,
        request_id: &str,
        delivery: Delivery,
        reason: Option<String>,
    ) -> Self {
        self.request_id = Some(request_id.to_owned());
        self.delivery = Some(delivery);
        self.delivery_reason = reason;
        self
    }
}

/// A fresh id for a decision: unique per process and time (the pid, a counter and the clock's
/// nanoseconds go in with the plan and verdict).
fn new_id(time: time::OffsetDateTime, plan_path: &Path, verdict: Verdict) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let seed = format!(
        "{}|{}|{verdict:?}|{}|{}|{nanos}",
        time.unix_timestamp(),
        plan_path.display(),
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed),
    );
    crate::ids::short_hash(seed.as_bytes())
}

/// Appends `decision` to the log (fsynced). Call with the store lock held.
pub fn append(data: &Path, decision: &Decision) -> Result<(), ReviewError> {
    let mut line =
        serde_json::to_string(decision).map_err(|e| ReviewError::Internal(e.to_string()))?;
    let path = store::log_path(data);
    // After a torn append (power loss mid-write), end the fragment first, so it stays one damaged
    // line that readers skip instead of swallowing this decision.
    if ends_torn(&path) {
        line.insert(0, '\n');
    }
    durable::append_line(&path, &line)?;
    Ok(())
}

fn ends_torn(path: &Path) -> bool {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(mut file) = fs::File::open(path) else {
        return false;
    };
    let mut last = [0u8; 1];
    file.seek(SeekFrom::End(-1)).is_ok() && file.read_exact(&mut last).is_ok() && last[0] != b'\n'
}

/// Every decision in force, oldest first: the log without the decisions a person undid and
/// without the revocation lines themselves ([`effective`]). A missing log is empty.
pub fn read_all(data: &Path) -> Result<Vec<Decision>, ReviewError> {
    Ok(effective(read_raw(data)?))
}

/// Every line of the log, oldest first, revocations and the decisions they undo included (the
/// audit trail: `plandeck log`). A missing log is empty.
pub fn read_raw(data: &Path) -> Result<Vec<Decision>, ReviewError> {
    let path = store::log_path(data);
    let bytes = match fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => return Err(ReviewError::Read { path, source }),
    };
    Ok(parse(&bytes, &path))
}

/// `decisions` without the revocation lines and the decisions they undo.
pub fn effective(decisions: Vec<Decision>) -> Vec<Decision> {
    let revoked: std::collections::HashSet<String> =
        decisions.iter().filter_map(|d| d.revokes.clone()).collect();
    if revoked.is_empty() {
        return decisions;
    }
    decisions
        .into_iter()
        .filter(|d| d.revokes.is_none() && !d.id.as_ref().is_some_and(|id| revoked.contains(id)))
        .collect()
}

/// Parses log bytes, skipping an unterminated last line (a torn append) and damaged lines.
pub(crate) fn parse(bytes: &[u8], path: &Path) -> Vec<Decision> {
    let complete = match memchr::memrchr(b'\n', bytes) {
        Some(i) => &bytes[..=i],
        None => &[][..],
    };
    let mut out = Vec::new();
    for (n, line) in complete.split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<Decision>(line) {
            Ok(d) => out.push(d),
            Err(e) => {
                tracing::warn!(path = %path.display(), line = n + 1, error = %e, "skipping damaged decision")
            }
        }
    }
    out
}

/// Now as RFC 3339 UTC to the second, for the stores that keep text (comments, versions seen);
/// see [`crate::timestamp`].
pub fn now() -> String {
    crate::timestamp::format(crate::timestamp::now_seconds())
}

/// The OS user: `$USER`, else `$LOGNAME`, else the user database's name for the effective uid
/// (`id -un`, so NSS users resolve too), else `uid N`. Read once per process.
pub fn reviewer() -> String {
    static REVIEWER: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    REVIEWER
        .get_or_init(|| {
            ["USER", "LOGNAME"]
                .iter()
                .find_map(|v| std::env::var(v).ok().filter(|u| !u.is_empty()))
                .or_else(user_database_name)
                .unwrap_or_else(|| format!("uid {}", rustix::process::geteuid().as_raw()))
        })
        .clone()
}

fn user_database_name() -> Option<String> {
    let mut id = std::process::Command::new("id");
    id.arg("-un");
    let out = crate::terminal::run_bounded(id, None, crate::terminal::EXTERNAL_TIMEOUT).ok()?;
    let name = String::from_utf8(out.stdout).ok()?.trim().to_owned();
    (out.status.success() && !name.is_empty()).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decision(n: u32) -> Decision {
        Decision {
            time: crate::timestamp::parse(&format!("2026-01-01T00:00:0{n}Z")).unwrap(),
            reviewer: "r".into(),
            plan_path: "/p.md".into(),
            agent: Agent::Claude,
            session_id: None,
            decision: Verdict::Approved,
            feedback: None,
            approved_hash: Some("h".into()),
            content_hash: Some("h".into()),
            edited: false,
            mode: None,
            request_id: None,
            delivery: None,
            delivery_reason: None,
            comments: Vec::new(),
            id: None,
            revokes: None,
            machine: None,
            decided_by: None,
        }
    }

    #[test]
    fn a_revoked_decision_and_its_revocation_are_not_in_force() {
        let dir = tempfile::tempdir().unwrap();
        let at = crate::timestamp::parse("2026-01-01T00:00:00Z").unwrap();
        let first = Decision::record(
            at,
            Path::new("/p.md"),
            (Agent::Claude, None),
            Verdict::Rejected,
            Facts::default(),
        );
        let second = Decision::record(
            at,
            Path::new("/p.md"),
            (Agent::Claude, None),
            Verdict::Approved,
            Facts {
                approved_hash: Some("h".into()),
                ..Default::default()
            },
        );
        assert_ne!(first.id, second.id, "ids are unique even within a second");
        append(dir.path(), &first).unwrap();
        append(dir.path(), &second).unwrap();
        let undo = second.revocation(at).unwrap();
        assert_eq!(undo.approved_hash, None);
        append(dir.path(), &undo).unwrap();
        // Append-only: all three lines stay; only the rejection is in force.
        assert_eq!(read_raw(dir.path()).unwrap(), [first.clone(), second, undo]);
        assert_eq!(read_all(dir.path()).unwrap(), [first]);
        assert!(
            decision(1).revocation(at).is_none(),
            "an old decision without an id"
        );
    }

    #[test]
    fn torn_last_line_and_damaged_lines_are_skipped() {
        let mut bytes = Vec::new();
        for n in 0..2 {
            bytes.extend(serde_json::to_vec(&decision(n)).unwrap());
            bytes.push(b'\n');
            bytes.extend(b"{damaged\n");
        }
        let full = serde_json::to_vec(&decision(3)).unwrap();
        bytes.extend(&full[..full.len() / 2]);
        let got = parse(&bytes, Path::new("log"));
        assert_eq!(got, [decision(0), decision(1)]);
    }

    #[test]
    fn append_after_a_torn_line_keeps_the_new_decision() {
        let dir = tempfile::tempdir().unwrap();
        append(dir.path(), &decision(1)).unwrap();
        let path = store::log_path(dir.path());
        let mut bytes = fs::read(&path).unwrap();
        bytes.extend(b"{\"time\":\"tor");
        fs::write(&path, bytes).unwrap();
        append(dir.path(), &decision(2)).unwrap();
        assert_eq!(read_all(dir.path()).unwrap(), [decision(1), decision(2)]);
    }

    #[test]
    fn decision_json_is_camel_case() {
        let v = serde_json::to_value(decision(1)).unwrap();
        for key in [
            "planPath",
            "sessionId",
            "approvedHash",
            "decision",
            "edited",
            "mode",
            "reviewer",
            "time",
        ] {
            assert!(v.get(key).is_some(), "{key} missing in {v}");
        }
        assert_eq!(v["decision"], "approved");
    }

    #[test]
    fn reviewer_is_someone() {
        assert!(!reviewer().is_empty());
        assert!(user_database_name().is_some_and(|n| !n.is_empty()));
    }
}
