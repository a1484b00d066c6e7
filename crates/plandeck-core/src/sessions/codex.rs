//! Codex CLI: rollouts `sessions/YYYY/MM/DD/rollout-*.jsonl`, lines `{timestamp, type, payload}`.
//!
//! `session_meta` gives the id, cwd, CLI version and git branch; `turn_context` the approval
//! policy (shown as the permission mode) and model; `response_item` messages and function calls;
//! `event_msg` the turn's start and end (`task_started`, `task_complete`, `turn_aborted`) and
//! approval requests when the CLI records them.

use std::borrow::Cow;

use serde::Deserialize;

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
    let ok = for_each_record::<Line>(line, &mut |rec| apply(facts, rec));
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
