//! Verifying a 50-step plan against a 2,000-tool-call Claude Code session and a 1,000-file diff
//! (budget < 200 ms), against `git diff --numstat` of the same worktree in the same run.
//!
//! The data is real: a temp home whose Claude Code transcript (2.1.328 record shapes, see
//! `plandeck_testkit::verify`) holds the plan's approval and then 1,000 `Edit` calls and
//! 1,000 `Bash` commands with their results; a git repository of 1,200 files in which 1,000 were
//! changed after the approval (500 of them committed, 500 uncommitted). `verify::report` is timed
//! as the CLI and the window call it: the plan history scan (warm: the second and later runs read
//! no new transcript bytes), the transcript read, the git diff with rename detection and hunks,
//! and the judging of every step. The judging alone (`judge::evaluate` on gathered facts) is
//! timed too. The report's row carries `limit` (200 ms on the median), judged by `benches/run.sh`.

use std::process::Command;

use plandeck_benches::{median, ms, percentile, report, time_n, Limit};
use plandeck_core::config::Roots;
use plandeck_core::verify;
use plandeck_testkit::verify as testkit;

const FILES: usize = 1_200;
const CHANGED: usize = 1_000;
const EDITS: usize = 1_000;
const COMMANDS: usize = 1_000;
const STEPS: usize = 50;
const RUNS: usize = 15;

fn main() {
    benchmarks();
    plandeck_benches::finish();
}

fn benchmarks() {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = dir.path();
    let repo = home.join("work/big");
    let files: Vec<(String, String)> = (0..FILES)
        .map(|i| {
            let body: String = (0..30)
                .map(|l| format!("pub fn item_{i}_{l}(x: u32) -> u32 {{ x + {l} }}\n"))
                .collect();
            (format!("src/m{}/f{i}.rs", i % 40), body)
        })
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    testkit::git_init(&repo, &refs, 0);

    // A 50-step plan: each step names two files, a symbol, and (every fifth) a command.
    let mut plan = String::from("# Plan: rework the big module\n\n");
    for s in 0..STEPS {
        let a = s * 20;
        let b = s * 20 + 7;
        plan.push_str(&format!(
            "{}. Change `src/m{}/f{a}.rs` and src/m{}/f{b}.rs to add `paged_{s}`",
            s + 1,
            a % 40,
            b % 40
        ));
        if s % 5 == 0 {
            plan.push_str(&format!(", then run `cargo test -p big{s}`"));
        }
        plan.push('\n');
    }

    let mut session = testkit::ClaudeSession::new(
        home,
        &repo,
        "b3c4d5e6-1111-4222-8333-944455556666",
        "plan-bench-verify",
    );
    session.prompt(10, "plan the rework");
    session.plan_approved(100, 150, &plan);
    // 1,000 files changed after the approval (each step's symbol lands in its files).
    for (i, (p, c)) in files.iter().enumerate().take(CHANGED) {
        let step = i / 20;
        let new = format!("{c}pub fn paged_{step}() {{}}\n");
        testkit::write_file(&repo, p, &new);
        if i < EDITS {
            session.edit(
                200 + i as i64,
                &repo.join(p),
                "pub fn item",
                &format!("pub fn paged_{step}() {{}}\npub fn item"),
            );
        }
        if i == CHANGED / 2 {
            testkit::commit_all(&repo, "first half", 200 + i as i64);
        }
    }
    for c in 0..COMMANDS {
        let cmd = if c % 10 == 0 {
            format!("cargo test -p big{}", (c / 10) % STEPS)
        } else {
            format!("rg -n paged_{} src", c % STEPS)
        };
        session.bash(1_300 + c as i64, &cmd, i32::from(c % 7 == 0));
    }
    session.save();
    let roots = Roots::under_home(&session.home);
    let plan_ref = session.plan_path.to_string_lossy().into_owned();

    // Warm the plan history store (the app keeps it warm as transcripts grow).
    let first = verify::report(&roots, &plan_ref).expect("report");
    assert_eq!(first.steps.len(), STEPS);
    assert!(first.changes.len() >= CHANGED, "{}", first.changes.len());

    let full = time_n(RUNS, || {
        let r = verify::report(&roots, &plan_ref).expect("report");
        std::hint::black_box(r);
    });
    let baseline = time_n(RUNS, || {
        let out = Command::new("git")
            .args(["diff", "--numstat", "HEAD~1"])
            .current_dir(&repo)
            .output()
            .expect("git");
        std::hint::black_box(out);
    });
    let target = verify::judge::resolve(&roots, &plan_ref).expect("resolve");
    let inputs = verify::judge::gather(&roots, target);
    let judge = time_n(RUNS, || {
        std::hint::black_box(verify::judge::evaluate(&inputs));
    });
    let transcript = session.transcript();
    let read = time_n(RUNS, || {
        std::hint::black_box(
            verify::facts::read(plandeck_core::agents::Agent::Claude, &transcript).expect("read"),
        );
    });
    let approved = time::OffsetDateTime::from_unix_timestamp(testkit::T0 + 150).ok();
    let git = time_n(RUNS, || {
        std::hint::black_box(verify::changes::collect(&repo, approved, None).expect("git"));
    });
    // The same diff on libgit2's per-file path (what `collect` takes when an attributes file
    // exists, as a repository's own `.git/info/attributes`; an empty one filters nothing).
    let info_attributes = repo.join(".git/info/attributes");
    std::fs::create_dir_all(repo.join(".git/info")).expect("info");
    std::fs::write(&info_attributes, "").expect("attributes");
    let git_libgit2 = time_n(RUNS, || {
        std::hint::black_box(verify::changes::collect(&repo, approved, None).expect("git"));
    });
    std::fs::remove_file(&info_attributes).expect("attributes");
    let scan = time_n(RUNS, || {
        std::hint::black_box(verify::judge::resolve(&roots, &plan_ref).expect("resolve"));
    });
    report(
        "verify: 50-step plan, 2,000 tool calls, 1,000-file diff (report as the CLI/window call it)",
        ms(median(&full)),
        "< 200 ms",
        Some(("git diff --numstat of the same worktree", ms(median(&baseline)))),
        Limit::max(200.0),
        serde_json::json!({
            "p90": (ms(percentile(&full, 90.0)) * 1000.0).round() / 1000.0,
            "steps": STEPS,
            "toolCalls": EDITS + COMMANDS,
            "changedFiles": first.changes.len(),
            "done": first.counts.done,
            "partial": first.counts.partial,
            "missing": first.counts.missing,
            "runs": RUNS,
        }),
    );
    for (what, samples) in [
        ("verify: part: plan history scan and approval (warm)", &scan),
        ("verify: part: reading the 2,000-call transcript", &read),
        (
            "verify: part: git changes since approval (1,000 files, hunks)",
            &git,
        ),
        (
            "verify: part: the same git changes on libgit2's per-file path (attributes present)",
            &git_libgit2,
        ),
    ] {
        report(
            what,
            ms(median(samples)),
            "< 200 ms (part of the 200 ms)",
            None,
            Limit::max(200.0),
            serde_json::json!({ "runs": RUNS }),
        );
    }
    report(
        "verify: judging only (steps against gathered facts)",
        ms(median(&judge)),
        "< 200 ms (part of the 200 ms)",
        None,
        Limit::max(200.0),
        serde_json::json!({ "runs": RUNS }),
    );
}
