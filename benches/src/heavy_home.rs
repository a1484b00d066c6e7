//! A heavy user's home, generated: the data of issue 15's budgets (docs/architecture.md §6).
//!
//! At scale 1.0: 1,200 Claude Code sessions in 30 projects, about 2 GiB of transcripts with sizes
//! log-normal (median ~0.9 MiB, 90th percentile ~4.6 MiB, capped at 20 MiB); a third of the
//! sessions end in one multi-MiB tool-result line; `Edit` results carry the whole `originalFile`,
//! `Read`s of images carry base64 PNGs, some sessions were compacted (`compact_boundary` + summary);
//! 300 plans (a plan file in `.claude/plans/<slug>.md` written by a `Write` call, then an
//! `ExitPlanMode` call: approved, rejected, or still waiting); 300 Gemini CLI chats in 10 projects
//! (one in five with a plan). Every record is built from a real record of the fixtures
//! (`tests/fixtures/claude-code-2.1.328`, `tests/fixtures/gemini-cli-0.61.0`) with its ids, times,
//! paths and contents replaced, so key order and the fields the CLIs write are the real ones.
//!
//! Seeded and reproducible: the same [`HeavyHomeSpec`] gives the same bytes (files are written
//! from per-session generators, in parallel, and their mtimes set to their last record's time).
//!
//! ```no_run
//! use plandeck_benches::heavy_home::{generate, HeavyHomeSpec};
//! let report = generate(std::path::Path::new("/tmp/heavy"), &HeavyHomeSpec::at_scale(0.01)).unwrap();
//! // /tmp/heavy is a HOME: .claude/projects/…, .claude/plans/…, .gemini/tmp/…
//! println!("{} sessions, {} bytes", report.sessions, report.transcripts_bytes);
//! ```
//!
//! [`ensure`] reuses a home generated earlier from the same spec (a manifest `heavy-home.json`
//! records the spec and the report), so benchmarks generate the 2 GiB once per machine.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

use serde_json::{json, Value};

/// What to generate. [`HeavyHomeSpec::at_scale`] gives the issue's home times a factor.
#[derive(Debug, Clone, PartialEq)]
pub struct HeavyHomeSpec {
    /// Claude Code sessions (transcripts).
    pub sessions: usize,
    /// Claude projects the sessions are spread over.
    pub projects: usize,
    /// Claude sessions that write a plan and call `ExitPlanMode` (at most `sessions`).
    pub plans: usize,
    /// Gemini CLI chats.
    pub gemini_chats: usize,
    /// Multiplies every transcript's target size (1.0: median ~0.9 MiB).
    pub bytes_scale: f64,
    pub seed: u64,
}

impl Default for HeavyHomeSpec {
    fn default() -> Self {
        HeavyHomeSpec::at_scale(1.0)
    }
}

impl HeavyHomeSpec {
    /// The issue's heavy home with every count (sessions, plans, chats, projects) times `scale`,
    /// each at least 1; sizes per file stay real unless `bytes_scale` is changed.
    pub fn at_scale(scale: f64) -> Self {
        let n = |x: f64| ((x * scale).round() as usize).max(1);
        HeavyHomeSpec {
            sessions: n(1200.0),
            projects: n(30.0),
            plans: n(300.0),
            gemini_chats: n(300.0),
            bytes_scale: 1.0,
            seed: 0x5eed_0015,
        }
    }

    fn to_json(&self) -> Value {
        json!({"sessions": self.sessions, "projects": self.projects, "plans": self.plans,
               "gemini_chats": self.gemini_chats, "bytes_scale": self.bytes_scale, "seed": self.seed})
    }
}

/// What was written.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HeavyHomeReport {
    /// Bytes of Claude transcripts (`.claude/projects/**.jsonl`).
    pub transcripts_bytes: u64,
    /// Claude transcripts, sorted; what `cat` reads in the baselines.
    pub transcripts: Vec<PathBuf>,
    pub sessions: usize,
    /// Plans written: Claude plan files (each with its `ExitPlanMode` record) and Gemini plans.
    pub plans: usize,
    /// Of the Claude plans, those whose `ExitPlanMode` call has no answer yet (waiting).
    pub plans_waiting: usize,
    pub gemini_chats: usize,
    pub gemini_bytes: u64,
    /// Sessions whose last line is one multi-MiB tool result.
    pub huge_tail_sessions: usize,
    /// The largest transcript, in bytes.
    pub largest_bytes: u64,
}

/// Generates the home into `dir` (created; files already there with the same names are
/// replaced, nothing else is removed). Deterministic for a given spec.
pub fn generate(dir: &Path, spec: &HeavyHomeSpec) -> std::io::Result<HeavyHomeReport> {
    let t = Templates::load();
    let corpus = Corpus::new(spec.seed);
    let plan_dir = dir.join(".claude/plans");
    std::fs::create_dir_all(&plan_dir)?;
    let sizes = session_sizes(spec);
    // Which sessions plan: `plans` of them, spread evenly; which end in a huge line: those above
    // 1.5 MiB (times bytes_scale), about a third.
    let plans = spec.plans.min(spec.sessions);
    let jobs: Vec<SessionJob> = (0..spec.sessions)
        .map(|i| SessionJob {
            index: i,
            target: sizes[i],
            plan: ((i * plans) / spec.sessions != ((i + 1) * plans) / spec.sessions)
                .then(|| PlanEnd::from(i * plans / spec.sessions.max(1))),
            huge_tail: sizes[i] as f64 >= 1.5 * 1048576.0 * spec.bytes_scale,
        })
        .collect();
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(4);
    let results: Vec<std::io::Result<Vec<SessionOut>>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|w| {
                let (jobs, t, corpus) = (&jobs, &t, &corpus);
                s.spawn(move || {
                    jobs.iter()
                        .skip(w)
                        .step_by(threads)
                        .map(|job| write_session(dir, spec, t, corpus, job))
                        .collect()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("generator thread"))
            .collect()
    });
    let mut report = HeavyHomeReport::default();
    for r in results {
        for out in r? {
            report.transcripts_bytes += out.bytes;
            report.largest_bytes = report.largest_bytes.max(out.bytes);
            report.transcripts.push(out.path);
            report.sessions += 1;
            report.plans += usize::from(out.plan);
            report.plans_waiting += usize::from(out.waiting);
            report.huge_tail_sessions += usize::from(out.huge_tail);
        }
    }
    report.transcripts.sort();
    let (chats, bytes, gemini_plans) = write_gemini(dir, spec, &t, &corpus)?;
    report.gemini_chats = chats;
    report.gemini_bytes = bytes;
    report.plans += gemini_plans;
    Ok(report)
}

/// [`generate`], unless `dir` holds a finished home of the same spec (its manifest says so and
/// every transcript it lists has the recorded total size): then that home's report.
pub fn ensure(dir: &Path, spec: &HeavyHomeSpec) -> std::io::Result<HeavyHomeReport> {
    let manifest = dir.join("heavy-home.json");
    if let Some(report) = std::fs::read(&manifest)
        .ok()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
        .filter(|m| m["spec"] == spec.to_json())
        .and_then(|m| report_from_json(dir, &m["report"]))
    {
        let on_disk: u64 = report
            .transcripts
            .iter()
            .map(|p| std::fs::metadata(p).map_or(0, |m| m.len()))
            .sum();
        if on_disk == report.transcripts_bytes {
            return Ok(report);
        }
    }
    let _ = std::fs::remove_file(&manifest);
    let report = generate(dir, spec)?;
    let rel: Vec<String> = report
        .transcripts
        .iter()
        .map(|p| {
            p.strip_prefix(dir)
                .unwrap_or(p)
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let m = json!({"spec": spec.to_json(), "report": {
        "transcripts_bytes": report.transcripts_bytes, "transcripts": rel, "sessions": report.sessions,
        "plans": report.plans, "plans_waiting": report.plans_waiting, "gemini_chats": report.gemini_chats,
        "gemini_bytes": report.gemini_bytes, "huge_tail_sessions": report.huge_tail_sessions,
        "largest_bytes": report.largest_bytes}});
    std::fs::write(&manifest, format!("{m}\n"))?;
    Ok(report)
}

fn report_from_json(dir: &Path, r: &Value) -> Option<HeavyHomeReport> {
    let n = |k: &str| r[k].as_u64();
    Some(HeavyHomeReport {
        transcripts_bytes: n("transcripts_bytes")?,
        transcripts: r["transcripts"]
            .as_array()?
            .iter()
            .map(|p| p.as_str().map(|p| dir.join(p)))
            .collect::<Option<_>>()?,
        sessions: n("sessions")? as usize,
        plans: n("plans")? as usize,
        plans_waiting: n("plans_waiting")? as usize,
        gemini_chats: n("gemini_chats")? as usize,
        gemini_bytes: n("gemini_bytes")?,
        huge_tail_sessions: n("huge_tail_sessions")? as usize,
        largest_bytes: n("largest_bytes")?,
    })
}

// ---------------------------------------------------------------------------------------------
// Sizes, randomness, text.

/// Target sizes: the log-normal's quantiles at (i + ½)/n (median 0.9 MiB, σ from the 90th
/// percentile 4.6 MiB), capped at 20 MiB, shuffled by the seed; times `bytes_scale`.
fn session_sizes(spec: &HeavyHomeSpec) -> Vec<u64> {
    const MIB: f64 = 1048576.0;
    let sigma = (4.6f64 / 0.9).ln() / 1.281_551_6;
    let n = spec.sessions;
    let mut sizes: Vec<u64> = (0..n)
        .map(|i| {
            let z = probit((i as f64 + 0.5) / n as f64);
            let mib = (0.9f64.ln() + sigma * z).exp().min(20.0);
            (mib * MIB * spec.bytes_scale) as u64
        })
        .collect();
    let mut rng = Rng::new(spec.seed ^ 0x51ee5);
    for i in (1..sizes.len()).rev() {
        sizes.swap(i, rng.below(i as u64 + 1) as usize);
    }
    sizes
}

/// The standard normal's quantile (Acklam's rational approximation; enough for sizes).
fn probit(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969683028665376e1,
        2.209460984245205e2,
        -2.759285104469687e2,
        1.38357751867269e2,
        -3.066479806614716e1,
        2.506628277459239,
    ];
    const B: [f64; 5] = [
        -5.447609879822406e1,
        1.615858368580409e2,
        -1.556989798598866e2,
        6.680131188771972e1,
        -1.328068155288572e1,
    ];
    const C: [f64; 6] = [
        -7.784894002430293e-3,
        -3.223964580411365e-1,
        -2.400758277161838,
        -2.549732539343734,
        4.374664141464968,
        2.938163982698783,
    ];
    const D: [f64; 4] = [
        7.784695709041462e-3,
        3.224671290700398e-1,
        2.445134137142996,
        3.754408661907416,
    ];
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    if p < 0.02425 {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - 0.02425 {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

/// splitmix64: small, fast, the same everywhere.
struct Rng(u64);
impl Rng {
    fn new(seed: u64) -> Self {
        let mut r = Rng(seed);
        r.next();
        r
    }
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below((hi - lo) as u64 + 1) as usize
    }
    fn uuid(&mut self) -> String {
        let (a, b) = (self.next(), self.next());
        format!(
            "{:08x}-{:04x}-4{:03x}-{:x}{:03x}-{:012x}",
            a >> 32,
            (a >> 16) & 0xffff,
            a & 0xfff,
            8 + (b >> 62),
            (b >> 48) & 0xfff,
            b & 0xffff_ffff_ffff
        )
    }
    fn hex(&mut self, n: usize) -> String {
        let mut s = String::with_capacity(n);
        while s.len() < n {
            s.push_str(&format!("{:016x}", self.next()));
        }
        s.truncate(n);
        s
    }
}

/// 8 MiB of source-like text (ASCII: quotes, tabs, backslashes, newlines), sliced for file
/// contents, command output and prose; built once per seed.
struct Corpus(String);

impl Corpus {
    const LEN: usize = 8 << 20;

    fn new(seed: u64) -> Self {
        const LINES: [&str; 16] = [
            "pub fn list_orders(db: &Db, cursor: Option<Cursor>, limit: u32) -> Result<Page<Order>> {",
            "    let rows = db.query(\"SELECT id, total FROM orders WHERE id > ?1 LIMIT ?2\", (after, limit))?;",
            "    // The cursor is opaque to callers: base64 of the last id seen.",
            "    match req.query.get(\"page\") {",
            "        Some(p) => p.parse::<u32>().map_err(|e| Error::BadRequest(format!(\"page: {e}\")))?,",
            "        None => 1,",
            "    }",
            "}",
            "",
            "#[test]",
            "fn paginates_past_the_last_page() {",
            "\tassert_eq!(page.items.len(), 0, \"a page past the end is empty, not an error\");",
            "import { listOrders } from '../api/orders';",
            "const PATH = 'C:\\\\Users\\\\dev\\\\orders.json';",
            "   Compiling orders v0.3.1 (/home/dev/work/api)",
            "warning: unused variable: `limit` --> src/orders.rs:42:9",
        ];
        let mut rng = Rng::new(seed ^ 0xc0de);
        let mut s = String::with_capacity(Self::LEN + 128);
        let mut line_no = 1u32;
        while s.len() < Self::LEN {
            let line = LINES[rng.below(LINES.len() as u64) as usize];
            s.push_str(line);
            if rng.below(7) == 0 {
                s.push_str(&format!(" // #{line_no} {}", rng.hex(12)));
            }
            s.push('\n');
            line_no += 1;
        }
        s.truncate(Self::LEN);
        Corpus(s)
    }

    /// `len` bytes (at most the corpus) from a random place.
    fn slice(&self, rng: &mut Rng, len: usize) -> &str {
        let len = len.min(Self::LEN);
        let start = rng.below((Self::LEN - len) as u64 + 1) as usize;
        &self.0[start..start + len]
    }

    /// `len` bytes, repeating the corpus when longer.
    fn text(&self, rng: &mut Rng, len: usize) -> String {
        let mut s = String::with_capacity(len);
        while s.len() < len {
            let part = self.slice(rng, (len - s.len()).min(Self::LEN));
            s.push_str(part);
        }
        s
    }
}

fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for c in bytes.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for (k, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if k <= c.len() {
                out.push(A[(n >> shift) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A PNG-looking payload of about `len` raw bytes, base64.
fn png_base64(rng: &mut Rng, len: usize) -> String {
    let mut raw = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    while raw.len() < len {
        raw.extend_from_slice(&rng.next().to_le_bytes());
    }
    base64(&raw)
}

// ---------------------------------------------------------------------------------------------
// Templates: real records from the fixtures.

const APPROVED: &str = include_str!(
    "../../tests/fixtures/claude-code-2.1.328/projects/-home-dev-work-api/8231d470-01ea-414b-8fe3-908262ff511e.jsonl"
);
const REJECTED: &str = include_str!(
    "../../tests/fixtures/claude-code-2.1.328/projects/-home-dev-work-api/018bf6eb-3597-4409-902c-72211da68ef3.jsonl"
);
const GEMINI_CHAT: &str = include_str!(
    "../../tests/fixtures/gemini-cli-0.61.0/tmp/gemproj/chats/session-2026-11-22T12-30-cf0df6f8.jsonl"
);

struct Templates {
    /// Session start: mode, snapshot, prompt, attachments, latches (records 0–1 and 5–16 of the
    /// approved session; the `/clear` records 2–4 are left out).
    head: Vec<Value>,
    prompt: Value,
    tool_call: Value,
    file_delta: Value,
    tool_result: Value,
    tool_search_call: Value,
    tool_search_result: Value,
    exit_plan_call: Value,
    approved_result: Value,
    approved_tail: Vec<Value>,
    rejected_result: Value,
    interrupted: Value,
    answer: Value,
    turn_duration: Value,
    last_prompt: Value,
    tools_used: Value,
    cost_state: Value,
    gemini_header: Value,
    gemini_set_messages: Value,
    gemini_user: Value,
    gemini_set_updated: Value,
    gemini_reply: Value,
    gemini_write: Value,
    gemini_exit_plan: Value,
}

fn lines(s: &str) -> Vec<Value> {
    s.lines()
        .map(|l| serde_json::from_str(l).expect("fixture line is JSON"))
        .collect()
}

impl Templates {
    fn load() -> Self {
        let a = lines(APPROVED);
        let r = lines(REJECTED);
        let g = lines(GEMINI_CHAT);
        let find = |v: &[Value], f: &dyn Fn(&Value) -> bool| -> Value {
            v.iter().find(|x| f(x)).cloned().expect("fixture record")
        };
        let tool_named = |name: &'static str| {
            move |x: &Value| x["message"]["content"][0]["name"] == name && x["type"] == "assistant"
        };
        let gem_tool = |name: &'static str| move |x: &Value| x["toolCalls"][0]["name"] == name;
        let result_text = |needle: &'static str| {
            move |x: &Value| {
                x["message"]["content"][0]["type"] == "tool_result"
                    && x["message"]["content"][0]["content"]
                        .as_str()
                        .is_some_and(|c| c.contains(needle))
            }
        };
        let approved_at = a
            .iter()
            .position(result_text("approved your plan"))
            .expect("approved result");
        Templates {
            head: a[..2].iter().chain(&a[5..17]).cloned().collect(),
            prompt: find(&a, &|x| {
                x["type"] == "user"
                    && x["message"]["content"].is_string()
                    && x["promptId"].is_string()
                    && !x["message"]["content"]
                        .as_str()
                        .unwrap_or("")
                        .starts_with('<')
            }),
            tool_call: find(&a, &tool_named("Write")),
            file_delta: find(&a, &|x| x["type"] == "file-history-delta"),
            tool_result: find(&a, &result_text("File created successfully")),
            tool_search_call: find(&a, &tool_named("ToolSearch")),
            tool_search_result: find(&a, &|x| x["toolUseResult"]["query"].is_string()),
            exit_plan_call: find(&a, &tool_named("ExitPlanMode")),
            approved_result: a[approved_at].clone(),
            approved_tail: a[approved_at + 1..approved_at + 3].to_vec(),
            rejected_result: find(&r, &result_text("doesn't want to proceed")),
            interrupted: find(&r, &|x| {
                x["message"]["content"][0]["text"]
                    .as_str()
                    .is_some_and(|t| t.starts_with("[Request interrupted"))
            }),
            answer: find(&a, &|x| {
                x["message"]["content"][0]["type"] == "text" && x["type"] == "assistant"
            }),
            turn_duration: find(&a, &|x| x["subtype"] == "turn_duration"),
            last_prompt: find(&a, &|x| x["type"] == "last-prompt"),
            tools_used: find(&a, &|x| x["type"] == "tools-used"),
            cost_state: find(&a, &|x| x["type"] == "cost-state"),
            gemini_header: g[0].clone(),
            gemini_set_messages: find(&g, &|x| x["$set"]["messages"].is_array()),
            gemini_user: find(&g, &|x| x["type"] == "user"),
            gemini_set_updated: find(&g, &|x| {
                x["$set"]["lastUpdated"].is_string()
                    && x["$set"].as_object().is_some_and(|o| o.len() == 1)
            }),
            gemini_reply: find(&g, &|x| {
                x["type"] == "gemini"
                    && x["toolCalls"].is_null()
                    && x["content"].as_str().is_some_and(|c| !c.is_empty())
            }),
            gemini_write: find(&g, &gem_tool("write_file")),
            gemini_exit_plan: find(&g, &gem_tool("exit_plan_mode")),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Claude sessions.

#[derive(Clone, Copy, PartialEq)]
enum PlanEnd {
    Approved,
    Rejected,
    Waiting,
}

impl PlanEnd {
    fn from(i: usize) -> Self {
        match i % 3 {
            0 => PlanEnd::Approved,
            1 => PlanEnd::Rejected,
            _ => PlanEnd::Waiting,
        }
    }
}

struct SessionJob {
    index: usize,
    target: u64,
    plan: Option<PlanEnd>,
    huge_tail: bool,
}

struct SessionOut {
    path: PathBuf,
    bytes: u64,
    plan: bool,
    waiting: bool,
    huge_tail: bool,
}

/// 2026-10-01T00:00:00Z.
const EPOCH: u64 = 1_790_812_800;

fn rfc3339(ms: u64) -> String {
    let t = time::OffsetDateTime::from_unix_timestamp((ms / 1000) as i64).expect("time");
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        ms % 1000
    )
}

/// One session being written: its ids, clock and the previous record's uuid.
struct Sess<'a> {
    rng: Rng,
    sid: String,
    cwd: String,
    slug: String,
    branch: &'static str,
    ms: u64,
    parent: Option<String>,
    out: BufWriter<File>,
    bytes: u64,
    corpus: &'a Corpus,
    prompt_id: String,
}

impl Sess<'_> {
    /// Gives `rec` this session's ids, paths and the next time, and writes it.
    fn emit(&mut self, mut rec: Value) -> std::io::Result<()> {
        self.ms += self.rng.range(40, 9000) as u64;
        if let Some(o) = rec.as_object_mut() {
            for (k, v) in o.iter_mut() {
                match k.as_str() {
                    "sessionId" | "session_id" => *v = json!(self.sid),
                    "cwd" => *v = json!(self.cwd),
                    "slug" => *v = json!(self.slug),
                    "gitBranch" => *v = json!(self.branch),
                    "timestamp" => *v = json!(rfc3339(self.ms)),
                    "promptId" => *v = json!(self.prompt_id),
                    "parentUuid" if !v.is_null() => *v = json!(self.parent),
                    "serverClassifierRequest" | "requestRef" | "messageId" => {
                        *v = json!(self.rng.uuid())
                    }
                    _ => {}
                }
            }
            if o.contains_key("uuid") {
                let id = self.rng.uuid();
                o.insert("uuid".into(), json!(id));
                self.parent = Some(id);
            }
            if let Some(id) = o.get_mut("message").and_then(|m| m.get_mut("id")) {
                *id = json!(format!("msg_{}", self.rng.hex(20)));
            }
        }
        let mut line = serde_json::to_vec(&rec).expect("serialize");
        line.push(b'\n');
        self.out.write_all(&line)?;
        self.bytes += line.len() as u64;
        Ok(())
    }

    fn tool_id(&mut self) -> String {
        format!("toolu_{}", self.rng.hex(20))
    }

    /// An assistant `tool_use` and the user `tool_result` answering it.
    fn tool(
        &mut self,
        t: &Templates,
        name: &str,
        input: Value,
        content: Value,
        result: Value,
    ) -> std::io::Result<()> {
        let id = self.tool_id();
        let mut call = t.tool_call.clone();
        call["message"]["content"][0]["id"] = json!(id);
        call["message"]["content"][0]["name"] = json!(name);
        call["message"]["content"][0]["input"] = input;
        self.emit(call)?;
        let mut res = t.tool_result.clone();
        res["message"]["content"][0]["tool_use_id"] = json!(id);
        res["message"]["content"][0]["content"] = content;
        res["toolUseResult"] = result;
        res["sourceToolAssistantUUID"] = json!(self.parent);
        self.emit(res)
    }

    fn path(&mut self) -> String {
        const FILES: [&str; 8] = [
            "src/orders.rs",
            "src/api/mod.rs",
            "src/db.rs",
            "tests/pagination.rs",
            "ui/src/Orders.svelte",
            "ui/src/lib/api.ts",
            "Cargo.toml",
            "README.md",
        ];
        format!("{}/{}", self.cwd, FILES[self.rng.below(8) as usize])
    }

    /// One piece of work: Read, Edit (whole `originalFile`), Bash, Grep, or an image Read.
    fn work(&mut self, t: &Templates) -> std::io::Result<()> {
        let corpus = self.corpus;
        match self.rng.below(20) {
            0..=5 => {
                let path = self.path();
                let len = self.rng.range(2_000, 40_000);
                let text = corpus.slice(&mut self.rng, len).to_owned();
                let numbered: String = text
                    .lines()
                    .enumerate()
                    .map(|(i, l)| format!("{:>6}\t{l}\n", i + 1))
                    .collect();
                let lines = text.lines().count();
                self.tool(t, "Read", json!({"file_path": path}), json!(numbered),
                    json!({"type": "text", "file": {"filePath": path, "content": text, "numLines": lines, "startLine": 1, "totalLines": lines}}))
            }
            6..=11 => {
                let path = self.path();
                let len = self.rng.range(5_000, 60_000);
                let original = corpus.slice(&mut self.rng, len).to_owned();
                let old = corpus.slice(&mut self.rng, 300).to_owned();
                let new = corpus.slice(&mut self.rng, 500).to_owned();
                let snippet: String = new
                    .lines()
                    .enumerate()
                    .map(|(i, l)| format!("{:>6}\t{l}\n", i + 40))
                    .collect();
                let lines: Vec<String> = old
                    .lines()
                    .map(|l| format!("-{l}"))
                    .chain(new.lines().map(|l| format!("+{l}")))
                    .collect();
                self.tool(t, "Edit",
                    json!({"file_path": path, "old_string": old, "new_string": new, "replace_all": false}),
                    json!(format!("The file {path} has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n{snippet}")),
                    json!({"filePath": path, "oldString": old, "newString": new, "originalFile": original,
                           "structuredPatch": [{"oldStart": 40, "oldLines": 6, "newStart": 40, "newLines": 9, "lines": lines}],
                           "userModified": false, "replaceAll": false}))
            }
            12..=15 => {
                let len = self.rng.range(200, 30_000);
                let out = corpus.slice(&mut self.rng, len).to_owned();
                self.tool(t, "Bash",
                    json!({"command": "cargo test -p orders 2>&1 | tail -200", "description": "Run the orders tests"}),
                    json!(out),
                    json!({"stdout": out, "stderr": "", "interrupted": false, "isImage": false}))
            }
            16..=18 => {
                let n = self.rng.range(3, 40);
                let files: Vec<String> = (0..n).map(|_| self.path()).collect();
                self.tool(t, "Grep",
                    json!({"pattern": "cursor", "path": self.cwd.clone(), "output_mode": "files_with_matches"}),
                    json!(format!("Found {n} files\n{}", files.join("\n"))),
                    json!({"mode": "files_with_matches", "filenames": files, "numFiles": n}))
            }
            _ => {
                let raw = self.rng.range(40_000, 400_000);
                let data = png_base64(&mut self.rng, raw);
                let path = format!("{}/docs/screenshot-{}.png", self.cwd, self.rng.hex(6));
                self.tool(t, "Read", json!({"file_path": path}),
                    json!([{"type": "image", "source": {"type": "base64", "data": data, "media_type": "image/png"}}]),
                    json!({"type": "image", "file": {"base64": data, "type": "image/png", "originalSize": raw,
                           "dimensions": {"originalWidth": 1600, "originalHeight": 1000, "displayWidth": 1600, "displayHeight": 1000}}}))
            }
        }
    }

    fn prompt(&mut self, t: &Templates) -> std::io::Result<()> {
        self.prompt_id = self.rng.uuid();
        let mut p = t.prompt.clone();
        let len = self.rng.range(20, 1200);
        p["message"]["content"] = json!(self.corpus.slice(&mut self.rng, len));
        self.emit(p)
    }

    fn end_turn(&mut self, t: &Templates) -> std::io::Result<()> {
        let mut a = t.answer.clone();
        let len = self.rng.range(200, 3000);
        a["message"]["content"][0]["text"] = json!(self.corpus.slice(&mut self.rng, len));
        self.emit(a)?;
        self.emit(t.turn_duration.clone())?;
        let mut lp = t.last_prompt.clone();
        lp["leafUuid"] = json!(self.parent);
        lp["lastPrompt"] = json!(format!("{} …", &self.slug));
        self.emit(lp)
    }

    fn compaction(&mut self) -> std::io::Result<()> {
        let boundary = json!({"parentUuid": null, "logicalParentUuid": self.parent, "isSidechain": false,
            "type": "system", "subtype": "compact_boundary", "content": "Conversation compacted", "isMeta": false,
            "timestamp": "", "uuid": "", "level": "info",
            "compactMetadata": {"trigger": "auto", "preTokens": 150_000 + self.rng.below(40_000)},
            "userType": "external", "entrypoint": "cli", "cwd": "", "sessionId": "", "version": "2.1.328", "gitBranch": "", "slug": ""});
        self.emit(boundary)?;
        let len = self.rng.range(4_000, 20_000);
        let summary = format!("This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\n{}", self.corpus.slice(&mut self.rng, len));
        self.emit(json!({"parentUuid": self.parent, "isSidechain": false, "type": "user",
            "message": {"role": "user", "content": summary}, "isVisibleInTranscriptOnly": true, "isCompactSummary": true,
            "uuid": "", "timestamp": "", "userType": "external", "entrypoint": "cli", "cwd": "", "sessionId": "",
            "version": "2.1.328", "gitBranch": "", "slug": ""}))
    }
}

const SLUG_WORDS: [&str; 16] = [
    "brisk", "quiet", "otter", "heron", "mango", "kite", "yeti", "wombat", "toucan", "cozy",
    "silly", "fluffy", "purple", "staged", "gentle", "rapid",
];

fn write_session(
    home: &Path,
    spec: &HeavyHomeSpec,
    t: &Templates,
    corpus: &Corpus,
    job: &SessionJob,
) -> std::io::Result<SessionOut> {
    let mut rng = Rng::new(
        spec.seed
            .wrapping_mul(0x1000_0001)
            .wrapping_add(job.index as u64),
    );
    let project = job.index % spec.projects.max(1);
    let cwd = format!("/home/dev/work/project-{project:02}");
    let dir = home.join(".claude/projects").join(cwd.replace('/', "-"));
    std::fs::create_dir_all(&dir)?;
    let sid = rng.uuid();
    let slug = format!(
        "{}-{}-{}-{}",
        ["plan", "add", "fix", "refactor"][rng.below(4) as usize],
        SLUG_WORDS[rng.below(16) as usize],
        SLUG_WORDS[rng.below(16) as usize],
        SLUG_WORDS[rng.below(16) as usize]
    );
    let path = dir.join(format!("{sid}.jsonl"));
    // 30 days of sessions, spread by index.
    let start_ms = EPOCH * 1000 + (job.index as u64 * 2_160_000) % (30 * 86_400_000);
    let mut s = Sess {
        rng,
        sid,
        cwd,
        slug: slug.clone(),
        branch: if job.index.is_multiple_of(5) {
            "main"
        } else {
            "master"
        },
        ms: start_ms,
        parent: None,
        out: BufWriter::with_capacity(1 << 20, File::create(&path)?),
        bytes: 0,
        corpus,
        prompt_id: String::new(),
    };
    for rec in &t.head {
        s.emit(rec.clone())?;
    }
    // The huge last line: one Bash result of 2–8 MiB (stdout in the result and again in
    // toolUseResult), at most 80% of the file; the sessions above 1.5 MiB (about a third).
    let huge = if job.huge_tail {
        let line = (s.rng.range(2 << 20, 8 << 20) as f64 * spec.bytes_scale) as u64;
        Some(line.min(job.target * 4 / 5) / 2)
    } else {
        None
    };
    let body_target = job.target.saturating_sub(huge.map_or(0, |h| 2 * h));
    let mut turns = 0;
    while s.bytes < body_target || turns == 0 {
        if turns > 0 && s.rng.below(12) == 0 {
            s.compaction()?;
        }
        s.prompt(t)?;
        for _ in 0..s.rng.range(1, 8) {
            s.work(t)?;
        }
        if job.plan.is_some() && s.bytes >= body_target {
            break; // the plan ends this turn
        }
        s.end_turn(t)?;
        turns += 1;
    }
    let mut waiting = false;
    if let Some(end) = job.plan {
        let plan_path = home.join(".claude/plans").join(format!("{slug}.md"));
        let shown = format!("/home/dev/.claude/plans/{slug}.md");
        let len = s.rng.range(1_500, 12_000);
        let plan = format!(
            "# Plan: {}\n\n{}",
            slug.replace('-', " "),
            corpus.slice(&mut s.rng, len)
        );
        write_at(&plan_path, plan.as_bytes(), s.ms)?;
        let id = s.tool_id();
        let mut w = t.tool_call.clone();
        w["message"]["content"][0]["id"] = json!(id);
        w["message"]["content"][0]["input"] = json!({"file_path": shown, "content": plan});
        s.emit(w)?;
        s.emit(t.file_delta.clone())?;
        let mut r = t.tool_result.clone();
        r["message"]["content"][0]["tool_use_id"] = json!(id);
        r["message"]["content"][0]["content"] =
            json!(format!("File created successfully at: {shown}"));
        r["toolUseResult"] = json!({"type": "create", "filePath": shown, "content": plan, "structuredPatch": [], "originalFile": null});
        s.emit(r)?;
        let id = s.tool_id();
        let mut c = t.tool_search_call.clone();
        c["message"]["content"][0]["id"] = json!(id);
        s.emit(c)?;
        let mut r = t.tool_search_result.clone();
        r["message"]["content"][0]["tool_use_id"] = json!(id);
        s.emit(r)?;
        s.emit(t.tools_used.clone())?;
        let id = s.tool_id();
        let mut c = t.exit_plan_call.clone();
        c["message"]["content"][0]["id"] = json!(id);
        c["message"]["content"][0]["input"] = json!({"plan": plan, "planFilePath": shown});
        s.emit(c)?;
        s.emit(t.last_prompt.clone())?;
        match end {
            PlanEnd::Approved => {
                let mut r = t.approved_result.clone();
                r["message"]["content"][0]["tool_use_id"] = json!(id);
                r["toolUseResult"]["plan"] = json!(plan);
                r["toolUseResult"]["filePath"] = json!(shown);
                s.emit(r)?;
                for rec in &t.approved_tail {
                    s.emit(rec.clone())?;
                }
                s.end_turn(t)?;
            }
            PlanEnd::Rejected => {
                let mut r = t.rejected_result.clone();
                r["message"]["content"][0]["tool_use_id"] = json!(id);
                s.emit(r)?;
                s.emit(t.interrupted.clone())?;
            }
            PlanEnd::Waiting => waiting = true,
        }
    }
    if let Some(h) = huge {
        if !waiting {
            s.prompt(t)?;
        }
        let out = corpus.text(&mut s.rng, h as usize);
        s.tool(t, "Bash",
            json!({"command": "cargo build --release 2>&1", "description": "Build in release mode"}),
            json!(out),
            json!({"stdout": out, "stderr": "", "interrupted": false, "isImage": false}))?;
    } else if !waiting && s.rng.below(2) == 0 {
        s.emit(t.cost_state.clone())?;
    }
    s.out.flush()?;
    let file = s.out.into_inner().map_err(|e| e.into_error())?;
    file.set_modified(UNIX_EPOCH + Duration::from_millis(s.ms))?;
    Ok(SessionOut {
        path,
        bytes: s.bytes,
        plan: job.plan.is_some(),
        waiting,
        huge_tail: huge.is_some(),
    })
}

/// Writes `bytes` to `path` with its mtime at `ms` (since the epoch): the same bytes and times on
/// every run.
fn write_at(path: &Path, bytes: &[u8], ms: u64) -> std::io::Result<()> {
    let mut f = File::create(path)?;
    f.write_all(bytes)?;
    f.set_modified(UNIX_EPOCH + Duration::from_millis(ms))
}

// ---------------------------------------------------------------------------------------------
// Gemini chats.

fn write_gemini(
    home: &Path,
    spec: &HeavyHomeSpec,
    t: &Templates,
    corpus: &Corpus,
) -> std::io::Result<(usize, u64, usize)> {
    let projects = spec.gemini_chats.div_ceil(30).max(1);
    let tmp = home.join(".gemini/tmp");
    let mut map = serde_json::Map::new();
    for p in 0..projects {
        let path = format!("/home/dev/work/gem-{p:02}");
        let slug = format!("gem-{p:02}");
        std::fs::create_dir_all(tmp.join(&slug).join("chats"))?;
        write_at(
            &tmp.join(&slug).join(".project_root"),
            path.as_bytes(),
            EPOCH * 1000,
        )?;
        map.insert(path, json!(slug));
    }
    write_at(
        &home.join(".gemini/projects.json"),
        serde_json::to_string_pretty(&json!({"projects": map}))?.as_bytes(),
        EPOCH * 1000,
    )?;
    let (mut bytes, mut plans) = (0u64, 0usize);
    for i in 0..spec.gemini_chats {
        let mut rng = Rng::new(spec.seed ^ 0x6e61 ^ (i as u64).wrapping_mul(0x9e37_79b9));
        let slug = format!("gem-{:02}", i % projects);
        let sid = rng.uuid();
        let mut ms = EPOCH * 1000 + (i as u64 * 8_640_000) % (30 * 86_400_000);
        let mut out = Vec::with_capacity(256 << 10);
        let emit = |rec: &Value, out: &mut Vec<u8>| {
            serde_json::to_writer(&mut *out, rec).expect("serialize");
            out.push(b'\n');
        };
        let stamp = |ms: u64| json!(rfc3339(ms));
        let mut h = t.gemini_header.clone();
        h["sessionId"] = json!(sid);
        h["projectHash"] = json!(rng.hex(64));
        h["startTime"] = stamp(ms);
        h["lastUpdated"] = stamp(ms);
        emit(&h, &mut out);
        let mut m = t.gemini_set_messages.clone();
        m["$set"]["lastUpdated"] = stamp(ms);
        emit(&m, &mut out);
        let target = rng.range(20_000, 400_000);
        let plan = i % 5 == 0;
        while out.len() < target {
            ms += rng.range(500, 60_000) as u64;
            let mut u = t.gemini_user.clone();
            u["id"] = json!(rng.uuid());
            u["timestamp"] = stamp(ms);
            let len = rng.range(20, 600);
            u["content"] = json!([{"text": corpus.slice(&mut rng, len)}]);
            emit(&u, &mut out);
            let mut set = t.gemini_set_updated.clone();
            set["$set"]["lastUpdated"] = stamp(ms);
            emit(&set, &mut out);
            // A tool call (a file read back in full) and the answer.
            let mut w = t.gemini_write.clone();
            let id = format!("read_file__read_file_{}_0", rng.below(1 << 40));
            let len = rng.range(2_000, 40_000);
            let file = corpus.slice(&mut rng, len);
            w["id"] = json!(rng.hex(32));
            w["timestamp"] = stamp(ms + 300);
            let call = &mut w["toolCalls"][0];
            call["id"] = json!(id);
            call["name"] = json!("read_file");
            call["args"] = json!({"file_path": format!("/home/dev/work/{slug}/src/main.ts")});
            call["result"] = json!([{"functionResponse": {"id": id, "name": "read_file", "response": {"output": file}}}]);
            call["resultDisplay"] = json!("");
            call["timestamp"] = stamp(ms + 400);
            emit(&w, &mut out);
            let mut r = t.gemini_reply.clone();
            r["id"] = json!(rng.hex(32));
            r["timestamp"] = stamp(ms + 900);
            let len = rng.range(100, 2_000);
            r["content"] = json!(corpus.slice(&mut rng, len));
            emit(&r, &mut out);
        }
        if plan {
            let plan_path = tmp.join(&slug).join(&sid).join("plans/plan.md");
            std::fs::create_dir_all(plan_path.parent().expect("plans folder"))?;
            let len = rng.range(1_000, 6_000);
            let text = format!("# Plan\n\n{}", corpus.slice(&mut rng, len));
            write_at(&plan_path, text.as_bytes(), ms)?;
            let shown = format!("/home/dev/.gemini/tmp/{slug}/{sid}/plans/plan.md");
            let mut w = t.gemini_write.clone();
            w["id"] = json!(rng.hex(32));
            w["timestamp"] = stamp(ms + 1000);
            w["toolCalls"][0]["args"] = json!({"file_path": shown, "content": text});
            emit(&w, &mut out);
            let mut x = t.gemini_exit_plan.clone();
            x["id"] = json!(rng.hex(32));
            x["timestamp"] = stamp(ms + 2000);
            x["toolCalls"][0]["args"]["plan_path"] = json!(shown);
            emit(&x, &mut out);
            plans += 1;
        }
        let name = format!(
            "session-{}-{}.jsonl",
            &rfc3339(ms)[..16].replace(':', "-"),
            &sid[..8]
        );
        let path = tmp.join(&slug).join("chats").join(name);
        write_at(&path, &out, ms + 2000)?;
        bytes += out.len() as u64;
    }
    Ok((spec.gemini_chats, bytes, plans))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> HeavyHomeSpec {
        HeavyHomeSpec {
            sessions: 9,
            projects: 3,
            plans: 3,
            gemini_chats: 4,
            bytes_scale: 0.02,
            seed: 7,
        }
    }

    /// Every file under `dir`: relative path, bytes, mtime.
    fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>, std::time::SystemTime)> {
        let mut out = Vec::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else {
                    let m = std::fs::metadata(&p).unwrap().modified().unwrap();
                    out.push((
                        p.strip_prefix(dir).unwrap().to_owned(),
                        std::fs::read(&p).unwrap(),
                        m,
                    ));
                }
            }
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    #[test]
    fn the_same_seed_gives_the_same_bytes_and_another_seed_does_not() {
        let (a, b, c) = (
            tempfile::tempdir().unwrap(),
            tempfile::tempdir().unwrap(),
            tempfile::tempdir().unwrap(),
        );
        let ra = generate(a.path(), &tiny()).unwrap();
        let rb = generate(b.path(), &tiny()).unwrap();
        let (sa, sb) = (snapshot(a.path()), snapshot(b.path()));
        assert_eq!(sa.len(), sb.len());
        for (x, y) in sa.iter().zip(&sb) {
            assert_eq!(x.0, y.0);
            assert!(x.1 == y.1, "{} differs", x.0.display());
            assert_eq!(x.2, y.2, "{} mtime", x.0.display());
        }
        assert_eq!(ra.transcripts_bytes, rb.transcripts_bytes);
        let other = HeavyHomeSpec { seed: 8, ..tiny() };
        generate(c.path(), &other).unwrap();
        assert_ne!(
            snapshot(c.path()).iter().map(|x| &x.1).collect::<Vec<_>>(),
            sa.iter().map(|x| &x.1).collect::<Vec<_>>()
        );
    }

    #[test]
    fn the_home_has_the_shapes_the_issue_names() {
        let dir = tempfile::tempdir().unwrap();
        let r = generate(dir.path(), &tiny()).unwrap();
        assert_eq!((r.sessions, r.gemini_chats), (9, 4));
        assert_eq!(r.transcripts.len(), 9);
        assert_eq!(
            r.plans,
            3 + 1,
            "three Claude plans and one Gemini plan (one chat in five)"
        );
        assert_eq!(
            std::fs::read_dir(dir.path().join(".claude/plans"))
                .unwrap()
                .count(),
            3
        );
        let all: Vec<String> = r
            .transcripts
            .iter()
            .map(|p| std::fs::read_to_string(p).unwrap())
            .collect();
        let joined = all.concat();
        for needle in [
            "\"originalFile\":",
            "\"media_type\":\"image/png\"",
            "\"ExitPlanMode\"",
            "\"planFilePath\"",
        ] {
            assert!(joined.contains(needle), "no {needle}");
        }
        for text in &all {
            for line in text.lines() {
                serde_json::from_str::<Value>(line).expect("every line is JSON");
            }
        }
        // Sessions above 1.5 MiB (times bytes_scale) end in one big tool result.
        let huge = all
            .iter()
            .filter(|t| {
                let last = t.lines().last().unwrap();
                last.contains("\"tool_result\"") && last.contains("cargo build --release")
                    || last.contains("\"stdout\":") && last.len() > 10_000
            })
            .count();
        assert_eq!(huge, r.huge_tail_sessions);
        assert!(huge > 0);
        // Sizes log-normal around the median.
        let mut sizes = session_sizes(&HeavyHomeSpec::at_scale(1.0));
        sizes.sort();
        let mib = |b: u64| b as f64 / 1048576.0;
        assert!(
            (0.85..0.95).contains(&mib(sizes[600])),
            "median {}",
            mib(sizes[600])
        );
        assert!(
            (4.3..4.9).contains(&mib(sizes[1080])),
            "p90 {}",
            mib(sizes[1080])
        );
        assert!(
            (19.0..=20.0).contains(&mib(sizes[1199])),
            "largest {}",
            mib(sizes[1199])
        );
    }
}
