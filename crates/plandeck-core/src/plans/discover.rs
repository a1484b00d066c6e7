//! Where plans live and what each belongs to: the folders of every agent, and the links from plan
//! files to sessions, projects and branches read from the heads and tails of transcripts.
//!
//! Transcripts can be gigabytes, so only their first and last [`WINDOW`] bytes are read, and keys
//! are found textually (`"slug"`, `"cwd"` …) so a record cut by the window still yields them.
//! What was read is kept in the store (`<data>/plans/transcript-links.json`) with each file's
//! stamp (identity, size, mtime): a later listing reads again only the transcripts that changed, so
//! a heavy home's thousand transcripts cost a stat each, not 128 KiB each.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use rayon::prelude::*;

use crate::agents::{records, Agent};
use crate::config::Roots;
use crate::stamped::FileStamp;

/// How much of each end of a transcript is read.
pub(crate) const WINDOW: u64 = 64 * 1024;

/// A folder that holds plans, with what every plan in it shares.
#[derive(Debug, Clone)]
pub(crate) struct Source {
    pub dir: PathBuf,
    pub agent: Agent,
    pub project: Option<PathBuf>,
    pub session_id: Option<String>,
    /// Plans in subfolders too (extra folders); agents' own folders are flat.
    pub recursive: bool,
    /// A project's own plans folder (its settings name it).
    pub of_project: bool,
}

/// A plan file found, before its content is read.
#[derive(Debug, Clone)]
pub(crate) struct Candidate {
    pub path: PathBuf,
    pub agent: Agent,
    pub project: Option<String>,
    pub session_id: Option<String>,
    pub git_branch: Option<String>,
    pub subagent_id: Option<String>,
}

/// What transcripts say about one session.
#[derive(Debug, Clone, Default)]
pub(crate) struct TranscriptFacts {
    pub session_id: Option<String>,
    pub cwd: Option<String>,
    pub git_branch: Option<String>,
    pub slugs: BTreeSet<String>,
    pub plan_paths: BTreeSet<String>,
    pub modified: Option<SystemTime>,
}

#[derive(Debug, Clone)]
struct Link {
    session_id: Option<String>,
    cwd: Option<String>,
    git_branch: Option<String>,
    modified: Option<SystemTime>,
}

/// Everything discovery found: plan folders, plan files with their links, and problems.
#[derive(Debug, Default)]
pub(crate) struct Discovery {
    pub sources: Vec<Source>,
    pub candidates: Vec<Candidate>,
    pub problems: Vec<String>,
    /// Transcripts whose head and tail were read (the others came from the stored links).
    pub transcripts_read: usize,
}

/// Finds every plan folder and plan file under `roots`, linked to sessions.
pub(crate) fn discover(roots: &Roots) -> Discovery {
    let mut problems = Vec::new();
    let (transcripts, transcripts_read) = read_transcripts(roots, &mut problems);
    let mut projects: BTreeSet<PathBuf> = transcripts
        .iter()
        .filter_map(|t| t.cwd.as_ref())
        .map(PathBuf::from)
        .collect();
    projects.extend(session_cwds(roots, &mut problems));
    let sources = sources(roots, &projects, &mut problems);

    let mut by_slug: HashMap<&str, Link> = HashMap::new();
    let mut by_path: HashMap<&str, Link> = HashMap::new();
    for t in &transcripts {
        let link = Link {
            session_id: t.session_id.clone(),
            cwd: t.cwd.clone(),
            git_branch: t.git_branch.clone(),
            modified: t.modified,
        };
        let newer = |old: &Link| old.modified < link.modified;
        for slug in &t.slugs {
            if by_slug.get(slug.as_str()).is_none_or(newer) {
                by_slug.insert(slug, link.clone());
            }
        }
        for path in &t.plan_paths {
            if by_path.get(path.as_str()).is_none_or(newer) {
                by_path.insert(path, link.clone());
            }
        }
    }

    let mut seen = HashSet::new();
    let mut candidates = Vec::new();
    for source in &sources {
        for path in plan_files(source, &mut problems) {
            if !seen.insert(path.clone()) {
                continue;
            }
            let stem = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let (slug, subagent_id) = match stem.rsplit_once("-agent-") {
                Some((slug, id)) if !slug.is_empty() && !id.is_empty() => {
                    (slug.to_owned(), Some(id.to_owned()))
                }
                _ => (stem.clone(), None),
            };
            let mut c = Candidate {
                path: path.clone(),
                agent: source.agent,
                project: source.project.as_ref().map(|p| p.display().to_string()),
                session_id: source.session_id.clone(),
                git_branch: None,
                subagent_id,
            };
            if records(source.agent).links_plans_by_transcript() {
                let link = path
                    .to_str()
                    .and_then(|p| by_path.get(p))
                    .or_else(|| by_slug.get(slug.as_str()));
                if let Some(link) = link {
                    c.session_id = c.session_id.or_else(|| link.session_id.clone());
                    c.project = c.project.or_else(|| link.cwd.clone());
                    c.git_branch = link.git_branch.clone();
                }
            }
            candidates.push(c);
        }
    }
    let found = Discovery {
        sources,
        candidates,
        problems,
        transcripts_read,
    };
    tracing::debug!(
        plans = found.candidates.len(),
        transcripts_read = found.transcripts_read,
        "plans discovered"
    );
    found
}

/// Every folder that can hold plans (existing or not, for the agents' default ones).
fn sources(roots: &Roots, projects: &BTreeSet<PathBuf>, problems: &mut Vec<String>) -> Vec<Source> {
    let mut out = Vec::new();
    let mut dirs = HashSet::new();
    let mut push = |out: &mut Vec<Source>, s: Source| {
        if dirs.insert(s.dir.clone()) {
            out.push(s);
        }
    };
    for d in crate::agents::all() {
        for f in records(d.agent).plan_folders(roots, projects, problems) {
            push(
                &mut out,
                Source {
                    dir: f.dir,
                    agent: d.agent,
                    project: f.project,
                    session_id: f.session_id,
                    recursive: false,
                    of_project: f.of_project,
                },
            );
        }
    }
    for extra in &roots.extra_plan_folders {
        push(
            &mut out,
            Source {
                dir: canonical_or(extra),
                agent: Agent::Other,
                project: None,
                session_id: None,
                recursive: true,
                of_project: false,
            },
        );
    }
    out
}

/// The folder itself, canonical when it exists (so ids do not depend on how it was reached).
pub(crate) fn canonical_or(path: &Path) -> PathBuf {
    crate::durable::canonical_or(path)
}

/// The plans folders a project's own settings name (Claude Code's `plansDirectory`), only those
/// that exist and stay inside the project.
pub(crate) fn plans_directories(project: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for d in crate::agents::all() {
        for dir in records(d.agent).project_plan_folders(project) {
            if !out.contains(&dir) {
                out.push(dir);
            }
        }
    }
    out
}

pub(crate) use crate::agents::records::folder_problem;

/// The `.md` files of a plan folder (recursive for extra folders, never looping through symlinks).
fn plan_files(source: &Source, problems: &mut Vec<String>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut visited: HashSet<(u64, u64)> = HashSet::new();
    let mut stack = vec![(source.dir.clone(), 0u32)];
    while let Some((dir, depth)) = stack.pop() {
        if let Some(id) = dir_id(&dir) {
            if !visited.insert(id) {
                continue;
            }
        }
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && depth == 0 => continue,
            Err(e) => {
                problems.push(folder_problem(&dir, &e));
                continue;
            }
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.') {
                continue;
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            // Follows symlinks (a plan may be a link; a folder link is guarded by `visited`),
            // with a stat only for links: the listing of thousands of plans is mostly this loop.
            let (is_dir, is_file) = if kind.is_symlink() {
                match std::fs::metadata(&path) {
                    Ok(meta) => (meta.is_dir(), meta.is_file()),
                    Err(_) => continue,
                }
            } else {
                (kind.is_dir(), kind.is_file())
            };
            if is_dir {
                if source.recursive && depth < 8 {
                    stack.push((path, depth + 1));
                }
            } else if is_file && name.ends_with(".md") {
                out.push(path);
            }
        }
    }
    out
}

fn dir_id(dir: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(dir).ok().map(|m| (m.dev(), m.ino()))
}

/// The `cwd` of every session in an agent's registry of running CLIs (Claude Code's
/// `sessions/<pid>.json`).
fn session_cwds(roots: &Roots, problems: &mut Vec<String>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for d in crate::agents::all() {
        let r = records(d.agent);
        let Some(dir) = r.registry_dir(roots) else {
            continue;
        };
        match std::fs::read_dir(&dir) {
            Ok(entries) => out.extend(
                entries
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.extension().and_then(|x| x.to_str()) == Some("json"))
                    .filter_map(|p| r.registry_entry(&p))
                    .filter_map(|f| f.cwd.map(PathBuf::from)),
            ),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => problems.push(folder_problem(&dir, &e)),
        }
    }
    out
}

/// Head and tail facts of every transcript that ties plans to sessions (Claude Code's
/// `projects/*/*.jsonl`, [`crate::agents::records::Records::plan_link_transcripts`]): from the stored links when the
/// file's stamp is the one they were read at, else read (in parallel) and stored. Returns the facts
/// and how many transcripts were read.
fn read_transcripts(roots: &Roots, problems: &mut Vec<String>) -> (Vec<TranscriptFacts>, usize) {
    let mut files = Vec::new();
    for d in crate::agents::all() {
        let r = records(d.agent);
        if r.links_plans_by_transcript() {
            files.extend(r.plan_link_transcripts(roots, problems));
        }
    }
    let stored = load_links(&roots.data);
    let found: Vec<(PathBuf, StoredLinks, TranscriptFacts, bool)> = files
        .into_par_iter()
        .filter_map(|path| {
            let meta = std::fs::metadata(&path).ok()?;
            let stamp = FileStamp::from_meta(&meta);
            if let Some(kept) = stored.get(&path).filter(|s| s.stamp == stamp) {
                let facts = kept.facts(meta.modified().ok());
                return Some((path, kept.clone(), facts, false));
            }
            // Stamped before reading: a file that grows meanwhile is read again next time.
            let facts = transcript_facts(&path).ok()?;
            let kept = StoredLinks::of(stamp, &facts);
            Some((path, kept, facts, true))
        })
        .collect();
    let read = found.iter().filter(|(.., read)| *read).count();
    if read > 0 || found.len() != stored.len() {
        let links: LinkStore = found
            .iter()
            .map(|(path, kept, ..)| (path.clone(), kept.clone()))
            .collect();
        save_links(&roots.data, &links);
    }
    (
        found.into_iter().map(|(_, _, facts, _)| facts).collect(),
        read,
    )
}

/// Version of `<data>/plans/transcript-links.json`; another version is read again from the
/// transcripts.
const LINKS_VERSION: u32 = 1;

/// The stored links: per transcript, the facts read from its head and tail and the stamp of the
/// file they were read from. A cache ([`crate::stamped`]): missing, damaged or of another version,
/// it is rebuilt from the transcripts, and an entry is used only while its file's stamp is
/// unchanged.
type LinkStore = std::collections::BTreeMap<PathBuf, StoredLinks>;

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct StoredLinks {
    stamp: FileStamp,
    session_id: Option<String>,
    cwd: Option<String>,
    git_branch: Option<String>,
    slugs: BTreeSet<String>,
    plan_paths: BTreeSet<String>,
}

impl StoredLinks {
    fn of(stamp: FileStamp, facts: &TranscriptFacts) -> StoredLinks {
        StoredLinks {
            stamp,
            session_id: facts.session_id.clone(),
            cwd: facts.cwd.clone(),
            git_branch: facts.git_branch.clone(),
            slugs: facts.slugs.clone(),
            plan_paths: facts.plan_paths.clone(),
        }
    }

    fn facts(&self, modified: Option<SystemTime>) -> TranscriptFacts {
        TranscriptFacts {
            session_id: self.session_id.clone(),
            cwd: self.cwd.clone(),
            git_branch: self.git_branch.clone(),
            slugs: self.slugs.clone(),
            plan_paths: self.plan_paths.clone(),
            modified,
        }
    }
}

pub(crate) fn links_path(data: &Path) -> PathBuf {
    data.join("plans").join("transcript-links.json")
}

fn load_links(data: &Path) -> LinkStore {
    let path = links_path(data);
    let (links, rebuild) = crate::stamped::load(&path, LINKS_VERSION);
    if let Some(why) = rebuild {
        tracing::info!("{} {why}: transcripts are read again", path.display());
    }
    links
}

/// Writes the links (atomically, private): a failure costs only a slower next listing.
fn save_links(data: &Path, links: &LinkStore) {
    let path = links_path(data);
    if let Err(e) = crate::stamped::save(&path, LINKS_VERSION, links) {
        tracing::debug!("cannot store the transcript links: {e}");
    }
}

/// What the first and last [`WINDOW`] bytes of a transcript say.
pub(crate) fn transcript_facts(path: &Path) -> std::io::Result<TranscriptFacts> {
    let mut file = File::open(path)?;
    let meta = file.metadata()?;
    let len = meta.len();
    let mut head = Vec::with_capacity(WINDOW.min(len) as usize);
    (&mut file).take(WINDOW).read_to_end(&mut head)?;
    let mut tail = Vec::new();
    if len > WINDOW {
        let start = len.saturating_sub(WINDOW).max(WINDOW);
        file.seek(SeekFrom::Start(start))?;
        file.take(WINDOW).read_to_end(&mut tail)?;
    }
    let mut facts = TranscriptFacts {
        modified: meta.modified().ok(),
        ..Default::default()
    };
    for chunk in [&head, &tail] {
        facts.slugs.extend(string_values(chunk, b"\"slug\""));
        facts
            .plan_paths
            .extend(string_values(chunk, b"\"planFilePath\""));
        if let Some(v) = last_string_value(chunk, b"\"sessionId\"") {
            facts.session_id = Some(v);
        }
        if facts.cwd.is_none() {
            facts.cwd = first_string_value(chunk, b"\"cwd\"");
        }
        if let Some(v) = last_string_value(chunk, b"\"gitBranch\"") {
            facts.git_branch = Some(v);
        }
    }
    if facts.session_id.is_none() {
        facts.session_id = path.file_stem().map(|s| s.to_string_lossy().into_owned());
    }
    Ok(facts)
}

/// The string values of `key` (given with its quotes) in raw JSON text, in order. Inside a JSON
/// string a quote is escaped, so an unescaped `"key"` followed by `:` is a real key.
pub(crate) fn string_values(text: &[u8], key: &[u8]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for at in memchr::memmem::find_iter(text, key) {
        if let Some(v) = value_at(text, at + key.len()) {
            // Records repeat the same value line after line; keep the list short.
            if out.last() != Some(&v) {
                out.push(v);
            }
        }
    }
    out
}

fn first_string_value(text: &[u8], key: &[u8]) -> Option<String> {
    memchr::memmem::find_iter(text, key).find_map(|at| value_at(text, at + key.len()))
}

fn last_string_value(text: &[u8], key: &[u8]) -> Option<String> {
    memchr::memmem::rfind_iter(text, key).find_map(|at| value_at(text, at + key.len()))
}

/// The JSON string after `: ` at `i` (just past a key), if there is a whole one.
fn value_at(text: &[u8], mut i: usize) -> Option<String> {
    {
        while i < text.len() && text[i].is_ascii_whitespace() {
            i += 1;
        }
        if text.get(i) != Some(&b':') {
            return None;
        }
        i += 1;
        while i < text.len() && text[i].is_ascii_whitespace() {
            i += 1;
        }
        if text.get(i) != Some(&b'"') {
            return None;
        }
        let start = i;
        i += 1;
        let mut escaped = false;
        while i < text.len() && text[i] != b'"' {
            escaped |= text[i] == b'\\';
            i += if text[i] == b'\\' { 2 } else { 1 };
        }
        let raw = text.get(start..=i)?;
        let value = if escaped {
            serde_json::from_slice::<String>(raw).ok()?
        } else {
            std::str::from_utf8(&raw[1..raw.len() - 1]).ok()?.to_owned()
        };
        (!value.is_empty()).then_some(value)
    }
}
