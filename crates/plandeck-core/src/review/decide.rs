//! Recording versions and decisions: approve, edit-and-approve, reject; reading them back.
//!
//! Order of writes, so that a crash at any instant leaves a consistent store: the snapshot of a
//! version goes into `versions/` first, then (edit-and-approve) the plan file is replaced
//! atomically, then the decision line is appended. A recorded approval therefore always has its
//! snapshot, and the plan file is always either the old or the new text.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::log::{self, Decision, Verdict};
use super::{store, ReviewError};
use crate::agents::Agent;
use crate::config::Roots;
use crate::durable;
use crate::timestamp;

/// What the reviewer approves: the plan as it is, or an edited text.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ApproveRequest {
    /// The edited plan to write and approve; `None` approves the file as it is.
    #[serde(default)]
    pub edited: Option<String>,
    /// Hash of the text the reviewer started from (saw or began editing). When given, the file
    /// must still hold it, or the approval is a conflict.
    #[serde(default)]
    pub started_from: Option<String>,
    /// Which agent wrote the plan; when `None`, what plan discovery links the file to (see
    /// [`owner`]). Only the gate sets it (it knows the request's agent).
    #[serde(default)]
    pub agent: Option<Agent>,
    /// The session that wrote the plan; when `None`, the one plan discovery links it to.
    #[serde(default)]
    pub session_id: Option<String>,
    /// "auto" | "manual": how the decision reaches the agent.
    #[serde(default)]
    pub mode: Option<String>,
}

/// The agent whose root holds `plan_path` (the first in [`crate::agents::all`]), else other.
pub fn agent_for_path(roots: &Roots, plan_path: &Path) -> Agent {
    let key = store::plan_key(plan_path);
    let under = |root: &Path| key.starts_with(root) || key.starts_with(store::plan_key(root));
    crate::agents::all()
        .iter()
        .find(|d| under((d.root)(roots)))
        .map_or(Agent::Other, |d| d.agent)
}

/// Whose plan `key` is, for its decision record: the agent and session given (the gate knows them
/// from the request), else what plan discovery links the file to (so a decision taken in the window
/// and one taken with the CLI name the same session), else the agent whose folder holds it.
pub(crate) fn owner(
    roots: &Roots,
    key: &Path,
    agent: Option<Agent>,
    session_id: Option<String>,
) -> (Agent, Option<String>) {
    if let (Some(agent), Some(session_id)) = (agent, &session_id) {
        return (agent, Some(session_id.clone()));
    }
    let found = crate::plans::owner(roots, key);
    let agent = agent
        .or_else(|| found.as_ref().map(|f| f.0))
        .unwrap_or_else(|| agent_for_path(roots, key));
    let session_id = session_id.or_else(|| found.and_then(|f| f.1));
    (agent, session_id)
}

/// Stores a version of the plan Plandeck has seen and notes it in the plan's index. Idempotent.
pub fn record_version(
    roots: &Roots,
    plan_path: &Path,
    content: &[u8],
) -> Result<String, ReviewError> {
    let key = store::plan_key(plan_path);
    let hash = store::put_version(&roots.data, content)?;
    let _lock = store::lock(&roots.data)?;
    store::note_seen(
        &roots.data,
        &key,
        &hash,
        &timestamp::format(timestamp::now_seconds()),
    )?;
    Ok(hash)
}

/// Approves the plan at `plan_path` as it is, or with the reviewer's edit (written to the plan
/// file only if it still holds `started_from`).
pub fn approve(
    roots: &Roots,
    plan_path: &Path,
    req: ApproveRequest,
) -> Result<Decision, ReviewError> {
    let decision = approve_unlogged(roots, plan_path, req, None)?;
    append_decision(roots, &decision)?;
    Ok(decision)
}

/// Appends `decision` to the log under the store lock: for callers (the gate) that log a
/// decision once they know how it was delivered.
pub(crate) fn append_decision(roots: &Roots, decision: &Decision) -> Result<(), ReviewError> {
    let _lock = store::lock(&roots.data)?;
    log::append(&roots.data, decision)
}

/// [`approve`] without the log line: every other write is done (snapshots, the edit); the caller
/// appends the returned decision with [`append_decision`].
/// `read`: the plan file's bytes as the caller read them for this decision (the gate reads a plan
/// once and hands it along; `None`: read here): a plain approval pins that version. An edit reads
/// the file again under the store's lock, right before it is written, so a change made since is
/// never overwritten.
pub(crate) fn approve_unlogged(
    roots: &Roots,
    plan_path: &Path,
    req: ApproveRequest,
    read: Option<&[u8]>,
) -> Result<Decision, ReviewError> {
    let key = store::plan_key(plan_path);
    let data = &roots.data;
    // An edit is written only to a canonical plan file inside a plans folder (never through a
    // symlink to elsewhere, never a path with `..`): checked before anything is written, the
    // store included, so a refused edit leaves no trace of the path anywhere.
    let target = match &req.edited {
        Some(_) => Some(crate::plans::writable_plan_path(roots, plan_path)?),
        None => None,
    };
    let who = owner(roots, &key, req.agent, req.session_id.clone());
    // The reviewer's text goes into the store before anything else, so it survives a conflict or
    // a crash, and so the approval line below never lacks its snapshot.
    let yours_hash = match &req.edited {
        Some(text) => Some(store::put_version(data, text.as_bytes())?),
        None => None,
    };
    let _lock = store::lock(data)?;
    let current = match read {
        Some(bytes) if req.edited.is_none() => bytes.to_vec(),
        _ => store::read_plan_bytes(&key)?,
    };
    let current_hash = store::hash(&current);
    let at = timestamp::now_seconds();
    let now = timestamp::format(at);

    if let Some(started) = &req.started_from {
        store::version_path(data, started)?;
        if *started != current_hash && req.edited.is_none() {
            // A plain approval pins what the reviewer read, or nothing.
            let current_hash = store::put_version(data, &current)?;
            store::note_seen(data, &key, &current_hash, &now)?;
            return Err(ReviewError::PlanChanged {
                path: key,
                seen_hash: started.clone(),
                current_hash,
            });
        }
        if *started != current_hash {
            // Keep their text too, so both sides of the conflict are in the store.
            let theirs_hash = store::put_version(data, &current)?;
            store::note_seen(data, &key, &theirs_hash, &now)?;
            let (yours, yours_hash) = match (&req.edited, yours_hash) {
                (Some(text), Some(h)) => (text.clone(), h),
                // A plain approval of a version the file no longer holds: "yours" is what was read.
                _ => {
                    let bytes = store::get_version(data, started).unwrap_or_default();
                    (
                        String::from_utf8_lossy(&bytes).into_owned(),
                        started.clone(),
                    )
                }
            };
            return Err(ReviewError::Conflict {
                path: key,
                theirs: String::from_utf8_lossy(&current).into_owned(),
                yours,
                theirs_hash,
                saved: store::version_path(data, &yours_hash)?,
                yours_hash,
            });
        }
    }

    let (approved_hash, edited) = match (&req.edited, yours_hash, &target) {
        (Some(text), Some(h), Some(target)) if h != current_hash => {
            // The text the agent wrote stays in the history beside the reviewer's edit.
            let before = store::put_version(data, &current)?;
            store::note_seen(data, &key, &before, &now)?;
            durable::write_atomic(target, text.as_bytes())?;
            (h, true)
        }
        _ => (store::put_version(data, &current)?, false),
    };
    store::note_seen(data, &key, &approved_hash, &now)?;
    Ok(Decision::record(
        at,
        &key,
        who,
        Verdict::Approved,
        log::Facts {
            approved_hash: Some(approved_hash.clone()),
            content_hash: Some(approved_hash),
            edited,
            mode: req.mode,
            ..Default::default()
        },
    ))
}

/// Rejects the plan at `plan_path` with `feedback` for the agent (required, non-empty).
pub fn reject(
    roots: &Roots,
    plan_path: &Path,
    feedback: &str,
    agent: Option<Agent>,
    session_id: Option<String>,
) -> Result<Decision, ReviewError> {
    reject_seen(roots, plan_path, feedback, agent, session_id, None)
}

/// [`reject`], refused with [`ReviewError::PlanChanged`] when `seen` (the hash of the version
/// the reviewer read) is given and the plan file no longer holds it.
pub fn reject_seen(
    roots: &Roots,
    plan_path: &Path,
    feedback: &str,
    agent: Option<Agent>,
    session_id: Option<String>,
    seen: Option<&str>,
) -> Result<Decision, ReviewError> {
    let decision = reject_unlogged(roots, plan_path, feedback, agent, session_id, seen, None)?;
    append_decision(roots, &decision)?;
    Ok(decision)
}

/// [`reject_seen`] without the log line (see [`approve_unlogged`]). `read`: the plan file's bytes
/// as the caller read them for this decision (`None`: read here), the version kept as rejected.
pub(crate) fn reject_unlogged(
    roots: &Roots,
    plan_path: &Path,
    feedback: &str,
    agent: Option<Agent>,
    session_id: Option<String>,
    seen: Option<&str>,
    read: Option<&[u8]>,
) -> Result<Decision, ReviewError> {
    if feedback.trim().is_empty() {
        return Err(ReviewError::EmptyFeedback);
    }
    let key = store::plan_key(plan_path);
    let data = &roots.data;
    let who = owner(roots, &key, agent, session_id);
    if let Some(seen) = seen {
        store::version_path(data, seen)?;
    }
    // The rejected text is kept too, so the history can show what was turned down. A plan file
    // that is gone can still be rejected (the agent may have moved it); the decision says so.
    let bytes = match read {
        Some(bytes) => Ok(bytes.to_vec()),
        None => store::read_plan_bytes(&key),
    };
    let content_hash = match bytes {
        Ok(bytes) => Some(store::put_version(data, &bytes)?),
        // The reviewer read a version, so a file that is gone now is a change too.
        Err(ReviewError::Read { source, .. })
            if source.kind() == std::io::ErrorKind::NotFound && seen.is_none() =>
        {
            None
        }
        Err(e) => return Err(e),
    };
    if let (Some(seen), Some(current_hash)) = (seen, &content_hash) {
        if current_hash != seen {
            let _lock = store::lock(data)?;
            store::note_seen(
                data,
                &key,
                current_hash,
                &timestamp::format(timestamp::now_seconds()),
            )?;
            return Err(ReviewError::PlanChanged {
                path: key,
                seen_hash: seen.to_owned(),
                current_hash: current_hash.clone(),
            });
        }
    }
    let _lock = store::lock(data)?;
    let at = timestamp::now_seconds();
    let now = timestamp::format(at);
    if let Some(h) = &content_hash {
        store::note_seen(data, &key, h, &now)?;
    }
    Ok(Decision::record(
        at,
        &key,
        who,
        Verdict::Rejected,
        log::Facts {
            feedback: Some(feedback.to_owned()),
            content_hash,
            ..Default::default()
        },
    ))
}

/// The decisions in force, newest first (undone ones left out: [`log::read_all`]); only
/// decisions on `plan` when given.
pub fn log(roots: &Roots, plan: Option<&Path>) -> Result<Vec<Decision>, ReviewError> {
    Ok(newest_first_on(log::read_all(&roots.data)?, plan))
}

/// Every line of the decision log, newest first, undone decisions and their revocations
/// included (the audit trail `plandeck log` prints); only lines on `plan` when given.
pub fn audit_log(roots: &Roots, plan: Option<&Path>) -> Result<Vec<Decision>, ReviewError> {
    Ok(newest_first_on(log::read_raw(&roots.data)?, plan))
}

/// `all` (oldest first, as the log holds them) newest first; only the lines on `plan` (by its
/// key or as given) when given.
fn newest_first_on(mut all: Vec<Decision>, plan: Option<&Path>) -> Vec<Decision> {
    if let Some(plan) = plan {
        let key = store::plan_key(plan).to_string_lossy().into_owned();
        let given = plan.to_string_lossy();
        all.retain(|d| d.plan_path == key || d.plan_path == given);
    }
    all.reverse();
    all
}

/// The text of stored version `hash`.
pub fn version(roots: &Roots, hash: &str) -> Result<String, ReviewError> {
    let bytes = store::get_version(&roots.data, hash)?;
    String::from_utf8(bytes).map_err(|_| ReviewError::NotText {
        path: PathBuf::from(hash),
    })
}

/// The text of stored version `hash` of the plan at `plan_path`: only a version of that plan
/// (seen by Plandeck or named by a decision on it), else [`ReviewError::NoVersion`].
pub fn version_of(roots: &Roots, plan_path: &Path, hash: &str) -> Result<String, ReviewError> {
    store::version_path(&roots.data, hash)?;
    let key = store::plan_key(plan_path);
    let seen = store::seen_versions(&roots.data, &key)
        .iter()
        .any(|s| s.hash == hash);
    let decided = || -> Result<bool, ReviewError> {
        Ok(log(roots, Some(&key))?.iter().any(|d| {
            d.approved_hash.as_deref() == Some(hash) || d.content_hash.as_deref() == Some(hash)
        }))
    };
    if !seen && !decided()? {
        return Err(ReviewError::NoVersion {
            hash: hash.to_owned(),
        });
    }
    version(roots, hash)
}

/// One version of a plan in its history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct VersionInfo {
    pub hash: String,
    /// When Plandeck last saw the plan file hold this version (RFC 3339 UTC).
    pub seen_at: String,
    /// Some approval pinned this version.
    pub approved: bool,
    /// The plan file holds this version now.
    pub current: bool,
    /// Size in bytes (0 when the snapshot is missing).
    #[ts(type = "number")]
    pub size: u64,
}

/// The versions of a plan and the decisions on it, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PlanHistory {
    pub plan_path: String,
    /// The last approved version, if any.
    pub approved_hash: Option<String>,
    /// The plan file's current version (`None` when the file is gone or unreadable).
    pub current_hash: Option<String>,
    pub versions: Vec<VersionInfo>,
    pub decisions: Vec<Decision>,
    /// Who decides here ([`super::log::reviewer`]): the window names a decision's reviewer only
    /// when it is someone else.
    #[serde(default)]
    pub you: String,
}

/// The versions seen of the plan at `plan_path` and the decisions on it, newest first.
pub fn history(roots: &Roots, plan_path: &Path) -> Result<PlanHistory, ReviewError> {
    let key = store::plan_key(plan_path);
    let decisions = log(roots, Some(&key))?;
    let approved: std::collections::HashSet<&str> = decisions
        .iter()
        .filter_map(|d| d.approved_hash.as_deref())
        .collect();
    let current_hash = store::read_plan_bytes(&key).ok().map(|b| store::hash(&b));
    let mut seen = store::seen_versions(&roots.data, &key);
    // Versions named by decisions but missing from a lost or damaged index still belong here.
    for d in decisions.iter().rev() {
        for h in [&d.approved_hash, &d.content_hash].into_iter().flatten() {
            if !seen.iter().any(|s| &s.hash == h) {
                seen.push(store::Seen {
                    hash: h.clone(),
                    seen_at: timestamp::format(d.time),
                });
            }
        }
    }
    seen.sort_by(|a, b| a.seen_at.cmp(&b.seen_at));
    let versions = seen
        .into_iter()
        .rev()
        .map(|s| {
            let size = store::version_path(&roots.data, &s.hash)
                .ok()
                .and_then(|p| std::fs::metadata(p).ok())
                .map_or(0, |m| m.len());
            VersionInfo {
                approved: approved.contains(s.hash.as_str()),
                current: current_hash.as_deref() == Some(s.hash.as_str()),
                hash: s.hash,
                seen_at: s.seen_at,
                size,
            }
        })
        .collect();
    Ok(PlanHistory {
        plan_path: key.to_string_lossy().into_owned(),
        approved_hash: decisions.iter().find_map(|d| d.approved_hash.clone()),
        current_hash,
        versions,
        decisions,
        you: super::log::reviewer(),
    })
}
