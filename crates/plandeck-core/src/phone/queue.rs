//! What the page shows of a waiting plan besides its text: its diff against the last approved
//! version ([`crate::review::diff::against_approved`], the window's compare) and the plan's
//! comments with their anchors ([`crate::comments::list`], placed in the text shown), as the
//! window's plan view shows them.
//!
//! And the waiting plans of every other machine the person added (`plandeck hosts`), reached as
//! the window reaches them ([`crate::machines::Machines`], the person's own ssh): while the page
//! is served its server keeps them connected ([`attach`]); each card names its machine, a plan of
//! theirs is rendered here by this machine's renderer and sanitizer (the remote's HTML is never
//! used), and a decision on one goes through the window's own remote call
//! ([`crate::deck::Deck::decide_request`]: decided there, by that machine's claim, exactly once).
//! A machine that is not connected is said so on the page, and its cards (as it last gave them)
//! are "unknown", never decided: a call to it is refused, never queued.
//!
//! Everything goes to the page as data, never as markup: the diff as lines of text with their
//! kind, the comments as their quote, text, line and status; the page puts each in the DOM as
//! text (`textContent`), so nothing of them is ever parsed as HTML. Characters a person cannot see
//! are marked (`⟨U+202E⟩`, [`crate::visible::shown`]) as the window marks them.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use crate::elsewhere::{self, Elsewhere, MachineState};
use crate::gate::RequestKind;

use crate::comments::{CommentStatus, PlacedComment};
use crate::config::Roots;
use crate::gate::GateRequest;
use crate::review::{LineKind, PlanDiff};
use crate::visible::shown;

/// At most this many lines of a diff go to the page; the rest are counted ("n more lines").
pub const MAX_DIFF_LINES: usize = 2000;
/// At most this many comments go to the page (a plan keeps at most 1000).
pub const MAX_COMMENTS: usize = 1000;

/// The text of a waiting request the person is shown: the plan file as it is now when it holds
/// other text than the agent submitted (what the hash binds), else the submitted plan.
pub fn shown_text(req: &GateRequest) -> &str {
    req.plan_read.as_deref().unwrap_or(&req.plan)
}

/// A diff as the page shows it: where from, the counts, and its hunks as lines of text.
pub fn diff_json(d: &PlanDiff) -> Value {
    let mut left = MAX_DIFF_LINES;
    let mut cut = 0usize;
    let hunks: Vec<Value> = d
        .hunks
        .iter()
        .filter_map(|h| {
            if left == 0 {
                cut += h.lines.len();
                return None;
            }
            let take = h.lines.len().min(left);
            left -= take;
            cut += h.lines.len() - take;
            let lines: Vec<Value> = h.lines[..take]
                .iter()
                .map(|l| {
                    let kind = match l.kind {
                        LineKind::Equal => "equal",
                        LineKind::Insert => "insert",
                        LineKind::Delete => "delete",
                    };
                    json!({"kind": kind, "text": shown(&l.text())})
                })
                .collect();
            Some(json!({"header": h.header(), "lines": lines}))
        })
        .collect();
    json!({
        "from": shown(&d.from_label),
        "fromHash": d.from_hash,
        "approvedBefore": d.from_hash.is_some(),
        "added": d.stats.added,
        "removed": d.stats.removed,
        "hunks": hunks,
        "linesLeftOut": cut,
    })
}

/// Comments as the page lists them: each with its anchor (the quoted text and its line in the
/// text shown), its status there (open, outdated, resolved), who wrote it and when.
pub fn comments_json(comments: &[PlacedComment]) -> Value {
    let listed: Vec<Value> = comments
        .iter()
        .take(MAX_COMMENTS)
        .map(|c| {
            let status = match c.status {
                CommentStatus::Open => "open",
                CommentStatus::Outdated => "outdated",
                CommentStatus::Resolved => "resolved",
            };
            json!({
                "id": c.comment.id,
                "quote": shown(&c.comment.anchor.quote),
                "text": shown(&c.comment.text),
                "line": c.line,
                "status": status,
                "author": shown(&c.comment.author),
                "createdAt": c.comment.created_at,
            })
        })
        .collect();
    Value::Array(listed)
}

/// A part of the review the page could not be given, in words (the rest is still shown).
fn unknown(what: &str, e: impl std::fmt::Display) -> Value {
    json!({"unknown": format!("{what} could not be read: {e}")})
}

/// The diff and comments of a request waiting on this machine, for its text as shown.
pub fn review_here(roots: &Roots, req: &GateRequest) -> (Value, Value) {
    let text = shown_text(req);
    let path = req.plan_path.as_deref().map(Path::new);
    let diff = match crate::review::diff::against_approved(roots, path, text) {
        Ok(d) => diff_json(&d),
        Err(e) => unknown("the diff", e),
    };
    let comments = match path {
        Some(p) => match crate::comments::list(&roots.data, p, text) {
            Ok(c) => comments_json(&c),
            Err(e) => unknown("the comments", e),
        },
        None => json!([]),
    };
    (diff, comments)
}

/// The other machines of each store whose page is served now (by its data folder).
static ATTACHED: Mutex<Vec<(PathBuf, Arc<dyn Elsewhere>)>> = Mutex::new(Vec::new());

/// The page of `roots` shows the machines of `elsewhere` for as long as this is held.
pub struct Attached {
    data: PathBuf,
    elsewhere: Arc<dyn Elsewhere>,
}

impl Attached {
    pub fn elsewhere(&self) -> &Arc<dyn Elsewhere> {
        &self.elsewhere
    }
}

impl Drop for Attached {
    fn drop(&mut self) {
        let mut all = crate::sync::lock(&ATTACHED);
        if let Some(i) = all
            .iter()
            .position(|(d, e)| *d == self.data && Arc::ptr_eq(e, &self.elsewhere))
        {
            all.remove(i);
        }
    }
}

/// Shows the machines of `elsewhere` on the page of `roots` until the guard is dropped (the
/// page's server, for as long as it serves; a test, with machines of its own).
pub fn attach(roots: &Roots, elsewhere: Arc<dyn Elsewhere>) -> Attached {
    crate::sync::lock(&ATTACHED).push((roots.data.clone(), elsewhere.clone()));
    Attached {
        data: roots.data.clone(),
        elsewhere,
    }
}

/// The machines of the settings of `roots`, connected with this process's ssh, shown on its
/// page until the guard is dropped; [`follow_settings`] keeps them as the settings say.
pub fn attach_settings(roots: &Roots) -> Attached {
    let machines = crate::machines::Machines::start(
        settings_hosts(roots),
        crate::config::Env::from_process(),
        |_| {},
    );
    attach(roots, Arc::new(machines))
}

fn settings_hosts(roots: &Roots) -> Vec<crate::config::Host> {
    crate::config::hosts(&roots.settings_path()).unwrap_or_else(|e| {
        tracing::warn!("the phone page shows no other machine: {e}");
        Vec::new()
    })
}

/// The machines added or removed in the settings since: connected or dropped (settings that
/// cannot be read now change nothing: said once, when the page started).
pub fn follow_settings(roots: &Roots, attached: &Attached) {
    if let Ok(hosts) = crate::config::hosts(&roots.settings_path()) {
        attached.elsewhere.hosts_changed(hosts);
    }
}

/// The other machines shown on the page of `roots`, while they are.
fn attached(roots: &Roots) -> Option<Arc<dyn Elsewhere>> {
    crate::sync::lock(&ATTACHED)
        .iter()
        .rev()
        .find(|(d, _)| *d == roots.data)
        .map(|(_, e)| e.clone())
}

/// A deck over `roots` reaching the other machines as the window's does.
fn deck(roots: &Roots, elsewhere: Arc<dyn Elsewhere>) -> crate::deck::Deck {
    crate::deck::Deck::starting(roots.clone(), false, Arc::default(), Arc::new(|_| {}))
        .with_elsewhere(elsewhere)
}

/// A waiting request as a card of the page: machine, agent, project, since, hash; `known`:
/// false when its machine is not connected (the card is what it last said).
pub fn card(r: &GateRequest, machine: &str, known: bool) -> Value {
    let project = Path::new(&r.cwd)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| r.cwd.clone());
    json!({
        "id": r.id,
        "agent": r.agent.display_name(),
        "machine": shown(r.machine.as_deref().unwrap_or(machine)),
        "project": shown(&project),
        "waitingSince": crate::timestamp::format(r.waiting_since),
        "planHash": r.plan_hash,
        "known": known,
    })
}

/// The plans waiting on every other machine, as cards naming it, and how each machine is: its
/// name, `connected` / `connecting` / `unreachable`, since when, and why not connected.
pub fn elsewhere_cards(roots: &Roots) -> (Vec<Value>, Vec<Value>) {
    let Some(elsewhere) = attached(roots) else {
        return (Vec::new(), Vec::new());
    };
    let mut cards = Vec::new();
    let mut problems: Vec<(String, String)> = Vec::new();
    for g in elsewhere.gather(crate::wire::calls::list_pending::NAME) {
        match g
            .answer
            .and_then(|v| elsewhere::answer::<Vec<GateRequest>>(&g.machine, v))
        {
            Ok(theirs) => cards.extend(
                theirs
                    .iter()
                    .filter(|r| r.kind == RequestKind::Plan)
                    .map(|r| card(r, &g.machine, g.current)),
            ),
            Err(e) => problems.push((g.machine.clone(), e.message)),
        }
    }
    let machines = elsewhere
        .statuses()
        .into_iter()
        .map(|s| {
            let state = match s.state {
                MachineState::Connected => "connected",
                MachineState::Connecting => "connecting",
                MachineState::Unreachable => "unreachable",
            };
            let problem = s
                .problem
                .map(|p| p.message)
                .or_else(|| {
                    problems
                        .iter()
                        .find(|(m, _)| *m == s.name)
                        .map(|(_, p)| p.clone())
                })
                .map(|p| shown(&p).into_owned());
            json!({
                "name": shown(&s.name),
                "state": state,
                "since": s.since,
                "lastSeen": s.last_seen,
                "problem": problem,
            })
        })
        .collect();
    (cards, machines)
}

/// Why a call to another machine did not go (nothing decided there).
fn there_error(e: crate::ipc::IpcError) -> super::PhoneError {
    super::PhoneError::Elsewhere(e)
}

/// The request `id` of another machine (`@box/…`), as that machine lists it now.
fn request_there(deck: &crate::deck::Deck, id: &str) -> Result<GateRequest, super::PhoneError> {
    let listed = deck.list_pending().map_err(there_error)?;
    match listed.into_iter().find(|r| r.id == id) {
        Some(r) => Ok(r),
        None => {
            let (machine, _) = elsewhere::split(id).unwrap_or((id, ""));
            // Not listed: decided or gone, or its machine did not answer now.
            let unreachable = deck
                .list_machines()
                .ok()
                .and_then(|all| all.into_iter().find(|s| s.name == machine))
                .filter(|s| s.state != MachineState::Connected);
            Err(match unreachable {
                Some(s) => there_error(crate::ipc::IpcError::new(
                    crate::ipc::ErrorKind::Unreachable,
                    format!(
                        "{machine} is not connected (since {}): whether request {id} still waits is unknown",
                        s.since
                    ),
                )),
                None => crate::gate::GateError::NotFound { id: id.to_owned() }.into(),
            })
        }
    }
}

/// One waiting plan of another machine (`@box/…`), as the page shows it: rendered here, with
/// its diff against the version approved there and its comments there.
pub fn plan_there(roots: &Roots, id: &str) -> Result<Value, super::PhoneError> {
    let Some(elsewhere) = attached(roots) else {
        return Err(crate::gate::GateError::NotFound { id: id.to_owned() }.into());
    };
    let deck = deck(roots, elsewhere);
    let r = request_there(&deck, id)?;
    if r.kind != RequestKind::Plan {
        return Err(crate::gate::GateError::NotFound { id: id.to_owned() }.into());
    }
    let machine = r.machine.clone().unwrap_or_default();
    // The plan's id there, from its path there (ids of a machine are its own, namespaced here).
    let plan_id = r
        .plan_path
        .as_deref()
        .map(|p| elsewhere::on_machine(&machine, &crate::ids::plan_id(Path::new(p))));
    let diff = match &plan_id {
        Some(p) => match deck.plan_diff(p, None, None) {
            Ok(d) => diff_json(&d),
            Err(e) => unknown("the diff", e),
        },
        None => diff_json(&PlanDiff::between("", shown_text(&r))),
    };
    let comments = match &plan_id {
        Some(p) => match deck.list_comments(p) {
            Ok(c) => comments_json(&c),
            Err(e) => unknown("the comments", e),
        },
        None => json!([]),
    };
    Ok(json!({
        "id": r.id,
        "agent": r.agent.display_name(),
        "machine": shown(&machine),
        "cwd": shown(&r.cwd),
        "planHash": r.plan_hash,
        "html": crate::render::render(shown_text(&r)).html,
        "diff": diff,
        "comments": comments,
    }))
}

/// A checked decision of `device` on another machine's request (`@box/…`): sent there through
/// the window's remote call, bound to the plan hash the phone showed.
pub fn decide_there(
    roots: &Roots,
    d: &super::SignedDecision,
    device: &super::Device,
) -> Result<crate::gate::DecisionOutcome, super::PhoneError> {
    use crate::gate::{ApproveMode, GateDecision};
    let Some(elsewhere) = attached(roots) else {
        return Err(crate::gate::GateError::NotFound {
            id: d.request_id.clone(),
        }
        .into());
    };
    let deck = deck(roots, elsewhere);
    let decision = match d.decision {
        super::Verdict::Reject => GateDecision::Reject {
            feedback: d.feedback.clone(),
        },
        verdict => {
            let r = request_there(&deck, &d.request_id)?;
            if r.kind != RequestKind::Plan {
                return Err(super::PhoneError::BadInput {
                    message: "the phone shows no permission request's command or file: approve \
                              it in the window or with `plandeck approve`, where it is shown"
                        .to_owned(),
                });
            }
            let edited = if verdict == super::Verdict::ApproveWithNote {
                if d.feedback.trim().is_empty() {
                    return Err(super::PhoneError::BadInput {
                        message: "an approval with a note needs the note".to_owned(),
                    });
                }
                let note = crate::terminal::clean_text(&d.feedback, super::MAX_FEEDBACK);
                Some(format!(
                    "{}\n\n{}\n\n{}\n",
                    shown_text(&r).trim_end(),
                    crate::comments::feedback::NOTES_HEADING,
                    note.trim()
                ))
            } else {
                None
            };
            GateDecision::Approve {
                mode: ApproveMode::Auto,
                edited,
                started_from: None,
            }
        }
    };
    deck.decide_request(
        &d.request_id,
        decision,
        None,
        Some(d.plan_hash.clone()),
        None,
        &super::decider(device),
    )
    .map_err(there_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diff_goes_as_lines_of_text_bounded_with_hidden_characters_marked() {
        let old = "# Plan\n\n1. One\n";
        let new = format!(
            "# Plan\n\n1. One\n2. <img src=x onerror=alert(1)> \u{202e}two\n{}",
            "x\n".repeat(MAX_DIFF_LINES + 10)
        );
        let d = PlanDiff::between(old, &new);
        let v = diff_json(&d);
        let lines: Vec<&Value> = v["hunks"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|h| h["lines"].as_array().unwrap())
            .collect();
        assert_eq!(lines.len(), MAX_DIFF_LINES);
        assert!(v["linesLeftOut"].as_u64().unwrap() > 0);
        let added = lines
            .iter()
            .find(|l| l["text"].as_str().unwrap().starts_with("2. "))
            .unwrap();
        assert_eq!(added["kind"], json!("insert"));
        // Text, as the plan wrote it (the page sets it as text), with the bidi override marked.
        assert_eq!(
            added["text"],
            json!("2. <img src=x onerror=alert(1)> ⟨U+202E⟩two")
        );
    }
}
