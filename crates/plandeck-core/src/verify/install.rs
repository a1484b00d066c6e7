//! Installing the Claude Code `Stop` hook (`plandeck hook claude-stop`) into Claude's settings, and
//! taking it out again: the same rules as the plan-approval hook ([`crate::gate`]'s install): the
//! change is shown first and written only while it is still that change, every other key and
//! number kept, a backup beside the file, and uninstall removes exactly what install added.

use std::path::PathBuf;

use serde_json::{Map, Value};

use crate::config::Roots;
use crate::gate::install::{
    check_token, ensure_hook_event, plan_of, pretty, read_settings, settings_path, write_settings,
    Record,
};
use crate::gate::{GateError, HookPreview, InstallPlan, InstallReport};

const EVENT: &str = "Stop";
/// Claude Code's timeout for the Stop hook (seconds): a report takes well under a second; this
/// only bounds a hook that hangs.
pub const STOP_HOOK_TIMEOUT_SECS: u64 = 60;

fn record_path(roots: &Roots) -> PathBuf {
    roots.data.join("verify").join("install-claude-stop.json")
}

/// The command Claude Code runs: this executable, `hook claude-stop`.
pub fn stop_hook_command() -> Result<String, GateError> {
    crate::gate::install::self_command(STOP_ARGS)
}

const STOP_ARGS: &str = "hook claude-stop";

fn strip_ours(root: &mut Map<String, Value>) -> Result<(), GateError> {
    crate::gate::install::strip_hooks(root, EVENT, |c| {
        crate::gate::install::runs_plandeck(c, STOP_ARGS)
    })
}

fn claude_settings(roots: &Roots) -> PathBuf {
    settings_path(roots, crate::agents::Agent::Claude)
}

/// What installing the Stop hook (with `command`) would write, without writing.
pub fn install_plan_with(roots: &Roots, command: &str) -> Result<InstallPlan, GateError> {
    Ok(merged(roots, command)?.0)
}

/// What installing the Stop hook would write, without writing.
pub fn install_plan(roots: &Roots) -> Result<InstallPlan, GateError> {
    install_plan_with(roots, &stop_hook_command()?)
}

fn merged(roots: &Roots, command: &str) -> Result<(InstallPlan, Record), GateError> {
    let read = read_settings(&claude_settings(roots))?;
    let mut root = read.root.clone();
    let record = ensure_hook_event(&mut root, &read.path, EVENT)?;
    strip_ours(&mut root)?;
    if let Some(Value::Array(groups)) = root
        .get_mut("hooks")
        .and_then(Value::as_object_mut)
        .and_then(|h| h.get_mut(EVENT))
    {
        groups.push(serde_json::json!({
            "hooks": [{
                "type": "command",
                "command": command,
                "timeout": STOP_HOOK_TIMEOUT_SECS,
            }]
        }));
    }
    let after = pretty(&root);
    Ok((plan_of(&read, after), record))
}

/// Installs the Stop hook only if installing is still exactly the change `token` names.
pub fn install_if_unchanged(roots: &Roots, token: &str) -> Result<InstallReport, GateError> {
    install_checked(roots, &stop_hook_command()?, Some(token))
}

/// Installs the Stop hook with a given command (tests install a known path).
pub fn install_with(roots: &Roots, command: &str) -> Result<InstallReport, GateError> {
    install_checked(roots, command, None)
}

fn install_checked(
    roots: &Roots,
    command: &str,
    expected: Option<&str>,
) -> Result<InstallReport, GateError> {
    let read = read_settings(&claude_settings(roots))?;
    let (plan, record) = merged(roots, command)?;
    check_token(&plan, expected)?;
    let report = write_settings(&read, &plan.after, "installed the Stop hook")?;
    let rec = record_path(roots);
    if !rec.exists() {
        let mut json = serde_json::to_vec(&record).unwrap_or_default();
        json.push(b'\n');
        crate::durable::write_private(&rec, &json)?;
    }
    Ok(report)
}

fn unmerged(roots: &Roots) -> Result<InstallPlan, GateError> {
    let read = read_settings(&claude_settings(roots))?;
    let mut root = read.root.clone();
    let record: Record = std::fs::read(record_path(roots))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    strip_ours(&mut root)?;
    if record.created_event {
        if let Some(Value::Object(h)) = root.get_mut("hooks") {
            if matches!(h.get(EVENT), Some(Value::Array(a)) if a.is_empty()) {
                h.shift_remove(EVENT);
            }
        }
    }
    if record.created_hooks && matches!(root.get("hooks"), Some(Value::Object(m)) if m.is_empty()) {
        root.shift_remove("hooks");
    }
    let after = if read.text.trim().is_empty() {
        read.text.clone()
    } else {
        pretty(&root)
    };
    Ok(plan_of(&read, after))
}

/// What uninstalling the Stop hook would write.
pub fn uninstall_plan(roots: &Roots) -> Result<InstallPlan, GateError> {
    unmerged(roots)
}

/// Uninstalls the Stop hook only if that is still exactly the change `token` names.
pub fn uninstall_if_unchanged(roots: &Roots, token: &str) -> Result<InstallReport, GateError> {
    let read = read_settings(&claude_settings(roots))?;
    let plan = unmerged(roots)?;
    check_token(&plan, Some(token))?;
    let report = write_settings(&read, &plan.after, "uninstalled the Stop hook")?;
    let _ = std::fs::remove_file(record_path(roots));
    Ok(report)
}

/// Whether the Stop hook is in Claude's settings now.
pub fn installed(roots: &Roots) -> bool {
    install_plan(roots).is_ok_and(|p| !p.changed)
}

/// What the settings view shows for the Stop hook, as for the plan-approval hooks
/// ([`crate::gate::hook_preview`]): whether it is installed, and the diff of installing (or
/// uninstalling) it with the token naming that change.
pub fn hook_preview(roots: &Roots) -> Result<HookPreview, GateError> {
    hook_preview_with(roots, &stop_hook_command()?)
}

/// [`hook_preview`] for a given hook command (tests install a known path).
pub fn hook_preview_with(roots: &Roots, command: &str) -> Result<HookPreview, GateError> {
    let install = install_plan_with(roots, command)?;
    let installed = !install.changed;
    let plan = if installed {
        uninstall_plan(roots)?
    } else {
        install
    };
    Ok(HookPreview {
        agent: crate::agents::Agent::Claude,
        settings_path: plan.settings_path.clone(),
        installed,
        diff: plan.unified_diff(),
        token: plan.token,
    })
}

/// Writes the change the settings view showed: installs (`install`) or uninstalls the Stop hook,
/// only while that is still exactly the change `token` names (what is written is what was shown).
pub fn set_if_unchanged(
    roots: &Roots,
    install: bool,
    token: &str,
) -> Result<InstallReport, GateError> {
    if install {
        install_if_unchanged(roots, token)
    } else {
        uninstall_if_unchanged(roots, token)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CMD: &str = "/opt/plandeck/bin/plandeck hook claude-stop";

    #[test]
    fn install_keeps_other_hooks_and_uninstall_removes_exactly_it() {
        let dir = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(dir.path());
        let settings = claude_settings(&roots);
        std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
        let original = "{\n  \"model\": \"x\",\n  \"n\": 100000000000000000001,\n  \"hooks\": {\n    \"PermissionRequest\": [\n      {\n        \"matcher\": \"ExitPlanMode\",\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"/opt/plandeck/bin/plandeck hook claude\"\n          }\n        ]\n      }\n    ]\n  }\n}\n";
        std::fs::write(&settings, original).unwrap();
        let plan = install_plan_with(&roots, CMD).unwrap();
        assert!(plan.changed);
        assert!(plan.unified_diff().contains("hook claude-stop"));
        install_with(&roots, CMD).unwrap();
        let after: Value =
            serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
        assert_eq!(after["hooks"]["Stop"][0]["hooks"][0]["command"], CMD);
        assert_eq!(
            after["hooks"]["PermissionRequest"][0]["hooks"][0]["command"],
            "/opt/plandeck/bin/plandeck hook claude"
        );
        assert!(
            !install_plan_with(&roots, CMD).unwrap().changed,
            "idempotent"
        );
        let un = uninstall_plan(&roots).unwrap();
        uninstall_if_unchanged(&roots, &un.token).unwrap();
        assert_eq!(std::fs::read_to_string(&settings).unwrap(), original);
    }

    #[test]
    fn the_settings_view_writes_what_its_preview_showed_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(dir.path());
        let settings = claude_settings(&roots);
        std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
        std::fs::write(&settings, "{\n  \"model\": \"x\"\n}\n").unwrap();
        let shown = hook_preview(&roots).unwrap();
        assert!(!shown.installed);
        assert!(shown.diff.contains("hook claude-stop"), "{}", shown.diff);
        assert!(shown.diff.contains("+    \"Stop\""), "{}", shown.diff);
        set_if_unchanged(&roots, true, &shown.token).unwrap();
        assert!(installed(&roots));
        let now = hook_preview(&roots).unwrap();
        assert!(now.installed, "the status follows the file");
        assert!(now.diff.contains("-    \"Stop\""), "{}", now.diff);
        // The uninstall shown, then the file changed: refused, the file kept as it is.
        let theirs = std::fs::read_to_string(&settings)
            .unwrap()
            .replace("\"x\"", "\"y\"");
        std::fs::write(&settings, &theirs).unwrap();
        assert!(matches!(
            set_if_unchanged(&roots, false, &now.token),
            Err(GateError::SettingsChanged { .. })
        ));
        assert_eq!(std::fs::read_to_string(&settings).unwrap(), theirs);
        let again = hook_preview(&roots).unwrap();
        set_if_unchanged(&roots, false, &again.token).unwrap();
        assert_eq!(
            std::fs::read_to_string(&settings).unwrap(),
            "{\n  \"model\": \"y\"\n}\n"
        );
    }

    #[test]
    fn a_changed_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(dir.path());
        let settings = claude_settings(&roots);
        std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
        std::fs::write(&settings, "{}\n").unwrap();
        let plan = install_plan(&roots).unwrap();
        std::fs::write(&settings, "{\"x\": 1}\n").unwrap();
        assert!(matches!(
            install_if_unchanged(&roots, &plan.token),
            Err(GateError::SettingsChanged { .. })
        ));
        assert_eq!(std::fs::read_to_string(&settings).unwrap(), "{\"x\": 1}\n");
    }
}
