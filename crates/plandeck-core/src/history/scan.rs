//! Incremental, persisted reading of every transcript for the plan history.
//!
//! The store keeps, per transcript, its identity (device and inode), size, mtime, the byte offset
//! read so far (the end of the last complete line) and the [`PlanFacts`] read from those bytes, in
//! `<data>/history/transcripts.json` (written atomically). A later scan reads only the bytes
//! appended since: a file whose identity changed, that shrank, or that kept its size but changed
//! its mtime is read again from 0. A transcript that disappeared keeps its facts (the plans it held
//! are not lost when the agent sweeps old transcripts). A store file that cannot be read is
//! rebuilt from the transcripts, with a note, never trusted.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::events::PlanFacts;
use super::HistoryError;
use crate::agent::Agent;
use crate::config::Roots;
use crate::sessions::transcript::{FileStamp, Follower, LineSplitter, Progress, Resume};

const CACHE_VERSION: u32 = 1;

/// What one scan did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScanStats {
    /// Transcripts found on disk.
    pub files: u32,
    /// Transcripts read (in part or whole) by this scan.
    pub files_read: u32,
    /// Transcripts read again from the start (replaced, shrunk, rewritten).
    pub files_rescanned: u32,
    /// Bytes read from transcripts by this scan.
    pub bytes_read: u64,
    /// Transcripts known from an earlier scan that are gone now (their plans are kept).
    pub files_gone: u32,
}

/// One transcript as the store keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileEntry {
    pub agent: Agent,
    pub dev: u64,
    pub ino: u64,
    pub size: u64,
    pub mtime_ns: i128,
    /// Bytes read so far: the end of the last complete line.
    pub offset: u64,
    /// A subagent's transcript (Claude Code `<session>/subagents/*.jsonl`).
    #[serde(default)]
    pub subagent: bool,
    /// The transcript was not found by the last scan.
    #[serde(default)]
    pub gone: bool,
    pub facts: PlanFacts,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Cache {
    version: u32,
    files: BTreeMap<PathBuf, FileEntry>,
}

pub(crate) fn cache_path(data: &Path) -> PathBuf {
    data.join("history").join("transcripts.json")
}

/// Every transcript's facts, by path.
pub(crate) type Files = BTreeMap<PathBuf, FileEntry>;

/// Every transcript's facts after reading what is new, the scan's figures, and notes.
pub(crate) fn scan(roots: &Roots) -> Result<(Files, ScanStats, Vec<String>), HistoryError> {
    let mut notes = Vec::new();
    let path = cache_path(&roots.data);
    let mut cache = match std::fs::read(&path) {
        Ok(bytes) => match serde_json::from_slice::<Cache>(&bytes) {
            Ok(c) if c.version == CACHE_VERSION => c,
            Ok(_) => {
                notes.push(format!(
                    "The plan history store {} is of another version: rebuilt from the transcripts.",
                    path.display()
                ));
                Cache::default()
            }
            Err(e) => {
                notes.push(format!(
                    "The plan history store {} is damaged ({e}): rebuilt from the transcripts.",
                    path.display()
                ));
                Cache::default()
            }
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Cache::default(),
        Err(e) => {
            notes.push(format!(
                "Cannot read the plan history store {} ({e}): rebuilt from the transcripts.",
                path.display()
            ));
            Cache::default()
        }
    };

    let mut found: Vec<(Agent, PathBuf, bool)> = Vec::new();
    for (agent, p) in crate::sessions::index::transcript_files(roots) {
        if agent == Agent::Claude {
            for sub in crate::sessions::claude::subagent_transcripts(&p) {
                found.push((Agent::Claude, sub, true));
            }
        }
        found.push((agent, p, false));
    }

    let previous = std::mem::take(&mut cache.files);
    let results: Vec<(PathBuf, Option<FileEntry>, FileStats)> = found
        .par_iter()
        .map(|(agent, p, sub)| {
            let (entry, stats) = read_one(*agent, p, *sub, previous.get(p));
            (p.clone(), entry, stats)
        })
        .collect();

    let mut stats = ScanStats {
        files: found.len() as u32,
        ..ScanStats::default()
    };
    let mut changed = false;
    let mut files = BTreeMap::new();
    for (p, entry, fs) in results {
        stats.bytes_read += fs.bytes_read;
        stats.files_read += fs.read as u32;
        stats.files_rescanned += fs.rescanned as u32;
        changed |= fs.read;
        match entry {
            Some(e) => {
                files.insert(p, e);
            }
            None => {
                if let Some(old) = previous.get(&p) {
                    files.insert(p, old.clone());
                }
            }
        }
    }
    for (p, mut old) in previous {
        if let std::collections::btree_map::Entry::Vacant(slot) = files.entry(p) {
            if !old.gone {
                old.gone = true;
                changed = true;
            }
            stats.files_gone += 1;
            slot.insert(old);
        }
    }
    cache.version = CACHE_VERSION;
    cache.files = files;
    if changed || !path.exists() {
        match serde_json::to_vec(&cache) {
            Ok(bytes) => {
                if let Err(e) = crate::fsx::write_atomic(&path, &bytes) {
                    notes.push(format!("The plan history was not saved: {e}"));
                }
            }
            Err(e) => notes.push(format!("The plan history was not saved: {e}")),
        }
    }
    Ok((cache.files, stats, notes))
}

#[derive(Default)]
struct FileStats {
    bytes_read: u64,
    read: bool,
    rescanned: bool,
}

fn stat(p: &Path) -> std::io::Result<FileStamp> {
    FileStamp::of(p)
}

/// Brings one transcript's entry up to date, reading only what is new when the entry allows.
fn read_one(
    agent: Agent,
    p: &Path,
    subagent: bool,
    old: Option<&FileEntry>,
) -> (Option<FileEntry>, FileStats) {
    let mut fs = FileStats::default();
    let Ok(st) = stat(p) else {
        return (None, fs);
    };
    let resume = old.filter(|e| {
        e.agent == agent
            && FileStamp {
                dev: e.dev,
                ino: e.ino,
                size: e.size,
                mtime_ns: e.mtime_ns,
            }
            .resume(e.offset, &st)
                != Resume::Restart
    });
    if let Some(e) = resume {
        if e.size == st.size && e.mtime_ns == st.mtime_ns && !e.gone {
            return (Some(e.clone()), fs);
        }
    } else if old.is_some() {
        fs.rescanned = true;
    }
    let (mut facts, start) = match resume {
        Some(e) => (e.facts.clone(), e.offset),
        None => (PlanFacts::default(), 0),
    };
    let mut follower = Follower {
        path: p.to_owned(),
        offset: start,
        file_id: st.ino,
        splitter: LineSplitter::default(),
    };
    let mut feed = |line: &[u8]| feed_line(agent, &mut facts, line);
    let mut progress = follower.read_new(&mut feed);
    if matches!(progress, Ok(Progress::Replaced)) {
        // Replaced between the stat and the open: start over.
        fs.rescanned = true;
        facts = PlanFacts::default();
        follower = Follower::new(p);
        follower.file_id = stat(p).map(|s| s.ino).unwrap_or(0);
        let mut feed = |line: &[u8]| feed_line(agent, &mut facts, line);
        progress = follower.read_new(&mut feed);
    }
    fs.read = true;
    fs.bytes_read = follower.offset.saturating_sub(start);
    if progress.is_err() {
        return (None, fs);
    }
    facts.unreadable += follower.splitter.overlong;
    let offset = follower.offset - follower.splitter.pending() as u64;
    // Size and mtime as seen before reading: bytes appended while reading make the next scan look
    // again from `offset`, never skip them.
    (
        Some(FileEntry {
            agent,
            dev: st.dev,
            ino: st.ino,
            size: st.size,
            mtime_ns: st.mtime_ns,
            offset,
            subagent,
            gone: false,
            facts,
        }),
        fs,
    )
}

fn feed_line(agent: Agent, facts: &mut PlanFacts, line: &[u8]) {
    match agent {
        Agent::Claude => crate::sessions::claude::plan_line(facts, line),
        Agent::Gemini => crate::sessions::gemini::plan_line(facts, line),
        Agent::Codex => crate::sessions::codex::plan_line(facts, line),
        Agent::Other => {}
    }
}
