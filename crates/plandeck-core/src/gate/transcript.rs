//! Telling from an agent's transcript whether its plan-approval call got its answer.
//!
//! Claude Code: the latest assistant `tool_use` named `ExitPlanMode` and a later `tool_result`
//! with its `tool_use_id`. Gemini CLI: a `functionResponse` named `exit_plan_mode` after the point
//! where the request was filed. Codex CLI: a turn started after the plan (its rollout).
//! Transcripts can be huge: only the tail and new bytes are read.
//!
//! The reading is the session index's ([`crate::sessions::transcript`]: the tail read, the
//! follower by byte offset and its line splitter), and so is the parsing (the typed records of
//! `sessions::claude` and `sessions::gemini`): the gate only says which lines it wants.

use std::path::PathBuf;

use memchr::memmem;

use crate::agents::Agent;
use crate::sessions::claude;
use crate::sessions::transcript::{self, Progress, MAX_LINE};

/// How far back from the end to look for the tool call when a request is filed.
const TAIL: u64 = 1024 * 1024;
/// The longest line read. A longer one is not a record the follower looks for (a plan-approval
/// answer is small): it is skipped as it streams in, read once, never again.
const CHUNK: u64 = MAX_LINE as u64;

/// Where to start watching `path`: the line of the latest `ExitPlanMode` call (and its id), else
/// the current end of the file.
pub(crate) fn locate(path: &std::path::Path, agent: Agent) -> (Option<String>, u64) {
    let Ok(len) = std::fs::metadata(path).map(|m| m.len()) else {
        return (None, 0);
    };
    if !crate::agents::driver(agent).locates_call() {
        return (None, len);
    }
    let mut found = None;
    let mut see = |at: u64, line: &[u8]| {
        if memmem::find(line, b"ExitPlanMode").is_some() {
            if let Some(id) = claude::exit_plan_call(line) {
                found = Some((id, at));
            }
        }
    };
    // One byte more than the tail, so that a line starting exactly `TAIL` bytes from the end is
    // whole (the tail read skips its first line, cut or not).
    let mut tail = transcript::Follower::new(path);
    if tail.read_tail_at(TAIL + 1, &mut see).is_err() {
        return (None, len);
    }
    // A last line without its newline yet is looked at too.
    if let Some(partial) = tail.splitter.partial() {
        see(tail.offset - partial.len() as u64, partial);
    }
    match found {
        Some((id, at)) => (Some(id), at),
        None => (None, tail.offset),
    }
}

/// A Claude Code plan-approval call still waiting at the end of its transcript: the last
/// `ExitPlanMode` call, with no answer and no assistant record after it (the agent waits at its
/// card, not working on).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WaitingCall {
    pub tool_use_id: String,
    /// Where the call's line starts (bytes).
    pub offset: u64,
    /// The plan as submitted (`input.plan`).
    pub plan: String,
    /// `input.planFilePath`.
    pub plan_path: Option<String>,
    /// The call record's `timestamp`, when it has one.
    pub at: Option<time::OffsetDateTime>,
}

/// The plan-approval call the agent `driver` drives (Claude Code) waits on at the end of `path`,
/// if it does ([`WaitingCall`]). Reads the tail and what follows the call only.
pub(crate) fn waiting_call(
    driver: &dyn crate::agents::Driver,
    path: &std::path::Path,
) -> Option<WaitingCall> {
    let (Some(id), offset) = locate(path, driver.agent()) else {
        return None;
    };
    let mut lines = transcript::Follower::resume_at(path, offset);
    let mut call: Option<WaitingCall> = None;
    let mut seen_call = false;
    let mut moved_on = false;
    let mut latest = Some(id.clone());
    lines
        .read_new(&mut |line| {
            if !seen_call {
                seen_call = true;
                call = call_of(line, &id, offset);
                return;
            }
            if driver.answer_in(&mut latest, line).is_some() || is_assistant(line) {
                moved_on = true;
            }
        })
        .ok()?;
    // A call line still being written (no newline yet) is not read as waiting.
    call.filter(|_| !moved_on)
}

/// The call `id` as its line holds it: its plan, plan file and time.
fn call_of(line: &[u8], id: &str, offset: u64) -> Option<WaitingCall> {
    let v: serde_json::Value = serde_json::from_slice(line).ok()?;
    let block = v
        .pointer("/message/content")?
        .as_array()?
        .iter()
        .find(|b| b.get("id").and_then(|i| i.as_str()) == Some(id))?;
    let input = block.get("input")?;
    let text = |k: &str| input.get(k).and_then(|x| x.as_str()).map(str::to_owned);
    Some(WaitingCall {
        tool_use_id: id.to_owned(),
        offset,
        plan: text("plan")?,
        plan_path: text("planFilePath"),
        at: v
            .get("timestamp")
            .and_then(|t| t.as_str())
            .and_then(crate::timestamp::parse),
    })
}

/// Whether `line` is an assistant record: the model went on after the call.
fn is_assistant(line: &[u8]) -> bool {
    memmem::find(line, b"assistant").is_some()
        && serde_json::from_slice::<serde_json::Value>(line)
            .ok()
            .is_some_and(|v| v.get("type").and_then(|t| t.as_str()) == Some("assistant"))
}

/// Who answered the plan-approval call, as the transcript's answer says (Claude Code writes
/// `permissionDecision.source` beside the tool result).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answerer {
    /// A hook's answer was taken (`"hook"`): Plandeck's, through the waiting hook.
    Hook,
    /// The person answered the card (`"user_temporary"`, `"user_permanent"`, …), or keys typed
    /// into it.
    Person,
    /// The record does not say (Gemini CLI; an older Claude Code).
    Unknown,
}

impl Answerer {
    pub fn from_source(source: Option<&str>) -> Self {
        match source {
            Some("hook") => Self::Hook,
            Some(s) if s.starts_with("user") => Self::Person,
            _ => Self::Unknown,
        }
    }
}

/// The answer to the plan-approval call: who gave it, and whether it let the plan through
/// (Claude Code's `permissionDecision.decision`, or the result being a denial's error). "A hook"
/// is any hook: another one answering `deny` first is a hook's answer too, and not Plandeck's
/// approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Answer {
    pub by: Answerer,
    /// `Some(true)`: approved; `Some(false)`: refused; `None`: the record does not say.
    pub accepted: Option<bool>,
}

impl Answer {
    /// An answer whose record says neither who gave it nor what it was.
    pub const UNKNOWN: Answer = Answer {
        by: Answerer::Unknown,
        accepted: None,
    };
}

/// Follows a transcript from an offset, by complete lines, until the answer shows up.
pub(crate) struct Follower {
    inner: transcript::Follower,
    agent: Agent,
    tool_use_id: Option<String>,
    /// Bytes read from the file so far (each byte is read once).
    bytes_read: u64,
    /// The answer, once read.
    answer: Option<Answer>,
}

impl Follower {
    pub(crate) fn new(
        path: PathBuf,
        agent: Agent,
        offset: u64,
        tool_use_id: Option<String>,
    ) -> Self {
        Self {
            inner: transcript::Follower::resume_at(&path, offset),
            agent,
            tool_use_id,
            bytes_read: 0,
            answer: None,
        }
    }

    pub(crate) fn tool_use_id(&self) -> Option<&str> {
        self.tool_use_id.as_deref()
    }

    /// Who answered, once [`Follower::poll`] said the answer is there.
    #[cfg(test)]
    pub(crate) fn answerer(&self) -> Option<Answerer> {
        self.answer.map(|a| a.by)
    }

    /// The answer (who, and what), once [`Follower::poll`] said it is there.
    pub(crate) fn answer(&self) -> Option<Answer> {
        self.answer
    }

    /// Reads what was appended since the last call; true once the answer is there.
    pub(crate) fn poll(&mut self) -> bool {
        if self.answer.is_some() {
            return true;
        }
        let Self {
            inner,
            agent,
            tool_use_id,
            bytes_read,
            answer,
        } = self;
        // A file replaced between two reads (or while being read) is read again from its start;
        // a few tries, then the next poll.
        for _ in 0..3 {
            let from = inner.offset;
            let overlong = inner.splitter.overlong;
            let mut answered = None;
            let read = inner.read_new(&mut |line| {
                // The first answer ends the wait: later calls do not replace the answered one.
                if answered.is_none() {
                    answered = line_answers(*agent, tool_use_id, line);
                }
            });
            if inner.splitter.overlong > overlong {
                tracing::warn!(
                    path = %inner.path.display(),
                    offset = from,
                    "skipping a transcript line longer than {CHUNK} bytes"
                );
            }
            match read {
                Ok(Progress::Appended) => {
                    *bytes_read += inner.offset - from;
                    *answer = answered;
                    return answered.is_some();
                }
                Ok(Progress::Replaced) => {
                    // Truncated or replaced: start over from the beginning of the new content.
                    *inner = transcript::Follower::resume_at(&inner.path, 0);
                }
                Ok(Progress::Unchanged | Progress::Missing) | Err(_) => return false,
            }
        }
        false
    }
}

/// Whether `line` answers the call, and who answered ([`crate::agents::Driver::answer_in`]).
fn line_answers(agent: Agent, tool_use_id: &mut Option<String>, line: &[u8]) -> Option<Answer> {
    crate::agents::driver(agent).answer_in(tool_use_id, line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    // The fixtures live in the repository (tests/fixtures/, with their README).
    const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures");

    #[test]
    fn claude_fixture_denied_session_is_answered() {
        let path = Path::new(FIXTURES)
            .join("claude-code-2.1.328/projects/-home-dev-work-api/5fb53a48-3aab-4a4b-b82c-e42d63b86c9d.jsonl");
        // A missing fixture fails the test; it never passes by skipping.
        assert!(path.is_file(), "fixture missing: {}", path.display());
        let (id, at) = locate(&path, Agent::Claude);
        assert_eq!(id.as_deref(), Some("toolu_d50b3a87818648069288"));
        let mut f = Follower::new(path, Agent::Claude, at, id);
        assert!(f.poll());
        // A hook answered, and its answer was a rejection.
        assert_eq!(
            f.answer(),
            Some(Answer {
                by: Answerer::Hook,
                accepted: Some(false)
            })
        );
    }

    /// The answer says who decided: the person on the card (`user_temporary`, as in the fixture
    /// approved in the terminal), the hook, or nobody says (Gemini; a record without the field).
    #[test]
    fn the_answer_says_who_decided() {
        let path = Path::new(FIXTURES)
            .join("claude-code-2.1.328/projects/-home-dev-work-api/8231d470-01ea-414b-8fe3-908262ff511e.jsonl");
        assert!(path.is_file(), "fixture missing: {}", path.display());
        let (id, at) = locate(&path, Agent::Claude);
        let mut f = Follower::new(path, Agent::Claude, at, id);
        assert_eq!(f.answerer(), None);
        assert!(f.poll());
        assert_eq!(f.answerer(), Some(Answerer::Person));
        assert!(f.poll(), "an answer read stays read");

        let dir = tempfile::tempdir().unwrap();
        let call = r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_h","name":"ExitPlanMode","input":{"plan":"x"}}]}}"#;
        let result = |extra: &str| {
            format!(
                r#"{{"type":"user","message":{{"content":[{{"type":"tool_result","tool_use_id":"toolu_h","content":"ok"}}]}}{extra}}}"#
            )
        };
        for (extra, who, accepted) in [
            (
                r#","permissionDecision":{"decision":"accept","source":"hook"}"#,
                Answerer::Hook,
                Some(true),
            ),
            // Another hook answered `deny` first: a hook's answer, and a refusal.
            (
                r#","permissionDecision":{"decision":"reject","source":"hook","reasonType":"hook"}"#,
                Answerer::Hook,
                Some(false),
            ),
            (
                r#","permissionDecision":{"decision":"accept","source":"user_permanent"}"#,
                Answerer::Person,
                Some(true),
            ),
            (r#","permissionDecision":"odd""#, Answerer::Unknown, None),
            ("", Answerer::Unknown, None),
        ] {
            let t = dir.path().join("t.jsonl");
            std::fs::write(&t, format!("{call}\n{}\n", result(extra))).unwrap();
            let (id, at) = locate(&t, Agent::Claude);
            let mut f = Follower::new(t, Agent::Claude, at, id);
            assert!(f.poll(), "{extra}");
            assert_eq!(f.answerer(), Some(who), "{extra}");
            assert_eq!(f.answer().unwrap().accepted, accepted, "{extra}");
        }
        // A record that says nothing of the decision, with a denial's error result: refused.
        let t = dir.path().join("err.jsonl");
        std::fs::write(
            &t,
            format!(
                "{call}\n{}\n",
                r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_h","content":"no","is_error":true}]}}"#
            ),
        )
        .unwrap();
        let (id, at) = locate(&t, Agent::Claude);
        let mut f = Follower::new(t, Agent::Claude, at, id);
        assert!(f.poll());
        assert_eq!(f.answer().unwrap().accepted, Some(false));
    }

    #[test]
    fn a_line_longer_than_a_chunk_is_skipped_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let id = "toolu_after_huge";
        // A record bigger than a chunk (a huge tool output), not yet terminated.
        let huge = vec![b'x'; (CHUNK + CHUNK / 2) as usize];
        std::fs::write(&path, &huge).unwrap();
        let mut f = Follower::new(path.clone(), Agent::Claude, 0, Some(id.to_owned()));
        assert!(!f.poll());
        let read_once = f.bytes_read;
        assert!(!f.poll());
        assert!(!f.poll());
        assert!(
            f.bytes_read - read_once < 1024,
            "the huge line was read again: {} bytes after {read_once}",
            f.bytes_read - read_once
        );
        // Its end, then the answer: seen.
        let answer = serde_json::json!({"type":"user","message":{"role":"user","content":[
            {"type":"tool_result","tool_use_id":id,"content":"ok"}]}});
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        std::io::Write::write_all(&mut file, format!("tail\n{answer}\n").as_bytes()).unwrap();
        assert!(f.poll());
        assert!(f.bytes_read < huge.len() as u64 + 4096, "{}", f.bytes_read);

        // A complete huge line followed by the answer, read by a new follower in one poll.
        let mut g = Follower::new(path, Agent::Claude, 0, Some(id.to_owned()));
        assert!(g.poll());
    }

    #[test]
    fn pending_call_is_not_answered_until_its_result_is_appended() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let call = r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_1","name":"ExitPlanMode","input":{"plan":"x"}}]}}"#;
        std::fs::write(&path, format!("{call}\n")).unwrap();
        let (id, at) = locate(&path, Agent::Claude);
        assert_eq!(id.as_deref(), Some("toolu_1"));
        let mut f = Follower::new(path.clone(), Agent::Claude, at, id);
        assert!(!f.poll());
        let other = r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_0","content":"x"}]}}"#;
        let ours = r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}}"#;
        crate::durable::append_line(&path, other).unwrap();
        assert!(!f.poll());
        // Half a line: waits for the newline.
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .and_then(|mut w| std::io::Write::write_all(&mut w, ours.as_bytes()))
            .unwrap();
        assert!(!f.poll());
        crate::durable::append_line(&path, "").unwrap();
        assert!(f.poll());
    }

    fn append(path: &Path, bytes: &[u8]) {
        let mut file = std::fs::OpenOptions::new().append(true).open(path).unwrap();
        std::io::Write::write_all(&mut file, bytes).unwrap();
    }

    #[test]
    fn records_split_between_reads_and_a_huge_line_between_call_and_answer() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let call = |id: &str| {
            format!(
                r#"{{"type":"assistant","message":{{"content":[{{"type":"text","text":"plan"}},{{"type":"tool_use","id":"{id}","name":"ExitPlanMode","input":{{"plan":"\u00e9 \"x\"\n"}}}}]}}}}"#
            ) + "\n"
        };
        let result = |id: &str| {
            format!(
                r#"{{"type":"user","message":{{"content":[{{"type":"tool_result","tool_use_id":"{id}","content":"ok"}}]}},"toolUseResult":{{"plan":"p"}}}}"#
            ) + "\n"
        };
        let first = "{\"type\":\"user\",\"message\":{\"content\":\"hi\"}}\r\n";
        std::fs::write(&path, format!("{first}{}", call("toolu_a"))).unwrap();
        // The call's line, where the follower starts.
        let (id, at) = locate(&path, Agent::Claude);
        assert_eq!((id.as_deref(), at), (Some("toolu_a"), first.len() as u64));
        let mut f = Follower::new(path.clone(), Agent::Claude, at, id);
        assert!(!f.poll());
        // A newer call, cut between two reads: it is the one waited for.
        let b = call("toolu_b");
        let (b1, b2) = b.split_at(b.len() / 2);
        append(&path, b1.as_bytes());
        assert!(!f.poll());
        assert_eq!(f.tool_use_id(), Some("toolu_a"));
        append(&path, b2.as_bytes());
        assert!(!f.poll());
        assert_eq!(f.tool_use_id(), Some("toolu_b"));
        // A line longer than the longest read, arriving in two parts: skipped, read once. It
        // even names the call and looks like its result.
        let mut huge = result("toolu_b").into_bytes();
        huge.truncate(huge.len() - 4);
        huge.resize((CHUNK + 1024) as usize, b'x');
        let (h1, h2) = huge.split_at(huge.len() / 2);
        append(&path, h1);
        assert!(!f.poll());
        append(&path, h2);
        append(&path, b"\"}}\n");
        assert!(!f.poll());
        let read = f.bytes_read;
        assert!(!f.poll());
        assert_eq!(f.bytes_read, read, "nothing new, nothing read");
        // The older call's result does not answer; the newer one's, cut in two, does.
        append(&path, result("toolu_a").as_bytes());
        assert!(!f.poll());
        let r = result("toolu_b");
        let (r1, r2) = r.split_at(r.len() / 2);
        append(&path, r1.as_bytes());
        assert!(!f.poll());
        append(&path, r2.as_bytes());
        assert!(f.poll());
        let len = std::fs::metadata(&path).unwrap().len();
        assert_eq!(
            f.bytes_read,
            len - at,
            "every byte after the call read once"
        );

        // Gemini: the response, cut between two reads.
        let gem = dir.path().join("g.jsonl");
        std::fs::write(&gem, "{\"sessionId\":\"s\",\"startTime\":\"t\"}\n").unwrap();
        let (_, end) = locate(&gem, Agent::Gemini);
        let mut g = Follower::new(gem.clone(), Agent::Gemini, end, None);
        let response = r#"{"id":"m","type":"user","content":[{"functionResponse":{"id":"c","name":"exit_plan_mode","response":{"output":"Plan approved."}}}]}"#;
        let (g1, g2) = response.split_at(response.len() / 2);
        append(&gem, g1.as_bytes());
        assert!(!g.poll());
        append(&gem, format!("{g2}\n").as_bytes());
        assert!(g.poll());
    }

    #[test]
    fn gemini_fixture_response_is_seen_after_offset() {
        let path = Path::new(FIXTURES)
            .join("gemini-cli-0.61.0/tmp/gemproj/chats/session-2026-11-22T12-31-bfc1b571.jsonl");
        // A missing fixture fails the test; it never passes by skipping.
        assert!(path.is_file(), "fixture missing: {}", path.display());
        assert!(Follower::new(path.clone(), Agent::Gemini, 0, None).poll());
        let (_, end) = locate(&path, Agent::Gemini);
        assert!(!Follower::new(path, Agent::Gemini, end, None).poll());
    }
}
