use super::*;
use std::fs;
use std::sync::mpsc::Receiver;

const PATIENCE: Duration = Duration::from_secs(10);

/// Waits until a batch satisfies `pred`; batches that do not are skipped.
fn wait_for(
    rx: &Receiver<Vec<PathBuf>>,
    what: &str,
    pred: impl Fn(&[PathBuf]) -> bool,
) -> Vec<PathBuf> {
    plandeck_testkit::wait_for(&format!("a batch with {what}"), || {
        rx.try_recv().ok().filter(|b| pred(b))
    })
}

fn start(paths: Vec<PathBuf>) -> (WatchHandle, Receiver<Vec<PathBuf>>) {
    let (tx, rx) = mpsc::channel();
    let handle = watch(paths, Duration::from_millis(100), move |batch| {
        let _ = tx.send(batch);
    })
    .unwrap();
    (handle, rx)
}

#[test]
fn create_modify_rename_delete_and_new_folders_are_seen() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("plans");
    fs::create_dir_all(&root).unwrap();
    let (_handle, rx) = start(vec![root.clone()]);

    let a = root.join("a.md");
    fs::write(&a, "# A").unwrap();
    wait_for(&rx, "create", |b| b.contains(&a));
    fs::write(&a, "# A2").unwrap();
    wait_for(&rx, "modify", |b| b.contains(&a));
    let b_path = root.join("b.md");
    fs::rename(&a, &b_path).unwrap();
    wait_for(&rx, "rename (both names)", |b| b.contains(&b_path));
    fs::remove_file(&b_path).unwrap();
    wait_for(&rx, "delete", |b| b.contains(&b_path));

    // A new subfolder created together with its file (as `mv` of a finished folder would).
    let staging = dir.path().join("staging");
    fs::create_dir_all(staging.join("inner")).unwrap();
    fs::write(staging.join("inner/c.md"), "# C").unwrap();
    fs::rename(&staging, root.join("proj")).unwrap();
    let c = root.join("proj/inner/c.md");
    wait_for(&rx, "file in a moved-in folder", |b| b.contains(&c));
    // And the new folder is watched.
    let d = root.join("proj/inner/d.md");
    fs::write(&d, "# D").unwrap();
    wait_for(&rx, "file in the new folder", |b| b.contains(&d));
}

#[test]
fn missing_paths_are_picked_up_when_they_appear_and_after_they_go() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("a/b/plans");
    let (_handle, rx) = start(vec![target.clone()]);
    fs::create_dir_all(&target).unwrap();
    let first = target.join("first.md");
    fs::write(&first, "x").unwrap();
    wait_for(&rx, "a file in the appeared folder", |b| b.contains(&first));

    fs::remove_dir_all(dir.path().join("a")).unwrap();
    // Removing the tree is reported, then the watch falls back to the ancestor and re-arms.
    fs::create_dir_all(&target).unwrap();
    let second = target.join("second.md");
    fs::write(&second, "x").unwrap();
    wait_for(&rx, "a file in the re-created folder", |b| {
        b.contains(&second)
    });
}

#[test]
fn siblings_and_git_objects_are_not_reported() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("watched");
    let (_handle, rx) = start(vec![target.clone()]);
    // The ancestor (the temp dir) is watched while `watched` is missing; its other children are noise.
    fs::write(dir.path().join("sibling.txt"), "x").unwrap();
    fs::create_dir_all(target.join(".git/objects/ab")).unwrap();
    fs::write(target.join(".git/objects/ab/cdef"), "x").unwrap();
    let marker = target.join("marker.md");
    fs::write(&marker, "x").unwrap();
    let batch = wait_for(&rx, "the marker", |b| b.contains(&marker));
    for p in batch {
        assert!(p.starts_with(&target), "{p:?}");
        assert!(!in_git_objects(&p), "{p:?}");
    }
    assert!(in_git_objects(Path::new("/r/.git/objects/ab/cd")));
    assert!(!in_git_objects(Path::new("/r/objects/.git/x")));
}

#[test]
fn a_folder_beside_a_missing_target_is_never_walked() {
    use inotify::{Inotify, WatchMask};
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("watched");
    let (_handle, rx) = start(vec![target.clone()]);
    // A folder made beside the missing target (as anything made in /tmp beside a home that is
    // gone): only the ancestor's non-recursive watch sees it; nothing may walk into it.
    // Made elsewhere on the same file system and moved in whole, so the only opens are the
    // watcher's.
    let staging = tempfile::tempdir_in(dir.path().parent().unwrap()).unwrap();
    let deep = staging.path().join("build/target/debug/deep");
    fs::create_dir_all(&deep).unwrap();
    fs::write(deep.join("out.o"), "x").unwrap();
    let mut opened = Inotify::init().unwrap();
    opened.watches().add(&deep, WatchMask::OPEN).unwrap();
    fs::rename(staging.path().join("build"), dir.path().join("build")).unwrap();
    fs::create_dir_all(dir.path().join("another/inner")).unwrap();
    // The watcher has seen those by the time it reports the marker.
    fs::create_dir_all(&target).unwrap();
    let marker = target.join("marker.md");
    fs::write(&marker, "x").unwrap();
    wait_for(&rx, "the marker", |b| b.contains(&marker));
    let mut buf = vec![0u8; 4096];
    let opens = match opened.read_events(&mut buf) {
        Ok(events) => events.count(),
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => 0,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(opens, 0, "a folder beside the target was walked");
}

#[test]
fn dropping_the_handle_stops_callbacks() {
    let dir = tempfile::tempdir().unwrap();
    let (handle, rx) = start(vec![dir.path().to_owned()]);
    let a = dir.path().join("a.md");
    fs::write(&a, "x").unwrap();
    wait_for(&rx, "create", |b| b.contains(&a));
    drop(handle);
    fs::write(dir.path().join("b.md"), "x").unwrap();
    // The thread ends and drops its sender: the channel disconnects instead of delivering.
    let deadline = Instant::now() + PATIENCE;
    loop {
        match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(batch) => assert!(
                !batch.iter().any(|p| p.ends_with("b.md")),
                "callback after drop: {batch:?}"
            ),
            Err(RecvTimeoutError::Disconnected) => break,
            Err(RecvTimeoutError::Timeout) => {
                panic!("watch thread still running after the handle was dropped")
            }
        }
    }
}
