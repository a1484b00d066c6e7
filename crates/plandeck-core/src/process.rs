//! The one process-identity check: a process is named by its pid and its start time (clock ticks
//! after boot, `/proc/<pid>/stat` field 22), so a pid reused by another program is never taken
//! for it; its executable (`/proc/<pid>/exe`) names what runs. Registry entries, gate requests,
//! the app's presence and the agent a key is typed for all go through here.

use std::path::PathBuf;

/// A process, with its start time so that a pid reused by another program is told apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcessId {
    pub pid: u32,
    pub start_time: Option<u64>,
}

impl ProcessId {
    /// The running process `pid` as it is now (its start time read from `/proc`).
    pub fn current(pid: u32) -> Self {
        Self {
            pid,
            start_time: start_time(pid),
        }
    }
}

/// The fields of `/proc/<pid>/stat` after the command name: `[0]` is the state (field 3).
pub(crate) fn stat_fields(pid: u32) -> Option<Vec<String>> {
    if pid == 0 || pid > i32::MAX as u32 {
        return None;
    }
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    Some(rest.split_whitespace().map(str::to_owned).collect())
}

/// Field `field` (1-based, as proc(5) numbers them) of `/proc/<pid>/stat`, as a number.
pub(crate) fn stat_number(pid: u32, field: usize) -> Option<u64> {
    // The slice starts at field 3.
    stat_fields(pid)?.get(field.checked_sub(3)?)?.parse().ok()
}

/// When `pid` started (clock ticks after boot), if it runs.
pub fn start_time(pid: u32) -> Option<u64> {
    stat_number(pid, 22)
}

/// The parent of `pid`.
pub fn parent_of(pid: u32) -> Option<u32> {
    stat_number(pid, 4).and_then(|p| u32::try_from(p).ok())
}

/// Whether `fields` (see [`stat_fields`]) are those of a process that has ended but is not reaped.
pub(crate) fn is_zombie(fields: &[String]) -> bool {
    fields.first().is_some_and(|s| s == "Z" || s == "X")
}

/// Whether the process `pid` runs (a zombie does not) and, when `start` is known, is the process
/// that started then (not a later one that got the same pid).
pub fn is_running(pid: u32, start: Option<u64>) -> bool {
    if pid == 0 || pid > i32::MAX as u32 {
        return false;
    }
    if std::path::Path::new("/proc/self/stat").exists() {
        let Some(fields) = stat_fields(pid) else {
            return false;
        };
        if is_zombie(&fields) {
            return false;
        }
        return match start {
            Some(expected) => {
                fields.get(22 - 3).and_then(|s| s.parse::<u64>().ok()) == Some(expected)
            }
            None => true,
        };
    }
    // No /proc: signal 0 sends nothing; it only checks that the pid exists (EPERM: it does, not
    // ours).
    let Some(pid) = rustix::process::Pid::from_raw(pid as i32) else {
        return false;
    };
    match rustix::process::test_kill_process(pid) {
        Ok(()) => true,
        Err(e) => e == rustix::io::Errno::PERM,
    }
}

/// The executable of `pid`, without the " (deleted)" the kernel adds once the file was replaced
/// (a package upgrade while the program runs).
pub fn exe_of(pid: u32) -> Option<PathBuf> {
    let link = std::fs::read_link(format!("/proc/{pid}/exe")).ok()?;
    let s = link.to_string_lossy();
    Some(match s.strip_suffix(" (deleted)") {
        Some(base) => PathBuf::from(base),
        None => link,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_process_is_its_pid_and_its_start_time() {
        let me = std::process::id();
        let start = super::start_time(me).expect("this process has a start time");
        assert!(super::is_running(me, None));
        assert!(super::is_running(me, Some(start)));
        assert!(
            !super::is_running(me, Some(start + 1)),
            "a reused pid is another process"
        );
        assert!(!super::is_running(0, None));
        assert!(!super::is_running(u32::MAX, None));
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        // Ended, not reaped: a zombie does not run.
        while super::stat_fields(pid).is_some_and(|f| !super::is_zombie(&f)) {
            std::thread::yield_now();
        }
        assert!(!super::is_running(pid, None));
        child.wait().unwrap();
        assert_eq!(super::exe_of(me), std::env::current_exe().ok());
        assert_eq!(super::parent_of(pid), None);
    }
}
