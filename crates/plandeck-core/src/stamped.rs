//! Files Plandeck reads in part and remembers: a file's stamp (identity, size, mtime), and the
//! stamped caches kept in the store beside what was read (the session index, the plans' links to
//! transcripts, the plan history).
//!
//! A cache is a hint, never the truth: [`load`] gives an empty one when the file is missing,
//! damaged or of another version (and says why, so the caller can rebuild and tell), and each
//! entry is used only while its file's stamp says the file was not replaced. [`save`] writes it
//! atomically and private, like every file of the store.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// Why a stored cache was not used: it is rebuilt from the files it describes.
#[derive(Debug)]
pub enum Rebuild {
    /// The cache was written by another version of Plandeck.
    OtherVersion(u32),
    /// The cache is not the JSON it should be.
    Damaged(String),
    /// The cache could not be read.
    Unreadable(std::io::Error),
}

impl std::fmt::Display for Rebuild {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Rebuild::OtherVersion(v) => write!(f, "is of another version ({v})"),
            Rebuild::Damaged(e) => write!(f, "is damaged ({e})"),
            Rebuild::Unreadable(e) => write!(f, "cannot be read ({e})"),
        }
    }
}

#[derive(Deserialize)]
struct Stored<T> {
    files: BTreeMap<PathBuf, T>,
}

/// The entries of the cache at `path` written at `version`; none, with the reason, when it is
/// damaged, unreadable or of another version; none, with no reason, when it does not exist yet.
pub fn load<T: DeserializeOwned>(
    path: &Path,
    version: u32,
) -> (BTreeMap<PathBuf, T>, Option<Rebuild>) {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (BTreeMap::new(), None),
        Err(e) => return (BTreeMap::new(), Some(Rebuild::Unreadable(e))),
    };
    // The version first: another version's entries may not parse as this one's.
    #[derive(Deserialize)]
    struct Version {
        version: u32,
    }
    match serde_json::from_slice::<Version>(&bytes) {
        Ok(v) if v.version != version => {
            return (BTreeMap::new(), Some(Rebuild::OtherVersion(v.version)))
        }
        Ok(_) => {}
        Err(e) => return (BTreeMap::new(), Some(Rebuild::Damaged(e.to_string()))),
    }
    match serde_json::from_slice::<Stored<T>>(&bytes) {
        Ok(stored) => (stored.files, None),
        Err(e) => (BTreeMap::new(), Some(Rebuild::Damaged(e.to_string()))),
    }
}

/// Writes `files` as the cache at `path`, at `version` (atomically; 0600 in 0700 folders).
pub fn save<T: Serialize>(
    path: &Path,
    version: u32,
    files: &BTreeMap<PathBuf, T>,
) -> Result<(), crate::durable::WriteError> {
    #[derive(Serialize)]
    struct Ref<'a, T> {
        version: u32,
        files: &'a BTreeMap<PathBuf, T>,
    }
    let bytes =
        serde_json::to_vec(&Ref { version, files }).map_err(|e| crate::durable::WriteError {
            path: path.to_owned(),
            source: std::io::Error::other(e),
        })?;
    crate::durable::write_private(path, &bytes)
}

/// A file's identity (device and inode), size and mtime: what the persistent stores (the session
/// index, the plan history) keep beside the offset they read to, to tell whether a file may be read
/// on from that offset, was not touched, or must be read again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileStamp {
    pub dev: u64,
    pub ino: u64,
    pub size: u64,
    pub mtime_ns: i128,
}

/// What a stored offset is worth against the file as it is now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resume {
    /// Same file, same size and mtime: nothing to read.
    Unchanged,
    /// Same file, grown (or touched): read on from the stored offset.
    From(u64),
    /// Another file, shrunk below the offset, or rewritten in place: read it again.
    Restart,
}

impl FileStamp {
    /// The stamp of `path` now (following symlinks).
    pub fn of(path: &Path) -> std::io::Result<FileStamp> {
        Ok(Self::from_meta(&std::fs::metadata(path)?))
    }

    #[cfg(unix)]
    pub fn from_meta(m: &std::fs::Metadata) -> FileStamp {
        use std::os::unix::fs::MetadataExt;
        FileStamp {
            dev: m.dev(),
            ino: m.ino(),
            size: m.size(),
            mtime_ns: m.mtime() as i128 * 1_000_000_000 + m.mtime_nsec() as i128,
        }
    }

    #[cfg(not(unix))]
    pub fn from_meta(m: &std::fs::Metadata) -> FileStamp {
        FileStamp {
            dev: 0,
            ino: 0,
            size: m.len(),
            mtime_ns: m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos() as i128),
        }
    }

    /// Whether what was read up to `offset` of the file stamped `self` still holds for the file
    /// stamped `now`. A file that kept its size but changed its mtime after being read to its end
    /// was rewritten in place: read again.
    pub fn resume(&self, offset: u64, now: &FileStamp) -> Resume {
        if self.dev != now.dev || self.ino != now.ino || offset > now.size || offset > self.size {
            return Resume::Restart;
        }
        if now.size == self.size && now.mtime_ns == self.mtime_ns {
            return Resume::Unchanged;
        }
        if now.size == self.size && now.size == offset {
            return Resume::Restart;
        }
        if now.size < self.size {
            return Resume::Restart;
        }
        Resume::From(offset)
    }
}

/// A check of the `CHECK_LEN` bytes before `offset` (FNV-1a), kept beside a stored offset so a file
/// rewritten in place to a larger size is read again instead of being resumed mid-record.
pub const CHECK_LEN: u64 = 64;

pub fn check_before(path: &Path, offset: u64) -> std::io::Result<u64> {
    let mut f = File::open(path)?;
    let start = offset.saturating_sub(CHECK_LEN);
    f.seek(SeekFrom::Start(start))?;
    let mut buf = Vec::with_capacity(CHECK_LEN as usize);
    (&mut f).take(offset - start).read_to_end(&mut buf)?;
    if (buf.len() as u64) < offset - start {
        return Err(std::io::ErrorKind::UnexpectedEof.into());
    }
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in buf {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    Ok(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cache_round_trips_and_is_rebuilt_when_damaged_or_of_another_version() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store/cache.json");
        let (empty, why) = load::<u32>(&path, 2);
        assert!(
            empty.is_empty() && why.is_none(),
            "a missing cache is no news"
        );

        let files = BTreeMap::from([(PathBuf::from("/a"), 7u32)]);
        save(&path, 2, &files).unwrap();
        assert_eq!(load::<u32>(&path, 2).0, files);
        assert!(matches!(
            load::<u32>(&path, 3),
            (f, Some(Rebuild::OtherVersion(2))) if f.is_empty()
        ));
        // Another version whose entries no longer parse is "another version", not "damaged".
        assert!(matches!(
            load::<String>(&path, 3),
            (_, Some(Rebuild::OtherVersion(2)))
        ));
        std::fs::write(&path, b"{\"version\": 2, \"files\": ").unwrap();
        assert!(matches!(load::<u32>(&path, 2), (f, Some(Rebuild::Damaged(_))) if f.is_empty()));
        std::fs::write(&path, b"\x00\xff").unwrap();
        assert!(matches!(
            load::<u32>(&path, 2),
            (_, Some(Rebuild::Damaged(_)))
        ));
    }

    #[cfg(unix)]
    #[test]
    fn a_cache_is_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new/cache.json");
        save(&path, 1, &BTreeMap::from([(PathBuf::from("/a"), 1u8)])).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(path.parent().unwrap()), 0o700);
    }
}
