//! Worktree budgets (docs/architecture.md §6), each against the git CLI in the same run:
//! - changed-file count on a 100,000-file repository ≤ 1.5× `git status --porcelain`
//!   (git2's plain `statuses()` is timed too, for reference), once with a clean index and once
//!   with a staged change in a deep folder (the cache-tree then covers only part of HEAD);
//! - unmerged-commit count over 100,000 commits ≤ 1.2× `git rev-list --count`;
//! - `worktrees list` (everything the view shows) of the 100,000-file repository with 3 linked
//!   worktrees, each with an ignored `target/` and `node_modules/`, ≤ 1.2× `git status --porcelain`
//!   run once in each worktree (the listing with the old size walk is timed too, for reference);
//! - CPU of the worktree watcher while a build storms a watched worktree (thousands of files
//!   written and rewritten under `target/`, a few real source edits), ≤ 5% of one core: the
//!   watcher and the re-reads it triggers, as the app runs them, in this process; the storm in a
//!   child process (this binary, `--storm`). The old watcher (every folder watched, every burst a
//!   full listing with sizes) is measured the same way, for reference.
//!
//! The repositories are generated with `git fast-import`. Rounds alternate between ours and git's
//! so that cache warmth favours neither.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use plandeck_benches::{median, ms, report, Limit, Xorshift};
use plandeck_core::config::Roots;
use plandeck_core::worktrees::{self, ListOptions};
use plandeck_testkit::git::git;

const FILES: usize = 100_000;
const COMMITS: usize = 100_000;
const ROUNDS: usize = 7;

/// The git CLI as the baseline runs it (no system configuration; nothing else changed, so it does
/// what it does for a person); the data is built with the test kit's `git`.
fn baseline_git(dir: &Path, args: &[&str]) -> Vec<u8> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn fast_import(dir: &Path, stream: &[u8]) {
    let mut child = Command::new("git")
        .args(["fast-import", "--quiet"])
        .current_dir(dir)
        .stdin(Stdio::piped())
        .spawn()
        .expect("git fast-import runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stream)
        .expect("stream written");
    assert!(child.wait().expect("fast-import ends").success());
}

fn init(dir: &Path) {
    git(dir, &["init", "-q", "-b", "main"]);
    git(dir, &["config", "user.name", "Bench"]);
    git(dir, &["config", "user.email", "bench@example.com"]);
}

fn changed_files_bench() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    init(dir);
    let mut s = Vec::new();
    s.extend_from_slice(
        b"commit refs/heads/main\ncommitter Bench <b@e> 1700000000 +0000\ndata 6\nfiles\n",
    );
    for i in 0..FILES {
        let body = format!("file {i}\nsome content to hash\n");
        s.extend_from_slice(
            format!(
                "M 644 inline d{:03}/s{:02}/f{i}.txt\ndata {}\n{body}\n",
                i % 1000,
                (i / 1000) % 10,
                body.len()
            )
            .as_bytes(),
        );
    }
    fast_import(dir, &s);
    let t = Instant::now();
    git(dir, &["reset", "-q", "--hard", "main"]);
    eprintln!(
        "checked out {FILES} files in {:.1}s",
        t.elapsed().as_secs_f64()
    );
    std::fs::write(dir.join(".gitignore"), "*.log\n").expect("write");
    for i in (0..FILES).step_by(10_000) {
        let p = dir.join(format!("d{:03}/s{:02}/f{i}.txt", i % 1000, (i / 1000) % 10));
        std::fs::write(p, "changed\n").expect("write");
    }
    for i in 0..5 {
        std::fs::write(dir.join(format!("d00{i}/untracked.txt")), "new\n").expect("write");
        std::fs::write(dir.join(format!("d00{i}/ignored.log")), "log\n").expect("write");
    }
    // Settle the index once, as any git status would have.
    let git_lines = baseline_git(dir, &["status", "--porcelain"])
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .count();
    let ours_count = plandeck_core::worktrees::changed_files(dir)
        .expect("changed files")
        .count() as usize;
    assert_eq!(
        ours_count, git_lines,
        "changed-file count differs from git status"
    );

    time_changed_files(dir, "worktrees.changed_files_100k", git_lines);

    // With a staged change in a deep folder the cache-tree is invalid along that path, so part of
    // HEAD's tree has to be compared with the index (the clean case above skips all of it).
    git(dir, &["add", "d000/s00/f0.txt"]);
    let git_lines = baseline_git(dir, &["status", "--porcelain"])
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .count();
    time_changed_files(dir, "worktrees.changed_files_100k_staged", git_lines);
    tmp
}

/// Times ours, `git status --porcelain` and git2's `statuses()` in alternating rounds.
fn time_changed_files(dir: &Path, bench: &str, git_lines: usize) {
    let (mut ours, mut theirs, mut plain) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let t = Instant::now();
        let n = plandeck_core::worktrees::changed_files(dir)
            .expect("changed files")
            .count();
        ours.push(t.elapsed());
        assert_eq!(n as usize, git_lines);
        let t = Instant::now();
        baseline_git(dir, &["status", "--porcelain"]);
        theirs.push(t.elapsed());
        let t = Instant::now();
        let repo = git2::Repository::open(dir).expect("open");
        let mut o = git2::StatusOptions::new();
        o.include_untracked(true);
        let n = repo.statuses(Some(&mut o)).expect("statuses").len();
        plain.push(t.elapsed());
        assert!(n > 0);
    }
    let (o, g, p) = (ms(median(&ours)), ms(median(&theirs)), ms(median(&plain)));
    report(
        bench,
        o,
        "<= 1.5x git status --porcelain",
        Some(("git status --porcelain", g)),
        Limit::ratio(1.5),
        serde_json::json!({ "ratio": (o / g * 100.0).round() / 100.0, "git2_statuses_ms": (p * 1000.0).round() / 1000.0,
            "git2_statuses_ratio": (p / g * 100.0).round() / 100.0, "files": FILES, "changed": git_lines, "rounds": ROUNDS }),
    );
}

fn unmerged_bench() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    init(dir);
    let mut s = Vec::new();
    for i in 1..=COMMITS {
        let body = format!("{i}\n");
        s.extend_from_slice(
            format!("commit refs/heads/feature\nmark :{i}\ncommitter Bench <b@e> {} +0000\ndata 7\ncommit\n", 1_700_000_000 + i).as_bytes(),
        );
        if i > 1 {
            s.extend_from_slice(format!("from :{}\n", i - 1).as_bytes());
        }
        s.extend_from_slice(
            format!("M 644 inline f.txt\ndata {}\n{body}\n", body.len()).as_bytes(),
        );
    }
    s.extend_from_slice(b"reset refs/heads/main\nfrom :1\n\n");
    let t = Instant::now();
    fast_import(dir, &s);
    eprintln!(
        "imported {COMMITS} commits in {:.1}s",
        t.elapsed().as_secs_f64()
    );
    let expect = String::from_utf8_lossy(&baseline_git(
        dir,
        &["rev-list", "--count", "main..feature"],
    ))
    .trim()
    .parse::<u32>()
    .expect("count");
    let repo = git2::Repository::open(dir).expect("open");
    let head = repo.revparse_single("feature").expect("feature").id();
    let base = repo.revparse_single("main").expect("main").id();

    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let t = Instant::now();
        let n = plandeck_core::worktrees::count_unmerged(&repo, head, base).expect("count");
        ours.push(t.elapsed());
        assert_eq!(n, expect);
        let t = Instant::now();
        baseline_git(dir, &["rev-list", "--count", "main..feature"]);
        theirs.push(t.elapsed());
    }
    let (o, g) = (ms(median(&ours)), ms(median(&theirs)));
    report(
        "worktrees.unmerged_100k_commits",
        o,
        "<= 1.2x git rev-list --count",
        Some(("git rev-list --count", g)),
        Limit::ratio(1.2),
        serde_json::json!({ "ratio": (o / g * 100.0).round() / 100.0, "commits": expect, "rounds": ROUNDS }),
    );
}

/// Fills `dir`'s ignored `target/` and `node_modules/` with `files` files each (seeded shapes:
/// build outputs in a few deep folders, packages of a few files each).
fn ignored_trees(dir: &Path, files: usize, rng: &mut Xorshift) {
    for i in 0..files {
        let t = dir.join(format!(
            "target/debug/{}/{:02x}/f{i}.o",
            ["deps", "build", "incremental", ".fingerprint"][rng.below(4) as usize],
            rng.below(64)
        ));
        let n = dir.join(format!(
            "node_modules/pkg{}/lib/f{i}.js",
            rng.below(files as u64 / 8 + 1)
        ));
        for p in [t, n] {
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(&p, format!("{}\n", rng.next_u64())).expect("write");
        }
    }
}

/// The roots of an empty home that lists `repo` (no sessions).
fn roots_for(home: &Path, repo: &Path) -> Roots {
    std::fs::create_dir_all(home).expect("home");
    let mut roots = Roots::under_home(home);
    roots.extra_repos = vec![repo.to_owned()];
    roots
}

/// `worktrees list` of the 100,000-file repository left by [`changed_files_bench`] with 3 linked
/// worktrees, against `git status --porcelain` once in each of the 4 worktrees.
fn list_bench(repo: &Path) {
    let mut rng = Xorshift(0x5eed_1234_abcd_0001);
    let mut ignore = std::fs::read_to_string(repo.join(".gitignore")).unwrap_or_default();
    ignore.push_str("target/\nnode_modules/\n");
    std::fs::write(repo.join(".gitignore"), ignore).expect("write");
    git(repo, &["add", ".gitignore"]);
    git(repo, &["commit", "-q", "-m", "ignore build outputs"]);
    ignored_trees(repo, 20_000, &mut rng);
    let parent = repo.parent().expect("parent").to_owned();
    let base = tempfile::tempdir_in(&parent).expect("temp dir");
    let mut all = vec![repo.to_owned()];
    for n in 0..3 {
        let wt = base.path().join(format!("agent-{n}"));
        let t = Instant::now();
        git(
            repo,
            &[
                "worktree",
                "add",
                "-q",
                "-b",
                &format!("agent-{n}"),
                wt.to_str().expect("utf-8"),
                "main",
            ],
        );
        eprintln!(
            "worktree {n}: checked out in {:.1}s",
            t.elapsed().as_secs_f64()
        );
        ignored_trees(&wt, 5_000, &mut rng);
        std::fs::write(wt.join(format!("d00{n}/agent-edit.txt")), "new\n").expect("write");
        all.push(wt);
    }
    let home = base.path().join("home");
    let roots = roots_for(&home, repo);
    // Settle every index once, as any git status would have.
    for wt in &all {
        baseline_git(wt, &["status", "--porcelain"]);
    }
    let list = worktrees::list_with(&roots, Some(repo), &[], ListOptions::default()).expect("list");
    assert_eq!(list.len(), 4, "{list:#?}");
    for w in &list {
        assert!(w.problem.is_none(), "{w:#?}");
        let lines = baseline_git(Path::new(&w.path), &["status", "--porcelain"])
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .count();
        assert_eq!(w.changed_files as usize, lines, "{}", w.path);
    }

    let (mut ours, mut theirs, mut walked) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        let t = Instant::now();
        let n = worktrees::list_with(&roots, Some(repo), &[], ListOptions::default())
            .expect("list")
            .len();
        ours.push(t.elapsed());
        assert_eq!(n, 4);
        let t = Instant::now();
        for wt in &all {
            baseline_git(wt, &["status", "--porcelain"]);
        }
        theirs.push(t.elapsed());
        if round < 3 {
            // Before: the listing walked every folder for its size.
            let t = Instant::now();
            worktrees::list_with(&roots, Some(repo), &[], ListOptions { sizes: true })
                .expect("list");
            walked.push(t.elapsed());
        }
    }
    let (o, g, w) = (ms(median(&ours)), ms(median(&theirs)), ms(median(&walked)));
    let mut extra = serde_json::json!({
        "ratio": (o / g * 100.0).round() / 100.0,
        "worktrees": 4, "files_per_worktree": FILES, "ignored_files_main": 40_000,
        "with_size_walk_ms": (w * 1000.0).round() / 1000.0,
        "with_size_walk_ratio": (w / g * 100.0).round() / 100.0,
        "rounds": ROUNDS,
    });
    // The CLI process too, when it is built beside this binary (benches/run.sh builds it).
    let cli = std::env::current_exe()
        .expect("exe")
        .with_file_name("plandeck-cli");
    if cli.exists() {
        let mut runs = Vec::new();
        for _ in 0..3 {
            let t = Instant::now();
            let out = Command::new(&cli)
                .args(["worktrees", "list", "--json", "--repo"])
                .arg(repo)
                .env("HOME", &home)
                .output()
                .expect("plandeck-cli runs");
            runs.push(t.elapsed());
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let c = ms(median(&runs));
        extra["cli_ms"] = serde_json::json!((c * 1000.0).round() / 1000.0);
        extra["cli_ratio"] = serde_json::json!((c / g * 100.0).round() / 100.0);
    }
    report(
        "worktrees.list_100k_4_worktrees",
        o,
        "≤ 1.2× git status --porcelain (once per worktree)",
        Some(("git status --porcelain ×4", g)),
        Limit::ratio(1.2),
        extra,
    );
}

/// CPU time of this process (every thread), from getrusage.
fn cpu_time() -> Duration {
    // SAFETY: `usage` is a plain C struct that getrusage fills in; zeroed is a valid value of it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid pointer to a rusage that lives for the call.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    assert_eq!(rc, 0, "getrusage");
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

const STORM_ROUNDS: usize = 40;
const STORM_FILES: usize = 400;
const STORM_EDITS: [usize; 3] = [5, 20, 35];

/// The build storm, run in a child process: each round writes `STORM_FILES` files under
/// `target/` (new folders in the first rounds, then rewrites, as an incremental build does) and
/// pauses a little; a few rounds also edit a real source file.
fn storm(wt: &Path) {
    let mut rng = Xorshift(0x5707_0000_0000_0001);
    for round in 0..STORM_ROUNDS {
        for i in 0..STORM_FILES {
            let p = wt.join(format!(
                "target/debug/{}/{:02x}/unit{}.rlib",
                ["deps", "build", "incremental", ".fingerprint"][i % 4],
                rng.below(32),
                (round * STORM_FILES + i) % 3_000
            ));
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(&p, rng.next_u64().to_le_bytes().repeat(64)).expect("write");
        }
        if STORM_EDITS.contains(&round) {
            std::fs::write(
                wt.join("src/lib.rs"),
                format!("pub fn edited_{round}() {{}}\n"),
            )
            .expect("edit");
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Starts the storm child on `wt` and returns its wall time; the CPU time this process spent from
/// its start until the watcher's work for it was done (re-lists seen settling).
fn storm_cpu(wt: &Path, relists: &AtomicUsize) -> (Duration, Duration) {
    let exe = std::env::current_exe().expect("exe");
    let cpu0 = cpu_time();
    let t = Instant::now();
    let status = Command::new(exe)
        .arg("--storm")
        .arg(wt)
        .status()
        .expect("storm runs");
    assert!(status.success());
    let wall = t.elapsed();
    // Let the trailing re-list (and the size walk after it) finish: wait until nothing new
    // happens for a while. The idle wait adds no CPU and is not counted in the wall time.
    let mut last = relists.load(Ordering::SeqCst);
    loop {
        std::thread::sleep(Duration::from_secs(3));
        let now = relists.load(Ordering::SeqCst);
        if now == last {
            break;
        }
        last = now;
    }
    (cpu_time() - cpu0, wall)
}

/// A repository of 5,000 source files with an ignored `target/` and one linked worktree.
fn storm_repo(dir: &Path) -> (PathBuf, PathBuf) {
    let repo = dir.join("repo");
    std::fs::create_dir_all(&repo).expect("mkdir");
    init(&repo);
    let mut s = Vec::new();
    s.extend_from_slice(
        b"commit refs/heads/main\ncommitter Bench <b@e> 1700000000 +0000\ndata 6\nfiles\n",
    );
    let mut add = |path: &str, body: &str| {
        s.extend_from_slice(
            format!("M 644 inline {path}\ndata {}\n{body}\n", body.len()).as_bytes(),
        );
    };
    add(".gitignore", "target/\nnode_modules/\n");
    add("src/lib.rs", "pub fn a() {}\n");
    for i in 0..5_000 {
        add(
            &format!("src/m{:02}/f{i}.rs", i % 50),
            &format!("pub fn f{i}() {{}}\n"),
        );
    }
    fast_import(&repo, &s);
    git(&repo, &["reset", "-q", "--hard", "main"]);
    let wt = dir.join("agent");
    git(
        &repo,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "agent",
            wt.to_str().expect("utf-8"),
            "main",
        ],
    );
    (repo, wt)
}

fn watch_cpu_bench() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (repo, wt) = storm_repo(tmp.path());
    let roots = roots_for(&tmp.path().join("home"), &repo);
    let list = worktrees::list_with(&roots, None, &[], ListOptions::default()).expect("list");
    assert_eq!(list.len(), 2);

    // After: the watcher the app runs, each burst re-reading only its worktrees, sizes after.
    let relists = Arc::new(AtomicUsize::new(0));
    let sizes = worktrees::Sizes::new();
    let (count, watch_roots, watch_sizes) = (Arc::clone(&relists), roots.clone(), sizes.clone());
    let handle = worktrees::watch(
        worktrees::watch_targets(&list),
        worktrees::WATCH_TIMING,
        move |changed: worktrees::Changed| {
            count.fetch_add(1, Ordering::SeqCst);
            for id in &changed.ids {
                watch_sizes.invalidate(id);
            }
            let ids: Vec<&String> = changed.ids.iter().collect();
            let mut fresh = worktrees::refresh(&watch_roots, &[], &ids).expect("refresh");
            let missing = watch_sizes.fill(&mut fresh);
            watch_sizes.measure(missing, |_| {});
        },
    )
    .expect("watch");
    // Armed on its thread: wait until a probe edit is seen, then for quiet.
    let probe = wt.join("src/probe.rs");
    let deadline = Instant::now() + Duration::from_secs(60);
    while relists.load(Ordering::SeqCst) == 0 {
        assert!(Instant::now() < deadline, "the watcher never saw the probe");
        std::fs::write(&probe, "// probe\n").expect("probe");
        std::thread::sleep(Duration::from_millis(500));
    }
    std::thread::sleep(Duration::from_secs(3));
    let before_storm = relists.load(Ordering::SeqCst);
    let (cpu, wall) = storm_cpu(&wt, &relists);
    let after_relists = relists.load(Ordering::SeqCst) - before_storm;
    drop(handle);

    // Before: every folder watched (notify, recursive), every burst a full listing with sizes.
    std::fs::remove_dir_all(wt.join("target")).expect("clean target");
    let old_relists = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&old_relists);
    let old_roots = roots.clone();
    let mut paths: Vec<PathBuf> = Vec::new();
    for w in &list {
        let r = git2::Repository::open(&w.path).expect("open");
        for p in [
            PathBuf::from(&w.path),
            r.path().to_owned(),
            r.commondir().to_owned(),
        ] {
            if !paths.contains(&p) {
                paths.push(p);
            }
        }
    }
    let old = plandeck_core::watch::watch(paths, Duration::from_millis(250), move |_| {
        count.fetch_add(1, Ordering::SeqCst);
        worktrees::list_with(&old_roots, None, &[], ListOptions { sizes: true }).expect("list");
    })
    .expect("old watch");
    std::thread::sleep(Duration::from_secs(3));
    let old_before = old_relists.load(Ordering::SeqCst);
    let (old_cpu, old_wall) = storm_cpu(&wt, &old_relists);
    let old_count = old_relists.load(Ordering::SeqCst) - old_before;
    drop(old);

    let fraction = cpu.as_secs_f64() / wall.as_secs_f64();
    let old_fraction = old_cpu.as_secs_f64() / old_wall.as_secs_f64();
    // The figure is the share of one core, in percent; the limit is on that figure.
    report(
        "worktrees.watch_cpu_build_storm",
        fraction * 100.0,
        "≤ 5% of one core",
        None,
        Limit::max(5.0),
        serde_json::json!({
            "unit": "% of one core",
            "cpu_ms": (ms(cpu) * 1000.0).round() / 1000.0,
            "wall_ms": (ms(wall) * 1000.0).round() / 1000.0,
            "storm_writes": STORM_ROUNDS * STORM_FILES, "source_edits": STORM_EDITS.len(),
            "relists": after_relists,
            "old_watcher_percent": (old_fraction * 10_000.0).round() / 100.0,
            "old_watcher_relists": old_count,
        }),
    );
}

fn main() {
    benchmarks();
    plandeck_benches::finish();
}

fn benchmarks() {
    let mut args = std::env::args().skip(1);
    if args.next().as_deref() == Some("--storm") {
        storm(Path::new(&args.next().expect("a worktree")));
        return;
    }
    let only: Vec<String> = std::env::var("BENCH_ONLY")
        .map(|v| v.split(',').map(str::to_owned).collect())
        .unwrap_or_default();
    let wants = |name: &str| only.is_empty() || only.iter().any(|o| o == name);
    if wants("changed_files") || wants("list") {
        let repo = changed_files_bench();
        if wants("list") {
            list_bench(repo.path());
        }
    }
    if wants("unmerged") {
        unmerged_bench();
    }
    if wants("watch_cpu") {
        watch_cpu_bench();
    }
}
