//! The changed files of a worktree, fast: what `git status --porcelain` prints, line for line.
//!
//! A plain git2 `statuses()` call is single-threaded and measured 2.5× `git status` on a
//! 100,000-file repository, so the index file is read once by our own parser (index_file.rs, with
//! libgit2's reading as the fallback) and the work is split three ways and run in parallel:
//! - staged: HEAD's tree against the index. Where the index's cache-tree says a folder's entries
//!   write exactly HEAD's tree for it, that folder is skipped (on a clean index, all of HEAD is), as
//!   git does; the rest is a merge of the flattened trees with the sorted entries. git2's diff
//!   runs only when adds and deletes could pair into renames, which `git status` shows as one line;
//! - unstaged: every index entry's stat data (mtime, ctime, size, inode, mode) compared with an
//!   `lstat` of the file, in parallel with rayon; only entries whose stat changed, or that are
//!   "racily clean" (modified in the same instant the index was written), are hashed;
//! - untracked: a parallel walk of the folders that hold tracked files, skipping `.git`; a name the
//!   index does not know is checked against the ignore rules (git2's, so `.gitignore`,
//!   `.git/info/exclude` and `core.excludesFile` all count). An untracked folder counts once
//!   ("?? dir/"), and only when something in it is not ignored, as git's default `-unormal` does.
//!
//! When content filters may apply (`.gitattributes`, `core.autocrlf`), a file whose raw hash differs
//! from the index is confirmed with git2's own per-file status, so a line-ending conversion is not
//! taken for a change.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use git2::{DiffFindOptions, DiffOptions, ObjectType, Oid, Repository, Status};
use rayon::prelude::*;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::WorktreeError;

#[path = "index_file.rs"]
mod index_file;
use index_file::{CacheTree, Entry, ParsedIndex};

#[cfg(test)]
#[path = "status_tests.rs"]
mod tests;

/// One line of `git status --porcelain`: `x` is the staged letter, `y` the unstaged one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangedFile {
    /// Path relative to the worktree; "old -> new" for a staged rename; ends with "/" for an
    /// untracked folder.
    pub path: String,
    pub x: char,
    pub y: char,
}

impl ChangedFile {
    /// The porcelain line, "XY path".
    pub fn line(&self) -> String {
        format!("{}{} {}", self.x, self.y, self.path)
    }

    /// What happened to the file, as a person says it.
    pub fn status(&self) -> FileStatus {
        FileStatus::of(self.x, self.y)
    }

    /// The file of a porcelain line "XY path" (as [`ChangedFile::line`] writes it).
    pub fn from_line(line: &str) -> Option<ChangedFile> {
        let mut chars = line.chars();
        let (x, y) = (chars.next()?, chars.next()?);
        let path = chars.as_str().strip_prefix(' ')?;
        Some(ChangedFile {
            path: path.to_owned(),
            x,
            y,
        })
    }
}

/// What happened to a changed file, in words instead of porcelain codes (` M`, `??`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum FileStatus {
    Modified,
    Added,
    Deleted,
    Untracked,
    Renamed,
    Copied,
    /// Both sides changed it in a merge that is not finished.
    Conflicted,
}

impl FileStatus {
    /// The status of porcelain codes `x` (staged) and `y` (unstaged).
    pub fn of(x: char, y: char) -> FileStatus {
        match (x, y) {
            ('U', _) | (_, 'U') | ('A', 'A') | ('D', 'D') => FileStatus::Conflicted,
            ('?', _) => FileStatus::Untracked,
            ('R', _) | (_, 'R') => FileStatus::Renamed,
            ('C', _) | (_, 'C') => FileStatus::Copied,
            ('A', _) => FileStatus::Added,
            ('D', _) | (_, 'D') => FileStatus::Deleted,
            _ => FileStatus::Modified,
        }
    }

    /// The word: "modified", "untracked", "in conflict"…
    pub fn word(self) -> &'static str {
        match self {
            FileStatus::Modified => "modified",
            FileStatus::Added => "added",
            FileStatus::Deleted => "deleted",
            FileStatus::Untracked => "untracked",
            FileStatus::Renamed => "renamed",
            FileStatus::Copied => "copied",
            FileStatus::Conflicted => "in conflict",
        }
    }
}

/// Every changed path of a worktree, sorted by path.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChangedFiles {
    pub files: Vec<ChangedFile>,
    /// The paths of the submodules the index records (checked out or not).
    pub submodules: Vec<String>,
}

impl ChangedFiles {
    pub fn count(&self) -> u32 {
        u32::try_from(self.files.len()).unwrap_or(u32::MAX)
    }
}

const MODE_TYPE: u32 = 0o170000;
const MODE_LINK: u32 = 0o120000;
const MODE_GITLINK: u32 = 0o160000;

/// The changed files of the worktree at `workdir` (its top folder).
pub fn changed_files(workdir: &Path) -> Result<ChangedFiles, WorktreeError> {
    let open = || {
        Repository::open(workdir).map_err(|source| WorktreeError::NotARepo {
            path: workdir.to_owned(),
            source,
        })
    };
    let repo = open()?;
    let Some(top) = repo.workdir().map(Path::to_owned) else {
        return Err(WorktreeError::NotAWorktree {
            path: workdir.to_owned(),
            why: "a bare repository has no files".into(),
        });
    };
    let git_dir = repo.path().to_owned();
    let index_path = git_dir.join("index");
    // The index is read once, here, and both halves below work from this one reading.
    let raw = read_index(&index_path)?;
    let sha1 = repo
        .config()
        .ok()
        .and_then(|c| c.get_string("extensions.objectformat").ok())
        .is_none_or(|f| f.eq_ignore_ascii_case("sha1"));
    let parsed = match raw
        .as_ref()
        .filter(|_| sha1)
        .and_then(|(bytes, _)| index_file::parse(bytes))
    {
        Some(parsed) => parsed,
        None => from_libgit2(&repo, &git_dir)?,
    };
    let index_mtime = raw.as_ref().map(|(_, mtime)| *mtime);
    let submodules: Vec<String> = parsed
        .entries
        .iter()
        .filter(|e| e.stage == 0 && e.mode & MODE_TYPE == MODE_GITLINK)
        .map(|e| String::from_utf8_lossy(&e.path).into_owned())
        .collect();

    // The staged comparison and the working-tree scan share nothing but the parsed index, so they
    // run side by side; a Repository is not Sync, hence the second handle.
    let (entries, top_ref) = (&parsed.entries, top.as_path());
    let (staged, unstaged) = rayon::join(
        || open().and_then(|r| staged_changes(&r, &parsed)),
        move || worktree_changes(&repo, top_ref, entries, index_mtime),
    );
    let staged = staged?;
    let (unstaged, untracked) = unstaged?;

    // path (as the index names it) -> (x, y, display path)
    let mut lines: BTreeMap<Vec<u8>, (char, char, String)> = BTreeMap::new();
    for (key, x, y, display) in staged {
        lines.insert(key, (x, y, display));
    }
    for (key, y) in unstaged {
        let entry = lines
            .entry(key.clone())
            .or_insert_with(|| (' ', ' ', String::from_utf8_lossy(&key).into_owned()));
        // A conflict's second letter is already set; a working-tree change does not replace it.
        if entry.1 == ' ' {
            entry.1 = y;
        }
    }
    for key in untracked {
        let display = String::from_utf8_lossy(&key).into_owned();
        lines.entry(key).or_insert(('?', '?', display));
    }
    Ok(ChangedFiles {
        files: lines
            .into_values()
            .map(|(x, y, path)| ChangedFile { path, x, y })
            .collect(),
        submodules,
    })
}

/// A file's modification time: seconds and nanoseconds.
type Mtime = (i64, u32);

/// The index file's bytes and modification time, or `None` when there is no index yet.
fn read_index(path: &Path) -> Result<Option<(Vec<u8>, Mtime)>, WorktreeError> {
    let io = |source| WorktreeError::Io {
        path: path.to_owned(),
        source,
    };
    let mut file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(e)),
    };
    // The time comes from the open file, so it belongs to the very bytes read (git replaces the
    // index by renaming a new file over it, never by writing in place).
    let meta = file.metadata().map_err(io)?;
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.read_to_end(&mut bytes).map_err(io)?;
    Ok(Some((
        bytes,
        (meta.mtime(), u32::try_from(meta.mtime_nsec()).unwrap_or(0)),
    )))
}

/// The index as libgit2 reads it, for the indexes our parser declines; no cache-tree then.
fn from_libgit2(repo: &Repository, git_dir: &Path) -> Result<ParsedIndex<'static>, WorktreeError> {
    let index = repo.index().map_err(WorktreeError::git(git_dir))?;
    let mut entries: Vec<Entry<'static>> = index
        .iter()
        .map(|e| Entry {
            ctime: (e.ctime.seconds() as u32, e.ctime.nanoseconds()),
            mtime: (e.mtime.seconds() as u32, e.mtime.nanoseconds()),
            ino: e.ino,
            mode: e.mode,
            size: e.file_size,
            id: e.id,
            stage: ((e.flags & 0x3000) >> 12) as u8,
            assume_valid: e.flags & 0x8000 != 0,
            skip_worktree: e.flags_extended & (1 << 14) != 0,
            intent_to_add: e.flags_extended & (1 << 13) != 0,
            path: Cow::Owned(e.path),
        })
        .collect();
    // The scans below binary-search by path.
    entries.sort_by(|a, b| (a.path.as_ref(), a.stage).cmp(&(b.path.as_ref(), b.stage)));
    Ok(ParsedIndex {
        entries,
        tree: None,
    })
}

/// HEAD's tree against the index: (index path, staged letter, unstaged letter, display path); the
/// unstaged letter is set only for conflicts, whose two letters both come from the index.
#[allow(clippy::type_complexity)]
fn staged_changes(
    repo: &Repository,
    index: &ParsedIndex<'_>,
) -> Result<Vec<(Vec<u8>, char, char, String)>, WorktreeError> {
    let at = repo.path().to_owned();
    let tree = match repo.head() {
        Ok(head) => Some(head.peel_to_tree().map_err(WorktreeError::git(&at))?.id()),
        Err(e)
            if e.code() == git2::ErrorCode::UnbornBranch
                || e.code() == git2::ErrorCode::NotFound =>
        {
            None
        }
        Err(source) => return Err(WorktreeError::Git { path: at, source }),
    };
    let entries = &index.entries;
    let mut out = Vec::new();
    // A conflicted path shows which sides exist (stages 1 base, 2 ours, 3 theirs), as git does.
    let mut conflicted: BTreeMap<&[u8], u8> = BTreeMap::new();
    for e in entries.iter().filter(|e| e.stage != 0) {
        *conflicted.entry(e.path.as_ref()).or_default() |= 1 << (e.stage - 1);
    }
    for (path, sides) in &conflicted {
        let (x, y) = match sides {
            0b001 => ('D', 'D'),
            0b010 => ('A', 'U'),
            0b100 => ('U', 'A'),
            0b101 => ('D', 'U'),
            0b011 => ('U', 'D'),
            0b110 => ('A', 'A'),
            _ => ('U', 'U'),
        };
        out.push((
            path.to_vec(),
            x,
            y,
            String::from_utf8_lossy(path).into_owned(),
        ));
    }

    // HEAD's tree is walked only where the cache-tree does not already vouch that the index
    // entries below a folder write exactly HEAD's tree for it (git status skips the same way).
    // What is walked is flattened and merged against the sorted index entries it covers.
    let mut head_entries: Vec<(Vec<u8>, Oid, u32)> = Vec::new();
    let mut skipped: Vec<(usize, usize)> = Vec::new();
    if let Some(tree) = tree {
        let mut walker = HeadWalk {
            repo,
            entries,
            head: &mut head_entries,
            skipped: &mut skipped,
        };
        walker
            .walk(tree, &mut Vec::new(), index.tree.as_ref(), 0, entries.len())
            .map_err(WorktreeError::git(&at))?;
    }
    if skipped == [(0, entries.len())] {
        return Ok(out);
    }
    head_entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    skipped.sort_unstable();
    let mut ranges = skipped.iter().peekable();
    let mut index_side: Vec<&Entry<'_>> = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        while ranges.peek().is_some_and(|r| r.1 <= i) {
            ranges.next();
        }
        if ranges.peek().is_some_and(|r| r.0 <= i) {
            continue;
        }
        // Intent-to-add entries are not staged content: git shows them as " A" (worktree side).
        if e.stage == 0 && !e.intent_to_add {
            index_side.push(e);
        }
    }

    let (mut i, mut j) = (0, 0);
    let mut merged: Vec<(Vec<u8>, char)> = Vec::new();
    while i < head_entries.len() || j < index_side.len() {
        let order = match (head_entries.get(i), index_side.get(j)) {
            (Some(h), Some(x)) => h.0.as_slice().cmp(x.path.as_ref()),
            (Some(_), None) => std::cmp::Ordering::Less,
            _ => std::cmp::Ordering::Greater,
        };
        match order {
            std::cmp::Ordering::Less => {
                merged.push((head_entries[i].0.clone(), 'D'));
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                merged.push((index_side[j].path.to_vec(), 'A'));
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                let (h, x) = (&head_entries[i], index_side[j]);
                if h.1 != x.id || h.2 != x.mode {
                    let letter = if (h.2 & MODE_TYPE) != (x.mode & MODE_TYPE) {
                        'T'
                    } else {
                        'M'
                    };
                    merged.push((x.path.to_vec(), letter));
                }
                i += 1;
                j += 1;
            }
        }
    }
    let renames_possible = merged.iter().any(|m| m.1 == 'A') && merged.iter().any(|m| m.1 == 'D');
    if !renames_possible {
        for (path, letter) in merged {
            if !conflicted.contains_key(path.as_slice()) {
                let display = String::from_utf8_lossy(&path).into_owned();
                out.push((path, letter, ' ', display));
            }
        }
        return Ok(out);
    }

    // Only when the merge finds both adds and deletes does git2's diff run, for the rename pairing
    // `git status` shows ("R  old -> new").
    let git_index = repo.index().map_err(WorktreeError::git(&at))?;
    let head_tree = match tree {
        Some(id) => Some(repo.find_tree(id).map_err(WorktreeError::git(&at))?),
        None => None,
    };
    let mut opts = DiffOptions::new();
    opts.include_typechange(true);
    let mut diff = repo
        .diff_tree_to_index(head_tree.as_ref(), Some(&git_index), Some(&mut opts))
        .map_err(WorktreeError::git(&at))?;
    let mut find = DiffFindOptions::new();
    find.renames(true);
    diff.find_similar(Some(&mut find))
        .map_err(WorktreeError::git(&at))?;
    for delta in diff.deltas() {
        let letter = match delta.status() {
            git2::Delta::Added => 'A',
            git2::Delta::Deleted => 'D',
            git2::Delta::Modified => 'M',
            git2::Delta::Renamed => 'R',
            git2::Delta::Copied => 'C',
            git2::Delta::Typechange => 'T',
            _ => continue,
        };
        let new = delta
            .new_file()
            .path_bytes()
            .or_else(|| delta.old_file().path_bytes())
            .unwrap_or_default()
            .to_vec();
        if conflicted.contains_key(new.as_slice()) {
            continue;
        }
        let mut display = String::from_utf8_lossy(&new).into_owned();
        if letter == 'R' || letter == 'C' {
            if let Some(old) = delta.old_file().path_bytes() {
                display = format!("{} -> {display}", String::from_utf8_lossy(old));
            }
        }
        out.push((new, letter, ' ', display));
    }
    Ok(out)
}

/// The walk of HEAD's tree that the cache-tree lets skip folders.
struct HeadWalk<'r, 'e> {
    repo: &'r Repository,
    entries: &'e [Entry<'e>],
    /// Files of the walked trees: (path, id, mode).
    head: &'r mut Vec<(Vec<u8>, Oid, u32)>,
    /// Ranges of `entries` known to equal HEAD.
    skipped: &'r mut Vec<(usize, usize)>,
}

impl HeadWalk<'_, '_> {
    /// Tree `id` at `prefix` (empty or ending in "/"), whose index entries are `entries[lo..hi]`.
    fn walk(
        &mut self,
        id: Oid,
        prefix: &mut Vec<u8>,
        cache: Option<&CacheTree>,
        lo: usize,
        hi: usize,
    ) -> Result<(), git2::Error> {
        if let Some((cached, count)) = cache.and_then(|c| c.valid) {
            // The cache-tree's count is a cheap consistency check against the entries at hand;
            // conflicts invalidate it in git, but a stray one must not be hidden.
            if cached == id
                && count == hi - lo
                && self.entries[lo..hi]
                    .iter()
                    .all(|e| e.stage == 0 && !e.intent_to_add)
            {
                if lo < hi {
                    self.skipped.push((lo, hi));
                }
                return Ok(());
            }
        }
        let tree = self.repo.find_tree(id)?;
        for item in tree.iter() {
            let len = prefix.len();
            prefix.extend_from_slice(item.name_bytes());
            if item.kind() == Some(ObjectType::Tree) {
                prefix.push(b'/');
                let range = &self.entries[lo..hi];
                let from = lo + range.partition_point(|e| e.path.as_ref() < prefix.as_slice());
                let to =
                    from + self.entries[from..hi].partition_point(|e| e.path.starts_with(prefix));
                let name = &prefix[len..prefix.len() - 1];
                let child = cache.and_then(|c| c.child(name));
                self.walk(item.id(), prefix, child, from, to)?;
            } else {
                self.head
                    .push((prefix.clone(), item.id(), item.filemode_raw() as u32));
            }
            prefix.truncate(len);
        }
        Ok(())
    }
}

/// What the stat pass decided about one index entry.
enum Verdict {
    Clean,
    Changed(char),
    /// The raw hash differs but a content filter may explain it: ask git2.
    Confirm,
    /// A submodule recorded at this commit: looked into after the parallel pass.
    Submodule(Oid),
}

struct Scan {
    index_mtime: Option<(i64, u32)>,
    filemode: bool,
    filters: bool,
}

/// Unstaged changes ((index path, letter)) and untracked paths of the working tree.
#[allow(clippy::type_complexity)]
fn worktree_changes(
    repo: &Repository,
    top: &Path,
    entries: &[Entry<'_>],
    index_mtime: Option<(i64, u32)>,
) -> Result<(Vec<(Vec<u8>, char)>, Vec<Vec<u8>>), WorktreeError> {
    let git_dir = repo.path().to_owned();
    let config = repo.config().map_err(WorktreeError::git(&git_dir))?;
    let autocrlf = config
        .get_string("core.autocrlf")
        .map(|v| v != "false")
        .unwrap_or(false)
        || config.get_bool("core.autocrlf").unwrap_or(false);
    let filters = autocrlf
        || git_dir.join("info/attributes").exists()
        || repo.commondir().join("info/attributes").exists()
        || entries.iter().any(|e| e.path.ends_with(b".gitattributes"));
    let scan = Scan {
        index_mtime,
        filemode: config.get_bool("core.filemode").unwrap_or(true),
        filters,
    };

    let (verdicts, untracked_candidates) = rayon::join(
        || {
            let top_bytes = top.as_os_str().as_bytes();
            entries
                .par_iter()
                .map_init(
                    // One path buffer per worker rather than one allocation per entry.
                    || {
                        let mut buf = Vec::with_capacity(top_bytes.len() + 256);
                        buf.extend_from_slice(top_bytes);
                        buf.push(b'/');
                        buf
                    },
                    |buf, e| {
                        buf.truncate(top_bytes.len() + 1);
                        buf.extend_from_slice(&e.path);
                        match scan.check(e, Path::new(OsStr::from_bytes(buf))) {
                            Verdict::Clean => None,
                            v => Some((e.path.to_vec(), v)),
                        }
                    },
                )
                .flatten()
                .collect::<Vec<_>>()
        },
        || walk(top, entries, Vec::new()),
    );

    let mut unstaged = Vec::with_capacity(verdicts.len());
    for (path, verdict) in verdicts {
        match verdict {
            Verdict::Clean => {}
            Verdict::Changed(letter) => unstaged.push((path, letter)),
            Verdict::Submodule(recorded) => {
                if submodule_changed(&top.join(OsStr::from_bytes(&path)), recorded) {
                    unstaged.push((path, 'M'));
                }
            }
            Verdict::Confirm => {
                let rel = Path::new(OsStr::from_bytes(&path));
                let st = repo.status_file(rel).map_err(WorktreeError::git(rel))?;
                if st.intersects(Status::WT_MODIFIED | Status::WT_TYPECHANGE | Status::WT_RENAMED) {
                    unstaged.push((path, 'M'));
                } else if st.contains(Status::WT_DELETED) {
                    unstaged.push((path, 'D'));
                }
            }
        }
    }

    let mut untracked = Vec::new();
    for candidate in untracked_candidates {
        let rel = Path::new(OsStr::from_bytes(&candidate.rel));
        if repo.status_should_ignore(rel).unwrap_or(false) {
            continue;
        }
        if candidate.dir {
            if dir_has_untracked(repo, top, &candidate.rel) {
                let mut shown = candidate.rel;
                shown.push(b'/');
                untracked.push(shown);
            }
        } else {
            untracked.push(candidate.rel);
        }
    }
    Ok((unstaged, untracked))
}

impl Scan {
    fn check(&self, e: &Entry<'_>, full: &Path) -> Verdict {
        if e.stage != 0 || e.assume_valid || e.skip_worktree {
            return Verdict::Clean;
        }
        if e.mode & MODE_TYPE == MODE_GITLINK {
            // A submodule is changed when another commit is checked out or files inside it changed
            // (as `git status` shows it, " M sub"); looked into after this pass.
            return Verdict::Submodule(e.id);
        }
        let meta = match std::fs::symlink_metadata(full) {
            Ok(m) => m,
            Err(_) => return Verdict::Changed('D'),
        };
        if e.intent_to_add {
            return Verdict::Changed('A');
        }
        let ft = meta.file_type();
        let is_link = e.mode & MODE_TYPE == MODE_LINK;
        if ft.is_dir() {
            return Verdict::Changed('D');
        }
        if is_link != ft.is_symlink() {
            return Verdict::Changed('T');
        }
        if !is_link && self.filemode && ((e.mode & 0o111 != 0) != (meta.mode() & 0o111 != 0)) {
            return Verdict::Changed('M');
        }
        let same_time = |(sec, nsec): (u32, u32), fs_sec: i64, fs_nsec: i64| {
            i64::from(sec) == fs_sec && (nsec == 0 || i64::from(nsec) == fs_nsec)
        };
        let stat_same = same_time(e.mtime, meta.mtime(), meta.mtime_nsec())
            && same_time(e.ctime, meta.ctime(), meta.ctime_nsec())
            && e.size == meta.size() as u32
            && e.ino == meta.ino() as u32;
        // Racily clean: written in the same instant as the index, so a later write of the same size
        // would not show in the stat data. Git checks these by content too.
        let racy = match self.index_mtime {
            // With no sub-second time recorded (git built without USE_NSEC), the same second is racy.
            Some((sec, _)) if e.mtime.1 == 0 => i64::from(e.mtime.0) >= sec,
            Some((sec, nsec)) => (i64::from(e.mtime.0), e.mtime.1) >= (sec, nsec),
            None => true,
        };
        if stat_same && !racy {
            return Verdict::Clean;
        }
        if !self.filters && e.size != meta.size() as u32 && e.size != 0 {
            // Git smudges racy entries to size 0, so only a non-zero recorded size proves a change.
            return Verdict::Changed('M');
        }
        let hash = if is_link {
            std::fs::read_link(full)
                .ok()
                .and_then(|t| Oid::hash_object(ObjectType::Blob, t.as_os_str().as_bytes()).ok())
        } else {
            Oid::hash_file(ObjectType::Blob, full).ok()
        };
        match hash {
            Some(id) if id == e.id => Verdict::Clean,
            _ if self.filters => Verdict::Confirm,
            _ => Verdict::Changed('M'),
        }
    }
}

struct Candidate {
    rel: Vec<u8>,
    dir: bool,
}

fn is_tracked_file(tracked: &[Entry<'_>], rel: &[u8]) -> bool {
    tracked
        .binary_search_by(|e| e.path.as_ref().cmp(rel))
        .is_ok()
}

fn is_tracked_dir(tracked: &[Entry<'_>], rel: &[u8]) -> bool {
    let mut prefix = Vec::with_capacity(rel.len() + 1);
    prefix.extend_from_slice(rel);
    prefix.push(b'/');
    let at = tracked.partition_point(|e| e.path.as_ref() < prefix.as_slice());
    tracked.get(at).is_some_and(|e| e.path.starts_with(&prefix))
}

fn join_rel(rel: &[u8], name: &[u8]) -> Vec<u8> {
    let mut child = Vec::with_capacity(rel.len() + 1 + name.len());
    if !rel.is_empty() {
        child.extend_from_slice(rel);
        child.push(b'/');
    }
    child.extend_from_slice(name);
    child
}

/// Names under the folder `rel` (and its tracked subfolders, in parallel) that the index does not
/// know. Unreadable folders are skipped: git skips them too.
fn walk(top: &Path, tracked: &[Entry<'_>], rel: Vec<u8>) -> Vec<Candidate> {
    let dir = if rel.is_empty() {
        top.to_owned()
    } else {
        top.join(OsStr::from_bytes(&rel))
    };
    let Ok(read) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut candidates = Vec::new();
    let mut subdirs = Vec::new();
    for entry in read.flatten() {
        let name = entry.file_name();
        let name = name.as_bytes();
        if name == b".git" {
            continue;
        }
        let child = join_rel(&rel, name);
        let is_dir = entry.file_type().map(|t| t.is_dir()).unwrap_or(false);
        if is_tracked_file(tracked, &child) {
            continue;
        }
        if is_dir {
            if is_tracked_dir(tracked, &child) {
                subdirs.push(child);
            } else {
                candidates.push(Candidate {
                    rel: child,
                    dir: true,
                });
            }
        } else {
            candidates.push(Candidate {
                rel: child,
                dir: false,
            });
        }
    }
    if !subdirs.is_empty() {
        let nested: Vec<Vec<Candidate>> = subdirs
            .into_par_iter()
            .map(|d| walk(top, tracked, d))
            .collect();
        candidates.extend(nested.into_iter().flatten());
    }
    candidates
}

/// Whether an untracked folder holds anything git would show: a file that is not ignored, or a
/// nested repository.
fn dir_has_untracked(repo: &Repository, top: &Path, rel: &[u8]) -> bool {
    let Ok(read) = std::fs::read_dir(top.join(OsStr::from_bytes(rel))) else {
        return false;
    };
    for entry in read.flatten() {
        let name = entry.file_name();
        if name.as_bytes() == b".git" {
            return true;
        }
        let child = join_rel(rel, name.as_bytes());
        let child_path = PathBuf::from(OsStr::from_bytes(&child));
        if repo.status_should_ignore(&child_path).unwrap_or(false) {
            continue;
        }
        let is_dir = entry.file_type().map(|t| t.is_dir()).unwrap_or(false);
        if !is_dir || dir_has_untracked(repo, top, &child) {
            return true;
        }
    }
    false
}

/// Whether the submodule checked out at `dir` has changes against the commit `recorded`: another
/// commit checked out, or changed files inside. A submodule that is not checked out (no git dir)
/// has nothing to lose.
fn submodule_changed(dir: &Path, recorded: Oid) -> bool {
    let Ok(sub) = Repository::open(dir) else {
        return false;
    };
    let head = sub.head().ok().and_then(|h| h.target());
    if head != Some(recorded) {
        return true;
    }
    match changed_files(dir) {
        Ok(c) => c.count() > 0,
        // What cannot be read is not called clean.
        Err(_) => true,
    }
}
