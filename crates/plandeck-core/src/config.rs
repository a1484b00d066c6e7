//! Where each agent keeps its files, and where Plandeck keeps its own.
//!
//! Resolution order for each agent root: command-line flag, then the settings file
//! (`$XDG_CONFIG_HOME/plandeck/settings.json`, else `~/.config/plandeck/settings.json`), then the
//! agent's own environment variable (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`), then the default under
//! `$HOME`. Plandeck's store is `$XDG_DATA_HOME/plandeck`, else `~/.local/share/plandeck`.
//! Everything honours `$HOME`, so a test points the whole app at a temp dir by setting it.
//!
//! A demo workspace's home (it holds [`DEMO_MARKER`]) is self-contained: there the environment's
//! `XDG_DATA_HOME`, `XDG_CONFIG_HOME`, `CLAUDE_CONFIG_DIR` and `CODEX_HOME` are not read, so
//! `HOME=<demo> plandeck …` never reads or writes the person's own store or agents' folders.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::durable;

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("$HOME is not set, so Plandeck cannot tell where the agents keep their files")]
    NoHome,
    #[error("cannot read settings {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("settings {path} is not valid JSON: {source}")]
    Parse {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("{} is not a git repository", path.display())]
    NotARepository { path: PathBuf },
    #[error("{} is not a folder", path.display())]
    NotAFolder { path: PathBuf },
    #[error("{0}")]
    BadHost(String),
    #[error("no machine named {0:?} (`plandeck hosts list` shows them)")]
    NoSuchHost(String),
    #[error(transparent)]
    Write(#[from] durable::WriteError),
}

/// The file that makes a folder a demo workspace's home ([`crate::demo`]).
pub const DEMO_MARKER: &str = ".plandeck-demo";

/// A process environment, passed in rather than read globally so tests are hermetic.
#[derive(Debug, Clone, Default)]
pub struct Env {
    vars: HashMap<String, String>,
}

impl Env {
    /// The current process's environment.
    pub fn from_process() -> Self {
        Self {
            vars: std::env::vars().collect(),
        }
    }

    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        Self {
            vars: pairs
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect(),
        }
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        self.vars
            .get(key)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// Every variable, as given (for a process started with this environment).
    pub fn vars(&self) -> impl Iterator<Item = (&str, &str)> {
        self.vars.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

/// Where an agent keeps its files unless told otherwise, as its descriptor names it
/// (`crate::agents::Descriptor::root_spec`); config itself names no agent. Its root is, first
/// found: the flag `--<id>-root` ([`Overrides::agent_roots`]), the settings' `<id>Root`, the
/// environment variable `env`, `~/<home_dir>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RootSpec {
    /// The agent's id (`claude`).
    pub id: &'static str,
    /// Its own environment variable naming its root (`CLAUDE_CONFIG_DIR`), if it has one.
    pub env: Option<&'static str>,
    /// Its folder under `$HOME` (`.claude`).
    pub home_dir: &'static str,
}

impl RootSpec {
    /// The key of its root in the settings file: `<id>Root` (`claudeRoot`).
    pub fn settings_key(&self) -> String {
        format!("{}Root", self.id)
    }
}

/// Overrides given on the command line (`--claude-root` …). `None` means "not given".
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    /// `--<id>-root`, by agent id.
    pub agent_roots: BTreeMap<String, PathBuf>,
    pub data_dir: Option<PathBuf>,
    pub config_dir: Option<PathBuf>,
}

/// The user's settings file. Unknown keys are kept on save, so a newer Plandeck's settings survive
/// an older one.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    /// Folders of plans beyond the agents' own (any agent, or hand-written).
    #[serde(default)]
    pub extra_plan_folders: Vec<PathBuf>,
    /// Repositories whose worktrees are listed even when no session was seen in them.
    #[serde(default)]
    pub extra_repos: Vec<PathBuf>,
    /// Other machines, reached over the person's own SSH (`plandeck hosts add`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<Host>,
    /// Every other key, kept as it is: the agents' roots (`claudeRoot` …, [`Settings::root`])
    /// among them.
    #[serde(flatten)]
    pub other: serde_json::Map<String, serde_json::Value>,
}

impl Settings {
    /// The root the settings give the agent of `spec` (`<id>Root`), if any.
    pub fn root(&self, spec: &RootSpec) -> Result<Option<PathBuf>, serde_json::Error> {
        match self.other.get(&spec.settings_key()) {
            None | Some(serde_json::Value::Null) => Ok(None),
            Some(v) => serde_json::from_value(v.clone()).map(Some),
        }
    }

    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        match std::fs::read(path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|source| ConfigError::Parse {
                path: path.to_owned(),
                source,
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(source) => Err(ConfigError::Read {
                path: path.to_owned(),
                source,
            }),
        }
    }

    pub fn save(&self, path: &Path) -> Result<(), ConfigError> {
        let mut json = serde_json::to_vec_pretty(self).expect("settings serialize");
        json.push(b'\n');
        durable::write_private(path, &json)?;
        Ok(())
    }
}

/// Adds `repo` to the repositories whose worktrees are listed (`extraRepos` of the settings file
/// at `settings_path`, written atomically and privately). `repo` must be a git repository (its
/// `.git` folder or file is there). Returns whether it was new.
pub fn add_extra_repo(settings_path: &Path, repo: &Path) -> Result<bool, ConfigError> {
    if std::fs::symlink_metadata(repo.join(".git")).is_err() {
        return Err(ConfigError::NotARepository {
            path: repo.to_owned(),
        });
    }
    let mut settings = Settings::load(settings_path)?;
    if settings.extra_repos.iter().any(|r| r == repo) {
        return Ok(false);
    }
    settings.extra_repos.push(repo.to_owned());
    settings.save(settings_path)?;
    Ok(true)
}

/// Adds `folder` to the extra folders of plans (`extraPlanFolders` of the settings file at
/// `settings_path`, written atomically and privately). `folder` must be a folder. Returns whether it
/// was new.
pub fn add_extra_plan_folder(settings_path: &Path, folder: &Path) -> Result<bool, ConfigError> {
    if !folder.is_dir() {
        return Err(ConfigError::NotAFolder {
            path: folder.to_owned(),
        });
    }
    let mut settings = Settings::load(settings_path)?;
    if settings.extra_plan_folders.iter().any(|f| f == folder) {
        return Ok(false);
    }
    settings.extra_plan_folders.push(folder.to_owned());
    settings.save(settings_path)?;
    Ok(true)
}

/// Another machine, reached as `ssh … DEST plandeck serve --stdio` with the person's own SSH
/// config, agent and known hosts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Host {
    /// What the person calls it (`--host NAME`): letters, digits, `-`, `_`.
    pub name: String,
    /// Where ssh goes: `user@host`, `host`, or an alias of `~/.ssh/config`.
    pub ssh: String,
    /// Whether the person's ssh agent is forwarded to it (`plandeck hosts add --forward-agent`):
    /// off unless they turn it on, whatever their ssh config says. On, the remote's Plandeck and
    /// every agent it starts can use this machine's keys while connected.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub forward_agent: bool,
}

/// The longest machine name and SSH destination taken.
const MAX_HOST_NAME: usize = 64;
const MAX_SSH_DEST: usize = 255;

/// Checks a machine's name: 1 to 64 letters, digits, `-` or `_`, starting with a letter or digit.
pub fn check_host_name(name: &str) -> Result<(), ConfigError> {
    let ok = name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name.len() <= MAX_HOST_NAME
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if ok {
        Ok(())
    } else {
        Err(ConfigError::BadHost(format!(
            "a machine's name is 1 to {MAX_HOST_NAME} letters, digits, `-` or `_`, starting with a \
             letter or digit: {name:?} is not"
        )))
    }
}

/// Checks an SSH destination before it is ever given to ssh (as one argument): only
/// `user@host`, `host` (a name, an address or an alias of `~/.ssh/config`), an IPv6 address in
/// brackets, or `ssh://[user@]host[:port]`, each part of letters, digits, `.`, `_` and `-`, none
/// starting with `-` (ssh would read an option: `-oProxyCommand=…` runs a command). Nothing
/// a shell or ssh reads as more than a name gets through (`$(`, a backtick, `;`, `|`, `%`,
/// whitespace, a control character). ssh resolves what is left with the person's own config.
pub fn check_ssh_dest(dest: &str) -> Result<(), ConfigError> {
    fn word(w: &str) -> bool {
        !w.is_empty()
            && !w.starts_with('-')
            && w.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
    }
    fn host(h: &str) -> bool {
        match h.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
            Some(v6) => {
                v6.contains(':')
                    && v6
                        .chars()
                        .all(|c| c.is_ascii_hexdigit() || matches!(c, ':' | '.'))
            }
            None => word(h),
        }
    }
    fn user_at_host(d: &str) -> bool {
        match d.split_once('@') {
            Some((user, h)) => word(user) && host(h),
            None => host(d),
        }
    }
    let why = if dest.is_empty() {
        Some("it is empty")
    } else if dest.len() > MAX_SSH_DEST {
        Some("it is too long")
    } else if dest.starts_with('-') || dest.contains("@-") {
        Some("a part starts with `-`, which ssh would read as an option")
    } else if dest.chars().any(|c| c.is_whitespace() || c.is_control()) {
        Some("it holds whitespace or a control character")
    } else {
        let fits = match dest.strip_prefix("ssh://") {
            Some(rest) => {
                // A port after the last `:` that is not inside brackets.
                let (at, port) = match rest.rfind(':') {
                    Some(i) if !rest[i..].contains(']') => (&rest[..i], Some(&rest[i + 1..])),
                    _ => (rest, None),
                };
                user_at_host(at)
                    && port.is_none_or(|p| {
                        !p.is_empty() && p.len() <= 5 && p.chars().all(|c| c.is_ascii_digit())
                    })
            }
            None => user_at_host(dest),
        };
        (!fits).then_some(
            "only letters, digits, `.`, `_` and `-` are taken in a user or host name (and an \
             IPv6 address in brackets)",
        )
    };
    match why {
        None => Ok(()),
        Some(why) => Err(ConfigError::BadHost(format!(
            "not an SSH destination ({why}): give `user@host`, `host`, \
             `ssh://user@host:port` or an alias of ~/.ssh/config"
        ))),
    }
}

/// The machines of the settings file at `settings_path`, in the order they were added.
/// Each is checked again as it is read (the file may have been edited by hand or by another
/// program): one whose name or destination is not one is left out, and said in the log.
pub fn hosts(settings_path: &Path) -> Result<Vec<Host>, ConfigError> {
    Ok(Settings::load(settings_path)?
        .hosts
        .into_iter()
        .filter(|h| match check_host(h) {
            Ok(()) => true,
            Err(e) => {
                tracing::warn!("a machine of the settings is left out: {e}");
                false
            }
        })
        .collect())
}

/// Checks a machine read from the settings: its name and its destination.
pub fn check_host(host: &Host) -> Result<(), ConfigError> {
    check_host_name(&host.name)?;
    check_ssh_dest(&host.ssh)
}

/// The machine named `name`, its destination checked again (the file may have been edited).
pub fn host(settings_path: &Path, name: &str) -> Result<Host, ConfigError> {
    let host = Settings::load(settings_path)?
        .hosts
        .into_iter()
        .find(|h| h.name == name)
        .ok_or_else(|| ConfigError::NoSuchHost(name.to_owned()))?;
    check_host(&host)?;
    Ok(host)
}

/// Adds the machine `name` at `ssh` to the settings file (written atomically and privately).
/// Refused when the name or destination is not one, or the name is taken.
pub fn add_host(settings_path: &Path, name: &str, ssh: &str) -> Result<Host, ConfigError> {
    add_host_with(settings_path, name, ssh, false)
}

/// [`add_host`], with the person's ssh agent forwarded there when `forward_agent`.
pub fn add_host_with(
    settings_path: &Path,
    name: &str,
    ssh: &str,
    forward_agent: bool,
) -> Result<Host, ConfigError> {
    check_host_name(name)?;
    check_ssh_dest(ssh)?;
    let mut settings = Settings::load(settings_path)?;
    if let Some(taken) = settings.hosts.iter().find(|h| h.name == name) {
        return Err(ConfigError::BadHost(format!(
            "a machine named {name:?} is already there ({}): remove it first",
            taken.ssh
        )));
    }
    let host = Host {
        name: name.to_owned(),
        ssh: ssh.to_owned(),
        forward_agent,
    };
    settings.hosts.push(host.clone());
    settings.save(settings_path)?;
    Ok(host)
}

/// Removes the machine `name` from the settings file; returns what it was.
pub fn remove_host(settings_path: &Path, name: &str) -> Result<Host, ConfigError> {
    let mut settings = Settings::load(settings_path)?;
    let i = settings
        .hosts
        .iter()
        .position(|h| h.name == name)
        .ok_or_else(|| ConfigError::NoSuchHost(name.to_owned()))?;
    let host = settings.hosts.remove(i);
    settings.save(settings_path)?;
    Ok(host)
}

/// Every folder Plandeck reads or writes, resolved once at start-up.
#[derive(Debug, Clone, PartialEq)]
pub struct Roots {
    pub home: PathBuf,
    /// Each agent's root by its id ([`RootSpec`], [`Roots::root`]).
    pub agents: BTreeMap<String, PathBuf>,
    /// Claude Code's root (`$CLAUDE_CONFIG_DIR` or `~/.claude`): `agents["claude"]`.
    pub claude: PathBuf,
    /// Gemini CLI's root (`~/.gemini`): `agents["gemini"]`.
    pub gemini: PathBuf,
    /// Codex CLI's root (`$CODEX_HOME` or `~/.codex`): `agents["codex"]`.
    pub codex: PathBuf,
    /// Plandeck's own store (approved versions, decision log, gate files).
    pub data: PathBuf,
    /// Plandeck's config folder, holding `settings.json`.
    pub config: PathBuf,
    pub extra_plan_folders: Vec<PathBuf>,
    pub extra_repos: Vec<PathBuf>,
}

impl Roots {
    /// Resolves every root from flags, the settings file, the environment and `$HOME`, the
    /// agents' as `specs` say (`Roots::resolve` passes every agent's).
    pub fn resolve_with(
        env: &Env,
        overrides: &Overrides,
        specs: &[RootSpec],
    ) -> Result<Self, ConfigError> {
        let home = PathBuf::from(env.get("HOME").ok_or(ConfigError::NoHome)?);
        // In the demo's home the environment names the person's own folders: none is read.
        let demo = home.join(DEMO_MARKER).is_file();
        let from_env = |name: &str| if demo { None } else { env.get(name) };
        let config = overrides.config_dir.clone().unwrap_or_else(|| {
            from_env("XDG_CONFIG_HOME")
                .map(PathBuf::from)
                .unwrap_or_else(|| home.join(".config"))
                .join("plandeck")
        });
        let settings_path = config.join("settings.json");
        let settings = Settings::load(&settings_path)?;
        let mut agents = BTreeMap::new();
        for spec in specs {
            let setting = settings.root(spec).map_err(|source| ConfigError::Parse {
                path: settings_path.clone(),
                source,
            })?;
            let root = overrides
                .agent_roots
                .get(spec.id)
                .cloned()
                .or(setting)
                .or_else(|| spec.env.and_then(from_env).map(PathBuf::from))
                .unwrap_or_else(|| home.join(spec.home_dir));
            agents.insert(spec.id.to_owned(), root);
        }
        let data = overrides.data_dir.clone().unwrap_or_else(|| {
            from_env("XDG_DATA_HOME")
                .map(PathBuf::from)
                .unwrap_or_else(|| home.join(".local/share"))
                .join("plandeck")
        });
        Ok(Self::with_agents(
            home,
            agents,
            data,
            config,
            settings.extra_plan_folders,
            settings.extra_repos,
        ))
    }

    fn with_agents(
        home: PathBuf,
        agents: BTreeMap<String, PathBuf>,
        data: PathBuf,
        config: PathBuf,
        extra_plan_folders: Vec<PathBuf>,
        extra_repos: Vec<PathBuf>,
    ) -> Self {
        let of = |id: &str| agents.get(id).cloned().unwrap_or_default();
        Self {
            claude: of("claude"),
            gemini: of("gemini"),
            codex: of("codex"),
            home,
            agents,
            data,
            config,
            extra_plan_folders,
            extra_repos,
        }
    }

    /// The root of the agent whose id is `id` (an agent's descriptor reads its own through
    /// this); an id no [`RootSpec`] named has none (an empty path).
    pub fn root(&self, id: &str) -> &Path {
        self.agents.get(id).map_or(Path::new(""), PathBuf::as_path)
    }

    pub fn settings_path(&self) -> PathBuf {
        self.config.join("settings.json")
    }

    /// These roots are a demo workspace's (its home holds [`DEMO_MARKER`]).
    pub fn is_demo(&self) -> bool {
        self.home.join(DEMO_MARKER).is_file()
    }

    /// Makes the store and the settings private as they are opened: every folder of the store
    /// 0700 and every file 0600 (an older store, or one copied in, may be looser), and the config
    /// folder and its `settings.json` likewise. Only the config folder's own entry and the
    /// settings file are touched there (a `--config-dir` may be a folder shared with others).
    /// Symlinks are not followed. Missing folders are fine: they are created private on first
    /// write. Returns how many entries were tightened.
    pub fn secure_store(&self) -> Result<usize, ConfigError> {
        let mut fixed = durable::tighten(&self.data)?;
        fixed += usize::from(durable::tighten_entry(&self.config)?);
        fixed += usize::from(durable::tighten_entry(&self.settings_path())?);
        if fixed > 0 {
            tracing::info!(fixed, data = %self.data.display(), "store permissions tightened");
        }
        Ok(fixed)
    }

    /// Adds `repo` to the settings file ([`add_extra_repo`]) and to these roots, so the running
    /// app lists its worktrees at once. Returns whether the settings file did not hold it yet.
    pub fn add_extra_repo(&mut self, repo: &Path) -> Result<bool, ConfigError> {
        let added = add_extra_repo(&self.settings_path(), repo)?;
        if !self.extra_repos.iter().any(|r| r == repo) {
            self.extra_repos.push(repo.to_owned());
        }
        Ok(added)
    }

    /// Adds `folder` to the settings file ([`add_extra_plan_folder`]) and to these roots, so the
    /// running app lists and watches its plans at once. Returns whether the settings file did not
    /// hold it yet.
    pub fn add_extra_plan_folder(&mut self, folder: &Path) -> Result<bool, ConfigError> {
        let added = add_extra_plan_folder(&self.settings_path(), folder)?;
        if !self.extra_plan_folders.iter().any(|f| f == folder) {
            self.extra_plan_folders.push(folder.to_owned());
        }
        Ok(added)
    }

    /// Roots for a self-contained home (the demo, tests): every agent of `specs` under `home`,
    /// the store and config under `home/.local/share` and `home/.config` (`Roots::under_home`
    /// passes every agent's).
    pub fn under_home_with(home: &Path, specs: &[RootSpec]) -> Self {
        let agents = specs
            .iter()
            .map(|s| (s.id.to_owned(), home.join(s.home_dir)))
            .collect();
        Self::with_agents(
            home.to_owned(),
            agents,
            home.join(".local/share/plandeck"),
            home.join(".config/plandeck"),
            Vec::new(),
            Vec::new(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adding_a_folder_or_repo_saves_it_and_updates_the_roots() {
        let home = tempfile::tempdir().unwrap();
        let mut roots = Roots::under_home(home.path());
        let folder = home.path().join("notes");
        let repo = home.path().join("repo");
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        assert!(roots.add_extra_plan_folder(&folder).unwrap());
        assert!(roots.add_extra_repo(&repo).unwrap());
        assert!(!roots.add_extra_repo(&repo).unwrap());
        let saved = Settings::load(&roots.settings_path()).unwrap();
        assert_eq!(saved.extra_plan_folders, roots.extra_plan_folders);
        assert_eq!(saved.extra_repos, roots.extra_repos);
        assert_eq!(roots.extra_plan_folders, [folder]);
        assert_eq!(roots.extra_repos, [repo]);
        // Not a repository: refused, nothing added.
        assert!(roots.add_extra_repo(home.path()).is_err());
        assert_eq!(roots.extra_repos.len(), 1);
    }

    #[test]
    fn defaults_follow_home() {
        let roots =
            Roots::resolve(&Env::from_pairs([("HOME", "/h")]), &Overrides::default()).unwrap();
        assert_eq!(roots.claude, Path::new("/h/.claude"));
        assert_eq!(roots.gemini, Path::new("/h/.gemini"));
        assert_eq!(roots.codex, Path::new("/h/.codex"));
        assert_eq!(roots.data, Path::new("/h/.local/share/plandeck"));
        assert_eq!(roots.config, Path::new("/h/.config/plandeck"));
    }

    #[test]
    fn env_vars_then_settings_then_flags_win() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().to_str().unwrap();
        let env = Env::from_pairs([
            ("HOME", home),
            ("CLAUDE_CONFIG_DIR", "/env/claude"),
            ("CODEX_HOME", "/env/codex"),
            ("XDG_DATA_HOME", "/xdg/data"),
        ]);
        let roots = Roots::resolve(&env, &Overrides::default()).unwrap();
        assert_eq!(roots.claude, Path::new("/env/claude"));
        assert_eq!(roots.codex, Path::new("/env/codex"));
        assert_eq!(roots.data, Path::new("/xdg/data/plandeck"));

        let mut settings = Settings {
            extra_repos: vec!["/repo".into()],
            ..Default::default()
        };
        settings
            .other
            .insert("claudeRoot".into(), "/set/claude".into());
        settings
            .other
            .insert("geminiRoot".into(), "/set/gemini".into());
        settings
            .save(&dir.path().join(".config/plandeck/settings.json"))
            .unwrap();
        let roots = Roots::resolve(&env, &Overrides::default()).unwrap();
        assert_eq!(roots.claude, Path::new("/set/claude"));
        assert_eq!(roots.gemini, Path::new("/set/gemini"));
        assert_eq!(roots.extra_repos, vec![PathBuf::from("/repo")]);

        let flags = Overrides {
            agent_roots: [("claude".to_owned(), "/flag/claude".into())].into(),
            ..Default::default()
        };
        let roots = Roots::resolve(&env, &flags).unwrap();
        assert_eq!(roots.claude, Path::new("/flag/claude"));
    }

    /// Config names no agent: any agent's [`RootSpec`] resolves the same way, `<id>Root` from
    /// the settings, `--<id>-root`, its variable, its folder under `$HOME`.
    #[test]
    fn any_agent_root_resolves_from_its_spec() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().to_str().unwrap();
        let spec = RootSpec {
            id: "aider",
            env: Some("AIDER_HOME"),
            home_dir: ".aider",
        };
        let resolve = |env: &Env, o: &Overrides| Roots::resolve_with(env, o, &[spec]).unwrap();
        let env = Env::from_pairs([("HOME", home)]);
        let none = Overrides::default();
        assert_eq!(
            resolve(&env, &none).root("aider"),
            dir.path().join(".aider")
        );
        assert_eq!(
            Roots::under_home_with(dir.path(), &[spec]).root("aider"),
            dir.path().join(".aider")
        );
        let with_var = Env::from_pairs([("HOME", home), ("AIDER_HOME", "/env/aider")]);
        assert_eq!(
            resolve(&with_var, &none).root("aider"),
            Path::new("/env/aider")
        );
        let settings_path = dir.path().join(".config/plandeck/settings.json");
        let mut settings = Settings::default();
        settings
            .other
            .insert("aiderRoot".into(), "/set/aider".into());
        settings.save(&settings_path).unwrap();
        assert_eq!(
            resolve(&with_var, &none).root("aider"),
            Path::new("/set/aider")
        );
        let flag = Overrides {
            agent_roots: [("aider".to_owned(), "/flag/aider".into())].into(),
            ..Default::default()
        };
        assert_eq!(
            resolve(&with_var, &flag).root("aider"),
            Path::new("/flag/aider")
        );
        assert_eq!(resolve(&with_var, &flag).root("other"), Path::new(""));
        // A root that is not a path is refused, as before.
        settings.other.insert("aiderRoot".into(), 5.into());
        settings.save(&settings_path).unwrap();
        let err = Roots::resolve_with(&with_var, &none, &[spec]).unwrap_err();
        assert!(matches!(err, ConfigError::Parse { .. }), "{err}");
    }

    #[test]
    fn extra_repos_and_plan_folders_are_added_once_and_checked() {
        let dir = tempfile::tempdir().unwrap();
        let settings = dir.path().join("config/settings.json");
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        assert!(add_extra_repo(&settings, &repo).unwrap());
        assert!(!add_extra_repo(&settings, &repo).unwrap());
        let plain = dir.path().join("plain");
        std::fs::create_dir_all(&plain).unwrap();
        assert!(matches!(
            add_extra_repo(&settings, &plain),
            Err(ConfigError::NotARepository { .. })
        ));
        assert!(add_extra_plan_folder(&settings, &plain).unwrap());
        assert!(!add_extra_plan_folder(&settings, &plain).unwrap());
        assert!(matches!(
            add_extra_plan_folder(&settings, &dir.path().join("missing")),
            Err(ConfigError::NotAFolder { .. })
        ));
        let loaded = Settings::load(&settings).unwrap();
        assert_eq!(loaded.extra_repos, [repo]);
        assert_eq!(loaded.extra_plan_folders, [plain]);
    }

    #[test]
    fn machines_are_added_once_listed_in_order_and_removed() {
        let dir = tempfile::tempdir().unwrap();
        let settings = dir.path().join("config/settings.json");
        assert!(hosts(&settings).unwrap().is_empty());
        add_host(&settings, "lab", "me@lab.example").unwrap();
        add_host(&settings, "vm_2", "vm2").unwrap();
        let names: Vec<_> = hosts(&settings)
            .unwrap()
            .into_iter()
            .map(|h| h.name)
            .collect();
        assert_eq!(names, ["lab", "vm_2"]);
        assert_eq!(host(&settings, "lab").unwrap().ssh, "me@lab.example");
        let taken = add_host(&settings, "lab", "other").unwrap_err();
        assert!(taken.to_string().contains("already"), "{taken}");
        assert_eq!(remove_host(&settings, "lab").unwrap().ssh, "me@lab.example");
        assert!(matches!(
            remove_host(&settings, "lab"),
            Err(ConfigError::NoSuchHost(_))
        ));
        assert!(matches!(
            host(&settings, "lab"),
            Err(ConfigError::NoSuchHost(_))
        ));
        // Other keys of the file stay.
        let text = std::fs::read_to_string(&settings).unwrap();
        assert!(text.contains("\"hosts\""), "{text}");
    }

    #[test]
    fn a_destination_that_could_smuggle_an_option_or_a_second_word_is_refused() {
        for bad in [
            "",
            "-oProxyCommand=touch /tmp/x",
            "-p2222",
            "host -oProxyCommand=x",
            "host\tx",
            "host\nx",
            "host\u{7}",
            "host\u{a0}",
        ] {
            assert!(check_ssh_dest(bad).is_err(), "{bad:?}");
        }
        for good in [
            "host",
            "me@host.example",
            "alias-1",
            "me@[::1]",
            "ssh://me@h:22",
        ] {
            check_ssh_dest(good).unwrap();
        }
        for bad in ["", "a b", "a/b", "../x", "-x", "é", &"x".repeat(65)] {
            assert!(check_host_name(bad).is_err(), "{bad:?}");
        }
        check_host_name("Lab-2_x").unwrap();
        // Refused before anything is written; a file edited by hand is checked when read.
        let dir = tempfile::tempdir().unwrap();
        let settings = dir.path().join("settings.json");
        assert!(add_host(&settings, "x", "-oProxyCommand=id").is_err());
        assert!(!settings.exists());
        std::fs::write(
            &settings,
            r#"{"hosts":[{"name":"x","ssh":"-oProxyCommand=id"}]}"#,
        )
        .unwrap();
        assert!(matches!(host(&settings, "x"), Err(ConfigError::BadHost(_))));
    }

    /// Issue 33, finding 7: only a user, a host and a port get through, each of a strict
    /// alphabet; a name or destination edited into the file is checked again when read.
    #[test]
    fn a_destination_is_of_a_strict_alphabet_and_the_settings_are_checked_again_when_read() {
        for bad in [
            "$(touch x)",
            "h$(id)",
            "`id`",
            "host;id",
            "host|id",
            "user@-oProxyCommand=id",
            "me@-p2222",
            "ssh://-oX=y",
            "ssh://me@host:22x",
            "ssh://me@host:",
            "h%d",
            "me@host@other",
            "[::1;id]",
            "a/b",
            "host'",
            "host\"",
            "ho&st",
            "me@",
            "@host",
        ] {
            assert!(check_ssh_dest(bad).is_err(), "{bad:?}");
        }
        for good in [
            "box",
            "me@box.example.org",
            "my_user@10.0.0.7",
            "[::1]",
            "me@[fe80::1]",
            "ssh://me@host:2222",
            "ssh://host",
            "ssh://me@[::1]:22",
            "lab-2.internal",
        ] {
            check_ssh_dest(good).unwrap_or_else(|e| panic!("{good}: {e}"));
        }
        let dir = tempfile::tempdir().unwrap();
        let settings = dir.path().join("settings.json");
        std::fs::write(
            &settings,
            r#"{"hosts":[{"name":"ok","ssh":"me@box"},{"name":"bad","ssh":"box;id"},
                {"name":"../x","ssh":"box"},{"name":"fwd","ssh":"lab","forwardAgent":true}]}"#,
        )
        .unwrap();
        let read = hosts(&settings).unwrap();
        let names: Vec<_> = read.iter().map(|h| h.name.as_str()).collect();
        assert_eq!(names, ["ok", "fwd"], "the bad ones are left out");
        assert!(!read[0].forward_agent && read[1].forward_agent);
        assert!(matches!(
            host(&settings, "bad"),
            Err(ConfigError::BadHost(_))
        ));
        assert!(matches!(
            host(&settings, "../x"),
            Err(ConfigError::BadHost(_))
        ));
    }

    #[test]
    fn missing_home_is_a_clear_error() {
        let err = Roots::resolve(&Env::default(), &Overrides::default()).unwrap_err();
        assert!(err.to_string().contains("$HOME"));
    }

    #[test]
    fn settings_keep_unknown_keys_and_report_bad_json() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(&path, r#"{"futureKey": {"x": 1}, "extraRepos": ["/r"]}"#).unwrap();
        let settings = Settings::load(&path).unwrap();
        settings.save(&path).unwrap();
        let back: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(back["futureKey"]["x"], 1);

        // Numbers of keys this version does not know keep their digits (flattened through serde).
        std::fs::write(&path, r#"{"zNew": 18446744073709551617, "aNew": 1e400}"#).unwrap();
        Settings::load(&path).unwrap().save(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.contains("18446744073709551617") && text.contains("1e+400"),
            "{text}"
        );
        assert!(
            text.find("zNew").unwrap() < text.find("aNew").unwrap(),
            "{text}"
        );
        std::fs::write(&path, "{nope").unwrap();
        let err = Settings::load(&path).unwrap_err();
        assert!(matches!(err, ConfigError::Parse { .. }), "{err}");
    }
}
