//! Codex CLI's plan popup as a gate request. Codex 0.169 has no hook for a proposed plan
//! ([`crate::agents::codex`]), so the request is built from what is there to see:
//!
//! - a live interactive `codex` process in a tmux pane, holding its rollout open
//!   (`/proc/<pid>/fd` → `<codex>/sessions/…/rollout-….jsonl`; the headless `codex exec` has no
//!   Plan mode and no popup, and is never gated). A TUI of Codex's shared background server
//!   (`codex` without `--no-daemon`) holds none: the server (`codex app-server
//!   --managed-daemon`) holds the rollouts of all its TUIs' threads. Such a thread is a pane's
//!   when that pane's TUI runs in the thread's folder, has no open request, shows the popup with
//!   the thread's plan, and no other pane or thread matches as well (else the terminal keeps it);
//! - the rollout's latest `Plan` item with no turn started after it
//!   ([`crate::sessions::codex::waiting_plan`]);
//! - the pane showing the "Implement this plan?" popup for that plan.
//!
//! Then one request is filed for that plan item (its id is derived from the session and the
//! item, so a later look files nothing new). It ends when the rollout shows a turn started after
//! the plan (the popup's `1`, or the person's next message), or when the popup is no longer on
//! screen while nobody decided in Plandeck (the person pressed `3` or Esc: nothing is written
//! to the rollout then). [`look`] does both; the app's gate tick and `plandeck pending` call it.
//!
//! Edit and approve has two halves: the edited plan goes to the model as a message in Plan mode
//! (delivery), and when the model proposes exactly that text, its request is approved at once.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::agents::{codex, Agent};
use crate::config::Roots;
use crate::gate::delivery::{card_is_this_requests, card_visible};
use crate::gate::store::{self, close, done_dir, file_request, requests_dir};
use crate::gate::{pane, GateRequest, GateStatus};
use crate::sessions::codex::{waiting_plan, WaitingPlan};
use crate::terminal::{ProcessId, Target};

/// What a look at the live Codex sessions did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct CodexLook {
    /// Requests filed now.
    pub filed: Vec<String>,
    /// Waiting requests closed because the popup left the screen with no decision from Plandeck.
    pub closed: Vec<String>,
}

/// Files a request for every Codex plan popup on screen that has none yet, and closes the open
/// Codex requests whose popup the person answered (or closed) in the terminal.
pub fn look(roots: &Roots) -> CodexLook {
    let mut out = CodexLook::default();
    let mut panes = HashMap::new();
    let found: Vec<Found> = live_sessions(&roots.codex)
        .iter()
        .filter_map(|live| found(roots, live, &mut panes))
        .collect();
    for f in unambiguous(&found) {
        match file_request(roots, &f.req) {
            Ok(()) => {
                approve_if_edit_proposed(roots, &f.req.id);
                out.filed.push(f.req.id.clone());
            }
            Err(e) => tracing::warn!("cannot file the Codex plan request {}: {e}", f.req.id),
        }
    }
    for req in open_codex_requests(roots) {
        // Under the request's claim, so that no decision is being typed meanwhile (a popup
        // closed by Plandeck's own key is not the terminal's answer), read again once held.
        let Ok(_claim) = crate::gate::claim::take(roots, &req.id) else {
            continue;
        };
        let Ok(req) = store::load_open(roots, &req.id) else {
            continue;
        };
        if undecided(roots, &req)
            && popup_gone(&req)
            && matches!(close(roots, &req, GateStatus::AnsweredInTerminal), Ok(true))
        {
            out.closed.push(req.id);
        }
    }
    out
}

/// The popups found that may be filed: a TUI's own session always; a thread of the shared
/// server only when no other pane shows the same thread's plan and that pane shows no other
/// thread's (anything else is left to the terminal).
fn unambiguous(found: &[Found]) -> impl Iterator<Item = &Found> {
    found.iter().filter(|f| {
        !f.served
            || found
                .iter()
                .filter(|g| g.served)
                .filter(|g| {
                    g.req.transcript_path == f.req.transcript_path
                        || g.req.agent_pid == f.req.agent_pid
                })
                .count()
                == 1
    })
}

/// Whether nobody decided `req` in Plandeck (nor is delivering a decision on it).
fn undecided(roots: &Roots, req: &GateRequest) -> bool {
    req.status == GateStatus::Waiting
        && req.decision.is_none()
        && store::read_decision(roots, &req.id).is_none()
        && crate::gate::claim::decided(roots, &req.id).is_none()
}

/// A running interactive Codex CLI and the rollout of its session.
#[derive(Debug, Clone)]
struct LiveCodex {
    pid: u32,
    rollout: PathBuf,
    /// The rollout is written by Codex's shared background server (`codex app-server
    /// --managed-daemon`, what `codex` starts unless `--no-daemon`), not by this TUI: which
    /// TUI shows its thread is known only from the screen.
    served: bool,
}

/// A Codex process and the rollouts under `<codex>/sessions` it holds open.
struct CodexProcess {
    pid: u32,
    /// The shared background server (`app-server` among its arguments).
    server: bool,
    /// `codex exec` (or a command line that cannot be read).
    headless: bool,
    /// Started with `--no-daemon`: its session is the rollout it holds itself (none yet before
    /// its first message), never a thread of the shared server.
    serverless: bool,
    rollouts: Vec<PathBuf>,
}

impl CodexProcess {
    /// A TUI of the shared server: it holds no rollout and was not started without the server.
    fn served_tui(&self) -> bool {
        !self.server && !self.headless && !self.serverless && self.rollouts.is_empty()
    }
}

/// The running interactive `codex` TUIs and the rollouts of their sessions: the one a TUI
/// started with `--no-daemon` holds open itself, or, for a TUI that holds none, each rollout the
/// shared background server holds open (the screen then tells which is the TUI's, in [`look`]).
/// The headless `codex exec` is never one.
fn live_sessions(codex_root: &Path) -> Vec<LiveCodex> {
    let Ok(sessions) = codex::sessions_dir(codex_root).canonicalize() else {
        return Vec::new();
    };
    let procs = codex_processes(&sessions);
    let mut out = Vec::new();
    let served: Vec<&PathBuf> = procs
        .iter()
        .filter(|p| p.server)
        .flat_map(|p| &p.rollouts)
        .collect();
    for tui in procs.iter().filter(|p| !p.server && !p.headless) {
        if let Some(rollout) = tui.rollouts.first() {
            out.push(LiveCodex {
                pid: tui.pid,
                rollout: rollout.clone(),
                served: false,
            });
        } else if tui.served_tui() {
            out.extend(served.iter().map(|rollout| LiveCodex {
                pid: tui.pid,
                rollout: (*rollout).clone(),
                served: true,
            }));
        }
    }
    out
}

/// Fills in the process and tmux pane of each running Codex session of this machine in `list`
/// that has none yet (Codex keeps no registry): a TUI's own rollout (`--no-daemon`) names its
/// session; a TUI of the shared server is a thread's when it is the only TUI in that thread's
/// folder and that folder has only that thread live.
pub fn fill_panes(codex_root: &Path, list: &mut [crate::sessions::SessionSummary]) {
    let wanted = |s: &crate::sessions::SessionSummary| {
        s.agent == Agent::Codex && s.pid.is_none() && s.machine.is_none()
    };
    if !list.iter().any(wanted) {
        return;
    }
    let shown = shown_sessions(codex_root);
    for s in list.iter_mut().filter(|s| wanted(s)) {
        let Some((_, pid)) = shown.iter().find(|(id, _)| *id == s.session_id) else {
            continue;
        };
        let socket = crate::terminal::tmux_socket_of(*pid);
        if let Some(pane) = pane::from_process(*pid, socket.as_deref()) {
            s.pid = Some(*pid);
            s.tmux_pane = Some(pane);
        }
    }
}

/// The tmux pane of the running Codex TUI that shows session `session_id` (as
/// [`fill_panes`] finds it), to steer or watch it.
pub fn live_target(codex_root: &Path, session_id: &str) -> Option<Target> {
    let (_, pid) = shown_sessions(codex_root)
        .into_iter()
        .find(|(id, _)| id == session_id)?;
    let socket = crate::terminal::tmux_socket_of(pid);
    let pane = pane::from_process(pid, socket.as_deref())?;
    Some(Target {
        socket,
        pane,
        agent: Some(ProcessId::current(pid)),
    })
}

/// (session id, TUI pid) of each running interactive Codex TUI whose session is known: its own
/// rollout (`--no-daemon`), or the shared server's only live thread in the TUI's folder when
/// the TUI is the only one there.
fn shown_sessions(codex_root: &Path) -> Vec<(String, u32)> {
    let Ok(sessions) = codex::sessions_dir(codex_root).canonicalize() else {
        return Vec::new();
    };
    let procs = codex_processes(&sessions);
    let tuis: Vec<&CodexProcess> = procs.iter().filter(|p| !p.server && !p.headless).collect();
    let mut shown: Vec<(String, u32)> = tuis
        .iter()
        .filter_map(|t| Some((rollout_session_id(t.rollouts.first()?)?, t.pid)))
        .collect();
    let served: Vec<(String, PathBuf)> = procs
        .iter()
        .filter(|p| p.server)
        .flat_map(|p| &p.rollouts)
        .filter_map(|r| {
            let (id, cwd) = crate::sessions::codex::rollout_meta(r)?;
            Some((id, Path::new(&cwd).canonicalize().ok()?))
        })
        .collect();
    let bare: Vec<(u32, PathBuf)> = tuis
        .iter()
        .filter(|t| t.served_tui())
        .filter_map(|t| {
            Some((
                t.pid,
                std::fs::read_link(format!("/proc/{}/cwd", t.pid)).ok()?,
            ))
        })
        .collect();
    for (pid, cwd) in &bare {
        let threads: Vec<&String> = served
            .iter()
            .filter(|(_, c)| c == cwd)
            .map(|(id, _)| id)
            .collect();
        if let ([id], 1) = (
            threads.as_slice(),
            bare.iter().filter(|(_, c)| c == cwd).count(),
        ) {
            shown.push(((*id).clone(), *pid));
        }
    }
    shown
}

/// The session id a rollout's name ends with (`rollout-<time>-<uuid>.jsonl`).
pub(crate) fn rollout_session_id(path: &Path) -> Option<String> {
    let stem = path
        .file_name()?
        .to_str()?
        .strip_prefix("rollout-")?
        .strip_suffix(".jsonl")?;
    (stem.len() > 36 && stem.is_char_boundary(stem.len() - 36))
        .then(|| stem[stem.len() - 36..].to_owned())
}

/// Every process named `codex` and the rollouts under `sessions` it holds open.
fn codex_processes(sessions: &Path) -> Vec<CodexProcess> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for pid in entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
    {
        let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
        if comm.trim() != "codex" {
            continue;
        }
        let rollouts = std::fs::read_dir(format!("/proc/{pid}/fd"))
            .map(|fds| {
                fds.flatten()
                    .filter_map(|fd| {
                        let target = std::fs::read_link(fd.path()).ok()?;
                        let name = target.file_name()?.to_str()?;
                        (name.starts_with("rollout-")
                            && name.ends_with(".jsonl")
                            && target.starts_with(sessions))
                        .then_some(target)
                    })
                    .collect()
            })
            .unwrap_or_default();
        out.push(CodexProcess {
            pid,
            server: has_argument(pid, b"app-server"),
            headless: runs_headless(pid),
            serverless: has_argument(pid, b"--no-daemon"),
            rollouts,
        });
    }
    out
}

/// Whether Codex process `pid` has `arg` among its arguments (before `--`): `app-server` (its
/// shared background server), `--no-daemon` (a TUI without it).
fn has_argument(pid: u32, arg: &[u8]) -> bool {
    std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|cmdline| {
        cmdline
            .split(|b| *b == 0)
            .skip(1)
            .take_while(|a| *a != b"--")
            .any(|a| a == arg)
    })
}

/// Whether Codex process `pid` may be the headless `codex exec`: an argument (before `--`) is
/// `exec` or its alias `e`. A prompt that happens to be one of those words is not gated either:
/// the safe side. A process whose command line cannot be read is not gated.
fn runs_headless(pid: u32) -> bool {
    let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
        return true;
    };
    cmdline
        .split(|b| *b == 0)
        .skip(1)
        .take_while(|a| *a != b"--")
        .any(|a| a == b"exec" || a == b"e")
}

/// The id of the request for plan item `item_id` of session `session_id`: the same on every look.
fn request_id(session_id: &str, item_id: &str) -> String {
    format!(
        "codex-{}",
        crate::ids::short_hash(format!("codex:{session_id}:{item_id}").as_bytes())
    )
}

/// A plan popup on screen with no request yet: the request to file.
struct Found {
    req: GateRequest,
    served: bool,
}

/// The request for the plan `live` waits on, when its popup is on screen for it and no request
/// was filed for that plan before. A TUI of the shared server counts only in its own folder,
/// and not while it already has an open request (it shows one popup at a time).
fn found(
    roots: &Roots,
    live: &LiveCodex,
    panes: &mut HashMap<u32, Option<PaneSeen>>,
) -> Option<Found> {
    let seen = panes
        .entry(live.pid)
        .or_insert_with(|| pane_seen(live.pid))
        .clone()?;
    let plan: WaitingPlan = waiting_plan(&live.rollout)?;
    if plan.source.as_deref() == Some("exec") {
        return None;
    }
    if live.served && !serves_here(roots, live.pid, &plan.cwd) {
        return None;
    }
    let id = request_id(&plan.session_id, &plan.item_id);
    let name = format!("{id}.json");
    if requests_dir(roots).join(&name).exists() || done_dir(roots).join(&name).exists() {
        return None;
    }
    let req = GateRequest {
        plan: plan.text,
        tool_use_id: Some(plan.item_id),
        transcript_path: Some(live.rollout.to_string_lossy().into_owned()),
        transcript_offset: plan.offset,
        tmux_pane: Some(seen.pane),
        tmux_socket: seen.socket,
        // Found by watching, not filed by a hook: the agent is the only process it has.
        agent_pid: Some(live.pid),
        agent_start_time: seen.start_time,
        ..GateRequest::filed(id, Agent::Codex, plan.session_id, plan.cwd)
    };
    card_is_this_requests(&req, &seen.screen).then_some(Found {
        req,
        served: live.served,
    })
}

/// A Codex TUI's tmux pane showing a plan popup.
#[derive(Clone)]
struct PaneSeen {
    pane: String,
    socket: Option<String>,
    start_time: Option<u64>,
    screen: String,
}

/// The pane of the Codex TUI `pid` when it shows a plan popup.
fn pane_seen(pid: u32) -> Option<PaneSeen> {
    let socket = crate::terminal::tmux_socket_of(pid);
    let pane = pane::from_process(pid, socket.as_deref())?;
    let start_time = crate::terminal::start_time(pid);
    let target = Target {
        socket: socket.clone(),
        pane: pane.clone(),
        agent: Some(ProcessId { pid, start_time }),
    };
    let screen = target.capture(0).ok()?;
    card_visible(Agent::Codex, &screen).then_some(PaneSeen {
        pane,
        socket,
        start_time,
        screen,
    })
}

/// Whether the TUI `pid` may show a thread of the shared server whose folder is `cwd`: it runs
/// in that folder and has no open request already.
fn serves_here(roots: &Roots, pid: u32, cwd: &str) -> bool {
    let here = std::fs::read_link(format!("/proc/{pid}/cwd")).ok();
    let there = Path::new(cwd).canonicalize().ok();
    here.is_some()
        && here == there
        && !open_codex_requests(roots)
            .iter()
            .any(|r| r.agent_pid == Some(pid))
}

/// Edit and approve, second half: the reviewer's edited plan was sent to the model in Plan mode
/// ([`codex::edited_plan_message`]); when the model now proposes exactly that text, the request
/// just filed for it is approved at once (the popup's "Yes, implement this plan"), decided by
/// the earlier approval. Anything else (a plan the model changed) waits for the reviewer.
fn approve_if_edit_proposed(roots: &Roots, id: &str) {
    let Ok(req) = store::request(roots, id) else {
        return;
    };
    let Some((earlier, edited)) =
        last_closed(roots, &req.session_id).and_then(|r| match r.decision {
            Some(crate::gate::GateDecision::Approve {
                edited: Some(e), ..
            }) if r.status == GateStatus::Approved => Some((r.id, e)),
            _ => None,
        })
    else {
        return;
    };
    if !same_plan(&edited, &req.plan) {
        return;
    }
    let opts = crate::gate::DeliveryOptions {
        by: format!("the edited plan approved in request {earlier}"),
        comments: false,
        ..crate::gate::DeliveryOptions::default()
    };
    let decision = crate::gate::GateDecision::Approve {
        mode: crate::gate::ApproveMode::Auto,
        edited: None,
        started_from: None,
    };
    if let Err(e) = crate::gate::decide_with(roots, id, decision, &opts) {
        tracing::warn!("the edited plan proposed in request {id} was not approved: {e}");
    }
}

/// The Codex request of session `session_id` closed last.
fn last_closed(roots: &Roots, session_id: &str) -> Option<GateRequest> {
    std::fs::read_dir(done_dir(roots))
        .ok()?
        .flatten()
        .filter(|e| e.path().extension().and_then(|x| x.to_str()) == Some("json"))
        .filter_map(|e| store::read_request(&e.path()).ok().flatten())
        .filter(|r| r.agent == Agent::Codex && r.session_id == session_id)
        .max_by_key(|r| r.closed_at)
}

/// The same plan, give or take blanks at line ends and around the whole.
fn same_plan(a: &str, b: &str) -> bool {
    let lines =
        |s: &str| -> Vec<String> { s.trim().lines().map(|l| l.trim_end().to_owned()).collect() };
    lines(a) == lines(b)
}

/// Open Codex requests nobody decided in Plandeck (and nobody is deciding right now).
fn open_codex_requests(roots: &Roots) -> Vec<GateRequest> {
    let Ok(entries) = std::fs::read_dir(requests_dir(roots)) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| store::read_request(&e.path()).ok().flatten())
        .filter(|r| r.agent == Agent::Codex && undecided(roots, r))
        .collect()
}

/// Whether the popup of `req` has left its pane while its agent still runs (the person pressed
/// `3` or Esc): a pane that cannot be read says nothing.
fn popup_gone(req: &GateRequest) -> bool {
    // Any popup still up keeps it open: a popup for a later plan means a turn started after
    // this one, which the rollout tells ([`store::ended`]).
    pane::live_screen(req).is_some_and(|screen| !card_visible(Agent::Codex, &screen))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sessions::codex::starts_turn;

    #[test]
    fn a_rollout_names_its_session_and_folder() {
        let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(
            "../../tests/fixtures/codex-cli-0.169.0/sessions/2026/11/23/rollout-2026-11-23T09-06-18-01a207a7-f7fe-7201-ac2d-8334cc0ede60.jsonl",
        );
        assert_eq!(
            rollout_session_id(&fixture).as_deref(),
            Some("01a207a7-f7fe-7201-ac2d-8334cc0ede60")
        );
        assert_eq!(
            crate::sessions::codex::rollout_meta(&fixture),
            Some((
                "01a207a7-f7fe-7201-ac2d-8334cc0ede60".to_owned(),
                "/home/dev/work/api".to_owned()
            ))
        );
        for name in [
            "rollout-short.jsonl",
            "other-2026-…-01a207a7-f7fe-7201-ac2d-8334cc0ede60.jsonl",
            "rollout-x.json",
        ] {
            assert_eq!(rollout_session_id(Path::new(name)), None, "{name}");
        }
    }

    #[test]
    fn a_thread_of_the_shared_server_is_filed_only_where_nothing_else_matches() {
        let found = |pid: u32, rollout: &str, served: bool| Found {
            req: GateRequest {
                agent_pid: Some(pid),
                transcript_path: Some(rollout.into()),
                ..GateRequest::for_test(&format!("{pid}-{rollout}"))
            },
            served,
        };
        let filed =
            |all: &[Found]| -> Vec<String> { unambiguous(all).map(|f| f.req.id.clone()).collect() };
        // One TUI, one thread showing its plan: filed.
        assert_eq!(filed(&[found(1, "a", true)]), ["1-a"]);
        // Two panes showing the same thread's plan (the same text, the same folder): neither.
        assert!(filed(&[found(1, "a", true), found(2, "a", true)]).is_empty());
        // One pane matching two threads (the same plan twice): neither.
        assert!(filed(&[found(1, "a", true), found(1, "b", true)]).is_empty());
        // Two panes, each its own thread: both; the ambiguity of others does not reach them.
        assert_eq!(
            filed(&[
                found(1, "a", true),
                found(2, "b", true),
                found(3, "c", true),
                found(4, "c", true)
            ]),
            ["1-a", "2-b"]
        );
        // A TUI that holds its own rollout (`--no-daemon`) is its session's whatever else shows.
        assert_eq!(
            filed(&[
                found(1, "a", false),
                found(2, "a", true),
                found(3, "a", true)
            ]),
            ["1-a"]
        );
    }

    #[test]
    fn one_plan_item_gets_one_id() {
        let a = request_id("s1", "t1-plan");
        assert_eq!(a, request_id("s1", "t1-plan"));
        assert_ne!(a, request_id("s1", "t2-plan"));
        assert_ne!(a, request_id("s2", "t1-plan"));
        assert!(store::check_id(&a).is_ok(), "{a}");
    }

    #[test]
    fn the_edited_plan_is_recognised_give_or_take_blanks() {
        assert!(same_plan("# P\n\n1. a\n", "\n# P\n\n1. a  \n\n"));
        assert!(!same_plan("# P\n1. a\n", "# P\n1. a\n2. b\n"));
        assert!(!same_plan("# P\n1. a\n", "# P\n1.  a\n"));
    }

    /// The popup's `1` in the terminal (or the person's next message) starts a turn in the
    /// rollout after the plan: the request ended, answered in the terminal, and a decision on it
    /// is refused with nothing typed.
    #[test]
    fn a_turn_after_the_plan_closes_the_request_as_answered_in_the_terminal() {
        let dir = tempfile::tempdir().unwrap();
        let roots = crate::config::Roots::under_home(dir.path());
        let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(
            "../../tests/fixtures/codex-cli-0.169.0/sessions/2026/11/23/rollout-2026-11-23T09-06-18-01a207a7-f7fe-7201-ac2d-8334cc0ede60.jsonl",
        );
        let rollout = dir.path().join("rollout.jsonl");
        std::fs::copy(&fixture, &rollout).unwrap();
        let plan = waiting_plan(&rollout).unwrap();
        let req = GateRequest {
            id: request_id(&plan.session_id, &plan.item_id),
            agent: Agent::Codex,
            session_id: plan.session_id.clone(),
            plan: plan.text.clone(),
            transcript_path: Some(rollout.to_string_lossy().into_owned()),
            transcript_offset: plan.offset,
            ..GateRequest::for_test("x")
        };
        file_request(&roots, &req).unwrap();
        assert_eq!(store::ended(&req), None);
        assert_eq!(crate::gate::pending(&roots).len(), 1);
        // What the popup's `1` appends: the `accepted` recording's implementation turn.
        let accepted = std::fs::read_to_string(fixture.with_file_name(
            "rollout-2026-11-23T09-06-03-01a207a7-be64-75f2-92cb-28c4247cc7de.jsonl",
        ))
        .unwrap();
        let turn = accepted
            .lines()
            .filter(|l| starts_turn(l.as_bytes()))
            .nth(1)
            .expect("the implementation turn");
        assert!(turn.contains(r#""collaboration_mode_kind":"default""#));
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&rollout)
            .unwrap();
        std::io::Write::write_all(&mut f, format!("{turn}\n").as_bytes()).unwrap();
        assert_eq!(store::ended(&req), Some(GateStatus::AnsweredInTerminal));
        assert!(crate::gate::pending(&roots).is_empty());
        let err = crate::gate::decide(
            &roots,
            &req.id,
            crate::gate::GateDecision::Reject {
                feedback: "no".into(),
            },
        )
        .unwrap_err();
        assert!(
            matches!(
                err,
                crate::gate::GateError::Closed {
                    status: GateStatus::AnsweredInTerminal,
                    ..
                }
            ),
            "{err}"
        );
    }

    #[test]
    fn exec_is_headless() {
        // Real processes with these arguments (`sh -c 'read x' codex …`, waiting on their stdin):
        // `exec` or `e` before `--` is headless; after `--`, or absent, it is not.
        let headless = |args: &[&str]| {
            let mut child = std::process::Command::new("/bin/sh")
                .args(["-c", "read x", "codex"])
                .args(args)
                .stdin(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            let pid = child.id();
            plandeck_testkit::wait_until("the process's own command line", || {
                std::fs::read(format!("/proc/{pid}/cmdline"))
                    .is_ok_and(|c| c.windows(6).any(|w| w == b"read x"))
            });
            let headless = runs_headless(pid);
            let _ = child.kill();
            let _ = child.wait();
            headless
        };
        assert!(headless(&["exec", "plan it"]));
        assert!(headless(&["--model", "o3", "e", "plan it"]));
        assert!(!headless(&["--no-daemon"]));
        assert!(
            !headless(&["--", "exec"]),
            "a prompt after `--` is a prompt"
        );
        assert!(!headless(&["execute"]));
        // This test process is not Codex; its own command line has no `exec`.
        assert!(!runs_headless(std::process::id()));
        assert!(
            runs_headless(u32::MAX - 1),
            "a process that cannot be read is not gated"
        );
    }
}
