//! Codex CLI (`~/.codex`, or `$CODEX_HOME`): where it keeps its files.
//!
//! - `sessions/<yyyy>/<mm>/<dd>/rollout-….jsonl`: rollouts, one per session.
//!
//! Codex writes no plan files and Plandeck installs no hook into it.

use std::path::{Path, PathBuf};

use crate::config::Roots;

use super::{Agent, Capabilities, Descriptor, Folder};

pub const DESCRIPTOR: Descriptor = Descriptor {
    agent: Agent::Codex,
    id: "codex",
    display_name: "Codex CLI",
    capabilities: Capabilities {
        plans: false,
        sessions: true,
        gate: false,
        verify: true,
        stop_hook: false,
    },
    root,
    folders: &[Folder {
        label: "sessions",
        dir: sessions_dir,
        suffix: ".jsonl",
    }],
    plan_hook: None,
    approval_card: None,
};

fn root(roots: &Roots) -> &Path {
    &roots.codex
}

/// Rollouts, in dated folders.
pub fn sessions_dir(root: &Path) -> PathBuf {
    root.join("sessions")
}
