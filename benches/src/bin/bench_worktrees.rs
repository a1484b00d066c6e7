//! Worktree budgets (docs/architecture.md §6), each against the git CLI in the same run:
//! - changed-file count on a 100,000-file repository ≤ 1.5× `git status --porcelain`
//!   (git2's plain `statuses()` is timed too, for reference), once with a clean index and once
//!   with a staged change in a deep folder (the cache-tree then covers only part of HEAD);
//! - unmerged-commit count over 100,000 commits ≤ 1.2× `git rev-list --count`.
//!
//! Both repositories are generated with `git fast-import`. Rounds alternate between ours and git's
//! so that cache warmth favours neither.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use plandeck_benches::{median, ms, report};

const FILES: usize = 100_000;
const COMMITS: usize = 100_000;
const ROUNDS: usize = 7;

fn git(dir: &Path, args: &[&str]) -> Vec<u8> {
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

fn changed_files_bench() {
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
    let git_lines = git(dir, &["status", "--porcelain"])
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
    let git_lines = git(dir, &["status", "--porcelain"])
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .count();
    time_changed_files(dir, "worktrees.changed_files_100k_staged", git_lines);
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
        git(dir, &["status", "--porcelain"]);
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
    let expect = String::from_utf8_lossy(&git(dir, &["rev-list", "--count", "main..feature"]))
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
        git(dir, &["rev-list", "--count", "main..feature"]);
        theirs.push(t.elapsed());
    }
    let (o, g) = (ms(median(&ours)), ms(median(&theirs)));
    report(
        "worktrees.unmerged_100k_commits",
        o,
        "<= 1.2x git rev-list --count",
        Some(("git rev-list --count", g)),
        serde_json::json!({ "ratio": (o / g * 100.0).round() / 100.0, "commits": expect, "rounds": ROUNDS }),
    );
}

fn main() {
    changed_files_bench();
    unmerged_bench();
}
