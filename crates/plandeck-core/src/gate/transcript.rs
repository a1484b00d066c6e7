//! Telling from an agent's transcript whether its plan-approval call got its answer.
//!
//! Claude Code: the latest assistant `tool_use` named `ExitPlanMode` and a later `tool_result`
//! with its `tool_use_id`. Gemini CLI: a `functionResponse` named `exit_plan_mode` after the point
//! where the request was filed. Transcripts can be huge: only the tail and new bytes are read.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;

use memchr::memmem;
use serde_json::Value;

use crate::agent::Agent;

/// How far back from the end to look for the tool call when a request is filed.
const TAIL: u64 = 1024 * 1024;
/// Most bytes read at once; a bigger backlog is read in several chunks. A single line longer than
/// this is not a record the follower looks for (a plan-approval answer is small): it is skipped,
/// read once, never again.
const CHUNK: u64 = 8 * 1024 * 1024;

/// Where to start watching `path`: the line of the latest `ExitPlanMode` call (and its id), else
/// the current end of the file.
pub(crate) fn locate(path: &std::path::Path, agent: Agent) -> (Option<String>, u64) {
    let Ok(mut file) = File::open(path) else {
        return (None, 0);
    };
    let Ok(len) = file.metadata().map(|m| m.len()) else {
        return (None, 0);
    };
    if agent != Agent::Claude {
        return (None, len);
    }
    let start = len.saturating_sub(TAIL);
    let mut buf = Vec::new();
    if file.seek(SeekFrom::Start(start)).is_err() || file.take(TAIL).read_to_end(&mut buf).is_err()
    {
        return (None, len);
    }
    let mut found = None;
    let mut pos = 0usize;
    for line in buf.split(|b| *b == b'\n') {
        let line_start = start + pos as u64;
        pos += line.len() + 1;
        if memmem::find(line, b"ExitPlanMode").is_none() {
            continue;
        }
        if let Some(id) = exit_plan_tool_use(line) {
            found = Some((id, line_start));
        }
    }
    match found {
        Some((id, at)) => (Some(id), at),
        None => (None, len),
    }
}

/// The id of an `ExitPlanMode` tool_use in this Claude record, if it holds one.
fn exit_plan_tool_use(line: &[u8]) -> Option<String> {
    let v: Value = serde_json::from_slice(line).ok()?;
    let content = v.get("message")?.get("content")?.as_array()?;
    content.iter().rev().find_map(|c| {
        (c.get("type")?.as_str()? == "tool_use" && c.get("name")?.as_str()? == "ExitPlanMode")
            .then(|| c.get("id")?.as_str().map(str::to_owned))
            .flatten()
    })
}

fn is_tool_result_for(line: &[u8], id: &str) -> bool {
    let Ok(v) = serde_json::from_slice::<Value>(line) else {
        return false;
    };
    let Some(content) = v
        .get("message")
        .and_then(|m| m.get("content"))
        .and_then(Value::as_array)
    else {
        return false;
    };
    content.iter().any(|c| {
        c.get("type").and_then(Value::as_str) == Some("tool_result")
            && c.get("tool_use_id").and_then(Value::as_str) == Some(id)
    })
}

fn is_gemini_plan_response(line: &[u8]) -> bool {
    fn walk(v: &Value) -> bool {
        match v {
            Value::Object(m) => {
                if let Some(fr) = m.get("functionResponse") {
                    if fr.get("name").and_then(Value::as_str) == Some("exit_plan_mode") {
                        return true;
                    }
                }
                m.values().any(walk)
            }
            Value::Array(a) => a.iter().any(walk),
            _ => false,
        }
    }
    serde_json::from_slice::<Value>(line)
        .map(|v| walk(&v))
        .unwrap_or(false)
}

/// Follows a transcript from an offset, by complete lines, until the answer shows up.
pub(crate) struct Follower {
    path: PathBuf,
    agent: Agent,
    offset: u64,
    tool_use_id: Option<String>,
    /// Inside a line longer than [`CHUNK`]: drop bytes up to its newline.
    skipping: bool,
    /// Bytes read from the file so far (each byte is read once).
    bytes_read: u64,
}

impl Follower {
    pub(crate) fn new(
        path: PathBuf,
        agent: Agent,
        offset: u64,
        tool_use_id: Option<String>,
    ) -> Self {
        Self {
            path,
            agent,
            offset,
            tool_use_id,
            skipping: false,
            bytes_read: 0,
        }
    }

    pub(crate) fn tool_use_id(&self) -> Option<&str> {
        self.tool_use_id.as_deref()
    }

    /// Reads what was appended since the last call; true once the answer is there.
    pub(crate) fn poll(&mut self) -> bool {
        loop {
            let Ok(mut file) = File::open(&self.path) else {
                return false;
            };
            let Ok(len) = file.metadata().map(|m| m.len()) else {
                return false;
            };
            if len < self.offset {
                // Truncated or replaced: start over from the beginning of the new content.
                self.offset = 0;
                self.skipping = false;
            }
            if len == self.offset {
                return false;
            }
            let mut buf = Vec::new();
            if file.seek(SeekFrom::Start(self.offset)).is_err()
                || file.take(CHUNK).read_to_end(&mut buf).is_err()
            {
                return false;
            }
            self.bytes_read += buf.len() as u64;
            let full = buf.len() as u64 >= CHUNK;
            // Where the first line of interest starts in `buf`.
            let mut start = 0usize;
            if self.skipping {
                match memchr::memchr(b'\n', &buf) {
                    Some(i) => {
                        self.skipping = false;
                        start = i + 1;
                    }
                    None => {
                        self.offset += buf.len() as u64;
                        if full {
                            continue;
                        }
                        return false;
                    }
                }
            }
            // Only complete lines: an unterminated last line waits for its newline.
            let Some(end) = memchr::memrchr(b'\n', &buf[start..]) else {
                if full && start == 0 {
                    // One line fills the whole chunk: it is not what we look for. Skip past it
                    // instead of reading the same chunk again on every poll.
                    tracing::warn!(
                        path = %self.path.display(),
                        offset = self.offset,
                        "skipping a transcript line longer than {CHUNK} bytes"
                    );
                    self.offset += buf.len() as u64;
                    self.skipping = true;
                    continue;
                }
                self.offset += start as u64;
                return false;
            };
            for line in buf[start..start + end].split(|b| *b == b'\n') {
                if self.line_answers(line) {
                    return true;
                }
            }
            self.offset += (start + end) as u64 + 1;
            if !full {
                return false;
            }
        }
    }

    fn line_answers(&mut self, line: &[u8]) -> bool {
        match self.agent {
            Agent::Gemini => {
                memmem::find(line, b"exit_plan_mode").is_some() && is_gemini_plan_response(line)
            }
            _ => {
                if memmem::find(line, b"ExitPlanMode").is_some() {
                    if let Some(id) = exit_plan_tool_use(line) {
                        self.tool_use_id = Some(id);
                        return false;
                    }
                }
                match &self.tool_use_id {
                    Some(id) => {
                        memmem::find(line, id.as_bytes()).is_some() && is_tool_result_for(line, id)
                    }
                    None => false,
                }
            }
        }
    }
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
        if !path.exists() {
            return;
        }
        let (id, at) = locate(&path, Agent::Claude);
        assert_eq!(id.as_deref(), Some("toolu_d50b3a87818648069288"));
        let mut f = Follower::new(path, Agent::Claude, at, id);
        assert!(f.poll());
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
        crate::fsx::append_line(&path, other).unwrap();
        assert!(!f.poll());
        // Half a line: waits for the newline.
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .and_then(|mut w| std::io::Write::write_all(&mut w, ours.as_bytes()))
            .unwrap();
        assert!(!f.poll());
        crate::fsx::append_line(&path, "").unwrap();
        assert!(f.poll());
    }

    #[test]
    fn gemini_fixture_response_is_seen_after_offset() {
        let path = Path::new(FIXTURES)
            .join("gemini-cli-0.61.0/tmp/gemproj/chats/session-2026-11-22T12-31-bfc1b571.jsonl");
        if !path.exists() {
            return;
        }
        assert!(Follower::new(path.clone(), Agent::Gemini, 0, None).poll());
        let (_, end) = locate(&path, Agent::Gemini);
        assert!(!Follower::new(path, Agent::Gemini, end, None).poll());
    }
}
