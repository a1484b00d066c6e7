//! Running an external program (tmux) with a bound on how long it may take.
//!
//! A hung `tmux` (a server stuck on a dead client, a socket on a frozen filesystem) must not hang
//! the window or the CLI: every call has a timeout, after which the program's whole process group
//! is killed and reaped.

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// How long one tmux call may take. tmux answers in milliseconds; a second is already trouble.
pub const EXTERNAL_TIMEOUT: Duration = Duration::from_secs(5);

/// Why a bounded run failed.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("cannot run {program}: {source}")]
    Spawn {
        program: String,
        source: std::io::Error,
    },
    #[error("{program} did not answer within {}s and was stopped", .timeout.as_secs_f32())]
    Timeout { program: String, timeout: Duration },
    #[error("waiting for {program} failed: {source}")]
    Wait {
        program: String,
        source: std::io::Error,
    },
    /// Not run at all: an argument was not what it claimed to be (see `terminal::tmux`).
    #[error("{program} was not run: {why}")]
    Refused { program: String, why: String },
}

/// Runs `cmd` to completion, feeding it `stdin`, for at most `timeout`; on timeout its process
/// group is killed (SIGKILL) and reaped. Output beyond 16 MiB per stream is dropped.
pub fn run_bounded(
    mut cmd: Command,
    stdin: Option<&[u8]>,
    timeout: Duration,
) -> Result<Output, RunError> {
    let program = cmd.get_program().to_string_lossy().into_owned();
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    // Its own process group, so a timeout also ends whatever it started.
    .process_group(0);
    let mut child = cmd.spawn().map_err(|source| RunError::Spawn {
        program: program.clone(),
        source,
    })?;
    let pid = child.id();
    let input = stdin.map(<[u8]>::to_vec);
    let writer = child.stdin.take().map(|mut pipe| {
        std::thread::spawn(move || {
            if let Some(bytes) = input {
                let _ = pipe.write_all(&bytes);
            }
        })
    });
    let reader = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(p) = pipe {
                let _ = p.take(16 * 1024 * 1024).read_to_end(&mut buf);
            }
            buf
        })
    };
    let out_reader = reader(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err_reader = reader(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let start = Instant::now();
    let mut pause = Duration::from_millis(1);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() >= timeout => {
                kill_group(pid);
                let _ = child.kill();
                let _ = child.wait();
                // The readers end once every holder of the pipes is gone (the group was killed).
                drop(writer);
                return Err(RunError::Timeout { program, timeout });
            }
            Ok(None) => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(20));
            }
            Err(source) => {
                kill_group(pid);
                let _ = child.kill();
                let _ = child.wait();
                return Err(RunError::Wait { program, source });
            }
        }
    };
    if let Some(w) = writer {
        let _ = w.join();
    }
    // A program that exited may have left a child holding the pipes: end the group so the
    // readers below cannot wait on it forever.
    kill_group(pid);
    let stdout = out_reader.join().unwrap_or_default();
    let stderr = err_reader.join().unwrap_or_default();
    Ok(Output {
        status,
        stdout,
        stderr,
    })
}

fn kill_group(pid: u32) {
    // The process group we created for this child (process_group(0) makes its pid the group id).
    if let Some(group) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_that_hangs_is_stopped_with_its_children() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("child-pid");
        let mut cmd = Command::new("sh");
        // The shell starts a sleeping child and waits for it: both must go.
        cmd.arg("-c")
            .arg(format!("sleep 1000 & echo $! > {}; wait", marker.display()));
        let err = run_bounded(cmd, None, Duration::from_millis(300)).unwrap_err();
        assert!(matches!(err, RunError::Timeout { .. }), "{err}");
        assert!(err.to_string().contains("did not answer"), "{err}");
        let child: u32 = std::fs::read_to_string(&marker)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        let gone = (0..400).any(|_| {
            let stat = std::fs::read_to_string(format!("/proc/{child}/stat")).unwrap_or_default();
            let dead = stat.is_empty()
                || stat
                    .rsplit_once(')')
                    .is_some_and(|(_, r)| r.trim_start().starts_with('Z'));
            if !dead {
                std::thread::sleep(Duration::from_millis(25));
            }
            dead
        });
        assert!(gone, "the hung program's child {child} was left running");
    }

    #[test]
    fn output_and_stdin_pass_through() {
        let out = run_bounded(
            Command::new("cat"),
            Some(b"- line one\nline two"),
            Duration::from_secs(20),
        )
        .unwrap();
        assert!(out.status.success());
        assert_eq!(out.stdout, b"- line one\nline two");
        let err =
            run_bounded(Command::new("/nonexistent/program"), None, EXTERNAL_TIMEOUT).unwrap_err();
        assert!(matches!(err, RunError::Spawn { .. }), "{err}");
    }
}
