//! Typing into a live agent's terminal (its tmux pane), safely. docs/architecture.md §7, trust rules: text typed into a
//! pane is literal, free of control characters, and typed only after checking that the agent is
//! alive and the pane is its pane.
//!
//! - [`run_bounded`]: every external call (tmux) runs with a timeout and is killed after it.
//! - [`clean_text`]: the person's text without anything a terminal would take as a key.
//! - [`Target`] names a pane and the agent process expected in it (pid and start time, so a
//!   reused pid is not mistaken for the agent). [`Target::verify`] refuses, with the reason, when
//!   the agent is gone or replaced, the pane is gone, the pane's terminal is not the agent's, or
//!   another program (a shell) is in front of the agent.
//! - [`Target::send`] verifies, then types one [`Key`]: a choice digit, Enter, or text. Text is
//!   read from tmux's stdin and pasted, never in argv; text with line breaks is a bracketed paste
//!   (`paste-buffer -p -r`), which Claude Code 2.1.328 and Gemini CLI 0.61.0 both take as text:
//!   every line reaches the input box, none submits it.
//! - [`tmux`]: the one way to speak to tmux (every tmux call is built there).
//!
//! The gate answers approval cards with it; anything else that must type into an agent (a
//! verification report) uses the same calls.

mod clean;
mod run;
pub mod tmux;

use std::time::Duration;

pub use clean::{clean_text, needs_truncation, MAX_TYPED_CHARS};
pub use run::{run_bounded, RunError, EXTERNAL_TIMEOUT};
pub use tmux::{NamedKey, Paste, Tmux};

use crate::process::{is_zombie, stat_fields, stat_number};
pub use crate::process::{parent_of, start_time, ProcessId};

/// Whether `id` still runs (not a zombie) and is the same process (same start time when known).
pub fn alive(id: &ProcessId) -> Result<(), TerminalError> {
    let fields = stat_fields(id.pid).ok_or(TerminalError::AgentGone { pid: id.pid })?;
    if is_zombie(&fields) {
        return Err(TerminalError::AgentGone { pid: id.pid });
    }
    if let Some(recorded) = id.start_time {
        let now: Option<u64> = fields.get(22 - 3).and_then(|s| s.parse().ok());
        if now != Some(recorded) {
            return Err(TerminalError::AgentReplaced { pid: id.pid });
        }
    }
    Ok(())
}

/// The terminal on `pid`'s stdin (`/dev/pts/3`), if it is a terminal.
pub fn terminal_of(pid: u32) -> Option<String> {
    let tty = std::fs::read_link(format!("/proc/{pid}/fd/0")).ok()?;
    let tty = tty.to_str()?;
    (tty.starts_with("/dev/pts/") || tty.starts_with("/dev/tty")).then(|| tty.to_owned())
}

/// Whether `pid` is in the foreground process group of its terminal (nothing else, such as a
/// shell it was suspended to, reads the keys).
fn in_foreground(pid: u32) -> bool {
    matches!((stat_number(pid, 5), stat_number(pid, 8)), (Some(pgrp), Some(tpgid)) if pgrp == tpgid)
}

/// The running processes (not zombies) in process group `pgrp` on terminal `tty_nr`: every one of
/// them reads the keys typed into that terminal.
fn foreground_group(pgrp: u64, tty_nr: u64) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            stat_fields(*pid).is_some_and(|f| {
                !matches!(f.first().map(String::as_str), Some("Z" | "X"))
                    && f.get(5 - 3).and_then(|s| s.parse::<u64>().ok()) == Some(pgrp)
                    && f.get(7 - 3).and_then(|s| s.parse::<u64>().ok()) == Some(tty_nr)
            })
        })
        .collect()
}

/// The agent's ancestors up to and including `top` (its launchers: a shell running it, Gemini
/// CLI's first process that relaunched itself), when `top` is among them.
fn ancestors_up_to(pid: u32, top: u32) -> Option<Vec<u32>> {
    let mut chain = Vec::new();
    let mut p = pid;
    for _ in 0..64 {
        if p == top {
            return Some(chain);
        }
        match parent_of(p) {
            Some(parent) if parent > 1 && parent != p => {
                chain.push(parent);
                p = parent;
            }
            _ => return None,
        }
    }
    None
}

/// Checks that the keys typed into the agent's terminal reach only the agent: every process in
/// the terminal's foreground group is the agent, one of its descendants (its hooks, its tools), or
/// one of its launchers between it and the pane's first process. A shell that shares the group
/// (the agent's launcher died, the agent lived on as an orphan, and the pane's shell took the
/// terminal back in the same group) would get the keys too.
fn only_the_agent_reads(agent: u32, pane_pid: u32) -> Result<(), TerminalError> {
    let fields = stat_fields(agent).ok_or(TerminalError::AgentGone { pid: agent })?;
    let number = |field: usize| fields.get(field - 3).and_then(|s| s.parse::<u64>().ok());
    let (Some(pgrp), Some(tty_nr)) = (number(5), number(7)) else {
        return Err(TerminalError::AgentNotInForeground { pid: agent });
    };
    let launchers = ancestors_up_to(agent, pane_pid).ok_or(TerminalError::AgentOrphaned {
        pid: agent,
        pane_pid,
    })?;
    for pid in foreground_group(pgrp, tty_nr) {
        if pid == agent || launchers.contains(&pid) {
            continue;
        }
        if is_descendant(pid, agent) {
            continue;
        }
        let comm = std::fs::read_to_string(format!("/proc/{pid}/comm"))
            .map(|c| c.trim().to_owned())
            .unwrap_or_default();
        if stat_fields(pid).is_none() {
            continue; // ended while we looked
        }
        return Err(TerminalError::SharedTerminal {
            pid: agent,
            other: pid,
            comm,
        });
    }
    Ok(())
}

fn is_descendant(pid: u32, ancestor: u32) -> bool {
    let mut p = pid;
    for _ in 0..64 {
        if p == ancestor {
            return true;
        }
        match parent_of(p) {
            Some(parent) if parent > 1 && parent != p => p = parent,
            _ => return false,
        }
    }
    false
}

const SHELLS: &[&str] = &["sh", "dash", "bash", "zsh", "fish", "ksh", "mksh"];

/// The agent CLI that started a hook whose parent is `ppid`. Claude Code 2.1.328 runs hooks
/// through `/bin/sh -c`, so the parent may be that shell: shells are skipped (a few levels).
pub fn agent_of_hook(ppid: u32) -> Option<u32> {
    let mut pid = ppid;
    for _ in 0..4 {
        if pid <= 1 {
            return None;
        }
        let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
        if !SHELLS.contains(&comm.trim()) {
            return Some(pid);
        }
        pid = parent_of(pid)?;
    }
    None
}

/// Why nothing (more) was typed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TerminalError {
    #[error("the agent's process is not known, so its pane cannot be checked; nothing was typed")]
    AgentUnknown,
    #[error("the agent (pid {pid}) is gone; nothing was typed")]
    AgentGone { pid: u32 },
    #[error("pid {pid} is now another process, not the agent; nothing was typed")]
    AgentReplaced { pid: u32 },
    #[error("tmux pane {pane} is gone ({detail}); nothing was typed")]
    PaneGone { pane: String, detail: String },
    #[error("tmux pane {pane} is not the agent's (the pane's terminal is {pane_tty}, the agent's is {agent_tty}); nothing was typed")]
    NotAgentsPane {
        pane: String,
        pane_tty: String,
        agent_tty: String,
    },
    #[error("another program (a shell?) is in front of the agent (pid {pid}) in its terminal; nothing was typed")]
    AgentNotInForeground { pid: u32 },
    #[error("the agent (pid {pid}) no longer runs under its pane's process (pid {pane_pid}): the program that started it exited, and whatever runs in the pane now may read the keys; nothing was typed")]
    AgentOrphaned { pid: u32, pane_pid: u32 },
    #[error("{comm} (pid {other}) reads the agent's terminal beside the agent (pid {pid}), so typed keys could reach it; nothing was typed")]
    SharedTerminal { pid: u32, other: u32, comm: String },
    #[error("tmux: {message}")]
    Tmux { message: String },
}

/// One key to type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Key {
    /// A card's choice, `1`–`9`.
    Choice(u8),
    Enter,
    /// Escape: the agents' own interrupt key (Claude Code, Gemini CLI, Codex CLI).
    Escape,
    /// Shift+Tab: cycles Codex CLI's collaboration modes (Plan mode).
    BackTab,
    /// Text for an input box; cleaned again with [`clean_text`] before it is typed.
    Text(String),
}

/// A tmux pane and the agent process that must be in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The tmux server's socket (`-S`), the default server when none.
    pub socket: Option<String>,
    /// The pane id (`%3`).
    pub pane: String,
    /// The agent; `None` means unknown, and every check refuses.
    pub agent: Option<ProcessId>,
}

impl Target {
    /// What the pane shows, with `history` lines of scrollback above the screen.
    pub fn capture(&self, history: u32) -> Result<String, TerminalError> {
        let mut t = Tmux::on(self.socket.as_deref(), "capture-pane")
            .flag("-p")
            .flag("-J")
            .pane(&self.pane);
        if history > 0 {
            t = t.number("-S", -i64::from(history));
        }
        t.output().map_err(|e| self.pane_gone(e))
    }

    /// The visible screen with its styles (`capture-pane -e`: SGR sequences kept), for telling
    /// a dim placeholder from typed text.
    pub fn capture_styled(&self) -> Result<String, TerminalError> {
        Tmux::on(self.socket.as_deref(), "capture-pane")
            .flag("-p")
            .flag("-e")
            .pane(&self.pane)
            .output()
            .map_err(|e| self.pane_gone(e))
    }

    fn pane_gone(&self, e: TerminalError) -> TerminalError {
        match e {
            TerminalError::Tmux { message } if !message.contains("did not answer") => {
                TerminalError::PaneGone {
                    pane: self.pane.clone(),
                    detail: message,
                }
            }
            other => other,
        }
    }

    /// Checks, right before typing, that the agent runs, is the process recorded (same start
    /// time), that the pane is its terminal (or holds it among its processes), and that nothing
    /// else is in front of it.
    pub fn verify(&self) -> Result<(), TerminalError> {
        let agent = self.agent.ok_or(TerminalError::AgentUnknown)?;
        alive(&agent)?;
        let info = Tmux::on(self.socket.as_deref(), "display-message")
            .flag("-p")
            .pane(&self.pane)
            .format("#{pane_id}\t#{pane_pid}\t#{pane_tty}\t#{pane_dead}")
            .output()
            .map_err(|e| self.pane_gone(e))?;
        let mut parts = info.trim_end_matches('\n').split('\t');
        let (id, pane_pid, pane_tty, dead) = (
            parts.next().unwrap_or(""),
            parts.next().and_then(|p| p.parse::<u32>().ok()),
            parts.next().unwrap_or("").to_owned(),
            parts.next().unwrap_or(""),
        );
        if id != self.pane || dead == "1" {
            return Err(TerminalError::PaneGone {
                pane: self.pane.clone(),
                detail: if dead == "1" {
                    "its program exited".to_owned()
                } else {
                    "tmux names no such pane".to_owned()
                },
            });
        }
        let agent_tty = terminal_of(agent.pid);
        let same_tty = agent_tty.as_deref() == Some(pane_tty.as_str()) && !pane_tty.is_empty();
        let in_tree = pane_pid.is_some_and(|p| is_descendant(agent.pid, p));
        if !same_tty && !in_tree {
            return Err(TerminalError::NotAgentsPane {
                pane: self.pane.clone(),
                pane_tty,
                agent_tty: agent_tty.unwrap_or_else(|| "not a terminal".to_owned()),
            });
        }
        if !in_foreground(agent.pid) {
            return Err(TerminalError::AgentNotInForeground { pid: agent.pid });
        }
        let Some(pane_pid) = pane_pid else {
            return Err(TerminalError::Tmux {
                message: format!("tmux did not name the process of pane {}", self.pane),
            });
        };
        only_the_agent_reads(agent.pid, pane_pid)?;
        // Checked again last: the agent may have ended while the pane was looked at.
        alive(&agent)
    }

    /// Verifies the target, then types `key`. Text never goes in a process's argv, and reaches
    /// the agent byte for byte (after [`clean_text`]): it is read from tmux's stdin and pasted
    /// ([`tmux::paste`]); one-line text as if typed, text with line breaks as one bracketed paste,
    /// which Claude Code 2.1.328 and Gemini CLI 0.61.0 both take as text (every line reaches the
    /// input box, none submits it).
    pub fn send(&self, key: &Key) -> Result<(), TerminalError> {
        self.verify()?;
        let socket = self.socket.as_deref();
        let pane = self.pane.as_str();
        match key {
            Key::Choice(n @ 1..=9) => tmux::press(socket, pane, NamedKey::Digit(*n)),
            Key::Choice(n) => Err(TerminalError::Tmux {
                message: format!("{n} is not a card choice"),
            }),
            Key::Enter => tmux::press(socket, pane, NamedKey::Enter),
            Key::Escape => tmux::press(socket, pane, NamedKey::Escape),
            Key::BackTab => tmux::press(socket, pane, NamedKey::BackTab),
            Key::Text(text) => {
                let text = clean_text(text, MAX_TYPED_CHARS);
                let how = if text.contains('\n') {
                    Paste::Bracketed
                } else {
                    Paste::Raw
                };
                tmux::paste(socket, pane, text.as_bytes(), how)
            }
        }
    }
}

/// tmux's version as `tmux -V` prints it (`tmux 3.3a`, `3.3a`, `tmux next-3.6`) → (3, 3);
/// `master` → none (a build from source: taken as new enough by whoever asks).
pub fn tmux_version(text: &str) -> Option<(u32, u32)> {
    let v = text
        .trim()
        .trim_start_matches("tmux ")
        .trim_start_matches("next-");
    let (major, rest) = v.split_once('.')?;
    let minor: String = rest.chars().take_while(char::is_ascii_digit).collect();
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// The tmux socket from `$TMUX` (`/tmp/tmux-1000/default,1234,0`).
pub fn socket_from_env(tmux_env: Option<&str>) -> Option<String> {
    let socket = tmux_env?.split(',').next()?.trim();
    (!socket.is_empty()).then(|| socket.to_owned())
}

/// The tmux server of process `pid`: the socket in its `$TMUX`.
pub fn tmux_socket_of(pid: u32) -> Option<String> {
    let environ = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
    let tmux = environ
        .split(|b| *b == 0)
        .find_map(|v| v.strip_prefix(b"TMUX="))?;
    socket_from_env(Some(&String::from_utf8_lossy(tmux)))
}

/// A pause between keys that must not be read as one burst.
pub const KEY_GAP: Duration = Duration::from_millis(100);

#[cfg(test)]
mod tests;
