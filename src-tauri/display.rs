//! The window needs a display. Without one (an SSH session, a container, a service), GTK's start
//! used to panic inside Tauri with a backtrace and exit 101; instead the shell says there is no
//! display and what to run instead, and `main` exits 1.

use std::ffi::OsString;

use plandeck_core::ipc::{ErrorKind, IpcError};

/// What to do without a display: the command line needs none.
const INSTEAD: &str = "The command line works without one: `plandeck --help` (for example \
`plandeck plans list`, `plandeck sessions list`; `plandeck-cli` is the same). To open the \
window, start it from a desktop session, or set DISPLAY (X11) or WAYLAND_DISPLAY to a running one.";

/// Refuses when the environment names no display at all (neither `DISPLAY` nor
/// `WAYLAND_DISPLAY` set and non-empty). `var` reads the environment.
pub fn named(var: impl Fn(&str) -> Option<OsString>) -> Result<(), IpcError> {
    let set = |name: &str| var(name).is_some_and(|v| !v.is_empty());
    if set("DISPLAY") || set("WAYLAND_DISPLAY") {
        return Ok(());
    }
    Err(IpcError::new(
        ErrorKind::Refused,
        format!(
            "no display: the window needs a graphical session, and neither DISPLAY nor \
             WAYLAND_DISPLAY is set. {INSTEAD}"
        ),
    ))
}

/// Checks that a display is named and that GTK can open it, before Tauri starts (which panics
/// when it cannot).
pub fn open() -> Result<(), IpcError> {
    named(|n| std::env::var_os(n))?;
    #[cfg(target_os = "linux")]
    if let Err(e) = gtk::init() {
        let which = ["WAYLAND_DISPLAY", "DISPLAY"]
            .iter()
            .filter_map(|n| {
                std::env::var(n)
                    .ok()
                    .filter(|v| !v.is_empty())
                    .map(|v| format!("{n}={v}"))
            })
            .collect::<Vec<_>>()
            .join(", ");
        return Err(IpcError::new(
            ErrorKind::Refused,
            format!("cannot open the display ({which}): {e}. {INSTEAD}"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn no_display_named_is_refused_with_what_to_run_instead() {
        for vars in [&[][..], &[("DISPLAY", ""), ("WAYLAND_DISPLAY", "")][..]] {
            let e = named(env(vars)).unwrap_err();
            assert_eq!(e.kind, ErrorKind::Refused);
            assert!(e.message.starts_with("no display"), "{}", e.message);
            assert!(e.message.contains("`plandeck --help`"), "{}", e.message);
            assert!(e.message.contains("DISPLAY"), "{}", e.message);
        }
    }

    #[test]
    fn either_display_is_enough() {
        assert!(named(env(&[("DISPLAY", ":0")])).is_ok());
        assert!(named(env(&[("WAYLAND_DISPLAY", "wayland-0")])).is_ok());
    }
}
