//! Live plan changes: [`watch`] reports plan files created, changed, renamed or deleted.
//!
//! Besides the plan folders it watches Claude Code's `projects/` and `sessions/` (a new project
//! may bring a `plansDirectory`) and Gemini CLI's `tmp/` (each new session brings a plans folder).
//! Only plan paths leave: transcript appends and chat logs are dropped here.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::discover;
use crate::agents::{claude, gemini};
use crate::config::Roots;
use crate::watch::{watch_with, Arming, WatchError, WatchHandle};

/// How long a burst of changes is held at most before it is reported.
pub const DEBOUNCE: Duration = Duration::from_millis(150);

/// Plan files that were created, changed, renamed (both names) or deleted, and plan folders that
/// appeared or went away.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PlansChanged {
    pub paths: Vec<String>,
    /// The plan ids of `paths` ([`crate::ids::plan_id`]), for the window, which names plans by id.
    /// Empty with `paths`: any plan may have changed (read the list again).
    pub ids: Vec<String>,
}

impl PlansChanged {
    /// The plan files at `paths` changed (none: any may have).
    pub fn of(paths: Vec<String>) -> Self {
        let ids = paths
            .iter()
            .map(|p| crate::ids::plan_id(Path::new(p)))
            .collect();
        Self { paths, ids }
    }
}

struct Filter {
    claude_plans: Vec<PathBuf>,
    claude_projects: PathBuf,
    claude_sessions: PathBuf,
    gemini_tmp: Vec<PathBuf>,
    /// `plansDirectory` folders of projects, and the extra folders (recursive).
    flat: HashSet<PathBuf>,
    extra: Vec<PathBuf>,
    projects: HashSet<PathBuf>,
    /// Transcripts and session files whose `cwd` has been read.
    known: HashSet<PathBuf>,
}

/// Watches every plan of `roots` and calls `on_change` with each coalesced batch of plan changes,
/// on a thread of its own, until the handle is dropped.
pub fn watch(
    roots: &Roots,
    mut on_change: impl FnMut(PlansChanged) + Send + 'static,
) -> Result<WatchHandle, WatchError> {
    let found = super::index::current(roots);
    let both = |p: PathBuf| {
        let canonical = discover::canonical_or(&p);
        if canonical == p {
            vec![p]
        } else {
            vec![p, canonical]
        }
    };
    let mut filter = Filter {
        claude_plans: both(claude::plans_dir(&roots.claude)),
        claude_projects: claude::projects_dir(&roots.claude),
        claude_sessions: claude::registry_dir(&roots.claude),
        gemini_tmp: both(gemini::tmp_dir(&roots.gemini)),
        flat: HashSet::new(),
        extra: roots
            .extra_plan_folders
            .iter()
            .flat_map(|p| both(p.clone()))
            .collect(),
        projects: HashSet::new(),
        known: HashSet::new(),
    };
    let mut targets = vec![
        claude::plans_dir(&roots.claude),
        filter.claude_projects.clone(),
        filter.claude_sessions.clone(),
        gemini::tmp_dir(&roots.gemini),
    ];
    targets.extend(roots.extra_plan_folders.iter().cloned());
    for source in &found.sources {
        if source.of_project {
            if let Some(project) = &source.project {
                filter.projects.insert(project.clone());
                filter.flat.insert(source.dir.clone());
                targets.push(source.dir.clone());
            }
        }
    }
    watch_with(targets, DEBOUNCE, move |batch, arming| {
        let paths = filter.plan_changes(batch, arming);
        if !paths.is_empty() {
            on_change(PlansChanged::of(paths));
        }
    })
}

impl Filter {
    fn plan_changes(&mut self, batch: Vec<PathBuf>, arming: &Arming<'_>) -> Vec<String> {
        let mut out = Vec::new();
        for path in batch {
            if path.starts_with(&self.claude_projects) || path.starts_with(&self.claude_sessions) {
                self.learn_project(&path, arming);
            }
            if self.is_plan_path(&path) {
                out.push(path.display().to_string());
            }
        }
        out
    }

    /// A transcript or session file may name a project not seen before: watch its plans folder.
    fn learn_project(&mut self, path: &Path, arming: &Arming<'_>) {
        let is_json = path
            .extension()
            .is_some_and(|x| x == "jsonl" || x == "json");
        if !is_json || self.known.contains(path) || !path.is_file() {
            return;
        }
        let Ok(facts) = discover::transcript_facts(path) else {
            return;
        };
        let Some(cwd) = facts.cwd else { return }; // Not written yet: look again on its next change.
        self.known.insert(path.to_owned());
        let project = PathBuf::from(cwd);
        if self.projects.insert(project.clone()) {
            for dir in discover::plans_directories(&project) {
                if self.flat.insert(dir.clone()) {
                    arming.add(dir);
                }
            }
        }
    }

    fn is_plan_path(&self, path: &Path) -> bool {
        let md = path.extension().is_some_and(|x| x == "md");
        let parent = path.parent().unwrap_or(path);
        // The folders themselves (created, removed, renamed) and the `.md` files directly in them.
        if self
            .claude_plans
            .iter()
            .any(|d| d == path || (md && d == parent))
        {
            return true;
        }
        if self.flat.contains(path) || (md && self.flat.contains(parent)) {
            return true;
        }
        if self
            .extra
            .iter()
            .any(|d| d == path || (md && path.starts_with(d)))
        {
            return true;
        }
        for tmp in &self.gemini_tmp {
            let Ok(rel) = path.strip_prefix(tmp) else {
                continue;
            };
            let parts: Vec<_> = rel.iter().map(|c| c.to_string_lossy()).collect();
            // tmp/<slug>/<sessionId>/plans/<name>.md, or a session or plans folder itself.
            let session_like = |s: &str| s != gemini::CHATS && !s.contains('.');
            return match parts.len() {
                4 => md && session_like(&parts[1]) && parts[2] == gemini::PLANS,
                3 => session_like(&parts[1]) && parts[2] == gemini::PLANS,
                2 => session_like(&parts[1]) && !path.is_file(),
                _ => false,
            };
        }
        false
    }
}
