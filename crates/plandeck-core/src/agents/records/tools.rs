//! What verification reads of a transcript, in the words of every agent: the file-changing tool
//! calls and shell commands with their results ([`TranscriptFacts`]). Each agent's reader
//! ([`super::Records::tool_lines`]) fills them in through a [`ToolReader`].

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// How a file changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum ChangeKind {
    Added,
    Modified,
    Deleted,
    Renamed,
}

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

/// Tool calls and commands as a transcript's lines are read, matched with their results by call
/// id.
#[derive(Debug, Default)]
pub struct ToolReader {
    /// The line being read (1 for the first).
    pub line: u32,
    pub facts: TranscriptFacts,
    /// Call id → index in `facts.writes` / `facts.commands`.
    pub write_of: HashMap<String, usize>,
    pub command_of: HashMap<String, usize>,
}

impl ToolReader {
    pub fn push_write(&mut self, id: &str, w: ToolWrite) {
        if !id.is_empty() {
            self.write_of.insert(id.to_owned(), self.facts.writes.len());
        }
        self.facts.writes.push(w);
    }

    pub fn push_command(&mut self, id: &str, command: String, at: Option<String>) {
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
pub fn exit_code_after(text: &str, marker: &str) -> Option<i32> {
    let at = text.find(marker)? + marker.len();
    let digits: String = text[at..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '-')
        .collect();
    digits.parse().ok()
}
