//! From each transcript's [`PlanEvent`]s to plans and their versions, with decisions.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use time::OffsetDateTime;

use super::events::{Outcome, PlanEvent, PlanFacts};
use super::scan::FileEntry;
use super::{DecidedIn, HistoryVerdict, PlanSource, PlanVersion, RecoveredPlan};
use crate::agents::records::PlanKeys;
use crate::agents::Agent;
use crate::config::Roots;
use crate::review::log::{Decision, Verdict};

/// How close (seconds) a decision in Plandeck's log must be to a result to count as the same.
const PLANDECK_WINDOW: i64 = 120;

/// A plan being assembled: its key is (agent, session, path or Codex session).
struct Draft {
    agent: Agent,
    session_id: Option<String>,
    path: Option<String>,
    project: Option<String>,
    subagent: bool,
    versions: Vec<PlanVersion>,
}

type Key = (Agent, Option<String>, String);

pub(super) fn fold(
    roots: &Roots,
    files: &BTreeMap<PathBuf, FileEntry>,
    decisions: &[Decision],
    notes: &mut Vec<String>,
) -> Vec<RecoveredPlan> {
    let mut drafts: BTreeMap<Key, Draft> = BTreeMap::new();
    let mut fresh: Vec<Fresh> = Vec::new();
    let mut carried: Vec<Carried> = Vec::new();
    for (path, entry) in files {
        let f = &entry.facts;
        if f.unreadable > 0 {
            notes.push(format!(
                "{}: {} line{} could not be read (damaged, cut short or too long); plans in them are not recovered.",
                path.display(),
                f.unreadable,
                if f.unreadable == 1 { "" } else { "s" }
            ));
        }
        let transcript = path.display().to_string();
        let agent = entry.agent;
        match crate::agents::records(agent).plan_keys() {
            Some(PlanKeys::File) => claude(
                roots,
                agent,
                &transcript,
                entry.subagent,
                f,
                &mut drafts,
                &mut carried,
            ),
            Some(PlanKeys::SessionFile) => gemini(agent, path, &transcript, f, &mut drafts, notes),
            Some(PlanKeys::Thread) => {
                codex(agent, &transcript, f, &mut drafts);
                for e in &f.events {
                    if let PlanEvent::FreshThread { at, attachment } = e {
                        fresh.push(Fresh {
                            agent,
                            attachment: attachment.clone(),
                            at: at.clone(),
                            session: f.session_id.clone(),
                            transcript: transcript.clone(),
                        });
                    }
                }
            }
            None => {}
        }
    }
    place_carried(carried, &mut drafts);
    fresh_threads(roots, &fresh, &mut drafts, notes);
    for d in drafts.values_mut() {
        d.versions
            .sort_by(|a, b| a.submitted_at.cmp(&b.submitted_at));
        for v in &mut d.versions {
            decided_in_plandeck(v, d.path.as_deref(), d.session_id.as_deref(), decisions);
        }
    }
    finish(drafts)
}

fn draft<'a>(
    drafts: &'a mut BTreeMap<Key, Draft>,
    agent: Agent,
    f: &PlanFacts,
    key: String,
    path: Option<String>,
    subagent: bool,
) -> &'a mut Draft {
    drafts
        .entry((agent, f.session_id.clone(), key))
        .or_insert_with(|| Draft {
            agent,
            session_id: f.session_id.clone(),
            path,
            project: f.cwd.clone(),
            subagent,
            versions: Vec::new(),
        })
}

fn version(text: String, at: Option<String>, transcript: &str) -> PlanVersion {
    PlanVersion {
        text,
        submitted_at: at,
        verdict: Some(HistoryVerdict::Pending),
        feedback: None,
        decided_in: None,
        decided_at: None,
        approved_text: None,
        note: None,
        transcript: transcript.to_owned(),
    }
}

fn apply_outcome(v: &mut PlanVersion, outcome: &Outcome, hook: bool, at: &Option<String>) {
    v.decided_at = at.clone();
    v.decided_in = Some(if hook {
        DecidedIn::Hook
    } else {
        DecidedIn::Terminal
    });
    match outcome {
        Outcome::Approved { text } => {
            v.verdict = Some(HistoryVerdict::Approved);
            if let Some(t) = text.as_ref().filter(|t| **t != v.text) {
                v.approved_text = Some(t.clone());
            }
        }
        Outcome::Rejected { feedback } => {
            v.verdict = Some(HistoryVerdict::Rejected);
            v.feedback = Some(feedback.clone());
        }
        Outcome::Cancelled => v.verdict = Some(HistoryVerdict::Cancelled),
    }
}

/// A plan text carried into a conversation (`planContent`, `plan_file_reference`), placed once
/// every transcript was read: it is a version only when no plan on that path has that text (the
/// session that submitted it may be in another transcript, or gone).
struct Carried {
    agent: Agent,
    facts: PlanFacts,
    path: String,
    at: Option<String>,
    text: String,
    transcript: String,
    subagent: bool,
}

fn place_carried(carried: Vec<Carried>, drafts: &mut BTreeMap<Key, Draft>) {
    for c in carried {
        let known = drafts.values().any(|d| {
            d.path.as_deref() == Some(c.path.as_str())
                && d.versions.iter().any(|v| {
                    v.text.trim() == c.text.trim()
                        || v.approved_text.as_deref().map(str::trim) == Some(c.text.trim())
                })
        });
        if known {
            continue;
        }
        let d = draft(
            drafts,
            c.agent,
            &c.facts,
            c.path.clone(),
            Some(c.path.clone()),
            c.subagent,
        );
        let mut v = version(c.text, c.at, &c.transcript);
        v.verdict = None;
        v.note = Some(
            "Carried into the conversation (planContent, or after a compaction); not submitted for approval there."
                .into(),
        );
        d.versions.push(v);
    }
}

fn claude(
    roots: &Roots,
    agent: Agent,
    transcript: &str,
    subagent: bool,
    f: &PlanFacts,
    drafts: &mut BTreeMap<Key, Draft>,
    carried: &mut Vec<Carried>,
) {
    let headless = f.source.as_deref().is_some_and(|s| s.starts_with("sdk"));
    let slug_path = f.slug.as_ref().and_then(|s| {
        crate::agents::records(agent)
            .plan_file_of_slug(roots, s)
            .map(|p| p.display().to_string())
    });
    let mut answers: HashMap<&str, (&Outcome, bool, &Option<String>)> = HashMap::new();
    let mut hook_denied: Vec<&str> = Vec::new();
    let mut to_lead: HashMap<&str, Option<&Option<String>>> = HashMap::new();
    for e in &f.events {
        match e {
            PlanEvent::SentToLead { call, .. } => {
                to_lead.entry(call).or_insert(None);
            }
            PlanEvent::LeadApproved { call, at } => {
                to_lead.insert(call, Some(at));
            }
            PlanEvent::Answered {
                call,
                at,
                outcome,
                hook,
            } => {
                answers.entry(call).or_insert((outcome, *hook, at));
            }
            PlanEvent::HookDenied { call } => hook_denied.push(call),
            _ => {}
        }
    }
    for e in &f.events {
        match e {
            PlanEvent::Submitted {
                call,
                at,
                text,
                path,
                ..
            } => {
                let path = path.clone().or_else(|| slug_path.clone());
                let key = path.clone().unwrap_or_else(|| format!("claude:{call}"));
                let d = draft(drafts, agent, f, key, path, subagent);
                let mut v = version(text.clone().unwrap_or_default(), at.clone(), transcript);
                if text.is_none() {
                    v.note = Some("The call names no plan text (an older Claude Code?).".into());
                }
                if let Some((outcome, hook, at)) = answers.get(call.as_str()) {
                    let hook = *hook || hook_denied.contains(&call.as_str());
                    apply_outcome(&mut v, outcome, hook, at);
                    if headless && !hook {
                        v.decided_in = Some(DecidedIn::Headless);
                    }
                } else if let Some(lead) = to_lead.get(call.as_str()) {
                    // A teammate's plan: its lead decides it, by itself.
                    match lead {
                        Some(at) => {
                            v.verdict = Some(HistoryVerdict::Approved);
                            v.decided_in = Some(DecidedIn::Lead);
                            v.decided_at = (*at).clone();
                            v.note =
                                Some("Approved by the team's lead (\"[Plan Approved]\").".into());
                        }
                        None => {
                            v.note =
                                Some("Sent to the team's lead, which has not answered yet.".into());
                        }
                    }
                }
                d.versions.push(v);
            }
            PlanEvent::Carried { at, text, path } => {
                if let Some(path) = path.clone().or_else(|| slug_path.clone()) {
                    carried.push(Carried {
                        agent,
                        facts: PlanFacts {
                            session_id: f.session_id.clone(),
                            cwd: f.cwd.clone(),
                            ..PlanFacts::default()
                        },
                        path,
                        at: at.clone(),
                        text: text.clone(),
                        transcript: transcript.to_owned(),
                        subagent,
                    });
                }
            }
            _ => {}
        }
    }
}

fn gemini(
    agent: Agent,
    chat: &Path,
    transcript: &str,
    f: &PlanFacts,
    drafts: &mut BTreeMap<Key, Draft>,
    notes: &mut Vec<String>,
) {
    // `tmp/<slug>/chats/session-….jsonl`: plans are in `tmp/<slug>/<sessionId>/plans/`.
    let slug_dir = chat.parent().and_then(Path::parent);
    let mut answers: HashMap<&str, (&Outcome, bool, &Option<String>)> = HashMap::new();
    for e in &f.events {
        if let PlanEvent::Answered {
            call,
            at,
            outcome,
            hook,
        } = e
        {
            answers.entry(call).or_insert((outcome, *hook, at));
        }
    }
    let mut written: Vec<(&str, &str)> = Vec::new();
    for e in &f.events {
        match e {
            PlanEvent::Wrote { path, text } => written.push((path, text)),
            PlanEvent::Submitted {
                call,
                at,
                path: name,
                ..
            } => {
                let name = name.as_deref().unwrap_or("plan.md");
                let file_name = Path::new(name)
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let last = written.iter().rev().find(|(p, _)| {
                    Path::new(p).file_name().map(|n| n.to_string_lossy())
                        == Some(file_name.as_str().into())
                });
                let path = match (last, &f.session_id, slug_dir) {
                    (Some((p, _)), _, _) => p.to_string(),
                    (None, Some(sid), Some(dir)) => dir
                        .join(sid)
                        .join("plans")
                        .join(&file_name)
                        .display()
                        .to_string(),
                    _ => name.to_owned(),
                };
                let text = match last {
                    Some((_, t)) => Some(t.to_string()),
                    None => std::fs::read_to_string(&path).ok(),
                };
                let mut v = version(text.clone().unwrap_or_default(), at.clone(), transcript);
                if last.is_none() {
                    v.note = Some(if text.is_some() {
                        "The chat does not hold this plan's text; it was read from the file.".into()
                    } else {
                        notes.push(format!(
                            "{transcript}: the plan {path} was submitted but its text is neither in the chat nor on disk."
                        ));
                        "The chat does not hold this plan's text and the file is gone.".into()
                    });
                }
                if let Some((outcome, hook, at)) = answers.get(call.as_str()) {
                    apply_outcome(&mut v, outcome, *hook, at);
                }
                let d = draft(drafts, agent, f, path.clone(), Some(path), false);
                d.versions.push(v);
            }
            _ => {}
        }
    }
}

/// A Codex turn, as the rollout shows it.
#[derive(Default)]
struct CodexTurn {
    mode: String,
    said: Option<String>,
    plan: Option<(Option<String>, String)>,
    proposed: Option<(Option<String>, String)>,
}

fn codex(agent: Agent, transcript: &str, f: &PlanFacts, drafts: &mut BTreeMap<Key, Draft>) {
    let exec = f.source.as_deref() == Some("exec");
    let mut turns: Vec<CodexTurn> = Vec::new();
    for e in &f.events {
        match e {
            PlanEvent::Turn { mode, .. } => turns.push(CodexTurn {
                mode: mode.clone(),
                ..CodexTurn::default()
            }),
            PlanEvent::Said { text, .. } => {
                if turns.is_empty() {
                    turns.push(CodexTurn::default());
                }
                let t = turns.last_mut().expect("a turn");
                if t.said.is_none() {
                    t.said = Some(text.clone());
                }
            }
            PlanEvent::Submitted { at, text, .. } => {
                if turns.is_empty() {
                    turns.push(CodexTurn::default());
                }
                if let Some(text) = text {
                    turns.last_mut().expect("a turn").plan = Some((at.clone(), text.clone()));
                }
            }
            PlanEvent::Proposed { at, text } => {
                if turns.is_empty() {
                    turns.push(CodexTurn::default());
                }
                let t = turns.last_mut().expect("a turn");
                if t.proposed.is_none() {
                    t.proposed = Some((at.clone(), text.clone()));
                }
            }
            _ => {}
        }
    }
    let with_plan: Vec<usize> = (0..turns.len())
        .filter(|&i| {
            let t = &turns[i];
            t.plan.is_some()
                || (t.proposed.is_some() && (exec || t.mode == "plan" || t.mode.is_empty()))
        })
        .collect();
    if with_plan.is_empty() {
        return;
    }
    let key = format!(
        "codex:{}",
        f.session_id
            .clone()
            .unwrap_or_else(|| transcript.to_owned())
    );
    let d = draft(drafts, agent, f, key, None, false);
    for &i in &with_plan {
        let t = &turns[i];
        let (at, text) = t
            .plan
            .clone()
            .or_else(|| t.proposed.clone())
            .expect("a plan");
        let mut v = version(text, at, transcript);
        match turns.get(i + 1) {
            None if exec => {
                v.verdict = None;
                v.decided_in = Some(DecidedIn::Headless);
                v.note = Some(
                    "A headless `codex exec` run: it has no Plan mode and no approval.".into(),
                );
            }
            None => {
                v.note = Some(
                    "No later turn: the popup may still be open, or the session was left.".into(),
                );
            }
            Some(next) if next.mode == "plan" => {
                v.verdict = Some(HistoryVerdict::Rejected);
                v.decided_in = Some(DecidedIn::Terminal);
                v.feedback = next.said.clone();
            }
            Some(next) => {
                v.decided_in = Some(DecidedIn::Terminal);
                if next.said.as_deref().map(str::trim) == Some("Implement the plan.") {
                    v.verdict = Some(HistoryVerdict::Approved);
                } else {
                    v.verdict = None;
                    v.note = Some(format!(
                        "Plan mode was left; the next message was {:?}.",
                        next.said.as_deref().unwrap_or("")
                    ));
                }
            }
        }
        d.versions.push(v);
    }
}

/// A thread started from an approved plan's file.
struct Fresh {
    agent: Agent,
    attachment: String,
    at: Option<String>,
    session: Option<String>,
    transcript: String,
}

/// "Read the approved plan at <file> and implement it." in a new thread approves the pending
/// version with that text in another thread of the same agent.
fn fresh_threads(
    roots: &Roots,
    fresh: &[Fresh],
    drafts: &mut BTreeMap<Key, Draft>,
    notes: &mut Vec<String>,
) {
    for Fresh {
        agent,
        attachment,
        at,
        session,
        transcript,
    } in fresh
    {
        let given = PathBuf::from(attachment);
        let local = crate::agents::records(*agent).attachment(roots, attachment);
        let text = std::fs::read_to_string(&given)
            .ok()
            .or_else(|| local.and_then(|p| std::fs::read_to_string(p).ok()));
        let Some(text) = text else {
            notes.push(format!(
                "{transcript}: a thread was started from the approved plan {attachment}, which is gone: the plan it approved cannot be told."
            ));
            continue;
        };
        let target = drafts
            .values_mut()
            .filter(|d| d.agent == *agent && d.session_id != *session)
            .flat_map(|d| d.versions.iter_mut())
            .filter(|v| {
                v.text.trim() == text.trim()
                    && v.verdict == Some(HistoryVerdict::Pending)
                    && (at.is_none() || v.submitted_at <= *at)
            })
            .max_by(|a, b| a.submitted_at.cmp(&b.submitted_at));
        if let Some(v) = target {
            v.verdict = Some(HistoryVerdict::Approved);
            v.decided_in = Some(DecidedIn::Terminal);
            v.decided_at = at.clone();
            v.note = Some(format!(
                "Implemented in a fresh thread ({}).",
                session.as_deref().unwrap_or(transcript)
            ));
        }
    }
}

fn parse_time(t: &str) -> Option<OffsetDateTime> {
    OffsetDateTime::parse(t, &time::format_description::well_known::Rfc3339).ok()
}

fn decided_in_plandeck(
    v: &mut PlanVersion,
    path: Option<&str>,
    session: Option<&str>,
    decisions: &[Decision],
) {
    let want = match v.verdict {
        Some(HistoryVerdict::Approved) => Verdict::Approved,
        Some(HistoryVerdict::Rejected) => Verdict::Rejected,
        _ => return,
    };
    let Some(path) = path else { return };
    let Some(when) = v
        .decided_at
        .as_deref()
        .or(v.submitted_at.as_deref())
        .and_then(parse_time)
    else {
        return;
    };
    let file_name = Path::new(path).file_name();
    let matched = decisions.iter().any(|d| {
        d.decision == want
            && (d.plan_path == path
                || (session.is_some()
                    && d.session_id.as_deref() == session
                    && Path::new(&d.plan_path).file_name() == file_name))
            && (d.time - when).whole_seconds().abs() <= PLANDECK_WINDOW
    });
    if matched {
        v.decided_in = Some(DecidedIn::Plandeck);
    }
}

fn finish(drafts: BTreeMap<Key, Draft>) -> Vec<RecoveredPlan> {
    let mut drafts: Vec<Draft> = drafts
        .into_values()
        .filter(|d| !d.versions.is_empty())
        .collect();
    let last = |d: &Draft| d.versions.last().and_then(|v| v.submitted_at.clone());
    // The newest session on each path owns the path's id and its file.
    let mut newest: HashMap<String, Option<String>> = HashMap::new();
    for d in &drafts {
        if let Some(p) = &d.path {
            let t = last(d);
            let e = newest.entry(p.clone()).or_insert(t.clone());
            if t > *e {
                *e = t;
            }
        }
    }
    drafts.sort_by_key(|d| std::cmp::Reverse(last(d)));
    let mut out = Vec::with_capacity(drafts.len());
    let mut taken: std::collections::HashSet<String> = std::collections::HashSet::new();
    for d in drafts {
        let lv = d.versions.last().expect("a version");
        let text = match (lv.verdict, &lv.approved_text) {
            (Some(HistoryVerdict::Approved), Some(t)) => t.clone(),
            _ => lv.text.clone(),
        };
        let owner = d
            .path
            .as_ref()
            .is_some_and(|p| newest.get(p) == Some(&last(&d)) && !taken.contains(p));
        let id = match &d.path {
            Some(p) if owner => {
                taken.insert(p.clone());
                crate::ids::plan_id(Path::new(p))
            }
            Some(p) => crate::ids::short_hash(
                format!("{p}\n{}", d.session_id.as_deref().unwrap_or("")).as_bytes(),
            ),
            None => crate::ids::short_hash(
                format!("codex\n{}", d.session_id.as_deref().unwrap_or("")).as_bytes(),
            ),
        };
        let on_disk = d.path.as_ref().is_some_and(|p| Path::new(p).is_file());
        let source = if owner && on_disk {
            PlanSource::File
        } else {
            PlanSource::Transcript
        };
        let title = crate::plans::first_heading(&text).unwrap_or_else(|| {
            d.path
                .as_deref()
                .and_then(|p| Path::new(p).file_name())
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "Codex plan".to_owned())
        });
        out.push(RecoveredPlan {
            id,
            agent: d.agent,
            session_id: d.session_id,
            path: d.path,
            project: d.project,
            title,
            text,
            state: lv.verdict,
            source,
            subagent: d.subagent,
            versions: d.versions,
            machine: None,
        });
    }
    out
}
