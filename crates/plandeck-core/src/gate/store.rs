//! The request store under `<data>/gate/`: `requests/<id>.json` (open, written by the hook),
//! `decisions/<id>.json` (written by the app or CLI), `done/<id>.json` (closed, with how), and
//! `app.json` (the running app's pid, so a hook can tell whether anyone can decide).
//!
//! Closing a request is a rename from `requests/` to `done/`: exactly one closer wins, so the
//! terminal, the hook's deadline and the reviewer never both "win".

use std::fs;
use std::io::ErrorKind as IoKind;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub(crate) use super::files::{
    check_id, decisions_dir, done_dir, gate_dir, read_json, requests_dir, write_json,
};
use super::transcript::{Answer, Answerer, Follower};
use super::{GateDecision, GateError, GateRequest, GateStatus};
use crate::config::Roots;
use crate::durable;

fn app_file(roots: &Roots) -> PathBuf {
    gate_dir(roots).join("app.json")
}

/// A request as filed: what a listing works out (the plan's hash, whether an approval goes
/// through the hook) is never taken from a file (another machine's listing is read with them:
/// `crate::elsewhere`).
pub(crate) fn read_request(path: &Path) -> Result<Option<GateRequest>, GateError> {
    Ok(read_json::<GateRequest>(path)?.map(|mut req| {
        req.plan_hash = None;
        req.plan_read = None;
        req.approves_through_hook = false;
        req
    }))
}

pub(crate) fn file_request(roots: &Roots, req: &GateRequest) -> Result<(), GateError> {
    write_json(&requests_dir(roots).join(format!("{}.json", req.id)), req)
}

/// Files `req` only if no open request of that id exists: whether it was filed now (a request
/// found on screen by two lookers at once is filed once, and a decision under way on it is never
/// written over).
pub(crate) fn file_new_request(roots: &Roots, req: &GateRequest) -> Result<bool, GateError> {
    let dir = requests_dir(roots);
    durable::create_private_dir(&dir)?;
    let mut bytes = serde_json::to_vec_pretty(req).map_err(|e| GateError::BadInput {
        message: format!("cannot encode request {}: {e}", req.id),
    })?;
    bytes.push(b'\n');
    match durable::write_atomic_new(&dir.join(format!("{}.json", req.id)), &bytes) {
        Ok(()) => Ok(true),
        Err(e) if e.source.kind() == IoKind::AlreadyExists => Ok(false),
        Err(e) => Err(e.into()),
    }
}

pub(crate) fn save_open_request(roots: &Roots, req: &GateRequest) -> Result<(), GateError> {
    file_request(roots, req)
}

/// The open request `id`, or the closed one (`Err(Closed)`), or `Err(NotFound)`.
pub(crate) fn load_open(roots: &Roots, id: &str) -> Result<GateRequest, GateError> {
    check_id(id)?;
    if let Some(req) = read_request(&requests_dir(roots).join(format!("{id}.json")))? {
        return Ok(req);
    }
    match read_request(&done_dir(roots).join(format!("{id}.json")))? {
        Some(GateRequest {
            decided_by: Some(by),
            ..
        }) => Err(GateError::AlreadyDecided {
            id: id.to_owned(),
            by,
        }),
        Some(done) => Err(GateError::Closed {
            id: id.to_owned(),
            status: done.status,
        }),
        None => Err(GateError::NotFound { id: id.to_owned() }),
    }
}

/// One request by id, open or closed.
pub fn request(roots: &Roots, id: &str) -> Result<GateRequest, GateError> {
    match load_open(roots, id) {
        Err(GateError::Closed { .. } | GateError::AlreadyDecided { .. }) => {
            read_request(&done_dir(roots).join(format!("{id}.json")))?
                .ok_or_else(|| GateError::NotFound { id: id.to_owned() })
        }
        other => other,
    }
}

pub(crate) fn write_decision(
    roots: &Roots,
    id: &str,
    decision: &GateDecision,
) -> Result<(), GateError> {
    write_json(&decisions_dir(roots).join(format!("{id}.json")), decision)
}

/// The waiting hook took the decision on request `id` (and answers with it): its file goes, which
/// is how the decider learns it was taken.
pub(crate) fn take_decision(roots: &Roots, id: &str) {
    let _ = fs::remove_file(decisions_dir(roots).join(format!("{id}.json")));
}

pub(crate) fn read_decision(roots: &Roots, id: &str) -> Option<GateDecision> {
    read_json(&decisions_dir(roots).join(format!("{id}.json")))
        .ok()
        .flatten()
}

/// Closes `req` with `status`. Returns false when someone else closed it first.
pub(crate) fn close(
    roots: &Roots,
    req: &GateRequest,
    status: GateStatus,
) -> Result<bool, GateError> {
    let from = requests_dir(roots).join(format!("{}.json", req.id));
    let to = done_dir(roots).join(format!("{}.json", req.id));
    durable::create_private_dir(&done_dir(roots))?;
    // One closer wins: the rename of the open file to a `.closing` name. The closed record is then
    // written under its final name before the `.closing` file goes, so no reader ever sees a
    // closed request with its old `waiting` status.
    let closing = done_dir(roots).join(format!("{}.json.closing", req.id));
    match fs::rename(&from, &closing) {
        Ok(()) => {}
        Err(e) if e.kind() == IoKind::NotFound => return Ok(false),
        Err(source) => return Err(GateError::Read { path: from, source }),
    }
    let mut closed = req.clone();
    closed.status = status;
    closed.closed_at = Some(crate::timestamp::now());
    if closed.decision.is_none() {
        closed.decision = read_decision(roots, &req.id);
    }
    // The decider is named only when its decision is how the request ended.
    if closed.decided_by.is_none() && matches!(status, GateStatus::Approved | GateStatus::Rejected)
    {
        closed.decided_by = super::claim::decided(roots, &req.id).map(|c| c.describe());
    }
    write_json(&to, &closed)?;
    let _ = fs::remove_file(&closing);
    // The decision is kept inside the closed request, so its own file can go.
    let _ = fs::remove_file(decisions_dir(roots).join(format!("{}.json", req.id)));
    super::claim::forget(roots, &req.id);
    Ok(true)
}

/// A new request's id, from its session, the hook's pid and the time.
pub(crate) fn new_id(session_id: &str, pid: u32) -> String {
    let nanos = time::OffsetDateTime::now_utc().unix_timestamp_nanos();
    crate::ids::short_hash(format!("{session_id}:{pid}:{nanos}").as_bytes())
}

/// Whether the request's hook still waits (same pid and start time).
pub(crate) fn hook_alive(req: &GateRequest) -> bool {
    crate::process::is_running(req.hook_pid, req.hook_start_time)
}

/// Whether an approval of `req` goes through its waiting hook (Claude Code: `allow` with the plan
/// is the card's answer, in tmux or not), never by keys.
pub(crate) fn approves_through_hook(req: &GateRequest) -> bool {
    crate::agents::driver(req.agent).decides_through_hook() && hook_alive(req)
}

/// Every open request's file under `requests/`, with the request it holds (damaged ones skipped).
pub(crate) fn open_requests(roots: &Roots) -> Vec<GateRequest> {
    let Ok(entries) = fs::read_dir(requests_dir(roots)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        match read_request(&path) {
            Ok(Some(req)) => out.push(req),
            Ok(None) => {}
            Err(e) => tracing::warn!("skipping gate request: {e}"),
        }
    }
    out
}

/// How an open request ended without a word from Plandeck, if it did: its hook is gone and the
/// transcript shows the card's answer (the terminal answered, or the approval given through the
/// hook or typed landed), or its agent CLI is gone. A card answered while Plandeck's rejection was
/// being typed ended as that rejection. An approval handed to the hook ended approved only when
/// the transcript does not say the person answered the card (`permissionDecision.source`): the
/// person answering first wins, and Claude Code then ignores the hook's answer. Reads only.
pub(crate) fn ended(req: &GateRequest) -> Option<GateStatus> {
    if hook_alive(req) {
        return None;
    }
    // An ACP session's request whose host is gone: nobody can answer the agent any more (its
    // agent ends with its host). No outcome, never approved.
    if req.acp.is_some() {
        return Some(GateStatus::AgentGone);
    }
    if let Some(answer) = answer(req) {
        return Some(status_of_answer(req, answer));
    }
    if req
        .agent_pid
        .is_some_and(|p| !crate::process::is_running(p, req.agent_start_time))
    {
        return Some(GateStatus::AgentGone);
    }
    None
}

/// How a request whose card was answered (`answer`) ended: Plandeck's own decision being
/// delivered (through the hook, or typed), or another answer (the terminal's, another hook's).
/// The answer's decision counts as much as who gave it: a refusal is never Plandeck's approval
/// (another hook answering `deny` first is "a hook" too), and an approval is never Plandeck's
/// rejection.
pub(crate) fn status_of_answer(req: &GateRequest, answer: Answer) -> GateStatus {
    match (&req.status, &req.decision) {
        (GateStatus::Approving, _) if answer.accepted == Some(false) => {
            GateStatus::AnsweredInTerminal
        }
        (GateStatus::Approving, _) if req.through_hook && answer.by == Answerer::Person => {
            GateStatus::AnsweredInTerminal
        }
        (GateStatus::Approving, _) => GateStatus::Approved,
        (_, Some(GateDecision::Reject { .. })) if answer.accepted == Some(true) => {
            GateStatus::AnsweredInTerminal
        }
        (_, Some(GateDecision::Reject { .. })) => GateStatus::Rejected,
        _ => GateStatus::AnsweredInTerminal,
    }
}

/// A request's plan as read once (for a listing, or a decision that hands it along): its plan
/// file's text, or why it did not read; the plan the agent acts on once the request is approved
/// (that text, or the text it submitted when there is no readable file); and its hash.
pub(crate) struct PlanSeen {
    pub file: Result<String, std::io::Error>,
    pub acted_on: String,
    pub hash: String,
}

/// Reads `req`'s plan once ([`PlanSeen`]).
pub(crate) fn plan_seen(req: &GateRequest) -> PlanSeen {
    let file = match req.plan_path.as_deref() {
        Some(p) => crate::review::store::read_plan(Path::new(p)).map_err(|e| match e {
            crate::review::ReviewError::Read { source, .. } => source,
            other => std::io::Error::other(other.to_string()),
        }),
        None => Err(std::io::ErrorKind::NotFound.into()),
    };
    let acted_on = file
        .as_ref()
        .map_or_else(|_| req.plan.clone(), Clone::clone);
    let hash = crate::review::store::hash(acted_on.as_bytes());
    PlanSeen {
        file,
        acted_on,
        hash,
    }
}

/// `req` as listed: with the hash of the plan it would approve, and whether an approval would go
/// through its waiting hook.
fn listed(mut req: GateRequest) -> GateRequest {
    let PlanSeen {
        acted_on: read,
        hash,
        ..
    } = plan_seen(&req);
    // A tool permission has no plan: no plan hash to read or to give back.
    req.plan_hash = (req.kind == super::RequestKind::Plan).then_some(hash);
    req.plan_read = (read != req.plan).then_some(read);
    req.approves_through_hook = approves_through_hook(&req);
    req
}

/// Every request still waiting for the reviewer, oldest first, each with the hash of the plan
/// it would approve and whether an approval goes through its hook. Reads only: a request that ended without a decision ([`ended`]) is left
/// out, and stays in `requests/` until [`close_ended`] moves it to `done/`.
pub fn pending(roots: &Roots) -> Vec<GateRequest> {
    let mut out: Vec<GateRequest> = open_requests(roots)
        .into_iter()
        .filter(|req| ended(req).is_none())
        .map(listed)
        .collect();
    out.sort_by(|a, b| a.waiting_since.cmp(&b.waiting_since).then(a.id.cmp(&b.id)));
    out
}

/// Closes every open request that ended without a decision in Plandeck, with how it ended (answered
/// in the terminal, approved, its agent gone). Returns the ids it closed; a request another closer
/// took first is not among them.
pub fn close_ended(roots: &Roots) -> Vec<String> {
    let mut closed = Vec::new();
    for req in open_requests(roots) {
        if let Some(status) = ended(&req) {
            match close(roots, &req, status) {
                Ok(true) => closed.push(req.id),
                Ok(false) => {}
                Err(e) => tracing::warn!("cannot close gate request {}: {e}", req.id),
            }
        }
    }
    closed
}

/// Whether the transcript shows the answer to the request's tool call.
pub(crate) fn answered(req: &GateRequest) -> bool {
    answer(req).is_some()
}

/// The answer to the request's tool call (who, and what), once the transcript shows it.
pub(crate) fn answer(req: &GateRequest) -> Option<Answer> {
    let path = req.transcript_path.as_ref()?;
    let mut follower = Follower::new(
        PathBuf::from(path),
        req.agent,
        req.transcript_offset,
        req.tool_use_id.clone(),
    );
    follower.poll();
    follower.answer()
}

/// `app.json`: the running app, named so that no other process is taken for it once it is gone
/// (a pid is reused within minutes on a busy machine): pid, start time and executable.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct AppFile {
    pid: u32,
    #[serde(with = "time::serde::rfc3339")]
    started: time::OffsetDateTime,
    /// `/proc/<pid>/stat` field 22 of the app.
    #[serde(default)]
    start_time: Option<u64>,
    /// The app's executable (`/proc/<pid>/exe`).
    #[serde(default)]
    exe: Option<PathBuf>,
}

impl AppFile {
    /// Whether the process the file names is still that app: same pid, same start time, same
    /// executable. A file without start time or executable (written by an older Plandeck) names
    /// no process we can tell apart from a stranger: not running.
    fn is_running(&self) -> bool {
        let (Some(start), Some(exe)) = (self.start_time, self.exe.as_deref()) else {
            return false;
        };
        crate::process::is_running(self.pid, Some(start))
            && crate::process::exe_of(self.pid).as_deref() == Some(exe)
    }
}

/// Held by the running app; removes `app.json` when dropped ([`app_gone`]), or gives it back to
/// the Plandeck that held it before (a window on this machine while `plandeck serve` ran) when
/// that one still runs.
#[derive(Debug)]
pub struct AppPresence {
    roots: Roots,
    previous: Option<AppFile>,
}

impl Drop for AppPresence {
    fn drop(&mut self) {
        match self.previous.take().filter(AppFile::is_running) {
            Some(previous) if names_this_process(&self.roots) => {
                if let Err(e) = write_json(&app_file(&self.roots), &previous) {
                    tracing::warn!("cannot give the gate presence back: {e}");
                    app_gone(&self.roots);
                }
            }
            _ => app_gone(&self.roots),
        }
    }
}

fn names_this_process(roots: &Roots) -> bool {
    matches!(read_json::<AppFile>(&app_file(roots)), Ok(Some(app)) if app.pid == std::process::id())
}

/// Announces that Plandeck is running (writes `<data>/gate/app.json` naming this process), so
/// hooks wait for a decision. Keep the guard for the app's lifetime, and call [`app_gone`] on every
/// way out that does not drop it (the window closing ends the process without unwinding; a
/// signal).
pub fn app_heartbeat(roots: &Roots) -> Result<AppPresence, GateError> {
    let pid = std::process::id();
    let previous = read_json::<AppFile>(&app_file(roots))
        .ok()
        .flatten()
        .filter(|app| app.pid != pid && app.is_running());
    write_json(
        &app_file(roots),
        &AppFile {
            pid,
            started: crate::timestamp::now(),
            start_time: crate::terminal::start_time(pid),
            exe: crate::process::exe_of(pid),
        },
    )?;
    Ok(AppPresence {
        roots: roots.clone(),
        previous,
    })
}

/// Removes `app.json` if it names this process (a second app instance may have taken over since).
/// Safe to call more than once, from any exit path.
pub fn app_gone(roots: &Roots) {
    let path = app_file(roots);
    if let Ok(Some(app)) = read_json::<AppFile>(&path) {
        if app.pid == std::process::id() {
            let _ = fs::remove_file(&path);
        }
    }
}

/// Whether a Plandeck app is running: its `app.json` names a live process with the same start
/// time and executable.
pub fn app_running(roots: &Roots) -> bool {
    matches!(read_json::<AppFile>(&app_file(roots)), Ok(Some(app)) if app.is_running())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heartbeat_is_seen_and_removed_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(dir.path());
        assert!(!app_running(&roots));
        let guard = app_heartbeat(&roots).unwrap();
        assert!(app_running(&roots));
        drop(guard);
        assert!(!app_running(&roots));
    }

    /// `plandeck serve` started while a window runs over the same store: when it ends, the window
    /// holds the presence again (hooks go on waiting for it).
    #[test]
    fn a_presence_taken_over_from_a_running_app_is_given_back() {
        let dir = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(dir.path());
        fs::create_dir_all(gate_dir(&roots)).unwrap();
        let mut window = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let pid = window.id();
        let named = AppFile {
            pid,
            started: crate::timestamp::now(),
            start_time: crate::terminal::start_time(pid),
            exe: crate::process::exe_of(pid),
        };
        write_json(&app_file(&roots), &named).unwrap();
        assert!(app_running(&roots));
        let holder = || {
            read_json::<AppFile>(&app_file(&roots))
                .unwrap()
                .map(|a| a.pid)
        };

        let serve = app_heartbeat(&roots).unwrap();
        assert_eq!(holder(), Some(std::process::id()));
        drop(serve);
        assert_eq!(holder(), Some(pid), "given back to the running window");

        // A holder that is gone by then is not brought back.
        let serve = app_heartbeat(&roots).unwrap();
        window.kill().unwrap();
        window.wait().unwrap();
        drop(serve);
        assert_eq!(holder(), None);
    }

    #[test]
    fn presence_names_the_process_not_only_its_pid() {
        let dir = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(dir.path());
        fs::create_dir_all(gate_dir(&roots)).unwrap();
        // A live process that is not the app: a pid reused after the app exited, with the old
        // file left behind (the window closed without dropping its guard).
        let mut stranger = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let pid = stranger.id();
        let start_time = crate::terminal::start_time(pid);
        let write = |app: AppFile| write_json(&app_file(&roots), &app).unwrap();
        // As an older Plandeck wrote it: pid only.
        write(AppFile {
            pid,
            started: crate::timestamp::now(),
            start_time: None,
            exe: None,
        });
        assert!(!app_running(&roots), "a bare pid is not proof of the app");
        // The same pid, another start time (the pid was reused).
        write(AppFile {
            pid,
            started: crate::timestamp::now(),
            start_time: start_time.map(|t| t + 1),
            exe: crate::process::exe_of(pid),
        });
        assert!(!app_running(&roots), "a reused pid is not the app");
        // Same pid and start time, another executable.
        write(AppFile {
            pid,
            started: crate::timestamp::now(),
            start_time,
            exe: Some(PathBuf::from("/usr/bin/plandeck")),
        });
        assert!(!app_running(&roots), "another program is not the app");
        // Everything matches: running.
        write(AppFile {
            pid,
            started: crate::timestamp::now(),
            start_time,
            exe: crate::process::exe_of(pid),
        });
        assert!(app_running(&roots));
        stranger.kill().unwrap();
        stranger.wait().unwrap();
        assert!(!app_running(&roots));
    }

    #[test]
    fn a_hook_is_alive_only_as_the_process_that_filed_the_request() {
        let mut sleeper = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let pid = sleeper.id();
        let start = crate::terminal::start_time(pid);
        let mut req = GateRequest {
            agent: crate::agents::Agent::Claude,
            hook_pid: pid,
            hook_start_time: start,
            ..GateRequest::for_test("r")
        };
        assert!(hook_alive(&req));
        // The same pid, another start time: a reused pid is not the waiting hook (a rejection
        // would otherwise be filed for a hook that is gone and reach nobody).
        req.hook_start_time = start.map(|t| t + 1);
        assert!(!hook_alive(&req));
        sleeper.kill().unwrap();
        sleeper.wait().unwrap();
        req.hook_start_time = start;
        assert!(!hook_alive(&req));
    }

    #[test]
    fn app_gone_removes_only_this_processs_presence() {
        let dir = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(dir.path());
        let guard = app_heartbeat(&roots).unwrap();
        assert!(app_running(&roots));
        app_gone(&roots);
        assert!(!app_running(&roots));
        app_gone(&roots); // twice is fine
        std::mem::forget(guard);
        // Another instance's file is left alone.
        write_json(
            &app_file(&roots),
            &AppFile {
                pid: 1,
                started: crate::timestamp::now(),
                start_time: crate::terminal::start_time(1),
                exe: None,
            },
        )
        .unwrap();
        app_gone(&roots);
        assert!(app_file(&roots).exists());
    }

    #[test]
    fn damaged_app_file_means_not_running() {
        let dir = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(dir.path());
        fs::create_dir_all(gate_dir(&roots)).unwrap();
        fs::write(app_file(&roots), "{nope").unwrap();
        assert!(!app_running(&roots));
    }

    /// The pid of a process that has exited and been reaped.
    fn dead_pid() -> u32 {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        pid
    }

    /// A card answered while Plandeck's rejection was being typed ended as that rejection: the
    /// liveness tick, which may see the answer in the chat log before the typing decider closes
    /// the request, must not call it the terminal's.
    #[test]
    fn a_card_answered_while_a_rejection_is_typed_ended_as_that_rejection() {
        let dir = tempfile::tempdir().unwrap();
        let chat = dir.path().join("session.jsonl");
        fs::write(
            &chat,
            concat!(
                r#"{"id":"m1","type":"user","content":[{"functionResponse":{"id":"c1","name":"exit_plan_mode","response":{"output":"no"}}}]}"#,
                "\n"
            ),
        )
        .unwrap();
        let mut req = GateRequest::for_test("r1");
        req.hook_pid = dead_pid();
        req.transcript_path = Some(chat.display().to_string());
        assert!(answered(&req), "the chat log shows the card's answer");
        assert_eq!(ended(&req), Some(GateStatus::AnsweredInTerminal));
        req.decision = Some(GateDecision::Reject {
            feedback: "no".into(),
        });
        assert_eq!(ended(&req), Some(GateStatus::Rejected));
    }

    /// An approval handed to the hook ended approved only when the person did not answer the
    /// card first; one typed on the card (keys are a "user" answer too) ended approved.
    #[test]
    fn who_answered_decides_how_an_approving_request_ended() {
        let approve = GateDecision::Approve {
            mode: super::super::ApproveMode::Auto,
            edited: None,
            started_from: None,
        };
        let mut req = GateRequest::for_test("r");
        req.status = GateStatus::Approving;
        req.decision = Some(approve);
        req.through_hook = true;
        let by = |by: Answerer| Answer {
            by,
            accepted: Some(true),
        };
        assert_eq!(
            status_of_answer(&req, by(Answerer::Hook)),
            GateStatus::Approved
        );
        assert_eq!(
            status_of_answer(&req, by(Answerer::Person)),
            GateStatus::AnsweredInTerminal
        );
        assert_eq!(
            status_of_answer(&req, Answer::UNKNOWN),
            GateStatus::Approved
        );
        // A hook's refusal (another hook answering `deny` first) is not Plandeck's approval.
        let refused = |by: Answerer| Answer {
            by,
            accepted: Some(false),
        };
        assert_eq!(
            status_of_answer(&req, refused(Answerer::Hook)),
            GateStatus::AnsweredInTerminal
        );
        req.through_hook = false;
        assert_eq!(
            status_of_answer(&req, by(Answerer::Person)),
            GateStatus::Approved
        );
        assert_eq!(
            status_of_answer(&req, refused(Answerer::Person)),
            GateStatus::AnsweredInTerminal
        );
        // Not approving: the terminal's answer, or the rejection being typed (unless the answer
        // let the plan through: that was not Plandeck's rejection).
        let waiting = GateRequest::for_test("w");
        assert_eq!(
            status_of_answer(&waiting, by(Answerer::Hook)),
            GateStatus::AnsweredInTerminal
        );
        let mut rejecting = GateRequest::for_test("x");
        rejecting.decision = Some(GateDecision::Reject {
            feedback: "no".into(),
        });
        assert_eq!(
            status_of_answer(&rejecting, refused(Answerer::Unknown)),
            GateStatus::Rejected
        );
        assert_eq!(
            status_of_answer(&rejecting, by(Answerer::Person)),
            GateStatus::AnsweredInTerminal
        );
    }

    /// Issue 33 (finding 11): a Claude Code transcript where a hook answered `deny` (the
    /// fixture's `permissionDecision: {"decision": "reject", "source": "hook"}`) while Plandeck's
    /// approval was handed to its hook: the request did not end approved.
    #[test]
    fn another_hooks_rejection_is_not_logged_as_plandecks_approval() {
        let fixture = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/claude-code-2.1.328/projects/-home-dev-work-api/5fb53a48-3aab-4a4b-b82c-e42d63b86c9d.jsonl"
        );
        let path = Path::new(fixture);
        assert!(path.is_file(), "fixture missing: {}", path.display());
        let (tool_use_id, offset) =
            super::super::transcript::locate(path, crate::agents::Agent::Claude);
        let mut req = GateRequest {
            agent: crate::agents::Agent::Claude,
            hook_pid: dead_pid(),
            transcript_path: Some(path.display().to_string()),
            transcript_offset: offset,
            tool_use_id,
            status: GateStatus::Approving,
            through_hook: true,
            decision: Some(GateDecision::Approve {
                mode: super::super::ApproveMode::Auto,
                edited: None,
                started_from: None,
            }),
            ..GateRequest::for_test("r")
        };
        assert_eq!(ended(&req), Some(GateStatus::AnsweredInTerminal));
        // Typed on the card rather than through the hook: the same.
        req.through_hook = false;
        assert_eq!(ended(&req), Some(GateStatus::AnsweredInTerminal));
        // Plandeck's own rejection answered by that deny: a rejection.
        req.status = GateStatus::Waiting;
        req.decision = Some(GateDecision::Reject {
            feedback: "split step 2".into(),
        });
        assert_eq!(ended(&req), Some(GateStatus::Rejected));
    }

    #[test]
    fn pending_only_reads_and_closing_an_ended_request_is_its_own_call() {
        let dir = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(dir.path());
        let gone = dead_pid();
        let req = GateRequest {
            plan: "# Plan\n".into(),
            hook_pid: gone,
            agent_pid: Some(gone),
            ..GateRequest::for_test("r1")
        };
        file_request(&roots, &req).unwrap();
        // Its agent is gone: it is no longer waiting, but listing it changes nothing on disk.
        assert!(pending(&roots).is_empty());
        assert!(pending(&roots).is_empty());
        assert!(requests_dir(&roots).join("r1.json").exists());
        assert_eq!(request(&roots, "r1").unwrap().status, GateStatus::Waiting);
        // Closing is its own call, and happens once.
        assert_eq!(close_ended(&roots), ["r1"]);
        assert!(close_ended(&roots).is_empty());
        assert_eq!(request(&roots, "r1").unwrap().status, GateStatus::AgentGone);
        assert!(!requests_dir(&roots).join("r1.json").exists());
    }

    #[test]
    fn ids_that_are_not_ours_are_refused() {
        assert!(check_id("abc-123").is_ok());
        assert!(check_id("../x").is_err());
        assert!(check_id("").is_err());
    }
}
