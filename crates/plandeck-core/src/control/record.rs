//! What Plandeck started: one file per tmux session (`<data>/started/<name>.json`), written
//! atomically, read to steer a session by its tmux session name or its session id.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::agents::Agent;
use crate::config::Roots;
use crate::process::ProcessId;

/// One session Plandeck started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    pub agent: Agent,
    pub tmux_session: String,
    /// The tmux server's socket, when not the default one.
    pub socket: Option<String>,
    pub pane: String,
    pub pid: u32,
    pub start_time: Option<u64>,
    pub cwd: String,
    pub session_id: Option<String>,
}

impl Record {
    pub fn process(&self) -> ProcessId {
        ProcessId {
            pid: self.pid,
            start_time: self.start_time,
        }
    }

    /// Whether the agent still runs (the same process).
    pub fn alive(&self) -> bool {
        crate::process::is_running(self.pid, self.start_time)
    }
}

fn dir(roots: &Roots) -> PathBuf {
    roots.data.join("started")
}

fn file(roots: &Roots, name: &str) -> PathBuf {
    dir(roots).join(format!("{name}.json"))
}

pub(super) fn write(roots: &Roots, record: &Record) -> Result<(), super::ControlError> {
    let io = |e: String| super::ControlError::Io { message: e };
    crate::durable::create_private_dir(&dir(roots)).map_err(|e| io(e.to_string()))?;
    let bytes = serde_json::to_vec_pretty(record).map_err(|e| io(e.to_string()))?;
    crate::durable::write_atomic(&file(roots, &record.tmux_session), &bytes)
        .map_err(|e| io(e.to_string()))
}

/// Every record, newest first.
pub fn all(roots: &Roots) -> Vec<Record> {
    let Ok(entries) = std::fs::read_dir(dir(roots)) else {
        return Vec::new();
    };
    let mut found: Vec<(std::time::SystemTime, Record)> = entries
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .filter_map(|e| {
            let modified = e.metadata().and_then(|m| m.modified()).ok()?;
            let record = read(&e.path())?;
            Some((modified, record))
        })
        .collect();
    found.sort_by_key(|f| std::cmp::Reverse(f.0));
    found.into_iter().map(|(_, r)| r).collect()
}

fn read(path: &Path) -> Option<Record> {
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

/// Running sessions Plandeck started, given their agent's pid and pane where the agent's own files
/// name neither (Gemini CLI and Codex CLI keep no registry): their cards then offer a terminal
/// view and steering like a Claude Code session's.
pub fn fill_started(roots: &Roots, list: &mut [crate::sessions::SessionSummary]) {
    if !list.iter().any(|s| s.pid.is_none()) {
        return;
    }
    let records: Vec<Record> = all(roots).into_iter().filter(Record::alive).collect();
    if records.is_empty() {
        return;
    }
    let ids: Vec<(Option<String>, &Record)> = records.iter().map(|r| (session_id(r), r)).collect();
    for s in list
        .iter_mut()
        .filter(|s| s.pid.is_none() && s.machine.is_none())
    {
        if let Some((_, r)) = ids
            .iter()
            .find(|(id, r)| id.as_deref() == Some(s.session_id.as_str()) && r.agent == s.agent)
        {
            s.pid = Some(r.pid);
            s.tmux_pane = Some(r.pane.clone());
        }
    }
}

/// Sessions Plandeck started whose agent is gone (ended by Stop, its tmux session killed): their
/// last records may still read as working or idle, and no registry says otherwise (Gemini CLI and
/// Codex CLI keep none), so they are `ended`. Call after [`fill_started`] and the Codex panes:
/// only sessions no running process was found for are looked at. A record names its session by
/// id, or (Codex CLI, whose id is known only while it runs) by agent and folder.
pub fn mark_exited(roots: &Roots, list: &mut [crate::sessions::SessionSummary]) {
    use crate::sessions::SessionState;
    let open = |s: &crate::sessions::SessionSummary| {
        s.pid.is_none()
            && s.machine.is_none()
            && !matches!(s.state, SessionState::Ended | SessionState::Crashed)
    };
    if !list.iter().any(open) {
        return;
    }
    let records = all(roots);
    if records.is_empty() {
        return;
    }
    let alive: Vec<bool> = records.iter().map(Record::alive).collect();
    for s in list.iter_mut() {
        if !open(s) {
            continue;
        }
        let mut mine = records.iter().zip(&alive).filter(|(r, _)| {
            r.agent == s.agent
                && match &r.session_id {
                    Some(id) => *id == s.session_id,
                    None => r.cwd == s.cwd,
                }
        });
        let first = mine.next();
        if first.is_some_and(|(_, a)| !a) && mine.all(|(_, a)| !a) {
            s.state = SessionState::Ended;
        }
    }
}

/// The records whose agent is gone, by tmux session name: what the liveness tick compares to
/// tell the window that sessions ended.
pub fn exited(roots: &Roots) -> std::collections::BTreeSet<String> {
    all(roots)
        .into_iter()
        .filter(|r| !r.alive())
        .map(|r| r.tmux_session)
        .collect()
}

/// The session id of a record's agent, known at start or read from what it holds open now
/// (Codex CLI: its rollout, `rollout-<time>-<id>.jsonl`).
pub fn session_id(record: &Record) -> Option<String> {
    if let Some(id) = &record.session_id {
        return Some(id.clone());
    }
    let driver = crate::agents::driver(record.agent);
    if driver.names_its_session() || !record.alive() {
        return None;
    }
    let mut pids = vec![record.pid];
    pids.extend(descendants(record.pid));
    pids.into_iter().find_map(|pid| {
        std::fs::read_dir(format!("/proc/{pid}/fd"))
            .ok()?
            .flatten()
            .filter_map(|fd| std::fs::read_link(fd.path()).ok())
            .find_map(|target| driver.session_of_open_file(&target))
    })
}

/// Every descendant of `pid` that runs now.
pub(super) fn descendants(pid: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let all: Vec<(u32, u32)> = entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|p| Some((p, crate::process::parent_of(p)?)))
        .collect();
    let mut out = Vec::new();
    let mut frontier = vec![pid];
    while let Some(parent) = frontier.pop() {
        for (child, _) in all.iter().filter(|(_, pp)| *pp == parent) {
            if !out.contains(child) && *child != pid {
                out.push(*child);
                frontier.push(*child);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sessions::{SessionState, SessionSummary};

    fn summary(agent: &str, id: &str, cwd: &str, state: &str) -> SessionSummary {
        serde_json::from_value(serde_json::json!({
            "agent": agent, "sessionId": id, "cwd": cwd, "state": state, "unreadableLines": 0
        }))
        .unwrap()
    }

    fn record(agent: Agent, name: &str, pid: u32, cwd: &str, id: Option<&str>) -> Record {
        Record {
            agent,
            tmux_session: name.into(),
            socket: None,
            pane: "%1".into(),
            pid,
            start_time: None,
            cwd: cwd.into(),
            session_id: id.map(str::to_owned),
        }
    }

    fn dead_pid() -> u32 {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        pid
    }

    /// Issue 34: a session Plandeck stopped read "idle" with Send, Interrupt and Stop.
    #[test]
    fn a_started_session_whose_agent_is_gone_is_ended() {
        let home = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(home.path());
        let dead = dead_pid();
        let me = std::process::id();
        write(
            &roots,
            &record(Agent::Gemini, "a", dead, "/w/a", Some("g-gone")),
        )
        .unwrap();
        write(
            &roots,
            &record(Agent::Gemini, "b", me, "/w/b", Some("g-runs")),
        )
        .unwrap();
        write(&roots, &record(Agent::Codex, "c", dead, "/w/c", None)).unwrap();
        let mut list = vec![
            summary("gemini", "g-gone", "/w/a", "idle"),
            summary("gemini", "g-runs", "/w/b", "idle"),
            summary("codex", "x-gone", "/w/c", "working"),
            summary("codex", "x-other", "/w/d", "working"),
        ];
        mark_exited(&roots, &mut list);
        let states: Vec<SessionState> = list.iter().map(|s| s.state).collect();
        assert_eq!(
            states,
            [
                SessionState::Ended,
                SessionState::Idle,
                SessionState::Ended,
                SessionState::Working
            ]
        );
        assert_eq!(
            exited(&roots).into_iter().collect::<Vec<_>>(),
            ["a".to_owned(), "c".to_owned()]
        );
    }
}
