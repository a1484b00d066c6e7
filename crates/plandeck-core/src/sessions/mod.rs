//! Agent sessions from transcripts and registries, and their state.
//!
//! Every agent session on the machine, found from the agents' own files (docs/architecture.md §2):
//! - Claude Code: transcripts `<claude>/projects/<cwd-mangled>/<sessionId>.jsonl` (the session id
//!   is the file name; subagent transcripts under `<sessionId>/subagents/` count as the session's
//!   activity), the registry `<claude>/sessions/<pid>.json` of running CLIs, task lists
//!   `<claude>/tasks/<sessionId>/*.json`, plans `<claude>/plans/<slug>.md` or the `planFilePath` of
//!   the session's `ExitPlanMode` call.
//! - Gemini CLI: chat logs `<gemini>/tmp/<slug>/chats/session-*.jsonl`, the project from
//!   `projects.json` or `tmp/<slug>/.project_root`, plans `tmp/<slug>/<sessionId>/plans/`.
//! - Codex CLI: rollouts `<codex>/sessions/YYYY/MM/DD/rollout-*.jsonl`.
//!
//! Reading is by byte offset ([`transcript`]): a cold [`SessionIndex::open`] reads a small head of
//! each transcript (cwd, first prompt) and its tail (16 KiB, widened up to 8 MiB only while the
//! tail holds no user/assistant record), never whole files; [`SessionIndex::apply`] then reads only
//! the bytes appended since. Facts that only the middle of a long file holds (a permission mode
//! set long ago and not repeated) come from the head instead; `unreadableLines` counts damaged
//! lines among the bytes read (the tail and everything appended since).
//!
//! # State rules (from facts only, first match wins)
//! With a Claude Code registry entry (`sessions/<pid>.json`) for the session:
//! 1. its pid is not alive (no `/proc/<pid>`, or a different process start time than the entry's
//!    `procStart`) → `crashed` (the CLI removes its entry on a clean exit, so a stale one means it
//!    died);
//! 2. an `ExitPlanMode` call with no `tool_result` for its id yet, made since the CLI started
//!    (the entry's `startedAt`: a resumed session's old card is not on screen) →
//!    `waiting_for_approval`;
//! 3. registry `status`: `waiting` → `waiting_for_input` (a permission prompt or a question),
//!    `busy` → `working`, `idle` → `idle`; any other status → from the last records as below.
//!
//! A Claude Code session whose registry entry was removed while the index watched (the CLI
//! removes it when it exits: `/exit`, Stop, a killed tmux session) → `ended`, whatever its last
//! records say, until an entry names it again. A session Plandeck started whose agent process is
//! gone is `ended` too, at listing time (`control::mark_exited`).
//!
//! With no registry entry (every Gemini and Codex session; a Claude session whose CLI exited):
//! 1. activity in the last 10 minutes → from the last records: a pending plan approval
//!    (`ExitPlanMode`, Gemini `exit_plan_mode` toolCall with no result and no later
//!    `functionResponse`) → `waiting_for_approval`; a pending question (`AskUserQuestion`,
//!    `ask_user`, a Codex approval request) → `waiting_for_input`; a turn under way (a prompt, a
//!    tool call or tool result last) → `working`; an ended turn (final answer, `turn_duration`,
//!    "[Request interrupted…]", Gemini "Request cancelled.", Codex `task_complete`) → `idle`;
//! 2. the last records left a turn unfinished and the last activity is under 2 hours old →
//!    `unknown` (the UI says "no news since hh:mm": a process may still be waiting, or be gone);
//! 3. otherwise → `ended`. No timestamp at all → `unknown`.
//!
//! Sorted: waiting for approval, waiting for input, then live states (crashed, working, idle,
//! unknown), then ended; most recent activity first within each.

pub(crate) mod index;

// The agents' readers and the vocabulary they share live with the agents
// (`crate::agents::records`); these names keep the paths other modules still use.
pub(crate) use crate::agents::claude::records as claude;
pub(crate) use crate::agents::codex::records as codex;
pub(crate) use crate::agents::gemini::records as gemini;
pub use crate::agents::records::{plan_events, state, transcript, TaskProgress};

#[cfg(test)]
mod prop_tests;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::agents::Agent;
use crate::config::Roots;
use crate::plan_state::ReviewState;

pub(crate) use crate::agents::records::{pid_alive, RegistryFile};
pub use index::{sort, OpenStats, SessionIndex};
pub use state::SessionState;

/// One session as the UI and `plandeck sessions list --json` show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionSummary {
    pub agent: Agent,
    pub session_id: String,
    /// The working directory the records name ("" when no record read named one).
    pub cwd: String,
    pub state: SessionState,
    /// plan / default / acceptEdits / auto / bypassPermissions … (Codex: its approval policy).
    pub permission_mode: Option<String>,
    pub plan_path: Option<String>,
    /// The worktree the session works in now (`worktree-state`), if any.
    pub worktree: Option<String>,
    /// RFC 3339, UTC: the latest record or registry update.
    pub last_activity: Option<String>,
    pub git_branch: Option<String>,
    pub tmux_pane: Option<String>,
    pub pid: Option<u32>,
    pub version: Option<String>,
    pub model: Option<String>,
    /// The registry's name for the session (Claude Code), if any.
    pub name: Option<String>,
    /// The first prompt, on one line, cut to 100 characters.
    pub title: Option<String>,
    /// What the agent did last, on one line (its last tool call or the start of its last
    /// message), from its records; cut to 100 characters.
    #[serde(default)]
    pub doing: Option<String>,
    pub unreadable_lines: u32,
    pub tasks: Option<TaskProgress>,
    pub transcript_path: Option<String>,
    /// The review state of its plan.
    pub review_state: Option<ReviewState>,
    /// The machine this is on (`plandeck hosts`), named by its rows in the window; `null`: this one.
    #[serde(default)]
    pub machine: Option<String>,
    /// Tokens (and cost where known) from the agent's own records, where they carry them.
    #[serde(default)]
    pub usage: Option<SessionUsage>,
}

/// A session's tokens and cost (`sessions list --json`'s `usage`; ACP sessions fill the same
/// fields from `usage_update`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionUsage {
    /// Input tokens, cache reads and writes included.
    #[ts(type = "number")]
    pub input_tokens: u64,
    /// Output tokens, reasoning included.
    #[ts(type = "number")]
    pub output_tokens: u64,
    /// In US dollars, where the records tell it (Claude Code's `cost-state`); else null.
    pub cost_usd: Option<f64>,
    /// Counted from part of the records (a large transcript's middle is not read): at least this.
    #[serde(default)]
    pub partial: bool,
}

impl From<&crate::agents::records::state::Usage> for SessionUsage {
    fn from(u: &crate::agents::records::state::Usage) -> Self {
        SessionUsage {
            input_tokens: u.input_tokens,
            output_tokens: u.output_tokens,
            cost_usd: u.cost_usd,
            partial: u.partial,
        }
    }
}

/// How far the session index has read (the `sessions:progress` event): `read` of `total`
/// transcripts; `ready` once every session is in the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct IndexProgress {
    pub read: u32,
    pub total: u32,
    pub ready: bool,
}

impl IndexProgress {
    pub fn new(read: usize, total: usize, ready: bool) -> Self {
        let cap = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        Self {
            read: cap(read),
            total: cap(total),
            ready,
        }
    }
}

/// What sessions tell about worktrees: where a session works, and the commit its worktree started
/// from when a `worktree-state` record gave it. Used by [`crate::worktrees`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WorktreeHint {
    pub session_id: String,
    /// The session's working directory (a repository, or a worktree of one).
    pub cwd: PathBuf,
    /// `worktreePath` of the last `worktree-state` record, when the session is in a worktree.
    pub worktree_path: Option<PathBuf>,
    /// `originalHeadCommit` of that record: the worktree's base.
    pub original_head_commit: Option<String>,
    /// `originalBranch` of that record.
    pub original_branch: Option<String>,
    /// The session's plan file, where it has one.
    pub plan_path: Option<PathBuf>,
    /// True when a live registry entry (`sessions/<pid>.json`) names this session.
    pub running: bool,
}

/// Folds one transcript line of `agent` into `facts` (what the index does with each line; public
/// for property tests and fuzzing).
pub fn feed_line(agent: Agent, facts: &mut state::Facts, line: &[u8]) {
    index::feed(agent, facts, line)
}

/// Every session, those that need the person first (one-shot, for the CLI).
pub fn list(roots: &Roots) -> Vec<SessionSummary> {
    SessionIndex::open(roots).sessions()
}

/// Every session's working directory and worktree facts.
pub fn worktree_hints(roots: &Roots) -> Vec<WorktreeHint> {
    SessionIndex::open(roots).worktree_hints()
}

/// Reading problems worth a log line; never fatal to the index.
#[derive(Debug, thiserror::Error)]
pub enum SessionsError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl From<SessionsError> for crate::ipc::IpcError {
    fn from(e: SessionsError) -> Self {
        crate::ipc::IpcError::new(crate::ipc::ErrorKind::Io, e.to_string())
    }
}

/// TypeScript declarations of the types this module sends over IPC.
pub(crate) fn ts_declarations() -> Vec<String> {
    vec![
        <SessionState as TS>::decl(),
        <TaskProgress as TS>::decl(),
        <SessionSummary as TS>::decl(),
        <SessionUsage as TS>::decl(),
        <IndexProgress as TS>::decl(),
    ]
}
