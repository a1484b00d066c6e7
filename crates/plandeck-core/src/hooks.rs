//! Plandeck's hooks in the agents' settings files: the change shown first, then written only
//! while it is still that change (preview → token → apply), for the plan-approval hooks
//! ([`crate::gate`]) and verify's Stop hook ([`crate::verify`]) alike. Where a hook goes and
//! what it looks like is each agent's ([`crate::agents`]); a [`Hook`] names one.
//!
//! The hook is merged into the existing JSON with every other key kept in place (order too) and
//! every number kept as written (`serde_json` with `preserve_order` and `arbitrary_precision`: a
//! 2^64+1 or a 1e400 stays those digits); a backup of the file is written beside it first. What
//! install created (the `hooks` object, the event's array) is remembered in the hook's record
//! file, so uninstall removes exactly what install added and leaves the rest equal to the
//! original after a JSON round trip.
//!
//! The write is checked against what was read: the file's hash is taken when it is read and
//! compared right before the new file is renamed into place, so a change made meanwhile (the
//! agent, an editor) is refused, never overwritten. A plan carries a `token` naming what it showed
//! (the file as it was and as it would be): [`Hook::install`] / [`Hook::uninstall`] given that
//! token write only if that is still exactly the change. A symlinked `settings.json` stays a
//! symlink: its target is replaced atomically.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use ts_rs::TS;

use crate::agents::Agent;
use crate::durable;
use crate::ipc::{ErrorKind, IpcError};

/// Agent settings bigger than this are not settings: refuse rather than read them.
const MAX_SETTINGS_BYTES: u64 = 16 * 1024 * 1024;

/// Why a hook could not be shown or written.
#[derive(Debug, thiserror::Error)]
pub enum HookError {
    /// The settings file changed since it was read, or since the change to it was shown: nothing
    /// was written.
    #[error(
        "{path} changed since the change to it was shown; nothing was written (look at the change again)"
    )]
    SettingsChanged { path: PathBuf },
    /// The settings file does not hold JSON: it is not touched.
    #[error("{path} is not valid JSON: {message}")]
    Parse { path: PathBuf, message: String },
    /// The executable's path cannot be written into a hook command that `sh` runs as exactly
    /// that file.
    #[error("cannot install a hook that runs {path}: {reason}; move Plandeck to a plainer path")]
    UnsafeHookPath { path: PathBuf, reason: &'static str },
    /// The settings file is not one (a folder, too big, not text, not an object), or the agent
    /// has no such hook.
    #[error("{message}")]
    BadInput { message: String },
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Write(#[from] durable::WriteError),
}

impl From<HookError> for IpcError {
    fn from(e: HookError) -> Self {
        let kind = match &e {
            HookError::SettingsChanged { .. } => ErrorKind::Conflict,
            HookError::Parse { .. }
            | HookError::UnsafeHookPath { .. }
            | HookError::BadInput { .. } => ErrorKind::BadInput,
            HookError::Read { .. } | HookError::Write(_) => ErrorKind::Io,
        };
        IpcError::new(kind, e.to_string())
    }
}

/// One hook of Plandeck's in one agent's settings file.
#[derive(Debug, Clone)]
pub struct Hook {
    /// The agent's settings file.
    pub settings: PathBuf,
    /// Where what install created is remembered (in Plandeck's store).
    pub record: PathBuf,
    /// The hook event (`hooks.<event>`).
    pub event: &'static str,
    /// Plandeck's words after the executable (`hook claude`): how its hook is recognised.
    pub args: String,
    /// The group added to the event's array, for the hook command.
    pub group: fn(&str) -> Value,
    /// Named in the reports: "installed{what}", "uninstalled{what}".
    pub what: &'static str,
}

/// What installing (or uninstalling) would change, before it is written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct InstallPlan {
    pub settings_path: String,
    /// The file as it is ("" when it does not exist).
    pub before: String,
    /// The file as it would be.
    pub after: String,
    pub changed: bool,
    /// Names exactly this change (the file as it is and as it would be): pass it back to write
    /// only if the change is still this one.
    pub token: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct InstallReport {
    pub settings_path: String,
    /// The copy of the previous file, when one was written.
    pub backup_path: Option<String>,
    pub changed: bool,
    pub message: String,
}

impl InstallPlan {
    /// A unified diff of the change, for a person to read before it is written.
    pub fn unified_diff(&self) -> String {
        similar::TextDiff::from_lines(&self.before, &self.after)
            .unified_diff()
            .context_radius(3)
            .header(
                &format!("{} (now)", self.settings_path),
                &format!("{} (after)", self.settings_path),
            )
            .to_string()
    }
}

impl Hook {
    /// Whether `command` is this hook (any install location, any version's quoting).
    fn is_ours(&self, command: &str) -> bool {
        runs_plandeck(command, &self.args)
    }

    /// Takes every hook of ours out of the event's array; drops groups left empty by it.
    fn strip_ours(&self, root: &mut Map<String, Value>) -> Result<(), HookError> {
        strip_hooks(root, self.event, |c| self.is_ours(c))
    }

    /// The settings with this hook (running `command`) merged in, and what merging created.
    fn merged(&self, command: &str) -> Result<(Read, String, Record), HookError> {
        let read = read_settings(&self.settings)?;
        let mut root = read.root.clone();
        let record = ensure_hook_event(&mut root, &read.path, self.event)?;
        self.strip_ours(&mut root)?;
        if let Some(Value::Array(groups)) = root
            .get_mut("hooks")
            .and_then(Value::as_object_mut)
            .and_then(|h| h.get_mut(self.event))
        {
            groups.push((self.group)(command));
        }
        let after = pretty(&root);
        Ok((read, after, record))
    }

    /// The settings with this hook taken out (and the containers install created, when empty).
    fn unmerged(&self) -> Result<(Read, String), HookError> {
        let read = read_settings(&self.settings)?;
        let mut root = read.root.clone();
        let record = self.read_record().unwrap_or_default();
        self.strip_ours(&mut root)?;
        if record.created_event {
            if let Some(Value::Object(h)) = root.get_mut("hooks") {
                if matches!(h.get(self.event), Some(Value::Array(a)) if a.is_empty()) {
                    // shift_remove: the keys after it keep their order.
                    h.shift_remove(self.event);
                }
            }
        }
        if record.created_hooks
            && matches!(root.get("hooks"), Some(Value::Object(m)) if m.is_empty())
        {
            root.shift_remove("hooks");
        }
        // Nothing to take out of a file that is not there (or empty).
        let after = if read.text.trim().is_empty() {
            read.text.clone()
        } else {
            pretty(&root)
        };
        Ok((read, after))
    }

    fn read_record(&self) -> Option<Record> {
        let meta = std::fs::metadata(&self.record).ok()?;
        if meta.len() > MAX_SETTINGS_BYTES {
            return None;
        }
        serde_json::from_slice(&std::fs::read(&self.record).ok()?).ok()
    }

    fn write_record(&self, record: &Record) -> Result<(), HookError> {
        let mut bytes = serde_json::to_vec_pretty(record).unwrap_or_default();
        bytes.push(b'\n');
        durable::write_private(&self.record, &bytes)?;
        Ok(())
    }

    /// What installing the hook (running `command`) would write, without writing.
    pub fn install_plan(&self, command: &str) -> Result<InstallPlan, HookError> {
        let (read, after, _) = self.merged(command)?;
        Ok(plan_of(&read, after))
    }

    /// What uninstalling the hook would write, without writing.
    pub fn uninstall_plan(&self) -> Result<InstallPlan, HookError> {
        let (read, after) = self.unmerged()?;
        Ok(plan_of(&read, after))
    }

    /// Installs the hook running `command`; given a plan's token, only while installing is still
    /// exactly the change it names (else [`HookError::SettingsChanged`], nothing written).
    pub fn install(
        &self,
        command: &str,
        expected: Option<&str>,
    ) -> Result<InstallReport, HookError> {
        let (read, after, record) = self.merged(command)?;
        check_token(&plan_of(&read, after.clone()), expected)?;
        let report = write_settings(&read, &after, &format!("installed{}", self.what))?;
        // A reinstall keeps the record of the first install: those containers are still ours. It
        // is written once the settings are, so a refused write leaves no record behind.
        if self.read_record().is_none() {
            self.write_record(&record)?;
        }
        Ok(report)
    }

    /// Removes exactly what [`Hook::install`] added; given a plan's token, only while that is
    /// still exactly the change it names. Idempotent.
    pub fn uninstall(&self, expected: Option<&str>) -> Result<InstallReport, HookError> {
        let (read, after) = self.unmerged()?;
        check_token(&plan_of(&read, after.clone()), expected)?;
        let report = if read.hash.is_none() {
            InstallReport {
                settings_path: read.path.to_string_lossy().into_owned(),
                backup_path: None,
                changed: false,
                message: "no settings file: nothing to uninstall".to_owned(),
            }
        } else {
            write_settings(&read, &after, &format!("uninstalled{}", self.what))?
        };
        let _ = std::fs::remove_file(&self.record);
        Ok(report)
    }

    /// The settings view's toggle: installs the hook (running what `command` gives) or
    /// uninstalls it, only while that is still exactly the change `token` names.
    pub fn set_if_unchanged<E: From<HookError>>(
        &self,
        install: bool,
        command: impl FnOnce() -> Result<String, E>,
        token: &str,
    ) -> Result<InstallReport, E> {
        if install {
            Ok(self.install(&command()?, Some(token))?)
        } else {
            Ok(self.uninstall(Some(token))?)
        }
    }

    /// Whether the hook running `command` is in the settings now.
    pub fn installed(&self, command: &str) -> bool {
        self.install_plan(command).is_ok_and(|p| !p.changed)
    }

    /// What the settings view shows for this hook of `agent`'s: whether it is installed, and the
    /// diff of installing it (running `command`) or, when installed, of uninstalling it.
    pub fn preview(&self, agent: Agent, command: &str) -> Result<HookPreview, HookError> {
        let install = self.install_plan(command)?;
        let installed = !install.changed;
        let plan = if installed {
            self.uninstall_plan()?
        } else {
            install
        };
        Ok(HookPreview {
            agent,
            settings_path: plan.settings_path.clone(),
            installed,
            diff: plan.unified_diff(),
            token: plan.token,
        })
    }
}

/// What install created, so uninstall can remove exactly that.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Record {
    created_hooks: bool,
    created_event: bool,
}

/// Makes sure `root` (an agent's settings) has a `hooks` object holding an `event` array, and
/// returns what it had to create (so uninstall removes exactly that). `path` names the file in
/// the error when `hooks` is not an object.
fn ensure_hook_event(
    root: &mut Map<String, Value>,
    path: &Path,
    event: &str,
) -> Result<Record, HookError> {
    let mut record = Record::default();
    match root.get("hooks") {
        None => {
            record.created_hooks = true;
            root.insert("hooks".to_owned(), Value::Object(Map::new()));
        }
        Some(Value::Object(_)) => {}
        Some(_) => {
            return Err(HookError::BadInput {
                message: format!("{}: `hooks` is not an object", path.display()),
            })
        }
    }
    if let Some(Value::Object(hooks)) = root.get_mut("hooks") {
        if !hooks.contains_key(event) {
            record.created_event = true;
            hooks.insert(event.to_owned(), Value::Array(Vec::new()));
        }
    }
    Ok(record)
}

/// This executable with `args` (`hook claude`, `hook claude-stop`), as [`command_for`] writes it.
/// When the slim command-line build is installed beside the window's (`plandeck-cli`, as the
/// package installs it), hooks run that one: it starts in a few milliseconds where the window's
/// binary first loads WebKit and GTK (tens of milliseconds, on every hook an agent fires).
pub fn self_command(args: &str) -> Result<String, HookError> {
    match std::env::current_exe() {
        Ok(exe) => command_for(&hook_executable(&exe), args),
        Err(_) => Ok(format!("{} {args}", crate::shell::quote("plandeck"))),
    }
}

/// The shell command an agent runs for the executable `exe` with `args` (Plandeck's own words:
/// `hook claude`): the path always single-quoted, so `sh` runs exactly that file whatever the
/// path holds (`plandeck(2)`, `$(…)`, quotes, spaces); a path `sh` cannot carry literally in a
/// settings file (control characters, not UTF-8) is refused.
pub fn command_for(exe: &Path, args: &str) -> Result<String, HookError> {
    let unsafe_path = |reason: &'static str| HookError::UnsafeHookPath {
        path: exe.to_owned(),
        reason,
    };
    let text = exe
        .to_str()
        .ok_or_else(|| unsafe_path("it is not UTF-8 text"))?;
    if text.chars().any(char::is_control) {
        return Err(unsafe_path(
            "it holds a control character (a line break, a tab, an escape)",
        ));
    }
    Ok(format!("{} {args}", crate::shell::quote(text)))
}

/// The executable hooks run for a Plandeck at `exe`: `plandeck-cli` beside it when it is a
/// [`crate::shell::trusted_sibling`], else `exe` itself.
fn hook_executable(exe: &Path) -> PathBuf {
    const SLIM: &str = "plandeck-cli";
    if exe.file_name().is_some_and(|n| n == SLIM) {
        return exe.to_owned();
    }
    crate::shell::trusted_sibling(exe, SLIM).unwrap_or_else(|| exe.to_owned())
}

/// Whether `command` runs a Plandeck executable (this one, or one installed elsewhere) with `args`:
/// the path as written by this version (always quoted), by older ones (quoted only for spaces and
/// quotes, or bare), so an uninstall finds what any of them installed.
fn runs_plandeck(command: &str, args: &str) -> bool {
    if self_command(args).is_ok_and(|c| command.trim() == c) {
        return true;
    }
    let Some(exe) = command.trim().strip_suffix(&format!(" {args}")) else {
        return false;
    };
    let exe = exe.trim();
    let is_plandeck = |p: &str| {
        Path::new(p)
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("plandeck"))
    };
    // As `sh` reads it (one word), or as older versions wrote it, quotes around the whole.
    let words = crate::shell::simple_commands(exe);
    let as_word =
        matches!(words.as_slice(), [argv] if argv.len() == 1 && is_plandeck(&argv[0].text));
    as_word || is_plandeck(exe.trim_matches(|c| c == '\'' || c == '"'))
}

/// An agent's settings file as read: its text, the hash of its bytes (`None`: no file), and the
/// JSON object it holds.
struct Read {
    path: PathBuf,
    text: String,
    hash: Option<String>,
    root: Map<String, Value>,
}

fn read_settings(path: &Path) -> Result<Read, HookError> {
    let read_err = |source| HookError::Read {
        path: path.to_owned(),
        source,
    };
    let bytes = match std::fs::metadata(path) {
        Ok(meta) if !meta.is_file() => {
            return Err(HookError::BadInput {
                message: format!("{} is not a file; not touching it", path.display()),
            })
        }
        Ok(meta) if meta.len() > MAX_SETTINGS_BYTES => {
            return Err(HookError::BadInput {
                message: format!("{} is too big for a settings file", path.display()),
            })
        }
        Ok(_) => match std::fs::read(path) {
            Ok(b) => Some(b),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(read_err(e)),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(read_err(e)),
    };
    let hash = bytes.as_deref().map(durable::sha256_hex);
    let text = String::from_utf8(bytes.unwrap_or_default()).map_err(|_| HookError::BadInput {
        message: format!("{} is not UTF-8 text; not touching it", path.display()),
    })?;
    let root = if text.trim().is_empty() {
        Map::new()
    } else {
        let value: Value = serde_json::from_str(&text).map_err(|e| HookError::Parse {
            path: path.to_owned(),
            message: format!("{e}; fix it first, Plandeck will not overwrite it"),
        })?;
        match value {
            Value::Object(map) => map,
            _ => {
                return Err(HookError::BadInput {
                    message: format!("{} does not hold a JSON object", path.display()),
                })
            }
        }
    };
    Ok(Read {
        path: path.to_owned(),
        text,
        hash,
        root,
    })
}

pub(crate) fn pretty(root: &Map<String, Value>) -> String {
    let mut s = serde_json::to_string_pretty(root).unwrap_or_else(|_| "{}".to_owned());
    s.push('\n');
    s
}

/// Removes from `hooks.<event>` every hook whose command `ours` recognises, and each group it
/// leaves empty; the person's own hooks and groups stay as they are.
fn strip_hooks(
    root: &mut Map<String, Value>,
    event: &str,
    ours: impl Fn(&str) -> bool,
) -> Result<(), HookError> {
    let Some(arr) = root
        .get_mut("hooks")
        .and_then(Value::as_object_mut)
        .and_then(|h| h.get_mut(event))
    else {
        return Ok(());
    };
    let Value::Array(groups) = arr else {
        return Err(HookError::BadInput {
            message: format!("hooks.{event} is not an array"),
        });
    };
    groups.retain_mut(|group| {
        let Some(Value::Array(hooks)) = group.get_mut("hooks") else {
            return true;
        };
        let before = hooks.len();
        hooks.retain(|h| !h.get("command").and_then(Value::as_str).is_some_and(&ours));
        !(before > 0 && hooks.is_empty())
    });
    Ok(())
}

fn token(path: &Path, before: &str, after: &str) -> String {
    let mut bytes = Vec::with_capacity(before.len() + after.len() + 64);
    bytes.extend_from_slice(path.as_os_str().as_encoded_bytes());
    for part in [before, after] {
        bytes.push(0);
        bytes.extend_from_slice(&(part.len() as u64).to_le_bytes());
        bytes.extend_from_slice(part.as_bytes());
    }
    durable::sha256_hex(&bytes)
}

fn plan_of(read: &Read, after: String) -> InstallPlan {
    InstallPlan {
        settings_path: read.path.to_string_lossy().into_owned(),
        changed: after != read.text,
        token: token(&read.path, &read.text, &after),
        before: read.text.clone(),
        after,
    }
}

/// Refuses when `expected` (a plan's token) no longer names the change.
fn check_token(plan: &InstallPlan, expected: Option<&str>) -> Result<(), HookError> {
    match expected {
        Some(t) if t != plan.token => Err(HookError::SettingsChanged {
            path: PathBuf::from(&plan.settings_path),
        }),
        _ => Ok(()),
    }
}

/// Writes `after` over the settings file `read` came from: a backup of what was read beside it,
/// then the new file, renamed into place only if the file still holds exactly what was read.
fn write_settings(read: &Read, after: &str, verb: &str) -> Result<InstallReport, HookError> {
    let path = &read.path;
    let settings_path = path.to_string_lossy().into_owned();
    if read.text == after {
        return Ok(InstallReport {
            settings_path,
            backup_path: None,
            changed: false,
            message: format!("already {verb}: nothing to change"),
        });
    }
    let backup_path = if read.hash.is_some() {
        let stamp = time::OffsetDateTime::now_utc()
            .format(time::macros::format_description!(
                "[year][month][day]T[hour][minute][second]Z"
            ))
            .unwrap_or_default();
        let mut backup = PathBuf::from(format!("{}.plandeck-backup-{stamp}", path.display()));
        let mut n = 1;
        while backup.symlink_metadata().is_ok() {
            n += 1;
            backup = PathBuf::from(format!("{}.plandeck-backup-{stamp}-{n}", path.display()));
        }
        // A new file: 0600 (settings may hold secrets; the backup is never more readable).
        durable::write_atomic(&backup, read.text.as_bytes())?;
        Some(backup)
    } else {
        None
    };
    match durable::replace_if_unchanged(path, after.as_bytes(), read.hash.as_deref()) {
        Ok(()) => {}
        Err(e) => {
            // Nothing was changed: the backup of a file that was not replaced is not needed.
            if let Some(b) = &backup_path {
                let _ = std::fs::remove_file(b);
            }
            return Err(match e {
                durable::ReplaceError::Changed { path } => HookError::SettingsChanged { path },
                durable::ReplaceError::Write(w) => HookError::Write(w),
            });
        }
    }
    let backup_path = backup_path.map(|b| b.to_string_lossy().into_owned());
    let message = match &backup_path {
        Some(b) => format!("{verb} in {settings_path} (previous file kept at {b})"),
        None => format!("{verb} in {settings_path}"),
    };
    Ok(InstallReport {
        settings_path,
        backup_path,
        changed: true,
        message,
    })
}

/// What the settings view shows for one agent's hook: whether it is installed, and the change
/// installing (or uninstalling) would make, as a unified diff, before anything is written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct HookPreview {
    pub agent: Agent,
    pub settings_path: String,
    /// The hook is in the agent's settings now.
    pub installed: bool,
    /// The diff of installing when not installed, else of uninstalling.
    pub diff: String,
    /// Names exactly the change the diff shows; toggling proceeds only while it still is.
    pub token: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hooks_run_the_slim_cli_installed_beside_the_window_binary() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let app = dir.path().join("plandeck");
        let cli = dir.path().join("plandeck-cli");
        std::fs::write(&app, "app").unwrap();
        std::fs::set_permissions(&app, std::fs::Permissions::from_mode(0o755)).unwrap();
        // Alone, the window's binary runs its hooks itself.
        assert_eq!(hook_executable(&app), app);
        // A plandeck-cli beside it that is not executable is not used.
        std::fs::write(&cli, "cli").unwrap();
        std::fs::set_permissions(&cli, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert_eq!(hook_executable(&app), app);
        // Installed beside it (as the package does): hooks run the slim one.
        std::fs::set_permissions(&cli, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(hook_executable(&app), cli);
        assert_eq!(hook_executable(&cli), cli);
        // A folder of that name is not an executable.
        let other = tempfile::tempdir().unwrap();
        let lone = other.path().join("plandeck");
        std::fs::create_dir(other.path().join("plandeck-cli")).unwrap();
        assert_eq!(hook_executable(&lone), lone);
        // Both are recognised as ours when uninstalling.
        assert!(runs_plandeck(
            &format!("{} hook claude", cli.display()),
            "hook claude"
        ));
        assert!(runs_plandeck(
            &format!("{} hook claude", app.display()),
            "hook claude"
        ));
    }

    #[test]
    fn a_plandeck_cli_others_can_change_is_never_run_by_hooks() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let app = dir.path().join("plandeck");
        let cli = dir.path().join("plandeck-cli");
        std::fs::write(&app, "app").unwrap();
        std::fs::set_permissions(&app, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(&cli, "cli").unwrap();
        // Anyone (or the group) may rewrite it: somebody else's program, as far as hooks go.
        for loose in [0o777, 0o775, 0o757] {
            std::fs::set_permissions(&cli, std::fs::Permissions::from_mode(loose)).unwrap();
            assert_eq!(hook_executable(&app), app, "{loose:o}");
        }
        // A symlink to a writable-by-all file is that file.
        std::fs::remove_file(&cli).unwrap();
        let elsewhere = dir.path().join("elsewhere");
        std::fs::write(&elsewhere, "x").unwrap();
        std::fs::set_permissions(&elsewhere, std::fs::Permissions::from_mode(0o777)).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &cli).unwrap();
        assert_eq!(hook_executable(&app), app);
        std::fs::set_permissions(&elsewhere, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(hook_executable(&app), cli);
    }

    #[test]
    fn a_path_sh_cannot_carry_literally_is_refused() {
        use std::os::unix::ffi::OsStrExt;
        for bad in [
            "/opt/a\nb/plandeck",
            "/opt/a\rb/plandeck",
            "/opt/\u{1b}[2Jx/plandeck",
            "/opt/a\tb/plandeck",
            "/opt/\u{85}/plandeck",
        ] {
            let err = command_for(Path::new(bad), "hook claude").unwrap_err();
            assert!(
                matches!(err, HookError::UnsafeHookPath { .. }),
                "{bad:?}: {err}"
            );
            assert!(err.to_string().contains("control character"), "{err}");
        }
        let not_utf8 = std::ffi::OsStr::from_bytes(b"/opt/\xff/plandeck");
        let err = command_for(Path::new(not_utf8), "hook claude").unwrap_err();
        assert!(matches!(err, HookError::UnsafeHookPath { .. }), "{err}");
    }

    #[test]
    fn ours_is_recognised_by_executable_name() {
        let ours = |command: &str| runs_plandeck(command, "hook claude");
        assert!(ours("/usr/bin/plandeck hook claude"));
        assert!(ours("'/my apps/plandeck-cli' hook claude"));
        assert!(!ours("/usr/bin/plandeck hook gemini"));
        assert!(!ours("/usr/bin/other hook claude"));
    }
}
