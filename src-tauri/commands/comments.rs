//! Comments on quoted plan text: list, add, resolve, reopen, delete. Plans are named by the ids
//! discovery gave the webview, never by path.

use plandeck_core::comments::{self, NewComment, PlacedComment, Position};
use plandeck_core::ipc::IpcError;
use plandeck_core::plans;
use plandeck_core::review::log::now;
use tauri::{AppHandle, State};

use super::blocking;
use crate::AppState;

/// The plan's comments, placed in its current text.
#[tauri::command]
#[tracing::instrument(skip(state))]
pub async fn list_comments(
    state: State<'_, AppState>,
    id: String,
) -> Result<Vec<PlacedComment>, IpcError> {
    let roots = state.roots();
    blocking(move || {
        let path = plans::resolve_id(&roots, &id)?;
        Ok(comments::for_plan(&roots, &path.to_string_lossy())?.1)
    })
    .await
}

/// Comments on `quote`; `near` (a byte offset in the plan's source) picks among repeated quotes.
#[tauri::command]
#[tracing::instrument(skip(app, state, text))]
pub async fn add_comment(
    app: AppHandle,
    state: State<'_, AppState>,
    id: String,
    quote: String,
    text: String,
    near: Option<u32>,
) -> Result<PlacedComment, IpcError> {
    let roots = state.roots();
    let plan = id.clone();
    let placed = blocking(move || {
        let position = near.map_or(Position::Only, |n| Position::Near(n as usize));
        let new = NewComment {
            quote: &quote,
            text: &text,
            position,
        };
        comments::add_to_plan_id(&roots, &id, new, &now())
    })
    .await?;
    // The waiting queue shows how many open comments a decision carries.
    crate::live::emit(&app, comments::CommentsChanged { plan: Some(plan) });
    Ok(placed)
}

/// `resolve`, `reopen` or `delete` comment `comment_id`.
#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn change_comment(
    app: AppHandle,
    state: State<'_, AppState>,
    comment_id: String,
    action: comments::CommentAction,
) -> Result<(), IpcError> {
    let roots = state.roots();
    blocking(move || Ok(comments::change(&roots.data, &comment_id, action, &now())?)).await?;
    crate::live::emit(&app, comments::CommentsChanged::default());
    Ok(())
}

/// The plan's review as Markdown ("Copy review as Markdown"): its title, each comment with its
/// quote and status, and the latest decision.
#[tauri::command]
#[tracing::instrument(skip(state))]
pub async fn review_markdown(state: State<'_, AppState>, id: String) -> Result<String, IpcError> {
    let roots = state.roots();
    blocking(move || {
        let path = plans::resolve_id(&roots, &id)?;
        comments::review_markdown(&roots, &path.to_string_lossy())
    })
    .await
}
