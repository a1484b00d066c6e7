//! ACP sessions hosted by Plandeck (issue 36), with the scripted ACP agent
//! (tests/agents/acp-scripted.mjs) as `claude-agent-acp`, hosted in this process
//! (`acp::host::serve`, as the per-user server runs it):
//! - a decision to the agent: `gate::decide_with` (approve) called to the agent reading the
//!   answer to its `session/request_permission` (its `--times` log), p95 < 50 ms;
//! - an update to the window: the agent's chunk, stamped when sent, to the live handle's
//!   `acp:changed` with the session's record read and holding it, p95 < 100 ms;
//! - eight sessions streaming a chunk every 50 ms each: this process's CPU (the host: records,
//!   watcher; the agents are other processes) < 10% of a core.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use plandeck_benches::{median, ms, percentile, report, Limit};
use plandeck_core::acp::host;
use plandeck_core::config::{Env, Roots};
use plandeck_core::gate::{self, ApproveMode, DeliveryOptions, GateDecision};
use plandeck_core::live::{Live, LiveEvent};

const DECISIONS: usize = 30;
/// The CPU window.
const STREAM_SECONDS: u64 = 8;
const SESSIONS: usize = 8;
/// How long the window's side is timed, after the CPU window.
const WINDOW_SECONDS: u64 = 6;

fn now_ms() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis()
}

fn scripted(bin: &Path, scenario: &str, times: &Path) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/agents/acp-scripted.mjs");
    std::fs::create_dir_all(bin).unwrap();
    let path = bin.join("claude-agent-acp");
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\nexec node '{}' --scenario {scenario} --times '{}'\n",
            script.display(),
            times.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn env_with(bin: &Path) -> Env {
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    // SAFETY: set before any thread of this benchmark starts.
    std::env::set_var("PATH", path);
    Env::from_process()
}

fn wait<T>(what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(start.elapsed() < Duration::from_secs(60), "{what}");
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn cpu_self() -> Duration {
    // SAFETY: rusage is plain data (all zeroes is a valid value).
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `u` is a valid, writable rusage for the call.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(u.ru_utime) + tv(u.ru_stime)
}

fn main() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    let bin = tmp.path().join("bin");
    let roots = Roots::under_home(&home);
    let times = tmp.path().join("times.log");
    scripted(&bin, "ask", &times);
    let env = env_with(&bin);
    let serving = Arc::new(AtomicBool::new(true));
    let server = {
        let (roots, env, serving) = (roots.clone(), env.clone(), serving.clone());
        std::thread::spawn(move || host::serve(roots, env, move || serving.load(Ordering::SeqCst)))
    };
    let cwd = repo.to_string_lossy().into_owned();

    // 1. A decision to the agent.
    let id = host::request_start(&roots, "claude-acp", &cwd, false, Some("ask".into())).unwrap();
    let mut decision = Vec::new();
    for n in 0..DECISIONS {
        let req = wait("a request waiting", || {
            gate::pending(&roots)
                .into_iter()
                .find(|r| r.id.starts_with("acp-"))
        });
        let t0 = now_ms();
        gate::decide_with(
            &roots,
            &req.id,
            GateDecision::Approve {
                mode: ApproveMode::Manual,
                edited: None,
                started_from: None,
            },
            &DeliveryOptions {
                by: "bench".into(),
                hook_timeout: Duration::ZERO,
                ..DeliveryOptions::default()
            },
        )
        .unwrap();
        // The agent's answer line, read by the agent (its time, in ms).
        let at = wait("the agent reading the answer", || {
            std::fs::read_to_string(&times)
                .ok()?
                .lines()
                .filter(|l| l.contains("\"outcome\":{\"outcome\":\"selected\""))
                .nth(n)
                .and_then(|l| l.split(' ').next()?.parse::<u128>().ok())
        });
        decision.push(Duration::from_millis(at.saturating_sub(t0) as u64));
        // The next prompt asks again.
        wait("the turn to end", || {
            (host::get(&roots, &id)?.state == "idle").then_some(())
        });
        host::command(&roots, &id, &host::Command::Send { text: "ask".into() }).unwrap();
    }
    host::command(&roots, &id, &host::Command::Stop).unwrap();
    let p95 = percentile(&decision, 95.0);
    report(
        "acp_decision_to_agent",
        ms(p95),
        "p95 < 50 ms",
        None,
        Limit::max(50.0),
        serde_json::json!({"p95": true, "median_ms": ms(median(&decision)), "runs": DECISIONS, "clock": "ms"}),
    );

    // 2 and 3. Eight sessions streaming; the first one's updates timed to the window's event.
    let stream_times = tmp.path().join("stream-times.log");
    scripted(&bin, "stream", &stream_times);
    let latencies: Arc<Mutex<Vec<Duration>>> = Arc::default();
    let watched: Arc<Mutex<Option<String>>> = Arc::default();
    let ids: Vec<String> = (0..SESSIONS)
        .map(|_| {
            host::request_start(
                &roots,
                "claude-acp",
                &cwd,
                false,
                Some(format!("stream {}", STREAM_SECONDS + WINDOW_SECONDS + 3)),
            )
            .unwrap()
        })
        .collect();
    *watched.lock().unwrap() = Some(ids[0].clone());
    for id in &ids {
        wait("the session streaming", || {
            (host::get(&roots, id)?.state == "working").then_some(())
        });
    }
    std::thread::sleep(Duration::from_secs(1));
    let (cpu0, wall0) = (cpu_self(), Instant::now());
    std::thread::sleep(Duration::from_secs(STREAM_SECONDS));
    let (cpu1, wall1) = (cpu_self(), Instant::now());
    let share = (cpu1 - cpu0).as_secs_f64() / (wall1 - wall0).as_secs_f64() * 100.0;
    // The window's side (a live handle, as the window's or a server's) after the CPU window, so
    // its reading does not count as the host's.
    let live = {
        let (roots2, latencies, watched) = (roots.clone(), latencies.clone(), watched.clone());
        let last = Mutex::new(0u128);
        Live::start_with(&roots, Arc::new(Mutex::new(None)), false, move |e| {
            let LiveEvent::Acp(c) = e else { return };
            let Some(id) = watched.lock().unwrap().clone() else {
                return;
            };
            if !c.ids.contains(&id) {
                return;
            }
            let Some(h) = host::get(&roots2, &id) else {
                return;
            };
            let now = now_ms();
            // The newest stamp in the record.
            let newest = h
                .entries
                .iter()
                .rev()
                .find(|e| e.kind == "agent")
                .and_then(|e| e.text.rsplit("t=").next()?.trim().parse::<u128>().ok());
            if let Some(t) = newest {
                let mut l = last.lock().unwrap();
                if t > *l {
                    *l = t;
                    latencies
                        .lock()
                        .unwrap()
                        .push(Duration::from_millis(now.saturating_sub(t) as u64));
                }
            }
        })
    };
    std::thread::sleep(Duration::from_secs(WINDOW_SECONDS));
    for id in &ids {
        wait("the stream to end", || {
            (host::get(&roots, id)?.state == "idle").then_some(())
        });
        host::command(&roots, id, &host::Command::Stop).unwrap();
    }
    drop(live);
    let l = latencies.lock().unwrap().clone();
    report(
        "acp_update_to_window",
        ms(percentile(&l, 95.0)),
        "p95 < 100 ms (agent's chunk to acp:changed with the record read)",
        None,
        Limit::max(100.0),
        serde_json::json!({"p95": true, "median_ms": ms(median(&l)), "samples": l.len(), "clock": "ms", "sessions": SESSIONS}),
    );
    report(
        "acp_eight_sessions_host_cpu",
        share,
        "< 10% of a core (the host, beyond the agents' own processes)",
        None,
        Limit::max(10.0),
        serde_json::json!({"unit": "% of a core", "sessions": SESSIONS, "chunk_every_ms": 50, "seconds": STREAM_SECONDS}),
    );
    serving.store(false, Ordering::SeqCst);
    let _ = server.join();
    plandeck_benches::finish();
}
