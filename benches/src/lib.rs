//! Helpers shared by the benchmark binaries: timing and reporting.

use std::time::{Duration, Instant};

/// Runs `f` `n` times and returns each duration.
pub fn time_n(n: usize, mut f: impl FnMut()) -> Vec<Duration> {
    (0..n)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect()
}

/// The `p`-th percentile (0–100) of `samples`.
pub fn percentile(samples: &[Duration], p: f64) -> Duration {
    let mut s = samples.to_vec();
    s.sort();
    if s.is_empty() {
        return Duration::ZERO;
    }
    let idx = ((p / 100.0) * (s.len() - 1) as f64).round() as usize;
    s[idx.min(s.len() - 1)]
}

pub fn median(samples: &[Duration]) -> Duration {
    percentile(samples, 50.0)
}

/// Prints one measurement as a JSON line: what, the figure in ms, the budget, and the baseline.
pub fn report(
    name: &str,
    ms: f64,
    budget: &str,
    baseline: Option<(&str, f64)>,
    extra: serde_json::Value,
) {
    let mut v = serde_json::json!({ "bench": name, "ms": (ms * 1000.0).round() / 1000.0, "budget": budget });
    if let Some((label, base)) = baseline {
        v["baseline"] =
            serde_json::json!({ "what": label, "ms": (base * 1000.0).round() / 1000.0 });
    }
    if let serde_json::Value::Object(m) = extra {
        for (k, x) in m {
            v[k] = x;
        }
    }
    println!("{v}");
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

pub mod heavy_home;

/// A small seeded generator (xorshift64), so every run builds the same data.
pub struct Xorshift(pub u64);

impl Xorshift {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
}
