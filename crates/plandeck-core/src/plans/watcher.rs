//! Live plan changes: [`watch`] reports plan files created, changed, renamed or deleted.
//!
//! Besides the plan folders it watches what each agent's records say may bring one
//! ([`crate::agents::records::Records::plan_watch`]: Claude Code's transcripts may name a project
//! with a `plansDirectory`, each new Gemini CLI session brings a plans folder). Only plan paths
//! leave: transcript appends and chat logs are dropped here.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::discover;
use crate::agents::records::{PlanPathTest, PlanWatch};
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
    /// Agents' folders whose `.md` files are plans (and their canonical forms).
    agent_flat: Vec<PathBuf>,
    /// Agents' folders whose files may name a new project.
    project_hints: Vec<PathBuf>,
    /// Agents' folders with plans deeper down, with the test of a path below them.
    nested: Vec<(PathBuf, PlanPathTest)>,
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
    let mut targets = Vec::new();
    let mut filter = Filter {
        agent_flat: Vec::new(),
        project_hints: Vec::new(),
        nested: Vec::new(),
        flat: HashSet::new(),
        extra: roots
            .extra_plan_folders
            .iter()
            .flat_map(|p| both(p.clone()))
            .collect(),
        projects: HashSet::new(),
        known: HashSet::new(),
    };
    for d in crate::agents::all() {
        let PlanWatch {
            watch,
            flat,
            project_hints,
            nested,
        } = crate::agents::records(d.agent).plan_watch(roots);
        targets.extend(watch);
        filter.agent_flat.extend(flat.into_iter().flat_map(both));
        filter.project_hints.extend(project_hints);
        for (dir, test) in nested {
            filter
                .nested
                .extend(both(dir).into_iter().map(|d| (d, test)));
        }
    }
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
            if self.project_hints.iter().any(|d| path.starts_with(d)) {
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
            .agent_flat
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
        for (dir, test) in &self.nested {
            let Ok(rel) = path.strip_prefix(dir) else {
                continue;
            };
            let parts: Vec<String> = rel
                .iter()
                .map(|c| c.to_string_lossy().into_owned())
                .collect();
            return test(&parts, md, &|| path.is_file());
        }
        false
    }
}
