//! Where this user's Plandeck server (`plandeck serve --daemon`, [`crate::serve::daemon`]) keeps
//! its socket, lock and log, whether it runs, and how it is started: what the phone's settings,
//! the window and the CLI need of it without standing on the server itself.

use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

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

/// Starts this user's server for `roots`, detached: `exe` (this program: the window's binary
/// runs the command line too) as `--<agent>-root … --data-dir … --config-dir … serve
/// --daemon-launch`, a launcher that starts the server and exits, its output appended to the
/// server's log. Returns once the launcher ended.
pub fn launch(roots: &Roots, exe: &Path) -> std::io::Result<()> {
    private_dir(&dir(roots), own_uid())?;
    let log = private_file(
        std::fs::OpenOptions::new().create(true).append(true),
        &log_path(roots),
    )?;
    let mut cmd = std::process::Command::new(exe);
    for (id, folder) in &roots.agents {
        cmd.arg(format!("--{id}-root")).arg(folder);
    }
    cmd.arg("--data-dir")
        .arg(&roots.data)
        .arg("--config-dir")
        .arg(&roots.config)
        .args(["serve", "--daemon-launch"])
        .stdin(std::process::Stdio::null())
        .stdout(log.try_clone()?)
        .stderr(log);
    let status = cmd.status()?;
    if !status.success() {
        return Err(std::io::Error::other(format!(
            "the launcher ended with {status}: see {}",
            log_path(roots).display()
        )));
    }
    Ok(())
}
