//! What a window holds between its calls: the roots it shows (switchable to the demo workspace
//! and back), their live state (the watchers, the session index, the gate presence) and the other
//! machines. The shell keeps one [`Workspace`] and makes every call through it: a deck per call
//! ([`Workspace::deck`]), and the few that change the roots themselves (the demo, a folder of plans
//! or a repository added after the person picked it in a native dialog).
//!
//! Every change is reported through the one `emit` the shell gives at [`Workspace::start`], the
//! way the live state reports its own ([`LiveEvent`]); the shell names none of them.

use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use crate::config::{Env, Roots};
use crate::deck::Deck;
use crate::elsewhere::Elsewhere;
use crate::ipc::{ErrorKind, IpcError};
use crate::live::{GateChanged, Live, LiveEvent, RootsChanged, WorktreesChanged};
use crate::machines::Machines;
use crate::overview::{overview, Overview};
use crate::plans::PlansChanged;
use crate::sessions::SessionIndex;
use crate::sync::lock;

/// How the person's own roots are resolved (flags, settings, environment): where "Leave the
/// demo" goes. Resolved only then, so a window started on the demo reads nothing of the person's.
pub type OwnRoots = Box<dyn Fn() -> Result<Roots, IpcError> + Send + Sync>;

/// Where every change of a workspace is reported.
pub type Emit = Arc<dyn Fn(LiveEvent) + Send + Sync>;

/// The roots shown, and whether they are the demo workspace.
#[derive(Debug, Clone)]
pub struct Current {
    pub roots: Roots,
    pub demo: bool,
}

/// One window's roots, their live state and the other machines.
pub struct Workspace {
    current: RwLock<Current>,
    own_roots: OwnRoots,
    /// The live session index, followed by byte offset as transcripts grow.
    sessions: Arc<Mutex<Option<SessionIndex>>>,
    /// The watchers, liveness tick and gate presence of the current roots; replaced when the
    /// roots change (dropping it stops them).
    live: Mutex<Option<Live>>,
    /// One (re)start of the live state at a time (the first runs on a thread of its own while a
    /// command may restart it).
    starting: Mutex<()>,
    /// The other machines (`plandeck hosts`), connected from [`Workspace::start`] (none in the
    /// demo).
    machines: OnceLock<Arc<Machines>>,
    emit: OnceLock<Emit>,
}

impl Workspace {
    /// A workspace showing `roots` (`demo`: the demo workspace); nothing runs until
    /// [`Workspace::start`].
    pub fn new(roots: Roots, demo: bool, own_roots: OwnRoots) -> Workspace {
        Workspace {
            current: RwLock::new(Current { roots, demo }),
            own_roots,
            sessions: Arc::new(Mutex::new(None)),
            live: Mutex::new(None),
            starting: Mutex::new(()),
            machines: OnceLock::new(),
            emit: OnceLock::new(),
        }
    }

    /// Reports every change through `emit` from now on, and connects the other machines. The
    /// live state starts with [`Workspace::restart`] (slow on a heavy home: the caller's thread).
    pub fn start(&self, emit: impl Fn(LiveEvent) + Send + Sync + 'static) {
        let _ = self.emit.set(Arc::new(emit));
        self.start_machines();
    }

    fn emit(&self) -> Emit {
        self.emit.get().cloned().unwrap_or_else(|| Arc::new(|_| {}))
    }

    fn report(&self, event: LiveEvent) {
        (self.emit())(event);
    }

    pub fn current(&self) -> Current {
        self.current
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    pub fn roots(&self) -> Roots {
        self.current().roots
    }

    fn switch(&self, roots: Roots, demo: bool) {
        *self.current.write().unwrap_or_else(|e| e.into_inner()) = Current { roots, demo };
    }

    /// (Re)starts every watcher over the current roots and rebuilds the session index; the gate
    /// is reported changed (the requests waiting are those of these roots).
    #[tracing::instrument(skip_all)]
    pub fn restart(&self) {
        let _one = lock(&self.starting);
        // The old handle goes first, so its presence file and watchers are gone before new ones
        // start.
        *lock(&self.live) = None;
        let emit = self.emit();
        let handle = Live::start(&self.roots(), self.sessions.clone(), move |e| emit(e));
        *lock(&self.live) = Some(handle);
        // The requests of these roots (some may wait already): the title counts them again.
        self.report(LiveEvent::Gate(GateChanged::default()));
    }

    /// Every call on the current roots, over their live state; while the live state starts (at
    /// launch, or the roots changing), over a fresh one reporting through the same `emit`, so a
    /// listing in that moment still gets its sizes.
    pub fn deck(&self) -> Deck {
        let current = self.current();
        let deck = match lock(&self.live).as_ref() {
            Some(live) => Deck::of(live, current.demo),
            None => Deck::starting(
                current.roots,
                current.demo,
                self.sessions.clone(),
                self.emit(),
            ),
        };
        match self.machines.get() {
            Some(machines) => deck.with_elsewhere(machines.clone()),
            None => deck,
        }
    }

    /// Connects the machines of the current roots' settings (none in the demo).
    fn start_machines(&self) {
        let current = self.current();
        let hosts = if current.demo {
            Vec::new()
        } else {
            crate::config::hosts(&current.roots.settings_path()).unwrap_or_else(|e| {
                tracing::warn!("no machines: {e}");
                Vec::new()
            })
        };
        match self.machines.get() {
            Some(machines) => machines.hosts_changed(hosts),
            None => {
                let emit = self.emit();
                let machines = Machines::start(hosts, Env::from_process(), move |e| emit(e));
                let _ = self.machines.set(Arc::new(machines));
            }
        }
    }

    /// Creates the demo workspace under `parent` and shows it ("Load demo" on the empty state).
    pub fn load_demo(&self, parent: &Path) -> Result<Overview, IpcError> {
        let roots = crate::demo::create(parent)?.roots();
        self.switch(roots.clone(), true);
        self.restart();
        self.report(LiveEvent::Roots(RootsChanged { demo: true }));
        Ok(overview(&roots, true))
    }

    /// "Leave the demo": shows the person's own folders again (resolved now). The demo workspace
    /// is left as it is.
    pub fn leave_demo(&self) -> Result<Overview, IpcError> {
        let own = (self.own_roots)()?;
        if own.is_demo() {
            // Started as `HOME=<demo> plandeck`: its own folders are the demo's.
            return Err(IpcError::new(
                ErrorKind::BadInput,
                format!(
                    "this window was opened with HOME={}, the demo workspace: close it and run \
                     `plandeck` to see your own folders",
                    own.home.display()
                ),
            ));
        }
        self.switch(own.clone(), false);
        self.restart();
        self.start_machines();
        self.report(LiveEvent::Roots(RootsChanged { demo: false }));
        Ok(overview(&own, false))
    }

    /// Adds `folder` (picked by the person in a native dialog) to the folders of plans, then
    /// watches it too, so its plans show up live. Returns the folder as added.
    pub fn add_plan_folder(&self, folder: &Path) -> Result<String, IpcError> {
        let mut roots = self.roots();
        roots.add_extra_plan_folder(folder)?;
        self.switch(roots, self.current().demo);
        self.restart();
        self.report(LiveEvent::Plans(PlansChanged::of(Vec::new())));
        Ok(folder.to_string_lossy().into_owned())
    }

    /// Adds `folder` (picked by the person in a native dialog) to the repositories Plandeck lists
    /// (a session starts only in one of those). Returns the folder as added.
    pub fn add_repo(&self, folder: &Path) -> Result<String, IpcError> {
        let mut roots = self.roots();
        roots.add_extra_repo(folder)?;
        self.switch(roots, self.current().demo);
        self.report(LiveEvent::Worktrees(WorktreesChanged::default()));
        Ok(folder.display().to_string())
    }

    /// The window is going: hooks stop waiting for it (its gate presence goes).
    pub fn leave(&self) {
        crate::gate::app_gone(&self.roots());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    fn events() -> (
        impl Fn(LiveEvent) + Send + Sync + 'static,
        mpsc::Receiver<LiveEvent>,
    ) {
        let (tx, rx) = mpsc::channel();
        let tx = Mutex::new(tx);
        (
            move |e| {
                let _ = lock(&tx).send(e);
            },
            rx,
        )
    }

    fn next(rx: &mpsc::Receiver<LiveEvent>, want: impl Fn(&LiveEvent) -> bool) -> LiveEvent {
        loop {
            match rx.recv_timeout(Duration::from_secs(30)) {
                Ok(e) if want(&e) => return e,
                Ok(_) => continue,
                Err(e) => panic!("no such event: {e}"),
            }
        }
    }

    /// The demo and back, as the window does it: each switch restarts the live state over the
    /// new roots, says so, and the decks after it list the roots shown.
    #[test]
    fn the_demo_is_loaded_and_left_and_each_switch_is_reported() {
        let home = tempfile::tempdir().unwrap();
        let own = Roots::under_home(&home.path().canonicalize().unwrap());
        let resolved = own.clone();
        let ws = Workspace::new(own.clone(), false, Box::new(move || Ok(resolved.clone())));
        let (emit, rx) = events();
        ws.start(emit);
        ws.restart();
        assert!(ws.deck().list_plans().unwrap().plans.is_empty());

        let parent = tempfile::tempdir().unwrap();
        let shown = ws.load_demo(parent.path()).unwrap();
        assert!(shown.demo, "{shown:?}");
        next(&rx, |e| {
            matches!(e, LiveEvent::Roots(RootsChanged { demo: true }))
        });
        assert!(ws.current().demo);
        assert!(!ws.deck().list_plans().unwrap().plans.is_empty());

        let back = ws.leave_demo().unwrap();
        assert!(!back.demo);
        next(&rx, |e| {
            matches!(e, LiveEvent::Roots(RootsChanged { demo: false }))
        });
        assert_eq!(ws.roots().home, own.home);
        assert!(ws.deck().list_plans().unwrap().plans.is_empty());
    }

    /// A window opened with HOME set to the demo workspace cannot leave it for "its own" folders.
    #[test]
    fn a_window_whose_own_home_is_the_demo_does_not_leave_it() {
        let parent = tempfile::tempdir().unwrap();
        let demo = crate::demo::create(parent.path()).unwrap().roots();
        let own = demo.clone();
        let ws = Workspace::new(demo, true, Box::new(move || Ok(own.clone())));
        let e = ws.leave_demo().unwrap_err();
        assert_eq!(e.kind, ErrorKind::BadInput, "{e:?}");
        assert!(ws.current().demo);
    }

    /// A folder of plans and a repository the person picked are added to the settings and shown
    /// at once (the plans watched, the worktrees listed again).
    #[test]
    fn a_picked_plan_folder_and_repository_are_added_and_reported() {
        let home = tempfile::tempdir().unwrap();
        let home_path = home.path().canonicalize().unwrap();
        let roots = Roots::under_home(&home_path);
        let ws = Workspace::new(roots, false, Box::new(|| unreachable!()));
        let (emit, rx) = events();
        ws.start(emit);

        let folder = home_path.join("notes");
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("plan.md"), "# From notes\n\n1. Do it\n").unwrap();
        ws.add_plan_folder(&folder).unwrap();
        next(&rx, |e| matches!(e, LiveEvent::Plans(_)));
        let titles: Vec<String> = ws
            .deck()
            .list_plans()
            .unwrap()
            .plans
            .into_iter()
            .map(|p| p.title)
            .collect();
        assert_eq!(titles, ["From notes"]);

        let repo = home_path.join("repo");
        plandeck_testkit::git::new_repo(&repo, &[("a.txt", "a\n")]);
        ws.add_repo(&repo).unwrap();
        next(&rx, |e| matches!(e, LiveEvent::Worktrees(_)));
        assert!(ws.roots().extra_repos.contains(&repo));
    }
}
