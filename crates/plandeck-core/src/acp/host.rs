//! ACP sessions hosted by the person's own Plandeck server (`plandeck serve --daemon`), so that
//! closing the window or the terminal that started one does not end it (issue 36).
//!
//! Files under `<data>/acp/` (private, written atomically):
//! - `start/<id>.json`: a session asked for ([`request_start`]: `plandeck start --agent NAME`, the
//!   window's New session); the server takes it (a rename: one taker) and starts the agent;
//! - `sessions/<id>.json`: the hosted session as it is ([`Hosted`]): its state, mode, whether it
//!   stayed gated, its usage and its conversation (bounded), written by the host as it changes;
//! - `commands/<id>/<n>.json`: Send (a prompt, only when no turn runs), Interrupt
//!   (`session/cancel`), Stop (the agent's process group ended) ([`command`]).
//!
//! Every request of a hosted session waits in the gate's store ([`super::requests`]), decided
//! there like any other. What the agent says is kept as data: shown, never run or rendered as
//! markup by the host.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use super::session::{Choice, Control, Session};
use super::{catalog, requests, AcpError, AgentCommand, Event, Update};
use crate::config::{Env, Roots};
use crate::durable;

/// The most entries of a conversation kept (older ones go first).
pub const MAX_ENTRIES: usize = 400;
/// The most characters of one entry's text kept.
pub const MAX_ENTRY_CHARS: usize = 64 * 1024;
/// The most bytes of text (messages, tool titles, plan entries) a conversation keeps in all, older
/// entries going first: its record (every byte at most six in JSON) stays well under what is read
/// back ([`MAX_FILE`]), however an agent fills it.
pub const MAX_CONVERSATION_BYTES: usize = 2 * 1024 * 1024;
/// The most bytes of a plan's entries kept (later entries are left out).
pub const MAX_PLAN_BYTES: usize = 256 * 1024;
/// The most characters of a prompt sent.
pub const MAX_PROMPT_CHARS: usize = 64 * 1024;

static HOSTED: AtomicUsize = AtomicUsize::new(0);

/// How many sessions this process hosts now (the server does not leave while one runs).
pub fn hosted_here() -> usize {
    HOSTED.load(Ordering::SeqCst)
}

/// Tokens and cost of a session, where the agent said them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "AcpUsage")]
pub struct Usage {
    #[ts(type = "number | null")]
    pub input_tokens: Option<u64>,
    #[ts(type = "number | null")]
    pub output_tokens: Option<u64>,
    pub cost_usd: Option<f64>,
}

/// One entry of a hosted session's conversation (every text is the agent's or the person's,
/// kept as data).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "AcpEntry")]
pub struct Entry {
    /// `user`, `agent`, `thought`, `tool`, `plan`, `mode`, `note`.
    pub kind: String,
    pub text: String,
    /// A tool call's id, its kind and status (`pending`, `in_progress`, `completed`, `failed`).
    pub tool_call_id: Option<String>,
    pub tool_kind: Option<String>,
    pub status: Option<String>,
    /// A plan's entries: `[status, content]`.
    #[serde(default)]
    pub plan: Vec<(String, String)>,
    /// A message's or thought's text rendered as plans are (Markdown, sanitized): filled in when
    /// the session is read for the window, never stored.
    #[serde(default)]
    pub html: Option<String>,
}

/// A hosted ACP session as its host last wrote it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "AcpSession")]
pub struct Hosted {
    /// Plandeck's id of the session (`acps-…`).
    pub id: String,
    /// The ACP agent's name (`claude-acp`).
    pub agent: String,
    pub display_name: String,
    pub cwd: String,
    /// The agent's own id of the session (`session/new`), once started.
    pub session_id: Option<String>,
    /// `starting`, `working` (a turn runs), `waiting` (a request waits for the person), `idle`
    /// (no turn: Send is open), `ended`, `failed`.
    pub state: String,
    pub mode: Option<String>,
    pub modes: Vec<String>,
    /// Every way out of plan mode went through the person.
    pub gated: bool,
    pub ungated_why: Option<String>,
    pub usage: Usage,
    /// Whether its agent can resume a session (`agentCapabilities.loadSession`): `false` and Resume
    /// is refused, a new session offered instead; `null` when not known (not started yet, or a
    /// record from before this was kept).
    #[serde(default)]
    pub can_load: Option<bool>,
    /// Why it failed or ended, for a person.
    pub problem: Option<String>,
    pub host_pid: u32,
    #[ts(type = "number | null")]
    pub host_start_time: Option<u64>,
    pub agent_pid: Option<u32>,
    /// RFC 3339.
    pub started: String,
    pub updated: String,
    pub entries: Vec<Entry>,
    /// The machine this is on (`plandeck hosts`); `null`: this one.
    #[serde(default)]
    pub machine: Option<String>,
}

impl Hosted {
    /// A session just started by the host `host_pid` (its start time read now) at `now`: state
    /// `starting`, gated, nothing known of the agent yet.
    pub fn new(
        id: impl Into<String>,
        agent: impl Into<String>,
        display_name: impl Into<String>,
        cwd: impl Into<String>,
        host_pid: u32,
        now: impl Into<String>,
    ) -> Hosted {
        let now = now.into();
        Hosted {
            id: id.into(),
            agent: agent.into(),
            display_name: display_name.into(),
            cwd: cwd.into(),
            session_id: None,
            state: "starting".into(),
            mode: None,
            modes: Vec::new(),
            gated: true,
            ungated_why: None,
            usage: Usage::default(),
            can_load: None,
            problem: None,
            host_pid,
            host_start_time: crate::process::start_time(host_pid),
            agent_pid: None,
            started: now.clone(),
            updated: now,
            entries: Vec::new(),
            machine: None,
        }
    }

    /// Its state as a listing says it: a session whose host is gone has ended, whatever its file
    /// last said.
    pub fn live_state(&self) -> &str {
        let ended = matches!(self.state.as_str(), "ended" | "failed");
        if !ended && !crate::process::is_running(self.host_pid, self.host_start_time) {
            return "ended";
        }
        &self.state
    }
}

impl Hosted {
    /// Its row in `plandeck sessions list --json` (beside the terminal agents' rows): `kind`
    /// `acp`, its state, whether it stayed `gated`, its `usage` (`inputTokens`, `outputTokens`,
    /// `costUsd`), its mode, its agent's pid.
    pub fn row(&self) -> serde_json::Value {
        serde_json::json!({
            "kind": "acp",
            "agent": self.agent,
            "displayName": self.display_name,
            "sessionId": self.id,
            "acpSessionId": self.session_id,
            "cwd": self.cwd,
            "state": self.live_state(),
            "gated": self.gated,
            "ungatedWhy": self.ungated_why,
            "usage": self.usage,
            "canResume": self.can_load,
            "permissionMode": self.mode,
            "modes": self.modes,
            "pid": self.agent_pid,
            "hostPid": self.host_pid,
            "started": self.started,
            "lastActivity": self.updated,
            "problem": self.problem,
        })
    }
}

/// `h` as the window shows it: what the agent and the person said rendered and sanitized as every
/// plan is (Markdown through the plans' renderer and sanitizer); the rest stays text.
pub fn for_window(mut h: Hosted) -> Hosted {
    render_entries(&mut h);
    h
}

/// Fills in every entry's `html` from its text here (whatever `html` it came with, another
/// machine's included, is dropped): messages and thoughts rendered and sanitized, the rest none.
pub fn render_entries(h: &mut Hosted) {
    for e in &mut h.entries {
        e.html = matches!(e.kind.as_str(), "agent" | "thought" | "user")
            .then(|| crate::render::markdown_html(&e.text));
    }
}

/// A session asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StartRequest {
    pub id: String,
    pub agent: String,
    pub cwd: String,
    pub plan: bool,
    pub prompt: Option<String>,
    /// Resume: the agent's own id of the earlier session to `session/load` (the host keeps the
    /// session's record and conversation).
    #[serde(default)]
    pub load: Option<String>,
}

/// What the host is asked to do with a session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", tag = "command")]
#[ts(rename = "AcpCommand")]
pub enum Command {
    Send {
        text: String,
    },
    Interrupt,
    Stop,
    /// A session whose host ended, hosted again (`session/load`, where the agent offers it).
    Resume,
}

/// TypeScript declarations of the types this module sends over IPC.
pub(crate) fn ts_declarations() -> Vec<String> {
    vec![
        <Usage as TS>::decl(),
        <Entry as TS>::decl(),
        <Hosted as TS>::decl(),
        <Command as TS>::decl(),
    ]
}

impl From<HostError> for crate::ipc::IpcError {
    fn from(e: HostError) -> Self {
        use crate::ipc::ErrorKind;
        let kind = match e {
            HostError::NotFound(_) | HostError::Ended(_) => ErrorKind::NotFound,
            HostError::Busy(_) | HostError::Running(_) => ErrorKind::Conflict,
            HostError::NeverOpened(_) => ErrorKind::BadInput,
            HostError::CannotResume(_) => ErrorKind::Unsupported,
            HostError::NotAnAgent(_) | HostError::BadPrompt => ErrorKind::BadInput,
            HostError::Store(_) => ErrorKind::Io,
        };
        crate::ipc::IpcError::new(kind, e.to_string())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum HostError {
    #[error("{0:?} is no ACP agent: see `plandeck agents list`")]
    NotAnAgent(String),
    #[error("no hosted ACP session {0}")]
    NotFound(String),
    #[error("the session {0} has ended")]
    Ended(String),
    #[error("a turn of {0} is running: Send waits until it ends (or Interrupt it)")]
    Busy(String),
    #[error("the session {0} still runs: Resume is for one whose host ended")]
    Running(String),
    #[error("the agent of {0} never opened its session: there is nothing to resume")]
    NeverOpened(String),
    #[error("{0} cannot resume a session: it does not offer loading one (session/load). Start a new session in the same folder instead")]
    CannotResume(String),
    #[error("the message is empty or longer than {MAX_PROMPT_CHARS} characters")]
    BadPrompt,
    #[error("could not write the request: {0}")]
    Store(String),
}

fn dir(roots: &Roots, sub: &str) -> PathBuf {
    roots.data.join("acp").join(sub)
}

/// Refused (as not found) unless `id` can name a hosted session: 1 to 64 ASCII letters, digits
/// and dashes.
pub fn check_id(id: &str) -> Result<(), HostError> {
    if id.is_empty() || id.len() > 64 || !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    {
        return Err(HostError::NotFound(id.chars().take(80).collect()));
    }
    Ok(())
}

/// Writes `value` at `path` under `<data>/acp/` atomically, every folder on the way from `acp/`
/// down made (or found) a real folder of this user's, 0700: never through a symlink planted
/// there, never into a folder of anyone else.
fn write(roots: &Roots, path: &std::path::Path, value: &impl Serialize) -> Result<(), HostError> {
    let bytes = serde_json::to_vec_pretty(value).map_err(|e| HostError::Store(e.to_string()))?;
    let top = roots.data.join("acp");
    let uid = crate::daemon_home::own_uid();
    let mut folders: Vec<&std::path::Path> = path
        .ancestors()
        .skip(1)
        .take_while(|d| d.starts_with(&top))
        .collect();
    folders.reverse();
    for d in folders {
        crate::daemon_home::private_dir(d, uid).map_err(|e| HostError::Store(e.to_string()))?;
    }
    durable::write_private(path, &bytes).map_err(|e| HostError::Store(e.to_string()))
}

/// The most bytes of a start request, command or session record read.
const MAX_FILE: u64 = 32 * 1024 * 1024;

/// A store file read as data: only a regular file there itself (a symlink, a FIFO or a device
/// planted in `start/` or `commands/` is not followed, opened without blocking, and skipped),
/// made by this user (one another user left in a folder they could write to is never taken),
/// at most [`MAX_FILE`] bytes.
fn read<T: for<'de> Deserialize<'de>>(path: &std::path::Path) -> Option<T> {
    read_owned_by(path, rustix::process::geteuid().as_raw())
}

fn read_owned_by<T: for<'de> Deserialize<'de>>(path: &std::path::Path, uid: u32) -> Option<T> {
    use std::io::Read;
    use std::os::unix::fs::MetadataExt;
    use std::os::unix::fs::OpenOptionsExt;
    let flags = rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(flags.bits() as i32)
        .open(path)
        .ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.uid() != uid || meta.len() > MAX_FILE {
        return None;
    }
    let mut bytes = Vec::new();
    file.take(MAX_FILE + 1).read_to_end(&mut bytes).ok()?;
    if bytes.len() as u64 > MAX_FILE {
        return None;
    }
    serde_json::from_slice(&bytes).ok()
}

/// Asks the server to start `agent` in `cwd` (the server takes it from there); the session's id.
pub fn request_start(
    roots: &Roots,
    agent: &str,
    cwd: &str,
    plan: bool,
    prompt: Option<String>,
) -> Result<String, HostError> {
    if catalog::acp_entry(agent).is_none() {
        return Err(HostError::NotAnAgent(agent.chars().take(80).collect()));
    }
    if prompt
        .as_ref()
        .is_some_and(|p| p.chars().count() > MAX_PROMPT_CHARS)
    {
        return Err(HostError::BadPrompt);
    }
    let seed = format!(
        "{agent}\n{cwd}\n{}\n{}",
        std::process::id(),
        crate::timestamp::now().unix_timestamp_nanos()
    );
    let id = format!("acps-{}", &durable::sha256_hex(seed.as_bytes())[..16]);
    let req = StartRequest {
        id: id.clone(),
        agent: agent.to_owned(),
        cwd: cwd.to_owned(),
        plan,
        prompt,
        load: None,
    };
    write(roots, &dir(roots, "start").join(format!("{id}.json")), &req)?;
    Ok(id)
}

/// Asks for the session `id`, whose host ended, to be hosted again: its agent started anew and
/// its session loaded (`session/load`, where the agent offers it: the host says so otherwise).
/// Refused while its host runs, or for a session the agent never opened.
pub fn request_resume(roots: &Roots, id: &str) -> Result<(), HostError> {
    check_id(id)?;
    let hosted = get(roots, id).ok_or_else(|| HostError::NotFound(id.to_owned()))?;
    if hosted.live_state() != "ended" && hosted.live_state() != "failed" {
        return Err(HostError::Running(id.to_owned()));
    }
    let session_id = hosted
        .session_id
        .clone()
        .ok_or_else(|| HostError::NeverOpened(id.to_owned()))?;
    if hosted.can_load == Some(false) {
        return Err(HostError::CannotResume(hosted.display_name.clone()));
    }
    let req = StartRequest {
        id: id.to_owned(),
        agent: hosted.agent.clone(),
        cwd: hosted.cwd.clone(),
        plan: false,
        prompt: None,
        load: Some(session_id),
    };
    write(roots, &dir(roots, "start").join(format!("{id}.json")), &req)
}

/// The hosted session `id`, as its host last wrote it.
pub fn get(roots: &Roots, id: &str) -> Option<Hosted> {
    check_id(id).ok()?;
    read(&dir(roots, "sessions").join(format!("{id}.json")))
}

/// Every hosted session (running or ended), newest first.
pub fn list(roots: &Roots) -> Vec<Hosted> {
    let Ok(entries) = std::fs::read_dir(dir(roots, "sessions")) else {
        return Vec::new();
    };
    let mut out: Vec<Hosted> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name();
            let id = name.to_str()?.strip_suffix(".json")?.to_owned();
            check_id(&id).ok()?;
            read::<Hosted>(&e.path()).filter(|h| h.id == id)
        })
        .collect();
    out.sort_by(|a, b| b.started.cmp(&a.started).then(a.id.cmp(&b.id)));
    out
}

/// What listings of other things need of a hosted session (the worktrees its folder is in, the
/// agent's own records it folds): read from its record as data.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Brief {
    pub id: String,
    /// The agent's own id of the session (`session/new`'s `sessionId`), once started.
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub cwd: String,
    #[serde(default)]
    pub state: String,
    #[serde(default)]
    pub host_pid: u32,
    #[serde(default)]
    pub host_start_time: Option<u64>,
}

impl Brief {
    /// Whether it runs now: not ended or failed, and its host still there (as
    /// [`Hosted::live_state`] says).
    pub fn running(&self) -> bool {
        !matches!(self.state.as_str(), "ended" | "failed")
            && crate::process::is_running(self.host_pid, self.host_start_time)
    }
}

/// Every hosted session, running or ended, in brief ([`Brief`]). Each record is read once per
/// version of its file (a streaming session's record is rewritten many times a second; the others
/// are not read again).
pub fn briefs(roots: &Roots) -> Vec<Brief> {
    use std::collections::HashMap;
    use std::time::SystemTime;
    type Seen = HashMap<PathBuf, (SystemTime, u64, Option<Brief>)>;
    static SEEN: Mutex<Option<Seen>> = Mutex::new(None);
    let Ok(entries) = std::fs::read_dir(dir(roots, "sessions")) else {
        return Vec::new();
    };
    let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
    let seen = seen.get_or_insert_with(HashMap::new);
    let mut out = Vec::new();
    for e in entries.flatten() {
        let path = e.path();
        let Some(id) = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".json"))
        else {
            continue;
        };
        if check_id(id).is_err() {
            continue;
        }
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        let version = (
            meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
            meta.len(),
        );
        let brief = match seen.get(&path) {
            Some((at, len, b)) if (*at, *len) == version => b.clone(),
            _ => {
                let b = read::<Brief>(&path).filter(|r| r.id == id);
                seen.insert(path.clone(), (version.0, version.1, b.clone()));
                b
            }
        };
        out.extend(brief);
    }
    out.sort_by(|a, b| a.id.cmp(&b.id));
    out
}

/// The agent's own ids of the hosted sessions (`session/new`'s `sessionId`), running or ended.
pub fn agent_session_ids(roots: &Roots) -> std::collections::HashSet<String> {
    briefs(roots)
        .into_iter()
        .filter_map(|b| b.session_id.filter(|s| !s.is_empty()))
        .collect()
}

/// Whether the process `pid` (the plan hook) runs under the host of a running hosted session
/// whose agent's own id is `session_id` (the hook of the Claude Code claude-agent-acp runs): a
/// session id alone is the agent's answer to `session/new`, and can be a terminal session's.
pub fn hosts_process(roots: &Roots, session_id: &str, pid: u32) -> bool {
    !session_id.is_empty()
        && briefs(roots).iter().any(|b| {
            b.session_id.as_deref() == Some(session_id)
                && b.running()
                && descends_from(pid, b.host_pid)
        })
}

/// The sessions' worktree hints (found from the agents' own records) with the hosted ACP
/// sessions in: each hosted session is a hint of its own (its id, its folder, running while its
/// host does), and the hint of its agent's own record (claude-agent-acp's Claude Code's
/// transcript, [`fold_hosted`]) folds into it, giving it its worktree facts and its plan: the
/// worktree a hosted session works in names that session, as its card does. Folding hints
/// already folded changes nothing.
pub fn fold_hints(roots: &Roots, hints: &mut Vec<crate::sessions::WorktreeHint>) {
    for b in briefs(roots) {
        if b.cwd.is_empty() {
            continue;
        }
        let own = b.session_id.as_deref().filter(|s| !s.is_empty());
        let mut hint = crate::sessions::WorktreeHint {
            session_id: b.id.clone(),
            cwd: PathBuf::from(&b.cwd),
            worktree_path: None,
            original_head_commit: None,
            original_branch: None,
            plan_path: None,
            running: b.running(),
        };
        let mut i = 0;
        while i < hints.len() {
            let h = &hints[i];
            let its_own = Some(h.session_id.as_str()) == own && same_folder(&h.cwd, &b.cwd);
            if h.session_id == b.id || its_own {
                let h = hints.remove(i);
                hint.running |= h.running;
                hint.worktree_path = hint.worktree_path.or(h.worktree_path);
                hint.original_head_commit = hint.original_head_commit.or(h.original_head_commit);
                hint.original_branch = hint.original_branch.or(h.original_branch);
                hint.plan_path = hint.plan_path.or(h.plan_path);
            } else {
                i += 1;
            }
        }
        hints.push(hint);
    }
}

/// Fills in what the agent's own record of the session tells and the agent did not say over ACP:
/// its tokens (and cost) when it told none. codex-acp 0.16 sends `usage_update` with no cost and
/// no `usage` in a prompt's answer, while the Codex it embeds counts them in its rollout, named by
/// the ACP session's id (`~/.codex/sessions/…/rollout-…-<id>.jsonl`, folded into this card:
/// [`fold_hosted`]). What the agent said over ACP stays. `record`: the agent's own record whose
/// session id is `session_id` (the session index's), asked for only when needed.
pub fn fill_from_records(
    h: &mut Hosted,
    record: impl FnOnce(&str) -> Option<crate::sessions::SessionSummary>,
) {
    if h.usage.input_tokens.is_some() || h.usage.output_tokens.is_some() {
        return;
    }
    let Some(sid) = h.session_id.as_deref().filter(|s| !s.is_empty()) else {
        return;
    };
    let Some(u) = record(sid).and_then(|r| r.usage) else {
        return;
    };
    h.usage.input_tokens = Some(u.input_tokens);
    h.usage.output_tokens = Some(u.output_tokens);
    h.usage.cost_usd = h.usage.cost_usd.or(u.cost_usd);
}

/// Leaves out of `sessions` (found from the agents' own records) those that are a hosted ACP
/// session: the agent an adapter runs keeps its records where the terminal agent does
/// (claude-agent-acp 0.23 starts its bundled Claude Code with `sessionId` set to the ACP
/// session's id, so its transcript is `~/.claude/projects/<folder>/<that id>.jsonl`), and it is
/// the ACP session's card that shows and steers it: one session, one card, one row.
pub fn fold_hosted(roots: &Roots, sessions: &mut Vec<crate::sessions::SessionSummary>) {
    if sessions.is_empty() {
        return;
    }
    let hosted = briefs(roots);
    if !hosted.is_empty() {
        sessions.retain(|s| !hosted.iter().any(|b| hosts_record(b, s)));
    }
}

/// Whether the agent's record `s` is plausibly the hosted session `b`'s own, not only one with the
/// same id: the id is the agent's answer to `session/new` (an agent can answer any string, such
/// as a terminal session's id), and an ended hosted session's transcript can be resumed in a
/// terminal (`claude --resume`) under its id. So the record must work in the hosted session's
/// folder (or name none), run in no tmux pane, and, when a process runs it, that process must be
/// one the session's host started (its descendant, the host running): a terminal session stays
/// listed, and its worktree its own.
fn hosts_record(b: &Brief, s: &crate::sessions::SessionSummary) -> bool {
    if b.session_id.as_deref().filter(|id| !id.is_empty()) != Some(s.session_id.as_str()) {
        return false;
    }
    if !(s.cwd.is_empty() || same_folder(std::path::Path::new(&s.cwd), &b.cwd)) {
        return false;
    }
    if s.tmux_pane.is_some() {
        return false;
    }
    match s.pid {
        None => true,
        Some(pid) => b.running() && descends_from(pid, b.host_pid),
    }
}

/// Whether `folder` is the hosted session's folder `cwd`: the same path (a trailing `/` aside),
/// or the same folder once symlinks are resolved (an agent records the folder it runs in as the
/// kernel names it).
fn same_folder(folder: &std::path::Path, cwd: &str) -> bool {
    let cwd = std::path::Path::new(cwd);
    if cwd.as_os_str().is_empty() {
        return false;
    }
    folder == cwd
        || matches!(
            (std::fs::canonicalize(folder), std::fs::canonicalize(cwd)),
            (Ok(a), Ok(b)) if a == b
        )
}

/// Whether the process `pid` is `ancestor` or one of its descendants (its parents walked, at most
/// 64 of them).
fn descends_from(pid: u32, ancestor: u32) -> bool {
    let mut p = pid;
    for _ in 0..64 {
        if p == ancestor {
            return true;
        }
        match crate::process::parent_of(p) {
            Some(parent) if parent != 0 && parent != p => p = parent,
            _ => return false,
        }
    }
    false
}

/// Hands `command` to the host of session `id`. Send is refused while a turn runs.
pub fn command(roots: &Roots, id: &str, command: &Command) -> Result<(), HostError> {
    check_id(id)?;
    if *command == Command::Resume {
        return request_resume(roots, id);
    }
    let hosted = get(roots, id).ok_or_else(|| HostError::NotFound(id.to_owned()))?;
    if hosted.live_state() == "ended" || hosted.state == "failed" {
        return Err(HostError::Ended(id.to_owned()));
    }
    if let Command::Send { text } = command {
        if text.trim().is_empty() || text.chars().count() > MAX_PROMPT_CHARS {
            return Err(HostError::BadPrompt);
        }
        if hosted.state != "idle" {
            return Err(HostError::Busy(id.to_owned()));
        }
    }
    let n = crate::timestamp::now().unix_timestamp_nanos();
    write(
        roots,
        &dir(roots, "commands").join(id).join(format!("{n}.json")),
        command,
    )
}

/// Whether `folder` and every folder above it up to `<data>/acp/` is a real folder of this
/// user's (no symlink): files are taken away only from there.
fn own_folder(roots: &Roots, folder: &std::path::Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let top = roots.data.join("acp");
    let uid = crate::daemon_home::own_uid();
    folder.starts_with(&top)
        && folder
            .ancestors()
            .take_while(|d| d.starts_with(&top))
            .all(|d| std::fs::symlink_metadata(d).is_ok_and(|m| m.is_dir() && m.uid() == uid))
}

/// The commands waiting for session `id`, oldest first (each read once: taken away).
fn take_commands(roots: &Roots, id: &str) -> Vec<Command> {
    let folder = dir(roots, "commands").join(id);
    if !own_folder(roots, &folder) {
        return Vec::new();
    }
    let Ok(entries) = std::fs::read_dir(&folder) else {
        return Vec::new();
    };
    let mut names: Vec<_> = entries
        .flatten()
        .map(|e| e.file_name())
        .filter(|n| {
            n.to_str()
                .is_some_and(|n| n.ends_with(".json") && !n.starts_with('.'))
        })
        .collect();
    names.sort();
    names
        .into_iter()
        .filter_map(|n| {
            let path = folder.join(&n);
            let c = read::<Command>(&path);
            let _ = std::fs::remove_file(&path);
            c
        })
        .collect()
}

/// The host's side: takes the sessions asked for and hosts each on a thread of this process,
/// until `keep_going` says no. The server runs it on a thread of its own.
pub fn serve(roots: Roots, env: Env, keep_going: impl Fn() -> bool) {
    while keep_going() {
        for req in take_starts(&roots) {
            let (roots, env) = (roots.clone(), env.clone());
            HOSTED.fetch_add(1, Ordering::SeqCst);
            std::thread::spawn(move || {
                host(&roots, &env, req);
                HOSTED.fetch_sub(1, Ordering::SeqCst);
            });
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The start requests waiting, each taken by one host only (renamed away first).
fn take_starts(roots: &Roots) -> Vec<StartRequest> {
    let folder = dir(roots, "start");
    if !own_folder(roots, &folder) {
        return Vec::new();
    }
    let Ok(entries) = std::fs::read_dir(&folder) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(id) = name.to_str().and_then(|n| n.strip_suffix(".json")) else {
            continue;
        };
        if check_id(id).is_err() {
            continue;
        }
        let taken = folder.join(format!("{id}.taken-{}", std::process::id()));
        if std::fs::rename(e.path(), &taken).is_err() {
            continue;
        }
        let req = read::<StartRequest>(&taken);
        let _ = std::fs::remove_file(&taken);
        if let Some(req) = req.filter(|r| r.id == id) {
            out.push(req);
        }
    }
    out
}

fn bounded(text: &str) -> String {
    if text.chars().count() <= MAX_ENTRY_CHARS {
        return text.to_owned();
    }
    let mut t: String = text.chars().take(MAX_ENTRY_CHARS).collect();
    t.push('…');
    t
}

/// The hosted session's record, kept by its host and written as it changes.
struct Record {
    roots: Roots,
    hosted: Hosted,
    /// When it was last written, and whether it changed since (an agent's updates come many a
    /// second: written at most every [`SAVE_EVERY`], the rest by the turn's next look).
    saved_at: Option<std::time::Instant>,
    dirty: bool,
}

/// The most often a streaming session's record is written (the window hears of each write).
const SAVE_EVERY: Duration = Duration::from_millis(40);

impl Record {
    fn new(roots: Roots, hosted: Hosted) -> Record {
        Record {
            roots,
            hosted,
            saved_at: None,
            dirty: false,
        }
    }

    /// Written now when the last write is [`SAVE_EVERY`] old, else marked for [`Record::flush`].
    fn save_soon(&mut self) {
        self.dirty = true;
        self.flush();
    }

    /// Writes what changed since the last write, once that is [`SAVE_EVERY`] old.
    fn flush(&mut self) {
        if self.dirty && self.saved_at.is_none_or(|t| t.elapsed() >= SAVE_EVERY) {
            self.save();
        }
    }

    fn save(&mut self) {
        self.within_budget();
        self.saved_at = Some(std::time::Instant::now());
        self.dirty = false;
        self.hosted.updated = crate::timestamp::format(crate::timestamp::now());
        let path = dir(&self.roots, "sessions").join(format!("{}.json", self.hosted.id));
        if let Err(e) = write(&self.roots, &path, &self.hosted) {
            tracing::warn!("cannot record ACP session {}: {e}", self.hosted.id);
        }
    }

    fn push(&mut self, entry: Entry) {
        let mut entries: VecDeque<Entry> = std::mem::take(&mut self.hosted.entries).into();
        entries.push_back(entry);
        while entries.len() > MAX_ENTRIES {
            entries.pop_front();
        }
        self.hosted.entries = entries.into();
    }

    /// Older entries dropped until the conversation's text is within [`MAX_CONVERSATION_BYTES`]
    /// (the newest entry always kept).
    fn within_budget(&mut self) {
        let size =
            |e: &Entry| e.text.len() + e.plan.iter().map(|(s, c)| s.len() + c.len()).sum::<usize>();
        let mut total: usize = self.hosted.entries.iter().map(size).sum();
        let mut drop = 0;
        while total > MAX_CONVERSATION_BYTES && drop + 1 < self.hosted.entries.len() {
            total -= size(&self.hosted.entries[drop]);
            drop += 1;
        }
        self.hosted.entries.drain(..drop);
    }

    fn note(&mut self, kind: &str, text: &str) {
        self.push(Entry {
            kind: kind.to_owned(),
            text: bounded(text),
            tool_call_id: None,
            tool_kind: None,
            status: None,
            plan: Vec::new(),
            html: None,
        });
    }

    /// One event of the agent's, into the conversation.
    fn on_event(&mut self, event: &Event) {
        let Event::Update { update, .. } = event else {
            return;
        };
        match update {
            Update::Chunk { kind, text } => {
                let kind = match kind.as_str() {
                    "agent_thought_chunk" => "thought",
                    "user_message_chunk" => "user",
                    _ => "agent",
                };
                // Chunks of one message join the entry they continue.
                if let Some(last) = self.hosted.entries.last_mut() {
                    if last.kind == kind && last.tool_call_id.is_none() {
                        let joined = format!("{}{text}", last.text);
                        last.text = bounded(&joined);
                        return;
                    }
                }
                self.note(kind, text);
            }
            Update::ToolCall { call, .. } => {
                let id = call.tool_call_id.clone();
                if let Some(e) =
                    self.hosted.entries.iter_mut().rev().find(|e| {
                        e.kind == "tool" && e.tool_call_id.as_deref() == Some(id.as_str())
                    })
                {
                    if let Some(t) = &call.title {
                        e.text = super::one_line(t);
                    }
                    if let Some(s) = &call.status {
                        e.status = Some(super::one_line(s));
                    }
                    return;
                }
                self.push(Entry {
                    kind: "tool".into(),
                    text: super::one_line(call.title.as_deref().unwrap_or("")),
                    tool_call_id: Some(super::one_line(&id)),
                    tool_kind: call.kind.as_deref().map(super::one_line),
                    status: call.status.as_deref().map(super::one_line),
                    plan: Vec::new(),
                    html: None,
                });
            }
            Update::Plan(entries) => {
                let mut bytes = 0;
                let plan = entries
                    .iter()
                    .take(200)
                    .map(|e| (super::one_line(&e.status), bounded(&e.content)))
                    .take_while(|(s, c)| {
                        bytes += s.len() + c.len();
                        bytes <= MAX_PLAN_BYTES
                    })
                    .collect();
                // The plan shown is the latest: one entry, replaced.
                self.hosted.entries.retain(|e| e.kind != "plan");
                self.push(Entry {
                    kind: "plan".into(),
                    text: String::new(),
                    tool_call_id: None,
                    tool_kind: None,
                    status: None,
                    plan,
                    html: None,
                });
            }
            Update::Mode(m) => {
                self.hosted.mode = Some(super::one_line(m));
            }
            Update::Usage {
                cost_usd: Some(c), ..
            } => {
                self.hosted.usage.cost_usd = Some(*c);
            }
            _ => {}
        }
    }
}

fn lock(r: &Mutex<Record>) -> std::sync::MutexGuard<'_, Record> {
    r.lock().unwrap_or_else(|e| e.into_inner())
}

/// Hosts one session until its agent ends or the person stops it.
fn host(roots: &Roots, env: &Env, req: StartRequest) {
    let now = crate::timestamp::format(crate::timestamp::now());
    let pid = std::process::id();
    let entry = catalog::acp_entry(&req.agent);
    // Resume: the session's record goes on (its conversation, usage, gating), hosted here now.
    let resumed = req
        .load
        .as_ref()
        .and_then(|_| get(roots, &req.id))
        .map(|mut h| {
            h.state = "starting".into();
            h.problem = None;
            h.host_pid = pid;
            h.host_start_time = crate::process::start_time(pid);
            h.agent_pid = None;
            h
        });
    let record = Arc::new(Mutex::new(Record::new(
        roots.clone(),
        resumed.unwrap_or_else(|| {
            Hosted::new(
                req.id.clone(),
                req.agent.clone(),
                entry.map(|e| e.display_name).unwrap_or("?").to_owned(),
                req.cwd.clone(),
                pid,
                now,
            )
        }),
    )));
    lock(&record).save();
    let fail = |why: String| {
        let mut r = lock(&record);
        r.hosted.state = "failed".into();
        r.hosted.problem = Some(why);
        r.save();
    };
    let Some(entry) = entry else {
        return fail(format!("{:?} is no ACP agent", req.agent));
    };
    let Some(program) = catalog::find(entry.program, &catalog::search_dirs(env)) else {
        return fail(format!(
            "{} is not installed (the npm package {} brings it)",
            entry.program, entry.package
        ));
    };
    let cmd = AgentCommand {
        program,
        args: entry.args.iter().map(|a| (*a).to_owned()).collect(),
        env: super::agent_env(
            entry.env,
            env.vars().map(|(k, v)| (k.to_owned(), v.to_owned())),
        ),
        cwd: PathBuf::from(&req.cwd),
    };
    let cwd_path = std::path::Path::new(&req.cwd);
    let started = match &req.load {
        Some(sid) => Session::load(&cmd, cwd_path, sid, Duration::from_secs(120)),
        None => Session::start(&cmd, cwd_path, req.plan, Duration::from_secs(120)),
    };
    let mut session = match started {
        Ok(s) => s,
        Err(AcpError::CannotLoad) => {
            let mut r = lock(&record);
            r.hosted.can_load = Some(false);
            drop(r);
            return fail(HostError::CannotResume(entry.display_name.to_owned()).to_string());
        }
        Err(e) => return fail(format!("{}: {e}", entry.name)),
    };
    if req.load.is_some() {
        lock(&record).note(
            "note",
            "Resumed: the agent loaded its session (session/load).",
        );
    }
    // Plan mode of an agent that asks nothing to leave it holds no plan for the person.
    if !entry.plan_gate {
        session.tracker.plan_mode_without_gate(entry.display_name);
    }
    // A person may take long: the agent's silence while a turn runs is not a reason to cancel.
    session.cancel_after_silence(Duration::from_secs(24 * 3600));
    let agent_process = session.agent_process();
    {
        let mut r = lock(&record);
        r.hosted.session_id = Some(session.info.session_id.clone());
        r.hosted.can_load = Some(
            session.agent.pointer("/agentCapabilities/loadSession") == Some(&Value::Bool(true)),
        );
        r.hosted.modes = session.info.modes.clone();
        r.hosted.mode = session.tracker.mode().map(str::to_owned);
        r.hosted.gated = session.tracker.gated();
        r.hosted.ungated_why = session.tracker.ungated_why().map(str::to_owned);
        r.hosted.agent_pid = Some(agent_process.0);
        r.hosted.state = "idle".into();
        r.save();
    }
    {
        let record = record.clone();
        session.observe(move |e| {
            let mut r = lock(&record);
            r.on_event(e);
            r.save_soon();
        });
    }
    // Commands read during a turn: Interrupt and Stop act at once; Send waits (refused when
    // handed over, since a turn runs).
    let flags = Arc::new(Flags::default());
    {
        let (roots, id, flags) = (roots.clone(), req.id.clone(), flags.clone());
        let record = record.clone();
        // Asked between the agent's messages and every 50 ms: the record's last changes written.
        session.controlled_by(move || {
            lock(&record).flush();
            let mut out = flags
                .interrupt
                .swap(false, Ordering::SeqCst)
                .then_some(Control::Interrupt);
            for c in take_commands(&roots, &id) {
                match c {
                    Command::Stop => {
                        flags.stopped.store(true, Ordering::SeqCst);
                        out = Some(Control::Stop);
                    }
                    Command::Interrupt if out.is_none() => out = Some(Control::Interrupt),
                    _ => {}
                }
            }
            out
        });
    }
    let cwd = req.cwd.clone();
    let mut stop = false;
    let mut next = req.prompt.clone().filter(|p| !p.trim().is_empty());
    loop {
        if let Some(text) = next.take() {
            {
                let mut r = lock(&record);
                r.note("user", &text);
                r.hosted.state = "working".into();
                r.save();
            }
            let (roots2, agent, record2, flags2, hid) = (
                roots.clone(),
                entry.name,
                record.clone(),
                flags.clone(),
                req.id.clone(),
            );
            let mut filed: Vec<(String, String)> = Vec::new();
            let report = session.turn(&text, |w| {
                let Ok(f) = requests::file(&roots2, agent, &cwd, w, agent_process) else {
                    return Choice::Reject(None);
                };
                filed.push((w.tool_call_id.clone(), f.id.clone()));
                {
                    let mut r = lock(&record2);
                    r.hosted.state = "waiting".into();
                    r.save();
                }
                let gone = || {
                    !crate::process::is_running(agent_process.0, agent_process.1)
                        || flags2.stopped.load(Ordering::SeqCst)
                        || take_stop(&roots2, &hid, &flags2)
                };
                let choice = match requests::wait_decision(&roots2, &f.id, gone) {
                    Some(d) if d.approve => Choice::ApproveThen(d.option_id, d.feedback),
                    Some(d) => Choice::RejectWith(d.option_id, d.feedback),
                    None => Choice::Reject(None),
                };
                // Written by the turn's next look, after the answer went to the agent (the
                // decision is not held up by a write).
                let mut r = lock(&record2);
                r.hosted.state = "working".into();
                r.dirty = true;
                choice
            });
            match report {
                Ok(report) => {
                    for r in &report.requests {
                        if let Some((_, id)) =
                            filed.iter().find(|(c, _)| c == &r.request.tool_call_id)
                        {
                            requests::close(roots, id, &r.outcome);
                        }
                    }
                    let mut r = lock(&record);
                    let u = &mut r.hosted.usage;
                    if let Some(n) = report.input_tokens {
                        u.input_tokens = Some(u.input_tokens.unwrap_or(0) + n);
                    }
                    if let Some(n) = report.output_tokens {
                        u.output_tokens = Some(u.output_tokens.unwrap_or(0) + n);
                    }
                    if report.cost_usd.is_some() {
                        u.cost_usd = report.cost_usd;
                    }
                    r.hosted.gated = report.gated;
                    r.hosted.ungated_why = report.ungated_why.clone();
                    if report.mode.is_some() {
                        r.hosted.mode = report.mode.clone();
                    }
                    r.hosted.state = "idle".into();
                    r.save();
                    drop(r);
                    next = report.feedback.clone();
                    if report.agent_ended {
                        break;
                    }
                }
                Err(e) => {
                    let mut r = lock(&record);
                    r.note("note", &format!("the turn failed: {e}"));
                    r.hosted.state = "idle".into();
                    r.save();
                }
            }
            if flags.stopped.load(Ordering::SeqCst) || session.has_ended() {
                break;
            }
            continue;
        }
        // No turn runs: Send is open.
        for c in take_commands(roots, &req.id) {
            match c {
                Command::Send { text } if next.is_none() => next = Some(text),
                Command::Stop => stop = true,
                _ => {}
            }
        }
        if stop || !crate::process::is_running(agent_process.0, agent_process.1) {
            break;
        }
        if next.is_none() {
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    session.stop();
    let mut r = lock(&record);
    r.hosted.state = "ended".into();
    if flags.stopped.load(Ordering::SeqCst) || stop {
        r.hosted.problem = Some("stopped".into());
    }
    r.save();
}

/// A Stop or an Interrupt handed over while a request waits for the person: the wait ends (the
/// request is refused, never allowed); an Interrupt then cancels the turn.
fn take_stop(roots: &Roots, id: &str, flags: &Flags) -> bool {
    let mut give_up = false;
    for c in take_commands(roots, id) {
        match c {
            Command::Stop => {
                flags.stopped.store(true, Ordering::SeqCst);
                give_up = true;
            }
            Command::Interrupt => {
                flags.interrupt.store(true, Ordering::SeqCst);
                give_up = true;
            }
            Command::Send { .. } | Command::Resume => {}
        }
    }
    give_up
}

#[derive(Default)]
struct Flags {
    stopped: std::sync::atomic::AtomicBool,
    interrupt: std::sync::atomic::AtomicBool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(kind: &str, text: &str) -> Entry {
        Entry {
            kind: kind.into(),
            text: text.into(),
            tool_call_id: None,
            tool_kind: None,
            status: None,
            plan: Vec::new(),
            html: None,
        }
    }

    /// The record of an idle Claude Code (ACP) session `id` in /r, hosted by `host_pid`, with no
    /// entries yet.
    fn idle_record(roots: Roots, id: &str, host_pid: u32, host_start_time: Option<u64>) -> Record {
        Record {
            roots,
            hosted: Hosted {
                id: id.into(),
                agent: "claude-acp".into(),
                display_name: "Claude Code (ACP)".into(),
                cwd: "/r".into(),
                session_id: None,
                state: "idle".into(),
                mode: None,
                modes: Vec::new(),
                gated: true,
                ungated_why: None,
                usage: Usage::default(),
                can_load: None,
                problem: None,
                host_pid,
                host_start_time,
                agent_pid: None,
                started: String::new(),
                updated: String::new(),
                entries: Vec::new(),
                machine: None,
            },
            saved_at: None,
            dirty: false,
        }
    }

    /// A hosted agent answers `session/new` with the id of a terminal session of the person's
    /// (any string can be its answer), or an ended hosted session's transcript is resumed in a
    /// terminal (`claude --resume`, the same id): the terminal session stays listed (its own row,
    /// its own worktree), and its plan hook does not step aside; only the record in the hosted
    /// session's folder that no terminal runs, or that a process under its host runs, is folded.
    #[test]
    fn a_terminal_session_with_a_hosted_agents_id_is_not_folded_into_it() {
        let home = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(home.path());
        let sid = "5a1e0000-0000-4000-8000-00000000beef";
        let mut r = idle_record(
            roots.clone(),
            "acps-00000000000000e1",
            std::process::id(),
            None,
        );
        r.hosted.session_id = Some(sid.into());
        r.hosted.cwd = "/home/dev/work/api".into();
        r.save();
        let summary = |cwd: &str, pane: Option<&str>, pid: Option<u32>| {
            let mut s: crate::sessions::SessionSummary =
                serde_json::from_value(serde_json::json!({
                    "agent": "claude", "sessionId": sid, "cwd": cwd, "state": "idle",
                    "unreadableLines": 0
                }))
                .unwrap();
            s.tmux_pane = pane.map(str::to_owned);
            s.pid = pid;
            s
        };
        // Another user's process of this machine, or the person's shell: not under this host.
        let init = 1;
        let kept = [
            summary("/home/dev/other", None, None),
            summary("/home/dev/work/api", Some("%3"), None),
            summary("/home/dev/work/api", None, Some(init)),
        ];
        let mut listed = kept.to_vec();
        fold_hosted(&roots, &mut listed);
        assert_eq!(listed, kept.to_vec());
        // Its own: in its folder, no pane, run by nothing or by a process under its host.
        let mut listed = vec![
            summary("/home/dev/work/api", None, None),
            summary("/home/dev/work/api/", None, Some(std::process::id())),
            summary("", None, None),
        ];
        fold_hosted(&roots, &mut listed);
        assert!(listed.is_empty(), "{listed:#?}");

        let hint = |cwd: &str| crate::sessions::WorktreeHint {
            session_id: sid.into(),
            cwd: cwd.into(),
            worktree_path: None,
            original_head_commit: None,
            original_branch: None,
            plan_path: None,
            running: true,
        };
        let mut hints = vec![hint("/home/dev/other")];
        fold_hints(&roots, &mut hints);
        assert!(hints.iter().any(|h| h.session_id == sid), "{hints:#?}");
        let mut hints = vec![hint("/home/dev/work/api")];
        fold_hints(&roots, &mut hints);
        assert!(!hints.iter().any(|h| h.session_id == sid), "{hints:#?}");

        // The hook runs under this host here; under another (a child of this test), it is not
        // this one's.
        assert!(hosts_process(&roots, sid, std::process::id()));
        let mut other = std::process::Command::new("sleep")
            .arg("600")
            .spawn()
            .unwrap();
        r.hosted.host_pid = other.id();
        r.save();
        let under_other = hosts_process(&roots, sid, std::process::id());
        other.kill().unwrap();
        other.wait().unwrap();
        assert!(!under_other);
        assert!(!hosts_process(&roots, "", std::process::id()));
    }

    /// What the agent says reaches the window through the plans' sanitizer: no script, no
    /// handler, no `javascript:` link; tool titles stay text (no html).
    #[test]
    fn messages_are_rendered_through_the_plans_sanitizer_and_tools_stay_text() {
        let home = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(home.path());
        let mut r = idle_record(roots, "acps-1", 1, None);
        let chunk = |kind: &str, text: &str| Event::Update {
            session_id: "s".into(),
            update: Update::Chunk {
                kind: kind.into(),
                text: text.into(),
            },
        };
        r.on_event(&chunk(
            "agent_message_chunk",
            "Done <script>alert(1)</script> <img src=x onerror=alert(1)> ",
        ));
        r.on_event(&chunk(
            "agent_message_chunk",
            "[x](javascript:alert(1)) **ok**",
        ));
        r.on_event(&chunk("agent_thought_chunk", "hmm"));
        r.on_event(&Event::Update {
            session_id: "s".into(),
            update: Update::Usage {
                used: Some(1),
                size: Some(2),
                cost_usd: Some(0.5),
            },
        });
        r.push(entry("tool", "<b>rm</b>"));
        assert_eq!(r.hosted.entries.len(), 3, "chunks of one message join");
        assert_eq!(r.hosted.usage.cost_usd, Some(0.5));
        let shown = for_window(r.hosted.clone());
        let html = shown.entries[0].html.as_deref().unwrap();
        // Markup the agent wrote is shown as text; the link lost its target.
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        assert!(html.contains("&lt;script&gt;"), "{html}");
        assert!(!html.contains("href=\"javascript"), "{html}");
        assert!(html.contains("<strong>ok</strong>"), "{html}");
        assert!(shown.entries[1].html.is_some());
        assert_eq!(shown.entries[2].html, None);
    }

    /// Plants in `dir`, under `names`: a symlink to `target`, one to `/dev/zero` and a FIFO.
    fn plant_no_plain_files(dir: &std::path::Path, target: &std::path::Path, names: [&str; 3]) {
        std::os::unix::fs::symlink(target, dir.join(names[0])).unwrap();
        std::os::unix::fs::symlink("/dev/zero", dir.join(names[1])).unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            dir.join(names[2]),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
    }

    /// Another process planting a symlink, a FIFO or a device in `start/` or `commands/` (hostile
    /// review): none is followed or read (a FIFO would hold the server's one loop that starts
    /// every session; `/dev/zero` would fill its memory), and each is taken away unread.
    #[test]
    fn start_and_command_files_that_are_no_plain_file_are_not_followed_or_read() {
        let home = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(home.path());
        let start = dir(&roots, "start");
        durable::create_private_dir(&start).unwrap();
        // A valid start request elsewhere, linked in under its id.
        let elsewhere = home.path().join("elsewhere.json");
        let req = StartRequest {
            id: "acps-link".into(),
            agent: "claude-acp".into(),
            cwd: "/".into(),
            plan: false,
            prompt: Some("hi".into()),
            load: None,
        };
        std::fs::write(&elsewhere, serde_json::to_vec(&req).unwrap()).unwrap();
        plant_no_plain_files(
            &start,
            &elsewhere,
            ["acps-link.json", "acps-zero.json", "acps-fifo.json"],
        );
        assert_eq!(take_starts(&roots), Vec::new());
        assert_eq!(std::fs::read_dir(&start).unwrap().count(), 0);
        let commands = dir(&roots, "commands").join("acps-1");
        durable::create_private_dir(&commands).unwrap();
        let stop = home.path().join("stop.json");
        std::fs::write(&stop, serde_json::to_vec(&Command::Stop).unwrap()).unwrap();
        plant_no_plain_files(&commands, &stop, ["1.json", "2.json", "3.json"]);
        assert_eq!(take_commands(&roots, "acps-1"), Vec::new());
        assert!(stop.exists() && elsewhere.exists(), "targets untouched");
        // A plain file is taken only from its own user: one another user made is not read.
        let own = rustix::process::geteuid().as_raw();
        assert_eq!(read_owned_by::<Command>(&stop, own), Some(Command::Stop));
        assert_eq!(read_owned_by::<Command>(&stop, own.wrapping_add(1)), None);
    }

    /// A hostile agent filling its conversation (400 messages of 64K control characters, each six
    /// bytes in JSON, and a plan of 200 such entries) must not make its record too large to read:
    /// the session would vanish from the window and Stop would be refused while it runs on
    /// (hostile review). The record stays readable, its newest entries kept.
    #[test]
    fn a_flooded_conversation_keeps_a_record_that_can_be_read_and_stopped() {
        let home = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(home.path());
        let pid = std::process::id();
        let mut r = idle_record(
            roots.clone(),
            "acps-flood",
            pid,
            crate::process::start_time(pid),
        );
        let big = "\u{1}".repeat(MAX_ENTRY_CHARS);
        let plan = (0..200)
            .map(|_| super::super::PlanEntry {
                content: big.clone(),
                status: "pending".into(),
                priority: String::new(),
            })
            .collect();
        for i in 0..MAX_ENTRIES {
            let kind = if i % 2 == 0 {
                "agent_message_chunk"
            } else {
                "agent_thought_chunk"
            };
            r.on_event(&Event::Update {
                session_id: "s".into(),
                update: Update::Chunk {
                    kind: kind.into(),
                    text: format!("{i}{big}"),
                },
            });
        }
        r.on_event(&Event::Update {
            session_id: "s".into(),
            update: Update::Plan(plan),
        });
        r.save();
        let back = get(&roots, "acps-flood").expect("the record can still be read");
        let [.., message, plan] = back.entries.as_slice() else {
            panic!("entries kept");
        };
        assert!(message.text.starts_with(&format!("{}", MAX_ENTRIES - 1)));
        assert_eq!(plan.kind, "plan");
        assert!(!plan.plan.is_empty());
        command(&roots, "acps-flood", &Command::Stop).expect("Stop is handed over");
    }

    /// A folder of `<data>/acp/` replaced by a symlink (hostile review): a start request and a
    /// session's record are not written through it to wherever it points.
    #[test]
    fn nothing_is_written_through_a_folder_replaced_by_a_symlink() {
        let home = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(home.path());
        let elsewhere = home.path().join("elsewhere");
        std::fs::create_dir_all(&elsewhere).unwrap();
        durable::create_private_dir(&dir(&roots, "")).unwrap();
        std::os::unix::fs::symlink(&elsewhere, dir(&roots, "start")).unwrap();
        assert!(matches!(
            request_start(&roots, "claude-acp", "/r", false, None),
            Err(HostError::Store(_))
        ));
        std::os::unix::fs::symlink(&elsewhere, dir(&roots, "sessions")).unwrap();
        let hosted: Hosted = serde_json::from_value(serde_json::json!({
            "id": "acps-1", "agent": "claude-acp", "displayName": "C", "cwd": "/r",
            "sessionId": null, "state": "idle", "mode": null, "modes": [], "gated": true,
            "ungatedWhy": null, "usage": {}, "problem": null, "hostPid": 1,
            "hostStartTime": null, "agentPid": null, "started": "", "updated": "", "entries": [],
        }))
        .unwrap();
        Record::new(roots, hosted).save();
        assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
    }

    /// `start/` or `commands/<id>/` replaced by a symlink to a folder of the person's (hostile
    /// review): its files are not taken away (a project's `package-lock.json` has a name a start
    /// request could have, and every `*.json` one a command could).
    #[test]
    fn files_are_never_taken_from_a_folder_replaced_by_a_symlink() {
        let home = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(home.path());
        let project = home.path().join("project");
        std::fs::create_dir_all(&project).unwrap();
        let lock = project.join("package-lock.json");
        std::fs::write(&lock, b"{}").unwrap();
        let stop = project.join("stop.json");
        std::fs::write(&stop, serde_json::to_vec(&Command::Stop).unwrap()).unwrap();
        durable::create_private_dir(&dir(&roots, "commands")).unwrap();
        std::os::unix::fs::symlink(&project, dir(&roots, "start")).unwrap();
        std::os::unix::fs::symlink(&project, dir(&roots, "commands").join("acps-1")).unwrap();
        assert_eq!(take_starts(&roots), Vec::new());
        assert_eq!(take_commands(&roots, "acps-1"), Vec::new());
        assert!(lock.exists() && stop.exists(), "the person's files stay");
    }

    #[test]
    fn a_command_for_a_session_that_is_not_there_or_ended_is_refused() {
        let home = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(home.path());
        assert!(matches!(
            command(&roots, "../x", &Command::Stop),
            Err(HostError::NotFound(_))
        ));
        assert!(matches!(
            command(&roots, "acps-none", &Command::Interrupt),
            Err(HostError::NotFound(_))
        ));
        assert!(matches!(
            request_start(&roots, "claude", "/r", false, None),
            Err(HostError::NotAnAgent(_))
        ));
    }
}
