//! Gemini CLI (`~/.gemini`): where it keeps its files, the hook Plandeck installs into its
//! settings, and its plan-approval card.
//!
//! - `tmp/<slug>/`: one folder per project; its `.project_root` names the project.
//! - `tmp/<slug>/chats/session-….jsonl`: chats.
//! - `tmp/<slug>/<session>/plans/`: each session's plan files.
//! - `projects.json`: the registry of projects (`{"projects": {path: slug}}`).
//! - `settings.json`: user settings, where hooks go.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::config::Roots;

use super::{Agent, ApprovalCard, Capabilities, Choice, Descriptor, Folder, HookShape};

pub const DESCRIPTOR: Descriptor = Descriptor {
    agent: Agent::Gemini,
    id: "gemini",
    display_name: "Gemini CLI",
    capabilities: Capabilities {
        plans: true,
        sessions: true,
        gate: true,
        verify: true,
        stop_hook: false,
    },
    root,
    folders: &[
        Folder {
            label: "plans",
            dir: tmp_dir,
            suffix: ".md",
        },
        Folder {
            label: "chats",
            dir: tmp_dir,
            suffix: ".jsonl",
        },
    ],
    plan_hook: Some(HookShape {
        settings_file,
        event: "BeforeTool",
        group: plan_hook_group,
    }),
    approval_card: Some(CARD),
};

fn root(roots: &Roots) -> &Path {
    &roots.gemini
}

/// The project folders (`<slug>/`), holding chats and sessions' plans.
pub fn tmp_dir(root: &Path) -> PathBuf {
    root.join("tmp")
}

/// The registry of projects.
pub fn projects_file(root: &Path) -> PathBuf {
    root.join("projects.json")
}

/// User settings, where hooks go.
pub fn settings_file(root: &Path) -> PathBuf {
    root.join("settings.json")
}

/// A project folder's chats.
pub fn chats_dir(slug_dir: &Path) -> PathBuf {
    slug_dir.join(CHATS)
}

/// The name of a project folder's chats folder.
pub const CHATS: &str = "chats";

/// The file in a project folder that names its project.
pub fn project_root_file(slug_dir: &Path) -> PathBuf {
    slug_dir.join(".project_root")
}

/// The plans of session `session_id` in a project folder.
pub fn session_plans_dir(slug_dir: &Path, session_id: &str) -> PathBuf {
    slug_dir.join(session_id).join(PLANS)
}

/// The name of a session's plans folder.
pub const PLANS: &str = "plans";

/// Gemini CLI's hook timeout (milliseconds): the hook returns at once, this is only a bound.
pub const HOOK_TIMEOUT_MS: u64 = 10_000;

/// The tool whose call is the plan's approval.
pub const PLAN_TOOL: &str = "exit_plan_mode";

/// Plandeck's plan-approval hook group for `command`.
pub fn plan_hook_group(command: &str) -> Value {
    json!({
        "matcher": PLAN_TOOL,
        "hooks": [{
            "type": "command",
            "name": "plandeck",
            "command": command,
            "timeout": HOOK_TIMEOUT_MS,
        }],
    })
}

/// The plan-approval card: "1. Yes, automatically accept edits", "2. Yes, manually accept
/// edits", "3. Type your feedback…" (`tests/fixtures/gemini-cli-*/README.md`).
pub const CARD: ApprovalCard = ApprovalCard {
    markers: &[
        "automatically accept edits",
        "manually accept edits",
        "Type your feedback",
    ],
    approve_auto: Choice {
        key: 1,
        label: "Yes, automatically accept edits",
    },
    approve_manual: Choice {
        key: 2,
        label: "Yes, manually accept edits",
    },
    feedback: Choice {
        key: 3,
        label: "Type your feedback",
    },
};
