//! Claude Code agent teams as the Sessions view shows them: each team's lead and its teammates,
//! each teammate with where its plan stands in Plandeck (the teammate gate's latest request) and
//! the lead's own verdict on it (read from the teammate's transcript: "[Plan Approved]").
//!
//! Read only: `~/.claude/teams/<team>/config.json` lists the members (`planModeRequired`,
//! `backendType`); nothing under `~/.claude/teams` is ever written (the inboxes are
//! signature-checked).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::store::{self, done_dir, requests_dir};
use super::{GateRequest, GateStatus};
use crate::config::Roots;

/// At most this many teams are listed (the newest by their config's time).
const MAX_TEAMS: usize = 200;
/// At most this many closed requests are read for the teammates' states (the newest).
const MAX_CLOSED: usize = 500;
/// A config bigger than this is not a team's.
const MAX_CONFIG: u64 = 1024 * 1024;

/// One agent team.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Team {
    /// The team's name (`session-1a2b3c4d`).
    pub name: String,
    /// The lead's session.
    pub lead_session_id: Option<String>,
    /// The teammates (the lead itself not among them).
    pub members: Vec<TeamMember>,
    /// The machine the team runs on (`plandeck hosts`); `null`: this one.
    #[serde(default)]
    pub machine: Option<String>,
}

/// One teammate of a team.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TeamMember {
    pub name: String,
    /// Where it runs: `in-process` (in the lead's process) or `tmux` (a pane of its own).
    pub backend: Option<String>,
    /// Its plan must be approved before it acts.
    pub plan_mode_required: bool,
    /// Its own session, when it runs in a pane of its own and has filed a plan (in-process
    /// teammates share the lead's).
    pub session_id: Option<String>,
    /// Its latest plan in Plandeck's gate: the request's id, status and plan file.
    pub request_id: Option<String>,
    pub plan_status: Option<GateStatus>,
    pub plan_path: Option<String>,
    /// The lead's verdict on its plan, as the teammate was told ("[Plan Approved] …"), when its
    /// transcript is known.
    pub lead_verdict: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Config {
    name: String,
    #[serde(default)]
    lead_session_id: Option<String>,
    #[serde(default)]
    lead_agent_id: Option<String>,
    #[serde(default)]
    members: Vec<Member>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Member {
    name: String,
    #[serde(default)]
    agent_id: Option<String>,
    #[serde(default)]
    backend_type: Option<String>,
    #[serde(default)]
    plan_mode_required: bool,
}

/// Every team Claude Code keeps under `~/.claude/teams`, newest first, each teammate with its
/// latest request in the gate (open or closed).
pub fn list(roots: &Roots) -> Vec<Team> {
    let Ok(entries) = std::fs::read_dir(super::hook_team::teams_dir(roots)) else {
        return Vec::new();
    };
    let mut configs: Vec<(std::time::SystemTime, PathBuf)> = entries
        .flatten()
        .map(|e| e.path().join("config.json"))
        .filter_map(|p| {
            let meta = std::fs::metadata(&p).ok()?;
            let modified = meta.modified().ok()?;
            (meta.is_file() && meta.len() <= MAX_CONFIG).then_some((modified, p))
        })
        .collect();
    configs.sort_by_key(|c| std::cmp::Reverse(c.0));
    configs.truncate(MAX_TEAMS);
    let requests = team_requests(roots);
    configs
        .into_iter()
        .filter_map(|(_, p)| read_team(&p, &requests))
        .collect()
}

fn read_team(path: &Path, requests: &[GateRequest]) -> Option<Team> {
    let config: Config = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
    let members = config
        .members
        .into_iter()
        .filter(|m| m.agent_id.is_none() || m.agent_id != config.lead_agent_id)
        .filter(|m| m.name != "team-lead")
        .map(|m| {
            let latest = requests
                .iter()
                .filter(|r| {
                    r.teammate.as_deref() == Some(m.name.as_str())
                        && (r.team.as_deref() == Some(config.name.as_str())
                            || (r.team.is_none()
                                && r.lead_session_id.is_some()
                                && r.lead_session_id == config.lead_session_id))
                })
                .max_by_key(|r| r.waiting_since);
            TeamMember {
                lead_verdict: latest
                    .and_then(|r| r.transcript_path.as_deref())
                    .and_then(|t| lead_verdict(Path::new(t))),
                session_id: latest
                    .map(|r| r.session_id.clone())
                    .filter(|s| Some(s) != config.lead_session_id.as_ref()),
                request_id: latest.map(|r| r.id.clone()),
                plan_status: latest.map(|r| r.status),
                plan_path: latest.and_then(|r| r.plan_path.clone()),
                name: m.name,
                backend: m.backend_type,
                plan_mode_required: m.plan_mode_required,
            }
        })
        .collect();
    Some(Team {
        name: config.name,
        lead_session_id: config.lead_session_id,
        members,
        machine: None,
    })
}

/// Every teammate's request in the gate: the open ones, and the newest closed ones.
fn team_requests(roots: &Roots) -> Vec<GateRequest> {
    let files = |dir: PathBuf, max: usize| {
        let mut found: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().and_then(|x| x.to_str()) == Some("json"))
            .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
            .collect();
        found.sort_by_key(|f| std::cmp::Reverse(f.0));
        found.truncate(max);
        found.into_iter().map(|(_, p)| p)
    };
    files(requests_dir(roots), usize::MAX)
        .chain(files(done_dir(roots), MAX_CLOSED))
        .filter_map(|p| store::read_request(&p).ok().flatten())
        .filter(|r| r.teammate.is_some())
        .collect()
}

/// The lead's latest verdict the teammate was told in `transcript`: the text of the last
/// `<teammate-message teammate_id="team-lead">` holding `[Plan Approved]` (Claude Code 2.1.328).
pub fn lead_verdict(transcript: &Path) -> Option<String> {
    let text = std::fs::read_to_string(transcript).ok()?;
    text.lines()
        .rev()
        .filter(|l| l.contains("[Plan Approved]"))
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["message"]["content"].as_str().map(str::to_owned))
        .find(|c| c.contains("teammate_id=\"team-lead\""))
        .map(|c| {
            let start = c.find("[Plan Approved]").unwrap_or(0);
            c[start..]
                .lines()
                .next()
                .unwrap_or_default()
                .trim()
                .to_owned()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_team_lists_its_teammates_with_their_plans_and_the_leads_verdict() {
        let dir = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(dir.path());
        let team = super::super::hook_team::teams_dir(&roots).join("session-4b87e72c");
        std::fs::create_dir_all(&team).unwrap();
        std::fs::write(team.join("config.json"), r#"{"name":"session-4b87e72c","leadAgentId":"team-lead@session-4b87e72c","leadSessionId":"4b87e72c-17f0","members":[
            {"agentId":"team-lead@session-4b87e72c","name":"team-lead","agentType":"team-lead","backendType":"in-process"},
            {"agentId":"planner@session-4b87e72c","name":"planner","planModeRequired":true,"backendType":"tmux"},
            {"agentId":"tester@session-4b87e72c","name":"tester","backendType":"in-process"}]}"#).unwrap();
        let transcript = dir.path().join("planner.jsonl");
        std::fs::write(&transcript, "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"<teammate-message teammate_id=\\\"team-lead\\\">\\n[Plan Approved] You can now proceed with implementation\\n</teammate-message>\"}}\n").unwrap();
        let req = GateRequest {
            team: Some("session-4b87e72c".into()),
            teammate: Some("planner".into()),
            plan_path: Some("/p/plan.md".into()),
            transcript_path: Some(transcript.to_string_lossy().into_owned()),
            status: GateStatus::Approved,
            ..GateRequest::for_test("r1")
        };
        std::fs::create_dir_all(done_dir(&roots)).unwrap();
        std::fs::write(
            done_dir(&roots).join("r1.json"),
            serde_json::to_vec(&req).unwrap(),
        )
        .unwrap();
        let teams = list(&roots);
        assert_eq!(teams.len(), 1);
        assert_eq!(teams[0].lead_session_id.as_deref(), Some("4b87e72c-17f0"));
        let names: Vec<&str> = teams[0].members.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["planner", "tester"]);
        let planner = &teams[0].members[0];
        assert!(planner.plan_mode_required);
        assert_eq!(planner.plan_status, Some(GateStatus::Approved));
        assert_eq!(planner.plan_path.as_deref(), Some("/p/plan.md"));
        assert_eq!(
            planner.lead_verdict.as_deref(),
            Some("[Plan Approved] You can now proceed with implementation")
        );
        assert_eq!(teams[0].members[1].plan_status, None);
    }
}
