//! Installing the plan-approval hooks into the agents' user settings, and taking them out again:
//! where each agent's hook goes and what it looks like is the agent's ([`crate::agents`]), the
//! preview → token → apply machinery is [`crate::hooks`]'s. What install created is remembered in
//! `<data>/gate/install-<agent>.json`.
//! No policy rule allowing `exit_plan_mode` is ever written (it would let plans through unread).

use std::path::PathBuf;

use super::store::gate_dir;
use super::GateError;
use crate::agents::Agent;
use crate::config::Roots;
use crate::hooks::{self, Hook};
pub use crate::hooks::{HookPreview, InstallPlan, InstallReport};

/// Claude Code's hook timeout (seconds): long, so the hook's own deadline always comes first.
pub const CLAUDE_HOOK_TIMEOUT_SECS: u64 = crate::agents::claude::HOOK_TIMEOUT_SECS;
/// Gemini CLI's hook timeout (milliseconds): the hook returns at once, this is only a bound.
pub const GEMINI_HOOK_TIMEOUT_MS: u64 = crate::agents::gemini::HOOK_TIMEOUT_MS;

/// `agent`'s plan-approval hook, where it goes in its settings.
fn plan_hook(roots: &Roots, agent: Agent) -> Result<Hook, GateError> {
    let Some((d, shape)) = agent
        .descriptor()
        .and_then(|d| d.plan_hook.map(|shape| (d, shape)))
    else {
        return Err(GateError::BadInput {
            message: format!("no plan-approval hook for {}", agent.display_name()),
        });
    };
    Ok(Hook {
        settings: (shape.settings_file)((d.root)(roots)),
        record: record_path(roots, agent),
        event: shape.event,
        args: hook_args(agent),
        group: shape.group,
        what: "",
    })
}

fn record_path(roots: &Roots, agent: Agent) -> PathBuf {
    gate_dir(roots).join(format!("install-{agent}.json"))
}

/// Plandeck's words in `agent`'s hook command.
fn hook_args(agent: Agent) -> String {
    format!("hook {agent}")
}

/// The command the agent runs: this executable, `hook <agent>`.
pub fn hook_command(agent: Agent) -> Result<String, GateError> {
    Ok(hooks::self_command(&hook_args(agent))?)
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
    Ok(plan_hook(roots, agent)?.install_plan(command)?)
}

/// Installs the hook for `agent` (this executable's `hook <agent>`).
pub fn install(roots: &Roots, agent: Agent) -> Result<InstallReport, GateError> {
    install_with(roots, agent, &hook_command(agent)?)
}

/// Installs the hook only if installing is still exactly the change `token` names (the plan that
/// was shown); otherwise refuses with [`crate::hooks::HookError::SettingsChanged`] and writes nothing.
pub fn install_if_unchanged(
    roots: &Roots,
    agent: Agent,
    token: &str,
) -> Result<InstallReport, GateError> {
    Ok(plan_hook(roots, agent)?.install(&hook_command(agent)?, Some(token))?)
}

/// [`install`] with a given hook command (tests install a known path).
pub fn install_with(
    roots: &Roots,
    agent: Agent,
    command: &str,
) -> Result<InstallReport, GateError> {
    Ok(plan_hook(roots, agent)?.install(command, None)?)
}

/// The plan of [`uninstall`]: the file with Plandeck's hook taken out.
pub fn uninstall_plan(roots: &Roots, agent: Agent) -> Result<InstallPlan, GateError> {
    Ok(plan_hook(roots, agent)?.uninstall_plan()?)
}

/// Removes exactly what [`install`] added. Idempotent.
pub fn uninstall(roots: &Roots, agent: Agent) -> Result<InstallReport, GateError> {
    Ok(plan_hook(roots, agent)?.uninstall(None)?)
}

/// [`uninstall`] only if uninstalling is still exactly the change `token` names.
pub fn uninstall_if_unchanged(
    roots: &Roots,
    agent: Agent,
    token: &str,
) -> Result<InstallReport, GateError> {
    Ok(plan_hook(roots, agent)?.uninstall(Some(token))?)
}

/// The hook's state for `agent` and the diff of toggling it.
pub fn hook_preview(roots: &Roots, agent: Agent) -> Result<HookPreview, GateError> {
    Ok(plan_hook(roots, agent)?.preview(agent, &hook_command(agent)?)?)
}

#[cfg(test)]
mod tests {
    use crate::hooks::HookError;
    use std::path::Path;

    use super::*;
    use crate::hooks::{command_for, pretty};
    use serde_json::Value;

    const CMD: &str = "/opt/plandeck/bin/plandeck hook claude";

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
        assert!(
            matches!(err, GateError::Hook(HookError::Parse { .. })),
            "{err}"
        );
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
        assert!(
            matches!(err, GateError::Hook(HookError::SettingsChanged { .. })),
            "{err}"
        );
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
        assert!(
            matches!(err, GateError::Hook(HookError::SettingsChanged { .. })),
            "{err}"
        );
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
        assert!(
            matches!(err, GateError::Hook(HookError::SettingsChanged { .. })),
            "{err}"
        );
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\"theme\": \"x\"}"
        );
    }
}
