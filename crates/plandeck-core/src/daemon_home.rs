//! Where this user's Plandeck server (`plandeck serve --daemon`, [`crate::serve::daemon`]) keeps
//! its socket, lock and log, whether it runs, and how it is started: what the phone's settings,
//! the window and the CLI need of it without standing on the server itself.

use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::config::Roots;

/// The private folder of the daemon's socket, lock and log.
pub fn dir(roots: &Roots) -> PathBuf {
    roots.data.join("serve")
}

/// The daemon's socket (one per version: an updated `plandeck` starts its own daemon, the old
/// one leaves once idle).
pub fn socket_path(roots: &Roots) -> PathBuf {
    dir(roots).join(format!("plandeck-{}.sock", env!("CARGO_PKG_VERSION")))
}

/// The daemon's lock, naming its pid.
pub fn lock_path(roots: &Roots) -> PathBuf {
    dir(roots).join(format!("plandeck-{}.lock", env!("CARGO_PKG_VERSION")))
}

/// The daemon's log.
pub fn log_path(roots: &Roots) -> PathBuf {
    dir(roots).join("plandeck.log")
}

fn denied(why: String) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::PermissionDenied, why)
}

/// Makes `dir` (and its parents) and checks that it is private: owned by `uid`, mode 0700 (a
/// looser mode of our own folder is tightened; a folder of anyone else is refused).
pub fn private_dir(dir: &Path, uid: u32) -> std::io::Result<()> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    let meta = std::fs::symlink_metadata(dir)?;
    if !meta.is_dir() {
        return Err(denied(format!("{} is not a folder", dir.display())));
    }
    if meta.uid() != uid {
        return Err(denied(format!(
            "{} belongs to uid {}, not to this user (uid {uid}): refused",
            dir.display(),
            meta.uid()
        )));
    }
    if meta.mode() & 0o077 != 0 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// Opens `path` with `options`, made (or left) readable and writable by this user only: 0600.
pub fn private_file(
    options: &mut std::fs::OpenOptions,
    path: &Path,
) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = options.mode(0o600).open(path)?;
    // One made before (by an older version) may be looser.
    if file.metadata()?.mode() & 0o077 != 0 {
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    Ok(file)
}

/// This process's effective uid (the one the server's folder and peers are checked against).
pub fn own_uid() -> u32 {
    rustix::process::geteuid().as_raw()
}

/// Whether this version's daemon runs for `roots` (its lock is held), asked without connecting
/// (a connection would count as a client, and hold the gate presence for a moment).
pub fn is_running(roots: &Roots) -> bool {
    let Ok(file) = std::fs::File::open(lock_path(roots)) else {
        return false;
    };
    match rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockShared) {
        Ok(()) => {
            let _ = rustix::fs::flock(&file, rustix::fs::FlockOperation::Unlock);
            false
        }
        Err(_) => true,
    }
}

/// What [`launch`] runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Launch {
    /// `serve --daemon-launch`: a launcher that starts the server and exits (waited for).
    #[default]
    Launcher,
    /// `serve --daemon`: the server itself (not waited for: it outlives the launcher and belongs
    /// to no ssh session).
    Server,
}

/// How [`launch`] starts the server: which process, and the server's options (`None`: the
/// server's own default).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LaunchOptions {
    pub how: Launch,
    /// How long the server stays with no client before it exits (`--idle-exit`).
    pub idle_exit: Option<Duration>,
    /// How many events it keeps for a client that resumes (`--event-buffer`).
    pub event_buffer: Option<usize>,
}

/// Starts this user's server for `roots`, detached: `exe` (this program: the window's binary
/// runs the command line too) as `--<agent>-root … --data-dir … --config-dir … serve
/// --daemon-launch` (or `--daemon`, [`LaunchOptions::how`]) with the options given, its
/// output appended to the server's log (a log over 1 MiB starts again, the previous one kept
/// beside it as `plandeck.log.1`). Returns once the launcher ended, or once the server started.
pub fn launch(roots: &Roots, exe: &Path, options: &LaunchOptions) -> std::io::Result<()> {
    private_dir(&dir(roots), own_uid())?;
    let log_path = log_path(roots);
    if std::fs::metadata(&log_path).is_ok_and(|m| m.len() > 1 << 20) {
        let _ = std::fs::rename(&log_path, log_path.with_extension("log.1"));
    }
    let log = private_file(
        std::fs::OpenOptions::new().create(true).append(true),
        &log_path,
    )?;
    let mut cmd = std::process::Command::new(exe);
    for (id, folder) in &roots.agents {
        cmd.arg(format!("--{id}-root")).arg(folder);
    }
    let how = match options.how {
        Launch::Launcher => "--daemon-launch",
        Launch::Server => "--daemon",
    };
    cmd.arg("--data-dir")
        .arg(&roots.data)
        .arg("--config-dir")
        .arg(&roots.config)
        .args(["serve", how]);
    if let Some(idle) = options.idle_exit {
        cmd.arg("--idle-exit").arg(idle.as_secs().to_string());
    }
    if let Some(events) = options.event_buffer {
        cmd.arg("--event-buffer").arg(events.to_string());
    }
    cmd.stdin(std::process::Stdio::null())
        .stdout(log.try_clone()?)
        .stderr(log);
    let mut child = cmd.spawn()?;
    if options.how == Launch::Launcher {
        let status = child.wait()?;
        if !status.success() {
            return Err(std::io::Error::other(format!(
                "the launcher ended with {status}: see {}",
                log_path.display()
            )));
        }
    }
    Ok(())
}

/// How long a relay waits for a daemon it launched to answer.
pub const START_PATIENCE: Duration = Duration::from_secs(30);

/// The longest path a Unix socket takes (`sun_path` is 108 bytes with its NUL).
pub const MAX_SOCKET_PATH: usize = 107;

pub fn check_socket_path(path: &Path) -> std::io::Result<()> {
    if path.as_os_str().len() > MAX_SOCKET_PATH {
        return Err(std::io::Error::other(format!(
            "the server's socket {} is longer than a Unix socket path may be ({MAX_SOCKET_PATH} \
             bytes): use a shorter --data-dir, or `plandeck serve --stdio --no-daemon`",
            path.display()
        )));
    }
    Ok(())
}

pub fn wait_for_socket(socket: &Path) -> std::io::Result<UnixStream> {
    let deadline = Instant::now() + START_PATIENCE;
    loop {
        match UnixStream::connect(socket) {
            Ok(s) => return Ok(s),
            Err(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(25)),
            Err(e) => {
                return Err(std::io::Error::other(format!(
                    "the Plandeck server on this machine did not start within {} s ({e}): see \
                     its log",
                    START_PATIENCE.as_secs()
                )))
            }
        }
    }
}

/// Makes sure this user's server runs for `roots` (the window's New session of an ACP agent):
/// when it does not run (its lock is free: asked without connecting, which would count as a
/// client), `exe … serve --daemon-launch` starts it detached ([`launch`]), and its socket is
/// waited for.
pub fn ensure_running(roots: &Roots, exe: &Path) -> std::io::Result<()> {
    let socket = socket_path(roots);
    check_socket_path(&socket)?;
    if !is_running(roots) {
        launch(roots, exe, &LaunchOptions::default())?;
    }
    wait_for_socket(&socket).map(|_| ())
}
