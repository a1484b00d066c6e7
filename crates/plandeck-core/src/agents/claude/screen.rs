//! What Claude Code's screen says: a menu open (its approval card, a numbered choice under the
//! cursor), and the draft in its input line.

/// Whether a menu whose choices a typed key could pick is open at the bottom of the screen: an
/// approval card, or a numbered choice with the cursor on it (`❯ 1.`).
pub(crate) fn menu_open(screen: &str) -> bool {
    if super::CARD.visible_on(screen) {
        return true;
    }
    let lines: Vec<&str> = screen.lines().filter(|l| !l.trim().is_empty()).collect();
    let tail = &lines[lines.len().saturating_sub(15)..];
    tail.iter().any(|l| {
        let t = l.trim_start_matches(|c: char| c.is_whitespace() || c == '│');
        t.strip_prefix('❯')
            .map(str::trim_start)
            .and_then(|rest| rest.split_once('.'))
            .is_some_and(|(n, _)| {
                !n.is_empty() && n.len() <= 2 && n.bytes().all(|b| b.is_ascii_digit())
            })
    })
}

/// A rule Claude Code draws around its input box (`────`).
fn is_rule(line: &str) -> bool {
    let t = line.trim();
    t.chars().count() >= 10 && t.chars().all(|c| c == '─')
}

/// The last line that starts with `❯` right under a rule: Claude Code's input line.
fn input_line(lines: &[&str]) -> Option<usize> {
    (1..lines.len()).rev().find(|&i| {
        lines[i].trim_start().starts_with('❯')
            && lines[..i]
                .iter()
                .rev()
                .find(|l| !l.trim().is_empty())
                .is_some_and(|l| is_rule(l))
    })
}

/// Whether Claude Code's input box is on screen (a line of just `❯`, or `❯` and a draft, right
/// under a rule `────`): the agent waits for input.
pub fn input_box_shown(screen: &str) -> bool {
    input_line(&screen.lines().collect::<Vec<_>>()).is_some()
}

/// The text in Claude Code's input line, if any: the line starting with `❯` right under a rule
/// (`────`), and the lines under it up to the next rule (Claude Code 2.1.328 draws its prompt
/// so). Empty input shows a bare `❯`.
pub(crate) fn input_draft(screen: &str) -> Option<String> {
    let lines: Vec<&str> = screen.lines().collect();
    let start = input_line(&lines)?;
    let mut draft = lines[start]
        .trim_start()
        .trim_start_matches('❯')
        .trim()
        .to_owned();
    for l in &lines[start + 1..] {
        if is_rule(l) {
            break;
        }
        if !l.trim().is_empty() {
            draft.push(' ');
            draft.push_str(l.trim());
        }
    }
    let draft = draft.trim().to_owned();
    (!draft.is_empty()).then(|| draft.chars().take(60).collect())
}
