//! The one way Plandeck speaks to tmux (issue 33). Every tmux process the core starts is built
//! here, and nowhere else spells `Command::new("tmux")` (a test reads the sources and fails when a
//! module does). What comes from a person, an agent or another machine is data, never a tmux
//! format, option or command:
//!
//! - **Words of the program** (the command's name, flags, formats, option names and values, key
//!   names) are `&'static str`: written in Plandeck's source, never made at run time.
//! - **Targets** are typed: a pane id is `%` and digits (anything else is refused), a session is
//!   matched exactly (`=name`).
//! - **Folders** (`-c`) and **names** (`-s`) are formats to tmux 3.3a (`-c "x#(touch P)"` runs
//!   `touch P`, `-c wip#S` names the session's name): every `#` goes as `##`, which tmux reads back
//!   as `#`.
//! - **No data argument ends with `;`**: tmux reads an argument ending in `;` as "end of this
//!   command" and drops the `;` (`send-keys -l 'run make;'` types `run make`). A data argument
//!   ending in `;` goes with `\;`, which tmux reads back as `;` (also when a `\` came before it).
//! - **Keys and text are never in argv**, where any local user reads them in `/proc/*/cmdline` (a
//!   password typed into a terminal view): they go on tmux's stdin into a buffer of this call's own
//!   (`load-buffer -b <private> -`) and are pasted from it (`paste-buffer -d`, the buffer deleted
//!   as it is pasted) — [`paste`]. Only named keys from a closed set ([`NamedKey`]) are words.
//!
//! `-u` is always given: tmux writes UTF-8 whatever the locale; under `LANG=C` (or none) it would
//! print `_` for the tab between format fields, and every pane list would parse as empty.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::Path;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU64, Ordering};

use super::{run_bounded, RunError, TerminalError, EXTERNAL_TIMEOUT};

/// `arg` as tmux must be given it so that it reads back `arg`: a final `;` is escaped (`\;`).
fn not_a_separator(mut arg: Vec<u8>) -> Vec<u8> {
    if arg.last() == Some(&b';') {
        let at = arg.len() - 1;
        arg.insert(at, b'\\');
    }
    arg
}

/// `text` as a tmux format that expands to `text` itself: every `#` doubled.
fn format_literal(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() + 4);
    for b in text {
        if *b == b'#' {
            out.push(b'#');
        }
        out.push(*b);
    }
    out
}

/// Whether `pane` is a tmux pane id: `%` and digits.
pub fn is_pane_id(pane: &str) -> bool {
    pane.len() > 1 && pane.starts_with('%') && pane[1..].bytes().all(|b| b.is_ascii_digit())
}

/// A named key, typed with `send-keys` (a word, not text).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NamedKey {
    Enter,
    Escape,
    /// Shift+Tab.
    BackTab,
    /// A card's choice digit, `1`–`9` (anything else is refused).
    Digit(u8),
}

impl NamedKey {
    fn word(self) -> Option<(&'static str, bool)> {
        const DIGITS: [&str; 9] = ["1", "2", "3", "4", "5", "6", "7", "8", "9"];
        match self {
            NamedKey::Enter => Some(("Enter", false)),
            NamedKey::Escape => Some(("Escape", false)),
            NamedKey::BackTab => Some(("BTab", false)),
            NamedKey::Digit(n @ 1..=9) => Some((DIGITS[usize::from(n - 1)], true)),
            NamedKey::Digit(_) => None,
        }
    }
}

/// One tmux command being built: see the module's doc.
#[derive(Debug, Clone)]
#[must_use]
pub struct Tmux {
    socket: Option<String>,
    head: Vec<&'static str>,
    args: Vec<OsString>,
    /// Why the call must not be made (an argument that is not what it claims to be).
    refused: Option<String>,
    /// Outside any tmux Plandeck itself runs in (`TMUX`, `TMUX_PANE` removed).
    outside: bool,
}

impl Tmux {
    /// `tmux <command>` on the server at `socket` (`-S`; the person's default server when none).
    pub fn on(socket: Option<&str>, command: &'static str) -> Tmux {
        Tmux {
            socket: socket.map(str::to_owned),
            head: Vec::new(),
            args: vec![command.into()],
            refused: None,
            outside: false,
        }
    }

    /// `tmux -V`.
    pub fn version(socket: Option<&str>) -> Tmux {
        Tmux {
            socket: socket.map(str::to_owned),
            head: vec!["-V"],
            args: Vec::new(),
            refused: None,
            outside: false,
        }
    }

    /// A read-only control-mode client of `pane`'s session that never resizes it
    /// (`tmux -C attach-session -t <pane> -f ignore-size,read-only`).
    pub fn watch(socket: Option<&str>, pane: &str) -> Tmux {
        let mut t = Tmux::on(socket, "attach-session").pane(pane);
        t.head.push("-C");
        t.flag("-f").word("ignore-size,read-only")
    }

    /// A flag or a word of the program's own (`-p`, `-a`, `remain-on-exit`, `on`, `cat`).
    pub fn flag(mut self, flag: &'static str) -> Tmux {
        self.args.push(flag.into());
        self
    }

    /// Same as [`Tmux::flag`], for a positional word.
    pub fn word(self, word: &'static str) -> Tmux {
        self.flag(word)
    }

    /// A format of the program's own, positional (`display-message -p <format>`).
    pub fn format(self, format: &'static str) -> Tmux {
        self.flag(format)
    }

    /// `-F <format>`.
    pub fn format_flag(self, format: &'static str) -> Tmux {
        self.flag("-F").flag(format)
    }

    fn data(mut self, value: &[u8]) -> Tmux {
        self.args
            .push(OsString::from_vec(not_a_separator(value.to_vec())));
        self
    }

    fn refuse(mut self, why: String) -> Tmux {
        self.refused.get_or_insert(why);
        self
    }

    /// `-t <pane>`: a pane id (`%3`); anything else is refused.
    pub fn pane(self, pane: &str) -> Tmux {
        if !is_pane_id(pane) {
            return self.refuse(format!("{pane:?} is not a tmux pane id"));
        }
        self.flag("-t").data(pane.as_bytes())
    }

    /// `-t =<name>`: the session named exactly `name`.
    pub fn session(self, name: &str) -> Tmux {
        self.flag("-t").data(format!("={name}").as_bytes())
    }

    /// `-t =<name>:`: the current window of the session named exactly `name`.
    pub fn window_of(self, name: &str) -> Tmux {
        self.flag("-t").data(format!("={name}:").as_bytes())
    }

    /// `-c <folder>`: tmux expands it as a format, so every `#` goes doubled.
    pub fn folder(self, folder: &Path) -> Tmux {
        let bytes = format_literal(folder.as_os_str().as_bytes());
        self.flag("-c").data(&bytes)
    }

    /// `<flag> <name>` for a name tmux expands as a format (`new-session -s`): `#` doubled.
    pub fn name(self, flag: &'static str, name: &str) -> Tmux {
        let bytes = format_literal(name.as_bytes());
        self.flag(flag).data(&bytes)
    }

    /// `<flag> <value>` for a value tmux takes as it is (a buffer's name).
    pub fn value(self, flag: &'static str, value: &str) -> Tmux {
        self.flag(flag).data(value.as_bytes())
    }

    /// `<flag> <n>` (`-x 200`, `-S -2000`).
    pub fn number(self, flag: &'static str, n: i64) -> Tmux {
        self.flag(flag).data(n.to_string().as_bytes())
    }

    /// `-- <argv…>`: the program a pane runs, each word as it is (tmux does not expand them; a
    /// final `;` is escaped).
    pub fn program<S: AsRef<OsStr>>(mut self, argv: &[S]) -> Tmux {
        self = self.flag("--");
        for w in argv {
            self = self.data(w.as_ref().as_bytes());
        }
        self
    }

    /// Outside any tmux Plandeck itself runs in: a session started beside the person's, never
    /// nested in the one Plandeck may run in.
    pub fn outside(mut self) -> Tmux {
        self.outside = true;
        self
    }

    /// The argv after `tmux`, as it will be run.
    pub fn argv(&self) -> Vec<OsString> {
        let mut argv: Vec<OsString> = vec!["-u".into()];
        if let Some(s) = &self.socket {
            argv.push("-S".into());
            argv.push(s.into());
        }
        argv.extend(self.head.iter().map(OsString::from));
        argv.extend(self.args.iter().cloned());
        argv
    }

    /// The process, for a caller that holds it (a control client); refused as [`Tmux::run`] is.
    pub fn command(&self) -> Result<Command, RunError> {
        if let Some(why) = &self.refused {
            return Err(RunError::Refused {
                program: "tmux".into(),
                why: why.clone(),
            });
        }
        let mut cmd = Command::new("tmux");
        cmd.args(self.argv());
        if self.outside {
            cmd.env_remove("TMUX").env_remove("TMUX_PANE");
        }
        #[cfg(test)]
        record_argv(&self.argv());
        Ok(cmd)
    }

    /// Runs it with the standard bound, `stdin` fed to it.
    pub fn run_with(&self, stdin: Option<&[u8]>) -> Result<Output, RunError> {
        run_bounded(self.command()?, stdin, EXTERNAL_TIMEOUT)
    }

    /// Runs it with the standard bound.
    pub fn run(&self) -> Result<Output, RunError> {
        self.run_with(None)
    }

    /// Runs it; its stdout as bytes when it succeeded, else tmux's complaint.
    pub fn bytes(&self) -> Result<Vec<u8>, TerminalError> {
        self.bytes_with(None)
    }

    fn bytes_with(&self, stdin: Option<&[u8]>) -> Result<Vec<u8>, TerminalError> {
        let out = self.run_with(stdin).map_err(|e| TerminalError::Tmux {
            message: e.to_string(),
        })?;
        if !out.status.success() {
            return Err(TerminalError::Tmux {
                message: format!(
                    "{} failed: {}",
                    self.args
                        .first()
                        .map_or("tmux".into(), |a| a.to_string_lossy()),
                    String::from_utf8_lossy(&out.stderr).trim()
                ),
            });
        }
        Ok(out.stdout)
    }

    /// Runs it; its stdout when it succeeded, else tmux's complaint.
    pub fn output(&self) -> Result<String, TerminalError> {
        self.bytes()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    }
}

/// Presses a named key in `pane`.
pub fn press(socket: Option<&str>, pane: &str, key: NamedKey) -> Result<(), TerminalError> {
    let Some((word, literal)) = key.word() else {
        return Err(TerminalError::Tmux {
            message: format!("{key:?} is not a key Plandeck presses"),
        });
    };
    let t = Tmux::on(socket, "send-keys").pane(pane);
    let t = if literal { t.flag("-l").flag("--") } else { t };
    t.word(word).output().map(drop)
}

/// Has the tmux server whose process is `server` (its `#{pid}`) collect its programs that
/// exited: a SIGCHLD, which tmux answers with `waitpid` and nothing else, so that a dead pane's
/// `#{pane_dead_status}` becomes known. Only a process named `tmux: server` is signalled.
///
/// tmux before 3.6 built with utempter (Debian's and Ubuntu's 3.3a are) loses a pane's exit when
/// its program ends while tmux writes the pane's end to utmp: `utempter_remove_record` runs its
/// helper with SIGCHLD at its default action, and the signal that comes meanwhile is dropped. The
/// program stays a zombie and the dead pane has no status until another child of the server ends.
/// tmux 3.6 sends itself this same signal after the helper (tmux issue 4559).
pub fn collect_exited(server: &str) {
    let Some(pid) = server
        .trim()
        .parse::<i32>()
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return;
    };
    let is_tmux = std::fs::read_to_string(format!("/proc/{}/comm", pid.as_raw_nonzero()))
        .is_ok_and(|comm| comm.trim_end() == "tmux: server");
    if is_tmux {
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::CHILD);
    }
}

/// How `bytes` reach the pane's program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Paste {
    /// As they are, as if typed (a terminal view's keys, a one-line message).
    Raw,
    /// As a bracketed paste when the program asked for it: line breaks do not submit.
    Bracketed,
}

/// Types `bytes` into `pane` without them ever being in a process's argv: tmux reads them from
/// its stdin into a buffer of this call's own, then pastes that buffer into the pane and deletes
/// it (`-r`: a `\n` stays `\n`). Nothing is typed for no bytes.
pub fn paste(
    socket: Option<&str>,
    pane: &str,
    bytes: &[u8],
    how: Paste,
) -> Result<(), TerminalError> {
    if bytes.is_empty() {
        return Ok(());
    }
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let buffer = format!(
        "plandeck-{}-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default()
    );
    Tmux::on(socket, "load-buffer")
        .value("-b", &buffer)
        .word("-")
        .bytes_with(Some(bytes))?;
    let mut t = Tmux::on(socket, "paste-buffer").flag("-d").flag("-r");
    if how == Paste::Bracketed {
        t = t.flag("-p");
    }
    let pasted = t.value("-b", &buffer).pane(pane).output();
    if pasted.is_err() {
        let _ = Tmux::on(socket, "delete-buffer").value("-b", &buffer).run();
    }
    pasted.map(drop)
}

/// Every argv the builder made in this test process: a test checks typed text is in none.
#[cfg(test)]
static ARGV_LOG: std::sync::Mutex<Vec<Vec<OsString>>> = std::sync::Mutex::new(Vec::new());

#[cfg(test)]
fn record_argv(argv: &[OsString]) {
    crate::sync::lock(&ARGV_LOG).push(argv.to_vec());
}

/// Whether any argv the builder made so far holds `needle`.
#[cfg(test)]
pub(crate) fn argv_ever_held(needle: &[u8]) -> bool {
    crate::sync::lock(&ARGV_LOG).iter().flatten().any(|a| {
        a.as_bytes()
            .windows(needle.len().max(1))
            .any(|w| w == needle)
    })
}

/// Whether any argv the builder made held `needle` as `send-keys -H` spells bytes: one hex
/// argument per byte, in a row.
#[cfg(test)]
pub(crate) fn argv_ever_held_hex(needle: &[u8]) -> bool {
    let hex: Vec<OsString> = needle.iter().map(|b| format!("{b:02x}").into()).collect();
    crate::sync::lock(&ARGV_LOG)
        .iter()
        .any(|argv| argv.windows(hex.len().max(1)).any(|w| w == hex.as_slice()))
}

/// The cases of one property test against a real tmux: `PLANDECK_TMUX_CASES / share`
/// (`PLANDECK_TMUX_CASES`: 512 unless set, `scripts/test.sh` sets 1,500): the typing properties
/// take a half each, start and resume a quarter.
#[cfg(test)]
pub(crate) fn prop_cases(share: u32) -> u32 {
    let total: u32 = std::env::var("PLANDECK_TMUX_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(512);
    (total / share).max(8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_never_ends_a_command_and_folders_never_expand() {
        assert_eq!(not_a_separator(b"run make;".to_vec()), b"run make\\;");
        assert_eq!(not_a_separator(b";".to_vec()), b"\\;");
        assert_eq!(not_a_separator(b"a\\;".to_vec()), b"a\\\\;");
        assert_eq!(not_a_separator(b"a;b".to_vec()), b"a;b");
        assert_eq!(format_literal(b"w#(touch X)##{S}"), b"w##(touch X)####{S}");
        let t = Tmux::on(Some("/s"), "new-session")
            .folder(Path::new("/r/x#(id);"))
            .name("-s", "n#S");
        assert_eq!(
            t.argv(),
            [
                "-u",
                "-S",
                "/s",
                "new-session",
                "-c",
                "/r/x##(id)\\;",
                "-s",
                "n##S"
            ]
            .map(OsString::from)
        );
    }

    #[test]
    fn a_target_that_is_no_pane_id_is_refused() {
        assert!(is_pane_id("%0") && is_pane_id("%123"));
        for bad in ["", "%", "3", "%3;", "%-1", "=s", "{marked}", "%3 "] {
            assert!(!is_pane_id(bad), "{bad:?}");
            let err = Tmux::on(None, "kill-pane").pane(bad).run().unwrap_err();
            assert!(matches!(err, RunError::Refused { .. }), "{bad:?}: {err}");
        }
        assert!(press(None, "%1", NamedKey::Digit(0)).is_err());
    }
}
