//! Codex CLI (`~/.codex`, or `$CODEX_HOME`): where it keeps its files.
//!
//! - `sessions/<yyyy>/<mm>/<dd>/rollout-….jsonl`: rollouts, one per session.
//!
//! Codex writes no plan files and Plandeck installs no hook into it: 0.169's hooks
//! (`SessionStart`, `UserPromptSubmit`, `PreToolUse`, `PermissionRequest`, `PostToolUse`, `Stop`,
//! …) have none for a proposed plan or its "Implement this plan?" popup. The gate reads the plan
//! from the rollout and answers the popup ([`CARD`]) in the session's tmux pane.

pub mod driver;
pub mod launch;
pub(crate) mod records;
pub mod server_threads;

use std::path::{Path, PathBuf};

use crate::config::{RootSpec, Roots};

use super::{Agent, ApprovalCard, Capabilities, Choice, Descriptor, Folder};

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
    root_spec: RootSpec {
        id: "codex",
        env: Some("CODEX_HOME"),
        home_dir: ".codex",
    },
    root,
    folders: &[Folder {
        label: "sessions",
        dir: sessions_dir,
        suffix: ".jsonl",
    }],
    plan_hook: None,
    stop_hook: None,
    approval_card: Some(CARD),
};

/// The popup the TUI opens in Plan mode once the model proposed a plan (its title is
/// [`CARD_TITLE`]); each row is drawn with a description beside it ("Switch to Default and start
/// coding"). `1` switches to Default mode and sends [`IMPLEMENT_MESSAGE`]; `2` starts a new thread
/// from the plan; `3` (or Esc) closes it, nothing sent, nothing recorded.
pub const CARD: ApprovalCard = ApprovalCard {
    markers: &[
        "Yes, implement this plan",
        "Yes, clear context and implement",
        "No, stay in Plan mode",
    ],
    approve_auto: Choice {
        key: 1,
        label: "Yes, implement this plan",
    },
    approve_manual: Choice {
        key: 2,
        label: "Yes, clear context and implement",
    },
    feedback: Choice {
        key: 3,
        label: "No, stay in Plan mode",
    },
};

/// The title of the plan popup.
pub const CARD_TITLE: &str = "Implement this plan?";

/// What the popup's `1` sends as the next user message, in Default mode.
pub const IMPLEMENT_MESSAGE: &str = "Implement the plan.";

/// The message that carries a plan the reviewer edited: typed in Plan mode after the popup's
/// "stay in Plan mode", it asks the model to take the edited plan as its plan, word for word.
/// The model then proposes it (the popup opens again, a new request), and approving that
/// implements it.
pub fn edited_plan_message(edited: &str) -> String {
    format!(
        "The reviewer edited your plan and approved the edited version below. Propose exactly this plan, word for word, as your plan, and implement exactly it once it is accepted:\n\n{}",
        edited.trim_end()
    )
}

fn root(roots: &Roots) -> &Path {
    &roots.codex
}

/// Rollouts, in dated folders.
pub fn sessions_dir(root: &Path) -> PathBuf {
    root.join("sessions")
}

/// Shown while Codex CLI 0.169 works on a turn ("Working (3s • esc to interrupt)").
pub const WORKING: &str = "esc to interrupt";

/// The composer's text when it holds a draft (read from a plain capture: the last line starting
/// with `›`), for the refusal's words.
pub fn composer_text(screen: &str) -> Option<String> {
    let line = screen
        .lines()
        .rev()
        .find(|l| l.trim_start().starts_with('›'))?;
    Some(
        line.trim_start()
            .trim_start_matches('›')
            .trim()
            .chars()
            .take(60)
            .collect(),
    )
}

/// Whether the composer (the input line `› …` at the bottom) is empty, read from a capture with
/// its styles (`tmux capture-pane -e`): an empty composer shows a placeholder in dim text
/// ("Ask Codex to do anything"), typed text is drawn plain. `None` when no line starts with `›`;
/// an open popup's selected row (`› 1. …`) reads as not empty, so nothing is typed then.
pub fn composer_empty(styled: &str) -> Option<bool> {
    let line = styled
        .lines()
        .rev()
        .find(|l| strip_styles(l).0.trim_start().starts_with('›'))?;
    let after = &line[line.find('›')? + '›'.len_utf8()..];
    let (text, dim_at_start) = strip_styles(after);
    Some(text.trim().is_empty() || dim_at_start)
}

/// `s` without its SGR sequences (`ESC [ … m`), and whether the first visible character after
/// leading blanks is drawn dim (an SGR with parameter `2` in effect, not reset since).
fn strip_styles(s: &str) -> (String, bool) {
    let mut out = String::with_capacity(s.len());
    let mut dim = false;
    let mut dim_at_start = None;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            let mut params = String::new();
            for p in chars.by_ref() {
                if p.is_ascii_alphabetic() {
                    if p == 'm' {
                        for n in params.split(';') {
                            match n {
                                "" | "0" | "22" => dim = false,
                                "2" => dim = true,
                                _ => {}
                            }
                        }
                    }
                    break;
                }
                params.push(p);
            }
            continue;
        }
        if dim_at_start.is_none() && !c.is_whitespace() {
            dim_at_start = Some(dim);
        }
        out.push(c);
    }
    (out, dim_at_start.unwrap_or(false))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn screen(name: &str) -> String {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/codex-cli-0.169.0/screens")
            .join(name);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("fixture {}: {e}", path.display()))
    }

    /// Captured from the real TUI (`capture-pane -p -e`) after the popup's `3`: the placeholder
    /// is dim; a draft typed after it is not. The person's earlier message above (`› Plan …`) is
    /// history, not the composer.
    #[test]
    fn the_composer_is_empty_only_with_its_dim_placeholder() {
        assert_eq!(composer_empty(&screen("composer-empty.ansi")), Some(true));
        assert_eq!(composer_empty(&screen("composer-draft.ansi")), Some(false));
        assert_eq!(
            composer_empty("\u{1b}[1m›\u{1b}[0m \u{1b}[2mAsk Codex\n"),
            Some(true)
        );
        assert_eq!(composer_empty("\u{1b}[1m›\u{1b}[0m \n"), Some(true));
        assert_eq!(composer_empty("no composer here\n"), None);
        // The popup, plain text: its selected row is no composer with a draft.
        let popup = screen("approval-card.txt");
        assert_eq!(composer_empty(&popup), Some(false));
    }
}
