//! The deck: every call the window makes, one function each, over one set of roots and their
//! live state (a headless Plandeck serves the same calls).
//!
//! - **Ids only.** Plans, worktrees, repositories, requests and recovered plans are named by the
//!   ids a listing gave; each is resolved here against what discovery found, so no caller can
//!   name an arbitrary file (the CLI's "id or path" forms are not reachable from here).
//! - **What a call changes is reported** through the live handle's [`LiveEvent`]s, so every holder
//!   of the live state (the window, a remote one) hears of a decision, a comment or a removal made
//!   anywhere, the same way as of a change on disk.
//! - **Confirmations** are preview → token → apply: a preview says what an action would do and
//!   carries a token of what it showed; the action goes ahead only while the token still holds.
//!
//! A [`Deck`] is cheap: handles to the live state, taken per call ([`Deck::of`] a live handle, or
//! [`Deck::starting`] while the live handle is not up yet).

use std::sync::{Arc, Mutex};

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::agents::{self, Agent, AgentInfo};
use crate::comments::{self, CommentAction, CommentsChanged, NewComment, PlacedComment, Position};
use crate::config::Roots;
use crate::control::{self, StartRequest, Started, StopOutcome, StopPreview};
use crate::elsewhere::{self, Elsewhere, MachineStatus, OnMachine};
use crate::gate::{self, DecisionOutcome, GateDecision, GateRequest, HookPreview, InstallReport};
use crate::history::{self, RecoveredPlan, RecoveredPlanView, Restored, ScanProgress};
use crate::ipc::{ErrorKind, IpcError};
use crate::live::{GateChanged, Live, LiveEvent, LiveHistory, LiveWorktrees, WorktreesChanged};
use crate::mirror::{MirrorError, TerminalView};
use crate::overview::Overview;
use crate::plans::{self, PlanDocument, PlanListing, PlansChanged, SearchHit};
use crate::review::{self, Decision, PlanDiff, PlanHistory};
use crate::route::{self, PlanDecision, PlanOutcome};
use crate::sessions::{IndexProgress, SessionIndex, SessionSummary};
use crate::sync::lock;
use crate::verify::{self, StepOverride, StepStatus, VerifyReport};
use crate::wire::{calls, Client, ConfirmationWords};
use crate::worktrees::{self, RemovalPreview, RemoveOutcome, WorktreeDetails, WorktreeSummary};

/// Who decides through a deck, as the decision log and the agent's feedback name them.
pub const WINDOW: &str = "the Plandeck window";

/// How long a search waits for the other machines (each asked at once).
const SEARCH_PATIENCE: std::time::Duration = std::time::Duration::from_secs(5);

/// One set of roots and their live state, with every call on them.
pub struct Deck {
    roots: Roots,
    demo: bool,
    history: Arc<LiveHistory>,
    worktrees: Arc<LiveWorktrees>,
    sessions: Arc<Mutex<Option<SessionIndex>>>,
    /// The live handle's terminal views; none before it is up.
    terminals: Option<Arc<crate::mirror::Terminals>>,
    /// The live handle's own progress, read when asked (a deck may be held for long: `serve`).
    index_progress: Arc<Mutex<IndexProgress>>,
    emit: Arc<dyn Fn(LiveEvent) + Send + Sync>,
    /// The other machines (`plandeck hosts`), when this deck shows them ([`Deck::with_elsewhere`]).
    elsewhere: Option<Arc<dyn Elsewhere>>,
    /// The program that starts this user's server when a Resume needs it (`serve
    /// --daemon-launch`); `None`: this one (the window's binary runs the command line too).
    server_program: Option<std::path::PathBuf>,
}

/// A native confirmation, in words: what the dialog says and its one action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confirmation {
    pub title: String,
    pub text: String,
    /// The action loses work: the dialog warns and the button says so.
    pub destructive: bool,
    /// The button that confirms (Cancel is the other).
    pub action: String,
}

/// Another machine, through the typed client of the table ([`Client`]): each call goes to
/// it, and its answer is read with its ids here ([`elsewhere::answer`]).
struct There<'a> {
    elsewhere: Option<&'a Arc<dyn Elsewhere>>,
    machine: &'a str,
}

impl Client for There<'_> {
    fn ask<T: DeserializeOwned + OnMachine>(
        &self,
        method: &'static str,
        params: Value,
    ) -> Result<T, IpcError> {
        let Some(elsewhere) = self.elsewhere else {
            return Err(IpcError::new(
                ErrorKind::NotFound,
                format!("{} is not a machine this window shows", self.machine),
            ));
        };
        elsewhere::answer(self.machine, elsewhere.call(self.machine, method, params)?)
    }
}

impl Deck {
    /// Every call on the roots `live` watches, over its live state, changes reported through its
    /// events. `demo`: the roots are the demo workspace.
    pub fn of(live: &Live, demo: bool) -> Deck {
        Deck {
            roots: live.roots.clone(),
            demo,
            history: live.history(),
            worktrees: live.worktrees(),
            sessions: live.sessions.clone(),
            terminals: Some(live.terminals.clone()),
            index_progress: live.index_progress.clone(),
            emit: live.emit.clone(),
            elsewhere: None,
            server_program: None,
        }
    }

    /// A deck for roots whose live handle is not up yet (the window's first moments, the roots
    /// changing): the history is empty until its scan, the worktrees report through `emit`.
    pub fn starting(
        roots: Roots,
        demo: bool,
        sessions: Arc<Mutex<Option<SessionIndex>>>,
        emit: Arc<dyn Fn(LiveEvent) + Send + Sync>,
    ) -> Deck {
        Deck {
            history: LiveHistory::empty(&roots),
            worktrees: LiveWorktrees::new(&roots, sessions.clone(), emit.clone()),
            roots,
            demo,
            sessions,
            terminals: None,
            index_progress: Arc::default(),
            emit,
            elsewhere: None,
            server_program: None,
        }
    }

    /// This deck with the other machines' rows and calls: ids of theirs (`@lab/…`) go to them,
    /// listings hold their rows too. Not for the demo, which shows the demo workspace only.
    pub fn with_elsewhere(mut self, elsewhere: Arc<dyn Elsewhere>) -> Deck {
        if !self.demo {
            self.elsewhere = Some(elsewhere);
        }
        self
    }

    /// This deck with `program` as the one that starts this user's server (tests: the command
    /// line's binary; by default this program).
    pub fn with_server_program(mut self, program: std::path::PathBuf) -> Deck {
        self.server_program = Some(program);
        self
    }

    /// When `id` is another machine's: that machine (its calls typed by the table, its answers
    /// read with its ids here) and the id as it knows it; `None` for a local id.
    fn there<'a>(&'a self, id: &'a str) -> Option<(There<'a>, String)> {
        let (machine, own) = elsewhere::split(id)?;
        Some((self.on(machine), own.to_owned()))
    }

    /// The machine `machine`, its calls typed by the table.
    fn on<'a>(&'a self, machine: &'a str) -> There<'a> {
        There {
            elsewhere: self.elsewhere.as_ref(),
            machine,
        }
    }

    /// Every other machine's answer to the listing `method`: its rows, or why there are none.
    fn gathered<T: DeserializeOwned + OnMachine>(
        &self,
        method: &str,
    ) -> Vec<(String, Result<T, IpcError>)> {
        let Some(elsewhere) = &self.elsewhere else {
            return Vec::new();
        };
        elsewhere
            .gather(method)
            .into_iter()
            .map(|g| {
                let read = g.answer.and_then(|v| elsewhere::answer(&g.machine, v));
                (g.machine, read)
            })
            .collect()
    }

    /// The rows of every other machine for `method`, added to `rows` (a machine that cannot
    /// answer adds none; its status says why).
    fn with_theirs<T: DeserializeOwned + OnMachine>(&self, method: &str, rows: &mut Vec<T>) {
        for (machine, theirs) in self.gathered::<Vec<T>>(method) {
            match theirs {
                Ok(theirs) => rows.extend(theirs),
                Err(e) => tracing::debug!(machine, method, "no rows: {e}"),
            }
        }
    }

    pub fn roots(&self) -> &Roots {
        &self.roots
    }

    /// `call` on this deck, deciding as `by`: how the table's deck calls are run
    /// ([`crate::ipc_table!`]; the window decides as [`WINDOW`], a server as its client).
    pub fn call<R>(&self, by: &str, call: impl FnOnce(&Deck, &str) -> R) -> R {
        call(self, by)
    }

    fn report(&self, event: LiveEvent) {
        (self.emit)(event);
    }

    fn plans_changed(&self, paths: Vec<String>) {
        self.report(LiveEvent::Plans(PlansChanged::of(paths)));
    }

    // ---- Overview

    pub fn overview(&self) -> Result<Overview, IpcError> {
        Ok(crate::overview::overview(&self.roots, self.demo))
    }

    // ---- Agents

    /// Every agent Plandeck knows, with what it can do (the window's agent lists).
    pub fn list_agents(&self) -> Result<Vec<AgentInfo>, IpcError> {
        Ok(agents::list())
    }

    // ---- Plans

    /// The window's first frame: this machine's `n` newest plans, settled as [`Deck::list_plans`]
    /// settles them, and how many plans it lists in all (`plans::list_newest`); the whole listing,
    /// other machines' too, follows once the frame has painted.
    pub fn first_plans(&self, n: usize) -> Result<(PlanListing, usize), IpcError> {
        let (mut listing, total) = plans::list_newest(&self.roots, n);
        crate::standing::settle(
            &self.roots,
            &mut listing.plans,
            &self.history.plans_now(),
            &gate::pending(&self.roots),
        );
        Ok((listing, total))
    }

    /// Every plan, each where it stands from every source ([`crate::standing`]).
    pub fn list_plans(&self) -> Result<PlanListing, IpcError> {
        let mut listing = plans::list(&self.roots);
        crate::standing::settle(
            &self.roots,
            &mut listing.plans,
            &self.history.plans_now(),
            &gate::pending(&self.roots),
        );
        if self.elsewhere.is_some() {
            for (machine, theirs) in self.gathered::<PlanListing>(calls::list_plans::NAME) {
                match theirs {
                    Ok(theirs) => {
                        listing.plans.extend(theirs.plans);
                        listing.problems.extend(theirs.problems);
                    }
                    Err(e) => tracing::debug!(machine, "no plans: {e}"),
                }
            }
            // Newest first, whichever machine (the order `plans::list` gives its own).
            listing
                .plans
                .sort_by(|a, b| b.updated_at.cmp(&a.updated_at).then(a.id.cmp(&b.id)));
        }
        Ok(listing)
    }

    /// One plan, rendered and settled; the version is recorded in the review store as seen.
    pub fn get_plan(&self, id: &str) -> Result<PlanDocument, IpcError> {
        if let Some((there, own)) = self.there(id) {
            return there.get_plan(own);
        }
        let mut doc = plans::get_by_id(&self.roots, id)?;
        crate::standing::settle(
            &self.roots,
            std::slice::from_mut(&mut doc.plan),
            &self.history.plans_now(),
            &gate::pending(&self.roots),
        );
        let path = std::path::Path::new(&doc.plan.path);
        if let Err(e) = review::record_version(&self.roots, path, doc.source.as_bytes()) {
            tracing::warn!("cannot record a version of {}: {e}", doc.plan.path);
        }
        Ok(doc)
    }

    pub fn search_plans(&self, query: &str) -> Result<Vec<SearchHit>, IpcError> {
        let mut hits = plans::search(&self.roots, query);
        if let Some(elsewhere) = &self.elsewhere {
            // Every machine asked at once, and waited for at most SEARCH_PATIENCE in all: a
            // machine that does not answer adds nothing (its call ends at its own deadline).
            let asked: Vec<_> = elsewhere
                .statuses()
                .into_iter()
                .map(|m| {
                    let (tx, rx) = std::sync::mpsc::channel();
                    let (elsewhere, machine, query) =
                        (elsewhere.clone(), m.name.clone(), query.to_owned());
                    std::thread::spawn(move || {
                        let there = There {
                            elsewhere: Some(&elsewhere),
                            machine: &machine,
                        };
                        let _ = tx.send(there.search_plans(query));
                    });
                    (m.name, rx)
                })
                .collect();
            let deadline = std::time::Instant::now() + SEARCH_PATIENCE;
            for (_, rx) in asked {
                let left = deadline.saturating_duration_since(std::time::Instant::now());
                let theirs = rx.recv_timeout(left).ok().and_then(Result::ok);
                if let Some(theirs) = theirs {
                    hits.extend(theirs);
                }
            }
        }
        Ok(hits)
    }

    // ---- Review

    pub fn plan_diff(
        &self,
        id: &str,
        from: Option<&str>,
        to: Option<&str>,
    ) -> Result<PlanDiff, IpcError> {
        if let Some((machine, _)) = elsewhere::split(id) {
            return self.diff_there(machine, id, from, to);
        }
        let path = plans::resolve_id(&self.roots, id)?;
        Ok(review::diff(&self.roots, &path, from, to)?)
    }

    /// A plan's diff on another machine: its two versions asked of it, compared and rendered here
    /// (the remote's HTML is never shown).
    fn diff_there(
        &self,
        machine: &str,
        id: &str,
        from: Option<&str>,
        to: Option<&str>,
    ) -> Result<PlanDiff, IpcError> {
        let own = elsewhere::own_id(machine, id)?;
        let there = self.on(machine);
        let theirs = there.plan_diff(
            own.to_owned(),
            from.map(str::to_owned),
            to.map(str::to_owned),
        )?;
        let version = |hash: &str| there.plan_version(own.to_owned(), hash.to_owned());
        let old = match &theirs.from_hash {
            Some(hash) => version(hash),
            None => Ok(String::new()),
        };
        // The newest text may be one the remote never recorded as a version: its plan as shown.
        let new = version(&theirs.to_hash).or_else(|_| {
            let doc = there.get_plan(own.to_owned())?;
            if doc.content_hash == theirs.to_hash {
                Ok(doc.source)
            } else {
                Err(IpcError::new(
                    ErrorKind::Conflict,
                    "the plan changed meanwhile",
                ))
            }
        });
        let (Ok(old), Ok(new)) = (old, new) else {
            // Its diff as it gave it, sanitized here ([`OnMachine`] for `PlanDiff`).
            return Ok(theirs);
        };
        let mut here = PlanDiff::between(&old, &new);
        here.from_hash = theirs.from_hash;
        here.to_hash = theirs.to_hash;
        here.from_label = theirs.from_label;
        here.to_label = theirs.to_label;
        Ok(here)
    }

    pub fn plan_history(&self, id: &str) -> Result<PlanHistory, IpcError> {
        if let Some((there, own)) = self.there(id) {
            return there.plan_history(own);
        }
        let path = plans::resolve_id(&self.roots, id)?;
        Ok(review::history(&self.roots, &path)?)
    }

    pub fn plan_version(&self, id: &str, hash: &str) -> Result<String, IpcError> {
        if let Some((there, own)) = self.there(id) {
            return there.plan_version(own, hash.to_owned());
        }
        let path = plans::resolve_id(&self.roots, id)?;
        Ok(review::version_of(&self.roots, &path, hash)?)
    }

    pub fn decision_log(&self) -> Result<Vec<Decision>, IpcError> {
        let mut log = review::log(&self.roots, None)?;
        if self.elsewhere.is_some() {
            self.with_theirs(calls::decision_log::NAME, &mut log);
            // Newest first, whichever machine decided.
            log.sort_by_key(|d| std::cmp::Reverse(d.time));
        }
        Ok(log)
    }

    /// One decision on the version of a plan the reviewer read (`seen_hash`), by `by`: to the
    /// agent waiting for it, else recorded only ([`route::decide_plan`]).
    pub fn decide_plan(
        &self,
        id: &str,
        seen_hash: &str,
        decision: PlanDecision,
        with_comments: Option<bool>,
        by: &str,
    ) -> Result<PlanOutcome, IpcError> {
        // On another machine its own deck decides, and records who: "over SSH from …".
        if let Some((there, own)) = self.there(id) {
            return there.decide_plan(own, seen_hash.to_owned(), decision, with_comments);
        }
        let opts = route::RouteOptions {
            comments: with_comments.unwrap_or(true),
            delivery: gate::DeliveryOptions {
                by: by.to_owned(),
                ..Default::default()
            },
        };
        let path = plans::resolve_id(&self.roots, id)?;
        let outcome = route::decide_plan(&self.roots, &path, seen_hash, decision, &opts)?;
        if let Some(request) = &outcome.request_id {
            self.report(LiveEvent::Gate(GateChanged {
                updated: vec![request.clone()],
                ..Default::default()
            }));
        }
        let changed = outcome.decision.iter().map(|d| d.plan_path.clone());
        self.plans_changed(changed.collect());
        Ok(outcome)
    }

    /// Undoes a record-only decision (appends a revocation; the log keeps both lines).
    pub fn undo_decision(&self, id: &str, decision_id: &str) -> Result<Decision, IpcError> {
        if let Some((machine, own)) = elsewhere::split(id) {
            let decision_id = elsewhere::own_id(machine, decision_id)?;
            return self
                .on(machine)
                .undo_decision(own.to_owned(), decision_id.to_owned());
        }
        let path = plans::resolve_id(&self.roots, id)?;
        let line = route::undo(&self.roots, &path, decision_id)?;
        self.plans_changed(vec![line.plan_path.clone()]);
        Ok(line)
    }

    // ---- History

    pub fn transcript_plans(&self) -> Result<Vec<RecoveredPlan>, IpcError> {
        let mut plans = history::transcript_only_in(&self.history.plans());
        self.with_theirs(calls::transcript_plans::NAME, &mut plans);
        Ok(plans)
    }

    pub fn history_progress(&self) -> Result<ScanProgress, IpcError> {
        Ok(self.history.progress())
    }

    pub fn recovered_plan(&self, id: &str) -> Result<RecoveredPlanView, IpcError> {
        if let Some((there, own)) = self.there(id) {
            return there.recovered_plan(own);
        }
        history::view_in(&self.roots, &self.history.plans(), id)
    }

    pub fn recovered_plan_diff(&self, id: &str, a: u32, b: u32) -> Result<PlanDiff, IpcError> {
        if let Some((machine, _)) = elsewhere::split(id) {
            // Both versions' texts are in its recovered plan: compared and rendered here.
            let own = elsewhere::own_id(machine, id)?;
            let view = self.on(machine).recovered_plan(own.to_owned())?;
            let text = |i: u32| {
                view.plan
                    .versions
                    .get(i as usize)
                    .map(|v| v.text.clone())
                    .ok_or_else(|| {
                        IpcError::new(ErrorKind::NotFound, format!("no version {i} of {id}"))
                    })
            };
            return Ok(PlanDiff::between(&text(a)?, &text(b)?));
        }
        let plans = self.history.plans();
        history::diff_versions_in(&self.roots, &plans, id, a as usize, b as usize)
    }

    /// Writes a recovered plan back as a plan file; the history reads itself again.
    pub fn restore_plan(&self, id: &str) -> Result<Restored, IpcError> {
        if let Some((there, own)) = self.there(id) {
            return there.restore_plan(own);
        }
        let restored = history::restore_in(&self.roots, &self.history.plans(), id)?;
        self.history.refresh(true);
        self.plans_changed(vec![restored.path.clone()]);
        Ok(restored)
    }

    // ---- Comments

    pub fn list_comments(&self, id: &str) -> Result<Vec<PlacedComment>, IpcError> {
        if let Some((there, own)) = self.there(id) {
            return there.list_comments(own);
        }
        let path = plans::resolve_id(&self.roots, id)?;
        Ok(comments::for_plan(&self.roots, &path.to_string_lossy())?.1)
    }

    pub fn add_comment(
        &self,
        id: &str,
        quote: &str,
        text: &str,
        near: Option<u32>,
    ) -> Result<PlacedComment, IpcError> {
        if let Some((there, own)) = self.there(id) {
            return there.add_comment(own, quote.to_owned(), text.to_owned(), near);
        }
        let position = near.map_or(Position::Only, |n| Position::Near(n as usize));
        let new = NewComment {
            quote,
            text,
            position,
        };
        let placed = comments::add_to_plan_id(&self.roots, id, new, &review::log::now())?;
        self.report(LiveEvent::Comments(CommentsChanged {
            plan: Some(id.to_owned()),
        }));
        Ok(placed)
    }

    pub fn change_comment(&self, comment_id: &str, action: CommentAction) -> Result<(), IpcError> {
        if let Some((there, own)) = self.there(comment_id) {
            return there.change_comment(own, action);
        }
        comments::change(&self.roots.data, comment_id, action, &review::log::now())?;
        self.report(LiveEvent::Comments(CommentsChanged::default()));
        Ok(())
    }

    pub fn review_markdown(&self, id: &str) -> Result<String, IpcError> {
        if let Some((there, own)) = self.there(id) {
            return there.review_markdown(own);
        }
        let path = plans::resolve_id(&self.roots, id)?;
        comments::review_markdown(&self.roots, &path.to_string_lossy())
    }

    // ---- Sessions

    /// The sessions (`ids`: only those), in the index's order, each settled with the gate.
    pub fn sessions(&self, ids: Option<&[String]>) -> Result<Vec<SessionSummary>, IpcError> {
        let mut list = match lock(&self.sessions).as_ref() {
            Some(index) => index.sessions(),
            None => Vec::new(),
        };
        if let Some(ids) = ids {
            let wanted: std::collections::HashSet<&String> = ids.iter().collect();
            list.retain(|s| wanted.contains(&s.session_id));
        }
        crate::standing::settle_listed(&self.roots, &mut list);
        if self.elsewhere.is_none() {
            return Ok(list);
        }
        match ids {
            None => self.with_theirs(calls::list_sessions::NAME, &mut list),
            Some(ids) => {
                // Each machine's own, asked of it.
                let mut of: std::collections::BTreeMap<&str, Vec<&str>> = Default::default();
                for (machine, own) in ids.iter().filter_map(|id| elsewhere::split(id)) {
                    of.entry(machine).or_default().push(own);
                }
                for (machine, own) in of {
                    let own = own.into_iter().map(str::to_owned).collect();
                    let theirs = self.on(machine).get_sessions(own);
                    match theirs {
                        Ok(theirs) => list.extend(theirs),
                        Err(e) => tracing::debug!(machine, "no sessions: {e}"),
                    }
                }
            }
        }
        crate::sessions::sort(&mut list);
        Ok(list)
    }

    pub fn session_index_progress(&self) -> Result<IndexProgress, IpcError> {
        Ok(*lock(&self.index_progress))
    }

    // ---- Terminal views (crate::mirror)

    fn terminals(&self) -> Result<&crate::mirror::Terminals, IpcError> {
        self.terminals.as_deref().ok_or_else(|| {
            IpcError::new(
                ErrorKind::Unsupported,
                "Plandeck is still starting: open the terminal again in a moment",
            )
        })
    }

    /// Opens a live, read-only view of the pane session `session_id` runs in.
    pub fn open_terminal(&self, session_id: &str) -> Result<TerminalView, IpcError> {
        if let Some((there, own)) = self.there(session_id) {
            return there.open_terminal(own);
        }
        // A session Plandeck started (any agent) or a live Claude Code session in tmux; else the
        // pane the session's own records and process name.
        let target = match control::resolve(&self.roots, session_id) {
            Ok(steerable) => steerable.target,
            Err(_) => {
                let session = lock(&self.sessions)
                    .as_ref()
                    .and_then(|index| index.session(session_id))
                    .ok_or_else(|| MirrorError::UnknownSession(session_id.to_owned()))?;
                crate::mirror::target_of(&session)?
            }
        };
        Ok(self.terminals()?.open(session_id, target)?)
    }

    /// Ends the view `view`.
    pub fn close_terminal(&self, view: &str) -> Result<(), IpcError> {
        if let Some((there, own)) = self.there(view) {
            return there.close_terminal(own);
        }
        self.terminals()?.close(view);
        Ok(())
    }

    /// The person takes control of `view` (their keys reach the pane), once its pane is checked.
    pub fn take_terminal_control(&self, view: &str) -> Result<(), IpcError> {
        if let Some((there, own)) = self.there(view) {
            return there.take_terminal_control(own);
        }
        Ok(self.terminals()?.take_control(view)?)
    }

    /// `view` is read-only again.
    pub fn release_terminal_control(&self, view: &str) -> Result<(), IpcError> {
        if let Some((there, own)) = self.there(view) {
            return there.release_terminal_control(own);
        }
        Ok(self.terminals()?.release_control(view)?)
    }

    /// Types what the person's keys made into the pane of `view`, which they took control of.
    pub fn type_into_terminal(&self, view: &str, data: &str) -> Result<(), IpcError> {
        if let Some((there, own)) = self.there(view) {
            return there.type_into_terminal(own, data.to_owned());
        }
        Ok(self.terminals()?.type_into(view, data)?)
    }

    /// Ends every view (the last client of a server went away).
    pub fn close_all_terminals(&self) {
        if let Some(t) = &self.terminals {
            t.close_all();
        }
    }

    // ---- Worktrees

    /// The worktrees; sizes not measured yet come as [`LiveEvent::WorktreeSize`].
    pub fn list_worktrees(&self) -> Result<Vec<WorktreeSummary>, IpcError> {
        let mut list = self.worktrees.list()?;
        self.with_theirs(calls::list_worktrees::NAME, &mut list);
        Ok(list)
    }

    /// Keeps the worktree `id` (listed as kept, never offered for removal); every holder hears.
    pub fn keep_worktree(&self, id: &str) -> Result<(), IpcError> {
        if let Some((there, own)) = self.there(id) {
            return there.keep_worktree(own);
        }
        let path = worktrees::resolve_id(&self.roots, id)?;
        worktrees::keep(&self.roots, &path)?;
        self.worktree_changed(id);
        Ok(())
    }

    /// Forgets the Keep choice for the worktree `id` (nothing on disk changes); every holder hears.
    pub fn unkeep_worktree(&self, id: &str) -> Result<(), IpcError> {
        if let Some((there, own)) = self.there(id) {
            return there.unkeep_worktree(own);
        }
        let path = worktrees::resolve_id(&self.roots, id)?;
        worktrees::unkeep(&self.roots, &path)?;
        self.worktree_changed(id);
        Ok(())
    }

    fn worktree_changed(&self, id: &str) {
        self.report(LiveEvent::Worktrees(WorktreesChanged {
            ids: vec![id.to_owned()],
        }));
    }

    pub fn worktree_details(&self, id: &str) -> Result<WorktreeDetails, IpcError> {
        if let Some((there, own)) = self.there(id) {
            return there.worktree_details(own);
        }
        let path = worktrees::resolve_id(&self.roots, id)?;
        Ok(worktrees::details(&self.roots, &path)?)
    }

    /// What removing the worktree `id` would do, and the confirmation to ask: every removal is
    /// confirmed, and when something would be lost the action says so. What can never be removed
    /// (the main worktree, a folder git cannot validate …) is refused here, with why.
    pub fn removal_to_confirm(&self, id: &str) -> Result<(RemovalPreview, Confirmation), IpcError> {
        if let Some((machine, own)) = elsewhere::split(id) {
            let shown = self.on(machine).removal_to_confirm(own.to_owned())?;
            return Ok((shown.preview, shown.confirmation.on(machine)));
        }
        let path = worktrees::resolve_id(&self.roots, id)?;
        let preview = worktrees::removal_preview(&self.roots, &path, None)?;
        if !preview.confirmable {
            let why: Vec<String> = preview.refusals.iter().map(|r| r.message()).collect();
            return Err(IpcError::new(
                ErrorKind::Refused,
                format!("{} cannot be removed: {}", path.display(), why.join("; ")),
            ));
        }
        let destructive = !preview.refusals.is_empty();
        let confirmation = Confirmation {
            title: format!("Remove {}?", path.display()),
            text: preview.confirmation_text(),
            destructive,
            action: if destructive {
                "Discard and remove"
            } else {
                "Remove worktree"
            }
            .into(),
        };
        Ok((preview, confirmation))
    }

    /// Removes the worktree `id` as its confirmed preview showed it (refused as a conflict when it
    /// changed since); the list is told either way.
    pub fn remove_worktree(
        &self,
        id: &str,
        preview: &RemovalPreview,
    ) -> Result<RemoveOutcome, IpcError> {
        // There, the token is the one its own preview gave (it removes only what it showed).
        // There, the token is the one its own preview gave (it removes only what it showed).
        if let Some((there, own)) = self.there(id) {
            return there.remove_shown(own, preview.token.clone());
        }
        let path = worktrees::resolve_id(&self.roots, id)?;
        let opts = worktrees::RemoveOptions {
            discard: !preview.refusals.is_empty(),
            expected: Some(preview.token.clone()),
            tmux_socket: None,
        };
        let outcome = worktrees::remove(&self.roots, &path, &opts);
        self.report(LiveEvent::Worktrees(WorktreesChanged::default()));
        Ok(outcome?)
    }

    /// The clean and merged worktrees of the repository `repo_id`, and the confirmation naming
    /// them (none: nothing to remove).
    pub fn clean_removals_to_confirm(
        &self,
        repo_id: &str,
    ) -> Result<(Vec<RemovalPreview>, Option<Confirmation>), IpcError> {
        if let Some((machine, own)) = elsewhere::split(repo_id) {
            let shown = self.on(machine).clean_removals_to_confirm(own.to_owned())?;
            let confirmation = shown.confirmation.map(|c| c.on(machine));
            return Ok((shown.previews, confirmation));
        }
        let repo = worktrees::resolve_repo_id(&self.roots, repo_id)?;
        let previews = worktrees::clean_removals(&self.roots, &repo, None)?;
        if previews.is_empty() {
            return Ok((previews, None));
        }
        let confirmation = Confirmation {
            title: format!(
                "Remove {} clean and merged worktrees of {}?",
                previews.len(),
                repo.display()
            ),
            text: worktrees::clean_confirmation_text(&previews),
            destructive: false,
            action: if previews.len() == 1 {
                "Remove worktree".to_owned()
            } else {
                format!("Remove {} worktrees", previews.len())
            },
        };
        Ok((previews, Some(confirmation)))
    }

    /// Removes each confirmed worktree that is still what its preview showed.
    pub fn remove_clean(&self, previews: &[RemovalPreview]) -> Result<Vec<String>, IpcError> {
        let repo = previews.first().map(|p| p.worktree.repo_id.as_str());
        if let Some((machine, own)) = repo.and_then(elsewhere::split) {
            if previews
                .iter()
                .any(|p| p.worktree.repo_id != previews[0].worktree.repo_id)
            {
                return Err(IpcError::new(
                    ErrorKind::BadInput,
                    "clean removals are of one repository at a time",
                ));
            }
            let tokens = previews.iter().map(|p| p.token.clone()).collect();
            return self.on(machine).remove_clean_shown(own.to_owned(), tokens);
        }
        let removed = worktrees::remove_previewed(&self.roots, previews, None);
        self.report(LiveEvent::Worktrees(WorktreesChanged::default()));
        Ok(removed?)
    }

    pub fn restore_worktree(&self, repo_id: &str, archive_ref: &str) -> Result<String, IpcError> {
        if let Some((there, own)) = self.there(repo_id) {
            return there.restore_worktree(own, archive_ref.to_owned());
        }
        let repo = worktrees::resolve_repo_id(&self.roots, repo_id)?;
        let branch = worktrees::restore(&self.roots, &repo, archive_ref)?;
        self.report(LiveEvent::Worktrees(WorktreesChanged::default()));
        Ok(branch)
    }

    // ---- Gate

    pub fn list_pending(&self) -> Result<Vec<GateRequest>, IpcError> {
        let mut pending = gate::pending(&self.roots);
        if self.elsewhere.is_some() {
            self.with_theirs(calls::list_pending::NAME, &mut pending);
            pending.sort_by(|a, b| a.waiting_since.cmp(&b.waiting_since).then(a.id.cmp(&b.id)));
        }
        Ok(pending)
    }

    /// The requests waiting now for the window's title: this machine's, and what the other
    /// machines last said (none is asked now: the title never waits on a network).
    pub fn waiting_now(&self) -> Vec<GateRequest> {
        let mut pending = gate::pending(&self.roots);
        if let Some(elsewhere) = &self.elsewhere {
            for g in elsewhere.last(calls::list_pending::NAME) {
                let theirs = g
                    .answer
                    .and_then(|v| elsewhere::answer::<Vec<GateRequest>>(&g.machine, v));
                pending.extend(theirs.unwrap_or_default());
            }
        }
        pending
    }

    /// A decision on the waiting request `id`, by `by`, delivered to its agent.
    pub fn decide_request(
        &self,
        id: &str,
        decision: GateDecision,
        with_comments: Option<bool>,
        seen_hash: Option<String>,
        option: Option<String>,
        by: &str,
    ) -> Result<DecisionOutcome, IpcError> {
        // On another machine its own gate delivers, and records who: "over SSH from …".
        if let Some((there, own)) = self.there(id) {
            return there.decide_request(own, decision, with_comments, seen_hash, option);
        }
        if self.demo {
            let outcome = gate::decide_demo(&self.roots, id, decision, by)?;
            self.report(LiveEvent::Gate(GateChanged {
                closed: vec![outcome.request_id.clone()],
                ..Default::default()
            }));
            return Ok(outcome);
        }
        let opts = gate::DeliveryOptions {
            comments: with_comments.unwrap_or(true),
            by: by.to_owned(),
            seen_hash,
            option,
            ..Default::default()
        };
        let outcome = gate::decide_with(&self.roots, id, decision, &opts)?;
        self.report(LiveEvent::Gate(GateChanged {
            updated: vec![outcome.request_id.clone()],
            ..Default::default()
        }));
        self.plans_changed(Vec::new());
        Ok(outcome)
    }

    /// [`Deck::decide_request`] for someone this side checked (a paired phone, its signature,
    /// nonce and plan hash): on another machine, that machine's log names them, relayed by this
    /// one (`the phone "Pixel" (device …) via laptop, through plandeck serve (over SSH from …)`),
    /// not only this machine's ssh. A machine whose Plandeck predates the call is asked the plain
    /// decision (nothing was decided by the refused call).
    pub fn decide_request_for(
        &self,
        id: &str,
        decision: GateDecision,
        seen_hash: Option<String>,
        by: &str,
    ) -> Result<DecisionOutcome, IpcError> {
        let Some((there, own)) = self.there(id) else {
            return self.decide_request(id, decision, None, seen_hash, None, by);
        };
        let relayed = format!("{by} via {}", crate::phone::server::machine());
        match there.decide_request_for(own.clone(), decision.clone(), seen_hash.clone(), relayed) {
            Err(e)
                if e.kind == ErrorKind::Unsupported
                    && e.message.contains("no method `decide_request_for`") =>
            {
                there.decide_request(own, decision, None, seen_hash, None)
            }
            other => other,
        }
    }

    pub fn request_comments(&self, id: &str) -> Result<Vec<PlacedComment>, IpcError> {
        if let Some((there, own)) = self.there(id) {
            return there.request_comments(own);
        }
        Ok(gate::open_comments(&self.roots, id)?)
    }

    // ---- Settings: agent hooks, shown before they are written

    pub fn hook_status(&self, agent: Agent) -> Result<HookPreview, IpcError> {
        Ok(gate::hook_preview(&self.roots, agent)?)
    }

    /// Installs or uninstalls `agent`'s plan hook, only while the change is the one shown (`token`).
    pub fn set_hook(
        &self,
        agent: Agent,
        installed: bool,
        token: &str,
    ) -> Result<InstallReport, IpcError> {
        Ok(if installed {
            gate::install_if_unchanged(&self.roots, agent, token)?
        } else {
            gate::uninstall_if_unchanged(&self.roots, agent, token)?
        })
    }

    pub fn stop_hook_status(&self) -> Result<HookPreview, IpcError> {
        Ok(verify::install::hook_preview(&self.roots)?)
    }

    pub fn set_stop_hook(&self, installed: bool, token: &str) -> Result<InstallReport, IpcError> {
        Ok(verify::install::set_if_unchanged(
            &self.roots,
            installed,
            token,
        )?)
    }

    /// Claude Code agent teams, here and on every connected machine: each lead's teammates, with
    /// where their plans stand.
    /// The ACP agents the window's New session offers (found on the PATH or under the npm prefix).
    pub fn acp_agents(&self) -> Result<Vec<crate::acp::catalog::AcpAgentChoice>, IpcError> {
        Ok(crate::acp::catalog::acp_choices(
            &crate::config::Env::from_process(),
        ))
    }

    /// The ACP sessions this user's server hosts (issue 36), newest first, each with its live
    /// state (one whose server is gone has ended).
    pub fn list_acp_sessions(&self) -> Result<Vec<crate::acp::host::Hosted>, IpcError> {
        Ok(crate::acp::host::list(&self.roots)
            .into_iter()
            .map(|mut h| {
                h.state = h.live_state().to_owned();
                self.fill_hosted(&mut h);
                h
            })
            .collect())
    }

    /// What the agent's own record of the hosted session `h` tells that it did not say over ACP
    /// (its tokens: [`crate::acp::host::fill_from_records`]), from the live session index.
    fn fill_hosted(&self, h: &mut crate::acp::host::Hosted) {
        crate::acp::host::fill_from_records(h, |sid| {
            lock(&self.sessions).as_ref().and_then(|i| i.session(sid))
        });
    }

    /// One hosted ACP session with its conversation.
    pub fn acp_session(&self, id: &str) -> Result<crate::acp::host::Hosted, IpcError> {
        if let Some((there, own)) = self.there(id) {
            return there.acp_session(own);
        }
        let mut h = crate::acp::host::get(&self.roots, id).ok_or_else(|| {
            IpcError::new(
                crate::ipc::ErrorKind::NotFound,
                format!("no hosted ACP session {}", crate::visible::shown(id)),
            )
        })?;
        h.state = h.live_state().to_owned();
        self.fill_hosted(&mut h);
        Ok(crate::acp::host::for_window(h))
    }

    /// What Stop of the hosted ACP session `id` ends, listed first: the processes of its agent's
    /// group, the agent first (none when it no longer runs).
    pub fn acp_stop_preview(&self, id: &str) -> Result<Vec<crate::control::ProcessLine>, IpcError> {
        if let Some((there, own)) = self.there(id) {
            return there.acp_stop_preview(own).map(another_machines_processes);
        }
        let h = crate::acp::host::get(&self.roots, id).ok_or_else(|| {
            IpcError::new(
                crate::ipc::ErrorKind::NotFound,
                format!("no hosted ACP session {}", crate::visible::shown(id)),
            )
        })?;
        Ok(control::acp_stop_preview(&h))
    }

    /// Send (a prompt, only when no turn runs), Interrupt or Stop, handed to the session's host.
    /// Resume (a session whose host ended) is handed to this user's server, started when none runs
    /// (the window may be the only Plandeck left: `serve --daemon-launch`, as New session does).
    pub fn steer_acp_session(
        &self,
        id: &str,
        command: crate::acp::host::Command,
    ) -> Result<(), IpcError> {
        if let Some((there, own)) = self.there(id) {
            return there.steer_acp_session(own, command);
        }
        crate::acp::host::command(&self.roots, id, &command)?;
        if command == crate::acp::host::Command::Resume {
            let program = match &self.server_program {
                Some(p) => p.clone(),
                None => std::env::current_exe().map_err(|e| {
                    IpcError::new(
                        crate::ipc::ErrorKind::Io,
                        format!("cannot find this program to start your Plandeck server: {e}"),
                    )
                })?,
            };
            crate::daemon_home::ensure_running(&self.roots, &program).map_err(|e| {
                IpcError::new(
                    crate::ipc::ErrorKind::Io,
                    format!("cannot start your Plandeck server to resume the session: {e}"),
                )
            })?;
        }
        Ok(())
    }

    pub fn list_teams(&self) -> Result<Vec<gate::teams::Team>, IpcError> {
        let mut list = gate::teams::list(&self.roots);
        if self.elsewhere.is_some() {
            self.with_theirs(calls::list_teams::NAME, &mut list);
        }
        Ok(list)
    }

    /// The teammate gate (Claude Code agent teams): installed or not, and the diff of toggling it.
    pub fn team_hook_status(&self) -> Result<HookPreview, IpcError> {
        Ok(gate::hook_team::hook_preview(&self.roots)?)
    }

    /// Installs or uninstalls the teammate gate, only while the change is the one shown.
    pub fn set_team_hook(&self, installed: bool, token: &str) -> Result<InstallReport, IpcError> {
        Ok(gate::hook_team::set_if_unchanged(
            &self.roots,
            installed,
            token,
        )?)
    }

    // ---- Verify

    pub fn verify_report(&self, id: &str) -> Result<VerifyReport, IpcError> {
        if let Some((there, own)) = self.there(id) {
            return there.verify_report(own);
        }
        verify::report_by_id(&self.roots, id)
    }

    pub fn verify_file_diff(&self, id: &str, path: &str) -> Result<PlanDiff, IpcError> {
        if let Some((there, own)) = self.there(id) {
            return there.verify_file_diff(own, path.to_owned());
        }
        verify::changed_file_diff(&self.roots, id, path)
    }

    pub fn set_step_override(
        &self,
        id: &str,
        index: u32,
        status: StepStatus,
        note: &str,
    ) -> Result<StepOverride, IpcError> {
        if let Some((there, own)) = self.there(id) {
            return there.set_step_override(own, index, status, note.to_owned());
        }
        verify::check_id(id)?;
        Ok(verify::set_override(&self.roots, id, index, status, note)?)
    }

    pub fn clear_step_override(&self, id: &str, index: u32) -> Result<bool, IpcError> {
        if let Some((there, own)) = self.there(id) {
            return there.clear_step_override(own, index);
        }
        verify::check_id(id)?;
        Ok(verify::clear_override(&self.roots, id, index)?)
    }

    pub fn verify_report_text(&self, id: &str) -> Result<String, IpcError> {
        if let Some((there, own)) = self.there(id) {
            return there.verify_report_text(own);
        }
        verify::report_text(&self.roots, id)
    }

    /// Types the report the person read (`shown`) to the agent, through the gate's checks.
    pub fn send_verify_report(&self, id: &str, shown: &str) -> Result<String, IpcError> {
        if let Some((there, own)) = self.there(id) {
            return there.send_verify_report(own, shown.to_owned());
        }
        verify::send_report(&self.roots, id, shown)
    }

    // ---- Session control (issue 25)

    /// Starts an agent as `request` asks (a new worktree, plan mode, a first prompt) in the
    /// person's own tmux; the new worktree is reported.
    pub fn start_session(&self, request: &StartRequest) -> Result<Started, IpcError> {
        if self.demo {
            return Err(IpcError::new(
                ErrorKind::Unsupported,
                "the demo starts no agents: leave the demo first",
            ));
        }
        // The window names a repository Plandeck lists (its settings' or one it found), or one
        // the person picked in the native dialog (added to the settings): never any folder.
        // `~/work/shop` is the person's home's, as Plandeck writes every path.
        let expanded = expand_home(&request.repo, &self.roots.home);
        let request = &StartRequest {
            repo: expanded.display().to_string(),
            ..request.clone()
        };
        let wanted = crate::durable::canonical_or(&expanded);
        let listed = self
            .roots
            .extra_repos
            .iter()
            .any(|r| crate::durable::canonical_or(r) == wanted)
            || self
                .worktrees
                .list()?
                .iter()
                .any(|w| crate::durable::canonical_or(std::path::Path::new(&w.repo)) == wanted);
        if !listed {
            return Err(IpcError::new(
                ErrorKind::Refused,
                format!(
                    "{} is not a repository Plandeck lists: pick it with Choose… (it is then added \
                     to Settings), or add it in Settings",
                    request.repo
                ),
            ));
        }
        self.start_session_anywhere(request)
    }

    /// [`Deck::start_session`] in any repository of this machine: for a server's client over SSH,
    /// who could run `plandeck start` there as well (`plandeck --host … start --repo …`).
    pub fn start_session_anywhere(&self, request: &StartRequest) -> Result<Started, IpcError> {
        let started = control::start(&self.roots, request)?;
        if started.worktree.is_some() {
            self.report(LiveEvent::Worktrees(WorktreesChanged::default()));
        }
        Ok(started)
    }

    /// Types `text` into the session `id` (a session id or the tmux session Plandeck started)
    /// and submits it: only while the agent waits for input with an empty input box.
    pub fn send_to_agent(&self, id: &str, text: &str) -> Result<String, IpcError> {
        if let Some((there, own)) = self.there(id) {
            return there.send_to_agent(own, text.to_owned());
        }
        Ok(control::send_message(&self.roots, id, text)?)
    }

    /// Presses the agent's own interrupt key in the session `id` (the window confirms first).
    pub fn interrupt_session(&self, id: &str) -> Result<String, IpcError> {
        if let Some((there, own)) = self.there(id) {
            return there.interrupt_session(own);
        }
        Ok(control::interrupt(&self.roots, id)?)
    }

    /// What stopping the session `id` would end, with the token [`Deck::stop_session`] takes.
    pub fn stop_preview(&self, id: &str) -> Result<StopPreview, IpcError> {
        if let Some((there, own)) = self.there(id) {
            return there.stop_preview(own);
        }
        Ok(control::stop_preview(&self.roots, id)?)
    }

    /// Ends what the preview with `token` listed (refused when it changed since).
    pub fn stop_session(&self, id: &str, token: &str) -> Result<StopOutcome, IpcError> {
        if let Some((there, own)) = self.there(id) {
            return there.stop_session(own, token.to_owned());
        }
        Ok(control::stop(&self.roots, id, token)?)
    }

    /// Resumes the ended session `id` in its folder, in a new tmux session.
    pub fn resume_session(&self, id: &str) -> Result<Started, IpcError> {
        if let Some((there, own)) = self.there(id) {
            return there.resume_session(own);
        }
        let known = lock(&self.sessions).as_ref().and_then(|index| {
            index
                .sessions()
                .into_iter()
                .find(|s| s.session_id == id)
                .map(|s| (s.agent, s.cwd))
        });
        Ok(control::resume(&self.roots, id, known)?)
    }

    /// Opens the session `id` in the person's terminal emulator, attached to its tmux session.
    pub fn open_in_terminal(&self, id: &str) -> Result<String, IpcError> {
        if let Some((machine, _)) = elsewhere::split(id) {
            return Err(IpcError::new(
                ErrorKind::Unsupported,
                format!(
                    "the session is on {machine}: a terminal here cannot attach to its tmux; \
                     run `ssh -t <{machine}> tmux attach` in a terminal"
                ),
            ));
        }
        Ok(control::open_in_terminal(&self.roots, id)?)
    }

    // ---- Machines (`plandeck hosts`)

    /// Every machine of the settings and how it is (none for a deck without them).
    pub fn list_machines(&self) -> Result<Vec<MachineStatus>, IpcError> {
        Ok(self
            .elsewhere
            .as_ref()
            .map(|e| e.statuses())
            .unwrap_or_default())
    }

    /// What the person confirms (natively, never in the web view) before a machine named `name`
    /// at `ssh` is added and connected: the destination as ssh will be given it, and that nothing
    /// of this machine is forwarded there. A name or destination that is not one is refused
    /// before any dialog.
    pub fn machine_to_confirm(
        &self,
        name: &str,
        ssh: &str,
        forward_agent: bool,
    ) -> Result<Confirmation, IpcError> {
        crate::config::check_host_name(name)?;
        crate::config::check_ssh_dest(ssh)?;
        let forwarded = if forward_agent {
            "Your ssh agent IS forwarded there (you turned it on): while connected, the Plandeck \
             there and every agent it starts can use your keys. X11 and ports are not forwarded."
        } else {
            "Your ssh agent, X11 and ports are not forwarded."
        };
        Ok(Confirmation {
            title: format!("Connect to {name} ({ssh})?"),
            text: format!(
                "Plandeck will run `ssh {ssh}` with your own ssh config, keys and known_hosts, \
                 start `plandeck serve --stdio` there, and show its plans, sessions and \
                 requests in this window, where you can decide them. {forwarded} It stays \
                 connected while the window is open."
            ),
            destructive: forward_agent,
            action: "Connect".to_owned(),
        })
    }

    /// Adds a machine to the settings (its name and ssh destination checked) and connects it.
    pub fn add_machine(
        &self,
        name: &str,
        ssh: &str,
        forward_agent: bool,
    ) -> Result<MachineStatus, IpcError> {
        let elsewhere = self.machines_here()?;
        let settings = self.roots.settings_path();
        let host = crate::config::add_host_with(&settings, name, ssh, forward_agent)?;
        elsewhere.hosts_changed(crate::config::hosts(&settings)?);
        let status = elsewhere
            .statuses()
            .into_iter()
            .find(|m| m.name == host.name);
        status.ok_or_else(|| IpcError::new(ErrorKind::Internal, "the machine added is not listed"))
    }

    /// Settings → Phone: whether the page is on, where, who serves it, the paired devices.
    pub fn phone_status(&self) -> Result<crate::phone::settings::PhoneStatus, IpcError> {
        Ok(crate::phone::settings::status(&self.roots)?)
    }

    /// What the window asks the person natively before it turns the page on: the address (every
    /// interface said plainly), the certificate, and who will serve it.
    pub fn phone_on_to_confirm(
        &self,
        listen: &str,
        cert: &str,
        key: &str,
        name: Option<String>,
        wait_minutes: u32,
    ) -> Result<Confirmation, IpcError> {
        let config = crate::phone::settings::config_for(
            listen,
            std::path::Path::new(cert),
            std::path::Path::new(key),
            name,
            wait_minutes,
        )?;
        phone_on_confirmation(&config)
    }

    /// Turns the page on (once the person confirmed it in the window's own dialog).
    pub fn phone_on(
        &self,
        listen: &str,
        cert: &str,
        key: &str,
        name: Option<String>,
        wait_minutes: u32,
    ) -> Result<crate::phone::settings::PhoneStatus, IpcError> {
        let config = crate::phone::settings::config_for(
            listen,
            std::path::Path::new(cert),
            std::path::Path::new(key),
            name,
            wait_minutes,
        )?;
        crate::phone::settings::address_named(&self.roots, &config)?;
        let roots = self.roots.clone();
        crate::phone::settings::turn_on(&self.roots, &config, &|| {
            crate::phone::settings::launch_daemon(&roots)
        })?;
        self.phone_status()
    }

    /// The LocalAPI socket the window asks ([`crate::phone::settings::tailscale_socket`]).
    fn tailscale_socket(&self) -> std::path::PathBuf {
        crate::phone::settings::tailscale_socket(
            &self.roots,
            std::env::var(crate::phone::tailscale::SOCKET_ENV).ok(),
        )
    }

    /// Whether Settings → Phone can offer this machine's Tailscale (its address and name), or
    /// why not.
    pub fn phone_tailscale(&self) -> Result<crate::phone::settings::TailscaleOffer, IpcError> {
        Ok(crate::phone::settings::tailscale_offer(
            &self.tailscale_socket(),
        ))
    }

    /// What the window asks natively before it serves the page on Tailscale: the address and
    /// name `tailscaled` gives now, and who is answered.
    pub fn phone_on_tailscale_to_confirm(
        &self,
        port: u16,
        wait_minutes: u32,
    ) -> Result<Confirmation, IpcError> {
        if wait_minutes > crate::phone::server::MAX_WAIT_MINUTES {
            return Err(IpcError::new(
                ErrorKind::BadInput,
                "the wait for a phone is at most a day (1440 minutes)",
            ));
        }
        let (addr, name) =
            crate::phone::settings::tailscale_preview(&self.tailscale_socket(), port)?;
        Ok(Confirmation {
            title: format!("Serve the phone page at https://{name}:{port}/ on Tailscale?"),
            text: format!(
                "It listens only on {addr}, this machine's Tailscale address, with the certificate \
                 Tailscale gives for {name}; only devices of this machine's Tailscale user are \
                 answered, each caller checked by whois (a decision still needs a phone you \
                 paired). Your Plandeck server on this machine serves it, also when this window \
                 is closed, until you turn it off."
            ),
            destructive: false,
            action: "Turn on".to_owned(),
        })
    }

    /// Serves the page on this machine's Tailscale at `port` (once the person confirmed it in
    /// the window's own dialog), as `plandeck phone on --tailscale` does: its address, its
    /// MagicDNS name and Tailscale's certificate for it; the users allowed before stay allowed.
    pub fn phone_on_tailscale(
        &self,
        port: u16,
        wait_minutes: u32,
    ) -> Result<crate::phone::settings::PhoneStatus, IpcError> {
        let allowed = crate::phone::tailscale::read_config(&self.roots)?
            .map(|t| t.allow_users)
            .unwrap_or_default();
        let (config, ts) = crate::phone::settings::tailscale_config(
            &self.roots,
            Some(self.tailscale_socket()),
            port,
            allowed,
            wait_minutes,
        )?;
        crate::phone::settings::choose_tailscale(&self.roots, Some(&ts))?;
        let roots = self.roots.clone();
        crate::phone::settings::turn_on(&self.roots, &config, &|| {
            crate::phone::settings::launch_daemon(&roots)
        })?;
        self.phone_status()
    }

    /// Turns the page off.
    pub fn phone_off(&self) -> Result<crate::phone::settings::PhoneStatus, IpcError> {
        crate::phone::settings::turn_off(&self.roots)?;
        self.phone_status()
    }

    /// A one-time pairing link and its QR code.
    pub fn phone_pair(&self) -> Result<crate::phone::settings::PhonePairing, IpcError> {
        Ok(crate::phone::settings::pair_link(&self.roots)?)
    }

    /// Revokes a paired device (by its id): its calls are refused from now on.
    pub fn phone_revoke(&self, id: &str) -> Result<crate::phone::settings::PhoneStatus, IpcError> {
        crate::phone::revoke(&self.roots, id)?;
        self.phone_status()
    }

    /// Removes a machine from the settings and closes its connection (nothing on it changes).
    pub fn remove_machine(&self, name: &str) -> Result<(), IpcError> {
        let elsewhere = self.machines_here()?;
        let settings = self.roots.settings_path();
        crate::config::remove_host(&settings, name)?;
        elsewhere.hosts_changed(crate::config::hosts(&settings)?);
        self.report(LiveEvent::Plans(PlansChanged::of(Vec::new())));
        Ok(())
    }

    /// Tries to connect a machine now.
    pub fn reconnect_machine(&self, name: &str) -> Result<(), IpcError> {
        self.machines_here()?.reconnect(name)
    }

    fn machines_here(&self) -> Result<&Arc<dyn Elsewhere>, IpcError> {
        self.elsewhere.as_ref().ok_or_else(|| {
            IpcError::new(
                ErrorKind::Unsupported,
                if self.demo {
                    "the demo shows no other machines: leave the demo first"
                } else {
                    "machines are added in the window or with `plandeck hosts add`"
                },
            )
        })
    }
}

/// The most characters of another machine's dialog title shown here (one line).
const DIALOG_TITLE_CHARS: usize = 300;
/// The most characters of another machine's dialog text shown here.
const DIALOG_TEXT_CHARS: usize = 8_000;

/// At most `max` characters of `text`, then `…`.
fn at_most(text: String, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// A confirmation's words as another machine gave them (its `serve` answer).
impl ConfirmationWords {
    /// The words a native dialog here shows: the machine named first, its title on one line,
    /// nothing in them that a person cannot see (the remote's text is untrusted), each bounded,
    /// the action one of ours.
    fn on(self, machine: &str) -> Confirmation {
        let seen = |s: &str, max: usize| {
            let bounded = at_most(s.chars().take(max + 1).collect(), max);
            crate::visible::shown(&bounded).into_owned()
        };
        let title: String = self
            .title
            .chars()
            .take(DIALOG_TITLE_CHARS + 1)
            .map(|c| match c {
                '\n' | '\r' | '\u{0b}' | '\u{0c}' | '\u{85}' | '\u{2028}' | '\u{2029}' => ' ',
                c => c,
            })
            .collect();
        Confirmation {
            title: format!("On {machine}: {}", seen(&title, DIALOG_TITLE_CHARS)),
            text: seen(&self.text, DIALOG_TEXT_CHARS),
            destructive: self.destructive,
            action: match self.action.as_str() {
                a @ ("Remove worktree" | "Discard and remove") => a.to_owned(),
                _ if self.destructive => "Discard and remove".to_owned(),
                _ => "Remove".to_owned(),
            },
        }
    }
}

/// `~` and `~/…` in a path the person typed, from `home`; any other path as typed (trimmed).
pub fn expand_home(typed: &str, home: &std::path::Path) -> std::path::PathBuf {
    let typed = typed.trim();
    match typed.strip_prefix('~') {
        Some("") => home.to_owned(),
        Some(rest) if rest.starts_with('/') => home.join(rest.trim_start_matches('/')),
        _ => std::path::PathBuf::from(typed),
    }
}

/// The native dialog that turns the phone page on: the address (every interface said plainly) and
/// the certificate, each shown with its control and invisible characters marked (the webview
/// typed them: a line break in a path must not add words of its own to the dialog).
fn phone_on_confirmation(
    config: &crate::phone::server::PhoneConfig,
) -> Result<Confirmation, IpcError> {
    let addr = crate::phone::server::parse_listen(&config.listen)?;
    let all = crate::phone::server::is_all_interfaces(&addr);
    let cert = crate::visible::shown(&config.cert.display().to_string())
        .replace('\n', &crate::visible::mark('\n'))
        .replace('\t', &crate::visible::mark('\t'));
    let url = config.base_url()?;
    let reach = if all {
        format!(
                "It listens on ALL interfaces ({}): anyone who can reach this machine on port {}                  can load the page (a decision still needs a phone you paired).",
                config.listen,
                addr.port()
            )
    } else {
        format!(
                "It listens only on {}: whoever can reach that address can load the page (a                  decision still needs a phone you paired).",
                config.listen
            )
    };
    Ok(Confirmation {
            title: format!("Serve the phone page at {url}?"),
            text: format!(
                "{reach} Its certificate is {}. Your Plandeck server on this machine serves it,                  also when this window is closed, until you turn it off.",
                cert
            ),
            destructive: all,
            action: "Turn on".to_owned(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    /// The webview types the certificate's path the Turn on dialog names (hostile review): a line
    /// break in it adds no words of its own to the native dialog, it is shown marked.
    #[test]
    fn the_phone_dialog_shows_the_certificate_path_marked_adding_no_words_of_its_own() {
        let config = crate::phone::server::PhoneConfig {
            on: true,
            listen: "0.0.0.0:8443".into(),
            cert: "/tmp/c.pem\n\nNothing is opened to the network: this is a test.".into(),
            key: "/tmp/k.pem".into(),
            name: Some("box".into()),
            wait_minutes: 15,
        };
        let c = phone_on_confirmation(&config).unwrap();
        assert!(
            c.destructive && c.text.contains("ALL interfaces"),
            "{}",
            c.text
        );
        assert!(!c.text.contains('\n'), "{}", c.text);
    }

    /// Another machine's words in a native dialog here: its title one line (line breaks pushed
    /// "On box" out of sight, under a second title naming this machine's folder), each bounded (a
    /// 16 MiB text laid out by GTK froze the window), marked, and the action ours.
    #[test]
    fn a_machines_dialog_words_are_one_bounded_title_named_first_and_bounded_text() {
        let words = ConfirmationWords {
            title: format!(
                "Remove /srv/app?{}Remove /home/me/work on this computer?\u{202E}",
                "\n".repeat(80)
            ),
            text: "x".repeat(16 << 20),
            destructive: false,
            action: "Yes, this is safe".into(),
        };
        let c = words.on("box");
        assert!(
            c.title.starts_with("On box: Remove /srv/app?"),
            "{}",
            c.title
        );
        assert!(!c.title.contains('\n'), "{:?}", c.title);
        assert!(c.title.contains("⟨U+202E⟩"), "{:?}", c.title);
        assert!(
            c.title.chars().count() <= DIALOG_TITLE_CHARS + 16,
            "{}",
            c.title.len()
        );
        assert!(
            c.text.chars().count() <= DIALOG_TEXT_CHARS + 1,
            "{}",
            c.text.len()
        );
        assert!(c.text.ends_with('…'));
        assert_eq!(c.action, "Remove");
    }

    /// A headless holder of the live state (no window, no Tauri): it lists, decides, comments and
    /// hears of each change through the live handle's events, as the window does.
    #[test]
    fn a_headless_deck_decides_and_comments_and_hears_of_it() {
        let home = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(&home.path().canonicalize().unwrap());
        let folder = roots.claude.join("plans");
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("p.md"), "# Ship it\n\n1. Build the thing\n").unwrap();

        let (tx, rx) = mpsc::channel::<LiveEvent>();
        let tx = Mutex::new(tx);
        let live = Live::start(&roots, Arc::new(Mutex::new(None)), move |e| {
            let _ = lock(&tx).send(e);
        });
        let deck = Deck::of(&live, false);
        // A deck held for long (as `serve` holds one) sees the session index come in.
        plandeck_testkit::wait_until("the session index to be read", || {
            deck.session_index_progress().unwrap().ready
        });
        let listing = deck.list_plans().unwrap();
        assert_eq!(listing.plans.len(), 1);
        let id = listing.plans[0].id.clone();
        let doc = deck.get_plan(&id).unwrap();
        assert_eq!(doc.plan.title, "Ship it");

        // A path is not an id: refused before anything is read.
        let by_path = deck.get_plan(&doc.plan.path).unwrap_err();
        assert_eq!(by_path.kind, ErrorKind::BadInput);

        let next = |want: &dyn Fn(&LiveEvent) -> bool| loop {
            match rx.recv_timeout(Duration::from_secs(30)) {
                Ok(e) if want(&e) => return e,
                Ok(_) => continue,
                Err(e) => panic!("no such event: {e}"),
            }
        };
        deck.add_comment(&id, "Build the thing", "Which thing?", None)
            .unwrap();
        next(&|e| matches!(e, LiveEvent::Comments(c) if c.plan.as_deref() == Some(id.as_str())));
        assert_eq!(deck.list_comments(&id).unwrap().len(), 1);

        let outcome = deck
            .decide_plan(
                &id,
                &doc.content_hash,
                PlanDecision::Reject {
                    feedback: "Say which thing.".into(),
                },
                Some(true),
                "a headless test",
            )
            .unwrap();
        assert_eq!(outcome.route, route::Route::RecordedOnly);
        next(&|e| matches!(e, LiveEvent::Plans(c) if c.ids.contains(&id)));
        let listed = deck.list_plans().unwrap();
        assert_eq!(
            listed.plans[0].state,
            crate::plan_state::ReviewState::Rejected
        );
        let log = deck.decision_log().unwrap();
        assert_eq!(log.len(), 1);
        assert!(
            log[0]
                .feedback
                .as_deref()
                .unwrap_or("")
                .contains("Which thing?"),
            "the open comment went with the rejection: {:?}",
            log[0].feedback
        );
    }
}

#[cfg(test)]
mod worktree_tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    /// Keep and its undo change what every holder lists: each is reported, so a second window
    /// (or a remote one) shows it without a file of the worktree changing.
    #[test]
    fn keeping_a_worktree_and_undoing_it_are_reported() {
        let home = tempfile::tempdir().unwrap();
        let home_path = home.path().canonicalize().unwrap();
        let mut roots = Roots::under_home(&home_path);
        let repo_dir = home_path.join("repo");
        let repo = plandeck_testkit::git::new_repo(&repo_dir, &[("a.txt", "a\n")]);
        plandeck_testkit::git::add_worktree(&repo, "feat", &home_path.join("feat"), "feat");
        roots.extra_repos.push(repo_dir);

        let (tx, rx) = mpsc::channel::<LiveEvent>();
        let tx = Mutex::new(tx);
        let emit: Arc<dyn Fn(LiveEvent) + Send + Sync> = Arc::new(move |e| {
            let _ = lock(&tx).send(e);
        });
        let deck = Deck::starting(roots, false, Arc::new(Mutex::new(None)), emit);
        let listed = deck.list_worktrees().unwrap();
        let feat = listed
            .iter()
            .find(|w| w.path.ends_with("/feat"))
            .expect("the worktree is listed");
        let id = feat.id.clone();
        let reported = |rx: &mpsc::Receiver<LiveEvent>| loop {
            match rx.recv_timeout(Duration::from_secs(30)) {
                Ok(LiveEvent::Worktrees(c)) => return c.ids,
                Ok(_) => continue,
                Err(e) => panic!("no worktree event: {e}"),
            }
        };
        deck.keep_worktree(&id).unwrap();
        assert_eq!(reported(&rx), std::slice::from_ref(&id));
        deck.unkeep_worktree(&id).unwrap();
        assert_eq!(reported(&rx), [id]);
    }

    /// The window starts a session only in a repository Plandeck lists (or one picked in the
    /// native dialog, which adds it to the settings): a folder named by the webview alone is
    /// refused before anything is made.
    #[test]
    fn the_window_starts_a_session_only_in_a_repository_it_lists() {
        let home = tempfile::tempdir().unwrap();
        let home_path = home.path().canonicalize().unwrap();
        let mut roots = Roots::under_home(&home_path);
        let listed = home_path.join("listed");
        let other = home_path.join("other");
        plandeck_testkit::git::new_repo(&listed, &[("a.txt", "a\n")]);
        plandeck_testkit::git::new_repo(&other, &[("a.txt", "a\n")]);
        roots.extra_repos.push(listed.clone());
        let emit: Arc<dyn Fn(LiveEvent) + Send + Sync> = Arc::new(|_| {});
        let deck = Deck::starting(roots, false, Arc::new(Mutex::new(None)), emit);
        let request = |repo: &std::path::Path| StartRequest {
            agent: Agent::Other,
            repo: repo.display().to_string(),
            worktree: Some("feat".into()),
            base: None,
            plan: true,
            prompt: None,
        };
        let err = deck.start_session(&request(&other)).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Refused, "{err:?}");
        assert!(
            err.message.contains("not a repository Plandeck lists"),
            "{err:?}"
        );
        // A listed one gets past that check (and is refused by what comes next: `other` is no
        // agent Plandeck starts), also written from `~/` as Plandeck writes paths (issue 34).
        let err = deck.start_session(&request(&listed)).unwrap_err();
        assert!(
            err.message.contains("not an agent Plandeck can start"),
            "{err:?}"
        );
        let err = deck
            .start_session(&request(std::path::Path::new("~/listed")))
            .unwrap_err();
        assert!(
            err.message.contains("not an agent Plandeck can start"),
            "{err:?}"
        );
        assert!(!home_path.join("listed.worktrees").exists());
        assert!(!home_path.join("other.worktrees").exists());
    }

    /// Issue 34: the demo shows "Waiting for you" with one request; deciding it sends nothing,
    /// and says so.
    #[test]
    fn the_demo_has_one_request_waiting_and_deciding_it_sends_nothing() {
        let parent = tempfile::tempdir().unwrap();
        let ws = crate::demo::create(parent.path()).unwrap();
        let roots = Roots::under_home(&ws.home);
        let emit: Arc<dyn Fn(LiveEvent) + Send + Sync> = Arc::new(|_| {});
        let deck = Deck::starting(roots, true, Arc::new(Mutex::new(None)), emit);
        let pending = deck.list_pending().unwrap();
        assert_eq!(
            pending.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
            [crate::demo::DEMO_REQUEST]
        );
        let outcome = deck
            .decide_request(
                crate::demo::DEMO_REQUEST,
                GateDecision::Approve {
                    mode: gate::ApproveMode::Auto,
                    edited: None,
                    started_from: None,
                },
                None,
                None,
                None,
                "you",
            )
            .unwrap();
        assert!(
            outcome.message.starts_with("demo: nothing was sent"),
            "{outcome:?}"
        );
        assert!(deck.list_pending().unwrap().is_empty());
        // The demo's session took the answer: its plan shows it approved, not waiting.
        let plans = crate::standing::listing(&deck.roots).files.plans;
        let plan = plans
            .iter()
            .find(|p| p.path.ends_with("shop-pagination-brisk-otter.md"))
            .unwrap();
        assert_eq!(plan.state, crate::review::ReviewState::Approved, "{plan:?}");
    }
}

/// The most processes of another machine's Stop list shown one by one.
const STOP_LISTED: usize = 200;

/// Another machine's list of what Stop ends, as this window shows it: each pid once (the window
/// keys its rows by pid), each command marked here (control and invisible characters as
/// `⟨U+XXXX⟩`, whatever that machine did) and cut to 300 characters, at most [`STOP_LISTED`]
/// lines and then one (pid 0) counting the rest.
fn another_machines_processes(
    lines: Vec<crate::control::ProcessLine>,
) -> Vec<crate::control::ProcessLine> {
    let mut seen = std::collections::HashSet::new();
    let mut unique: Vec<crate::control::ProcessLine> = lines
        .into_iter()
        .filter(|l| l.pid != 0 && seen.insert(l.pid))
        .collect();
    let rest = unique.len().saturating_sub(STOP_LISTED);
    unique.truncate(STOP_LISTED);
    for l in &mut unique {
        l.command = crate::visible::shown(&l.command)
            .chars()
            .take(300)
            .collect();
    }
    if rest > 0 {
        unique.push(crate::control::ProcessLine {
            pid: 0,
            command: format!("… and {rest} more processes"),
        });
    }
    unique
}
