//! The diff of a file the agent changed since approval, for the window's Verify tab: the two
//! sides come from [`super::file_diff`] (only files the report lists are read), the lines
//! are compared by the plan differ, so the view is the same as the review diff (unified, side by
//! side, changed words marked).

use crate::config::Roots;
use crate::ipc::{ErrorKind, IpcError};
use crate::review::PlanDiff;

/// The diff of `path` (as the report of plan `id` lists it) from the base to the worktree now.
pub fn changed_file_diff(roots: &Roots, id: &str, path: &str) -> Result<PlanDiff, IpcError> {
    let report = super::report_by_id(roots, id)?;
    let sides = super::file_diff(&report, path)?;
    if sides.binary {
        return Err(IpcError::new(
            ErrorKind::BadInput,
            sides.note.unwrap_or_else(|| {
                format!("{path} is not text (or too large to show); no diff is shown")
            }),
        ));
    }
    if sides.old.is_none() && sides.new.is_none() {
        return Err(IpcError::new(
            ErrorKind::NotFound,
            sides
                .note
                .unwrap_or_else(|| format!("neither side of {path} can be read")),
        ));
    }
    let mut diff = PlanDiff::between(
        sides.old.as_deref().unwrap_or(""),
        sides.new.as_deref().unwrap_or(""),
    );
    diff.from_label = match (&sides.old, &report.base.commit) {
        (None, _) => format!("{path} (new file)"),
        (Some(_), Some(c)) => format!("{path} at {}", &c[..c.len().min(8)]),
        (Some(_), None) => format!("{path} before"),
    };
    diff.to_label = match &sides.new {
        None => format!("{path} (deleted)"),
        Some(_) => format!("{path} now"),
    };
    Ok(diff)
}
