//! Claude Code: transcript records and task lists (its live-session registry is read in
//! [`crate::agents::claude`]).
//!
//! Records are parsed into borrowed structs that name only the fields used; serde skips the rest
//! of each line without building it, which is most of what makes reading cheap.

mod plans;
mod tools;

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::de::Deserializer;
use serde::Deserialize;

pub use super::{registry, RegistryFile};
use crate::agents::claude as agent;
use crate::agents::records::content::{Loose, LooseStr, LooseText};
use crate::agents::records::plan_events::{Outcome, PlanEvent, PlanFacts};
use crate::agents::records::state::{token_sum, Facts, PendingKind, Turn, WorktreeFacts};
use crate::agents::records::transcript::for_each_record;
use crate::agents::records::{
    dir_entries, file_stem, folder_problem, is_jsonl, subdirs, PlanFolder, PlanKeys, PlanReader,
    PlanWatch, Records, TaskProgress, ToolLines,
};
use crate::config::Roots;

#[derive(Deserialize)]
struct Record<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    cwd: Option<Cow<'a, str>>,
    #[serde(rename = "gitBranch", borrow, default)]
    git_branch: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    slug: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    version: Option<Cow<'a, str>>,
    #[serde(rename = "permissionMode", borrow, default)]
    permission_mode: Option<Cow<'a, str>>,
    #[serde(rename = "isSidechain", default)]
    is_sidechain: Option<bool>,
    #[serde(rename = "isMeta", default)]
    is_meta: Option<bool>,
    #[serde(borrow, default)]
    subtype: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    message: Option<Message<'a>>,
    #[serde(rename = "worktreeSession", default, deserialize_with = "present")]
    worktree_session: Option<Option<WorktreeSession>>,
    #[serde(rename = "sessionId", borrow, default)]
    session_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    entrypoint: Option<Cow<'a, str>>,
    /// The approved plan carried into a new context ("clear context and implement").
    #[serde(rename = "planContent", default)]
    plan_content: Option<LooseStr<'a>>,
    #[serde(borrow, default)]
    attachment: Option<Attachment<'a>>,
    #[serde(rename = "toolUseResult", default)]
    tool_use_result: Option<ToolUseResult>,
    /// A `cost-state` record's totals: the session's cost so far, and its tokens per model.
    #[serde(rename = "totalCostUSD", default)]
    total_cost_usd: Option<serde_json::Value>,
    #[serde(rename = "modelUsage", default)]
    model_usage: Option<serde_json::Value>,
}

/// An `attachment` record's payload. Its fields differ by type, so every one is read loosely: an
/// unexpected shape is ignored, never makes the line unreadable.
#[derive(Deserialize)]
struct Attachment<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<LooseStr<'a>>,
    #[serde(default)]
    decision: Option<LooseStr<'a>>,
    #[serde(rename = "toolUseID", default)]
    tool_use_id: Option<LooseStr<'a>>,
    #[serde(rename = "planFilePath", default)]
    plan_file_path: Option<LooseStr<'a>>,
    #[serde(rename = "planContent", default)]
    plan_content: Option<LooseStr<'a>>,
}

/// `toolUseResult`: an object for most tools (for `ExitPlanMode` it holds the approved `plan`),
/// a plain string for errors and rejections. Only `plan` is kept.
struct ToolUseResult {
    plan: Option<String>,
}

impl<'de> Deserialize<'de> for ToolUseResult {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{IgnoredAny, MapAccess, Visitor};
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ToolUseResult;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a tool result")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut plan = None;
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    if key == "plan" {
                        plan = map.next_value::<LooseStr<'de>>()?.0.map(Cow::into_owned);
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(ToolUseResult { plan })
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(ToolUseResult { plan: None })
            }
            fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(ToolUseResult { plan: None })
            }
            fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(ToolUseResult { plan: None })
            }
            fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(ToolUseResult { plan: None })
            }
            fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(ToolUseResult { plan: None })
            }
            fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(ToolUseResult { plan: None })
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
                Ok(ToolUseResult { plan: None })
            }
        }
        d.deserialize_any(V)
    }
}

/// Tells a `null` field (`Some(None)`) from a missing one (`None`).
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}

#[derive(Deserialize)]
struct WorktreeSession {
    #[serde(rename = "worktreePath")]
    worktree_path: Option<String>,
    #[serde(rename = "worktreeBranch")]
    worktree_branch: Option<String>,
    #[serde(rename = "originalBranch")]
    original_branch: Option<String>,
    #[serde(rename = "originalHeadCommit")]
    original_head_commit: Option<String>,
}

#[derive(Deserialize)]
struct Message<'a> {
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    /// An assistant message's tokens (one model call; every record of its blocks repeats them).
    #[serde(default)]
    usage: Option<serde_json::Value>,
    #[serde(borrow, default)]
    model: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    stop_reason: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<Content<'a>>,
}

type Content<'a> = crate::agents::records::content::Content<'a, Block<'a>>;

#[derive(Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tool_use_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    input: Option<Input<'a>>,
    /// A `tool_result`'s content: a string or text blocks.
    #[serde(borrow, default)]
    content: Option<crate::agents::records::content::Content<'a, TextItem<'a>>>,
    #[serde(default)]
    is_error: Option<bool>,
}

#[derive(Deserialize)]
struct TextItem<'a> {
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct Input<'a> {
    #[serde(rename = "planFilePath", borrow, default)]
    plan_file_path: Option<Cow<'a, str>>,
    #[serde(default)]
    plan: Option<LooseStr<'a>>,
    /// What a call is about, for the session's one line of what it does (the first present).
    #[serde(borrow, default)]
    file_path: Option<LooseStr<'a>>,
    #[serde(borrow, default)]
    command: Option<LooseStr<'a>>,
    #[serde(borrow, default)]
    pattern: Option<LooseStr<'a>>,
    #[serde(borrow, default)]
    description: Option<LooseStr<'a>>,
    #[serde(borrow, default)]
    url: Option<LooseStr<'a>>,
}

impl Input<'_> {
    /// The file, command, pattern or description the call names.
    fn detail(&self) -> Option<&str> {
        [
            &self.file_path,
            &self.command,
            &self.pattern,
            &self.url,
            &self.description,
        ]
        .into_iter()
        .find_map(|f| f.as_ref().and_then(LooseStr::as_str))
    }
}

fn set(slot: &mut Option<String>, v: &Option<Cow<'_, str>>) {
    if let Some(v) = v.as_deref().filter(|v| !v.is_empty()) {
        if slot.as_deref() != Some(v) {
            *slot = Some(v.to_owned());
        }
    }
}

/// Folds one transcript line into `facts`. `subagent` lines only count as activity.
pub fn feed_line(facts: &mut Facts, line: &[u8], subagent: bool) {
    let ok = for_each_record::<Record<'_>>(line, &mut |rec| {
        if let Some(ts) = rec.timestamp.as_deref() {
            facts.saw_time(ts);
        }
        if subagent {
            return;
        }
        apply(facts, rec);
    });
    if !ok && !subagent {
        facts.unreadable += 1;
    }
}

/// The id of the last `ExitPlanMode` tool_use in this line's records, if it holds one: where the
/// gate ([`crate::gate`]) starts following a transcript, and which call's answer it waits for.
pub(crate) fn exit_plan_call(line: &[u8]) -> Option<String> {
    let mut found = None;
    for_each_record::<Record<'_>>(line, &mut |rec| {
        if let Some(Content::Items(blocks)) = rec.message.and_then(|m| m.content) {
            let call = blocks
                .iter()
                .rev()
                .filter(|b| {
                    b.kind.as_deref() == Some("tool_use")
                        && b.name.as_deref() == Some("ExitPlanMode")
                })
                .find_map(|b| b.id.as_deref());
            if let Some(id) = call {
                found = Some(id.to_owned());
            }
        }
    });
    found
}

/// A record as far as who answered a permission is concerned.
#[derive(Deserialize)]
struct AnswerRecord<'a> {
    #[serde(borrow, default)]
    message: Option<Message<'a>>,
    #[serde(rename = "permissionDecision", borrow, default)]
    permission_decision: Option<Loose<PermissionDecision<'a>>>,
}

/// `permissionDecision` of a tool result's record (Claude Code 2.1.328): `{"decision": "accept" |
/// "reject", "source": "hook" | "user_temporary" | "config" | …}`.
#[derive(Deserialize)]
struct PermissionDecision<'a> {
    #[serde(borrow, default)]
    decision: Option<LooseStr<'a>>,
    #[serde(borrow, default)]
    source: Option<LooseStr<'a>>,
}

/// Who decided a permission, and what: a tool result's record as the gate reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Decided {
    /// `permissionDecision.source` (`"hook"` when a hook's answer was taken, `"user_temporary"`
    /// when the person answered the card); `None` when the record does not say.
    pub source: Option<String>,
    /// Whether the call was let through: `permissionDecision.decision` (`"accept"`; anything else,
    /// `"reject"` included, is not), else the result being an error (a denial's is); `None` when
    /// nothing says.
    pub accepted: Option<bool>,
}

/// When this line's records hold a `tool_result` for the call `id` (the gate's answer): who
/// decided the permission and whether it was let through ([`Decided`]).
pub(crate) fn tool_result_decider(line: &[u8], id: &str) -> Option<Decided> {
    let mut found = None;
    for_each_record::<AnswerRecord<'_>>(line, &mut |rec| {
        if found.is_some() {
            return;
        }
        let Some(Content::Items(blocks)) = rec.message.and_then(|m| m.content) else {
            return;
        };
        let Some(result) = blocks.iter().find(|b| {
            b.kind.as_deref() == Some("tool_result") && b.tool_use_id.as_deref() == Some(id)
        }) else {
            return;
        };
        let decision = rec.permission_decision.and_then(|d| d.0);
        let said = decision.as_ref().and_then(|d| LooseStr::owned(&d.decision));
        let accepted = match said.as_deref() {
            Some(d) => Some(d == "accept" || d == "allow"),
            None => result.is_error.map(|e| !e),
        };
        found = Some(Decided {
            source: decision.and_then(|d| LooseStr::owned(&d.source)),
            accepted,
        });
    });
    found
}

/// What verification ([`crate::verify`]) reads of a record: the tool calls that change files or
/// run commands and their results, compactions, the worktree. Every field is read loosely: a
/// shape it does not expect is ignored, never makes the line unreadable.
#[derive(Deserialize)]
pub(crate) struct ToolRecord<'a> {
    #[serde(rename = "type", borrow, default)]
    pub kind: Option<LooseStr<'a>>,
    #[serde(borrow, default)]
    pub subtype: Option<LooseStr<'a>>,
    #[serde(borrow, default)]
    pub timestamp: Option<LooseStr<'a>>,
    #[serde(borrow, default)]
    pub cwd: Option<LooseStr<'a>>,
    #[serde(rename = "worktreeSession", borrow, default)]
    pub worktree_session: Option<Loose<ToolWorktree<'a>>>,
    #[serde(borrow, default)]
    pub message: Option<Loose<ToolMessage<'a>>>,
    #[serde(rename = "toolUseResult", borrow, default)]
    pub tool_use_result: Option<Loose<ToolResultKind<'a>>>,
}

#[derive(Deserialize)]
pub(crate) struct ToolWorktree<'a> {
    #[serde(rename = "worktreePath", borrow, default)]
    pub worktree_path: Option<LooseStr<'a>>,
    #[serde(rename = "originalBranch", borrow, default)]
    pub original_branch: Option<LooseStr<'a>>,
}

#[derive(Deserialize)]
pub(crate) struct ToolMessage<'a> {
    #[serde(borrow, default)]
    pub content: Option<crate::agents::records::content::Content<'a, Loose<ToolBlock<'a>>>>,
}

#[derive(Deserialize)]
pub(crate) struct ToolResultKind<'a> {
    #[serde(rename = "type", borrow, default)]
    pub kind: Option<LooseStr<'a>>,
}

/// A `tool_use` or `tool_result` content block.
#[derive(Deserialize)]
pub(crate) struct ToolBlock<'a> {
    #[serde(rename = "type", borrow, default)]
    pub kind: Option<LooseStr<'a>>,
    #[serde(borrow, default)]
    pub id: Option<LooseStr<'a>>,
    #[serde(borrow, default)]
    pub name: Option<LooseStr<'a>>,
    #[serde(borrow, default)]
    pub tool_use_id: Option<LooseStr<'a>>,
    #[serde(default)]
    pub is_error: Option<MaybeBool>,
    #[serde(borrow, default)]
    pub input: Option<Loose<ToolInput<'a>>>,
    /// A `tool_result`'s content: a string, or text parts.
    #[serde(borrow, default)]
    pub content: Option<crate::agents::records::content::Content<'a, LooseText<'a>>>,
}

/// A boolean where one is expected; anything else is not one.
#[derive(Deserialize)]
#[serde(untagged)]
pub(crate) enum MaybeBool {
    Bool(bool),
    Other(serde::de::IgnoredAny),
}

/// The inputs of the file and shell tools.
#[derive(Deserialize)]
pub(crate) struct ToolInput<'a> {
    #[serde(borrow, default)]
    pub file_path: Option<LooseStr<'a>>,
    #[serde(borrow, default)]
    pub notebook_path: Option<LooseStr<'a>>,
    #[serde(borrow, default)]
    pub content: Option<LooseStr<'a>>,
    #[serde(borrow, default)]
    pub new_string: Option<LooseStr<'a>>,
    #[serde(borrow, default)]
    pub new_source: Option<LooseStr<'a>>,
    #[serde(borrow, default)]
    pub command: Option<LooseStr<'a>>,
    #[serde(borrow, default)]
    pub edits: Option<crate::agents::records::content::Content<'a, Loose<ToolEdit<'a>>>>,
}

#[derive(Deserialize)]
pub(crate) struct ToolEdit<'a> {
    #[serde(borrow, default)]
    pub new_string: Option<LooseStr<'a>>,
}

/// Gives each record of `line` to `on_record`; false when (part of) the line is unreadable.
pub(crate) fn tool_records(line: &[u8], on_record: &mut dyn FnMut(ToolRecord<'_>)) -> bool {
    for_each_record::<ToolRecord<'_>>(line, on_record)
}

/// The input tokens of a model call: fresh, cache reads and cache writes.
const INPUT_TOKENS: &[&str] = &[
    "input_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
];

/// Tokens and cost: each assistant message's `usage` (one model call, counted once however many
/// records repeat it), and a `cost-state` record's totals (`totalCostUSD`, `modelUsage`), which
/// replace what was counted before it.
fn count_usage(facts: &mut Facts, rec: &Record<'_>) {
    match rec.kind.as_deref() {
        Some("assistant") => {
            if let Some(m) = rec.message.as_ref().filter(|m| m.usage.is_some()) {
                let input = token_sum(m.usage.as_ref(), INPUT_TOKENS);
                let output = token_sum(m.usage.as_ref(), &["output_tokens"]);
                facts.usage_mut().add_call(m.id.as_deref(), input, output);
            }
        }
        Some("cost-state") => {
            let models = rec.model_usage.as_ref().and_then(|m| m.as_object());
            let (mut input, mut output) = (0u64, 0u64);
            for m in models.into_iter().flat_map(|m| m.values()) {
                input = input.saturating_add(token_sum(
                    Some(m),
                    &[
                        "inputTokens",
                        "cacheReadInputTokens",
                        "cacheCreationInputTokens",
                    ],
                ));
                output = output.saturating_add(token_sum(Some(m), &["outputTokens"]));
            }
            let cost = rec.total_cost_usd.as_ref().and_then(|c| c.as_f64());
            if models.is_some() || cost.is_some() {
                facts.usage_mut().set_totals(input, output, cost);
            }
        }
        _ => {}
    }
}

fn apply(facts: &mut Facts, rec: Record<'_>) {
    count_usage(facts, &rec);
    let sidechain = rec.is_sidechain.unwrap_or(false);
    if !sidechain {
        set(&mut facts.cwd, &rec.cwd);
        set(&mut facts.git_branch, &rec.git_branch);
    }
    set(&mut facts.version, &rec.version);
    set(&mut facts.slug, &rec.slug);
    match rec.kind.as_deref() {
        Some("permission-mode") => set(&mut facts.permission_mode, &rec.permission_mode),
        Some("worktree-state") => match rec.worktree_session {
            Some(Some(w)) => {
                if let Some(path) = w.worktree_path {
                    facts.worktree = Some(WorktreeFacts {
                        path,
                        branch: w.worktree_branch,
                        original_branch: w.original_branch,
                        original_head_commit: w.original_head_commit,
                    });
                    facts.in_worktree = true;
                }
            }
            Some(None) => facts.in_worktree = false,
            None => {}
        },
        Some("system") if !sidechain && rec.subtype.as_deref() == Some("turn_duration") => {
            facts.turn = Turn::Ended
        }
        Some("user") if !sidechain => {
            set(&mut facts.permission_mode, &rec.permission_mode);
            let meta = rec.is_meta.unwrap_or(false);
            match rec.message.and_then(|m| m.content) {
                Some(Content::Text(text)) => user_text(facts, &text, meta),
                Some(Content::Items(blocks)) => {
                    for b in blocks {
                        match b.kind.as_deref() {
                            Some("tool_result") => {
                                if let Some(id) = b.tool_use_id.as_deref() {
                                    facts.close_call(id);
                                }
                                facts.turn = Turn::Running;
                            }
                            Some("text") => user_text(facts, b.text.as_deref().unwrap_or(""), meta),
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
        Some("assistant") if !sidechain => {
            let Some(msg) = rec.message else { return };
            set(&mut facts.model, &msg.model);
            let mut called = false;
            if let Some(Content::Items(blocks)) = msg.content {
                for b in blocks {
                    if b.kind.as_deref() == Some("text") {
                        facts.did_say(b.text.as_deref().unwrap_or(""));
                    }
                    if b.kind.as_deref() != Some("tool_use") {
                        continue;
                    }
                    called = true;
                    if let Some(name) = b.name.as_deref() {
                        facts.did_call(name, b.input.as_ref().and_then(Input::detail));
                    }
                    let Some(id) = b.id.as_deref() else { continue };
                    let kind = match b.name.as_deref() {
                        Some("ExitPlanMode") => {
                            if let Some(p) =
                                b.input.as_ref().and_then(|i| i.plan_file_path.as_deref())
                            {
                                facts.plan_path = Some(p.to_owned());
                            }
                            PendingKind::Approval
                        }
                        Some("AskUserQuestion") => PendingKind::Question,
                        _ => PendingKind::Other,
                    };
                    facts.open_call(id, kind);
                }
            }
            facts.turn = match (called, msg.stop_reason.as_deref()) {
                (true, _) => Turn::Running,
                (false, Some("end_turn" | "stop_sequence" | "max_tokens" | "refusal")) => {
                    Turn::Ended
                }
                _ => Turn::Running,
            };
        }
        // The plan was approved and the session left plan mode; the mode it went to (auto, or
        // approving edits by hand) is written at the end of the turn: until then the mode is not
        // known, and certainly not "plan" (issue 34).
        Some("attachment") if !sidechain => {
            let kind = rec.attachment.as_ref().and_then(|a| a.kind.as_ref());
            if kind.and_then(|k| k.0.as_deref()) == Some("plan_mode_exit")
                && facts.permission_mode.as_deref() == Some("plan")
            {
                facts.permission_mode = None;
            }
        }
        _ => {}
    }
}

/// Folds one transcript line into the plan-history facts: `ExitPlanMode` calls and their results,
/// hook decisions, `planContent` and `plan_file_reference` (see [`crate::history`]).
///
/// Most lines (tool results with file contents) say nothing about plans: a line is parsed only
/// when [`plan_candidate`] finds a marker in it. (The history reads whole transcripts with
/// [`crate::agents::records::transcript::read_marked`], which searches markers before splitting lines.)
#[cfg(test)]
pub(crate) fn plan_line(pf: &mut PlanFacts, line: &[u8]) {
    if plan_candidate(pf, line).is_some() {
        plan_parse(pf, line);
    }
}

/// Parses one line that [`plan_candidate`] pointed at.
pub(crate) fn plan_parse(pf: &mut PlanFacts, line: &[u8]) {
    crate::agents::records::transcript::parse_plan_line::<Record<'_>>(pf, line, plan_record);
}

/// Where in `hay` (bytes of a transcript, any number of lines, cut anywhere) the first byte of a
/// marker of a line worth parsing is: a record kind read here (`ExitPlanMode`, `planContent`,
/// `plan_file_reference`), an unanswered `ExitPlanMode` call's id (its result, a hook's decision
/// naming it), `"cwd"` while the working directory is unknown; while the session's id is unknown,
/// every line is worth parsing (0). Searched over the bytes as read, before any line is split: one
/// pass over most of a transcript, at memory speed.
pub(crate) fn plan_candidate(pf: &PlanFacts, hay: &[u8]) -> Option<usize> {
    use memchr::memmem::{find, Finder};
    use std::sync::LazyLock;
    if pf.session_id.is_none() {
        return (!hay.is_empty()).then_some(0);
    }
    // Every record kind's name contains "lan": one search, each hit checked in place.
    static LAN: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"lan"));
    const WORDS: [(&[u8], usize); 4] = [
        (b"ExitPlanMode", 5),
        (b"planContent", 1),
        (b"plan_file_reference", 1),
        (b"[Plan Approved]", 2),
    ];
    let mut best = None;
    let mut from = 0;
    while let Some(i) = LAN.find(&hay[from..]) {
        let p = from + i;
        if WORDS
            .iter()
            .any(|(w, at)| p >= *at && hay[p - at..].starts_with(w))
        {
            best = WORDS
                .iter()
                .find(|(w, at)| p >= *at && hay[p - at..].starts_with(w))
                .map(|(_, at)| p - at);
            break;
        }
        from = p + 1;
    }
    // Other needles only need looking for before the best hit so far.
    let before = |needle: &[u8], best: &mut Option<usize>| {
        let end = best.map_or(hay.len(), |b: usize| (b + needle.len()).min(hay.len()));
        if let Some(p) = find(&hay[..end], needle) {
            if best.is_none_or(|b| p < b) {
                *best = Some(p);
            }
        }
    };
    if pf.cwd.is_none() {
        before(b"\"cwd\"", &mut best);
    }
    for call in pf.open_calls() {
        before(call.as_bytes(), &mut best);
    }
    best
}

fn plan_record(pf: &mut PlanFacts, rec: Record<'_>) {
    PlanFacts::set_once(&mut pf.session_id, rec.session_id.as_deref());
    PlanFacts::set_once(&mut pf.slug, rec.slug.as_deref());
    if !rec.is_sidechain.unwrap_or(false) {
        PlanFacts::set_once(&mut pf.cwd, rec.cwd.as_deref());
    }
    PlanFacts::set_once(&mut pf.source, rec.entrypoint.as_deref());
    let at = rec.timestamp.as_deref().map(str::to_owned);
    if let Some(text) = rec.plan_content.and_then(|p| p.0) {
        if !text.trim().is_empty() {
            pf.events.push(PlanEvent::Carried {
                at: at.clone(),
                text: text.into_owned(),
                path: None,
            });
        }
    }
    if let Some(a) = rec.attachment {
        let loose =
            |v: &Option<LooseStr<'_>>| v.as_ref().and_then(|v| v.0.as_deref()).map(str::to_owned);
        match loose(&a.kind).as_deref() {
            Some("hook_permission_decision") if loose(&a.decision).as_deref() == Some("deny") => {
                if let Some(call) = loose(&a.tool_use_id).filter(|c| pf.submitted(c)) {
                    pf.events.push(PlanEvent::HookDenied {
                        call: call.to_owned(),
                    });
                }
            }
            Some("plan_file_reference") => {
                if let Some(text) = a.plan_content.and_then(|p| p.0) {
                    pf.events.push(PlanEvent::Carried {
                        at: at.clone(),
                        text: text.into_owned(),
                        path: loose(&a.plan_file_path),
                    });
                }
            }
            _ => {}
        }
    }
    let Some(msg) = rec.message else { return };
    if let (Some("user"), Some(Content::Text(text))) = (rec.kind.as_deref(), &msg.content) {
        // A lead's verdict on a teammate's plan, as the teammate is told it (Claude Code 2.1.328).
        if text.contains("teammate_id=\"team-lead\"") && text.contains("[Plan Approved]") {
            lead_approved(pf, at);
        }
        return;
    }
    let Some(Content::Items(blocks)) = msg.content else {
        return;
    };
    for b in blocks {
        match (rec.kind.as_deref(), b.kind.as_deref()) {
            (Some("assistant"), Some("tool_use")) if b.name.as_deref() == Some("ExitPlanMode") => {
                let Some(call) = b.id.as_deref() else {
                    continue;
                };
                if pf.submitted(call) {
                    continue;
                }
                let input = b.input.as_ref();
                pf.events.push(PlanEvent::Submitted {
                    call: call.to_owned(),
                    at: at.clone(),
                    text: input
                        .and_then(|i| i.plan.as_ref())
                        .and_then(|p| p.0.as_deref())
                        .map(str::to_owned),
                    path: input
                        .and_then(|i| i.plan_file_path.as_deref())
                        .map(str::to_owned),
                    turn: None,
                });
            }
            (Some("user"), Some("tool_result")) => {
                let Some(call) = b.tool_use_id.as_deref() else {
                    continue;
                };
                if !pf.submitted(call) || pf.answered(call) {
                    continue;
                }
                let text = match &b.content {
                    Some(crate::agents::records::content::Content::Text(t)) => t.to_string(),
                    Some(crate::agents::records::content::Content::Items(items)) => items
                        .iter()
                        .filter_map(|i| i.text.as_deref())
                        .collect::<Vec<_>>()
                        .join("\n"),
                    _ => String::new(),
                };
                if b.is_error.unwrap_or(false)
                    && (text.starts_with("No plan file found at ")
                        || text.contains("No such tool available: ExitPlanMode"))
                {
                    // Claude Code refused the call before any plan was submitted (a teammate with
                    // no plan file yet, a teammate whose plan mode ended): no version, nobody
                    // decided.
                    pf.events.retain(
                        |e| !matches!(e, PlanEvent::Submitted { call: c, .. } if c == call),
                    );
                    continue;
                }
                if text.starts_with("Your plan has been submitted to the team lead") {
                    // Not answered yet: the lead decides (a later `[Plan Approved]`).
                    pf.events.push(PlanEvent::SentToLead {
                        call: call.to_owned(),
                        at: at.clone(),
                    });
                    continue;
                }
                let approved_text = rec.tool_use_result.as_ref().and_then(|r| r.plan.clone());
                let (outcome, hook) =
                    claude_outcome(&text, b.is_error.unwrap_or(false), approved_text);
                pf.events.push(PlanEvent::Answered {
                    call: call.to_owned(),
                    at: at.clone(),
                    outcome,
                    hook,
                });
            }
            _ => {}
        }
    }
}

/// The lead approved the latest of the teammate's plans sent to it and not answered yet.
fn lead_approved(pf: &mut PlanFacts, at: Option<String>) {
    let decided = |c: &str| {
        pf.events
            .iter()
            .any(|e| matches!(e, PlanEvent::LeadApproved { call, .. } if call == c))
    };
    let call = pf.events.iter().rev().find_map(|e| match e {
        PlanEvent::SentToLead { call, .. } if !pf.answered(call) && !decided(call) => {
            Some(call.clone())
        }
        _ => None,
    });
    if let Some(call) = call {
        pf.events.push(PlanEvent::LeadApproved { call, at });
    }
}

/// Reads the decision out of an `ExitPlanMode` result text (Claude Code 2.1).
fn claude_outcome(text: &str, is_error: bool, approved: Option<String>) -> (Outcome, bool) {
    const DECLINED: &str = "The user doesn't want to proceed with this tool use";
    if text.starts_with("User has approved your plan") || (!is_error && approved.is_some()) {
        let text = approved.or_else(|| {
            text.split_once("## Approved Plan:\n")
                .map(|(_, plan)| plan.to_owned())
        });
        return (Outcome::Approved { text }, false);
    }
    if text.starts_with(DECLINED) {
        // "Tell Claude what to change": the feedback follows "the user said:".
        if let Some((_, said)) = text.split_once("the user said:\n") {
            return (
                Outcome::Rejected {
                    feedback: said.trim().to_owned(),
                },
                false,
            );
        }
        return (Outcome::Cancelled, false);
    }
    if is_error {
        // Anything else refusing the call is a hook's deny: its message is the feedback.
        let feedback = text
            .strip_prefix("Error: ")
            .unwrap_or(text)
            .trim()
            .to_owned();
        return (Outcome::Rejected { feedback }, true);
    }
    (Outcome::Approved { text: None }, false)
}

fn user_text(facts: &mut Facts, text: &str, meta: bool) {
    if meta {
        return;
    }
    if text.starts_with("[Request interrupted") {
        facts.turn = Turn::Ended;
        return;
    }
    // Echoes of local commands (`/clear`) and injected context are not prompts.
    if text.trim_start().starts_with('<') {
        return;
    }
    facts.set_title(text);
    facts.turn = Turn::Running;
}

pub use crate::agents::records::pid_alive;

#[derive(Deserialize)]
struct TaskFile {
    #[serde(default)]
    status: Option<String>,
}

/// Progress of the task list `<claude>/tasks/<list_id>/`: one `<id>.json` per task with a
/// `status` of pending / in_progress / completed (deleted tasks are not counted). Claude Code names
/// the list after the session id unless `CLAUDE_CODE_TASK_LIST_ID` is set, so a list is linked to
/// the session whose id it bears.
pub fn task_progress(tasks_root: &Path, list_id: &str) -> Option<TaskProgress> {
    let dir = tasks_root.join(list_id);
    let entries = std::fs::read_dir(&dir).ok()?;
    let (mut done, mut total) = (0u32, 0u32);
    for e in entries.flatten() {
        let path = e.path();
        if path.extension().and_then(|x| x.to_str()) != Some("json") {
            continue;
        }
        let Some(task) = std::fs::read(&path)
            .ok()
            .and_then(|b| serde_json::from_slice::<TaskFile>(&b).ok())
        else {
            continue;
        };
        match task.status.as_deref() {
            Some("deleted") => {}
            Some("completed") => {
                done += 1;
                total += 1;
            }
            _ => total += 1,
        }
    }
    (total > 0).then_some(TaskProgress { done, total })
}

/// Transcripts of subagents of the session whose transcript is `transcript`
/// (`<project>/<sessionId>/subagents/*.jsonl`).
pub fn subagent_transcripts(transcript: &Path) -> Vec<PathBuf> {
    let Some(stem) = transcript.file_stem() else {
        return Vec::new();
    };
    let dir = transcript.with_file_name(stem).join("subagents");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().and_then(|x| x.to_str()) == Some("jsonl"))
        .collect();
    out.sort();
    out
}

/// Claude Code's records: transcripts `projects/<cwd-mangled>/<sessionId>.jsonl` with their
/// subagents', the registry of running CLIs, task lists, plans in `plans/` or where the session's
/// `ExitPlanMode` call named them.
pub(crate) struct ClaudeRecords;

impl Records for ClaudeRecords {
    /// Claude Code writes the mode an approval switched to ("Yes, and use auto mode") only when
    /// the turn ends (issue 34).
    fn mode_after_approval(&self, approved: &str) -> Option<&'static str> {
        match approved {
            "auto" => Some("auto"),
            "manual" => Some("default"),
            _ => None,
        }
    }

    fn transcripts(&self, roots: &Roots) -> Vec<PathBuf> {
        let mut found = Vec::new();
        for project in dir_entries(&agent::projects_dir(&roots.claude)) {
            for p in dir_entries(&project) {
                if is_jsonl(&p) && p.is_file() {
                    found.push(p);
                }
            }
        }
        found
    }

    fn is_transcript(&self, roots: &Roots, path: &Path) -> bool {
        is_jsonl(path)
            && path.parent().and_then(Path::parent)
                == Some(agent::projects_dir(&roots.claude).as_path())
    }

    fn watch_roots(&self, roots: &Roots) -> Vec<PathBuf> {
        let r = &roots.claude;
        vec![
            agent::projects_dir(r),
            agent::registry_dir(r),
            agent::tasks_dir(r),
            agent::plans_dir(r),
        ]
    }

    fn feed_line(&self, facts: &mut Facts, line: &[u8]) {
        feed_line(facts, line, false)
    }

    /// The transcript's name: Claude Code names it after the session.
    fn session_key(&self, path: &Path, _facts: &Facts) -> String {
        file_stem(path)
    }

    /// The `planFilePath` its `ExitPlanMode` call named when that file is there, else
    /// `plans/<slug>.md` when that one is, else the named one.
    fn plan_file(
        &self,
        roots: &Roots,
        _transcript: &Path,
        _key: &str,
        facts: &Facts,
    ) -> Option<PathBuf> {
        let named = facts.plan_path.as_ref().map(PathBuf::from);
        let by_slug = facts
            .slug
            .as_ref()
            .map(|s| agent::plans_dir(&roots.claude).join(format!("{s}.md")));
        if let Some(p) = named.as_ref().filter(|p| p.is_file()) {
            return Some(p.clone());
        }
        if let Some(p) = by_slug.filter(|p| p.is_file()) {
            return Some(p);
        }
        named
    }

    fn subagent_transcripts(&self, transcript: &Path) -> Vec<PathBuf> {
        subagent_transcripts(transcript)
    }

    /// `<claude>/projects/<project>/<sessionId>/subagents/<name>.jsonl` belongs to
    /// `<claude>/projects/<project>/<sessionId>.jsonl`.
    fn subagent_parent(&self, roots: &Roots, p: &Path) -> Option<PathBuf> {
        let is_subagent = is_jsonl(p)
            && p.parent().and_then(|d| d.file_name()) == Some("subagents".as_ref())
            && p.ancestors().nth(4) == Some(agent::projects_dir(&roots.claude).as_path());
        if !is_subagent {
            return None;
        }
        let sid = p.ancestors().nth(2)?.file_name()?.to_str()?;
        Some(p.ancestors().nth(3)?.join(format!("{sid}.jsonl")))
    }

    fn feed_subagent_line(&self, facts: &mut Facts, line: &[u8]) {
        feed_line(facts, line, true)
    }

    fn registry_dir(&self, roots: &Roots) -> Option<PathBuf> {
        Some(agent::registry_dir(&roots.claude))
    }

    fn registry_entry(&self, path: &Path) -> Option<RegistryFile> {
        RegistryFile::read(path)
    }

    fn tasks_dir(&self, roots: &Roots) -> Option<PathBuf> {
        Some(agent::tasks_dir(&roots.claude))
    }

    fn task_progress(&self, roots: &Roots, list_id: &str) -> Option<TaskProgress> {
        task_progress(&agent::tasks_dir(&roots.claude), list_id)
    }

    fn tells_worktrees(&self) -> bool {
        true
    }

    fn tool_lines(&self) -> Option<ToolLines> {
        Some(ToolLines::new(tools::MARKERS, tools::read_line))
    }

    /// `plans/`, then the `plansDirectory` of each project.
    fn plan_folders(
        &self,
        roots: &Roots,
        projects: &BTreeSet<PathBuf>,
        _problems: &mut Vec<String>,
    ) -> Vec<PlanFolder> {
        let mut out = vec![PlanFolder {
            dir: crate::durable::canonical_or(&agent::plans_dir(&roots.claude)),
            project: None,
            session_id: None,
            of_project: false,
        }];
        for project in projects {
            for dir in plans::plans_directories(project) {
                out.push(PlanFolder {
                    dir,
                    project: Some(project.clone()),
                    session_id: None,
                    of_project: true,
                });
            }
        }
        out
    }

    fn project_plan_folders(&self, project: &Path) -> Vec<PathBuf> {
        plans::plans_directories(project)
    }

    fn links_plans_by_transcript(&self) -> bool {
        true
    }

    fn plan_reader(&self) -> Option<PlanReader> {
        Some(PlanReader::new(plan_candidate, plan_parse))
    }

    fn plan_keys(&self) -> Option<PlanKeys> {
        Some(PlanKeys::File)
    }

    /// `plans/`, and `projects/` and `sessions/`: a new project may bring a `plansDirectory`.
    fn plan_watch(&self, roots: &Roots) -> PlanWatch {
        let r = &roots.claude;
        let hints = vec![agent::projects_dir(r), agent::registry_dir(r)];
        PlanWatch {
            watch: [vec![agent::plans_dir(r)], hints.clone()].concat(),
            flat: vec![agent::plans_dir(r)],
            project_hints: hints,
            nested: Vec::new(),
        }
    }

    /// Every `projects/*/*.jsonl`.
    fn plan_link_transcripts(&self, roots: &Roots, problems: &mut Vec<String>) -> Vec<PathBuf> {
        let mut files = Vec::new();
        for dir in subdirs(&agent::projects_dir(&roots.claude), problems) {
            match std::fs::read_dir(&dir) {
                Ok(entries) => {
                    files.extend(entries.flatten().map(|e| e.path()).filter(|p| is_jsonl(p)))
                }
                Err(e) => problems.push(folder_problem(&dir, &e)),
            }
        }
        files
    }

    fn plan_file_of_slug(&self, roots: &Roots, slug: &str) -> Option<PathBuf> {
        Some(agent::plans_dir(&roots.claude).join(format!("{slug}.md")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fold(lines: &[&str]) -> Facts {
        let mut f = Facts::default();
        for l in lines {
            feed_line(&mut f, l.as_bytes(), false);
        }
        f
    }

    #[test]
    fn the_last_call_or_message_is_what_it_is_doing() {
        let f = fold(&[
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"Let me look at the\n   orders module."}]}}"#,
        ]);
        assert_eq!(
            f.doing.as_deref(),
            Some("Let me look at the orders module.")
        );
        let f = fold(&[
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"Reading it."},{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/r/src/orders.ts"}}]}}"#,
        ]);
        assert_eq!(f.doing.as_deref(), Some("Read /r/src/orders.ts"));
        let f = fold(&[
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"npm test","description":"Run the tests"}}]}}"#,
        ]);
        assert_eq!(f.doing.as_deref(), Some("Bash npm test"));
        // A call of an odd shape is named alone; a subagent's (sidechain) calls are not the session's.
        let f = fold(&[
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t3","name":"TodoWrite","input":{"todos":[]}}]}}"#,
            r#"{"type":"assistant","isSidechain":true,"message":{"content":[{"type":"tool_use","id":"t4","name":"Grep","input":{"pattern":"x"}}]}}"#,
        ]);
        assert_eq!(f.doing.as_deref(), Some("TodoWrite"));
    }

    #[test]
    fn exit_plan_mode_waits_until_its_result() {
        let call = r#"{"type":"assistant","timestamp":"2026-01-01T00:00:00Z","message":{"content":[{"type":"tool_use","id":"t1","name":"ExitPlanMode","input":{"plan":"x","planFilePath":"/p.md"}}]}}"#;
        let f = fold(&[call]);
        assert!(f.has_pending(PendingKind::Approval));
        assert_eq!(f.plan_path.as_deref(), Some("/p.md"));
        let result = r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}"#;
        assert!(!fold(&[call, result]).has_pending(PendingKind::Approval));
    }

    #[test]
    fn permission_mode_by_position_and_worktree_exit() {
        let f = fold(&[
            r#"{"type":"permission-mode","permissionMode":"plan"}"#,
            r#"{"type":"worktree-state","worktreeSession":{"worktreePath":"/w","originalHeadCommit":"abc"}}"#,
            r#"{"type":"permission-mode","permissionMode":"default"}"#,
        ]);
        assert_eq!(f.permission_mode.as_deref(), Some("default"));
        assert_eq!(f.worktree.as_ref().unwrap().path, "/w");
        assert!(f.in_worktree);
        let f = fold(&[
            r#"{"type":"worktree-state","worktreeSession":{"worktreePath":"/w"}}"#,
            r#"{"type":"worktree-state","worktreeSession":null}"#,
        ]);
        assert!(!f.in_worktree);
        assert_eq!(f.worktree.unwrap().path, "/w");
    }

    /// Issue 34: after "Yes, and use auto mode" the card said mode "plan" for the whole turn.
    #[test]
    fn leaving_plan_mode_is_not_plan_mode() {
        let f = fold(&[
            r#"{"type":"permission-mode","permissionMode":"plan"}"#,
            r#"{"type":"attachment","attachment":{"type":"plan_mode_exit","planFilePath":"/p.md","planExists":true}}"#,
        ]);
        assert_eq!(f.permission_mode, None);
        let f = fold(&[
            r#"{"type":"permission-mode","permissionMode":"plan"}"#,
            r#"{"type":"attachment","attachment":{"type":"plan_mode_exit"}}"#,
            r#"{"type":"permission-mode","permissionMode":"auto"}"#,
        ]);
        assert_eq!(f.permission_mode.as_deref(), Some("auto"));
    }

    #[test]
    fn exit_plan_mode_results_read_as_decisions() {
        use crate::agents::records::plan_events::Outcome;
        let mut pf = PlanFacts::default();
        let call = r##"{"type":"assistant","sessionId":"s","timestamp":"2026-01-01T00:00:00Z","message":{"content":[{"type":"tool_use","id":"t1","name":"ExitPlanMode","input":{"plan":"# P\n","planFilePath":"/p.md"}}]}}"##;
        // A hook's deny with no hook_permission_decision record before it: still a hook.
        let denied = r#"{"type":"user","timestamp":"2026-01-01T00:00:01Z","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"Error: no"}]},"toolUseResult":"Error: no"}"#;
        plan_line(&mut pf, call.as_bytes());
        plan_line(&mut pf, denied.as_bytes());
        // A result for a call that is not ExitPlanMode is not a decision.
        plan_line(&mut pf, denied.replace("t1", "t9").as_bytes());
        assert_eq!(pf.session_id.as_deref(), Some("s"));
        assert_eq!(pf.events.len(), 2);
        assert_eq!(
            pf.events[1],
            PlanEvent::Answered {
                call: "t1".into(),
                at: Some("2026-01-01T00:00:01Z".into()),
                outcome: Outcome::Rejected {
                    feedback: "no".into()
                },
                hook: true
            }
        );
        let (o, hook) = claude_outcome(
            "The user doesn't want to proceed with this tool use. The tool use was rejected.",
            true,
            None,
        );
        assert_eq!((o, hook), (Outcome::Cancelled, false));
        let (o, _) = claude_outcome(
            "User has approved your plan.\n\n## Approved Plan:\n# E\n",
            false,
            None,
        );
        assert_eq!(
            o,
            Outcome::Approved {
                text: Some("# E\n".into())
            }
        );
    }

    #[test]
    fn plan_fields_of_an_unexpected_shape_do_not_make_a_line_unreadable() {
        let line = r#"{"type":"attachment","timestamp":"2026-01-01T00:00:00Z","planContent":{"x":1},"attachment":{"type":"hook_permission_decision","decision":{"behavior":"deny"},"toolUseID":7,"planFilePath":null},"toolUseResult":[1,2]}"#;
        let f = fold(&[line]);
        assert_eq!(f.unreadable, 0);
        let mut pf = PlanFacts::default();
        plan_line(&mut pf, line.as_bytes());
        assert_eq!((pf.unreadable, pf.events.len()), (0, 0));
    }

    #[test]
    fn damaged_and_unknown_records() {
        let f = fold(&[
            r#"{"type":"future-thing","x":[1,2]}"#,
            "{\"type\":\"user\",",
            "\u{0}\u{1}binary",
        ]);
        assert_eq!(f.unreadable, 2);
        assert_eq!(f.turn, Turn::None);
    }
}
