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
use crate::agents::Agent;
use crate::config::Roots;
use crate::sessions::transcript::read_marked;

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
    /// Lines parsed as JSON: only those a marker pointed into (the rest were searched, not parsed).
    #[serde(default)]
    pub lines_parsed: u64,
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

pub(crate) fn cache_path(data: &Path) -> PathBuf {
    data.join("history").join("transcripts.json")
}

/// Every transcript's facts, by path.
pub(crate) type Files = BTreeMap<PathBuf, FileEntry>;

/// How far a scan is: sent while it reads (see [`update`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ScanProgress {
    /// Transcripts looked at so far, of `files`.
    pub files_done: u32,
    pub files: u32,
    /// Bytes read so far, of `bytes` (what is new in the transcripts since the last scan).
    #[ts(type = "number")]
    pub bytes_done: u64,
    #[ts(type = "number")]
    pub bytes: u64,
    /// The scan is over.
    pub done: bool,
}

/// Every transcript's facts after reading what is new, the scan's figures, and notes: the store
/// loaded, brought up to date and saved (what the CLI does on each call).
pub(crate) fn scan(roots: &Roots) -> Result<(Files, ScanStats, Vec<String>), HistoryError> {
    let (previous, mut notes) = load(roots);
    let (files, stats, changed) = update(roots, &previous, &|_| {});
    if changed || !cache_path(&roots.data).exists() {
        if let Err(note) = save(roots, &files) {
            notes.push(note);
        }
    }
    Ok((files, stats, notes))
}

/// The store as the last scan left it (empty, with a note, when it cannot be trusted).
pub(crate) fn load(roots: &Roots) -> (Files, Vec<String>) {
    let path = cache_path(&roots.data);
    let (files, rebuild) = crate::stamped::load(&path, CACHE_VERSION);
    let notes = rebuild
        .map(|why| {
            format!(
                "The plan history store {} {why}: rebuilt from the transcripts.",
                path.display()
            )
        })
        .into_iter()
        .collect();
    (files, notes)
}

/// Writes the store (atomically, private: 0600 in 0700 folders from the first instant, like every
/// file of the store). Returns the note to show when it could not.
pub(crate) fn save(roots: &Roots, files: &Files) -> Result<(), String> {
    crate::stamped::save(&cache_path(&roots.data), CACHE_VERSION, files)
        .map_err(|e| format!("The plan history was not saved: {e}"))
}

/// Brings `previous` up to date: every transcript on disk, reading only the bytes appended since
/// (a replaced, shrunk or rewritten file is read again whole), several files at once. Calls
/// `progress` after each transcript (from the reading threads). Returns the facts, the figures,
/// and whether anything changed.
pub(crate) fn update(
    roots: &Roots,
    previous: &Files,
    progress: &(dyn Fn(ScanProgress) + Sync),
) -> (Files, ScanStats, bool) {
    use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
    let mut found: Vec<(Agent, PathBuf, bool, u64)> = Vec::new();
    let mut push = |agent: Agent, p: PathBuf, sub: bool| {
        // What is left to read, for the progress figures only.
        let size = std::fs::metadata(&p).map(|m| m.len()).unwrap_or(0);
        let done = previous
            .get(&p)
            .map_or(0, |e| if e.offset <= size { e.offset } else { 0 });
        found.push((agent, p, sub, size - done));
    };
    for (agent, p) in crate::sessions::index::transcript_files(roots) {
        for sub in crate::agents::records(agent).subagent_transcripts(&p) {
            push(agent, sub, true);
        }
        push(agent, p, false);
    }
    let total = ScanProgress {
        files: found.len() as u32,
        bytes: found.iter().map(|f| f.3).sum(),
        ..ScanProgress::default()
    };
    progress(total);
    let (files_done, bytes_done) = (AtomicU32::new(0), AtomicU64::new(0));
    let results: Vec<(PathBuf, Option<FileEntry>, FileStats)> = found
        .par_iter()
        .map(|(agent, p, sub, _)| {
            let (entry, stats) = read_one(*agent, p, *sub, previous.get(p));
            progress(ScanProgress {
                files_done: files_done.fetch_add(1, Ordering::Relaxed) + 1,
                bytes_done: bytes_done.fetch_add(stats.bytes_read, Ordering::Relaxed)
                    + stats.bytes_read,
                ..total
            });
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
        stats.lines_parsed += fs.lines;
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
    for (p, old) in previous {
        if let std::collections::btree_map::Entry::Vacant(slot) = files.entry(p.clone()) {
            let mut old = old.clone();
            if !old.gone {
                old.gone = true;
                changed = true;
            }
            stats.files_gone += 1;
            slot.insert(old);
        }
    }
    progress(ScanProgress {
        files_done: total.files,
        bytes_done: stats.bytes_read,
        done: true,
        ..total
    });
    (files, stats, changed)
}

#[derive(Default)]
struct FileStats {
    bytes_read: u64,
    lines: u64,
    read: bool,
    rescanned: bool,
}

struct Stat {
    dev: u64,
    ino: u64,
    size: u64,
    mtime_ns: i128,
}

fn stat_of(m: &std::fs::Metadata) -> Stat {
    use std::os::unix::fs::MetadataExt;
    Stat {
        dev: m.dev(),
        ino: m.ino(),
        size: m.size(),
        mtime_ns: m.mtime() as i128 * 1_000_000_000 + m.mtime_nsec() as i128,
    }
}

/// Brings one transcript's entry up to date, reading only what is new when the entry allows.
fn read_one(
    agent: Agent,
    p: &Path,
    subagent: bool,
    old: Option<&FileEntry>,
) -> (Option<FileEntry>, FileStats) {
    let mut fs = FileStats::default();
    // Identity, size and mtime of the file opened (not of whatever the path names later).
    let Ok(file) = std::fs::File::open(p) else {
        return (None, fs);
    };
    let Ok(st) = file.metadata().map(|m| stat_of(&m)) else {
        return (None, fs);
    };
    let resume = old.filter(|e| {
        e.agent == agent
            && e.dev == st.dev
            && e.ino == st.ino
            && e.offset <= st.size
            && !(st.size == e.size && st.size == e.offset && st.mtime_ns != e.mtime_ns)
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
    fs.read = true;
    let Some(reader) = crate::agents::records(agent).plan_reader() else {
        return (None, fs);
    };
    let read = read_marked(&file, start, &mut facts, reader.candidate, reader.parse);
    let Ok(read) = read else {
        return (None, fs);
    };
    fs.bytes_read = read.bytes_read;
    fs.lines = read.lines;
    facts.unreadable += read.overlong;
    // Size and mtime as seen before reading: bytes appended while reading make the next scan look
    // again from `end`, never skip them.
    (
        Some(FileEntry {
            agent,
            dev: st.dev,
            ino: st.ino,
            size: st.size,
            mtime_ns: st.mtime_ns,
            offset: read.end,
            subagent,
            gone: false,
            facts,
        }),
        fs,
    )
}
