//! Keep: the worktrees the person chose to leave on disk, remembered in
//! `<data>/worktrees/kept.json` (`{"kept": ["/canonical/path", …]}`, written atomically).
//! "Remove all clean and merged" never touches a kept worktree.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{canonical, WorktreeError};
use crate::config::Roots;
use crate::durable;

#[derive(Debug, Default, Serialize, Deserialize)]
struct KeptFile {
    #[serde(default)]
    kept: Vec<PathBuf>,
    #[serde(flatten)]
    other: serde_json::Map<String, serde_json::Value>,
}

fn kept_path(roots: &Roots) -> PathBuf {
    roots.data.join("worktrees/kept.json")
}

fn load(roots: &Roots) -> Result<KeptFile, WorktreeError> {
    let path = kept_path(roots);
    match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map_err(|source| WorktreeError::KeptDamaged { path, source }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(KeptFile::default()),
        Err(source) => Err(WorktreeError::Io { path, source }),
    }
}

fn save(roots: &Roots, file: &KeptFile) -> Result<(), WorktreeError> {
    let mut json =
        serde_json::to_vec_pretty(file).map_err(|source| WorktreeError::KeptDamaged {
            path: kept_path(roots),
            source,
        })?;
    json.push(b'\n');
    durable::write_private(&kept_path(roots), &json)?;
    Ok(())
}

/// The canonical paths of every kept worktree.
pub(crate) fn kept_set(roots: &Roots) -> Result<HashSet<PathBuf>, WorktreeError> {
    Ok(load(roots)?.kept.into_iter().collect())
}

/// Whether the person chose Keep for the worktree at `path`.
pub fn is_kept(roots: &Roots, path: &Path) -> Result<bool, WorktreeError> {
    Ok(kept_set(roots)?.contains(&canonical(path)))
}

/// Remembers the choice to keep the worktree at the canonical path `me` (a worktree git lists:
/// [`super::list::keep`] checks it).
pub(crate) fn remember(roots: &Roots, me: PathBuf) -> Result<(), WorktreeError> {
    let mut file = load(roots)?;
    if !file.kept.contains(&me) {
        file.kept.push(me);
        file.kept.sort();
        save(roots, &file)?;
    }
    Ok(())
}

/// Forget a Keep choice (after the worktree is removed).
pub fn unkeep(roots: &Roots, path: &Path) -> Result<(), WorktreeError> {
    let me = canonical(path);
    let mut file = load(roots)?;
    let before = file.kept.len();
    file.kept.retain(|p| *p != me && p != path);
    if file.kept.len() != before {
        save(roots, &file)?;
    }
    Ok(())
}
