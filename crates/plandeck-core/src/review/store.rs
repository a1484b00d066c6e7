//! The review store on disk, under Plandeck's data dir:
//!
//! - `versions/<sha256>`: every plan version seen or decided on, content-addressed, so identical
//!   content is stored once and a hash names exactly one text.
//! - `index/<sha256 of the plan path>.json`: the versions seen of one plan, `{path, versions:
//!   [{hash, seenAt}]}`, rewritten atomically.
//! - `decisions.jsonl`: the append-only decision log (see [`super::log`]).
//! - `review.lock`: an advisory lock so that the window and the CLI do not interleave their
//!   read-modify-write of an index or their check-then-write of a plan file.

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::ReviewError;
use crate::durable;

/// Plans bigger than this are not reviewed: one cap for every reader of a plan file.
pub use crate::plans::MAX_PLAN_BYTES;

/// The hex SHA-256 of `content`.
pub fn hash(content: &[u8]) -> String {
    hex::encode(Sha256::digest(content))
}

/// A path as the store keys it: canonical when the file exists, so `~/.claude/plans/x.md` reached
/// through a symlink and directly are one plan; as given otherwise.
pub fn plan_key(path: &Path) -> PathBuf {
    crate::durable::canonical_or(path)
}

pub(crate) fn versions_dir(data: &Path) -> PathBuf {
    data.join("versions")
}

pub(crate) fn log_path(data: &Path) -> PathBuf {
    data.join("decisions.jsonl")
}

fn index_path(data: &Path, plan: &Path) -> PathBuf {
    data.join("index").join(format!(
        "{}.json",
        hash(plan.as_os_str().as_encoded_bytes())
    ))
}

/// Where the version with `hash` is (or would be) stored. Refuses anything but 64 hex digits, so a
/// hash from the UI or the command line can never name a path outside `versions/`.
pub fn version_path(data: &Path, hash: &str) -> Result<PathBuf, ReviewError> {
    if hash.len() != 64
        || !hash
            .bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
    {
        return Err(ReviewError::BadHash {
            hash: hash.to_owned(),
        });
    }
    Ok(versions_dir(data).join(hash))
}

/// Stores `content` under its hash (once) and returns the hash.
pub fn put_version(data: &Path, content: &[u8]) -> Result<String, ReviewError> {
    let h = hash(content);
    let path = version_path(data, &h)?;
    // A version file only ever appears through an atomic rename, so one that exists is complete.
    if !path.exists() {
        durable::write_private(&path, content)?;
    }
    Ok(h)
}

/// The stored bytes of version `hash`.
pub fn get_version(data: &Path, hash: &str) -> Result<Vec<u8>, ReviewError> {
    let path = version_path(data, hash)?;
    match fs::read(&path) {
        Ok(bytes) => Ok(bytes),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err(ReviewError::NoVersion {
            hash: hash.to_owned(),
        }),
        Err(source) => Err(ReviewError::Read { path, source }),
    }
}

#[cfg(test)]
thread_local! {
    /// How many times this thread read a plan file through the review's readers (tests count the
    /// reads of one decision).
    pub(crate) static PLAN_READS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Reads a plan file as UTF-8 text, refusing huge and binary files with a clear error (the one
/// reader, [`crate::plans::read_plan`], in the review's errors).
pub fn read_plan(path: &Path) -> Result<String, ReviewError> {
    #[cfg(test)]
    PLAN_READS.with(|n| n.set(n.get() + 1));
    crate::plans::read_plan(path)
        .map(|(_, text)| text)
        .map_err(ReviewError::from)
}

/// A plan file's bytes, bounded (see [`crate::plans::read_plan_bytes`]).
pub fn read_plan_bytes(path: &Path) -> Result<Vec<u8>, ReviewError> {
    #[cfg(test)]
    PLAN_READS.with(|n| n.set(n.get() + 1));
    crate::plans::read_plan_bytes(path)
        .map(|(_, bytes)| bytes)
        .map_err(ReviewError::from)
}

impl From<crate::plans::PlanError> for ReviewError {
    fn from(e: crate::plans::PlanError) -> Self {
        use crate::plans::PlanError as P;
        match e {
            P::Deleted { path } => ReviewError::Read {
                path,
                source: std::io::ErrorKind::NotFound.into(),
            },
            P::Read { path, source } => ReviewError::Read { path, source },
            P::NotAFile { path } => ReviewError::NotAFile { path },
            P::TooLarge { path, size } => ReviewError::TooLarge { path, size },
            P::Binary { path } | P::NotUtf8 { path, .. } => ReviewError::NotText { path },
            // A path is read here, never an id.
            P::Unknown(name) | P::NotAnId(name) | P::Ambiguous { prefix: name, .. } => {
                ReviewError::Read {
                    path: PathBuf::from(name),
                    source: std::io::ErrorKind::NotFound.into(),
                }
            }
        }
    }
}

/// One version of a plan seen by Plandeck.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Seen {
    pub hash: String,
    pub seen_at: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Index {
    path: PathBuf,
    versions: Vec<Seen>,
}

/// The versions seen of `plan`, oldest first. A missing or damaged index gives none: the versions
/// themselves are still in `versions/` and decisions name their hashes.
pub fn seen_versions(data: &Path, plan: &Path) -> Vec<Seen> {
    let path = index_path(data, plan);
    match fs::read(&path) {
        Ok(bytes) => match serde_json::from_slice::<Index>(&bytes) {
            Ok(index) => index.versions,
            Err(e) => {
                tracing::warn!(path = %path.display(), error = %e, "damaged review index; ignoring it");
                Vec::new()
            }
        },
        Err(_) => Vec::new(),
    }
}

/// Notes that `plan` held version `hash` at `now`, unless that version is already its latest seen.
/// Call with the store lock held.
pub fn note_seen(data: &Path, plan: &Path, hash: &str, now: &str) -> Result<(), ReviewError> {
    let mut versions = seen_versions(data, plan);
    if versions.last().is_some_and(|v| v.hash == hash) {
        return Ok(());
    }
    // A plan that goes back to an earlier text is seen again: keep one entry per hash, latest time.
    versions.retain(|v| v.hash != hash);
    versions.push(Seen {
        hash: hash.to_owned(),
        seen_at: now.to_owned(),
    });
    let index = Index {
        path: plan.to_owned(),
        versions,
    };
    let mut json = serde_json::to_vec(&index).map_err(|e| ReviewError::Internal(e.to_string()))?;
    json.push(b'\n');
    durable::write_private(&index_path(data, plan), &json)?;
    Ok(())
}

/// An exclusive advisory lock on the store, released when dropped (or when the process dies).
pub struct StoreLock {
    _file: File,
}

pub fn lock(data: &Path) -> Result<StoreLock, ReviewError> {
    let path = data.join("review.lock");
    let write_err = |source| durable::WriteError {
        path: path.clone(),
        source,
    };
    let file = durable::open_private(&path)?;
    loop {
        match rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive) {
            Ok(()) => return Ok(StoreLock { _file: file }),
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => return Err(write_err(io::Error::from(e)).into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_content_is_stored_once() {
        let dir = tempfile::tempdir().unwrap();
        let a = put_version(dir.path(), b"same").unwrap();
        let b = put_version(dir.path(), b"same").unwrap();
        assert_eq!(a, b);
        assert_eq!(fs::read_dir(versions_dir(dir.path())).unwrap().count(), 1);
        assert_eq!(get_version(dir.path(), &a).unwrap(), b"same");
    }

    #[test]
    fn hashes_that_are_not_hex_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        for bad in ["../../etc/passwd", "", &"A".repeat(64), &"g".repeat(64)] {
            assert!(
                matches!(
                    get_version(dir.path(), bad),
                    Err(ReviewError::BadHash { .. })
                ),
                "{bad}"
            );
        }
        assert!(matches!(
            get_version(dir.path(), &"0".repeat(64)),
            Err(ReviewError::NoVersion { .. })
        ));
    }

    #[test]
    fn damaged_index_reads_as_empty_and_is_rewritten() {
        let dir = tempfile::tempdir().unwrap();
        let plan = Path::new("/p/plan.md");
        fs::create_dir_all(dir.path().join("index")).unwrap();
        fs::write(index_path(dir.path(), plan), "{oops").unwrap();
        assert!(seen_versions(dir.path(), plan).is_empty());
        note_seen(dir.path(), plan, "h1", "t1").unwrap();
        note_seen(dir.path(), plan, "h1", "t2").unwrap();
        note_seen(dir.path(), plan, "h2", "t3").unwrap();
        note_seen(dir.path(), plan, "h1", "t4").unwrap();
        let hashes: Vec<_> = seen_versions(dir.path(), plan)
            .into_iter()
            .map(|s| (s.hash, s.seen_at))
            .collect();
        assert_eq!(
            hashes,
            [("h2".into(), "t3".into()), ("h1".into(), "t4".into())]
        );
    }

    #[test]
    fn binary_and_huge_plans_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("b.md");
        fs::write(&bin, [0xff, 0xfe, 0x00]).unwrap();
        assert!(matches!(read_plan(&bin), Err(ReviewError::NotText { .. })));
        let huge = dir.path().join("h.md");
        File::create(&huge)
            .unwrap()
            .set_len(MAX_PLAN_BYTES + 1)
            .unwrap();
        assert!(matches!(
            read_plan(&huge),
            Err(ReviewError::TooLarge { .. })
        ));
        assert!(matches!(
            read_plan(dir.path()),
            Err(ReviewError::NotAFile { .. })
        ));
    }
}
