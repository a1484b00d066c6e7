//! The IPC table: every call, written once (its wire name, its arguments and their types, its
//! result, what the deck does for it, whether another machine may be asked it), and every event
//! the shell emits (name, payload type), in [`ipc_table!`]. From it follow:
//!
//! - the shell's Tauri commands (`src-tauri/commands/mod.rs` expands a command with a deck call
//!   into its `#[tauri::command]` adapter, and every command into `tauri::generate_handler!`: a
//!   command without a deck call whose adapter is missing from `src-tauri/commands/<module>.rs`
//!   does not compile);
//! - the server's dispatch (`serve.rs`: wire name → typed params → the same deck call; a command
//!   marked `here` is refused with its reason, a `wire` call is a method of [`crate::wire::Served`],
//!   which the server must implement or it does not compile);
//! - the typed client ([`crate::wire::Client`]: one method per call another machine may be asked,
//!   sending the very params type the server reads; the deck and the CLI's `--host` call those,
//!   never a method name);
//! - `ui/src/lib/commands.ts` (typed `invoke` wrappers and the event map), checked in; the test
//!   below fails when it is stale. Regenerate with `UPDATE_BINDINGS=1 cargo test -p plandeck-core
//!   bindings`.
//!
//! Adding a call is one line: `module::name(arg: Type, …) -> Result = |deck, by| deck.name(…);`.
//! `by` is who decides (the window, or the server's client). `, served |deck, by| …` gives the
//! server another deck call; `, here "why"` keeps it to this machine's window (the server refuses
//! it with why, the client has no method for it); a `here` command without a deck call has its
//! adapter written by hand (a native dialog). `#[read]` before a line marks a call that only
//! reads one thing: a connected machine's last answer to it is kept and shown, as it was, while
//! that machine is unreachable ([`crate::wire::is_read`]; every other call is refused then).
//! `wire { "name" => method(…) -> Result; }` are calls
//! only a server answers (the window's dialogs' preview → apply pairs, the protocol's own).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::worktrees::RemovalPreview;

/// The table. Expands `$then! { commands { … } wire { … } events { … } }` at the call site, each
/// command read once by [`ipc_lines!`] into one form: `module::name(arg: Type, …) -> Result
/// [deck call] [served deck call] [here's reason] [#[flag] …];`, each bracket empty when the line
/// has none. Arguments are sent camelCased (as Tauri reads them, and the server).
#[macro_export]
macro_rules! ipc_table {
    ($then:ident) => {
        $crate::ipc_lines! {
            $then
            commands {
                overview::get_overview() -> $crate::overview::Overview = |d, _| d.overview();
                overview::list_agents() -> Vec<$crate::agents::AgentInfo> = |d, _| d.list_agents();
                demo::load_demo() -> $crate::overview::Overview,
                    here "the demo is not served: run `plandeck demo` on the machine";
                demo::leave_demo() -> $crate::overview::Overview, here "the demo is not served";
                plans::list_plans() -> $crate::plans::PlanListing = |d, _| d.list_plans();
                #[read] plans::get_plan(id: String) -> $crate::plans::PlanDocument = |d, _| d.get_plan(&id);
                plans::search_plans(query: String) -> Vec<$crate::plans::SearchHit>
                    = |d, _| d.search_plans(&query);
                plans::add_plan_folder() -> Option<String>,
                    here "adding a plan folder needs the window's own dialog and is not served: do it on the machine itself";
                review::plan_diff(id: String, from: Option<String>, to: Option<String>) -> $crate::review::PlanDiff
                    = |d, _| d.plan_diff(&id, from.as_deref(), to.as_deref());
                #[read] review::plan_history(id: String) -> $crate::review::PlanHistory = |d, _| d.plan_history(&id);
                #[read] review::plan_version(id: String, hash: String) -> String = |d, _| d.plan_version(&id, &hash);
                review::decision_log() -> Vec<$crate::review::Decision> = |d, _| d.decision_log();
                review::decide_plan(id: String, seen_hash: String, decision: $crate::route::PlanDecision, with_comments: Option<bool>) -> $crate::route::PlanOutcome
                    = |d, by| d.decide_plan(&id, &seen_hash, decision, with_comments, by);
                review::undo_decision(id: String, decision_id: String) -> $crate::review::Decision
                    = |d, _| d.undo_decision(&id, &decision_id);
                history::transcript_plans() -> Vec<$crate::history::RecoveredPlan> = |d, _| d.transcript_plans();
                history::recovered_plan(id: String) -> $crate::history::RecoveredPlanView = |d, _| d.recovered_plan(&id);
                history::restore_plan(id: String) -> $crate::history::Restored = |d, _| d.restore_plan(&id);
                history::recovered_plan_diff(id: String, a: u32, b: u32) -> $crate::review::PlanDiff
                    = |d, _| d.recovered_plan_diff(&id, a, b);
                history::history_progress() -> $crate::history::ScanProgress = |d, _| d.history_progress();
                #[read] comments::list_comments(id: String) -> Vec<$crate::comments::PlacedComment> = |d, _| d.list_comments(&id);
                comments::add_comment(id: String, quote: String, text: String, near: Option<u32>) -> $crate::comments::PlacedComment
                    = |d, _| d.add_comment(&id, &quote, &text, near);
                comments::change_comment(comment_id: String, action: $crate::comments::CommentAction) -> ()
                    = |d, _| d.change_comment(&comment_id, action);
                #[read] comments::review_markdown(id: String) -> String = |d, _| d.review_markdown(&id);
                sessions::list_sessions() -> Vec<$crate::sessions::SessionSummary> = |d, _| d.sessions(None);
                #[read] sessions::get_sessions(ids: Vec<String>) -> Vec<$crate::sessions::SessionSummary>
                    = |d, _| d.sessions(Some(&ids));
                sessions::session_index_progress() -> $crate::sessions::IndexProgress = |d, _| d.session_index_progress();
                sessions::list_acp_sessions() -> Vec<$crate::acp::host::Hosted> = |d, _| d.list_acp_sessions();
                #[read] sessions::acp_session(id: String) -> $crate::acp::host::Hosted = |d, _| d.acp_session(&id);
                sessions::acp_stop_preview(id: String) -> Vec<$crate::control::ProcessLine> = |d, _| d.acp_stop_preview(&id);
                sessions::steer_acp_session(id: String, command: $crate::acp::host::Command) -> ()
                    = |d, _| d.steer_acp_session(&id, command);
                terminals::open_terminal(session_id: String) -> $crate::mirror::TerminalView
                    = |d, _| d.open_terminal(&session_id);
                terminals::close_terminal(view: String) -> () = |d, _| d.close_terminal(&view);
                terminals::take_terminal_control(view: String) -> () = |d, _| d.take_terminal_control(&view);
                terminals::release_terminal_control(view: String) -> () = |d, _| d.release_terminal_control(&view);
                terminals::type_into_terminal(view: String, data: String) -> () = |d, _| d.type_into_terminal(&view, &data);
                worktrees::list_worktrees() -> Vec<$crate::worktrees::WorktreeSummary> = |d, _| d.list_worktrees();
                worktrees::keep_worktree(id: String) -> () = |d, _| d.keep_worktree(&id);
                worktrees::unkeep_worktree(id: String) -> () = |d, _| d.unkeep_worktree(&id);
                #[read] worktrees::worktree_details(id: String) -> $crate::worktrees::WorktreeDetails = |d, _| d.worktree_details(&id);
                worktrees::remove_worktree(id: String) -> $crate::worktrees::RemoveOutcome,
                    here "removing a worktree without a token needs the window's own dialog and is not served: do it on the machine itself";
                worktrees::remove_clean_worktrees(repo_id: String) -> Vec<String>,
                    here "removing clean worktrees without tokens needs the window's own dialog and is not served: do it on the machine itself";
                worktrees::restore_worktree(repo_id: String, archive_ref: String) -> String
                    = |d, _| d.restore_worktree(&repo_id, &archive_ref);
                gate::list_pending() -> Vec<$crate::gate::GateRequest> = |d, _| d.list_pending();
                gate::decide_request(id: String, decision: $crate::gate::GateDecision, with_comments: Option<bool>, seen_hash: Option<String>, option: Option<String>) -> $crate::gate::DecisionOutcome
                    = |d, by| d.decide_request(&id, decision, with_comments, seen_hash, option, by);
                #[read] gate::request_comments(id: String) -> Vec<$crate::comments::PlacedComment> = |d, _| d.request_comments(&id);
                gate::list_teams() -> Vec<$crate::gate::teams::Team> = |d, _| d.list_teams();
                settings::hook_status(agent: $crate::agents::Agent) -> $crate::gate::HookPreview = |d, _| d.hook_status(agent);
                settings::set_hook(agent: $crate::agents::Agent, installed: bool, token: String) -> $crate::gate::InstallReport
                    = |d, _| d.set_hook(agent, installed, &token);
                settings::stop_hook_status() -> $crate::gate::HookPreview = |d, _| d.stop_hook_status();
                settings::set_stop_hook(installed: bool, token: String) -> $crate::gate::InstallReport
                    = |d, _| d.set_stop_hook(installed, &token);
                settings::team_hook_status() -> $crate::gate::HookPreview = |d, _| d.team_hook_status();
                settings::set_team_hook(installed: bool, token: String) -> $crate::gate::InstallReport
                    = |d, _| d.set_team_hook(installed, &token);
                settings::add_repo() -> Option<String>,
                    here "adding a repository needs the window's own dialog and is not served: do it on the machine itself";
                #[read] verify::verify_report(id: String) -> $crate::verify::VerifyReport = |d, _| d.verify_report(&id);
                verify::verify_file_diff(id: String, path: String) -> $crate::review::PlanDiff
                    = |d, _| d.verify_file_diff(&id, &path);
                verify::set_step_override(id: String, index: u32, status: $crate::verify::StepStatus, note: String) -> $crate::verify::StepOverride
                    = |d, _| d.set_step_override(&id, index, status, &note);
                verify::clear_step_override(id: String, index: u32) -> bool = |d, _| d.clear_step_override(&id, index);
                verify::verify_report_text(id: String) -> String = |d, _| d.verify_report_text(&id);
                verify::send_verify_report(id: String, shown: String) -> String = |d, _| d.send_verify_report(&id, &shown);
                control::pick_repo() -> Option<String>,
                    here "picking a repository needs the window's own dialog and is not served: do it on the machine itself";
                // The window starts only in a repository it lists; a server's client over SSH
                // could run `plandeck start` there as well.
                control::start_session(request: $crate::control::StartRequest) -> $crate::control::Started
                    = |d, _| d.start_session(&request), served |d, _| d.start_session_anywhere(&request);
                control::acp_agents() -> Vec<$crate::acp::catalog::AcpAgentChoice> = |d, _| d.acp_agents();
                // An ACP agent is hosted by this user's server here, which the window starts
                // when none runs (its own program, `serve --daemon-launch`).
                control::start_acp_session(agent: String, repo: String, worktree: Option<String>, base: Option<String>, plan: bool, prompt: Option<String>) -> $crate::control::AcpStartAsked,
                    here "an ACP agent is started on the machine itself: plandeck start --agent NAME there";
                control::send_to_agent(id: String, text: String) -> String = |d, _| d.send_to_agent(&id, &text);
                control::interrupt_session(id: String) -> String = |d, _| d.interrupt_session(&id);
                control::stop_preview(id: String) -> $crate::control::StopPreview = |d, _| d.stop_preview(&id);
                control::stop_session(id: String, token: String) -> $crate::control::StopOutcome
                    = |d, _| d.stop_session(&id, &token);
                control::resume_session(id: String) -> $crate::control::Started = |d, _| d.resume_session(&id);
                control::open_in_terminal(id: String) -> String = |d, _| d.open_in_terminal(&id),
                    here "a terminal is opened on the machine the window runs on: attach over ssh instead";
                // A server shows its own machine only (its deck has no others: an empty list).
                machines::list_machines() -> Vec<$crate::elsewhere::MachineStatus> = |d, _| d.list_machines();
                machines::add_machine(name: String, ssh: String, forward_agent: bool) -> $crate::elsewhere::MachineStatus,
                    here "machines are added on the desktop that reaches them, not on a server";
                machines::remove_machine(name: String) -> () = |d, _| d.remove_machine(&name),
                    here "machines are removed on the desktop that reaches them";
                machines::reconnect_machine(name: String) -> () = |d, _| d.reconnect_machine(&name),
                    here "a server reaches no other machines";
                phone::phone_status() -> $crate::phone::settings::PhoneStatus = |d, _| d.phone_status(),
                    here "the phone page is set on the machine itself";
                phone::phone_on(listen: String, cert: String, key: String, name: Option<String>, wait_minutes: u32) -> $crate::phone::settings::PhoneStatus,
                    here "the phone page is turned on in the window's own dialog on the machine itself";
                phone::phone_tailscale() -> $crate::phone::settings::TailscaleOffer = |d, _| d.phone_tailscale(),
                    here "the phone page is set on the machine itself";
                phone::phone_on_tailscale(port: u16, wait_minutes: u32) -> $crate::phone::settings::PhoneStatus,
                    here "the phone page is turned on in the window's own dialog on the machine itself";
                phone::phone_pick_file(what: String) -> Option<String>,
                    here "files are picked in the window's own dialog on the machine itself";
                phone::phone_off() -> $crate::phone::settings::PhoneStatus = |d, _| d.phone_off(),
                    here "the phone page is set on the machine itself";
                phone::phone_pair() -> $crate::phone::settings::PhonePairing = |d, _| d.phone_pair(),
                    here "phones are paired on the machine itself";
                phone::phone_revoke(id: String) -> $crate::phone::settings::PhoneStatus = |d, _| d.phone_revoke(&id),
                    here "phones are revoked on the machine itself";
            }
            wire {
                "hello" => hello(protocol: u32) -> $crate::ipc_table::Hello;
                "subscribe" => subscribe(after: Option<u64>, instance: Option<String>) -> $crate::ipc_table::Subscribed;
                "removal_to_confirm" => removal_to_confirm(id: String) -> $crate::ipc_table::RemovalToConfirm;
                "remove_worktree" => remove_shown(id: String, token: String) -> $crate::worktrees::RemoveOutcome;
                "clean_removals_to_confirm" => clean_removals_to_confirm(repo_id: String) -> $crate::ipc_table::CleanRemovalsToConfirm;
                "remove_clean_worktrees" => remove_clean_shown(repo_id: String, tokens: Vec<String>) -> Vec<String>;
                // A decision this side checked for someone it names (a paired phone): the
                // server's log names them, relayed through its client.
                "decide_request_for" => decide_request_for(id: String, decision: $crate::gate::GateDecision, seen_hash: Option<String>, on_behalf_of: String) -> $crate::gate::DecisionOutcome;
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
                "acp:changed" => $crate::live::AcpChanged;
                "comments:changed" => $crate::comments::CommentsChanged;
                "history:progress" => $crate::history::ScanProgress;
                "history:changed" => $crate::history::HistoryChanged;
                "machines:changed" => Vec<$crate::elsewhere::MachineStatus>;
            }
        }
    };
}

/// Reads the table's commands (their grammar is written here only) and hands them to `$then`
/// in one form, every optional part in its own brackets (see [`ipc_table!`]).
#[doc(hidden)]
#[macro_export]
macro_rules! ipc_lines {
    (
        $then:ident
        commands { $(
            $( #[$flag:ident] )* $module:ident :: $name:ident ( $( $arg:ident : $argty:ty ),* ) -> $ret:ty
                $( = $body:expr )? $( , served $served:expr )? $( , here $why:literal )?;
        )* }
        wire { $($wire:tt)* }
        events { $($events:tt)* }
    ) => {
        $then! {
            commands { $(
                $module :: $name ( $( $arg : $argty ),* ) -> $ret
                    [$( $body )?] [$( $served )?] [$( $why )?] [$( #[$flag] )*];
            )* }
            wire { $($wire)* }
            events { $($events)* }
        }
    };
}

// ---- The results of the table's `wire` calls (read as `crate::wire::…`).

/// The server's first frame.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Hello {
    pub protocol: u32,
    /// The server's `plandeck` version.
    pub version: String,
    /// This server process: seqs of another instance mean nothing here.
    pub instance: String,
}

/// What `subscribe` answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Subscribed {
    /// Events after the cursor are lost: read everything again.
    pub gap: bool,
    /// The last seq sent before this answer (replayed, or the newest when nothing was).
    pub seq: u64,
}

/// A native confirmation in words, for the client to show before it applies.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfirmationWords {
    pub title: String,
    pub text: String,
    pub destructive: bool,
    pub action: String,
}

/// `removal_to_confirm`'s answer: what removing the worktree would do, and the words to confirm
/// it with; `remove_worktree {id, token}` applies it with `preview.token`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RemovalToConfirm {
    pub preview: RemovalPreview,
    pub confirmation: ConfirmationWords,
}

/// `clean_removals_to_confirm`'s answer: the clean and merged worktrees of a repository and the
/// words naming them (none: nothing to remove); `remove_clean_worktrees {repoId, tokens}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CleanRemovalsToConfirm {
    pub previews: Vec<RemovalPreview>,
    pub confirmation: Option<ConfirmationWords>,
}

/// An event payload: its name comes from the table, so the shell never spells one.
pub trait IpcEvent: Serialize + Clone + Send + 'static {
    const NAME: &'static str;
}

macro_rules! impl_events {
    (
        commands { $($commands:tt)* }
        wire { $($wire:tt)* }
        events { $( $name:literal => $payload:ty; )* }
    ) => {
        $( impl IpcEvent for $payload { const NAME: &'static str = $name; } )*
    };
}
ipc_table!(impl_events);

/// One command as `commands.ts` declares it.
#[derive(Debug)]
struct Command {
    /// Its adapter is written by hand (no deck call in the table).
    #[cfg_attr(not(test), allow(dead_code))]
    adapted: bool,
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
        commands { $(
            $module:ident :: $name:ident ( $( $arg:ident : $argty:ty ),* ) -> $ret:ty
                [$( $body:expr )?] [$( $served:expr )?] [$( $why:literal )?] [$( #[$flag:ident] )*];
        )* }
        wire { $($wire:tt)* }
        events { $( $event:literal => $payload:ty; )* }
    ) => {{
        let commands = vec![$(
            {
                Command {
                    adapted: {
                        let body: &[&str] = &[$( stringify!($body) )?];
                        body.is_empty()
                    },
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
        for c in commands.iter().filter(|c| c.adapted) {
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
