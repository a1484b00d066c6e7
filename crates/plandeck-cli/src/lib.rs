//! Plandeck's command-line companion.
//!
//! `plandeck` with no subcommand opens the window (it becomes `plandeck-window`, installed beside
//! it: see [`main_or_window`]); with a subcommand it runs here, with no display needed. Every subcommand is a thin adapter over
//! `plandeck-core`, sharing its code path with the window. Output with `--json` is a contract:
//! fields are added, never renamed. Everything is written through an [`Out`]: text a person reads
//! shows control and invisible characters as `⟨U+XXXX⟩` (agents write most of it), output a
//! program reads is exact.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use plandeck_core::config::{Env, Overrides, Roots};
use plandeck_core::ipc::{ErrorKind, IpcError};

mod commands;
mod out;
mod window;

pub use out::{Out, Style};

#[derive(Debug, Parser)]
#[command(
    name = "plandeck",
    version,
    about = "Review the plans your coding agents write, watch their sessions, keep their worktrees safe.",
    long_about = "Review the plans your coding agents write, watch their sessions, keep their worktrees safe.\n\nWith no subcommand, opens the Plandeck window."
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Open the window on a scratch workspace filled with sample plans, sessions and worktrees.
    #[arg(long)]
    pub demo: bool,
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Where to look; each overrides the settings file and the environment.
#[derive(Debug, Clone, Default, Args)]
pub struct GlobalArgs {
    /// `--<agent>-root DIR` for every agent.
    #[command(flatten)]
    pub agent_roots: AgentRoots,
    /// Plandeck's store (default: $XDG_DATA_HOME/plandeck, else ~/.local/share/plandeck).
    #[arg(long, global = true, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// Plandeck's config folder holding settings.json (default: $XDG_CONFIG_HOME/plandeck).
    #[arg(long, global = true, value_name = "DIR")]
    pub config_dir: Option<PathBuf>,
    /// Run the subcommand on another machine (`plandeck hosts add`), over your own SSH: every
    /// subcommand but those of this machine (sources, demo, hook, hooks, hosts, serve).
    #[arg(long, global = true, value_name = "NAME")]
    pub host: Option<String>,
}

/// Each agent's folder given as `--<id>-root DIR` (`--claude-root`), by agent id: a flag for
/// every agent its descriptor names ([`plandeck_core::agents::Descriptor::root_spec`]).
#[derive(Debug, Clone, Default)]
pub struct AgentRoots(pub BTreeMap<String, PathBuf>);

impl AgentRoots {
    /// The flag's id and name: `<id>_root` and `<id>-root`.
    fn names(id: &str) -> (String, String) {
        (format!("{id}_root"), format!("{id}-root"))
    }
}

impl clap::FromArgMatches for AgentRoots {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let mut roots = Self::default();
        roots.update_from_arg_matches(matches)?;
        Ok(roots)
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        for d in plandeck_core::agents::all() {
            let (id, _) = Self::names(d.id);
            if let Ok(Some(dir)) = matches.try_get_one::<PathBuf>(&id) {
                self.0.insert(d.id.to_owned(), dir.clone());
            }
        }
        Ok(())
    }
}

impl Args for AgentRoots {
    fn augment_args(mut cmd: clap::Command) -> clap::Command {
        for d in plandeck_core::agents::all() {
            let spec = d.root_spec;
            let (id, long) = Self::names(d.id);
            let env = spec.env.map(|e| format!("${e}, else ")).unwrap_or_default();
            // clap keeps names that live as long as the program: a few short strings, once.
            let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
            cmd = cmd.arg(
                clap::Arg::new(leak(id))
                    .long(leak(long))
                    .global(true)
                    .value_name("DIR")
                    .value_parser(clap::value_parser!(PathBuf))
                    .help(format!(
                        "{}'s folder (default: {env}~/{})",
                        d.display_name, spec.home_dir
                    )),
            );
        }
        cmd
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

impl GlobalArgs {
    pub fn overrides(&self) -> Overrides {
        Overrides {
            agent_roots: self.agent_roots.0.clone(),
            data_dir: self.data_dir.clone(),
            config_dir: self.config_dir.clone(),
        }
    }

    /// Resolves the roots and opens the store: an existing store with looser permissions is made
    /// private (0700 / 0600) here, before anything reads or writes it.
    /// With `--host`, refused: what runs on this machine never runs in place of another's.
    pub fn roots(&self, env: &Env) -> Result<Roots, IpcError> {
        if let Some(host) = &self.host {
            return Err(IpcError::new(
                ErrorKind::Unsupported,
                format!(
                    "--host {host} runs a subcommand on that machine; this one would run here,                      so it is not run"
                ),
            ));
        }
        let roots = Roots::resolve(env, &self.overrides())?;
        // A store that cannot be tightened (a file owned by someone else) is still usable, and
        // new files are created private anyway; the hook must never fail on it.
        let _ = roots.secure_store();
        Ok(roots)
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show which folders Plandeck reads and what it found there.
    Sources(commands::sources::SourcesArgs),
    /// List, show and diff plans.
    Plans(commands::plans::PlansArgs),
    /// Approve a waiting plan (request id: the agent gets it) or a plan file (pins the approved version); --edit approves your edit.
    Approve(commands::review::ApproveArgs),
    /// Reject a waiting plan (request id: the agent gets the feedback) or a plan file, with feedback.
    Reject(commands::review::RejectArgs),
    /// The decision log, newest first.
    Log(commands::review::LogArgs),
    /// Comment on quoted text of a plan (--quote, --text), or --resolve/--reopen/--delete one.
    Comment(commands::comments::CommentArgs),
    /// The comments on a plan, with their status in its current text.
    Comments(commands::comments::CommentsArgs),
    /// Agent sessions and their state.
    Sessions(commands::sessions::SessionsArgs),
    /// Start an agent (claude, gemini, codex) in tmux, in a new worktree, in plan mode, with a first prompt.
    Start(commands::control::StartArgs),
    /// Type a message into a running session (only while it waits for input with an empty input box).
    Send(commands::control::SendArgs),
    /// Press the agent's own interrupt key (Esc) in a running session.
    Interrupt(commands::control::IdArgs),
    /// End a session's agent process: lists what would be ended; --yes ends it.
    Stop(commands::control::StopArgs),
    /// Resume an ended session in its folder, in a new tmux session.
    Resume(commands::control::IdArgs),
    /// Open a running session in your terminal emulator ($TERMINAL), attached to its tmux session.
    Attach(commands::control::IdArgs),
    /// Agent worktrees: list, keep, remove safely.
    Worktrees(commands::worktrees::WorktreesArgs),
    /// Create a scratch workspace full of sample data and say where it is.
    Demo(commands::demo::DemoArgs),
    /// Run as an agent's plan-approval hook (reads the hook JSON on stdin).
    Hook(commands::gate::HookArgs),
    /// Install or uninstall the plan-approval hook in an agent's settings.
    Hooks(commands::gate::HooksArgs),
    /// Plans waiting in an agent's terminal for your decision.
    Pending(commands::gate::PendingArgs),
    /// Check an approved plan against what the agent changed and ran since the approval.
    Verify(commands::verify::VerifyArgs),
    /// Other machines reached over your own SSH: add, list, remove (then `plandeck --host NAME …`).
    Hosts(commands::hosts::HostsArgs),
    /// The agents Plandeck can start (terminal and ACP), and whether each was found.
    Agents(commands::agents::AgentsArgs),
    /// Serve this machine's plans, sessions, worktrees and requests to another machine's Plandeck (over `ssh -T … plandeck serve --stdio`).
    Serve(commands::serve::ServeArgs),
    /// Review and decide from your phone: a page over HTTPS on an address you choose, to phones you pair (on, off, status, pair, devices, revoke).
    Phone(commands::phone::PhoneArgs),
}

/// What a subcommand produced: text for stdout and the process exit code.
pub struct Outcome {
    pub code: i32,
}

/// Runs a subcommand, writing to `out` and `err` through an [`Out`] each. Errors are printed as
/// text, or as `{"error": {kind, message}}` on stdout with `--json`, and give exit code 1 (2 for
/// bad usage).
pub fn run(
    command: Command,
    global: &GlobalArgs,
    env: &Env,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let out = &mut Out::new(out);
    let err = &mut Out::new(err);
    let ctx = Context {
        global: global.clone(),
        env: env.clone(),
    };
    if let Some(host) = &global.host {
        // On another machine, or not at all: never here instead.
        let json = command.json();
        return match commands::remote::run(&ctx, host, command, out, err) {
            Ok(code) => code,
            Err(e) => report_error(&e, json, out, err),
        };
    }
    let (json, result) = match command {
        Command::Sources(args) => (args.json, commands::sources::run(&ctx, args, out)),
        Command::Plans(args) => (args.json(), commands::plans::run(&ctx, args, out, err)),
        // An ACP session's request (`acp-…`) goes to the process hosting the session; `--edit`
        // approves with the agent's option and sends the edited plan as the next prompt.
        Command::Approve(args) if commands::agents::is_acp_request(&ctx, &args.target) => (
            args.json(),
            commands::agents::read_edit(args.edit.as_deref()).and_then(|edited| {
                commands::agents::decide_acp(
                    &ctx,
                    &args.target,
                    plandeck_core::gate::GateDecision::Approve {
                        mode: args.mode.into(),
                        edited,
                        started_from: None,
                    },
                    args.option.clone(),
                    args.expect_hash.as_deref(),
                    args.json(),
                    out,
                )
            }),
        ),
        Command::Reject(args) if commands::agents::is_acp_request(&ctx, &args.target) => (
            args.json(),
            commands::agents::decide_acp(
                &ctx,
                &args.target,
                plandeck_core::gate::GateDecision::Reject {
                    feedback: args.feedback.clone(),
                },
                args.option.clone(),
                args.expect_hash.as_deref(),
                args.json(),
                out,
            ),
        ),
        // A waiting request's id goes to the gate (the decision reaches the agent); anything else
        // names a plan, whose decision is recorded.
        // `--expect-hash` ties the decision to the version read (`pending --json`'s `planHash`).
        Command::Approve(args) if ctx.is_request(&args.target) => (
            args.json(),
            commands::gate::approve_request(
                &ctx,
                &args.target,
                args.mode.into(),
                args.edit.as_deref(),
                commands::gate::RequestDecision {
                    comments: !args.no_comments,
                    seen_hash: args.expect_hash.clone(),
                    option: args.option.clone(),
                    json: args.json(),
                },
                out,
            ),
        ),
        Command::Reject(args) if ctx.is_request(&args.target) => (
            args.json(),
            commands::gate::reject_request(
                &ctx,
                &args.target,
                &args.feedback,
                commands::gate::RequestDecision {
                    comments: !args.no_comments,
                    seen_hash: args.expect_hash.clone(),
                    option: args.option.clone(),
                    json: args.json(),
                },
                out,
            ),
        ),
        Command::Approve(args) => (args.json(), commands::review::approve(&ctx, args, out)),
        Command::Reject(args) => (args.json(), commands::review::reject(&ctx, args, out)),
        Command::Log(args) => (args.json(), commands::review::log(&ctx, args, out)),
        Command::Comment(args) => (args.json, commands::comments::comment(&ctx, args, out)),
        Command::Comments(args) => (args.json, commands::comments::list(&ctx, args, out)),
        Command::Sessions(args) => (args.json(), commands::sessions::run(&ctx, args, out)),
        Command::Worktrees(args) => (args.json(), commands::worktrees::run(&ctx, args, out)),
        Command::Start(args) => (args.json, commands::control::start(&ctx, args, out)),
        Command::Send(args) => (args.json, commands::control::send(&ctx, args, out)),
        Command::Interrupt(args) => (args.json, commands::control::interrupt(&ctx, args, out)),
        Command::Stop(args) => (args.json, commands::control::stop(&ctx, args, out)),
        Command::Resume(args) => (args.json, commands::control::resume(&ctx, args, out)),
        Command::Attach(args) => (args.json, commands::control::attach(&ctx, args, out)),
        Command::Demo(args) => (args.json, commands::demo::run(&ctx, args, out)),
        Command::Hook(args) => (false, commands::gate::hook(&ctx, args, out, err)),
        Command::Hooks(args) => (false, commands::gate::hooks(&ctx, args, out, err)),
        Command::Pending(args) => (args.json(), commands::gate::pending(&ctx, args, out)),
        Command::Verify(args) => (args.json, commands::verify::run(&ctx, args, out)),
        Command::Hosts(args) => (args.json(), commands::hosts::run(&ctx, args, out)),
        Command::Agents(args) => (args.json(), commands::agents::run(&ctx, args, out)),
        Command::Serve(args) => (false, commands::serve::run(&ctx, args, out, err)),
        Command::Phone(args) => (args.json(), commands::phone::run(&ctx, args, out)),
    };
    match result {
        Ok(code) => code,
        Err(e) => report_error(&e, json, out, err),
    }
}

impl Command {
    /// Whether the subcommand was asked for `--json` (errors are then a JSON object on stdout).
    pub fn json(&self) -> bool {
        match self {
            Command::Sources(a) => a.json,
            Command::Plans(a) => a.json(),
            Command::Approve(a) => a.json(),
            Command::Reject(a) => a.json(),
            Command::Log(a) => a.json(),
            Command::Comment(a) => a.json,
            Command::Comments(a) => a.json,
            Command::Sessions(a) => a.json(),
            Command::Worktrees(a) => a.json(),
            Command::Start(a) => a.json,
            Command::Send(a) => a.json,
            Command::Interrupt(a) | Command::Resume(a) | Command::Attach(a) => a.json,
            Command::Stop(a) => a.json,
            Command::Demo(a) => a.json,
            Command::Pending(a) => a.json(),
            Command::Verify(a) => a.json,
            Command::Hosts(a) => a.json(),
            Command::Agents(a) => a.json(),
            Command::Phone(a) => a.json(),
            Command::Hook(_) | Command::Hooks(_) | Command::Serve(_) => false,
        }
    }
}

/// What every subcommand gets: the global flags and the environment.
pub struct Context {
    pub global: GlobalArgs,
    pub env: Env,
}

impl Context {
    pub fn roots(&self) -> Result<Roots, IpcError> {
        self.global.roots(&self.env)
    }

    /// Whether `target` names a gate request (open or closed) rather than a plan.
    pub fn is_request(&self, target: &str) -> bool {
        match self.roots() {
            Ok(roots) => plandeck_core::gate::request(&roots, target).is_ok(),
            Err(_) => false,
        }
    }
}

fn report_error(e: &IpcError, json: bool, out: &mut Out<'_>, err: &mut Out<'_>) -> i32 {
    if json {
        let _ = out.exact(&format!("{}\n", serde_json::json!({ "error": e })));
    }
    let _ = writeln!(err, "plandeck: {}", e.message);
    match e.kind {
        ErrorKind::BadInput => 2,
        _ => 1,
    }
}

/// Prints `value` as pretty JSON followed by a newline.
pub fn print_json(out: &mut Out<'_>, value: &impl serde::Serialize) -> Result<(), IpcError> {
    let mut text = serde_json::to_string_pretty(value)
        .map_err(|e| IpcError::new(ErrorKind::Internal, e.to_string()))?;
    text.push('\n');
    out.exact(&text)
        .map_err(|e| IpcError::new(ErrorKind::Io, format!("cannot write output: {e}")))
}

/// Parses `args` and runs the subcommand; with none, says that the window lives in `plandeck`.
/// Returns the exit code. `plandeck-cli`'s main.
// The one place the process's stderr is written outside an [`Out`].
#[allow(clippy::disallowed_macros)]
pub fn main_with_args(args: impl IntoIterator<Item = std::ffi::OsString>) -> i32 {
    main_with(args.into_iter().collect(), |_| {
        eprintln!(
            "plandeck-cli: give a subcommand (see --help); the window is `plandeck` with none"
        );
        2
    })
}

/// `plandeck`'s main: a subcommand runs here; with none, this process becomes the window
/// (`plandeck-window` beside this executable, given the same arguments), so that the command
/// people type starts in milliseconds and only the window loads WebKit.
// The one place the process's stderr is written outside an [`Out`].
#[allow(clippy::disallowed_macros)]
pub fn main_or_window(args: impl IntoIterator<Item = std::ffi::OsString>) -> i32 {
    main_with(args.into_iter().collect(), |args| {
        let e = window::become_window(args);
        eprintln!("plandeck: {}", e.message);
        1
    })
}

/// Parses `args` and runs the subcommand, or `no_command` when there is none.
// The one place the process's stdout and stderr are taken: [`run`] wraps them in an [`Out`].
#[allow(clippy::disallowed_methods)]
fn main_with(
    args: Vec<std::ffi::OsString>,
    no_command: impl FnOnce(&[std::ffi::OsString]) -> i32,
) -> i32 {
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    let Some(command) = cli.command else {
        if cli.global.host.is_some() {
            let mut stderr = std::io::stderr().lock();
            let _ = writeln!(
                Out::new(&mut stderr),
                "plandeck: --host runs a subcommand on another machine: give one (see --help)"
            );
            return 2;
        }
        return no_command(&args);
    };
    let env = Env::from_process();
    run(
        command,
        &cli.global,
        &env,
        &mut std::io::stdout().lock(),
        &mut std::io::stderr().lock(),
    )
}

/// `s` cut to `max` characters with an ellipsis, for table columns.
pub(crate) fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_owned()
    } else {
        let mut c: String = s.chars().take(max.saturating_sub(1)).collect();
        c.push('…');
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn with_host_nothing_resolves_this_machines_roots() {
        let env = Env::from_pairs([("HOME", "/h")]);
        let global = GlobalArgs {
            host: Some("lab".into()),
            ..Default::default()
        };
        let e = global.roots(&env).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Unsupported, "{e:?}");
        assert!(GlobalArgs::default().roots(&env).is_ok());
    }
}
