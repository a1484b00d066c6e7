//! Steering a running session: send a message, interrupt, stop, resume, open in a terminal.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::agents::{self, Agent, Driver, Input};
use crate::config::Roots;
use crate::gate::{self, SendError};
use crate::terminal::{self, Key, ProcessId, Target, TerminalError, Tmux};

use super::record::{self, Record};
use super::start::{agent_program, attach_line, check_tmux, launch, Server};
use super::{ControlError, ProcessLine, Started, StopOutcome, StopPreview};

/// How long a stopped agent has to exit after SIGTERM before it is killed.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// A running session Plandeck can type into.
#[derive(Debug, Clone)]
pub struct Steerable {
    pub agent: Agent,
    pub target: Target,
    /// Plandeck's record, when Plandeck started it.
    pub record: Option<Record>,
}

/// The record of a session Plandeck started, by its tmux session name or its session id.
fn record_of(roots: &Roots, id: &str) -> Option<Record> {
    let all = record::all(roots);
    all.iter()
        .find(|r| r.tmux_session == id || r.session_id.as_deref() == Some(id))
        .or_else(|| {
            all.iter()
                .find(|r| r.session_id.is_none() && record::session_id(r).as_deref() == Some(id))
        })
        .cloned()
}

/// The running session `id`: one Plandeck started (by tmux session name or session id), else a
/// live Claude Code session in tmux (its registry entry).
pub fn resolve(roots: &Roots, id: &str) -> Result<Steerable, ControlError> {
    if let Some(r) = record_of(roots, id) {
        if !r.alive() {
            return Err(ControlError::Ended { id: id.to_owned() });
        }
        return Ok(Steerable {
            agent: r.agent,
            target: Target {
                socket: r.socket.clone(),
                pane: r.pane.clone(),
                agent: Some(r.process()),
            },
            record: Some(r),
        });
    }
    // A live session the person started: each agent's own way of finding one, in list order.
    for d in agents::all() {
        let driver = agents::driver(d.agent);
        if let Some(target) = driver.live_session(roots, id)? {
            return Ok(Steerable {
                agent: d.agent,
                target,
                record: None,
            });
        }
    }
    Err(ControlError::NotSteerable { id: id.to_owned() })
}

/// Types `text` into the session `id` and submits it: only while the agent waits for input with
/// an empty input box. Returns what was done, for the person.
pub fn send_message(roots: &Roots, id: &str, text: &str) -> Result<String, ControlError> {
    if terminal::needs_truncation(text, terminal::MAX_TYPED_CHARS) {
        return Err(SendError::TooLong {
            max: terminal::MAX_TYPED_CHARS,
        }
        .into());
    }
    let text = terminal::clean_text(text, terminal::MAX_TYPED_CHARS);
    if text.trim().is_empty() {
        return Err(SendError::Empty.into());
    }
    let s = resolve(roots, id)?;
    send_to(agents::driver(s.agent), &s.target, &text)?;
    Ok(format!(
        "typed into tmux pane {} and submitted: {} has the message",
        s.target.pane,
        s.agent.display_name()
    ))
}

/// Why `agent` is not ready to take a message on `screen` (`styled`: the same with its styles),
/// if it is not.
pub(super) fn not_ready(
    agent: Agent,
    pane: &str,
    screen: &str,
    styled: &str,
) -> Option<ControlError> {
    let driver = agents::driver(agent);
    let not_waiting = |why: &str| ControlError::NotWaiting {
        pane: pane.to_owned(),
        why: why.to_owned(),
    };
    if driver.working().is_some_and(|w| screen.contains(w)) {
        return Some(not_waiting("it is working on a turn"));
    }
    if driver.menu_open(screen) {
        return Some(
            SendError::MenuOpen {
                pane: pane.to_owned(),
            }
            .into(),
        );
    }
    match driver.input(screen, styled) {
        Input::Absent(why) => Some(not_waiting(why)),
        Input::Draft(d) => Some(ControlError::Draft {
            pane: pane.to_owned(),
            draft: d,
        }),
        Input::Empty => None,
    }
}

/// [`send_message`] once the pane is known: checked, typed, Enter once it shows.
pub(crate) fn send_to(
    driver: &dyn Driver,
    target: &Target,
    text: &str,
) -> Result<(), ControlError> {
    target.verify()?;
    let screen = target.capture(0)?;
    let styled = target.capture_styled()?;
    if let Some(why) = not_ready(driver.agent(), &target.pane, &screen, &styled) {
        return Err(why);
    }
    // The checked typing path: the menu and the draft are looked at again right before typing.
    gate::type_checked(driver, target, text).map_err(Into::into)
}

/// Presses the agent's own interrupt key (Esc) in the session `id`, after the checks.
pub fn interrupt(roots: &Roots, id: &str) -> Result<String, ControlError> {
    let s = resolve(roots, id)?;
    s.target.verify()?;
    // On an approval card Esc is an answer (Claude Code rejects the plan, Codex CLI stays in
    // Plan mode): the card is answered in the queue, not by an interrupt.
    if gate::card_visible(s.agent, &s.target.capture(0)?) {
        return Err(SendError::MenuOpen {
            pane: s.target.pane.clone(),
        }
        .into());
    }
    s.target.send(&Key::Escape)?;
    Ok(format!(
        "pressed Esc in tmux pane {}: {} stops what it is doing",
        s.target.pane,
        s.agent.display_name()
    ))
}

/// `/proc/<pid>/cmdline` as words.
fn argv_of(pid: u32) -> Vec<String> {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|b| {
            b.split(|c| *c == 0)
                .filter(|w| !w.is_empty())
                .map(|w| String::from_utf8_lossy(w).into_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn command_words(pid: u32) -> String {
    let argv = argv_of(pid);
    let comm = if argv.is_empty() {
        std::fs::read_to_string(format!("/proc/{pid}/comm")).ok()
    } else {
        None
    };
    command_line(&argv, comm.as_deref())
}

/// A process's command as a person reads it: its arguments, else (a process that emptied them)
/// its name in brackets; either with control and invisible characters marked (a process names
/// itself: `/proc/self/comm` takes any 15 bytes, ESC included) and cut to 300 characters.
fn command_line(argv: &[String], comm: Option<&str>) -> String {
    let line = match comm {
        _ if !argv.is_empty() => argv.join(" "),
        Some(c) => format!("[{}]", c.trim_end_matches('\n')),
        None => "?".to_owned(),
    };
    crate::visible::shown(&line).chars().take(300).collect()
}

/// Whether `argv` runs `agent`'s CLI: the program (or the script an interpreter runs) is the
/// CLI's executable or lies in its package. A shell, an editor, anything else is not.
pub(super) fn runs_agent(agent: Agent, argv: &[String]) -> bool {
    agents::driver(agent)
        .cli()
        .is_some_and(|cli| agents::driver::runs(cli, argv))
}

/// The running members of the process group `pgrp` (none a zombie), in no order.
fn group_members(pgrp: u64) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
                .filter(|p| {
                    crate::process::stat_fields(*p).is_some_and(|f| {
                        !matches!(f.first().map(String::as_str), Some("Z" | "X"))
                            && f.get(2).and_then(|s| s.parse::<u64>().ok()) == Some(pgrp)
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

/// What Stop of the hosted ACP session `h` ends, listed before it does: the processes of its
/// agent's process group, read now, the agent first, then what it started there
/// (claude-agent-acp's Claude Code, the commands that runs); the agent's watchdog, Plandeck's own
/// (`acp::client`: its program and script, a child of the host), is left out, and a process of
/// the agent's running the same words is listed (Stop ends it too). Empty when the session no
/// longer runs, or when its pid is no longer its agent's (no group led by a child of its host).
pub fn acp_stop_preview(h: &crate::acp::host::Hosted) -> Vec<ProcessLine> {
    if matches!(h.live_state(), "ended" | "failed") {
        return Vec::new();
    }
    let Some(pid) = h.agent_pid else {
        return Vec::new();
    };
    if crate::process::parent_of(pid) != Some(h.host_pid) {
        return Vec::new();
    }
    let watchdog = [
        crate::acp::client::WATCHDOG_SHELL,
        "-c",
        crate::acp::client::WATCHDOG,
    ];
    group_processes(pid)
        .into_iter()
        .filter(|(line, argv)| {
            line.pid == pid
                || argv.as_slice() != watchdog
                || crate::process::parent_of(line.pid) != Some(h.host_pid)
        })
        .map(|(line, _)| line)
        .collect()
}

/// Every running process of the group `pid` leads, `pid` first, each with its command line as a
/// person reads it, and its arguments as they are; empty when `pid` leads no group.
fn group_processes(pid: u32) -> Vec<(ProcessLine, Vec<String>)> {
    if crate::process::stat_number(pid, 5) != Some(u64::from(pid)) {
        return Vec::new();
    }
    let mut members = group_members(u64::from(pid));
    members.sort_by_key(|m| (*m != pid, *m));
    members
        .into_iter()
        .map(|p| {
            (
                ProcessLine {
                    pid: p,
                    command: command_words(p),
                },
                argv_of(p),
            )
        })
        .collect()
}

/// The process group `pid` leads, when every running member is `pid` or one of its descendants;
/// else only `pid`.
fn own_processes(pid: u32) -> (Vec<u32>, bool) {
    let pgrp = crate::process::stat_number(pid, 5);
    if pgrp != Some(u64::from(pid)) {
        return (vec![pid], false);
    }
    let descendants = record::descendants(pid);
    let members = group_members(u64::from(pid));
    if members.iter().all(|m| *m == pid || descendants.contains(m)) {
        let mut ordered = vec![pid];
        ordered.extend(members.into_iter().filter(|m| *m != pid));
        (ordered, true)
    } else {
        (vec![pid], false)
    }
}

/// What stopping the session `id` would end: the agent's own process (refused when the process
/// named is not the agent's CLI, such as the person's shell), and its children in its group.
pub fn stop_preview(roots: &Roots, id: &str) -> Result<StopPreview, ControlError> {
    let s = resolve(roots, id)?;
    let agent_id = s.target.agent.ok_or(TerminalError::AgentUnknown)?;
    terminal::alive(&agent_id)?;
    let pid = agent_id.pid;
    let argv = argv_of(pid);
    let command = command_words(pid);
    if !runs_agent(s.agent, &argv) {
        return Err(ControlError::NotAgentProcess {
            pid,
            command,
            agent: s.agent.display_name().to_owned(),
        });
    }
    let (pids, _) = own_processes(pid);
    let processes: Vec<ProcessLine> = pids
        .iter()
        .map(|p| ProcessLine {
            pid: *p,
            command: command_words(*p),
        })
        .collect();
    let mut hashed = String::new();
    for p in &pids {
        hashed.push_str(&format!(
            "{p}:{}:{}\n",
            terminal::start_time(*p).unwrap_or_default(),
            argv_of(*p).join("\u{0}")
        ));
    }
    Ok(StopPreview {
        id: id.to_owned(),
        agent: s.agent,
        pid,
        command,
        processes,
        token: crate::durable::sha256_hex(hashed.as_bytes()),
    })
}

/// Ends what [`stop_preview`] listed, while its `token` still holds: SIGTERM, then SIGKILL to
/// whatever of it (the same processes, by start time) still runs after a grace period.
pub fn stop(roots: &Roots, id: &str, token: &str) -> Result<StopOutcome, ControlError> {
    let preview = stop_preview(roots, id)?;
    if preview.token != token {
        let now: Vec<String> = preview
            .processes
            .iter()
            .map(|p| format!("{} {}", p.pid, p.command))
            .collect();
        return Err(ControlError::StopChanged {
            now: now.join("; "),
        });
    }
    let listed: Vec<ProcessId> = preview
        .processes
        .iter()
        .map(|p| ProcessId::current(p.pid))
        .collect();
    let signal_all = |signal: rustix::process::Signal| {
        for p in &listed {
            if crate::process::is_running(p.pid, p.start_time) {
                if let Some(pid) = i32::try_from(p.pid)
                    .ok()
                    .and_then(rustix::process::Pid::from_raw)
                {
                    let _ = rustix::process::kill_process(pid, signal);
                }
            }
        }
    };
    signal_all(rustix::process::Signal::TERM);
    let agent = listed[0];
    let start = Instant::now();
    while crate::process::is_running(agent.pid, agent.start_time) {
        if start.elapsed() >= STOP_GRACE {
            signal_all(rustix::process::Signal::KILL);
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(StopOutcome {
        ended: listed.iter().map(|p| p.pid).collect(),
        message: format!(
            "ended {} (pid {}) and {} of its own processes",
            preview.agent.display_name(),
            preview.pid,
            listed.len() - 1
        ),
    })
}

/// The longest session id resumed (the CLIs' ids are UUIDs, 36 characters).
const SESSION_ID_MAX: usize = 128;

/// Whether `id` can be the resumed agent's argument: letters, digits, `-` and `_`, starting
/// with a letter or digit. An id is read from files an agent can write (a Claude transcript's
/// file name, a Gemini chat's `sessionId`, a Codex rollout's `id`): one starting with `-` would be
/// an option of the agent (`--settings={"hooks":…}`, `--dangerously-skip-permissions`, `-c…`).
fn check_session_id(id: &str) -> Result<(), ControlError> {
    let why = if id.is_empty() {
        "it is empty"
    } else if id.len() > SESSION_ID_MAX {
        "it is longer than any agent's session id"
    } else if !id.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        "it does not start with a letter or a digit (the agent would read it as an option)"
    } else if !id
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        "it holds characters no agent's session id has"
    } else {
        return Ok(());
    };
    Err(ControlError::BadSessionId {
        id: crate::visible::shown(&id.chars().take(SESSION_ID_MAX).collect::<String>())
            .into_owned(),
        why: why.to_owned(),
    })
}

/// The command that resumes `agent`'s session `session_id`.
pub(super) fn resume_line(program: &Path, agent: Agent, session_id: &str) -> Vec<String> {
    let mut argv = vec![program.display().to_string()];
    argv.extend(agents::driver(agent).resume_args(session_id));
    argv
}

/// Resumes the ended session `id` in its folder, in a new tmux session. `known`: the agent and
/// folder the session index gave, for a session Plandeck did not start.
pub fn resume(
    roots: &Roots,
    id: &str,
    known: Option<(Agent, String)>,
) -> Result<Started, ControlError> {
    resume_with(roots, id, known, None, Server::PERSONS)
}

/// [`resume`], with `program` as the agent's CLI (else the one on the PATH), on `server`.
pub(super) fn resume_with(
    roots: &Roots,
    id: &str,
    known: Option<(Agent, String)>,
    program: Option<&Path>,
    server: Server<'_>,
) -> Result<Started, ControlError> {
    let record = record_of(roots, id);
    if let Some(r) = record.as_ref().filter(|r| r.alive()) {
        return Err(ControlError::StillRunning {
            id: id.to_owned(),
            pid: r.pid,
        });
    }
    if let Ok(target) = gate::session_target(roots, id) {
        return Err(ControlError::StillRunning {
            id: id.to_owned(),
            pid: target.agent.map_or(0, |a| a.pid),
        });
    }
    let (agent, cwd, session_id) = match (&record, known) {
        (Some(r), _) => {
            let sid = r
                .session_id
                .clone()
                .ok_or_else(|| ControlError::NotSteerable { id: id.to_owned() })?;
            (r.agent, r.cwd.clone(), sid)
        }
        (None, Some((agent, cwd))) => (agent, cwd, id.to_owned()),
        (None, None) => return Err(ControlError::NotSteerable { id: id.to_owned() }),
    };
    check_session_id(&session_id)?;
    let program = match program {
        Some(p) => p.to_owned(),
        None => {
            let p = agent_program(agent)?;
            check_tmux()?;
            p
        }
    };
    let dir = Path::new(&cwd);
    if cwd.is_empty() || !dir.is_dir() {
        return Err(ControlError::Io {
            message: format!("the session's folder {cwd:?} is gone: it cannot be resumed there"),
        });
    }
    let argv = resume_line(&program, agent, &session_id);
    // The folder is the session's recorded one, which an agent may have named (`mkdir
    // 'x#(…)' && cd x*`): `launch` passes it to tmux as data and checks the agent runs there.
    let (tmux_session, pane, pid) = launch(server, agent, dir, None, dir, &argv)?;
    let record = Record {
        agent,
        tmux_session: tmux_session.clone(),
        socket: server.socket.map(str::to_owned),
        pane: pane.clone(),
        pid,
        start_time: terminal::start_time(pid),
        cwd: cwd.clone(),
        session_id: Some(session_id.clone()),
    };
    record::write(roots, &record)?;
    Ok(Started {
        agent,
        attach: attach_line(server, &tmux_session),
        tmux_session,
        pane,
        pid,
        cwd,
        worktree: None,
        branch: None,
        session_id: Some(session_id),
        found_by: "the session id it was resumed with".into(),
        plan: false,
        hook: None,
    })
}

/// The tmux session (and server) of the running session `id`.
fn tmux_session_of(roots: &Roots, id: &str) -> Result<(String, Option<String>), ControlError> {
    let s = resolve(roots, id)?;
    if let Some(r) = s.record {
        return Ok((r.tmux_session, r.socket));
    }
    let name = Tmux::on(s.target.socket.as_deref(), "display-message")
        .flag("-p")
        .pane(&s.target.pane)
        .format("#{session_name}")
        .output()?;
    Ok((name.trim().to_owned(), s.target.socket))
}

/// Opens the session `id` in the person's terminal emulator (`$TERMINAL`, else
/// `x-terminal-emulator`) running `tmux attach -t <session>`.
pub fn open_in_terminal(roots: &Roots, id: &str) -> Result<String, ControlError> {
    let (name, socket) = tmux_session_of(roots, id)?;
    // The words the terminal runs, built as every tmux call is (the session's name is data).
    let mut attach = vec!["tmux".to_owned()];
    attach.extend(
        Tmux::on(socket.as_deref(), "attach")
            .session(&name)
            .argv()
            .into_iter()
            .skip(1) // `-u`: the terminal's own locale decides
            .map(|w| w.to_string_lossy().into_owned()),
    );
    let shown = attach
        .iter()
        .map(|w| {
            if w.chars()
                .all(|c| c.is_alphanumeric() || "-_=/.%@:".contains(c))
            {
                w.clone()
            } else {
                crate::shell::quote(w)
            }
        })
        .collect::<Vec<_>>()
        .join(" ");
    let from_env = std::env::var("TERMINAL")
        .ok()
        .filter(|t| !t.trim().is_empty());
    let terminal = from_env
        .or_else(|| {
            let path = std::env::var_os("PATH")?;
            std::env::split_paths(&path)
                .map(|d| d.join("x-terminal-emulator"))
                .find(|p| p.is_file())
                .map(|p| p.display().to_string())
        })
        .ok_or_else(|| ControlError::NoTerminal {
            attach: shown.clone(),
        })?;
    let mut words = terminal.split_whitespace();
    let program = words.next().unwrap_or_default().to_owned();
    let mut cmd = Command::new(&program);
    cmd.args(words)
        .arg("-e")
        .args(&attach)
        .env_remove("TMUX")
        .env_remove("TMUX_PANE")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    match cmd.spawn() {
        Ok(child) => {
            // Reaped in the background: the terminal lives on its own.
            std::thread::spawn(move || {
                let mut child = child;
                let _ = child.wait();
            });
            Ok(format!("opened {program} running {shown}"))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Err(ControlError::NoTerminal { attach: shown })
        }
        Err(e) => Err(ControlError::Io {
            message: format!("cannot start {program}: {e}"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A process that emptied its arguments is shown by the name it gave itself, which can hold
    /// ESC and bidi controls (`/proc/self/comm`): marked, like its arguments, never raw.
    #[test]
    fn a_process_name_with_escapes_is_shown_marked() {
        let shown = command_line(&[], Some("\u{1b}]0;x\u{7}\u{202e}\n"));
        assert!(
            !shown.contains('\u{1b}') && !shown.contains('\u{7}') && !shown.contains('\u{202e}'),
            "{shown:?}"
        );
        assert!(shown.starts_with('[') && shown.ends_with(']'), "{shown:?}");
        let argv = vec!["node".to_owned(), "\u{1b}[2J".to_owned()];
        assert!(!command_line(&argv, None).contains('\u{1b}'));
        assert_eq!(command_line(&[], None), "?");
    }
}
