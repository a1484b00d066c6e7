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

/// A row's limit, checked when the row is reported (see [`report`]) and again by benches/run.sh,
/// which shows it in BENCHMARKS.md. Both parts, when both are set, must hold.
#[derive(Clone, Copy, Debug, Default)]
pub struct Limit {
    /// The figure is at most this (in the row's unit: ms unless the row says otherwise).
    pub max: Option<f64>,
    /// The figure is at most this many times the baseline timed in the same run.
    pub ratio: Option<f64>,
}

impl Limit {
    /// figure ≤ `x`.
    pub fn max(x: f64) -> Self {
        Self {
            max: Some(x),
            ratio: None,
        }
    }

    /// figure ≤ `r` × the baseline.
    pub fn ratio(r: f64) -> Self {
        Self {
            max: None,
            ratio: Some(r),
        }
    }

    /// Also figure ≤ `r` × the baseline.
    pub fn and_ratio(self, r: f64) -> Self {
        Self {
            ratio: Some(r),
            ..self
        }
    }

    /// As benches/run.sh reads it: `{"ms": x}`, `{"ratio": r}` or both.
    pub fn json(&self) -> serde_json::Value {
        let mut v = serde_json::json!({});
        if let Some(x) = self.max {
            v["ms"] = serde_json::json!(x);
        }
        if let Some(r) = self.ratio {
            v["ratio"] = serde_json::json!(r);
        }
        v
    }

    /// Whether `figure` (against `baseline`) is within the limit, and how it compares, in words.
    /// A ratio with no baseline is over: nothing shows it holds.
    pub fn judge(&self, figure: f64, baseline: Option<f64>) -> (bool, String) {
        let mut ok = true;
        let mut how = Vec::new();
        if let Some(x) = self.max {
            ok &= figure <= x;
            how.push(format!("{figure:.3} (limit {x})"));
        }
        if let Some(r) = self.ratio {
            match baseline.filter(|b| *b > 0.0) {
                Some(b) => {
                    ok &= figure / b <= r;
                    how.push(format!("{:.2}x (limit {r}x)", figure / b));
                }
                None => {
                    ok = false;
                    how.push(format!("no baseline for the ratio limit {r}x"));
                }
            }
        }
        if how.is_empty() {
            ok = false;
            how.push("no limit".to_owned());
        }
        (ok, how.join(", "))
    }
}

/// Rows over their limit so far in this process.
static OVER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The exit code of a benchmark with a row over its limit (a failure is any other non-zero code).
pub const OVER_LIMIT_EXIT: i32 = 3;

/// Prints one measurement as a JSON line: what, the figure in ms, the budget (words), its
/// machine-checked `limit` and the baseline; then checks the limit and says `pass` or `FAIL` on
/// stderr. [`finish`] ends the benchmark non-zero when any row failed.
pub fn report(
    name: &str,
    ms: f64,
    budget: &str,
    baseline: Option<(&str, f64)>,
    limit: Limit,
    extra: serde_json::Value,
) {
    let mut v = serde_json::json!({ "bench": name, "ms": (ms * 1000.0).round() / 1000.0, "budget": budget, "limit": limit.json() });
    if let Some((label, base)) = baseline {
        v["baseline"] =
            serde_json::json!({ "what": label, "ms": (base * 1000.0).round() / 1000.0 });
    }
    if let serde_json::Value::Object(m) = extra {
        for (k, x) in m {
            assert!(k != "limit", "{name}: the limit is report's argument");
            v[k] = x;
        }
    }
    println!("{v}");
    let (ok, how) = limit.judge(ms, baseline.map(|(_, b)| b));
    if ok {
        eprintln!("pass {name}: {how}");
    } else {
        OVER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        eprintln!("FAIL {name}: {how} (budget: {budget})");
    }
}

/// A check of a row beyond its figure (what it read, what it found); a FAIL like an over-limit row.
pub fn check(name: &str, ok: bool, what: &str) {
    if ok {
        eprintln!("pass {name}: {what}");
    } else {
        OVER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        eprintln!("FAIL {name}: not {what}");
    }
}

/// Ends the benchmark: exit code [`OVER_LIMIT_EXIT`] when any row failed its limit, else 0.
pub fn finish() {
    let over = OVER.load(std::sync::atomic::Ordering::Relaxed);
    if over > 0 {
        eprintln!("{over} row(s) over their limit");
        std::process::exit(OVER_LIMIT_EXIT);
    }
}

#[cfg(test)]
mod tests {
    use super::Limit;

    #[test]
    fn limits_judge_the_figure_and_the_ratio() {
        assert!(Limit::max(50.0).judge(49.0, None).0);
        assert!(!Limit::max(50.0).judge(51.0, None).0);
        assert!(Limit::ratio(1.5).judge(14.0, Some(10.0)).0);
        assert!(!Limit::ratio(1.5).judge(16.0, Some(10.0)).0);
        assert!(
            !Limit::ratio(1.5).judge(1.0, None).0,
            "no baseline, no pass"
        );
        let both = Limit::max(1000.0).and_ratio(0.05);
        assert!(both.judge(40.0, Some(1000.0)).0);
        assert!(!both.judge(60.0, Some(1000.0)).0, "not 20x faster");
        assert!(!both.judge(1001.0, Some(100_000.0)).0, "over 1 s");
        assert_eq!(
            both.json(),
            serde_json::json!({"ms": 1000.0, "ratio": 0.05})
        );
    }
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
