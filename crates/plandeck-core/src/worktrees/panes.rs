//! The tmux panes in a worktree's folder, told apart: an agent's own pane (the pane's process is a
//! running agent session's process, as Claude Code's registry `<claude>/sessions/<pid>.json` names
//! it, with the same start time and, when the registry names one, the same pane) may be ended by a
//! confirmed removal; every other pane is the person's (a shell, an editor, an agent started from
//! a shell) and is never ended. Plandeck never kills a tmux session.

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::{canonical, PaneLine};
use crate::config::Roots;
use crate::sessions::{pid_alive, RegistryFile};
use crate::terminal::Tmux;

/// A pane as `tmux list-panes -a` reports it.
#[derive(Debug, Clone)]
struct Pane {
    id: String,
    pid: u32,
    session: String,
    command: String,
    path: PathBuf,
}

/// An agent's own pane, with what identifies the agent's process.
#[derive(Debug, Clone)]
pub(crate) struct AgentPane {
    pub line: PaneLine,
    pub proc_start: Option<String>,
}

/// The panes in a worktree: the agents' own and the person's.
#[derive(Debug, Clone, Default)]
pub(crate) struct PanesIn {
    pub agents: Vec<AgentPane>,
    pub person: Vec<PaneLine>,
}

/// A tmux call on `socket` (bounded: a hung server costs seconds, never a frozen preview or
/// removal).
fn tmux(socket: Option<&Path>, command: &'static str) -> Tmux {
    let socket = socket.map(|s| s.to_string_lossy().into_owned());
    Tmux::on(socket.as_deref(), command)
}

/// Every pane of the server: none when tmux is not installed or no server runs. An answer that
/// cannot be read is an error, never "no panes": a person's shell in the folder would go unseen.
fn all_panes(socket: Option<&Path>) -> Result<Vec<Pane>, String> {
    let out = match tmux(socket, "list-panes")
        .flag("-a")
        // Each text field after its length in bytes (`n:`): a folder or a command name may
        // hold a line break and tabs, which would read as a pane of its own.
        .format_flag(
            "#{pane_id}\t#{pane_pid}\t#{n:session_name}\t#{n:pane_current_command}\t#{n:pane_current_path}\t#{session_name}\t#{pane_current_command}\t#{pane_current_path}",
        )
        .run()
    {
        Ok(out) => out,
        Err(crate::terminal::RunError::Spawn { source, .. })
            if source.kind() == std::io::ErrorKind::NotFound =>
        {
            // tmux is not installed: no pane can be in the folder.
            return Ok(Vec::new());
        }
        Err(e) => return Err(e.to_string()),
    };
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        if stderr.contains("no server running") || stderr.contains("error connecting to") {
            return Ok(Vec::new());
        }
        return Err(format!("tmux list-panes failed: {}", stderr.trim()));
    }
    parse_panes(&out.stdout)
}

/// The records of `list-panes -F` with the fields above: the pane id and pid up to a tab, the three
/// lengths, then each text field read by its length (never up to a separator it may hold itself),
/// each record ending with a line break. A record that does not read is an error.
fn parse_panes(out: &[u8]) -> Result<Vec<Pane>, String> {
    let mut panes = Vec::new();
    let mut rest = out;
    while !rest.is_empty() {
        let record = rest;
        let parsed = (|| {
            let mut upto = |sep: u8| -> Option<&[u8]> {
                let at = rest.iter().position(|b| *b == sep)?;
                let (field, after) = (&rest[..at], &rest[at + 1..]);
                rest = after;
                Some(field)
            };
            let id = std::str::from_utf8(upto(b'\t')?).ok()?.to_owned();
            let pid = std::str::from_utf8(upto(b'\t')?).ok()?.parse().ok()?;
            let mut len =
                || -> Option<usize> { std::str::from_utf8(upto(b'\t')?).ok()?.parse().ok() };
            let lens = [len()?, len()?, len()?];
            let mut fields: Vec<&[u8]> = Vec::with_capacity(3);
            for (i, n) in lens.into_iter().enumerate() {
                let end = if i == 2 { b'\n' } else { b'\t' };
                if rest.len() <= n || rest[n] != end {
                    return None;
                }
                fields.push(&rest[..n]);
                rest = &rest[n + 1..];
            }
            Some(Pane {
                id,
                pid,
                session: String::from_utf8_lossy(fields[0]).into_owned(),
                command: String::from_utf8_lossy(fields[1]).into_owned(),
                path: PathBuf::from(std::ffi::OsStr::from_bytes(fields[2])),
            })
        })();
        match parsed {
            Some(p) => panes.push(p),
            None => {
                let line =
                    String::from_utf8_lossy(record.split(|b| *b == b'\n').next().unwrap_or(record));
                return Err(format!(
                    "tmux answered, but its pane list could not be read ({line:?})"
                ));
            }
        }
    }
    Ok(panes)
}

/// The running agent processes the agents' registries name (Claude Code's), with their sessions
/// and panes.
fn registry(roots: &Roots) -> Vec<RegistryFile> {
    crate::agents::records::registry_entries(roots)
        .into_iter()
        .map(|(_, r)| r)
        .filter(|r| pid_alive(r.pid, r.proc_start.as_deref()))
        .collect()
}

/// The pane id in a registry's `tmux` value: `cc:@0.%3` → `%3`.
fn pane_of(value: &str) -> &str {
    match value.rsplit_once('.') {
        Some((_, pane)) if pane.starts_with('%') => pane,
        _ => value,
    }
}

/// The agent session whose process `pane` runs, if any: same pid, alive with the registry's start
/// time, and the registry's pane (when it names one) is this pane.
fn agent_of<'r>(pane: &Pane, registry: &'r [RegistryFile]) -> Option<&'r RegistryFile> {
    registry.iter().find(|r| {
        r.pid == pane.pid
            && r.tmux
                .as_deref()
                .filter(|t| !t.is_empty())
                .is_none_or(|t| pane_of(t) == pane.id)
    })
}

/// The panes whose current folder is inside `worktree`; an error when tmux's answer could not be
/// had or read (the caller refuses rather than guess).
pub(crate) fn panes_in(
    roots: &Roots,
    worktree: &Path,
    socket: Option<&Path>,
) -> Result<PanesIn, String> {
    let root = canonical(worktree);
    let panes: Vec<Pane> = all_panes(socket)?
        .into_iter()
        .filter(|p| canonical(&p.path).starts_with(&root))
        .collect();
    if panes.is_empty() {
        return Ok(PanesIn::default());
    }
    let registry = registry(roots);
    let mut out = PanesIn::default();
    for p in panes {
        let agent = agent_of(&p, &registry);
        let line = PaneLine {
            pane: p.id.clone(),
            session: p.session.clone(),
            command: p.command.clone(),
            pid: p.pid,
            agent_session_id: agent.map(|r| r.session_id.clone()),
        };
        match agent {
            Some(r) => out.agents.push(AgentPane {
                line,
                proc_start: r.proc_start.clone(),
            }),
            None => out.person.push(line),
        }
    }
    Ok(out)
}

/// Ends an agent's own pane, only if it is still that agent's: the pane still runs the same
/// process, which is still the one the registry named (same start time). Returns whether it was
/// ended. Only the pane: never its tmux session.
pub(crate) fn end_agent_pane(agent: &AgentPane, socket: Option<&Path>) -> bool {
    let still = all_panes(socket)
        .unwrap_or_default()
        .iter()
        .any(|p| p.id == agent.line.pane && p.pid == agent.line.pid)
        && pid_alive(agent.line.pid, agent.proc_start.as_deref());
    if !still {
        return false;
    }
    let ended = tmux(socket, "kill-pane")
        .pane(&agent.line.pane)
        .run()
        .is_ok_and(|out| out.status.success());
    if ended {
        // The folder is deleted only once the agent is gone, so it does not write into it
        // meanwhile; an agent that takes longer is still checked against what was shown.
        let deadline = Instant::now() + EXIT_WAIT;
        while pid_alive(agent.line.pid, agent.proc_start.as_deref()) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    ended
}

/// How long a removal waits for an ended agent to exit.
const EXIT_WAIT: Duration = Duration::from_secs(10);
