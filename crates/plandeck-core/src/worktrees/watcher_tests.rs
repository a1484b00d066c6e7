//! The worktree watcher on real repositories with a real inotify watcher: what git ignores makes no
//! re-list, a real change makes exactly one, naming only its worktree.

use std::fs;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Instant;

use plandeck_testkit::git::{add_worktree, new_repo, write};

use super::*;
use crate::config::Roots;
use crate::worktrees::{list_with, ListOptions};

const PATIENCE: Duration = Duration::from_secs(10);
const TEST_TIMING: Timing = Timing {
    quiet: Duration::from_millis(500),
    max_wait: Duration::from_secs(10),
};

/// A repository on `main` (sources, a `.gitignore` for `target/`, `node_modules/`, `*.log`; an
/// `info/exclude` for `scratch/`) and a linked worktree `feature`.
struct Repo {
    _tmp: tempfile::TempDir,
    main: PathBuf,
    linked: PathBuf,
    roots: Roots,
}

fn repo() -> Repo {
    let tmp = tempfile::tempdir().unwrap();
    let base = canonical(tmp.path());
    let main = base.join("repo");
    let repo = new_repo(
        &main,
        &[
            ("src/lib.rs", "pub fn a() {}\n"),
            (".gitignore", "target/\nnode_modules/\n*.log\n"),
        ],
    );
    write(&main.join(".git/info/exclude"), "scratch/\n");
    let linked = base.join("feature");
    add_worktree(&repo, "feature", &linked, "feature");
    let home = base.join("home");
    fs::create_dir_all(&home).unwrap();
    let mut roots = Roots::under_home(&home);
    roots.extra_repos = vec![main.clone()];
    Repo {
        _tmp: tmp,
        main,
        linked,
        roots,
    }
}

struct Watching {
    _handle: TreeWatch,
    rx: Receiver<Changed>,
    linked_id: String,
    main_id: String,
}

fn start(r: &Repo) -> Watching {
    let list = list_with(&r.roots, None, &[], ListOptions::default()).unwrap();
    let id_of = |p: &Path| {
        list.iter()
            .find(|w| Path::new(&w.path) == p)
            .unwrap()
            .id
            .clone()
    };
    let (linked_id, main_id) = (id_of(&r.linked), id_of(&r.main));
    let targets = watch_targets(&list);
    assert_eq!(targets.len(), 2, "{targets:?}");
    let (tx, rx) = mpsc::channel();
    let handle = watch(targets, TEST_TIMING, move |c| {
        let _ = tx.send(c);
    })
    .unwrap();
    let w = Watching {
        _handle: handle,
        rx,
        linked_id,
        main_id,
    };
    // Armed on the watcher's thread: write a probe until it is seen, then let things go quiet.
    let probe = r.linked.join("src/probe.txt");
    let deadline = Instant::now() + PATIENCE;
    'armed: loop {
        assert!(Instant::now() < deadline, "the watcher never saw the probe");
        write(&probe, "probe");
        let until = Instant::now() + Duration::from_secs(1);
        while let Ok(c) =
            w.rx.recv_timeout(until.saturating_duration_since(Instant::now()))
        {
            if c.ids.contains(&w.linked_id) {
                break 'armed;
            }
        }
    }
    while w.rx.recv_timeout(TEST_TIMING.quiet * 3).is_ok() {}
    w
}

fn assert_nothing(rx: &Receiver<Changed>, what: &str) {
    match rx.recv_timeout(TEST_TIMING.quiet * 4) {
        Err(RecvTimeoutError::Timeout) => {}
        Ok(c) => panic!("{what} made a re-list: {c:?}"),
        Err(e) => panic!("{what}: {e}"),
    }
}

#[test]
fn ignored_paths_make_no_relist_and_a_real_change_exactly_one() {
    let r = repo();
    let w = start(&r);

    // An agent's build and install in the linked worktree: ignored folders made and filled,
    // files rewritten, an ignored log beside the sources, a folder only info/exclude ignores.
    for round in 0..3 {
        for d in 0..8 {
            for f in 0..40 {
                write(
                    &r.linked.join(format!("target/debug/deps{d}/f{f}.o")),
                    &format!("{round}"),
                );
                write(
                    &r.linked.join(format!("node_modules/pkg{d}/lib/f{f}.js")),
                    &format!("{round}"),
                );
            }
        }
        write(&r.linked.join("src/build.log"), &format!("{round}"));
        write(&r.linked.join("scratch/notes.txt"), &format!("{round}"));
        write(&r.main.join("target/release/app"), &format!("{round}"));
    }
    assert_nothing(&w.rx, "writes to ignored paths");

    // A burst of real edits in the linked worktree: one change, naming only it.
    for round in 0..5 {
        write(
            &r.linked.join("src/lib.rs"),
            &format!("pub fn b{round}() {{}}\n"),
        );
        write(&r.linked.join("src/new/mod.rs"), &format!("// {round}\n"));
    }
    let c = w.rx.recv_timeout(PATIENCE).expect("a change for the edits");
    assert_eq!(
        c,
        Changed {
            ids: [w.linked_id.clone()].into(),
            listing: false
        }
    );
    assert_nothing(&w.rx, "after the one change of the burst");

    // Staging in the main worktree touches its index (inside the main's `.git`): the main only.
    let repo = Repository::open(&r.main).unwrap();
    write(&r.main.join("src/lib.rs"), "pub fn c() {}\n");
    let mut index = repo.index().unwrap();
    index.add_path(Path::new("src/lib.rs")).unwrap();
    index.write().unwrap();
    let c =
        w.rx.recv_timeout(PATIENCE)
            .expect("a change for the staging");
    assert_eq!(c.ids, [w.main_id.clone()].into(), "{c:?}");
    assert!(!c.listing);
    assert_nothing(&w.rx, "after the staging");
}

#[test]
fn an_ignore_file_change_is_followed() {
    let r = repo();
    fs::create_dir_all(r.linked.join("node_modules/pkg")).unwrap();
    let w = start(&r);
    write(&r.linked.join("node_modules/pkg/a.js"), "1");
    assert_nothing(&w.rx, "a write in an ignored folder");

    // node_modules/ is no longer ignored in the linked worktree: its files count from now on.
    write(&r.linked.join(".gitignore"), "target/\n*.log\n");
    let c =
        w.rx.recv_timeout(PATIENCE)
            .expect("a change for .gitignore");
    assert!(c.ids.contains(&w.linked_id), "{c:?}");
    assert_nothing(&w.rx, "after the .gitignore change");
    write(&r.linked.join("node_modules/pkg/a.js"), "2");
    let c =
        w.rx.recv_timeout(PATIENCE)
            .expect("a change in the folder no longer ignored");
    assert_eq!(c.ids, [w.linked_id.clone()].into(), "{c:?}");
}

#[test]
fn a_new_worktree_asks_for_a_new_listing() {
    let r = repo();
    let w = start(&r);
    let repo = Repository::open(&r.main).unwrap();
    let other = r.main.parent().unwrap().join("other");
    add_worktree(&repo, "other", &other, "other");
    let deadline = Instant::now() + PATIENCE;
    loop {
        let c =
            w.rx.recv_timeout(deadline.saturating_duration_since(Instant::now()))
                .expect("a change asking for a new listing");
        if c.listing {
            break;
        }
    }
}

/// The live handle's worktrees, held without a window: a listing reports each folder's size, arms
/// the watcher, and a change in a worktree comes back as that worktree read again.
#[test]
fn the_live_worktrees_measure_and_follow_without_a_window() {
    use crate::live::{LiveEvent, LiveWorktrees};
    use std::sync::{Arc, Mutex};
    let r = repo();
    let (tx, rx) = mpsc::channel::<LiveEvent>();
    let tx = Mutex::new(tx);
    let live = LiveWorktrees::new(
        &r.roots,
        Arc::new(Mutex::new(None)),
        Arc::new(move |e| {
            let _ = tx.lock().unwrap().send(e);
        }),
    );
    let list = live.list().unwrap();
    let linked = list
        .iter()
        .find(|w| Path::new(&w.path) == r.linked)
        .unwrap()
        .id
        .clone();
    let mut sized = std::collections::BTreeSet::new();
    let mut updated = false;
    let deadline = Instant::now() + PATIENCE * 3;
    let mut probe = 0;
    while !(updated && sized.len() == list.len()) {
        assert!(
            Instant::now() < deadline,
            "sizes {sized:?}, updated {updated}"
        );
        // Written until the watcher (armed on its own thread) reports it.
        if !updated {
            probe += 1;
            write(
                &r.linked.join("src/new.rs"),
                &format!("pub fn b{probe}() {{}}\n"),
            );
        }
        match rx.recv_timeout(Duration::from_secs(1)) {
            Ok(LiveEvent::WorktreeSize(s)) => {
                assert!(s.size_bytes.is_some_and(|b| b > 0), "{s:?}");
                sized.insert(s.id);
            }
            Ok(LiveEvent::WorktreesUpdated(fresh)) => {
                let w = fresh
                    .iter()
                    .find(|w| w.id == linked)
                    .expect("the linked worktree");
                assert!(w.changed_files >= 1, "{w:?}");
                updated = true;
            }
            Ok(_) | Err(_) => {}
        }
    }
}
