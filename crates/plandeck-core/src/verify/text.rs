//! The plain-text report that goes back to the agent (the Stop hook's reason, "Send report to
//! agent"): the steps still missing or partial with what they name, the unplanned files. Bounded,
//! so a 300-step plan does not flood the model, and cleaned like everything handed to an agent
//! ([`crate::terminal::clean_text`]): a step's text or a file name carries no control character
//! and nothing a person cannot see (the window's preview shows this text as it is sent).

use std::fmt::Write as _;

use super::{NameKind, StepStatus, VerifyReport};

/// The most steps and files listed in the text.
const MAX_LISTED: usize = 40;
/// The most characters of the text.
const MAX_CHARS: usize = 12_000;

/// Whether the report still has `missing` or `partial` steps after an approval (what the Stop hook
/// blocks on).
pub fn needs_work(report: &VerifyReport) -> bool {
    report.approval.is_some()
        && report
            .steps
            .iter()
            .any(|s| matches!(s.status, StepStatus::Missing | StepStatus::Partial))
}

/// The report for the agent, cleaned ([`crate::terminal::clean_text`]). Deterministic: the same
/// findings give the same text.
pub fn agent_report_text(report: &VerifyReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Plandeck checked the approved plan \"{}\" against what was changed and run since it was approved.",
        report.title
    );
    let c = &report.counts;
    let _ = writeln!(
        out,
        "Steps: {} done, {} partial, {} missing, {} unverifiable.",
        c.done, c.partial, c.missing, c.unverifiable
    );
    let open: Vec<_> = report
        .steps
        .iter()
        .filter(|s| matches!(s.status, StepStatus::Missing | StepStatus::Partial))
        .collect();
    if !open.is_empty() {
        let _ = writeln!(out, "\nNot done yet:");
        for s in open.iter().take(MAX_LISTED) {
            let _ = writeln!(out, "- Step {} ({}): {}", s.index, s.status, s.text);
            let untouched: Vec<String> = s
                .names
                .iter()
                .filter(|n| !n.touched)
                .map(|n| match n.kind {
                    NameKind::Path => n.value.clone(),
                    NameKind::Symbol => format!("`{}`", n.value),
                    NameKind::Command => format!("run `{}`", n.value),
                })
                .collect();
            if !untouched.is_empty() {
                let _ = writeln!(out, "  not touched: {}", untouched.join(", "));
            }
            if s.test && !s.names.iter().any(|n| n.kind == NameKind::Command) {
                match report.tests.last().and_then(|t| t.passed) {
                    Some(false) => {
                        let _ = writeln!(out, "  the last test run failed");
                    }
                    None if report.tests.is_empty() => {
                        let _ = writeln!(out, "  no test command was run since the approval");
                    }
                    _ => {}
                }
            }
            if let Some(o) = &s.overridden {
                let _ = writeln!(out, "  the reviewer marked it {}: {}", o.status, o.note);
            }
        }
        if open.len() > MAX_LISTED {
            let _ = writeln!(out, "- and {} more steps", open.len() - MAX_LISTED);
        }
    }
    if !report.unplanned.is_empty() {
        let _ = writeln!(out, "\nChanged but named by no step:");
        for f in report.unplanned.iter().take(MAX_LISTED) {
            let _ = writeln!(out, "- {}", f.path);
        }
        if report.unplanned.len() > MAX_LISTED {
            let _ = writeln!(
                out,
                "- and {} more files",
                report.unplanned.len() - MAX_LISTED
            );
        }
    }
    if !open.is_empty() {
        let _ = writeln!(
            out,
            "\nFinish the steps not done yet, or say why they are not needed."
        );
    }
    if out.chars().count() > MAX_CHARS {
        out = out.chars().take(MAX_CHARS - 1).collect::<String>() + "…\n";
    }
    crate::terminal::clean_text(&out, MAX_CHARS)
}
