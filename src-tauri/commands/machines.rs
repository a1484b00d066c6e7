//! Other machines (`plandeck hosts`): listed with how each is, added, removed, tried again. Each
//! command is one call on core's deck.

use plandeck_core::elsewhere::MachineStatus;
use plandeck_core::ipc::{ErrorKind, IpcError};
use tauri::{AppHandle, State};

use super::blocking;
use crate::AppState;

#[tauri::command]
#[tracing::instrument(skip_all)]
pub async fn list_machines(
    app: AppHandle,
    state: State<'_, AppState>,
) -> Result<Vec<MachineStatus>, IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.list_machines()).await
}

/// Adds a machine (its name and ssh destination checked by core) and connects it, once the
/// person confirmed it in a native dialog naming the destination (the web view alone cannot add
/// and connect one: `confirm.rs`).
#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn add_machine(
    app: AppHandle,
    state: State<'_, AppState>,
    name: String,
    ssh: String,
    forward_agent: bool,
) -> Result<MachineStatus, IpcError> {
    let deck = state.deck(&app);
    let (deck, name, ssh, ask) = blocking(move || {
        let ask = deck.machine_to_confirm(&name, &ssh, forward_agent)?;
        Ok((deck, name, ssh, ask))
    })
    .await?;
    let asked = app.clone();
    if !blocking(move || Ok(crate::confirm::ask(&asked, ask))).await? {
        return Err(IpcError::new(
            ErrorKind::Refused,
            format!("{name} was not added: the connection was not confirmed"),
        ));
    }
    blocking(move || deck.add_machine(&name, &ssh, forward_agent)).await
}

/// Removes a machine from the settings; nothing on it changes.
#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn remove_machine(
    app: AppHandle,
    state: State<'_, AppState>,
    name: String,
) -> Result<(), IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.remove_machine(&name)).await
}

#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn reconnect_machine(
    app: AppHandle,
    state: State<'_, AppState>,
    name: String,
) -> Result<(), IpcError> {
    let deck = state.deck(&app);
    blocking(move || deck.reconnect_machine(&name)).await
}
