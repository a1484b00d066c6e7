//! `plandeck hook gemini`: Gemini CLI's `BeforeTool` hook on `exit_plan_mode`.
//!
//! Gemini CLI 0.61 runs this hook before drawing the approval card, and the card waits for it: a
//! hook that waited for the reviewer would hide the card from the person at the terminal. So it
//! files the request and answers `{}` (no decision) at once; decisions answer the card in the tmux
//! pane. It never answers `allow`: no policy rule allowing `exit_plan_mode` is ever installed, so
//! the card always shows.

use std::path::{Path, PathBuf};

use super::hook_claude::new_id;
use super::store::{app_running, file_request};
use super::transcript::locate;
use super::{pane, GateRequest, GateStatus, HookOptions, HookOutcome};
use crate::agent::Agent;
use crate::config::Roots;

use super::HookInput as Input;

/// Plans bigger than this are not read into the request (the window reads the file itself).
const MAX_PLAN: u64 = 8 * 1024 * 1024;

/// Runs the hook on `stdin`: always `{}` on stdout and exit 0.
pub fn hook_gemini(roots: &Roots, stdin: &[u8], opts: HookOptions) -> HookOutcome {
    let no_decision = |stderr: String| HookOutcome {
        stdout: "{}\n".to_owned(),
        stderr,
        exit_code: 0,
    };
    let input = match Input::parse(stdin, "Gemini CLI") {
        Ok(i) => i,
        Err(msg) => return no_decision(format!("plandeck hook gemini: {msg}\n")),
    };
    if input.tool_name.as_deref() != Some("exit_plan_mode") {
        return no_decision(format!(
            "plandeck hook gemini: not an exit_plan_mode call (tool {:?})\n",
            input.tool_name.as_deref().unwrap_or("none")
        ));
    }
    if !app_running(roots) {
        return no_decision(String::new());
    }
    let plan_name = input
        .tool_input
        .get("plan_filename")
        .and_then(|v| v.as_str())
        .unwrap_or("");
    let plan_path = find_plan(
        &roots.gemini,
        input.transcript_path.as_deref(),
        &input.session_id,
        plan_name,
    );
    let plan = plan_path.as_deref().and_then(read_plan).unwrap_or_default();
    let (_, offset) = match &input.transcript_path {
        Some(p) => locate(Path::new(p), Agent::Gemini),
        None => (None, 0),
    };
    let socket = pane::socket_from_env(opts.tmux_env.as_deref());
    let tmux_pane = opts
        .agent_pid
        .and_then(|pid| pane::from_process(pid, socket.as_deref()));
    let now = crate::timestamp::now();
    let req = GateRequest {
        id: new_id(&input.session_id, opts.hook_pid),
        agent: Agent::Gemini,
        session_id: input.session_id.clone(),
        cwd: input.cwd.clone(),
        plan_path: plan_path.map(|p| p.to_string_lossy().into_owned()),
        plan,
        tool_use_id: None,
        transcript_path: input.transcript_path.clone(),
        transcript_offset: offset,
        tmux_pane,
        tmux_socket: socket,
        waiting_since: now,
        // The card waits for the person, not for a deadline of ours.
        deadline: now,
        hook_pid: opts.hook_pid,
        hook_start_time: crate::terminal::start_time(opts.hook_pid),
        agent_pid: opts.agent_pid,
        agent_start_time: opts.agent_pid.and_then(crate::terminal::start_time),
        headless: false,
        status: GateStatus::Waiting,
        closed_at: None,
        decision: None,
        decided_by: None,
        plan_hash: None,
    };
    match file_request(roots, &req) {
        Ok(()) => no_decision(String::new()),
        Err(e) => no_decision(format!("plandeck hook gemini: {e}\n")),
    }
}

/// `<gemini>/tmp/<slug>/<sessionId>/plans/<name>`: the slug folder is the transcript's
/// grandparent (`tmp/<slug>/chats/session-….jsonl`); otherwise every slug folder is searched.
fn find_plan(
    gemini_root: &Path,
    transcript: Option<&str>,
    session_id: &str,
    name: &str,
) -> Option<PathBuf> {
    let name_path = Path::new(name);
    if name_path.is_absolute() {
        return name_path.is_file().then(|| name_path.to_owned());
    }
    // A bare file name only: a name that climbs out of the plans folder is not a plan of ours.
    if name.is_empty()
        || name_path.components().count() != 1
        || name == ".."
        || session_id.contains('/')
    {
        return None;
    }
    let in_slug = |slug_dir: &Path| {
        let p = slug_dir.join(session_id).join("plans").join(name);
        p.is_file().then_some(p)
    };
    if let Some(found) = transcript
        .and_then(|t| Path::new(t).parent()?.parent().map(Path::to_owned))
        .and_then(|d| in_slug(&d))
    {
        return Some(found);
    }
    std::fs::read_dir(gemini_root.join("tmp"))
        .ok()?
        .flatten()
        .find_map(|e| in_slug(&e.path()))
}

fn read_plan(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if meta.len() > MAX_PLAN {
        return None;
    }
    std::fs::read(path)
        .ok()
        .map(|b| String::from_utf8_lossy(&b).into_owned())
}
