//! `plandeck --host NAME <subcommand>`: the subcommand run on another machine, through its
//! `plandeck serve --stdio` over your own SSH ([`plandeck_core::remote`]), printed by the same
//! printers as here (the same `--json`). A subcommand not served over `--host` yet is refused,
//! never run here instead.

use plandeck_core::config;
use plandeck_core::gate::{DecisionOutcome, GateDecision, GateRequest};
use plandeck_core::history::RecoveredPlan;
use plandeck_core::ipc::{ErrorKind, IpcError};
use plandeck_core::plans::{PlanDocument, PlanListing};
use plandeck_core::remote::Remote;
use plandeck_core::route::{PlanDecision, PlanOutcome};
use plandeck_core::sessions::SessionSummary;
use plandeck_core::worktrees::WorktreeSummary;
use serde_json::json;

use super::plans::PlansCommand;
use super::worktrees::WorktreesCommand;
use crate::{Command, Context, Out};

/// The subcommands served over `--host`, as `plandeck --help` names them.
const SERVED: &str =
    "plans list, plans show, sessions list, worktrees list, pending, approve, reject";

/// How long a listing of sessions waits, without any news, for the remote's index.
const SESSIONS_PATIENCE: std::time::Duration = std::time::Duration::from_secs(120);

/// Whether `command` is served over `--host` (checked before connecting).
fn served(command: &Command) -> Option<&'static str> {
    let name = match command {
        Command::Plans(p) => match &p.command {
            None | Some(PlansCommand::List { .. } | PlansCommand::Show { .. }) => return None,
            Some(PlansCommand::Diff(_)) => "plans diff",
            Some(PlansCommand::History { .. }) => "plans history",
            Some(PlansCommand::Restore { .. }) => "plans restore",
        },
        Command::Sessions(_) | Command::Pending(_) | Command::Approve(_) | Command::Reject(_) => {
            return None
        }
        Command::Sources(_) => "sources",
        Command::Log(_) => "log",
        Command::Comment(_) => "comment",
        Command::Comments(_) => "comments",
        Command::Worktrees(w) => match &w.command {
            WorktreesCommand::List {
                repo: None,
                sizes: false,
                ..
            } => return None,
            WorktreesCommand::List { .. } => "worktrees list --repo/--sizes",
            WorktreesCommand::Preview { .. } => "worktrees preview",
            WorktreesCommand::Remove { .. } => "worktrees remove",
            WorktreesCommand::Keep { .. } => "worktrees keep",
        },
        Command::Demo(_) => "demo",
        Command::Hook(_) => "hook",
        Command::Hooks(_) => "hooks",
        Command::Hosts(_) => "hosts",
        Command::Verify(_) => "verify",
        Command::Serve(_) => "serve",
    };
    Some(name)
}

fn io(e: std::io::Error) -> IpcError {
    IpcError::new(ErrorKind::Io, format!("cannot write output: {e}"))
}

/// Runs `command` on the machine `host` (a name of `plandeck hosts list`).
pub fn run(
    ctx: &Context,
    host: &str,
    command: Command,
    out: &mut Out<'_>,
    err: &mut Out<'_>,
) -> Result<i32, IpcError> {
    if let Some(name) = served(&command) {
        return Err(IpcError::new(
            ErrorKind::Unsupported,
            format!(
                "`{name}` does not run over --host yet (only {SERVED}); nothing was run, here or \
                 on {host}"
            ),
        ));
    }
    // Only the settings are read here (`ctx.roots()` refuses with --host).
    let roots = config::Roots::resolve(&ctx.env, &ctx.global.overrides())?;
    let host = config::host(&roots.settings_path(), host)?;
    let remote = Remote::connect(&host, &ctx.env)?;
    let result = match command {
        Command::Plans(args) => {
            let json = args.json();
            match args.command.unwrap_or(PlansCommand::List { json }) {
                PlansCommand::Show {
                    plan,
                    html,
                    md,
                    json,
                } => {
                    let doc: PlanDocument = remote.call_as("get_plan", json!({ "id": plan }))?;
                    super::plans::print_doc(&doc, html, md, json, out)
                }
                _ => {
                    // The transcript-only plans first: that call waits for the remote's first
                    // read of the history, so the listing after it is settled with all of it
                    // (as a local `plans list` is).
                    let only: Vec<RecoveredPlan> = remote.call_as("transcript_plans", json!({}))?;
                    let listing: PlanListing = remote.call_as("list_plans", json!({}))?;
                    let home = std::path::Path::new("");
                    super::plans::print_listing(listing, &only, home, json, out, err)
                }
            }
        }
        Command::Sessions(args) => {
            let json = args.json();
            // The remote's session index is read on its own thread after start: wait for its
            // `sessions:progress` saying ready, replayed from the server's first events (an event
            // to wait on, rather than asking `session_index_progress` again and again).
            // A gap (the start's events no longer kept) means it is long done.
            let sub = remote.subscribe(Some(0))?;
            if !sub.gap {
                loop {
                    match remote.next_event(SESSIONS_PATIENCE) {
                        Some(e) if e.name == "sessions:progress" && e.payload["ready"] == true => {
                            break
                        }
                        Some(_) => {}
                        None => {
                            return Err(IpcError::new(
                                ErrorKind::Io,
                                format!("{} did not finish reading its sessions", host.name),
                            ))
                        }
                    }
                }
            }
            let list: Vec<SessionSummary> = remote.call_as("list_sessions", json!({}))?;
            super::sessions::print_sessions(&list, std::path::Path::new(""), json, out)
        }
        Command::Worktrees(args) => {
            let json = args.json();
            let list: Vec<WorktreeSummary> = remote.call_as("list_worktrees", json!({}))?;
            if json {
                crate::print_json(out, &list)?;
            } else {
                super::worktrees::print_list(out, &list)?;
            }
            Ok(0)
        }
        Command::Pending(args) => {
            let requests: Vec<GateRequest> = remote.call_as("list_pending", json!({}))?;
            super::gate::print_pending(&requests, args.json, out)
        }
        Command::Approve(args) => {
            let edited = match &args.edit {
                // The edited text is read here (the file you named) and sent.
                Some(file) => Some(std::fs::read_to_string(file).map_err(|e| {
                    IpcError::new(
                        ErrorKind::BadInput,
                        format!("cannot read the edited plan {}: {e}", file.display()),
                    )
                })?),
                None => None,
            };
            let mode: plandeck_core::gate::ApproveMode = args.mode.into();
            let target = Target::of(&remote, &args.target)?;
            decide(
                &remote,
                target,
                GateDecision::Approve {
                    mode,
                    edited: edited.clone(),
                    started_from: None,
                },
                PlanDecision::Approve {
                    mode: Some(mode),
                    edited,
                },
                How {
                    comments: !args.no_comments,
                    seen_hash: args.expect_hash.clone(),
                    json: args.json,
                },
                out,
            )
        }
        Command::Reject(args) => {
            let target = Target::of(&remote, &args.target)?;
            decide(
                &remote,
                target,
                GateDecision::Reject {
                    feedback: args.feedback.clone(),
                },
                PlanDecision::Reject {
                    feedback: args.feedback.clone(),
                },
                How {
                    comments: !args.no_comments,
                    seen_hash: args.expect_hash.clone(),
                    json: args.json,
                },
                out,
            )
        }
        _ => Err(IpcError::new(
            ErrorKind::Internal,
            "a subcommand not served over --host got through",
        )),
    }
    .and_then(|code| {
        out.flush().map_err(io)?;
        Ok(code)
    });
    // What the remote sent that was not Plandeck's is said (and was not used).
    let ignored = remote.ignored();
    if ignored > 0 {
        let _ = writeln!(
            err,
            "plandeck: {ignored} frame(s) from {} were not understood and were ignored:",
            remote.host().name
        );
        for why in remote.ignored_reasons() {
            let _ = writeln!(err, "  {why}");
        }
    }
    result
}

/// What `approve`/`reject` name on the remote: a waiting request, or a plan (with the hash of
/// the version as it is there now, when none was given).
enum Target {
    Request(String),
    Plan { id: String, hash: String },
}

impl Target {
    fn of(remote: &Remote, target: &str) -> Result<Target, IpcError> {
        let pending: Vec<GateRequest> = remote.call_as("list_pending", json!({}))?;
        if pending.iter().any(|r| r.id == target) {
            return Ok(Target::Request(target.to_owned()));
        }
        match remote.call_as::<PlanDocument>("get_plan", json!({ "id": target })) {
            Ok(doc) => Ok(Target::Plan {
                id: target.to_owned(),
                hash: doc.content_hash,
            }),
            // Not a plan there either: a request that is no longer waiting says why itself.
            Err(plandeck_core::remote::RemoteError::Answered { error, .. })
                if error.kind == ErrorKind::NotFound =>
            {
                Ok(Target::Request(target.to_owned()))
            }
            Err(e) => Err(e.into()),
        }
    }
}

struct How {
    comments: bool,
    seen_hash: Option<String>,
    json: bool,
}

fn decide(
    remote: &Remote,
    target: Target,
    on_request: GateDecision,
    on_plan: PlanDecision,
    how: How,
    out: &mut Out<'_>,
) -> Result<i32, IpcError> {
    match target {
        Target::Request(id) => {
            let outcome: DecisionOutcome = remote.call_as(
                "decide_request",
                json!({
                    "id": id,
                    "decision": on_request,
                    "withComments": how.comments,
                    "seenHash": how.seen_hash,
                }),
            )?;
            super::gate::print_outcome(&outcome, how.json, out)
        }
        Target::Plan { id, hash } => {
            let outcome: PlanOutcome = remote.call_as(
                "decide_plan",
                json!({
                    "id": id,
                    "seenHash": how.seen_hash.unwrap_or(hash),
                    "decision": on_plan,
                    "withComments": how.comments,
                }),
            )?;
            super::review::print_plan_outcome(&outcome, how.json, out)
        }
    }
}
