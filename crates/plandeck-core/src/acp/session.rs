//! One ACP session hosted in this process: the agent started in a folder, plan mode set where
//! offered, turns prompted, each permission request handed to a decider and answered with the
//! agent's own option ([`super::gate`]). The foundation `plandeck start --agent <acp>` and the
//! server build on; `plandeck agents check` uses it as is.

use std::path::Path;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;

use super::client::{AgentCommand, SessionInfo};
use super::gate::{DecideError, Outcome, Tracker, Waiting};
use super::{AcpError, Client, Event, Update};

/// What the decider says about one waiting request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// With this allow option of the request, or the narrowest one.
    Approve(Option<String>),
    /// [`Choice::Approve`], then this next prompt (an edited plan: ACP's answer carries only the
    /// option, so the edit follows as the next prompt).
    ApproveThen(Option<String>, Option<String>),
    /// With the request's reject option; the feedback (if any) is the next prompt.
    Reject(Option<String>),
    /// With this reject option of the request (the person's choice), and the feedback.
    RejectWith(Option<String>, Option<String>),
}

/// What the host asks of a turn under way, between the agent's messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    /// `session/cancel`: the agent ends the turn.
    Interrupt,
    /// End the agent's process group.
    Stop,
}

/// One request of a turn, as it ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Ended {
    #[serde(flatten)]
    pub request: Waiting,
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// What one turn did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnReport {
    /// The agent's `stopReason`; `None` when it ended before answering.
    pub stop_reason: Option<String>,
    pub requests: Vec<Ended>,
    /// Feedback of a rejection, to send as the next prompt.
    #[serde(skip)]
    pub feedback: Option<String>,
    pub mode: Option<String>,
    pub gated: bool,
    pub ungated_why: Option<String>,
    /// The agent's text of the turn (message chunks), as sent.
    pub said: String,
    /// The last `usage_update`'s cost, where sent.
    pub cost_usd: Option<f64>,
    /// The prompt's answer's `usage` (tokens of the turn), where sent.
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    /// Things read and skipped (unknown updates, bad lines).
    pub skipped: usize,
    pub agent_ended: bool,
}

type Observer = Box<dyn FnMut(&Event) + Send>;
type Controller = Box<dyn FnMut() -> Option<Control> + Send>;

/// A session hosted here.
pub struct Session {
    client: Client,
    events: Receiver<Event>,
    pub tracker: Tracker,
    pub info: SessionInfo,
    pub agent: Value,
    /// How long a turn's agent may say nothing (nothing waiting for the person) before the turn
    /// is cancelled; the call timeout unless set.
    silence: Duration,
    ended: bool,
    /// Sees every event of a turn, before it is acted on (the host's view of the conversation).
    observer: Option<Observer>,
    /// Asked between the agent's messages whether the host wants the turn interrupted or the
    /// agent stopped.
    control: Option<Controller>,
}

impl Session {
    /// Starts the agent, `initialize`, `session/new` in `cwd`, and plan mode when `plan` and
    /// the agent offers it (`Ok` with no plan mode otherwise: [`Session::plan_mode_offered`]).
    pub fn start(
        cmd: &AgentCommand,
        cwd: &Path,
        plan: bool,
        timeout: Duration,
    ) -> Result<Session, AcpError> {
        let (client, events) = Client::spawn(cmd)?;
        let agent = client.initialize(timeout)?;
        let info = client.new_session(cwd, timeout)?;
        let mut tracker = Tracker::new();
        if let Some(m) = &info.current_mode {
            tracker.mode_set(m);
        }
        let mut s = Session {
            client,
            events,
            tracker,
            info,
            agent,
            silence: timeout,
            ended: false,
            observer: None,
            control: None,
        };
        if plan && s.plan_mode_offered() {
            if s.info.modes_as_option {
                s.client
                    .set_mode_option(&s.info.session_id, "plan", timeout)?;
            } else {
                s.client.set_mode(&s.info.session_id, "plan", timeout)?;
            }
            s.tracker.mode_set("plan");
        }
        Ok(s)
    }

    /// Starts the agent again and `session/load`s its earlier session `session_id` in `cwd`
    /// (Resume), where the agent offers it (`agentCapabilities.loadSession`; refused otherwise).
    /// What the agent replays of the conversation while loading is followed by the tracker (its
    /// mode) but not shown again: the host kept the conversation.
    pub fn load(
        cmd: &AgentCommand,
        cwd: &Path,
        session_id: &str,
        timeout: Duration,
    ) -> Result<Session, AcpError> {
        let (client, events) = Client::spawn(cmd)?;
        let agent = client.initialize(timeout)?;
        if agent.pointer("/agentCapabilities/loadSession") != Some(&Value::Bool(true)) {
            return Err(AcpError::CannotLoad);
        }
        let info = client.load_session(session_id, cwd, timeout)?;
        let mut tracker = Tracker::new();
        // The replay came before the answer, from the same reader: all of it is here now.
        while let Ok(e) = events.try_recv() {
            if matches!(e, Event::Update { .. } | Event::Skipped(_)) {
                tracker.on_event(&e);
            }
        }
        if let Some(m) = &info.current_mode {
            tracker.mode_set(m);
        }
        Ok(Session {
            client,
            events,
            tracker,
            info,
            agent,
            silence: timeout,
            ended: false,
            observer: None,
            control: None,
        })
    }

    /// Every event of a turn goes to `observer` too.
    pub fn observe(&mut self, observer: impl FnMut(&Event) + Send + 'static) {
        self.observer = Some(Box::new(observer));
    }

    /// `control` is asked between the agent's messages what the host wants of the turn.
    pub fn controlled_by(&mut self, control: impl FnMut() -> Option<Control> + Send + 'static) {
        self.control = Some(Box::new(control));
    }

    /// The ACP session's id and the client, to cancel a turn from elsewhere.
    pub fn cancel(&self) {
        let _ = self.client.cancel(&self.info.session_id);
    }

    /// Sets how long a turn's agent may say nothing before the turn is cancelled.
    pub fn cancel_after_silence(&mut self, silence: Duration) {
        self.silence = silence;
    }

    pub fn plan_mode_offered(&self) -> bool {
        self.info.modes.iter().any(|m| m == "plan")
    }

    /// One turn: `text` prompted, each permission request asked of `decide`, until the agent
    /// answers the prompt (or ends). A decision the agent's options do not allow is not sent:
    /// the request is left unanswered and the error returned with the turn cancelled.
    pub fn turn(
        &mut self,
        text: &str,
        mut decide: impl FnMut(&Waiting) -> Choice,
    ) -> Result<TurnReport, AcpError> {
        let before = self.tracker.ended().len();
        let pending = self.client.prompt(&self.info.session_id, text)?;
        let mut said = String::new();
        let mut cost_usd = None;
        let mut feedback = None;
        let mut quiet_since = Instant::now();
        // The prompt's answer comes after every event it follows: read events until the agent
        // ends, or none has come for a while and the answer is there.
        let (tx_done, rx_done) = std::sync::mpsc::channel();
        let waiter = std::thread::spawn(move || {
            let r = pending.wait(Duration::from_secs(24 * 3600));
            let _ = tx_done.send(());
            r
        });
        let mut answered = false;
        let mut cancelled = false;
        let mut interrupted = false;
        loop {
            if !answered && rx_done.try_recv().is_ok() {
                answered = true;
            }
            match self.control.as_mut().and_then(|c| c()) {
                Some(Control::Interrupt) if !interrupted => {
                    interrupted = true;
                    let _ = self.client.cancel(&self.info.session_id);
                }
                Some(Control::Stop) => self.client.stop(),
                _ => {}
            }
            let e =
                match self
                    .events
                    .recv_timeout(Duration::from_millis(if answered { 0 } else { 50 }))
                {
                    Ok(e) => e,
                    Err(RecvTimeoutError::Timeout) if answered => break,
                    Err(RecvTimeoutError::Timeout) => {
                        // A turn whose agent says nothing for the timeout, with nothing waiting
                        // for the person, is cancelled, once (`stopReason: cancelled`).
                        if !cancelled
                            && quiet_since.elapsed() > self.silence
                            && self.tracker.open().is_empty()
                        {
                            cancelled = true;
                            let _ = self.client.cancel(&self.info.session_id);
                        }
                        continue;
                    }
                    Err(RecvTimeoutError::Disconnected) => break,
                };
            quiet_since = Instant::now();
            if let Some(o) = self.observer.as_mut() {
                o(&e);
            }
            match &e {
                Event::Update {
                    update: Update::Chunk { kind, text },
                    ..
                } if kind == "agent_message_chunk" => said.push_str(text),
                Event::Update {
                    update: Update::Usage { cost_usd: c, .. },
                    ..
                } => cost_usd = c.or(cost_usd),
                Event::Exited => self.ended = true,
                _ => {}
            }
            if let Some(w) = self.tracker.on_event(&e) {
                let decided = match decide(&w) {
                    Choice::Approve(opt) => self.tracker.approve(&w.rpc_id, opt.as_deref()),
                    Choice::ApproveThen(opt, next) => {
                        feedback = next.filter(|f| !f.trim().is_empty());
                        self.tracker.approve(&w.rpc_id, opt.as_deref())
                    }
                    Choice::Reject(fb) => {
                        feedback = fb.filter(|f| !f.trim().is_empty());
                        self.tracker.reject(&w.rpc_id)
                    }
                    Choice::RejectWith(option, fb) => {
                        feedback = fb.filter(|f| !f.trim().is_empty());
                        self.tracker.reject_with(&w.rpc_id, option.as_deref())
                    }
                };
                // The person may have taken long: the agent's silence counts from now.
                quiet_since = Instant::now();
                match decided {
                    Ok(d) => {
                        if self.client.respond(&d.rpc_id, d.response).is_err() {
                            // The agent is gone: its end follows as an event.
                            self.tracker.not_delivered(&d.rpc_id);
                        }
                    }
                    Err(err) => {
                        let _ = self.client.cancel(&self.info.session_id);
                        return Err(refused(err));
                    }
                }
            }
            if self.ended {
                break;
            }
        }
        let result = waiter.join().unwrap_or(Err(AcpError::Gone {
            method: "session/prompt".into(),
        }));
        let mut tokens = (None, None);
        let stop_reason = match result {
            Ok(v) => {
                self.tracker.turn_ended();
                tokens = prompt_tokens(&v);
                v.get("stopReason")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            }
            Err(AcpError::Gone { .. }) => None,
            Err(e) => return Err(e),
        };
        Ok(TurnReport {
            stop_reason,
            requests: self.tracker.ended()[before..]
                .iter()
                .map(|(w, o)| Ended {
                    request: w.clone(),
                    outcome: o.clone(),
                })
                .collect(),
            feedback,
            mode: self.tracker.mode().map(str::to_owned),
            gated: self.tracker.gated(),
            ungated_why: self.tracker.ungated_why().map(str::to_owned),
            said,
            cost_usd,
            input_tokens: tokens.0,
            output_tokens: tokens.1,
            skipped: self.tracker.skipped(),
            agent_ended: self.ended,
        })
    }

    /// The agent's process id and start time (a decider waiting on a person checks it still runs).
    pub fn agent_process(&self) -> (u32, Option<u64>) {
        let pid = self.client.pid();
        (pid, crate::process::start_time(pid))
    }

    /// Ends the agent.
    pub fn stop(&self) {
        self.client.stop();
    }

    /// Whether the agent has ended (its output closed).
    pub fn has_ended(&self) -> bool {
        self.ended
    }
}

/// The tokens of one prompt (input, output) as its answer tells them: ACP's `usage`
/// (`inputTokens`, `outputTokens`: claude-agent-acp, OpenCode), else Gemini CLI's
/// `_meta.quota.token_count` (`input_tokens`, `output_tokens`: 0.61.0 sends no `usage` and no
/// `usage_update`, only this, summed over the prompt's model calls; docs/agents.md). A count that
/// is not a whole number is not read.
pub fn prompt_tokens(answer: &Value) -> (Option<u64>, Option<u64>) {
    let count = |p: &str| answer.pointer(p).and_then(Value::as_u64);
    let usage = (count("/usage/inputTokens"), count("/usage/outputTokens"));
    if usage != (None, None) {
        return usage;
    }
    (
        count("/_meta/quota/token_count/input_tokens"),
        count("/_meta/quota/token_count/output_tokens"),
    )
}

fn refused(err: DecideError) -> AcpError {
    AcpError::Protocol {
        method: "session/request_permission".into(),
        message: err.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Every prompt answer of a recorded run (tests/fixtures/acp), in order.
    fn prompt_answers(recording: &str) -> Vec<Value> {
        let frames: Vec<Value> = recording
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap()["frame"].clone())
            .collect();
        let prompt_ids: Vec<Value> = frames
            .iter()
            .filter(|f| f["method"] == "session/prompt")
            .map(|f| f["id"].clone())
            .collect();
        frames
            .into_iter()
            .filter(|f| f["method"].is_null() && prompt_ids.contains(&f["id"]))
            .map(|f| f["result"].clone())
            .collect()
    }

    /// Gemini CLI 0.61.0 tells a prompt's tokens only in `_meta.quota.token_count`, as the
    /// recorded run has them (two prompts: 30 and 40 tokens each way).
    #[test]
    fn gemini_prompt_tokens_come_from_its_quota_meta() {
        let answers = prompt_answers(include_str!(
            "../../../../tests/fixtures/acp/gemini-cli-0.61.0.jsonl"
        ));
        assert_eq!(answers.len(), 2, "{answers:?}");
        assert!(answers.iter().all(|a| a.get("usage").is_none()));
        let tokens: Vec<_> = answers.iter().map(prompt_tokens).collect();
        assert_eq!(tokens, [(Some(30), Some(30)), (Some(40), Some(40))]);
    }

    /// ACP's own `usage` (claude-agent-acp, OpenCode) is read first; codex-acp 0.16 sends none.
    #[test]
    fn acp_usage_is_read_first_and_none_is_none() {
        for (recording, has) in [
            (
                include_str!("../../../../tests/fixtures/acp/claude-agent-acp-0.23.1.jsonl"),
                true,
            ),
            (
                include_str!("../../../../tests/fixtures/acp/opencode-1.18.33.jsonl"),
                true,
            ),
            (
                include_str!("../../../../tests/fixtures/acp/codex-acp-0.16.0.jsonl"),
                false,
            ),
        ] {
            for a in prompt_answers(recording) {
                let (i, o) = prompt_tokens(&a);
                assert_eq!(i.is_some() && o.is_some(), has, "{a}");
                if has {
                    assert_eq!(i, a.pointer("/usage/inputTokens").and_then(Value::as_u64));
                }
            }
        }
        let both = json!({"usage": {"inputTokens": 5, "outputTokens": 6},
            "_meta": {"quota": {"token_count": {"input_tokens": 50, "output_tokens": 60}}}});
        assert_eq!(prompt_tokens(&both), (Some(5), Some(6)));
        let odd = json!({"_meta": {"quota": {"token_count": {"input_tokens": -1, "output_tokens": "7"}}}});
        assert_eq!(prompt_tokens(&odd), (None, None));
    }
}
