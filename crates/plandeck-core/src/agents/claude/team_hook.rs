//! `plandeck hook claude-team`: the teammate gate, Claude Code's `PreToolUse` hook on
//! `ExitPlanMode` for the teammates of an agent team (`CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1`).
//!
//! A teammate's plan goes to its lead, which approves it by itself within a second; no approval
//! card is drawn, so the plan-approval hook ([`super::hook`]) never sees it. This hook holds
//! the teammate's `ExitPlanMode` call while the person decides (measured with Claude Code 2.1.328,
//! `docs/agents.md` "Teammates"):
//! - approve: `allow` (with `updatedInput`); the plan goes on to the lead, which approves it and
//!   "[Plan Approved]" reaches the teammate;
//! - edit and approve: the edited plan is written to the teammate's plan file first (the decider
//!   does, [`crate::gate::decide`]), then `allow`: Claude Code 2.1.328 sends the lead the plan *file*
//!   (`updatedInput.plan` of a `PreToolUse` answer is not what the lead gets), so the file is what
//!   carries the edit, to the lead and to the teammate;
//! - reject: `deny` with the feedback as the reason; the model gets
//!   `PreToolUse:ExitPlanMode hook error: <feedback>`, stays in plan mode, and the lead gets nothing.
//!
//! Who asks: an in-process teammate's hook input carries `agent_id` (`a<name>-<16 hex>`) and
//! `agent_type`, with the lead's `session_id`; a teammate in its own pane (`--teammate-mode tmux`)
//! has no agent field, but its process was started with `--agent-id <name>@<team> --team-name …
//! --parent-session-id …`. Neither: the call is the lead's own, left to the plan-approval hook at
//! once with no decision.
//!
//! It never approves by itself: the deadline passing (nobody decided) denies, telling the teammate
//! to wait and ask again later. It steps aside (no decision, the lead's own rule applies) only when
//! Plandeck is not running, as every hook does, or stops while it waits. It reads the team's files
//! and never writes under `~/.claude/teams` (the inboxes are signature-checked).

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::agents::{claude, Agent};
use crate::config::Roots;
use crate::gate::hook_wait::HookWait;
use crate::gate::new_id;
use crate::gate::store::{close, file_request, gate_dir, read_decision};
use crate::gate::HookInput as Input;
use crate::gate::{GateDecision, GateError, GateRequest, GateStatus, HookOptions, HookOutcome};
use crate::gate::{HookPreview, InstallPlan, InstallReport};
use crate::hooks::{self, Hook};
use crate::phone::someone_to_decide;

/// Plandeck's words in the hook command.
const TEAM_ARGS: &str = "hook claude-team";

/// A teammate asking for its plan's approval.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Teammate {
    /// The team (`session-1a2b3c4d`), when known.
    pub team: Option<String>,
    /// Its name in the team (`planner`).
    pub name: String,
    /// The lead's session.
    pub lead_session_id: Option<String>,
    /// Its own transcript: `<lead session>/subagents/agent-<agent_id>.jsonl` in-process, its own
    /// session file in a pane.
    pub transcript: Option<String>,
    /// In-process (in the lead's own process) rather than in a pane of its own.
    pub in_process: bool,
}

/// Who makes the `ExitPlanMode` call of `input`: a teammate, or `None` for the lead (or a session
/// outside any team). `agent_args` are the arguments the agent process was started with.
pub fn teammate_of(input: &Input, agent_args: &[String]) -> Option<Teammate> {
    in_process(input).or_else(|| in_pane(input, agent_args))
}

/// An in-process teammate: the hook input names the agent (`agent_id`), and its `.meta.json`
/// beside its transcript names the team.
fn in_process(input: &Input) -> Option<Teammate> {
    let id = input.agent_id.as_deref().filter(|id| !id.is_empty())?;
    // Used in a path below: only the characters Claude Code's ids have.
    let safe = id
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    let dir = input
        .transcript_path
        .as_deref()
        .and_then(|p| p.strip_suffix(".jsonl"))
        .filter(|_| safe)
        .map(|lead| Path::new(lead).join("subagents"));
    let meta: serde_json::Value = dir
        .as_ref()
        .and_then(|d| std::fs::read(d.join(format!("agent-{id}.meta.json"))).ok())
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    let text = |k: &str| {
        meta.get(k)
            .and_then(|v| v.as_str())
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    let name = text("name")
        .or_else(|| input.agent_type.clone().filter(|s| !s.is_empty()))
        .unwrap_or_else(|| name_of_agent_id(id));
    Some(Teammate {
        team: text("teamName"),
        name,
        lead_session_id: Some(input.session_id.clone()),
        transcript: dir.map(|d| {
            d.join(format!("agent-{id}.jsonl"))
                .to_string_lossy()
                .into_owned()
        }),
        in_process: true,
    })
}

/// `planner` of `aplanner-4235440cfb451e2b`.
fn name_of_agent_id(id: &str) -> String {
    let name = id.strip_prefix('a').unwrap_or(id);
    match name.rsplit_once('-') {
        Some((n, hex)) if !n.is_empty() && hex.chars().all(|c| c.is_ascii_hexdigit()) => {
            n.to_owned()
        }
        _ => name.to_owned(),
    }
}

/// A teammate in its own pane: its process was started with `--agent-id <name>@<team>`.
fn in_pane(input: &Input, args: &[String]) -> Option<Teammate> {
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .filter(|v| !v.is_empty() && !v.starts_with("--"))
            .cloned()
    };
    let agent_id = flag("--agent-id")?;
    let (id_name, id_team) = match agent_id.split_once('@') {
        Some((n, t)) => (n.to_owned(), Some(t.to_owned())),
        None => (agent_id.clone(), None),
    };
    Some(Teammate {
        team: flag("--team-name").or(id_team),
        name: flag("--agent-name").unwrap_or(id_name),
        lead_session_id: flag("--parent-session-id"),
        transcript: input.transcript_path.clone(),
        in_process: false,
    })
}

/// The arguments process `pid` was started with (empty when unreadable).
fn process_args(pid: Option<u32>) -> Vec<String> {
    let Some(pid) = pid else { return Vec::new() };
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|b| {
            b.split(|c| *c == 0)
                .filter(|a| !a.is_empty())
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn quiet(msg: impl std::fmt::Display) -> HookOutcome {
    HookOutcome::quiet(format!("plandeck hook claude-team: {msg}\n"))
}

/// Runs the hook on `stdin`; see the module docs.
pub fn hook_claude_team(roots: &Roots, stdin: &[u8], opts: HookOptions) -> HookOutcome {
    let input = match Input::parse(stdin, "Claude Code") {
        Ok(i) => i,
        Err(msg) => return quiet(format_args!("{msg}; no decision given")),
    };
    if input.tool_name.as_deref() != Some(claude::PLAN_TOOL) {
        return quiet(format_args!(
            "not an ExitPlanMode call (tool {:?}); no decision given",
            input.tool_name.as_deref().unwrap_or("none")
        ));
    }
    let Some(mate) = teammate_of(&input, &process_args(opts.agent_pid)) else {
        // The lead's own plan: its approval card and the plan-approval hook decide.
        return quiet("not a teammate's plan; left to the plan-approval hook");
    };
    if !someone_to_decide(roots) {
        return quiet("Plandeck is not running; the lead decides");
    }
    let plan = input
        .tool_input
        .get("plan")
        .and_then(|v| v.as_str())
        .filter(|p| !p.trim().is_empty())
        .map(str::to_owned)
        .or_else(|| plan_file_text(&input));
    let Some(plan) = plan.as_deref() else {
        // Claude Code sends an empty tool_input when the teammate has no plan file yet, and
        // refuses the call itself ("No plan file found at <path>. Please write your plan to this
        // file…"): nothing to review, nothing goes to the lead.
        return quiet("no plan in this call (no plan file yet); Claude Code refuses it itself");
    };
    let req = build_request(&input, &mate, plan, &opts);
    if let Err(e) = file_request(roots, &req) {
        // Filed nowhere, so nobody could decide: not let through unread.
        return deny(&format!(
            "Plandeck could not file this plan for review ({e}). Wait, then call ExitPlanMode again."
        ));
    }
    wait(roots, req, opts.deadline)
}

/// The plan file the call names, when it names one that holds a plan but no `plan` came with it
/// (Claude Code 2.1.328 always sends both or neither; a call naming a written file is held).
fn plan_file_text(input: &Input) -> Option<String> {
    let path = input.tool_input.get("planFilePath")?.as_str()?;
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > crate::gate::MAX_HOOK_INPUT as u64 {
        return None;
    }
    std::fs::read_to_string(path)
        .ok()
        .filter(|t| !t.trim().is_empty())
}

fn build_request(input: &Input, mate: &Teammate, plan: &str, opts: &HookOptions) -> GateRequest {
    let offset = mate
        .transcript
        .as_deref()
        .and_then(|p| std::fs::metadata(p).ok())
        .map_or(0, |m| m.len());
    // No pane: the decision reaches the teammate through this hook only, never typed.
    GateRequest {
        plan_path: input
            .tool_input
            .get("planFilePath")
            .and_then(|v| v.as_str())
            .map(str::to_owned),
        plan: plan.to_owned(),
        tool_use_id: input.tool_use_id.clone(),
        transcript_path: mate.transcript.clone(),
        transcript_offset: offset,
        team: mate.team.clone(),
        teammate: Some(mate.name.clone()),
        lead_session_id: mate.lead_session_id.clone(),
        ..GateRequest::filed(
            new_id(&input.session_id, opts.hook_pid),
            Agent::Claude,
            input.session_id.clone(),
            input.cwd.clone(),
        )
        .with_processes(opts.hook_pid, opts.agent_pid)
        .until(opts.deadline)
    }
}

/// What the teammate is told when nobody decided in time.
pub(crate) fn wait_message(deadline: Duration) -> String {
    format!(
        "Your plan is waiting for the person's review in Plandeck, and nobody has decided on it yet (waited {} min). Do not start implementing: wait, then call ExitPlanMode again later to ask again.",
        deadline.as_secs().div_ceil(60)
    )
}

fn wait(roots: &Roots, req: GateRequest, deadline: Duration) -> HookOutcome {
    let mut waiting = HookWait::new(roots, &req, someone_to_decide);
    loop {
        match read_decision(roots, &req.id) {
            Some(GateDecision::Reject { feedback }) => {
                let _ = close(roots, &req, GateStatus::Rejected);
                return deny(&feedback);
            }
            Some(GateDecision::Approve { edited, .. }) => {
                // No card follows: this answer is final, so the request closes as it answers.
                let _ = close(roots, &req, GateStatus::Approved);
                return allow(&req, edited.as_deref());
            }
            None => {}
        }
        if !waiting.request_open() {
            // Closed without a decision this hook saw: not let through unread.
            return deny("The plan's review in Plandeck was closed without a decision. Call ExitPlanMode again to ask again.");
        }
        if waiting.elapsed() >= deadline {
            let _ = close(roots, &req, GateStatus::Expired);
            return deny(&wait_message(deadline));
        }
        match waiting.nobody_left(roots, &req) {
            Some(GateStatus::AgentGone) => {
                let _ = close(roots, &req, GateStatus::AgentGone);
                return quiet("the agent went away; request closed");
            }
            Some(status) => {
                let _ = close(roots, &req, status);
                return quiet("Plandeck stopped; the lead decides");
            }
            None => {}
        }
        waiting.sleep(deadline);
    }
}

/// The `PreToolUse` answer that lets the plan go on to the lead: `allow`, with the plan (edited
/// or not) as `updatedInput` (the plan file, written before, is what the lead is sent).
pub(crate) fn allow(req: &GateRequest, edited: Option<&str>) -> HookOutcome {
    let mut input = serde_json::json!({ "plan": edited.unwrap_or(&req.plan) });
    if let Some(path) = &req.plan_path {
        input["planFilePath"] = serde_json::Value::String(path.clone());
    }
    answer(serde_json::json!({
        "hookEventName": "PreToolUse",
        "permissionDecision": "allow",
        "permissionDecisionReason": "Approved in Plandeck",
        "updatedInput": input,
    }))
}

/// The `PreToolUse` answer that keeps the teammate planning, `reason` as what its model is told
/// (cleaned like all text handed to an agent).
pub(crate) fn deny(reason: &str) -> HookOutcome {
    let reason = crate::terminal::clean_text(reason, crate::terminal::MAX_TYPED_CHARS);
    answer(serde_json::json!({
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": reason,
    }))
}

fn answer(specific: serde_json::Value) -> HookOutcome {
    let out = serde_json::json!({ "hookSpecificOutput": specific });
    HookOutcome {
        stdout: format!("{out}\n"),
        stderr: String::new(),
        exit_code: 0,
    }
}

// ---- Installing the hook (opt-in; shown before it is written, like the other hooks)

/// The teammate gate in Claude Code's settings; what install created is remembered in
/// `<data>/gate/install-claude-team.json`.
fn team_hook(roots: &Roots) -> Hook {
    Hook {
        settings: claude::settings_file(&roots.claude),
        record: gate_dir(roots).join("install-claude-team.json"),
        event: claude::TEAM_EVENT,
        args: TEAM_ARGS.to_owned(),
        group: claude::team_hook_group,
        what: " the teammate gate",
    }
}

/// The command Claude Code runs: this executable, `hook claude-team`.
pub fn team_hook_command() -> Result<String, GateError> {
    Ok(hooks::self_command(TEAM_ARGS)?)
}

/// What installing the teammate gate (with `command`) would write, without writing.
pub fn install_plan_with(roots: &Roots, command: &str) -> Result<InstallPlan, GateError> {
    Ok(team_hook(roots).install_plan(command)?)
}

/// What installing the teammate gate would write, without writing.
pub fn install_plan(roots: &Roots) -> Result<InstallPlan, GateError> {
    install_plan_with(roots, &team_hook_command()?)
}

/// Installs the teammate gate with a given command (tests install a known path).
pub fn install_with(roots: &Roots, command: &str) -> Result<InstallReport, GateError> {
    Ok(team_hook(roots).install(command, None)?)
}

/// Installs the teammate gate only if that is still exactly the change `token` names.
pub fn install_if_unchanged(roots: &Roots, token: &str) -> Result<InstallReport, GateError> {
    Ok(team_hook(roots).install(&team_hook_command()?, Some(token))?)
}

/// What uninstalling the teammate gate would write.
pub fn uninstall_plan(roots: &Roots) -> Result<InstallPlan, GateError> {
    Ok(team_hook(roots).uninstall_plan()?)
}

/// Uninstalls the teammate gate only if that is still exactly the change `token` names.
pub fn uninstall_if_unchanged(roots: &Roots, token: &str) -> Result<InstallReport, GateError> {
    Ok(team_hook(roots).uninstall(Some(token))?)
}

/// Writes the change the settings view showed (install or uninstall), only while it is still
/// exactly the change `token` names.
pub fn set_if_unchanged(
    roots: &Roots,
    install: bool,
    token: &str,
) -> Result<InstallReport, GateError> {
    team_hook(roots).set_if_unchanged(install, team_hook_command, token)
}

/// What the settings view shows for the teammate gate: whether it is installed, and the diff of
/// installing (or uninstalling) it with the token naming that change.
pub fn hook_preview(roots: &Roots) -> Result<HookPreview, GateError> {
    hook_preview_with(roots, &team_hook_command()?)
}

/// [`hook_preview`] for a given hook command.
pub fn hook_preview_with(roots: &Roots, command: &str) -> Result<HookPreview, GateError> {
    Ok(team_hook(roots).preview(Agent::Claude, command)?)
}

/// The folder Claude Code keeps its agent teams in (`~/.claude/teams`): read, never written.
pub fn teams_dir(roots: &Roots) -> PathBuf {
    roots.claude.join("teams")
}

#[cfg(test)]
#[path = "team_hook_tests.rs"]
mod tests;
