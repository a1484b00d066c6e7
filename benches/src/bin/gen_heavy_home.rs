//! `gen_heavy_home <dir> [--scale 1.0] [--bytes-scale 1.0] [--seed N]`: writes a heavy user's home
//! (benches/src/heavy_home.rs) into `<dir>` and prints its report as JSON. Run Plandeck on it with
//! `HOME=<dir>`.

use plandeck_benches::heavy_home::{generate, HeavyHomeSpec};

fn main() {
    let mut args = std::env::args().skip(1);
    let mut dir = None;
    let (mut scale, mut bytes_scale, mut seed) = (1.0f64, 1.0f64, None);
    while let Some(a) = args.next() {
        let mut value = |name: &str| {
            args.next()
                .unwrap_or_else(|| usage(&format!("{name} needs a value")))
        };
        match a.as_str() {
            "--scale" => {
                scale = value("--scale")
                    .parse()
                    .unwrap_or_else(|_| usage("--scale: a number"))
            }
            "--bytes-scale" => {
                bytes_scale = value("--bytes-scale")
                    .parse()
                    .unwrap_or_else(|_| usage("--bytes-scale: a number"))
            }
            "--seed" => {
                seed = Some(
                    value("--seed")
                        .parse()
                        .unwrap_or_else(|_| usage("--seed: an integer")),
                )
            }
            "-h" | "--help" => usage(""),
            _ if dir.is_none() && !a.starts_with("--") => dir = Some(std::path::PathBuf::from(a)),
            _ => usage(&format!("unexpected argument {a:?}")),
        }
    }
    let dir = dir.unwrap_or_else(|| usage("the folder to write is missing"));
    if !(scale > 0.0 && bytes_scale > 0.0) {
        usage("--scale and --bytes-scale must be above 0");
    }
    let mut spec = HeavyHomeSpec::at_scale(scale);
    spec.bytes_scale = bytes_scale;
    if let Some(seed) = seed {
        spec.seed = seed;
    }
    let t = std::time::Instant::now();
    match generate(&dir, &spec) {
        Ok(r) => println!(
            "{}",
            serde_json::json!({"dir": dir, "sessions": r.sessions, "transcripts_bytes": r.transcripts_bytes,
                "largest_bytes": r.largest_bytes, "plans": r.plans, "plans_waiting": r.plans_waiting,
                "huge_tail_sessions": r.huge_tail_sessions, "gemini_chats": r.gemini_chats,
                "gemini_bytes": r.gemini_bytes, "seconds": t.elapsed().as_secs_f64()})
        ),
        Err(e) => {
            eprintln!("gen_heavy_home: writing {}: {e}", dir.display());
            std::process::exit(1);
        }
    }
}

fn usage(problem: &str) -> ! {
    if !problem.is_empty() {
        eprintln!("gen_heavy_home: {problem}");
    }
    eprintln!("usage: gen_heavy_home <dir> [--scale 1.0] [--bytes-scale 1.0] [--seed N]");
    std::process::exit(2);
}
