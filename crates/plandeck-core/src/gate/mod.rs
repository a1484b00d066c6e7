//! The gate: a plan waiting for approval in an agent's terminal becomes a request in Plandeck, and
//! the reviewer's decision reaches the live agent (docs/architecture.md §4).
//!
//! How the parts meet:
//! - Each agent's hook lives in its folder (`agents/claude/hook.rs`, `agents/gemini/hook.rs`,
//!   re-exported here as [`hook_claude`] / [`hook_gemini`]) and runs inside `plandeck hook …`,
//!   started by the agent CLI. It files a request in the [`store`] (`<data>/gate/requests/<id>.json`,
//!   written through [`files`]); the Claude hook then waits for a decision file, the transcript
//!   showing the terminal's answer, the deadline, or the app going away. The Gemini hook returns
//!   at once (its card waits for the hook).
//! - The app (or `plandeck pending` / `approve` / `reject`) lists requests with [`pending`] (which
//!   only reads; [`close_ended`] files away those the terminal answered or whose agent is gone) and
//!   answers with [`decide`] ([`delivery`]): the decision [`claim`]s its request, reads its plan
//!   once, and reaches the agent the way its driver ([`crate::agents::Driver`]) says: through its
//!   waiting hook ([`hook_answer`]: `deny`, or `allow` with the (edited) plan, never keys), by the
//!   keys of its approval card (each choice typed as the key of the row its label is on), or as a
//!   message typed in its composer ([`typing`], the one module that types into an agent's
//!   terminal).
//! - The app holds an [`AppPresence`] ([`app_heartbeat`]) while it runs, so a hook can tell that
//!   nobody is there to decide and step aside at once.
//! - Codex CLI has no hook for its plans: [`look_codex`] (the app's gate tick, `plandeck pending`)
//!   files a request for a plan popup on screen from the session's rollout, and closes it when
//!   the person answers the popup in the terminal (`agents/codex/server_threads.rs`).
//! - A Claude Code card that waits with no hook (the hook stepped aside when Plandeck stopped or
//!   its deadline passed) is filed the same way by [`look_claude_cards`], and answered by the
//!   card's keys (`agents/claude/card.rs`).
//! - [`install`] merges the hook commands into the agents' settings, and takes them out again.
//!
//! Whatever answers first wins: the terminal, the hook's deadline, or the reviewer. A closed request
//! moves to `done/` with how it ended; nothing is deleted silently.

mod acp_delivery;
pub(crate) mod claim;
pub(crate) mod delivery;
mod files;
mod hook_answer;
pub(crate) mod hook_wait;
pub(crate) mod install;
pub(crate) mod pane;
mod reached;
pub(crate) mod store;
pub mod teams;
#[cfg(test)]
mod tests;
pub(crate) mod transcript;
mod typing;

// Each agent's own part of the gate lives in its folder (`agents/<agent>/`); these keep the
// gate's paths for its callers.
pub use crate::agents::claude::team_hook as hook_team;
pub(crate) use crate::agents::codex::server_threads as codex;

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::agents::Agent;
use crate::ipc::{ErrorKind, IpcError};
pub use crate::review::Delivery;

pub use crate::agents::claude::card::{look as look_claude_cards, ClaudeCardLook};
pub use crate::agents::claude::hook::hook_claude;
pub use crate::agents::claude::team_hook::hook_claude_team;
pub use crate::agents::codex::server_threads::{look as look_codex, CodexLook};
pub use crate::agents::gemini::hook::hook_gemini;
pub(crate) use delivery::card_visible;
pub use delivery::{decide, decide_demo, decide_with, open_comments, DeliveryOptions};
pub use install::{
    hook_command, hook_preview, install, install_if_unchanged, install_plan, install_plan_with,
    install_with, uninstall, uninstall_if_unchanged, uninstall_plan, HookPreview, InstallPlan,
    InstallReport, CLAUDE_HOOK_TIMEOUT_SECS, GEMINI_HOOK_TIMEOUT_MS,
};
pub(crate) use pane::{from_process as pane_of_process, normalize_pane};
pub(crate) use store::new_id;
pub use store::{app_gone, app_heartbeat, app_running, close_ended, pending, request, AppPresence};
pub use transcript::{Answer, Answerer};
pub(crate) use typing::type_checked;
pub use typing::{send_to_session, send_to_target, session_target, SendError};

/// The window's title: "Plandeck", or "Plandeck (2 waiting)" while plans wait for the reviewer
/// (`pending`, as [`pending`] lists them: the count the waiting queue shows).
pub fn window_title(pending: &[GateRequest]) -> String {
    match pending.len() {
        0 => "Plandeck".to_owned(),
        n => format!("Plandeck ({n} waiting)"),
    }
}

/// The most characters of outside words a desktop notification shows (a project's name).
pub const NOTICE_CHARS: usize = 80;

/// Outside words (a folder's name, another machine's) as a desktop notification may show them:
/// one line (line breaks and separators become spaces), every character a person cannot see
/// marked ([`crate::visible::shown`]), markup escaped (notification daemons read `<b>`, `<a>` and
/// `&…;`), at most `max` characters (then `…`).
pub fn notice_text(text: &str, max: usize) -> String {
    let one_line: String = text
        .chars()
        .map(|c| match c {
            '\n' | '\r' | '\u{0b}' | '\u{0c}' | '\u{85}' | '\u{2028}' | '\u{2029}' => ' ',
            c => c,
        })
        .collect();
    let shown = crate::visible::shown(&one_line);
    let mut out = String::new();
    for (n, c) in shown.chars().enumerate() {
        if n == max {
            out.push('…');
            break;
        }
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The desktop notification of a request that arrived: its title and body. Another machine's
/// says so first, in both (its name is always seen, never pushed off by what the remote wrote):
/// "box: a plan is waiting", "On box: Claude Code in api waits for your decision."
pub fn arrival_notice(request: &GateRequest) -> (String, String) {
    let project = std::path::Path::new(&request.cwd)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| request.cwd.clone());
    let project = notice_text(&project, NOTICE_CHARS);
    // An ACP session's request names its agent as the person named it in the catalog.
    let agent = match &request.acp {
        Some(acp) => notice_text(&acp.agent_name, 40),
        None => request.agent.display_name().to_owned(),
    };
    match &request.machine {
        Some(machine) => {
            let machine = notice_text(machine, 64);
            (
                format!("{machine}: a plan is waiting"),
                format!("On {machine}: {agent} in {project} waits for your decision."),
            )
        }
        None => (
            "A plan is waiting".to_owned(),
            format!("{agent} in {project} waits for your decision."),
        ),
    }
}

/// How long a Claude hook waits for a reviewer by default. Less than the hook timeout installed
/// ([`install::CLAUDE_HOOK_TIMEOUT_SECS`]), so Plandeck always steps aside before Claude Code
/// would kill the hook.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(10 * 60);

/// What a hook prints and how it exits. A pure result so tests call the hook in-process.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HookOutcome {
    pub stdout: String,
    pub stderr: String,
    pub exit_code: i32,
}

impl HookOutcome {
    pub(crate) fn quiet(stderr: impl Into<String>) -> Self {
        Self {
            stdout: String::new(),
            stderr: stderr.into(),
            exit_code: 0,
        }
    }
}

/// What the hook knows about the process that runs it. Defaults read the current process.
#[derive(Debug, Clone)]
pub struct HookOptions {
    /// How long to wait for a decision before stepping aside (Claude only).
    pub deadline: Duration,
    /// The hook's own pid, recorded so the app can tell a dead hook from a waiting one.
    pub hook_pid: u32,
    /// The agent CLI's pid (the hook's parent, or its parent when the hook runs through
    /// `sh -c`): its stdin is the pane's terminal.
    pub agent_pid: Option<u32>,
    /// `$TMUX` of the agent (`socket,pid,session`): names the tmux server of its pane.
    pub tmux_env: Option<String>,
}

impl Default for HookOptions {
    fn default() -> Self {
        let ppid = rustix::process::getppid().map(|p| p.as_raw_nonzero().get());
        Self {
            deadline: DEFAULT_DEADLINE,
            hook_pid: std::process::id(),
            agent_pid: ppid
                .and_then(|p| u32::try_from(p).ok())
                .filter(|p| *p > 1)
                .and_then(crate::terminal::agent_of_hook),
            tmux_env: std::env::var("TMUX").ok().filter(|v| !v.is_empty()),
        }
    }
}

/// Where a request stands. `Waiting` while it is in `requests/`; anything else once in `done/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum GateStatus {
    /// Filed, no answer yet.
    Waiting,
    /// An approval was decided in Plandeck and is on its way: given to the waiting hook (until the
    /// transcript shows Claude Code took it), typed on the card, or left for the terminal when
    /// Plandeck can do neither.
    Approving,
    /// Approved in Plandeck, and the agent took it.
    Approved,
    /// Rejected in Plandeck; the feedback reached the agent.
    Rejected,
    /// The person answered the card in the terminal first.
    AnsweredInTerminal,
    /// Nobody decided before the deadline; the agent's own prompt took over.
    Expired,
    /// Plandeck stopped while the hook waited; the agent's own prompt took over.
    AppStopped,
    /// The agent CLI went away without an answer.
    AgentGone,
}

/// One plan waiting for the reviewer, as stored in `<data>/gate/requests/<id>.json` and as sent to
/// the window and `plandeck pending --json` (`id`, `agent`, `sessionId`, `cwd`, `planPath`,
/// `waitingSince` are a contract).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct GateRequest {
    pub id: String,
    pub agent: Agent,
    pub session_id: String,
    pub cwd: String,
    /// The plan file the agent will read when the card is answered (absent if it was not found).
    pub plan_path: Option<String>,
    /// The plan's text as the agent submitted it.
    pub plan: String,
    /// The `ExitPlanMode` tool_use id (Claude), found in the transcript's tail.
    pub tool_use_id: Option<String>,
    pub transcript_path: Option<String>,
    /// Where in the transcript to look for the answer (bytes): the tool call's line, or the
    /// transcript's length when the request was filed.
    #[ts(type = "number")]
    pub transcript_offset: u64,
    /// The tmux pane of the agent (`%3`), when it runs in tmux.
    pub tmux_pane: Option<String>,
    /// The tmux server socket of that pane, when known from the agent's `$TMUX`.
    pub tmux_socket: Option<String>,
    /// When the hook filed it (RFC 3339).
    #[serde(with = "time::serde::rfc3339")]
    #[ts(type = "string")]
    pub waiting_since: time::OffsetDateTime,
    /// When the hook stops waiting (Claude; RFC 3339). Gemini requests wait for the terminal.
    #[serde(with = "time::serde::rfc3339")]
    #[ts(type = "string")]
    pub deadline: time::OffsetDateTime,
    pub hook_pid: u32,
    /// When the hook process started (`/proc/<pid>/stat` field 22), so that a pid reused by
    /// another program is never taken for the waiting hook.
    #[serde(default)]
    #[ts(type = "number | null")]
    pub hook_start_time: Option<u64>,
    pub agent_pid: Option<u32>,
    /// When the agent process started (`/proc/<pid>/stat` field 22), so that a pid reused by
    /// another program is never taken for the agent.
    #[serde(default)]
    #[ts(type = "number | null")]
    pub agent_start_time: Option<u64>,
    /// The agent runs headless (`claude -p` with a permission prompt handler, the Agent SDK):
    /// there is no card to answer, and the hook's first answer is final (the request closes as
    /// the hook answers).
    #[serde(default)]
    pub headless: bool,
    /// The approval was handed to the waiting hook (Claude Code), not typed: whether the agent
    /// took it, or the person answered the card first, is read from the transcript's answer.
    #[serde(default)]
    pub through_hook: bool,
    pub status: GateStatus,
    /// When it was closed (RFC 3339).
    #[serde(with = "time::serde::rfc3339::option")]
    #[ts(type = "string | null")]
    pub closed_at: Option<time::OffsetDateTime>,
    /// The decision taken in Plandeck, if any.
    pub decision: Option<GateDecision>,
    /// Who took that decision, for a person ("approve by the Plandeck window at 18:42:03 UTC").
    #[serde(default)]
    pub decided_by: Option<String>,
    /// The hash (as `plans show --json` gives it) of the plan the agent acts on once approved:
    /// the plan file as it is now, or the submitted text when there is no readable file. Filled
    /// in when requests are listed; a decision given it back ([`DeliveryOptions::seen_hash`]) is
    /// refused when the plan changed since.
    #[serde(default)]
    pub plan_hash: Option<String>,
    /// The text whose hash is `plan_hash`, when it is not `plan` (the plan file no longer holds
    /// the text the agent submitted): what the window shows and compares a later listing with.
    /// Filled in when requests are listed.
    #[serde(default)]
    pub plan_read: Option<String>,
    /// The machine this is on (`plandeck hosts`), named by its rows in the window; `null`: this one.
    #[serde(default)]
    pub machine: Option<String>,
    /// An approval decided now goes through the agent's waiting hook (Claude Code, in tmux or
    /// not: no pane is needed), never typed. Filled in when requests are listed.
    #[serde(default)]
    pub approves_through_hook: bool,
    /// The agent team of a teammate's plan (Claude Code agent teams: `session-1a2b3c4d`); `null`
    /// for a plan that is not a teammate's.
    #[serde(default)]
    pub team: Option<String>,
    /// The teammate's name in its team (`planner`), for a teammate's plan.
    #[serde(default)]
    pub teammate: Option<String>,
    /// The session of the team's lead, for a teammate's plan (the lead approves the plan once
    /// Plandeck let it through).
    #[serde(default)]
    pub lead_session_id: Option<String>,
    /// What it asks: `plan` (a plan to approve: every hook's and card's request) or `permission`
    /// (an ACP agent's tool: a command, an edit, a fetch).
    #[serde(default)]
    pub kind: RequestKind,
    /// An ACP session's request (issue 36): what the agent asked, as data, and the options it
    /// offered; `null` for a hook's or a card's. Its `hookPid` is the process hosting the session
    /// (the per-user server, or `plandeck agents check`), which answers the agent.
    #[serde(default)]
    pub acp: Option<AcpAsk>,
}

/// What a waiting request asks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum RequestKind {
    /// Leave plan mode: the plan, for the person to approve or reject.
    #[default]
    Plan,
    /// Run a tool (a command, an edit, a fetch): an ACP agent's permission request.
    Permission,
}

impl RequestKind {
    /// `plan` or `permission`, as listings say it.
    pub fn name(self) -> &'static str {
        match self {
            RequestKind::Plan => "plan",
            RequestKind::Permission => "permission",
        }
    }
}

/// One option an ACP agent offers for a permission request (its own words: shown as data).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AcpOption {
    pub option_id: String,
    #[serde(default)]
    pub name: String,
    /// `allow_once`, `allow_always`, `reject_once`, `reject_always` (others kept as sent).
    #[serde(default)]
    pub kind: String,
}

/// The change an ACP tool would make to a file (the tool call's first `diff`), bounded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AcpDiff {
    pub path: String,
    pub old_text: Option<String>,
    pub new_text: String,
}

/// An ACP agent's permission request as it waits in the gate's store: every word of it came
/// from the agent and is shown as data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AcpAsk {
    /// The ACP agent's name (`claude-acp`: `plandeck agents list`).
    pub agent_name: String,
    pub tool_call_id: String,
    /// The tool call's title, on one visible line (bounded).
    pub title: String,
    /// The tool call's kind as the agent sent it (`switch_mode`, `execute`, `edit`, …).
    pub tool_kind: Option<String>,
    /// A command the tool would run, on one visible line.
    pub command: Option<String>,
    /// The file a tool would touch.
    pub path: Option<String>,
    /// The change it would make to that file.
    #[serde(default)]
    pub diff: Option<AcpDiff>,
    /// The agent's options: a decision answers with one of these, never another.
    pub options: Vec<AcpOption>,
    /// The option a decision chose (written by the decider, read by the session's host).
    #[serde(default)]
    pub chosen: Option<String>,
}

impl AcpAsk {
    /// The option an approval answers with: `option` when it is one of the agent's allow options
    /// (else an error), or else the agent's narrowest: its "allow once". An approval that names no
    /// option (the phone's Approve, the queue's Approve or Edit, `plandeck approve`, whatever its
    /// mode) never answers "allow always": that widens what the agent may do from then on, and
    /// only the person's own pick of it (the window's option button) sends it. An agent offering
    /// no "allow once" is refused with its options named.
    pub fn allow_option(
        &self,
        option: Option<&str>,
        _mode: ApproveMode,
    ) -> Result<String, GateError> {
        let allows = |o: &&AcpOption| o.kind.starts_with("allow_");
        if let Some(id) = option {
            return self
                .options
                .iter()
                .filter(allows)
                .find(|o| o.option_id == id)
                .map(|o| o.option_id.clone())
                .ok_or_else(|| GateError::BadInput {
                    message: format!(
                        "the agent did not offer {:?} as a way to allow this request",
                        crate::visible::shown(&id.chars().take(80).collect::<String>())
                    ),
                });
        }
        if let Some(once) = self.options.iter().find(|o| o.kind == "allow_once") {
            return Ok(once.option_id.clone());
        }
        let wider: Vec<String> = self
            .options
            .iter()
            .filter(allows)
            .take(8)
            .map(|o| {
                format!(
                    "{:?}",
                    crate::visible::shown(&o.name.chars().take(80).collect::<String>())
                )
            })
            .collect();
        Err(GateError::BadInput {
            message: if wider.is_empty() {
                "the agent offered no option that allows this request".to_owned()
            } else {
                format!(
                    "the agent offers no way to allow this once, only {}, which allows more from \
                     now on: choose it yourself in the window's queue",
                    wider.join(", ")
                )
            },
        })
    }

    /// The option a rejection answers with: `option` when it is one of the agent's reject
    /// options (else an error), or the agent's "reject once", else its "reject always".
    pub fn reject_option(&self, option: Option<&str>) -> Result<String, GateError> {
        if let Some(id) = option {
            return self
                .options
                .iter()
                .filter(|o| o.kind.starts_with("reject_"))
                .find(|o| o.option_id == id)
                .map(|o| o.option_id.clone())
                .ok_or_else(|| GateError::BadInput {
                    message: format!(
                        "the agent did not offer {:?} as a way to reject this request",
                        crate::visible::shown(&id.chars().take(80).collect::<String>())
                    ),
                });
        }
        ["reject_once", "reject_always"]
            .iter()
            .find_map(|k| self.options.iter().find(|o| o.kind == *k))
            .map(|o| o.option_id.clone())
            .ok_or_else(|| GateError::BadInput {
                message: "the agent offered no option that rejects this request: it can only be \
                          approved or left"
                    .to_owned(),
            })
    }
}

#[cfg(test)]
impl GateRequest {
    /// A waiting Gemini request `id` with no plan, pane or processes, for tests to fill in: read
    /// from the stored form with only what a request must have.
    pub(crate) fn for_test(id: &str) -> Self {
        let now = crate::timestamp::now()
            .format(&time::format_description::well_known::Rfc3339)
            .expect("a time");
        serde_json::from_value(serde_json::json!({
            "id": id, "agent": "gemini", "sessionId": "s", "cwd": "/", "plan": "",
            "transcriptOffset": 0, "waitingSince": now, "deadline": now, "hookPid": 0,
            "status": GateStatus::Waiting, "closedAt": null,
        }))
        .expect("a stored request")
    }
}

impl GateRequest {
    /// A request filed now: waiting, undecided, with its deadline now (a card that waits for the
    /// person, not for us) and nothing known of panes, processes, transcript or team. Each agent's
    /// hook or watcher fills in what it knows (`GateRequest { tmux_pane, ..GateRequest::filed(..) }`).
    pub(crate) fn filed(id: String, agent: Agent, session_id: String, cwd: String) -> Self {
        let now = crate::timestamp::now();
        GateRequest {
            id,
            agent,
            session_id,
            cwd,
            plan_path: None,
            plan: String::new(),
            tool_use_id: None,
            transcript_path: None,
            transcript_offset: 0,
            tmux_pane: None,
            tmux_socket: None,
            waiting_since: now,
            deadline: now,
            hook_pid: 0,
            hook_start_time: None,
            agent_pid: None,
            agent_start_time: None,
            headless: false,
            through_hook: false,
            status: GateStatus::Waiting,
            closed_at: None,
            decision: None,
            decided_by: None,
            plan_hash: None,
            plan_read: None,
            machine: None,
            approves_through_hook: false,
            team: None,
            teammate: None,
            lead_session_id: None,
            kind: RequestKind::Plan,
            acp: None,
        }
    }

    /// The hook process that filed it and the agent's, each with its start time (a pid reused
    /// later is never taken for them).
    pub(crate) fn with_processes(self, hook_pid: u32, agent_pid: Option<u32>) -> Self {
        GateRequest {
            hook_pid,
            hook_start_time: crate::terminal::start_time(hook_pid),
            agent_pid,
            agent_start_time: agent_pid.and_then(crate::terminal::start_time),
            ..self
        }
    }

    /// The hook stops waiting `deadline` after the request was filed (Claude Code's hooks).
    pub(crate) fn until(self, deadline: std::time::Duration) -> Self {
        GateRequest {
            deadline: self.waiting_since
                + time::Duration::try_from(deadline).unwrap_or(time::Duration::minutes(10)),
            ..self
        }
    }

    /// Seconds since the request was filed (none if its clock is ahead of ours).
    pub fn waiting_secs(&self) -> Option<u64> {
        u64::try_from((crate::timestamp::now() - self.waiting_since).whole_seconds()).ok()
    }
}

/// The reviewer's choice on the approval card: `1` auto-accept edits, `2` approve each edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum ApproveMode {
    Auto,
    Manual,
}

/// What the reviewer decided.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", tag = "decision")]
pub enum GateDecision {
    #[serde(rename_all = "camelCase")]
    Approve {
        mode: ApproveMode,
        /// The edited plan, written to the plan file before the card is answered.
        edited: Option<String>,
        /// The text the reviewer started editing from; the edit is refused if the file moved on.
        started_from: Option<String>,
    },
    #[serde(rename_all = "camelCase")]
    Reject { feedback: String },
}

/// What [`decide`] achieved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DecisionOutcome {
    pub request_id: String,
    /// The decision reached the agent (the card closed, or the hook took the rejection).
    pub delivered: bool,
    /// What happened, for a person ("approve in the terminal" when there is no pane), and why
    /// when delivery failed.
    pub message: String,
    pub status: GateStatus,
    /// How the decision reached the agent; `failed` when typing was refused or failed.
    pub delivery: Delivery,
}

#[derive(Debug, thiserror::Error)]
pub enum GateError {
    #[error("no gate request {id}")]
    NotFound { id: String },
    #[error("request {id} is already closed ({status:?}): the terminal or another decision answered first")]
    Closed { id: String, status: GateStatus },
    /// Another decider is delivering its decision on this request right now.
    #[error("request {id} is being decided right now ({by}); nothing was typed")]
    AlreadyDeciding { id: String, by: String },
    /// A decision on this request was taken before and stands (delivered, or waiting for the
    /// hook or the terminal).
    #[error("request {id} was already decided ({by}); nothing was typed")]
    AlreadyDecided { id: String, by: String },
    /// The plan the agent would act on is not the version the reviewer read.
    #[error("the plan of request {id} changed since you read it (it is {current_hash} now, you read {seen_hash}); nothing was typed: read it again")]
    PlanChangedSinceRead {
        id: String,
        seen_hash: String,
        current_hash: String,
    },
    /// An approval through the hook would hand the agent the plan file's text as the person's
    /// edit, but the file no longer holds the plan the agent submitted and the change is not an
    /// edit the person made in Plandeck.
    #[error("the plan file {path} no longer holds the plan the agent submitted, and the change is not an edit of yours in Plandeck; nothing was sent: approving would hand the agent that text as your edit. Reject it with feedback, or answer in the terminal")]
    NotAsSubmitted { id: String, path: PathBuf },
    /// An approval that did not say which version was read (`plandeck approve` without
    /// `--expect-hash`) of a plan whose file changed since the agent asked.
    #[error("the plan file {path} changed since the agent asked for approval, and the approval does not say which version you read; nothing was typed: the agent reads that file once approved. Read it again (`plandeck pending --json` gives its planHash) and approve with --expect-hash, or reject it")]
    ChangedSinceFiled { id: String, path: PathBuf },
    #[error("the plan file {path} changed since the edit started; nothing was written")]
    PlanConflict { path: PathBuf, current: String },
    #[error("request {id} has no plan file to write the edit to")]
    NoPlanFile { id: String },
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not valid JSON: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("{message}")]
    BadInput { message: String },
    #[error("tmux: {message}")]
    Tmux { message: String },
    /// The approval card on screen does not show the choices Plandeck knows by their labels (a
    /// new or reordered-and-renamed card): nothing was typed.
    #[error("the approval card in tmux pane {pane} does not show the choices Plandeck knows ({detail}); nothing was typed; answer in the terminal")]
    CardNotRecognised { pane: String, detail: String },
    /// Showing or writing a hook in an agent's settings failed (or the file changed since).
    #[error(transparent)]
    Hook(#[from] crate::hooks::HookError),
    #[error(transparent)]
    Write(#[from] crate::durable::WriteError),
    /// Recording the decision in the review store failed (or found a conflict).
    #[error(transparent)]
    Review(#[from] crate::review::ReviewError),
}

impl From<GateError> for IpcError {
    fn from(e: GateError) -> Self {
        let kind = match &e {
            GateError::NotFound { .. } | GateError::NoPlanFile { .. } => ErrorKind::NotFound,
            GateError::Closed { .. }
            | GateError::AlreadyDeciding { .. }
            | GateError::AlreadyDecided { .. }
            | GateError::PlanChangedSinceRead { .. }
            | GateError::ChangedSinceFiled { .. }
            | GateError::PlanConflict { .. } => ErrorKind::Conflict,
            GateError::Parse { .. } | GateError::BadInput { .. } => ErrorKind::BadInput,
            GateError::Read { .. } | GateError::Write(_) => ErrorKind::Io,
            GateError::Tmux { .. } => ErrorKind::Internal,
            GateError::CardNotRecognised { .. } | GateError::NotAsSubmitted { .. } => {
                ErrorKind::Refused
            }
            GateError::Review(_) | GateError::Hook(_) => ErrorKind::Internal,
        };
        match e {
            GateError::Review(r) => return IpcError::from(r),
            GateError::Hook(h) => return IpcError::from(h),
            _ => {}
        }
        IpcError::new(kind, e.to_string())
    }
}

/// The most hook input (stdin JSON) a hook reads; a plan bigger than this is not a plan.
pub const MAX_HOOK_INPUT: usize = 16 * 1024 * 1024;

/// The part of an agent's hook input (its stdin JSON) that the hooks read; both agents send
/// these fields (see the fixtures' `hook-input/`).
#[derive(Debug, Deserialize)]
pub struct HookInput {
    pub session_id: String,
    #[serde(default)]
    pub transcript_path: Option<String>,
    #[serde(default)]
    pub cwd: String,
    #[serde(default)]
    pub tool_name: Option<String>,
    #[serde(default)]
    pub tool_input: serde_json::Value,
    /// The `tool_use` id of the call (Claude Code `PreToolUse`).
    #[serde(default)]
    pub tool_use_id: Option<String>,
    /// Claude Code: the subagent or in-process teammate making the call (`aplanner-<16 hex>`);
    /// absent for the main session and for a teammate in its own pane.
    #[serde(default)]
    pub agent_id: Option<String>,
    /// Claude Code: that agent's type (a teammate's name).
    #[serde(default)]
    pub agent_type: Option<String>,
}

impl HookInput {
    /// Parses a hook's stdin. Any bytes give a value or a message for a person, never a panic;
    /// more than [`MAX_HOOK_INPUT`] bytes are refused without being parsed.
    pub fn parse(stdin: &[u8], agent_name: &str) -> Result<Self, String> {
        if stdin.len() > MAX_HOOK_INPUT {
            return Err(format!(
                "input is larger than {} MiB; not the hook JSON {agent_name} sends",
                MAX_HOOK_INPUT / (1024 * 1024)
            ));
        }
        if stdin.iter().all(u8::is_ascii_whitespace) {
            return Err("empty input (expected the hook's JSON on stdin)".to_owned());
        }
        serde_json::from_slice(stdin)
            .map_err(|e| format!("input is not the hook JSON {agent_name} sends ({e})"))
    }
}

/// TypeScript declarations of the types this module sends over IPC.
pub(crate) fn ts_declarations() -> Vec<String> {
    vec![
        <GateStatus as TS>::decl(),
        <GateRequest as TS>::decl(),
        <ApproveMode as TS>::decl(),
        <GateDecision as TS>::decl(),
        <DecisionOutcome as TS>::decl(),
        <RequestKind as TS>::decl(),
        <AcpOption as TS>::decl(),
        <AcpDiff as TS>::decl(),
        <AcpAsk as TS>::decl(),
        <InstallPlan as TS>::decl(),
        <InstallReport as TS>::decl(),
        <install::HookPreview as TS>::decl(),
        <teams::Team as TS>::decl(),
        <teams::TeamMember as TS>::decl(),
    ]
}
