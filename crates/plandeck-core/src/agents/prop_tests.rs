//! Property tests of the card recognisers (issue 33): the approval cards and input boxes are read
//! from an agent's screen, which shows whatever the agent, its plan or a tool printed. Any screen:
//! no panic, nothing read that the screen does not hold. A real card with anything a plan can
//! print above it: the row picked is the row so labelled, or none, never another.

use super::{all, card_rows, ApprovalCard, Pick};
use crate::agents::Agent;
use proptest::prelude::*;

fn fixture(agent_dir: &str, name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(agent_dir)
        .join("screens")
        .join(name);
    // A missing fixture fails the test; it never passes by skipping.
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("fixture {}: {e}", path.display()))
}

/// Every agent with a card, with its real card screen.
fn cards() -> Vec<(Agent, ApprovalCard, String)> {
    all()
        .iter()
        .filter_map(|d| {
            let dir = match d.agent {
                Agent::Claude => "claude-code-2.1.328",
                Agent::Gemini => "gemini-cli-0.61.0",
                Agent::Codex => "codex-cli-0.169.0",
                _ => return None,
            };
            Some((d.agent, d.approval_card?, fixture(dir, "approval-card.txt")))
        })
        .collect()
}

/// A line a plan or a tool may print: any text, numbered rows with a card's own labels, frames.
fn printed_line() -> impl Strategy<Value = String> {
    let labels: Vec<&'static str> = all()
        .iter()
        .filter_map(|d| d.approval_card)
        .flat_map(|c| {
            [
                c.approve_auto.label,
                c.approve_manual.label,
                c.feedback.label,
            ]
        })
        .collect();
    prop_oneof![
        "\\PC{0,80}",
        (
            0u8..10,
            proptest::sample::select(labels.clone()),
            "[ │❯›>*]{0,3}"
        )
            .prop_map(|(k, l, pre)| format!("{pre}{k}. {l}")),
        (0u8..10, "\\PC{0,30}").prop_map(|(k, t)| format!("  {k}. {t}")),
        Just("│ ❯ 1. Yes │".to_owned()),
        Just("\u{1b}[2J\u{1b}[H".to_owned()),
    ]
}

/// Every screen reader, on `screen`: nothing panics, and what is read is on the screen.
fn read_all(screen: &str) {
    let rows = card_rows(screen);
    assert!(rows.len() <= screen.lines().count());
    for r in &rows {
        assert!(
            screen.contains(r.label.trim()),
            "{r:?} is not on the screen"
        );
    }
    for d in all() {
        let _ = crate::gate::card_visible(d.agent, screen);
        if let Some(card) = d.approval_card {
            for pick in [Pick::ApproveAuto, Pick::ApproveManual, Pick::Feedback] {
                if let Ok(key) = card.key_on(screen, pick) {
                    assert!(rows.iter().any(|r| r.key == key), "key {key} is no row's");
                }
            }
        }
    }
    let _ = crate::agents::claude::screen::menu_open(screen);
    let _ = crate::agents::claude::input_box_shown(screen);
    for draft in [
        crate::agents::claude::screen::input_draft(screen),
        crate::agents::gemini::input_draft(screen),
        crate::agents::codex::composer_text(screen),
    ]
    .into_iter()
    .flatten()
    {
        assert!(
            draft.len() <= screen.len(),
            "a draft longer than the screen"
        );
    }
    let _ = crate::agents::codex::composer_empty(screen);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    #[test]
    fn any_screen_is_read_without_panic(screen in "\\PC{0,2000}", lines in proptest::collection::vec(printed_line(), 0..30)) {
        read_all(&screen);
        read_all(&lines.join("\n"));
    }

    #[test]
    fn a_real_card_is_answered_by_its_labels_whatever_is_printed_above_it(
        printed in proptest::collection::vec(printed_line(), 1..12),
        at in any::<usize>(),
    ) {
        for (agent, card, screen) in cards() {
            // Above the card's first row (the plan and whatever it printed).
            let lines: Vec<&str> = screen.lines().collect();
            let first = lines
                .iter()
                .rposition(|l| l.contains(card.approve_auto.label))
                .expect("the card's first row");
            let cut = at % (first + 1);
            let mut shown: Vec<String> = lines[..cut].iter().map(|l| (*l).to_owned()).collect();
            shown.extend(printed.iter().cloned());
            shown.extend(lines[cut..].iter().map(|l| (*l).to_owned()));
            let shown = shown.join("\n");
            read_all(&shown);
            for pick in [Pick::ApproveAuto, Pick::ApproveManual, Pick::Feedback] {
                let want = card.key_on(&screen, pick).expect("the real card answers");
                // Refused is the safe side (nothing typed); picked, it is the row so labelled.
                if let Ok(key) = card.key_on(&shown, pick) {
                    prop_assert_eq!(key, want, "{:?} {:?}: another row picked", agent, pick);
                }
            }
        }
    }
}
