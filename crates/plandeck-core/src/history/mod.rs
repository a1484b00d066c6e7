//! Every plan an agent ever submitted, recovered from the agents' transcripts, with every
//! decision — and kept, so that a plan whose file was swept, overwritten or never existed still
//! has its text and history.
//!
//! Where the records are (read by the transcript readers of [`crate::sessions`], which turn each
//! line into [`events::PlanEvent`]s; see their `plan_line`):
//! - Claude Code: an assistant `tool_use` `ExitPlanMode` (input `plan`, `planFilePath`) is a
//!   version; its `tool_result` decides it: "User has approved your plan" → approved, with the
//!   approved text in `toolUseResult.plan` (it differs from the submitted text when the person
//!   edited the plan); "The user doesn't want to proceed…" → cancelled (Esc), or rejected when
//!   "the user said:" follows; any other error result (with a `hook_permission_decision` deny
//!   before it, or not) → rejected by a hook, the message being the feedback. `planContent` on
//!   user messages and `plan_file_reference` attachments carry a plan's text on (a version only
//!   when the text is new). Subagent transcripts are read too.
//! - Gemini CLI: `exit_plan_mode` tool calls (`plan_filename`) are versions, their text the last
//!   `write_file` of that plan file in the chat; `status`/`resultDisplay` decide them ("Plan
//!   approved", "Tool execution blocked: …" = a hook, "Plan rejected. User feedback: …",
//!   `cancelled`).
//! - Codex CLI: each `Plan` item (else a `<proposed_plan>` block) is a version. The next turn
//!   decides it: Default mode with "Implement the plan." → approved in the terminal; still Plan
//!   mode with a message → rejected with that message as feedback; none → pending. A new thread
//!   started by "Read the approved plan at <file> and implement it." approves the version with
//!   that text. `codex exec` (headless) plans have no decision (`decidedIn: headless`).
//!
//! Where a decision was made: `plandeck` when Plandeck's own decision log ([`crate::review::log`])
//! holds a decision of the same verdict on the same plan within two minutes of the result;
//! `hook` for a hook's deny; `headless` for SDK/exec runs; otherwise `terminal`.
//!
//! A plan is one agent session's plan file (or, for Codex, one session's plans): a plan file
//! reused by a later session (same path, another session) is a new plan, not a new version.
//! The newest session on a path gets the path's plan id ([`crate::ids::plan_id`]), so a plan and
//! its file share an id; older ones get an id from path and session.

/// What the transcript readers pull out of a transcript about plans (they live with the readers).
pub use crate::sessions::plan_events as events;
mod fold;
pub mod scan;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::agents::Agent;
use crate::config::Roots;
use crate::ipc::{ErrorKind, IpcError};

pub use crate::review::DecidedIn;
pub use scan::{ScanProgress, ScanStats};

/// How a version was decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum HistoryVerdict {
    Approved,
    Rejected,
    Cancelled,
    /// Submitted, no answer in the records (yet).
    Pending,
}

/// Where a plan's text comes from now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum PlanSource {
    /// Its file exists and belongs to it.
    File,
    /// Only the transcripts hold it (the file is gone, reused by a later session, or never was).
    Transcript,
}

/// One submitted version of a plan and its decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PlanVersion {
    /// The text submitted.
    pub text: String,
    /// RFC 3339 UTC, as the transcript recorded it.
    pub submitted_at: Option<String>,
    /// `null` when the records hold no decision to look for (a headless run, a carried text).
    pub verdict: Option<HistoryVerdict>,
    pub feedback: Option<String>,
    pub decided_in: Option<DecidedIn>,
    pub decided_at: Option<String>,
    /// The text approved, when it differs from the one submitted (the person edited it).
    pub approved_text: Option<String>,
    /// What the records could not tell, in a sentence.
    pub note: Option<String>,
    /// The transcript it was read from.
    pub transcript: String,
}

/// A plan recovered from transcripts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RecoveredPlan {
    pub id: String,
    pub agent: Agent,
    pub session_id: Option<String>,
    /// The path its file had (none for Codex plans).
    pub path: Option<String>,
    /// The session's working directory.
    pub project: Option<String>,
    pub title: String,
    /// The latest text: the last version's approved text if it was approved, else its text.
    pub text: String,
    /// The last version's verdict.
    pub state: Option<HistoryVerdict>,
    pub source: PlanSource,
    /// A subagent's plan.
    pub subagent: bool,
    /// Oldest first.
    pub versions: Vec<PlanVersion>,
    /// The machine this is on (`plandeck hosts`); `null`: this one.
    #[serde(default)]
    pub machine: Option<String>,
}

/// Everything a scan found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct History {
    /// Newest first.
    pub plans: Vec<RecoveredPlan>,
    pub stats: ScanStats,
    /// Sentences about what could not be read or recovered.
    pub notes: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error("No recovered plan {0:?}: no transcript holds a plan with that id or path.")]
    Unknown(String),
    #[error("The plan {id} never had a file (Codex CLI plans live only in the transcript): there is nothing to restore.")]
    NoPath { id: String },
    #[error("Refusing to restore {path}: it is not inside a plans folder Plandeck knows.")]
    OutsidePlans { path: PathBuf },
    #[error("Refusing to restore {path}: the file exists and holds different text (it may belong to a later session). Nothing was written.")]
    Differs { path: PathBuf },
    #[error("The plan {id} has {count} version{s}: there is no version {n} (versions are numbered from 1, oldest first).", s = if *count == 1 { "" } else { "s" })]
    NoVersion { id: String, n: usize, count: usize },
    #[error("Cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Write(#[from] crate::durable::WriteError),
}

impl From<HistoryError> for IpcError {
    fn from(e: HistoryError) -> Self {
        let kind = match &e {
            HistoryError::Unknown(_) | HistoryError::NoPath { .. } => ErrorKind::NotFound,
            HistoryError::OutsidePlans { .. } => ErrorKind::Refused,
            HistoryError::NoVersion { .. } => ErrorKind::BadInput,
            HistoryError::Differs { .. } => ErrorKind::Conflict,
            HistoryError::Read { .. } | HistoryError::Write(_) => ErrorKind::Io,
        };
        IpcError::new(kind, e.to_string())
    }
}

/// Scans the transcripts (reading only what is new since the last scan) and folds them into plans.
pub fn scan(roots: &Roots) -> Result<History, HistoryError> {
    let (files, stats, notes) = scan::scan(roots)?;
    Ok(fold_files(roots, &files, stats, notes))
}

fn fold_files(
    roots: &Roots,
    files: &scan::Files,
    stats: ScanStats,
    mut notes: Vec<String>,
) -> History {
    let decisions = crate::review::log::read_all(&roots.data).unwrap_or_else(|e| {
        notes.push(format!(
            "Plandeck's decision log could not be read ({e}): no decision is shown as made in Plandeck."
        ));
        Vec::new()
    });
    let plans = fold::fold(roots, files, &decisions, &mut notes);
    History {
        plans,
        stats,
        notes,
    }
}

/// The plan history followed as transcripts grow: the store is loaded once, then each [`Follower::refresh`]
/// reads only what was appended to the transcripts (a watch event says when) and folds again; the
/// plans are served from memory in between. The store file is saved after each change, so the
/// CLI and the next start read from where this left off.
#[derive(Default)]
pub struct Follower {
    files: Option<scan::Files>,
    history: Option<History>,
}

impl Follower {
    pub fn new() -> Self {
        Self::default()
    }

    /// Brings the history up to date (the first call loads the store and reads every transcript
    /// the store does not cover), calling `progress` while it reads. With `refold`, folds again
    /// even when no transcript changed (a plan file was written or deleted: which plans only the
    /// transcripts hold changed). Returns whether the plans changed.
    pub fn refresh(
        &mut self,
        roots: &Roots,
        refold: bool,
        progress: &(dyn Fn(ScanProgress) + Sync),
    ) -> bool {
        let mut notes = Vec::new();
        let previous = match self.files.take() {
            Some(f) => f,
            None => {
                let (f, n) = scan::load(roots);
                notes = n;
                f
            }
        };
        let (files, stats, changed) = scan::update(roots, &previous, progress);
        drop(previous);
        if changed || !scan::cache_path(&roots.data).exists() {
            if let Err(note) = scan::save(roots, &files) {
                notes.push(note);
            }
        }
        let fresh = self.history.is_none() || changed || refold;
        if fresh {
            let h = fold_files(roots, &files, stats, notes);
            let same = self
                .history
                .as_ref()
                .is_some_and(|old| old.plans == h.plans);
            self.history = Some(h);
            self.files = Some(files);
            return !same;
        }
        if let Some(h) = self.history.as_mut() {
            h.stats = stats;
        }
        self.files = Some(files);
        false
    }

    /// A history whose scan failed: no plans, a note saying so; the next refresh starts over
    /// from the store.
    pub fn failed(note: String) -> Self {
        Self {
            files: None,
            history: Some(History {
                notes: vec![note],
                ..History::default()
            }),
        }
    }

    /// The history as the last refresh left it (`None` before the first one ended).
    pub fn history(&self) -> Option<&History> {
        self.history.as_ref()
    }
}

/// Every recovered plan, newest first.
pub fn list(roots: &Roots) -> Result<Vec<RecoveredPlan>, HistoryError> {
    Ok(scan(roots)?.plans)
}

/// Whether the recovered plan `r` is the plan of the file `file`: the same path, `r` being the
/// newest session's plan on it (an older session's plan on a reused path is not the file's); or
/// the same agent, session and file name (transcripts that name the file by another path, as
/// after a home was moved).
pub fn same_plan(r: &RecoveredPlan, file: &crate::plans::PlanSummary) -> bool {
    let Some(path) = r.path.as_deref() else {
        return false;
    };
    if path == file.path {
        return r.id == file.id;
    }
    r.agent == file.agent
        && r.session_id.is_some()
        && r.session_id == file.session_id
        && Path::new(path).file_name() == Path::new(&file.path).file_name()
}

/// One recovered plan, by its id, the id of its file in the plans list, or its path.
pub fn find(roots: &Roots, id_or_path: &str) -> Result<RecoveredPlan, HistoryError> {
    find_in(roots, &list(roots)?, id_or_path)
}

/// [`scan`], with the transcripts' facts it folded (one scan for callers that need both).
pub(crate) fn scan_with_files(roots: &Roots) -> Result<(History, scan::Files), HistoryError> {
    let (files, stats, notes) = scan::scan(roots)?;
    let history = fold_files(roots, &files, stats, notes);
    Ok((history, files))
}

/// [`find`] among plans already folded (the window's live history).
pub fn find_in(
    roots: &Roots,
    plans: &[RecoveredPlan],
    id_or_path: &str,
) -> Result<RecoveredPlan, HistoryError> {
    if let Some(p) = plans.iter().find(|p| p.id == id_or_path) {
        return Ok(p.clone());
    }
    // By path: the newest plan that had it (a path reused by a later session names the later).
    let abs = crate::durable::absolute(Path::new(id_or_path));
    if let Some(p) = plans
        .iter()
        .filter(|p| p.path.as_deref().map(Path::new) == Some(abs.as_path()))
        .max_by(|a, b| last_time(a).cmp(&last_time(b)))
    {
        return Ok(p.clone());
    }
    // The id or path of a listed plan file whose transcripts name it by another path.
    let listing = crate::plans::list(roots);
    if let Some(file) = listing
        .plans
        .iter()
        .find(|f| f.id == id_or_path || Path::new(&f.path) == abs)
    {
        if let Some(p) = plans.iter().find(|p| same_plan(p, file)) {
            return Ok(p.clone());
        }
    }
    Err(HistoryError::Unknown(id_or_path.to_owned()))
}

fn last_time(p: &RecoveredPlan) -> Option<&str> {
    p.versions.last().and_then(|v| v.submitted_at.as_deref())
}

/// A recovered plan for the window, with its latest text rendered (sanitized).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RecoveredPlanView {
    pub plan: RecoveredPlan,
    pub html: String,
}

/// The window names plans by the ids it was given, never by path.
fn check_id(id: &str) -> Result<(), IpcError> {
    if id.is_empty() || id.len() > 64 || !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    {
        return Err(IpcError::new(
            ErrorKind::BadInput,
            format!("{id:?} is not a plan id"),
        ));
    }
    Ok(())
}

/// The recovered plan with id `id` (a plan file's id names its newest session's plan), rendered.
pub fn view_by_id(roots: &Roots, id: &str) -> Result<RecoveredPlanView, IpcError> {
    view_in(roots, &list(roots)?, id)
}

/// [`view_by_id`] among plans already folded (the window's live history).
pub fn view_in(
    roots: &Roots,
    plans: &[RecoveredPlan],
    id: &str,
) -> Result<RecoveredPlanView, IpcError> {
    check_id(id)?;
    let plan = find_in(roots, plans, id)?;
    let html = crate::render::render(&plan.text).html;
    Ok(RecoveredPlanView { plan, html })
}

/// The plans only the transcripts hold (their file is gone, reused, or never was), newest first.
pub fn transcript_only(roots: &Roots) -> Result<Vec<RecoveredPlan>, IpcError> {
    Ok(transcript_only_in(&list(roots)?))
}

/// [`transcript_only`] among plans already folded (the window's live history).
pub fn transcript_only_in(plans: &[RecoveredPlan]) -> Vec<RecoveredPlan> {
    plans
        .iter()
        .filter(|r| r.source == PlanSource::Transcript)
        .cloned()
        .collect()
}

/// [`restore`] for the window: by id only.
pub fn restore_by_id(roots: &Roots, id: &str) -> Result<Restored, IpcError> {
    check_id(id)?;
    Ok(restore(roots, id)?)
}

/// [`restore_by_id`] among plans already folded (the window's live history).
pub fn restore_in(roots: &Roots, plans: &[RecoveredPlan], id: &str) -> Result<Restored, IpcError> {
    check_id(id)?;
    Ok(restore_plan(roots, find_in(roots, plans, id)?)?)
}

/// The diff between versions `a` and `b` (numbered from 1, oldest first, as `plans history`
/// shows them) of a recovered plan. A version's side is the text that stood after its decision:
/// the approved text when the person edited it before approving, else the text submitted.
pub fn diff_versions(
    roots: &Roots,
    id_or_path: &str,
    a: usize,
    b: usize,
) -> Result<crate::review::diff::PlanDiff, HistoryError> {
    let plan = find(roots, id_or_path)?;
    diff_of(&plan, a, b)
}

/// [`diff_versions`] on a plan already found.
pub fn diff_of(
    plan: &RecoveredPlan,
    a: usize,
    b: usize,
) -> Result<crate::review::diff::PlanDiff, HistoryError> {
    let side = |n: usize| {
        n.checked_sub(1)
            .and_then(|i| plan.versions.get(i))
            .ok_or_else(|| HistoryError::NoVersion {
                id: plan.id.clone(),
                n,
                count: plan.versions.len(),
            })
    };
    let (va, vb) = (side(a)?, side(b)?);
    let label = |n: usize, v: &PlanVersion| {
        let verdict = v
            .verdict
            .and_then(|x| serde_json::to_value(x).ok())
            .and_then(|x| x.as_str().map(str::to_owned))
            .unwrap_or_else(|| "no decision".into());
        let edited = if v.approved_text.is_some() {
            ", as edited"
        } else {
            ""
        };
        format!(
            "v{n} {} ({verdict}{edited})",
            v.submitted_at.as_deref().unwrap_or("time unknown")
        )
    };
    let text = |v: &PlanVersion| v.approved_text.clone().unwrap_or_else(|| v.text.clone());
    let mut d = crate::review::diff::PlanDiff::between(&text(va), &text(vb));
    d.from_label = label(a, va);
    d.to_label = label(b, vb);
    Ok(d)
}

/// [`diff_versions`] for the window: by id only, among plans already folded (its live history).
pub fn diff_versions_in(
    roots: &Roots,
    plans: &[RecoveredPlan],
    id: &str,
    a: usize,
    b: usize,
) -> Result<crate::review::diff::PlanDiff, IpcError> {
    check_id(id)?;
    Ok(diff_of(&find_in(roots, plans, id)?, a, b)?)
}

/// TypeScript declarations of the types this module sends over IPC.
/// The event payload when the window's plan history changed (a scan found new versions or
/// decisions): how many plans it holds now.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct HistoryChanged {
    pub plans: u32,
}

pub(crate) fn ts_declarations() -> Vec<String> {
    vec![
        <HistoryChanged as TS>::decl(),
        <HistoryVerdict as TS>::decl(),
        <PlanSource as TS>::decl(),
        <PlanVersion as TS>::decl(),
        <RecoveredPlan as TS>::decl(),
        <RecoveredPlanView as TS>::decl(),
        <Restored as TS>::decl(),
        <ScanProgress as TS>::decl(),
    ]
}

/// What [`restore`] did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Restored {
    pub id: String,
    pub path: String,
    /// False when the file already held exactly this text.
    pub written: bool,
}

/// Writes a recovered plan's latest text back to the path its file had: atomically, only inside
/// a plans folder the discovery knows, never over a file holding different text.
pub fn restore(roots: &Roots, id: &str) -> Result<Restored, HistoryError> {
    restore_plan(roots, find(roots, id)?)
}

fn restore_plan(roots: &Roots, plan: RecoveredPlan) -> Result<Restored, HistoryError> {
    let path = PathBuf::from(plan.path.clone().ok_or_else(|| HistoryError::NoPath {
        id: plan.id.clone(),
    })?);
    let parent = path.parent().map(canonical_or);
    let known = crate::plans::folders(roots)
        .iter()
        .any(|f| Some(canonical_or(f)) == parent);
    if !known || path.extension().is_none_or(|x| x != "md") {
        return Err(HistoryError::OutsidePlans { path });
    }
    let _lock = crate::review::store::lock(&roots.data).ok();
    match std::fs::read(&path) {
        Ok(bytes) if bytes == plan.text.as_bytes() => {
            return Ok(Restored {
                id: plan.id,
                path: path.display().to_string(),
                written: false,
            })
        }
        Ok(_) => return Err(HistoryError::Differs { path }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(source) => return Err(HistoryError::Read { path, source }),
    }
    crate::durable::write_atomic_new(&path, plan.text.as_bytes()).map_err(|e| {
        if e.source.kind() == std::io::ErrorKind::AlreadyExists {
            HistoryError::Differs { path: path.clone() }
        } else {
            HistoryError::Write(e)
        }
    })?;
    Ok(Restored {
        id: plan.id,
        path: path.display().to_string(),
        written: true,
    })
}

fn canonical_or(p: &Path) -> PathBuf {
    crate::durable::canonical_or(p)
}

#[cfg(test)]
mod tests;
