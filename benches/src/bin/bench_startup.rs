//! `plandeck <subcommand>` starts as fast as the slim command line (issue 22): the name people
//! type is `plandeck`, which runs a subcommand itself and becomes the window only with none. Times
//! the release `plandeck` beside this binary against `plandeck-cli` (the same command line), and
//! against `plandeck-window` when it is built (the window's binary, which loads WebKit and GTK
//! first: what `plandeck` was before). Each figure is the median of many runs, interleaved.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use plandeck_benches::{median, ms, report, time_n, Limit};

const RUNS: usize = 60;

fn beside(name: &str) -> PathBuf {
    std::env::current_exe()
        .expect("own path")
        .with_file_name(name)
}

fn run(bin: &Path, args: &[&str], home: &Path) {
    let status = Command::new(bin)
        .args(args)
        .env("HOME", home)
        .env_remove("XDG_DATA_HOME")
        .env_remove("XDG_CONFIG_HOME")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("runs");
    assert!(status.success(), "{} {args:?} failed", bin.display());
}

fn main() {
    benchmarks();
    plandeck_benches::finish();
}

fn benchmarks() {
    let (plandeck, cli, window) = (
        beside("plandeck"),
        beside("plandeck-cli"),
        beside("plandeck-window"),
    );
    for b in [&plandeck, &cli] {
        assert!(
            b.is_file(),
            "{} not built: `cargo build --release -p plandeck-cli --bins`",
            b.display()
        );
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let demo = plandeck_core::demo::create(dir.path()).expect("demo home");
    for (name, args) in [
        ("bench_startup_version", &["--version"][..]),
        (
            "bench_startup_sessions_list",
            &["sessions", "list", "--json"][..],
        ),
    ] {
        // Interleaved, so both see the same machine.
        let (mut ours, mut slim) = (Vec::new(), Vec::new());
        for _ in 0..RUNS {
            ours.extend(time_n(1, || run(&plandeck, args, &demo.home)));
            slim.extend(time_n(1, || run(&cli, args, &demo.home)));
        }
        let mut extra = serde_json::json!({
            "runs": RUNS,
            "command": format!("plandeck {}", args.join(" ")),
        });
        if window.is_file() {
            let before = time_n(RUNS / 3, || run(&window, args, &demo.home));
            extra["window_binary_ms"] =
                serde_json::json!((ms(median(&before)) * 1000.0).round() / 1000.0);
        }
        report(
            name,
            ms(median(&ours)),
            "<= 1.5x plandeck-cli (a few ms)",
            Some(("plandeck-cli, same arguments", ms(median(&slim)))),
            Limit::ratio(1.5),
            extra,
        );
    }
}
