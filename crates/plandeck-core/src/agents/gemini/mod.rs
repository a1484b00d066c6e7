//! Gemini CLI (`~/.gemini`): where it keeps its files, the hook Plandeck installs into its
//! settings, and its plan-approval card.
//!
//! - `tmp/<slug>/`: one folder per project; its `.project_root` names the project.
//! - `tmp/<slug>/chats/session-….jsonl`: chats.
//! - `tmp/<slug>/<session>/plans/`: each session's plan files.
//! - `projects.json`: the registry of projects (`{"projects": {path: slug}}`).
//! - `settings.json`: user settings, where hooks go.

pub mod driver;
pub mod hook;
pub(crate) mod records;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::config::{RootSpec, Roots};

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
    root_spec: RootSpec {
        id: "gemini",
        env: None,
        home_dir: ".gemini",
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
    stop_hook: None,
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
    slug_dir.join(PROJECT_ROOT)
}

/// The name of the file in a project folder that names its project.
pub const PROJECT_ROOT: &str = ".project_root";

/// The most `projects.json` may weigh: a bigger one is not Gemini CLI's, and is not read.
const PROJECTS_MAX: u64 = 1024 * 1024;

/// The one reader of the registry of projects (`projects.json`, `{"projects": {path: slug}}`):
/// each project folder's name (slug) and the project it is for. Empty when the file is missing,
/// damaged or too big.
pub fn read_projects(root: &Path) -> HashMap<String, String> {
    let path = projects_file(root);
    let read = || -> Option<Value> {
        if std::fs::metadata(&path).ok()?.len() > PROJECTS_MAX {
            return None;
        }
        serde_json::from_slice(&std::fs::read(&path).ok()?).ok()
    };
    let Some(Value::Object(mut top)) = read() else {
        return HashMap::new();
    };
    let Some(Value::Object(projects)) = top.remove("projects") else {
        return HashMap::new();
    };
    projects
        .into_iter()
        .filter_map(|(project, slug)| Some((slug.as_str()?.to_owned(), project)))
        .collect()
}

/// The project a project folder names in its `.project_root`, when it names one.
pub fn read_project_root(slug_dir: &Path) -> Option<String> {
    std::fs::read_to_string(project_root_file(slug_dir))
        .ok()
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
}

/// The project folder (`tmp/<slug>/`) of a chat (`tmp/<slug>/chats/session-….jsonl`).
pub fn slug_dir_of_chat(chat: &Path) -> Option<&Path> {
    chat.parent()?.parent()
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

/// Shown while Gemini CLI 0.61 works on a turn ("(esc to cancel, 3s)"); gone when it waits.
pub const WORKING: &str = "esc to cancel";

/// The placeholder of Gemini CLI 0.61's empty input box (` >   Type your message or
/// @path/to/file`).
pub const INPUT_PLACEHOLDER: &str = "Type your message or @path/to/file";

/// What Gemini CLI's input box holds: `None` when no input box is drawn (the line starting with
/// `>` after the last rule `────`; the person's earlier messages above are drawn with `>` too),
/// `Some("")` when it is empty (its placeholder), else the draft (its first 60 characters).
pub fn input_draft(screen: &str) -> Option<String> {
    let lines: Vec<&str> = screen.lines().collect();
    let is_rule = |l: &str| {
        let t = l.trim();
        t.chars().count() >= 10 && t.chars().all(|c| c == '─')
    };
    let rule = lines.iter().rposition(|l| is_rule(l))?;
    let line = lines[rule + 1..]
        .iter()
        .map(|l| l.trim().trim_matches('│').trim())
        .find(|l| l.starts_with('>'))?;
    let text = line.trim_start_matches('>').trim();
    if text.is_empty() || text == INPUT_PLACEHOLDER {
        return Some(String::new());
    }
    Some(text.chars().take(60).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one reader of `projects.json`: each slug with its project; a missing, damaged or
    /// oversized file is no projects, never an error.
    #[test]
    fn the_projects_registry_reads_each_slug_and_nothing_of_a_bad_file() {
        let root = tempfile::tempdir().unwrap();
        assert!(read_projects(root.path()).is_empty(), "no file");
        let file = projects_file(root.path());
        std::fs::write(&file, r#"{"projects": {"/w/shop": "shop", "/w/x": 3}}"#).unwrap();
        let projects = read_projects(root.path());
        assert_eq!(projects.len(), 1, "{projects:?}");
        assert_eq!(projects["shop"], "/w/shop");
        std::fs::write(&file, r#"{"projects": {"/w/shop": "sh"#).unwrap();
        assert!(read_projects(root.path()).is_empty(), "damaged");
        let big = format!(
            r#"{{"projects": {{"/w/a": "a"}}, "pad": "{}"}}"#,
            "x".repeat(1 << 20)
        );
        std::fs::write(&file, big).unwrap();
        assert!(read_projects(root.path()).is_empty(), "too big");

        let slug = tmp_dir(root.path()).join("shop");
        std::fs::create_dir_all(&slug).unwrap();
        assert_eq!(read_project_root(&slug), None);
        std::fs::write(project_root_file(&slug), "  /w/shop\n").unwrap();
        assert_eq!(read_project_root(&slug).as_deref(), Some("/w/shop"));
        let chat = chats_dir(&slug).join("session-1.jsonl");
        assert_eq!(slug_dir_of_chat(&chat), Some(slug.as_path()));
    }
}
