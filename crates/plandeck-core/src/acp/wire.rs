//! ACP's wire: JSON-RPC 2.0 frames, one JSON object a line, over the agent's stdin and stdout.
//!
//! Reading is bounded: a line longer than [`MAX_LINE`] is skipped whole (never buffered past the
//! limit) and reported as [`Read::Oversized`]; a line that is not a JSON-RPC frame is reported as
//! [`Read::Garbled`]. Neither ends the connection: the caller logs it and reads on.

use std::io::{self, BufRead};

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The longest line read (a plan, a diff, a file's content fit well inside).
pub const MAX_LINE: usize = 8 * 1024 * 1024;

/// The ACP protocol version this client speaks.
pub const PROTOCOL_VERSION: u64 = 1;

/// JSON-RPC error codes used here.
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.message, self.code)?;
        if let Some(d) = &self.data {
            write!(f, ": {d}")?;
        }
        Ok(())
    }
}

/// One frame, either way.
#[derive(Debug, Clone, PartialEq)]
pub enum Frame {
    /// A call that wants an answer (`id` as the peer sent it: a number or a string).
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    /// A call that wants none.
    Notification { method: String, params: Value },
    /// The answer to a request.
    Response {
        id: Value,
        result: Result<Value, RpcError>,
    },
}

impl Frame {
    /// The frame as one line (with its newline).
    pub fn encode(&self) -> String {
        let value = match self {
            Frame::Request { id, method, params } => {
                serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
            }
            Frame::Notification { method, params } => {
                serde_json::json!({"jsonrpc": "2.0", "method": method, "params": params})
            }
            Frame::Response { id, result: Ok(r) } => {
                serde_json::json!({"jsonrpc": "2.0", "id": id, "result": r})
            }
            Frame::Response { id, result: Err(e) } => {
                serde_json::json!({"jsonrpc": "2.0", "id": id, "error": e})
            }
        };
        let mut line = value.to_string();
        line.push('\n');
        line
    }

    /// Reads a frame from one line's text; `None` when it is not a JSON-RPC 2.0 frame.
    pub fn parse(line: &str) -> Option<Frame> {
        let mut v: Value = serde_json::from_str(line).ok()?;
        let obj = v.as_object_mut()?;
        if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return None;
        }
        let id = obj.remove("id").filter(|i| i.is_number() || i.is_string());
        let method = obj.get("method").and_then(Value::as_str).map(str::to_owned);
        let params = obj.remove("params").unwrap_or(Value::Null);
        match (id, method) {
            (Some(id), Some(method)) => Some(Frame::Request { id, method, params }),
            (None, Some(method)) => Some(Frame::Notification { method, params }),
            (Some(id), None) => {
                let result = if let Some(e) = obj.remove("error") {
                    Err(serde_json::from_value(e).ok()?)
                } else {
                    Ok(obj.remove("result")?)
                };
                Some(Frame::Response { id, result })
            }
            (None, None) => None,
        }
    }
}

/// What one read gave.
#[derive(Debug, PartialEq)]
pub enum Read {
    Frame(Frame),
    /// A line over [`MAX_LINE`], skipped (its length so far).
    Oversized(usize),
    /// A line that is no frame: its first characters, escaped for the log ([`for_log`]).
    Garbled(String),
}

/// The most characters of something the agent sent that a log line quotes.
pub const LOG_CHARS: usize = 80;

/// Something the agent sent, as a log line may quote it: its first [`LOG_CHARS`] characters,
/// every control, invisible or quote character escaped (`\u{1b}`, `\n`, `\"`), `…` when cut. A
/// garbled line never writes escape sequences into a terminal or forges a log line.
pub fn for_log(text: &str) -> String {
    let mut out: String = text
        .chars()
        .take(LOG_CHARS)
        .flat_map(|c| {
            let invisible = c.is_control()
                || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}');
            let escaped: String = if invisible {
                format!("\\u{{{:x}}}", c as u32)
            } else {
                c.escape_debug().collect()
            };
            escaped.chars().collect::<Vec<_>>()
        })
        .collect();
    if text.chars().nth(LOG_CHARS).is_some() {
        out.push('…');
    }
    out
}

/// Reads the next non-empty line of `input` as a frame; `Ok(None)` at the end of the stream.
pub fn read(input: &mut impl BufRead) -> io::Result<Option<Read>> {
    loop {
        let mut line = Vec::new();
        let mut over = 0usize;
        let mut any = false;
        loop {
            let buf = input.fill_buf()?;
            if buf.is_empty() {
                break;
            }
            any = true;
            let (take, done) = match memchr::memchr(b'\n', buf) {
                Some(i) => (i + 1, true),
                None => (buf.len(), false),
            };
            if over == 0 && line.len() + take <= MAX_LINE + 1 {
                line.extend_from_slice(&buf[..take]);
            } else {
                over = over.max(line.len()) + take;
                line.clear();
            }
            input.consume(take);
            if done {
                break;
            }
        }
        if !any {
            return Ok(None);
        }
        if over > 0 {
            return Ok(Some(Read::Oversized(over)));
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        return Ok(Some(match Frame::parse(text) {
            Some(f) => Read::Frame(f),
            None => Read::Garbled(for_log(text)),
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn frames_round_trip() {
        let frames = [
            Frame::Request {
                id: json!(3),
                method: "session/new".into(),
                params: json!({"cwd": "/r"}),
            },
            Frame::Request {
                id: json!("a"),
                method: "x".into(),
                params: json!({}),
            },
            Frame::Notification {
                method: "session/update".into(),
                params: json!({"update": {}}),
            },
            Frame::Response {
                id: json!(0),
                result: Ok(json!({"outcome": {"outcome": "cancelled"}})),
            },
            Frame::Response {
                id: json!(9),
                result: Err(RpcError {
                    code: -32603,
                    message: "Internal error".into(),
                    data: Some(json!({"details": "Query closed"})),
                }),
            },
        ];
        for f in frames {
            let line = f.encode();
            assert!(line.ends_with('\n') && !line[..line.len() - 1].contains('\n'));
            assert_eq!(Frame::parse(&line), Some(f));
        }
    }

    #[test]
    fn what_is_no_frame_is_garbled_and_reading_goes_on() {
        let input = "not json\n{\"jsonrpc\":\"1.0\",\"id\":1,\"result\":{}}\n\n{\"id\":1}\n{\"jsonrpc\":\"2.0\",\"method\":\"m\"}\n";
        let mut r = io::BufReader::new(input.as_bytes());
        assert!(matches!(read(&mut r).unwrap(), Some(Read::Garbled(_))));
        assert!(matches!(read(&mut r).unwrap(), Some(Read::Garbled(_))));
        assert!(matches!(read(&mut r).unwrap(), Some(Read::Garbled(_))));
        assert_eq!(
            read(&mut r).unwrap(),
            Some(Read::Frame(Frame::Notification {
                method: "m".into(),
                params: Value::Null
            }))
        );
        assert_eq!(read(&mut r).unwrap(), None);
    }

    /// Hostile review: a malformed line was logged raw (escape sequences, forged log lines).
    #[test]
    fn a_garbled_line_is_kept_escaped_and_bounded_for_the_log() {
        let hostile = format!(
            "\u{1b}]0;owned\u{7}\u{1b}[2J\rINFO forged\u{202e}{}\n",
            "x".repeat(500)
        );
        let mut r = io::BufReader::new(hostile.as_bytes());
        let Some(Read::Garbled(logged)) = read(&mut r).unwrap() else {
            panic!("not garbled")
        };
        assert!(!logged.chars().any(|c| c.is_control()), "{logged:?}");
        assert!(!logged.contains('\u{202e}'), "{logged:?}");
        assert!(logged.starts_with("\\u{1b}]0;owned"), "{logged}");
        assert!(logged.ends_with('…'));
        assert!(logged.chars().count() < LOG_CHARS * 10);
    }

    #[test]
    fn a_line_over_the_limit_is_skipped_whole_and_the_next_is_read() {
        let mut input = vec![b'x'; MAX_LINE + 10];
        input.push(b'\n');
        input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"method\":\"after\"}\n");
        // A small buffer: the long line comes in many pieces, never held past the limit.
        let mut r = io::BufReader::with_capacity(4096, &input[..]);
        assert_eq!(read(&mut r).unwrap(), Some(Read::Oversized(MAX_LINE + 11)));
        assert!(matches!(
            read(&mut r).unwrap(),
            Some(Read::Frame(Frame::Notification { method, .. })) if method == "after"
        ));
    }

    #[test]
    fn a_last_line_without_newline_is_read() {
        let mut r = io::BufReader::new(&b"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":null}"[..]);
        assert!(matches!(
            read(&mut r).unwrap(),
            Some(Read::Frame(Frame::Response {
                result: Ok(Value::Null),
                ..
            }))
        ));
    }
}
