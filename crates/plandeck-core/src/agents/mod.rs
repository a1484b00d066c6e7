//! The coding agents whose files Plandeck reads.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Which agent wrote a plan or runs a session. `Other` covers plans in folders the user added.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum Agent {
    Claude,
    Gemini,
    Codex,
    Other,
}

impl Agent {
    pub fn as_str(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Gemini => "gemini",
            Agent::Codex => "codex",
            Agent::Other => "other",
        }
    }

    /// The name a person reads.
    pub fn display_name(self) -> &'static str {
        match self {
            Agent::Claude => "Claude Code",
            Agent::Gemini => "Gemini CLI",
            Agent::Codex => "Codex CLI",
            Agent::Other => "Other",
        }
    }
}

impl std::fmt::Display for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Agent {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "claude" => Ok(Agent::Claude),
            "gemini" => Ok(Agent::Gemini),
            "codex" => Ok(Agent::Codex),
            "other" => Ok(Agent::Other),
            _ => Err(format!(
                "unknown agent {s:?}: expected claude, gemini, codex or other"
            )),
        }
    }
}
