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

use std::path::Path;

use time::OffsetDateTime;

use crate::agents::records::tools::ToolReader;
use crate::agents::records::transcript::LineSplitter;
use crate::agents::Agent;

pub use crate::agents::records::tools::{ShellRun, ToolWrite, TranscriptFacts};

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
    tools: ToolReader,
}

impl Reader {
    fn new(agent: Agent) -> Self {
        Self {
            agent,
            tools: ToolReader::default(),
        }
    }

    fn finish(self) -> TranscriptFacts {
        self.tools.facts
    }

    fn line(&mut self, line: &[u8]) {
        self.tools.line += 1;
        let Some(tools) = crate::agents::records(self.agent).tool_lines() else {
            return;
        };
        if !tools
            .markers
            .iter()
            .any(|needle| memchr::memmem::find(line, needle).is_some())
        {
            return;
        }
        if !(tools.read)(&mut self.tools, line) {
            self.tools.facts.unreadable += 1;
        }
    }
}

/// An RFC 3339 time.
pub(crate) fn parse_time(t: &str) -> Option<OffsetDateTime> {
    OffsetDateTime::parse(t, &time::format_description::well_known::Rfc3339).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::ChangeKind;

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
