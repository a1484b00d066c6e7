//! An ACP session's waiting requests, from the side of the process hosting the session: filed in
//! the gate's own store (`<data>/gate/requests/<id>.json`, kind `plan` or `permission`, the
//! agent's words and options in its `acp`), so the window's queue, `plandeck pending`, `plandeck
//! --host` and the phone list and decide them like every other request, through the gate's claim
//! ([`crate::gate::decide`]). The decision comes back here (`decisions/<id>.json`, the option
//! chosen on the request); the host answers the agent and closes the request with how it ended. A
//! request whose host is gone is closed "no outcome" (`agentGone`), never approved.

use std::time::Duration;

use super::gate::{Outcome, Waiting};
use crate::config::Roots;
use crate::gate::hook_wait::DecisionsWatch;
use crate::gate::store;
use crate::gate::{AcpAsk, GateDecision, GateError, GateRequest, GateStatus};

/// A decision the host reads for a request it filed.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub approve: bool,
    /// The agent's option chosen (checked by the decider to be one of that request's).
    pub option_id: Option<String>,
    /// A rejection's feedback, or an approval's edited plan ([`edited_prompt`]): the next prompt.
    pub feedback: Option<String>,
}

/// The next prompt of a plan approved with the person's edit. ACP's answer to a permission
/// carries only the option chosen (claude-agent-acp 0.23 answers Claude Code's ExitPlanMode
/// with its own `updatedInput`, the agent's plan as it was), so the edit follows as a prompt.
pub fn edited_prompt(edited: &str) -> String {
    format!(
        "Your plan was approved with the reviewer's edits. Follow this edited plan, not your \
         own:\n\n{edited}"
    )
}

/// Files `request` of the session of `agent` (its catalog name) in `cwd`, hosted by this
/// process; `agent_process`: the ACP agent's pid and start time.
pub fn file(
    roots: &Roots,
    agent: &str,
    cwd: &str,
    request: &Waiting,
    agent_process: (u32, Option<u64>),
) -> Result<GateRequest, GateError> {
    let pid = std::process::id();
    let seed = format!(
        "{agent}\n{}\n{}\n{pid}\n{}",
        request.session_id,
        request.tool_call_id,
        crate::timestamp::now().unix_timestamp_nanos()
    );
    let id = format!("acp-{}", &crate::durable::sha256_hex(seed.as_bytes())[..16]);
    let mut req = GateRequest::filed(
        id,
        crate::agents::Agent::Other,
        request.session_id.clone(),
        cwd.to_owned(),
    );
    req.kind = request.kind;
    req.plan = request.plan.clone().unwrap_or_default();
    req.tool_use_id = Some(request.tool_call_id.clone());
    req.hook_pid = pid;
    req.hook_start_time = crate::process::start_time(pid);
    req.agent_pid = Some(agent_process.0);
    req.agent_start_time = agent_process.1;
    req.acp = Some(AcpAsk {
        agent_name: agent.to_owned(),
        tool_call_id: request.tool_call_id.clone(),
        title: request.title.clone(),
        tool_kind: request.tool_kind.clone(),
        command: request.command.clone(),
        path: request.path.clone(),
        diff: request.diff.clone(),
        options: request.options.clone(),
        chosen: None,
    });
    store::file_new_request(roots, &req)?;
    Ok(req)
}

/// How often the host looks again while it waits for a decision: a decision wakes it at once (the
/// decisions folder watched, as a hook's wait is); the look checks that the agent still runs and
/// no Stop or Interrupt came. Where the folder cannot be watched, decisions are polled this often.
const LOOK_EVERY: Duration = Duration::from_millis(100);
const LOOK_EVERY_UNWATCHED: Duration = Duration::from_millis(50);

/// The decision on `id` once a decider handed it over: woken the moment its file lands (inotify
/// on the decisions folder, [`crate::gate::hook_wait::DecisionsWatch`]; polled where that cannot be
/// watched); `None` when `give_up` says so first (asked at every look).
pub fn wait_decision(roots: &Roots, id: &str, give_up: impl FnMut() -> bool) -> Option<Decision> {
    let watch = DecisionsWatch::new(roots);
    let tick = if watch.watching() {
        LOOK_EVERY
    } else {
        LOOK_EVERY_UNWATCHED
    };
    wait_decision_with(roots, id, give_up, &watch, tick)
}

fn wait_decision_with(
    roots: &Roots,
    id: &str,
    mut give_up: impl FnMut() -> bool,
    watch: &DecisionsWatch,
    tick: Duration,
) -> Option<Decision> {
    loop {
        if let Some(d) = store::read_decision(roots, id) {
            let chosen = store::load_open(roots, id)
                .ok()
                .and_then(|r| r.acp)
                .and_then(|a| a.chosen);
            return Some(match d {
                GateDecision::Approve { edited, .. } => Decision {
                    approve: true,
                    option_id: chosen,
                    feedback: edited
                        .filter(|e| !e.trim().is_empty())
                        .map(|e| edited_prompt(&e)),
                },
                GateDecision::Reject { feedback } => Decision {
                    approve: false,
                    option_id: chosen,
                    feedback: Some(feedback).filter(|f| !f.trim().is_empty()),
                },
            });
        }
        if give_up() {
            return None;
        }
        watch.sleep(tick);
    }
}

fn status(outcome: &Outcome) -> GateStatus {
    match outcome {
        Outcome::Approved { .. } => GateStatus::Approved,
        Outcome::Rejected { .. } => GateStatus::Rejected,
        Outcome::NoOutcome => GateStatus::AgentGone,
    }
}

/// Closes `id` with how the agent took it. A request closed already whose decision the agent
/// never acted on (it ended first) is rewritten as no outcome.
pub fn close(roots: &Roots, id: &str, outcome: &Outcome) {
    match store::load_open(roots, id) {
        Ok(req) => {
            if let Err(e) = store::close(roots, &req, status(outcome)) {
                tracing::warn!("cannot close ACP request {id}: {e}");
            }
        }
        Err(GateError::AlreadyDecided { .. } | GateError::Closed { .. })
            if *outcome == Outcome::NoOutcome =>
        {
            if let Ok(mut done) = crate::gate::request(roots, id) {
                done.status = GateStatus::AgentGone;
                let path = store::done_dir(roots).join(format!("{id}.json"));
                if let Err(e) = store::write_json(&path, &done) {
                    tracing::warn!("cannot record that request {id} had no outcome: {e}");
                }
            }
        }
        Err(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::acp::{PermissionOption, RequestKind};
    use crate::gate::{ApproveMode, DeliveryOptions};

    fn waiting(kind: RequestKind, options: &[(&str, &str)]) -> Waiting {
        Waiting {
            rpc_id: serde_json::json!(0),
            session_id: "s1".into(),
            kind,
            tool_call_id: "c1".into(),
            title: "Ready to code?".into(),
            tool_kind: Some("switch_mode".into()),
            plan: Some("# P\n".into()),
            plan_hash: Some(crate::review::store::hash(b"# P\n")),
            command: None,
            path: None,
            diff: None,
            options: options
                .iter()
                .map(|(id, kind)| PermissionOption {
                    option_id: (*id).into(),
                    name: (*id).into(),
                    kind: (*kind).into(),
                })
                .collect(),
        }
    }

    fn me() -> (u32, Option<u64>) {
        let pid = std::process::id();
        (pid, crate::process::start_time(pid))
    }

    fn approve() -> GateDecision {
        GateDecision::Approve {
            mode: ApproveMode::Auto,
            edited: None,
            started_from: None,
        }
    }

    fn quick(option: Option<&str>, seen: Option<String>) -> DeliveryOptions {
        DeliveryOptions {
            hook_timeout: Duration::from_millis(50),
            option: option.map(str::to_owned),
            seen_hash: seen,
            by: "test".into(),
            ..DeliveryOptions::default()
        }
    }

    /// One store: an ACP request is listed by the gate's `pending` with its kind, decided through
    /// the gate's claim only with the agent's own options and the plan's hash, once.
    #[test]
    fn an_acp_request_waits_in_the_gates_store_and_is_decided_once_with_its_own_options() {
        let home = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(home.path());
        let f = file(
            &roots,
            "claude-acp",
            "/r",
            &waiting(
                RequestKind::Plan,
                &[("ok", "allow_once"), ("always", "allow_always")],
            ),
            me(),
        )
        .unwrap();
        let listed = crate::gate::pending(&roots);
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].kind, RequestKind::Plan);
        assert_eq!(
            listed[0].plan_hash.as_deref(),
            Some(crate::review::store::hash(b"# P\n").as_str())
        );
        assert_eq!(listed[0].acp.as_ref().unwrap().agent_name, "claude-acp");
        let decide =
            |d: GateDecision, o: DeliveryOptions| crate::gate::decide_with(&roots, &f.id, d, &o);
        assert!(matches!(
            decide(approve(), quick(Some("bypass"), None)),
            Err(GateError::BadInput { .. })
        ));
        assert!(
            matches!(
                decide(
                    GateDecision::Reject {
                        feedback: "no".into()
                    },
                    quick(None, None)
                ),
                Err(GateError::BadInput { .. })
            ),
            "no reject option: refused"
        );
        assert!(matches!(
            decide(approve(), quick(None, Some("beef".into()))),
            Err(GateError::PlanChangedSinceRead { .. })
        ));
        let out = decide(approve(), quick(Some("ok"), listed[0].plan_hash.clone())).unwrap();
        // Nobody hosts it in this test: handed over, pending.
        assert_eq!(out.delivery, crate::gate::Delivery::Pending);
        assert!(crate::gate::pending(&roots).len() <= 1);
        assert!(matches!(
            decide(approve(), quick(None, None)),
            Err(GateError::AlreadyDecided { .. } | GateError::AlreadyDeciding { .. })
        ));
        let d = wait_decision(&roots, &f.id, || true).unwrap();
        assert_eq!((d.approve, d.option_id.as_deref()), (true, Some("ok")));
        close(
            &roots,
            &f.id,
            &Outcome::Approved {
                option_id: "ok".into(),
            },
        );
        let done = crate::gate::request(&roots, &f.id).unwrap();
        assert_eq!(done.status, GateStatus::Approved);
        assert!(done.decided_by.is_some_and(|b| b.contains("test")));
        // One log line, naming the request.
        let lines = crate::review::log::read_raw(&roots.data).unwrap();
        assert_eq!(
            lines
                .iter()
                .filter(|l| l.request_id.as_deref() == Some(f.id.as_str()))
                .count(),
            1
        );
        assert!(matches!(
            decide(approve(), quick(None, None)),
            Err(GateError::AlreadyDecided { .. } | GateError::Closed { .. })
        ));
    }

    /// A decision wakes the host at once (the decisions folder watched), not at its next look:
    /// with looks [`LATE`] apart, the decision handed over after the first look is read before
    /// the second is due. Where the folder cannot be watched, the looks find it.
    #[test]
    fn a_decision_wakes_the_waiting_host_at_once_and_is_polled_where_unwatched() {
        const LATE: Duration = Duration::from_secs(20);
        let home = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(home.path());
        for watched in [true, false] {
            let f = file(
                &roots,
                "claude-acp",
                "/r",
                &waiting(RequestKind::Plan, &[("ok", "allow_once")]),
                me(),
            )
            .unwrap();
            let (looked, first_look) = std::sync::mpsc::channel::<()>();
            let decider = {
                let (roots, id) = (roots.clone(), f.id.clone());
                std::thread::spawn(move || {
                    first_look.recv().unwrap();
                    let out =
                        crate::gate::decide_with(&roots, &id, approve(), &quick(Some("ok"), None))
                            .unwrap();
                    assert_eq!(out.delivery, crate::gate::Delivery::Pending);
                })
            };
            let first_look = std::cell::Cell::new(None::<std::time::Instant>);
            let give_up = || {
                if first_look.get().is_none() {
                    first_look.set(Some(std::time::Instant::now()));
                }
                let _ = looked.send(());
                false
            };
            let (watch, tick) = if watched {
                (DecisionsWatch::new(&roots), LATE)
            } else {
                (DecisionsWatch::unwatched(), Duration::from_millis(5))
            };
            assert_eq!(watch.watching(), watched);
            let d = wait_decision_with(&roots, &f.id, give_up, &watch, tick).unwrap();
            if watched {
                // Read before the next look was due: the decision woke the host.
                assert!(first_look.get().unwrap().elapsed() < LATE);
            }
            assert_eq!((d.approve, d.option_id.as_deref()), (true, Some("ok")));
            decider.join().unwrap();
            close(
                &roots,
                &f.id,
                &Outcome::Approved {
                    option_id: "ok".into(),
                },
            );
        }
    }

    /// The decider, having handed its decision over, waits for the host to answer the agent and
    /// close the request: woken by the close (the closed requests' folder watched), not by its
    /// next look. With looks [`LATE`] apart, the close that comes after the first look is read
    /// before the second is due.
    #[test]
    fn the_decider_is_woken_by_the_hosts_close_not_by_its_next_look() {
        const LATE: Duration = Duration::from_secs(20);
        let home = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(home.path());
        let f = file(
            &roots,
            "claude-acp",
            "/r",
            &waiting(RequestKind::Plan, &[("ok", "allow_once")]),
            me(),
        )
        .unwrap();
        let watch = DecisionsWatch::closed(&roots);
        assert!(watch.watching(), "the closed requests' folder is watched");
        let (looked, first_look) = std::sync::mpsc::channel::<()>();
        let host = {
            let (roots, id) = (roots.clone(), f.id.clone());
            std::thread::spawn(move || {
                first_look.recv().unwrap();
                close(
                    &roots,
                    &id,
                    &Outcome::Approved {
                        option_id: "ok".into(),
                    },
                );
            })
        };
        let done = store::done_dir(&roots).join(format!("{}.json", f.id));
        let first = std::cell::Cell::new(None::<std::time::Instant>);
        let closed = watch
            .until(2 * LATE, LATE, || {
                if first.get().is_none() {
                    first.set(Some(std::time::Instant::now()));
                    let _ = looked.send(());
                }
                store::read_request(&done).ok().flatten()
            })
            .expect("the closed request");
        // Read before the next look was due: the close woke the decider.
        assert!(first.get().unwrap().elapsed() < LATE);
        assert_eq!(closed.status, GateStatus::Approved);
        host.join().unwrap();
    }

    /// A decision the host takes: the decider hears how the agent took it (delivered, with the
    /// option), however long the wait it is allowed.
    #[test]
    fn a_decision_the_host_answers_is_delivered() {
        let home = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(home.path());
        let f = file(
            &roots,
            "claude-acp",
            "/r",
            &waiting(
                RequestKind::Plan,
                &[("ok", "allow_once"), ("no", "reject_once")],
            ),
            me(),
        )
        .unwrap();
        let host = {
            let (roots, id) = (roots.clone(), f.id.clone());
            std::thread::spawn(move || {
                let d = wait_decision(&roots, &id, || false).unwrap();
                close(
                    &roots,
                    &id,
                    &Outcome::Approved {
                        option_id: d.option_id.unwrap(),
                    },
                );
            })
        };
        let mut opts = quick(Some("ok"), None);
        opts.hook_timeout = Duration::from_secs(600);
        let out = crate::gate::decide_with(&roots, &f.id, approve(), &opts).unwrap();
        assert_eq!(out.delivery, crate::gate::Delivery::Delivered, "{out:?}");
        assert_eq!(out.status, GateStatus::Approved);
        assert!(out.message.contains("\"ok\""), "{}", out.message);
        host.join().unwrap();
    }

    /// An approval that names no option (the phone's Approve and the queue's Approve or Edit send
    /// `auto` and none) answers with the agent's "allow once", never its "allow always", which
    /// only the person's own pick of it sends; an agent offering only "always" is refused, the
    /// request still waiting.
    #[test]
    fn an_approval_naming_no_option_allows_once_never_always() {
        let home = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(home.path());
        let options = [
            ("acceptEdits", "allow_always"),
            ("default", "allow_once"),
            ("plan", "reject_once"),
        ];
        for mode in [ApproveMode::Auto, ApproveMode::Manual] {
            let f = file(
                &roots,
                "claude-acp",
                "/r",
                &waiting(RequestKind::Plan, &options),
                me(),
            )
            .unwrap();
            let approve = GateDecision::Approve {
                mode,
                edited: None,
                started_from: None,
            };
            crate::gate::decide_with(&roots, &f.id, approve, &quick(None, None)).unwrap();
            let d = wait_decision(&roots, &f.id, || true).unwrap();
            assert_eq!(d.option_id.as_deref(), Some("default"), "{mode:?}");
        }
        // Picked by the person: sent.
        let f = file(
            &roots,
            "claude-acp",
            "/r",
            &waiting(RequestKind::Plan, &options),
            me(),
        )
        .unwrap();
        crate::gate::decide_with(&roots, &f.id, approve(), &quick(Some("acceptEdits"), None))
            .unwrap();
        let d = wait_decision(&roots, &f.id, || true).unwrap();
        assert_eq!(d.option_id.as_deref(), Some("acceptEdits"));
        // Only "always" offered: an approval naming none is refused, nothing decided.
        let f = file(
            &roots,
            "claude-acp",
            "/r",
            &waiting(
                RequestKind::Permission,
                &[("always", "allow_always"), ("no", "reject_once")],
            ),
            me(),
        )
        .unwrap();
        let e = crate::gate::decide_with(&roots, &f.id, approve(), &quick(None, None)).unwrap_err();
        assert!(
            matches!(&e, GateError::BadInput { message } if message.contains("no way to allow this once")),
            "{e:?}"
        );
        assert!(crate::gate::pending(&roots).iter().any(|r| r.id == f.id));
        assert!(store::read_decision(&roots, &f.id).is_none());
    }

    #[test]
    fn a_request_whose_host_is_gone_closes_with_no_outcome() {
        let home = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(home.path());
        let mut f = file(
            &roots,
            "claude-acp",
            "/r",
            &waiting(RequestKind::Permission, &[("a", "allow_once")]),
            me(),
        )
        .unwrap();
        f.hook_start_time = Some(1); // not this process's start: another process, long gone
        store::file_request(&roots, &f).unwrap();
        assert!(crate::gate::pending(&roots).is_empty());
        assert_eq!(crate::gate::close_ended(&roots), [f.id.clone()]);
        assert_eq!(
            crate::gate::request(&roots, &f.id).unwrap().status,
            GateStatus::AgentGone
        );
        assert!(crate::gate::decide_with(&roots, &f.id, approve(), &quick(None, None)).is_err());
    }

    #[test]
    fn a_permission_has_no_plan_hash_and_ids_never_reach_a_path() {
        let home = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(home.path());
        let mut w = waiting(RequestKind::Permission, &[]);
        w.plan = None;
        file(&roots, "claude-acp", "/r", &w, me()).unwrap();
        let listed = crate::gate::pending(&roots);
        assert_eq!(listed[0].kind, RequestKind::Permission);
        assert_eq!(listed[0].plan_hash, None);
        assert!(wait_decision(&roots, "../../etc/passwd", || true).is_none());
    }
}
