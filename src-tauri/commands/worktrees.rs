//! Worktrees: list, keep, remove (with a native confirmation when work would be lost), restore.

use plandeck_core::ipc::{ErrorKind, IpcError};
use plandeck_core::live::WorktreesChanged;
use plandeck_core::worktrees::{self, RemoveOutcome, WorktreeSummary};
use tauri::{AppHandle, State};

use super::blocking;
use crate::AppState;

#[tauri::command]
#[tracing::instrument(skip_all)]
pub async fn list_worktrees(
    app: AppHandle,
    state: State<'_, AppState>,
) -> Result<Vec<WorktreeSummary>, IpcError> {
    // Sizes are not walked here: known ones are filled in, the others come as `worktrees:size`
    // (the window keeps a size that arrives before the listing does).
    let live = state.worktrees(crate::live::forward(app));
    blocking(move || Ok(live.list()?)).await
}

/// Keeps the worktree whose listed id is `id` (the webview passes ids, never paths).
#[tauri::command]
#[tracing::instrument(skip(state))]
pub async fn keep_worktree(state: State<'_, AppState>, id: String) -> Result<(), IpcError> {
    let roots = state.roots();
    blocking(move || {
        let path = worktrees::resolve_id(&roots, &id)?;
        Ok(worktrees::keep(&roots, &path)?)
    })
    .await
}

/// Forgets the Keep choice for the worktree whose listed id is `id` (nothing on disk changes).
#[tauri::command]
#[tracing::instrument(skip(state))]
pub async fn unkeep_worktree(state: State<'_, AppState>, id: String) -> Result<(), IpcError> {
    let roots = state.roots();
    blocking(move || {
        let path = worktrees::resolve_id(&roots, &id)?;
        Ok(worktrees::unkeep(&roots, &path)?)
    })
    .await
}

/// The changed files (status in words) and unmerged commits behind a worktree row's counts.
#[tauri::command]
#[tracing::instrument(skip(state))]
pub async fn worktree_details(
    state: State<'_, AppState>,
    id: String,
) -> Result<worktrees::WorktreeDetails, IpcError> {
    let roots = state.roots();
    blocking(move || {
        let path = worktrees::resolve_id(&roots, &id)?;
        Ok(worktrees::details(&roots, &path)?)
    })
    .await
}

/// Removes the worktree whose listed id is `id`, after a native dialog showing what it does: the
/// folder and branch, each agent pane it ends, each of the person's panes it leaves, and exactly
/// what would be lost (changed files, unmerged or submodule commits, an unknown base), in which
/// case only "Discard and remove" goes on (Cancel on the left, the action on the right:
/// `confirm.rs`). The removal then goes ahead only while the worktree is
/// still what the dialog showed (its preview token), else it is refused as a conflict. What can
/// never be removed (the main worktree, a path that is not a listed worktree, a folder git cannot
/// validate) is refused outright.
#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn remove_worktree(
    app: AppHandle,
    state: State<'_, AppState>,
    id: String,
) -> Result<RemoveOutcome, IpcError> {
    let roots = state.roots();
    let r = roots.clone();
    let (path, preview) = blocking(move || {
        let path = worktrees::resolve_id(&r, &id)?;
        let preview = worktrees::removal_preview(&r, &path, None)?;
        Ok((path, preview))
    })
    .await?;
    if !preview.confirmable {
        let why: Vec<String> = preview.refusals.iter().map(|r| r.message()).collect();
        return Err(IpcError::new(
            ErrorKind::Refused,
            format!("{} cannot be removed: {}", path.display(), why.join("; ")),
        ));
    }
    // Every removal is confirmed in a native dialog showing what it does; when something would be
    // lost, the button says so.
    let discard = !preview.refusals.is_empty();
    let ask = crate::confirm::Confirm {
        title: format!("Remove {}?", path.display()),
        text: preview.confirmation_text(),
        warning: discard,
        action: if discard {
            "Discard and remove"
        } else {
            "Remove worktree"
        }
        .into(),
    };
    let asked = app.clone();
    let confirmed = blocking(move || Ok(crate::confirm::ask(&asked, ask))).await?;
    if !confirmed {
        return Ok(RemoveOutcome {
            removed: false,
            archive_ref: None,
            branch_deleted: None,
            tmux_session_killed: None,
            panes_ended: Vec::new(),
        });
    }
    let opts = worktrees::RemoveOptions {
        discard,
        expected: Some(preview.token),
        tmux_socket: None,
    };
    let outcome = blocking(move || Ok(worktrees::remove(&roots, &path, &opts)?)).await;
    // Removed or refused because it changed: either way the list shows the new state.
    crate::live::emit(&app, WorktreesChanged::default());
    outcome
}

/// "Remove all clean and merged" for the repository whose listed id is `repo_id`: a native dialog
/// names each worktree it would remove; each goes only while it is still what the dialog showed.
#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn remove_clean_worktrees(
    app: AppHandle,
    state: State<'_, AppState>,
    repo_id: String,
) -> Result<Vec<String>, IpcError> {
    let roots = state.roots();
    let r = roots.clone();
    let (repo, previews) = blocking(move || {
        let repo = worktrees::resolve_repo_id(&r, &repo_id)?;
        let previews = worktrees::clean_removals(&r, &repo, None)?;
        Ok((repo, previews))
    })
    .await?;
    if previews.is_empty() {
        return Ok(Vec::new());
    }
    let ask = crate::confirm::Confirm {
        title: format!(
            "Remove {} clean and merged worktrees of {}?",
            previews.len(),
            repo.display()
        ),
        text: worktrees::clean_confirmation_text(&previews),
        warning: false,
        action: if previews.len() == 1 {
            "Remove worktree".to_owned()
        } else {
            format!("Remove {} worktrees", previews.len())
        },
    };
    let asked = app.clone();
    let confirmed = blocking(move || Ok(crate::confirm::ask(&asked, ask))).await?;
    if !confirmed {
        return Ok(Vec::new());
    }
    let removed =
        blocking(move || Ok(worktrees::remove_previewed(&roots, &previews, None)?)).await?;
    crate::live::emit(&app, WorktreesChanged::default());
    Ok(removed)
}

#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn restore_worktree(
    app: AppHandle,
    state: State<'_, AppState>,
    repo_id: String,
    archive_ref: String,
) -> Result<String, IpcError> {
    let roots = state.roots();
    let branch = blocking(move || {
        let repo = worktrees::resolve_repo_id(&roots, &repo_id)?;
        Ok(worktrees::restore(&roots, &repo, &archive_ref)?)
    })
    .await?;
    crate::live::emit(&app, WorktreesChanged::default());
    Ok(branch)
}
