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
use plandeck_benches::{median, ms, report as report_row, time_n};
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

/// CPU time (user + system, every thread) of this process so far, in ms: on a machine shared with
/// other work the wall time of both sides swings with the load, their CPU time much less.
fn cpu_ms() -> f64 {
    let stat = fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which is in parentheses): utime is the 12th, stime the 13th.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<u64> = rest
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|x| x.parse().ok())
        .collect();
    f.iter().sum::<u64>() as f64 * 10.0
}

fn main() {
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
    let c = cpu_ms();
    let cat_times = time_n(3, || {
        cat(&files);
    });
    let cat_cpu = (cpu_ms() - c) / 3.0;
    let mut plans = 0;
    let c = cpu_ms();
    let first_times = time_n(3, || {
        let _ = fs::remove_dir_all(&store);
        let h = plandeck_core::history::scan(&roots).unwrap();
        assert_eq!(h.stats.bytes_read, bytes);
        plans = h.plans.len();
    });
    let first_cpu = (cpu_ms() - c) / 3.0;
    assert!(
        plans >= report.plans / 2,
        "{plans} plans of {}",
        report.plans
    );
    let (first, base) = (ms(median(&first_times)), ms(median(&cat_times)));
    report_row(
        "history: first scan of every transcript",
        first,
        "≤ 1.5× cat of the same files",
        Some(("cat of the transcripts", base)),
        json!({"bytes": bytes, "files": files.len(), "sessions": report.sessions, "plans": plans,
            "scale": scale, "ratio": (first / base * 100.0).round() / 100.0,
            "cpuMs": first_cpu, "catCpuMs": cat_cpu}),
    );

    // The window: the history kept live; its first refresh is the first scan.
    let mut live = plandeck_core::history::Live::new();
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
    report_row(
        "history: window refresh after one appended record",
        window,
        "reads only the appended bytes",
        None,
        json!({"bytesRead": live.history().unwrap().stats.bytes_read}),
    );
    report_row(
        "history: CLI rescan (store loaded from disk), nothing new",
        rescan,
        "reads no transcript bytes",
        None,
        json!({"bytesRead": h.stats.bytes_read, "storeBytes": fs::metadata(store.join("transcripts.json")).map_or(0, |m| m.len())}),
    );
    // Restore the transcript as generated, so the next run reuses the home.
    let f = fs::OpenOptions::new().write(true).open(&one).unwrap();
    let len = f.metadata().unwrap().len();
    f.set_len(len - line.len() as u64).unwrap();
}
