//! Installing the hooks into the agents' user settings, and taking them out again.
//!
//! The hook is merged into the existing JSON with every other key kept in place (order too) and
//! every number kept as written (`serde_json` with `preserve_order` and `arbitrary_precision`: a
//! 2^64+1 or a 1e400 stays those digits); a backup of the file is written beside it first. What
//! install created (the `hooks` object, the event's array) is remembered in
//! `<data>/gate/install-<agent>.json`, so uninstall removes exactly what install added and leaves
//! the rest equal to the original after a JSON round trip.
//!
//! The write is checked against what was read: the file's hash is taken when it is read and
//! compared right before the new file is renamed into place, so a change made meanwhile (the
//! agent, an editor) is refused, never overwritten. A plan carries a `token` naming what it showed
//! (the file as it was and as it would be): [`install_if_unchanged`] / [`uninstall_if_unchanged`]
//! write only if that is still exactly the change. A symlinked `settings.json` stays a symlink:
//! its target is replaced atomically.
//! No policy rule allowing `exit_plan_mode` is ever written (it would let plans through unread).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use ts_rs::TS;

use super::store::{gate_dir, read_json, write_json};
use super::GateError;
use crate::agents::Agent;
use crate::config::Roots;
use crate::durable;

/// Claude Code's hook timeout (seconds): long, so the hook's own deadline always comes first.
pub const CLAUDE_HOOK_TIMEOUT_SECS: u64 = 86_400;
/// Gemini CLI's hook timeout (milliseconds): the hook returns at once, this is only a bound.
pub const GEMINI_HOOK_TIMEOUT_MS: u64 = 10_000;

/// Agent settings bigger than this are not settings: refuse rather than read them.
const MAX_SETTINGS_BYTES: u64 = 16 * 1024 * 1024;

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

/// What install created, so uninstall can remove exactly that.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Record {
    pub(crate) created_hooks: bool,
    pub(crate) created_event: bool,
}

/// Makes sure `root` (an agent's settings) has a `hooks` object holding an `event` array, and
/// returns what it had to create (so uninstall removes exactly that). `path` names the file in
/// the error when `hooks` is not an object.
pub(crate) fn ensure_hook_event(
    root: &mut Map<String, Value>,
    path: &Path,
    event: &str,
) -> Result<Record, GateError> {
    let mut record = Record::default();
    match root.get("hooks") {
        None => {
            record.created_hooks = true;
            root.insert("hooks".to_owned(), Value::Object(Map::new()));
        }
        Some(Value::Object(_)) => {}
        Some(_) => {
            return Err(GateError::BadInput {
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

struct Spec {
    event: &'static str,
    matcher: &'static str,
}

fn spec(agent: Agent) -> Result<Spec, GateError> {
    match agent {
        Agent::Claude => Ok(Spec {
            event: "PermissionRequest",
            matcher: "ExitPlanMode",
        }),
        Agent::Gemini => Ok(Spec {
            event: "BeforeTool",
            matcher: "exit_plan_mode",
        }),
        other => Err(GateError::BadInput {
            message: format!("no plan-approval hook for {}", other.display_name()),
        }),
    }
}

pub(crate) fn settings_path(roots: &Roots, agent: Agent) -> PathBuf {
    match agent {
        Agent::Gemini => roots.gemini.join("settings.json"),
        _ => roots.claude.join("settings.json"),
    }
}

fn record_path(roots: &Roots, agent: Agent) -> PathBuf {
    gate_dir(roots).join(format!("install-{agent}.json"))
}

/// The command the agent runs: this executable, `hook <agent>`.
pub fn hook_command(agent: Agent) -> Result<String, GateError> {
    self_command(&format!("hook {agent}"))
}

/// This executable with `args` (`hook claude`, `hook claude-stop`), as [`command_for`] writes it.
/// When the slim command-line build is installed beside the window's (`plandeck-cli`, as the
/// package installs it), hooks run that one: it starts in a few milliseconds where the window's
/// binary first loads WebKit and GTK (tens of milliseconds, on every hook an agent fires).
pub(crate) fn self_command(args: &str) -> Result<String, GateError> {
    match std::env::current_exe() {
        Ok(exe) => command_for(&hook_executable(&exe), args),
        Err(_) => Ok(format!("{} {args}", crate::shell::quote("plandeck"))),
    }
}

/// The shell command an agent runs for the executable `exe` with `args` (Plandeck's own words:
/// `hook claude`): the path always single-quoted, so `sh` runs exactly that file whatever the
/// path holds (`plandeck(2)`, `$(…)`, quotes, spaces); a path `sh` cannot carry literally in a
/// settings file (control characters, not UTF-8) is refused.
pub fn command_for(exe: &Path, args: &str) -> Result<String, GateError> {
    let unsafe_path = |reason: &'static str| GateError::UnsafeHookPath {
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

/// Whether `command` is a Plandeck hook for `agent` (any install location).
fn is_ours(command: &str, agent: Agent) -> bool {
    runs_plandeck(command, &format!("hook {agent}"))
}

/// Whether `command` runs a Plandeck executable (this one, or one installed elsewhere) with `args`:
/// the path as written by this version (always quoted), by older ones (quoted only for spaces and
/// quotes, or bare), so an uninstall finds what any of them installed.
pub(crate) fn runs_plandeck(command: &str, args: &str) -> bool {
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

fn our_group(agent: Agent, spec: &Spec, command: &str) -> Value {
    let hook = match agent {
        Agent::Gemini => serde_json::json!({
            "type": "command",
            "name": "plandeck",
            "command": command,
            "timeout": GEMINI_HOOK_TIMEOUT_MS,
        }),
        _ => serde_json::json!({
            "type": "command",
            "command": command,
            "timeout": CLAUDE_HOOK_TIMEOUT_SECS,
        }),
    };
    serde_json::json!({ "matcher": spec.matcher, "hooks": [hook] })
}

/// An agent's settings file as read: its text, the hash of its bytes (`None`: no file), and the
/// JSON object it holds.
pub(crate) struct Read {
    pub(crate) path: PathBuf,
    pub(crate) text: String,
    pub(crate) hash: Option<String>,
    pub(crate) root: Map<String, Value>,
}

pub(crate) fn read_settings(path: &Path) -> Result<Read, GateError> {
    let read_err = |source| GateError::Read {
        path: path.to_owned(),
        source,
    };
    let bytes = match std::fs::metadata(path) {
        Ok(meta) if !meta.is_file() => {
            return Err(GateError::BadInput {
                message: format!("{} is not a file; not touching it", path.display()),
            })
        }
        Ok(meta) if meta.len() > MAX_SETTINGS_BYTES => {
            return Err(GateError::BadInput {
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
    let text = String::from_utf8(bytes.unwrap_or_default()).map_err(|_| GateError::BadInput {
        message: format!("{} is not UTF-8 text; not touching it", path.display()),
    })?;
    let root = if text.trim().is_empty() {
        Map::new()
    } else {
        let value: Value = serde_json::from_str(&text).map_err(|e| GateError::Parse {
            path: path.to_owned(),
            message: format!("{e}; fix it first, Plandeck will not overwrite it"),
        })?;
        match value {
            Value::Object(map) => map,
            _ => {
                return Err(GateError::BadInput {
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

/// Takes every Plandeck hook for `agent` out of the event's array; drops groups left empty by it.
fn strip_ours(root: &mut Map<String, Value>, agent: Agent, spec: &Spec) -> Result<(), GateError> {
    strip_hooks(root, spec.event, |c| is_ours(c, agent))
}

/// Removes from `hooks.<event>` every hook whose command `ours` recognises, and each group it
/// leaves empty; the person's own hooks and groups stay as they are.
pub(crate) fn strip_hooks(
    root: &mut Map<String, Value>,
    event: &str,
    ours: impl Fn(&str) -> bool,
) -> Result<(), GateError> {
    let Some(arr) = root
        .get_mut("hooks")
        .and_then(Value::as_object_mut)
        .and_then(|h| h.get_mut(event))
    else {
        return Ok(());
    };
    let Value::Array(groups) = arr else {
        return Err(GateError::BadInput {
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

/// The settings with our hook merged in.
fn merged(roots: &Roots, agent: Agent, command: &str) -> Result<(Read, String, Record), GateError> {
    let spec = spec(agent)?;
    let read = read_settings(&settings_path(roots, agent))?;
    let mut root = read.root.clone();
    let record = ensure_hook_event(&mut root, &read.path, spec.event)?;
    strip_ours(&mut root, agent, &spec)?;
    if let Some(Value::Array(groups)) = root
        .get_mut("hooks")
        .and_then(Value::as_object_mut)
        .and_then(|h| h.get_mut(spec.event))
    {
        groups.push(our_group(agent, &spec, command));
    }
    let after = pretty(&root);
    Ok((read, after, record))
}

/// The settings with our hook taken out (and the containers install created, when empty).
fn unmerged(roots: &Roots, agent: Agent) -> Result<(Read, String), GateError> {
    let spec = spec(agent)?;
    let read = read_settings(&settings_path(roots, agent))?;
    let mut root = read.root.clone();
    let record = read_json::<Record>(&record_path(roots, agent))
        .ok()
        .flatten()
        .unwrap_or_default();
    strip_ours(&mut root, agent, &spec)?;
    if record.created_event {
        if let Some(Value::Object(h)) = root.get_mut("hooks") {
            if matches!(h.get(spec.event), Some(Value::Array(a)) if a.is_empty()) {
                // shift_remove: the keys after it keep their order.
                h.shift_remove(spec.event);
            }
        }
    }
    if record.created_hooks && matches!(root.get("hooks"), Some(Value::Object(m)) if m.is_empty()) {
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

pub(crate) fn plan_of(read: &Read, after: String) -> InstallPlan {
    InstallPlan {
        settings_path: read.path.to_string_lossy().into_owned(),
        changed: after != read.text,
        token: token(&read.path, &read.text, &after),
        before: read.text.clone(),
        after,
    }
}

/// Refuses when `expected` (a plan's token) no longer names the change.
pub(crate) fn check_token(plan: &InstallPlan, expected: Option<&str>) -> Result<(), GateError> {
    match expected {
        Some(t) if t != plan.token => Err(GateError::SettingsChanged {
            path: PathBuf::from(&plan.settings_path),
        }),
        _ => Ok(()),
    }
}

/// What [`install`] would write, without writing.
pub fn install_plan(roots: &Roots, agent: Agent) -> Result<InstallPlan, GateError> {
    install_plan_with(roots, agent, &hook_command(agent)?)
}

/// [`install_plan`] for a given hook command.
pub fn install_plan_with(
    roots: &Roots,
    agent: Agent,
    command: &str,
) -> Result<InstallPlan, GateError> {
    let (read, after, _) = merged(roots, agent, command)?;
    Ok(plan_of(&read, after))
}

/// Installs the hook for `agent` (this executable's `hook <agent>`).
pub fn install(roots: &Roots, agent: Agent) -> Result<InstallReport, GateError> {
    install_checked(roots, agent, &hook_command(agent)?, None)
}

/// Installs the hook only if installing is still exactly the change `token` names (the plan that
/// was shown); otherwise refuses with [`GateError::SettingsChanged`] and writes nothing.
pub fn install_if_unchanged(
    roots: &Roots,
    agent: Agent,
    token: &str,
) -> Result<InstallReport, GateError> {
    install_checked(roots, agent, &hook_command(agent)?, Some(token))
}

/// [`install`] with a given hook command (tests install a known path).
pub fn install_with(
    roots: &Roots,
    agent: Agent,
    command: &str,
) -> Result<InstallReport, GateError> {
    install_checked(roots, agent, command, None)
}

fn install_checked(
    roots: &Roots,
    agent: Agent,
    command: &str,
    expected: Option<&str>,
) -> Result<InstallReport, GateError> {
    let (read, after, record) = merged(roots, agent, command)?;
    check_token(&plan_of(&read, after.clone()), expected)?;
    let report = write_settings(&read, &after, "installed")?;
    // A reinstall keeps the record of the first install: those containers are still ours. It is
    // written once the settings are, so a refused write leaves no record behind.
    let rec_path = record_path(roots, agent);
    if read_json::<Record>(&rec_path).ok().flatten().is_none() {
        write_json(&rec_path, &record)?;
    }
    Ok(report)
}

/// The plan of [`uninstall`]: the file with Plandeck's hook taken out.
pub fn uninstall_plan(roots: &Roots, agent: Agent) -> Result<InstallPlan, GateError> {
    let (read, after) = unmerged(roots, agent)?;
    Ok(plan_of(&read, after))
}

/// Removes exactly what [`install`] added. Idempotent.
pub fn uninstall(roots: &Roots, agent: Agent) -> Result<InstallReport, GateError> {
    uninstall_checked(roots, agent, None)
}

/// [`uninstall`] only if uninstalling is still exactly the change `token` names.
pub fn uninstall_if_unchanged(
    roots: &Roots,
    agent: Agent,
    token: &str,
) -> Result<InstallReport, GateError> {
    uninstall_checked(roots, agent, Some(token))
}

fn uninstall_checked(
    roots: &Roots,
    agent: Agent,
    expected: Option<&str>,
) -> Result<InstallReport, GateError> {
    let (read, after) = unmerged(roots, agent)?;
    check_token(&plan_of(&read, after.clone()), expected)?;
    let report = if read.hash.is_none() {
        InstallReport {
            settings_path: read.path.to_string_lossy().into_owned(),
            backup_path: None,
            changed: false,
            message: "no settings file: nothing to uninstall".to_owned(),
        }
    } else {
        write_settings(&read, &after, "uninstalled")?
    };
    let _ = std::fs::remove_file(record_path(roots, agent));
    Ok(report)
}

/// Writes `after` over the settings file `read` came from: a backup of what was read beside it,
/// then the new file, renamed into place only if the file still holds exactly what was read.
pub(crate) fn write_settings(
    read: &Read,
    after: &str,
    verb: &str,
) -> Result<InstallReport, GateError> {
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
                durable::ReplaceError::Changed { path } => GateError::SettingsChanged { path },
                durable::ReplaceError::Write(w) => GateError::Write(w),
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

/// The hook's state for `agent` and the diff of toggling it.
pub fn hook_preview(roots: &Roots, agent: Agent) -> Result<HookPreview, GateError> {
    let install = install_plan(roots, agent)?;
    let installed = !install.changed;
    let plan = if installed {
        uninstall_plan(roots, agent)?
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    const CMD: &str = "/opt/plandeck/bin/plandeck hook claude";

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

    /// Every file under `root`, for looking for what a command should not have made.
    fn all_files(root: &Path) -> Vec<PathBuf> {
        let mut out = Vec::new();
        let mut stack = vec![root.to_owned()];
        while let Some(p) = stack.pop() {
            if p.is_dir() {
                for e in std::fs::read_dir(&p).unwrap() {
                    stack.push(e.unwrap().path());
                }
            } else {
                out.push(p);
            }
        }
        out.sort();
        out
    }

    #[test]
    fn the_hook_command_runs_exactly_the_binary_whatever_its_path_holds() {
        use std::os::unix::fs::PermissionsExt;
        let (d, roots) = roots();
        let base = d.path().canonicalize().unwrap();
        let cwd = base.join("cwd");
        std::fs::create_dir_all(&cwd).unwrap();
        let out = base.join("ran.txt");
        // `plandeck(2)`: a second download; the rest: what an attacker would try.
        for folder in [
            "plandeck(2)",
            "my apps/plandeck(2)",
            "$(touch${IFS}pwned-dollar)",
            "x;touch${IFS}pwned-semi",
            "`touch${IFS}pwned-tick`",
            "$(touch pwned-dollar)",
            "it's `touch pwned-tick`; touch pwned-semi",
            "a \"b\" & touch pwned-amp | x > pwned-redir",
            "tab\\t-not-a-tab ~ * ? [x] {a,b} !",
        ] {
            let dir = base.join("bin").join(folder);
            std::fs::create_dir_all(&dir).unwrap();
            let exe = dir.join("plandeck");
            std::fs::write(
                &exe,
                format!(
                    "#!/bin/sh\nprintf '%s\\n' \"$0\" \"$@\" > {}\n",
                    crate::shell::quote(out.to_str().unwrap())
                ),
            )
            .unwrap();
            std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();

            let command = command_for(&exe, "hook claude").unwrap();
            install_with(&roots, Agent::Claude, &command).unwrap();
            let settings = std::fs::read_to_string(roots.claude.join("settings.json")).unwrap();
            let v: Value = serde_json::from_str(&settings).unwrap();
            let installed = v["hooks"]["PermissionRequest"][0]["hooks"][0]["command"]
                .as_str()
                .unwrap()
                .to_owned();
            assert_eq!(installed, command);

            // What Claude Code and Gemini CLI do with it: `sh -c <command>`.
            let _ = std::fs::remove_file(&out);
            let status = std::process::Command::new("sh")
                .arg("-c")
                .arg(&installed)
                .current_dir(&cwd)
                .status()
                .unwrap();
            assert!(
                status.success(),
                "{folder}: sh -c {installed} gave {status}"
            );
            assert_eq!(
                std::fs::read_to_string(&out).unwrap(),
                format!("{}\nhook\nclaude\n", exe.display()),
                "{folder}"
            );
            // Nothing else ran: no file appeared but the ones this test wrote.
            let made: Vec<PathBuf> = all_files(&base)
                .into_iter()
                .filter(|p| {
                    p.to_string_lossy().contains("pwned") && !p.starts_with(base.join("bin"))
                })
                .collect();
            assert_eq!(made, Vec::<PathBuf>::new(), "{folder}");
            assert!(
                std::fs::read_dir(&cwd).unwrap().next().is_none(),
                "{folder}"
            );

            // Recognised as ours: uninstall takes it out.
            uninstall(&roots, Agent::Claude).unwrap();
            let after = std::fs::read_to_string(roots.claude.join("settings.json")).unwrap();
            assert!(!after.contains("hook claude"), "{folder}: {after}");
        }
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
                matches!(err, GateError::UnsafeHookPath { .. }),
                "{bad:?}: {err}"
            );
            assert!(err.to_string().contains("control character"), "{err}");
        }
        let not_utf8 = std::ffi::OsStr::from_bytes(b"/opt/\xff/plandeck");
        let err = command_for(Path::new(not_utf8), "hook claude").unwrap_err();
        assert!(matches!(err, GateError::UnsafeHookPath { .. }), "{err}");
    }

    #[test]
    fn hooks_installed_with_older_quoting_are_still_found_and_replaced() {
        let (_d, roots) = roots();
        let path = roots.claude.join("settings.json");
        std::fs::create_dir_all(&roots.claude).unwrap();
        // As older versions wrote them: bare, or quoted only for spaces and quotes.
        for old in [
            "/home/me/plandeck(2)/plandeck hook claude",
            "'/my apps/plandeck-cli' hook claude",
            "'/it'\\''s/plandeck' hook claude",
            "/usr/bin/plandeck hook claude",
        ] {
            let original = serde_json::json!({"hooks": {"PermissionRequest": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "mine.sh"}]},
                {"matcher": "ExitPlanMode", "hooks": [{"type": "command", "command": old}]}
            ]}});
            std::fs::write(&path, original.to_string()).unwrap();
            uninstall(&roots, Agent::Claude).unwrap();
            let text = std::fs::read_to_string(&path).unwrap();
            assert!(!text.contains("hook claude"), "{old}: {text}");
            assert!(text.contains("mine.sh"), "{old}: {text}");

            // A new install replaces the old entry rather than adding a second.
            std::fs::write(&path, original.to_string()).unwrap();
            install_with(&roots, Agent::Claude, "'/new/plandeck' hook claude").unwrap();
            let text = std::fs::read_to_string(&path).unwrap();
            assert_eq!(text.matches("hook claude").count(), 1, "{old}: {text}");
            assert!(text.contains("'/new/plandeck' hook claude"), "{text}");
        }
    }

    fn roots() -> (tempfile::TempDir, Roots) {
        let dir = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(dir.path());
        (dir, roots)
    }

    fn roundtrip(text: &str) -> String {
        let v: Value = serde_json::from_str(text).unwrap();
        pretty(v.as_object().unwrap())
    }

    #[test]
    fn claude_install_keeps_other_hooks_and_keys_and_uninstall_restores() {
        let (_d, roots) = roots();
        let original = r#"{"zUnknown": {"keep": [1, 2]}, "model": "opus",
 "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "audit.sh"}]}],
           "PermissionRequest": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "other.sh", "timeout": 5}]}]},
 "aFinal": null}"#;
        let path = roots.claude.join("settings.json");
        std::fs::create_dir_all(&roots.claude).unwrap();
        std::fs::write(&path, original).unwrap();

        let plan = install_plan_with(&roots, Agent::Claude, CMD).unwrap();
        assert!(plan.changed);
        assert_eq!(plan.before, original);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            original,
            "a plan writes nothing"
        );

        let report = install_with(&roots, Agent::Claude, CMD).unwrap();
        assert!(report.changed);
        let backup = report.backup_path.unwrap();
        assert_eq!(std::fs::read_to_string(&backup).unwrap(), original);
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let pr = v["hooks"]["PermissionRequest"].as_array().unwrap();
        assert_eq!(pr.len(), 2);
        assert_eq!(pr[0]["hooks"][0]["command"], "other.sh");
        assert_eq!(pr[1]["matcher"], "ExitPlanMode");
        assert_eq!(pr[1]["hooks"][0]["command"], CMD);
        assert_eq!(pr[1]["hooks"][0]["timeout"], CLAUDE_HOOK_TIMEOUT_SECS);
        assert_eq!(v["zUnknown"]["keep"][1], 2);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.find("zUnknown").unwrap() < text.find("aFinal").unwrap(),
            "key order kept"
        );

        // Idempotent.
        assert!(!install_with(&roots, Agent::Claude, CMD).unwrap().changed);

        uninstall(&roots, Agent::Claude).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), roundtrip(original));
        assert!(!uninstall(&roots, Agent::Claude).unwrap().changed);
    }

    #[test]
    fn install_into_missing_file_and_uninstall_removes_what_it_created() {
        let (_d, roots) = roots();
        let report = install_with(&roots, Agent::Gemini, "/x/plandeck-cli hook gemini").unwrap();
        assert!(report.backup_path.is_none());
        let path = roots.gemini.join("settings.json");
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(v["hooks"]["BeforeTool"][0]["matcher"], "exit_plan_mode");
        assert_eq!(
            v["hooks"]["BeforeTool"][0]["hooks"][0]["timeout"],
            GEMINI_HOOK_TIMEOUT_MS
        );
        assert!(!std::fs::read_to_string(&path)
            .unwrap()
            .contains("\"allow\""));
        uninstall(&roots, Agent::Gemini).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{}\n");
    }

    #[test]
    fn existing_empty_containers_are_kept_on_uninstall() {
        let (_d, roots) = roots();
        let path = roots.claude.join("settings.json");
        std::fs::create_dir_all(&roots.claude).unwrap();
        let original = "{\"hooks\": {\"PermissionRequest\": []}}";
        std::fs::write(&path, original).unwrap();
        install_with(&roots, Agent::Claude, CMD).unwrap();
        uninstall(&roots, Agent::Claude).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), roundtrip(original));
    }

    #[test]
    fn damaged_settings_are_never_overwritten() {
        let (_d, roots) = roots();
        let path = roots.claude.join("settings.json");
        std::fs::create_dir_all(&roots.claude).unwrap();
        std::fs::write(&path, "{ not json").unwrap();
        let err = install_with(&roots, Agent::Claude, CMD).unwrap_err();
        assert!(matches!(err, GateError::Parse { .. }), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{ not json");
        std::fs::write(&path, "{\"hooks\": 3}").unwrap();
        assert!(install_with(&roots, Agent::Claude, CMD).is_err());
    }

    #[test]
    fn a_symlinked_settings_file_stays_a_symlink() {
        use std::os::unix::fs::PermissionsExt;
        let (d, roots) = roots();
        // A dotfiles checkout holds the real file; ~/.claude/settings.json links to it.
        let dotfiles = d.path().join("dotfiles/claude");
        std::fs::create_dir_all(&dotfiles).unwrap();
        let target = dotfiles.join("settings.json");
        let original = "{\"model\": \"opus\"}\n";
        std::fs::write(&target, original).unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o640)).unwrap();
        std::fs::create_dir_all(&roots.claude).unwrap();
        let link = roots.claude.join("settings.json");
        std::os::unix::fs::symlink("../dotfiles/claude/settings.json", &link).unwrap();

        let report = install_with(&roots, Agent::Claude, CMD).unwrap();
        assert!(report.changed);
        let meta = std::fs::symlink_metadata(&link).unwrap();
        assert!(
            meta.file_type().is_symlink(),
            "the link was replaced by a file"
        );
        assert_eq!(
            std::fs::read_link(&link).unwrap(),
            Path::new("../dotfiles/claude/settings.json")
        );
        let written = std::fs::read_to_string(&target).unwrap();
        assert!(written.contains("ExitPlanMode"), "{written}");
        assert_eq!(
            std::fs::metadata(&target).unwrap().permissions().mode() & 0o777,
            0o640,
            "the target keeps its mode"
        );
        // The backup is a private copy of what was there.
        let backup = PathBuf::from(report.backup_path.unwrap());
        assert_eq!(std::fs::read_to_string(&backup).unwrap(), original);
        assert_eq!(
            std::fs::metadata(&backup).unwrap().permissions().mode() & 0o777,
            0o600
        );
        // No temporary file is left beside the target or the link.
        for dir in [&dotfiles, &roots.claude] {
            for e in std::fs::read_dir(dir).unwrap() {
                let name = e.unwrap().file_name().to_string_lossy().into_owned();
                assert!(!name.contains("plandeck-tmp"), "{name}");
            }
        }

        uninstall(&roots, Agent::Claude).unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(
            std::fs::read_to_string(&target).unwrap(),
            roundtrip(original)
        );
    }

    #[test]
    fn big_numbers_and_key_order_are_kept_exactly() {
        let (_d, roots) = roots();
        let path = roots.claude.join("settings.json");
        std::fs::create_dir_all(&roots.claude).unwrap();
        // 2^64 + 1 does not fit a u64, 1e400 does not fit an f64: both must stay these digits.
        let original = "{\n  \"zeta\": 18446744073709551617,\n  \"huge\": 1e400,\n  \"precise\": 0.10000000000000000000000001,\n  \"neg\": -18446744073709551617,\n  \"alpha\": {\n    \"z\": 1,\n    \"a\": 2\n  },\n  \"hooks\": {\n    \"Stop\": [],\n    \"PermissionRequest\": [],\n    \"Notification\": []\n  },\n  \"beta\": true\n}\n";
        std::fs::write(&path, original).unwrap();

        install_with(&roots, Agent::Claude, CMD).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        // The one normalisation serde_json makes: an exponent gets its sign written (`1e+400`),
        // the same number.
        for literal in [
            "18446744073709551617",
            "-18446744073709551617",
            "1e+400",
            "0.10000000000000000000000001",
        ] {
            assert!(text.contains(literal), "{literal} lost in\n{text}");
        }
        let order = ["zeta", "huge", "precise", "neg", "alpha", "hooks", "beta"];
        let at: Vec<usize> = order
            .iter()
            .map(|k| text.find(&format!("\"{k}\"")).unwrap())
            .collect();
        assert!(
            at.windows(2).all(|w| w[0] < w[1]),
            "key order lost:\n{text}"
        );
        assert!(text.find("\"z\"").unwrap() < text.find("\"a\"").unwrap());
        assert!(
            text.find("\"Stop\"").unwrap() < text.find("\"PermissionRequest\"").unwrap()
                && text.find("\"PermissionRequest\"").unwrap()
                    < text.find("\"Notification\"").unwrap(),
            "{text}"
        );

        // Uninstall gives back the very file (it was in the pretty form), but for that sign.
        uninstall(&roots, Agent::Claude).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            original.replace("1e400", "1e+400")
        );
    }

    #[test]
    fn uninstall_keeps_the_order_of_the_keys_after_what_it_removes() {
        let (_d, roots) = roots();
        let path = roots.claude.join("settings.json");
        std::fs::create_dir_all(&roots.claude).unwrap();
        let original = "{\n  \"a\": 1,\n  \"b\": 2,\n  \"c\": 3\n}\n";
        std::fs::write(&path, original).unwrap();
        install_with(&roots, Agent::Claude, CMD).unwrap();
        // The person adds keys after ours meanwhile.
        let mut v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let obj = v.as_object_mut().unwrap();
        obj.insert("d".into(), 4.into());
        obj.insert("e".into(), 5.into());
        std::fs::write(&path, serde_json::to_string_pretty(&v).unwrap() + "\n").unwrap();
        uninstall(&roots, Agent::Claude).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\n  \"a\": 1,\n  \"b\": 2,\n  \"c\": 3,\n  \"d\": 4,\n  \"e\": 5\n}\n"
        );
    }

    #[test]
    fn a_change_between_the_preview_and_the_write_is_refused() {
        let (_d, roots) = roots();
        let path = roots.claude.join("settings.json");
        std::fs::create_dir_all(&roots.claude).unwrap();
        std::fs::write(&path, "{\"model\": \"opus\"}\n").unwrap();
        let plan = install_plan_with(&roots, Agent::Claude, &hook_command(Agent::Claude).unwrap())
            .unwrap();

        // Claude Code (or an editor) writes the file after the person saw the change.
        let theirs = "{\"model\": \"sonnet\", \"env\": {\"KEY\": \"v\"}}\n";
        std::fs::write(&path, theirs).unwrap();
        let err = install_if_unchanged(&roots, Agent::Claude, &plan.token).unwrap_err();
        assert!(matches!(err, GateError::SettingsChanged { .. }), "{err}");
        assert!(err.to_string().contains("changed since"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), theirs);
        let names: Vec<String> = std::fs::read_dir(&roots.claude)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["settings.json"], "no backup, no temp file left");
        assert!(
            !record_path(&roots, Agent::Claude).exists(),
            "a refused install leaves no record"
        );

        // The change shown again is written.
        let plan = install_plan(&roots, Agent::Claude).unwrap();
        install_if_unchanged(&roots, Agent::Claude, &plan.token).unwrap();
        let plan = uninstall_plan(&roots, Agent::Claude).unwrap();
        std::fs::write(&path, theirs).unwrap();
        let err = uninstall_if_unchanged(&roots, Agent::Claude, &plan.token).unwrap_err();
        assert!(matches!(err, GateError::SettingsChanged { .. }), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), theirs);
    }

    #[test]
    fn a_file_that_appears_before_the_write_is_not_overwritten() {
        let (_d, roots) = roots();
        let plan = install_plan(&roots, Agent::Gemini).unwrap();
        assert_eq!(plan.before, "");
        let path = roots.gemini.join("settings.json");
        std::fs::create_dir_all(&roots.gemini).unwrap();
        std::fs::write(&path, "{\"theme\": \"x\"}").unwrap();
        let err = install_if_unchanged(&roots, Agent::Gemini, &plan.token).unwrap_err();
        assert!(matches!(err, GateError::SettingsChanged { .. }), "{err}");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\"theme\": \"x\"}"
        );
    }

    #[test]
    fn ours_is_recognised_by_executable_name() {
        assert!(is_ours("/usr/bin/plandeck hook claude", Agent::Claude));
        assert!(is_ours(
            "'/my apps/plandeck-cli' hook claude",
            Agent::Claude
        ));
        assert!(!is_ours("/usr/bin/plandeck hook gemini", Agent::Claude));
        assert!(!is_ours("/usr/bin/other hook claude", Agent::Claude));
    }
}
