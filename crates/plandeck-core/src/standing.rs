//! One state per plan from every source. A plan file's state is, in this order: `waiting` when an
//! agent waits for a decision on it right now (an open gate request names the file); else
//! Plandeck's own decision (the review store); else the agent's recorded decision (the
//! transcripts: approved in the terminal, rejected by a hook, …); else `unreviewed`. The list,
//! the plan's header, the filter and `plandeck plans list --json` all show this one state. A
//! session with a plan waiting in the gate is waiting for approval ([`settle_sessions`]).

use std::collections::HashMap;
use std::ffi::OsStr;
use std::path::Path;

use crate::agents::Agent;
use crate::config::Roots;
use crate::gate::GateRequest;
use crate::history::{self, HistoryVerdict, RecoveredPlan};
use crate::plans::PlanSummary;
use crate::review::{store, Approvals, DecidedIn, ReviewState};

/// The plans list with the plans only the transcripts hold: every plan file (as
/// [`crate::plans::list`] gives it, its state settled), then every recovered plan that matches
/// no listed file ([`history::same_plan`]) — its file is gone, was reused by a later session, or
/// never existed — newest first, with the scan's notes.
pub struct Listing {
    pub files: crate::plans::PlanListing,
    pub transcript_only: Vec<RecoveredPlan>,
    pub notes: Vec<String>,
}

/// See [`Listing`]. A scan that fails leaves the file plans listed, with a note.
pub fn listing(roots: &Roots) -> Listing {
    let mut files = crate::plans::list(roots);
    let (recovered, notes) = match history::scan(roots) {
        Ok(h) => (h.plans, h.notes),
        Err(e) => (
            Vec::new(),
            vec![format!("Plans in transcripts were not read: {e}")],
        ),
    };
    settle(
        roots,
        &mut files.plans,
        &recovered,
        &crate::gate::pending(roots),
    );
    let transcript_only = recovered
        .into_iter()
        .filter(|r| !files.plans.iter().any(|f| history::same_plan(r, f)))
        .collect();
    Listing {
        files,
        transcript_only,
        notes,
    }
}

/// Settles the state of every plan in `plans` (each as [`crate::plans::list`] gave it) from the
/// requests waiting now, Plandeck's decisions (the store under `roots`) and the plans the
/// transcripts hold.
pub fn settle(
    roots: &Roots,
    plans: &mut [PlanSummary],
    recovered: &[RecoveredPlan],
    waiting: &[GateRequest],
) {
    let waiting = Waiting::of(waiting);
    let approvals = Approvals::load(&roots.data);
    let mut by_name: HashMap<&OsStr, Vec<&RecoveredPlan>> = HashMap::new();
    for r in recovered {
        if let Some(name) = r.path.as_deref().and_then(|p| Path::new(p).file_name()) {
            by_name.entry(name).or_default().push(r);
        }
    }
    let running = Running::of(roots);
    for plan in plans.iter_mut() {
        if let Some(request) = waiting.for_plan(&plan.path) {
            plan.state = ReviewState::Waiting;
            plan.decided_in = None;
            plan.waiting_request = Some(request.to_owned());
            continue;
        }
        let recovered = Path::new(&plan.path).file_name().and_then(|name| {
            by_name
                .get(name)
                .and_then(|rs| rs.iter().find(|r| history::same_plan(r, plan)))
        });
        // The agent still waits at its own card (the window was closed while it waited, and its
        // hook gave the card back): the plan waits, whatever was recorded since; it is answered
        // in the agent's terminal (issue 34). Never shown approved while the agent waits.
        if recovered.is_some_and(|r| at_its_card(r, &running)) {
            plan.state = ReviewState::Waiting;
            plan.decided_in = None;
            plan.waiting_request = None;
            continue;
        }
        let path = Path::new(&plan.path);
        if approvals.decided(path) {
            // Plandeck's own decision stands (its hash compared with the file as it is now).
            let content = crate::plans::read_plan(path)
                .map(|(_, text)| text)
                .unwrap_or_default();
            plan.state = approvals.state(path, content.as_bytes());
            plan.decided_in = Some(DecidedIn::Plandeck);
            continue;
        }
        let Some(recovered) = recovered else {
            continue;
        };
        if let Some((state, decided_in)) = recorded(recovered, &plan.path) {
            plan.state = state;
            plan.decided_in = Some(decided_in);
        }
    }
}

/// The sessions running now, by agent and session id (entries of an agent's registry of running
/// CLIs whose process is alive: Claude Code's).
struct Running(std::collections::HashSet<(Agent, String)>);

impl Running {
    fn of(roots: &Roots) -> Self {
        Self(crate::agents::records::running_sessions(roots))
    }
}

/// Whether the agent of `r` waits at its own approval card now: the plan's last version was
/// offered and not answered, and its session runs (its agent's registry says so).
fn at_its_card(r: &RecoveredPlan, running: &Running) -> bool {
    r.versions.last().and_then(|v| v.verdict) == Some(HistoryVerdict::Pending)
        && r.session_id
            .as_ref()
            .is_some_and(|id| running.0.contains(&(r.agent, id.clone())))
}

/// The agent's recorded decision on the last version of `r`, as a state of the file at `path`.
/// A decision recorded by Plandeck that the review store does not hold did not stand (it was
/// not delivered), so it is not the plan's state.
fn recorded(r: &RecoveredPlan, path: &str) -> Option<(ReviewState, DecidedIn)> {
    let last = r.versions.last()?;
    let decided_in = last.decided_in.unwrap_or(DecidedIn::Terminal);
    if decided_in == DecidedIn::Plandeck {
        return None;
    }
    let state = match last.verdict? {
        HistoryVerdict::Rejected => ReviewState::Rejected,
        HistoryVerdict::Approved => {
            // The agent reads the file when the card is answered: the file holds the approved
            // version when its text is the one approved, or (Gemini records no approved text)
            // when it was not written after the decision.
            let approved = last.approved_text.as_deref().unwrap_or(&last.text);
            let unchanged_since = |meta: &std::fs::Metadata| {
                let decided = last.decided_at.as_deref().and_then(crate::timestamp::parse);
                let written = meta.modified().ok().map(time::OffsetDateTime::from);
                matches!((written, decided), (Some(w), Some(d)) if w <= d)
            };
            match crate::plans::read_plan(Path::new(path)) {
                Ok((_, now)) if now.trim_end() == approved.trim_end() => ReviewState::Approved,
                Ok((meta, _)) if last.approved_text.is_none() && unchanged_since(&meta) => {
                    ReviewState::Approved
                }
                _ => ReviewState::Changed,
            }
        }
        HistoryVerdict::Cancelled | HistoryVerdict::Pending => return None,
    };
    Some((state, decided_in))
}

/// The open requests by the plan file they name.
struct Waiting<'a> {
    by_path: HashMap<&'a str, &'a str>,
    by_key: Option<HashMap<std::path::PathBuf, &'a str>>,
}

impl<'a> Waiting<'a> {
    fn of(requests: &'a [GateRequest]) -> Self {
        let by_path: HashMap<&str, &str> = requests
            .iter()
            .filter_map(|r| Some((r.plan_path.as_deref()?, r.id.as_str())))
            .collect();
        // Requests name the file as the agent did; compare canonical paths only when needed.
        let by_key = (!by_path.is_empty()).then(|| {
            by_path
                .iter()
                .map(|(p, id)| (store::plan_key(Path::new(p)), *id))
                .collect()
        });
        Self { by_path, by_key }
    }

    fn for_plan(&self, path: &str) -> Option<&'a str> {
        if let Some(id) = self.by_path.get(path) {
            return Some(id);
        }
        self.by_key
            .as_ref()?
            .get(&store::plan_key(Path::new(path)))
            .copied()
    }
}

/// Settles the sessions listed now, as the window and `plandeck sessions` show them: a hosted
/// ACP session's agent's own records left out (its ACP card is the one:
/// [`crate::acp::host::fold_hosted`]), their states with the gate ([`settle_sessions`]), and the
/// process and tmux pane of those that run without a registry to say so (sessions Plandeck
/// started, Codex TUIs).
pub fn settle_listed(roots: &Roots, sessions: &mut Vec<crate::sessions::SessionSummary>) {
    crate::acp::host::fold_hosted(roots, sessions);
    settle_sessions(roots, sessions, &crate::gate::pending(roots));
    crate::control::fill_started(roots, sessions);
    crate::gate::codex::fill_panes(&roots.codex, sessions);
    crate::control::mark_exited(roots, sessions);
}

/// Settles each session's state and its plan's review state: a session with a plan waiting in
/// the gate is `waiting_for_approval` (a hook filed the request before the transcript shows the
/// `ExitPlanMode` call — Claude Code writes it after the hook runs — and for Gemini CLI the
/// request is the only sign); a session's plan shows Plandeck's decision on it, read now (so a
/// decision taken a moment ago shows).
pub fn settle_sessions(
    roots: &Roots,
    sessions: &mut [crate::sessions::SessionSummary],
    pending: &[GateRequest],
) {
    let approvals = Approvals::load(&roots.data);
    for s in sessions.iter_mut() {
        if pending
            .iter()
            .any(|r| r.session_id == s.session_id && r.agent == s.agent && !in_lead(r))
        {
            s.state = crate::sessions::SessionState::WaitingForApproval;
        }
        s.review_state = s.plan_path.as_deref().and_then(|plan| {
            let plan = Path::new(plan);
            if !approvals.decided(plan) {
                return std::fs::metadata(plan)
                    .is_ok_and(|m| m.is_file())
                    .then_some(ReviewState::Unreviewed);
            }
            let (_, text) = crate::plans::read_plan(plan).ok()?;
            Some(approvals.state(plan, text.as_bytes()))
        });
        // An agent that records the mode an approval switched to only when the turn ends shows
        // the mode the approval taken in Plandeck chose until then (issue 34).
        if s.permission_mode.is_none() {
            s.permission_mode = approvals
                .approved_mode(&s.session_id)
                .and_then(|m| crate::agents::records(s.agent).mode_after_approval(m))
                .map(str::to_owned);
        }
    }
    // A session the gate says waits moves up with the others that wait.
    crate::sessions::sort(sessions);
}

/// An in-process teammate's request: filed under its lead's session (the hook input's
/// `session_id` is the lead's), though the lead itself waits for nothing. Its lead's card is not
/// marked waiting for it (the queue shows the teammate's request).
fn in_lead(req: &GateRequest) -> bool {
    req.teammate.is_some() && req.lead_session_id.as_deref() == Some(req.session_id.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sessions::{SessionState, SessionSummary};

    fn session(id: &str, state: &str, at: &str) -> SessionSummary {
        serde_json::from_value(serde_json::json!({
            "agent": "claude", "sessionId": id, "cwd": "/work/api", "state": state,
            "lastActivity": at, "unreadableLines": 0
        }))
        .unwrap()
    }

    #[test]
    fn sessions_have_one_order_and_a_session_the_gate_holds_moves_up() {
        let home = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(home.path());
        let mut list = vec![
            session("ended", "ended", "2026-11-26T10:09:00Z"),
            session("idle", "idle", "2026-11-26T10:08:00Z"),
            session("working-old", "working", "2026-11-26T10:01:00Z"),
            session("working-new", "working", "2026-11-26T10:05:00Z"),
            session("crashed", "crashed", "2026-11-26T10:00:00Z"),
            session("asks", "waiting_for_input", "2026-11-26T09:00:00Z"),
            session("held", "idle", "2026-11-26T08:00:00Z"),
        ];
        let held: GateRequest = serde_json::from_value(serde_json::json!({
            "id": "r1", "agent": "claude", "sessionId": "held", "cwd": "/work/api",
            "planPath": null, "plan": "# Plan\n", "toolUseId": null, "transcriptPath": null,
            "transcriptOffset": 0, "tmuxPane": null, "tmuxSocket": null,
            "waitingSince": "2026-11-26T10:00:00Z", "deadline": "2026-11-26T10:10:00Z",
            "hookPid": 1, "agentPid": 1, "status": "waiting", "closedAt": null, "decision": null
        }))
        .unwrap();
        settle_sessions(&roots, &mut list, &[held]);
        let order: Vec<&str> = list.iter().map(|s| s.session_id.as_str()).collect();
        assert_eq!(
            order,
            [
                "held",
                "asks",
                "crashed",
                "working-new",
                "working-old",
                "idle",
                "ended"
            ]
        );
        assert_eq!(list[0].state, SessionState::WaitingForApproval);
    }

    /// Issue 33 (finding 16): an in-process teammate's request names its lead's session; the
    /// lead's card is not marked waiting for it. A teammate in a pane of its own (its own session)
    /// is.
    #[test]
    fn an_in_process_teammates_request_does_not_mark_its_lead_waiting() {
        let home = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(home.path());
        let request = |session: &str, lead: &str| -> GateRequest {
            serde_json::from_value(serde_json::json!({
                "id": format!("r-{session}"), "agent": "claude", "sessionId": session, "cwd": "/work/api",
                "planPath": null, "plan": "# Plan\n", "toolUseId": null, "transcriptPath": null,
                "transcriptOffset": 0, "tmuxPane": null, "tmuxSocket": null,
                "waitingSince": "2026-11-26T10:00:00Z", "deadline": "2026-11-26T10:10:00Z",
                "hookPid": 1, "agentPid": 1, "status": "waiting", "closedAt": null, "decision": null,
                "team": "session-1a2b3c4d", "teammate": "planner", "leadSessionId": lead
            }))
            .unwrap()
        };
        let mut list = vec![
            session("lead", "working", "2026-11-26T10:05:00Z"),
            session("mate-pane", "working", "2026-11-26T10:04:00Z"),
        ];
        settle_sessions(
            &roots,
            &mut list,
            &[request("lead", "lead"), request("mate-pane", "lead")],
        );
        let state = |id: &str| list.iter().find(|s| s.session_id == id).unwrap().state;
        assert_eq!(state("lead"), SessionState::Working);
        assert_eq!(state("mate-pane"), SessionState::WaitingForApproval);
    }

    /// Issue 34: a plan whose agent waits at its own card (the window was closed, the hook gave
    /// the card back) is waiting, never approved by a decision only recorded since.
    #[test]
    fn a_plan_whose_agent_waits_at_its_own_card_is_waiting() {
        let home = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(home.path());
        let plan = crate::agents::claude::plans_dir(&roots.claude).join("shop-cart.md");
        let text = "# Cart\n\n1. Add a cart.\n";
        crate::durable::write_atomic(&plan, text.as_bytes()).unwrap();
        let sid = "s-card";
        let now = crate::timestamp::format(crate::timestamp::now());
        let records = [
            serde_json::json!({"type": "user", "sessionId": sid, "cwd": "/work/shop", "timestamp": now,
                "permissionMode": "plan", "message": {"role": "user", "content": "plan a cart"}}),
            serde_json::json!({"type": "assistant", "sessionId": sid, "cwd": "/work/shop", "timestamp": now,
                "message": {"role": "assistant", "stop_reason": "tool_use", "content": [{"type": "tool_use",
                "id": "toolu_card", "name": "ExitPlanMode",
                "input": {"plan": text, "planFilePath": plan.to_string_lossy()}}]}}),
        ];
        let transcript = roots
            .claude
            .join(format!("projects/-work-shop/{sid}.jsonl"));
        let lines: String = records.iter().map(|r| format!("{r}\n")).collect();
        crate::durable::write_atomic(&transcript, lines.as_bytes()).unwrap();
        let registry = crate::agents::claude::registry_dir(&roots.claude).join("1.json");
        let entry = serde_json::json!({"pid": std::process::id(), "sessionId": sid,
            "cwd": "/work/shop", "status": "waiting"});
        crate::durable::write_atomic(&registry, entry.to_string().as_bytes()).unwrap();

        // Approved in the plan view while no request was open: recorded only.
        crate::review::approve(&roots, &plan, crate::review::ApproveRequest::default()).unwrap();
        let state = |roots: &Roots| {
            let l = listing(roots);
            let p = l
                .files
                .plans
                .iter()
                .find(|p| p.path.ends_with("shop-cart.md"))
                .cloned();
            p.map(|p| (p.state, p.waiting_request))
        };
        assert_eq!(state(&roots), Some((ReviewState::Waiting, None)));
        // The CLI exited: no card waits; what Plandeck recorded is the plan's state.
        std::fs::remove_file(&registry).unwrap();
        assert_eq!(state(&roots), Some((ReviewState::Approved, None)));
    }

    /// Issue 34: after "Yes, and use auto mode" Claude Code writes its new mode only when the
    /// turn ends; until then the card shows the mode the approval taken in Plandeck chose.
    #[test]
    fn a_claude_session_approved_in_plandeck_shows_the_mode_the_approval_chose() {
        let home = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(home.path());
        let line = |session: &str, verdict: &str, mode: &str, delivery: &str| {
            serde_json::json!({
                "time": "2026-11-26T10:00:00Z", "reviewer": "dev", "planPath": "/p.md",
                "agent": "claude", "sessionId": session, "decision": verdict, "mode": mode,
                "requestId": format!("r-{session}"), "delivery": delivery
            })
            .to_string()
        };
        let log = crate::review::store::log_path(&roots.data);
        std::fs::create_dir_all(log.parent().unwrap()).unwrap();
        let lines = [
            line("auto", "approved", "auto", "delivered"),
            line("manual", "approved", "manual", "delivered"),
            line("undelivered", "approved", "auto", "pending"),
            line("rejected-after", "approved", "auto", "delivered"),
            line("rejected-after", "rejected", "auto", "delivered"),
            line("has-mode", "approved", "auto", "delivered"),
        ];
        std::fs::write(&log, lines.join("\n") + "\n").unwrap();
        let mut list: Vec<SessionSummary> = [
            "auto",
            "manual",
            "undelivered",
            "rejected-after",
            "has-mode",
            "none",
        ]
        .iter()
        .map(|id| session(id, "working", "2026-11-26T10:00:00Z"))
        .collect();
        list[4].permission_mode = Some("plan".into());
        settle_sessions(&roots, &mut list, &[]);
        let mode = |id: &str| {
            list.iter()
                .find(|s| s.session_id == id)
                .unwrap()
                .permission_mode
                .clone()
        };
        assert_eq!(mode("auto").as_deref(), Some("auto"));
        assert_eq!(mode("manual").as_deref(), Some("default"));
        assert_eq!(mode("undelivered"), None);
        assert_eq!(mode("rejected-after"), None);
        assert_eq!(mode("has-mode").as_deref(), Some("plan"));
        assert_eq!(mode("none"), None);
    }
}
