//! Codex CLI: rollouts `sessions/YYYY/MM/DD/rollout-*.jsonl`, lines `{timestamp, type, payload}`.
//!
//! `session_meta` gives the id, cwd, CLI version and git branch; `turn_context` the approval
//! policy (shown as the permission mode) and model; `response_item` messages and function calls;
//! `event_msg` the turn's start and end (`task_started`, `task_complete`, `turn_aborted`) and
//! approval requests when the CLI records them.

mod tools;

use std::borrow::Cow;

use serde::Deserialize;

use crate::agents::codex as agent;
use crate::agents::records::content::{Loose, LooseStr, LooseText};
use crate::agents::records::plan_events::{PlanEvent, PlanFacts};
use crate::agents::records::state::{token_sum, Facts, PendingKind, Turn};
use crate::agents::records::transcript::for_each_record;
use crate::agents::records::{file_name, is_jsonl, walk, PlanKeys, PlanReader, Records, ToolLines};
use crate::config::Roots;
use std::path::{Path, PathBuf};

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    payload: Option<Payload<'a>>,
}

#[derive(Deserialize)]
struct Payload<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    cwd: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    cli_version: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    git: Option<Git<'a>>,
    #[serde(borrow, default)]
    approval_policy: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    model: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    role: Option<Cow<'a, str>>,
    /// Kept loose: its shape differs between payload types.
    #[serde(default)]
    content: Option<serde_json::Value>,
    #[serde(borrow, default)]
    call_id: Option<Cow<'a, str>>,
    /// A function call's name (`shell`, `apply_patch`, …).
    #[serde(default)]
    name: Option<LooseStr<'a>>,
    #[serde(borrow, default)]
    turn_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    collaboration_mode_kind: Option<Cow<'a, str>>,
    /// `session_meta.source`: `cli`, `exec`, `vscode` (an object in some versions: ignored).
    #[serde(default)]
    source: Option<LooseStr<'a>>,
    /// `event_msg` `user_message` (older tagged rollouts).
    #[serde(default)]
    message: Option<LooseStr<'a>>,
    /// `event_msg` `item_completed`: the UI's item (`Plan`, `UserMessage`, …).
    #[serde(borrow, default)]
    item: Option<Item<'a>>,
    /// `event_msg` `token_count`: `total_token_usage`, the thread's tokens so far.
    #[serde(default)]
    info: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct Item<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(default)]
    text: Option<LooseStr<'a>>,
    #[serde(default)]
    content: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct Git<'a> {
    #[serde(borrow, default)]
    branch: Option<Cow<'a, str>>,
}

fn set(slot: &mut Option<String>, v: &Option<Cow<'_, str>>) {
    if let Some(v) = v.as_deref().filter(|v| !v.is_empty()) {
        if slot.as_deref() != Some(v) {
            *slot = Some(v.to_owned());
        }
    }
}

/// A rollout line's tool activity, as verification reads it. Every field loose: a shape not
/// expected is left out, never makes the line unreadable.
pub(crate) enum ToolEvent {
    /// A shell command was run (`function_call`, `local_shell_call`).
    Command {
        call_id: String,
        at: Option<String>,
        command: String,
    },
    /// A patch was applied (`apply_patch` as a function or custom tool, or a shell call carrying
    /// one): its text.
    Patch {
        call_id: String,
        at: Option<String>,
        patch: String,
    },
    /// A call's output: its text and, when the output says it, the exit code.
    Output {
        call_id: String,
        text: String,
        exit_code: Option<i32>,
    },
    /// `exec_command_end`: how a command ended.
    ExecEnd {
        call_id: String,
        exit_code: Option<i32>,
    },
}

#[derive(Deserialize)]
struct ToolLine<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<LooseStr<'a>>,
    #[serde(borrow, default)]
    timestamp: Option<LooseStr<'a>>,
    #[serde(borrow, default)]
    payload: Option<Loose<ToolPayload<'a>>>,
}

#[derive(Deserialize)]
struct ToolPayload<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<LooseStr<'a>>,
    #[serde(borrow, default)]
    name: Option<LooseStr<'a>>,
    #[serde(borrow, default)]
    call_id: Option<LooseStr<'a>>,
    /// `function_call`: an object, or the JSON text of one.
    #[serde(default)]
    arguments: Option<Arguments>,
    /// `local_shell_call`: the command to run.
    #[serde(borrow, default)]
    action: Option<Loose<RawArgs<'a>>>,
    /// `custom_tool_call`: the tool's input (the patch).
    #[serde(borrow, default)]
    input: Option<LooseStr<'a>>,
    #[serde(borrow, default)]
    output: Option<crate::agents::records::content::Content<'a, LooseText<'a>>>,
    #[serde(default)]
    exit_code: Option<serde_json::Value>,
}

/// A call's arguments as written: its `input`, and its `command` (a list of words or a string) or
/// `cmd`.
#[derive(Deserialize)]
struct RawArgs<'a> {
    #[serde(borrow, default)]
    input: Option<LooseStr<'a>>,
    #[serde(borrow, default)]
    command: Option<crate::agents::records::content::Content<'a, LooseStr<'a>>>,
    #[serde(borrow, default)]
    cmd: Option<LooseStr<'a>>,
}

/// What a call's arguments say.
#[derive(Default)]
struct Args {
    input: Option<String>,
    command: Option<String>,
}

impl From<RawArgs<'_>> for Args {
    fn from(raw: RawArgs<'_>) -> Args {
        use crate::agents::records::content::Content::{Items, Text};
        let text = |s: Option<LooseStr<'_>>| s.and_then(|s| s.0).map(Cow::into_owned);
        let command = match raw.command {
            Some(Items(words)) => Some(shell_words(
                words.iter().filter_map(LooseStr::as_str).collect(),
            )),
            Some(Text(s)) => Some(s.into_owned()),
            _ => text(raw.cmd),
        };
        Args {
            input: text(raw.input),
            command,
        }
    }
}

/// `arguments`: an object, or a string holding one as JSON; anything else says nothing.
struct Arguments(Args);

impl<'de> Deserialize<'de> for Arguments {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use crate::agents::records::content::ObjectOrText;
        let args = match ObjectOrText::<RawArgs<'de>>::deserialize(d)? {
            ObjectOrText::Object(raw) => Args::from(raw),
            ObjectOrText::Text(text) => serde_json::from_str::<RawArgs<'_>>(&text)
                .map(Args::from)
                .unwrap_or_default(),
            ObjectOrText::Other => Args::default(),
        };
        Ok(Arguments(args))
    }
}

/// `["bash", "-lc", "cargo test"]` → `cargo test`; anything else joined by spaces.
fn shell_words(words: Vec<&str>) -> String {
    match words.as_slice() {
        [sh, flag, script] if sh.ends_with("sh") && flag.starts_with('-') && flag.contains('c') => {
            (*script).to_owned()
        }
        _ => words.join(" "),
    }
}

/// What a call's output JSON says (some versions wrap it: `{output, metadata: {exit_code}}`).
#[derive(Deserialize)]
struct WrappedOutput<'a> {
    #[serde(borrow, default)]
    output: Option<crate::agents::records::content::Content<'a, LooseText<'a>>>,
    #[serde(default)]
    metadata: Option<Loose<OutputMeta>>,
}

#[derive(Deserialize)]
struct OutputMeta {
    #[serde(default)]
    exit_code: Option<serde_json::Value>,
}

fn exit_code(v: Option<&serde_json::Value>) -> Option<i32> {
    v?.as_i64().and_then(|c| i32::try_from(c).ok())
}

/// The tool activity of a rollout line (glued records each read), for verification. False when the
/// line is not JSON.
pub(crate) fn tool_events(line: &[u8], on_event: &mut dyn FnMut(ToolEvent)) -> bool {
    for_each_record::<ToolLine<'_>>(line, &mut |rec| {
        let Some(p) = rec.payload.and_then(|p| p.0) else {
            return;
        };
        let str_of = LooseStr::owned;
        let at = str_of(&rec.timestamp);
        let call_id = str_of(&p.call_id).unwrap_or_default();
        let kind = p.kind.as_ref().and_then(LooseStr::as_str);
        let name = p.name.as_ref().and_then(LooseStr::as_str);
        match (rec.kind.as_ref().and_then(LooseStr::as_str), kind) {
            (Some("response_item"), Some(kind @ ("function_call" | "local_shell_call"))) => {
                let args = p.arguments.map(|a| a.0).unwrap_or_default();
                if name == Some("apply_patch") {
                    let patch = args.input.unwrap_or_default();
                    on_event(ToolEvent::Patch { call_id, at, patch });
                    return;
                }
                let args = if kind == "local_shell_call" {
                    p.action
                        .and_then(|a| a.0)
                        .map(Args::from)
                        .unwrap_or_default()
                } else {
                    args
                };
                let Some(command) = args.command else {
                    return;
                };
                on_event(if command.contains("*** Begin Patch") {
                    ToolEvent::Patch {
                        call_id,
                        at,
                        patch: command,
                    }
                } else {
                    ToolEvent::Command {
                        call_id,
                        at,
                        command,
                    }
                });
            }
            (Some("response_item"), Some("custom_tool_call")) if name == Some("apply_patch") => {
                let patch = str_of(&p.input).unwrap_or_default();
                on_event(ToolEvent::Patch { call_id, at, patch });
            }
            (Some("response_item"), Some("function_call_output" | "custom_tool_call_output")) => {
                let raw = crate::agents::records::content::text_of(p.output);
                let (text, exit_code) = match serde_json::from_str::<WrappedOutput<'_>>(&raw) {
                    Ok(w) => (
                        crate::agents::records::content::text_of(w.output),
                        exit_code(
                            w.metadata
                                .and_then(|m| m.0)
                                .and_then(|m| m.exit_code)
                                .as_ref(),
                        ),
                    ),
                    Err(_) => (raw.clone(), None),
                };
                on_event(ToolEvent::Output {
                    call_id,
                    text,
                    exit_code,
                });
            }
            (Some("event_msg"), Some("exec_command_end")) => {
                on_event(ToolEvent::ExecEnd {
                    call_id,
                    exit_code: exit_code(p.exit_code.as_ref()),
                });
            }
            _ => {}
        }
    })
}

/// Folds one rollout line into `facts`.
pub fn feed_line(facts: &mut Facts, line: &[u8]) {
    let ok = for_each_record::<Line<'_>>(line, &mut |rec| apply(facts, rec));
    if !ok {
        facts.unreadable += 1;
    }
}

fn apply(facts: &mut Facts, rec: Line<'_>) {
    if let Some(ts) = rec.timestamp.as_deref() {
        facts.saw_time(ts);
    }
    let Some(p) = rec.payload else { return };
    match (rec.kind.as_deref(), p.kind.as_deref()) {
        (Some("session_meta"), _) => {
            if facts.session_id.is_none() {
                set(&mut facts.session_id, &p.id);
            }
            set(&mut facts.cwd, &p.cwd);
            set(&mut facts.version, &p.cli_version);
            if let Some(git) = &p.git {
                set(&mut facts.git_branch, &git.branch);
            }
        }
        (Some("turn_context"), _) => {
            set(&mut facts.cwd, &p.cwd);
            set(&mut facts.permission_mode, &p.approval_policy);
            set(&mut facts.model, &p.model);
        }
        (Some("response_item"), Some("message")) => {
            let parts = p.content.as_ref().and_then(|c| c.as_array());
            let texts = parts
                .into_iter()
                .flatten()
                .filter_map(|c| c.get("text").and_then(|t| t.as_str()));
            match p.role.as_deref() {
                Some("user") => {
                    for t in texts {
                        // Codex sends its environment and instructions as tagged user messages.
                        if !t.trim_start().starts_with('<') {
                            facts.set_title(t);
                            facts.turn = Turn::Running;
                        }
                    }
                }
                Some("assistant") => {
                    for t in texts {
                        facts.did_say(t);
                    }
                    facts.turn = Turn::Running;
                }
                _ => {}
            }
        }
        (
            Some("response_item"),
            Some("function_call" | "custom_tool_call" | "local_shell_call"),
        ) => {
            if let Some(id) = p.call_id.as_deref() {
                facts.open_call(id, PendingKind::Other);
            }
            let name = p.name.as_ref().and_then(LooseStr::as_str);
            facts.did_call(name.unwrap_or("shell"), None);
            facts.turn = Turn::Running;
        }
        (Some("response_item"), Some("function_call_output" | "custom_tool_call_output")) => {
            if let Some(id) = p.call_id.as_deref() {
                facts.close_call(id);
            }
            facts.turn = Turn::Running;
        }
        (Some("event_msg"), Some("token_count")) => {
            // The thread's totals so far (input counts cached input; output counts reasoning).
            let total = p.info.as_ref().and_then(|i| i.get("total_token_usage"));
            if total.is_some() {
                facts.usage_mut().set_totals(
                    token_sum(total, &["input_tokens"]),
                    token_sum(total, &["output_tokens"]),
                    None,
                );
            }
        }
        (Some("event_msg"), Some("task_started" | "user_message")) => facts.turn = Turn::Running,
        (Some("event_msg"), Some("task_complete" | "turn_aborted")) => {
            facts.turn = Turn::Ended;
            facts.pending.clear();
        }
        (Some("event_msg"), Some("exec_approval_request" | "apply_patch_approval_request")) => {
            let id = p.call_id.as_deref().unwrap_or("approval");
            facts.open_call(id, PendingKind::Question);
        }
        (Some("event_msg"), Some("exec_command_end" | "patch_apply_end")) => {
            if let Some(id) = p.call_id.as_deref() {
                facts.close_call(id);
            }
        }
        _ => {}
    }
}

/// Where in `hay` (bytes as read, any number of lines) the first line worth parsing has a marker
/// (see `claude::plan_candidate`).
pub(crate) fn plan_candidate(_pf: &PlanFacts, hay: &[u8]) -> Option<usize> {
    crate::agents::records::transcript::first_of!(
        hay,
        [
            b"session_meta",
            b"task_started",
            b"item_completed",
            b"user_message",
            b"<proposed_plan>",
        ]
    )
}

/// Parses one rollout line into the plan-history facts: turns and their mode, the person's
/// messages, `Plan` items and `<proposed_plan>` blocks
/// (see [`crate::history`]): a line that [`plan_candidate`] pointed at.
pub(crate) fn plan_parse(pf: &mut PlanFacts, line: &[u8]) {
    crate::agents::records::transcript::parse_plan_line::<Line<'_>>(pf, line, plan_record);
}

fn texts(content: &Option<serde_json::Value>) -> impl Iterator<Item = &str> {
    content
        .as_ref()
        .and_then(|c| c.as_array())
        .into_iter()
        .flatten()
        .filter_map(|c| c.get("text").and_then(|t| t.as_str()))
}

fn plan_record(pf: &mut PlanFacts, rec: Line<'_>) {
    let at = rec.timestamp.as_deref().map(str::to_owned);
    let Some(p) = rec.payload else { return };
    match (rec.kind.as_deref(), p.kind.as_deref()) {
        (Some("session_meta"), _) => {
            PlanFacts::set_once(&mut pf.session_id, p.id.as_deref());
            PlanFacts::set_once(&mut pf.cwd, p.cwd.as_deref());
            PlanFacts::set_once(
                &mut pf.source,
                p.source.as_ref().and_then(|s| s.0.as_deref()),
            );
        }
        (Some("event_msg"), Some("task_started")) => pf.events.push(PlanEvent::Turn {
            id: p.turn_id.as_deref().map(str::to_owned),
            at,
            mode: p
                .collaboration_mode_kind
                .as_deref()
                .unwrap_or("default")
                .to_owned(),
        }),
        (Some("event_msg"), Some("item_completed")) => {
            let Some(item) = p.item else { return };
            match item.kind.as_deref() {
                Some("Plan") => {
                    let Some(text) = item.text.and_then(|t| t.0) else {
                        return;
                    };
                    let call = item
                        .id
                        .as_deref()
                        .map(str::to_owned)
                        .unwrap_or_else(|| format!("plan-{}", pf.events.len()));
                    if !pf.submitted(&call) {
                        pf.events.push(PlanEvent::Submitted {
                            call,
                            at,
                            text: Some(text.into_owned()),
                            path: None,
                            turn: p.turn_id.as_deref().map(str::to_owned),
                        });
                    }
                }
                Some("UserMessage") => {
                    let text = texts(&item.content).collect::<Vec<_>>().join("\n");
                    said(pf, at, text);
                }
                _ => {}
            }
        }
        (Some("event_msg"), Some("user_message")) => {
            if let Some(text) = p.message.and_then(|m| m.0) {
                said(pf, at, text.into_owned());
            }
        }
        (Some("response_item"), Some("message")) if p.role.as_deref() == Some("assistant") => {
            for t in texts(&p.content) {
                if let Some(plan) = proposed_plan(t) {
                    pf.events.push(PlanEvent::Proposed {
                        at: at.clone(),
                        text: plan.to_owned(),
                    });
                }
            }
        }
        _ => {}
    }
}

/// Records the person's message once (0.169 writes it as an item; older rollouts as an event).
fn said(pf: &mut PlanFacts, at: Option<String>, text: String) {
    let repeat = pf.events.iter().rev().find_map(|e| match e {
        PlanEvent::Said { text: t, .. } => Some(t == &text),
        PlanEvent::Turn { .. } => Some(false),
        _ => None,
    });
    if repeat == Some(true) {
        return;
    }
    const FRESH: &str = "Read the approved plan at ";
    if let Some(rest) = text.strip_prefix(FRESH) {
        if let Some((path, _)) = rest.split_once(" and implement it") {
            pf.events.push(PlanEvent::FreshThread {
                at: at.clone(),
                attachment: path.to_owned(),
            });
        }
    }
    pf.events.push(PlanEvent::Said { at, text });
}

/// The text inside the first `<proposed_plan>…</proposed_plan>` block, tags and the newlines next
/// to them removed.
pub(crate) fn proposed_plan(text: &str) -> Option<&str> {
    let start = text.find("<proposed_plan>")? + "<proposed_plan>".len();
    let end = start + text[start..].find("</proposed_plan>")?;
    let inner = &text[start..end];
    Some(inner.strip_prefix('\n').unwrap_or(inner))
}

/// The rollout's latest proposed plan, when no turn has started since it (the popup "Implement
/// this plan?" may be waiting for it): what the gate files a request from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WaitingPlan {
    pub session_id: String,
    pub cwd: String,
    /// `session_meta.source`: `cli`, `vscode` (under the shared daemon), `exec` (headless).
    pub source: Option<String>,
    /// The `Plan` item's id (`<turn_id>-plan`).
    pub item_id: String,
    /// The plan, as the `Plan` item holds it (no tags).
    pub text: String,
    /// The byte offset just after the `Plan` item's line: a turn started after it answers it.
    pub offset: u64,
}

/// The most a rollout may weigh for the gate to read it whole.
const WAITING_MAX: u64 = 64 * 1024 * 1024;

/// Reads the rollout at `path` for its latest `Plan` item with no turn started after it.
pub(crate) fn waiting_plan(path: &std::path::Path) -> Option<WaitingPlan> {
    use std::io::BufRead;
    let file = std::fs::File::open(path).ok()?;
    if file.metadata().ok()?.len() > WAITING_MAX {
        return None;
    }
    let mut reader = std::io::BufReader::new(file);
    let (mut session_id, mut cwd, mut source) = (None, None, None);
    let mut plan: Option<(String, String, u64)> = None;
    let mut offset = 0u64;
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = reader.read_until(b'\n', &mut line).ok()?;
        if n == 0 || line.last() != Some(&b'\n') {
            // The end, or a line still being written: read on the next look.
            break;
        }
        offset += n as u64;
        let Ok(rec) = serde_json::from_slice::<Line<'_>>(&line) else {
            continue;
        };
        let Some(p) = rec.payload else { continue };
        match (rec.kind.as_deref(), p.kind.as_deref()) {
            (Some("session_meta"), _) => {
                session_id = session_id.or(p.id.as_deref().map(str::to_owned));
                cwd = cwd.or(p.cwd.as_deref().map(str::to_owned));
                source = source.or(p.source.and_then(|s| s.0).map(|s| s.into_owned()));
            }
            (Some("event_msg"), Some("task_started")) => plan = None,
            (Some("event_msg"), Some("item_completed")) => {
                let Some(item) = p.item else { continue };
                if item.kind.as_deref() != Some("Plan") {
                    continue;
                }
                let (Some(id), Some(text)) = (item.id, item.text.and_then(|t| t.0)) else {
                    continue;
                };
                plan = Some((id.into_owned(), text.into_owned(), offset));
            }
            _ => {}
        }
    }
    let (item_id, text, offset) = plan?;
    Some(WaitingPlan {
        session_id: session_id?,
        cwd: cwd.unwrap_or_default(),
        source,
        item_id,
        text,
        offset,
    })
}

/// A rollout's session id and folder, from its first line (`session_meta`).
pub(crate) fn rollout_meta(path: &std::path::Path) -> Option<(String, String)> {
    use std::io::{BufRead, Read};
    let file = std::fs::File::open(path).ok()?;
    let mut line = Vec::new();
    std::io::BufReader::new(file.take(256 * 1024))
        .read_until(b'\n', &mut line)
        .ok()?;
    let rec = serde_json::from_slice::<Line<'_>>(&line).ok()?;
    let p = rec
        .payload
        .filter(|_| rec.kind.as_deref() == Some("session_meta"))?;
    Some((p.id?.into_owned(), p.cwd?.into_owned()))
}

/// Whether a rollout line starts a turn (`event_msg` `task_started`): after a proposed plan, the
/// popup's answer (`1` implement) or the person's next message.
pub(crate) fn starts_turn(line: &[u8]) -> bool {
    memchr::memmem::find(line, b"task_started").is_some()
        && serde_json::from_slice::<Line<'_>>(line).is_ok_and(|rec| {
            rec.kind.as_deref() == Some("event_msg")
                && rec.payload.and_then(|p| p.kind).as_deref() == Some("task_started")
        })
}

/// Codex CLI's records: rollouts `sessions/YYYY/MM/DD/rollout-*.jsonl`.
pub(crate) struct CodexRecords;

impl Records for CodexRecords {
    fn transcripts(&self, roots: &Roots) -> Vec<PathBuf> {
        let mut rollouts = Vec::new();
        walk(&agent::sessions_dir(&roots.codex), 0, &mut rollouts, &|p| {
            is_jsonl(p) && file_name(p).starts_with("rollout-")
        });
        rollouts
    }

    fn is_transcript(&self, roots: &Roots, path: &Path) -> bool {
        is_jsonl(path)
            && path.starts_with(agent::sessions_dir(&roots.codex))
            && file_name(path).starts_with("rollout-")
    }

    fn watch_roots(&self, roots: &Roots) -> Vec<PathBuf> {
        vec![agent::sessions_dir(&roots.codex)]
    }

    fn feed_line(&self, facts: &mut Facts, line: &[u8]) {
        feed_line(facts, line)
    }

    fn tool_lines(&self) -> Option<ToolLines> {
        Some(ToolLines::new(tools::MARKERS, tools::read_line))
    }

    fn plan_reader(&self) -> Option<PlanReader> {
        Some(PlanReader::new(plan_candidate, plan_parse))
    }

    fn plan_keys(&self) -> Option<PlanKeys> {
        Some(PlanKeys::Thread)
    }

    /// `…/attachments/<rest>` is `attachments/<rest>` under its root.
    fn attachment(&self, roots: &Roots, named: &str) -> Option<PathBuf> {
        let (_, rest) = named.split_once("/attachments/")?;
        Some(roots.codex.join("attachments").join(rest))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A thread started from an approved plan names the attachment where it was written (another
    /// machine's or an older root): the history reads Codex's own copy under this root.
    #[test]
    fn an_attachment_named_elsewhere_is_read_under_its_own_root() {
        let roots = Roots::under_home(Path::new("/h"));
        assert_eq!(
            CodexRecords.attachment(&roots, "/other/.codex/attachments/a1/plan.md"),
            Some(PathBuf::from("/h/.codex/attachments/a1/plan.md"))
        );
        assert_eq!(CodexRecords.attachment(&roots, "/tmp/plan.md"), None);
    }

    #[test]
    fn meta_context_and_task_complete() {
        let mut f = Facts::default();
        for l in [
            r#"{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"s1","cwd":"/r","cli_version":"0.50.0","git":{"branch":"main"}}}"#,
            r#"{"timestamp":"2026-01-01T00:00:00Z","type":"turn_context","payload":{"cwd":"/r","approval_policy":"on-request","model":"gpt-5-codex"}}"#,
            r#"{"timestamp":"2026-01-01T00:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"add a CHANGELOG entry"}]}}"#,
        ] {
            feed_line(&mut f, l.as_bytes());
        }
        assert_eq!(
            (f.session_id.as_deref(), f.cwd.as_deref()),
            (Some("s1"), Some("/r"))
        );
        assert_eq!(f.permission_mode.as_deref(), Some("on-request"));
        assert_eq!(f.title.as_deref(), Some("add a CHANGELOG entry"));
        assert_eq!(f.turn, Turn::Running);
        feed_line(&mut f, br#"{"timestamp":"2026-01-01T00:00:05Z","type":"event_msg","payload":{"type":"task_complete"}}"#);
        assert_eq!(f.turn, Turn::Ended);
    }

    #[test]
    fn the_last_call_or_message_is_what_it_is_doing() {
        let mut f = Facts::default();
        feed_line(&mut f, br#"{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"I will add the entry."}]}}"#);
        assert_eq!(f.doing.as_deref(), Some("I will add the entry."));
        feed_line(&mut f, br#"{"type":"response_item","payload":{"type":"function_call","name":"apply_patch","call_id":"c1"}}"#);
        assert_eq!(f.doing.as_deref(), Some("apply_patch"));
    }

    const FIXTURES: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/codex-cli-0.169.0/sessions/2026/11/23"
    );

    fn fixture(prefix: &str) -> std::path::PathBuf {
        let dir = std::path::Path::new(FIXTURES);
        let found = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("fixture folder {}: {e}", dir.display()))
            .flatten()
            .map(|e| e.path())
            .find(|p| p.file_name().unwrap().to_string_lossy().starts_with(prefix));
        found.unwrap_or_else(|| panic!("fixture {prefix}* missing"))
    }

    /// A plan still waiting (the `undecided` recording) is found with what a request needs; a
    /// plan answered by a later turn (accepted, revised then accepted, left Plan mode), or none
    /// (headless `exec`), is not.
    #[test]
    fn a_plan_with_no_turn_after_it_is_waiting() {
        let path = fixture("rollout-2026-11-23T09-06-18-01a207a7-f7fe");
        let w = waiting_plan(&path).expect("the undecided plan");
        assert_eq!(w.session_id, "01a207a7-f7fe-7201-ac2d-8334cc0ede60");
        assert_eq!(w.cwd, "/home/dev/work/api");
        assert_eq!(w.source.as_deref(), Some("cli"));
        assert!(w.item_id.ends_with("-plan"), "{}", w.item_id);
        assert_eq!(
            w.text,
            "# Plan: add pagination\n\n1. Add `page` and `limit` params\n2. Return a cursor\n3. Write tests\n"
        );
        let bytes = std::fs::read(&path).unwrap();
        let rest = &bytes[w.offset as usize..];
        assert!(!rest.split(|b| *b == b'\n').any(starts_turn));
        for answered in [
            "rollout-2026-11-23T09-06-03-01a207a7-be64",
            "rollout-2026-11-23T09-06-10-01a207a7-dafa",
            "rollout-2026-11-23T09-11-28-01a207ac-b3b8",
            "rollout-2026-11-23T09-06-41-01a207a8-53e4",
        ] {
            assert_eq!(waiting_plan(&fixture(answered)), None, "{answered}");
        }
    }

    /// The turn that answers a plan (the popup's `1`) is seen after the plan item's line.
    #[test]
    fn the_turn_after_a_plan_answers_it() {
        let path = fixture("rollout-2026-11-23T09-06-03-01a207a7-be64");
        let bytes = std::fs::read(&path).unwrap();
        let lines: Vec<&[u8]> = bytes.split(|b| *b == b'\n').collect();
        let plan_at = lines
            .iter()
            .position(|l| memchr::memmem::find(l, br#""type":"Plan""#).is_some())
            .expect("a Plan item");
        assert_eq!(
            lines[..plan_at].iter().filter(|l| starts_turn(l)).count(),
            1
        );
        assert_eq!(
            lines[plan_at..].iter().filter(|l| starts_turn(l)).count(),
            1
        );
    }
}
