//! The coding agents whose files Plandeck reads, each in its own module: [`claude`], [`gemini`],
//! [`codex`]. An agent's module holds everything Plandeck knows about it that is not a reader of
//! its records: where it keeps its files (folder layout, plan locations, settings file), the shape
//! of the hooks Plandeck installs into its settings, the labels and keys of its approval card, and
//! its [`Descriptor`] (display name, what Plandeck can do with it).
//!
//! The rest of the crate talks to agents through [`Agent`] and [`all`]. Adding an agent is its
//! module, its variant in [`Agent`] and its line in [`all`].

pub mod claude;
pub mod codex;
pub mod gemini;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::config::Roots;

/// Which agent wrote a plan or runs a session. `Other` covers plans in folders the user added.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum Agent {
    Claude,
    Gemini,
    Codex,
    Other,
}

/// Every agent Plandeck knows, in the order lists show them: the one registration.
pub fn all() -> &'static [Descriptor] {
    &[claude::DESCRIPTOR, gemini::DESCRIPTOR, codex::DESCRIPTOR]
}

/// What Plandeck can do with one agent's files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Capabilities {
    /// It writes plan files Plandeck lists.
    pub plans: bool,
    /// Its sessions are listed (transcripts, chats, rollouts).
    pub sessions: bool,
    /// Its plan approvals can wait for a reviewer: a plan-approval hook Plandeck installs.
    pub gate: bool,
    /// Verify reads what it did after an approval from its records.
    pub verify: bool,
    /// A hook that hands it verify's report before it stops can be installed.
    pub stop_hook: bool,
}

/// An agent's plan-approval card: the texts Plandeck recognises it by on the agent's screen, and
/// its choices (the key that picks each, and its label in the agent's words, which the window's
/// buttons repeat).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApprovalCard {
    /// Texts of the card's choices; two of them on screen mean the card is up.
    pub markers: &'static [&'static str],
    /// Approves and lets the agent edit without asking.
    pub approve_auto: Choice,
    /// Approves and has the agent ask before each edit.
    pub approve_manual: Choice,
    /// Sends feedback (typed after it) instead of approving.
    pub feedback: Choice,
}

/// One choice of an approval card.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice {
    /// The key that picks it.
    pub key: u8,
    /// Its label on the card.
    pub label: &'static str,
}

/// One choice of an approval card, as the window shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct CardChoice {
    pub key: u8,
    pub label: String,
}

impl From<Choice> for CardChoice {
    fn from(c: Choice) -> Self {
        CardChoice {
            key: c.key,
            label: c.label.to_owned(),
        }
    }
}

/// An approval card's choices, as the window shows them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CardChoices {
    pub approve_auto: CardChoice,
    pub approve_manual: CardChoice,
    pub feedback: CardChoice,
}

/// Where and how Plandeck's plan-approval hook sits in an agent's settings file.
#[derive(Debug, Clone, Copy)]
pub struct HookShape {
    /// The settings file under the agent's root.
    pub settings_file: fn(&Path) -> PathBuf,
    /// The hook event (`hooks.<event>` in the settings).
    pub event: &'static str,
    /// The group Plandeck adds to the event's array, for the hook command.
    pub group: fn(&str) -> serde_json::Value,
}

/// One folder of an agent's, as the overview counts it.
#[derive(Debug, Clone, Copy)]
pub struct Folder {
    pub label: &'static str,
    pub dir: fn(&Path) -> PathBuf,
    /// The suffix of the files counted in it.
    pub suffix: &'static str,
}

/// One agent as the rest of the crate sees it.
#[derive(Debug, Clone, Copy)]
pub struct Descriptor {
    pub agent: Agent,
    /// The agent's name in Plandeck's words (`--agent claude`, `hook claude`, JSON).
    pub id: &'static str,
    /// The name a person reads.
    pub display_name: &'static str,
    pub capabilities: Capabilities,
    /// The agent's root among the [`Roots`].
    pub root: fn(&Roots) -> &Path,
    /// Its folders the overview counts files in.
    pub folders: &'static [Folder],
    /// Its plan-approval hook, when it has one.
    pub plan_hook: Option<HookShape>,
    /// Its plan-approval card, when Plandeck can answer one.
    pub approval_card: Option<ApprovalCard>,
}

impl Agent {
    /// The agent's descriptor; `None` for [`Agent::Other`].
    pub fn descriptor(self) -> Option<&'static Descriptor> {
        all().iter().find(|d| d.agent == self)
    }

    pub fn as_str(self) -> &'static str {
        self.descriptor().map_or("other", |d| d.id)
    }

    /// The name a person reads.
    pub fn display_name(self) -> &'static str {
        self.descriptor().map_or("Other", |d| d.display_name)
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
        if s == "other" {
            return Ok(Agent::Other);
        }
        all()
            .iter()
            .find(|d| d.id == s)
            .map(|d| d.agent)
            .ok_or_else(|| {
                let names: Vec<&str> = all().iter().map(|d| d.id).collect();
                format!(
                    "unknown agent {s:?}: expected {} or other",
                    names.join(", ")
                )
            })
    }
}

/// One agent as the window lists it: its id, the name a person reads, and what Plandeck can do
/// with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AgentInfo {
    pub id: Agent,
    pub name: String,
    pub capabilities: Capabilities,
    /// Its plan-approval card's choices, when Plandeck answers one.
    pub card: Option<CardChoices>,
}

/// Every agent Plandeck knows, for the window's lists (filters, hooks).
pub fn list() -> Vec<AgentInfo> {
    all()
        .iter()
        .map(|d| AgentInfo {
            id: d.agent,
            name: d.display_name.to_owned(),
            capabilities: d.capabilities,
            card: d.approval_card.map(|c| CardChoices {
                approve_auto: c.approve_auto.into(),
                approve_manual: c.approve_manual.into(),
                feedback: c.feedback.into(),
            }),
        })
        .collect()
}

/// The TypeScript declarations of this module's IPC types.
pub fn ts_declarations() -> Vec<String> {
    vec![
        <Agent as TS>::decl(),
        <Capabilities as TS>::decl(),
        <CardChoice as TS>::decl(),
        <CardChoices as TS>::decl(),
        <AgentInfo as TS>::decl(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_agent_reads_back_from_its_name() {
        for d in all() {
            assert_eq!(d.id.parse::<Agent>(), Ok(d.agent));
            assert_eq!(d.agent.as_str(), d.id);
            assert_eq!(d.agent.descriptor().map(|x| x.id), Some(d.id));
        }
        assert_eq!("other".parse::<Agent>(), Ok(Agent::Other));
        let err = "cursor".parse::<Agent>().unwrap_err();
        assert!(
            err.contains("expected claude, gemini, codex or other"),
            "{err}"
        );
    }

    #[test]
    fn an_agent_with_a_plan_hook_can_be_gated_and_has_a_card() {
        for d in all() {
            assert_eq!(d.plan_hook.is_some(), d.capabilities.gate, "{}", d.id);
            assert_eq!(d.approval_card.is_some(), d.capabilities.gate, "{}", d.id);
        }
    }

    #[test]
    fn a_card_is_recognised_by_the_words_of_its_own_choices() {
        for d in all() {
            let Some(card) = d.approval_card else {
                continue;
            };
            let choices = [card.approve_auto, card.approve_manual, card.feedback];
            assert_eq!(choices.map(|c| c.key), [1, 2, 3], "{}", d.id);
            for marker in card.markers {
                assert!(
                    choices.iter().any(|c| c.label.contains(marker)),
                    "{}: {marker:?} is no choice's label",
                    d.id
                );
            }
        }
        let claude = &list()[0];
        let card = claude.card.as_ref().unwrap();
        assert_eq!(card.approve_manual.label, "Yes, manually approve edits");
        assert!(list()[2].card.is_none());
    }

    #[test]
    fn the_list_names_each_agent_once_with_its_capabilities() {
        let list = list();
        let ids: Vec<Agent> = list.iter().map(|a| a.id).collect();
        assert_eq!(ids, [Agent::Claude, Agent::Gemini, Agent::Codex]);
        assert_eq!(list[0].name, "Claude Code");
        assert!(list[0].capabilities.stop_hook);
        assert!(!list[1].capabilities.stop_hook && list[1].capabilities.gate);
        assert!(!list[2].capabilities.plans && !list[2].capabilities.gate);
        assert!(list.iter().all(|a| a.capabilities.sessions));
    }
}
