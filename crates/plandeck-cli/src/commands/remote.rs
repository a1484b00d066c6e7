//! `plandeck --host NAME <subcommand>`: the subcommand run on another machine, through its
//! `plandeck serve --stdio` over your own SSH ([`plandeck_core::remote`]), printed by the same
//! printers as here (the same `--json`). A subcommand not served over `--host` yet is refused,
//! never run here instead.

use plandeck_core::acp::host::Command as AcpCommand;
use plandeck_core::comments::CommentAction;
use plandeck_core::config;
use plandeck_core::gate::GateDecision;
use plandeck_core::ipc::{ErrorKind, IpcError};
use plandeck_core::remote::Remote;
use plandeck_core::route::PlanDecision;
use plandeck_core::wire::Client;
use plandeck_core::worktrees::WorktreeSummary;

use super::plans::PlansCommand;
use super::worktrees::{RemoveArgs, WorktreesCommand};
use crate::{Command, Context, Out};

/// How long a listing of sessions waits, without any news, for the remote's index.
const SESSIONS_PATIENCE: std::time::Duration = std::time::Duration::from_secs(120);

/// Whether `command` is served over `--host`: `None` when it is, else why not (checked before
/// connecting; a subcommand added later must be placed here, or this does not compile).
fn served(command: &Command) -> Option<String> {
    let local = |name: &str, why: &str| Some(format!("`{name}` {why}"));
    match command {
        Command::Plans(_)
        | Command::Sessions(_)
        | Command::Pending(_)
        | Command::Approve(_)
        | Command::Reject(_)
        | Command::Log(_)
        | Command::Comments(_)
        | Command::Verify(_)
        | Command::Start(_)
        | Command::Send(_)
        | Command::Interrupt(_)
        | Command::Stop(_)
        | Command::Resume(_) => None,
        Command::Attach(_) => local(
            "attach",
            "opens a terminal on this machine, which cannot attach to that machine's tmux: run \
             `ssh -t <host> tmux attach -t <session>`",
        ),
        Command::Comment(c) if c.occurrence.is_some() => local(
            "comment --occurrence",
            "is not served over --host: quote a passage that appears once",
        ),
        Command::Comment(_) => None,
        Command::Worktrees(w) => match &w.command {
            WorktreesCommand::List { repo: Some(_), .. } => local(
                "worktrees list --repo",
                "names a folder of this machine: over --host, list them all",
            ),
            WorktreesCommand::List { sizes: true, .. } => local(
                "worktrees list --sizes",
                "is not served over --host (sizes are measured in the background there)",
            ),
            _ => None,
        },
        Command::Sources(_) => local(
            "sources",
            "shows this machine's settings and folders: run `plandeck sources` on that machine",
        ),
        Command::Demo(_) => local("demo", "makes a scratch workspace on this machine"),
        Command::Agents(_) => local(
            "agents",
            "lists the agents found on this machine: run `plandeck agents list` on that machine",
        ),
        Command::Hook(_) => local("hook", "is run by an agent on its own machine"),
        Command::Hooks(_) => local(
            "hooks",
            "changes the agents' settings files of a machine: run `plandeck hooks` on that \
             machine",
        ),
        Command::Hosts(_) => local("hosts", "is this machine's list of other machines"),
        Command::Serve(_) => local("serve", "is what --host runs on the other machine"),
        Command::Phone(_) => local(
            "phone",
            "serves this machine's phone page: run `plandeck phone` on that machine",
        ),
    }
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
    if let Some(why) = served(&command) {
        return Err(IpcError::new(
            ErrorKind::Unsupported,
            format!("{why}; nothing was run, here or on {host}"),
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
                    let doc = remote.get_plan(plan)?;
                    super::plans::print_doc(&doc, html, md, json, out)
                }
                PlansCommand::Diff(d) => {
                    let diff = remote.plan_diff(d.plan.clone(), None, None)?;
                    super::review::print_diff(ctx, &diff, &d.plan, d.json, out)
                }
                PlansCommand::History { plan, json, diff } => match diff.as_deref() {
                    Some(&[a, b]) => {
                        let version = |n: usize| {
                            u32::try_from(n).map_err(|_| {
                                IpcError::new(ErrorKind::BadInput, format!("no version {n}"))
                            })
                        };
                        let d = remote.recovered_plan_diff(plan, version(a)?, version(b)?)?;
                        super::plans::print_history_diff(&d, a, b, json, out)
                    }
                    _ => {
                        let view = remote.recovered_plan(plan)?;
                        super::plans::print_history(&view.plan, json, out)
                    }
                },
                PlansCommand::Restore { plan, json } => {
                    let r = remote.restore_plan(plan)?;
                    super::plans::print_restored(&r, json, out)
                }
                PlansCommand::List { .. } => {
                    // The transcript-only plans first: that call waits for the remote's first
                    // read of the history, so the listing after it is settled with all of it
                    // (as a local `plans list` is).
                    let only = remote.transcript_plans()?;
                    let listing = remote.list_plans()?;
                    let home = std::path::Path::new("");
                    super::plans::print_listing(listing, &only, home, json, out, err)
                }
            }
        }
        Command::Log(args) => {
            // The remote's plan paths are its own: a plan is named by its id there.
            let path = match &args.plan {
                Some(id) => Some(remote.get_plan(id.clone())?.plan.path),
                None => None,
            };
            let mut log = remote.decision_log()?;
            if let Some(path) = &path {
                log.retain(|d| &d.plan_path == path);
            }
            super::review::print_log(&log, args.json, out)
        }
        Command::Comments(args) => {
            if args.markdown {
                let md = remote.review_markdown(args.plan.clone())?;
                out.exact(&md).map_err(io)?;
                Ok(0)
            } else {
                let placed = remote.list_comments(args.plan.clone())?;
                super::comments::print_list(&args.plan, &placed, args.json, out)
            }
        }
        Command::Comment(args) => {
            let change = match (&args.resolve, &args.reopen, &args.delete) {
                (Some(id), _, _) => Some((id, CommentAction::Resolve, "Resolved")),
                (_, Some(id), _) => Some((id, CommentAction::Reopen, "Reopened")),
                (_, _, Some(id)) => Some((id, CommentAction::Delete, "Deleted")),
                _ => None,
            };
            match change {
                Some((id, action, verb)) => {
                    remote.change_comment(id.clone(), action)?;
                    super::comments::print_changed(id, verb, args.json, out)
                }
                None => {
                    let (Some(plan), Some(quote), Some(text)) =
                        (&args.plan, &args.quote, &args.text)
                    else {
                        return Err(IpcError::new(
                            ErrorKind::BadInput,
                            "give --quote TEXT and --text COMMENT (or --resolve/--reopen/--delete ID)",
                        ));
                    };
                    let placed =
                        remote.add_comment(plan.clone(), quote.clone(), text.clone(), None)?;
                    super::comments::print_added(&placed, args.json, out)
                }
            }
        }
        Command::Verify(args) => {
            if let (Some(n), Some(status), Some(note)) =
                (args.override_step, args.status, &args.note)
            {
                remote.set_step_override(args.plan.clone(), n, status, note.clone())?;
            }
            if let Some(n) = args.clear_override {
                remote.clear_step_override(args.plan.clone(), n)?;
            }
            let report = remote.verify_report(args.plan.clone())?;
            if args.json {
                crate::print_json(out, &report)?;
            } else {
                super::verify::print_text(&report, out).map_err(io)?;
            }
            Ok(0)
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
            let list = remote.list_sessions()?;
            super::sessions::print_sessions(&list, std::path::Path::new(""), json, out)
        }
        Command::Worktrees(args) => worktrees(&remote, args.command, out),
        Command::Pending(args) => {
            let requests = remote.list_pending()?;
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
        Command::Start(args) => {
            let agent = super::control::terminal_agent(&args)?;
            let mut started = remote.start_session(super::control::request(&args, agent))?;
            started.attach =
                plandeck_core::elsewhere::attach_on(&remote.host().name, &started.tmux_session);
            super::control::print_started(&started, args.json, out)
        }
        Command::Send(args) if super::control::is_acp_session(&args.id) => acp_steer(
            &remote,
            &args.id,
            AcpCommand::Send {
                text: args.text.clone(),
            },
            super::control::ACP_SENT,
            args.json,
            out,
        ),
        Command::Interrupt(args) if super::control::is_acp_session(&args.id) => acp_steer(
            &remote,
            &args.id,
            AcpCommand::Interrupt,
            super::control::ACP_INTERRUPTED,
            args.json,
            out,
        ),
        Command::Stop(args) if super::control::is_acp_session(&args.id) => {
            acp_stop(&remote, &args.id, args.yes, args.json, out)
        }
        Command::Resume(args) if super::control::is_acp_session(&args.id) => {
            acp_resume(&remote, &args.id, args.json, out)
        }
        Command::Send(args) => {
            let said = remote.send_to_agent(args.id.clone(), args.text.clone())?;
            super::control::print_message(&said, args.json, out)
        }
        Command::Interrupt(args) => {
            let said = remote.interrupt_session(args.id.clone())?;
            super::control::print_message(&said, args.json, out)
        }
        Command::Stop(args) => {
            let preview = remote.stop_preview(args.id.clone())?;
            if !args.yes {
                return super::control::print_preview(&preview, args.json, out);
            }
            let outcome = remote.stop_session(args.id.clone(), preview.token.clone())?;
            if args.json {
                crate::print_json(out, &outcome)?;
            } else {
                writeln!(out, "{}", outcome.message).map_err(io)?;
            }
            Ok(0)
        }
        Command::Resume(args) => {
            let mut started = remote.resume_session(args.id.clone())?;
            started.attach =
                plandeck_core::elsewhere::attach_on(&remote.host().name, &started.tmux_session);
            super::control::print_started(&started, args.json, out)
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

/// How long `--host … resume acps-…` waits for the remote's server to host the session again
/// (as long as a local resume waits).
const ACP_RESUME_PATIENCE: std::time::Duration = std::time::Duration::from_secs(150);

/// The hosted ACP session `id` as the remote names it, checked before anything is sent: a name
/// that cannot be one is refused here.
fn acp_id(remote: &Remote, id: &str) -> Result<String, IpcError> {
    if plandeck_core::acp::host::check_id(id).is_err() {
        return Err(IpcError::new(
            ErrorKind::NotFound,
            format!(
                "{} cannot be a hosted ACP session of {} (see `plandeck --host {} sessions \
                 list`): nothing was sent",
                plandeck_core::visible::shown(&id.chars().take(80).collect::<String>()),
                remote.host().name,
                remote.host().name
            ),
        ));
    }
    Ok(id.to_owned())
}

/// Send or Interrupt of a hosted ACP session of the remote: handed to its host there, through the
/// same call the window makes for another machine's session.
fn acp_steer(
    remote: &Remote,
    id: &str,
    command: AcpCommand,
    done: &str,
    json: bool,
    out: &mut Out<'_>,
) -> Result<i32, IpcError> {
    let id = acp_id(remote, id)?;
    remote.steer_acp_session(id, command)?;
    super::control::print_message(done, json, out)
}

/// Stop of a hosted ACP session of the remote: without `yes`, what it would end (listed by the
/// remote, the agent first); with it, ended.
fn acp_stop(
    remote: &Remote,
    id: &str,
    yes: bool,
    json: bool,
    out: &mut Out<'_>,
) -> Result<i32, IpcError> {
    let id = acp_id(remote, id)?;
    let hosted = remote.acp_session(id.clone())?;
    let what = super::control::acp_stop_what(&hosted)
        .map_err(|e| IpcError::new(e.kind, format!("{}: {}", remote.host().name, e.message)))?;
    if !yes {
        let processes = remote.acp_stop_preview(id)?;
        let listing = super::control::acp_stop_listing(&what, &processes);
        return super::control::print_message(&listing, json, out);
    }
    remote.steer_acp_session(id, AcpCommand::Stop)?;
    super::control::print_message(&format!("Stopping {what}."), json, out)
}

/// Resume of a hosted ACP session of the remote whose host ended: hosted again by the remote's
/// server (started there when none runs); waits, asking the remote, until it is loaded (or
/// failed).
fn acp_resume(remote: &Remote, id: &str, json: bool, out: &mut Out<'_>) -> Result<i32, IpcError> {
    let id = acp_id(remote, id)?;
    let name = remote.host().name.clone();
    // Its record's next write tells the new host took it.
    let before = remote.acp_session(id.clone())?.updated;
    remote.steer_acp_session(id.clone(), AcpCommand::Resume)?;
    let asked = std::time::Instant::now();
    let hosted = loop {
        let h = remote.acp_session(id.clone())?;
        if h.updated != before && h.state != "starting" {
            break h;
        }
        if asked.elapsed() > ACP_RESUME_PATIENCE {
            return Err(IpcError::new(
                ErrorKind::Internal,
                format!(
                    "the Plandeck server of {name} did not resume {id} within 150 s: see its log \
                     there"
                ),
            ));
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    };
    if hosted.state == "failed" {
        return Err(IpcError::new(
            ErrorKind::Unsupported,
            format!(
                "{id} was not resumed on {name}: {}",
                super::control::cut(hosted.problem.as_deref().unwrap_or("?"), 500)
            ),
        ));
    }
    super::control::print_resumed(&hosted, &format!("plandeck --host {name}"), json, out)
}

/// What `approve`/`reject` name on the remote: a waiting request, or a plan (with the hash of
/// the version as it is there now, when none was given).
enum Target {
    Request(String),
    Plan { id: String, hash: String },
}

impl Target {
    fn of(remote: &Remote, target: &str) -> Result<Target, IpcError> {
        let pending = remote.list_pending()?;
        if pending.iter().any(|r| r.id == target) {
            return Ok(Target::Request(target.to_owned()));
        }
        match remote.get_plan(target.to_owned()) {
            Ok(doc) => Ok(Target::Plan {
                id: target.to_owned(),
                hash: doc.content_hash,
            }),
            // Not a plan there either: a request that is no longer waiting says why itself.
            Err(error) if error.kind == ErrorKind::NotFound => {
                Ok(Target::Request(target.to_owned()))
            }
            Err(e) => Err(e),
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
            let outcome =
                remote.decide_request(id, on_request, Some(how.comments), how.seen_hash, None)?;
            super::gate::print_outcome(&outcome, how.json, out)
        }
        Target::Plan { id, hash } => {
            let seen = how.seen_hash.unwrap_or(hash);
            let outcome = remote.decide_plan(id, seen, on_plan, Some(how.comments))?;
            super::review::print_plan_outcome(&outcome, how.json, out)
        }
    }
}

/// `worktrees …` on the remote. A worktree is named by its path there (or its id): the path is
/// only compared with the remote's listing, never read here.
fn worktrees(
    remote: &Remote,
    command: WorktreesCommand,
    out: &mut Out<'_>,
) -> Result<i32, IpcError> {
    let list = remote.list_worktrees()?;
    let find = |path: &std::path::Path| -> Result<WorktreeSummary, IpcError> {
        let named = path.to_string_lossy();
        list.iter()
            .find(|w| w.path == named || w.id == named)
            .cloned()
            .ok_or_else(|| {
                IpcError::new(
                    ErrorKind::NotFound,
                    format!(
                        "{} has no worktree {named} (see `plandeck --host {} worktrees list`)",
                        remote.host().name,
                        remote.host().name
                    ),
                )
            })
    };
    match command {
        WorktreesCommand::List { json, .. } => {
            if json {
                crate::print_json(out, &list)?;
            } else {
                super::worktrees::print_list(out, &list)?;
            }
        }
        WorktreesCommand::Preview { path, json } => {
            let w = find(&path)?;
            let shown = remote.removal_to_confirm(w.id.clone())?;
            super::worktrees::print_preview(&w.path, &shown.preview, json, out)?;
        }
        WorktreesCommand::Remove(args) => {
            let RemoveArgs {
                path,
                discard,
                expect,
                json,
            } = args;
            // As the window does: the removal is shown there, then applied with the token of what
            // was shown (the remote removes only that), under the same rules as here.
            let w = find(&path)?;
            let shown = remote.removal_to_confirm(w.id.clone())?;
            let preview = &shown.preview;
            let refuse = |message: String| IpcError::new(ErrorKind::Refused, message);
            if expect.as_ref().is_some_and(|t| *t != preview.token) {
                return Err(IpcError::new(
                    ErrorKind::Conflict,
                    format!(
                        "{} changed: what removal would do or lose is not what was shown",
                        w.path
                    ),
                ));
            }
            if !preview.confirmable {
                return Err(refuse(format!(
                    "{}: {}",
                    w.path,
                    preview.loss_summary.trim_end()
                )));
            }
            if !preview.refusals.is_empty() && !discard {
                return Err(refuse(format!(
                    "{}\nConfirm with --discard to remove it anyway.",
                    preview.loss_summary.trim_end()
                )));
            }
            let outcome = remote.remove_shown(w.id.clone(), preview.token.clone())?;
            if !json && !preview.loss_summary.is_empty() {
                // What was given up, said as it was shown.
                writeln!(out, "{}", preview.loss_summary.trim_end()).map_err(io)?;
            }
            super::worktrees::print_removed(&w.path, &outcome, json, out)?;
        }
        WorktreesCommand::Keep { path, json } => {
            let w = find(&path)?;
            remote.keep_worktree(w.id.clone())?;
            super::worktrees::print_kept(&w.path, json, out)?;
        }
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, Parser};

    /// Every subcommand (and every one under it), as `plandeck --help` lists them.
    fn leaves(cmd: &clap::Command, prefix: &str, into: &mut Vec<String>) {
        let subs: Vec<&clap::Command> = cmd
            .get_subcommands()
            .filter(|c| c.get_name() != "help")
            .collect();
        if subs.is_empty() {
            into.push(prefix.trim().to_owned());
        }
        for sub in subs {
            leaves(sub, &format!("{prefix} {}", sub.get_name()), into);
        }
    }

    /// The smallest arguments that parse for a subcommand.
    fn example(path: &str) -> Vec<String> {
        let extra: &[&str] = match path {
            "plans show" | "plans diff" | "plans history" | "plans restore" | "verify"
            | "comments" => &["p1"],
            "approve" => &["p1"],
            "reject" => &["p1", "--feedback", "no"],
            "comment" => &["p1", "--quote", "a", "--text", "b"],
            "worktrees preview" | "worktrees remove" | "worktrees keep" => &["/w"],
            "hook" => &["claude"],
            "hooks install" | "hooks uninstall" => &["--agent", "claude"],
            "hosts add" => &["lab", "--ssh", "lab"],
            "hosts install" | "hosts remove" => &["lab"],
            "phone on" => &["--listen", "127.0.0.1:8443", "--cert", "c", "--key", "k"],
            "phone revoke" => &["Pixel"],
            "serve" => &["--stdio"],
            "start" => &["--agent", "claude", "--repo", "/r"],
            "send" => &["s1", "hello"],
            "agents check" => &["claude-acp", "--repo", "/r"],
            "interrupt" | "stop" | "resume" | "attach" => &["s1"],
            _ => &[],
        };
        let mut args: Vec<String> = vec!["plandeck".into(), "--host".into(), "lab".into()];
        args.extend(path.split_whitespace().map(str::to_owned));
        args.extend(extra.iter().map(|s| s.to_string()));
        args
    }

    #[test]
    fn every_subcommand_is_served_over_host_or_refused_with_why() {
        let mut all = Vec::new();
        leaves(&crate::Cli::command(), "", &mut all);
        assert!(all.len() > 20, "{all:?}");
        // `attach` opens a terminal here, which cannot attach to another machine's tmux.
        let refused_as_local = [
            "sources", "demo", "hook", "hooks", "hosts", "serve", "attach", "agents", "phone",
        ];
        let mut served_names = Vec::new();
        for path in &all {
            let args = example(path);
            let cli = crate::Cli::try_parse_from(&args)
                .unwrap_or_else(|e| panic!("{args:?} does not parse: {e}"));
            let command = cli.command.expect("a subcommand");
            match served(&command) {
                None => served_names.push(path.clone()),
                Some(why) => {
                    let top = path.split_whitespace().next().unwrap();
                    assert!(
                        refused_as_local.contains(&top),
                        "`{path}` is refused over --host ({why}): serve it, or say here why not"
                    );
                    assert!(why.len() > 20, "{path}: {why}");
                }
            }
        }
        // What reads or writes this machine's files stays refused.
        for top in refused_as_local {
            assert!(
                !served_names
                    .iter()
                    .any(|s| s.split_whitespace().next() == Some(top)),
                "{top} must not run over --host"
            );
        }
        // A flag that names a local path is refused too.
        for (args, flag) in [
            (&["worktrees", "list", "--repo", "/r"][..], "--repo"),
            (
                &[
                    "comment",
                    "p1",
                    "--quote",
                    "a",
                    "--text",
                    "b",
                    "--occurrence",
                    "2",
                ],
                "--occurrence",
            ),
        ] {
            let mut all = vec!["plandeck", "--host", "lab"];
            all.extend_from_slice(args);
            let cli = crate::Cli::try_parse_from(&all).unwrap();
            let why = served(&cli.command.unwrap()).expect("refused");
            assert!(why.contains(flag), "{why}");
        }
    }
}
