//! Comments: a reviewer's remarks on quoted parts of a plan, kept across the plan's revisions and
//! carried to the agent with a decision.
//!
//! - [`anchor`]: a comment's quote and surroundings, and where they are in another version.
//! - [`feedback`]: the plain-text layout in which comments reach the agent.
//! - [`export`]: "Copy review as Markdown".
//!
//! A plan's comments live in the store, one JSON file per plan (`comments/<hash of the plan key>.json`),
//! rewritten atomically under the store lock. Each comment keeps the version it was made on; its
//! status in any version is computed, never stored: `resolved` when the reviewer resolved it,
//! otherwise `open` when its text is found (kept, moved or changed) and `outdated` when it is gone.
//! Nothing is dropped silently: only [`delete`] removes a comment.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::durable;
use crate::review::{self, store, ReviewError};

pub mod anchor;
pub mod export;
pub mod feedback;

pub use anchor::{Anchor, AnchorError, Placement, Position};

/// The most comments one plan keeps: a review, not a chat.
pub const MAX_COMMENTS_PER_PLAN: usize = 1000;
/// The longest comment text.
pub const MAX_COMMENT_BYTES: usize = 16 * 1024;

/// A comment as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Comment {
    /// `c` + 12 hex digits, unique in the store.
    pub id: String,
    /// The plan file the comment is on (the store's plan key).
    pub plan_path: String,
    /// The hash of the plan version the comment was made on.
    pub version: String,
    pub anchor: Anchor,
    pub text: String,
    /// RFC 3339 UTC.
    pub created_at: String,
    pub author: String,
    /// Set when the reviewer resolved it.
    #[serde(default)]
    pub resolved_at: Option<String>,
    /// The decisions that carried this comment to the agent (their times), oldest first.
    #[serde(default)]
    pub sent_with: Vec<String>,
}

/// A comment's status in a given version of its plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum CommentStatus {
    Open,
    Outdated,
    Resolved,
}

/// A comment placed in one version of its plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PlacedComment {
    #[serde(flatten)]
    pub comment: Comment,
    pub status: CommentStatus,
    pub placement: Placement,
    /// 1-based line of the comment's text in this version, when it is there.
    pub line: Option<u32>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct CommentFile {
    path: PathBuf,
    comments: Vec<Comment>,
}

/// Why a comment could not be made, changed or found.
#[derive(Debug, thiserror::Error)]
pub enum CommentError {
    #[error(transparent)]
    Anchor(#[from] AnchorError),
    #[error("the comment is empty")]
    EmptyText,
    #[error("the comment is {len} bytes; at most {MAX_COMMENT_BYTES}")]
    TextTooLong { len: usize },
    #[error("the plan already has {MAX_COMMENTS_PER_PLAN} comments")]
    TooMany,
    #[error("no comment {id}")]
    NotFound { id: String },
    #[error(transparent)]
    Review(#[from] ReviewError),
    #[error("the comments of {path} are damaged ({message}); they were left as they are")]
    Damaged { path: PathBuf, message: String },
}

impl From<CommentError> for crate::ipc::IpcError {
    fn from(e: CommentError) -> Self {
        use crate::ipc::ErrorKind;
        let message = e.to_string();
        let kind = match e {
            CommentError::Review(r) => return r.into(),
            CommentError::NotFound { .. } | CommentError::Anchor(AnchorError::NotFound) => {
                ErrorKind::NotFound
            }
            CommentError::Anchor(_)
            | CommentError::EmptyText
            | CommentError::TextTooLong { .. }
            | CommentError::TooMany => ErrorKind::BadInput,
            CommentError::Damaged { .. } => ErrorKind::Io,
        };
        Self::new(kind, message)
    }
}

/// TypeScript declarations of the types this module sends over IPC.
/// The event payload when a comment is added, resolved, reopened or deleted: the plan's id (the
/// waiting queue recounts the comments a decision carries; the comments panel of that plan reloads).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CommentsChanged {
    pub plan: Option<String>,
}

pub(crate) fn ts_declarations() -> Vec<String> {
    vec![
        <CommentsChanged as TS>::decl(),
        <Anchor as TS>::decl(),
        <Placement as TS>::decl(),
        <Comment as TS>::decl(),
        <CommentStatus as TS>::decl(),
        <PlacedComment as TS>::decl(),
        <CommentAction as TS>::decl(),
    ]
}

fn comments_dir(data: &Path) -> PathBuf {
    data.join("comments")
}

fn file_for(data: &Path, plan: &Path) -> PathBuf {
    comments_dir(data).join(format!(
        "{}.json",
        store::hash(plan.as_os_str().as_encoded_bytes())
    ))
}

fn read_file(data: &Path, plan: &Path) -> Result<CommentFile, CommentError> {
    let path = file_for(data, plan);
    match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| CommentError::Damaged {
            path,
            message: e.to_string(),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(CommentFile {
            path: plan.to_owned(),
            comments: Vec::new(),
        }),
        Err(source) => Err(ReviewError::Read { path, source }.into()),
    }
}

fn write_file(data: &Path, plan: &Path, file: &CommentFile) -> Result<(), CommentError> {
    let mut json =
        serde_json::to_vec_pretty(file).map_err(|e| ReviewError::Internal(e.to_string()))?;
    json.push(b'\n');
    durable::write_private(&file_for(data, plan), &json).map_err(ReviewError::from)?;
    Ok(())
}

/// What a new comment says and where it goes.
#[derive(Debug, Clone)]
pub struct NewComment<'a> {
    pub quote: &'a str,
    pub text: &'a str,
    pub position: Position,
}

/// Adds a comment on `quote` in the plan's current text `content` (which the caller read from the
/// plan file) and records that version in the store.
pub fn add(
    data: &Path,
    plan: &Path,
    content: &str,
    new: NewComment<'_>,
    now: &str,
) -> Result<PlacedComment, CommentError> {
    let text = new.text.trim();
    if text.is_empty() {
        return Err(CommentError::EmptyText);
    }
    if text.len() > MAX_COMMENT_BYTES {
        return Err(CommentError::TextTooLong { len: text.len() });
    }
    let anchor = anchor::create(content, new.quote, new.position)?;
    let plan = store::plan_key(plan);
    let _lock = store::lock(data)?;
    let version = store::put_version(data, content.as_bytes())?;
    let mut file = read_file(data, &plan)?;
    if file.comments.len() >= MAX_COMMENTS_PER_PLAN {
        return Err(CommentError::TooMany);
    }
    let id = format!(
        "c{}",
        crate::ids::short_hash(
            format!("{}\0{now}\0{}\0{}", plan.display(), anchor.start, text).as_bytes()
        )
    );
    let id = unique_id(&file, id);
    let comment = Comment {
        id,
        plan_path: plan.display().to_string(),
        version,
        anchor,
        text: text.to_owned(),
        created_at: now.to_owned(),
        author: review::log::reviewer(),
        resolved_at: None,
        sent_with: Vec::new(),
    };
    file.path = plan.clone();
    file.comments.push(comment.clone());
    write_file(data, &plan, &file)?;
    Ok(place(comment, content))
}

fn unique_id(file: &CommentFile, id: String) -> String {
    let mut candidate = id.clone();
    let mut n = 1;
    while file.comments.iter().any(|c| c.id == candidate) {
        candidate = format!("{id}-{n}");
        n += 1;
    }
    candidate
}

/// The comments of `plan`, placed in `content` (its current text), in the order of their place in
/// it; outdated ones after the open ones, resolved last.
pub fn list(data: &Path, plan: &Path, content: &str) -> Result<Vec<PlacedComment>, CommentError> {
    let plan = store::plan_key(plan);
    let file = read_file(data, &plan)?;
    let mut placed: Vec<PlacedComment> = file
        .comments
        .into_iter()
        .map(|c| place(c, content))
        .collect();
    placed.sort_by_key(|p| {
        let rank = match p.status {
            CommentStatus::Open => 0,
            CommentStatus::Outdated => 1,
            CommentStatus::Resolved => 2,
        };
        (
            rank,
            p.placement.range().map_or(usize::MAX, |r| r.0),
            p.comment.created_at.clone(),
        )
    });
    Ok(placed)
}

/// A comment placed in `content`.
pub fn place(comment: Comment, content: &str) -> PlacedComment {
    let placement = anchor::locate(&comment.anchor, content);
    let status = if comment.resolved_at.is_some() {
        CommentStatus::Resolved
    } else if placement == Placement::Gone {
        CommentStatus::Outdated
    } else {
        CommentStatus::Open
    };
    let line = placement
        .range()
        .map(|(start, _)| content[..start].bytes().filter(|b| *b == b'\n').count() as u32 + 1);
    PlacedComment {
        comment,
        status,
        placement,
        line,
    }
}

/// The plan a comment file names, for `id_or_path` (a plan id or path) even when the plan file is
/// gone: its comments stay listed (as outdated) until deleted.
pub fn commented_plan(data: &Path, id_or_path: &str) -> Option<PathBuf> {
    let entries = std::fs::read_dir(comments_dir(data)).ok()?;
    entries.flatten().find_map(|entry| {
        let bytes = std::fs::read(entry.path()).ok()?;
        let file = serde_json::from_slice::<CommentFile>(&bytes).ok()?;
        let matches = crate::ids::plan_id(&file.path) == id_or_path
            || file.path == Path::new(id_or_path)
            || store::plan_key(Path::new(id_or_path)) == file.path;
        matches.then_some(file.path)
    })
}

/// The comments of the plan `target` (an id or path), placed in its current text: the window's
/// and the CLI's one call. A plan file that is gone keeps its comments, all outdated.
pub fn for_plan(
    roots: &crate::config::Roots,
    target: &str,
) -> Result<(PathBuf, Vec<PlacedComment>), crate::ipc::IpcError> {
    let path = match crate::plans::resolve(roots, target) {
        Ok(path) => path,
        Err(e) => commented_plan(&roots.data, target).ok_or(e)?,
    };
    let content = match store::read_plan(&path) {
        Ok(c) => c,
        Err(ReviewError::Read { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
            String::new()
        }
        Err(e) => return Err(e.into()),
    };
    let placed = list(&roots.data, &path, &content)?;
    Ok((path, placed))
}

/// The review of the plan `target` (an id or path) as Markdown ([`export::review_markdown`]):
/// its comments placed in its current text, and the latest decision on it. The window's "Copy
/// review as Markdown" and `plandeck comments <plan> --markdown`.
pub fn review_markdown(
    roots: &crate::config::Roots,
    target: &str,
) -> Result<String, crate::ipc::IpcError> {
    let (path, placed) = for_plan(roots, target)?;
    let content = store::read_plan(&path).unwrap_or_default();
    let decisions = crate::review::log(roots, Some(&path))?;
    Ok(export::review_markdown(
        &path,
        &content,
        &placed,
        decisions.first(),
    ))
}

/// Adds a comment to the plan `target` (an id or path: the CLI's form) as its file holds it now.
pub fn add_to_plan(
    roots: &crate::config::Roots,
    target: &str,
    new: NewComment<'_>,
    now: &str,
) -> Result<PlacedComment, crate::ipc::IpcError> {
    add_to_file(roots, &crate::plans::resolve(roots, target)?, new, now)
}

/// Adds a comment to the plan discovery listed under `id` (the window's form: never a path).
pub fn add_to_plan_id(
    roots: &crate::config::Roots,
    id: &str,
    new: NewComment<'_>,
    now: &str,
) -> Result<PlacedComment, crate::ipc::IpcError> {
    add_to_file(roots, &crate::plans::resolve_id(roots, id)?, new, now)
}

fn add_to_file(
    roots: &crate::config::Roots,
    path: &Path,
    new: NewComment<'_>,
    now: &str,
) -> Result<PlacedComment, crate::ipc::IpcError> {
    let path = path.to_path_buf();
    let content = store::read_plan(&path)?;
    add(&roots.data, &path, &content, new, now).map_err(|e| {
        let mut err = crate::ipc::IpcError::from(e);
        err.message = format!("{}: {}", path.display(), err.message);
        err
    })
}

/// Finds comment `id` in the store: the plan it is on, and the comment.
pub fn find(data: &Path, id: &str) -> Result<(PathBuf, Comment), CommentError> {
    let dir = comments_dir(data);
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(_) => return Err(CommentError::NotFound { id: id.to_owned() }),
    };
    for entry in entries.flatten() {
        let Ok(bytes) = std::fs::read(entry.path()) else {
            continue;
        };
        let Ok(file) = serde_json::from_slice::<CommentFile>(&bytes) else {
            continue;
        };
        if let Some(c) = file.comments.into_iter().find(|c| c.id == id) {
            return Ok((file.path, c));
        }
    }
    Err(CommentError::NotFound { id: id.to_owned() })
}

fn update(
    data: &Path,
    id: &str,
    change: impl FnOnce(&mut Vec<Comment>, usize),
) -> Result<(), CommentError> {
    let _lock = store::lock(data)?;
    let (plan, _) = find(data, id)?;
    let mut file = read_file(data, &plan)?;
    let i = file
        .comments
        .iter()
        .position(|c| c.id == id)
        .ok_or_else(|| CommentError::NotFound { id: id.to_owned() })?;
    change(&mut file.comments, i);
    write_file(data, &plan, &file)
}

/// What a reviewer can do to a comment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum CommentAction {
    Resolve,
    Reopen,
    Delete,
}

/// Applies `action` to comment `id`.
pub fn change(data: &Path, id: &str, action: CommentAction, now: &str) -> Result<(), CommentError> {
    match action {
        CommentAction::Resolve => resolve(data, id, now),
        CommentAction::Reopen => reopen(data, id),
        CommentAction::Delete => delete(data, id),
    }
}

/// Marks comment `id` resolved (it stays, shown as resolved).
pub fn resolve(data: &Path, id: &str, now: &str) -> Result<(), CommentError> {
    update(data, id, |comments, i| {
        comments[i]
            .resolved_at
            .get_or_insert_with(|| now.to_owned());
    })
}

/// Opens a resolved comment again.
pub fn reopen(data: &Path, id: &str) -> Result<(), CommentError> {
    update(data, id, |comments, i| comments[i].resolved_at = None)
}

/// Deletes comment `id`: the one way a comment goes away.
pub fn delete(data: &Path, id: &str) -> Result<(), CommentError> {
    update(data, id, |comments, i| {
        comments.remove(i);
    })
}

/// Records that the comments `ids` went to the agent with the decision made at `decided_at`.
pub fn mark_sent(
    data: &Path,
    plan: &Path,
    ids: &[String],
    decided_at: &str,
) -> Result<(), CommentError> {
    update_sent(data, plan, ids, |sent| sent.push(decided_at.to_owned()))
}

/// Takes back [`mark_sent`]: comments `ids` no longer went with the decision made at
/// `decided_at` (a decision recorded only, undone).
pub fn unmark_sent(
    data: &Path,
    plan: &Path,
    ids: &[String],
    decided_at: &str,
) -> Result<(), CommentError> {
    update_sent(data, plan, ids, |sent| {
        if let Some(i) = sent.iter().rposition(|t| t == decided_at) {
            sent.remove(i);
        }
    })
}

/// Changes the `sent_with` list of each of the comments `ids` of `plan`, under the store's lock.
fn update_sent(
    data: &Path,
    plan: &Path,
    ids: &[String],
    mut change: impl FnMut(&mut Vec<String>),
) -> Result<(), CommentError> {
    if ids.is_empty() {
        return Ok(());
    }
    let plan = store::plan_key(plan);
    let _lock = store::lock(data)?;
    let mut file = read_file(data, &plan)?;
    for c in file.comments.iter_mut().filter(|c| ids.contains(&c.id)) {
        change(&mut c.sent_with);
    }
    write_file(data, &plan, &file)
}

/// The open comments of `plan` in `content`, in plan order: what a decision carries.
pub fn open_for_decision(
    data: &Path,
    plan: &Path,
    content: &str,
) -> Result<Vec<PlacedComment>, CommentError> {
    Ok(list(data, plan, content)?
        .into_iter()
        .filter(|c| c.status == CommentStatus::Open)
        .collect())
}

/// What a decision sends to the agent, with the comments it carries.
#[derive(Debug, Clone, PartialEq)]
pub struct Outgoing {
    /// The rejection's feedback, or the approved plan text with its "Reviewer notes".
    pub text: String,
    /// The comments carried (to mark as sent once the decision is made).
    pub ids: Vec<String>,
    /// What the decision log records as sent: the feedback, or the "Reviewer notes" section.
    pub logged: String,
}

/// The feedback a rejection of `plan` (holding `content`) sends: the typed words, then every
/// open comment with its quote ([`feedback::rejection`]). `include: false` sends the typed words
/// alone.
pub fn rejection(
    data: &Path,
    plan: &Path,
    content: &str,
    typed: &str,
    include: bool,
) -> Result<Outgoing, CommentError> {
    let open = if include {
        open_for_decision(data, plan, content)?
    } else {
        Vec::new()
    };
    let text = feedback::rejection(typed, &open);
    Ok(Outgoing {
        logged: text.clone(),
        text,
        ids: open.into_iter().map(|c| c.comment.id).collect(),
    })
}

/// The plan text an approval of `plan` sends when it has open comments ("approve with notes"):
/// `approved` (the file's text, or the reviewer's edit) with a "Reviewer notes" section. `None`
/// when there is nothing to add, so a plain approval stays plain.
pub fn approval_with_notes(
    data: &Path,
    plan: &Path,
    content: &str,
    approved: &str,
    include: bool,
) -> Result<Option<Outgoing>, CommentError> {
    if !include {
        return Ok(None);
    }
    let open = open_for_decision(data, plan, content)?;
    if open.is_empty() {
        return Ok(None);
    }
    Ok(Some(Outgoing {
        text: feedback::plan_with_notes(approved, &open),
        logged: feedback::notes_section(&open),
        ids: open.into_iter().map(|c| c.comment.id).collect(),
    }))
}

/// Approves `plan` as [`review::approve`] does (no agent waits: the decision is recorded), with
/// its open comments (unless `include` is false) as the decision's "Reviewer notes": recorded in
/// its log line (`feedback`), never written into the plan file, which gets exactly the person's
/// edit, or nothing. The comments carried are marked sent.
/// `by`: who decided, from where ([`review::Decision::decided_by`]).
pub fn approve(
    roots: &crate::config::Roots,
    plan: &Path,
    mut req: review::ApproveRequest,
    include: bool,
    by: Option<&str>,
) -> Result<review::Decision, crate::ipc::IpcError> {
    let content = store::read_plan(plan)?;
    let current = store::hash(content.as_bytes());
    // A plain approval of a version no longer on disk is refused as review::approve refuses it.
    let seen_changed =
        req.edited.is_none() && req.started_from.as_ref().is_some_and(|h| *h != current);
    let base = req.edited.clone().unwrap_or_else(|| content.clone());
    let notes = if seen_changed {
        None
    } else {
        approval_with_notes(&roots.data, plan, &content, &base, include)?
    };
    // The notes go with the decision (its log line), never into the plan file: an edit writes
    // exactly the person's text, a plain approval writes nothing.
    if notes.is_some() && req.edited.is_some() {
        req.started_from = Some(req.started_from.unwrap_or(current));
    }
    let mut decision = review::decide::approve_unlogged(roots, plan, req, None)?;
    if let Some(notes) = &notes {
        decision.comments = notes.ids.clone();
        decision.feedback = Some(notes.logged.clone());
    }
    decision.decided_by = by.map(str::to_owned);
    review::decide::append_decision(roots, &decision)?;
    if let Some(notes) = notes {
        mark_sent(
            &roots.data,
            plan,
            &notes.ids,
            &crate::timestamp::format(decision.time),
        )?;
    }
    Ok(decision)
}

/// Rejects `plan` as [`review::reject_seen`] does, with the typed feedback followed by every open
/// comment and its quote (unless `include` is false). The comments carried are marked sent.
/// `by`: who decided, from where ([`review::Decision::decided_by`]).
pub fn reject(
    roots: &crate::config::Roots,
    plan: &Path,
    typed: &str,
    who: (Option<crate::agents::Agent>, Option<String>),
    seen: Option<&str>,
    include: bool,
    by: Option<&str>,
) -> Result<review::Decision, crate::ipc::IpcError> {
    let content = store::read_plan(plan)?;
    let out = rejection(&roots.data, plan, &content, typed, include)?;
    let mut decision =
        review::decide::reject_unlogged(roots, plan, &out.text, who.0, who.1, seen, None)?;
    decision.comments = out.ids.clone();
    decision.decided_by = by.map(str::to_owned);
    review::decide::append_decision(roots, &decision)?;
    mark_sent(
        &roots.data,
        plan,
        &out.ids,
        &crate::timestamp::format(decision.time),
    )?;
    Ok(decision)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: &str = "2026-11-23T10:00:00Z";
    const V1: &str =
        "# Plan\n\n1. Add `page` to `GET /items`.\n2. Return a `Link` header.\n3. Test it.\n";

    fn add_on(data: &Path, plan: &Path, content: &str, quote: &str, text: &str) -> PlacedComment {
        add(
            data,
            plan,
            content,
            NewComment {
                quote,
                text,
                position: Position::Only,
            },
            NOW,
        )
        .unwrap()
    }

    #[test]
    fn comments_follow_the_plan_across_versions() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("store");
        let plan = dir.path().join("plan.md");
        std::fs::write(&plan, V1).unwrap();
        let kept = add_on(
            &data,
            &plan,
            V1,
            "Add `page` to `GET /items`.",
            "also per_page",
        );
        let gone = add_on(
            &data,
            &plan,
            V1,
            "Return a `Link` header.",
            "RFC 8288 please",
        );
        assert_eq!(kept.status, CommentStatus::Open);
        assert_eq!(kept.line, Some(3));
        assert_eq!(kept.comment.version, store::hash(V1.as_bytes()));

        let v2 = "# Plan\n\nIntro.\n\n1. Add `page` to `GET /items`.\n2. Test it.\n";
        let listed = list(&data, &plan, v2).unwrap();
        assert_eq!(listed.len(), 2, "nothing is dropped");
        assert_eq!(listed[0].comment.id, kept.comment.id);
        assert_eq!(listed[0].status, CommentStatus::Open);
        assert!(matches!(listed[0].placement, Placement::Moved { .. }));
        assert_eq!(listed[0].line, Some(5));
        assert_eq!(listed[1].comment.id, gone.comment.id);
        assert_eq!(listed[1].status, CommentStatus::Outdated);

        resolve(&data, &gone.comment.id, NOW).unwrap();
        assert_eq!(
            list(&data, &plan, v2).unwrap()[1].status,
            CommentStatus::Resolved
        );
        reopen(&data, &gone.comment.id).unwrap();
        assert_eq!(open_for_decision(&data, &plan, v2).unwrap().len(), 1);

        mark_sent(&data, &plan, std::slice::from_ref(&kept.comment.id), NOW).unwrap();
        let (_, c) = find(&data, &kept.comment.id).unwrap();
        assert_eq!(c.sent_with, vec![NOW.to_owned()]);

        delete(&data, &gone.comment.id).unwrap();
        assert_eq!(list(&data, &plan, v2).unwrap().len(), 1);
        assert!(matches!(
            delete(&data, &gone.comment.id),
            Err(CommentError::NotFound { .. })
        ));
    }

    #[test]
    fn decisions_carry_open_comments_only() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("store");
        let plan = dir.path().join("plan.md");
        let open = add_on(&data, &plan, V1, "Test it.", "which cases?\nall of them");
        let done = add_on(&data, &plan, V1, "Return a `Link` header.", "fine");
        resolve(&data, &done.comment.id, NOW).unwrap();
        add_on(&data, &plan, V1, "Add `page` to `GET /items`.", "gone soon");
        let v2 = V1.replace("1. Add `page` to `GET /items`.\n", "");

        let out = rejection(&data, &plan, &v2, "Not yet.", true).unwrap();
        assert_eq!(out.ids, vec![open.comment.id.clone()]);
        assert!(
            out.text.starts_with("Not yet.\n\nComment on the plan (1)"),
            "{}",
            out.text
        );
        assert!(out
            .text
            .contains("On \"Test it.\":\n   which cases?\n   all of them"));
        assert!(!out.text.contains("fine") && !out.text.contains("gone soon"));
        assert_eq!(
            rejection(&data, &plan, &v2, "Not yet.", false)
                .unwrap()
                .text,
            "Not yet."
        );

        let notes = approval_with_notes(&data, &plan, &v2, &v2, true)
            .unwrap()
            .unwrap();
        assert!(notes.text.starts_with(v2.trim_end()));
        assert!(notes
            .text
            .contains("## Reviewer notes\n\n1. On \"Test it.\""));
        assert_eq!(
            approval_with_notes(&data, &plan, &v2, &v2, false).unwrap(),
            None
        );
        resolve(&data, &open.comment.id, NOW).unwrap();
        assert_eq!(
            approval_with_notes(&data, &plan, &v2, &v2, true).unwrap(),
            None
        );
    }

    /// Issue 34: an edit-and-approve with open comments writes exactly the person's edit into the
    /// plan file; the notes go with the decision (its log line), not into the file.
    #[test]
    fn edit_and_approve_with_comments_writes_only_the_edit_and_logs_the_notes() {
        let dir = tempfile::tempdir().unwrap();
        let roots = crate::config::Roots::under_home(dir.path());
        let plans = roots.claude.join("plans");
        std::fs::create_dir_all(&plans).unwrap();
        let plan = plans.join("p.md");
        std::fs::write(&plan, V1).unwrap();
        let open = add_on(&roots.data, &plan, V1, "Test it.", "which cases?");
        let edited = "# Plan\n\n1. Add `page` to `GET /items`.\n2. Test it.\n3. Ship.";
        let d = approve(
            &roots,
            &plan,
            review::ApproveRequest {
                edited: Some(edited.to_owned()),
                started_from: Some(store::hash(V1.as_bytes())),
                ..Default::default()
            },
            true,
            Some("me"),
        )
        .unwrap();
        assert_eq!(std::fs::read(&plan).unwrap(), edited.as_bytes());
        assert_eq!(d.comments, vec![open.comment.id.clone()]);
        let logged = review::decide::log(&roots, Some(&plan)).unwrap();
        let notes = logged.last().unwrap().feedback.clone().unwrap();
        assert!(
            notes.starts_with("## Reviewer notes\n\n1. On \"Test it.\":\n   which cases?"),
            "{notes}"
        );

        // A plain approval with notes writes nothing: the file stays as it was.
        let plain = plans.join("q.md");
        std::fs::write(&plain, V1).unwrap();
        add_on(&roots.data, &plain, V1, "Test it.", "all of them");
        let d = approve(
            &roots,
            &plain,
            review::ApproveRequest::default(),
            true,
            None,
        )
        .unwrap();
        assert_eq!(std::fs::read_to_string(&plain).unwrap(), V1);
        assert!(d.feedback.unwrap().contains("all of them"));
    }

    #[test]
    fn bad_comments_are_refused_with_a_reason() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("store");
        let plan = dir.path().join("plan.md");
        let new = |quote, text| NewComment {
            quote,
            text,
            position: Position::Only,
        };
        assert!(matches!(
            add(&data, &plan, V1, new("nowhere", "x"), NOW),
            Err(CommentError::Anchor(AnchorError::NotFound))
        ));
        assert!(matches!(
            add(&data, &plan, V1, new("Test it.", "  "), NOW),
            Err(CommentError::EmptyText)
        ));
        let long = "x".repeat(MAX_COMMENT_BYTES + 1);
        assert!(matches!(
            add(&data, &plan, V1, new("Test it.", &long), NOW),
            Err(CommentError::TextTooLong { .. })
        ));
        // Nothing was written by the refusals.
        assert!(list(&data, &plan, V1).unwrap().is_empty());
    }

    #[test]
    fn two_hundred_comments_and_a_damaged_file() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("store");
        let plan = dir.path().join("plan.md");
        let content: String = (0..200).map(|i| format!("- step {i:03}\n")).collect();
        for i in 0..200 {
            add_on(
                &data,
                &plan,
                &content,
                &format!("- step {i:03}"),
                &format!("note {i}"),
            );
        }
        let listed = list(&data, &plan, &content).unwrap();
        assert_eq!(listed.len(), 200);
        assert!(listed.iter().all(|c| c.status == CommentStatus::Open));
        let ids: std::collections::HashSet<_> = listed.iter().map(|c| &c.comment.id).collect();
        assert_eq!(ids.len(), 200, "ids are unique");

        std::fs::write(file_for(&data, &store::plan_key(&plan)), "{damaged").unwrap();
        let err = list(&data, &plan, &content).unwrap_err();
        assert!(matches!(err, CommentError::Damaged { .. }), "{err}");
        // A damaged file is not overwritten by a new comment.
        assert!(add(
            &data,
            &plan,
            &content,
            NewComment {
                quote: "- step 001",
                text: "x",
                position: Position::Only
            },
            NOW
        )
        .is_err());
    }
}
