//! The wire of `plandeck serve --stdio` and its client ([`crate::remote`]): the frames, the
//! protocol's version, and which live event goes under which name. Both ends import it; neither
//! imports the other.
//!
//! **Frames** (one JSON object per line, UTF-8, at most [`MAX_LINE`] bytes):
//! - the server's first line: `{"hello":{"protocol":1,"version":"0.x.y","instance":"…"}}`;
//! - a request: `{"id":N,"method":"get_plan","params":{"id":"…"}}` (`params` as the window sends
//!   them, camelCased; may be left out when there are none; `id` any number or string, echoed);
//! - its response: `{"id":N,"result":…}` or `{"id":N,"error":{"kind":"…","message":"…"}}` (the
//!   [`IpcError`] shape; `id` is `null` when the frame could not be read);
//! - an event: `{"event":"plans:changed","seq":N,"payload":…}`, the names and payloads of the IPC
//!   table's events ([`event_of`] one way, [`event_here`] the other).

use std::io::BufRead;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

use crate::comments::CommentsChanged;
use crate::elsewhere::OnMachine;
use crate::history::{HistoryChanged, ScanProgress};
use crate::ipc::{ErrorKind, IpcError};
use crate::ipc_table::IpcEvent;
use crate::live::LiveEvent;
use crate::live::{AcpChanged, GateChanged, SessionsChanged, WorktreesChanged};
use crate::mirror::TerminalEvent;
use crate::mirror::{TerminalClosed, TerminalOutput};
use crate::plans::PlansChanged;
use crate::sessions::IndexProgress;
use crate::worktrees::{WorktreeSize, WorktreeSummary};

pub use crate::ipc_table::{
    CleanRemovalsToConfirm, ConfirmationWords, Hello, RemovalToConfirm, Subscribed,
};

/// The protocol this server speaks. Raised on any change a client must know of.
pub const PROTOCOL: u32 = 1;
/// The longest line read (a longer one is skipped whole and answered with an error).
pub const MAX_LINE: usize = 16 << 20;

/// One request frame, read.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub id: Value,
    pub method: String,
    pub params: Value,
}

/// Reads one line as a request; a line that is not one is answered with the error and the
/// request's `id` when it had one (`null` otherwise).
pub fn parse_request(line: &[u8]) -> Result<Request, (Value, IpcError)> {
    let bad = |id: Value, why: String| (id, IpcError::new(ErrorKind::BadInput, why));
    let value: Value = serde_json::from_slice(line)
        .map_err(|e| bad(Value::Null, format!("not a JSON frame: {e}")))?;
    let Value::Object(mut frame) = value else {
        return Err(bad(Value::Null, "a frame is a JSON object".into()));
    };
    let id = frame.remove("id").unwrap_or(Value::Null);
    if !(id.is_number() || id.is_string()) {
        return Err(bad(
            Value::Null,
            "a request has an `id` (a number or a string)".into(),
        ));
    }
    let method = match frame.remove("method") {
        Some(Value::String(m)) => m,
        _ => return Err(bad(id, "a request has a `method` (a string)".into())),
    };
    let params = match frame.remove("params") {
        None | Some(Value::Null) => Value::Object(Default::default()),
        Some(p @ Value::Object(_)) => p,
        Some(_) => return Err(bad(id, "`params` is an object".into())),
    };
    if let Some(other) = frame.keys().next() {
        return Err(bad(id, format!("a request has no `{other}`")));
    }
    Ok(Request { id, method, params })
}

/// A response frame, as one line (without its newline).
pub fn response(id: &Value, result: Result<Value, IpcError>) -> String {
    match result {
        Ok(result) => json!({ "id": id, "result": result }),
        Err(error) => json!({ "id": id, "error": error }),
    }
    .to_string()
}

/// Reads the next line of `input` into `line` (without its newline), at most `max` bytes. `None`
/// at the end of input; `Some(false)` when the line was longer (it is skipped whole).
pub fn read_line(input: &mut impl BufRead, line: &mut Vec<u8>, max: usize) -> Option<bool> {
    line.clear();
    let mut fits = true;
    loop {
        let (done, used) = match input.fill_buf() {
            Ok([]) => return (!line.is_empty() || !fits).then_some(fits),
            Ok(buf) => match buf.iter().position(|&b| b == b'\n') {
                Some(i) => {
                    if fits && line.len() + i <= max {
                        line.extend_from_slice(&buf[..i]);
                    } else {
                        fits = false;
                    }
                    (true, i + 1)
                }
                None => {
                    if fits && line.len() + buf.len() <= max {
                        line.extend_from_slice(buf);
                    } else {
                        fits = false;
                        line.clear();
                    }
                    (false, buf.len())
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return None,
        };
        input.consume(used);
        if done {
            if !fits {
                line.clear();
            }
            return Some(fits);
        }
    }
}

/// A request line as a client writes it (without its newline).
pub fn request_line(id: u64, method: &str, params: Value) -> String {
    json!({ "id": id, "method": method, "params": params }).to_string()
}

/// A frame from a server, as a client reads it.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerFrame {
    Hello(Hello),
    Answer {
        id: Value,
        result: Result<Value, IpcError>,
    },
    Event {
        name: String,
        seq: u64,
        payload: Value,
    },
}

/// Reads one line from a server; what is none of its frames is refused with why (a client logs
/// it and goes on: a remote's bytes are never trusted to be well formed).
pub fn parse_server_frame(line: &[u8]) -> Result<ServerFrame, IpcError> {
    let bad = |why: &str| IpcError::new(ErrorKind::BadInput, format!("not a server frame: {why}"));
    let value: Value = serde_json::from_slice(line).map_err(|e| bad(&e.to_string()))?;
    let Value::Object(mut frame) = value else {
        return Err(bad("not an object"));
    };
    if let Some(hello) = frame.remove("hello") {
        return serde_json::from_value(hello)
            .map(ServerFrame::Hello)
            .map_err(|e| bad(&e.to_string()));
    }
    if let Some(name) = frame.remove("event") {
        let (Value::String(name), Some(seq)) = (name, frame.get("seq").and_then(Value::as_u64))
        else {
            return Err(bad("an event has a name and a seq"));
        };
        let payload = frame.remove("payload").unwrap_or(Value::Null);
        return Ok(ServerFrame::Event { name, seq, payload });
    }
    let id = frame
        .remove("id")
        .ok_or_else(|| bad("no hello, event or id"))?;
    let result = match (frame.remove("result"), frame.remove("error")) {
        (Some(result), None) => Ok(result),
        (None, Some(error)) => Err(serde_json::from_value::<IpcError>(error)
            .map_err(|e| bad(&format!("an error is {{kind, message}}: {e}")))?),
        _ => return Err(bad("an answer has a result or an error")),
    };
    Ok(ServerFrame::Answer { id, result })
}

/// An event frame, as one line (without its newline).
pub fn event_line(name: &str, seq: u64, payload: &Value) -> String {
    json!({ "event": name, "seq": seq, "payload": payload }).to_string()
}

/// A live event as the window hears of it, named as the IPC table names it (the shell emits it
/// so, a server sends it so); `None` for what the window shows only on the desktop
/// (notifications). A server's live state has no machines and never switches its roots.
pub fn event_of(event: LiveEvent) -> Option<(&'static str, Value)> {
    fn named<E: IpcEvent>(e: E) -> Option<(&'static str, Value)> {
        Some((E::NAME, serde_json::to_value(e).ok()?))
    }
    match event {
        LiveEvent::Plans(c) => named(c),
        LiveEvent::Sessions(c) => named(c),
        LiveEvent::Gate(c) => named(c),
        LiveEvent::SessionIndex(p) => named(p),
        LiveEvent::HistoryProgress(p) => named(p),
        LiveEvent::History(c) => named(c),
        LiveEvent::Worktrees(c) => named(c),
        LiveEvent::WorktreesUpdated(v) => named(v),
        LiveEvent::WorktreeSize(s) => named(s),
        LiveEvent::Comments(c) => named(c),
        LiveEvent::Terminal(TerminalEvent::Output(o)) => named(o),
        LiveEvent::Terminal(TerminalEvent::Closed(c)) => named(c),
        LiveEvent::Machines(m) => named(m),
        LiveEvent::Roots(r) => named(r),
        LiveEvent::Acp(c) => named(c),
        // Notifications are the desktop's.
        LiveEvent::RequestArrived(_) | LiveEvent::SessionWaiting { .. } => None,
    }
}

/// The event `name` of `machine`, as the window hears it here: `None` for what is only the
/// remote's own business (its scans' progress).
pub fn event_here(machine: &str, name: &str, payload: Value) -> Result<Option<LiveEvent>, String> {
    fn read<T: DeserializeOwned + OnMachine>(machine: &str, payload: Value) -> Result<T, String> {
        crate::elsewhere::answer(machine, payload).map_err(|e| e.message)
    }
    Ok(Some(match name {
        n if n == PlansChanged::NAME => LiveEvent::Plans(read(machine, payload)?),
        n if n == SessionsChanged::NAME => LiveEvent::Sessions(read(machine, payload)?),
        n if n == GateChanged::NAME => LiveEvent::Gate(read(machine, payload)?),
        n if n == WorktreesChanged::NAME => LiveEvent::Worktrees(read(machine, payload)?),
        n if n == <Vec<WorktreeSummary>>::NAME => {
            LiveEvent::WorktreesUpdated(read(machine, payload)?)
        }
        n if n == WorktreeSize::NAME => LiveEvent::WorktreeSize(read(machine, payload)?),
        n if n == CommentsChanged::NAME => LiveEvent::Comments(read(machine, payload)?),
        n if n == AcpChanged::NAME => LiveEvent::Acp(read(machine, payload)?),
        n if n == TerminalOutput::NAME => {
            LiveEvent::Terminal(TerminalEvent::Output(read(machine, payload)?))
        }
        n if n == TerminalClosed::NAME => {
            LiveEvent::Terminal(TerminalEvent::Closed(read(machine, payload)?))
        }
        n if n == IndexProgress::NAME || n == ScanProgress::NAME || n == HistoryChanged::NAME => {
            return Ok(None)
        }
        other => return Err(format!("no event is named {other:?}")),
    }))
}

impl OnMachine for Hello {
    fn on_machine(&mut self, _: &str) {}
}

impl OnMachine for Subscribed {
    fn on_machine(&mut self, _: &str) {}
}

impl OnMachine for RemovalToConfirm {
    fn on_machine(&mut self, machine: &str) {
        self.preview.on_machine(machine);
    }
}

impl OnMachine for CleanRemovalsToConfirm {
    fn on_machine(&mut self, machine: &str) {
        self.previews.on_machine(machine);
    }
}

/// A call's params as the JSON object a request carries.
pub fn params<P: Serialize>(params: &P) -> Result<Value, IpcError> {
    serde_json::to_value(params).map_err(|e| IpcError::new(ErrorKind::Internal, e.to_string()))
}

/// What a client does for a call the window's own machine keeps (`here` in the table): nothing.
macro_rules! client_method {
    ($name:ident ( $( $arg:ident : $argty:ty ),* ) -> $ret:ty, here $why:literal) => {};
    ($name:ident ( $( $arg:ident : $argty:ty ),* ) -> $ret:ty) => {
        #[doc = concat!("`", stringify!($name), "` on the machine this client reaches.")]
        fn $name(&self, $( $arg: $argty ),*) -> Result<$ret, IpcError> {
            self.ask(calls::$name::NAME, params(&calls::$name::Params { $( $arg ),* })?)
        }
    };
}

/// What a flag on a table line (`#[read]`) says of its call: `true` for the one named; a flag
/// the table does not know does not compile.
macro_rules! flag {
    (read, read) => {
        true
    };
    (read, $flag:ident) => {
        false
    };
}

/// The params types of every call, the typed client and what a server implements beyond the
/// deck's calls, from the table ([`crate::ipc_table!`]).
macro_rules! wire_calls {
    (
        commands { $(
            $module:ident :: $name:ident ( $( $arg:ident : $argty:ty ),* ) -> $ret:ty
                [$( $_body:expr )?] [$( $_served:expr )?] [$( $why:literal )?] [$( #[$flag:ident] )*];
        )* }
        wire { $( $wname:literal => $wfn:ident ( $( $warg:ident : $wargty:ty ),* ) -> $wret:ty; )* }
        events { $($events:tt)* }
    ) => {
        /// Each call's wire name and params: the one type a client writes and a server reads
        /// (camelCased; a server refuses a field it does not know).
        pub mod calls {
            $(
                #[doc = concat!("`", stringify!($name), "`.")]
                pub mod $name {
                    /// Its name on the wire.
                    pub const NAME: &str = stringify!($name);
                    /// Marked `#[read]`: it only reads, so a connected machine's last answer
                    /// is kept and shown, as it was, while that machine is unreachable.
                    pub const READ: bool = false $( || flag!(read, $flag) )*;
                    /// Its params.
                    #[derive(Debug, serde::Serialize, serde::Deserialize)]
                    #[serde(rename_all = "camelCase", deny_unknown_fields)]
                    pub struct Params { $( pub $arg: $argty ),* }
                }
            )*
            $(
                #[doc = concat!("`", $wname, "`.")]
                pub mod $wfn {
                    /// Its name on the wire.
                    pub const NAME: &str = $wname;
                    /// Its params.
                    #[derive(Debug, serde::Serialize, serde::Deserialize)]
                    #[serde(rename_all = "camelCase", deny_unknown_fields)]
                    pub struct Params { $( pub $warg: $wargty ),* }
                }
            )*
        }

        /// Whether the call of the wire name `method` is marked `#[read]` in the table (only
        /// reads: another machine's last answer is kept, and shown while it is unreachable).
        pub fn is_read(method: &str) -> bool {
            match method {
                $( calls::$name::NAME => calls::$name::READ, )*
                _ => false,
            }
        }

        /// A client of another machine's server: a method per call it may be asked (every
        /// command of the table but those kept `here`, and the `wire` calls), each sending the
        /// params type the server reads. An implementation says only how one call goes.
        pub trait Client {
            /// Sends the call `method` with `params` and reads its answer as a `T`.
            fn ask<T: DeserializeOwned + OnMachine>(
                &self,
                method: &'static str,
                params: Value,
            ) -> Result<T, IpcError>;

            $( client_method!{ $name ( $( $arg : $argty ),* ) -> $ret $( , here $why )? } )*

            $(
                #[doc = concat!("`", $wname, "` on the machine this client reaches.")]
                fn $wfn(&self, $( $warg: $wargty ),*) -> Result<$wret, IpcError> {
                    self.ask(calls::$wfn::NAME, params(&calls::$wfn::Params { $( $warg ),* })?)
                }
            )*
        }

        /// What a server answers beyond the deck's calls: the protocol's own and the removals
        /// it confirms with a token (a server without one of them does not compile).
        pub trait Served {
            $( fn $wfn(&self, $( $warg: $wargty ),*) -> Result<$wret, IpcError>; )*
        }
    };
}
crate::ipc_table!(wire_calls);

#[cfg(test)]
mod tests {
    use super::*;

    /// A call's params go on the wire under the names the window sends (camelCased), `None` as
    /// `null` (as the hand-written frames did), and a server reads them back as the same type;
    /// one it does not know is refused (an older server says so rather than ignoring it).
    #[test]
    fn a_calls_params_are_one_type_written_by_the_client_and_read_by_the_server() {
        let sent = params(&calls::decide_request::Params {
            id: "r1".into(),
            decision: crate::gate::GateDecision::Reject {
                feedback: "no".into(),
            },
            with_comments: Some(true),
            seen_hash: None,
            option: None,
        })
        .unwrap();
        let mut keys: Vec<&str> = sent
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            ["decision", "id", "option", "seenHash", "withComments"],
            "{sent}"
        );
        assert_eq!(sent["seenHash"], Value::Null);
        let back: calls::decide_request::Params = serde_json::from_value(sent).unwrap();
        assert_eq!(back.id, "r1");
        // An older client leaves an optional param out: read as `None`.
        let old: calls::plan_diff::Params = serde_json::from_value(json!({ "id": "p" })).unwrap();
        assert_eq!((old.from, old.to), (None, None));
        let unknown =
            serde_json::from_value::<calls::get_plan::Params>(json!({ "id": "p", "x": 1 }));
        assert!(unknown.is_err());
        // A `wire` call of a command's name is its own wire name.
        assert_eq!(calls::remove_shown::NAME, "remove_worktree");
        assert_eq!(calls::remove_worktree::NAME, "remove_worktree");
    }

    /// The calls marked `#[read]` in the table are those whose last answer another machine
    /// gave is shown while it is unreachable: reads of one thing, never a listing (kept by the
    /// deck's gathering), a change, or a name the table does not hold.
    #[test]
    fn the_reads_are_the_tables_calls_marked_read() {
        macro_rules! names {
            (
                commands { $(
                    $module:ident :: $name:ident ( $($args:tt)* ) -> $ret:ty $( [$($part:tt)*] )*;
                )* }
                wire { $($wire:tt)* }
                events { $($events:tt)* }
            ) => {
                vec![$( stringify!($name) ),*]
            };
        }
        let names: Vec<&str> = crate::ipc_table!(names);
        let reads: Vec<&str> = names.into_iter().filter(|n| is_read(n)).collect();
        assert_eq!(
            reads,
            [
                "get_plan",
                "plan_history",
                "plan_version",
                "list_comments",
                "review_markdown",
                "get_sessions",
                "acp_session",
                "worktree_details",
                "request_comments",
                "verify_report",
            ]
        );
        assert_eq!(
            (calls::get_plan::READ, calls::decide_plan::READ),
            (true, false)
        );
        assert!(!is_read("list_plans") && !is_read("remove_worktree") && !is_read("nope"));
    }

    #[test]
    fn a_request_is_read_with_its_id_method_and_params() {
        let r = parse_request(br#"{"id":3,"method":"get_plan","params":{"id":"p1"}}"#).unwrap();
        assert_eq!(r.id, json!(3));
        assert_eq!(r.method, "get_plan");
        assert_eq!(r.params, json!({"id": "p1"}));
        // No params: an empty object; a string id is echoed as it came.
        let r = parse_request(br#"{"id":"a","method":"list_plans"}"#).unwrap();
        assert_eq!((r.id, r.params), (json!("a"), json!({})));
    }

    #[test]
    fn what_is_not_a_request_is_answered_with_why_and_the_id_when_known() {
        for (line, id) in [
            (&b"not json"[..], Value::Null),
            (b"[1,2]", Value::Null),
            (br#"{"method":"list_plans"}"#, Value::Null),
            (br#"{"id":{},"method":"list_plans"}"#, Value::Null),
            (br#"{"id":7}"#, json!(7)),
            (br#"{"id":7,"method":3}"#, json!(7)),
            (br#"{"id":7,"method":"get_plan","params":[1]}"#, json!(7)),
            (br#"{"id":7,"method":"list_plans","extra":1}"#, json!(7)),
            (b"\xff\xfe", Value::Null),
        ] {
            let (got, e) = parse_request(line).unwrap_err();
            assert_eq!(got, id, "{}", String::from_utf8_lossy(line));
            assert_eq!(e.kind, ErrorKind::BadInput);
        }
        let frame: Value = serde_json::from_str(&response(
            &json!(7),
            Err(IpcError::new(ErrorKind::NotFound, "gone")),
        ))
        .unwrap();
        assert_eq!(
            frame,
            json!({"id": 7, "error": {"kind": "notFound", "message": "gone"}})
        );
    }

    #[test]
    fn lines_are_read_whole_and_one_too_long_is_skipped_whole() {
        let text = format!("short\n{}\nnext\nlast", "x".repeat(100));
        // A small buffer, so lines come in pieces.
        let mut input = std::io::BufReader::with_capacity(8, text.as_bytes());
        let mut line = Vec::new();
        let mut got = Vec::new();
        while let Some(fits) = read_line(&mut input, &mut line, 10) {
            got.push((fits, String::from_utf8(line.clone()).unwrap()));
        }
        let want = [(true, "short"), (false, ""), (true, "next"), (true, "last")];
        let want: Vec<(bool, String)> = want.iter().map(|(f, s)| (*f, s.to_string())).collect();
        assert_eq!(got, want);
    }
}
