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

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::config::Roots;

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
