//! Installing the `Stop` hook (`plandeck hook <agent>-stop`) into the settings of the agent that
//! has one ([`crate::agents::Descriptor::stop_hook`]: Claude Code), and taking it out again, with
//! the same preview → token → apply machinery as the plan-approval hooks ([`crate::hooks`]): the
//! change is shown first and written only while it is still that change, every other key and
//! number kept, a backup beside the file, and uninstall removes exactly what install added.

use crate::agents::{Agent, Descriptor, HookShape};
use crate::config::Roots;
use crate::gate::{GateError, HookPreview, InstallPlan, InstallReport};
use crate::hooks::{self, Hook};

/// The agent that has a Stop hook (Claude Code), with its shape.
fn stop_hook_of() -> Result<(&'static Descriptor, HookShape), GateError> {
    crate::agents::all()
        .iter()
        .find_map(|d| d.stop_hook.map(|h| (d, h)))
        .ok_or_else(|| GateError::BadInput {
            message: "no agent Plandeck knows has a Stop hook".to_owned(),
        })
}

/// Plandeck's words after the executable in `agent`'s Stop hook: `hook <agent>-stop`.
fn stop_args(d: &Descriptor) -> String {
    format!("hook {}-stop", d.id)
}

/// The Stop hook in its agent's settings; what install created is remembered in
/// `<data>/verify/install-<agent>-stop.json`.
fn stop_hook(roots: &Roots) -> Result<Hook, GateError> {
    let (d, shape) = stop_hook_of()?;
    Ok(Hook {
        settings: (shape.settings_file)((d.root)(roots)),
        record: roots
            .data
            .join("verify")
            .join(format!("install-{}-stop.json", d.id)),
        event: shape.event,
        args: stop_args(d),
        group: shape.group,
        what: " the Stop hook",
    })
}

/// The agent whose Stop hook verify installs: the one that has one (Claude Code).
pub(crate) fn stop_hook_agent() -> Agent {
    stop_hook_of().map_or(Agent::Other, |(d, _)| d.agent)
}

/// The command its agent runs: this executable, `hook <agent>-stop`.
pub fn stop_hook_command() -> Result<String, GateError> {
    Ok(hooks::self_command(&stop_args(stop_hook_of()?.0))?)
}

/// What installing the Stop hook (with `command`) would write, without writing.
pub fn install_plan_with(roots: &Roots, command: &str) -> Result<InstallPlan, GateError> {
    Ok(stop_hook(roots)?.install_plan(command)?)
}

/// What installing the Stop hook would write, without writing.
pub fn install_plan(roots: &Roots) -> Result<InstallPlan, GateError> {
    install_plan_with(roots, &stop_hook_command()?)
}

/// Installs the Stop hook only if installing is still exactly the change `token` names.
pub fn install_if_unchanged(roots: &Roots, token: &str) -> Result<InstallReport, GateError> {
    Ok(stop_hook(roots)?.install(&stop_hook_command()?, Some(token))?)
}

/// Installs the Stop hook with a given command (tests install a known path).
pub fn install_with(roots: &Roots, command: &str) -> Result<InstallReport, GateError> {
    Ok(stop_hook(roots)?.install(command, None)?)
}

/// What uninstalling the Stop hook would write.
pub fn uninstall_plan(roots: &Roots) -> Result<InstallPlan, GateError> {
    Ok(stop_hook(roots)?.uninstall_plan()?)
}

/// Uninstalls the Stop hook only if that is still exactly the change `token` names.
pub fn uninstall_if_unchanged(roots: &Roots, token: &str) -> Result<InstallReport, GateError> {
    Ok(stop_hook(roots)?.uninstall(Some(token))?)
}

/// Whether the Stop hook is in its agent's settings now.
pub fn installed(roots: &Roots) -> bool {
    match (stop_hook_command(), stop_hook(roots)) {
        (Ok(c), Ok(hook)) => hook.installed(&c),
        _ => false,
    }
}

/// What the settings view shows for the Stop hook, as for the plan-approval hooks
/// ([`crate::gate::hook_preview`]): whether it is installed, and the diff of installing (or
/// uninstalling) it with the token naming that change.
pub fn hook_preview(roots: &Roots) -> Result<HookPreview, GateError> {
    hook_preview_with(roots, &stop_hook_command()?)
}

/// [`hook_preview`] for a given hook command (tests install a known path).
pub fn hook_preview_with(roots: &Roots, command: &str) -> Result<HookPreview, GateError> {
    Ok(stop_hook(roots)?.preview(stop_hook_agent(), command)?)
}

/// Writes the change the settings view showed: installs (`install`) or uninstalls the Stop hook,
/// only while that is still exactly the change `token` names (what is written is what was shown).
pub fn set_if_unchanged(
    roots: &Roots,
    install: bool,
    token: &str,
) -> Result<InstallReport, GateError> {
    stop_hook(roots)?.set_if_unchanged(install, stop_hook_command, token)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::claude;
    use crate::hooks::HookError;
    use serde_json::Value;

    fn claude_settings(roots: &Roots) -> std::path::PathBuf {
        claude::settings_file(&roots.claude)
    }

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
            Err(GateError::Hook(HookError::SettingsChanged { .. }))
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
            Err(GateError::Hook(HookError::SettingsChanged { .. }))
        ));
        assert_eq!(std::fs::read_to_string(&settings).unwrap(), "{\"x\": 1}\n");
    }
}
