//! Plans budgets (docs/architecture.md §6):
//! - a plan file written to the change leaving the core (`plans::watch` callback), p99 over 1,000
//!   writes, < 100 ms; baseline: the raw `notify` event for the same kind of write, same run.
//! - listing 5,000 plans cold (a fresh listing, no cache in Plandeck), < 300 ms; baseline: only
//!   reading every plan file of the folder.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use notify::Watcher;
use plandeck_benches::{check, median, ms, percentile, report, Limit};
use plandeck_core::config::Roots;

const WRITES: usize = 1_000;
const PLANS: usize = 5_000;
const TRANSCRIPTS: usize = 200;

fn plan_text(i: usize) -> String {
    format!(
        "# Plan {i}: refactor the module\n\n## Context\n\n{}\n\n## Steps\n\n1. First\n2. Second\n- [ ] check\n",
        "Some words about the plan and what it changes. ".repeat(30)
    )
}

/// A Claude Code home with `plans` plans and `transcripts` transcripts linking some of them.
fn build_home(plans: usize, transcripts: usize) -> (tempfile::TempDir, Roots) {
    let home = tempfile::tempdir().expect("temp dir");
    let roots = Roots::under_home(home.path());
    let plan_dir = roots.claude.join("plans");
    fs::create_dir_all(&plan_dir).expect("plans dir");
    for i in 0..plans {
        fs::write(plan_dir.join(format!("plan-{i:05}.md")), plan_text(i)).expect("plan");
    }
    for t in 0..transcripts {
        let dir = roots.claude.join(format!("projects/-home-dev-p{}", t % 20));
        fs::create_dir_all(&dir).expect("project dir");
        let mut text = String::new();
        // ~200 KB each: a head, a long middle that is never read, a tail.
        for r in 0..400 {
            let slug = format!("plan-{:05}", (t * 25 + r / 16) % plans.max(1));
            text.push_str(&format!(
                "{{\"type\":\"user\",\"slug\":\"{slug}\",\"sessionId\":\"s-{t}\",\"cwd\":\"/home/dev/p{}\",\"gitBranch\":\"main\",\"message\":\"{}\"}}\n",
                t % 20,
                "x".repeat(400)
            ));
        }
        fs::write(dir.join(format!("s-{t}.jsonl")), text).expect("transcript");
    }
    (home, roots)
}

fn wait_for(rx: &mpsc::Receiver<(Instant, Vec<PathBuf>)>, path: &Path) -> Option<Instant> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (at, paths) = rx
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .ok()?;
        if paths.iter().any(|p| p == path) {
            return Some(at);
        }
    }
}

fn drain<T>(rx: &mpsc::Receiver<T>) {
    while rx.try_recv().is_ok() {}
}

fn write_latency() {
    let (_home, roots) = build_home(200, 20);
    let plan_dir = roots.claude.join("plans");

    // Plandeck: plans::watch.
    let (tx, rx) = mpsc::channel();
    let handle = plandeck_core::plans::watch(&roots, move |c| {
        let at = Instant::now();
        let _ = tx.send((at, c.paths.into_iter().map(PathBuf::from).collect()));
    })
    .expect("watch");
    let mut samples = Vec::with_capacity(WRITES);
    let mut lost = 0;
    for i in 0..WRITES {
        // Half new files, half rewrites of existing ones.
        let path = if i % 2 == 0 {
            plan_dir.join(format!("new-{i}.md"))
        } else {
            plan_dir.join(format!("plan-{:05}.md", i % 200))
        };
        drain(&rx);
        let start = Instant::now();
        fs::write(&path, plan_text(i)).expect("write");
        match wait_for(&rx, &path) {
            Some(at) => samples.push(at.saturating_duration_since(start)),
            None => lost += 1,
        }
    }
    drop(handle);

    // Baseline: the raw notify event, no filtering or coalescing.
    let (btx, brx) = mpsc::channel();
    let mut watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
        if let Ok(e) = res {
            let _ = btx.send((Instant::now(), e.paths));
        }
    })
    .expect("notify");
    watcher
        .watch(&plan_dir, notify::RecursiveMode::Recursive)
        .expect("watch");
    let mut base = Vec::with_capacity(WRITES);
    for i in 0..WRITES {
        let path = if i % 2 == 0 {
            plan_dir.join(format!("raw-{i}.md"))
        } else {
            plan_dir.join(format!("plan-{:05}.md", i % 200))
        };
        drain(&brx);
        let start = Instant::now();
        fs::write(&path, plan_text(i)).expect("write");
        if let Some(at) = wait_for(&brx, &path) {
            base.push(at.saturating_duration_since(start));
        }
    }
    report(
        "plan write to plans::watch callback, p99",
        ms(percentile(&samples, 99.0)),
        "< 100 ms",
        Some(("raw notify event, p99", ms(percentile(&base, 99.0)))),
        Limit::max(100.0),
        serde_json::json!({
            "writes": WRITES, "lost": lost,
            "p50_ms": ms(median(&samples)), "max_ms": ms(percentile(&samples, 100.0)),
            "baseline_p50_ms": ms(median(&base)),
        }),
    );
    check(
        "plan write to plans::watch callback, p99",
        lost == 0,
        "every write seen",
    );
}

fn listing() {
    let (_home, roots) = build_home(PLANS, TRANSCRIPTS);
    let plan_dir = roots.claude.join("plans");
    let mut runs = Vec::new();
    let mut count = 0;
    for _ in 0..7 {
        let start = Instant::now();
        let listing = plandeck_core::plans::list(&roots);
        runs.push(start.elapsed());
        count = listing.plans.len();
        assert_eq!(count, PLANS, "{:?}", listing.problems);
    }
    let first = runs[0];
    let mut base = Vec::new();
    for _ in 0..7 {
        let start = Instant::now();
        let mut bytes = 0usize;
        for entry in fs::read_dir(&plan_dir).expect("read_dir").flatten() {
            bytes += fs::read(entry.path()).map(|b| b.len()).unwrap_or(0);
        }
        std::hint::black_box(bytes);
        base.push(start.elapsed());
    }
    report(
        "list 5,000 plans (fresh listing, no Plandeck cache), median of 7",
        ms(median(&runs)),
        "< 300 ms",
        Some((
            "read_dir + read every plan file, one thread, median of 7",
            ms(median(&base)),
        )),
        Limit::max(300.0),
        serde_json::json!({
            "plans": count, "transcripts": TRANSCRIPTS, "transcript_kb": 200,
            "first_run_ms": ms(first), "max_ms": ms(percentile(&runs, 100.0)),
        }),
    );
}

fn main() {
    benchmarks();
    plandeck_benches::finish();
}

fn benchmarks() {
    listing();
    if std::env::var_os("ONLY_LIST").is_none() {
        write_latency();
    }
}
