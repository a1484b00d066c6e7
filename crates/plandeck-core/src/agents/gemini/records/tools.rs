//! Gemini CLI's tool calls and their results, for verification ([`crate::verify`]).

use crate::agents::records::tools::{exit_code_after, ChangeKind, ShellRun, ToolReader, ToolWrite};

use super::ToolUse;

/// The words a line must hold to be read.
pub(crate) const MARKERS: &[&[u8]] = &[b"toolCalls"];

/// Reads one line's tool calls; `false` when it cannot be read.
pub(crate) fn read_line(t: &mut ToolReader, line: &[u8]) -> bool {
    let mut calls = Vec::new();
    let ok = super::tool_uses(line, &mut |call| calls.push(call));
    for call in calls {
        tool_use(t, call);
    }
    ok
}

fn tool_use(t: &mut ToolReader, call: ToolUse) {
    let failed = matches!(call.status.as_deref(), Some("error" | "cancelled"));
    match call.name.as_str() {
        "write_file" | "replace" => {
            let Some(path) = call.file_path else {
                return;
            };
            let w = ToolWrite {
                tool: call.name.clone(),
                path,
                moved_to: None,
                change: ChangeKind::Modified,
                at: call.at,
                line: t.line,
                failed,
                text: call.text.unwrap_or_default(),
            };
            match t.write_of.get(&call.id) {
                Some(&i) => t.facts.writes[i] = w,
                None => t.push_write(&call.id, w),
            }
        }
        "run_shell_command" => {
            let Some(command) = call.command else {
                return;
            };
            let code = exit_code_after(&call.output, "Exit Code: ");
            let success = match call.status.as_deref() {
                Some("success") => Some(code.is_none_or(|c| c == 0)),
                Some("error" | "cancelled") => Some(false),
                _ => None,
            };
            let run = ShellRun {
                command,
                at: call.at,
                line: t.line,
                success,
                exit_code: code.or(if success == Some(true) { Some(0) } else { None }),
            };
            match t.command_of.get(&call.id) {
                Some(&i) => t.facts.commands[i] = run,
                None => {
                    t.command_of.insert(call.id, t.facts.commands.len());
                    t.facts.commands.push(run);
                }
            }
        }
        _ => {}
    }
}
