//! Installing the hooks into the agents' user settings, and taking them out again.
//!
//! The hook is merged into the existing JSON with every other key kept in place (order too); a
//! backup of the file is written beside it first. What install created (the `hooks` object, the
//! event's array) is remembered in `<data>/gate/install-<agent>.json`, so uninstall removes exactly
//! what install added and leaves the rest equal to the original after a JSON round trip.
//! No policy rule allowing `exit_plan_mode` is ever written (it would let plans through unread).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::json::J;
use super::store::{gate_dir, read_json, write_json};
use super::GateError;
use crate::agent::Agent;
use crate::config::Roots;

/// Claude Code's hook timeout (seconds): long, so the hook's own deadline always comes first.
pub const CLAUDE_HOOK_TIMEOUT_SECS: u64 = 86_400;
/// Gemini CLI's hook timeout (milliseconds): the hook returns at once, this is only a bound.
pub const GEMINI_HOOK_TIMEOUT_MS: u64 = 10_000;

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
struct Record {
    created_hooks: bool,
    created_event: bool,
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

fn settings_path(roots: &Roots, agent: Agent) -> PathBuf {
    match agent {
        Agent::Gemini => roots.gemini.join("settings.json"),
        _ => roots.claude.join("settings.json"),
    }
}

fn record_path(roots: &Roots, agent: Agent) -> PathBuf {
    gate_dir(roots).join(format!("install-{agent}.json"))
}

/// The command the agent runs: this executable, `hook <agent>`.
pub fn hook_command(agent: Agent) -> String {
    let exe = std::env::current_exe()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|_| "plandeck".to_owned());
    let exe = if exe.contains(|c: char| c.is_whitespace() || c == '\'' || c == '"') {
        format!("'{}'", exe.replace('\'', "'\\''"))
    } else {
        exe
    };
    format!("{exe} hook {agent}")
}

/// Whether `command` is a Plandeck hook for `agent` (any install location).
fn is_ours(command: &str, agent: Agent) -> bool {
    if command.trim() == hook_command(agent) {
        return true;
    }
    let Some(exe) = command.trim().strip_suffix(&format!(" hook {agent}")) else {
        return false;
    };
    let exe = exe.trim().trim_matches(|c| c == '\'' || c == '"');
    Path::new(exe)
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("plandeck"))
}

fn our_group(agent: Agent, spec: &Spec, command: &str) -> J {
    let hook = match agent {
        Agent::Gemini => J::obj(vec![
            ("type", J::Str("command".into())),
            ("name", J::Str("plandeck".into())),
            ("command", J::Str(command.into())),
            ("timeout", J::Num(GEMINI_HOOK_TIMEOUT_MS.into())),
        ]),
        _ => J::obj(vec![
            ("type", J::Str("command".into())),
            ("command", J::Str(command.into())),
            ("timeout", J::Num(CLAUDE_HOOK_TIMEOUT_SECS.into())),
        ]),
    };
    J::obj(vec![
        ("matcher", J::Str(spec.matcher.into())),
        ("hooks", J::Arr(vec![hook])),
    ])
}

fn read_settings(path: &Path) -> Result<(String, J), GateError> {
    let text = match std::fs::read(path) {
        Ok(b) => String::from_utf8(b).map_err(|_| GateError::BadInput {
            message: format!("{} is not UTF-8 text; not touching it", path.display()),
        })?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(source) => {
            return Err(GateError::Read {
                path: path.to_owned(),
                source,
            })
        }
    };
    if text.trim().is_empty() {
        return Ok((text, J::Obj(Vec::new())));
    }
    let j: J = serde_json::from_str(&text).map_err(|e| GateError::Parse {
        path: path.to_owned(),
        message: format!("{e}; fix it first, Plandeck will not overwrite it"),
    })?;
    if !matches!(j, J::Obj(_)) {
        return Err(GateError::BadInput {
            message: format!("{} does not hold a JSON object", path.display()),
        });
    }
    Ok((text, j))
}

/// Takes every Plandeck hook for `agent` out of the event's array; drops groups left empty by it.
fn strip_ours(root: &mut J, agent: Agent, spec: &Spec) -> Result<(), GateError> {
    let Some(arr) = root.get_mut("hooks").and_then(|h| h.get_mut(spec.event)) else {
        return Ok(());
    };
    let J::Arr(groups) = arr else {
        return Err(GateError::BadInput {
            message: format!("hooks.{} is not an array", spec.event),
        });
    };
    groups.retain_mut(|group| {
        let Some(J::Arr(hooks)) = group.get_mut("hooks") else {
            return true;
        };
        let before = hooks.len();
        hooks.retain(|h| {
            !h.get("command")
                .and_then(J::as_str)
                .is_some_and(|c| is_ours(c, agent))
        });
        !(before > 0 && hooks.is_empty() && before != hooks.len())
    });
    Ok(())
}

fn merged(
    roots: &Roots,
    agent: Agent,
    command: &str,
) -> Result<(PathBuf, String, J, Record), GateError> {
    let spec = spec(agent)?;
    let path = settings_path(roots, agent);
    let (text, mut root) = read_settings(&path)?;
    let mut record = Record::default();
    match root.get("hooks") {
        None => {
            record.created_hooks = true;
            root.insert("hooks", J::Obj(Vec::new()));
        }
        Some(J::Obj(_)) => {}
        Some(_) => {
            return Err(GateError::BadInput {
                message: format!("{}: `hooks` is not an object", path.display()),
            })
        }
    }
    if root.get("hooks").and_then(|h| h.get(spec.event)).is_none() {
        record.created_event = true;
        if let Some(h) = root.get_mut("hooks") {
            h.insert(spec.event, J::Arr(Vec::new()));
        }
    }
    strip_ours(&mut root, agent, &spec)?;
    if let Some(J::Arr(groups)) = root.get_mut("hooks").and_then(|h| h.get_mut(spec.event)) {
        groups.push(our_group(agent, &spec, command));
    }
    Ok((path, text, root, record))
}

/// What [`install`] would write, without writing.
pub fn install_plan(roots: &Roots, agent: Agent) -> Result<InstallPlan, GateError> {
    install_plan_with(roots, agent, &hook_command(agent))
}

/// [`install_plan`] for a given hook command.
pub fn install_plan_with(
    roots: &Roots,
    agent: Agent,
    command: &str,
) -> Result<InstallPlan, GateError> {
    let (path, before, root, _) = merged(roots, agent, command)?;
    let after = root.to_pretty();
    Ok(InstallPlan {
        settings_path: path.to_string_lossy().into_owned(),
        changed: after != before,
        before,
        after,
    })
}

/// Installs the hook for `agent` (this executable's `hook <agent>`).
pub fn install(roots: &Roots, agent: Agent) -> Result<InstallReport, GateError> {
    install_with(roots, agent, &hook_command(agent))
}

/// [`install`] with a given hook command (tests install a known path).
pub fn install_with(
    roots: &Roots,
    agent: Agent,
    command: &str,
) -> Result<InstallReport, GateError> {
    let (path, before, root, record) = merged(roots, agent, command)?;
    let after = root.to_pretty();
    // A reinstall keeps the record of the first install: those containers are still ours.
    let rec_path = record_path(roots, agent);
    if read_json::<Record>(&rec_path).ok().flatten().is_none() {
        write_json(&rec_path, &record)?;
    }
    write_settings(&path, &before, &after, "installed")
}

/// The plan of [`uninstall`]: the file with Plandeck's hook taken out.
pub fn uninstall_plan(roots: &Roots, agent: Agent) -> Result<InstallPlan, GateError> {
    let (path, before, root) = unmerged(roots, agent)?;
    let after = root.to_pretty();
    let changed = !before.is_empty() && after != before;
    Ok(InstallPlan {
        settings_path: path.to_string_lossy().into_owned(),
        before,
        after,
        changed,
    })
}

fn unmerged(roots: &Roots, agent: Agent) -> Result<(PathBuf, String, J), GateError> {
    let spec = spec(agent)?;
    let path = settings_path(roots, agent);
    let (text, mut root) = read_settings(&path)?;
    let record = read_json::<Record>(&record_path(roots, agent))
        .ok()
        .flatten()
        .unwrap_or_default();
    strip_ours(&mut root, agent, &spec)?;
    if record.created_event {
        if let Some(h) = root.get_mut("hooks") {
            if matches!(h.get(spec.event), Some(J::Arr(a)) if a.is_empty()) {
                h.remove(spec.event);
            }
        }
    }
    if record.created_hooks && matches!(root.get("hooks"), Some(J::Obj(m)) if m.is_empty()) {
        root.remove("hooks");
    }
    Ok((path, text, root))
}

/// Removes exactly what [`install`] added. Idempotent.
pub fn uninstall(roots: &Roots, agent: Agent) -> Result<InstallReport, GateError> {
    let (path, before, root) = unmerged(roots, agent)?;
    let report = if before.is_empty() {
        InstallReport {
            settings_path: path.to_string_lossy().into_owned(),
            backup_path: None,
            changed: false,
            message: "no settings file: nothing to uninstall".to_owned(),
        }
    } else {
        write_settings(&path, &before, &root.to_pretty(), "uninstalled")?
    };
    let _ = std::fs::remove_file(record_path(roots, agent));
    Ok(report)
}

fn write_settings(
    path: &Path,
    before: &str,
    after: &str,
    verb: &str,
) -> Result<InstallReport, GateError> {
    let settings_path = path.to_string_lossy().into_owned();
    if before == after {
        return Ok(InstallReport {
            settings_path,
            backup_path: None,
            changed: false,
            message: format!("already {verb}: nothing to change"),
        });
    }
    let backup_path = if path.exists() {
        let stamp = time::OffsetDateTime::now_utc()
            .format(time::macros::format_description!(
                "[year][month][day]T[hour][minute][second]Z"
            ))
            .unwrap_or_default();
        let mut backup = PathBuf::from(format!("{}.plandeck-backup-{stamp}", path.display()));
        let mut n = 1;
        while backup.exists() {
            n += 1;
            backup = PathBuf::from(format!("{}.plandeck-backup-{stamp}-{n}", path.display()));
        }
        crate::fsx::write_atomic(&backup, before.as_bytes())?;
        Some(backup.to_string_lossy().into_owned())
    } else {
        None
    };
    crate::fsx::write_atomic(path, after.as_bytes())?;
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

#[cfg(test)]
mod tests {
    use super::*;

    const CMD: &str = "/opt/plandeck/bin/plandeck hook claude";

    fn roots() -> (tempfile::TempDir, Roots) {
        let dir = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(dir.path());
        (dir, roots)
    }

    fn roundtrip(text: &str) -> String {
        serde_json::from_str::<J>(text).unwrap().to_pretty()
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
    })
}
