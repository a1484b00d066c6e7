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
pub mod driver;
pub mod gemini;
pub mod records;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::config::{ConfigError, Env, Overrides, RootSpec, Roots};

pub use driver::{Driver, Input};

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

/// How each agent's root is found, from its descriptor.
pub fn root_specs() -> Vec<RootSpec> {
    all().iter().map(|d| d.root_spec).collect()
}

impl Roots {
    /// Resolves every root from flags, the settings file, the environment and `$HOME`
    /// ([`Roots::resolve_with`] every agent's [`RootSpec`]).
    pub fn resolve(env: &Env, overrides: &Overrides) -> Result<Self, ConfigError> {
        Self::resolve_with(env, overrides, &root_specs())
    }

    /// Roots for a self-contained home (the demo, tests): every agent under `home`, the store
    /// and config under `home/.local/share` and `home/.config`.
    pub fn under_home(home: &Path) -> Self {
        Self::under_home_with(home, &root_specs())
    }
}

/// What Plandeck reads of `agent`'s files: the one place that picks an agent's [`records::Records`].
pub fn records(agent: Agent) -> &'static dyn records::Records {
    match agent {
        Agent::Claude => &claude::records::ClaudeRecords,
        Agent::Gemini => &gemini::records::GeminiRecords,
        Agent::Codex => &codex::records::CodexRecords,
        Agent::Other => &records::NoRecords,
    }
}

/// The driver of `agent` (how the gate and control drive it): the one place that picks an
/// agent's behaviour by its variant.
pub fn driver(agent: Agent) -> &'static dyn Driver {
    match agent {
        Agent::Claude => &claude::driver::Claude,
        Agent::Gemini => &gemini::driver::Gemini,
        Agent::Codex => &codex::driver::Codex,
        Agent::Other => &driver::Unknown,
    }
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

/// Which of an approval card's choices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    ApproveAuto,
    ApproveManual,
    Feedback,
}

/// One numbered row of an approval card as the agent draws it: the key that picks it and its
/// label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScreenRow {
    pub key: u8,
    pub label: String,
}

/// Why a card on screen cannot be answered by its labels: the choice wanted, and the rows found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardMismatch {
    /// The label of the choice wanted.
    pub wanted: &'static str,
    /// The card's rows as drawn (none when no numbered rows were found).
    pub rows: Vec<ScreenRow>,
}

impl std::fmt::Display for CardMismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.rows.is_empty() {
            return write!(f, "no choice rows found, wanted {:?}", self.wanted);
        }
        let rows: Vec<String> = self
            .rows
            .iter()
            .map(|r| format!("{}. {}", r.key, r.label))
            .collect();
        write!(
            f,
            "wanted {:?}, the card shows {}",
            self.wanted,
            rows.join(" / ")
        )
    }
}

impl ApprovalCard {
    /// Whether the card is on `screen`: two of its markers are.
    pub fn visible_on(&self, screen: &str) -> bool {
        self.markers.iter().filter(|m| screen.contains(**m)).count() >= 2
    }

    /// The choice `pick` as the agent labels it, with the key it usually has.
    pub fn choice(&self, pick: Pick) -> Choice {
        match pick {
            Pick::ApproveAuto => self.approve_auto,
            Pick::ApproveManual => self.approve_manual,
            Pick::Feedback => self.feedback,
        }
    }

    /// The key of the row labelled as `pick` on `screen` (a capture of the agent's pane with the
    /// card up): rows are chosen by their label, never by their place. Refused when a row's
    /// label is none of this card's choices, or the wanted label is not there exactly once.
    pub fn key_on(&self, screen: &str, pick: Pick) -> Result<u8, CardMismatch> {
        let wanted = self.choice(pick).label;
        let rows = card_rows(screen);
        let known = [self.approve_auto, self.approve_manual, self.feedback];
        let mismatch = |rows: Vec<ScreenRow>| CardMismatch { wanted, rows };
        if rows.is_empty()
            || rows
                .iter()
                .any(|r| !known.iter().any(|c| label_matches(&r.label, c.label)))
        {
            return Err(mismatch(rows));
        }
        let mut matching = rows.iter().filter(|r| label_matches(&r.label, wanted));
        match (matching.next(), matching.next()) {
            (Some(row), None) => Ok(row.key),
            _ => Err(mismatch(rows)),
        }
    }
}

/// Whether a row's label on screen is `label`: the same words, give or take the trailing dots
/// or ellipsis the CLIs draw after an open choice ("Type your feedback..."), or the label followed
/// by a column gap (two spaces or more) and its description (Codex CLI draws "Yes, implement this
/// plan          Switch to Default and start coding").
fn label_matches(row: &str, label: &str) -> bool {
    let trim = |s: &str| {
        s.trim()
            .trim_end_matches(['.', '…'])
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    let row = row.trim();
    trim(row) == trim(label)
        || row
            .split_once("  ")
            .is_some_and(|(l, _)| trim(l) == trim(label))
}

/// The numbered rows of the card at the bottom of `screen`: the last run of rows numbered 1, 2,
/// … n (a plan's own numbered list above the card is not part of it). Lines between the rows (a
/// choice's description) are allowed.
pub fn card_rows(screen: &str) -> Vec<ScreenRow> {
    let numbered: Vec<ScreenRow> = screen.lines().filter_map(numbered_row).collect();
    let Some(last) = numbered.len().checked_sub(1) else {
        return Vec::new();
    };
    let mut first = last;
    while first > 0 && numbered[first - 1].key + 1 == numbered[first].key {
        first -= 1;
    }
    if numbered[first].key != 1 {
        return Vec::new();
    }
    numbered[first..].to_vec()
}

/// A line of the form `❯ 1. Yes, and use auto mode` (inside a box, marked as selected or not).
fn numbered_row(line: &str) -> Option<ScreenRow> {
    let frame = |c: char| c.is_whitespace() || matches!(c, '│' | '┃' | '|');
    let rest = line
        .trim_start_matches(|c: char| frame(c) || matches!(c, '❯' | '●' | '○' | '›' | '>' | '*'));
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 || digits > 1 {
        return None;
    }
    let key: u8 = rest[..digits].parse().ok()?;
    let label = rest[digits..].strip_prefix('.')?;
    if !label.starts_with(char::is_whitespace) {
        return None;
    }
    let label = label.trim_end_matches(frame).trim();
    (!label.is_empty()).then(|| ScreenRow {
        key,
        label: label.to_owned(),
    })
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
    /// How its root is found: its environment variable, its folder under `$HOME` (the flag
    /// `--<id>-root` and the settings' `<id>Root` follow from its id).
    pub root_spec: RootSpec,
    /// The agent's root among the [`Roots`] (`|r| r.root("<id>")`).
    pub root: fn(&Roots) -> &Path,
    /// Its folders the overview counts files in.
    pub folders: &'static [Folder],
    /// Its plan-approval hook, when it has one.
    pub plan_hook: Option<HookShape>,
    /// The hook that hands it verify's report before it stops (`plandeck hook <id>-stop`), when
    /// it has one ([`Capabilities::stop_hook`]).
    pub stop_hook: Option<HookShape>,
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
mod prop_tests;

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
            assert_eq!(d.stop_hook.is_some(), d.capabilities.stop_hook, "{}", d.id);
            if d.capabilities.gate {
                assert!(d.approval_card.is_some(), "{}", d.id);
            }
        }
        // Codex CLI has no hook to install, but its plan popup is answered on its card.
        assert!(codex::DESCRIPTOR.approval_card.is_some());
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
        let list = list();
        let codex = list[2].card.as_ref().expect("Codex's plan popup");
        assert_eq!(codex.approve_auto.label, "Yes, implement this plan");
    }

    /// Approval cards as the real CLIs drew them in tmux (`capture-pane -p -J`, trailing blanks
    /// trimmed): a plan with its own numbered list above the card.
    fn screen(agent_dir: &str) -> String {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures")
            .join(agent_dir)
            .join("screens/approval-card.txt");
        // A missing fixture fails the test; it never passes by skipping.
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("fixture {}: {e}", path.display()))
    }

    fn keys(card: &ApprovalCard, screen: &str) -> [Result<u8, CardMismatch>; 3] {
        [Pick::ApproveAuto, Pick::ApproveManual, Pick::Feedback].map(|p| card.key_on(screen, p))
    }

    #[test]
    fn a_real_cards_rows_are_read_below_the_plans_own_list() {
        let claude = screen("claude-code-2.1.328");
        let rows = card_rows(&claude);
        let labels: Vec<(u8, &str)> = rows.iter().map(|r| (r.key, r.label.as_str())).collect();
        assert_eq!(
            labels,
            [
                (1, "Yes, and use auto mode"),
                (2, "Yes, manually approve edits"),
                (3, "Tell Claude what to change"),
            ]
        );
        assert_eq!(keys(&claude::CARD, &claude), [Ok(1), Ok(2), Ok(3)]);

        let gemini = screen("gemini-cli-0.61.0");
        let labels: Vec<String> = card_rows(&gemini).into_iter().map(|r| r.label).collect();
        assert_eq!(
            labels,
            [
                "Yes, automatically accept edits",
                "Yes, manually accept edits",
                "Type your feedback...",
            ]
        );
        assert_eq!(keys(&gemini::CARD, &gemini), [Ok(1), Ok(2), Ok(3)]);
        // Each card is its own agent's: the other's labels are unexpected.
        assert!(gemini::CARD.key_on(&claude, Pick::ApproveAuto).is_err());

        // Codex CLI 0.169 draws each row's description beside its label, after a column gap.
        let codex = screen("codex-cli-0.169.0");
        let rows = card_rows(&codex);
        assert_eq!(rows.len(), 3);
        assert!(rows[0].label.starts_with("Yes, implement this plan "));
        assert!(rows[0]
            .label
            .ends_with("Switch to Default and start coding"));
        assert_eq!(keys(&codex::CARD, &codex), [Ok(1), Ok(2), Ok(3)]);
        assert!(codex::CARD.key_on(&claude, Pick::ApproveAuto).is_err());
        assert!(claude::CARD.key_on(&codex, Pick::ApproveAuto).is_err());
        // A description is not a label: a row whose label changed is refused.
        let renamed = codex.replace("Yes, implement this plan", "Yes, implement and push");
        assert!(codex::CARD.key_on(&renamed, Pick::Feedback).is_err());
    }

    /// A card whose rows come in another order is answered by label: the key of the row that
    /// says what the reviewer chose, never the key the choice usually has.
    #[test]
    fn a_reordered_card_is_answered_by_its_labels() {
        let swap = |screen: &str, a: &str, b: &str| {
            screen.replace(a, "\u{0}").replace(b, a).replace("\u{0}", b)
        };
        let claude = swap(
            &screen("claude-code-2.1.328"),
            "Yes, and use auto mode",
            "Yes, manually approve edits",
        );
        assert_eq!(keys(&claude::CARD, &claude), [Ok(2), Ok(1), Ok(3)]);
        let gemini = swap(
            &screen("gemini-cli-0.61.0"),
            "Yes, automatically accept edits",
            "Type your feedback...",
        );
        assert_eq!(keys(&gemini::CARD, &gemini), [Ok(3), Ok(2), Ok(1)]);
    }

    /// A card with a label Plandeck does not know (a new choice, or a renamed one) is refused
    /// whichever choice is wanted, and the refusal names what is on screen.
    #[test]
    fn a_card_with_an_unexpected_label_is_refused() {
        let real = screen("claude-code-2.1.328");
        let renamed = real.replace(
            "Yes, manually approve edits",
            "Yes, and bypass all permissions",
        );
        for pick in [Pick::ApproveAuto, Pick::ApproveManual, Pick::Feedback] {
            let err = claude::CARD.key_on(&renamed, pick).unwrap_err();
            assert_eq!(err.rows.len(), 3, "{err}");
            assert!(
                err.to_string()
                    .contains("2. Yes, and bypass all permissions"),
                "{err}"
            );
        }
        // A fourth choice, even after the known three.
        let more = real.replace(
            "3. Tell Claude what to change",
            "3. Tell Claude what to change\n     4. Yes, clear context and use auto mode",
        );
        assert!(claude::CARD.key_on(&more, Pick::ApproveAuto).is_err());
        // A wanted choice missing, or shown twice.
        let missing = real.replace("     2. Yes, manually approve edits\n", "");
        assert!(claude::CARD.key_on(&missing, Pick::ApproveManual).is_err());
        let twice = real.replace("Tell Claude what to change", "Yes, and use auto mode");
        assert!(claude::CARD.key_on(&twice, Pick::ApproveAuto).is_err());
        // No rows at all.
        let err = claude::CARD
            .key_on("> implementing", Pick::ApproveAuto)
            .unwrap_err();
        assert!(
            err.rows.is_empty() && err.to_string().contains("no choice rows"),
            "{err}"
        );
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
