//! Putting it together: the approval point, the facts after it, each step's status and evidence,
//! the unplanned files.
//!
//! When the worktree is a git repository its state is what counts for files inside it: a file an
//! agent edited after the approval but that shows no change now (reverted, `reset --hard`) is not
//! changed, and a note says so. Tool calls count for files outside the worktree, and for every
//! file when there is no repository.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use time::OffsetDateTime;

use super::changes::{self, GitFile};
use super::facts::{self, parse_time, ShellRun, ToolWrite};
use super::steps::{self, Step};
use super::{
    ApprovalPoint, ApprovalSource, BaseKind, BaseRef, ChangeSource, ChangedFile, Evidence,
    NameKind, Named, SessionRef, StatusCounts, StepOverride, StepReport, StepStatus, TestRun,
    VerifyError, VerifyReport,
};
use crate::agents::Agent;
use crate::config::Roots;
use crate::history::events::PlanEvent;
use crate::history::scan::Files;
use crate::history::{DecidedIn, HistoryVerdict, RecoveredPlan};

/// The most evidence items of one kind listed per name.
const MAX_EVIDENCE: usize = 5;
/// Plans with more steps than this get a note (they are still checked whole).
const MANY_STEPS: usize = 100;

/// What the plan and its approval are, however they were found.
#[derive(Debug, Clone, Default)]
pub struct Target {
    pub id: String,
    pub path: Option<String>,
    pub title: String,
    pub agent: Option<Agent>,
    pub session_id: Option<String>,
    pub project: Option<String>,
    /// The approved text (else the latest text, when there is no approval).
    pub text: String,
    pub approved: bool,
    pub approved_at: Option<String>,
    pub decided_in: Option<DecidedIn>,
    pub source: Option<ApprovalSource>,
    /// Transcripts holding the session's records, the approval's first.
    pub transcripts: Vec<PathBuf>,
    /// What the plan's records say that the report should tell.
    pub notes: Vec<String>,
}

/// The facts a report is made of, gathered; [`evaluate`] is pure over them.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    pub target: Target,
    /// Every transcript's facts, in order.
    pub facts: Vec<facts::TranscriptFacts>,
    /// The git facts, or the sentence why there are none.
    pub git: Option<Result<changes::GitChanges, String>>,
    /// The folder the session worked in.
    pub folder: Option<PathBuf>,
    /// What could not be read while gathering.
    pub notes: Vec<String>,
}

pub(crate) fn report(roots: &Roots, plan: &str) -> Result<VerifyReport, VerifyError> {
    let target = resolve(roots, plan)?;
    Ok(report_of(roots, target))
}

fn report_of(roots: &Roots, target: Target) -> VerifyReport {
    let inputs = gather(roots, target);
    let mut report = evaluate(&inputs);
    if super::overrides::apply(roots, &mut report) {
        finish(&mut report);
    }
    report
}

/// Overrides the status of step `index` (1-based) of the plan `plan` (an id or a path) with
/// `note` (required: the person says why).
pub fn set_override(
    roots: &Roots,
    plan: &str,
    index: u32,
    status: StepStatus,
    note: &str,
) -> Result<StepOverride, VerifyError> {
    let note = super::overrides::check_note(note)?;
    let target = resolve(roots, plan)?;
    super::overrides::set(roots, &target.id, &target.text, index, status, note)
}

/// Removes the override of step `index` of the plan `plan`. Returns whether there was one.
pub fn clear_override(roots: &Roots, plan: &str, index: u32) -> Result<bool, VerifyError> {
    let target = resolve(roots, plan)?;
    super::overrides::clear(roots, &target.id, index)
}

pub(crate) fn report_for_session(
    roots: &Roots,
    agent: Agent,
    session_id: &str,
) -> Result<Option<VerifyReport>, VerifyError> {
    let (history, files) = crate::history::scan_with_files(roots)?;
    let plans = &history.plans;
    // The session's own approved plan, newest approval first.
    let own = plans
        .iter()
        .filter(|p| p.agent == agent && p.session_id.as_deref() == Some(session_id))
        // A plan re-submitted after its approval (pending, rejected) is not the contract now.
        .filter(|p| p.state == Some(HistoryVerdict::Approved))
        .filter_map(|p| last_approved(p).map(|v| (v.decided_at.clone(), p)))
        .max_by(|a, b| a.0.cmp(&b.0))
        .map(|(_, p)| p);
    let plan = match own {
        Some(p) => Some(p),
        // A plan carried into this session (clear context and implement, a compaction).
        None => carried_into(&files, session_id).and_then(|(path, text)| {
            plans.iter().filter(|p| p.agent == agent).find(|p| {
                last_approved(p).is_some_and(|v| {
                    (path.is_some() && p.path == path)
                        || v.approved_text.as_deref().unwrap_or(&v.text).trim() == text.trim()
                })
            })
        }),
    };
    Ok(plan.map(|p| report_of(roots, from_recovered(roots, p.clone(), &files))))
}

fn last_approved(p: &RecoveredPlan) -> Option<&crate::history::PlanVersion> {
    p.versions
        .iter()
        .rev()
        .find(|v| v.verdict == Some(HistoryVerdict::Approved))
}

/// The plan carried into the session `session_id` (its transcript's `Carried` records): its
/// path when the record names one, and its text.
fn carried_into(files: &Files, session_id: &str) -> Option<(Option<String>, String)> {
    files.values().find_map(|e| {
        if e.facts.session_id.as_deref() != Some(session_id) {
            return None;
        }
        e.facts.events.iter().rev().find_map(|ev| match ev {
            PlanEvent::Carried { path, text, .. } => Some((path.clone(), text.clone())),
            _ => None,
        })
    })
}

/// Transcripts other than `first` that carry the plan (at `path`, or with the approved `text`):
/// a new session implementing it (clear context and implement), or the session after a
/// compaction.
fn carrying(files: &Files, path: Option<&str>, text: &str, first: &Path) -> Vec<PathBuf> {
    files
        .iter()
        .filter(|(p, e)| {
            p.as_path() != first
                && !e.subagent
                && e.facts.events.iter().any(|ev| match ev {
                    PlanEvent::Carried {
                        path: cp, text: ct, ..
                    } => (cp.is_some() && cp.as_deref() == path) || ct.trim() == text.trim(),
                    _ => false,
                })
        })
        .map(|(p, _)| p.clone())
        .collect()
}

/// The plan, its approved text and its approval, from the transcripts (through the plan
/// history) or, for a plan file only Plandeck approved, from the decision log.
pub fn resolve(roots: &Roots, plan: &str) -> Result<Target, VerifyError> {
    let (history, files) = crate::history::scan_with_files(roots)?;
    match crate::history::find_in(roots, &history.plans, plan) {
        Ok(r) => Ok(from_recovered(roots, r, &files)),
        Err(crate::history::HistoryError::Unknown(_)) => from_file(roots, plan),
        Err(e) => Err(e.into()),
    }
}

fn from_recovered(roots: &Roots, r: RecoveredPlan, files: &Files) -> Target {
    let mut t = Target {
        id: r.id.clone(),
        path: r.path.clone(),
        title: r.title.clone(),
        agent: Some(r.agent),
        session_id: r.session_id.clone(),
        project: r.project.clone(),
        text: r.text.clone(),
        ..Target::default()
    };
    if let Some(v) = last_approved(&r) {
        let later = r
            .versions
            .iter()
            .rev()
            .take_while(|x| x.verdict != Some(HistoryVerdict::Approved))
            .count();
        if later > 0 {
            t.notes.push(format!(
                "{later} later version(s) of this plan were submitted after the approval and not approved: the report checks the approved one."
            ));
        }
        t.approved = true;
        t.text = v.approved_text.clone().unwrap_or_else(|| v.text.clone());
        t.approved_at = v.decided_at.clone().or_else(|| v.submitted_at.clone());
        t.decided_in = v.decided_in;
        t.source = Some(if v.decided_in == Some(DecidedIn::Plandeck) {
            ApprovalSource::Plandeck
        } else {
            ApprovalSource::Transcript
        });
        t.transcripts.push(PathBuf::from(&v.transcript));
    } else if let Some(v) = r.versions.last() {
        t.transcripts.push(PathBuf::from(&v.transcript));
        // Approved in Plandeck only (a plan file approved with `plandeck approve`).
        if let Some(path) = &r.path {
            plandeck_approval(roots, path, r.session_id.as_deref(), &mut t);
        }
    }
    if let (true, Some(first)) = (t.approved, t.transcripts.first().cloned()) {
        for p in carrying(files, t.path.as_deref(), &t.text, &first) {
            t.transcripts.push(p);
        }
    }
    t
}

/// The newest approval of `path` in Plandeck's decision log, with the approved text from the store.
fn plandeck_approval(roots: &Roots, path: &str, session: Option<&str>, t: &mut Target) {
    let Ok(decisions) = crate::review::log::read_all(&roots.data) else {
        return;
    };
    let Some(d) = decisions.iter().rev().find(|d| {
        d.pinned_hash().is_some()
            && d.plan_path == path
            && (session.is_none() || d.session_id.is_none() || d.session_id.as_deref() == session)
    }) else {
        return;
    };
    let text = d
        .approved_hash
        .as_deref()
        .and_then(|h| crate::review::store::get_version(&roots.data, h).ok())
        .and_then(|b| String::from_utf8(b).ok());
    if let Some(text) = text {
        t.text = text;
    }
    t.approved = true;
    t.approved_at = Some(crate::timestamp::format(d.time));
    t.decided_in = Some(DecidedIn::Plandeck);
    t.source = Some(ApprovalSource::Plandeck);
}

/// A plan file no transcript holds: its text, and Plandeck's approval of it if any.
fn from_file(roots: &Roots, plan: &str) -> Result<Target, VerifyError> {
    let listing = crate::plans::list(roots);
    let abs = crate::durable::absolute(Path::new(plan));
    let Some(file) = listing
        .plans
        .into_iter()
        .find(|f| f.id == plan || Path::new(&f.path) == abs)
    else {
        return Err(VerifyError::Unknown(plan.to_owned()));
    };
    let text = crate::review::store::read_plan(Path::new(&file.path)).map_err(|e| {
        VerifyError::BadInput(format!("The plan file {} cannot be read: {e}", file.path))
    })?;
    let mut t = Target {
        id: file.id.clone(),
        path: Some(file.path.clone()),
        title: file.title.clone(),
        agent: Some(file.agent),
        session_id: file.session_id.clone(),
        project: file.project.clone(),
        text,
        ..Target::default()
    };
    plandeck_approval(roots, &file.path, file.session_id.as_deref(), &mut t);
    if let Some(sid) = &file.session_id {
        if let Some(s) = crate::sessions::list(roots)
            .into_iter()
            .find(|s| &s.session_id == sid)
        {
            if let Some(tp) = s.transcript_path {
                t.transcripts.push(PathBuf::from(tp));
            }
            if t.project.is_none() && !s.cwd.is_empty() {
                t.project = Some(s.cwd);
            }
        }
    }
    Ok(t)
}

/// Reads the transcripts and the worktree of `target`.
pub fn gather(_roots: &Roots, target: Target) -> Inputs {
    let agent = target.agent.unwrap_or(Agent::Other);
    let mut facts_list = Vec::new();
    let mut notes_read = Vec::new();
    for p in &target.transcripts {
        match facts::read(agent, p) {
            Ok(f) => facts_list.push(f),
            Err(e) => notes_read.push(format!(
                "The transcript {} cannot be read ({e}): its tool calls are not evidence.",
                p.display()
            )),
        }
    }
    // The folder: the session's worktree (`claude -w`), else its working directory.
    let worktree = facts_list.iter().rev().find_map(|f| f.worktree.clone());
    let branch = facts_list
        .iter()
        .rev()
        .find_map(|f| f.worktree_branch.clone());
    let folder = worktree
        .or_else(|| target.project.clone())
        .or_else(|| facts_list.iter().find_map(|f| f.cwd.clone()))
        .or_else(|| {
            // Gemini CLI chats name no folder: `tmp/<project>/.project_root` does.
            let none = std::collections::HashMap::new();
            target
                .transcripts
                .first()
                .and_then(|t| crate::agents::records(agent).project_of(t, &none))
        })
        .map(PathBuf::from);
    let approved = target.approved_at.as_deref().and_then(parse_time);
    let git = folder
        .as_ref()
        .map(|f| changes::collect(f, approved, branch.as_deref()));
    Inputs {
        target,
        facts: facts_list,
        git,
        folder,
        notes: notes_read,
    }
}

/// One changed file with what shows it.
struct Change {
    file: ChangedFile,
    hunks: Vec<(String, String)>,
    /// Tool writes after approval (indexes into the flattened list).
    writes: Vec<usize>,
}

/// The report from the gathered facts. Pure: no file is read.
pub fn evaluate(inputs: &Inputs) -> VerifyReport {
    let t = &inputs.target;
    let approved_time = t.approved_at.as_deref().and_then(parse_time);
    let mut notes = approval_notes(inputs, approved_time);
    let activity = Activity::split(inputs, approved_time, &mut notes);
    let git = GitSide::of(inputs, &mut notes);
    let cwd = inputs.folder.clone();
    // A path as the report names it: relative to the worktree when inside it.
    let rel = |p: &str| -> (String, bool) { relative(p, git.workdir.as_deref(), cwd.as_deref()) };
    let writes_after_rel: Vec<(String, bool)> =
        activity.writes_after.iter().map(|w| rel(&w.path)).collect();
    let changes = collect_changes(
        t,
        git.files,
        &activity,
        &writes_after_rel,
        git.workdir.is_some(),
        &rel,
        &mut notes,
    );
    let tests = tests_after(&activity.runs_after);

    // Steps.
    let parsed = steps::parse(&t.text);
    if parsed.is_empty() {
        notes.push(
            "The approved plan has no list items or \"Step N\" headings: there are no steps to check."
                .to_owned(),
        );
    } else if parsed.len() > MANY_STEPS {
        notes.push(format!(
            "The approved plan has {} steps; every one was checked.",
            parsed.len()
        ));
    }
    let mut named_files: BTreeSet<String> = BTreeSet::new();
    let ctx = Ctx {
        changes: &changes,
        writes_after: &activity.writes_after,
        writes_rel: &writes_after_rel,
        runs_after: &activity.runs_after,
        tests: &tests,
        workdir: git.workdir.as_deref(),
        cwd: cwd.as_deref(),
    };
    let step_reports: Vec<StepReport> = parsed
        .iter()
        .enumerate()
        .map(|(i, step)| {
            let index = u32::try_from(i + 1).unwrap_or(u32::MAX);
            judge_step(index, step, &ctx, &mut named_files)
        })
        .collect();

    let changed: Vec<ChangedFile> = changes.values().map(|c| c.file.clone()).collect();
    let unplanned: Vec<ChangedFile> = changed
        .iter()
        .filter(|c| !named_files.contains(&c.path))
        .cloned()
        .collect();
    let mut report = VerifyReport {
        plan: t.id.clone(),
        plan_path: t.path.clone(),
        title: t.title.clone(),
        agent: t.agent.unwrap_or(Agent::Other),
        approved_at: t.approved.then(|| t.approved_at.clone()).flatten(),
        approval: t.approved.then(|| ApprovalPoint {
            source: t.source.unwrap_or(ApprovalSource::Transcript),
            at: t.approved_at.clone(),
            head_at_approval: (git.base.kind == BaseKind::ApprovalHead)
                .then(|| git.base.commit.clone())
                .flatten(),
            text_hash: crate::durable::sha256_hex(t.text.as_bytes()),
            decided_in: t.decided_in,
        }),
        session: t.session_id.as_ref().map(|id| SessionRef {
            agent: t.agent.unwrap_or(Agent::Other),
            id: id.clone(),
            cwd: t
                .project
                .clone()
                .or_else(|| inputs.folder.as_ref().map(|f| f.display().to_string())),
            transcript: t.transcripts.first().map(|p| p.display().to_string()),
        }),
        worktree: git
            .workdir
            .as_ref()
            .map(|w| w.to_string_lossy().trim_end_matches('/').to_owned()),
        base: git.base,
        steps: step_reports,
        unplanned,
        tests,
        changes: changed,
        commits: git.commits,
        notes,
        counts: StatusCounts::default(),
        report_hash: String::new(),
    };
    finish(&mut report);
    report
}

/// What the report says first: the notes gathered with the facts, and what the approval on
/// record allows.
fn approval_notes(inputs: &Inputs, approved_time: Option<OffsetDateTime>) -> Vec<String> {
    let t = &inputs.target;
    let mut notes: Vec<String> = Vec::new();
    notes.extend(t.notes.iter().cloned());
    notes.extend(inputs.notes.iter().cloned());
    if !t.approved {
        notes.push(
            "This plan has no approval on record (Plandeck's decisions or the agent's own): there is no work after an approval to check, so no step can be done."
                .to_owned(),
        );
    } else if approved_time.is_none() {
        notes.push(
            "The approval has no time on record: the transcript's tool calls and commands cannot be placed after it, so only git changes count."
                .to_owned(),
        );
    }
    notes
}

/// The transcripts' tool writes and commands, split at the approval.
struct Activity<'a> {
    writes_after: Vec<&'a ToolWrite>,
    /// Files written before the approval (while planning).
    planning_files: BTreeSet<String>,
    runs_after: Vec<&'a ShellRun>,
}

impl<'a> Activity<'a> {
    fn split(
        inputs: &'a Inputs,
        approved_time: Option<OffsetDateTime>,
        notes: &mut Vec<String>,
    ) -> Self {
        let approved = inputs.target.approved;
        let after = |at: &Option<String>| -> bool {
            match (approved_time, at.as_deref().and_then(parse_time)) {
                (Some(a), Some(t)) => approved && t >= a,
                _ => false,
            }
        };
        let mut activity = Activity {
            writes_after: Vec::new(),
            planning_files: BTreeSet::new(),
            runs_after: Vec::new(),
        };
        let mut unreadable = 0u32;
        for f in &inputs.facts {
            unreadable += f.unreadable;
            for w in &f.writes {
                if after(&w.at) {
                    activity.writes_after.push(w);
                } else {
                    activity.planning_files.insert(w.path.clone());
                }
            }
            activity
                .runs_after
                .extend(f.commands.iter().filter(|r| after(&r.at)));
            if let Some(a) = approved_time {
                if f.compactions
                    .iter()
                    .any(|c| c.as_deref().and_then(parse_time).is_some_and(|c| c >= a))
                {
                    notes.push(
                        "The session was compacted after the approval; the transcript keeps the records from before the compaction, and they were read."
                            .to_owned(),
                    );
                }
            }
        }
        if unreadable > 0 {
            notes.push(format!(
                "{unreadable} transcript lines could not be read (damaged or too long); they are not evidence."
            ));
        }
        activity
    }
}

/// What git says: the changed files, the worktree, the base and the commits since.
struct GitSide {
    files: Vec<GitFile>,
    workdir: Option<PathBuf>,
    base: BaseRef,
    commits: Vec<super::CommitSummary>,
}

impl GitSide {
    fn of(inputs: &Inputs, notes: &mut Vec<String>) -> Self {
        let none = |notes: &mut Vec<String>, sentence: String| {
            notes.push(sentence);
            GitSide {
                files: Vec::new(),
                workdir: None,
                base: no_base(),
                commits: Vec::new(),
            }
        };
        match &inputs.git {
            Some(Ok(g)) => {
                notes.extend(g.notes.iter().cloned());
                GitSide {
                    files: g.files.clone(),
                    workdir: Some(g.workdir.clone()),
                    base: g.base.clone(),
                    commits: g.commits.clone(),
                }
            }
            Some(Err(sentence)) => none(notes, sentence.clone()),
            None => none(
                notes,
                "The session's folder is not known: only the transcript's tool calls are evidence."
                    .to_owned(),
            ),
        }
    }
}

/// The files changed after the approval: git's first (the plan itself and files only written while
/// planning left out), then the tool writes git does not show.
fn collect_changes(
    t: &Target,
    git_files: Vec<GitFile>,
    activity: &Activity<'_>,
    writes_after_rel: &[(String, bool)],
    in_worktree: bool,
    rel: &dyn Fn(&str) -> (String, bool),
    notes: &mut Vec<String>,
) -> BTreeMap<String, Change> {
    let plan_rel = t.path.as_deref().map(|p| rel(p).0);
    let planning_rel: BTreeSet<String> = activity.planning_files.iter().map(|p| rel(p).0).collect();
    let mut changes: BTreeMap<String, Change> = BTreeMap::new();
    let written_after: BTreeSet<&str> = writes_after_rel.iter().map(|(p, _)| p.as_str()).collect();
    if t.approved {
        for GitFile { file, hunks } in git_files {
            if Some(&file.path) == plan_rel.as_ref() {
                continue;
            }
            if planning_rel.contains(&file.path) && !written_after.contains(file.path.as_str()) {
                continue;
            }
            changes.insert(
                file.path.clone(),
                Change {
                    file,
                    hunks,
                    writes: Vec::new(),
                },
            );
        }
    }
    let mut edited_unchanged: BTreeSet<String> = BTreeSet::new();
    let writes = activity.writes_after.iter().zip(writes_after_rel);
    for (i, (w, (path, inside))) in writes.enumerate() {
        if w.failed || Some(path) == plan_rel.as_ref() {
            continue;
        }
        let moved_to = w.moved_to.as_deref().map(|to| rel(to).0);
        let known = [Some(path), moved_to.as_ref()]
            .into_iter()
            .flatten()
            .find(|p| changes.contains_key(*p))
            .cloned();
        if let Some(known) = known {
            let c = changes.get_mut(&known).expect("just found");
            c.writes.push(i);
            if !c.file.sources.contains(&ChangeSource::Tool) {
                c.file.sources.push(ChangeSource::Tool);
            }
            continue;
        }
        if *inside && in_worktree {
            // The worktree does not show it changed now: reverted or reset.
            edited_unchanged.insert(path.clone());
            continue;
        }
        let (key, from) = match moved_to {
            Some(to) => (to, Some(path.clone())),
            None => (path.clone(), None),
        };
        let c = changes.entry(key.clone()).or_insert_with(|| Change {
            file: ChangedFile {
                path: key,
                change: w.change,
                from,
                additions: 0,
                deletions: 0,
                binary: false,
                sources: vec![ChangeSource::Tool],
            },
            hunks: Vec::new(),
            writes: Vec::new(),
        });
        c.writes.push(i);
    }
    if !edited_unchanged.is_empty() {
        let list: Vec<&str> = edited_unchanged
            .iter()
            .take(10)
            .map(String::as_str)
            .collect();
        notes.push(format!(
            "Edited by the agent after the approval but unchanged in the worktree now (reverted or reset), so not counted: {}{}.",
            list.join(", "),
            if edited_unchanged.len() > 10 {
                format!(" and {} more", edited_unchanged.len() - 10)
            } else {
                String::new()
            }
        ));
    }
    changes
}

/// The test commands run after the approval.
fn tests_after(runs_after: &[&ShellRun]) -> Vec<TestRun> {
    runs_after
        .iter()
        .filter(|r| steps::is_test_command(&r.command))
        .map(|r| TestRun {
            command: r.command.clone(),
            passed: r.success,
            exit_code: r.exit_code,
            at: r.at.clone(),
            record_line: r.line,
        })
        .collect()
}

/// Recounts and rehashes after the steps changed (overrides).
pub(crate) fn finish(report: &mut VerifyReport) {
    let mut counts = StatusCounts::default();
    for s in &report.steps {
        match s.status {
            StepStatus::Done => counts.done += 1,
            StepStatus::Partial => counts.partial += 1,
            StepStatus::Missing => counts.missing += 1,
            StepStatus::Unverifiable => counts.unverifiable += 1,
        }
    }
    report.counts = counts;
    report.report_hash = crate::durable::sha256_hex(super::agent_report_text(report).as_bytes());
}

fn no_base() -> BaseRef {
    BaseRef {
        kind: BaseKind::None,
        commit: None,
        branch: None,
    }
}

/// `p` relative to the worktree when inside it (relative paths are the session's cwd's), and
/// whether it is inside.
fn relative(p: &str, workdir: Option<&Path>, cwd: Option<&Path>) -> (String, bool) {
    let path = Path::new(p);
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else if let Some(c) = cwd {
        c.join(path)
    } else {
        return (p.trim_start_matches("./").to_owned(), false);
    };
    let abs = lexical(&abs);
    if let Some(w) = workdir {
        let w = lexical(w);
        if let Ok(r) = abs.strip_prefix(&w) {
            return (r.to_string_lossy().into_owned(), true);
        }
        // The worktree reached through another spelling (a symlinked home).
        if let (Ok(cw), Some(parent)) = (w.canonicalize(), abs.parent()) {
            if let Ok(cp) = parent.canonicalize() {
                if let Ok(r) = cp.strip_prefix(&cw) {
                    let name = abs.file_name().unwrap_or_default();
                    return (r.join(name).to_string_lossy().into_owned(), true);
                }
            }
        }
    }
    (abs.to_string_lossy().into_owned(), false)
}

/// `a/./b/../c` → `a/c`, without touching the disk.
fn lexical(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

struct Ctx<'a> {
    changes: &'a BTreeMap<String, Change>,
    writes_after: &'a [&'a ToolWrite],
    writes_rel: &'a [(String, bool)],
    runs_after: &'a [&'a ShellRun],
    tests: &'a [TestRun],
    workdir: Option<&'a Path>,
    cwd: Option<&'a Path>,
}

/// How far one thing a step names was touched.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Touch {
    Full,
    Half,
    None,
}

fn judge_step(
    index: u32,
    step: &Step,
    ctx: &Ctx<'_>,
    named_files: &mut BTreeSet<String>,
) -> StepReport {
    let mut names = Vec::new();
    let mut evidence = Vec::new();
    let mut touches = Vec::new();
    for (kind, value) in &step.names {
        let mut note = None;
        let touch = match kind {
            NameKind::Path => {
                let (target, inside) = match ctx.workdir {
                    Some(_) if Path::new(value).is_absolute() || value.starts_with("..") => {
                        relative(value, ctx.workdir, ctx.cwd)
                    }
                    _ => (value.clone(), true),
                };
                if !inside && ctx.workdir.is_some() {
                    note = Some(format!(
                        "outside the repository {}: only the agent's tool calls can show it changed",
                        ctx.workdir.map(|w| w.display().to_string()).unwrap_or_default()
                    ));
                }
                let mut hit = false;
                for (path, c) in ctx.changes {
                    if path_matches(&target, path)
                        || c.file
                            .from
                            .as_deref()
                            .is_some_and(|f| path_matches(&target, f))
                    {
                        hit = true;
                        named_files.insert(path.clone());
                        push_change_evidence(&mut evidence, c, None, ctx);
                    }
                }
                if hit {
                    Touch::Full
                } else {
                    Touch::None
                }
            }
            NameKind::Symbol => {
                let mut hit = false;
                let mut listed = 0;
                for (path, c) in ctx.changes {
                    let in_hunk = c
                        .hunks
                        .iter()
                        .find(|(_, text)| contains_word(text, value))
                        .map(|(h, _)| h.clone());
                    let in_write = c.hunks.is_empty()
                        && c.writes
                            .iter()
                            .any(|&i| contains_word(&ctx.writes_after[i].text, value));
                    if in_hunk.is_some() || in_write {
                        hit = true;
                        named_files.insert(path.clone());
                        if listed < MAX_EVIDENCE {
                            listed += 1;
                            push_change_evidence(&mut evidence, c, in_hunk, ctx);
                        }
                    }
                }
                if hit {
                    Touch::Full
                } else {
                    Touch::None
                }
            }
            NameKind::Command => {
                // Run as a command, not mentioned: `echo "cargo test"` is not `cargo test`,
                // nor is `cargo test --no-run`.
                let runs: Vec<&&ShellRun> = ctx
                    .runs_after
                    .iter()
                    .filter(|r| steps::runs_named_command(&r.command, value))
                    .collect();
                for r in runs.iter().rev().take(MAX_EVIDENCE).rev() {
                    evidence.push(command_evidence(r));
                }
                match runs.last() {
                    None => Touch::None,
                    Some(r) if r.success == Some(true) => Touch::Full,
                    Some(_) => Touch::Half,
                }
            }
        };
        if touch == Touch::None {
            evidence.push(Evidence::NotTouched {
                name: value.clone(),
                name_kind: *kind,
            });
        }
        touches.push(touch);
        names.push(Named {
            kind: *kind,
            value: value.clone(),
            touched: touch != Touch::None,
            note,
        });
    }
    // A test step that names no command: the test commands run after approval.
    if step.test && !step.names.iter().any(|(k, _)| *k == NameKind::Command) {
        for r in ctx.tests.iter().rev().take(MAX_EVIDENCE).rev() {
            evidence.push(Evidence::Command {
                command: r.command.clone(),
                success: r.passed,
                exit_code: r.exit_code,
                at: r.at.clone(),
                record_line: r.record_line,
            });
        }
        touches.push(match ctx.tests.last() {
            None => Touch::None,
            Some(r) if r.passed == Some(true) => Touch::Full,
            Some(_) => Touch::Half,
        });
    }
    let status = if touches.is_empty() {
        StepStatus::Unverifiable
    } else if touches.iter().all(|t| *t == Touch::Full) {
        StepStatus::Done
    } else if touches.iter().all(|t| *t == Touch::None) {
        StepStatus::Missing
    } else {
        StepStatus::Partial
    };
    StepReport {
        index,
        text: step.text.clone(),
        line: step.line,
        names,
        status,
        computed_status: status,
        test: step.test,
        evidence,
        overridden: None,
    }
}

fn push_change_evidence(
    evidence: &mut Vec<Evidence>,
    c: &Change,
    hunk: Option<String>,
    ctx: &Ctx<'_>,
) {
    if c.file.sources.contains(&ChangeSource::Git) {
        let e = Evidence::GitChange {
            file: c.file.path.clone(),
            change: c.file.change,
            hunk,
        };
        if !evidence.contains(&e) {
            evidence.push(e);
        }
    }
    for &i in c.writes.iter().rev().take(MAX_EVIDENCE).rev() {
        let w = ctx.writes_after[i];
        let e = Evidence::ToolCall {
            tool: w.tool.clone(),
            file: ctx.writes_rel[i].0.clone(),
            at: w.at.clone(),
            record_line: w.line,
            failed: w.failed,
        };
        if !evidence.contains(&e) {
            evidence.push(e);
        }
    }
}

fn command_evidence(r: &ShellRun) -> Evidence {
    Evidence::Command {
        command: r.command.clone(),
        success: r.success,
        exit_code: r.exit_code,
        at: r.at.clone(),
        record_line: r.line,
    }
}

/// Whether the named path `want` is the changed path `have`: the same, a file name or trailing
/// part of it (`api.rs`, `src/api.rs` for `crates/x/src/api.rs`), or a folder holding it.
fn path_matches(want: &str, have: &str) -> bool {
    let want = want.trim_start_matches("./");
    if want.is_empty() {
        return false;
    }
    if want.ends_with('/') {
        return have.starts_with(want)
            || memchr::memmem::find_iter(have.as_bytes(), want.as_bytes())
                .any(|at| at > 0 && have.as_bytes()[at - 1] == b'/');
    }
    have == want
        || (have.len() > want.len()
            && have.ends_with(want)
            && have.as_bytes()[have.len() - want.len() - 1] == b'/')
}

/// `word` in `text` with no identifier character on either side.
fn contains_word(text: &str, word: &str) -> bool {
    if word.is_empty() {
        return false;
    }
    let is_ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let bytes = text.as_bytes();
    memchr::memmem::find_iter(bytes, word.as_bytes()).any(|at| {
        let before = at.checked_sub(1).map(|i| bytes[i]);
        let after = bytes.get(at + word.len()).copied();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_match_by_trailing_components_and_folders() {
        assert!(path_matches("api.rs", "src/api.rs"));
        assert!(path_matches("src/api.rs", "crates/x/src/api.rs"));
        assert!(!path_matches("pi.rs", "src/api.rs"));
        assert!(path_matches("src/", "src/a/b.rs"));
        assert!(!path_matches("src/", "other/b.rs"));
        assert!(path_matches("ChangeKind", "ChangeKind"));
    }

    #[test]
    fn words_have_boundaries() {
        assert!(contains_word("fn paginate(x)", "paginate"));
        assert!(!contains_word("fn paginated(x)", "paginate"));
        assert!(contains_word("a.page = 1", "page"));
        assert!(!contains_word("homepage", "page"));
    }
}
