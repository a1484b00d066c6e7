//! Gemini CLI: chat logs `tmp/<slug>/chats/session-*.jsonl`.
//!
//! A chat log is the log of a document, not one record per message: a header line (`sessionId`,
//! `startTime`), message lines (`id`, `timestamp`, `type` user / gemini / info, `content`,
//! `toolCalls` on gemini lines), and `{"$set": {…}}` patches. A message id can come again with more
//! fields (its tool calls, then their results), so calls are opened and closed by call id, which
//! makes the repetition harmless. A `$set` of `messages` rewrites history (after a resume); it is
//! read for the title only, since the live lines before it already told what happened. After a
//! cancel (and on resume) the CLI also re-writes the history as single lines, starting with a
//! user line holding `<session_context>` and ending with that `$set` of `messages`; those lines
//! are old news and do not change the turn or the open calls.

mod tools;

use std::borrow::Cow;

use serde::de;
use serde::Deserialize;

use crate::agents::gemini as agent;
use crate::agents::records::content::{Loose, LooseStr, LooseText};
use crate::agents::records::plan_events::{Outcome, PlanEvent, PlanFacts};
use crate::agents::records::state::{token_sum, Facts, PendingKind, Turn};
use crate::agents::records::transcript::for_each_record;
use crate::agents::records::{
    dir_entries, file_name, is_jsonl, name_of, subdirs, PlanFolder, PlanKeys, PlanReader,
    PlanWatch, Records, ToolLines,
};
use crate::config::Roots;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(rename = "sessionId", borrow, default)]
    session_id: Option<Cow<'a, str>>,
    #[serde(rename = "startTime", borrow, default)]
    start_time: Option<Cow<'a, str>>,
    #[serde(rename = "$set", borrow, default)]
    set: Option<Patch<'a>>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    model: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<Content<'a>>,
    #[serde(rename = "toolCalls", borrow, default)]
    tool_calls: Option<Vec<ToolCall<'a>>>,
    /// A `gemini` message's tokens (one model call; the message is written again as it grows).
    #[serde(default)]
    tokens: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct Patch<'a> {
    #[serde(rename = "lastUpdated", borrow, default)]
    last_updated: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    messages: Option<Vec<Message<'a>>>,
}

/// A message inside a `$set` of `messages`: only what the title and the tokens need.
#[derive(Deserialize)]
struct Message<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<Content<'a>>,
    #[serde(default)]
    tokens: Option<serde_json::Value>,
}

/// A message's `tokens`: input (cached included) and output (thoughts included).
fn tokens_of(tokens: Option<&serde_json::Value>) -> (u64, u64) {
    (
        token_sum(tokens, &["input"]),
        token_sum(tokens, &["output", "thoughts"]),
    )
}

#[derive(Deserialize)]
struct ToolCall<'a> {
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    args: Option<Args<'a>>,
    #[serde(default)]
    result: Option<de::IgnoredAny>,
    #[serde(borrow, default)]
    status: Option<Cow<'a, str>>,
    /// What the card showed as the result (a string for `exit_plan_mode`).
    #[serde(rename = "resultDisplay", default)]
    result_display: Option<LooseStr<'a>>,
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct Args<'a> {
    #[serde(borrow, default)]
    plan_filename: Option<Cow<'a, str>>,
    /// `write_file`: where and what.
    #[serde(default)]
    file_path: Option<LooseStr<'a>>,
    #[serde(default)]
    content: Option<LooseStr<'a>>,
}

#[derive(Deserialize)]
struct Part<'a> {
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    #[serde(rename = "functionResponse", borrow, default)]
    function_response: Option<FunctionResponse<'a>>,
}

#[derive(Deserialize)]
struct FunctionResponse<'a> {
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
}

type Content<'a> = crate::agents::records::content::Content<'a, Part<'a>>;

/// Where a chat-log line holds `functionResponse`s: a message's parts, a tool call's result, and
/// the messages of a `$set` (a rewritten history). Read by the gate, which waits for the answer to
/// `exit_plan_mode`; shapes it does not expect are ignored, never make the line unreadable.
#[derive(Deserialize)]
struct Responses<'a> {
    #[serde(borrow, default)]
    content: Option<crate::agents::records::content::Content<'a, ResponsePart<'a>>>,
    #[serde(rename = "toolCalls", borrow, default)]
    tool_calls: Option<crate::agents::records::content::Content<'a, CallResult<'a>>>,
    #[serde(rename = "$set", borrow, default)]
    set: Option<ResponseSet<'a>>,
}

#[derive(Deserialize)]
struct CallResult<'a> {
    #[serde(borrow, default)]
    result: Option<crate::agents::records::content::Content<'a, ResponsePart<'a>>>,
}

#[derive(Deserialize)]
struct ResponseSet<'a> {
    #[serde(borrow, default)]
    messages: Option<crate::agents::records::content::Content<'a, Responses<'a>>>,
}

#[derive(Deserialize)]
struct ResponsePart<'a> {
    #[serde(rename = "functionResponse", borrow, default)]
    function_response: Option<NamedResponse<'a>>,
}

#[derive(Deserialize)]
struct NamedResponse<'a> {
    #[serde(borrow, default)]
    name: Option<LooseStr<'a>>,
}

impl Responses<'_> {
    fn answer(&self, tool: &str) -> bool {
        use crate::agents::records::content::Content::Items;
        let named = |parts: &Option<
            crate::agents::records::content::Content<'_, ResponsePart<'_>>,
        >| match parts {
            Some(Items(parts)) => parts.iter().any(|p| {
                p.function_response
                    .as_ref()
                    .and_then(|r| r.name.as_ref())
                    .and_then(|n| n.0.as_deref())
                    == Some(tool)
            }),
            _ => false,
        };
        named(&self.content)
            || matches!(&self.tool_calls, Some(Items(calls)) if calls.iter().any(|c| named(&c.result)))
            || matches!(
                self.set.as_ref().and_then(|s| s.messages.as_ref()),
                Some(Items(messages)) if messages.iter().any(|m| m.answer(tool))
            )
    }
}

/// Whether this chat-log line holds a `functionResponse` of `exit_plan_mode` (the gate's answer).
pub(crate) fn has_plan_response(line: &[u8]) -> bool {
    let mut found = false;
    for_each_record::<Responses<'_>>(line, &mut |rec| found |= rec.answer("exit_plan_mode"));
    found
}

/// A tool call of a chat-log line as verification reads it: what was written and what ran, and how
/// it ended. Every field loose: a shape not expected is left out, never makes the line unreadable.
pub(crate) struct ToolUse {
    pub id: String,
    pub name: String,
    pub status: Option<String>,
    /// The call's time, else its message's.
    pub at: Option<String>,
    pub file_path: Option<String>,
    /// What a `write_file` wrote (`content`) or a `replace` put in (`new_string`).
    pub text: Option<String>,
    pub command: Option<String>,
    /// The first result's `functionResponse.response.output`, as text.
    pub output: String,
}

#[derive(Deserialize)]
struct UseLine<'a> {
    #[serde(borrow, default)]
    timestamp: Option<LooseStr<'a>>,
    #[serde(rename = "toolCalls", borrow, default)]
    tool_calls: Option<crate::agents::records::content::Content<'a, Loose<UseCall<'a>>>>,
}

#[derive(Deserialize)]
struct UseCall<'a> {
    #[serde(borrow, default)]
    id: Option<LooseStr<'a>>,
    #[serde(borrow, default)]
    name: Option<LooseStr<'a>>,
    #[serde(borrow, default)]
    status: Option<LooseStr<'a>>,
    #[serde(borrow, default)]
    timestamp: Option<LooseStr<'a>>,
    #[serde(borrow, default)]
    args: Option<Loose<UseArgs<'a>>>,
    #[serde(borrow, default)]
    result: Option<crate::agents::records::content::Content<'a, Loose<UseResult<'a>>>>,
}

#[derive(Deserialize)]
struct UseArgs<'a> {
    #[serde(borrow, default)]
    file_path: Option<LooseStr<'a>>,
    #[serde(borrow, default)]
    content: Option<LooseStr<'a>>,
    #[serde(borrow, default)]
    new_string: Option<LooseStr<'a>>,
    #[serde(borrow, default)]
    command: Option<LooseStr<'a>>,
}

#[derive(Deserialize)]
struct UseResult<'a> {
    #[serde(rename = "functionResponse", borrow, default)]
    function_response: Option<Loose<UseResponse<'a>>>,
}

#[derive(Deserialize)]
struct UseResponse<'a> {
    #[serde(borrow, default)]
    response: Option<Loose<UseOutput<'a>>>,
}

#[derive(Deserialize)]
struct UseOutput<'a> {
    #[serde(borrow, default)]
    output: Option<crate::agents::records::content::Content<'a, LooseText<'a>>>,
}

/// The tool calls of a chat-log line (glued records each read), for verification. False when the
/// line is not JSON.
pub(crate) fn tool_uses(line: &[u8], on_use: &mut dyn FnMut(ToolUse)) -> bool {
    use crate::agents::records::content::Content::Items;
    let loose = LooseStr::owned;
    for_each_record::<UseLine<'_>>(line, &mut |rec| {
        let Some(Items(calls)) = rec.tool_calls else {
            return;
        };
        for call in calls.into_iter().filter_map(|c| c.0) {
            let (file_path, content, new_string, command) = match call.args.and_then(|a| a.0) {
                Some(a) => (
                    loose(&a.file_path),
                    loose(&a.content),
                    loose(&a.new_string),
                    loose(&a.command),
                ),
                None => (None, None, None, None),
            };
            let output = match call.result {
                Some(Items(results)) => results
                    .into_iter()
                    .next()
                    .and_then(|r| r.0)
                    .and_then(|r| r.function_response?.0)
                    .and_then(|f| f.response?.0)
                    .and_then(|r| r.output),
                _ => None,
            };
            let output = crate::agents::records::content::text_of(output);
            on_use(ToolUse {
                id: loose(&call.id).unwrap_or_default(),
                name: loose(&call.name).unwrap_or_default(),
                status: loose(&call.status),
                at: loose(&call.timestamp).or_else(|| loose(&rec.timestamp)),
                file_path,
                text: content.or(new_string),
                command,
                output,
            });
        }
    })
}

/// Folds one chat-log line into `facts`.
pub fn feed_line(facts: &mut Facts, line: &[u8]) {
    let ok = for_each_record::<Line<'_>>(line, &mut |rec| apply(facts, rec));
    if !ok {
        facts.unreadable += 1;
    }
}

fn apply(facts: &mut Facts, mut rec: Line<'_>) {
    if let (Some(sid), Some(start)) = (rec.session_id.as_deref(), rec.start_time.as_deref()) {
        if facts.session_id.is_none() {
            facts.session_id = Some(sid.to_owned());
        }
        facts.saw_time(start);
    }
    if let Some(set) = rec.set.take() {
        if let Some(ts) = set.last_updated.as_deref() {
            facts.saw_time(ts);
        }
        if set.messages.is_some() {
            facts.replaying = false;
        }
        // The whole history written anew: its messages' tokens are the session's so far.
        if let Some(messages) = set
            .messages
            .as_ref()
            .filter(|m| m.iter().any(|m| m.tokens.is_some()))
        {
            let (mut input, mut output) = (0u64, 0u64);
            for m in messages
                .iter()
                .filter(|m| m.kind.as_deref() == Some("gemini"))
            {
                let (i, o) = tokens_of(m.tokens.as_ref());
                input = input.saturating_add(i);
                output = output.saturating_add(o);
            }
            facts.usage_mut().set_totals(input, output, None);
        }
        for m in set.messages.into_iter().flatten() {
            if m.kind.as_deref() == Some("user") {
                for text in texts(&m.content) {
                    facts.set_title(text);
                }
            }
        }
        return;
    }
    let m = rec;
    if m.id.is_none() {
        return;
    }
    if let Some(ts) = m.timestamp.as_deref() {
        facts.saw_time(ts);
    }
    if m.kind.as_deref() == Some("user")
        && texts(&m.content).any(|t| t.starts_with("<session_context>"))
    {
        facts.replaying = true;
    }
    if facts.replaying {
        return;
    }
    match m.kind.as_deref() {
        Some("user") => {
            if let Some(Content::Items(parts)) = &m.content {
                for p in parts {
                    if let Some(id) = p.function_response.as_ref().and_then(|r| r.id.as_deref()) {
                        facts.close_call(id);
                        facts.turn = Turn::Running;
                    }
                }
            }
            for text in texts(&m.content) {
                if !text.trim_start().starts_with('<') {
                    facts.set_title(text);
                    facts.turn = Turn::Running;
                }
            }
        }
        Some("gemini") => {
            if m.tokens.is_some() {
                let (input, output) = tokens_of(m.tokens.as_ref());
                facts.usage_mut().add_call(m.id.as_deref(), input, output);
            }
            if let Some(model) = m.model.as_deref() {
                if facts.model.as_deref() != Some(model) {
                    facts.model = Some(model.to_owned());
                }
            }
            let calls = m.tool_calls.unwrap_or_default();
            for t in texts(&m.content) {
                facts.did_say(t);
            }
            for call in &calls {
                if let Some(name) = call.name.as_deref() {
                    facts.did_call(name, None);
                }
                let Some(id) = call.id.as_deref() else {
                    continue;
                };
                let done = call.result.is_some()
                    || matches!(
                        call.status.as_deref(),
                        Some("success" | "error" | "cancelled")
                    );
                if done {
                    facts.close_call(id);
                    continue;
                }
                if facts.pending.iter().any(|p| p.id == id) {
                    continue;
                }
                let kind = match call.name.as_deref() {
                    Some("exit_plan_mode") => {
                        if let Some(f) = call.args.as_ref().and_then(|a| a.plan_filename.as_deref())
                        {
                            facts.plan_path = Some(f.to_owned());
                        }
                        PendingKind::Approval
                    }
                    Some("ask_user") => PendingKind::Question,
                    _ => PendingKind::Other,
                };
                facts.open_call(id, kind);
            }
            let said_something = texts(&m.content).any(|t| !t.trim().is_empty());
            facts.turn = if calls.is_empty() && said_something {
                Turn::Ended
            } else {
                Turn::Running
            };
        }
        // "Request cancelled." and errors end the turn.
        Some("info" | "error") => facts.turn = Turn::Ended,
        _ => {}
    }
}

/// Where in `hay` (bytes as read, any number of lines) the first line worth parsing has a marker
/// (see `claude::plan_candidate`).
pub(crate) fn plan_candidate(_pf: &PlanFacts, hay: &[u8]) -> Option<usize> {
    crate::agents::records::transcript::first_of!(
        hay,
        [
            b"exit_plan_mode",
            b"write_file",
            b"<session_context>",
            b"\"messages\"",
            b"startTime",
        ]
    )
}

/// Parses one chat-log line into the plan-history facts: plan files written, `exit_plan_mode`
/// calls and their answers
/// (see [`crate::history`]): a line that [`plan_candidate`] pointed at.
pub(crate) fn plan_parse(pf: &mut PlanFacts, line: &[u8]) {
    crate::agents::records::transcript::parse_plan_line::<Line<'_>>(pf, line, plan_record);
}

fn plan_record(pf: &mut PlanFacts, rec: Line<'_>) {
    if let (Some(sid), Some(_)) = (rec.session_id.as_deref(), rec.start_time.as_deref()) {
        PlanFacts::set_once(&mut pf.session_id, Some(sid));
    }
    if rec.set.as_ref().is_some_and(|s| s.messages.is_some()) {
        pf.replaying = false;
        return;
    }
    if rec.id.is_none() {
        return;
    }
    if rec.kind.as_deref() == Some("user")
        && texts(&rec.content).any(|t| t.starts_with("<session_context>"))
    {
        pf.replaying = true;
    }
    if pf.replaying || rec.kind.as_deref() != Some("gemini") {
        return;
    }
    for call in rec.tool_calls.iter().flatten() {
        let Some(id) = call.id.as_deref() else {
            continue;
        };
        let at = call
            .timestamp
            .as_deref()
            .or(rec.timestamp.as_deref())
            .map(str::to_owned);
        match call.name.as_deref() {
            Some("write_file") => {
                let args = call.args.as_ref();
                let path = args
                    .and_then(|a| a.file_path.as_ref())
                    .and_then(|p| p.0.as_deref());
                let text = args
                    .and_then(|a| a.content.as_ref())
                    .and_then(|p| p.0.as_deref());
                if let (Some(path), Some(text)) = (path, text) {
                    if path.contains("/plans/") && path.ends_with(".md") {
                        let known = pf.events.iter().any(|e| {
                            matches!(e, PlanEvent::Wrote { path: p, text: t } if p == path && t == text)
                        });
                        if !known {
                            pf.events.push(PlanEvent::Wrote {
                                path: path.to_owned(),
                                text: text.to_owned(),
                            });
                        }
                    }
                }
            }
            Some("exit_plan_mode") => {
                if !pf.submitted(id) {
                    pf.events.push(PlanEvent::Submitted {
                        call: id.to_owned(),
                        at: rec.timestamp.as_deref().map(str::to_owned),
                        text: None,
                        path: call
                            .args
                            .as_ref()
                            .and_then(|a| a.plan_filename.as_deref())
                            .map(str::to_owned),
                        turn: None,
                    });
                }
                if pf.answered(id) {
                    continue;
                }
                let display = call
                    .result_display
                    .as_ref()
                    .and_then(|d| d.0.as_deref())
                    .unwrap_or("");
                let outcome = match call.status.as_deref() {
                    Some("cancelled") => Some((Outcome::Cancelled, false)),
                    Some("success") | Some("error") => Some(gemini_outcome(display)),
                    _ => None,
                };
                if let Some((outcome, hook)) = outcome {
                    pf.events.push(PlanEvent::Answered {
                        call: id.to_owned(),
                        at,
                        outcome,
                        hook,
                    });
                }
            }
            _ => {}
        }
    }
}

/// Reads the decision out of an `exit_plan_mode` result (Gemini CLI 0.61).
fn gemini_outcome(display: &str) -> (Outcome, bool) {
    if let Some(rest) = display.strip_prefix("Tool execution blocked: ") {
        return (
            Outcome::Rejected {
                feedback: rest.trim().to_owned(),
            },
            true,
        );
    }
    if let Some(rest) = display.strip_prefix("Plan rejected. User feedback: ") {
        let feedback = rest
            .split_once("\n\n")
            .map_or(rest, |(f, _)| f)
            .trim()
            .to_owned();
        return (Outcome::Rejected { feedback }, false);
    }
    if display.starts_with("Plan approved") {
        return (Outcome::Approved { text: None }, false);
    }
    (
        Outcome::Rejected {
            feedback: display.trim().to_owned(),
        },
        false,
    )
}

fn texts<'b>(content: &'b Option<Content<'_>>) -> Box<dyn Iterator<Item = &'b str> + 'b> {
    match content {
        Some(Content::Text(t)) => Box::new(std::iter::once(t.as_ref())),
        Some(Content::Items(parts)) => Box::new(parts.iter().filter_map(|p| p.text.as_deref())),
        _ => Box::new(std::iter::empty()),
    }
}

/// Gemini CLI's records: chats `tmp/<slug>/chats/session-*.jsonl`, the project from
/// `projects.json` or the folder's `.project_root`, plans in `tmp/<slug>/<sessionId>/plans/`.
pub(crate) struct GeminiRecords;

impl Records for GeminiRecords {
    fn transcripts(&self, roots: &Roots) -> Vec<PathBuf> {
        let mut found = Vec::new();
        for slug in dir_entries(&agent::tmp_dir(&roots.gemini)) {
            for p in dir_entries(&agent::chats_dir(&slug)) {
                if is_jsonl(&p) && file_name(&p).starts_with("session-") {
                    found.push(p);
                }
            }
        }
        found
    }

    fn is_transcript(&self, roots: &Roots, path: &Path) -> bool {
        let Some(parent) = path.parent() else {
            return false;
        };
        is_jsonl(path)
            && parent.file_name() == Some(agent::CHATS.as_ref())
            && parent.parent().and_then(Path::parent)
                == Some(agent::tmp_dir(&roots.gemini).as_path())
            && file_name(path).starts_with("session-")
    }

    fn watch_roots(&self, roots: &Roots) -> Vec<PathBuf> {
        vec![
            agent::tmp_dir(&roots.gemini),
            agent::projects_file(&roots.gemini),
        ]
    }

    fn feed_line(&self, facts: &mut Facts, line: &[u8]) {
        feed_line(facts, line)
    }

    /// A chat names no working folder: its project comes from its folder.
    fn head_tells_enough(&self, head: &Facts) -> bool {
        head.title.is_some()
    }

    /// The plan its `exit_plan_mode` call named in the session's plans folder, else the newest
    /// plan there.
    fn plan_file(
        &self,
        _roots: &Roots,
        transcript: &Path,
        key: &str,
        facts: &Facts,
    ) -> Option<PathBuf> {
        let dir = transcript.parent()?.parent()?.join(key).join(agent::PLANS);
        if let Some(name) = &facts.plan_path {
            return Some(dir.join(name));
        }
        let mds: Vec<PathBuf> = dir_entries(&dir)
            .into_iter()
            .filter(|p| p.extension().and_then(|x| x.to_str()) == Some("md"))
            .collect();
        mds.into_iter().max_by_key(|p| mtime(p))
    }

    fn projects(&self, roots: &Roots) -> HashMap<String, String> {
        agent::read_projects(&roots.gemini)
    }

    fn names_projects(&self, roots: &Roots, path: &Path) -> bool {
        path == agent::projects_file(&roots.gemini) || file_name(path) == agent::PROJECT_ROOT
    }

    fn project_of(&self, chat: &Path, projects: &HashMap<String, String>) -> Option<String> {
        let slug_dir = agent::slug_dir_of_chat(chat)?;
        let slug = slug_dir.file_name()?.to_str()?;
        if let Some(p) = projects.get(slug) {
            return Some(p.clone());
        }
        agent::read_project_root(slug_dir)
    }

    fn tool_lines(&self) -> Option<ToolLines> {
        Some(ToolLines::new(tools::MARKERS, tools::read_line))
    }

    /// `tmp/<slug>/<sessionId>/plans/`, the project from `projects.json` or `.project_root`.
    fn plan_folders(
        &self,
        roots: &Roots,
        _projects: &BTreeSet<PathBuf>,
        problems: &mut Vec<String>,
    ) -> Vec<PlanFolder> {
        let mut out = Vec::new();
        let slug_to_project = agent::read_projects(&roots.gemini);
        let tmp = crate::durable::canonical_or(&agent::tmp_dir(&roots.gemini));
        for slug_dir in subdirs(&tmp, problems) {
            let slug = name_of(&slug_dir);
            let project = slug_to_project
                .get(&slug)
                .cloned()
                .or_else(|| agent::read_project_root(&slug_dir));
            for session_dir in subdirs(&slug_dir, problems) {
                let plans = session_dir.join(agent::PLANS);
                if plans.is_dir() {
                    out.push(PlanFolder {
                        dir: plans,
                        project: project.as_ref().map(PathBuf::from),
                        session_id: Some(name_of(&session_dir)),
                        of_project: false,
                    });
                }
            }
        }
        out
    }

    fn plan_reader(&self) -> Option<PlanReader> {
        Some(PlanReader::new(plan_candidate, plan_parse))
    }

    fn plan_keys(&self) -> Option<PlanKeys> {
        Some(PlanKeys::SessionFile)
    }

    /// `tmp/`: each new session brings its plans folder, `tmp/<slug>/<sessionId>/plans/`.
    fn plan_watch(&self, roots: &Roots) -> PlanWatch {
        let tmp = agent::tmp_dir(&roots.gemini);
        PlanWatch {
            watch: vec![tmp.clone()],
            nested: vec![(tmp, is_plan_path)],
            ..PlanWatch::default()
        }
    }
}

/// Whether `rel` (below `tmp/`) is `<slug>/<sessionId>/plans/<name>.md`, or a session's plans
/// folder or the session folder itself.
fn is_plan_path(rel: &[String], md: bool, is_file: &dyn Fn() -> bool) -> bool {
    let session_like = |s: &str| s != agent::CHATS && !s.contains('.');
    match rel.len() {
        4 => md && session_like(&rel[1]) && rel[2] == agent::PLANS,
        3 => session_like(&rel[1]) && rel[2] == agent::PLANS,
        2 => session_like(&rel[1]) && !is_file(),
        _ => false,
    }
}

fn mtime(p: &Path) -> Option<std::time::SystemTime> {
    std::fs::metadata(p).and_then(|m| m.modified()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_plan_mode_pending_then_answered() {
        let mut f = Facts::default();
        feed_line(&mut f, br#"{"sessionId":"s1","projectHash":"h","startTime":"2026-01-01T00:00:00Z","kind":"main"}"#);
        feed_line(&mut f, br#"{"id":"m1","timestamp":"2026-01-01T00:00:01Z","type":"user","content":[{"text":"plan caching"}]}"#);
        feed_line(&mut f, br#"{"id":"m2","timestamp":"2026-01-01T00:00:02Z","type":"gemini","content":"","toolCalls":[{"id":"c1","name":"exit_plan_mode","args":{"plan_filename":"p.md"}}]}"#);
        assert_eq!(f.session_id.as_deref(), Some("s1"));
        assert_eq!(f.title.as_deref(), Some("plan caching"));
        assert!(f.has_pending(PendingKind::Approval));
        assert_eq!(f.plan_path.as_deref(), Some("p.md"));
        feed_line(&mut f, br#"{"id":"m3","timestamp":"2026-01-01T00:00:03Z","type":"user","content":[{"functionResponse":{"id":"c1","name":"exit_plan_mode","response":{}}}]}"#);
        assert!(!f.has_pending(PendingKind::Approval));
        feed_line(
            &mut f,
            br#"{"$set":{"lastUpdated":"2026-01-01T00:00:09Z"}}"#,
        );
        assert_eq!(f.last_activity.unwrap().second(), 9);
    }
}
