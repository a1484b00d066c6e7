//! The agents a person can start: the terminal agents Plandeck knows ([`crate::agents::all`]) and
//! the ACP agents it ships entries for, each found on the `PATH` or under the npm prefix's `bin`
//! (never installed without the person's say). `plandeck agents list --json`.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::config::Env;

/// An ACP agent Plandeck ships an entry for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AcpEntry {
    /// Its name in Plandeck (`--agent claude-acp`).
    pub name: &'static str,
    pub display_name: &'static str,
    /// The program and its arguments.
    pub program: &'static str,
    pub args: &'static [&'static str],
    /// The npm package that brings it.
    pub package: &'static str,
    /// Whether its plan approval comes as a permission request (docs/agents.md, "Agents over
    /// ACP"): false where it has no plan mode over ACP (codex-acp 0.16) or none was seen.
    pub plan_gate: bool,
    /// The variables of Plandeck's environment it is started with, beside the basics
    /// ([`super::BASIC_ENV`]): its model API's key and address, its own settings (`NAME`, or a
    /// prefix `NAME_*`). Nothing else of Plandeck's environment reaches it ([`super::agent_env`]).
    pub env: &'static [&'static str],
}

/// The ACP agents Plandeck ships entries for, in the order lists show them.
pub const ACP_AGENTS: &[AcpEntry] = &[
    AcpEntry {
        name: "claude-acp",
        display_name: "Claude Code (ACP)",
        program: "claude-agent-acp",
        args: &[],
        package: "@zed-industries/claude-agent-acp",
        plan_gate: true,
        env: &[
            "ANTHROPIC_*",
            "CLAUDE_CODE_*",
            "CLAUDE_CONFIG_DIR",
            "IS_SANDBOX",
            "DISABLE_*",
        ],
    },
    AcpEntry {
        name: "codex-acp",
        display_name: "Codex (ACP)",
        program: "codex-acp",
        args: &[],
        package: "@zed-industries/codex-acp",
        plan_gate: false,
        env: &["OPENAI_*", "CODEX_*", "AZURE_OPENAI_*"],
    },
    AcpEntry {
        name: "gemini-acp",
        display_name: "Gemini CLI (ACP)",
        program: "gemini",
        args: &["--acp"],
        package: "@google/gemini-cli",
        plan_gate: true,
        env: &[
            "GEMINI_*",
            "GOOGLE_*",
            "GOOGLE_GENAI_*",
            "VERTEX_*",
            "CLOUDSDK_*",
        ],
    },
    AcpEntry {
        name: "opencode",
        display_name: "OpenCode (ACP)",
        program: "opencode",
        args: &["acp"],
        package: "opencode-ai",
        plan_gate: false,
        env: &[
            "OPENCODE_*",
            "OPENAI_*",
            "ANTHROPIC_*",
            "GEMINI_*",
            "GOOGLE_*",
            "OPENROUTER_*",
        ],
    },
];

/// The ACP entry named `name`.
pub fn acp_entry(name: &str) -> Option<&'static AcpEntry> {
    ACP_AGENTS.iter().find(|e| e.name == name)
}

/// How an agent is driven.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AgentKind {
    /// In a terminal (tmux): hooks and its screen.
    Terminal,
    /// Over ACP: structured plans and permissions.
    Acp,
}

/// What an agent can do, for the list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentCaps {
    /// Its plan approval waits for the person.
    pub plan_gate: bool,
    /// Its tool permissions wait for the person (every ACP agent's).
    pub permissions: bool,
    /// Its plan files are listed (terminal agents).
    pub plans: bool,
    /// Its sessions are listed from its records (terminal agents).
    pub sessions: bool,
}

/// One row of `agents list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentRow {
    pub name: String,
    pub display_name: String,
    pub kind: AgentKind,
    /// The command line, as it is started.
    pub command: String,
    pub found: bool,
    /// Where it was found.
    pub path: Option<PathBuf>,
    /// The npm package that brings it (ACP agents).
    pub package: Option<String>,
    pub capabilities: AgentCaps,
}

/// The folders a program is looked for in: the `PATH`'s, then the npm prefix's `bin`
/// (`NPM_CONFIG_PREFIX` / `npm_config_prefix`, else `prefix=` in `~/.npmrc`).
pub fn search_dirs(env: &Env) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = env
        .get("PATH")
        .map(|p| {
            std::env::split_paths(p)
                .filter(|d| d.is_absolute())
                .collect()
        })
        .unwrap_or_default();
    let prefix = env
        .get("NPM_CONFIG_PREFIX")
        .or_else(|| env.get("npm_config_prefix"))
        .map(PathBuf::from)
        .or_else(|| {
            let home = env.get("HOME")?;
            let rc = std::fs::read_to_string(Path::new(home).join(".npmrc")).ok()?;
            rc.lines().find_map(|l| {
                let (k, v) = l.split_once('=')?;
                (k.trim() == "prefix").then(|| {
                    let v = v.trim();
                    match v.strip_prefix("~/") {
                        Some(rest) => Path::new(home).join(rest),
                        None => PathBuf::from(v),
                    }
                })
            })
        });
    if let Some(p) = prefix.filter(|p| p.is_absolute()) {
        dirs.push(p.join("bin"));
    }
    dirs
}

/// `program` in the first of `dirs` holding an executable file of that name.
pub fn find(program: &str, dirs: &[PathBuf]) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    dirs.iter().map(|d| d.join(program)).find(|p| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    })
}

/// Every agent a person can start, terminal ones first.
pub fn list(env: &Env) -> Vec<AgentRow> {
    let dirs = search_dirs(env);
    let mut rows: Vec<AgentRow> = crate::agents::all()
        .iter()
        .map(|d| {
            let path = find(d.id, &dirs);
            AgentRow {
                name: d.id.to_owned(),
                display_name: d.display_name.to_owned(),
                kind: AgentKind::Terminal,
                command: d.id.to_owned(),
                found: path.is_some(),
                path,
                package: None,
                capabilities: AgentCaps {
                    plan_gate: d.capabilities.gate,
                    permissions: false,
                    plans: d.capabilities.plans,
                    sessions: d.capabilities.sessions,
                },
            }
        })
        .collect();
    rows.extend(ACP_AGENTS.iter().map(|e| {
        let path = find(e.program, &dirs);
        AgentRow {
            name: e.name.to_owned(),
            display_name: e.display_name.to_owned(),
            kind: AgentKind::Acp,
            command: std::iter::once(e.program)
                .chain(e.args.iter().copied())
                .collect::<Vec<_>>()
                .join(" "),
            found: path.is_some(),
            path,
            package: Some(e.package.to_owned()),
            capabilities: AgentCaps {
                plan_gate: e.plan_gate,
                permissions: true,
                plans: false,
                sessions: false,
            },
        }
    }));
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn exe(dir: &Path, name: &str) {
        std::fs::create_dir_all(dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn acp_agents_are_found_on_the_path_or_under_the_npm_prefix() {
        let t = tempfile::tempdir().unwrap();
        let bin = t.path().join("bin");
        let home = t.path().join("home");
        exe(&bin, "claude");
        exe(&bin, "gemini");
        exe(&home.join(".npm-global/bin"), "claude-agent-acp");
        // Not executable: not found.
        std::fs::write(bin.join("codex-acp"), "").unwrap();
        std::fs::create_dir_all(&home).unwrap();
        std::fs::write(home.join(".npmrc"), "color=false\nprefix = ~/.npm-global\n").unwrap();
        let env = Env::from_pairs([
            ("PATH", bin.to_str().unwrap()),
            ("HOME", home.to_str().unwrap()),
        ]);
        let rows = list(&env);
        let row = |n: &str| rows.iter().find(|r| r.name == n).unwrap();
        assert_eq!(row("claude").kind, AgentKind::Terminal);
        assert!(row("claude").found && !row("codex").found);
        let c = row("claude-acp");
        assert_eq!((c.kind, c.found), (AgentKind::Acp, true));
        assert_eq!(
            c.path.as_deref(),
            Some(home.join(".npm-global/bin/claude-agent-acp").as_path())
        );
        assert!(c.capabilities.plan_gate && c.capabilities.permissions);
        assert!(!row("codex-acp").found);
        assert!(!row("codex-acp").capabilities.plan_gate);
        assert_eq!(row("gemini-acp").command, "gemini --acp");
        assert!(row("gemini-acp").found);
        assert_eq!(row("opencode").command, "opencode acp");
        let names: Vec<_> = rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "claude",
                "gemini",
                "codex",
                "claude-acp",
                "codex-acp",
                "gemini-acp",
                "opencode"
            ]
        );
    }

    #[test]
    fn npm_config_prefix_wins_and_relative_folders_are_not_searched() {
        let env = Env::from_pairs([
            ("PATH", "relative:/usr/bin"),
            ("NPM_CONFIG_PREFIX", "/opt/npm"),
        ]);
        assert_eq!(
            search_dirs(&env),
            [PathBuf::from("/usr/bin"), PathBuf::from("/opt/npm/bin")]
        );
    }
}

/// An ACP agent the window's New session offers: its name, its words, whether it was found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct AcpAgentChoice {
    pub name: String,
    pub display_name: String,
    pub found: bool,
    /// The npm package that brings it (for "not installed").
    pub package: String,
}

/// The ACP agents a person can start here, found or not.
pub fn acp_choices(env: &Env) -> Vec<AcpAgentChoice> {
    let dirs = search_dirs(env);
    ACP_AGENTS
        .iter()
        .map(|e| AcpAgentChoice {
            name: e.name.to_owned(),
            display_name: e.display_name.to_owned(),
            found: find(e.program, &dirs).is_some(),
            package: e.package.to_owned(),
        })
        .collect()
}

/// TypeScript declarations of the types this module sends over IPC.
pub(crate) fn ts_declarations() -> Vec<String> {
    vec![<AcpAgentChoice as ts_rs::TS>::decl()]
}
