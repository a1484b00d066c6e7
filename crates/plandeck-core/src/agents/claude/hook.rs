//! `plandeck hook claude`: Claude Code's `PermissionRequest` hook on `ExitPlanMode`.
//!
//! The hook files a request and waits; the decision reaches the agent through the hook's answer,
//! never through keys while the hook waits:
//! - reject: `deny` with the feedback (the model gets it at once);
//! - approve, and edit-and-approve: `allow` with `updatedInput` (`plan`: the approved or edited
//!   text, `planFilePath`) and `updatedPermissions` (`setMode` for the chosen mode). Claude Code
//!   2.1.328 and 2.1.332 take that as the card's answer, in tmux or not (a *bare* `allow` is
//!   ignored); an edited plan reaches the model as "Approved Plan (edited by user)". The request
//!   stays open (approving) until the transcript shows who answered: the card taken by the hook
//!   (`permissionDecision.source` `"hook"`) is approved; the person answering the card first
//!   wins, and is recorded as answered in the terminal ([`crate::gate::store::ended`]).
//!
//! It never blocks the agent for long: not running app, deadline, app stopping, or bad input all
//! mean "exit 0, no decision".

use std::path::PathBuf;
use std::time::Duration;

use crate::agents::Agent;
use crate::config::Roots;
use crate::gate::hook_wait::HookWait;
use crate::gate::new_id;
use crate::gate::store::{self, close, file_request, read_decision};
use crate::gate::transcript::{locate, Follower};
use crate::gate::ApproveMode;
use crate::gate::{pane, GateDecision, GateRequest, GateStatus, HookOptions, HookOutcome};
use crate::phone::someone_to_decide;

use crate::gate::HookInput as Input;

/// Runs the hook on `stdin`; see the module docs.
pub fn hook_claude(roots: &Roots, stdin: &[u8], opts: HookOptions) -> HookOutcome {
    let input: Input = match parse(stdin) {
        Ok(i) => i,
        Err(msg) => {
            return HookOutcome::quiet(format!("plandeck hook claude: {msg}; no decision given\n"))
        }
    };
    if input.tool_name.as_deref() != Some("ExitPlanMode") {
        return HookOutcome::quiet(format!(
            "plandeck hook claude: not an ExitPlanMode request (tool {:?}); no decision given\n",
            input.tool_name.as_deref().unwrap_or("none")
        ));
    }
    // The Claude Code claude-agent-acp runs reads the person's settings, this hook too; its plan
    // waits as the ACP session's request, answered by its host: not twice. Only while its host
    // runs it, and only for a Claude Code under its host: an ended session resumed in a terminal,
    // or a terminal session whose id a hosted agent took as its own, is the hook's.
    if crate::acp::host::hosts_process(roots, &input.session_id, opts.hook_pid) {
        return HookOutcome::quiet(
            "plandeck hook claude: this session is hosted over ACP; its plan waits there\n",
        );
    }
    if !someone_to_decide(roots) {
        return HookOutcome::quiet(
            "plandeck hook claude: Plandeck is not running; answer in the terminal\n",
        );
    }
    let req = build_request(roots, &input, &opts);
    if let Err(e) = file_request(roots, &req) {
        return HookOutcome::quiet(format!("plandeck hook claude: {e}; no decision given\n"));
    }
    wait(roots, req, opts.deadline)
}

fn parse(stdin: &[u8]) -> Result<Input, String> {
    Input::parse(stdin, "Claude Code")
}

fn build_request(roots: &Roots, input: &Input, opts: &HookOptions) -> GateRequest {
    let (tool_use_id, offset) = match &input.transcript_path {
        Some(p) => locate(std::path::Path::new(p), Agent::Claude),
        None => (None, 0),
    };
    let socket = pane::socket_from_env(opts.tmux_env.as_deref());
    let tmux_pane = pane::from_registry(&roots.claude, &input.session_id).or_else(|| {
        opts.agent_pid
            .and_then(|pid| pane::from_process(pid, socket.as_deref()))
    });
    let str_field = |k: &str| {
        input
            .tool_input
            .get(k)
            .and_then(|v| v.as_str())
            .map(str::to_owned)
    };
    let filed = GateRequest::filed(
        new_id(&input.session_id, opts.hook_pid),
        Agent::Claude,
        input.session_id.clone(),
        input.cwd.clone(),
    )
    .with_processes(opts.hook_pid, opts.agent_pid)
    .until(opts.deadline);
    GateRequest {
        plan_path: str_field("planFilePath"),
        plan: str_field("plan").unwrap_or_default(),
        tool_use_id,
        transcript_path: input.transcript_path.clone(),
        transcript_offset: offset,
        headless: tmux_pane.is_none() && opts.agent_pid.is_some_and(pane::runs_headless),
        tmux_pane,
        tmux_socket: socket,
        ..filed
    }
}

fn wait(roots: &Roots, req: GateRequest, deadline: Duration) -> HookOutcome {
    let mut waiting = HookWait::new(roots, &req, someone_to_decide);
    let mut follower = req.transcript_path.as_ref().map(|p| {
        Follower::new(
            PathBuf::from(p),
            Agent::Claude,
            req.transcript_offset,
            req.tool_use_id.clone(),
        )
    });
    loop {
        // The transcript first: an answer already there is the person's, given in the terminal
        // before any decision here (a hook's later answer would be ignored).
        if follower.as_mut().is_some_and(Follower::poll) {
            let mut closed = req.clone();
            closed.tool_use_id = tool_use_id(&follower, &req);
            let _ = close(roots, &closed, GateStatus::AnsweredInTerminal);
            return HookOutcome::quiet("");
        }
        match read_decision(roots, &req.id) {
            Some(GateDecision::Reject { feedback }) => {
                let mut closed = req.clone();
                closed.tool_use_id = tool_use_id(&follower, &req);
                let _ = close(roots, &closed, GateStatus::Rejected);
                return deny(&feedback);
            }
            Some(GateDecision::Approve { mode, edited, .. }) if req.headless => {
                // No card: the first answer is final, so the request closes as approved here.
                let mut closed = req.clone();
                closed.tool_use_id = tool_use_id(&follower, &req);
                let _ = close(roots, &closed, GateStatus::Approved);
                return allow(&req, mode, edited.as_deref());
            }
            Some(GateDecision::Approve { mode, edited, .. }) => {
                // Taken: the decider sees its decision file go. The request stays open
                // (approving) until the transcript says whether Claude Code took this answer.
                store::take_decision(roots, &req.id);
                return allow(&req, mode, edited.as_deref());
            }
            None => {}
        }
        if !waiting.request_open() {
            // Closed by someone else (the app saw the answer first).
            return HookOutcome::quiet("");
        }
        if waiting.elapsed() >= deadline {
            let _ = close(roots, &req, GateStatus::Expired);
            return HookOutcome::quiet(format!(
                "plandeck hook claude: no decision in Plandeck within {}s; answer in the terminal\n",
                deadline.as_secs()
            ));
        }
        match waiting.nobody_left(roots, &req) {
            // Nobody is left to answer: close now, not at the deadline, so no decision is
            // typed into a pane the agent no longer holds.
            Some(GateStatus::AgentGone) => {
                let _ = close(roots, &req, GateStatus::AgentGone);
                return HookOutcome::quiet(
                    "plandeck hook claude: the agent went away; request closed\n",
                );
            }
            Some(status) => {
                let _ = close(roots, &req, status);
                return HookOutcome::quiet(
                    "plandeck hook claude: Plandeck stopped; answer in the terminal\n",
                );
            }
            None => {}
        }
        waiting.sleep(deadline);
    }
}

fn tool_use_id(follower: &Option<Follower>, req: &GateRequest) -> Option<String> {
    follower
        .as_ref()
        .and_then(|f| f.tool_use_id().map(str::to_owned))
        .or_else(|| req.tool_use_id.clone())
}

/// The permission mode Claude Code switches to with an approval in `mode`: the card's option 1
/// ("Yes, and use auto mode") is `auto`, option 2 ("Yes, manually approve edits") `default`.
pub(crate) fn permission_mode(mode: ApproveMode) -> &'static str {
    match mode {
        ApproveMode::Auto => "auto",
        ApproveMode::Manual => "default",
    }
}

/// The answer Claude Code takes as the card's approval, interactive or headless: `allow` with
/// `updatedInput` (a bare `allow` is ignored by an interactive session) and the mode to switch
/// to. With an edited `plan` the model gets "Approved Plan (edited by user)" and that text.
pub(crate) fn allow(req: &GateRequest, mode: ApproveMode, edited: Option<&str>) -> HookOutcome {
    let mut input = serde_json::json!({ "plan": edited.unwrap_or(&req.plan) });
    if let Some(path) = &req.plan_path {
        input["planFilePath"] = serde_json::Value::String(path.clone());
    }
    let out = serde_json::json!({
        "hookSpecificOutput": {
            "hookEventName": "PermissionRequest",
            "decision": {
                "behavior": "allow",
                "updatedInput": input,
                "updatedPermissions": [{
                    "type": "setMode",
                    "mode": permission_mode(mode),
                    "destination": "session",
                }],
            }
        }
    });
    HookOutcome {
        stdout: format!("{out}\n"),
        stderr: String::new(),
        exit_code: 0,
    }
}

/// The answer Claude Code takes as a rejection with feedback (cleaned like all text handed to an
/// agent).
fn deny(feedback: &str) -> HookOutcome {
    let message = crate::terminal::clean_text(feedback, crate::terminal::MAX_TYPED_CHARS);
    let out = serde_json::json!({
        "hookSpecificOutput": {
            "hookEventName": "PermissionRequest",
            "decision": { "behavior": "deny", "message": message }
        }
    });
    HookOutcome {
        stdout: format!("{out}\n"),
        stderr: String::new(),
        exit_code: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The approval Claude Code takes as the card's answer: `allow` with `updatedInput` (a bare
    /// `allow` is ignored) and the mode the reviewer chose, `auto` for the card's option 1 and
    /// `default` for option 2.
    #[test]
    fn an_approval_is_allow_with_the_plan_and_the_mode() {
        let req = GateRequest {
            agent: Agent::Claude,
            plan: "# Plan\n".into(),
            plan_path: Some("/h/.claude/plans/p.md".into()),
            ..GateRequest::for_test("r")
        };
        for (mode, edited, name, plan) in [
            (ApproveMode::Auto, None, "auto", "# Plan\n"),
            (
                ApproveMode::Manual,
                Some("# Edited\n"),
                "default",
                "# Edited\n",
            ),
        ] {
            let out = allow(&req, mode, edited);
            assert_eq!(out.exit_code, 0);
            let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
            assert_eq!(
                v,
                serde_json::json!({"hookSpecificOutput": {
                    "hookEventName": "PermissionRequest",
                    "decision": {
                        "behavior": "allow",
                        "updatedInput": {"plan": plan, "planFilePath": "/h/.claude/plans/p.md"},
                        "updatedPermissions": [
                            {"type": "setMode", "mode": name, "destination": "session"}
                        ],
                    }
                }})
            );
        }
    }

    #[test]
    fn a_deny_message_holds_nothing_a_person_cannot_see() {
        let out = super::deny("no\u{E0041}\u{E0042} \u{1b}]52;c;eA==\u{7}way\u{200B}\r\nok");
        let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(
            v["hookSpecificOutput"]["decision"]["message"],
            "no ]52;c;eA==way\nok"
        );
    }
}
