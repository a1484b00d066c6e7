//! Property tests of the transcript and rollout readers (issue 33): lines of the agents' own
//! recorded transcripts (tests/fixtures), cut short, spliced, with bytes flipped and outside text
//! put into them, fed to each agent's reader many times over. No panic, and what a session's facts
//! hold stays bounded by the longest line, however many lines come.

use super::plan_events::PlanFacts;
use super::state::Facts;
use super::{claude, codex, gemini};
use proptest::prelude::*;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures");

/// Every line of the fixtures' files under `dir` ending in `.jsonl` (a missing fixture fails).
fn fixture_lines(dir: &str) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut stack = vec![std::path::Path::new(FIXTURES).join(dir)];
    while let Some(p) = stack.pop() {
        if p.is_dir() {
            for e in std::fs::read_dir(&p).expect("the fixtures are there") {
                stack.push(e.expect("a fixture").path());
            }
        } else if p.extension().is_some_and(|x| x == "jsonl") {
            let bytes = std::fs::read(&p).expect("a readable fixture");
            out.extend(
                bytes
                    .split(|b| *b == b'\n')
                    .filter(|l| !l.is_empty())
                    .map(<[u8]>::to_vec),
            );
        }
    }
    assert!(out.len() > 10, "the fixtures under {dir} hold lines");
    out
}

fn claude_lines() -> &'static [Vec<u8>] {
    static L: std::sync::OnceLock<Vec<Vec<u8>>> = std::sync::OnceLock::new();
    L.get_or_init(|| fixture_lines("claude-code-2.1.328"))
}
fn gemini_lines() -> &'static [Vec<u8>] {
    static L: std::sync::OnceLock<Vec<Vec<u8>>> = std::sync::OnceLock::new();
    L.get_or_init(|| fixture_lines("gemini-cli-0.61.0"))
}
fn codex_lines() -> &'static [Vec<u8>] {
    static L: std::sync::OnceLock<Vec<Vec<u8>>> = std::sync::OnceLock::new();
    L.get_or_init(|| fixture_lines("codex-cli-0.169.0"))
}

/// Text from outside: quotes, escapes, controls, hidden characters, long runs, other records.
fn outside() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        Just("\"".to_owned()),
        Just("\\".to_owned()),
        Just("\\u0000\\ud800\\udfff".to_owned()),
        Just("\u{1b}[2J\u{7}\u{202e}\u{200b}\u{e0041}".to_owned()),
        Just("\",\"type\":\"assistant\",\"x\":{\"".to_owned()),
        Just("{\"id\":\"toolu_x\",\"name\":\"ExitPlanMode\",\"input\":{}}".to_owned()),
        (1usize..20_000).prop_map(|n| "x".repeat(n)),
        (1usize..400).prop_map(|n| "[{".repeat(n)),
    ]
}

/// One line as damage or a hostile writer leaves it.
#[derive(Debug, Clone)]
enum Change {
    Keep,
    Cut(usize),
    Flip(usize, u8),
    Insert(usize, String),
    Splice(usize, usize),
}

fn change() -> impl Strategy<Value = Change> {
    prop_oneof![
        3 => Just(Change::Keep),
        1 => any::<usize>().prop_map(Change::Cut),
        1 => (any::<usize>(), any::<u8>()).prop_map(|(a, b)| Change::Flip(a, b)),
        3 => (any::<usize>(), outside()).prop_map(|(a, s)| Change::Insert(a, s)),
        1 => (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Change::Splice(a, b)),
    ]
}

fn changed(lines: &[Vec<u8>], pick: usize, c: &Change) -> Vec<u8> {
    let line = &lines[pick % lines.len()];
    let at = |n: usize| if line.is_empty() { 0 } else { n % line.len() };
    match c {
        Change::Keep => line.clone(),
        Change::Cut(n) => line[..at(*n)].to_vec(),
        Change::Flip(n, b) => {
            let mut l = line.clone();
            if !l.is_empty() {
                let i = at(*n);
                l[i] = *b;
            }
            l
        }
        Change::Insert(n, s) => {
            // Inside a string value when there is one after `n`: right after a quote.
            let i = line[at(*n)..]
                .iter()
                .position(|b| *b == b'"')
                .map_or(at(*n), |q| at(*n) + q + 1);
            let mut l = line[..i].to_vec();
            l.extend_from_slice(s.as_bytes());
            l.extend_from_slice(&line[i..]);
            l
        }
        Change::Splice(n, other) => {
            let o = &lines[other % lines.len()];
            let mut l = line[..at(*n)].to_vec();
            l.extend_from_slice(&o[if o.is_empty() { 0 } else { n % o.len() }..]);
            l
        }
    }
}

/// What `facts` hold, in bytes.
fn weight(facts: &Facts) -> usize {
    serde_json::to_vec(facts).expect("facts serialize").len()
}

/// Feeds `lines` (`rounds` times over) to a reader and checks the bound.
fn feed_all(lines: &[Vec<u8>], rounds: usize, feed: &dyn Fn(&mut Facts, &[u8])) -> Facts {
    let longest = lines.iter().map(Vec::len).max().unwrap_or(0);
    let mut facts = Facts::default();
    for _ in 0..rounds {
        for l in lines {
            feed(&mut facts, l);
        }
        // Each field holds at most one line's worth; the open calls are capped (32).
        assert!(
            weight(&facts) <= 48 * longest + 4096,
            "facts grew to {} bytes for lines of at most {longest}",
            weight(&facts)
        );
    }
    facts
}

fn plan_all(lines: &[Vec<u8>], parse: &dyn Fn(&mut PlanFacts, &[u8])) {
    let mut pf = PlanFacts::default();
    for l in lines {
        parse(&mut pf, l);
    }
    // A plan event holds what one line said: never more events than lines.
    assert!(
        pf.events.len() <= 2 * lines.len(),
        "{} events",
        pf.events.len()
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn claude_transcripts_read_without_panic_into_bounded_facts(
        edits in proptest::collection::vec((any::<usize>(), change()), 1..80),
    ) {
        let lines: Vec<Vec<u8>> = edits.iter().map(|(p, c)| changed(claude_lines(), *p, c)).collect();
        feed_all(&lines, 4, &|f, l| claude::feed_line(f, l, false));
        feed_all(&lines, 1, &|f, l| claude::feed_line(f, l, true));
        plan_all(&lines, &|pf, l| claude::plan_parse(pf, l));
        for l in &lines {
            let _ = claude::exit_plan_call(l);
            let _ = claude::tool_result_decider(l, "toolu_x");
            let _ = claude::tool_records(l, &mut |_| {});
        }
    }

    #[test]
    fn gemini_chats_read_without_panic_into_bounded_facts(
        edits in proptest::collection::vec((any::<usize>(), change()), 1..80),
    ) {
        let lines: Vec<Vec<u8>> = edits.iter().map(|(p, c)| changed(gemini_lines(), *p, c)).collect();
        feed_all(&lines, 4, &gemini::feed_line);
        plan_all(&lines, &|pf, l| gemini::plan_parse(pf, l));
        for l in &lines {
            let _ = gemini::has_plan_response(l);
            let _ = gemini::tool_uses(l, &mut |_| {});
        }
    }

    #[test]
    fn codex_rollouts_read_without_panic_into_bounded_facts(
        edits in proptest::collection::vec((any::<usize>(), change()), 1..80),
    ) {
        let lines: Vec<Vec<u8>> = edits.iter().map(|(p, c)| changed(codex_lines(), *p, c)).collect();
        feed_all(&lines, 4, &codex::feed_line);
        plan_all(&lines, &|pf, l| codex::plan_parse(pf, l));
        for l in &lines {
            let _ = codex::tool_events(l, &mut |_| {});
            let _ = codex::proposed_plan(&String::from_utf8_lossy(l));
        }
    }
}

/// The bound holds: the same lines again and again leave the facts as big as once.
#[test]
fn facts_do_not_grow_with_repetition() {
    for (lines, feed) in [
        (
            claude_lines(),
            &(|f: &mut Facts, l: &[u8]| claude::feed_line(f, l, false))
                as &dyn Fn(&mut Facts, &[u8]),
        ),
        (gemini_lines(), &gemini::feed_line),
        (codex_lines(), &codex::feed_line),
    ] {
        let once = weight(&feed_all(lines, 1, feed));
        let many = weight(&feed_all(lines, 20, feed));
        assert!(
            many <= once + 64 * 32,
            "{once} bytes once, {many} after 20 rounds"
        );
    }
}
