//! Plan history (issue 13): the first scan of a heavy user's home (benches/src/heavy_home.rs:
//! Claude Code transcripts of real records with multi-MiB lines, compactions, plans, Gemini chats)
//! against `cat` of the same files (budget ≤ 1.5×, timed in the same run), the rescan after one
//! record was appended to one transcript (only the appended bytes are read), by the CLI (store
//! loaded from disk) and by the window (history kept live in memory).
//!
//! `PLANDECK_BENCH_HISTORY_SCALE` (default 0.25: 300 sessions, ~0.5 GiB; 1.0 is the 2 GiB
//! home) scales the home; it is generated once into the temp folder and reused while unchanged.

use std::fs::{self, File};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use plandeck_benches::heavy_home::{ensure, HeavyHomeSpec};
use plandeck_benches::{check, median, ms, report as report_row, time_n, Limit};
use plandeck_core::config::Roots;
use serde_json::json;

/// Every transcript file under `dir` (`*.jsonl`, and Gemini's `chats/*.json`), sorted.
fn transcripts(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            transcripts(&p, out);
        } else if p.extension().is_some_and(|x| x == "jsonl")
            || (p.extension().is_some_and(|x| x == "json")
                && p.parent()
                    .and_then(Path::file_name)
                    .is_some_and(|n| n == "chats"))
        {
            out.push(p);
        }
    }
}

/// `cat` of every transcript: read each file whole in 256 KiB chunks.
fn cat(files: &[PathBuf]) -> u64 {
    let mut buf = vec![0u8; 256 << 10];
    let mut total = 0;
    for p in files {
        let mut f = File::open(p).unwrap();
        loop {
            let n = f.read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            total += n as u64;
        }
    }
    total
}

/// CPU time (user, system; every thread) of this process so far, in ms: on a machine shared with
/// other work the wall time of both sides swings with the load, their CPU time much less.
fn cpu_split_ms() -> (f64, f64) {
    let stat = fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which is in parentheses): utime is the 12th, stime the 13th.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<u64> = rest
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|x| x.parse().ok())
        .collect();
    let tick = |i: usize| f.get(i).copied().unwrap_or(0) as f64 * 10.0;
    (tick(0), tick(1))
}

fn main() {
    benchmarks();
    plandeck_benches::finish();
}

fn benchmarks() {
    let scale: f64 = std::env::var("PLANDECK_BENCH_HISTORY_SCALE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.25);
    let spec = HeavyHomeSpec::at_scale(scale);
    let home = std::env::temp_dir().join(format!("plandeck-bench-heavy-home-{scale}"));
    let report = ensure(&home, &spec).unwrap();
    let roots = Roots::under_home(&home);
    let store = roots.data.join("history");
    let mut files = Vec::new();
    transcripts(&roots.claude.join("projects"), &mut files);
    transcripts(&roots.gemini.join("tmp"), &mut files);
    files.sort();

    // Warm the page cache once, then time both on the same cache state.
    let bytes = cat(&files);
    let c = cpu_split_ms();
    let cat_times = time_n(3, || {
        cat(&files);
    });
    let c2 = cpu_split_ms();
    let cat_cpu = ((c2.0 - c.0) / 3.0, (c2.1 - c.1) / 3.0);
    // The first scan, timed twice: with the store in memory (tmpfs), the cost of reading the
    // transcripts, which is what the budget is about; with the store on disk, plus its atomic
    // save (an fsync, on a disk shared with other work).
    let shm = tempfile::tempdir_in("/dev/shm").ok();
    let first_scan = |roots: &Roots| {
        let store = roots.data.join("history");
        let (mut plans, mut parsed) = (0, 0);
        let c = cpu_split_ms();
        let times = time_n(3, || {
            let _ = fs::remove_dir_all(&store);
            let h = plandeck_core::history::scan(roots).unwrap();
            assert_eq!(h.stats.bytes_read, bytes);
            plans = h.plans.len();
            parsed = h.stats.lines_parsed;
        });
        let c2 = cpu_split_ms();
        let cpu = ((c2.0 - c.0) / 3.0, (c2.1 - c.1) / 3.0);
        (ms(median(&times)), cpu, plans, parsed)
    };
    let base = ms(median(&cat_times));
    let mut in_memory = roots.clone();
    if let Some(d) = &shm {
        in_memory.data = d.path().to_owned();
    }
    for (what, r) in [
        (
            "history: first scan of every transcript (store in memory)",
            &in_memory,
        ),
        (
            "history: first scan of every transcript, store saved to disk",
            &roots,
        ),
    ] {
        let (first, cpu, plans, parsed) = first_scan(r);
        assert!(
            plans >= report.plans / 2,
            "{plans} plans of {}",
            report.plans
        );
        report_row(
            what,
            first,
            "≤ 1.5× cat of the same files",
            Some(("cat of the transcripts", base)),
            Limit::ratio(1.5),
            json!({"bytes": bytes, "files": files.len(), "linesParsed": parsed, "sessions": report.sessions,
                "plans": plans, "scale": scale, "ratio": (first / base * 100.0).round() / 100.0,
                "cpuMs": cpu.0 + cpu.1, "userMs": cpu.0, "systemMs": cpu.1,
                "catCpuMs": cat_cpu.0 + cat_cpu.1, "catUserMs": cat_cpu.0, "catSystemMs": cat_cpu.1,
                "cpuRatio": ((cpu.0 + cpu.1) / (cat_cpu.0 + cat_cpu.1) * 100.0).round() / 100.0}),
        );
    }

    // The window: the history kept live; its first refresh is the first scan.
    let mut live = plandeck_core::history::Follower::new();
    live.refresh(&roots, false, &|_| {});

    // Append one ExitPlanMode call to one transcript, then rescan.
    let one = report.transcripts[0].clone();
    let line = json!({"type":"assistant","sessionId":"x","timestamp":"2026-01-02T00:00:00Z","message":{"content":[
        {"type":"tool_use","id":"tnew","name":"ExitPlanMode","input":{"plan":"# New\n"}}]}})
    .to_string()
        + "\n";
    fs::OpenOptions::new()
        .append(true)
        .open(&one)
        .unwrap()
        .write_all(line.as_bytes())
        .unwrap();
    let t = Instant::now();
    let changed = live.refresh(&roots, false, &|_| {});
    let window = ms(t.elapsed());
    assert!(changed);
    let t = Instant::now();
    let h = plandeck_core::history::scan(&roots).unwrap();
    let rescan = ms(t.elapsed());
    assert_eq!(
        h.stats.bytes_read, 0,
        "the window's refresh saved the store"
    );
    let name = "history: window refresh after one appended record";
    let read = live.history().unwrap().stats.bytes_read;
    report_row(
        name,
        window,
        "< 50 ms, reading only the appended bytes (checked)",
        None,
        Limit::max(50.0),
        json!({"bytesRead": read, "appendedBytes": line.len()}),
    );
    check(
        name,
        read <= line.len() as u64,
        "reads only the appended bytes",
    );
    report_row(
        "history: CLI rescan (store loaded from disk), nothing new",
        rescan,
        "< 50 ms, reading no transcript bytes (checked)",
        None,
        Limit::max(50.0),
        json!({"bytesRead": h.stats.bytes_read, "storeBytes": fs::metadata(store.join("transcripts.json")).map_or(0, |m| m.len())}),
    );
    // Restore the transcript as generated, so the next run reuses the home.
    let f = fs::OpenOptions::new().write(true).open(&one).unwrap();
    let len = f.metadata().unwrap().len();
    f.set_len(len - line.len() as u64).unwrap();
}
