//! The gate's two budgets (docs/architecture.md §6): hook start to the request visible to the app
//! (`gate::pending`), and decision written to hook exit; each < 50 ms. And issue 23's "approve
//! clicked → agent unblocked" for an interactive Claude Code approved through its hook: p95
//! < 300 ms.
//!
//! Measured twice: the hook in-process (a thread running `gate::hook_claude`), and, when the
//! release `plandeck-cli` binary sits beside this one, as the real process an agent starts
//! (`plandeck-cli hook claude` with the hook JSON on stdin). Baseline: spawning `true`, the floor
//! of any process-based hook.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use plandeck_benches::{median, ms, percentile, report, Limit};
use plandeck_core::config::Roots;
use plandeck_core::gate::{self, ApproveMode, DeliveryOptions, GateDecision, HookOptions};

const N: usize = 40;

fn stdin_for(home: &Path) -> Vec<u8> {
    let transcript = home.join(".claude/projects/-w/s.jsonl");
    std::fs::create_dir_all(transcript.parent().unwrap()).unwrap();
    let call = serde_json::json!({"type":"assistant","message":{"content":[
        {"type":"tool_use","id":"toolu_b","name":"ExitPlanMode","input":{"plan":"# p\n"}}]}});
    std::fs::write(&transcript, format!("{call}\n")).unwrap();
    serde_json::to_vec(&serde_json::json!({
        "session_id": "bench", "transcript_path": transcript, "cwd": "/w",
        "hook_event_name": "PermissionRequest", "tool_name": "ExitPlanMode",
        "tool_input": {"plan": "# p\n", "planFilePath": home.join(".claude/plans/p.md")}
    }))
    .unwrap()
}

fn wait_visible(roots: &Roots) -> String {
    let start = Instant::now();
    loop {
        if let Some(r) = gate::pending(roots).into_iter().next() {
            return r.id;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "request never became visible"
        );
        std::thread::sleep(Duration::from_micros(200));
    }
}

fn in_process(roots: &Roots, stdin: &[u8]) -> (Vec<Duration>, Vec<Duration>) {
    let (mut visible, mut exit) = (Vec::new(), Vec::new());
    for _ in 0..N {
        let (r, s) = (roots.clone(), stdin.to_vec());
        let t0 = Instant::now();
        let hook = std::thread::spawn(move || {
            let opts = HookOptions {
                deadline: Duration::from_secs(60),
                hook_pid: std::process::id(),
                agent_pid: None,
                tmux_env: None,
            };
            let out = gate::hook_claude(&r, &s, opts);
            (out, Instant::now())
        });
        let id = wait_visible(roots);
        visible.push(t0.elapsed());
        // Decision written to hook exit: only the decision file (what the app writes), so the
        // time is the hook's reaction, not decide()'s own wait for confirmation.
        let t1 = Instant::now();
        write_reject(roots, &id);
        let (out, exited) = hook.join().unwrap();
        assert!(out.stdout.contains("deny"));
        exit.push(exited - t1);
    }
    (visible, exit)
}

fn write_reject(roots: &Roots, id: &str) {
    let path = roots.data.join("gate/decisions").join(format!("{id}.json"));
    let body = serde_json::to_vec(&GateDecision::Reject {
        feedback: "no".into(),
    })
    .unwrap();
    plandeck_core::durable::write_atomic(&path, &body).unwrap();
}

fn as_process(
    exe: &Path,
    home: &Path,
    roots: &Roots,
    stdin: &[u8],
) -> (Vec<Duration>, Vec<Duration>) {
    let (mut visible, mut exit) = (Vec::new(), Vec::new());
    for _ in 0..N {
        let t0 = Instant::now();
        let mut child = Command::new(exe)
            .args(["hook", "claude"])
            .env("HOME", home)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(stdin).unwrap();
        let id = wait_visible(roots);
        visible.push(t0.elapsed());
        let t1 = Instant::now();
        write_reject(roots, &id);
        let out = child.wait_with_output().unwrap();
        exit.push(t1.elapsed());
        assert!(String::from_utf8_lossy(&out.stdout).contains("deny"));
    }
    (visible, exit)
}

/// The hook input of a fresh `ExitPlanMode` call `n` (its own transcript, so no earlier answer is
/// taken for it), and that transcript.
fn call_stdin(home: &Path, n: usize) -> (Vec<u8>, PathBuf) {
    let transcript = home.join(format!(".claude/projects/-w/approve-{n}.jsonl"));
    std::fs::create_dir_all(transcript.parent().unwrap()).unwrap();
    let plan_file = home.join(".claude/plans/approve.md");
    std::fs::create_dir_all(plan_file.parent().unwrap()).unwrap();
    std::fs::write(&plan_file, "# p\n").unwrap();
    let call = serde_json::json!({"type":"assistant","message":{"content":[
        {"type":"tool_use","id":format!("toolu_a{n}"),"name":"ExitPlanMode","input":{"plan":"# p\n"}}]}});
    std::fs::write(&transcript, format!("{call}\n")).unwrap();
    let stdin = serde_json::to_vec(&serde_json::json!({
        "session_id": format!("approve-{n}"), "transcript_path": transcript, "cwd": "/w",
        "hook_event_name": "PermissionRequest", "tool_name": "ExitPlanMode",
        "tool_input": {"plan": "# p\n", "planFilePath": plan_file}
    }))
    .unwrap();
    (stdin, transcript)
}

/// An interactive Claude Code approved in Plandeck: the real `plandeck-cli hook claude` process
/// waits (its parent, this benchmark, stands in for Claude Code: no tmux, not headless), the
/// approval is decided as the window decides it (`gate::decide_with`, the whole path: claim,
/// record, decision file), and the agent is unblocked when the hook prints its `allow` (Claude
/// Code closes the card on it). Then, as Claude Code does, the call's result is written to the
/// transcript with `permissionDecision.source: "hook"`, which closes the request.
/// Returns (decide called → hook's answer read, decide called → decide returned).
fn approve_through_hook(exe: &Path, home: &Path, roots: &Roots) -> (Vec<Duration>, Vec<Duration>) {
    let (mut unblocked, mut returned) = (Vec::new(), Vec::new());
    let opts = DeliveryOptions::default();
    for n in 0..N {
        let (stdin, transcript) = call_stdin(home, n);
        let mut child = Command::new(exe)
            .args(["hook", "claude"])
            .env("HOME", home)
            .env_remove("TMUX")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(&stdin).unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let id = wait_visible(roots);
        // Claude Code's side: read the hook's answer; an allow closes the card.
        let claude = std::thread::spawn(move || {
            let mut first = [0u8; 1];
            let got = std::io::Read::read(&mut stdout, &mut first).unwrap_or(0);
            let at = Instant::now();
            let mut rest = Vec::new();
            let _ = std::io::Read::read_to_end(&mut stdout, &mut rest);
            let answer = format!(
                "{}{}",
                String::from_utf8_lossy(&first[..got]),
                String::from_utf8_lossy(&rest)
            );
            if answer.contains("\"allow\"") {
                let result = serde_json::json!({"type":"user","message":{"content":[
                    {"type":"tool_result","tool_use_id":format!("toolu_a{n}"),"content":"User has approved your plan."}]},
                    "permissionDecision":{"decision":"accept","source":"hook"}});
                let mut f = std::fs::OpenOptions::new()
                    .append(true)
                    .open(&transcript)
                    .unwrap();
                writeln!(f, "{result}").unwrap();
            }
            (at, answer)
        });
        let t0 = Instant::now();
        let decision = GateDecision::Approve {
            mode: ApproveMode::Auto,
            edited: None,
            started_from: None,
        };
        let outcome = gate::decide_with(roots, &id, decision, &opts).unwrap();
        returned.push(t0.elapsed());
        let (at, answer) = claude.join().unwrap();
        unblocked.push(at - t0);
        child.wait().unwrap();
        assert!(outcome.delivered, "{outcome:?}");
        assert!(answer.contains("updatedInput"), "{answer}");
    }
    (unblocked, returned)
}

fn main() {
    benchmarks();
    plandeck_benches::finish();
}

fn benchmarks() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().to_path_buf();
    let roots = Roots::under_home(&home);
    let stdin = stdin_for(&home);
    let _app = gate::app_heartbeat(&roots).unwrap();

    let spawn_true = plandeck_benches::time_n(N, || {
        Command::new("true").status().unwrap();
    });
    let base = ("spawn and wait for `true`", ms(median(&spawn_true)));

    let (visible, exit) = in_process(&roots, &stdin);
    let extra = |v: &[Duration], mode: &str| serde_json::json!({"p95_ms": ms(percentile(v, 95.0)), "n": N, "mode": mode});
    report(
        "gate_hook_to_pending",
        ms(median(&visible)),
        "< 50 ms",
        None,
        Limit::max(50.0),
        extra(&visible, "in-process"),
    );
    report(
        "gate_decision_to_hook_exit",
        ms(median(&exit)),
        "< 50 ms",
        None,
        Limit::max(50.0),
        extra(&exit, "in-process"),
    );

    let exe: PathBuf = std::env::current_exe()
        .unwrap()
        .with_file_name("plandeck-cli");
    if exe.exists() {
        let (visible, exit) = as_process(&exe, &home, &roots, &stdin);
        report(
            "gate_hook_process_to_pending",
            ms(median(&visible)),
            "< 50 ms",
            Some(base),
            Limit::max(50.0),
            extra(&visible, "process"),
        );
        report(
            "gate_decision_to_hook_process_exit",
            ms(median(&exit)),
            "< 50 ms",
            Some(base),
            Limit::max(50.0),
            extra(&exit, "process"),
        );
        let (unblocked, returned) = approve_through_hook(&exe, &home, &roots);
        report(
            "gate_approve_to_agent_unblocked_through_hook",
            ms(percentile(&unblocked, 95.0)),
            "p95 < 300 ms (approve clicked → agent unblocked)",
            Some(base),
            Limit::max(300.0),
            serde_json::json!({
                "figure": "p95",
                "p50_ms": ms(median(&unblocked)),
                "n": N,
                "mode": "process: an interactive Claude Code's waiting `plandeck-cli hook claude`, approved with gate::decide_with; no key typed",
                "measured": "decide_with called until the hook's allow (updatedInput, setMode) is read from its stdout",
                "decide_returned_p50_ms": ms(median(&returned)),
            }),
        );
    } else {
        eprintln!(
            "{} not built: `cargo build --release -p plandeck-cli` to measure the real process",
            exe.display()
        );
    }
}
