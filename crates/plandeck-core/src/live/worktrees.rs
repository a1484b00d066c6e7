//! The worktrees, kept live: their folder sizes (measured in the background, remembered until a
//! change) and a watcher over the listed worktrees (re-armed only when the set of worktrees
//! changes). Each burst of changes that matters (ignored paths never do) re-reads only the
//! worktrees it concerns, on the watcher's thread, and reports them as
//! [`LiveEvent::WorktreesUpdated`]; a worktree added or removed asks for a new listing
//! ([`LiveEvent::Worktrees`]); sizes come as [`LiveEvent::WorktreeSize`].

use std::sync::{Arc, Mutex, Weak};

use super::{lock, LiveEvent, WorktreesChanged};
use crate::config::Roots;
use crate::sessions::{self, SessionIndex, WorktreeHint};
use crate::watch::TreeWatch;
use crate::worktrees::{self, Sizes, Watched, WorktreeError, WorktreeSummary};

type Emit = Arc<dyn Fn(LiveEvent) + Send + Sync>;

/// The live worktrees of one set of roots.
pub struct LiveWorktrees {
    roots: Roots,
    /// The live session index (for the sessions' worktree hints).
    sessions: Arc<Mutex<Option<SessionIndex>>>,
    sizes: Sizes,
    watcher: Mutex<Option<(Vec<Watched>, TreeWatch)>>,
    emit: Emit,
}

impl LiveWorktrees {
    /// Worktrees of `roots`, reporting through `emit` (the [`super::Live`] handle makes its own;
    /// one made alone reports nothing until listed).
    pub fn new(roots: &Roots, sessions: Arc<Mutex<Option<SessionIndex>>>, emit: Emit) -> Arc<Self> {
        Arc::new(Self {
            roots: roots.clone(),
            sessions,
            sizes: Sizes::new(),
            watcher: Mutex::new(None),
            emit,
        })
    }

    /// Every worktree, with the sizes known; the others are measured in the background (each
    /// comes as [`LiveEvent::WorktreeSize`]), and the listed worktrees are watched from now on.
    pub fn list(self: &Arc<Self>) -> Result<Vec<WorktreeSummary>, WorktreeError> {
        let opts = worktrees::ListOptions::default();
        let mut list = worktrees::list_with(&self.roots, None, &self.hints(), opts)?;
        let missing = self.sizes.fill(&mut list);
        let emit = self.emit.clone();
        self.sizes
            .measure(missing, move |size| emit(LiveEvent::WorktreeSize(size)));
        self.watch(&list);
        Ok(list)
    }

    /// The sessions' worktree hints from the live index (read once at start and followed since),
    /// or from the transcripts when the index is not there yet.
    pub fn hints(&self) -> Vec<WorktreeHint> {
        if let Some(index) = lock(&self.sessions).as_ref() {
            return index.worktree_hints();
        }
        sessions::worktree_hints(&self.roots)
    }

    /// Watches `list` for live counts; re-armed only when the set of worktrees changes.
    fn watch(self: &Arc<Self>, list: &[WorktreeSummary]) {
        let targets = worktrees::watch_targets(list);
        let mut slot = lock(&self.watcher);
        if slot.as_ref().is_some_and(|(t, _)| *t == targets) {
            return;
        }
        let this: Weak<Self> = Arc::downgrade(self);
        let on_change = move |changed: worktrees::Changed| {
            if let Some(this) = this.upgrade() {
                this.changed(&changed);
            }
        };
        match worktrees::watch(targets.clone(), worktrees::WATCH_TIMING, on_change) {
            Ok(h) => *slot = Some((targets, h)),
            Err(e) => tracing::warn!("worktrees are not watched live: {e}"),
        }
    }

    /// What a burst of changes means: sizes to measure again, the changed worktrees re-read.
    fn changed(&self, changed: &worktrees::Changed) {
        for id in &changed.ids {
            self.sizes.invalidate(id);
        }
        if changed.listing {
            (self.emit)(LiveEvent::Worktrees(WorktreesChanged::default()));
            return;
        }
        let ids: Vec<&String> = changed.ids.iter().collect();
        match worktrees::refresh(&self.roots, &self.hints(), &ids) {
            Ok(mut fresh) => {
                let missing = self.sizes.fill(&mut fresh);
                (self.emit)(LiveEvent::WorktreesUpdated(fresh));
                let emit = self.emit.clone();
                self.sizes
                    .measure(missing, move |size| emit(LiveEvent::WorktreeSize(size)));
            }
            Err(e) => {
                tracing::warn!("cannot re-read changed worktrees: {e}");
                (self.emit)(LiveEvent::Worktrees(WorktreesChanged::default()));
            }
        }
    }
}
