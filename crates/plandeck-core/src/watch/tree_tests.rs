use super::*;
use std::fs;
use std::sync::atomic::AtomicUsize;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Mutex;

const PATIENCE: Duration = Duration::from_secs(10);
const TIMING: Timing = Timing {
    quiet: Duration::from_millis(500),
    max_wait: Duration::from_secs(10),
};

/// Rules that skip every path with a component named `skip`, record what they were asked, and
/// send each batch.
struct Recording {
    skip: &'static str,
    asked: Arc<Mutex<Vec<PathBuf>>>,
    batches: Sender<Vec<PathBuf>>,
    /// When set, each batch waits for a go-ahead on it, and `running` counts batches under way.
    gate: Option<(Receiver<()>, Arc<AtomicUsize>, Sender<usize>)>,
}

impl TreeRules for Recording {
    fn skip(&mut self, path: &Path, _is_dir: bool) -> bool {
        self.asked.lock().unwrap().push(path.to_owned());
        path.components().any(|c| c.as_os_str() == self.skip)
    }

    fn batch(&mut self, paths: Vec<PathBuf>) -> bool {
        if let Some((go, running, started)) = &self.gate {
            let now = running.fetch_add(1, Ordering::SeqCst) + 1;
            let _ = started.send(now);
            let _ = go.recv_timeout(PATIENCE);
            running.fetch_sub(1, Ordering::SeqCst);
        }
        let _ = self.batches.send(paths);
        false
    }
}

fn start(root: &Path, gate: Option<(Receiver<()>, Arc<AtomicUsize>, Sender<usize>)>) -> Started {
    let (tx, rx) = mpsc::channel();
    let asked = Arc::new(Mutex::new(Vec::new()));
    let rules = Recording {
        skip: "target",
        asked: Arc::clone(&asked),
        batches: tx,
        gate,
    };
    let handle = watch_tree(vec![root.to_owned()], TIMING, rules).unwrap();
    Started {
        _handle: handle,
        rx,
        asked,
    }
}

struct Started {
    _handle: TreeWatch,
    rx: Receiver<Vec<PathBuf>>,
    asked: Arc<Mutex<Vec<PathBuf>>>,
}

/// Writes `probe` until a batch reports it (the tree is armed on the watcher's thread), then
/// waits for the tree to be quiet, so the test starts from nothing pending.
fn wait_armed(rx: &Receiver<Vec<PathBuf>>, probe: &Path) {
    let deadline = Instant::now() + PATIENCE;
    'outer: loop {
        assert!(Instant::now() < deadline, "the watcher never saw {probe:?}");
        fs::write(probe, "probe").unwrap();
        let until = Instant::now() + Duration::from_secs(1);
        while let Ok(batch) = rx.recv_timeout(until.saturating_duration_since(Instant::now())) {
            if batch.iter().any(|p| p == probe) {
                break 'outer;
            }
        }
    }
    while rx.recv_timeout(TIMING.quiet * 3).is_ok() {}
}

/// Asserts that no batch comes while the tree stays quiet for several quiet periods.
fn assert_no_batch(rx: &Receiver<Vec<PathBuf>>, what: &str) {
    match rx.recv_timeout(TIMING.quiet * 4) {
        Err(RecvTimeoutError::Timeout) => {}
        Ok(batch) => panic!("{what}: unexpected batch {batch:?}"),
        Err(e) => panic!("{what}: {e}"),
    }
}

#[test]
fn a_skipped_folder_is_never_watched_and_a_burst_comes_out_once() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("wt");
    fs::create_dir_all(root.join("src/deep")).unwrap();
    fs::create_dir_all(root.join("target/debug")).unwrap();
    let w = start(&root, None);
    wait_armed(&w.rx, &root.join("src/deep/probe"));

    // A build: thousands of writes in the skipped folder, folders made in it, files rewritten.
    for round in 0..3 {
        for d in 0..10 {
            let sub = root.join(format!("target/debug/deps{d}"));
            fs::create_dir_all(&sub).unwrap();
            for f in 0..50 {
                fs::write(sub.join(format!("f{f}.o")), format!("{round}")).unwrap();
            }
        }
    }
    assert_no_batch(&w.rx, "writes in the skipped folder");
    // The kernel reported nothing from inside it: only `target` itself was ever asked about.
    let inside: Vec<PathBuf> = w
        .asked
        .lock()
        .unwrap()
        .iter()
        .filter(|p| p.starts_with(root.join("target")) && *p != &root.join("target"))
        .cloned()
        .collect();
    assert!(
        inside.is_empty(),
        "paths inside the skipped folder: {inside:?}"
    );

    // A burst of real edits, a new folder among them: one batch with all of it, then nothing.
    let edits = [
        root.join("src/a.rs"),
        root.join("src/deep/b.rs"),
        root.join("src/new/c.rs"),
    ];
    for round in 0..5 {
        for e in &edits {
            fs::create_dir_all(e.parent().unwrap()).unwrap();
            fs::write(e, format!("{round}")).unwrap();
        }
    }
    let batch = w.rx.recv_timeout(PATIENCE).expect("a batch for the edits");
    for e in &edits {
        assert!(batch.contains(e), "{e:?} missing from {batch:?}");
    }
    assert!(
        batch.iter().all(|p| !p.starts_with(root.join("target"))),
        "{batch:?}"
    );
    assert_no_batch(&w.rx, "after the one batch of the burst");

    // The new folder is watched now.
    let later = root.join("src/new/d.rs");
    fs::write(&later, "d").unwrap();
    let batch =
        w.rx.recv_timeout(PATIENCE)
            .expect("a batch for the new folder's file");
    assert_eq!(batch, vec![later]);
}

#[test]
fn one_batch_at_a_time_and_what_changes_meanwhile_comes_out_once_after() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("wt");
    fs::create_dir_all(&root).unwrap();
    let (go_tx, go_rx) = mpsc::channel();
    let running = Arc::new(AtomicUsize::new(0));
    let (started_tx, started_rx) = mpsc::channel();
    let w = start(&root, Some((go_rx, Arc::clone(&running), started_tx)));
    // Arming: each batch of the probe is let through, until the tree is quiet.
    let probe = root.join("probe");
    let deadline = Instant::now() + PATIENCE;
    let mut seen = false;
    loop {
        if !seen {
            fs::write(&probe, "probe").unwrap();
        }
        let wait = if seen {
            TIMING.quiet * 3
        } else {
            Duration::from_secs(1)
        };
        match started_rx.recv_timeout(wait) {
            Ok(_) => {
                seen = true;
                go_tx.send(()).unwrap();
            }
            Err(_) if seen => break,
            Err(_) => assert!(Instant::now() < deadline, "the watcher never started"),
        }
    }
    while w.rx.try_recv().is_ok() {}

    // The first change starts a batch that takes long (a slow re-list).
    fs::write(root.join("first"), "1").unwrap();
    assert_eq!(started_rx.recv_timeout(PATIENCE).unwrap(), 1);
    // Three separate bursts while it runs, each longer apart than the quiet period.
    for name in ["second", "third", "fourth"] {
        fs::write(root.join(name), "x").unwrap();
        std::thread::sleep(TIMING.quiet * 2);
    }
    go_tx.send(()).unwrap();
    assert_eq!(
        w.rx.recv_timeout(PATIENCE).unwrap(),
        vec![root.join("first")]
    );
    // Exactly one more batch, with all three, and never two at once.
    assert_eq!(started_rx.recv_timeout(PATIENCE).unwrap(), 1);
    go_tx.send(()).unwrap();
    let after = w.rx.recv_timeout(PATIENCE).unwrap();
    assert_eq!(
        after,
        vec![root.join("fourth"), root.join("second"), root.join("third")]
    );
    assert_no_batch(&w.rx, "after the one batch for what changed meanwhile");
    assert!(started_rx.try_recv().is_err());
}

#[test]
fn dropping_the_handle_stops_batches() {
    let dir = tempfile::tempdir().unwrap();
    let w = start(dir.path(), None);
    wait_armed(&w.rx, &dir.path().join("probe"));
    let Started { _handle, rx, .. } = w;
    drop(_handle);
    // The thread ends and drops the rules (and their sender): the channel disconnects.
    fs::write(dir.path().join("after"), "x").unwrap();
    let deadline = Instant::now() + PATIENCE;
    loop {
        match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(batch) => assert!(
                !batch.iter().any(|p| p.ends_with("after")),
                "batch after drop: {batch:?}"
            ),
            Err(RecvTimeoutError::Disconnected) => break,
            Err(RecvTimeoutError::Timeout) => panic!("watcher still running after drop"),
        }
    }
}
