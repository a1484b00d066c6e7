//! An ACP agent's permission requests as waiting requests, and whether its session stayed gated.
//!
//! A [`Tracker`] follows one connection's [`Event`]s: each `session/request_permission` becomes a
//! [`Waiting`] request, kind [`RequestKind::Plan`] when it asks to leave plan mode (Claude's
//! `switch_mode` with `rawInput.plan`; Gemini's "plan approval" title, its text from the plan
//! file's diff) or [`RequestKind::Permission`] for any other tool. A decision is answered only with
//! one of **that** request's options (approve: an `allow_*` one; reject: a `reject_*` one), never a
//! guess; exactly once (a request decided or ended is no longer open). An agent that ends with a
//! request open leaves it [`Outcome::NoOutcome`]. A session that leaves plan mode, or edits a file
//! (not its plan file) while in it, with no permission answered for it is no longer gated.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::{one_line, Event, PermissionOption, PermissionRequest, ToolCall, Update};

use crate::gate::AcpDiff;
pub use crate::gate::RequestKind;

/// A permission request waiting for the person.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Waiting {
    /// The agent's id of the request (a JSON number or string), to answer it.
    #[serde(skip)]
    pub rpc_id: Value,
    pub session_id: String,
    pub kind: RequestKind,
    pub tool_call_id: String,
    /// The tool call's title, on one visible line (bounded).
    pub title: String,
    /// The tool call's kind as the agent sent it (`switch_mode`, `execute`, `edit`, …).
    pub tool_kind: Option<String>,
    /// A plan's text, as sent (data: rendered sanitized like every plan).
    pub plan: Option<String>,
    /// The hex SHA-256 of `plan`, as every plan's hash.
    pub plan_hash: Option<String>,
    /// A command the tool would run (`rawInput.command`), on one visible line.
    pub command: Option<String>,
    /// The file a tool would touch (`rawInput.file_path` / `path`, or the call's first location).
    pub path: Option<String>,
    /// The change the tool would make (its first `diff`), bounded.
    #[serde(default)]
    pub diff: Option<AcpDiff>,
    pub options: Vec<PermissionOption>,
}

/// The most characters of a diff's side kept for the person to read (more is cut, said so).
pub const MAX_DIFF_CHARS: usize = 256 * 1024;

fn bounded(text: &str) -> String {
    if text.chars().count() <= MAX_DIFF_CHARS {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(MAX_DIFF_CHARS).collect();
    out.push_str("\n… (cut: longer than Plandeck shows)\n");
    out
}

/// A tool call's first diff, bounded.
fn first_diff(call: &ToolCall) -> Option<AcpDiff> {
    let d = call
        .content
        .as_ref()?
        .as_array()?
        .iter()
        .find(|c| c.get("type").and_then(Value::as_str) == Some("diff"))?;
    Some(AcpDiff {
        path: one_line(d.get("path")?.as_str()?),
        old_text: d.get("oldText").and_then(Value::as_str).map(bounded),
        new_text: bounded(d.get("newText")?.as_str()?),
    })
}

/// How a request ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "outcome",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Outcome {
    Approved {
        option_id: String,
    },
    Rejected {
        option_id: String,
    },
    /// The agent ended with the request open: never approved.
    NoOutcome,
}

/// A decision to send: answer `rpc_id` with `response` ([`super::Client::respond`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Decided {
    pub rpc_id: Value,
    pub response: Value,
    pub outcome: Outcome,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecideError {
    #[error("that request is not waiting (decided already, or its agent ended)")]
    NotWaiting,
    #[error("the agent did not offer {option_id:?} for this request")]
    NotAnOption { option_id: String },
    #[error("{option_id:?} does not allow: approve with one of the agent's allow options")]
    NotAnAllow { option_id: String },
    #[error("the agent offered no option that allows this")]
    NoAllowOption,
    #[error("the agent offered no option that rejects this: it can only be approved or left")]
    NoRejectOption,
}

/// One connection's requests and gating.
#[derive(Debug, Clone)]
pub struct Tracker {
    mode: Option<String>,
    ungated: Option<String>,
    /// A plan permission approved since plan mode was entered: leaving it is no surprise.
    plan_exit_allowed: bool,
    /// Tool calls a permission was approved for.
    allowed_calls: Vec<String>,
    /// The plan as last seen in a `plan` update or a plan file's diff.
    latest_plan: Option<String>,
    open: Vec<Waiting>,
    ended: Vec<(Waiting, Outcome)>,
    /// Decisions sent that the agent has not yet acted on (`(rpc id, tool call id)`): an update
    /// of that tool call, or the turn's end, confirms one; the agent's end first leaves it with
    /// no outcome (it may never have read it).
    unconfirmed: Vec<(Value, String)>,
    skipped: usize,
}

impl Default for Tracker {
    fn default() -> Self {
        Tracker::new()
    }
}

impl Tracker {
    pub fn new() -> Tracker {
        Tracker {
            mode: None,
            ungated: None,
            plan_exit_allowed: false,
            allowed_calls: Vec::new(),
            latest_plan: None,
            open: Vec::new(),
            ended: Vec::new(),
            unconfirmed: Vec::new(),
            skipped: 0,
        }
    }

    /// The mode the client set (`session/set_mode` answered).
    pub fn mode_set(&mut self, mode: &str) {
        self.enter_mode(mode);
    }

    /// The session's mode as last known.
    pub fn mode(&self) -> Option<&str> {
        self.mode.as_deref()
    }

    /// Whether every way out of plan mode went through the person (`gated` in listings).
    pub fn gated(&self) -> bool {
        self.ungated.is_none()
    }

    /// Why the session is not gated, in the person's words.
    pub fn ungated_why(&self) -> Option<&str> {
        self.ungated.as_deref()
    }

    pub fn open(&self) -> &[Waiting] {
        &self.open
    }

    pub fn ended(&self) -> &[(Waiting, Outcome)] {
        &self.ended
    }

    /// How many things were read and skipped (unknown updates, bad lines).
    pub fn skipped(&self) -> usize {
        self.skipped
    }

    /// Follows one event; a new waiting request is returned.
    pub fn on_event(&mut self, event: &Event) -> Option<Waiting> {
        match event {
            Event::Permission { rpc_id, request } => {
                let w = self.waiting(rpc_id.clone(), request);
                self.open.push(w.clone());
                Some(w)
            }
            Event::Update { update, .. } => {
                self.on_update(update);
                None
            }
            Event::Skipped(_) => {
                self.skipped += 1;
                None
            }
            Event::Exited => {
                for w in std::mem::take(&mut self.open) {
                    self.ended.push((w, Outcome::NoOutcome));
                }
                for (rpc_id, _) in std::mem::take(&mut self.unconfirmed) {
                    self.not_delivered(&rpc_id);
                }
                None
            }
        }
    }

    fn enter_mode(&mut self, mode: &str) {
        if self.mode.as_deref() == Some(mode) {
            return;
        }
        if mode == "plan" {
            self.plan_exit_allowed = false;
        }
        self.mode = Some(mode.to_owned());
    }

    fn on_update(&mut self, update: &Update) {
        match update {
            Update::Mode(m) => {
                if self.mode.as_deref() == Some("plan") && m != "plan" && !self.plan_exit_allowed {
                    self.ungate(format!(
                        "it left plan mode (for {:?}) with no permission asked",
                        one_line(m)
                    ));
                }
                self.enter_mode(m);
            }
            Update::Plan(entries) => {
                let text: String = entries
                    .iter()
                    .enumerate()
                    .map(|(i, e)| format!("{}. {}\n", i + 1, e.content))
                    .collect();
                self.latest_plan = Some(text);
            }
            Update::ToolCall { call, .. } => {
                self.unconfirmed.retain(|(_, c)| c != &call.tool_call_id);
                for (path, text) in diffs(call) {
                    if in_plans_folder(&path) {
                        self.latest_plan = Some(text);
                    }
                }
                let edit = call.kind.as_deref() == Some("edit");
                if edit
                    && call.status.as_deref() == Some("completed")
                    && self.mode.as_deref() == Some("plan")
                    && !self.allowed_calls.contains(&call.tool_call_id)
                {
                    let target = target_path(call);
                    if !target.as_deref().is_some_and(in_plans_folder) {
                        self.ungate(format!(
                            "it edited {} in plan mode with no permission asked",
                            target.map(|p| one_line(&p)).unwrap_or("a file".into())
                        ));
                    }
                }
            }
            _ => {}
        }
    }

    /// An agent whose plan mode asks nothing to leave it (no permission round-trip: OpenCode's
    /// `plan` agent, docs/agents.md) was put in plan mode: nothing holds its plan for the person,
    /// so the session is not gated from the start, said so in the person's words (`agent`: its
    /// name as shown). Nothing changes when it is not in plan mode.
    pub fn plan_mode_without_gate(&mut self, agent: &str) {
        if self.mode.as_deref() == Some("plan") {
            self.ungate(format!(
                "{} asks nothing to leave plan mode: its plan does not wait for you",
                one_line(agent)
            ));
        }
    }

    fn ungate(&mut self, why: String) {
        tracing::warn!(why, "acp: session ungated");
        if self.ungated.is_none() {
            self.ungated = Some(why);
        }
    }

    fn waiting(&self, rpc_id: Value, req: &PermissionRequest) -> Waiting {
        let call = &req.tool_call;
        let raw = call.raw_input.as_ref();
        let title = call.title.as_deref().unwrap_or("");
        let raw_plan = raw
            .and_then(|r| r.get("plan"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let asks_plan_approval = title.to_lowercase().contains("plan approval");
        let is_plan = (call.kind.as_deref() == Some("switch_mode") && raw_plan.is_some())
            || asks_plan_approval;
        let plan = if is_plan {
            raw_plan.or_else(|| self.latest_plan.clone())
        } else {
            None
        };
        let command = raw.and_then(|r| r.get("command")).and_then(|c| match c {
            Value::String(s) => Some(one_line(s)),
            Value::Array(a) => Some(one_line(
                &a.iter()
                    .map(|p| p.as_str().unwrap_or("?"))
                    .collect::<Vec<_>>()
                    .join(" "),
            )),
            _ => None,
        });
        Waiting {
            rpc_id,
            session_id: req.session_id.clone(),
            kind: if is_plan {
                RequestKind::Plan
            } else {
                RequestKind::Permission
            },
            tool_call_id: call.tool_call_id.clone(),
            title: one_line(title),
            tool_kind: call.kind.as_deref().map(one_line),
            plan_hash: plan
                .as_ref()
                .map(|p| crate::review::store::hash(p.as_bytes())),
            plan,
            command,
            path: target_path(call).map(|p| one_line(&p)),
            diff: first_diff(call),
            options: req
                .options
                .iter()
                .map(|o| PermissionOption {
                    option_id: o.option_id.clone(),
                    name: one_line(&o.name),
                    kind: o.kind.clone(),
                })
                .collect(),
        }
    }

    fn take(&mut self, rpc_id: &Value) -> Result<usize, DecideError> {
        self.open
            .iter()
            .position(|w| &w.rpc_id == rpc_id)
            .ok_or(DecideError::NotWaiting)
    }

    /// Approves: with `option` (one of the request's allow options), or else the first
    /// `allow_once` (the narrowest), else the first `allow_always`.
    pub fn approve(
        &mut self,
        rpc_id: &Value,
        option: Option<&str>,
    ) -> Result<Decided, DecideError> {
        let i = self.take(rpc_id)?;
        let w = &self.open[i];
        let chosen = match option {
            Some(id) => {
                let o = w
                    .options
                    .iter()
                    .find(|o| o.option_id == id)
                    .ok_or_else(|| DecideError::NotAnOption {
                        option_id: id.to_owned(),
                    })?;
                if !o.kind.starts_with("allow_") {
                    return Err(DecideError::NotAnAllow {
                        option_id: id.to_owned(),
                    });
                }
                o
            }
            None => pick(&w.options, &["allow_once", "allow_always"])
                .ok_or(DecideError::NoAllowOption)?,
        };
        let option_id = chosen.option_id.clone();
        let w = self.open.remove(i);
        if w.kind == RequestKind::Plan {
            self.plan_exit_allowed = true;
        }
        self.allowed_calls.push(w.tool_call_id.clone());
        Ok(self.close(w, Outcome::Approved { option_id }))
    }

    /// Rejects with the request's `reject_once` option, else `reject_always`. The feedback, if
    /// any, goes to the agent as the next prompt (ACP's answer carries none).
    pub fn reject(&mut self, rpc_id: &Value) -> Result<Decided, DecideError> {
        self.reject_with(rpc_id, None)
    }

    /// Rejects with `option` when it is one of the request's reject options (the one the person
    /// chose), else its "reject once", else its "reject always".
    pub fn reject_with(
        &mut self,
        rpc_id: &Value,
        option: Option<&str>,
    ) -> Result<Decided, DecideError> {
        let i = self.take(rpc_id)?;
        let options = &self.open[i].options;
        let chosen = match option {
            Some(id) => {
                let o = options.iter().find(|o| o.option_id == id).ok_or_else(|| {
                    DecideError::NotAnOption {
                        option_id: id.to_owned(),
                    }
                })?;
                if !o.kind.starts_with("reject_") {
                    return Err(DecideError::NoRejectOption);
                }
                o
            }
            None => pick(options, &["reject_once", "reject_always"])
                .ok_or(DecideError::NoRejectOption)?,
        };
        let option_id = chosen.option_id.clone();
        let w = self.open.remove(i);
        Ok(self.close(w, Outcome::Rejected { option_id }))
    }

    /// The turn ended (the agent answered its prompt): every decision sent was taken.
    pub fn turn_ended(&mut self) {
        self.unconfirmed.clear();
    }

    /// The decision for `rpc_id` could not be written to the agent (it is gone): the request
    /// ended with no outcome, whatever was decided.
    pub fn not_delivered(&mut self, rpc_id: &Value) {
        if let Some((w, outcome)) = self
            .ended
            .iter_mut()
            .rev()
            .find(|(w, _)| &w.rpc_id == rpc_id)
        {
            if matches!(outcome, Outcome::Approved { .. }) {
                self.allowed_calls.retain(|c| c != &w.tool_call_id);
                if w.kind == RequestKind::Plan {
                    self.plan_exit_allowed = false;
                }
            }
            *outcome = Outcome::NoOutcome;
        }
    }

    fn close(&mut self, w: Waiting, outcome: Outcome) -> Decided {
        let option_id = match &outcome {
            Outcome::Approved { option_id } | Outcome::Rejected { option_id } => option_id.clone(),
            Outcome::NoOutcome => String::new(),
        };
        let decided = Decided {
            rpc_id: w.rpc_id.clone(),
            response: json!({"outcome": {"outcome": "selected", "optionId": option_id}}),
            outcome: outcome.clone(),
        };
        self.unconfirmed
            .push((w.rpc_id.clone(), w.tool_call_id.clone()));
        self.ended.push((w, outcome));
        decided
    }
}

fn pick<'a>(options: &'a [PermissionOption], kinds: &[&str]) -> Option<&'a PermissionOption> {
    kinds
        .iter()
        .find_map(|k| options.iter().find(|o| o.kind == *k))
}

/// `(path, newText)` of each diff in a tool call's content.
fn diffs(call: &ToolCall) -> Vec<(String, String)> {
    call.content
        .as_ref()
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter(|c| c.get("type").and_then(Value::as_str) == Some("diff"))
                .filter_map(|c| {
                    Some((
                        c.get("path")?.as_str()?.to_owned(),
                        c.get("newText")?.as_str()?.to_owned(),
                    ))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The file a tool call touches: its input's `file_path` / `path`, or its first location.
fn target_path(call: &ToolCall) -> Option<String> {
    let raw = call.raw_input.as_ref();
    raw.and_then(|r| r.get("file_path").or_else(|| r.get("path")))
        .and_then(Value::as_str)
        .or_else(|| {
            call.locations
                .as_ref()
                .and_then(|l| l.pointer("/0/path"))
                .and_then(Value::as_str)
        })
        .map(str::to_owned)
}

/// A plan file: in a folder named `plans` (Claude's `~/.claude/plans/`, Gemini's `…/plans/`).
fn in_plans_folder(path: &str) -> bool {
    let p = std::path::Path::new(path);
    p.parent()
        .and_then(|d| d.file_name())
        .is_some_and(|n| n == "plans")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn permission(id: u64, call: Value, options: Value) -> Event {
        Event::Permission {
            rpc_id: json!(id),
            request: serde_json::from_value(
                json!({"sessionId": "s", "toolCall": call, "options": options}),
            )
            .unwrap(),
        }
    }

    fn plan_options() -> Value {
        json!([
            {"kind": "allow_always", "name": "Yes, and auto-accept edits", "optionId": "acceptEdits"},
            {"kind": "allow_once", "name": "Yes, and manually approve edits", "optionId": "default"},
            {"kind": "reject_once", "name": "No, keep planning", "optionId": "plan"}
        ])
    }

    #[test]
    fn the_recorded_claude_plan_permission_is_a_plan_with_its_hash() {
        let text = include_str!("../../../../tests/fixtures/acp/claude-agent-acp-0.23.1.jsonl");
        let mut t = Tracker::new();
        let mut got = None;
        for line in text.lines() {
            let v: Value = serde_json::from_str(line).unwrap();
            let f = &v["frame"];
            if v["dir"] == "in" && f["method"] == "session/request_permission" {
                got = t.on_event(&Event::Permission {
                    rpc_id: f["id"].clone(),
                    request: serde_json::from_value(f["params"].clone()).unwrap(),
                });
            }
        }
        let w = got.expect("a plan request");
        assert_eq!(w.kind, RequestKind::Plan);
        let plan = w.plan.unwrap();
        assert!(plan.starts_with("# Plan: add pagination"), "{plan}");
        assert_eq!(
            w.plan_hash.unwrap(),
            crate::review::store::hash(plan.as_bytes())
        );
        assert_eq!(
            t.reject(&json!(0)).unwrap().response,
            json!({"outcome": {"outcome": "selected", "optionId": "plan"}})
        );
    }

    #[test]
    fn a_gemini_plan_approval_takes_its_text_from_the_plan_files_diff() {
        let mut t = Tracker::new();
        t.on_event(&Event::Update {
            session_id: "s".into(),
            update: Update::parse(&json!({"sessionUpdate": "tool_call_update", "toolCallId": "w",
                "kind": "edit", "status": "completed",
                "content": [{"type": "diff", "path": "/h/.gemini/tmp/p/s/plans/plan.md", "oldText": null, "newText": "# The plan\n"}]})),
        });
        let w = t
            .on_event(&permission(
                4,
                json!({"toolCallId": "x", "kind": "other", "title": "Requesting plan approval for: /h/.gemini/tmp/p/s/plans/plan.md"}),
                json!([{"kind": "allow_once", "name": "Allow", "optionId": "proceed_once"},
                       {"kind": "reject_once", "name": "Reject", "optionId": "cancel"}]),
            ))
            .unwrap();
        assert_eq!(w.kind, RequestKind::Plan);
        assert_eq!(w.plan.as_deref(), Some("# The plan\n"));
        // Writing the plan file in plan mode is no ungated edit.
        assert!(t.gated());
    }

    #[test]
    fn approve_takes_only_an_allow_option_of_that_request() {
        let mut t = Tracker::new();
        t.on_event(&permission(
            1,
            json!({"toolCallId": "c", "kind": "execute", "title": "`ls`", "rawInput": {"command": ["ls", "-la"]}}),
            json!([{"kind": "allow_once", "name": "Allow", "optionId": "allow"},
                   {"kind": "reject_once", "name": "Reject", "optionId": "reject"}]),
        ));
        assert_eq!(t.open()[0].command.as_deref(), Some("ls -la"));
        assert_eq!(t.open()[0].kind, RequestKind::Permission);
        assert_eq!(
            t.approve(&json!(1), Some("acceptEdits")),
            Err(DecideError::NotAnOption {
                option_id: "acceptEdits".into()
            })
        );
        assert_eq!(
            t.approve(&json!(1), Some("reject")),
            Err(DecideError::NotAnAllow {
                option_id: "reject".into()
            })
        );
        let d = t.approve(&json!(1), None).unwrap();
        assert_eq!(
            d.outcome,
            Outcome::Approved {
                option_id: "allow".into()
            }
        );
        // Exactly once.
        assert_eq!(t.approve(&json!(1), None), Err(DecideError::NotWaiting));
        assert_eq!(t.reject(&json!(1)), Err(DecideError::NotWaiting));
    }

    #[test]
    fn a_request_with_no_reject_option_is_never_rejected_with_a_guess() {
        let mut t = Tracker::new();
        t.on_event(&permission(
            2,
            json!({"toolCallId": "c", "kind": "switch_mode", "rawInput": {"plan": "p"}}),
            json!([{"kind": "allow_once", "name": "OK", "optionId": "ok"}]),
        ));
        assert_eq!(t.reject(&json!(2)), Err(DecideError::NoRejectOption));
        assert_eq!(t.open().len(), 1);
    }

    #[test]
    fn leaving_plan_mode_unasked_ungates_and_after_an_approved_plan_does_not() {
        let mode = |m: &str| Event::Update {
            session_id: "s".into(),
            update: Update::Mode(m.into()),
        };
        let mut t = Tracker::new();
        t.mode_set("plan");
        t.on_event(&permission(
            0,
            json!({"toolCallId": "c", "kind": "switch_mode", "rawInput": {"plan": "p"}}),
            plan_options(),
        ));
        t.approve(&json!(0), Some("acceptEdits")).unwrap();
        t.on_event(&mode("acceptEdits"));
        assert!(t.gated());
        t.on_event(&mode("plan"));
        t.on_event(&mode("default"));
        assert!(!t.gated());
        assert!(t.ungated_why().unwrap().contains("left plan mode"));
    }

    #[test]
    fn plan_mode_of_an_agent_with_no_plan_gate_is_ungated_from_the_start() {
        let mut t = Tracker::new();
        t.mode_set("build");
        t.plan_mode_without_gate("OpenCode (ACP)");
        assert!(t.gated(), "not in plan mode: nothing to hold");
        t.mode_set("plan");
        t.plan_mode_without_gate("OpenCode (ACP)");
        assert!(!t.gated());
        assert_eq!(
            t.ungated_why(),
            Some("OpenCode (ACP) asks nothing to leave plan mode: its plan does not wait for you")
        );
    }

    #[test]
    fn an_edit_in_plan_mode_unasked_ungates() {
        let mut t = Tracker::new();
        t.mode_set("plan");
        t.on_event(&Event::Update {
            session_id: "s".into(),
            update: Update::parse(
                &json!({"sessionUpdate": "tool_call_update", "toolCallId": "w",
                "kind": "edit", "status": "completed", "locations": [{"path": "/repo/src/a.rs"}]}),
            ),
        });
        assert!(t.ungated_why().unwrap().contains("/repo/src/a.rs"));
    }

    #[test]
    fn an_agent_that_ends_leaves_its_open_requests_with_no_outcome() {
        let mut t = Tracker::new();
        t.on_event(&permission(
            5,
            json!({"toolCallId": "c", "kind": "switch_mode", "rawInput": {"plan": "p"}}),
            plan_options(),
        ));
        t.on_event(&Event::Exited);
        assert!(t.open().is_empty());
        assert_eq!(t.ended()[0].1, Outcome::NoOutcome);
        assert_eq!(t.approve(&json!(5), None), Err(DecideError::NotWaiting));
    }

    #[test]
    fn a_decision_the_agent_never_acted_on_before_it_ended_has_no_outcome() {
        let call = || json!({"toolCallId": "c", "kind": "switch_mode", "rawInput": {"plan": "p"}});
        let mut t = Tracker::new();
        t.on_event(&permission(1, call(), plan_options()));
        t.approve(&json!(1), None).unwrap();
        t.on_event(&Event::Exited);
        assert_eq!(t.ended()[0].1, Outcome::NoOutcome);
        assert!(t.gated());
        // Acted on (the tool call's update came): it stands.
        let mut t = Tracker::new();
        t.on_event(&permission(1, call(), plan_options()));
        t.approve(&json!(1), None).unwrap();
        t.on_event(&Event::Update {
            session_id: "s".into(),
            update: Update::parse(&json!({"sessionUpdate": "tool_call_update", "toolCallId": "c", "status": "completed"})),
        });
        t.on_event(&Event::Exited);
        assert_eq!(
            t.ended()[0].1,
            Outcome::Approved {
                option_id: "default".into()
            }
        );
    }
}
