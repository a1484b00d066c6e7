//! A temporary `$HOME` laid out as Plandeck finds it (`Roots::under_home`): the agents' folders
//! `~/.claude`, `~/.gemini`, `~/.codex`, Plandeck's store and settings. Removed when dropped.

use std::path::{Path, PathBuf};

pub struct Home {
    _dir: tempfile::TempDir,
    /// The home, canonical (so that paths read back from the system compare equal).
    pub path: PathBuf,
}

impl Home {
    /// An empty home (no agent folders yet).
    pub fn new() -> Home {
        let dir = tempfile::tempdir().expect("temp home");
        let path = std::fs::canonicalize(dir.path()).expect("canonical home");
        Home { _dir: dir, path }
    }

    /// A home with the three agents' folders made.
    pub fn with_agents() -> Home {
        let h = Home::new();
        for dir in [h.claude(), h.gemini(), h.codex()] {
            std::fs::create_dir_all(dir).expect("agent folder");
        }
        h
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
    /// `~/.claude`.
    pub fn claude(&self) -> PathBuf {
        claude_root(&self.path)
    }
    /// `~/.gemini`.
    pub fn gemini(&self) -> PathBuf {
        self.path.join(".gemini")
    }
    /// `~/.codex`.
    pub fn codex(&self) -> PathBuf {
        self.path.join(".codex")
    }
    /// Plandeck's store, `~/.local/share/plandeck`.
    pub fn data(&self) -> PathBuf {
        self.path.join(".local/share/plandeck")
    }
    /// Plandeck's settings folder, `~/.config/plandeck`.
    pub fn config(&self) -> PathBuf {
        self.path.join(".config/plandeck")
    }
    /// Writes Plandeck's settings file (`settings.json` under [`Home::config`]).
    pub fn settings(&self, settings: &serde_json::Value) {
        crate::git::write(&self.config().join("settings.json"), &settings.to_string());
    }
}

impl Default for Home {
    fn default() -> Self {
        Home::new()
    }
}

/// `<home>/.claude`.
pub fn claude_root(home: &Path) -> PathBuf {
    home.join(".claude")
}
