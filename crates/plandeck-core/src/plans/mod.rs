//! Plan files of every agent: discovery, linking to sessions, reading, search, live changes.
//!
//! - [`list`] finds every plan (Claude Code's plans folder and each project's `plansDirectory`,
//!   subagent plans, Gemini CLI's per-session plans folders, the user's extra folders) and links
//!   each to its agent, project, session and branch (see `discover`).
//! - [`get`] reads one plan and renders it ([`crate::render`]); [`search`] searches them all.
//! - [`watch()`] reports plan files created, changed, renamed or deleted (see `watcher`).
//!
//! A plan that cannot be shown (binary, not UTF-8, huge, unreadable) is still listed, with a
//! `problem` sentence in place of its content; a folder that cannot be read is a listing problem.

mod discover;
mod index;
mod watcher;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::agents::Agent;
use crate::config::Roots;
use crate::ipc::{ErrorKind, IpcError};
pub use crate::plan_state::{DecidedIn, ReviewState};
pub use crate::render::Heading;

pub use index::PlanIndex;
pub use watcher::{watch, PlansChanged};

/// Plans bigger than this are listed but not read: no agent writes one, and reading it whole
/// would stall the listing.
pub const MAX_PLAN_BYTES: u64 = 8 * 1024 * 1024;

/// One plan as the list shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PlanSummary {
    /// [`crate::ids::plan_id`] of `path`.
    pub id: String,
    pub path: String,
    pub agent: Agent,
    /// The first heading, else the file name.
    pub title: String,
    /// The project directory the plan belongs to, when known.
    pub project: Option<String>,
    pub session_id: Option<String>,
    pub git_branch: Option<String>,
    /// Where the plan stands, from every source: `waiting` (an agent waits for a decision on it
    /// now), else Plandeck's decision, else the agent's own recorded decision, else `unreviewed`.
    /// Settled by [`crate::standing::settle`]; `unreviewed` as [`list`] and [`get`] give it.
    pub state: ReviewState,
    /// Where the decision `state` shows was made (`plandeck`, `terminal`, `hook`, `headless`);
    /// null when unreviewed or waiting.
    pub decided_in: Option<DecidedIn>,
    /// The gate request waiting for this plan, when `state` is `waiting`.
    pub waiting_request: Option<String>,
    /// Last change of the file, RFC 3339 UTC.
    pub updated_at: Option<String>,
    #[ts(type = "number")]
    pub size_bytes: u64,
    /// Why the plan cannot be shown (binary, not UTF-8, too large, unreadable), if it cannot.
    pub problem: Option<String>,
    /// For a subagent's plan (`<slug>-agent-<id>.md`), the subagent's id.
    pub subagent_id: Option<String>,
    /// The machine this is on (`plandeck hosts`), named by its rows in the window; `null`: this one.
    #[serde(default)]
    pub machine: Option<String>,
}

/// Every plan found, newest first, and the folders that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PlanListing {
    pub plans: Vec<PlanSummary>,
    /// One sentence per folder that could not be read.
    pub problems: Vec<String>,
}

/// One plan, read and rendered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PlanDocument {
    pub plan: PlanSummary,
    /// The markdown source.
    pub source: String,
    /// Sanitized HTML.
    pub html: String,
    /// The headings, for a table of contents.
    pub headings: Vec<Heading>,
    /// SHA-256 (hex) of `source`: what an edit started from, so approving the edit can refuse
    /// when the file moved on (see [`crate::review::approve`]).
    pub content_hash: String,
}

/// A plan matching a search, with the text around the first match.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SearchHit {
    pub id: String,
    pub title: String,
    /// The plan's text around the first match, as a person reads it: plain text, the markdown
    /// (`**`, `#`, backticks, list markers, link targets) left out, on one line.
    pub snippet: String,
    /// Where the query is in `snippet`, each match in order, for highlighting. Empty when the
    /// plan matched by its title or its markdown only (a link target).
    pub matches: Vec<TextSpan>,
}

/// A span of a string, in UTF-16 code units (as JavaScript counts: `text.slice(start, end)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TextSpan {
    pub start: u32,
    pub end: u32,
}

#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    #[error("No plan {0:?}: no listed plan has that id, and no such file exists (it may have been deleted or moved). Run `plandeck plans list` for the ids.")]
    Unknown(String),
    /// An id prefix that more than one listed plan starts with.
    #[error("{prefix:?} starts the ids of {count} plans ({examples}); type more of it. Run `plandeck plans list` for the ids.")]
    Ambiguous {
        prefix: String,
        count: usize,
        examples: String,
    },
    #[error("The plan {path} no longer exists: it was deleted or moved.")]
    Deleted { path: PathBuf },
    /// The window names plans by the ids discovery gave it, never by path.
    #[error("{0:?} is not a plan id (12 hex digits from the plan list); the window names plans by id, not by path.")]
    NotAnId(String),
    #[error("The plan {path} is too large to show ({size} bytes; plans over 8 MiB are not read).")]
    TooLarge { path: PathBuf, size: u64 },
    #[error("{path} is not a plan file (a folder or a device).")]
    NotAFile { path: PathBuf },
    #[error("The plan {path} is a binary file, not markdown.")]
    Binary { path: PathBuf },
    #[error("The plan {path} is not valid UTF-8 text (bad byte at offset {offset}).")]
    NotUtf8 { path: PathBuf, offset: usize },
    #[error("Cannot read the plan {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl From<PlanError> for IpcError {
    fn from(e: PlanError) -> Self {
        let kind = match &e {
            PlanError::Unknown(_) | PlanError::Deleted { .. } => ErrorKind::NotFound,
            PlanError::Ambiguous { .. } => ErrorKind::BadInput,
            PlanError::TooLarge { .. }
            | PlanError::Binary { .. }
            | PlanError::NotUtf8 { .. }
            | PlanError::NotAFile { .. }
            | PlanError::NotAnId(_) => ErrorKind::BadInput,
            PlanError::Read { .. } => ErrorKind::Io,
        };
        IpcError::new(kind, e.to_string())
    }
}

/// Every plan under `roots`, newest first, with the folders that could not be read.
pub fn list(roots: &Roots) -> PlanListing {
    let found = index::current(roots);
    let mut plans: Vec<(PlanSummary, Option<SystemTime>)> = found
        .candidates
        .par_iter()
        .filter_map(|c| {
            let read = read_plan(&c.path);
            if matches!(read, Err(PlanError::Deleted { .. })) {
                return None; // Deleted between the folder scan and now.
            }
            Some(summarize(c, &read))
        })
        .collect();
    plans.sort_by(|(a, at), (b, bt)| bt.cmp(at).then_with(|| a.path.cmp(&b.path)));
    PlanListing {
        plans: plans.into_iter().map(|(p, _)| p).collect(),
        problems: found.problems.clone(),
    }
}

/// The `n` newest plans of [`list`] (the same rows, in the same order) and how many it holds in
/// all: every candidate's modification time is looked at, only the newest `n` files are read.
/// The window's first frame (issue 34): on a heavy home that is 40 files read instead of hundreds,
/// while WebKit starts on the same cores.
pub fn list_newest(roots: &Roots, n: usize) -> (PlanListing, usize) {
    let found = index::current(roots);
    let mut timed: Vec<(&discover::Candidate, Option<SystemTime>)> = found
        .candidates
        .iter()
        .filter_map(|c| match std::fs::metadata(&c.path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(_) => Some((c, None)),
            Ok(m) => Some((c, m.modified().ok())),
        })
        .collect();
    let total = timed.len();
    timed.sort_by(|(a, at), (b, bt)| bt.cmp(at).then_with(|| a.path.cmp(&b.path)));
    timed.truncate(n);
    let mut plans: Vec<(PlanSummary, Option<SystemTime>)> = timed
        .into_iter()
        .filter_map(|(c, _)| {
            let read = read_plan(&c.path);
            if matches!(read, Err(PlanError::Deleted { .. })) {
                return None;
            }
            Some(summarize(c, &read))
        })
        .collect();
    plans.sort_by(|(a, at), (b, bt)| bt.cmp(at).then_with(|| a.path.cmp(&b.path)));
    let listing = PlanListing {
        plans: plans.into_iter().map(|(p, _)| p).collect(),
        problems: found.problems.clone(),
    };
    (listing, total)
}

/// Reads and renders one plan, by id or path (the CLI's form; the window uses [`get_by_id`]).
pub fn get(roots: &Roots, id_or_path: &str) -> Result<PlanDocument, PlanError> {
    let (path, found) = resolve_with(roots, id_or_path, resolve_in)?;
    get_in(&found, path)
}

/// Reads and renders the plan discovery lists under `id`; a path or an unknown id is refused.
pub fn get_by_id(roots: &Roots, id: &str) -> Result<PlanDocument, PlanError> {
    let (path, found) = resolve_with(roots, id, resolve_id_in)?;
    get_in(&found, path)
}

/// `resolve` on what discovery finds under `roots`, discovering again before it refuses (see
/// [`index::lookup`]); with the discovery it resolved in.
fn resolve_with(
    roots: &Roots,
    id_or_path: &str,
    resolve: fn(&discover::Discovery, &str) -> Result<PathBuf, PlanError>,
) -> Result<(PathBuf, Arc<discover::Discovery>), PlanError> {
    match index::lookup(roots, |found| resolve(found, id_or_path).ok()) {
        (Some(path), found) => Ok((path, found)),
        (None, found) => resolve(&found, id_or_path).map(|path| (path, found)),
    }
}

fn get_in(found: &discover::Discovery, path: PathBuf) -> Result<PlanDocument, PlanError> {
    let candidate = found
        .candidates
        .iter()
        .find(|c| c.path == path)
        .cloned()
        .unwrap_or_else(|| {
            // A path outside every plan folder: shown, but linked to nothing.
            discover::Candidate {
                path: path.clone(),
                agent: Agent::Other,
                project: None,
                session_id: None,
                git_branch: None,
                subagent_id: None,
            }
        });
    let read = read_plan(&path);
    let (plan, _) = summarize(&candidate, &read);
    let (_, text) = read?;
    let rendered = crate::render::render(&text);
    let content_hash = crate::durable::sha256_hex(text.as_bytes());
    Ok(PlanDocument {
        plan,
        source: text,
        html: rendered.html,
        headings: rendered.headings,
        content_hash,
    })
}

/// Plans whose title or text contains `query` (case-insensitive), newest first, each with the
/// text around its first match.
pub fn search(roots: &Roots, query: &str) -> Vec<SearchHit> {
    let query = query.trim();
    if query.is_empty() {
        return Vec::new();
    }
    let needle = query.to_lowercase();
    let listing = list(roots);
    listing
        .plans
        .par_iter()
        .filter(|p| p.problem.is_none())
        .filter_map(|p| {
            let in_title = p.title.to_lowercase().contains(&needle);
            let text = read_plan(Path::new(&p.path))
                .ok()
                .map(|(_, t)| t)
                .unwrap_or_default();
            // The snippet is the text a person reads; a plan still matches by its markdown (a
            // link target), shown from its start with nothing highlighted.
            let plain = plain_text(&text);
            let (snippet, matches) = match find_ci(&plain, &needle) {
                Some((start, end)) => snippet(&plain, start, end, &needle),
                None if in_title || find_ci(&text, &needle).is_some() => {
                    (snippet(&plain, 0, 0, &needle).0, Vec::new())
                }
                None => return None,
            };
            Some(SearchHit {
                id: p.id.clone(),
                title: p.title.clone(),
                snippet,
                matches,
            })
        })
        .collect()
}

/// Why Plandeck refuses to write a plan file at a path (docs/architecture.md §7, trust rules: it writes only to
/// canonical plan files inside discovered plans folders, never through a symlink to elsewhere).
#[derive(Debug, thiserror::Error)]
pub enum UnsafePlanPath {
    #[error("refusing to write {path}: the path goes up a folder (`..`)")]
    ParentComponent { path: PathBuf },
    #[error("refusing to write {path}: not an absolute path")]
    Relative { path: PathBuf },
    #[error(
        "refusing to write {path}: it leads to {target}, which is outside every plans folder \
         Plandeck knows (a symlink or a path pointing elsewhere)"
    )]
    Outside { path: PathBuf, target: PathBuf },
    #[error("refusing to write {path}: it is a symlink that leads nowhere, or not a regular file")]
    NotAFile { path: PathBuf },
    #[error("refusing to write {path}: cannot resolve it: {source}")]
    Resolve {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The one place that decides where a plan file may be written: the canonical path of `path`
/// (every symlink followed), which must be a regular file (or a new file) strictly inside a
/// plans folder discovery found (Claude Code's, a project's `plansDirectory`, a Gemini CLI
/// session's, an extra folder). `path` must be absolute and free of `..`. Writers write to the
/// path this returns, so a symlinked plan inside a plans folder stays a symlink.
pub fn writable_plan_path(roots: &Roots, path: &Path) -> Result<PathBuf, UnsafePlanPath> {
    use std::path::Component;
    let owned = || path.to_owned();
    if path.components().any(|c| matches!(c, Component::ParentDir)) {
        return Err(UnsafePlanPath::ParentComponent { path: owned() });
    }
    if !path.is_absolute() {
        return Err(UnsafePlanPath::Relative { path: owned() });
    }
    let target = match path.canonicalize() {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if path.symlink_metadata().is_ok() {
                // A dangling symlink: where the write would land is not known.
                return Err(UnsafePlanPath::NotAFile { path: owned() });
            }
            let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
                return Err(UnsafePlanPath::NotAFile { path: owned() });
            };
            match parent.canonicalize() {
                Ok(p) => p.join(name),
                Err(source) => {
                    return Err(UnsafePlanPath::Resolve {
                        path: owned(),
                        source,
                    })
                }
            }
        }
        Err(source) => {
            return Err(UnsafePlanPath::Resolve {
                path: owned(),
                source,
            })
        }
    };
    if target.symlink_metadata().is_ok_and(|m| !m.is_file()) {
        return Err(UnsafePlanPath::NotAFile { path: owned() });
    }
    let (inside, _) = index::lookup(roots, |found| {
        found
            .sources
            .iter()
            .filter_map(|s| s.dir.canonicalize().ok())
            .any(|dir| target.starts_with(&dir) && target != dir)
            .then_some(())
    });
    if inside.is_none() {
        return Err(UnsafePlanPath::Outside {
            path: owned(),
            target,
        });
    }
    Ok(target)
}

/// Finds a plan by id ([`crate::ids::plan_id`]) or by path (absolute, or relative to the current
/// directory). Paths come back in the form the listing uses (canonical folder + file name).
pub fn resolve(roots: &Roots, id_or_path: &str) -> Result<PathBuf, IpcError> {
    Ok(resolve_with(roots, id_or_path, resolve_in)?.0)
}

/// Who a plan belongs to, as discovery links it: the agent whose folder holds it and, when a
/// transcript names the plan, the session that wrote it. `None` for a file no plan folder holds.
/// Decisions take their agent and session from here, so the window and the CLI record the same.
pub fn owner(roots: &Roots, path: &Path) -> Option<(Agent, Option<String>)> {
    let key = crate::durable::canonical_or(path);
    let normal = normalize(path);
    let (owner, _) = index::lookup(roots, |found| {
        found
            .candidates
            .iter()
            .find(|c| {
                c.path == normal || c.path == key || crate::durable::canonical_or(&c.path) == key
            })
            .map(|c| (c.agent, c.session_id.clone()))
    });
    owner
}

/// The path of the plan discovery lists under `id` ([`crate::ids::plan_id`]). Only ids: what the
/// window sends is checked against what discovery found, so it cannot name an arbitrary file.
pub fn resolve_id(roots: &Roots, id: &str) -> Result<PathBuf, PlanError> {
    resolve_with(roots, id, resolve_id_in).map(|(path, _)| path)
}

fn resolve_id_in(found: &discover::Discovery, id: &str) -> Result<PathBuf, PlanError> {
    if id.len() != 12 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(PlanError::NotAnId(id.to_owned()));
    }
    let id = id.to_ascii_lowercase();
    found
        .candidates
        .iter()
        .find(|c| crate::ids::plan_id(&c.path) == id)
        .map(|c| c.path.clone())
        .ok_or(PlanError::Unknown(id))
}

fn resolve_in(found: &discover::Discovery, id_or_path: &str) -> Result<PathBuf, PlanError> {
    let looks_like_id = id_or_path.len() == 12 && id_or_path.bytes().all(|b| b.is_ascii_hexdigit());
    if looks_like_id {
        let id = id_or_path.to_ascii_lowercase();
        if let Some(c) = found
            .candidates
            .iter()
            .find(|c| crate::ids::plan_id(&c.path) == id)
        {
            return Ok(c.path.clone());
        }
    }
    // A unique start of an id (at least 4 hex digits), as `git` takes a commit's: typed by a
    // person, never sent by the window (which names plans by whole ids, see `resolve_id`).
    let looks_like_prefix = (4..12).contains(&id_or_path.len())
        && id_or_path.bytes().all(|b| b.is_ascii_hexdigit())
        && !Path::new(id_or_path).exists();
    if looks_like_prefix {
        let prefix = id_or_path.to_ascii_lowercase();
        let matching: Vec<(String, &PathBuf)> = found
            .candidates
            .iter()
            .map(|c| (crate::ids::plan_id(&c.path), &c.path))
            .filter(|(id, _)| id.starts_with(&prefix))
            .collect();
        match matching.as_slice() {
            [(_, path)] => return Ok((*path).clone()),
            [] => {}
            many => {
                let mut ids: Vec<&str> = many.iter().map(|(id, _)| id.as_str()).collect();
                ids.sort_unstable();
                ids.dedup();
                if ids.len() == 1 {
                    return Ok(many[0].1.clone());
                }
                return Err(PlanError::Ambiguous {
                    prefix: id_or_path.to_owned(),
                    count: ids.len(),
                    examples: ids.iter().take(3).copied().collect::<Vec<_>>().join(", "),
                });
            }
        }
    }
    let path = crate::durable::absolute(Path::new(id_or_path));
    let normal = normalize(&path);
    if normal.is_file() {
        return Ok(normal);
    }
    if found.candidates.iter().any(|c| c.path == normal)
        || normal.extension().is_some_and(|x| x == "md")
            && normal.parent().is_some_and(Path::is_dir)
    {
        return Err(PlanError::Deleted { path: normal });
    }
    Err(PlanError::Unknown(id_or_path.to_owned()))
}

/// The listing's form of a path: canonical parent folder + file name (the file may be a link).
fn normalize(path: &Path) -> PathBuf {
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) if !parent.as_os_str().is_empty() => {
            discover::canonical_or(parent).join(name)
        }
        _ => path.to_owned(),
    }
}

/// Every folder that can hold plans: Claude Code's plans folder (even before it exists), each
/// project's `plansDirectory`, each Gemini CLI session's plans folder, the extra folders.
pub fn folders(roots: &Roots) -> Vec<PathBuf> {
    index::current(roots)
        .sources
        .iter()
        .map(|s| s.dir.clone())
        .collect()
}

/// The one reader of plan files: the file's metadata and its bytes, bounded by
/// [`MAX_PLAN_BYTES`] even if the file grows while it is read; a folder or a device is refused.
pub(crate) fn read_plan_bytes(path: &Path) -> Result<(std::fs::Metadata, Vec<u8>), PlanError> {
    let with = |source: std::io::Error| {
        if source.kind() == std::io::ErrorKind::NotFound {
            PlanError::Deleted {
                path: path.to_owned(),
            }
        } else {
            PlanError::Read {
                path: path.to_owned(),
                source,
            }
        }
    };
    let mut file = std::fs::File::open(path).map_err(with)?;
    let meta = file.metadata().map_err(with)?;
    if !meta.is_file() {
        return Err(PlanError::NotAFile {
            path: path.to_owned(),
        });
    }
    if meta.len() > MAX_PLAN_BYTES {
        return Err(PlanError::TooLarge {
            path: path.to_owned(),
            size: meta.len(),
        });
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    (&mut file)
        .take(MAX_PLAN_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(with)?;
    if bytes.len() as u64 > MAX_PLAN_BYTES {
        return Err(PlanError::TooLarge {
            path: path.to_owned(),
            size: bytes.len() as u64,
        });
    }
    Ok((meta, bytes))
}

/// The file's metadata and its text, or why it cannot be shown (see [`read_plan_bytes`]; a binary
/// file or one that is not UTF-8 is refused too).
pub(crate) fn read_plan(path: &Path) -> Result<(std::fs::Metadata, String), PlanError> {
    let (meta, bytes) = read_plan_bytes(path)?;
    if memchr::memchr(0, &bytes[..bytes.len().min(8192)]).is_some() {
        return Err(PlanError::Binary {
            path: path.to_owned(),
        });
    }
    match String::from_utf8(bytes) {
        Ok(text) => Ok((meta, text)),
        Err(e) => Err(PlanError::NotUtf8 {
            path: path.to_owned(),
            offset: e.utf8_error().valid_up_to(),
        }),
    }
}

fn summarize(
    c: &discover::Candidate,
    read: &Result<(std::fs::Metadata, String), PlanError>,
) -> (PlanSummary, Option<SystemTime>) {
    let file_name = c
        .path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let meta = match read {
        Ok((meta, _)) => Some(meta.clone()),
        Err(_) => std::fs::metadata(&c.path).ok(),
    };
    let modified = meta.as_ref().and_then(|m| m.modified().ok());
    // Where it stands is settled by `crate::standing` (Plandeck's decisions, the agent's, a
    // waiting request): a listing is unreviewed until then.
    let (title, problem) = match read {
        Ok((_, text)) => (
            first_heading(text).unwrap_or_else(|| file_name.clone()),
            None,
        ),
        Err(e) => (file_name.clone(), Some(e.to_string())),
    };
    let summary = PlanSummary {
        id: crate::ids::plan_id(&c.path),
        path: c.path.display().to_string(),
        agent: c.agent,
        title,
        project: c.project.clone(),
        session_id: c.session_id.clone(),
        git_branch: c.git_branch.clone(),
        state: ReviewState::Unreviewed,
        decided_in: None,
        waiting_request: None,
        updated_at: modified.and_then(rfc3339),
        size_bytes: meta.map_or(0, |m| m.len()),
        problem,
        subagent_id: c.subagent_id.clone(),
        machine: None,
    };
    (summary, modified)
}

fn rfc3339(t: SystemTime) -> Option<String> {
    Some(crate::timestamp::format(time::OffsetDateTime::from(t)))
}

/// The text of the first ATX heading outside front matter and fenced code.
pub fn first_heading(text: &str) -> Option<String> {
    let mut lines = text.lines().peekable();
    if lines.peek().is_some_and(|l| l.trim_end() == "---") {
        lines.next();
        for line in lines.by_ref() {
            if line.trim_end() == "---" {
                break;
            }
        }
    }
    let mut fence: Option<&str> = None;
    for line in lines {
        let t = line.trim_start();
        if let Some(f) = fence {
            if t.starts_with(f) {
                fence = None;
            }
            continue;
        }
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = Some(&t[..3]);
            continue;
        }
        let hashes = t.bytes().take_while(|&b| b == b'#').count();
        if (1..=6).contains(&hashes) && line.len() - t.len() < 4 {
            let rest = &t[hashes..];
            if rest.is_empty() || rest.starts_with([' ', '\t']) {
                let title = rest.trim().trim_end_matches('#').trim();
                if !title.is_empty() {
                    return Some(title.to_owned());
                }
            }
        }
    }
    None
}

/// Byte range in `text` of the first case-insensitive match of `needle` (already lower case).
fn find_ci(text: &str, needle: &str) -> Option<(usize, usize)> {
    if text.is_ascii() && needle.is_ascii() {
        let lower = text.to_ascii_lowercase();
        return memchr::memmem::find(lower.as_bytes(), needle.as_bytes())
            .map(|s| (s, s + needle.len()));
    }
    // Lower-casing can change lengths: keep where each lowered byte came from.
    let mut lower = String::with_capacity(text.len());
    let mut origin = Vec::with_capacity(text.len());
    for (i, ch) in text.char_indices() {
        for l in ch.to_lowercase() {
            let before = lower.len();
            lower.push(l);
            origin.extend(std::iter::repeat_n(i, lower.len() - before));
        }
    }
    let s = lower.find(needle)?;
    let end_lowered = s + needle.len();
    let start = origin[s];
    let end = origin.get(end_lowered).copied().unwrap_or(text.len());
    Some((start, end.max(start)))
}

/// The words of a plan without its markdown, on one line: the text of headings, paragraphs,
/// list items, table cells and code, with a space between blocks; link and image targets, list
/// and task markers and emphasis left out. Raw HTML stays as written (nothing a plan holds is
/// hidden, docs/architecture.md §7).
fn plain_text(markdown: &str) -> String {
    use pulldown_cmark::{Event, Parser, TagEnd};
    let mut out = String::with_capacity(markdown.len());
    for event in Parser::new_ext(markdown, crate::render::options()) {
        match event {
            Event::Text(t)
            | Event::Code(t)
            | Event::Html(t)
            | Event::InlineHtml(t)
            | Event::InlineMath(t)
            | Event::DisplayMath(t) => out.push_str(&t),
            Event::SoftBreak | Event::HardBreak | Event::Rule => out.push(' '),
            Event::End(
                TagEnd::Paragraph
                | TagEnd::Heading(_)
                | TagEnd::Item
                | TagEnd::CodeBlock
                | TagEnd::BlockQuote(_)
                | TagEnd::TableCell
                | TagEnd::TableRow
                | TagEnd::TableHead
                | TagEnd::HtmlBlock
                | TagEnd::FootnoteDefinition,
            ) => out.push(' '),
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// About 160 characters of `text` (one line) around `start..end`, with ellipses where text was
/// cut, and where each case-insensitive match of `needle` (lower case) is in it.
fn snippet(text: &str, start: usize, end: usize, needle: &str) -> (String, Vec<TextSpan>) {
    let before = text[..start]
        .char_indices()
        .rev()
        .nth(59)
        .map_or(0, |(i, _)| i);
    let after = text[end..]
        .char_indices()
        .nth(100)
        .map_or(text.len(), |(i, _)| end + i);
    let mut out = String::new();
    if before > 0 {
        out.push('…');
    }
    let shown_from = out.len();
    out.push_str(&text[before..after]);
    let mut matches = Vec::new();
    let mut at = shown_from;
    while !needle.is_empty() && at < out.len() {
        let Some((s, e)) = find_ci(&out[at..], needle) else {
            break;
        };
        if e == s {
            break;
        }
        let utf16 =
            |byte: usize| u32::try_from(out[..byte].encode_utf16().count()).unwrap_or(u32::MAX);
        matches.push(TextSpan {
            start: utf16(at + s),
            end: utf16(at + e),
        });
        at += e;
    }
    if after < text.len() {
        out.push('…');
    }
    (out, matches)
}

/// TypeScript declarations of the types this module sends over IPC.
pub(crate) fn ts_declarations() -> Vec<String> {
    vec![
        <PlanSummary as TS>::decl(),
        <PlanListing as TS>::decl(),
        <PlanDocument as TS>::decl(),
        <SearchHit as TS>::decl(),
        <TextSpan as TS>::decl(),
        <PlansChanged as TS>::decl(),
    ]
}

#[cfg(test)]
mod tests;
