//! The other machines on the phone page: the waiting plans of every machine the person added
//! (`plandeck hosts`), reached as the window reaches them ([`crate::machines::Machines`], the
//! person's own ssh). While the page is served its server keeps them connected ([`attach`]);
//! each card names its machine, a plan of theirs is rendered here by this machine's renderer and
//! sanitizer (the remote's HTML is never used), and a decision on one goes through the window's
//! own remote call ([`crate::deck::Deck::decide_request`]: decided there, by that machine's
//! claim, exactly once). A machine that is not connected is said so on the page, and its cards
//! (as it last gave them) are "unknown", never decided: a call to it is refused, never queued.
//!
//! It stands above the deck and the machines, so the phone (below them) reaches it through
//! [`crate::phone::OtherMachines`], which the server hosting the page hands it ([`reach`]).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use crate::config::Roots;
use crate::elsewhere::{self, Elsewhere, MachineState};
use crate::gate::{GateRequest, RequestKind};
use crate::phone::queue::{card, comments_json, diff_json, shown_text, unknown};
use crate::phone::{Device, PhoneError, SignedDecision};
use crate::review::PlanDiff;
use crate::visible::shown;

/// Hands the phone its way to the other machines (the page's server, before it serves).
pub fn reach() {
    crate::phone::reach_other_machines(&Reach);
}

struct Reach;

impl crate::phone::FollowSettings for Attached {
    fn follow(&self, roots: &Roots) {
        follow_settings(roots, self);
    }
}

impl crate::phone::OtherMachines for Reach {
    fn attach_settings(&self, roots: &Roots) -> Box<dyn crate::phone::FollowSettings> {
        Box::new(attach_settings(roots))
    }
    fn owns(&self, id: &str) -> bool {
        elsewhere::split(id).is_some()
    }
    fn cards(&self, roots: &Roots) -> (Vec<Value>, Vec<Value>) {
        elsewhere_cards(roots)
    }
    fn plan(&self, roots: &Roots, id: &str) -> Result<Value, PhoneError> {
        plan_there(roots, id)
    }
    fn waiting(&self, roots: &Roots) -> crate::phone::push::Waiting {
        waiting_there(roots)
    }
    fn decide(
        &self,
        roots: &Roots,
        d: &SignedDecision,
        device: &Device,
    ) -> Result<crate::gate::DecisionOutcome, PhoneError> {
        decide_there(roots, d, device)
    }
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

/// The plans waiting now on each other machine that answered now (a machine not connected says
/// only what it last said: left out, nothing is pushed from it).
pub fn waiting_there(roots: &Roots) -> crate::phone::push::Waiting {
    let Some(elsewhere) = attached(roots) else {
        return Vec::new();
    };
    elsewhere
        .gather(crate::wire::calls::list_pending::NAME)
        .into_iter()
        .filter(|g| g.current)
        .filter_map(|g| {
            let theirs = g
                .answer
                .and_then(|v| elsewhere::answer::<Vec<GateRequest>>(&g.machine, v))
                .ok()?;
            Some((g.machine, theirs))
        })
        .collect()
}

/// Why a call to another machine did not go (nothing decided there).
fn there_error(e: crate::ipc::IpcError) -> crate::phone::PhoneError {
    crate::phone::PhoneError::Elsewhere(e)
}

/// The request `id` of another machine (`@box/…`), as that machine lists it now.
fn request_there(
    deck: &crate::deck::Deck,
    id: &str,
) -> Result<GateRequest, crate::phone::PhoneError> {
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
pub fn plan_there(roots: &Roots, id: &str) -> Result<Value, crate::phone::PhoneError> {
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
    d: &crate::phone::SignedDecision,
    device: &crate::phone::Device,
) -> Result<crate::gate::DecisionOutcome, crate::phone::PhoneError> {
    use crate::gate::{ApproveMode, GateDecision};
    let Some(elsewhere) = attached(roots) else {
        return Err(crate::gate::GateError::NotFound {
            id: d.request_id.clone(),
        }
        .into());
    };
    let deck = deck(roots, elsewhere);
    let decision = match d.decision {
        crate::phone::Verdict::Reject => GateDecision::Reject {
            feedback: d.feedback.clone(),
        },
        verdict => {
            let r = request_there(&deck, &d.request_id)?;
            if r.kind != RequestKind::Plan {
                return Err(crate::phone::PhoneError::BadInput {
                    message: "the phone shows no permission request's command or file: approve \
                              it in the window or with `plandeck approve`, where it is shown"
                        .to_owned(),
                });
            }
            let edited = if verdict == crate::phone::Verdict::ApproveWithNote {
                if d.feedback.trim().is_empty() {
                    return Err(crate::phone::PhoneError::BadInput {
                        message: "an approval with a note needs the note".to_owned(),
                    });
                }
                let note = crate::terminal::clean_text(&d.feedback, crate::phone::MAX_FEEDBACK);
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
    // Decided there for the device: that machine's log names it, relayed by this one.
    deck.decide_request_for(
        &d.request_id,
        decision,
        Some(d.plan_hash.clone()),
        &crate::phone::decider(device),
    )
    .map_err(there_error)
}
