//! Claude Code: transcript records, the live-session registry and task lists.
//!
//! Records are parsed into borrowed structs that name only the fields used; serde skips the rest
//! of each line without building it, which is most of what makes reading cheap.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use serde::de::Deserializer;
use serde::Deserialize;

use super::state::{Facts, PendingKind, Turn, WorktreeFacts};
use super::transcript::for_each_record;
use super::TaskProgress;

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
    model: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    stop_reason: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<Content<'a>>,
}

type Content<'a> = super::content::Content<'a, Block<'a>>;

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
}

#[derive(Deserialize)]
struct Input<'a> {
    #[serde(rename = "planFilePath", borrow, default)]
    plan_file_path: Option<Cow<'a, str>>,
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
    let ok = for_each_record::<Record>(line, &mut |rec| {
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

fn apply(facts: &mut Facts, rec: Record<'_>) {
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
                    if b.kind.as_deref() != Some("tool_use") {
                        continue;
                    }
                    called = true;
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
        _ => {}
    }
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

/// One `sessions/<pid>.json` registry file.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct RegistryFile {
    pub pid: u32,
    pub session_id: String,
    #[serde(default)]
    pub cwd: Option<String>,
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub tmux: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub version: Option<String>,
    /// Milliseconds since the epoch.
    #[serde(default)]
    pub updated_at: Option<i64>,
    /// The process's start time (field 22 of `/proc/<pid>/stat`), to tell a reused pid.
    #[serde(default)]
    pub proc_start: Option<String>,
}

impl RegistryFile {
    /// Reads one registry file; `None` when it is gone or damaged (it may be mid-write).
    pub fn read(path: &Path) -> Option<Self> {
        let bytes = std::fs::read(path).ok()?;
        serde_json::from_slice(&bytes).ok()
    }
}

/// Whether the process `pid` is alive and, when `proc_start` is known, is the same process that
/// wrote the registry entry (not a later one that got the same pid).
pub fn pid_alive(pid: u32, proc_start: Option<&str>) -> bool {
    if pid == 0 || pid > i32::MAX as u32 {
        return false;
    }
    #[cfg(target_os = "linux")]
    {
        if Path::new("/proc/self/stat").exists() {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                return false;
            };
            if let Some(expected) = proc_start.filter(|s| !s.is_empty()) {
                // Fields after the command name, which ends at the last ')': state is field 3,
                // starttime field 22.
                let start = stat
                    .rsplit_once(')')
                    .and_then(|(_, rest)| rest.split_whitespace().nth(19));
                if let Some(start) = start {
                    return start == expected;
                }
            }
            return true;
        }
    }
    #[cfg(unix)]
    {
        let _ = proc_start;
        // SAFETY: kill with signal 0 sends nothing; it only checks that the pid exists.
        let r = unsafe { libc::kill(pid as libc::pid_t, 0) };
        r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
    }
    #[cfg(not(unix))]
    {
        let _ = proc_start;
        true
    }
}

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
