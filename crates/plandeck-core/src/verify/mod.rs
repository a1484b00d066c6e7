//! Verification: the approved plan against what the agent did after the approval
//! (docs/architecture.md §10).
//!
//! Facts only, no model call: the approval point (Plandeck's decision log, else the agent's own
//! record of it, through [`crate::history`]), the file-changing tool calls and the shell commands
//! the transcript records after it ([`facts`]), and the git changes in the session's worktree since
//! the approval ([`changes`]): commits plus uncommitted, against the HEAD at approval (from the
//! worktree's reflog) when known, else the merge base with the base branch. The plan file and
//! the files written while planning are not work.
//!
//! The approved text is split into steps ([`steps`]); each step names paths, symbols and commands;
//! [`judge`] gives each step `done` / `partial` / `missing` / `unverifiable` with its evidence. A
//! step is never `done` without a change or a command that shows it. Changed files no step names
//! are `unplanned`. A person may override a step's status with a note ([`overrides`], kept in
//! Plandeck's store). [`agent_report_text`] is what goes back to the agent (the Claude Code `Stop`
//! hook in [`stop_hook`], or "Send report to agent" in the window).

pub mod changed_diff;
pub mod changes;
pub mod facts;
pub mod install;
pub mod judge;
pub mod overrides;
mod send;
pub mod steps;
pub mod stop_hook;
mod text;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::agents::Agent;
use crate::config::Roots;
use crate::ipc::{ErrorKind, IpcError};

pub use changed_diff::changed_file_diff;
pub use judge::{clear_override, set_override};
pub use send::{report_text, send_report};
pub use text::{agent_report_text, needs_work};

/// A step's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum StepStatus {
    /// Everything the step names was changed or run (with evidence for each).
    Done,
    /// Some of what it names was changed or run, not all.
    Partial,
    /// Nothing it names was touched.
    Missing,
    /// It names nothing concrete (no path, file name, symbol or command) to check.
    Unverifiable,
}

impl StepStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            StepStatus::Done => "done",
            StepStatus::Partial => "partial",
            StepStatus::Missing => "missing",
            StepStatus::Unverifiable => "unverifiable",
        }
    }
}

impl std::fmt::Display for StepStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for StepStatus {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "done" => Ok(StepStatus::Done),
            "partial" => Ok(StepStatus::Partial),
            "missing" => Ok(StepStatus::Missing),
            "unverifiable" => Ok(StepStatus::Unverifiable),
            _ => Err(format!(
                "unknown status {s:?}: expected done, partial, missing or unverifiable"
            )),
        }
    }
}

/// What a step names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum NameKind {
    /// A path or a file name (`src/api.rs`, `README.md`).
    Path,
    /// A symbol in a code span (`paginate`, `Cursor::next`).
    Symbol,
    /// A command in a code span (`cargo test`, `npm run build`).
    Command,
}

/// One thing a step names, and whether the facts after approval touched it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Named {
    pub kind: NameKind,
    pub value: String,
    /// Changed (a path, or a symbol in a changed hunk) or run (a command) after approval.
    pub touched: bool,
    /// Why it cannot be checked (a path outside the repository), if so.
    pub note: Option<String>,
}

pub use crate::agents::records::tools::ChangeKind;

/// Where a change was seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum ChangeSource {
    /// In the worktree's git changes since the base.
    Git,
    /// In a file-changing tool call of the transcript after approval.
    Tool,
}

/// One piece of evidence for a step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Evidence {
    /// A file-changing tool call after approval (Claude `Edit`/`Write`/`MultiEdit`/`NotebookEdit`,
    /// Gemini `write_file`/`replace`, Codex `apply_patch`).
    #[serde(rename_all = "camelCase")]
    ToolCall {
        /// The agent's tool name.
        tool: String,
        /// The file, relative to the worktree when inside it.
        file: String,
        at: Option<String>,
        /// The transcript line (1-based) of the call.
        record_line: u32,
        /// The tool reported an error (the change may not have happened).
        failed: bool,
    },
    /// A git change since the base.
    #[serde(rename_all = "camelCase")]
    GitChange {
        file: String,
        change: ChangeKind,
        /// The hunk header (`@@ -1,3 +1,4 @@ fn x`) where a named symbol appears, if any.
        hunk: Option<String>,
    },
    /// A shell command after approval and its result.
    #[serde(rename_all = "camelCase")]
    Command {
        command: String,
        /// `null` when the transcript holds no result (yet).
        success: Option<bool>,
        exit_code: Option<i32>,
        at: Option<String>,
        record_line: u32,
    },
    /// Something the step names that nothing after approval touched.
    #[serde(rename_all = "camelCase")]
    NotTouched { name: String, name_kind: NameKind },
}

/// A person's override of a step's status, kept in Plandeck's store.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct StepOverride {
    pub status: StepStatus,
    pub note: String,
    /// When, RFC 3339 UTC.
    pub at: String,
    /// The OS user who overrode it.
    pub by: String,
}

/// One step of the approved plan and its verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct StepReport {
    /// 1-based, in plan order.
    pub index: u32,
    /// The step's text on one line (nested items joined), cut to a readable length.
    pub text: String,
    /// 1-based line of the step in the approved text.
    pub line: u32,
    pub names: Vec<Named>,
    /// The status shown: the override's when there is one, else the computed one.
    pub status: StepStatus,
    /// The status the facts give.
    pub computed_status: StepStatus,
    /// A step about tests (it names a test command or says "test").
    pub test: bool,
    pub evidence: Vec<Evidence>,
    #[serde(rename = "override")]
    #[ts(rename = "override")]
    pub overridden: Option<StepOverride>,
}

/// A changed file since the approval.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ChangedFile {
    /// Relative to the worktree (absolute when outside it: a tool call wrote there).
    pub path: String,
    pub change: ChangeKind,
    /// The old path of a renamed file.
    pub from: Option<String>,
    pub additions: u32,
    pub deletions: u32,
    pub binary: bool,
    /// Where the change was seen.
    pub sources: Vec<ChangeSource>,
}

/// A test command run after approval.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TestRun {
    pub command: String,
    /// `null` when the transcript holds no result (yet).
    pub passed: Option<bool>,
    pub exit_code: Option<i32>,
    pub at: Option<String>,
    pub record_line: u32,
}

/// A commit since the base.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CommitSummary {
    pub id: String,
    pub summary: String,
    /// Commit time, RFC 3339 UTC.
    pub at: Option<String>,
}

/// Where the approval was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum ApprovalSource {
    /// Plandeck's decision log.
    Plandeck,
    /// The agent's own record (Claude `ExitPlanMode` result, Gemini's, Codex's next turn).
    Transcript,
}

/// The approval the report counts from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalPoint {
    pub source: ApprovalSource,
    /// RFC 3339 UTC.
    pub at: Option<String>,
    /// The worktree's HEAD at that time (from its reflog), when known.
    pub head_at_approval: Option<String>,
    /// SHA-256 of the approved text.
    pub text_hash: String,
    /// Where the person decided (Plandeck, the terminal, a hook…), when the records say.
    pub decided_in: Option<crate::history::DecidedIn>,
}

/// The session the plan belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionRef {
    pub agent: Agent,
    pub id: String,
    pub cwd: Option<String>,
    pub transcript: Option<String>,
}

/// What the git changes are counted against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum BaseKind {
    /// The worktree's HEAD at approval.
    ApprovalHead,
    /// The merge base of HEAD with the base branch.
    MergeBase,
    /// No base: no worktree, or no commit to compare with.
    None,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct BaseRef {
    pub kind: BaseKind,
    pub commit: Option<String>,
    /// The branch the merge base was taken with (`kind: mergeBase`).
    pub branch: Option<String>,
}

/// How many steps have each status (the shown status).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct StatusCounts {
    pub done: u32,
    pub partial: u32,
    pub missing: u32,
    pub unverifiable: u32,
}

/// The verification of one approved plan. The CLI's `--json` prints it as is (fields are added,
/// never renamed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct VerifyReport {
    /// The plan's id.
    pub plan: String,
    pub plan_path: Option<String>,
    pub title: String,
    pub agent: Agent,
    /// When the plan was approved (RFC 3339 UTC); `null` when no approval is on record.
    pub approved_at: Option<String>,
    pub approval: Option<ApprovalPoint>,
    pub session: Option<SessionRef>,
    /// The worktree (or repository) the changes were read in.
    pub worktree: Option<String>,
    pub base: BaseRef,
    pub steps: Vec<StepReport>,
    /// Changed files no step names.
    pub unplanned: Vec<ChangedFile>,
    /// Test commands run after approval.
    pub tests: Vec<TestRun>,
    /// Every changed file since the approval (git and tool calls), plan file excluded.
    pub changes: Vec<ChangedFile>,
    /// Commits since the base, oldest first.
    pub commits: Vec<CommitSummary>,
    /// What the facts could not tell, in sentences (bad input, rewritten history…).
    pub notes: Vec<String>,
    pub counts: StatusCounts,
    /// Hex SHA-256 of [`agent_report_text`]: the same for the same findings.
    pub report_hash: String,
}

/// A changed file's two sides, for the window's diff (unified and side by side).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct FileDiff {
    pub path: String,
    /// The file at the base (`null`: added, or no base).
    pub old: Option<String>,
    /// The file in the worktree now (`null`: deleted).
    pub new: Option<String>,
    /// One side is not UTF-8 text (or too large): no text is given.
    pub binary: bool,
    /// Why a side is not shown (outside the worktree, too large…), if so.
    pub note: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error("No plan {0:?}: no plan file or transcript has a plan with that id or path.")]
    Unknown(String),
    #[error("{0:?} is not a plan id")]
    BadId(String),
    #[error("{path} is not among the changed files of this report")]
    NotChanged { path: String },
    #[error("step {index} does not exist (the plan has {count} steps)")]
    NoStep { index: u32, count: u32 },
    #[error("{0}")]
    BadInput(String),
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("git: {0}")]
    Git(String),
    #[error(transparent)]
    Write(#[from] crate::durable::WriteError),
    #[error(transparent)]
    History(#[from] crate::history::HistoryError),
}

impl From<VerifyError> for IpcError {
    fn from(e: VerifyError) -> Self {
        let kind = match &e {
            VerifyError::Unknown(_)
            | VerifyError::NotChanged { .. }
            | VerifyError::NoStep { .. } => ErrorKind::NotFound,
            VerifyError::BadId(_) | VerifyError::BadInput(_) => ErrorKind::BadInput,
            VerifyError::Read { .. } | VerifyError::Write(_) => ErrorKind::Io,
            VerifyError::Git(_) => ErrorKind::Git,
            VerifyError::History(_) => ErrorKind::Internal,
        };
        if let VerifyError::History(h) = e {
            return IpcError::from(h);
        }
        IpcError::new(kind, e.to_string())
    }
}

/// The verification report of the plan `plan` (a plan id, or a plan file's path).
pub fn report(roots: &Roots, plan: &str) -> Result<VerifyReport, VerifyError> {
    judge::report(roots, plan)
}

/// [`report`] for the window: by id only.
pub fn report_by_id(roots: &Roots, id: &str) -> Result<VerifyReport, IpcError> {
    check_id(id)?;
    Ok(report(roots, id)?)
}

/// The report of the newest approved plan of the session `session_id` of `agent`, if it has one.
pub fn report_for_session(
    roots: &Roots,
    agent: Agent,
    session_id: &str,
) -> Result<Option<VerifyReport>, VerifyError> {
    judge::report_for_session(roots, agent, session_id)
}

/// The two sides of a changed file of `report`: at the base and in the worktree now. Only files
/// the report lists as changed are read.
pub fn file_diff(report: &VerifyReport, path: &str) -> Result<FileDiff, VerifyError> {
    changes::file_diff(report, path)
}

/// The window names plans by the ids it was given, never by path.
pub fn check_id(id: &str) -> Result<(), VerifyError> {
    if id.is_empty() || id.len() > 64 || !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    {
        return Err(VerifyError::BadId(id.to_owned()));
    }
    Ok(())
}

/// TypeScript declarations of the types this module sends over IPC.
pub(crate) fn ts_declarations() -> Vec<String> {
    vec![
        <StepStatus as TS>::decl(),
        <NameKind as TS>::decl(),
        <Named as TS>::decl(),
        <ChangeKind as TS>::decl(),
        <ChangeSource as TS>::decl(),
        <Evidence as TS>::decl(),
        <StepOverride as TS>::decl(),
        <StepReport as TS>::decl(),
        <ChangedFile as TS>::decl(),
        <TestRun as TS>::decl(),
        <CommitSummary as TS>::decl(),
        <ApprovalSource as TS>::decl(),
        <ApprovalPoint as TS>::decl(),
        <SessionRef as TS>::decl(),
        <BaseKind as TS>::decl(),
        <BaseRef as TS>::decl(),
        <StatusCounts as TS>::decl(),
        <VerifyReport as TS>::decl(),
        <FileDiff as TS>::decl(),
    ]
}

#[cfg(test)]
mod tests;
