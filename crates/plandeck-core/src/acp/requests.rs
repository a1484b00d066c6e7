//! Where an ACP session's waiting requests meet the person: `<data>/acp/requests/<id>.json` (filed
//! by the process hosting the session), `decisions/<id>.json` (written by `plandeck approve|reject
//! <id>`: created once, so exactly one decision is taken), `done/<id>.json` (closed, with its
//! outcome). `plandeck pending` lists them beside the gate's requests, with `kind` `plan` or
//! `permission`. A request whose host is gone is closed "no outcome", never approved.
//!
//! (A store of its own until the gate's request store takes ACP requests: issue 36.)

use std::fs;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::gate::{Outcome, RequestKind, Waiting};
use crate::config::Roots;
use crate::durable;

/// A request file bigger than this is no request.
const MAX_FILE: u64 = 16 * 1024 * 1024;

/// A waiting request as filed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Filed {
    pub id: String,
    /// The ACP agent's name (`claude-acp`).
    pub agent: String,
    pub cwd: String,
    #[serde(flatten)]
    pub request: Waiting,
    /// RFC 3339.
    pub waiting_since: String,
    pub host_pid: u32,
    pub host_start_time: Option<u64>,
    /// `waiting`, or how it ended (`approved`, `rejected`, `noOutcome`).
    pub status: String,
    #[serde(default)]
    pub outcome: Option<Outcome>,
    #[serde(default)]
    pub decided_by: Option<String>,
}

/// A decision on a filed request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Decision {
    pub approve: bool,
    /// The agent's option chosen (approve: one of its allow options), or the narrowest.
    pub option_id: Option<String>,
    /// A rejection's feedback: the next prompt.
    pub feedback: Option<String>,
    pub decided_by: String,
}

#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    #[error("{0:?} is not a waiting ACP request")]
    NotFound(String),
    #[error("request {id} was decided already ({by})")]
    AlreadyDecided { id: String, by: String },
    #[error("the agent did not offer {0:?} as a way to allow this request")]
    NotAnAllowOption(String),
    #[error(
        "the agent offered no option that rejects this request: it can only be approved or left"
    )]
    NoRejectOption,
    #[error("the plan changed since you read it (hash {seen}, now {now})")]
    PlanChanged { seen: String, now: String },
    #[error("could not read or write the ACP request store: {0}")]
    Store(String),
}

fn dir(roots: &Roots, sub: &str) -> PathBuf {
    roots.data.join("acp").join(sub)
}

fn check_id(id: &str) -> Result<(), RequestError> {
    if id.is_empty() || id.len() > 64 || !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    {
        return Err(RequestError::NotFound(id.chars().take(80).collect()));
    }
    Ok(())
}

fn read(path: &std::path::Path) -> Option<Filed> {
    let meta = fs::metadata(path).ok()?;
    if meta.len() > MAX_FILE {
        return None;
    }
    serde_json::from_slice(&fs::read(path).ok()?).ok()
}

fn write(path: &std::path::Path, value: &impl Serialize) -> Result<(), RequestError> {
    let bytes = serde_json::to_vec_pretty(value).map_err(|e| RequestError::Store(e.to_string()))?;
    durable::write_private(path, &bytes).map_err(|e| RequestError::Store(e.to_string()))
}

/// Files `request` of the session of `agent` in `cwd`, hosted by this process.
pub fn file(
    roots: &Roots,
    agent: &str,
    cwd: &str,
    request: &Waiting,
) -> Result<Filed, RequestError> {
    let now = crate::timestamp::now();
    let seed = format!(
        "{agent}\n{}\n{}\n{}\n{}",
        request.session_id,
        request.tool_call_id,
        std::process::id(),
        now.unix_timestamp_nanos()
    );
    let id = format!("acp-{}", &crate::durable::sha256_hex(seed.as_bytes())[..16]);
    let pid = std::process::id();
    let filed = Filed {
        id: id.clone(),
        agent: agent.to_owned(),
        cwd: cwd.to_owned(),
        request: request.clone(),
        waiting_since: crate::timestamp::format(now),
        host_pid: pid,
        host_start_time: crate::process::start_time(pid),
        status: "waiting".into(),
        outcome: None,
        decided_by: None,
    };
    let _ = durable::create_private_dir(&dir(roots, "requests"));
    write(&dir(roots, "requests").join(format!("{id}.json")), &filed)?;
    Ok(filed)
}

/// The waiting request `id` (its host alive).
pub fn waiting(roots: &Roots, id: &str) -> Option<Filed> {
    check_id(id).ok()?;
    read(&dir(roots, "requests").join(format!("{id}.json")))
        .filter(|f| crate::process::is_running(f.host_pid, f.host_start_time))
}

/// Every waiting request, oldest first; those whose host is gone are closed "no outcome".
pub fn pending(roots: &Roots) -> Vec<Filed> {
    let Ok(entries) = fs::read_dir(dir(roots, "requests")) else {
        return Vec::new();
    };
    let mut out: Vec<Filed> = Vec::new();
    for e in entries.flatten() {
        // `<id>.json` only: a file being written (`.<id>.json.…-tmp-…`) is not filed yet.
        let name = e.file_name();
        let Some(id) = name.to_str().and_then(|n| n.strip_suffix(".json")) else {
            continue;
        };
        if check_id(id).is_err() {
            continue;
        }
        let Some(f) = read(&e.path()).filter(|f| f.id == id) else {
            continue;
        };
        if crate::process::is_running(f.host_pid, f.host_start_time) {
            // Decided: its host is answering it.
            if !dir(roots, "decisions")
                .join(format!("{}.json", f.id))
                .exists()
            {
                out.push(f);
            }
        } else {
            close(roots, &f.id, &Outcome::NoOutcome);
        }
    }
    out.sort_by(|a, b| a.waiting_since.cmp(&b.waiting_since).then(a.id.cmp(&b.id)));
    out
}

/// Takes a decision on `id`: checked against the agent's options (and the plan's hash when
/// given), then written once: a second decider is refused. The host answers the agent.
pub fn decide(
    roots: &Roots,
    id: &str,
    decision: &Decision,
    expect_hash: Option<&str>,
) -> Result<Filed, RequestError> {
    let filed = waiting(roots, id).ok_or_else(|| match closed(roots, id) {
        Some(done) => RequestError::AlreadyDecided {
            id: id.to_owned(),
            by: done.decided_by.unwrap_or_else(|| done.status.clone()),
        },
        None => RequestError::NotFound(id.to_owned()),
    })?;
    let options = &filed.request.options;
    if decision.approve {
        let allows = |o: &&super::PermissionOption| o.kind.starts_with("allow_");
        match &decision.option_id {
            Some(opt) if !options.iter().filter(allows).any(|o| &o.option_id == opt) => {
                return Err(RequestError::NotAnAllowOption(opt.clone()))
            }
            None if !options.iter().any(|o| allows(&o)) => {
                return Err(RequestError::NotAnAllowOption(String::new()))
            }
            _ => {}
        }
    } else if !options.iter().any(|o| o.kind.starts_with("reject_")) {
        return Err(RequestError::NoRejectOption);
    }
    if let (Some(seen), Some(now)) = (expect_hash, filed.request.plan_hash.as_deref()) {
        if seen != now {
            return Err(RequestError::PlanChanged {
                seen: seen.to_owned(),
                now: now.to_owned(),
            });
        }
    }
    let bytes = serde_json::to_vec(decision).map_err(|e| RequestError::Store(e.to_string()))?;
    let _ = durable::create_private_dir(&dir(roots, "decisions"));
    match durable::write_atomic_new(&dir(roots, "decisions").join(format!("{id}.json")), &bytes) {
        Ok(()) => Ok(filed),
        Err(e) if e.source.kind() == std::io::ErrorKind::AlreadyExists => {
            Err(RequestError::AlreadyDecided {
                id: id.to_owned(),
                by: "another decision came first".into(),
            })
        }
        Err(e) => Err(RequestError::Store(e.to_string())),
    }
}

/// The host's wait for the decision on `id` (polled; `None` when `give_up` says so).
pub fn wait_decision(
    roots: &Roots,
    id: &str,
    mut give_up: impl FnMut() -> bool,
) -> Option<Decision> {
    let path = dir(roots, "decisions").join(format!("{id}.json"));
    let start = Instant::now();
    loop {
        if let Ok(bytes) = fs::read(&path) {
            if let Ok(d) = serde_json::from_slice::<Decision>(&bytes) {
                return Some(d);
            }
        }
        if give_up() {
            return None;
        }
        let tick = if start.elapsed() < Duration::from_secs(5) {
            20
        } else {
            100
        };
        std::thread::sleep(Duration::from_millis(tick));
    }
}

/// Closes `id` with `outcome` (moved to `done/`); a closed request's outcome is rewritten (the
/// agent ended before acting on the decision: no outcome).
pub fn close(roots: &Roots, id: &str, outcome: &Outcome) {
    if check_id(id).is_err() {
        return;
    }
    let open = dir(roots, "requests").join(format!("{id}.json"));
    let done = dir(roots, "done").join(format!("{id}.json"));
    let Some(mut f) = read(&open).or_else(|| read(&done)) else {
        return;
    };
    f.status = match outcome {
        Outcome::Approved { .. } => "approved",
        Outcome::Rejected { .. } => "rejected",
        Outcome::NoOutcome => "noOutcome",
    }
    .into();
    f.outcome = Some(outcome.clone());
    if let Ok(bytes) = fs::read(dir(roots, "decisions").join(format!("{id}.json"))) {
        if let Ok(d) = serde_json::from_slice::<Decision>(&bytes) {
            f.decided_by = Some(d.decided_by);
        }
    }
    let _ = durable::create_private_dir(&dir(roots, "done"));
    if write(&done, &f).is_ok() {
        let _ = fs::remove_file(&open);
    }
}

/// A closed request.
pub fn closed(roots: &Roots, id: &str) -> Option<Filed> {
    check_id(id).ok()?;
    read(&dir(roots, "done").join(format!("{id}.json")))
}

/// Whether `kind` is a plan (for a listing's `kind`).
pub fn kind_name(kind: RequestKind) -> &'static str {
    match kind {
        RequestKind::Plan => "plan",
        RequestKind::Permission => "permission",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::acp::PermissionOption;

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

    fn decision(approve: bool, option: Option<&str>) -> Decision {
        Decision {
            approve,
            option_id: option.map(str::to_owned),
            feedback: None,
            decided_by: "test".into(),
        }
    }

    #[test]
    fn one_decision_only_and_only_with_the_agents_options() {
        let home = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(home.path());
        let f = file(
            &roots,
            "claude-acp",
            "/r",
            &waiting(RequestKind::Plan, &[("ok", "allow_once")]),
        )
        .unwrap();
        assert_eq!(pending(&roots).len(), 1);
        assert!(matches!(
            decide(&roots, &f.id, &decision(true, Some("bypass")), None),
            Err(RequestError::NotAnAllowOption(_))
        ));
        assert!(matches!(
            decide(&roots, &f.id, &decision(false, None), None),
            Err(RequestError::NoRejectOption)
        ));
        assert!(matches!(
            decide(&roots, &f.id, &decision(true, None), Some("beef")),
            Err(RequestError::PlanChanged { .. })
        ));
        decide(
            &roots,
            &f.id,
            &decision(true, Some("ok")),
            f.request.plan_hash.as_deref(),
        )
        .unwrap();
        // Decided: no longer listed, and a second decision is refused.
        assert!(pending(&roots).is_empty());
        assert!(matches!(
            decide(&roots, &f.id, &decision(true, None), None),
            Err(RequestError::AlreadyDecided { .. })
        ));
        assert_eq!(
            wait_decision(&roots, &f.id, || true)
                .unwrap()
                .option_id
                .as_deref(),
            Some("ok")
        );
        close(
            &roots,
            &f.id,
            &Outcome::Approved {
                option_id: "ok".into(),
            },
        );
        let done = closed(&roots, &f.id).unwrap();
        assert_eq!(
            (done.status.as_str(), done.decided_by.as_deref()),
            ("approved", Some("test"))
        );
        assert!(matches!(
            decide(&roots, &f.id, &decision(true, None), None),
            Err(RequestError::AlreadyDecided { .. })
        ));
    }

    #[test]
    fn a_request_whose_host_is_gone_closes_with_no_outcome() {
        let home = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(home.path());
        let mut f = file(
            &roots,
            "claude-acp",
            "/r",
            &waiting(RequestKind::Permission, &[]),
        )
        .unwrap();
        f.host_start_time = Some(1); // not this process's start: another process, long gone
        write(&dir(&roots, "requests").join(format!("{}.json", f.id)), &f).unwrap();
        assert!(pending(&roots).is_empty());
        assert_eq!(closed(&roots, &f.id).unwrap().status, "noOutcome");
        assert!(matches!(
            decide(&roots, &f.id, &decision(true, None), None),
            Err(RequestError::AlreadyDecided { .. })
        ));
    }

    #[test]
    fn a_file_being_written_is_not_listed_and_ids_never_reach_a_path() {
        let home = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(home.path());
        let f = file(&roots, "claude-acp", "/r", &waiting(RequestKind::Plan, &[])).unwrap();
        let requests = dir(&roots, "requests");
        std::fs::copy(
            requests.join(format!("{}.json", f.id)),
            requests.join(format!(".{}.json.plandeck-tmp-1-0", f.id)),
        )
        .unwrap();
        assert_eq!(pending(&roots).len(), 1);
        assert!(super::waiting(&roots, "../../etc/passwd").is_none());
        assert!(matches!(
            decide(&roots, "../x", &decision(true, None), None),
            Err(RequestError::NotFound(_))
        ));
    }
}
