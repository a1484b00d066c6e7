//! Plan history (issue 13): the first scan of a home's transcripts against `cat` of the same
//! files (budget ≤ 1.5×, timed in the same run), and the rescan after one record was appended to
//! one transcript (only the appended bytes are read).
//!
//! Generates `$PLANDECK_BENCH_HISTORY_MB` MiB (default 512) of Claude Code transcripts into a
//! temp home: realistic records (prompts, tool_use, tool_results with file contents of 1–64 KB,
//! escaped text) with an `ExitPlanMode` call and its result in every session, somewhere in the
//! middle, and a few single lines of several MiB.

use std::fs::{self, File};
use std::io::{BufWriter, Read, Write};
use std::path::Path;
use std::time::Instant;

use plandeck_benches::{median, ms, report, time_n};
use plandeck_core::config::Roots;
use serde_json::json;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

fn blob(rng: &mut Rng, len: usize) -> String {
    const WORDS: [&str; 10] = [
        "fn",
        "let",
        "orders",
        "cursor",
        "\"page\"",
        "=>",
        "{",
        "}",
        "// naïve",
        "\tmatch",
    ];
    let mut s = String::with_capacity(len + 16);
    while s.len() < len {
        s.push_str(WORDS[rng.below(WORDS.len() as u64) as usize]);
        s.push(if rng.below(8) == 0 { '\n' } else { ' ' });
    }
    s
}

fn generate(home: &Path, total: u64) -> (u64, usize) {
    let project = home.join(".claude/projects/-w");
    fs::create_dir_all(&project).unwrap();
    let plans = home.join(".claude/plans");
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut written, mut sessions) = (0u64, 0usize);
    while written < total {
        let sid = format!("{:016x}-{sessions:08}", rng.next());
        let path = project.join(format!("{sid}.jsonl"));
        let mut w = BufWriter::new(File::create(&path).unwrap());
        let size = 256 * 1024 + rng.below(2 * 1024 * 1024);
        let mut n = 0u64;
        let plan_at = size / 2;
        let mut planned = false;
        let mut i = 0;
        while n < size || !planned {
            i += 1;
            let ts = format!("2026-01-01T00:{:02}:{:02}Z", (i / 60) % 60, i % 60);
            let line = if !planned && (n >= plan_at || n >= size) {
                planned = true;
                let plan = format!("# Plan {sid}\n\n{}", blob(&mut rng, 4000));
                let call = json!({"type":"assistant","sessionId":sid,"timestamp":ts,"message":{"content":[
                    {"type":"tool_use","id":format!("t{sid}"),"name":"ExitPlanMode",
                     "input":{"plan":plan,"planFilePath":plans.join(format!("{sid}.md"))}}]}});
                let result = json!({"type":"user","sessionId":sid,"timestamp":ts,"message":{"content":[
                    {"type":"tool_result","tool_use_id":format!("t{sid}"),"content":"User has approved your plan."}]},
                    "toolUseResult":{"plan":plan}});
                format!("{call}\n{result}")
            } else {
                match rng.below(10) {
                    0..=5 => {
                        let len = 1024 + rng.below(64 * 1024) as usize;
                        json!({"type":"user","sessionId":sid,"timestamp":ts,"message":{"content":[
                            {"type":"tool_result","tool_use_id":format!("r{i}"),"content":blob(&mut rng, len)}]},
                            "toolUseResult":{"file":{"content":"x"}}})
                        .to_string()
                    }
                    6..=8 => json!({"type":"assistant","sessionId":sid,"timestamp":ts,"message":{"content":[
                        {"type":"tool_use","id":format!("r{i}"),"name":"Read","input":{"file_path":"/w/src/lib.rs"}},
                        {"type":"text","text":blob(&mut rng, 600)}]}})
                    .to_string(),
                    _ if rng.below(200) == 0 => {
                        // A screenshot-sized single line.
                        json!({"type":"user","sessionId":sid,"timestamp":ts,"message":{"content":[
                            {"type":"tool_result","tool_use_id":format!("r{i}"),"content":"A".repeat(3 << 20)}]}})
                        .to_string()
                    }
                    _ => json!({"type":"user","sessionId":sid,"cwd":"/w","entrypoint":"cli","timestamp":ts,"message":{"content":blob(&mut rng, 200)}})
                        .to_string(),
                }
            };
            w.write_all(line.as_bytes()).unwrap();
            w.write_all(b"\n").unwrap();
            n += line.len() as u64 + 1;
        }
        w.flush().unwrap();
        written += n;
        sessions += 1;
    }
    (written, sessions)
}

/// `cat` of every transcript: read each file whole in 256 KiB chunks.
fn cat(home: &Path) -> u64 {
    let mut buf = vec![0u8; 256 << 10];
    let mut total = 0;
    for e in fs::read_dir(home.join(".claude/projects/-w")).unwrap() {
        let mut f = File::open(e.unwrap().path()).unwrap();
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
    let mb: u64 = std::env::var("PLANDECK_BENCH_HISTORY_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(512);
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let (bytes, sessions) = generate(home, mb << 20);
    let roots = Roots::under_home(home);
    let store = roots.data.join("history");

    // Warm the page cache once, then alternate so both see the same cache state.
    cat(home);
    let c = cpu_ms();
    let cat_times = time_n(3, || {
        cat(home);
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
    assert_eq!(plans, sessions);
    let (first, base) = (ms(median(&first_times)), ms(median(&cat_times)));
    report(
        "history: first scan of every transcript",
        first,
        "≤ 1.5× cat of the same files",
        Some(("cat of the transcripts", base)),
        json!({"bytes": bytes, "sessions": sessions, "plans": plans, "ratio": (first / base * 100.0).round() / 100.0,
            "cpuMs": first_cpu, "catCpuMs": cat_cpu}),
    );

    // Append one ExitPlanMode call to one transcript, then rescan.
    let one = fs::read_dir(home.join(".claude/projects/-w"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
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
    let h = plandeck_core::history::scan(&roots).unwrap();
    let rescan = ms(t.elapsed());
    assert_eq!(h.stats.bytes_read, line.len() as u64);
    report(
        "history: rescan after one appended record",
        rescan,
        "reads only the appended bytes",
        None,
        json!({"bytesRead": h.stats.bytes_read, "filesRead": h.stats.files_read}),
    );
}
