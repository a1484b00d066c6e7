//! Claude Code's tool calls and their results, for verification ([`crate::verify`]).

use crate::agents::records::content::{Content, LooseStr};
use crate::agents::records::tools::{exit_code_after, ChangeKind, ToolReader, ToolWrite};

use super::{MaybeBool, ToolRecord};

/// The words a line must hold to be read.
pub(crate) const MARKERS: &[&[u8]] = &[
    b"tool_use",
    b"tool_result",
    b"compact_boundary",
    b"worktree-state",
];

/// Reads one line: the sessions' typed records (one Claude reader); glued records are each
/// read. `false` when it cannot be read.
pub(crate) fn read_line(t: &mut ToolReader, line: &[u8]) -> bool {
    super::tool_records(line, &mut |rec| record(t, rec))
}

fn record(t: &mut ToolReader, rec: ToolRecord<'_>) {
    let text = |v: &Option<LooseStr<'_>>| v.as_ref().and_then(LooseStr::as_str).map(str::to_owned);
    let at = text(&rec.timestamp);
    if t.facts.cwd.is_none() {
        t.facts.cwd = text(&rec.cwd);
    }
    let kind = rec.kind.as_ref().and_then(LooseStr::as_str);
    if kind == Some("worktree-state") {
        let w = rec.worktree_session.and_then(|w| w.0);
        t.facts.worktree = w.as_ref().and_then(|w| text(&w.worktree_path));
        t.facts.worktree_branch = w.as_ref().and_then(|w| text(&w.original_branch));
        return;
    }
    if kind == Some("system")
        && rec.subtype.as_ref().and_then(LooseStr::as_str) == Some("compact_boundary")
    {
        t.facts.compactions.push(at);
        return;
    }
    let Some(Content::Items(content)) = rec.message.and_then(|m| m.0).and_then(|m| m.content)
    else {
        return;
    };
    let created = rec
        .tool_use_result
        .and_then(|r| r.0)
        .is_some_and(|r| r.kind.as_ref().and_then(LooseStr::as_str) == Some("create"));
    for item in content.into_iter().filter_map(|i| i.0) {
        match item.kind.as_ref().and_then(LooseStr::as_str) {
            Some("tool_use") => {
                let id = text(&item.id).unwrap_or_default();
                let name = item.name.as_ref().and_then(LooseStr::as_str).unwrap_or("");
                let Some(input) = item.input.and_then(|i| i.0) else {
                    continue;
                };
                match name {
                    "Edit" | "Write" | "MultiEdit" | "NotebookEdit" => {
                        let path = text(&input.file_path)
                            .or_else(|| text(&input.notebook_path))
                            .unwrap_or_default();
                        if path.is_empty() {
                            continue;
                        }
                        let mut written = String::new();
                        for s in [&input.content, &input.new_string, &input.new_source] {
                            if let Some(s) = s.as_ref().and_then(LooseStr::as_str) {
                                written.push_str(s);
                                written.push('\n');
                            }
                        }
                        if let Some(Content::Items(edits)) = &input.edits {
                            for e in edits.iter().filter_map(|e| e.0.as_ref()) {
                                if let Some(s) = e.new_string.as_ref().and_then(LooseStr::as_str) {
                                    written.push_str(s);
                                    written.push('\n');
                                }
                            }
                        }
                        t.push_write(
                            &id,
                            ToolWrite {
                                tool: name.to_owned(),
                                path,
                                moved_to: None,
                                change: ChangeKind::Modified,
                                at: at.clone(),
                                line: t.line,
                                failed: false,
                                text: written,
                            },
                        );
                    }
                    "Bash" => {
                        if let Some(cmd) = text(&input.command) {
                            t.push_command(&id, cmd, at.clone());
                        }
                    }
                    _ => {}
                }
            }
            Some("tool_result") => {
                let id = item
                    .tool_use_id
                    .as_ref()
                    .and_then(LooseStr::as_str)
                    .unwrap_or("");
                let is_error = matches!(item.is_error, Some(MaybeBool::Bool(true)));
                let result = match &item.content {
                    Some(Content::Text(s)) => s.to_string(),
                    Some(Content::Items(parts)) => parts
                        .iter()
                        .filter_map(|p| p.0.as_deref())
                        .collect::<Vec<_>>()
                        .join("\n"),
                    _ => String::new(),
                };
                if let Some(&i) = t.write_of.get(id) {
                    t.facts.writes[i].failed = is_error;
                    if created {
                        t.facts.writes[i].change = ChangeKind::Added;
                    }
                }
                if let Some(&i) = t.command_of.get(id) {
                    let code = exit_code_after(&result, "Exit code ");
                    let c = &mut t.facts.commands[i];
                    c.exit_code = code.or(if is_error { None } else { Some(0) });
                    c.success = Some(!is_error && code.is_none_or(|c| c == 0));
                }
            }
            _ => {}
        }
    }
}
