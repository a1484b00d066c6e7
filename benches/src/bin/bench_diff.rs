//! Diff + sanitized render of a 10,000-line plan with 5% of its lines changed (budget < 50 ms),
//! against `git diff --no-index` on the same two files in the same run.
//!
//! Measures `review::diff` as the window calls it (read the file, load the approved version from
//! the store, line diff with word highlights, side-by-side rows, rendered HTML marked and
//! sanitized), and `PlanDiff::between` on strings in memory.
//!
//! Also the review part of listing 5,000 plans (budget for the whole listing < 300 ms):
//! `Approvals::load` plus `.state()` of every plan, 1,000 of them approved, against reading the
//! 5,000 files, which the listing does anyway.

use std::fs;
use std::process::Command;

use plandeck_benches::{median, ms, percentile, report, time_n, Limit};
use plandeck_core::config::Roots;
use plandeck_core::review::{self, Approvals, ApproveRequest, PlanDiff, ReviewState};

const LINES: usize = 10_000;
const RUNS: usize = 30;
const PLANS: usize = 5_000;
const APPROVED: usize = 1_000;

/// A plan-like markdown of `LINES` lines: headings, paragraphs, numbered steps, code blocks.
fn plan() -> Vec<String> {
    let mut lines = Vec::with_capacity(LINES);
    let mut i = 0;
    while lines.len() < LINES {
        match i % 25 {
            0 => lines.push(format!("## Part {i}: move the {} module behind a trait", i * 7 % 97)),
            1 | 8 | 16 => lines.push(String::new()),
            2..=7 => lines.push(format!(
                "The step {i} changes `src/mod_{i}.rs` so that the cache of kind {} is filled lazily and evicted after {} seconds.",
                i % 13,
                i % 300
            )),
            9..=15 => lines.push(format!("{}. Update `crate::part{}::run` and its tests (case {i}).", i % 25 - 8, i / 25)),
            17 => lines.push("```rust".into()),
            18..=21 => lines.push(format!("    let value_{i} = compute({i}, \"{}\")?;", i * 31 % 1000)),
            22 => lines.push("```".into()),
            _ => lines.push(format!("- Risk {i}: <b>stale</b> reads when the clock of host {} drifts.", i % 11)),
        }
        i += 1;
    }
    lines
}

/// Changes 5% of the lines (every 20th, a word replaced), like an agent revising its plan.
fn revise(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .enumerate()
        .map(|(n, l)| {
            if n % 20 == 7 {
                format!(
                    "{} (revised: use a bounded queue)",
                    l.replacen("the", "a", 1)
                )
            } else {
                l.clone()
            }
        })
        .collect()
}

fn main() {
    benchmarks();
    plandeck_benches::finish();
}

fn benchmarks() {
    let dir = tempfile::tempdir().expect("temp dir");
    let roots = Roots::under_home(dir.path());
    let old = plan().join("\n") + "\n";
    let new = revise(&plan()).join("\n") + "\n";
    let plan_path = roots.claude.join("plans/big.md");
    let old_path = dir.path().join("old.md");
    fs::create_dir_all(plan_path.parent().expect("parent")).expect("mkdir");
    fs::write(&plan_path, &old).expect("write");
    fs::write(&old_path, &old).expect("write");
    review::approve(&roots, &plan_path, ApproveRequest::default()).expect("approve");
    fs::write(&plan_path, &new).expect("write");

    let mut stats = None;
    let full = time_n(RUNS, || {
        let d = review::diff(&roots, &plan_path, None, None).expect("diff");
        stats = Some((d.stats, d.hunks.len(), d.rendered_html.len()));
    });
    let in_memory = time_n(RUNS, || {
        std::hint::black_box(PlanDiff::between(&old, &new));
    });
    let git = time_n(RUNS, || {
        let out = Command::new("git")
            .args(["diff", "--no-index", "--no-color", "--"])
            .arg(&old_path)
            .arg(&plan_path)
            .output()
            .expect("git diff runs");
        assert_eq!(
            out.status.code(),
            Some(1),
            "git diff --no-index finds differences"
        );
    });
    let git_words = time_n(RUNS, || {
        Command::new("git")
            .args(["diff", "--no-index", "--no-color", "--word-diff", "--"])
            .arg(&old_path)
            .arg(&plan_path)
            .output()
            .expect("git diff runs");
    });
    // Where the time goes: the rendered side alone, and a plain sanitized render of the new text.
    let rendered = time_n(RUNS, || {
        std::hint::black_box(review::diff::rendered_diff_html(&old, &new));
    });
    let plain_render = time_n(RUNS, || {
        std::hint::black_box(plandeck_core::render::markdown_html(&new));
    });
    let (s, hunks, html) = stats.expect("ran");
    let extra = serde_json::json!({
        "lines": LINES, "changedLines": LINES / 20, "added": s.added, "removed": s.removed,
        "hunks": hunks, "htmlBytes": html, "runs": RUNS, "p90ms": ms(percentile(&full, 90.0)),
    });
    report(
        "review::diff (read + diff + words + rows + sanitized render)",
        ms(median(&full)),
        "< 50 ms",
        Some(("git diff --no-index", ms(median(&git)))),
        Limit::max(50.0),
        extra,
    );
    report(
        "PlanDiff::between (in memory)",
        ms(median(&in_memory)),
        "< 50 ms",
        Some(("git diff --no-index --word-diff", ms(median(&git_words)))),
        Limit::max(50.0),
        serde_json::json!({ "p90ms": ms(percentile(&in_memory, 90.0)) }),
    );
    report(
        "rendered_diff_html (blocks diffed, rendered, sanitized)",
        ms(median(&rendered)),
        "< 50 ms (part of the diff's 50 ms)",
        None,
        Limit::max(50.0),
        serde_json::json!({ "p90ms": ms(percentile(&rendered, 90.0)) }),
    );
    report(
        "render::markdown_html of the new text (reference)",
        ms(median(&plain_render)),
        "< 50 ms (the plan view renders it on every open, as the diff)",
        None,
        Limit::max(50.0),
        serde_json::json!({}),
    );
    approvals();
}

/// `Approvals::load` + `.state()` over 5,000 plans, 1,000 approved through `review::approve`.
fn approvals() {
    let dir = tempfile::tempdir().expect("temp dir");
    let roots = Roots::under_home(dir.path());
    let plans_dir = roots.claude.join("plans");
    fs::create_dir_all(&plans_dir).expect("mkdir");
    let paths: Vec<_> = (0..PLANS)
        .map(|i| plans_dir.join(format!("plan-{i:05}.md")))
        .collect();
    for (i, p) in paths.iter().enumerate() {
        fs::write(
            p,
            format!("# Plan {i}\n\nStep one of plan {i}.\n\n1. Do it.\n2. Test it.\n").repeat(20),
        )
        .expect("write");
    }
    for p in paths.iter().step_by(PLANS / APPROVED) {
        review::approve(&roots, p, ApproveRequest::default()).expect("approve");
    }
    let contents: Vec<Vec<u8>> = paths.iter().map(|p| fs::read(p).expect("read")).collect();
    let mut approved = 0;
    let states = time_n(RUNS, || {
        let approvals = Approvals::load(&roots.data);
        approved = paths
            .iter()
            .zip(&contents)
            .filter(|(p, c)| approvals.state(p, c) == ReviewState::Approved)
            .count();
    });
    assert_eq!(approved, APPROVED, "every approved plan shows as approved");
    let load = time_n(RUNS, || {
        std::hint::black_box(Approvals::load(&roots.data));
    });
    let read = time_n(RUNS, || {
        for p in &paths {
            std::hint::black_box(fs::read(p).expect("read"));
        }
    });
    let extra = serde_json::json!({
        "plans": PLANS, "approved": APPROVED, "runs": RUNS, "p90ms": ms(percentile(&states, 90.0)),
        "loadOnlyMs": ms(median(&load)),
    });
    report(
        "Approvals::load + state() of 5,000 plans (1,000 approved)",
        ms(median(&states)),
        "< 300 ms (part of listing 5,000 plans < 300 ms)",
        Some(("fs::read of the 5,000 plans", ms(median(&read)))),
        Limit::max(300.0),
        extra,
    );
}
