//! Atomic writes: a crash at any instant leaves each file either old or new.
//!
//! A write goes to a temporary file beside the target, is fsynced, renamed over the target, and the
//! directory is fsynced so the rename itself is durable. Appends (decision logs) are fsynced.
//!
//! Plandeck's own store and settings are private: [`write_private`], [`append_line`] and
//! [`create_private_dir`] create folders 0700 and files 0600 from the first instant (the temporary
//! file is created with that mode, never chmod-ed afterwards), and [`tighten`] brings an existing
//! store with looser modes back to that when it is opened.
//!
//! Why not `tempfile::NamedTempFile::persist`: it renames, but fsyncs neither the file nor the
//! directory (a power cut can leave an empty or missing file), it gives the result the temporary
//! file's 0600 instead of the target's own mode (a plan file the agent made 0644 would change
//! mode on edit-and-approve), and it has no no-clobber form that keeps the same guarantees
//! (`persist_noclobber` links without the fsyncs). These helpers are those few lines done once;
//! `tempfile` stays a test dependency.

use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use sha2::{Digest, Sha256};

/// The mode of every folder of the store.
pub const PRIVATE_DIR_MODE: u32 = 0o700;
/// The mode of every file of the store.
pub const PRIVATE_FILE_MODE: u32 = 0o600;

/// `path` canonical when it exists (symlinks resolved, so one file reached two ways is one key),
/// else as given: the one canonical-path helper of the store, plans and history.
pub fn canonical_or(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

/// `path` made absolute against the current directory (as given when that cannot be read).
pub fn absolute(path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_owned()
    } else {
        std::env::current_dir()
            .map(|d| d.join(path))
            .unwrap_or_else(|_| path.to_owned())
    }
}

#[derive(Debug, thiserror::Error)]
#[error("cannot write {path}: {source}")]
pub struct WriteError {
    pub path: PathBuf,
    #[source]
    pub source: io::Error,
}

fn with_path(path: &Path) -> impl FnOnce(io::Error) -> WriteError + '_ {
    move |source| WriteError {
        path: path.to_path_buf(),
        source,
    }
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// How a replacement's folder and file are created.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Privacy {
    /// A file of someone else's (a plan, an agent's settings): a missing folder is created as
    /// usual, the file keeps the mode of the one it replaces.
    Keep,
    /// Plandeck's store or settings: folders 0700, files 0600 whatever was there.
    Private,
}

/// What [`replace_if_unchanged`] refused or failed at.
#[derive(Debug, thiserror::Error)]
pub enum ReplaceError {
    /// The file no longer holds what was read (someone wrote it meanwhile): nothing was written.
    #[error("{path} changed since it was read; nothing was written")]
    Changed { path: PathBuf },
    #[error(transparent)]
    Write(#[from] WriteError),
}

/// The hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Writes `bytes` to `path` atomically (temp + fsync + rename + fsync of the directory).
/// Creates the parent directory when it is missing. Keeps the target's permissions if it exists;
/// a new file gets 0600 (the temporary file is never readable by others while it is written).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    replace(path, bytes, Privacy::Keep, &mut || Ok(()))
}

/// Writes a file of Plandeck's store or settings atomically: a missing folder is created 0700, and
/// the file is 0600 from the moment its temporary file exists (also when it replaces a file with
/// looser permissions).
pub fn write_private(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    replace(path, bytes, Privacy::Private, &mut || Ok(()))
}

/// Writes `bytes` to `path` atomically, but only if `path` still holds exactly what was read:
/// `expected` is the SHA-256 ([`sha256_hex`]) of the bytes read, or `None` when it did not exist.
/// The check runs right before the rename, after the new content is on disk in the temporary
/// file. A symlink at `path` is followed: its target is replaced and the link stays a link.
pub fn replace_if_unchanged(
    path: &Path,
    bytes: &[u8],
    expected: Option<&str>,
) -> Result<(), ReplaceError> {
    replace_checked(path, bytes, expected, &mut || {})
}

/// [`replace_if_unchanged`], running `meanwhile` after the new content is staged and before the
/// check (tests change the file there).
fn replace_checked(
    path: &Path,
    bytes: &[u8],
    expected: Option<&str>,
    meanwhile: &mut dyn FnMut(),
) -> Result<(), ReplaceError> {
    let target = resolve_symlinks(path).map_err(with_path(path))?;
    let mut changed = false;
    let result = replace(&target, bytes, Privacy::Keep, &mut || {
        meanwhile();
        if current_hash(&target)?.as_deref() != expected {
            changed = true;
            return Err(io::Error::other("changed"));
        }
        Ok(())
    });
    match result {
        Err(_) if changed => Err(ReplaceError::Changed {
            path: path.to_owned(),
        }),
        other => Ok(other?),
    }
}

/// The SHA-256 of the file at `path` (following symlinks), or `None` when there is none.
pub fn current_hash(path: &Path) -> io::Result<Option<String>> {
    match File::open(path) {
        Ok(mut f) => {
            let mut hasher = Sha256::new();
            let mut buf = vec![0u8; 64 * 1024];
            loop {
                let n = f.read(&mut buf)?;
                if n == 0 {
                    break;
                }
                hasher.update(&buf[..n]);
            }
            Ok(Some(hex::encode(hasher.finalize())))
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Where a chain of symlinks at `path` ends (the path itself when it is not a symlink). The end
/// need not exist: a dangling link's target is where a write goes.
pub fn resolve_symlinks(path: &Path) -> io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..40 {
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = fs::read_link(&current)?;
                current = if link.is_absolute() {
                    link
                } else {
                    current.parent().unwrap_or(Path::new(".")).join(link)
                };
            }
            Ok(_) => return Ok(current),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(current),
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::other(format!(
        "{}: too many levels of symbolic links",
        path.display()
    )))
}

fn replace(
    path: &Path,
    bytes: &[u8],
    privacy: Privacy,
    before_rename: &mut dyn FnMut() -> io::Result<()>,
) -> Result<(), WriteError> {
    let dir = folder_of(path);
    match privacy {
        Privacy::Keep => fs::create_dir_all(dir).map_err(with_path(dir))?,
        Privacy::Private => create_private_dir(dir)?,
    }
    let tmp = temp_beside(dir, path);
    let result = (|| {
        // 0600 from creation: nobody else can open the temporary file while it is written.
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(PRIVATE_FILE_MODE)
            .open(&tmp)?;
        match privacy {
            // Whatever the umask, a store file is exactly 0600.
            Privacy::Private => {
                file.set_permissions(fs::Permissions::from_mode(PRIVATE_FILE_MODE))?
            }
            Privacy::Keep => {
                if let Ok(meta) = fs::metadata(path) {
                    // Keep the mode of the file being replaced (a plan file, a settings file).
                    file.set_permissions(meta.permissions())?;
                }
            }
        }
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        before_rename()?;
        fs::rename(&tmp, path)?;
        sync_dir(dir)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result.map_err(with_path(path))
}

/// Creates `dir` (and missing parents) with mode 0700, as the XDG base directory specification
/// asks of a data or config folder that is missing.
pub fn create_private_dir(dir: &Path) -> Result<(), WriteError> {
    if dir.is_dir() {
        return Ok(());
    }
    DirBuilder::new()
        .recursive(true)
        .mode(PRIVATE_DIR_MODE)
        .create(dir)
        .map_err(with_path(dir))?;
    // The umask may have taken bits away from the last folder, never added: still exactly 0700?
    let meta = fs::metadata(dir).map_err(with_path(dir))?;
    if meta.permissions().mode() & 0o777 != PRIVATE_DIR_MODE {
        fs::set_permissions(dir, fs::Permissions::from_mode(PRIVATE_DIR_MODE))
            .map_err(with_path(dir))?;
    }
    Ok(())
}

/// The folder `path` is in (`.` for a bare name).
fn folder_of(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// A temporary file name in `dir`, beside `path`, unique to this process and call.
fn temp_beside(dir: &Path, path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    dir.join(format!(
        ".{name}.plandeck-tmp-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ))
}

/// Writes `bytes` to `path` atomically, only if `path` does not exist: the complete file appears
/// at once (temp + fsync + hard link + fsync of the directory), and a file created at `path` in
/// the meantime is never replaced (the error's kind is then `AlreadyExists`).
pub fn write_atomic_new(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    let dir = folder_of(path);
    fs::create_dir_all(dir).map_err(with_path(dir))?;
    let tmp = temp_beside(dir, path);
    let result = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        fs::hard_link(&tmp, path)?;
        let _ = fs::remove_file(&tmp);
        sync_dir(dir)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result.map_err(with_path(path))
}

/// Appends one line (a newline is added) and fsyncs. Used for append-only logs of the store: a
/// crash leaves at most one unterminated last line, which readers skip. A new log is created 0600
/// in a 0700 folder.
pub fn append_line(path: &Path, line: &str) -> Result<(), WriteError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    create_private_dir(dir)?;
    let existed = path.exists();
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(PRIVATE_FILE_MODE)
        .open(path)
        .map_err(with_path(path))?;
    let mut buf = Vec::with_capacity(line.len() + 1);
    buf.extend_from_slice(line.as_bytes());
    buf.push(b'\n');
    file.write_all(&buf).map_err(with_path(path))?;
    file.sync_all().map_err(with_path(path))?;
    if !existed {
        sync_dir(dir).map_err(with_path(dir))?;
    }
    Ok(())
}

/// Opens (creating 0600 when missing) a file of the store for writing without truncating it: a
/// lock file.
pub fn open_private(path: &Path) -> Result<File, WriteError> {
    if let Some(dir) = path.parent() {
        create_private_dir(dir)?;
    }
    OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(PRIVATE_FILE_MODE)
        .open(path)
        .map_err(with_path(path))
}

/// Takes the group's and others' permissions away from `root` and everything under it: folders
/// end 0700 (or tighter), files 0600 (or tighter). Symlinks are neither followed nor changed (a
/// link inside the store to something elsewhere leaves that elsewhere alone). A missing `root` is
/// fine. Returns how many entries were tightened.
pub fn tighten(root: &Path) -> Result<usize, WriteError> {
    let mut fixed = 0;
    let mut stack = vec![root.to_path_buf()];
    while let Some(path) = stack.pop() {
        let meta = match fs::symlink_metadata(&path) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(with_path(&path)(e)),
        };
        let ft = meta.file_type();
        if ft.is_symlink() {
            continue;
        }
        fixed += usize::from(tighten_one(&path, &meta)?);
        if ft.is_dir() {
            let entries = fs::read_dir(&path).map_err(with_path(&path))?;
            for entry in entries {
                stack.push(entry.map_err(with_path(&path))?.path());
            }
        }
    }
    Ok(fixed)
}

/// [`tighten`] for one entry only (a folder's own mode, a single file), not what is inside.
pub fn tighten_entry(path: &Path) -> Result<bool, WriteError> {
    match fs::symlink_metadata(path) {
        Ok(meta) if !meta.file_type().is_symlink() => tighten_one(path, &meta),
        Ok(_) => Ok(false),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(with_path(path)(e)),
    }
}

fn tighten_one(path: &Path, meta: &fs::Metadata) -> Result<bool, WriteError> {
    let mode = meta.permissions().mode() & 0o7777;
    let private = if meta.is_dir() {
        mode & PRIVATE_DIR_MODE
    } else {
        mode & PRIVATE_FILE_MODE
    };
    if private == mode {
        return Ok(false);
    }
    fs::set_permissions(path, fs::Permissions::from_mode(private)).map_err(with_path(path))?;
    Ok(true)
}

fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_atomic_replaces_and_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/plan.md");
        write_atomic(&path, b"old").unwrap();
        write_atomic(&path, b"new").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        let names: Vec<_> = fs::read_dir(path.parent().unwrap()).unwrap().collect();
        assert_eq!(names.len(), 1, "temp file left behind: {names:?}");
    }

    #[test]
    fn write_atomic_keeps_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x");
        fs::write(&path, "a").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        write_atomic(&path, b"b").unwrap();
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }

    #[test]
    fn a_change_after_the_read_is_refused_right_before_the_rename() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        fs::write(&path, "read").unwrap();
        let read_hash = sha256_hex(b"read");
        let err = replace_checked(&path, b"ours", Some(&read_hash), &mut || {
            fs::write(&path, "theirs").unwrap();
        })
        .unwrap_err();
        assert!(matches!(err, ReplaceError::Changed { .. }), "{err}");
        assert_eq!(fs::read_to_string(&path).unwrap(), "theirs");
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "temp file left"
        );
        // Unchanged: written. Missing and expected missing: written.
        replace_if_unchanged(&path, b"ours", Some(&sha256_hex(b"theirs"))).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "ours");
        let new = dir.path().join("new.json");
        replace_if_unchanged(&new, b"x", None).unwrap();
        assert!(matches!(
            replace_if_unchanged(&new, b"y", None),
            Err(ReplaceError::Changed { .. })
        ));
    }

    #[test]
    fn private_writes_are_0600_in_0700_folders_whatever_was_there() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store/sub/file.json");
        write_private(&path, b"a").unwrap();
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(&dir.path().join("store")), 0o700);
        assert_eq!(mode(&dir.path().join("store/sub")), 0o700);
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        write_private(&path, b"b").unwrap();
        assert_eq!(
            mode(&path),
            0o600,
            "a looser file is replaced by a private one"
        );
        let log = dir.path().join("store/log/x.jsonl");
        append_line(&log, "{}").unwrap();
        assert_eq!(mode(&log), 0o600);
        assert_eq!(mode(log.parent().unwrap()), 0o700);
    }

    #[test]
    fn append_line_appends() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log/decisions.jsonl");
        append_line(&path, "{\"a\":1}").unwrap();
        append_line(&path, "{\"a\":2}").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "{\"a\":1}\n{\"a\":2}\n");
    }

    #[test]
    fn write_error_names_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("file");
        fs::write(&blocker, "").unwrap();
        let err = write_atomic(&blocker.join("child"), b"x").unwrap_err();
        assert!(err.to_string().contains("file"), "{err}");
    }
}
