//! Codex CLI's tool calls and their results, for verification ([`crate::verify`]).

use crate::agents::records::tools::{exit_code_after, ChangeKind, ToolReader, ToolWrite};

use super::ToolEvent;

/// The words a line must hold to be read.
pub(crate) const MARKERS: &[&[u8]] = &[
    b"function_call",
    b"custom_tool_call",
    b"exec_command_end",
    b"local_shell_call",
];

/// Reads one line's tool events; `false` when it cannot be read.
pub(crate) fn read_line(t: &mut ToolReader, line: &[u8]) -> bool {
    let mut events = Vec::new();
    let ok = super::tool_events(line, &mut |event| events.push(event));
    for event in events {
        tool_event(t, event);
    }
    ok
}

fn tool_event(t: &mut ToolReader, event: ToolEvent) {
    match event {
        ToolEvent::Command {
            call_id,
            at,
            command,
        } => t.push_command(&call_id, command, at),
        ToolEvent::Patch { call_id, at, patch } => apply_patch(t, &call_id, &patch, at),
        ToolEvent::Output {
            call_id,
            text,
            exit_code,
        } => {
            let code = exit_code
                .or_else(|| exit_code_after(&text, "Exit code: "))
                .or_else(|| exit_code_after(&text, "Process exited with code "));
            if let Some(&i) = t.command_of.get(&call_id) {
                let c = &mut t.facts.commands[i];
                if c.exit_code.is_none() {
                    c.exit_code = code;
                    c.success = code.map(|c| c == 0);
                }
            }
            if let Some(&first) = t.write_of.get(&call_id) {
                let failed = code.is_some_and(|c| c != 0)
                    || text.starts_with("apply_patch verification failed");
                for w in t.facts.writes[first..].iter_mut() {
                    w.failed = failed;
                }
            }
        }
        ToolEvent::ExecEnd { call_id, exit_code } => {
            if let Some(&i) = t.command_of.get(&call_id) {
                let c = &mut t.facts.commands[i];
                c.exit_code = exit_code;
                c.success = exit_code.map(|c| c == 0);
            }
        }
    }
}

/// A Codex patch: one write per file it names.
fn apply_patch(t: &mut ToolReader, call_id: &str, patch: &str, at: Option<String>) {
    let mut first = true;
    let mut current: Option<usize> = None;
    for l in patch.lines() {
        let (change, path) = if let Some(p) = l.strip_prefix("*** Add File: ") {
            (ChangeKind::Added, p)
        } else if let Some(p) = l.strip_prefix("*** Update File: ") {
            (ChangeKind::Modified, p)
        } else if let Some(p) = l.strip_prefix("*** Delete File: ") {
            (ChangeKind::Deleted, p)
        } else if let Some(p) = l.strip_prefix("*** Move to: ") {
            if let Some(i) = current {
                t.facts.writes[i].moved_to = Some(p.trim().to_owned());
                t.facts.writes[i].change = ChangeKind::Renamed;
            }
            continue;
        } else {
            if let (Some(i), Some(added)) = (current, l.strip_prefix('+')) {
                t.facts.writes[i].text.push_str(added);
                t.facts.writes[i].text.push('\n');
            }
            continue;
        };
        let w = ToolWrite {
            tool: "apply_patch".to_owned(),
            path: path.trim().to_owned(),
            moved_to: None,
            change,
            at: at.clone(),
            line: t.line,
            failed: false,
            text: String::new(),
        };
        current = Some(t.facts.writes.len());
        if first {
            t.push_write(call_id, w);
            first = false;
        } else {
            t.facts.writes.push(w);
        }
    }
}
