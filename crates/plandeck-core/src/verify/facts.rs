//! The transcript side: file-changing tool calls and shell commands, with their results.
//!
//! Record shapes (the fixtures under `tests/fixtures/` hold real ones):
//! - Claude Code: an assistant record's `message.content[]` `tool_use` (`id`, `name`, `input`);
//!   the user record after it holds the `tool_result` (`tool_use_id`, `content`, `is_error`).
//!   File tools: `Edit`/`Write`/`MultiEdit` (`file_path`), `NotebookEdit` (`notebook_path`).
//!   `Bash` (`command`): a failing command's result is `is_error` with "Exit code N" first.
//! - Gemini CLI: a `gemini` message's `toolCalls[]` (`id`, `name`, `args`, `status`, `result`),
//!   written again as the call progresses (the last copy wins). `write_file`/`replace`
//!   (`file_path`), `run_shell_command` (`command`; "Exit Code: N" in the output).
//! - Codex CLI: `response_item` payloads `function_call` (`shell`, `exec_command`, … with
//!   `arguments` as a JSON string) and `custom_tool_call` `apply_patch` (`input`, the patch);
//!   results in `function_call_output` / `custom_tool_call_output` and `exec_command_end` events.

use std::collections::HashMap;
use std::path::Path;

use time::OffsetDateTime;

use super::ChangeKind;
use crate::agents::Agent;
use crate::sessions::claude::{self, MaybeBool, ToolRecord};
use crate::sessions::content::{Content, LooseStr};
use crate::sessions::transcript::LineSplitter;
use crate::sessions::{codex, gemini};

/// A file-changing tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolWrite {
    pub tool: String,
    /// As the call gave it (absolute for Claude and Gemini, relative to the cwd for Codex).
    pub path: String,
    /// Set for a Codex patch that moved the file.
    pub moved_to: Option<String>,
    pub change: ChangeKind,
    pub at: Option<String>,
    pub line: u32,
    pub failed: bool,
    /// The new text the call wrote (for symbols).
    pub text: String,
}

/// A shell command and its result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellRun {
    pub command: String,
    pub at: Option<String>,
    pub line: u32,
    pub success: Option<bool>,
    pub exit_code: Option<i32>,
}

/// What one transcript tells.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TranscriptFacts {
    pub writes: Vec<ToolWrite>,
    pub commands: Vec<ShellRun>,
    /// Times of compactions (Claude `compact_boundary`).
    pub compactions: Vec<Option<String>>,
    pub unreadable: u32,
    /// The working directory the records name (the first one).
    pub cwd: Option<String>,
    /// Claude `worktree-state`: the worktree the session works in (last record), and the branch it
    /// was made from.
    pub worktree: Option<String>,
    pub worktree_branch: Option<String>,
}

/// Reads the transcript at `path` of `agent`.
pub fn read(agent: Agent, path: &Path) -> std::io::Result<TranscriptFacts> {
    use std::io::Read;
    let mut file = std::fs::File::open(path)?;
    let mut reader = Reader::new(agent);
    let mut splitter = LineSplitter::default();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        splitter.feed(&buf[..n], &mut |line| reader.line(line));
    }
    let mut facts = reader.finish();
    facts.unreadable += splitter.overlong;
    Ok(facts)
}

/// Reads transcript text already in memory (tests, benchmarks).
pub fn read_bytes(agent: Agent, bytes: &[u8]) -> TranscriptFacts {
    let mut reader = Reader::new(agent);
    let mut splitter = LineSplitter::default();
    splitter.feed(bytes, &mut |line| reader.line(line));
    splitter.feed(b"\n", &mut |line| reader.line(line));
    reader.finish()
}

struct Reader {
    agent: Agent,
    line: u32,
    facts: TranscriptFacts,
    /// Call id → index in `writes` / `commands`.
    write_of: HashMap<String, usize>,
    command_of: HashMap<String, usize>,
}

impl Reader {
    fn new(agent: Agent) -> Self {
        Self {
            agent,
            line: 0,
            facts: TranscriptFacts::default(),
            write_of: HashMap::new(),
            command_of: HashMap::new(),
        }
    }

    fn finish(self) -> TranscriptFacts {
        self.facts
    }

    fn line(&mut self, line: &[u8]) {
        self.line += 1;
        let interesting: &[&[u8]] = match self.agent {
            Agent::Claude => &[
                b"tool_use",
                b"tool_result",
                b"compact_boundary",
                b"worktree-state",
            ],
            Agent::Gemini => &[b"toolCalls"],
            Agent::Codex => &[
                b"function_call",
                b"custom_tool_call",
                b"exec_command_end",
                b"local_shell_call",
            ],
            Agent::Other => return,
        };
        if !interesting
            .iter()
            .any(|needle| memchr::memmem::find(line, needle).is_some())
        {
            return;
        }
        if self.agent == Agent::Claude {
            // The sessions' typed records (one Claude reader); glued records are each read.
            if !claude::tool_records(line, &mut |rec| self.claude(rec)) {
                self.facts.unreadable += 1;
            }
            return;
        }
        if self.agent == Agent::Gemini {
            let mut calls = Vec::new();
            if !gemini::tool_uses(line, &mut |call| calls.push(call)) {
                self.facts.unreadable += 1;
            }
            for call in calls {
                self.gemini(call);
            }
            return;
        }
        if self.agent == Agent::Codex {
            let mut events = Vec::new();
            if !codex::tool_events(line, &mut |event| events.push(event)) {
                self.facts.unreadable += 1;
            }
            for event in events {
                self.codex(event);
            }
        }
    }

    fn claude(&mut self, rec: ToolRecord<'_>) {
        let text =
            |v: &Option<LooseStr<'_>>| v.as_ref().and_then(LooseStr::as_str).map(str::to_owned);
        let at = text(&rec.timestamp);
        if self.facts.cwd.is_none() {
            self.facts.cwd = text(&rec.cwd);
        }
        let kind = rec.kind.as_ref().and_then(LooseStr::as_str);
        if kind == Some("worktree-state") {
            let w = rec.worktree_session.and_then(|w| w.0);
            self.facts.worktree = w.as_ref().and_then(|w| text(&w.worktree_path));
            self.facts.worktree_branch = w.as_ref().and_then(|w| text(&w.original_branch));
            return;
        }
        if kind == Some("system")
            && rec.subtype.as_ref().and_then(LooseStr::as_str) == Some("compact_boundary")
        {
            self.facts.compactions.push(at);
            return;
        }
        let Some(Content::Items(content)) = rec.message.and_then(|m| m.0).and_then(|m| m.content)
        else {
            return;
        };
        let created = rec
            .tool_use_result
            .and_then(|r| r.0)
            .is_some_and(|r| r.kind.as_ref().and_then(LooseStr::as_str) == Some("create"));
        for item in content.into_iter().filter_map(|i| i.0) {
            match item.kind.as_ref().and_then(LooseStr::as_str) {
                Some("tool_use") => {
                    let id = text(&item.id).unwrap_or_default();
                    let name = item.name.as_ref().and_then(LooseStr::as_str).unwrap_or("");
                    let Some(input) = item.input.and_then(|i| i.0) else {
                        continue;
                    };
                    match name {
                        "Edit" | "Write" | "MultiEdit" | "NotebookEdit" => {
                            let path = text(&input.file_path)
                                .or_else(|| text(&input.notebook_path))
                                .unwrap_or_default();
                            if path.is_empty() {
                                continue;
                            }
                            let mut written = String::new();
                            for s in [&input.content, &input.new_string, &input.new_source] {
                                if let Some(s) = s.as_ref().and_then(LooseStr::as_str) {
                                    written.push_str(s);
                                    written.push('\n');
                                }
                            }
                            if let Some(Content::Items(edits)) = &input.edits {
                                for e in edits.iter().filter_map(|e| e.0.as_ref()) {
                                    if let Some(s) =
                                        e.new_string.as_ref().and_then(LooseStr::as_str)
                                    {
                                        written.push_str(s);
                                        written.push('\n');
                                    }
                                }
                            }
                            self.push_write(
                                &id,
                                ToolWrite {
                                    tool: name.to_owned(),
                                    path,
                                    moved_to: None,
                                    change: ChangeKind::Modified,
                                    at: at.clone(),
                                    line: self.line,
                                    failed: false,
                                    text: written,
                                },
                            );
                        }
                        "Bash" => {
                            if let Some(cmd) = text(&input.command) {
                                self.push_command(&id, cmd, at.clone());
                            }
                        }
                        _ => {}
                    }
                }
                Some("tool_result") => {
                    let id = item
                        .tool_use_id
                        .as_ref()
                        .and_then(LooseStr::as_str)
                        .unwrap_or("");
                    let is_error = matches!(item.is_error, Some(MaybeBool::Bool(true)));
                    let result = match &item.content {
                        Some(Content::Text(s)) => s.to_string(),
                        Some(Content::Items(parts)) => parts
                            .iter()
                            .filter_map(|p| p.0.as_deref())
                            .collect::<Vec<_>>()
                            .join("\n"),
                        _ => String::new(),
                    };
                    if let Some(&i) = self.write_of.get(id) {
                        self.facts.writes[i].failed = is_error;
                        if created {
                            self.facts.writes[i].change = ChangeKind::Added;
                        }
                    }
                    if let Some(&i) = self.command_of.get(id) {
                        let code = exit_code_after(&result, "Exit code ");
                        let c = &mut self.facts.commands[i];
                        c.exit_code = code.or(if is_error { None } else { Some(0) });
                        c.success = Some(!is_error && code.is_none_or(|c| c == 0));
                    }
                }
                _ => {}
            }
        }
    }

    fn gemini(&mut self, call: gemini::ToolUse) {
        let failed = matches!(call.status.as_deref(), Some("error" | "cancelled"));
        match call.name.as_str() {
            "write_file" | "replace" => {
                let Some(path) = call.file_path else {
                    return;
                };
                let w = ToolWrite {
                    tool: call.name.clone(),
                    path,
                    moved_to: None,
                    change: ChangeKind::Modified,
                    at: call.at,
                    line: self.line,
                    failed,
                    text: call.text.unwrap_or_default(),
                };
                match self.write_of.get(&call.id) {
                    Some(&i) => self.facts.writes[i] = w,
                    None => self.push_write(&call.id, w),
                }
            }
            "run_shell_command" => {
                let Some(command) = call.command else {
                    return;
                };
                let code = exit_code_after(&call.output, "Exit Code: ");
                let success = match call.status.as_deref() {
                    Some("success") => Some(code.is_none_or(|c| c == 0)),
                    Some("error" | "cancelled") => Some(false),
                    _ => None,
                };
                let run = ShellRun {
                    command,
                    at: call.at,
                    line: self.line,
                    success,
                    exit_code: code.or(if success == Some(true) { Some(0) } else { None }),
                };
                match self.command_of.get(&call.id) {
                    Some(&i) => self.facts.commands[i] = run,
                    None => {
                        self.command_of.insert(call.id, self.facts.commands.len());
                        self.facts.commands.push(run);
                    }
                }
            }
            _ => {}
        }
    }

    fn codex(&mut self, event: codex::ToolEvent) {
        use codex::ToolEvent;
        match event {
            ToolEvent::Command {
                call_id,
                at,
                command,
            } => self.push_command(&call_id, command, at),
            ToolEvent::Patch { call_id, at, patch } => self.patch(&call_id, &patch, at),
            ToolEvent::Output {
                call_id,
                text,
                exit_code,
            } => {
                let code = exit_code
                    .or_else(|| exit_code_after(&text, "Exit code: "))
                    .or_else(|| exit_code_after(&text, "Process exited with code "));
                if let Some(&i) = self.command_of.get(&call_id) {
                    let c = &mut self.facts.commands[i];
                    if c.exit_code.is_none() {
                        c.exit_code = code;
                        c.success = code.map(|c| c == 0);
                    }
                }
                if let Some(&first) = self.write_of.get(&call_id) {
                    let failed = code.is_some_and(|c| c != 0)
                        || text.starts_with("apply_patch verification failed");
                    for w in self.facts.writes[first..].iter_mut() {
                        w.failed = failed;
                    }
                }
            }
            ToolEvent::ExecEnd { call_id, exit_code } => {
                if let Some(&i) = self.command_of.get(&call_id) {
                    let c = &mut self.facts.commands[i];
                    c.exit_code = exit_code;
                    c.success = exit_code.map(|c| c == 0);
                }
            }
        }
    }

    /// A Codex patch: one write per file it names.
    fn patch(&mut self, call_id: &str, patch: &str, at: Option<String>) {
        let mut first = true;
        let mut current: Option<usize> = None;
        for l in patch.lines() {
            let (change, path) = if let Some(p) = l.strip_prefix("*** Add File: ") {
                (ChangeKind::Added, p)
            } else if let Some(p) = l.strip_prefix("*** Update File: ") {
                (ChangeKind::Modified, p)
            } else if let Some(p) = l.strip_prefix("*** Delete File: ") {
                (ChangeKind::Deleted, p)
            } else if let Some(p) = l.strip_prefix("*** Move to: ") {
                if let Some(i) = current {
                    self.facts.writes[i].moved_to = Some(p.trim().to_owned());
                    self.facts.writes[i].change = ChangeKind::Renamed;
                }
                continue;
            } else {
                if let (Some(i), Some(added)) = (current, l.strip_prefix('+')) {
                    self.facts.writes[i].text.push_str(added);
                    self.facts.writes[i].text.push('\n');
                }
                continue;
            };
            let w = ToolWrite {
                tool: "apply_patch".to_owned(),
                path: path.trim().to_owned(),
                moved_to: None,
                change,
                at: at.clone(),
                line: self.line,
                failed: false,
                text: String::new(),
            };
            current = Some(self.facts.writes.len());
            if first {
                self.push_write(call_id, w);
                first = false;
            } else {
                self.facts.writes.push(w);
            }
        }
    }

    fn push_write(&mut self, id: &str, w: ToolWrite) {
        if !id.is_empty() {
            self.write_of.insert(id.to_owned(), self.facts.writes.len());
        }
        self.facts.writes.push(w);
    }

    fn push_command(&mut self, id: &str, command: String, at: Option<String>) {
        if !id.is_empty() {
            self.command_of
                .insert(id.to_owned(), self.facts.commands.len());
        }
        self.facts.commands.push(ShellRun {
            command,
            at,
            line: self.line,
            success: None,
            exit_code: None,
        });
    }
}

/// The number after `marker` in `text` ("Exit code 2" → 2).
fn exit_code_after(text: &str, marker: &str) -> Option<i32> {
    let at = text.find(marker)? + marker.len();
    let digits: String = text[at..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '-')
        .collect();
    digits.parse().ok()
}

/// An RFC 3339 time.
pub(crate) fn parse_time(t: &str) -> Option<OffsetDateTime> {
    OffsetDateTime::parse(t, &time::format_description::well_known::Rfc3339).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_edits_and_commands_with_results() {
        let t = concat!(
            r#"{"type":"assistant","timestamp":"2026-11-22T12:04:00.000Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Edit","input":{"file_path":"/r/src/a.rs","old_string":"x","new_string":"fn paginate() {}"}}]}}"#,
            "\n",
            r#"{"type":"user","timestamp":"2026-11-22T12:04:01.000Z","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":"ok"}]},"toolUseResult":{"filePath":"/r/src/a.rs"}}"#,
            "\n",
            r#"{"type":"assistant","timestamp":"2026-11-22T12:04:02.000Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"cargo test"}}]}}"#,
            "\n",
            r#"{"type":"user","timestamp":"2026-11-22T12:04:03.000Z","message":{"role":"user","content":[{"type":"tool_result","content":"Exit code 101\nfailed","is_error":true,"tool_use_id":"t2"}]}}"#,
            "\n",
            "not json but mentions tool_use\n",
        );
        let f = read_bytes(Agent::Claude, t.as_bytes());
        assert_eq!(f.writes.len(), 1);
        assert_eq!(f.writes[0].path, "/r/src/a.rs");
        assert_eq!(f.writes[0].line, 1);
        assert!(f.writes[0].text.contains("paginate"));
        assert_eq!(f.commands.len(), 1);
        assert_eq!(f.commands[0].exit_code, Some(101));
        assert_eq!(f.commands[0].success, Some(false));
        assert_eq!(f.unreadable, 1);
    }

    #[test]
    fn claude_records_are_read_with_the_sessions_typed_records_loosely_and_unglued() {
        let t = concat!(
            // Two records glued on one line (a writer lost a newline): both are read.
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Write","input":{"file_path":"/r/a.rs","content":"fn a() {}"}}]}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"cargo test"}}]}}"#,
            "\n",
            // Text parts as objects and plain strings; a string toolUseResult.
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t2","is_error":true,"content":[{"type":"text","text":"Exit code 3"},"tail"]}]},"toolUseResult":"Error: failed"}"#,
            "\n",
            // Shapes not expected are ignored, not damage.
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":"no","content":7.5}, 3]},"toolUseResult":{"type":"create"}}"#,
            "\n",
            r#"{"type":"worktree-state","worktreeSession":null,"message":"tool_use"}"#,
            "\n",
        );
        let f = read_bytes(Agent::Claude, t.as_bytes());
        assert_eq!(f.unreadable, 0);
        assert_eq!(f.writes.len(), 1);
        let w = &f.writes[0];
        assert_eq!((w.path.as_str(), w.line, w.failed), ("/r/a.rs", 1, false));
        assert_eq!(
            (w.change, w.text.as_str()),
            (ChangeKind::Added, "fn a() {}\n")
        );
        assert_eq!(f.commands.len(), 1);
        let c = &f.commands[0];
        assert_eq!(
            (c.command.as_str(), c.exit_code, c.success),
            ("cargo test", Some(3), Some(false))
        );
        assert_eq!(f.worktree, None);
    }

    #[test]
    fn gemini_tool_calls_from_the_real_chat_and_shell_results() {
        let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(
            "../../tests/fixtures/gemini-cli-0.61.0/tmp/gemproj/chats/session-2026-11-22T12-29-c76f8969.jsonl",
        );
        let f = read(Agent::Gemini, &fixture).unwrap();
        assert_eq!(f.writes.len(), 1, "{f:#?}");
        assert_eq!(f.writes[0].tool, "write_file");
        assert!(f.writes[0].path.ends_with("/plans/pagination.md"));
        assert!(!f.writes[0].failed);
        assert!(f.commands.is_empty());
        // A shell call, written twice as it progresses (the last copy wins).
        let t = concat!(
            r#"{"id":"m1","timestamp":"2026-11-22T12:31:00.000Z","type":"gemini","content":"","toolCalls":[{"id":"run_1","name":"run_shell_command","args":{"command":"npm test"},"status":"executing"}]}"#,
            "\n",
            r#"{"id":"m1","timestamp":"2026-11-22T12:31:00.000Z","type":"gemini","content":"","toolCalls":[{"id":"run_1","name":"run_shell_command","args":{"command":"npm test"},"status":"success","timestamp":"2026-11-22T12:31:05.000Z","result":[{"functionResponse":{"id":"run_1","name":"run_shell_command","response":{"output":"Command: npm test\nOutput: 1 failing\nExit Code: 1"}}}]}]}"#,
            "\n",
        );
        let f = read_bytes(Agent::Gemini, t.as_bytes());
        assert_eq!(f.commands.len(), 1);
        assert_eq!(f.commands[0].exit_code, Some(1));
        assert_eq!(f.commands[0].success, Some(false));
    }

    #[test]
    fn codex_patch_and_exec() {
        let t = concat!(
            r#"{"timestamp":"2026-11-22T12:04:00.000Z","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","call_id":"c1","input":"*** Begin Patch\n*** Add File: src/new.rs\n+fn cursor() {}\n*** Update File: a.rs\n*** Move to: b.rs\n*** End Patch"}}"#,
            "\n",
            r#"{"timestamp":"2026-11-22T12:04:01.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","call_id":"c2","arguments":"{\"command\":[\"bash\",\"-lc\",\"npm test\"]}"}}"#,
            "\n",
            r#"{"timestamp":"2026-11-22T12:04:02.000Z","type":"event_msg","payload":{"type":"exec_command_end","call_id":"c2","exit_code":0}}"#,
            "\n",
        );
        let f = read_bytes(Agent::Codex, t.as_bytes());
        assert_eq!(f.writes.len(), 2);
        assert_eq!(f.writes[0].change, ChangeKind::Added);
        assert!(f.writes[0].text.contains("cursor"));
        assert_eq!(f.writes[1].moved_to.as_deref(), Some("b.rs"));
        assert_eq!(f.commands[0].command, "npm test");
        assert_eq!(f.commands[0].success, Some(true));
    }

    #[test]
    fn codex_outputs_local_shell_and_failed_patches() {
        let t = concat!(
            r#"{"timestamp":"2026-11-22T12:05:00.000Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","call_id":"e1","arguments":"{\"cmd\":\"cargo test\"}"}}"#,
            "\n",
            r#"{"timestamp":"2026-11-22T12:05:01.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"e1","output":"{\"output\":\"test result: FAILED\",\"metadata\":{\"exit_code\":101}}"}}"#,
            "\n",
            r#"{"timestamp":"2026-11-22T12:05:02.000Z","type":"response_item","payload":{"type":"local_shell_call","call_id":"e2","action":{"type":"exec","command":["ls","-la"]}}}"#,
            "\n",
            r#"{"timestamp":"2026-11-22T12:05:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"e2","output":[{"type":"input_text","text":"Process exited with code 2"}]}}"#,
            "\n",
            r#"{"timestamp":"2026-11-22T12:05:04.000Z","type":"response_item","payload":{"type":"function_call","name":"apply_patch","call_id":"p1","arguments":{"input":"*** Begin Patch\n*** Delete File: old.rs\n*** End Patch"}}}"#,
            "\n",
            r#"{"timestamp":"2026-11-22T12:05:05.000Z","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"p1","output":"apply_patch verification failed: no such file"}}"#,
            "\n",
            r#"{"timestamp":"2026-11-22T12:05:06.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","call_id":"s1","arguments":"{\"command\":\"echo *** Begin Patch\\n*** Add File: x.txt\\n+x\\n*** End Patch\"}"}}"#,
            "\n",
            // Shapes not expected: ignored, never a panic.
            r#"{"type":"response_item","payload":{"type":"function_call","call_id":7,"arguments":5}}"#,
            "\n",
            r#"{"type":"response_item","payload":"function_call"}"#,
            "\n",
        );
        let f = read_bytes(Agent::Codex, t.as_bytes());
        let runs: Vec<(&str, Option<i32>, Option<bool>)> = f
            .commands
            .iter()
            .map(|c| (c.command.as_str(), c.exit_code, c.success))
            .collect();
        assert_eq!(
            runs,
            [
                ("cargo test", Some(101), Some(false)),
                ("ls -la", Some(2), Some(false))
            ]
        );
        let writes: Vec<(&str, ChangeKind, bool)> = f
            .writes
            .iter()
            .map(|w| (w.path.as_str(), w.change, w.failed))
            .collect();
        assert_eq!(
            writes,
            [
                ("old.rs", ChangeKind::Deleted, true),
                ("x.txt", ChangeKind::Added, false)
            ]
        );
        assert_eq!(f.writes[1].text, "x\n");
    }

    #[test]
    fn gemini_replacements_and_failed_calls() {
        let t = concat!(
            r#"{"id":"m2","timestamp":"2026-11-22T12:40:00.000Z","type":"gemini","content":"","toolCalls":[{"id":"r1","name":"replace","args":{"file_path":"/r/a.rs","old_string":"a","new_string":"fn b() {}"},"status":"success"},{"id":"w1","name":"write_file","args":{"file_path":"/r/c.rs","content":"c"},"status":"cancelled"},{"id":"x1","name":"run_shell_command","args":{"command":"make"},"status":"error","result":[{"functionResponse":{"response":{"output":[{"text":"boom"}]}}}]}]}"#,
            "\n",
            // Shapes not expected: ignored.
            r#"{"id":"m3","type":"gemini","toolCalls":[7,{"id":3,"name":["write_file"]},{"id":"w2","name":"write_file","args":"nope"}]}"#,
            "\n",
            r#"{"id":"m4","type":"gemini","toolCalls":{"not":"a list"}}"#,
            "\n",
        );
        let f = read_bytes(Agent::Gemini, t.as_bytes());
        let writes: Vec<(&str, &str, bool, Option<&str>)> = f
            .writes
            .iter()
            .map(|w| (w.path.as_str(), w.text.as_str(), w.failed, w.at.as_deref()))
            .collect();
        assert_eq!(
            writes,
            [
                (
                    "/r/a.rs",
                    "fn b() {}",
                    false,
                    Some("2026-11-22T12:40:00.000Z")
                ),
                ("/r/c.rs", "c", true, Some("2026-11-22T12:40:00.000Z"))
            ]
        );
        let c = &f.commands[0];
        assert_eq!(
            (c.command.as_str(), c.success, c.exit_code),
            ("make", Some(false), None)
        );
        assert_eq!(f.unreadable, 0);
    }
}
