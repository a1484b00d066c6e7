//! Starting the window from `plandeck`: the window is its own executable, `plandeck-window`,
//! installed beside the command line (the package puts both in /usr/bin). It is found only there,
//! and only when nobody but its owner can change it ([`plandeck_core::shell::trusted_sibling`]).

use std::ffi::OsString;
use std::os::unix::process::CommandExt;

use plandeck_core::ipc::{ErrorKind, IpcError};

/// The window's executable name.
pub const WINDOW: &str = "plandeck-window";

/// Replaces this process with the window, given `args` (this process's own, program name first).
/// Returns only when it could not: the error says why and what to run instead.
pub fn become_window(args: &[OsString]) -> IpcError {
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => {
            return IpcError::new(
                ErrorKind::Io,
                format!("cannot tell where this program is, to start the window beside it: {e}"),
            )
        }
    };
    let Some(window) = plandeck_core::shell::trusted_sibling(&exe, WINDOW) else {
        return IpcError::new(
            ErrorKind::NotFound,
            format!(
                "the window is not installed beside this command (no {WINDOW} in {} that only its \
                 owner can change). Install the Plandeck package for the window; every subcommand \
                 works without it (`plandeck --help`).",
                exe.parent()
                    .map_or_else(String::new, |d| d.display().to_string())
            ),
        );
    };
    let e = std::process::Command::new(&window)
        .args(args.iter().skip(1))
        .exec();
    IpcError::new(
        ErrorKind::Io,
        format!("cannot start the window {}: {e}", window.display()),
    )
}
