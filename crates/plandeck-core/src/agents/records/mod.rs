//! What the rest of the crate reads of an agent's own files, through one trait: [`Records`].
//! Each agent implements it in its folder (`agents/<agent>/records.rs`), and
//! [`crate::agents::records`] (the function) hands out the one for an agent: sessions, history,
//! plans and verify call it and never name an agent.
//!
//! Below the trait, the vocabulary its readers share: reading a JSONL file by byte offset
//! ([`transcript`]), tolerant serde shapes ([`content`]), what a session's records say
//! ([`state::Facts`]) and what a transcript says of plans ([`plan_events`]).

pub mod content;
pub mod plan_events;
pub mod state;
pub mod tools;
pub mod transcript;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::Agent;
use crate::config::Roots;
use plan_events::PlanFacts;
use state::Facts;

pub use super::claude::RegistryFile;

/// Progress of a session's task list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TaskProgress {
    pub done: u32,
    pub total: u32,
}

/// How an agent's records are searched for plans ([`transcript::read_marked`]): where a line
/// worth parsing starts in a run of bytes, and the parse of such a line.
#[derive(Debug, Clone, Copy)]
pub struct PlanReader {
    pub candidate: fn(&PlanFacts, &[u8]) -> Option<usize>,
    pub parse: fn(&mut PlanFacts, &[u8]),
}

impl PlanReader {
    pub(crate) const fn new(
        candidate: fn(&PlanFacts, &[u8]) -> Option<usize>,
        parse: fn(&mut PlanFacts, &[u8]),
    ) -> Self {
        Self { candidate, parse }
    }
}

/// How verification reads an agent's transcripts ([`Records::tool_lines`]).
#[derive(Debug, Clone, Copy)]
pub struct ToolLines {
    /// The words a line must hold to tell verification anything.
    pub markers: &'static [&'static [u8]],
    /// Reads one such line into the tool calls and commands verification weighs; `false` when
    /// the line cannot be read.
    pub read: fn(&mut tools::ToolReader, &[u8]) -> bool,
}

impl ToolLines {
    pub(crate) const fn new(
        markers: &'static [&'static [u8]],
        read: fn(&mut tools::ToolReader, &[u8]) -> bool,
    ) -> Self {
        Self { markers, read }
    }
}

/// How the plans an agent's records name are told apart (the plan history's keys).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlanKeys {
    /// By plan file, which a session can carry on in another (Claude Code).
    File,
    /// By plan file in the session's own plans folder (Gemini CLI).
    SessionFile,
    /// One plan per session thread, no file (Codex CLI).
    Thread,
}

/// A folder that holds an agent's plans, with what every plan in it shares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanFolder {
    pub dir: PathBuf,
    pub project: Option<PathBuf>,
    pub session_id: Option<String>,
    /// A project's own plans folder (its settings name it), found from the projects known.
    pub of_project: bool,
}

/// What Plandeck reads of one agent's files. Every method has the answer of an agent that has no
/// such thing (no transcripts, no registry, no task lists…): an agent implements what it has.
pub trait Records: Sync {
    /// Its transcripts under `roots` (sessions, chats, rollouts); subagents' not included.
    fn transcripts(&self, _roots: &Roots) -> Vec<PathBuf> {
        Vec::new()
    }

    /// Whether `path` would be one of its transcripts, by where it is.
    fn is_transcript(&self, _roots: &Roots, _path: &Path) -> bool {
        false
    }

    /// Its folders (and files) a watcher watches for its sessions, whether they exist yet or not.
    fn watch_roots(&self, _roots: &Roots) -> Vec<PathBuf> {
        Vec::new()
    }

    /// Folds one line of one of its transcripts into `facts`.
    fn feed_line(&self, _facts: &mut Facts, _line: &[u8]) {}

    /// Whether what a transcript's head said is enough to stop widening it: the title, and the
    /// working directory when its records name one.
    fn head_tells_enough(&self, head: &Facts) -> bool {
        head.title.is_some() && head.cwd.is_some()
    }

    /// The id a transcript's session is listed under: by default the session id its records
    /// name, else the file's name until they are read.
    fn session_key(&self, path: &Path, facts: &Facts) -> String {
        facts.session_id.clone().unwrap_or_else(|| file_stem(path))
    }

    /// The plan file of the session `key` whose transcript is `transcript`.
    fn plan_file(
        &self,
        _roots: &Roots,
        _transcript: &Path,
        _key: &str,
        _facts: &Facts,
    ) -> Option<PathBuf> {
        None
    }

    /// Transcripts of the subagents of the session whose transcript is `transcript`.
    fn subagent_transcripts(&self, _transcript: &Path) -> Vec<PathBuf> {
        Vec::new()
    }

    /// The transcript of the session a subagent transcript at `path` belongs to, when `path` is
    /// one.
    fn subagent_parent(&self, _roots: &Roots, _path: &Path) -> Option<PathBuf> {
        None
    }

    /// Folds one line of a subagent's transcript into its session's `facts`.
    fn feed_subagent_line(&self, _facts: &mut Facts, _line: &[u8]) {}

    /// The folder of its registry of running CLIs (one JSON file each), when it keeps one.
    fn registry_dir(&self, _roots: &Roots) -> Option<PathBuf> {
        None
    }

    /// One entry of its registry of running CLIs.
    fn registry_entry(&self, _path: &Path) -> Option<RegistryFile> {
        None
    }

    /// The folder of its task lists (one folder per list, named after the session), when it keeps
    /// them.
    fn tasks_dir(&self, _roots: &Roots) -> Option<PathBuf> {
        None
    }

    /// Progress of the task list `list_id`.
    fn task_progress(&self, _roots: &Roots, _list_id: &str) -> Option<TaskProgress> {
        None
    }

    /// Its registry of project folders (folder name → project), when it keeps one.
    fn projects(&self, _roots: &Roots) -> HashMap<String, String> {
        HashMap::new()
    }

    /// Whether a change to `path` changes [`Records::projects`].
    fn names_projects(&self, _roots: &Roots, _path: &Path) -> bool {
        false
    }

    /// The project a transcript is in, by its folder, when its records name none.
    fn project_of(
        &self,
        _transcript: &Path,
        _projects: &HashMap<String, String>,
    ) -> Option<String> {
        None
    }

    /// Whether its sessions' working folders and worktree records are hints for the worktrees
    /// list ([`crate::sessions::WorktreeHint`]).
    fn tells_worktrees(&self) -> bool {
        false
    }

    /// How verification reads the tool calls and commands of its transcripts; none when verify
    /// reads nothing of it.
    fn tool_lines(&self) -> Option<ToolLines> {
        None
    }

    /// Its folders that hold plans (existing or not, for its default one), given the working
    /// folders of the sessions known (`projects`); a folder it cannot read is told in `problems`.
    fn plan_folders(
        &self,
        _roots: &Roots,
        _projects: &BTreeSet<PathBuf>,
        _problems: &mut Vec<String>,
    ) -> Vec<PlanFolder> {
        Vec::new()
    }

    /// The plans folders a project's own settings name, only those that exist.
    fn project_plan_folders(&self, _project: &Path) -> Vec<PathBuf> {
        Vec::new()
    }

    /// Whether its plan files are tied to sessions by what its transcripts name (the plan's slug
    /// or path).
    fn links_plans_by_transcript(&self) -> bool {
        false
    }

    /// How its records are searched for plans, when they hold any.
    fn plan_reader(&self) -> Option<PlanReader> {
        None
    }

    /// How the plans its records name are told apart.
    fn plan_keys(&self) -> Option<PlanKeys> {
        None
    }

    /// The permission mode a session shows once an approval taken in Plandeck (`approved`:
    /// "auto" or "manual") reached it, while its records hold no mode of their own yet.
    fn mode_after_approval(&self, _approved: &str) -> Option<&'static str> {
        None
    }

    /// What the plans watcher watches of its files ([`crate::plans::watch`]).
    fn plan_watch(&self, _roots: &Roots) -> PlanWatch {
        PlanWatch::default()
    }

    /// The transcripts whose heads and tails tie its plan files to sessions (by slug or path),
    /// when [`Records::links_plans_by_transcript`]; a folder it cannot read is told in `problems`.
    fn plan_link_transcripts(&self, _roots: &Roots, _problems: &mut Vec<String>) -> Vec<PathBuf> {
        Vec::new()
    }

    /// The plan file a plan's slug names, when its plans are named by slug.
    fn plan_file_of_slug(&self, _roots: &Roots, _slug: &str) -> Option<PathBuf> {
        None
    }

    /// Its own copy of an attachment its records name at `named` (a path that may be another
    /// machine's or an older root's), when it keeps one.
    fn attachment(&self, _roots: &Roots, _named: &str) -> Option<PathBuf> {
        None
    }
}

/// What the plans watcher watches of one agent's files.
#[derive(Debug, Clone, Default)]
pub struct PlanWatch {
    /// Folders watched (existing or not).
    pub watch: Vec<PathBuf>,
    /// Folders whose `.md` files (directly in them) are plans.
    pub flat: Vec<PathBuf>,
    /// Folders whose files may name a project not seen before (transcripts, registry).
    pub project_hints: Vec<PathBuf>,
    /// Folders below which plans sit deeper, with the test of a path relative to one of them
    /// (`is_file` tells whether the path is a file now).
    pub nested: Vec<(PathBuf, PlanPathTest)>,
}

/// Whether a path below a [`PlanWatch::nested`] folder is a plan or a plans folder: its parts
/// below the folder, whether it ends in `.md`, and whether it is a file now.
pub type PlanPathTest = fn(rel: &[String], is_md: bool, is_file: &dyn Fn() -> bool) -> bool;

/// The records of an agent Plandeck reads nothing of (plans in folders the user added).
pub(crate) struct NoRecords;

impl Records for NoRecords {}

/// The one pid check of the crate (registry entries, gate requests): whether the process `pid` is
/// alive (a zombie is not) and, when `proc_start` is known, is the same process that
/// wrote the registry entry (not a later one that got the same pid).
pub fn pid_alive(pid: u32, proc_start: Option<&str>) -> bool {
    match proc_start.filter(|s| !s.is_empty()) {
        // Claude Code writes `/proc/<pid>/stat` field 22; anything else names no process.
        Some(start) => start
            .parse::<u64>()
            .is_ok_and(|start| crate::process::is_running(pid, Some(start))),
        None => crate::process::is_running(pid, None),
    }
}

pub(crate) fn name_of(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Subfolders of `dir` (not following symlinks). A missing folder is no problem; an unreadable one is.
pub(crate) fn subdirs(dir: &Path, problems: &mut Vec<String>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    match std::fs::read_dir(dir) {
        Ok(entries) => {
            for entry in entries.flatten() {
                if entry.file_type().is_ok_and(|t| t.is_dir()) {
                    out.push(entry.path());
                }
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => problems.push(folder_problem(dir, &e)),
    }
    out.sort();
    out
}

pub(crate) fn folder_problem(dir: &Path, e: &std::io::Error) -> String {
    format!(
        "Cannot read the folder {}: {}. Plans in it are not listed.",
        dir.display(),
        e
    )
}

/// Every entry of every agent's registry of running CLIs (`*.json` in its folder), alive or not;
/// a registry that cannot be read has none.
pub fn registry_entries(roots: &Roots) -> Vec<(Agent, RegistryFile)> {
    let mut out = Vec::new();
    for d in super::all() {
        let r = super::records(d.agent);
        let Some(dir) = r.registry_dir(roots) else {
            continue;
        };
        out.extend(
            dir_entries(&dir)
                .into_iter()
                .filter(|p| p.extension().and_then(|x| x.to_str()) == Some("json"))
                .filter_map(|p| r.registry_entry(&p))
                .map(|f| (d.agent, f)),
        );
    }
    out
}

/// The sessions running now, by agent and session id: the entries of each agent's registry of
/// running CLIs whose process is alive.
pub fn running_sessions(roots: &Roots) -> HashSet<(Agent, String)> {
    registry_entries(roots)
        .into_iter()
        .filter(|(_, f)| pid_alive(f.pid, f.proc_start.as_deref()))
        .map(|(agent, f)| (agent, f.session_id))
        .collect()
}

/// A file's name without its extension ("" when it has none).
pub(crate) fn file_stem(path: &Path) -> String {
    path.file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default()
        .to_owned()
}

/// How deep [`walk`] goes.
const MAX_DEPTH: usize = 5;

pub(crate) fn is_jsonl(p: &Path) -> bool {
    p.extension().and_then(|x| x.to_str()) == Some("jsonl")
}

pub(crate) fn file_name(p: &Path) -> &str {
    p.file_name().and_then(|n| n.to_str()).unwrap_or("")
}

/// The entries of `dir`; none when it cannot be read (logged unless it is missing).
pub(crate) fn dir_entries(dir: &Path) -> Vec<PathBuf> {
    match std::fs::read_dir(dir) {
        Ok(rd) => rd.flatten().map(|e| e.path()).collect(),
        Err(e) => {
            if e.kind() != std::io::ErrorKind::NotFound {
                tracing::debug!("cannot read {}: {e}", dir.display());
            }
            Vec::new()
        }
    }
}

/// The files under `dir` (down to a few folders deep) that `keep` keeps.
pub(crate) fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>, keep: &dyn Fn(&Path) -> bool) {
    if depth > MAX_DEPTH {
        return;
    }
    for p in dir_entries(dir) {
        if p.is_dir() {
            walk(&p, depth + 1, out, keep);
        } else if keep(&p) {
            out.push(p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::{all, records};

    /// What an agent's descriptor says Plandeck does with it is what its records answer.
    #[test]
    fn each_agents_records_answer_what_its_capabilities_say() {
        let roots = Roots::under_home(Path::new("/home/p"));
        for d in all() {
            let r = records(d.agent);
            assert_eq!(
                !r.watch_roots(&roots).is_empty(),
                d.capabilities.sessions,
                "{}",
                d.id
            );
            assert_eq!(
                r.plan_reader().is_some(),
                d.capabilities.sessions,
                "{}",
                d.id
            );
            assert_eq!(r.plan_keys().is_some(), d.capabilities.sessions, "{}", d.id);
            assert_eq!(r.tool_lines().is_some(), d.capabilities.verify, "{}", d.id);
            for w in r.watch_roots(&roots) {
                assert!(w.starts_with((d.root)(&roots)), "{}: {}", d.id, w.display());
            }
        }
        let other = records(Agent::Other);
        assert!(other.watch_roots(&roots).is_empty() && other.plan_reader().is_none());
        assert!(other.tool_lines().is_none() && other.registry_dir(&roots).is_none());
    }

    /// A transcript is one agent's: each agent's transcript files are its own, and no other
    /// agent's by where they are.
    #[test]
    fn a_transcript_belongs_to_one_agent_by_where_it_is() {
        let home = tempfile::tempdir().unwrap();
        let roots = Roots::under_home(home.path());
        let files = [
            (
                Agent::Claude,
                roots.claude.join("projects/-w-app/s-1.jsonl"),
            ),
            (
                Agent::Gemini,
                roots.gemini.join("tmp/app/chats/session-1.jsonl"),
            ),
            (
                Agent::Codex,
                roots.codex.join("sessions/2026/11/28/rollout-1.jsonl"),
            ),
        ];
        for (_, f) in &files {
            std::fs::create_dir_all(f.parent().unwrap()).unwrap();
            std::fs::write(f, "{}\n").unwrap();
        }
        for (agent, f) in &files {
            assert_eq!(records(*agent).transcripts(&roots), vec![f.clone()]);
            for d in all() {
                let r = records(d.agent);
                assert_eq!(
                    r.is_transcript(&roots, f),
                    d.agent == *agent,
                    "{} {}",
                    d.id,
                    f.display()
                );
            }
        }
    }
}
