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
    let mut opts = DiffOptions::new();
    opts.include_untracked(true)
        .recurse_untracked_dirs(true)
        .show_untracked_content(true)
        .include_typechange(true)
        // Only the changed lines matter (symbols, line counts): no context to build or scan.
        .context_lines(0)
        .interhunk_lines(0);
    let mut diff = repo
        .diff_tree_to_workdir_with_index(base_tree.as_ref(), Some(&mut opts))
        .map_err(git)?;
    let mut find = DiffFindOptions::new();
    find.renames(true).for_untracked(true);
    diff.find_similar(Some(&mut find)).map_err(git)?;

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
        if let Ok(Some(patch)) = git2::Patch::from_diff(&diff, i) {
            if let Ok((_, add, del)) = patch.line_stats() {
                file.additions = u32::try_from(add).unwrap_or(u32::MAX);
                file.deletions = u32::try_from(del).unwrap_or(u32::MAX);
            }
            file.binary |= patch.delta().flags().is_binary();
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
                hunks.push((header, text));
            }
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
