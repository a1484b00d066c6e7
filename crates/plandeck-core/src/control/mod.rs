//! Session control: starting an agent in a new worktree in the person's own tmux, and steering a
//! running one (issue 25). Everything typed goes through the gate's checked typing path
//! ([`crate::terminal::Target::verify`] before every key), and every refusal says why.
//!
//! - [`start`]: a worktree (branch named from the name, off a base), the agent CLI in a new tmux
//!   session of the person's default server (no `-L`; `TMUX_TMPDIR` is respected) named
//!   `<repo>-<worktree>-<agent>` (made unique), in plan mode when asked, with the first prompt as
//!   the CLI's own argument. What was started is recorded (`<data>/started/<tmux session>.json`) so
//!   it can be steered by its tmux session name or its session id. A start that fails leaves
//!   nothing behind: the worktree and branch it created are removed.
//! - [`send_message`]: only while the agent waits for input with an empty input box.
//! - [`interrupt`]: the agent's own key (Esc for all three CLIs).
//! - [`stop_preview`] → [`stop`]: ends only the agent's own process (and its process group when
//!   every member is the agent or one of its children), listed first; the token refuses a change.
//! - [`resume`]: an ended session again, in its folder, in a new tmux session.
//! - [`open_in_terminal`]: `tmux attach` in the person's terminal emulator.

mod record;
mod start;
mod steer;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::agents::Agent;
use crate::gate::{HookPreview, SendError};
use crate::ipc::{ErrorKind, IpcError};
use crate::terminal::TerminalError;

pub use record::{exited, fill_started, mark_exited, Record};
pub use start::{
    agent_program, check_tmux, start, start_acp, worktree_dir, AcpStartAsked, TMUX_MIN,
};
pub(crate) use steer::send_to;
pub use steer::{
    acp_stop_preview, interrupt, open_in_terminal, resolve, resume, send_message, stop,
    stop_preview, Steerable,
};

/// What to start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct StartRequest {
    pub agent: Agent,
    /// The repository (its working folder) on this machine.
    pub repo: String,
    /// A new worktree's name: its branch is named so; `None` starts in the repository itself.
    pub worktree: Option<String>,
    /// The new branch's base (a branch, tag or commit); `None`: the repository's HEAD.
    pub base: Option<String>,
    /// Start in the agent's plan mode.
    pub plan: bool,
    /// The first prompt, given to the CLI as its own argument.
    pub prompt: Option<String>,
}

/// A session started (or resumed) in tmux.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Started {
    pub agent: Agent,
    /// The tmux session, on the person's default server: `tmux attach -t <it>`.
    pub tmux_session: String,
    /// The pane the agent runs in (`%3`).
    pub pane: String,
    /// The agent's process (the pane's first process).
    pub pid: u32,
    /// Where it runs: the new worktree, else the repository.
    pub cwd: String,
    /// The worktree created for it, if any, and its branch.
    pub worktree: Option<String>,
    pub branch: Option<String>,
    /// The agent's session id when known at start (Claude Code and Gemini CLI are given one);
    /// Codex CLI names its session when it writes its rollout: until then steer it by
    /// `tmux_session`.
    pub session_id: Option<String>,
    /// How the session is found when `session_id` is none.
    pub found_by: String,
    pub plan: bool,
    /// The command that attaches to it from any terminal.
    pub attach: String,
    /// The agent's plan hook when it is not installed: its plan would not wait in Plandeck's
    /// queue; the window offers it (shown first, as Settings does).
    pub hook: Option<HookPreview>,
}

/// What stopping a session would end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct StopPreview {
    /// The session as it was asked for.
    pub id: String,
    pub agent: Agent,
    /// The agent's process and its command line.
    pub pid: u32,
    pub command: String,
    /// Every process that would be ended (the agent first, then its own children in its group).
    pub processes: Vec<ProcessLine>,
    /// Names exactly what is listed; stopping proceeds only while it still holds.
    pub token: String,
}

/// One process, as a person reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ProcessLine {
    pub pid: u32,
    pub command: String,
}

/// What a stop ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct StopOutcome {
    pub ended: Vec<u32>,
    pub message: String,
}

/// Why a start or a steer did nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ControlError {
    #[error("{path} is not a git repository: pick the repository's folder")]
    NotARepository { path: String },
    #[error("{name:?} cannot name a worktree: {why}")]
    BadWorktreeName { name: String, why: String },
    #[error("a branch named {branch:?} already exists in {repo}: pick another worktree name")]
    BranchExists { branch: String, repo: String },
    #[error("{path} already exists: pick another worktree name")]
    WorktreeExists { path: String },
    #[error("the base {base:?} is not a branch, tag or commit of {repo}")]
    UnknownBase { base: String, repo: String },
    #[error("{agent} cannot be started here: {program:?} is not on the PATH (install it, or put it on the PATH of the program that starts Plandeck)")]
    AgentNotInstalled { agent: String, program: String },
    #[error("{agent} is not an agent Plandeck can start")]
    NotStartable { agent: String },
    #[error("tmux is not installed (not on the PATH): Plandeck starts agents in tmux; install tmux {TMUX_MIN} or newer")]
    TmuxMissing,
    #[error("tmux {version} is too old: Plandeck needs tmux {TMUX_MIN} or newer")]
    TmuxTooOld { version: String },
    #[error("tmux could not start the session: {message}")]
    TmuxFailed { message: String },
    #[error("{agent} exited right after it started (its pane shows why: {last}){undone}")]
    AgentExited {
        agent: String,
        last: String,
        /// What was undone because of it (the worktree a start made), or empty.
        undone: String,
    },
    #[error("tmux started the agent in {got:?}, not in its folder {folder:?}: it was stopped, and nothing runs there")]
    WrongFolder { folder: String, got: String },
    #[error("git: {message}")]
    Git { message: String },
    #[error("no session {id} that Plandeck can steer: it steers sessions it started (by tmux session name or session id), live Claude Code sessions in tmux and running Codex TUIs in tmux")]
    NotSteerable { id: String },
    #[error("session {id} has ended; resume it instead")]
    Ended { id: String },
    #[error("{id:?} is not a session id Plandeck resumes: {why}; nothing was started")]
    BadSessionId { id: String, why: String },
    #[error("session {id} still runs (pid {pid}): it is not resumed twice")]
    StillRunning { id: String, pid: u32 },
    #[error("the agent in tmux pane {pane} is not waiting for input ({why}); nothing was typed")]
    NotWaiting { pane: String, why: String },
    #[error("the agent's input box in tmux pane {pane} holds text someone is typing ({draft:?}): the message would be sent glued to it. Send or clear it, then send again. Nothing was typed")]
    Draft { pane: String, draft: String },
    #[error("pid {pid} ({command}) is not {agent}'s own process: Plandeck ends only the agent it can name; nothing was ended")]
    NotAgentProcess {
        pid: u32,
        command: String,
        agent: String,
    },
    #[error("what would be ended changed since it was listed (now: {now}); list it again. Nothing was ended")]
    StopChanged { now: String },
    #[error("no terminal emulator found: set $TERMINAL (or install x-terminal-emulator), or run `{attach}` in a terminal")]
    NoTerminal { attach: String },
    #[error("{message}")]
    Io { message: String },
    #[error(transparent)]
    Send(#[from] SendError),
    #[error(transparent)]
    Terminal(#[from] TerminalError),
}

impl From<ControlError> for IpcError {
    fn from(e: ControlError) -> Self {
        use ControlError as E;
        let kind = match &e {
            E::NotARepository { .. }
            | E::BadWorktreeName { .. }
            | E::UnknownBase { .. }
            | E::NotStartable { .. }
            | E::BadSessionId { .. } => ErrorKind::BadInput,
            E::BranchExists { .. } | E::WorktreeExists { .. } | E::StopChanged { .. } => {
                ErrorKind::Conflict
            }
            E::AgentNotInstalled { .. }
            | E::TmuxMissing
            | E::TmuxTooOld { .. }
            | E::NoTerminal { .. } => ErrorKind::Unsupported,
            E::NotSteerable { .. } | E::Ended { .. } => ErrorKind::NotFound,
            E::Git { .. } => ErrorKind::Git,
            E::Io { .. } => ErrorKind::Io,
            E::TmuxFailed { .. } | E::AgentExited { .. } | E::WrongFolder { .. } => {
                ErrorKind::Internal
            }
            E::Send(s) => return IpcError::from(s.clone()),
            E::Terminal(TerminalError::Tmux { .. }) => ErrorKind::Internal,
            _ => ErrorKind::Refused,
        };
        IpcError::new(kind, e.to_string())
    }
}

/// The TypeScript declarations of this module's IPC types.
pub fn ts_declarations() -> Vec<String> {
    vec![
        <StartRequest as TS>::decl(),
        <Started as TS>::decl(),
        <StopPreview as TS>::decl(),
        <ProcessLine as TS>::decl(),
        <StopOutcome as TS>::decl(),
        <AcpStartAsked as TS>::decl(),
    ]
}

#[cfg(test)]
mod prop_tests;
#[cfg(test)]
mod tests;
