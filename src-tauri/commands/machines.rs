//! Adding another machine (`plandeck hosts`), once the person confirmed it natively.

use plandeck_core::elsewhere::MachineStatus;
use plandeck_core::ipc::{ErrorKind, IpcError};
use tauri::{AppHandle, State};

use super::blocking;
use crate::AppState;

#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn add_machine(
    app: AppHandle,
    state: State<'_, AppState>,
    name: String,
    ssh: String,
    forward_agent: bool,
) -> Result<MachineStatus, IpcError> {
    let deck = state.deck();
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
