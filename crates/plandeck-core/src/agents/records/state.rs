//! What the records of one session say, folded in order, and the state derived from it.
//!
//! Every agent's reader turns its records into the same [`Facts`]; [`derive`] then decides the
//! [`SessionState`] from those facts, the Claude Code registry entry (when there is one), whether
//! its process is alive, and the time. The rules are in the module doc of [`super`].

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use ts_rs::TS;

/// Where a session stands, from facts only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum SessionState {
    /// A plan waits for the person's approval (an `ExitPlanMode` / `exit_plan_mode` call with no
    /// result yet).
    WaitingForApproval,
    /// The agent asked the person something (a question tool, or the registry says `waiting`).
    WaitingForInput,
    /// The registry names the session but its process is gone, and it went mid-turn (a turn or a
    /// tool call was left unfinished). A registry left behind by a session whose last turn had
    /// ended (a reboot, a killed terminal) is `ended`, not a crash.
    Crashed,
    /// The agent is running a turn.
    Working,
    /// The turn ended; the agent waits for the next prompt.
    Idle,
    /// No fact tells: the last record left a turn unfinished and there has been no news since
    /// `lastActivity`.
    Unknown,
    /// The session is over (no live registry entry and no recent activity).
    Ended,
}

impl SessionState {
    pub fn as_str(self) -> &'static str {
        match self {
            SessionState::WaitingForApproval => "waiting_for_approval",
            SessionState::WaitingForInput => "waiting_for_input",
            SessionState::Crashed => "crashed",
            SessionState::Working => "working",
            SessionState::Idle => "idle",
            SessionState::Unknown => "unknown",
            SessionState::Ended => "ended",
        }
    }

    /// Whether the person is needed (sorted first).
    pub fn needs_person(self) -> bool {
        matches!(
            self,
            SessionState::WaitingForApproval | SessionState::WaitingForInput
        )
    }
}

/// What the last meaningful record says about the turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Turn {
    /// No user/assistant record seen.
    #[default]
    None,
    /// A prompt, a tool result or a tool call: the agent is at work.
    Running,
    /// The agent ended its turn (final answer, interruption, task complete).
    Ended,
}

/// An open tool call and why it matters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pending {
    pub id: String,
    pub kind: PendingKind,
    /// The latest record time seen when the call was made (about the call's own time).
    #[serde(default, with = "time::serde::rfc3339::option")]
    pub at: Option<OffsetDateTime>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PendingKind {
    /// A plan offered for approval.
    Approval,
    /// A question to the person.
    Question,
    Other,
}

/// A `worktree-state` record's session.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorktreeFacts {
    pub path: String,
    pub branch: Option<String>,
    pub original_branch: Option<String>,
    pub original_head_commit: Option<String>,
}

/// At most this many open calls are remembered, so a transcript full of unanswered calls cannot
/// grow memory.
const MAX_PENDING: usize = 32;

/// Everything the records of one session said so far (kept in the persistent index, see
/// `index.rs`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Facts {
    pub session_id: Option<String>,
    pub cwd: Option<String>,
    pub git_branch: Option<String>,
    pub version: Option<String>,
    pub model: Option<String>,
    pub title: Option<String>,
    pub permission_mode: Option<String>,
    pub slug: Option<String>,
    /// A plan path a record named (ExitPlanMode's `planFilePath`, Gemini's plan file).
    pub plan_path: Option<String>,
    /// The last worktree a `worktree-state` record named (kept after the session leaves it: a
    /// left-behind worktree still needs its base).
    pub worktree: Option<WorktreeFacts>,
    /// Whether the session is in that worktree now (a `null` record says it left).
    pub in_worktree: bool,
    #[serde(with = "time::serde::rfc3339::option")]
    pub last_activity: Option<OffsetDateTime>,
    pub pending: Vec<Pending>,
    pub turn: Turn,
    pub unreadable: u32,
    /// The agent is re-writing old history (Gemini after a cancel or resume): those records say
    /// nothing new about the turn.
    pub replaying: bool,
    /// What the agent did last, on one line: its last tool call (`Edit src/app.ts`) or the start
    /// of its last message.
    #[serde(default)]
    pub doing: Option<String>,
    /// The tokens (and cost) the records tell, where they tell them.
    #[serde(default)]
    pub usage: Option<Usage>,
}

/// Tokens a session's records tell, counted as its lines are read: records of one model call
/// each ([`Usage::add_call`]) add up, a record of the session's totals ([`Usage::set_totals`])
/// replaces what was counted before it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    /// Input tokens, cache reads and writes included.
    pub input_tokens: u64,
    /// Output tokens, reasoning included.
    pub output_tokens: u64,
    /// In US dollars, from a record of the totals that carries it; none once calls were counted
    /// after that record (they carry no cost).
    pub cost_usd: Option<f64>,
    /// Counted from part of the records only (the middle of a large transcript is not read):
    /// at least this much. A record of the totals read later makes it whole again.
    pub partial: bool,
    /// The call counted last (its id and its tokens): the same call written again (streamed in
    /// pieces, updated) replaces its count instead of adding to it.
    last: Option<(String, u64, u64)>,
}

impl Usage {
    /// Nothing counted yet, and what will be is only part of the tokens.
    pub fn partial() -> Usage {
        Usage {
            partial: true,
            ..Usage::default()
        }
    }

    /// One model call's tokens; `id` names the call when the agent writes it more than once.
    pub fn add_call(&mut self, id: Option<&str>, input: u64, output: u64) {
        if let (Some(id), Some((last, i, o))) = (id, &self.last) {
            if id == last {
                self.input_tokens = self.input_tokens.saturating_sub(*i);
                self.output_tokens = self.output_tokens.saturating_sub(*o);
            }
        }
        self.input_tokens = self.input_tokens.saturating_add(input);
        self.output_tokens = self.output_tokens.saturating_add(output);
        self.last = id.map(|id| (id.to_owned(), input, output));
        self.cost_usd = None;
    }

    /// The session's totals so far, as a record states them.
    pub fn set_totals(&mut self, input: u64, output: u64, cost_usd: Option<f64>) {
        *self = Usage {
            input_tokens: input,
            output_tokens: output,
            cost_usd: cost_usd.filter(|c| c.is_finite() && *c >= 0.0),
            partial: false,
            last: None,
        };
    }
}

/// The sum of the counts under `keys` of a record's usage object, each read leniently: a
/// missing, negative or non-numeric count is 0 (a damaged count never makes a line unreadable).
pub fn token_sum(usage: Option<&serde_json::Value>, keys: &[&str]) -> u64 {
    let Some(u) = usage else { return 0 };
    keys.iter()
        .map(|k| match u.get(k) {
            Some(v) => v.as_u64().unwrap_or_else(|| {
                v.as_f64()
                    .filter(|f| f.is_finite() && *f >= 0.0)
                    .map_or(0, |f| f.min(u64::MAX as f64) as u64)
            }),
            None => 0,
        })
        .fold(0u64, u64::saturating_add)
}

impl Facts {
    /// The usage counted so far, started when none is.
    pub fn usage_mut(&mut self) -> &mut Usage {
        self.usage.get_or_insert_with(Usage::default)
    }

    pub fn open_call(&mut self, id: &str, kind: PendingKind) {
        if self.pending.len() >= MAX_PENDING {
            self.pending.remove(0);
        }
        self.pending.push(Pending {
            id: id.to_owned(),
            kind,
            at: self.last_activity,
        });
    }

    pub fn close_call(&mut self, id: &str) {
        self.pending.retain(|p| p.id != id);
    }

    pub fn has_pending(&self, kind: PendingKind) -> bool {
        self.pending.iter().any(|p| p.kind == kind)
    }

    /// Records a timestamp (RFC 3339); the latest one wins, so out-of-order records are harmless.
    pub fn saw_time(&mut self, ts: &str) {
        if let Ok(t) = OffsetDateTime::parse(ts, &time::format_description::well_known::Rfc3339) {
            if !matches!(self.last_activity, Some(l) if t <= l) {
                self.last_activity = Some(t);
            }
        }
    }

    /// The agent called `tool` (with `detail`, its file, command or pattern, when it has one).
    pub fn did_call(&mut self, tool: &str, detail: Option<&str>) {
        let detail = detail.map(str::trim).filter(|d| !d.is_empty());
        self.doing = Some(cut(
            &match detail {
                Some(d) => format!("{tool} {d}"),
                None => tool.to_owned(),
            },
            100,
        ));
    }

    /// The agent said `text` (its own words, not a tool call).
    pub fn did_say(&mut self, text: &str) {
        if !text.trim().is_empty() {
            self.doing = Some(cut(text, 100));
        }
    }

    pub fn set_title(&mut self, text: &str) {
        if self.title.is_some() {
            return;
        }
        let text = text.trim();
        // Agents put their own context and command echoes in user records as tagged text.
        if text.is_empty() || text.starts_with('<') || text.starts_with('[') {
            return;
        }
        self.title = Some(cut(text, 100));
    }

    /// Whether the facts hold a record that tells the turn (enough tail was read).
    pub fn anchored(&self) -> bool {
        self.turn != Turn::None
    }
}

/// `text` on one line, at most `max` characters, with `…` when cut.
pub fn cut(text: &str, max: usize) -> String {
    let one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= max {
        return one_line;
    }
    let mut s: String = one_line.chars().take(max - 1).collect();
    s.push('…');
    s
}

/// What the Claude Code registry (`sessions/<pid>.json`) says about a running CLI.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Registry {
    pub pid: u32,
    pub status: Option<String>,
    pub alive: bool,
    /// When the running CLI started: calls made before are an earlier process's (a resumed
    /// session's old approval card is not on screen any more).
    pub started: Option<OffsetDateTime>,
}

/// A session with activity this recent and no registry entry is taken as still running.
pub const ACTIVE_WINDOW: time::Duration = time::Duration::minutes(10);
/// A session whose last record left a turn unfinished is `unknown` (not `ended`) for this long.
pub const UNKNOWN_WINDOW: time::Duration = time::Duration::hours(2);

/// The state of a session from its facts, its registry entry and the time. See [`super`].
pub fn derive(facts: &Facts, registry: Option<&Registry>, now: OffsetDateTime) -> SessionState {
    let from_records = || {
        if facts.has_pending(PendingKind::Approval) {
            SessionState::WaitingForApproval
        } else if facts.has_pending(PendingKind::Question) {
            SessionState::WaitingForInput
        } else {
            match facts.turn {
                Turn::Running => SessionState::Working,
                Turn::Ended => SessionState::Idle,
                Turn::None => SessionState::Unknown,
            }
        }
    };
    if let Some(reg) = registry {
        if !reg.alive {
            // Gone without cleaning up: a crash only if it was in the middle of something.
            let unfinished = facts.turn == Turn::Running || !facts.pending.is_empty();
            return if unfinished {
                SessionState::Crashed
            } else {
                SessionState::Ended
            };
        }
        let this_process = |p: &&Pending| match (p.at, reg.started) {
            (Some(at), Some(started)) => at >= started,
            _ => true,
        };
        if facts
            .pending
            .iter()
            .filter(this_process)
            .any(|p| p.kind == PendingKind::Approval)
        {
            return SessionState::WaitingForApproval;
        }
        return match reg.status.as_deref() {
            Some("waiting") => SessionState::WaitingForInput,
            Some("busy") => SessionState::Working,
            Some("idle") => SessionState::Idle,
            _ => match from_records() {
                SessionState::Unknown => SessionState::Idle,
                s => s,
            },
        };
    }
    let Some(last) = facts.last_activity else {
        return SessionState::Unknown;
    };
    let age = now - last;
    if age <= ACTIVE_WINDOW {
        return from_records();
    }
    let unfinished = facts.turn == Turn::Running || !facts.pending.is_empty();
    if unfinished && age <= UNKNOWN_WINDOW {
        SessionState::Unknown
    } else {
        SessionState::Ended
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> OffsetDateTime {
        OffsetDateTime::parse(s, &time::format_description::well_known::Rfc3339).unwrap()
    }

    #[test]
    fn registry_facts_win_and_dead_pid_is_crashed() {
        let mut f = Facts::default();
        f.saw_time("2026-01-01T00:00:00Z");
        f.turn = Turn::Running;
        let now = at("2026-02-01T00:00:00Z");
        let reg = |status: &str, alive| Registry {
            pid: 1,
            status: Some(status.into()),
            alive,
            started: None,
        };
        assert_eq!(
            derive(&f, Some(&reg("busy", false)), now),
            SessionState::Crashed
        );
        // A registry left behind after the turn had ended: the session is over, not crashed.
        let mut done = f.clone();
        done.turn = Turn::Ended;
        assert_eq!(
            derive(&done, Some(&reg("idle", false)), now),
            SessionState::Ended
        );
        assert_eq!(
            derive(&f, Some(&reg("busy", true)), now),
            SessionState::Working
        );
        assert_eq!(
            derive(&f, Some(&reg("idle", true)), now),
            SessionState::Idle
        );
        assert_eq!(
            derive(&f, Some(&reg("waiting", true)), now),
            SessionState::WaitingForInput
        );
        f.open_call("t1", PendingKind::Approval);
        assert_eq!(
            derive(&f, Some(&reg("idle", true)), now),
            SessionState::WaitingForApproval
        );
    }

    #[test]
    fn without_registry_time_decides() {
        let mut f = Facts::default();
        f.saw_time("2026-01-01T00:00:00Z");
        f.turn = Turn::Running;
        assert_eq!(
            derive(&f, None, at("2026-01-01T00:05:00Z")),
            SessionState::Working
        );
        assert_eq!(
            derive(&f, None, at("2026-01-01T01:00:00Z")),
            SessionState::Unknown
        );
        assert_eq!(
            derive(&f, None, at("2026-01-02T00:00:00Z")),
            SessionState::Ended
        );
        f.turn = Turn::Ended;
        assert_eq!(
            derive(&f, None, at("2026-01-01T00:05:00Z")),
            SessionState::Idle
        );
        assert_eq!(
            derive(&f, None, at("2026-01-01T01:00:00Z")),
            SessionState::Ended
        );
        assert_eq!(
            derive(&Facts::default(), None, at("2026-01-01T01:00:00Z")),
            SessionState::Unknown
        );
    }

    #[test]
    fn titles_skip_tags_and_are_cut() {
        let mut f = Facts::default();
        f.set_title("<command-name>/clear</command-name>");
        f.set_title(&"word ".repeat(60));
        let t = f.title.unwrap();
        assert_eq!(t.chars().count(), 100);
        assert!(t.ends_with('…'));
    }

    #[test]
    fn an_approval_card_of_an_earlier_process_is_not_waited_on_after_a_resume() {
        let mut f = Facts::default();
        f.saw_time("2026-01-01T10:00:00Z");
        f.open_call("toolu_1", PendingKind::Approval);
        let now = at("2026-01-01T10:30:00Z");
        let reg = |started: &str| Registry {
            pid: 1,
            status: Some("idle".into()),
            alive: true,
            started: Some(at(started)),
        };
        // The process that drew the card still runs.
        assert_eq!(
            derive(&f, Some(&reg("2026-01-01T09:59:00Z")), now),
            SessionState::WaitingForApproval
        );
        // Resumed by a new process: its card is gone; the registry says where it stands.
        assert_eq!(
            derive(&f, Some(&reg("2026-01-01T10:20:00Z")), now),
            SessionState::Idle
        );
    }
}
