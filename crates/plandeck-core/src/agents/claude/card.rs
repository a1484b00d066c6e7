//! Claude Code waiting at its own plan-approval card as a gate request (issue 34).
//!
//! The hook ([`super::hook`]) steps aside when Plandeck stops or its deadline passes, and
//! Claude Code's own card then waits for the person: a window opened later has no request for it.
//! Like Codex's popups ([`crate::agents::codex::server_threads`]), such a card is filed from what is there to see:
//!
//! - a running Claude Code session: its registry entry (`<claude>/sessions/<pid>.json`) names a
//!   live process (pid and start time), and that process's terminal is a tmux pane (the one the
//!   entry names, when it names one);
//! - its transcript's last `ExitPlanMode` call with no answer and nothing the model wrote after
//!   it ([`crate::gate::transcript::waiting_call`]), made by this process (not before it started: a
//!   resumed session's old card is not on screen), and a few seconds old (a hook that is filing
//!   its own request for it goes first);
//! - no open request of that session (a waiting hook's request is the plan's request);
//! - the pane showing Claude Code's approval card with that plan.
//!
//! One request is filed per call (its id derived from the session and the call, created only if
//! it does not exist, so a later look files nothing new). It has no hook: a decision answers the
//! card by its keys ([`crate::gate::delivery`]: the agent, its pane and the card showing this plan are
//! checked before every key, and the request's claim lets one decision through). It ends when the
//! transcript shows the answer or the agent is gone ([`crate::gate::store::ended`]), or when the card is
//! no longer on screen with this plan while nobody decided in Plandeck (answered in the terminal).

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::agents::claude::RegistryFile;
use crate::agents::Agent;
use crate::config::Roots;
use crate::gate::delivery::{card_is_this_requests, card_visible};
use crate::gate::store::{self, close, done_dir, requests_dir};
use crate::gate::transcript::{waiting_call, WaitingCall};
use crate::gate::{pane, GateRequest, GateStatus};
use crate::terminal::{ProcessId, Target};

/// The id of every request this module files starts so.
const PREFIX: &str = "claude-card-";

/// How old a waiting call must be before its card is filed: a hook that runs for it files its
/// own request within milliseconds of the call.
const GRACE: Duration = Duration::from_secs(2);

/// What a look at the running Claude Code sessions did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ClaudeCardLook {
    /// Requests filed now.
    pub filed: Vec<String>,
    /// Waiting requests closed because their card left the screen with no decision from Plandeck.
    pub closed: Vec<String>,
}

/// Files a request for every Claude Code approval card on screen that waits with no request, and
/// closes the open ones whose card the person answered (or closed) in the terminal.
pub fn look(roots: &Roots) -> ClaudeCardLook {
    let mut out = ClaudeCardLook::default();
    let open = store::open_requests(roots);
    for (_, entry) in crate::agents::claude::registry(&roots.claude).unwrap_or_default() {
        let Some(req) = found(roots, &entry, &open) else {
            continue;
        };
        match store::file_new_request(roots, &req) {
            Ok(true) => out.filed.push(req.id),
            Ok(false) => {}
            Err(e) => tracing::warn!("cannot file the Claude Code card request {}: {e}", req.id),
        }
    }
    for req in open.iter().filter(|r| is_card_request(r)) {
        // Under the request's claim, so that no decision is being typed meanwhile (a card closed
        // by Plandeck's own key is not the terminal's answer), read again once held.
        let Ok(_claim) = crate::gate::claim::take(roots, &req.id) else {
            continue;
        };
        let Ok(req) = store::load_open(roots, &req.id) else {
            continue;
        };
        if undecided(roots, &req)
            && card_gone(&req)
            && matches!(close(roots, &req, GateStatus::AnsweredInTerminal), Ok(true))
        {
            out.closed.push(req.id);
        }
    }
    out
}

/// Whether `req` was filed from a Claude Code card on screen (by [`look`]).
fn is_card_request(req: &GateRequest) -> bool {
    req.agent == Agent::Claude && req.id.starts_with(PREFIX)
}

/// Whether nobody decided `req` in Plandeck (nor is delivering a decision on it).
fn undecided(roots: &Roots, req: &GateRequest) -> bool {
    req.status == GateStatus::Waiting
        && req.decision.is_none()
        && store::read_decision(roots, &req.id).is_none()
        && crate::gate::claim::decided(roots, &req.id).is_none()
}

/// The id of the request for call `tool_use_id` of session `session_id`: the same on every look.
fn request_id(session_id: &str, tool_use_id: &str) -> String {
    format!(
        "{PREFIX}{}",
        crate::ids::short_hash(format!("claude-card:{session_id}:{tool_use_id}").as_bytes())
    )
}

/// A session id as Claude Code writes them (a UUID): anything else never reaches a path.
fn plain_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// The transcript of session `session_id`: `<claude>/projects/<project>/<session_id>.jsonl`.
fn transcript_of(claude_root: &Path, session_id: &str) -> Option<PathBuf> {
    if !plain_id(session_id) {
        return None;
    }
    let name = format!("{session_id}.jsonl");
    std::fs::read_dir(crate::agents::claude::projects_dir(claude_root))
        .ok()?
        .flatten()
        .map(|project| project.path().join(&name))
        .find(|p| p.is_file())
}

/// When the call was made: its record's time, else the transcript's last write.
fn call_time(call: &WaitingCall, transcript: &Path) -> Option<time::OffsetDateTime> {
    call.at.or_else(|| {
        let modified = std::fs::metadata(transcript).ok()?.modified().ok()?;
        Some(time::OffsetDateTime::from(modified))
    })
}

/// The request for the card the session of `entry` waits at, when it is on screen with the plan
/// of the transcript's waiting call and no request was filed for it before.
fn found(roots: &Roots, entry: &RegistryFile, open: &[GateRequest]) -> Option<GateRequest> {
    if !crate::sessions::pid_alive(entry.pid, entry.proc_start.as_deref()) {
        return None;
    }
    let session_id = entry.session_id.as_str();
    if open
        .iter()
        .any(|r| r.agent == Agent::Claude && r.session_id == session_id)
    {
        return None;
    }
    let transcript = transcript_of(&roots.claude, session_id)?;
    let call = waiting_call(&super::driver::Claude, &transcript)?;
    let made = call_time(&call, &transcript)?;
    // A call older than the process is an earlier process's: its card is not on screen.
    let started = entry.started_at.and_then(|ms| {
        time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000).ok()
    });
    if started.is_some_and(|s| made < s) {
        return None;
    }
    let age = crate::timestamp::now() - made;
    if age < time::Duration::try_from(GRACE).unwrap_or(time::Duration::seconds(2)) {
        return None;
    }
    let id = request_id(session_id, &call.tool_use_id);
    let name = format!("{id}.json");
    if requests_dir(roots).join(&name).exists() || done_dir(roots).join(&name).exists() {
        return None;
    }
    // The pane is the agent's own terminal (and the one its entry names, when it names one).
    let socket = crate::terminal::tmux_socket_of(entry.pid);
    let tmux_pane = pane::from_process(entry.pid, socket.as_deref())?;
    let named = entry
        .tmux
        .as_deref()
        .filter(|t| !t.is_empty())
        .map(pane::normalize_pane);
    if named.is_some_and(|n| n != tmux_pane) {
        return None;
    }
    let start_time = entry
        .proc_start
        .as_deref()
        .and_then(|s| s.parse::<u64>().ok())
        .or_else(|| crate::terminal::start_time(entry.pid));
    let target = Target {
        socket: socket.clone(),
        pane: tmux_pane.clone(),
        agent: Some(ProcessId {
            pid: entry.pid,
            start_time,
        }),
    };
    let req = GateRequest {
        plan_path: call.plan_path,
        plan: call.plan,
        tool_use_id: Some(call.tool_use_id),
        transcript_path: Some(transcript.to_string_lossy().into_owned()),
        transcript_offset: call.offset,
        tmux_pane: Some(tmux_pane),
        tmux_socket: socket,
        // Found on screen, not filed by a hook: the agent is the only process it has.
        agent_pid: Some(entry.pid),
        agent_start_time: start_time,
        ..GateRequest::filed(
            id,
            Agent::Claude,
            session_id.to_owned(),
            entry.cwd.clone().unwrap_or_default(),
        )
    };
    let screen = target.capture(0).ok()?;
    (card_visible(Agent::Claude, &screen) && card_is_this_requests(&req, &screen)).then_some(req)
}

/// Whether the card of `req` has left its pane (or shows another plan) while its agent still
/// runs: a pane that cannot be read says nothing (an agent gone is told by [`store::ended`]).
fn card_gone(req: &GateRequest) -> bool {
    pane::live_screen(req).is_some_and(|screen| {
        !(card_visible(Agent::Claude, &screen) && card_is_this_requests(req, &screen))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_call_gets_one_id() {
        let a = request_id("s1", "toolu_1");
        assert_eq!(a, request_id("s1", "toolu_1"));
        assert_ne!(a, request_id("s1", "toolu_2"));
        assert_ne!(a, request_id("s2", "toolu_1"));
        assert!(store::check_id(&a).is_ok(), "{a}");
        assert!(is_card_request(&GateRequest {
            agent: Agent::Claude,
            ..GateRequest::for_test(&a)
        }));
    }

    #[test]
    fn only_a_plain_session_id_names_a_transcript() {
        let home = tempfile::tempdir().unwrap();
        let claude = home.path().join(".claude");
        let project = crate::agents::claude::projects_dir(&claude).join("-w");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::write(project.join("s-1.jsonl"), "").unwrap();
        assert_eq!(
            transcript_of(&claude, "s-1"),
            Some(project.join("s-1.jsonl"))
        );
        assert_eq!(transcript_of(&claude, "s-2"), None);
        for bad in ["../-w/s-1", "", "s 1", "s/1"] {
            assert_eq!(transcript_of(&claude, bad), None, "{bad}");
        }
    }

    /// The call waits while nothing answered it and the model wrote nothing after it.
    #[test]
    fn a_call_waits_until_answered_or_the_model_goes_on() {
        let dir = tempfile::tempdir().unwrap();
        let t = dir.path().join("t.jsonl");
        let call = r##"{"type":"assistant","timestamp":"2026-11-28T10:00:00Z","message":{"content":[{"type":"tool_use","id":"toolu_w","name":"ExitPlanMode","input":{"plan":"# P\n","planFilePath":"/h/.claude/plans/p.md"}}]}}"##;
        let user = r#"{"type":"user","message":{"content":"hi"}}"#;
        std::fs::write(&t, format!("{user}\n{call}\n")).unwrap();
        let w = waiting_call(&super::super::driver::Claude, &t).expect("waiting");
        assert_eq!(w.tool_use_id, "toolu_w");
        assert_eq!(w.plan, "# P\n");
        assert_eq!(w.plan_path.as_deref(), Some("/h/.claude/plans/p.md"));
        assert_eq!(w.offset, user.len() as u64 + 1);
        assert_eq!(w.at, crate::timestamp::parse("2026-11-28T10:00:00Z"));
        // Other records after it (an attachment, a system line) do not end the wait.
        let system = r#"{"type":"system","content":"x"}"#;
        std::fs::write(&t, format!("{user}\n{call}\n{system}\n")).unwrap();
        assert!(waiting_call(&super::super::driver::Claude, &t).is_some());
        let answered = r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_w","content":"ok"}]}}"#;
        std::fs::write(&t, format!("{user}\n{call}\n{answered}\n")).unwrap();
        assert_eq!(waiting_call(&super::super::driver::Claude, &t), None);
        let went_on =
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"more"}]}}"#;
        std::fs::write(&t, format!("{user}\n{call}\n{went_on}\n")).unwrap();
        assert_eq!(waiting_call(&super::super::driver::Claude, &t), None);
        // A call line not yet complete is not waiting.
        std::fs::write(&t, format!("{user}\n{call}")).unwrap();
        assert_eq!(waiting_call(&super::super::driver::Claude, &t), None);
        std::fs::write(&t, format!("{user}\n")).unwrap();
        assert_eq!(waiting_call(&super::super::driver::Claude, &t), None);
    }
}
