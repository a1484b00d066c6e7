//! The client side of ACP: starts the agent, sends calls, reads what it sends on a thread of its
//! own and hands it to the host as [`Event`]s.
//!
//! The client offers the agent no file system and no terminal (`clientCapabilities` say so): an
//! `fs/*` or `terminal/*` request is refused, so an agent never reads or writes through Plandeck,
//! inside its folder or out. Every other request but `session/request_permission` is answered
//! "method not found" and logged.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};

use super::wire::{self, Frame, Read, RpcError};
use super::{Event, PermissionRequest, Update};

/// How an ACP agent is started.
#[derive(Debug, Clone)]
pub struct AgentCommand {
    pub program: PathBuf,
    pub args: Vec<String>,
    /// The whole environment (not added to Plandeck's): see [`super::agent_env`].
    pub env: Vec<(String, String)>,
    /// The folder it runs in (the session's worktree).
    pub cwd: PathBuf,
}

#[derive(Debug, thiserror::Error)]
pub enum AcpError {
    #[error("could not start {program}: {source}")]
    Spawn {
        program: String,
        source: std::io::Error,
    },
    #[error("could not write to the agent: {0}")]
    Write(std::io::Error),
    #[error("the agent refused {method}: {error}")]
    Refused { method: String, error: RpcError },
    #[error("the agent ended before answering {method}")]
    Gone { method: String },
    #[error("the agent did not answer {method} within {secs} s")]
    Timeout { method: String, secs: u64 },
    #[error("the agent's answer to {method} is not what ACP says: {message}")]
    Protocol { method: String, message: String },
    /// Resume asked of an agent that does not offer loading a session (`loadSession`).
    #[error("the agent does not offer loading a session (session/load)")]
    CannotLoad,
}

type Waiters = Arc<Mutex<HashMap<u64, Sender<Result<Value, RpcError>>>>>;
type Input = Arc<Mutex<Option<ChildStdin>>>;

/// A running agent. Dropping it ends the agent's process group.
pub struct Client {
    stdin: Input,
    child: Mutex<Child>,
    /// The agent's watchdog ([`watchdog`]): ends the agent's group when this process ends.
    watchdog: Mutex<Option<Child>>,
    next_id: AtomicU64,
    waiters: Waiters,
}

/// What the watchdog runs: it waits for its input to close (only this process holds it open, and
/// nothing is ever written to it), then ends its process group, the agent's. `read` and `kill`
/// are the shell's own: no program is looked up, no data of anyone's is in it.
pub(crate) const WATCHDOG: &str = "read -r line; kill -TERM 0";
/// The watchdog's program.
pub(crate) const WATCHDOG_SHELL: &str = "/bin/sh";

/// The agent's watchdog: `/bin/sh` running [`WATCHDOG`] in the agent's process group, its input a
/// pipe only this process holds open. However this process ends (the server killed with SIGKILL
/// included), the kernel closes that pipe and the watchdog ends the agent's process group, the
/// agent and its children (claude-agent-acp's Claude Code), so no agent outlives its host. Being
/// in the group, it keeps the group's id from being taken by another process while it waits.
/// (`PR_SET_PDEATHSIG` would need code run in the child before `exec`, `unsafe` this crate
/// forbids, and it follows the thread that spawned the child, not the process.) `None` when it
/// cannot be started (said in the log): the agent runs, ended only by Stop or its host.
fn watchdog(agent_pid: u32) -> Option<Child> {
    use std::os::unix::process::CommandExt;
    let group = i32::try_from(agent_pid).ok()?;
    match Command::new(WATCHDOG_SHELL)
        .args(["-c", WATCHDOG])
        .env_clear()
        .current_dir("/")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(group)
        .spawn()
    {
        Ok(child) => Some(child),
        Err(e) => {
            tracing::warn!(
                "the ACP agent (pid {agent_pid}) has no watchdog: it may outlive this process \
                 if it is killed: {e}"
            );
            None
        }
    }
}

/// A call sent, its answer to come.
pub struct Pending {
    method: String,
    rx: Receiver<Result<Value, RpcError>>,
}

impl Pending {
    /// Waits for the answer.
    pub fn wait(self, timeout: Duration) -> Result<Value, AcpError> {
        match self.rx.recv_timeout(timeout) {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(error)) => Err(AcpError::Refused {
                method: self.method,
                error,
            }),
            Err(mpsc::RecvTimeoutError::Timeout) => Err(AcpError::Timeout {
                method: self.method,
                secs: timeout.as_secs(),
            }),
            Err(mpsc::RecvTimeoutError::Disconnected) => Err(AcpError::Gone {
                method: self.method,
            }),
        }
    }
}

/// What `session/new` tells.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionInfo {
    pub session_id: String,
    pub current_mode: Option<String>,
    pub modes: Vec<String>,
    /// The modes came as a `configOptions` entry `mode` (OpenCode 1.18: its agents `build` and
    /// `plan`), not as `modes`: a mode is set with `session/set_config_option`.
    pub modes_as_option: bool,
}

impl SessionInfo {
    fn parse(method: &str, v: &Value, session_id: Option<&str>) -> Result<SessionInfo, AcpError> {
        let session_id = match session_id {
            Some(s) => s.to_owned(),
            None => v
                .get("sessionId")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty() && s.len() <= 200)
                .ok_or_else(|| AcpError::Protocol {
                    method: method.into(),
                    message: "no sessionId".into(),
                })?
                .to_owned(),
        };
        // What a hostile agent offers is bounded: at most MAX_MODES ids, each one Plandeck could
        // set as sent (a longer or unprintable id is left out, as is a repeat).
        let mut modes: Vec<String> = Vec::new();
        let listed = v
            .pointer("/modes/availableModes")
            .and_then(Value::as_array)
            .filter(|m| !m.is_empty());
        // No `modes`: a select `configOptions` entry `mode` (OpenCode's agents), its values.
        let option = match listed {
            Some(_) => None,
            None => v
                .get("configOptions")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .find(|o| o.get("id").and_then(Value::as_str) == Some("mode")),
        };
        let ids: Vec<&str> = match (listed, option) {
            (Some(m), _) => m
                .iter()
                .filter_map(|m| m.get("id").and_then(Value::as_str))
                .collect(),
            (None, Some(o)) => o
                .get("options")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|m| m.get("value").and_then(Value::as_str))
                .collect(),
            (None, None) => Vec::new(),
        };
        for id in ids {
            if modes.len() == super::MAX_MODES {
                break;
            }
            if super::plain_mode_id(id) && !modes.iter().any(|m| m == id) {
                modes.push(id.to_owned());
            }
        }
        let current = match option {
            Some(o) => o.get("currentValue"),
            None => v.pointer("/modes/currentModeId"),
        };
        Ok(SessionInfo {
            session_id,
            current_mode: current.and_then(Value::as_str).map(super::mode_id),
            modes_as_option: option.is_some() && !modes.is_empty(),
            modes,
        })
    }
}

impl Client {
    /// Starts the agent (a process group of its own, so stopping it ends its children too) and
    /// the thread that reads it. Events come on the receiver, in the agent's order.
    pub fn spawn(cmd: &AgentCommand) -> Result<(Client, Receiver<Event>), AcpError> {
        use std::os::unix::process::CommandExt;
        let mut child = Command::new(&cmd.program)
            .args(&cmd.args)
            .env_clear()
            .envs(cmd.env.iter().map(|(k, v)| (k, v)))
            .current_dir(&cmd.cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .map_err(|source| AcpError::Spawn {
                program: cmd.program.display().to_string(),
                source,
            })?;
        let watchdog = watchdog(child.id());
        let stdin: Input = Arc::new(Mutex::new(child.stdin.take()));
        let stdout = child.stdout.take();
        let waiters: Waiters = Arc::default();
        let (tx, rx) = mpsc::channel();
        if let Some(stdout) = stdout {
            let (w, i) = (waiters.clone(), stdin.clone());
            std::thread::Builder::new()
                .name("acp-reader".into())
                .spawn(move || read_loop(BufReader::new(stdout), w, i, tx))
                .map_err(|source| AcpError::Spawn {
                    program: "the ACP reader thread".into(),
                    source,
                })?;
        }
        Ok((
            Client {
                stdin,
                child: Mutex::new(child),
                watchdog: Mutex::new(watchdog),
                next_id: AtomicU64::new(1),
                waiters,
            },
            rx,
        ))
    }

    /// Sends a call; its answer comes through the returned [`Pending`].
    pub fn call(&self, method: &str, params: Value) -> Result<Pending, AcpError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = mpsc::channel();
        lock(&self.waiters).insert(id, tx);
        let frame = Frame::Request {
            id: json!(id),
            method: method.to_owned(),
            params,
        };
        if let Err(e) = send(&self.stdin, &frame) {
            lock(&self.waiters).remove(&id);
            return Err(e);
        }
        Ok(Pending {
            method: method.to_owned(),
            rx,
        })
    }

    /// Sends a notification (no answer).
    pub fn notify(&self, method: &str, params: Value) -> Result<(), AcpError> {
        send(
            &self.stdin,
            &Frame::Notification {
                method: method.to_owned(),
                params,
            },
        )
    }

    /// Answers one of the agent's requests.
    pub fn respond(&self, rpc_id: &Value, result: Value) -> Result<(), AcpError> {
        send(
            &self.stdin,
            &Frame::Response {
                id: rpc_id.clone(),
                result: Ok(result),
            },
        )
    }

    /// `initialize`: the protocol version and what the client offers (no file system, no
    /// terminal). Returns the agent's answer (its capabilities).
    pub fn initialize(&self, timeout: Duration) -> Result<Value, AcpError> {
        let answer = self
            .call(
                "initialize",
                json!({
                    "protocolVersion": wire::PROTOCOL_VERSION,
                    "clientCapabilities": {
                        "fs": {"readTextFile": false, "writeTextFile": false},
                        "terminal": false
                    },
                    "clientInfo": {"name": "plandeck", "version": env!("CARGO_PKG_VERSION")}
                }),
            )?
            .wait(timeout)?;
        match answer.get("protocolVersion").and_then(Value::as_u64) {
            Some(wire::PROTOCOL_VERSION) => Ok(answer),
            other => Err(AcpError::Protocol {
                method: "initialize".into(),
                message: format!("protocol version {other:?}, not {}", wire::PROTOCOL_VERSION),
            }),
        }
    }

    /// `session/new` in `cwd` (absolute), no MCP servers.
    pub fn new_session(&self, cwd: &Path, timeout: Duration) -> Result<SessionInfo, AcpError> {
        let v = self
            .call(
                "session/new",
                json!({"cwd": cwd.to_string_lossy(), "mcpServers": []}),
            )?
            .wait(timeout)?;
        SessionInfo::parse("session/new", &v, None)
    }

    /// `session/load` of an earlier session (where the agent offers `loadSession`).
    pub fn load_session(
        &self,
        session_id: &str,
        cwd: &Path,
        timeout: Duration,
    ) -> Result<SessionInfo, AcpError> {
        let v = self
            .call(
                "session/load",
                json!({"sessionId": session_id, "cwd": cwd.to_string_lossy(), "mcpServers": []}),
            )?
            .wait(timeout)?;
        SessionInfo::parse("session/load", &v, Some(session_id))
    }

    /// `session/set_mode`.
    pub fn set_mode(
        &self,
        session_id: &str,
        mode: &str,
        timeout: Duration,
    ) -> Result<(), AcpError> {
        self.answered(
            "session/set_mode",
            json!({"sessionId": session_id, "modeId": mode}),
            timeout,
        )
    }

    /// `session/set_config_option` of the option `mode` (an agent whose modes are that option).
    pub fn set_mode_option(
        &self,
        session_id: &str,
        mode: &str,
        timeout: Duration,
    ) -> Result<(), AcpError> {
        self.answered(
            "session/set_config_option",
            json!({"sessionId": session_id, "configId": "mode", "value": mode}),
            timeout,
        )
    }

    /// A call whose answer says only that it was done.
    fn answered(&self, method: &str, params: Value, timeout: Duration) -> Result<(), AcpError> {
        self.call(method, params)?.wait(timeout).map(|_| ())
    }

    /// `session/prompt` with one text block; the answer (its `stopReason`) comes when the turn
    /// ends, so the host reads events meanwhile.
    pub fn prompt(&self, session_id: &str, text: &str) -> Result<Pending, AcpError> {
        self.call(
            "session/prompt",
            json!({"sessionId": session_id, "prompt": [{"type": "text", "text": text}]}),
        )
    }

    /// `session/cancel`: the turn under way ends (`stopReason: cancelled`).
    pub fn cancel(&self, session_id: &str) -> Result<(), AcpError> {
        self.notify("session/cancel", json!({"sessionId": session_id}))
    }

    /// Ends the agent: its input closed, then its process group ended (its watchdog with it).
    pub fn stop(&self) {
        lock(&self.stdin).take();
        let mut child = lock(&self.child);
        if let Ok(pid) = i32::try_from(child.id()) {
            if let Some(pid) = rustix::process::Pid::from_raw(pid) {
                let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::TERM);
            }
        }
        let _ = child.wait();
        drop(child);
        self.end_watchdog();
    }

    /// The watchdog's input closed: it ends what is left of the agent's group and itself, and is
    /// waited for (no zombie left).
    fn end_watchdog(&self) {
        if let Some(mut w) = lock(&self.watchdog).take() {
            drop(w.stdin.take());
            let _ = w.wait();
        }
    }

    /// The agent's process id.
    pub fn pid(&self) -> u32 {
        lock(&self.child).id()
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let exited = lock(&self.child).try_wait().ok().flatten().is_some();
        if exited {
            self.end_watchdog();
        } else {
            self.stop();
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn send(stdin: &Input, frame: &Frame) -> Result<(), AcpError> {
    let mut guard = lock(stdin);
    let Some(pipe) = guard.as_mut() else {
        return Err(AcpError::Write(std::io::ErrorKind::BrokenPipe.into()));
    };
    pipe.write_all(frame.encode().as_bytes())
        .and_then(|()| pipe.flush())
        .map_err(AcpError::Write)
}

fn read_loop(mut input: impl BufRead, waiters: Waiters, stdin: Input, events: Sender<Event>) {
    let emit = |e: Event| {
        let _ = events.send(e);
    };
    loop {
        let read = match wire::read(&mut input) {
            Ok(Some(r)) => r,
            Ok(None) | Err(_) => break,
        };
        match read {
            Read::Oversized(n) => {
                tracing::warn!(bytes = n, "acp: a line over the limit, skipped");
                emit(Event::Skipped(format!(
                    "a line of {n} bytes, over the limit"
                )));
            }
            Read::Garbled(start) => {
                tracing::warn!(start, "acp: a line that is no JSON-RPC frame, skipped");
                emit(Event::Skipped(format!("a line that is no frame: {start}")));
            }
            Read::Frame(Frame::Response { id, result }) => {
                let waiter = id.as_u64().and_then(|id| lock(&waiters).remove(&id));
                match waiter {
                    Some(tx) => {
                        let _ = tx.send(result);
                    }
                    None => emit(Event::Skipped(format!("an answer to no call ({id})"))),
                }
            }
            Read::Frame(Frame::Notification { method, params }) => {
                if method == "session/update" {
                    let session_id = params
                        .get("sessionId")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned();
                    let update = Update::parse(params.get("update").unwrap_or(&Value::Null));
                    if let Update::Unknown(kind) = &update {
                        tracing::info!(
                            kind = %wire::for_log(kind),
                            "acp: an update kind not known, skipped"
                        );
                        emit(Event::Skipped(format!(
                            "an update of kind \"{}\"",
                            wire::for_log(kind)
                        )));
                        continue;
                    }
                    emit(Event::Update { session_id, update });
                } else {
                    emit(Event::Skipped(format!(
                        "a notification \"{}\"",
                        wire::for_log(&method)
                    )));
                }
            }
            Read::Frame(Frame::Request { id, method, params }) => {
                if method == "session/request_permission" {
                    match serde_json::from_value::<PermissionRequest>(params) {
                        Ok(request) => emit(Event::Permission {
                            rpc_id: id,
                            request: Box::new(request),
                        }),
                        Err(e) => {
                            refuse(&stdin, id, wire::INVALID_PARAMS, &format!("{e}"));
                            emit(Event::Skipped(format!(
                                "a permission request not read: {}",
                                wire::for_log(&e.to_string())
                            )));
                        }
                    }
                } else {
                    let why = if method.starts_with("fs/") || method.starts_with("terminal/") {
                        "Plandeck offers no file system and no terminal"
                    } else {
                        "not served by Plandeck"
                    };
                    refuse(&stdin, id, wire::METHOD_NOT_FOUND, why);
                    emit(Event::Skipped(format!(
                        "a request \"{}\", refused",
                        wire::for_log(&method)
                    )));
                }
            }
        }
    }
    // The agent is gone: every call waiting for it ends (its sender dropped: `Gone`).
    lock(&waiters).clear();
    emit(Event::Exited);
}

fn refuse(stdin: &Input, id: Value, code: i64, message: &str) {
    let _ = send(
        stdin,
        &Frame::Response {
            id,
            result: Err(RpcError {
                code,
                message: message.to_owned(),
                data: None,
            }),
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A hostile agent offering ten thousand modes, ids of 100 KB, escapes and repeats: at most
    /// [`super::super::MAX_MODES`] kept, each an id as sent and short; its current mode kept
    /// marked and cut, never taken for `plan`.
    #[test]
    fn the_modes_an_agent_offers_are_bounded_in_count_and_length() {
        let mut offered: Vec<Value> = vec![
            json!({"id": "x".repeat(100_000), "name": "long"}),
            json!({"id": "plan\u{1b}[2J", "name": "escape"}),
            json!({"id": "plan\u{202e}", "name": "invisible"}),
            json!({"id": "with space", "name": "space"}),
            json!({"id": "", "name": "empty"}),
            json!({"id": 7, "name": "no string"}),
            json!({"id": "plan", "name": "Plan"}),
            json!({"id": "plan", "name": "again"}),
        ];
        offered.extend((0..10_000).map(|i| json!({"id": format!("m{i}"), "name": "many"})));
        let v = json!({"sessionId": "s", "modes": {
            "currentModeId": format!("plan{}", "\u{7}".repeat(10_000)),
            "availableModes": offered,
        }});
        let info = SessionInfo::parse("session/new", &v, None).unwrap();
        assert_eq!(info.modes.len(), super::super::MAX_MODES);
        assert_eq!(info.modes[0], "plan");
        assert_eq!(info.modes[1], "m0");
        assert!(info
            .modes
            .iter()
            .all(|m| m.chars().count() <= super::super::MAX_MODE_ID_CHARS));
        let current = info.current_mode.unwrap();
        assert_ne!(current, "plan");
        assert!(current.starts_with("plan⟨U+0007⟩"), "{current}");
        assert!(current.chars().count() <= super::super::MAX_MODE_ID_CHARS + 1);
        // A mode change to a hostile id: bounded, and no `plan`.
        let u = super::super::Update::parse(
            &json!({"sessionUpdate": "current_mode_update", "currentModeId": "y".repeat(1 << 20)}),
        );
        let super::super::Update::Mode(m) = u else {
            panic!("{u:?}")
        };
        assert_eq!(m.chars().count(), super::super::MAX_MODE_ID_CHARS + 1);
    }

    /// The `session/new` answer of a recorded run (tests/fixtures/acp).
    fn session_new_answer(recording: &str) -> Value {
        recording
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap()["frame"].clone())
            .find(|f| f["result"]["sessionId"].is_string())
            .unwrap()["result"]
            .clone()
    }

    /// OpenCode 1.18.33 sends no `modes`: its agents `build` and `plan` are the `configOptions`
    /// entry `mode`, set with `session/set_config_option`. claude-agent-acp sends both (`modes`
    /// is read, set with `session/set_mode`).
    #[test]
    fn opencodes_agents_are_its_modes_set_as_a_config_option() {
        let v = session_new_answer(include_str!(
            "../../../../tests/fixtures/acp/opencode-1.18.33.jsonl"
        ));
        assert!(v.get("modes").is_none());
        let info = SessionInfo::parse("session/new", &v, None).unwrap();
        assert_eq!(info.modes, ["build", "plan"]);
        assert_eq!(info.current_mode.as_deref(), Some("build"));
        assert!(info.modes_as_option);
        let v = session_new_answer(include_str!(
            "../../../../tests/fixtures/acp/claude-agent-acp-0.23.1.jsonl"
        ));
        let info = SessionInfo::parse("session/new", &v, None).unwrap();
        assert!(info.modes.contains(&"plan".to_owned()));
        assert!(!info.modes_as_option);
        // A `mode` option that is no list of values: no modes.
        let odd = json!({"sessionId": "s", "configOptions": [{"id": "mode", "options": "plan"}]});
        let info = SessionInfo::parse("session/new", &odd, None).unwrap();
        assert!(info.modes.is_empty() && !info.modes_as_option);
    }
}
