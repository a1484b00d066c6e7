//! Agents that speak the Agent Client Protocol (ACP: JSON-RPC 2.0 over the agent's stdio), the
//! sturdy path for the sessions Plandeck starts: the agent's plan and its permission requests come
//! as structured messages, not a screen to read (issue 36).
//!
//! - [`wire`]: frames, one JSON object a line, read with a bound;
//! - [`client`]: the agent's process and the calls (`initialize`, `session/new`, `session/set_mode`,
//!   `session/prompt`, `session/cancel`, `session/load`), its requests answered (permissions go to
//!   the host as [`Event::Permission`]; the file system and terminals are not offered);
//! - [`gate`]: a permission request as a waiting request (`plan` or `permission`), decided with
//!   the agent's own options, and whether the session stayed gated.
//!
//! What each adapter was seen to send is in `docs/agents.md` ("Agents over ACP").

pub mod catalog;
pub mod client;
pub mod gate;
pub mod host;
pub mod requests;
pub mod session;
pub mod wire;

use serde::Deserialize;
use serde_json::Value;

pub use client::{AcpError, AgentCommand, Client, Pending};
pub use gate::{DecideError, Decided, Outcome, RequestKind, Tracker, Waiting};

/// Titles and names from the agent are shown on one line, this long at most.
pub const MAX_TITLE_CHARS: usize = 300;
/// The most modes kept of what an agent offers (`session/new`'s `availableModes`; more are left
/// out), and the most characters of a mode's id.
pub const MAX_MODES: usize = 32;
pub const MAX_MODE_ID_CHARS: usize = 64;

/// What every ACP agent is started with from Plandeck's environment, whatever its entry: where
/// programs and its home are, the language and terminal, temporary and XDG folders, the
/// certificates and proxies it needs to reach its model (`NAME`, or a prefix `NAME_*`).
pub const BASIC_ENV: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "LC_*",
    "TERM",
    "COLORTERM",
    "TZ",
    "TMPDIR",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
    "XDG_STATE_HOME",
    "XDG_RUNTIME_DIR",
    "NODE_EXTRA_CA_CERTS",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "all_proxy",
];

fn named(patterns: &[&str], key: &str) -> bool {
    patterns.iter().any(|p| match p.strip_suffix('*') {
        Some(prefix) => key.starts_with(prefix),
        None => key == *p,
    })
}

/// The environment an ACP agent is started with, from the one Plandeck runs in: only the
/// [`BASIC_ENV`] and what its catalog entry names (`allowed`: its model API's variables); nothing
/// else of Plandeck's (another service's tokens, the ssh agent, Plandeck's own settings) reaches
/// it. `IS_SANDBOX` is kept only when it is exactly `"1"`: claude-agent-acp 0.23 takes any
/// non-empty `IS_SANDBOX` as leave to start Claude Code with `--allow-dangerously-skip-permissions`,
/// which Claude Code, as root, accepts only with `IS_SANDBOX=1`: any other value makes every
/// `session/new` fail with "Query closed before response received" (docs/agents.md).
pub fn agent_env(
    allowed: &[&str],
    from: impl IntoIterator<Item = (String, String)>,
) -> Vec<(String, String)> {
    from.into_iter()
        .filter(|(k, _)| named(BASIC_ENV, k) || named(allowed, k))
        .filter(|(k, v)| k != "IS_SANDBOX" || v == "1")
        .collect()
}

/// One option the agent offers for a permission request (the gate's: it waits there).
pub use crate::gate::AcpOption as PermissionOption;

/// The tool call a permission request or an update is about.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    #[serde(default)]
    pub tool_call_id: String,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub kind: Option<String>,
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub raw_input: Option<Value>,
    #[serde(default)]
    pub content: Option<Value>,
    #[serde(default)]
    pub locations: Option<Value>,
}

/// `session/request_permission`'s params.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionRequest {
    pub session_id: String,
    pub tool_call: ToolCall,
    pub options: Vec<PermissionOption>,
}

/// One entry of the agent's plan (`plan` update).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct PlanEntry {
    #[serde(default)]
    pub content: String,
    #[serde(default)]
    pub status: String,
    #[serde(default)]
    pub priority: String,
}

/// A `session/update`, the kinds Plandeck reads; the rest are [`Update::Other`] (known, not
/// used) or [`Update::Unknown`] (logged and skipped).
#[derive(Debug, Clone, PartialEq)]
pub enum Update {
    Plan(Vec<PlanEntry>),
    /// `tool_call` (`update: false`) or `tool_call_update` (`update: true`).
    ToolCall {
        call: Box<ToolCall>,
        update: bool,
    },
    /// The session's mode (`current_mode_update`, or the `mode` of a `config_option_update`).
    Mode(String),
    /// `usage_update`: context used and its size, the cost where sent.
    Usage {
        used: Option<u64>,
        size: Option<u64>,
        cost_usd: Option<f64>,
    },
    /// A chunk of a message: `agent_message_chunk`, `agent_thought_chunk`, `user_message_chunk`.
    Chunk {
        kind: String,
        text: String,
    },
    Other(String),
    Unknown(String),
}

const KNOWN_OTHER: &[&str] = &[
    "available_commands_update",
    "session_info_update",
    "config_option_update",
];

impl Update {
    /// Reads a `session/update`'s `update` object; never fails (what does not fit is Unknown).
    pub fn parse(update: &Value) -> Update {
        let kind = update
            .get("sessionUpdate")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let parsed =
            match kind.as_str() {
                "plan" => update
                    .get("entries")
                    .cloned()
                    .and_then(|e| serde_json::from_value(e).ok())
                    .map(Update::Plan),
                "tool_call" | "tool_call_update" => serde_json::from_value(update.clone())
                    .ok()
                    .map(|call| Update::ToolCall {
                        call: Box::new(call),
                        update: kind == "tool_call_update",
                    }),
                "current_mode_update" => update
                    .get("currentModeId")
                    .and_then(Value::as_str)
                    .map(|m| Update::Mode(mode_id(m))),
                "config_option_update" => Some(
                    update
                        .get("configOptions")
                        .and_then(Value::as_array)
                        .and_then(|opts| {
                            opts.iter()
                                .find(|o| o.get("id").and_then(Value::as_str) == Some("mode"))
                        })
                        .and_then(|o| o.get("currentValue").and_then(Value::as_str))
                        .map(|m| Update::Mode(mode_id(m)))
                        .unwrap_or(Update::Other(kind.clone())),
                ),
                "usage_update" => Some(Update::Usage {
                    used: update.get("used").and_then(Value::as_u64),
                    size: update.get("size").and_then(Value::as_u64),
                    cost_usd: update
                        .get("cost")
                        .filter(|c| c.get("currency").and_then(Value::as_str) == Some("USD"))
                        .and_then(|c| c.get("amount"))
                        .and_then(Value::as_f64),
                }),
                "agent_message_chunk" => {
                    let text = update
                        .pointer("/content/text")
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    Some(match gemini_mode_update(text) {
                        Some(mode) => Update::Mode(mode.to_owned()),
                        None => Update::Chunk {
                            kind: kind.clone(),
                            text: text.to_owned(),
                        },
                    })
                }
                "agent_thought_chunk" | "user_message_chunk" => Some(Update::Chunk {
                    kind: kind.clone(),
                    text: update
                        .pointer("/content/text")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned(),
                }),
                k if KNOWN_OTHER.contains(&k) => Some(Update::Other(kind.clone())),
                _ => None,
            };
        parsed.unwrap_or(Update::Unknown(kind))
    }
}

/// Gemini CLI (0.61.0) reports its mode changes as a whole `agent_message_chunk` whose text is
/// `[MODE_UPDATE] <mode>`, not as `current_mode_update`. Only that exact form is a mode change:
/// the marker, one space, a mode id (letters, digits, `-`, `_`; at most 64), nothing else, so
/// text that merely mentions it stays a message.
fn gemini_mode_update(text: &str) -> Option<&str> {
    let mode = text.strip_prefix("[MODE_UPDATE] ")?;
    let ok = !mode.is_empty()
        && mode.len() <= 64
        && mode
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    ok.then_some(mode)
}

/// What the client hands its host, in the order the agent sent it.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    Update {
        session_id: String,
        update: Update,
    },
    /// The agent asks; answer with [`Client::respond`] (`rpc_id` as the agent sent it).
    Permission {
        rpc_id: Value,
        request: Box<PermissionRequest>,
    },
    /// Something read and skipped (an oversized or garbled line, an unknown update kind, a
    /// request the client does not serve): for the log, never fatal.
    Skipped(String),
    /// The agent's output ended (it exited or closed it): nothing more comes.
    Exited,
}

/// A one-line, visible, bounded form of a title or name the agent sent.
/// A mode's id as kept: as sent when it is at most [`MAX_MODE_ID_CHARS`] visible characters with
/// no space, else marked (control and invisible characters shown) and cut: never `plan` unless it
/// was exactly `plan`.
pub fn mode_id(id: &str) -> String {
    if plain_mode_id(id) {
        return id.to_owned();
    }
    let shown = crate::visible::shown(id).replace(char::is_whitespace, " ");
    let mut out: String = shown.chars().take(MAX_MODE_ID_CHARS).collect();
    if shown.chars().count() > MAX_MODE_ID_CHARS || out.is_empty() {
        out.push('…');
    }
    out
}

/// A mode id kept as sent: at most [`MAX_MODE_ID_CHARS`] visible characters, no space.
pub(crate) fn plain_mode_id(id: &str) -> bool {
    !id.is_empty()
        && id.chars().count() <= MAX_MODE_ID_CHARS
        && !id.chars().any(char::is_whitespace)
        && crate::visible::shown(id) == id
}

pub fn one_line(text: &str) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c == '\n' || c == '\t' { ' ' } else { c })
        .collect();
    let shown = crate::visible::shown(&flat);
    let mut out: String = shown.chars().take(MAX_TITLE_CHARS).collect();
    if shown.chars().count() > MAX_TITLE_CHARS {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn is_sandbox_is_kept_only_when_one() {
        let env = |v: &str| {
            vec![
                ("IS_SANDBOX".to_owned(), v.to_owned()),
                ("HOME".into(), "/h".into()),
            ]
        };
        let claude = catalog::acp_entry("claude-acp").unwrap().env;
        assert_eq!(
            agent_env(claude, env("yes")),
            vec![("HOME".to_owned(), "/h".to_owned())]
        );
        assert_eq!(agent_env(claude, env("true")).len(), 1);
        assert_eq!(agent_env(claude, env("1")).len(), 2);
    }

    /// Hostile review: the agent got Plandeck's whole environment. Now the basics and what its
    /// entry names: its model API's variables, not another service's.
    #[test]
    fn an_agent_gets_the_basics_and_its_own_apis_variables_only() {
        let plandecks: Vec<(String, String)> = [
            ("PATH", "/usr/bin"),
            ("HOME", "/home/dev"),
            ("LANG", "C.UTF-8"),
            ("LC_ALL", "C.UTF-8"),
            ("TERM", "xterm"),
            ("ANTHROPIC_API_KEY", "sk-ant"),
            ("ANTHROPIC_BASE_URL", "http://127.0.0.1:1"),
            ("OPENAI_API_KEY", "sk-openai"),
            ("GITHUB_TOKEN", "ghp_x"),
            ("AWS_SECRET_ACCESS_KEY", "aws"),
            ("SSH_AUTH_SOCK", "/tmp/ssh"),
            ("PLANDECK_DATA_DIR", "/d"),
            ("TMUX", "/tmp/tmux,1,0"),
            ("LD_PRELOAD", "/evil.so"),
        ]
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
        let keys = |name: &str| -> Vec<String> {
            let entry = catalog::acp_entry(name).unwrap();
            agent_env(entry.env, plandecks.clone())
                .into_iter()
                .map(|(k, _)| k)
                .collect()
        };
        assert_eq!(
            keys("claude-acp"),
            [
                "PATH",
                "HOME",
                "LANG",
                "LC_ALL",
                "TERM",
                "ANTHROPIC_API_KEY",
                "ANTHROPIC_BASE_URL"
            ]
        );
        assert_eq!(
            keys("codex-acp"),
            ["PATH", "HOME", "LANG", "LC_ALL", "TERM", "OPENAI_API_KEY"]
        );
        for name in ["claude-acp", "codex-acp", "gemini-acp", "opencode"] {
            let k = keys(name);
            for secret in [
                "GITHUB_TOKEN",
                "AWS_SECRET_ACCESS_KEY",
                "SSH_AUTH_SOCK",
                "PLANDECK_DATA_DIR",
                "TMUX",
                "LD_PRELOAD",
            ] {
                assert!(!k.iter().any(|x| x == secret), "{name} got {secret}");
            }
        }
    }

    #[test]
    fn updates_read_from_the_recorded_claude_adapter() {
        let text = include_str!("../../../../tests/fixtures/acp/claude-agent-acp-0.23.1.jsonl");
        let mut kinds = Vec::new();
        for line in text.lines() {
            let v: Value = serde_json::from_str(line).unwrap();
            if v["dir"] == "in" && v["frame"]["method"] == "session/update" {
                kinds.push(Update::parse(&v["frame"]["params"]["update"]));
            }
        }
        assert!(kinds
            .iter()
            .any(|u| matches!(u, Update::Mode(m) if m == "plan")));
        assert!(kinds.iter().any(|u| matches!(u, Update::ToolCall { call, .. } if call.kind.as_deref() == Some("switch_mode"))));
        assert!(kinds.contains(&Update::Usage {
            used: Some(11),
            size: Some(200000),
            cost_usd: Some(0.00054)
        }));
        assert!(
            !kinds.iter().any(|u| matches!(u, Update::Unknown(_))),
            "{kinds:?}"
        );
    }

    /// The frames recorded with the real codex-acp 0.16.0, Gemini CLI 0.61.0 and OpenCode 1.18.33
    /// (tests/fixtures/acp, docs/agents.md): every update is one the client knows, every
    /// permission request reads, and each request is what its test decided it as: Gemini's plan
    /// approval a plan with the plan file's text, the others tool permissions with their command.
    #[test]
    fn the_recorded_adapters_frames_read_as_their_requests() {
        let runs = [
            (
                include_str!("../../../../tests/fixtures/acp/codex-acp-0.16.0.jsonl"),
                vec![
                    (RequestKind::Permission, "touch allowed.txt"),
                    (RequestKind::Permission, "touch refused.txt"),
                ],
            ),
            (
                include_str!("../../../../tests/fixtures/acp/gemini-cli-0.61.0.jsonl"),
                vec![
                    (RequestKind::Plan, "Requesting plan approval for: "),
                    (RequestKind::Plan, "Requesting plan approval for: "),
                    (RequestKind::Permission, "Writing to NOTES.md"),
                ],
            ),
            (
                include_str!("../../../../tests/fixtures/acp/opencode-1.18.33.jsonl"),
                vec![
                    (RequestKind::Permission, "touch allowed.txt"),
                    (RequestKind::Permission, "touch refused.txt"),
                ],
            ),
            // In its plan mode, with commands allowed: nothing asked.
            (
                include_str!("../../../../tests/fixtures/acp/opencode-1.18.33-plan.jsonl"),
                vec![],
            ),
        ];
        for (text, expected) in runs {
            let mut tracker = Tracker::new();
            let mut asked = Vec::new();
            for line in text.lines() {
                let v: Value = serde_json::from_str(line).unwrap();
                if v["dir"] != "in" {
                    continue;
                }
                let f = &v["frame"];
                let event = match f["method"].as_str() {
                    Some("session/update") => {
                        let update = Update::parse(&f["params"]["update"]);
                        assert!(!matches!(update, Update::Unknown(_)), "{update:?}");
                        Event::Update {
                            session_id: String::new(),
                            update,
                        }
                    }
                    Some("session/request_permission") => Event::Permission {
                        rpc_id: f["id"].clone(),
                        request: Box::new(serde_json::from_value(f["params"].clone()).unwrap()),
                    },
                    _ => continue,
                };
                if let Some(w) = tracker.on_event(&event) {
                    asked.push(w);
                }
            }
            assert_eq!(asked.len(), expected.len(), "{asked:#?}");
            for (w, (kind, title)) in asked.iter().zip(&expected) {
                assert_eq!(w.kind, *kind, "{w:?}");
                assert!(w.title.starts_with(title), "{w:?}");
                assert!(w.options.iter().any(|o| o.kind == "allow_once"));
                assert!(w.options.iter().any(|o| o.kind == "reject_once"));
                if *kind == RequestKind::Plan {
                    assert_eq!(
                        w.plan.as_deref(),
                        Some("# Plan: add pagination\n\n1. Add `page` and `limit` params\n2. Return a cursor\n3. Write tests\n")
                    );
                }
            }
        }
    }

    #[test]
    fn geminis_mode_update_chunk_is_a_mode_change_only_in_its_exact_form() {
        let chunk = |t: &str| {
            Update::parse(&json!({"sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": t}}))
        };
        assert_eq!(chunk("[MODE_UPDATE] plan"), Update::Mode("plan".into()));
        assert_eq!(
            chunk("[MODE_UPDATE] autoEdit"),
            Update::Mode("autoEdit".into())
        );
        for text in [
            "[MODE_UPDATE]",
            "[MODE_UPDATE] ",
            "[MODE_UPDATE] plan\n",
            "[MODE_UPDATE]  plan",
            "[MODE_UPDATE] plan now",
            " [MODE_UPDATE] plan",
            "see [MODE_UPDATE] plan",
            "[mode_update] plan",
        ] {
            assert!(matches!(chunk(text), Update::Chunk { .. }), "{text:?}");
        }
        let thought = Update::parse(&json!({"sessionUpdate": "agent_thought_chunk",
            "content": {"type": "text", "text": "[MODE_UPDATE] default"}}));
        assert!(matches!(thought, Update::Chunk { .. }));
    }

    /// Gemini CLI 0.61.0 as recorded: plan mode set, the plan approved, then its
    /// `[MODE_UPDATE] default` chunk: the mode follows and the session stays gated. The same
    /// chunk with no approval before it ungates the session.
    #[test]
    fn gemini_recorded_mode_updates_move_the_mode_and_gated() {
        let text = include_str!("../../../../tests/fixtures/acp/gemini-cli-0.61.0.jsonl");
        let replay = |answer: bool| {
            let mut tracker = Tracker::new();
            let mut modes = Vec::new();
            for line in text.lines() {
                let v: Value = serde_json::from_str(line).unwrap();
                let f = &v["frame"];
                if v["dir"] == "out" {
                    if f["method"] == "session/set_mode" {
                        tracker.mode_set(f["params"]["modeId"].as_str().unwrap());
                    }
                    let chosen = f
                        .pointer("/result/outcome/optionId")
                        .and_then(Value::as_str);
                    if let (true, Some(option)) = (answer, chosen) {
                        let id = f["id"].clone();
                        if option == "cancel" {
                            tracker.reject(&id).unwrap();
                        } else {
                            tracker.approve(&id, Some(option)).unwrap();
                        }
                    }
                    continue;
                }
                let event = match f["method"].as_str() {
                    Some("session/update") => {
                        let update = Update::parse(&f["params"]["update"]);
                        if let Update::Mode(m) = &update {
                            modes.push(m.clone());
                        }
                        Event::Update {
                            session_id: String::new(),
                            update,
                        }
                    }
                    Some("session/request_permission") => Event::Permission {
                        rpc_id: f["id"].clone(),
                        request: Box::new(serde_json::from_value(f["params"].clone()).unwrap()),
                    },
                    _ => continue,
                };
                tracker.on_event(&event);
            }
            (tracker, modes)
        };
        let (tracker, modes) = replay(true);
        assert_eq!(modes, vec!["plan", "default"]);
        assert_eq!(tracker.mode(), Some("default"));
        assert!(tracker.gated(), "{:?}", tracker.ungated_why());
        let (tracker, _) = replay(false);
        assert_eq!(tracker.mode(), Some("default"));
        assert!(!tracker.gated());
    }

    #[test]
    fn an_unknown_kind_is_unknown_never_an_error() {
        assert_eq!(
            Update::parse(&json!({"sessionUpdate": "hologram"})),
            Update::Unknown("hologram".into())
        );
        assert_eq!(Update::parse(&json!(7)), Update::Unknown(String::new()));
        assert_eq!(
            Update::parse(&json!({"sessionUpdate": "plan", "entries": 3})),
            Update::Unknown("plan".into())
        );
    }

    #[test]
    fn titles_are_one_visible_bounded_line() {
        assert_eq!(one_line("rm -rf /\n\u{1b}[2Jok"), "rm -rf / ⟨U+001B⟩[2Jok");
        assert_eq!(
            one_line(&"x".repeat(1000)).chars().count(),
            MAX_TITLE_CHARS + 1
        );
    }
}
