//! Codex CLI: rollouts `sessions/YYYY/MM/DD/rollout-*.jsonl`, lines `{timestamp, type, payload}`.
//!
//! `session_meta` gives the id, cwd, CLI version and git branch; `turn_context` the approval
//! policy (shown as the permission mode) and model; `response_item` messages and function calls;
//! `event_msg` the turn's start and end (`task_started`, `task_complete`, `turn_aborted`) and
//! approval requests when the CLI records them.

use std::borrow::Cow;

use serde::Deserialize;

use super::content::LooseStr;
use super::plan_events::{PlanEvent, PlanFacts};
use super::state::{Facts, PendingKind, Turn};
use super::transcript::for_each_record;

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
                Some("assistant") => facts.turn = Turn::Running,
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
            facts.turn = Turn::Running;
        }
        (Some("response_item"), Some("function_call_output" | "custom_tool_call_output")) => {
            if let Some(id) = p.call_id.as_deref() {
                facts.close_call(id);
            }
            facts.turn = Turn::Running;
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
    super::transcript::first_of!(
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
    super::transcript::parse_plan_line::<Line<'_>>(pf, line, plan_record);
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
