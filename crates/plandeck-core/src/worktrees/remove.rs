//! Safe removal: a preview with typed refusals, removal that archives the branch tip first, and
//! "remove all clean and merged" for one repository.
//!
//! Refusals that may be confirmed (`discard`): changed files (submodule changes included), unmerged
//! commits, submodule commits found nowhere else, an unknown base, an unreadable state, a stale
//! lock, an agent's own tmux pane (ended by the removal), a pane of the person's (left open).
//! Never: the main worktree, a path git does not list as a worktree (a symlink is never followed:
//! the path given, and the folder git records, must both be real folders), an existing folder git
//! cannot validate, a worktree a running session works in whose own pane is not known, a lock that
//! is not provably stale.
//!
//! The preview carries a token, a fingerprint of exactly what it shows; removal with that token goes
//! ahead only while the worktree still matches it, and the files and commits are checked once more
//! right before the folder is deleted.
//!
//! A lock is stale when its reason names a process (`pid 1234`) that no longer exists and no
//! running session works in the worktree. A lock without a pid (a person's `git worktree lock`) is
//! never stale: it is an explicit "keep this", so it has to be unlocked by hand.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use git2::{BranchType, Oid, Repository, WorktreePruneOptions};

use super::list::{self, assign_sessions, Found, Sessions};
use super::{
    archive, canonical, keep, panes, unmerged, ChangedFile, CommitLine, FileLine, PaneLine,
    Refusal, RemovalPreview, RemoveOutcome, SubmoduleCommits, WorktreeDetails, WorktreeError,
};
use crate::config::Roots;

const FILES_SHOWN: usize = 200;
const COMMITS_SHOWN: usize = 100;

/// The worktree a path names, with its repository's other worktrees and the sessions in it.
struct Located {
    found: Found,
    sessions: Sessions,
    kept: HashSet<PathBuf>,
}

/// Finds the listed worktree whose folder is `path`, or says why there is none.
fn locate(roots: &Roots, path: &Path) -> Result<Result<Located, String>, WorktreeError> {
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        if meta.file_type().is_symlink() {
            let target = std::fs::read_link(path)
                .map(|t| t.display().to_string())
                .unwrap_or_default();
            return Ok(Err(format!(
                "{} is a symlink to {target}; give the worktree's own folder",
                path.display()
            )));
        }
    }
    let me = canonical(path);
    let hints = list::hints(roots);
    let all = match list::common_dir_of(path) {
        Ok(common) => list::worktrees_of(&common)?,
        // The folder may be gone (a prunable worktree): look through every known repository.
        Err(_) => list::find_all(roots, &hints).0,
    };
    let Some(i) = all
        .iter()
        .position(|f| canonical(&f.path) == me || f.path == me)
    else {
        return Ok(Err(format!("git lists no worktree at {}", path.display())));
    };
    let found = all[i].clone();
    if std::fs::symlink_metadata(&found.path).is_ok_and(|m| m.file_type().is_symlink()) {
        let target = std::fs::read_link(&found.path)
            .map(|t| t.display().to_string())
            .unwrap_or_default();
        return Ok(Err(format!(
            "the worktree folder {} was replaced by a symlink to {target}",
            found.path.display()
        )));
    }
    let sessions = assign_sessions(&all, &hints).swap_remove(i);
    let kept = keep::kept_set(roots)?;
    Ok(Ok(Located {
        found,
        sessions,
        kept,
    }))
}

/// What removing the worktree at `path` would do and lose, and why it may be refused. Panes are
/// looked for on the tmux server at `tmux_socket` (the default server when none).
pub fn removal_preview(
    roots: &Roots,
    path: &Path,
    tmux_socket: Option<&Path>,
) -> Result<RemovalPreview, WorktreeError> {
    Ok(preview(roots, path, tmux_socket)?.0)
}

/// The changed files (status in words) and unmerged commits of the worktree at `path`: what its
/// counts in the listing stand for.
pub fn details(roots: &Roots, path: &Path) -> Result<WorktreeDetails, WorktreeError> {
    let located = match locate(roots, path)? {
        Ok(l) => l,
        Err(why) => {
            return Err(WorktreeError::NotAWorktree {
                path: path.to_owned(),
                why,
            })
        }
    };
    let snap = Snapshot::take(&located);
    let files = snap
        .changed
        .iter()
        .take(FILES_SHOWN)
        .filter_map(|l| ChangedFile::from_line(l))
        .map(|f| FileLine {
            status: f.status(),
            path: f.path,
        })
        .collect();
    Ok(WorktreeDetails {
        files,
        files_total: u32::try_from(snap.changed.len()).unwrap_or(u32::MAX),
        commits: snap.unmerged.1,
        commits_total: snap.unmerged.0,
        problem: snap.unvalidated.or(snap.summary.problem),
    })
}

/// A porcelain line "XY path" as a person reads it: "modified: path".
fn in_words(line: &str) -> String {
    match ChangedFile::from_line(line) {
        Some(f) => format!("{}: {}", f.status().word(), f.path),
        None => line.to_owned(),
    }
}

/// What a removal needs from its preview besides what the person sees.
struct Checked {
    located: Located,
    /// The fingerprint of the files and commits (not the panes), checked again right before the
    /// folder is deleted.
    content: String,
    agents: Vec<panes::AgentPane>,
}

/// The files and commits of a worktree, as the preview shows them and the removal re-checks them.
struct Snapshot {
    summary: super::WorktreeSummary,
    /// Every changed path ("XY path"); none read when `unvalidated` is set.
    changed: Vec<String>,
    unmerged: (u32, Vec<CommitLine>),
    submodules: Vec<SubmoduleCommits>,
    /// Why git cannot check this existing folder.
    unvalidated: Option<String>,
}

impl Snapshot {
    fn take(located: &Located) -> Snapshot {
        let f = &located.found;
        let counted = list::summarize_in_full(f, &located.sessions, &located.kept, false);
        let mut summary = counted.summary;
        let mut snap = Snapshot {
            changed: Vec::new(),
            unmerged: (0, Vec::new()),
            submodules: Vec::new(),
            unvalidated: None,
            summary: summary.clone(),
        };
        if f.prunable {
            return snap;
        }
        let repo = match list::open_validated(f) {
            Ok(r) => r,
            Err(why) => {
                snap.unvalidated = Some(why);
                return snap;
            }
        };
        // What git cannot show is not called clean: unreadable changed files or submodules refuse.
        let (Some(changed), Some(submodules)) = (counted.changed, counted.submodules) else {
            snap.unvalidated = Some(
                summary
                    .problem
                    .clone()
                    .unwrap_or_else(|| "its changed files cannot be read".to_owned()),
            );
            return snap;
        };
        snap.changed = changed.files.iter().map(|c| c.line()).collect();
        snap.submodules = submodules;
        let head = summary.head.as_deref().and_then(|h| Oid::from_str(h).ok());
        let base = summary.base.as_deref().and_then(|b| Oid::from_str(b).ok());
        if let (Some(head), Some(base)) = (head, base) {
            match unmerged::unmerged_commits(&repo, head, base, COMMITS_SHOWN) {
                Ok(u) => snap.unmerged = u,
                Err(e) => {
                    summary.problem = Some(format!("cannot list unmerged commits: {}", e.message()))
                }
            }
        }
        snap.summary = summary;
        snap
    }

    /// A fingerprint of HEAD, the branch, every changed file, the unmerged and the submodule
    /// commits.
    fn content(&self) -> String {
        let mut text = format!(
            "head {:?}\nbranch {:?}\nbase {:?}\nfolder {}\nunvalidated {:?}\nunmerged {}\n",
            self.summary.head,
            self.summary.branch,
            self.summary.base,
            self.summary.prunable,
            self.unvalidated,
            self.unmerged.0
        );
        for c in &self.unmerged.1 {
            text.push_str(&format!("commit {}\n", c.id));
        }
        // Each changed path with its size and modification time, so an edit after the dialog is
        // a change even when the list of paths stays the same.
        let top = Path::new(&self.summary.path);
        for line in &self.changed {
            let rel = line.get(3..).unwrap_or_default();
            let rel = rel.rsplit_once(" -> ").map_or(rel, |(_, new)| new);
            let stat = std::fs::symlink_metadata(top.join(rel)).ok().map(|m| {
                use std::os::unix::fs::MetadataExt;
                (m.len(), m.mtime(), m.mtime_nsec(), m.ino())
            });
            text.push_str(&format!("file {line} {stat:?}\n"));
        }
        for sub in &self.submodules {
            text.push_str(&format!("submodule {} {}\n", sub.submodule, sub.count));
            for c in &sub.commits {
                text.push_str(&format!("  {}\n", c.id));
            }
        }
        hash_text(&text)
    }
}

fn hash_text(text: &str) -> String {
    use sha2::{Digest, Sha256};
    hex::encode(Sha256::digest(text.as_bytes()))
}

fn preview(
    roots: &Roots,
    path: &Path,
    tmux_socket: Option<&Path>,
) -> Result<(RemovalPreview, Option<Checked>), WorktreeError> {
    let located = match locate(roots, path)? {
        Ok(l) => l,
        Err(why) => return Ok((not_a_worktree(path, why), None)),
    };
    let f = &located.found;
    let snap = Snapshot::take(&located);
    let content = snap.content();
    let (panes, panes_problem) = panes_of(roots, f, tmux_socket);
    let summary = snap.summary.clone();
    let mut refusals = who_is_there(&located, &panes, panes_problem);
    let lost = what_would_be_lost(f, &snap, &mut refusals)?;
    let confirmable = refusals.iter().all(Refusal::confirmable);
    let loss_summary = loss_summary(
        &summary.path,
        &refusals,
        &lost.changed_files,
        &lost.unmerged_commits,
        &snap.submodules,
        lost.archive_ref.as_deref(),
    );
    let panes_to_end: Vec<PaneLine> = panes.agents.iter().map(|a| a.line.clone()).collect();
    let token = preview_token(
        &summary.path,
        &content,
        &refusals,
        panes_to_end.iter().chain(&panes.person),
    );
    let preview = RemovalPreview {
        worktree: summary,
        changed_files: lost.changed_files,
        unmerged_commits: lost.unmerged_commits,
        refusals,
        confirmable,
        archive_ref: lost.archive_ref,
        loss_summary,
        panes_to_end,
        person_panes: panes.person,
        submodule_commits: snap.submodules,
        token,
    };
    Ok((
        preview,
        Some(Checked {
            located,
            content,
            agents: panes.agents,
        }),
    ))
}

/// The preview of a path that is not a listed worktree: refused, nothing to confirm.
fn not_a_worktree(path: &Path, why: String) -> RemovalPreview {
    let mut worktree = list::summarize(
        &Found {
            repo: path.to_owned(),
            common_dir: path.to_owned(),
            path: path.to_owned(),
            name: None,
            is_main: false,
            locked: None,
            prunable: true,
        },
        &Sessions::default(),
        &HashSet::new(),
        false,
    );
    worktree.problem = Some(why.clone());
    let refusals = vec![Refusal::NotAWorktree { why }];
    let loss_summary = refusals[0].message();
    let token = hash_text(&format!("not a worktree\n{loss_summary}"));
    RemovalPreview {
        worktree,
        changed_files: Vec::new(),
        unmerged_commits: Vec::new(),
        refusals,
        confirmable: false,
        archive_ref: None,
        loss_summary,
        panes_to_end: Vec::new(),
        person_panes: Vec::new(),
        submodule_commits: Vec::new(),
        token,
    }
}

/// The tmux panes working in the worktree's folder (none for a folder that is gone), and why
/// they could not be listed.
fn panes_of(
    roots: &Roots,
    f: &Found,
    tmux_socket: Option<&Path>,
) -> (panes::PanesIn, Option<String>) {
    if f.prunable {
        return (panes::PanesIn::default(), None);
    }
    match panes::panes_in(roots, &f.path, tmux_socket) {
        Ok(p) => (p, None),
        Err(e) => (panes::PanesIn::default(), Some(e)),
    }
}

/// The refusals for who works in the worktree: unknown panes, the main worktree, agents' and
/// people's panes, a session running elsewhere, a lock.
fn who_is_there(
    located: &Located,
    panes: &panes::PanesIn,
    panes_problem: Option<String>,
) -> Vec<Refusal> {
    let f = &located.found;
    let mut refusals = Vec::new();
    if let Some(problem) = panes_problem {
        // Which tmux panes work in the folder is not known: a person's shell may be there.
        refusals.push(Refusal::Unreadable {
            problem: format!("which tmux panes are in the folder: {problem}"),
        });
    }
    if f.is_main {
        refusals.push(Refusal::Main);
    }
    for a in &panes.agents {
        refusals.push(Refusal::AgentPane {
            pane: a.line.pane.clone(),
            session_id: a.line.agent_session_id.clone().unwrap_or_default(),
            pid: a.line.pid,
        });
    }
    // A running session whose own pane removal ends is listed as that pane; any other running
    // session has to be stopped first.
    let running_elsewhere = located.sessions.running.as_ref().filter(|id| {
        !panes
            .agents
            .iter()
            .any(|a| a.line.agent_session_id.as_deref() == Some(id.as_str()))
    });
    if let Some(id) = running_elsewhere {
        refusals.push(Refusal::RunningSession {
            session_id: id.clone(),
        });
    }
    for p in &panes.person {
        refusals.push(Refusal::PersonPane {
            pane: p.pane.clone(),
            session: p.session.clone(),
            command: p.command.clone(),
        });
    }
    if let Some(reason) = &f.locked {
        // Stale: its process is gone, or it is the agent whose own pane this removal ends.
        let lock_pid = lock_pid(reason.as_deref());
        let held_by_ended_agent = lock_pid.is_some_and(|pid| {
            panes
                .agents
                .iter()
                .any(|a| i64::from(a.line.pid) == i64::from(pid))
        });
        let stale = running_elsewhere.is_none()
            && (held_by_ended_agent || lock_is_stale(reason.as_deref()));
        refusals.push(Refusal::Locked {
            reason: reason.clone().filter(|r| !r.is_empty()),
            session_id: located.sessions.session_id.clone(),
            stale,
        });
    }
    refusals
}

/// What removing the worktree would lose, as shown: changed files, unmerged commits, and where
/// the branch tip would be archived.
struct Lost {
    changed_files: Vec<String>,
    unmerged_commits: Vec<CommitLine>,
    archive_ref: Option<String>,
}

/// Adds the refusals for the worktree's content (unchecked, unreadable, changed files,
/// submodule commits, an unknown base, unmerged commits) and says what would be lost.
fn what_would_be_lost(
    f: &Found,
    snap: &Snapshot,
    refusals: &mut Vec<Refusal>,
) -> Result<Lost, WorktreeError> {
    let summary = &snap.summary;
    let mut lost = Lost {
        changed_files: Vec::new(),
        unmerged_commits: Vec::new(),
        archive_ref: None,
    };
    if let Some(why) = &snap.unvalidated {
        refusals.push(Refusal::Unvalidated { why: why.clone() });
    } else if !f.prunable {
        if let Some(problem) = &summary.problem {
            refusals.push(Refusal::Unreadable {
                problem: problem.clone(),
            });
        }
        if !snap.changed.is_empty() {
            refusals.push(Refusal::Dirty {
                count: u32::try_from(snap.changed.len()).unwrap_or(u32::MAX),
            });
            lost.changed_files = snap.changed.iter().take(FILES_SHOWN).cloned().collect();
        }
        for sub in &snap.submodules {
            refusals.push(Refusal::SubmoduleCommits {
                submodule: sub.submodule.clone(),
                count: sub.count,
            });
        }
        let head = summary.head.as_deref().and_then(|h| Oid::from_str(h).ok());
        match (summary.base.as_deref(), head) {
            (None, Some(_)) => refusals.push(Refusal::BaseUnknown),
            (Some(_), Some(_)) if snap.unmerged.0 > 0 => {
                refusals.push(Refusal::Unmerged {
                    count: snap.unmerged.0,
                });
                lost.unmerged_commits = snap.unmerged.1.clone();
            }
            _ => {}
        }
        if let Some(head) = head {
            let repo = Repository::open(&f.path).map_err(WorktreeError::git(&f.path))?;
            lost.archive_ref = Some(archive::free_name(&repo, summary.branch.as_deref(), head));
        }
    } else if summary.head.is_none() {
        // The folder is gone; the branch may still hold commits, which the archive keeps.
        let repo = Repository::open(&f.common_dir).map_err(WorktreeError::git(&f.common_dir))?;
        if let Some(head) = prunable_head(&repo, f) {
            lost.archive_ref = Some(archive::free_name(
                &repo,
                prunable_branch(&repo, f).as_deref(),
                head,
            ));
        }
    }
    Ok(lost)
}

/// Names exactly what the preview showed: the folder, its content's fingerprint, every refusal
/// and every pane.
fn preview_token<'a>(
    path: &str,
    content: &str,
    refusals: &[Refusal],
    panes: impl Iterator<Item = &'a PaneLine>,
) -> String {
    let mut shown = format!("path {path}\ncontent {content}\n");
    for r in refusals {
        shown.push_str(&format!("refusal {}\n", r.message()));
    }
    for p in panes {
        shown.push_str(&format!(
            "pane {} {} {:?}\n",
            p.pane, p.pid, p.agent_session_id
        ));
    }
    hash_text(&shown)
}

fn loss_summary(
    path: &str,
    refusals: &[Refusal],
    files: &[String],
    commits: &[CommitLine],
    submodules: &[SubmoduleCommits],
    archive_ref: Option<&str>,
) -> String {
    if refusals.is_empty() {
        return String::new();
    }
    let mut s = format!("Removing {path}:\n");
    for r in refusals {
        // A fact the lists below give in full is not said twice (issue 34).
        let listed = match r {
            Refusal::Dirty { .. } => !files.is_empty(),
            Refusal::Unmerged { .. } => !commits.is_empty(),
            Refusal::SubmoduleCommits { submodule, .. } => {
                submodules.iter().any(|m| m.submodule == *submodule)
            }
            _ => false,
        };
        if !listed {
            s.push_str(&format!("- {}\n", r.message()));
        }
    }
    if !files.is_empty() {
        s.push_str("Changed files that will be deleted (uncommitted changes are not saved):\n");
        for f in files {
            s.push_str(&format!("  {}\n", in_words(f)));
        }
    }
    if !commits.is_empty() {
        s.push_str(match archive_ref {
            Some(_) => "Unmerged commits that will leave the branch (saved first, so they can be restored):\n",
            None => "Unmerged commits that will leave the branch:\n",
        });
        for c in commits {
            s.push_str(&format!(
                "  {} {}\n",
                &c.id[..c.id.len().min(10)],
                c.summary
            ));
        }
    }
    for sub in submodules {
        s.push_str(&format!(
            "Commits of submodule {} that will be lost:\n",
            sub.submodule
        ));
        for c in &sub.commits {
            s.push_str(&format!(
                "  {} {}\n",
                &c.id[..c.id.len().min(10)],
                c.summary
            ));
        }
    }
    s
}

/// The process id a lock reason names ("claude agent (pid 1234)").
fn lock_pid(reason: Option<&str>) -> Option<i32> {
    let reason = reason?;
    let at = reason.find("pid")?;
    let digits: String = reason[at + 3..]
        .trim_start_matches([' ', ':', '='])
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse::<i32>().ok().filter(|p| *p > 0)
}

/// A lock is stale when its reason names a process id that is not alive.
fn lock_is_stale(reason: Option<&str>) -> bool {
    let Some(pid) = lock_pid(reason) else {
        return false;
    };
    !crate::agents::records::pid_alive(pid as u32, None)
}

/// HEAD of a worktree whose folder is gone, read from its git dir.
fn prunable_head(repo: &Repository, f: &Found) -> Option<Oid> {
    let name = f.name.as_deref()?;
    let head =
        std::fs::read_to_string(f.common_dir.join("worktrees").join(name).join("HEAD")).ok()?;
    let head = head.trim();
    match head.strip_prefix("ref: ") {
        Some(r) => repo.find_reference(r).ok()?.target(),
        None => Oid::from_str(head).ok(),
    }
}

fn prunable_branch(_repo: &Repository, f: &Found) -> Option<String> {
    let name = f.name.as_deref()?;
    let head =
        std::fs::read_to_string(f.common_dir.join("worktrees").join(name).join("HEAD")).ok()?;
    head.trim()
        .strip_prefix("ref: refs/heads/")
        .map(str::to_owned)
}

impl RemovalPreview {
    /// The text of the native confirmation: what removal does (the folder, the branch, the panes
    /// it ends and leaves) and exactly what would be lost.
    pub fn confirmation_text(&self) -> String {
        let w = &self.worktree;
        let mut s = if self.loss_summary.is_empty() {
            format!(
                "Removing {} deletes its folder{}. Nothing would be lost: no changed files, no \
                 unmerged commits, no tmux pane in it.\n",
                w.path,
                w.branch
                    .as_deref()
                    .map(|b| format!(" and its branch {b}"))
                    .unwrap_or_default()
            )
        } else {
            self.loss_summary.clone()
        };
        // Each pane it ends, and each of the person's it leaves, is one of the refusal lines above.
        if let Some(r) = &self.archive_ref {
            s.push_str(&format!(
                "\nThe branch tip is saved as {r} first, so commits can be restored."
            ));
        }
        s
    }
}

/// The text of the native confirmation for "remove all clean and merged".
pub fn clean_confirmation_text(previews: &[RemovalPreview]) -> String {
    let mut s =
        format!(
        "Removes {} clean and merged {} (no changed files, no unmerged commits, no tmux pane), \
         each with its branch (its tip saved first, so it can be restored):\n",
        previews.len(),
        if previews.len() == 1 { "worktree" } else { "worktrees" }
    );
    for p in previews {
        s.push_str(&format!(
            "  {}{}\n",
            p.worktree.path,
            p.worktree
                .branch
                .as_deref()
                .map(|b| format!(" ({b})"))
                .unwrap_or_default()
        ));
    }
    s
}

/// How a removal goes.
#[derive(Debug, Clone, Default)]
pub struct RemoveOptions {
    /// The person confirmed losing what the preview listed (`--discard`, the native dialog).
    pub discard: bool,
    /// The token of the preview the person saw: removal goes ahead only while it still matches.
    pub expected: Option<String>,
    /// The tmux server to look for panes on (the default one when none).
    pub tmux_socket: Option<PathBuf>,
}

/// Removes the worktree at `path` and its branch, after saving the branch tip under
/// `refs/plandeck/archive/…`. Refuses (naming exactly what would be lost) unless every refusal is
/// confirmable and `discard` is set; refuses with [`WorktreeError::Changed`] when the preview no
/// longer matches `expected`, or when the files or commits change before the folder is deleted.
/// Ends only the agents' own panes the preview listed, each only while it is still that agent's;
/// never a tmux session, never the person's panes.
pub fn remove(
    roots: &Roots,
    path: &Path,
    opts: &RemoveOptions,
) -> Result<RemoveOutcome, WorktreeError> {
    let socket = opts.tmux_socket.as_deref();
    let (preview, checked) = preview(roots, path, socket)?;
    let refuse = |message: String| WorktreeError::Refused {
        path: path.to_owned(),
        message,
    };
    let changed = |what: &str| WorktreeError::Changed {
        path: path.to_owned(),
        what: what.to_owned(),
    };
    if let Some(expected) = &opts.expected {
        if *expected != preview.token {
            return Err(changed(
                "what removal would do or lose is not what was shown",
            ));
        }
    }
    let Some(checked) = checked else {
        return Err(refuse(preview.loss_summary.trim_end().to_owned()));
    };
    if !preview.confirmable {
        let never: Vec<String> = preview
            .refusals
            .iter()
            .filter(|r| !r.confirmable())
            .map(Refusal::message)
            .collect();
        return Err(refuse(never.join("; ")));
    }
    if !preview.refusals.is_empty() && !opts.discard {
        return Err(refuse(format!(
            "{}\nConfirm with --discard to remove it anyway.",
            preview.loss_summary.trim_end()
        )));
    }
    let f = &checked.located.found;
    let repo = Repository::open(&f.common_dir).map_err(WorktreeError::git(&f.common_dir))?;
    let (branch, head) = if f.prunable {
        (prunable_branch(&repo, f), prunable_head(&repo, f))
    } else {
        (
            preview.worktree.branch.clone(),
            preview
                .worktree
                .head
                .as_deref()
                .and_then(|h| Oid::from_str(h).ok()),
        )
    };

    // The archive comes first: if it cannot be saved, nothing is touched.
    let archive_ref = match head {
        Some(head) => Some(archive::save(
            roots,
            &repo,
            branch.as_deref(),
            head,
            &f.path,
        )?),
        None => None,
    };
    // The agents go before their folder, so they do not write into it meanwhile.
    let panes_ended: Vec<String> = checked
        .agents
        .iter()
        .filter(|a| panes::end_agent_pane(a, socket))
        .map(|a| a.line.pane.clone())
        .collect();
    // Right before deleting: the files and commits must still be what was shown.
    if f.prunable {
        if std::fs::symlink_metadata(&f.path).is_ok() {
            return Err(changed("its folder is back"));
        }
    } else if Snapshot::take(&checked.located).content() != checked.content {
        return Err(changed("its files or commits changed"));
    }
    keep::unkeep(roots, &f.path)?;
    if !f.prunable {
        std::fs::remove_dir_all(&f.path).map_err(WorktreeError::io(&f.path))?;
    }
    if let Some(name) = &f.name {
        let pruned = repo.find_worktree(name).and_then(|wt| {
            wt.prune(Some(
                WorktreePruneOptions::new()
                    .valid(true)
                    .locked(true)
                    .working_tree(false),
            ))
        });
        if let Err(e) = pruned {
            tracing::warn!("git2 prune of {name} failed ({e}); removing its metadata directly");
            let meta = f.common_dir.join("worktrees").join(name);
            if meta.exists() {
                std::fs::remove_dir_all(&meta).map_err(WorktreeError::io(&meta))?;
            }
        }
    }
    let branch_deleted = match &branch {
        Some(b) if !is_default_branch(&repo, b) => match repo.find_branch(b, BranchType::Local) {
            Ok(mut br) => {
                br.delete().map_err(WorktreeError::git(&f.common_dir))?;
                Some(b.clone())
            }
            Err(_) => None,
        },
        _ => None,
    };
    Ok(RemoveOutcome {
        removed: true,
        archive_ref,
        branch_deleted,
        tmux_session_killed: None,
        panes_ended,
    })
}

/// The default branch is never deleted with a worktree, even when a linked worktree had it out.
fn is_default_branch(repo: &Repository, branch: &str) -> bool {
    if branch == "main" || branch == "master" {
        return true;
    }
    repo.find_reference("refs/remotes/origin/HEAD")
        .ok()
        .and_then(|r| r.symbolic_target().map(str::to_owned))
        .is_some_and(|t| t.rsplit('/').next() == Some(branch))
}

/// What "remove all clean and merged" would remove in the repository at `repo`: the previews of
/// the linked worktrees that are unlocked, not kept, not in use by a running session, with no
/// changed files, no unmerged commits against a known base, no submodule commits found nowhere
/// else and no tmux pane in them (each preview has no refusal). Shown before the person confirms.
pub fn clean_removals(
    roots: &Roots,
    repo: &Path,
    tmux_socket: Option<&Path>,
) -> Result<Vec<RemovalPreview>, WorktreeError> {
    let common = list::common_dir_of(repo)?;
    let all = list::worktrees_of(&common)?;
    let hints = list::hints(roots);
    let sessions = assign_sessions(&all, &hints);
    let kept = keep::kept_set(roots)?;
    let mut out = Vec::new();
    for (f, s) in all.iter().zip(&sessions) {
        if f.is_main
            || f.locked.is_some()
            || f.prunable
            || s.running.is_some()
            || kept.contains(&canonical(&f.path))
        {
            continue;
        }
        let summary = list::summarize(f, s, &kept, false);
        let clean = summary.problem.is_none()
            && summary.changed_files == 0
            && summary.submodule_commits == 0
            && summary.unmerged_commits == Some(0);
        if !clean {
            continue;
        }
        let (p, _) = preview(roots, &f.path, tmux_socket)?;
        if p.refusals.is_empty() {
            out.push(p);
        }
    }
    Ok(out)
}

/// Removes each previewed worktree (without discarding anything) while it is still exactly what its
/// preview showed; one that changed or is refused now is skipped. Returns the removed folders.
pub fn remove_previewed(
    roots: &Roots,
    previews: &[RemovalPreview],
    tmux_socket: Option<&Path>,
) -> Result<Vec<String>, WorktreeError> {
    let mut removed = Vec::new();
    for p in previews {
        let opts = RemoveOptions {
            discard: false,
            expected: Some(p.token.clone()),
            tmux_socket: tmux_socket.map(Path::to_owned),
        };
        match remove(roots, Path::new(&p.worktree.path), &opts) {
            Ok(_) => removed.push(p.worktree.path.clone()),
            Err(WorktreeError::Refused { .. } | WorktreeError::Changed { .. }) => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(removed)
}

/// "Remove all clean and merged" for the repository at `repo` (see [`clean_removals`]), each
/// checked again right before it goes. Returns the removed folders.
pub fn remove_clean(
    roots: &Roots,
    repo: &Path,
    tmux_socket: Option<&Path>,
) -> Result<Vec<String>, WorktreeError> {
    let previews = clean_removals(roots, repo, tmux_socket)?;
    remove_previewed(roots, &previews, tmux_socket)
}
