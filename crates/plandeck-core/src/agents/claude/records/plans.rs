//! Where Claude Code's plans are: `plans/<slug>.md`, or the `plansDirectory` a project's
//! settings name.

use std::path::{Path, PathBuf};

use crate::agents::claude as agent;

/// Settings files bigger than this are not Claude Code's; they are skipped.
const SMALL_JSON: u64 = 1024 * 1024;

/// A project's `plansDirectory` folders (from `.claude/settings.local.json` and
/// `.claude/settings.json`), only those that exist and stay inside the project, as Claude Code does.
pub(crate) fn plans_directories(project: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(root) = project.canonicalize() else {
        return out;
    };
    for file in agent::project_settings_files(project) {
        let Some(value) = read_small_json(&file) else {
            continue;
        };
        let Some(rel) = value.get("plansDirectory").and_then(|v| v.as_str()) else {
            continue;
        };
        let Ok(dir) = root.join(rel).canonicalize() else {
            continue;
        };
        if !dir.starts_with(&root) {
            tracing::debug!(project = %project.display(), plans_directory = rel, "plansDirectory escapes its project: ignored");
            continue;
        }
        if dir.is_dir() && !out.contains(&dir) {
            out.push(dir);
        }
    }
    out
}

fn read_small_json(path: &Path) -> Option<serde_json::Value> {
    let meta = std::fs::metadata(path).ok()?;
    if meta.len() > SMALL_JSON {
        return None;
    }
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}
