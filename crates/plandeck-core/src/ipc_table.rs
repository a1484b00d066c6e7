//! The IPC table: every command the window can call (name, arguments and their types, result) and
//! every event the shell emits (name, payload type), written once in [`ipc_table!`].
//!
//! - The shell registers its commands from the table (`src-tauri/lib.rs` expands it into
//!   `tauri::generate_handler!`, so a command missing from `src-tauri/commands/<module>.rs` does
//!   not compile) and emits events only through [`IpcEvent`], whose names come from the table.
//! - `ui/src/lib/commands.ts` (typed `invoke` wrappers and the event map) is generated from it and
//!   checked in; the test below fails when it is stale. Regenerate with
//!   `UPDATE_BINDINGS=1 cargo test -p plandeck-core bindings`.
//!
//! Adding a command is one line in the table plus its adapter in `src-tauri/commands/<module>.rs`
//! (same name, same arguments in the same order; `state`/`app` are the shell's own and not
//! listed). A test reads the adapters and fails when one differs from its line.

use serde::Serialize;
use ts_rs::TS;

/// The table. Expands `$then! { commands { … } events { … } }` at the call site:
/// `module::command(arg: Type, …) -> Result;` (the adapter is `src-tauri/commands/<module>.rs`'s
/// `command`; arguments are sent camelCased, as Tauri reads them) and `"name" => Payload;`.
#[macro_export]
macro_rules! ipc_table {
    ($then:ident) => {
        $then! {
            commands {
                overview::get_overview() -> $crate::overview::Overview;
                overview::list_agents() -> Vec<$crate::agents::AgentInfo>;
                demo::load_demo() -> $crate::overview::Overview;
                demo::leave_demo() -> $crate::overview::Overview;
                plans::list_plans() -> $crate::plans::PlanListing;
                plans::get_plan(id: String) -> $crate::plans::PlanDocument;
                plans::search_plans(query: String) -> Vec<$crate::plans::SearchHit>;
                plans::add_plan_folder() -> Option<String>;
                review::plan_diff(id: String, from: Option<String>, to: Option<String>) -> $crate::review::PlanDiff;
                review::plan_history(id: String) -> $crate::review::PlanHistory;
                review::plan_version(id: String, hash: String) -> String;
                review::decision_log() -> Vec<$crate::review::Decision>;
                review::decide_plan(id: String, seen_hash: String, decision: $crate::route::PlanDecision, with_comments: Option<bool>) -> $crate::route::PlanOutcome;
                review::undo_decision(id: String, decision_id: String) -> $crate::review::Decision;
                history::transcript_plans() -> Vec<$crate::history::RecoveredPlan>;
                history::recovered_plan(id: String) -> $crate::history::RecoveredPlanView;
                history::restore_plan(id: String) -> $crate::history::Restored;
                history::recovered_plan_diff(id: String, a: u32, b: u32) -> $crate::review::PlanDiff;
                history::history_progress() -> $crate::history::ScanProgress;
                comments::list_comments(id: String) -> Vec<$crate::comments::PlacedComment>;
                comments::add_comment(id: String, quote: String, text: String, near: Option<u32>) -> $crate::comments::PlacedComment;
                comments::change_comment(comment_id: String, action: $crate::comments::CommentAction) -> ();
                comments::review_markdown(id: String) -> String;
                sessions::list_sessions() -> Vec<$crate::sessions::SessionSummary>;
                sessions::get_sessions(ids: Vec<String>) -> Vec<$crate::sessions::SessionSummary>;
                sessions::session_index_progress() -> $crate::sessions::IndexProgress;
                terminals::open_terminal(session_id: String) -> $crate::mirror::TerminalView;
                terminals::close_terminal(view: String) -> ();
                terminals::take_terminal_control(view: String) -> ();
                terminals::release_terminal_control(view: String) -> ();
                terminals::type_into_terminal(view: String, data: String) -> ();
                worktrees::list_worktrees() -> Vec<$crate::worktrees::WorktreeSummary>;
                worktrees::keep_worktree(id: String) -> ();
                worktrees::unkeep_worktree(id: String) -> ();
                worktrees::worktree_details(id: String) -> $crate::worktrees::WorktreeDetails;
                worktrees::remove_worktree(id: String) -> $crate::worktrees::RemoveOutcome;
                worktrees::remove_clean_worktrees(repo_id: String) -> Vec<String>;
                worktrees::restore_worktree(repo_id: String, archive_ref: String) -> String;
                gate::list_pending() -> Vec<$crate::gate::GateRequest>;
                gate::decide_request(id: String, decision: $crate::gate::GateDecision, with_comments: Option<bool>, seen_hash: Option<String>) -> $crate::gate::DecisionOutcome;
                gate::request_comments(id: String) -> Vec<$crate::comments::PlacedComment>;
                gate::list_teams() -> Vec<$crate::gate::teams::Team>;
                settings::hook_status(agent: $crate::agents::Agent) -> $crate::gate::HookPreview;
                settings::set_hook(agent: $crate::agents::Agent, installed: bool, token: String) -> $crate::gate::InstallReport;
                settings::stop_hook_status() -> $crate::gate::HookPreview;
                settings::set_stop_hook(installed: bool, token: String) -> $crate::gate::InstallReport;
                settings::team_hook_status() -> $crate::gate::HookPreview;
                settings::set_team_hook(installed: bool, token: String) -> $crate::gate::InstallReport;
                settings::add_repo() -> Option<String>;
                verify::verify_report(id: String) -> $crate::verify::VerifyReport;
                verify::verify_file_diff(id: String, path: String) -> $crate::review::PlanDiff;
                verify::set_step_override(id: String, index: u32, status: $crate::verify::StepStatus, note: String) -> $crate::verify::StepOverride;
                verify::clear_step_override(id: String, index: u32) -> bool;
                verify::verify_report_text(id: String) -> String;
                verify::send_verify_report(id: String, shown: String) -> String;
                control::pick_repo() -> Option<String>;
                control::start_session(request: $crate::control::StartRequest) -> $crate::control::Started;
                control::send_to_agent(id: String, text: String) -> String;
                control::interrupt_session(id: String) -> String;
                control::stop_preview(id: String) -> $crate::control::StopPreview;
                control::stop_session(id: String, token: String) -> $crate::control::StopOutcome;
                control::resume_session(id: String) -> $crate::control::Started;
                control::open_in_terminal(id: String) -> String;
                machines::list_machines() -> Vec<$crate::elsewhere::MachineStatus>;
                machines::add_machine(name: String, ssh: String, forward_agent: bool) -> $crate::elsewhere::MachineStatus;
                machines::remove_machine(name: String) -> ();
                machines::reconnect_machine(name: String) -> ();
            }
            events {
                "app:roots-changed" => $crate::live::RootsChanged;
                "plans:changed" => $crate::plans::PlansChanged;
                "sessions:changed" => $crate::live::SessionsChanged;
                "sessions:progress" => $crate::sessions::IndexProgress;
                "worktrees:changed" => $crate::live::WorktreesChanged;
                "worktrees:updated" => Vec<$crate::worktrees::WorktreeSummary>;
                "worktrees:size" => $crate::worktrees::WorktreeSize;
                "terminal:output" => $crate::mirror::TerminalOutput;
                "terminal:closed" => $crate::mirror::TerminalClosed;
                "gate:changed" => $crate::live::GateChanged;
                "comments:changed" => $crate::comments::CommentsChanged;
                "history:progress" => $crate::history::ScanProgress;
                "history:changed" => $crate::history::HistoryChanged;
                "machines:changed" => Vec<$crate::elsewhere::MachineStatus>;
            }
        }
    };
}

/// An event payload: its name comes from the table, so the shell never spells one.
pub trait IpcEvent: Serialize + Clone + Send + 'static {
    const NAME: &'static str;
}

macro_rules! impl_events {
    (
        commands { $($commands:tt)* }
        events { $( $name:literal => $payload:ty; )* }
    ) => {
        $( impl IpcEvent for $payload { const NAME: &'static str = $name; } )*
    };
}
ipc_table!(impl_events);

/// One command as `commands.ts` declares it.
#[derive(Debug)]
struct Command {
    /// The adapter's module in `src-tauri/commands/`.
    #[cfg_attr(not(test), allow(dead_code))]
    module: &'static str,
    name: &'static str,
    args: Vec<(&'static str, String)>,
    /// The arguments' Rust types, as written in the table.
    #[cfg_attr(not(test), allow(dead_code))]
    rust_args: Vec<String>,
    returns: String,
}

/// The names `bindings.ts` declares (`type X = …`).
fn declared_types() -> Vec<String> {
    crate::bindings::typescript()
        .lines()
        .filter_map(|l| l.strip_prefix("export type "))
        .filter_map(|l| l.split([' ', '<', '=']).next())
        .map(str::to_owned)
        .collect()
}

macro_rules! typescript_table {
    (
        commands { $( $module:ident :: $name:ident ( $( $arg:ident : $argty:ty ),* ) -> $ret:ty; )* }
        events { $( $event:literal => $payload:ty; )* }
    ) => {{
        let commands = vec![$(
            {
                Command {
                    module: stringify!($module),
                    name: stringify!($name),
                    args: vec![$( (stringify!($arg), <$argty as TS>::name()) ),*],
                    rust_args: vec![$( stringify!($argty).to_owned() ),*],
                    returns: <$ret as TS>::name(),
                }
            }
        ),*];
        let events: Vec<(&'static str, String)> = vec![$(
            ($event, <$payload as TS>::name())
        ),*];
        (commands, events)
    }};
}

fn camel(snake: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// The whole `commands.ts` file.
pub fn typescript() -> String {
    let (commands, events) = ipc_table!(typescript_table);
    let mut body = String::new();
    body.push_str(
        "/** Every command: its arguments (as sent, camelCased) and its result. */\nexport type Commands = {\n",
    );
    for c in &commands {
        let args: Vec<String> = c.args.iter().map(|(n, t)| arg(n, t)).collect();
        body.push_str(&format!(
            "  {}: {{ args: {{{}}}; returns: {} }};\n",
            c.name,
            if args.is_empty() {
                String::new()
            } else {
                format!(" {} ", args.join("; "))
            },
            c.returns
        ));
    }
    body.push_str("};\n\n/** Typed `invoke` of each command (rejects with `{kind, message}`). */\nexport const commands = {\n");
    for c in &commands {
        let args: Vec<String> = c.args.iter().map(|(n, t)| arg(n, t)).collect();
        let param = if c.args.is_empty() {
            String::new()
        } else {
            format!("args: {{ {} }}", args.join("; "))
        };
        let pass = if c.args.is_empty() { "" } else { ", args" };
        body.push_str(&format!(
            "  {}: ({param}) => invoke<{}>(\"{}\"{pass}),\n",
            camel(c.name),
            c.returns,
            c.name
        ));
    }
    body.push_str(
        "};\n\n/** Every event the shell emits, with its payload. */\nexport type Events = {\n",
    );
    for (name, payload) in &events {
        body.push_str(&format!("  \"{name}\": {payload};\n"));
    }
    body.push_str("};\n\nexport type EventName = keyof Events;\n\n/** The event names, for iteration. */\nexport const EVENT_NAMES: EventName[] = [");
    let quoted: Vec<String> = events.iter().map(|(n, _)| format!("\"{n}\"")).collect();
    body.push_str(&quoted.join(", "));
    body.push_str("];\n");

    // Import only what the text names, in a stable order.
    let mut used: Vec<String> = declared_types()
        .into_iter()
        .filter(|n| mentions(&body, n))
        .collect();
    used.sort();
    used.dedup();
    let mut out = String::from(
        "// Generated from the IPC table (crates/plandeck-core/src/ipc_table.rs) by\n// `UPDATE_BINDINGS=1 cargo test -p plandeck-core bindings`. Do not edit by hand: a test fails when\n// this file is stale. Call commands through `ipc` in ./ipc.ts.\n\nimport { invoke } from \"@tauri-apps/api/core\";\n",
    );
    out.push_str(&format!(
        "import type {{ {} }} from \"./bindings\";\n\n",
        used.join(", ")
    ));
    out.push_str(&body);
    out
}

/// `name: type`, optional when the type admits `null` (Tauri reads a missing argument as `None`).
fn arg(name: &str, ts: &str) -> String {
    if ts.ends_with(" | null") {
        format!("{}?: {ts}", camel(name))
    } else {
        format!("{}: {ts}", camel(name))
    }
}

/// Whether `text` names the type `name` (as a whole word).
fn mentions(text: &str, name: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(name).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + name.len()..].chars().next();
        !before.is_some_and(word) && !after.is_some_and(word)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn bindings_for_commands_are_fresh() {
        crate::bindings::assert_fresh("commands.ts", &typescript());
    }

    /// A Rust type without its module paths and spaces: `$crate :: gate :: GateDecision` and
    /// `gate::GateDecision` are both `GateDecision`.
    fn bare(ty: &str) -> String {
        let squeezed: String = ty.chars().filter(|c| !c.is_whitespace()).collect();
        let mut out = String::new();
        for (i, part) in squeezed.split("::").enumerate() {
            let last_ident_start = part
                .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                .map_or(0, |i| i + 1);
            let (keep, ident) = part.split_at(last_ident_start);
            let is_path = squeezed.split("::").count() > i + 1;
            out.push_str(keep);
            if !is_path {
                out.push_str(ident);
            }
        }
        out
    }

    /// The `name: Type` parameters of `fn <name>(…)` in `source`, but the shell's own.
    fn adapter_params(source: &str, name: &str) -> Option<Vec<(String, String)>> {
        let start =
            source.find(&format!("pub async fn {name}("))? + "pub async fn (".len() + name.len();
        let mut depth = 0i32;
        let mut params = Vec::new();
        let mut current = String::new();
        for c in source[start..].chars() {
            match c {
                '(' | '<' => depth += 1,
                ')' if depth == 0 => break,
                ')' | '>' => depth -= 1,
                ',' if depth == 0 => {
                    params.push(std::mem::take(&mut current));
                    continue;
                }
                _ => {}
            }
            current.push(c);
        }
        params.push(current);
        Some(
            params
                .iter()
                .filter_map(|p| p.split_once(':'))
                .map(|(n, t)| (n.trim().to_owned(), bare(t)))
                .filter(|(n, _)| !["app", "state", "window", "webview"].contains(&n.as_str()))
                .collect(),
        )
    }

    /// The table and the shell agree: each command's adapter is in the module the table names,
    /// with the table's arguments (names, order, types). A drift would register a command the
    /// window calls with arguments the adapter does not read.
    #[test]
    fn every_command_has_an_adapter_with_the_tables_arguments() {
        let (commands, _) = ipc_table!(typescript_table);
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../src-tauri/commands");
        for c in &commands {
            let path = dir.join(format!("{}.rs", c.module));
            let source = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let params = adapter_params(&source, c.name)
                .unwrap_or_else(|| panic!("no `pub async fn {}` in {}", c.name, path.display()));
            let table: Vec<(String, String)> = c
                .args
                .iter()
                .zip(&c.rust_args)
                .map(|((n, _), t)| (n.to_string(), bare(t)))
                .collect();
            assert_eq!(params, table, "{}::{}", c.module, c.name);
        }
    }

    #[test]
    fn every_event_name_is_unique_and_every_command_too() {
        let ts = typescript();
        let (commands, events) = ipc_table!(typescript_table);
        let mut names: Vec<&str> = commands.iter().map(|c| c.name).collect();
        names.sort();
        let n = names.len();
        names.dedup();
        assert_eq!(names.len(), n, "a command is listed twice");
        let mut ev: Vec<&str> = events.iter().map(|e| e.0).collect();
        ev.sort();
        let n = ev.len();
        ev.dedup();
        assert_eq!(ev.len(), n, "an event is listed twice");
        assert!(
            ts.contains(
                "getPlan: (args: { id: string }) => invoke<PlanDocument>(\"get_plan\", args)"
            ),
            "{ts}"
        );
        assert!(ts.contains("withComments?: boolean | null"), "{ts}");
    }
}
