//! Keeping the worktree counts live without storming: which worktree a file change concerns, and a
//! watcher that ignores what git ignores.
//!
//! The watcher ([`watch`]) follows each listed worktree's folder and its repository's git dir with
//! [`crate::watch::tree`]: a folder git ignores (`target/`, `node_modules/`, whatever
//! `.gitignore`, `.git/info/exclude` or `core.excludesFile` say, asked of git2 per worktree and
//! remembered until an ignore file changes) is never watched, so an agent's build in a worktree
//! sends no events at all; an ignored file beside the sources (`*.log`) is dropped. Inside git dirs
//! only what the counts read is followed (HEAD, the index, refs, the worktree records), never
//! objects, logs or lock files. A burst comes out once, on its trailing edge, as a [`Changed`]
//! naming the worktrees it concerns; the callback runs on the watcher's thread, one at a time, and
//! what changes while it runs comes out as the next single call.

use std::collections::{BTreeSet, HashMap};
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use git2::Repository;

use super::{canonical, WorktreeSummary};
use crate::watch::{watch_tree, Timing, TreeRules, TreeWatch, WatchError};

/// How long a worktree must be quiet before its change is reported, and the longest a change that
/// never stops waits.
pub const TIMING: Timing = Timing {
    quiet: Duration::from_millis(200),
    max_wait: Duration::from_secs(2),
};

/// A listed worktree as the watcher follows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Watched {
    /// The listing's id.
    pub id: String,
    /// The worktree's folder, as listed.
    pub path: PathBuf,
    /// Its repository's common git dir (canonical).
    pub common_dir: PathBuf,
    /// Its own git dir (the common dir for the main worktree; canonical).
    pub git_dir: PathBuf,
    pub is_main: bool,
}

/// What one burst of changes concerns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changed {
    /// The ids of the worktrees whose counts may have changed.
    pub ids: BTreeSet<String>,
    /// Worktrees may have been added or removed (or a folder went missing): list again.
    pub listing: bool,
}

/// What to watch for `list`: every listed worktree whose folder exists and git can open.
pub fn watch_targets(list: &[WorktreeSummary]) -> Vec<Watched> {
    let mut out = Vec::new();
    for s in list {
        let path = PathBuf::from(&s.path);
        if s.prunable || !path.is_dir() {
            continue;
        }
        let Ok(repo) = Repository::open(&path) else {
            continue;
        };
        out.push(Watched {
            id: s.id.clone(),
            path,
            common_dir: canonical(repo.commondir()),
            git_dir: canonical(repo.path()),
            is_main: s.is_main,
        });
    }
    out
}

/// Watches `targets` and calls `on_change` once per burst of changes that matter to their
/// counts, on the watcher's thread (one call at a time). Stops when the handle is dropped.
pub fn watch(
    targets: Vec<Watched>,
    timing: Timing,
    on_change: impl FnMut(Changed) + Send + 'static,
) -> Result<TreeWatch, WatchError> {
    let mut roots: Vec<PathBuf> = Vec::new();
    for t in &targets {
        for p in [&t.path, &t.common_dir] {
            if !roots.contains(p) {
                roots.push(p.clone());
            }
        }
    }
    let rules = Rules {
        layout: Layout::new(targets),
        on_change,
    };
    watch_tree(roots, timing, rules)
}

struct Rules<F> {
    layout: Layout,
    on_change: F,
}

impl<F: FnMut(Changed) + Send + 'static> TreeRules for Rules<F> {
    fn skip(&mut self, path: &Path, is_dir: bool) -> bool {
        self.layout.skip(path, is_dir)
    }

    fn batch(&mut self, paths: Vec<PathBuf>) -> bool {
        let (changed, ignore_files) = self.layout.changed(&paths);
        if ignore_files {
            self.layout.forget_ignores();
        }
        if !changed.ids.is_empty() || changed.listing {
            (self.on_change)(changed);
        }
        ignore_files
    }
}

/// Where each watched path belongs, and git's ignore rules per worktree (remembered).
pub(crate) struct Layout {
    targets: Vec<Target>,
}

struct Target {
    w: Watched,
    /// Opened on first use, for its ignore rules.
    repo: Option<Repository>,
    /// Answers given so far, by path relative to the folder; cleared when an ignore file changes.
    ignored: HashMap<PathBuf, bool>,
}

/// Above this many remembered answers a worktree's memory starts again.
const REMEMBERED: usize = 50_000;

/// What a path is, for the watcher.
#[derive(Debug, PartialEq, Eq)]
enum Place<'a> {
    /// Of no interest (git's objects, logs, lock files; an ignored path; outside every target).
    Skip,
    /// In the git dir, concerning these worktrees; `listing` when worktrees may come or go.
    Git { ids: Vec<&'a str>, listing: bool },
    /// A file of this worktree (not ignored).
    Worktree(usize),
}

/// Folders of a git dir that the counts never read.
const GIT_SKIP: &[&str] = &[
    "objects",
    "logs",
    "hooks",
    "lfs",
    "rr-cache",
    "fsmonitor--daemon",
];

impl Layout {
    pub(crate) fn new(targets: Vec<Watched>) -> Layout {
        Layout {
            targets: targets
                .into_iter()
                .map(|w| Target {
                    w,
                    repo: None,
                    ignored: HashMap::new(),
                })
                .collect(),
        }
    }

    fn skip(&mut self, path: &Path, is_dir: bool) -> bool {
        match self.place(path) {
            Place::Skip => true,
            Place::Git { .. } => false,
            Place::Worktree(i) => self.is_ignored(i, path, is_dir),
        }
    }

    /// The worktrees a batch of paths concerns, and whether an ignore file was among them.
    fn changed(&mut self, paths: &[PathBuf]) -> (Changed, bool) {
        let mut changed = Changed::default();
        let mut ignore_files = false;
        for path in paths {
            if path.file_name().is_some_and(|n| n == ".gitignore") || path.ends_with("info/exclude")
            {
                ignore_files = true;
            }
            match self.place(path) {
                Place::Skip => {}
                Place::Git { ids, listing } => {
                    changed.ids.extend(ids.into_iter().map(str::to_owned));
                    changed.listing |= listing;
                }
                Place::Worktree(i) => {
                    let t = &self.targets[i];
                    changed.ids.insert(t.w.id.clone());
                    // The folder itself went away: it is prunable now.
                    if path == &t.w.path && !path.exists() {
                        changed.listing = true;
                    }
                }
            }
        }
        (changed, ignore_files)
    }

    fn forget_ignores(&mut self) {
        for t in &mut self.targets {
            t.ignored.clear();
        }
    }

    fn place(&self, path: &Path) -> Place<'_> {
        // Git dirs first: the main worktree's `.git` is inside its folder.
        let common = self
            .targets
            .iter()
            .map(|t| &t.w.common_dir)
            .filter(|c| path.starts_with(c))
            .max_by_key(|c| c.as_os_str().len());
        if let Some(common) = common {
            return self.git_place(common, path.strip_prefix(common).unwrap_or(path));
        }
        let Some(i) = (0..self.targets.len())
            .filter(|&i| path.starts_with(&self.targets[i].w.path))
            .max_by_key(|&i| self.targets[i].w.path.as_os_str().len())
        else {
            return Place::Skip;
        };
        let rel = path.strip_prefix(&self.targets[i].w.path).unwrap_or(path);
        // Another repository's git dir inside the folder (a nested clone): its churn is not ours.
        if rel
            .components()
            .any(|c| c == Component::Normal(".git".as_ref()))
        {
            return Place::Skip;
        }
        Place::Worktree(i)
    }

    fn git_place(&self, common: &Path, rel: &Path) -> Place<'_> {
        let names: Vec<&str> = rel
            .components()
            .filter_map(|c| match c {
                Component::Normal(n) => n.to_str(),
                _ => None,
            })
            .collect();
        if names.last().is_some_and(|n| n.ends_with(".lock")) {
            return Place::Skip;
        }
        // Objects, logs and the like, anywhere but inside refs (a branch may be named "logs").
        for n in &names {
            if *n == "refs" {
                break;
            }
            if GIT_SKIP.contains(n) {
                return Place::Skip;
            }
        }
        let of_repo = || -> Vec<&str> {
            self.targets
                .iter()
                .filter(|t| t.w.common_dir == common)
                .map(|t| t.w.id.as_str())
                .collect()
        };
        match names.as_slice() {
            // The common dir itself.
            [] => Place::Git {
                ids: of_repo(),
                listing: true,
            },
            ["worktrees"] => Place::Git {
                ids: Vec::new(),
                listing: true,
            },
            ["worktrees", name, rest @ ..] => {
                let git_dir = common.join("worktrees").join(name);
                let ids: Vec<&str> = self
                    .targets
                    .iter()
                    .filter(|t| t.w.git_dir == git_dir)
                    .map(|t| t.w.id.as_str())
                    .collect();
                // A worktree record made or removed, or its folder link (`gitdir`) changed.
                let listing = ids.is_empty() || rest.is_empty() || rest == ["gitdir"];
                Place::Git { ids, listing }
            }
            // Refs, the config, excludes, submodules: any worktree's base or counts may move.
            ["refs" | "packed-refs" | "config" | "info" | "modules" | "shallow", ..] => {
                Place::Git {
                    ids: of_repo(),
                    listing: false,
                }
            }
            // HEAD, the index, MERGE_HEAD…: the main worktree's own.
            _ => Place::Git {
                ids: self
                    .targets
                    .iter()
                    .filter(|t| t.w.git_dir == common)
                    .map(|t| t.w.id.as_str())
                    .collect(),
                listing: false,
            },
        }
    }

    /// Whether git ignores `path` in worktree `i` (asked of git2 once, then remembered).
    fn is_ignored(&mut self, i: usize, path: &Path, is_dir: bool) -> bool {
        let t = &mut self.targets[i];
        let Ok(rel) = path.strip_prefix(&t.w.path) else {
            return false;
        };
        if rel.as_os_str().is_empty() {
            return false;
        }
        if let Some(&known) = t.ignored.get(rel) {
            return known;
        }
        if t.repo.is_none() {
            t.repo = Repository::open(&t.w.path).ok();
        }
        let Some(repo) = t.repo.as_ref() else {
            return false;
        };
        // git2 tells a folder by a trailing slash when it no longer exists to be looked at.
        let ignored = if is_dir && !path.exists() {
            let mut with_slash = rel.as_os_str().to_owned();
            with_slash.push("/");
            repo.is_path_ignored(Path::new(&with_slash))
        } else {
            repo.is_path_ignored(rel)
        }
        .unwrap_or(false);
        if t.ignored.len() >= REMEMBERED {
            t.ignored.clear();
        }
        t.ignored.insert(rel.to_owned(), ignored);
        ignored
    }
}

#[cfg(test)]
#[path = "watcher_tests.rs"]
mod tests;
