//! A person's overrides of step statuses, kept in Plandeck's store
//! (`<data>/verify/overrides/<hash of the plan id>.json`, written atomically under the store lock).
//!
//! An override holds the step's text: it applies while the approved plan's step at that index has
//! the same text, and is ignored (not deleted) when the approved text changed.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::{StepOverride, StepStatus, VerifyError, VerifyReport};
use crate::config::Roots;

/// The longest note kept (characters).
const MAX_NOTE: usize = 4000;

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Stored {
    plan: String,
    /// By step index (1-based).
    steps: BTreeMap<u32, StoredOverride>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct StoredOverride {
    #[serde(flatten)]
    value: StepOverride,
    /// The step's text when it was overridden.
    text: String,
}

fn file(roots: &Roots, plan_id: &str) -> PathBuf {
    roots.data.join("verify").join("overrides").join(format!(
        "{}.json",
        &crate::durable::sha256_hex(plan_id.as_bytes())[..16]
    ))
}

fn load(roots: &Roots, plan_id: &str) -> Result<Stored, VerifyError> {
    let path = file(roots, plan_id);
    match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
            VerifyError::BadInput(format!(
                "The overrides file {} is damaged ({e}); fix or remove it.",
                path.display()
            ))
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Stored {
            plan: plan_id.to_owned(),
            ..Stored::default()
        }),
        Err(source) => Err(VerifyError::Read { path, source }),
    }
}

fn save(roots: &Roots, stored: &Stored) -> Result<(), VerifyError> {
    let mut json =
        serde_json::to_vec_pretty(stored).map_err(|e| VerifyError::BadInput(e.to_string()))?;
    json.push(b'\n');
    crate::durable::write_private(&file(roots, &stored.plan), &json)?;
    Ok(())
}

/// An override's note as kept: trimmed, required (the person says why) and bounded.
pub(crate) fn check_note(note: &str) -> Result<&str, VerifyError> {
    let note = note.trim();
    if note.is_empty() {
        return Err(VerifyError::BadInput(
            "An override needs a note saying why.".to_owned(),
        ));
    }
    if note.chars().count() > MAX_NOTE {
        return Err(VerifyError::BadInput(format!(
            "The note is longer than {MAX_NOTE} characters."
        )));
    }
    Ok(note)
}

/// Overrides the status of step `index` (1-based) of the approved plan `plan_id` (whose approved
/// text is `plan_text`) with `note` (checked by [`check_note`]).
pub(crate) fn set(
    roots: &Roots,
    plan_id: &str,
    plan_text: &str,
    index: u32,
    status: StepStatus,
    note: &str,
) -> Result<StepOverride, VerifyError> {
    let steps = super::steps::parse(plan_text);
    let count = u32::try_from(steps.len()).unwrap_or(u32::MAX);
    let Some(step) = index
        .checked_sub(1)
        .and_then(|i| steps.get(usize::try_from(i).ok()?))
    else {
        return Err(VerifyError::NoStep { index, count });
    };
    let value = StepOverride {
        status,
        note: note.to_owned(),
        at: crate::review::log::now(),
        by: crate::review::log::reviewer(),
    };
    let _lock = crate::review::store::lock(&roots.data)
        .map_err(|e| VerifyError::BadInput(e.to_string()))?;
    let mut stored = load(roots, plan_id)?;
    stored.plan = plan_id.to_owned();
    stored.steps.insert(
        index,
        StoredOverride {
            value: value.clone(),
            text: step.text.clone(),
        },
    );
    save(roots, &stored)?;
    Ok(value)
}

/// Removes the override of step `index` of the plan `plan_id`. Returns whether there was one.
pub(crate) fn clear(roots: &Roots, plan_id: &str, index: u32) -> Result<bool, VerifyError> {
    let _lock = crate::review::store::lock(&roots.data)
        .map_err(|e| VerifyError::BadInput(e.to_string()))?;
    let mut stored = load(roots, plan_id)?;
    if stored.steps.remove(&index).is_none() {
        return Ok(false);
    }
    save(roots, &stored)?;
    Ok(true)
}

/// Applies the stored overrides to `report` (a damaged file becomes a note, and `false`: nothing
/// was applied). The report's counts and hash are to be made again after it.
pub(crate) fn apply(roots: &Roots, report: &mut VerifyReport) -> bool {
    let stored = match load(roots, &report.plan) {
        Ok(s) => s,
        Err(e) => {
            report.notes.push(e.to_string());
            return false;
        }
    };
    let mut stale = 0;
    for (index, o) in stored.steps {
        match report.steps.iter_mut().find(|s| s.index == index) {
            Some(step) if step.text == o.text => {
                step.status = o.value.status;
                step.overridden = Some(o.value);
            }
            _ => stale += 1,
        }
    }
    if stale > 0 {
        report.notes.push(format!(
            "{stale} override(s) were made on steps whose text changed since: they are not applied."
        ));
    }
    true
}
