//! Finding the tmux pane an agent runs in: from Claude Code's session registry
//! (`<claude>/sessions/<pid>.json`, field `tmux` = `session:@window.%pane`), else from the agent
//! process's terminal (`/proc/<pid>/fd/0` → `/dev/pts/N` → `tmux list-panes -a`).

use std::path::Path;

/// The tmux socket from `$TMUX` (`/tmp/tmux-1000/default,1234,0`).
pub(crate) fn socket_from_env(tmux_env: Option<&str>) -> Option<String> {
    let socket = tmux_env?.split(',').next()?.trim();
    (!socket.is_empty()).then(|| socket.to_owned())
}

/// The pane id in a registry's `tmux` value: `cc:@0.%3` → `%3`; anything else is used as given.
pub(crate) fn normalize_pane(value: &str) -> String {
    match value.rsplit_once('.') {
        Some((_, pane)) if pane.starts_with('%') => pane.to_owned(),
        _ => value.to_owned(),
    }
}

/// The pane named by the Claude Code session registry for `session_id`.
pub(crate) fn from_registry(claude_root: &Path, session_id: &str) -> Option<String> {
    crate::sessions::claude::registry(claude_root)
        .ok()?
        .into_iter()
        .filter(|(_, r)| r.session_id == session_id)
        .find_map(|(_, r)| r.tmux.filter(|t| !t.is_empty()))
        .map(|t| normalize_pane(&t))
}

/// The pane whose terminal is the stdin of process `pid`.
/// tmux is asked with a bound ([`crate::terminal::EXTERNAL_TIMEOUT`]): a hung server costs the
/// hook seconds, never the agent's whole turn.
pub(crate) fn from_process(pid: u32, socket: Option<&str>) -> Option<String> {
    let tty = crate::terminal::terminal_of(pid)?;
    let out = crate::terminal::tmux_output(
        socket,
        &["list-panes", "-a", "-F", "#{pane_tty} #{pane_id}"],
    )
    .map_err(|e| tracing::warn!("cannot find the agent's tmux pane: {e}"))
    .ok()?;
    out.lines().find_map(|line| {
        let (pane_tty, pane_id) = line.split_once(' ')?;
        (pane_tty == tty).then(|| pane_id.trim().to_owned())
    })
}

/// Whether the agent runs headless: `claude -p`/`--print`, or with a permission prompt handler
/// (`--permission-prompt-tool`, as the Agent SDK starts it). The hook's parent may be a shell
/// (`sh -c "<hook command>"`), so the agent is looked for among a few ancestors. An interactive
/// session outside tmux is not headless: its card still waits for the person.
pub(crate) fn runs_headless(pid: u32) -> bool {
    let mut pid = pid;
    for _ in 0..4 {
        if pid <= 1 {
            return false;
        }
        if let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) {
            let args: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
            if args.iter().any(|a| {
                *a == b"-p" || *a == b"--print" || a.starts_with(b"--permission-prompt-tool")
            }) {
                return true;
            }
        }
        match parent_of(pid) {
            Some(parent) => pid = parent,
            None => return false,
        }
    }
    false
}

/// The parent pid of `pid`, from `/proc/<pid>/stat` (the field after the command's `)`).
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    rest.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_pane_is_found_and_normalized() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("sessions")).unwrap();
        std::fs::write(
            dir.path().join("sessions/1.json"),
            r#"{"pid":1,"sessionId":"a","tmux":"cc:@0.%7"}"#,
        )
        .unwrap();
        std::fs::write(dir.path().join("sessions/2.json"), "{damaged").unwrap();
        assert_eq!(from_registry(dir.path(), "a").as_deref(), Some("%7"));
        assert_eq!(from_registry(dir.path(), "b"), None);
        assert_eq!(
            socket_from_env(Some("/tmp/tmux-0/default,12,0")).as_deref(),
            Some("/tmp/tmux-0/default")
        );
    }
}
