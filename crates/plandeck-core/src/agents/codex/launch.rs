//! Starting Codex CLI in Plan mode: it has no flag for it, so the mode is switched on in its
//! composer once the TUI is up.

use std::time::{Duration, Instant};

use crate::agents::Driver;
use crate::control::{ControlError, Record};
use crate::terminal::{Key, ProcessId, Target};

/// How long Codex CLI's composer may take to come up (plan mode is switched on in it).
const CODEX_READY: Duration = Duration::from_secs(45);

/// Codex CLI has no plan-mode flag: once its composer is up, shift+tab until the footer says
/// "Plan mode", then the first prompt is sent as a message (through the checked path).
pub(crate) fn plan_mode(
    driver: &dyn Driver,
    record: &Record,
    prompt: Option<&str>,
) -> Result<(), ControlError> {
    let target = Target {
        socket: record.socket.clone(),
        pane: record.pane.clone(),
        agent: Some(ProcessId {
            pid: record.pid,
            start_time: record.start_time,
        }),
    };
    let start = Instant::now();
    let wait = |pred: &dyn Fn(&str) -> bool, timeout: Duration| -> Result<bool, ControlError> {
        let from = Instant::now();
        loop {
            if pred(&target.capture(0)?) {
                return Ok(true);
            }
            if from.elapsed() >= timeout {
                return Ok(false);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    if !wait(&|s| s.contains("for shortcuts"), CODEX_READY)? {
        return Err(ControlError::NotWaiting {
            pane: record.pane.clone(),
            why: "Codex CLI's composer did not come up".into(),
        });
    }
    // The footer's own words: "Plan mode" alone is also in the history's "Model changed … for
    // Plan mode." line.
    let in_plan = |s: &str| s.contains(CODEX_PLAN_FOOTER);
    while !in_plan(&target.capture(0)?) {
        if start.elapsed() >= CODEX_READY {
            return Err(ControlError::NotWaiting {
                pane: record.pane.clone(),
                why: "Codex CLI did not switch to Plan mode".into(),
            });
        }
        target.send(&Key::BackTab)?;
        wait(&in_plan, Duration::from_secs(3))?;
    }
    // The footer changes a moment before the composer's next message carries Plan mode: a prompt
    // sent at once went out in Default mode (seen with the release build). Wait until the footer
    // has said Plan mode for a while, then send.
    let settled = Instant::now();
    while settled.elapsed() < CODEX_PLAN_SETTLE {
        std::thread::sleep(Duration::from_millis(100));
        if !in_plan(&target.capture(0)?) {
            return Err(ControlError::NotWaiting {
                pane: record.pane.clone(),
                why: "Codex CLI left Plan mode before the prompt".into(),
            });
        }
    }
    if let Some(p) = prompt.map(str::trim).filter(|p| !p.is_empty()) {
        crate::control::send_to(driver, &target, p)?;
    }
    Ok(())
}

/// Codex CLI 0.169's footer in Plan mode.
const CODEX_PLAN_FOOTER: &str = "Plan mode (shift+tab";
/// How long the footer says Plan mode before the prompt is sent.
const CODEX_PLAN_SETTLE: Duration = Duration::from_millis(700);
