//! Claude Code (`~/.claude`, or `$CLAUDE_CONFIG_DIR`): where it keeps its files, the hooks
//! Plandeck installs into its settings, and its plan-approval card.
//!
//! - `plans/<slug>.md`: plan files (a project may move them: `plansDirectory` in its
//!   `.claude/settings*.json`, see [`project_settings_files`]).
//! - `projects/<project folder>/<session>.jsonl`: transcripts; a session's subagents in
//!   `<session>/subagents/`.
//! - `sessions/<pid>.json`: the registry of running sessions.
//! - `tasks/<list>/`: task lists.
//! - `settings.json`: user settings, where hooks go.

pub mod card;
pub mod driver;
pub mod hook;
pub(crate) mod records;
pub mod screen;
pub mod send;
pub mod session;
pub mod team_hook;

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{json, Value};

use crate::config::{RootSpec, Roots};

use super::{Agent, ApprovalCard, Capabilities, Choice, Descriptor, Folder, HookShape};

pub const DESCRIPTOR: Descriptor = Descriptor {
    agent: Agent::Claude,
    id: "claude",
    display_name: "Claude Code",
    capabilities: Capabilities {
        plans: true,
        sessions: true,
        gate: true,
        verify: true,
        stop_hook: true,
    },
    root_spec: RootSpec {
        id: "claude",
        env: Some("CLAUDE_CONFIG_DIR"),
        home_dir: ".claude",
    },
    root,
    folders: &[
        Folder {
            label: "plans",
            dir: plans_dir,
            suffix: ".md",
        },
        Folder {
            label: "transcripts",
            dir: projects_dir,
            suffix: ".jsonl",
        },
        Folder {
            label: "running sessions",
            dir: registry_dir,
            suffix: ".json",
        },
    ],
    plan_hook: Some(HookShape {
        settings_file,
        event: "PermissionRequest",
        group: plan_hook_group,
    }),
    stop_hook: Some(HookShape {
        settings_file,
        event: STOP_EVENT,
        group: stop_hook_group,
    }),
    approval_card: Some(CARD),
};

fn root(roots: &Roots) -> &Path {
    &roots.claude
}

/// Plan files.
pub fn plans_dir(root: &Path) -> PathBuf {
    root.join("plans")
}

/// Transcripts, one folder per project.
pub fn projects_dir(root: &Path) -> PathBuf {
    root.join("projects")
}

/// The registry of running sessions (`<pid>.json`).
pub fn registry_dir(root: &Path) -> PathBuf {
    root.join("sessions")
}

/// The registry entry of the session run by `pid`.
pub fn registry_file(root: &Path, pid: u32) -> PathBuf {
    registry_dir(root).join(format!("{pid}.json"))
}

/// Task lists.
pub fn tasks_dir(root: &Path) -> PathBuf {
    root.join("tasks")
}

/// User settings, where hooks go.
pub fn settings_file(root: &Path) -> PathBuf {
    root.join("settings.json")
}

/// A project's own settings files, the local one first (they may name a `plansDirectory`).
pub fn project_settings_files(project: &Path) -> [PathBuf; 2] {
    let dir = project.join(".claude");
    [dir.join("settings.local.json"), dir.join("settings.json")]
}

/// Claude Code's hook timeout (seconds): long, so the hook's own deadline always comes first.
pub const HOOK_TIMEOUT_SECS: u64 = 86_400;

/// The tool whose permission request is the plan's approval.
pub const PLAN_TOOL: &str = "ExitPlanMode";

/// Plandeck's plan-approval hook group for `command`.
pub fn plan_hook_group(command: &str) -> Value {
    json!({
        "matcher": PLAN_TOOL,
        "hooks": [{
            "type": "command",
            "command": command,
            "timeout": HOOK_TIMEOUT_SECS,
        }],
    })
}

/// The event of the teammate gate: a tool is about to run (agent teams; the plan approval of a
/// teammate goes to its lead, not to a card, so no `PermissionRequest` fires for it).
pub const TEAM_EVENT: &str = "PreToolUse";

/// The teammate gate's hook group for `command`: on `ExitPlanMode`, with the long timeout, and
/// `onFailure: block` so that a hook that fails or times out denies rather than lets the plan
/// through (a `PreToolUse` hook fails open by default).
pub fn team_hook_group(command: &str) -> Value {
    let mut group = plan_hook_group(command);
    group["hooks"][0]["onFailure"] = json!("block");
    group
}

/// The event of verify's hook: Claude Code is about to stop.
pub const STOP_EVENT: &str = "Stop";

/// Claude Code's timeout for the Stop hook (seconds): a report takes well under a second; this
/// only bounds a hook that hangs.
pub const STOP_HOOK_TIMEOUT_SECS: u64 = 60;

/// Verify's Stop hook group for `command`.
pub fn stop_hook_group(command: &str) -> Value {
    json!({
        "hooks": [{
            "type": "command",
            "command": command,
            "timeout": STOP_HOOK_TIMEOUT_SECS,
        }]
    })
}

/// The plan-approval card: "1. Yes, and use auto mode", "2. Yes, manually approve edits",
/// "3. No, … Tell Claude what to change" (`tests/fixtures/claude-code-*/README.md`).
pub const CARD: ApprovalCard = ApprovalCard {
    markers: &[
        "Yes, and use auto mode",
        "manually approve edits",
        "Tell Claude what to change",
    ],
    approve_auto: Choice {
        key: 1,
        label: "Yes, and use auto mode",
    },
    approve_manual: Choice {
        key: 2,
        label: "Yes, manually approve edits",
    },
    feedback: Choice {
        key: 3,
        label: "Tell Claude what to change",
    },
};

/// Shown in the footer while Claude Code 2.1.328 works on a turn; gone when it waits for input.
pub const WORKING: &str = "esc to interrupt";

pub use screen::input_box_shown;

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
    /// When the CLI started, milliseconds since the epoch.
    #[serde(default)]
    pub started_at: Option<i64>,
    /// The process's start time (field 22 of `/proc/<pid>/stat`), to tell a reused pid.
    #[serde(default)]
    pub proc_start: Option<String>,
}

/// The most a registry file may weigh: a bigger one is not Claude Code's, and is not read.
const REGISTRY_MAX: u64 = 1024 * 1024;

impl RegistryFile {
    /// Reads one registry file; `None` when it is gone, damaged (it may be mid-write), or bigger
    /// than a registry file can be.
    pub fn read(path: &Path) -> Option<Self> {
        if std::fs::metadata(path).ok()?.len() > REGISTRY_MAX {
            return None;
        }
        let bytes = std::fs::read(path).ok()?;
        serde_json::from_slice(&bytes).ok()
    }
}

/// The one reader of Claude Code's session registry (`<claude>/sessions/<pid>.json`): every entry
/// that reads ([`RegistryFile::read`]), with its file; none when the folder does not exist.
/// Whether an entry's process still runs is the caller's question
/// ([`crate::sessions::pid_alive`]).
pub fn registry(claude_root: &Path) -> std::io::Result<Vec<(PathBuf, RegistryFile)>> {
    let dir = registry_dir(claude_root);
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    Ok(entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().and_then(|x| x.to_str()) == Some("json"))
        .filter_map(|p| RegistryFile::read(&p).map(|r| (p, r)))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one registry reader: entries that read, with their files; a missing folder is none; a
    /// damaged, foreign or oversized file is left out, never an error.
    #[test]
    fn the_registry_reader_keeps_what_reads_and_leaves_out_the_rest() {
        let home = tempfile::tempdir().unwrap();
        let claude = home.path().join(".claude");
        assert!(
            registry(&claude).unwrap().is_empty(),
            "no folder: no entries"
        );
        let dir = claude.join("sessions");
        std::fs::create_dir_all(&dir).unwrap();
        let good =
            r#"{"pid":4242,"sessionId":"s-1","cwd":"/w/app","tmux":"cc:@0.%3","procStart":"99"}"#;
        std::fs::write(dir.join("4242.json"), good).unwrap();
        std::fs::write(dir.join("4243.json"), r#"{"pid":4243,"sessionI"#).unwrap();
        std::fs::write(dir.join("notes.txt"), good).unwrap();
        let big = format!(
            r#"{{"pid":1,"sessionId":"s-big","pad":"{}"}}"#,
            "x".repeat(1 << 20)
        );
        std::fs::write(dir.join("1.json"), big).unwrap();
        let entries = registry(&claude).unwrap();
        assert_eq!(entries.len(), 1, "{entries:?}");
        let (path, r) = &entries[0];
        assert_eq!(path, &dir.join("4242.json"));
        assert_eq!((r.pid, r.session_id.as_str()), (4242, "s-1"));
        assert_eq!(r.cwd.as_deref(), Some("/w/app"));
        assert_eq!(r.tmux.as_deref(), Some("cc:@0.%3"));
        assert_eq!(r.proc_start.as_deref(), Some("99"));
    }
}
