//! The git side: the worktree's changes since the base, commits plus uncommitted.
//!
//! The base is the worktree's HEAD at the approval, read from its reflog (the newest entry at or
//! before the approval time): a `reset --hard` or a rebase after the approval leaves that entry in
//! the reflog, so the base survives them (with a note). Without it (no approval time, a reflog
//! that starts later, a commit gone), the base is the merge base of HEAD with the base branch
//! (`origin/HEAD`, `main`, `master`, or the branch the worktree was made from).

use std::path::{Path, PathBuf};

use git2::{Delta, DiffFindOptions, DiffOptions, Oid, Repository};
use time::OffsetDateTime;

use super::{
    BaseKind, BaseRef, ChangeKind, ChangeSource, ChangedFile, CommitSummary, FileDiff, VerifyError,
    VerifyReport,
};

/// The most commits listed.
const MAX_COMMITS: usize = 500;
/// Changed text kept per file for symbol lookups (bytes).
const MAX_FILE_TEXT: usize = 1 << 20;
/// The largest file whose text [`file_diff`] gives.
const MAX_DIFF_FILE: u64 = 4 << 20;

/// One changed file with the text of its changed lines.
#[derive(Debug, Clone)]
pub struct GitFile {
    pub file: ChangedFile,
    /// (hunk header, the hunk's added and removed lines).
    pub hunks: Vec<(String, String)>,
}

/// The git facts of a worktree.
#[derive(Debug, Clone)]
pub struct GitChanges {
    pub workdir: PathBuf,
    pub base: BaseRef,
    pub files: Vec<GitFile>,
    pub commits: Vec<CommitSummary>,
    pub notes: Vec<String>,
}

/// Reads the changes of the repository at (or above) `folder` since the approval at `approved`.
/// `Err` is a sentence for the report: no repository there, or git could not read it.
pub fn collect(
    folder: &Path,
    approved: Option<OffsetDateTime>,
    branch_hint: Option<&str>,
) -> Result<GitChanges, String> {
    collect_with(
        folder,
        approved,
        branch_hint,
        Some(&global_attribute_files()),
    )
}

/// [`collect`]; `plain`: the global and system attribute files that, when one exists, keep every
/// patch on libgit2's per-file path (see [`plain_worktree`]); `None`: always that path (the
/// reference the tests compare the plain patches with).
pub(crate) fn collect_with(
    folder: &Path,
    approved: Option<OffsetDateTime>,
    branch_hint: Option<&str>,
    plain: Option<&[PathBuf]>,
) -> Result<GitChanges, String> {
    if !folder.is_dir() {
        return Err(format!(
            "The session's folder {} is gone: only the transcript's tool calls are evidence.",
            folder.display()
        ));
    }
    let repo = Repository::discover(folder).map_err(|_| {
        format!(
            "The session's folder {} is not in a git repository: only the transcript's tool calls are evidence.",
            folder.display()
        )
    })?;
    let Some(workdir) = repo.workdir().map(Path::to_path_buf) else {
        return Err(format!(
            "{} is a bare repository: there is no worktree to read changes in.",
            folder.display()
        ));
    };
    let git = |e: git2::Error| format!("git could not read {}: {}", workdir.display(), e.message());
    let mut notes = Vec::new();
    let head = repo.head().ok().and_then(|h| h.peel_to_commit().ok());

    let mut base = BaseRef {
        kind: BaseKind::None,
        commit: None,
        branch: None,
    };
    if let Some(at) = approved {
        if let Some(oid) = head_at(&repo, at) {
            if repo.find_commit(oid).is_ok() {
                base.kind = BaseKind::ApprovalHead;
                base.commit = Some(oid.to_string());
                if let Some(h) = &head {
                    if h.id() != oid && !repo.graph_descendant_of(h.id(), oid).unwrap_or(false) {
                        notes.push(format!(
                            "HEAD at the approval ({}) is no longer in the history of HEAD ({}): the branch was reset or rewritten after the approval. Changes are counted against the HEAD at approval; commits dropped since are not shown.",
                            short(oid),
                            short(h.id())
                        ));
                    }
                }
            } else {
                notes.push(format!(
                    "HEAD at the approval ({}) is no longer in the repository; the merge base is used instead.",
                    short(oid)
                ));
            }
        }
    }
    if base.kind == BaseKind::None {
        if let Some(h) = &head {
            if let Some((branch, oid)) = merge_base(&repo, h.id(), branch_hint) {
                base.kind = BaseKind::MergeBase;
                base.commit = Some(oid.to_string());
                if approved.is_some() {
                    notes.push(format!(
                        "The worktree's HEAD at the approval is not in its reflog: changes are counted from the merge base with {branch} ({}), which may include work from before the approval.",
                        short(oid)
                    ));
                }
                base.branch = Some(branch);
            } else {
                notes.push(
                    "No base commit was found (no reflog entry at the approval, no base branch): only uncommitted changes against HEAD are counted."
                        .to_owned(),
                );
            }
        } else {
            notes.push("The repository has no commit yet: every file is new.".to_owned());
        }
    }

    let base_oid = base.commit.as_deref().and_then(|c| Oid::from_str(c).ok());
    let base_tree = match (base_oid, &head) {
        (Some(oid), _) => Some(repo.find_commit(oid).and_then(|c| c.tree()).map_err(git)?),
        (None, Some(h)) => Some(h.tree().map_err(git)?),
        (None, None) => None,
    };
    let mut opts = diff_options();
    let mut diff = repo
        .diff_tree_to_workdir_with_index(base_tree.as_ref(), Some(&mut opts))
        .map_err(git)?;
    let mut find = DiffFindOptions::new();
    find.renames(true).for_untracked(true);
    diff.find_similar(Some(&mut find)).map_err(git)?;

    // Patches from the base blob and the file read once, when nothing can filter the worktree's
    // text (see `plain_worktree`); libgit2's own per-file path otherwise.
    let plain = plain.is_some_and(|global| plain_worktree(&repo, &workdir, &diff, global));
    let mut files = Vec::new();
    for (i, delta) in diff.deltas().enumerate() {
        let change = match delta.status() {
            Delta::Added | Delta::Untracked => ChangeKind::Added,
            Delta::Deleted => ChangeKind::Deleted,
            Delta::Renamed => ChangeKind::Renamed,
            Delta::Modified | Delta::Typechange | Delta::Copied => ChangeKind::Modified,
            _ => continue,
        };
        let new_path = delta.new_file().path().map(path_string);
        let old_path = delta.old_file().path().map(path_string);
        let Some(path) = (if change == ChangeKind::Deleted {
            old_path.clone()
        } else {
            new_path.clone()
        }) else {
            continue;
        };
        let mut file = ChangedFile {
            path,
            change,
            from: (change == ChangeKind::Renamed).then(|| old_path.clone().unwrap_or_default()),
            additions: 0,
            deletions: 0,
            binary: delta.flags().is_binary(),
            sources: vec![ChangeSource::Git],
        };
        let mut hunks = Vec::new();
        let facts = if plain {
            plain_patch(&repo, &workdir, &delta)
        } else {
            None
        };
        let facts = facts.or_else(|| {
            git2::Patch::from_diff(&diff, i)
                .ok()
                .flatten()
                .map(|p| patch_facts(&p))
        });
        if let Some(f) = facts {
            file.additions = f.additions;
            file.deletions = f.deletions;
            file.binary |= f.binary;
            hunks = f.hunks;
        }
        files.push(GitFile { file, hunks });
    }

    let mut commits = Vec::new();
    if let Some(h) = &head {
        let mut walk = repo.revwalk().map_err(git)?;
        walk.push(h.id()).map_err(git)?;
        if let Some(b) = base_oid {
            let _ = walk.hide(b);
        }
        let _ = walk.set_sorting(git2::Sort::TOPOLOGICAL | git2::Sort::REVERSE);
        if base_oid.is_some() {
            for oid in walk.flatten() {
                if commits.len() >= MAX_COMMITS {
                    notes.push(format!(
                        "More than {MAX_COMMITS} commits since the base: the first {MAX_COMMITS} are listed."
                    ));
                    break;
                }
                if let Ok(c) = repo.find_commit(oid) {
                    commits.push(CommitSummary {
                        id: oid.to_string(),
                        summary: c.summary().unwrap_or("").to_owned(),
                        at: OffsetDateTime::from_unix_timestamp(c.time().seconds())
                            .ok()
                            .map(crate::timestamp::format),
                    });
                }
            }
        }
    }
    Ok(GitChanges {
        workdir,
        base,
        files,
        commits,
        notes,
    })
}

fn diff_options() -> DiffOptions {
    let mut opts = DiffOptions::new();
    opts.include_untracked(true)
        .recurse_untracked_dirs(true)
        .show_untracked_content(true)
        .include_typechange(true)
        // Only the changed lines matter (symbols, line counts): no context to build or scan.
        .context_lines(0)
        .interhunk_lines(0);
    opts
}

/// What a file's patch gives the report.
struct PatchFacts {
    additions: u32,
    deletions: u32,
    binary: bool,
    hunks: Vec<(String, String)>,
}

fn patch_facts(patch: &git2::Patch<'_>) -> PatchFacts {
    let mut out = PatchFacts {
        additions: 0,
        deletions: 0,
        binary: patch.delta().flags().is_binary(),
        hunks: Vec::new(),
    };
    if let Ok((_, add, del)) = patch.line_stats() {
        out.additions = u32::try_from(add).unwrap_or(u32::MAX);
        out.deletions = u32::try_from(del).unwrap_or(u32::MAX);
    }
    let mut kept = 0usize;
    for h in 0..patch.num_hunks() {
        let Ok((hunk, lines)) = patch.hunk(h) else {
            continue;
        };
        let header = String::from_utf8_lossy(hunk.header()).trim_end().to_owned();
        let mut text = String::new();
        for l in 0..lines {
            if kept >= MAX_FILE_TEXT {
                break;
            }
            if let Ok(line) = patch.line_in_hunk(h, l) {
                if matches!(line.origin(), '+' | '-') {
                    let s = String::from_utf8_lossy(line.content());
                    kept += s.len();
                    text.push_str(&s);
                }
            }
        }
        out.hunks.push((header, text));
    }
    out
}

/// The largest worktree file whose patch [`plain_patch`] makes (bigger ones take libgit2's path).
const MAX_PLAIN_FILE: u64 = 1 << 20;

/// Whether no git attribute and no setting can change a worktree file's bytes on their way into
/// the diff (git's to-odb filters: the `text`, `eol`, `crlf`, `ident` and `filter` attributes and
/// `core.autocrlf`) nor choose a diff driver (the `diff` attribute): no `.gitattributes` in the
/// index nor in any folder above a changed file, no `info/attributes`, no global or system
/// attributes file, `core.autocrlf` false or unset. Then a file's patch made from its base blob
/// and its bytes (each read once, no attribute lookup per file) is the one libgit2's diff makes;
/// when in doubt, `false` (libgit2's per-file path, the same report, slower).
fn plain_worktree(
    repo: &Repository,
    workdir: &Path,
    diff: &git2::Diff<'_>,
    global: &[PathBuf],
) -> bool {
    let Ok(cfg) = repo.config() else {
        return false;
    };
    if cfg.get_entry("core.autocrlf").is_ok() && !matches!(cfg.get_bool("core.autocrlf"), Ok(false))
    {
        return false;
    }
    if ["core.attributesFile", "core.eol", "attr.tree"]
        .iter()
        .any(|k| cfg.get_entry(k).is_ok())
    {
        return false;
    }
    let mut files = vec![
        repo.commondir().join("info/attributes"),
        repo.path().join("info/attributes"),
    ];
    files.extend(global.iter().cloned());
    let is_attributes = |p: &Path| p.file_name() == Some(std::ffi::OsStr::new(".gitattributes"));
    let mut folders: std::collections::BTreeSet<PathBuf> = std::collections::BTreeSet::new();
    for d in diff.deltas() {
        for p in [d.old_file().path(), d.new_file().path()]
            .into_iter()
            .flatten()
        {
            if is_attributes(p) {
                return false;
            }
            let mut dir = p.parent();
            while let Some(x) = dir {
                if !folders.insert(x.to_path_buf()) {
                    break;
                }
                dir = x.parent();
            }
        }
    }
    folders.insert(PathBuf::new());
    files.extend(
        folders
            .iter()
            .map(|f| workdir.join(f).join(".gitattributes")),
    );
    if files.iter().any(|f| std::fs::symlink_metadata(f).is_ok()) {
        return false;
    }
    let Ok(index) = repo.index() else {
        return false;
    };
    let attributes_in_index = index
        .iter()
        .any(|e| e.path == b".gitattributes" || e.path.ends_with(b"/.gitattributes"));
    !attributes_in_index
}

/// The attribute files outside the repository that libgit2 reads: the system one and the user's
/// (`$XDG_CONFIG_HOME/git/attributes`, else `~/.config/git/attributes`).
fn global_attribute_files() -> Vec<PathBuf> {
    let mut files = vec![PathBuf::from("/etc/gitattributes")];
    if let Ok(system) = git2::Config::find_system() {
        if let Some(dir) = system.parent() {
            files.push(dir.join("gitattributes"));
        }
    }
    match std::env::var_os("XDG_CONFIG_HOME").filter(|x| !x.is_empty()) {
        Some(x) => files.push(PathBuf::from(x).join("git/attributes")),
        None => {
            if let Some(h) = std::env::var_os("HOME") {
                files.push(PathBuf::from(h).join(".config/git/attributes"));
            }
        }
    }
    files
}

/// A changed regular file's patch from its base blob (none when added) and its bytes in the
/// worktree, read once; `None` for anything else (deleted, symlinks, submodules, type changes,
/// large or unreadable files), which takes libgit2's path. Only called when
/// [`plain_worktree`] holds: no path is given, so the diff driver is the default one, as it is
/// for libgit2 when no attribute names one.
fn plain_patch(
    repo: &Repository,
    workdir: &Path,
    delta: &git2::DiffDelta<'_>,
) -> Option<PatchFacts> {
    let regular =
        |m: git2::FileMode| matches!(m, git2::FileMode::Blob | git2::FileMode::BlobExecutable);
    let old = match delta.status() {
        Delta::Modified | Delta::Renamed => {
            let f = delta.old_file();
            if !regular(f.mode()) || f.id().is_zero() {
                return None;
            }
            Some(repo.find_blob(f.id()).ok()?)
        }
        Delta::Added | Delta::Untracked => None,
        _ => return None,
    };
    let new = delta.new_file();
    if !regular(new.mode()) {
        return None;
    }
    let full = workdir.join(new.path()?);
    let meta = std::fs::symlink_metadata(&full).ok()?;
    if !meta.is_file() || meta.len() > MAX_PLAIN_FILE {
        return None;
    }
    let bytes = std::fs::read(&full).ok()?;
    let mut opts = DiffOptions::new();
    opts.context_lines(0).interhunk_lines(0);
    let patch = match &old {
        Some(blob) => git2::Patch::from_blob_and_buffer(blob, None, &bytes, None, Some(&mut opts)),
        None => git2::Patch::from_buffers(&[], None, &bytes, None, Some(&mut opts)),
    }
    .ok()?;
    Some(patch_facts(&patch))
}

/// HEAD at time `at`: the newest reflog entry at or before it.
fn head_at(repo: &Repository, at: OffsetDateTime) -> Option<Oid> {
    let log = repo.reflog("HEAD").ok()?;
    let secs = at.unix_timestamp();
    log.iter()
        .find(|e| e.committer().when().seconds() <= secs)
        .map(|e| e.id_new())
        .filter(|oid| !oid.is_zero())
}

/// The merge base of `head` with the first base branch that exists and differs from HEAD's own.
fn merge_base(repo: &Repository, head: Oid, hint: Option<&str>) -> Option<(String, Oid)> {
    let own = repo
        .head()
        .ok()
        .and_then(|h| h.shorthand().map(str::to_owned));
    let mut candidates: Vec<String> = Vec::new();
    if let Some(h) = hint {
        candidates.push(h.to_owned());
    }
    if let Ok(r) = repo.find_reference("refs/remotes/origin/HEAD") {
        if let Some(t) = r.symbolic_target() {
            candidates.push(t.trim_start_matches("refs/remotes/").to_owned());
        }
    }
    for c in [
        "main",
        "master",
        "origin/main",
        "origin/master",
        "trunk",
        "develop",
    ] {
        candidates.push(c.to_owned());
    }
    let mut fallback = None;
    for name in candidates {
        let Ok(obj) = repo.revparse_single(&name) else {
            continue;
        };
        let Ok(commit) = obj.peel_to_commit() else {
            continue;
        };
        let Ok(mb) = repo.merge_base(head, commit.id()) else {
            continue;
        };
        if own.as_deref() == Some(name.as_str()) {
            // Working on the base branch itself: its merge base is HEAD.
            fallback.get_or_insert((name, mb));
            continue;
        }
        return Some((name, mb));
    }
    fallback
}

fn short(oid: Oid) -> String {
    oid.to_string()[..8].to_owned()
}

fn path_string(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// See [`super::file_diff`].
pub(crate) fn file_diff(report: &VerifyReport, path: &str) -> Result<FileDiff, VerifyError> {
    let Some(changed) = report.changes.iter().find(|c| c.path == path) else {
        return Err(VerifyError::NotChanged {
            path: path.to_owned(),
        });
    };
    let mut out = FileDiff {
        path: path.to_owned(),
        old: None,
        new: None,
        binary: changed.binary,
        note: None,
    };
    let Some(worktree) = report.worktree.as_deref() else {
        out.note = Some("No worktree: only the agent's tool calls show this change.".to_owned());
        return Ok(out);
    };
    let rel = Path::new(path);
    if rel.is_absolute()
        || rel
            .components()
            .any(|c| !matches!(c, std::path::Component::Normal(_)))
    {
        out.note = Some(format!(
            "{path} is outside the worktree {worktree}: its text is not shown."
        ));
        return Ok(out);
    }
    let repo = Repository::open(worktree).map_err(|e| VerifyError::Git(e.message().to_owned()))?;
    let workdir = repo
        .workdir()
        .map(Path::to_path_buf)
        .ok_or_else(|| VerifyError::Git(format!("{worktree} has no worktree")))?;
    let mut notes = Vec::new();
    // Old side: the base commit's blob (at the old path of a rename).
    if let Some(commit) = report.base.commit.as_deref() {
        let old_path = changed.from.as_deref().unwrap_or(path);
        let blob = Oid::from_str(commit)
            .and_then(|oid| repo.find_commit(oid))
            .and_then(|c| c.tree())
            .and_then(|t| t.get_path(Path::new(old_path)))
            .and_then(|e| e.to_object(&repo))
            .ok()
            .and_then(|o| o.into_blob().ok());
        if let Some(blob) = blob {
            if blob.size() as u64 > MAX_DIFF_FILE {
                notes.push(format!("{old_path} at the base is too large to show."));
                out.binary = true;
            } else {
                match text_of(blob.content()) {
                    Some(t) => out.old = Some(t),
                    None => out.binary = true,
                }
            }
        }
    }
    // New side: the file in the worktree (a symlink is shown as its target, never followed).
    if changed.change != ChangeKind::Deleted {
        let full = workdir.join(rel);
        match std::fs::symlink_metadata(&full) {
            Ok(m) if m.file_type().is_symlink() => {
                out.new = std::fs::read_link(&full)
                    .ok()
                    .map(|t| t.to_string_lossy().into_owned());
            }
            Ok(m) if m.len() > MAX_DIFF_FILE => {
                notes.push(format!("{path} is too large to show."));
                out.binary = true;
            }
            Ok(m) if m.is_file() => match std::fs::read(&full) {
                Ok(bytes) => match text_of(&bytes) {
                    Some(t) => out.new = Some(t),
                    None => out.binary = true,
                },
                Err(e) => notes.push(format!("Cannot read {path}: {e}")),
            },
            Ok(_) => notes.push(format!("{path} is not a file now.")),
            Err(_) => notes.push(format!("{path} is gone from the worktree now.")),
        }
    }
    if out.binary {
        out.old = None;
        out.new = None;
    }
    if !notes.is_empty() {
        out.note = Some(notes.join(" "));
    }
    Ok(out)
}

fn text_of(bytes: &[u8]) -> Option<String> {
    if memchr::memchr(0, bytes).is_some() {
        return None;
    }
    String::from_utf8(bytes.to_vec()).ok()
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;
    use plandeck_testkit::verify::{self as testkit, commit_all, git_init, write_file};

    fn approved() -> Option<OffsetDateTime> {
        OffsetDateTime::from_unix_timestamp(testkit::T0 + 150).ok()
    }

    /// The files and hunks of the plain patches and of libgit2's per-file path, side by side.
    fn both(repo: &Path) -> (Vec<GitFile>, Vec<GitFile>) {
        let plain = collect_with(repo, approved(), None, Some(&[])).unwrap();
        let libgit2 = collect_with(repo, approved(), None, None).unwrap();
        (plain.files, libgit2.files)
    }

    fn same(a: &[GitFile], b: &[GitFile]) {
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(b) {
            assert_eq!(x.file, y.file);
            assert_eq!(x.hunks, y.hunks, "{}", x.file.path);
        }
    }

    fn is_plain(repo: &Path, global: &[PathBuf]) -> bool {
        let r = Repository::open(repo).unwrap();
        let tree = r.head().unwrap().peel_to_tree().unwrap();
        let mut opts = diff_options();
        let diff = r
            .diff_tree_to_workdir_with_index(Some(&tree), Some(&mut opts))
            .unwrap();
        plain_worktree(&r, r.workdir().unwrap(), &diff, global)
    }

    /// How many of the changed files get a plain patch (the others take libgit2's path).
    fn plain_count(repo: &Path) -> usize {
        let r = Repository::open(repo).unwrap();
        let tree = r.head().unwrap().peel_to_tree().unwrap();
        let mut opts = diff_options();
        let mut diff = r
            .diff_tree_to_workdir_with_index(Some(&tree), Some(&mut opts))
            .unwrap();
        let mut find = DiffFindOptions::new();
        find.renames(true).for_untracked(true);
        diff.find_similar(Some(&mut find)).unwrap();
        diff.deltas()
            .filter(|d| plain_patch(&r, r.workdir().unwrap(), d).is_some())
            .count()
    }

    const BODY: &str = "fn one() {\n    1\n}\n\nfn two() {\n    2\n}\n\nfn three() {\n    3\n}\n";

    #[test]
    fn plain_patches_are_libgit2s_for_every_kind_of_change() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("r");
        let long: String = (0..40)
            .map(|i| format!("line {i} of the old name\n"))
            .collect();
        git_init(
            &repo,
            &[
                ("src/a.rs", BODY),
                ("src/nonl.txt", "one\ntwo"),
                ("bin.dat", "text\0binary\n"),
                ("to_text.dat", "was\0binary\n"),
                ("to_bin.txt", "was text\n"),
                ("gone.rs", "fn gone() {}\n"),
                ("old_name.rs", &long),
                ("exec.sh", "#!/bin/sh\necho one\n"),
                ("crlf.txt", "a\r\nb\r\nc\r\n"),
                ("deep/x/y/z.rs", BODY),
                ("same.txt", "unchanged\n"),
            ],
            0,
        );
        std::os::unix::fs::symlink("src/a.rs", repo.join("link")).unwrap();
        commit_all(&repo, "link", 10);
        // Committed after the approval.
        write_file(
            &repo,
            "src/a.rs",
            &BODY.replace("    2\n", "    2 + paged()\n"),
        );
        commit_all(&repo, "paged", 200);
        // Uncommitted.
        let paged = BODY.replace("    2\n", "    2 + paged()\n");
        write_file(&repo, "src/a.rs", &format!("{paged}\nfn four() {{}}\n"));
        write_file(&repo, "src/nonl.txt", "one\ntwo\nthree");
        write_file(&repo, "bin.dat", "text\0binary, changed\n");
        write_file(&repo, "to_text.dat", "now text\n");
        write_file(&repo, "to_bin.txt", "now\0binary\n");
        std::fs::remove_file(repo.join("gone.rs")).unwrap();
        std::fs::remove_file(repo.join("old_name.rs")).unwrap();
        write_file(&repo, "new_name.rs", &format!("{long}one more\n"));
        write_file(&repo, "exec.sh", "#!/bin/sh\necho two\n");
        std::fs::set_permissions(repo.join("exec.sh"), std::fs::Permissions::from_mode(0o755))
            .unwrap();
        write_file(&repo, "crlf.txt", "a\r\nB\r\nc\r\n");
        write_file(&repo, "deep/x/y/z.rs", &BODY.replace("three", "tri"));
        std::fs::remove_file(repo.join("link")).unwrap();
        std::os::unix::fs::symlink("deep/x/y/z.rs", repo.join("link")).unwrap();
        write_file(&repo, "untracked/new.rs", "fn new() {}\n");
        write_file(&repo, "empty.txt", "");
        write_file(&repo, "untracked/new.bin", "\0\x01binary\n");
        write_file(&repo, "untracked/crlf_nonl.txt", "x\r\ny");
        write_file(&repo, "staged.rs", "fn staged() {}\n");
        let r = Repository::open(&repo).unwrap();
        let mut index = r.index().unwrap();
        index.add_path(Path::new("staged.rs")).unwrap();
        index.write().unwrap();
        write_file(&repo, "staged.rs", "fn staged() {}\nfn later() {}\n");

        assert!(is_plain(&repo, &[]), "this worktree takes the plain path");
        // 16 changed files: all but the deleted file and the symlink.
        assert_eq!(plain_count(&repo), 14);
        let (plain, libgit2) = both(&repo);
        same(&plain, &libgit2);
        let kinds: Vec<(&str, ChangeKind, bool)> = plain
            .iter()
            .map(|f| (f.file.path.as_str(), f.file.change, f.file.binary))
            .collect();
        for want in [
            ("src/a.rs", ChangeKind::Modified, false),
            ("new_name.rs", ChangeKind::Renamed, false),
            ("gone.rs", ChangeKind::Deleted, false),
            ("bin.dat", ChangeKind::Modified, true),
            ("to_bin.txt", ChangeKind::Modified, true),
            ("untracked/new.rs", ChangeKind::Added, false),
            ("staged.rs", ChangeKind::Added, false),
            ("empty.txt", ChangeKind::Added, false),
            ("untracked/new.bin", ChangeKind::Added, true),
        ] {
            assert!(kinds.contains(&want), "{want:?} in {kinds:?}");
        }
        let a = plain.iter().find(|f| f.file.path == "src/a.rs").unwrap();
        assert!(
            a.hunks.iter().any(|(_, t)| t.contains("paged")),
            "{:?}",
            a.hunks
        );
        assert!(
            a.hunks.iter().any(|(h, _)| h.contains("fn two")),
            "{:?}",
            a.hunks
        );
    }

    #[test]
    fn attributes_or_autocrlf_keep_libgit2s_path() {
        // A text file committed with LF and now CRLF in the worktree, one line changed: with a
        // `text` attribute or core.autocrlf, git reads the worktree side as LF (one changed line);
        // the plain bytes would show every line changed.
        type Make<'a> = &'a dyn Fn(&Path);
        let setups: [(&str, Make<'_>); 4] = [
            ("a .gitattributes in the worktree", &|repo: &Path| {
                write_file(repo, ".gitattributes", "* text=auto\n");
            }),
            ("a .gitattributes above the file", &|repo: &Path| {
                write_file(repo, "src/.gitattributes", "*.txt text\n");
            }),
            ("info/attributes", &|repo: &Path| {
                std::fs::create_dir_all(repo.join(".git/info")).unwrap();
                std::fs::write(repo.join(".git/info/attributes"), "* text=auto\n").unwrap();
            }),
            ("core.autocrlf", &|repo: &Path| {
                let r = Repository::open(repo).unwrap();
                r.config().unwrap().set_bool("core.autocrlf", true).unwrap();
            }),
        ];
        for (what, make) in setups {
            let dir = tempfile::tempdir().unwrap();
            let repo = dir.path().join("r");
            git_init(&repo, &[("src/t.txt", "a\nb\nc\nd\n")], 0);
            make(&repo);
            write_file(&repo, "src/t.txt", "a\r\nB\r\nc\r\nd\r\n");
            assert!(!is_plain(&repo, &[]), "{what}");
            let (plain, libgit2) = both(&repo);
            same(&plain, &libgit2);
            let t = plain.iter().find(|f| f.file.path == "src/t.txt").unwrap();
            assert_eq!((t.file.additions, t.file.deletions), (1, 1), "{what}");
        }
        // A global or system attributes file (libgit2 reads them for every repository).
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("r");
        git_init(&repo, &[("t.txt", "a\n")], 0);
        write_file(&repo, "t.txt", "b\n");
        let global = dir.path().join("attributes");
        assert!(is_plain(&repo, std::slice::from_ref(&global)));
        std::fs::write(&global, "* text\n").unwrap();
        assert!(!is_plain(&repo, &[global]));
    }
}
