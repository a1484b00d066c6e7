//! Comments on quoted plan text: list, add, change (edit, resolve, reopen, delete), and the review
//! as markdown. Each command is one call on core's deck.

use plandeck_core::comments::{CommentAction, PlacedComment};
use plandeck_core::ipc::IpcError;
use tauri::{AppHandle, State};

use super::blocking;
use crate::AppState;

#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn list_comments(
    app: AppHandle,
    state: State<'_, AppState>,
    id: String,
) -> Result<Vec<PlacedComment>, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.list_comments(&id)).await
}

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
    let deck = state.deck(&app);
    blocking(move || deck.add_comment(&id, &quote, &text, near)).await
}

#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn change_comment(
    app: AppHandle,
    state: State<'_, AppState>,
    comment_id: String,
    action: CommentAction,
) -> Result<(), IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.change_comment(&comment_id, action)).await
}

#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn review_markdown(
    app: AppHandle,
    state: State<'_, AppState>,
    id: String,
) -> Result<String, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.review_markdown(&id)).await
}
