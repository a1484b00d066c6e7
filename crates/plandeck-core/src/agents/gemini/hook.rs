//! `plandeck hook gemini`: Gemini CLI's `BeforeTool` hook on `exit_plan_mode`.
//!
//! Gemini CLI 0.61 runs this hook before drawing the approval card, and the card waits for it: a
//! hook that waited for the reviewer would hide the card from the person at the terminal. So it
//! files the request and answers `{}` (no decision) at once; decisions answer the card in the tmux
//! pane. It never answers `allow`: no policy rule allowing `exit_plan_mode` is ever installed, so
//! the card always shows. The request is filed whether or not a Plandeck runs: the card waits for
//! the person either way, and a window opened later lists it (issue 34); it ends when the chat
//! shows the card's answer or the agent is gone ([`crate::gate::store::ended`]).

use std::path::{Path, PathBuf};

use crate::agents::{gemini, Agent};
use crate::config::Roots;
use crate::gate::new_id;
use crate::gate::store::file_request;
use crate::gate::transcript::locate;
use crate::gate::{pane, GateRequest, HookOptions, HookOutcome};

use crate::gate::HookInput as Input;

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
    let plan_name = input
        .tool_input
        .get("plan_filename")
        .and_then(|v| v.as_str())
        .unwrap_or("");
    let (plan_path, note) = match find_plan(
        &roots.gemini,
        input.transcript_path.as_deref(),
        &input.session_id,
        plan_name,
    ) {
        Ok(p) => (p, String::new()),
        Err(reason) => (None, format!("plandeck hook gemini: {reason}\n")),
    };
    let plan = plan_path.as_deref().and_then(read_plan).unwrap_or_default();
    let (_, offset) = match &input.transcript_path {
        Some(p) => locate(Path::new(p), Agent::Gemini),
        None => (None, 0),
    };
    let socket = pane::socket_from_env(opts.tmux_env.as_deref());
    let tmux_pane = opts
        .agent_pid
        .and_then(|pid| pane::from_process(pid, socket.as_deref()));
    let req = GateRequest {
        plan_path: plan_path.map(|p| p.to_string_lossy().into_owned()),
        plan,
        transcript_path: input.transcript_path.clone(),
        transcript_offset: offset,
        tmux_pane,
        tmux_socket: socket,
        ..GateRequest::filed(
            new_id(&input.session_id, opts.hook_pid),
            Agent::Gemini,
            input.session_id.clone(),
            input.cwd.clone(),
        )
        .with_processes(opts.hook_pid, opts.agent_pid)
    };
    match file_request(roots, &req) {
        Ok(()) => no_decision(note),
        Err(e) => no_decision(format!("{note}plandeck hook gemini: {e}\n")),
    }
}

/// The plans folders of Gemini CLI session `session_id`: `<gemini>/tmp/<slug>/<sessionId>/plans`,
/// canonical, for the transcript's slug folder (`tmp/<slug>/chats/session-….jsonl`) first, then
/// every other slug folder. Only folders that really are under `<gemini>/tmp`.
fn session_plan_dirs(
    gemini_root: &Path,
    transcript: Option<&str>,
    session_id: &str,
) -> Vec<PathBuf> {
    let Ok(tmp) = gemini::tmp_dir(gemini_root).canonicalize() else {
        return Vec::new();
    };
    let plans_in = |slug_dir: &Path| {
        gemini::session_plans_dir(slug_dir, session_id)
            .canonicalize()
            .ok()
            .filter(|d| d.starts_with(&tmp) && d.is_dir())
    };
    let mut dirs: Vec<PathBuf> = transcript
        .and_then(|t| Path::new(t).parent()?.parent().map(Path::to_owned))
        .and_then(|d| plans_in(&d))
        .into_iter()
        .collect();
    if let Ok(entries) = std::fs::read_dir(&tmp) {
        for e in entries.flatten() {
            if let Some(d) = plans_in(&e.path()) {
                if !dirs.contains(&d) {
                    dirs.push(d);
                }
            }
        }
    }
    dirs
}

/// The plan file Gemini CLI's `plan_filename` names, canonical: a file inside this session's
/// plans folder (`<gemini>/tmp/<slug>/<sessionId>/plans/`), named by its bare name or by its
/// absolute path. Anything else (another folder, another session's plans, a symlink leading out
/// of the folder, a name that climbs) is never read: the model writes `plan_filename`, and the
/// request is filed without the plan, with the reason on the hook's stderr.
fn find_plan(
    gemini_root: &Path,
    transcript: Option<&str>,
    session_id: &str,
    name: &str,
) -> Result<Option<PathBuf>, String> {
    if name.is_empty() {
        return Ok(None);
    }
    let name_path = Path::new(name);
    let bare = name_path.components().count() == 1
        && matches!(
            name_path.components().next(),
            Some(std::path::Component::Normal(_))
        );
    if session_id.is_empty() || session_id.contains('/') || session_id == ".." {
        return Err(format!(
            "session id {session_id:?} names no plans folder; plan not read"
        ));
    }
    if !bare && !name_path.is_absolute() {
        return Err(format!(
            "plan_filename {name:?} is neither a file name nor an absolute path; plan not read"
        ));
    }
    let dirs = session_plan_dirs(gemini_root, transcript, session_id);
    let candidates: Vec<PathBuf> = if bare {
        dirs.iter().map(|d| d.join(name)).collect()
    } else {
        vec![name_path.to_owned()]
    };
    let mut outside = None;
    for candidate in candidates {
        let Ok(real) = candidate.canonicalize() else {
            continue;
        };
        if !real.is_file() {
            continue;
        }
        if dirs.iter().any(|d| real.parent() == Some(d.as_path())) {
            return Ok(Some(real));
        }
        outside = Some(real);
    }
    match outside {
        Some(real) => Err(format!(
            "plan_filename {name:?} leads to {}, outside this session's plans folder; plan not read",
            real.display()
        )),
        None if !bare => Err(format!(
            "plan_filename {name:?} is not a file in this session's plans folder; plan not read"
        )),
        None => Ok(None),
    }
}

fn read_plan(path: &Path) -> Option<String> {
    let (_, bytes) = crate::plans::read_plan_bytes(path).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SID: &str = "bfc1b571-2dfc-4e1d-98e9-bd98e77d4496";

    #[test]
    fn only_plan_files_inside_the_sessions_plans_folder_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().canonicalize().unwrap();
        let roots = Roots::under_home(&home);
        let slug = roots.gemini.join("tmp/gemproj");
        let plans = slug.join(SID).join("plans");
        std::fs::create_dir_all(&plans).unwrap();
        std::fs::create_dir_all(slug.join("chats")).unwrap();
        let other_plans = slug.join("other-session/plans");
        std::fs::create_dir_all(&other_plans).unwrap();
        std::fs::write(plans.join("pagination.md"), "# Pagination\n").unwrap();
        std::fs::write(other_plans.join("theirs.md"), "# Another session's\n").unwrap();
        let secret = home.join(".ssh/id_ed25519");
        std::fs::create_dir_all(secret.parent().unwrap()).unwrap();
        std::fs::write(&secret, "PRIVATE KEY\n").unwrap();
        std::os::unix::fs::symlink(&secret, plans.join("key.md")).unwrap();
        let transcript = slug.join("chats/session-2026-11-22T12-31-bfc1b571.jsonl");
        let t = transcript.to_str();
        let find = |name: &str| find_plan(&roots.gemini, t, SID, name);

        let real = plans.join("pagination.md");
        assert_eq!(find("pagination.md"), Ok(Some(real.clone())));
        assert_eq!(find(real.to_str().unwrap()), Ok(Some(real.clone())));
        assert_eq!(find("not-yet.md"), Ok(None));
        for refused in [
            secret.to_str().unwrap().to_owned(),
            "/etc/passwd".to_owned(),
            "key.md".to_owned(),
            plans.join("key.md").to_string_lossy().into_owned(),
            other_plans.join("theirs.md").to_string_lossy().into_owned(),
            plans
                .join("../../other-session/plans/theirs.md")
                .to_string_lossy()
                .into_owned(),
            "../pagination.md".to_owned(),
        ] {
            let err = find(&refused).unwrap_err();
            assert!(err.contains("plan not read"), "{refused}: {err}");
        }

        // Through the hook: the request is filed without the file's text, and says why.
        let _app = crate::gate::app_heartbeat(&roots).unwrap();
        let stdin = serde_json::json!({
            "session_id": SID,
            "transcript_path": transcript,
            "cwd": home,
            "hook_event_name": "BeforeTool",
            "tool_name": "exit_plan_mode",
            "tool_input": {"plan_filename": secret},
        });
        let out = hook_gemini(
            &roots,
            stdin.to_string().as_bytes(),
            HookOptions {
                deadline: std::time::Duration::from_secs(1),
                hook_pid: std::process::id(),
                agent_pid: None,
                tmux_env: None,
            },
        );
        assert_eq!(out.stdout, "{}\n");
        assert!(
            out.stderr.contains("outside this session's plans folder"),
            "{out:?}"
        );
        let filed = std::fs::read_dir(crate::gate::store::requests_dir(&roots))
            .unwrap()
            .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
            .collect::<Vec<_>>();
        assert_eq!(filed.len(), 1);
        assert!(!filed[0].contains("PRIVATE KEY"), "{}", filed[0]);
        let req: GateRequest = serde_json::from_str(&filed[0]).unwrap();
        assert_eq!(req.plan_path, None);
        assert_eq!(req.plan, "");
    }
}
