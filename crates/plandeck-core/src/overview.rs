//! What Plandeck looked at and what it found there: the empty state and the sources panel.

use std::path::Path;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::agents::Agent;
use crate::config::Roots;

#[derive(Debug, Clone, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Overview {
    pub sources: Vec<SourceStatus>,
    /// Plandeck's own store.
    pub data_dir: String,
    pub settings_file: String,
    /// True when the app was started on the demo workspace or loaded it ("Leave the demo" goes
    /// back to the person's own folders).
    pub demo: bool,
    /// The home folder the roots were resolved from: the window shows paths under it as `~/…`.
    pub home: String,
    /// Repositories added in Settings (their worktrees are listed even with no session seen).
    pub repos: Vec<String>,
}

/// One agent's root and the folders under it that Plandeck reads.
#[derive(Debug, Clone, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SourceStatus {
    pub agent: Agent,
    pub name: String,
    pub root: String,
    pub root_exists: bool,
    pub folders: Vec<Folder>,
}

#[derive(Debug, Clone, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Folder {
    /// What the folder holds, e.g. "plans" or "transcripts".
    pub label: String,
    pub path: String,
    pub exists: bool,
    /// How many files of the kind were found (bounded walk; see [`count_files`]).
    pub files: u32,
}

/// Walks at most this deep below a folder when counting; enough for every agent's layout.
const MAX_DEPTH: usize = 5;

pub fn overview(roots: &Roots, demo: bool) -> Overview {
    let folder = |label: &str, path: &Path, suffix: &str| Folder {
        label: label.to_owned(),
        path: path.display().to_string(),
        exists: path.is_dir(),
        files: count_files(path, suffix, MAX_DEPTH),
    };
    let mut sources: Vec<SourceStatus> = crate::agents::all()
        .iter()
        .map(|d| {
            let root = (d.root)(roots);
            SourceStatus {
                agent: d.agent,
                name: d.display_name.to_owned(),
                root: root.display().to_string(),
                root_exists: root.is_dir(),
                folders: d
                    .folders
                    .iter()
                    .map(|f| folder(f.label, &(f.dir)(root), f.suffix))
                    .collect(),
            }
        })
        .collect();
    if !roots.extra_plan_folders.is_empty() {
        sources.push(SourceStatus {
            agent: Agent::Other,
            name: "Extra plan folders".to_owned(),
            root: String::new(),
            root_exists: true,
            folders: roots
                .extra_plan_folders
                .iter()
                .map(|p| folder("plans", p, ".md"))
                .collect(),
        });
    }
    Overview {
        sources,
        data_dir: roots.data.display().to_string(),
        settings_file: roots.settings_path().display().to_string(),
        demo,
        home: roots.home.display().to_string(),
        repos: roots
            .extra_repos
            .iter()
            .map(|r| r.display().to_string())
            .collect(),
    }
}

/// Counts regular files ending in `suffix` below `dir`, not following symlinks (so a symlink loop
/// cannot trap it) and ignoring folders it cannot read.
pub fn count_files(dir: &Path, suffix: &str, max_depth: usize) -> u32 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut n = 0;
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() && max_depth > 0 {
            n += count_files(&entry.path(), suffix, max_depth - 1);
        } else if kind.is_file() && entry.file_name().to_string_lossy().ends_with(suffix) {
            n += 1;
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_missing_and_found_folders() {
        let dir = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(dir.path());
        std::fs::create_dir_all(roots.claude.join("plans")).unwrap();
        std::fs::write(roots.claude.join("plans/a.md"), "# A").unwrap();
        std::fs::write(roots.claude.join("plans/notes.txt"), "").unwrap();
        let o = overview(&roots, false);
        let claude = &o.sources[0];
        assert!(claude.root_exists);
        assert_eq!(claude.folders[0].files, 1);
        assert!(claude.folders[0].exists);
        assert!(!claude.folders[1].exists);
        assert!(!o.sources[1].root_exists, "no ~/.gemini here");
    }

    #[test]
    fn names_the_added_repositories() {
        let dir = tempfile::tempdir().unwrap();
        let mut roots = Roots::under_home(dir.path());
        assert!(overview(&roots, false).repos.is_empty());
        roots.extra_repos.push(dir.path().join("src/app"));
        let o = overview(&roots, false);
        assert_eq!(o.repos, [dir.path().join("src/app").display().to_string()]);
    }

    #[test]
    fn symlink_loop_does_not_trap_the_count() {
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(dir.path(), dir.path().join("loop")).unwrap();
        std::fs::write(dir.path().join("x.md"), "").unwrap();
        assert_eq!(count_files(dir.path(), ".md", 5), 1);
    }
}
