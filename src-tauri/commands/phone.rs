//! Turning the phone page on from Settings → Phone, once the person confirmed it natively (the
//! address, every interface said plainly, and the certificate).

use plandeck_core::ipc::{ErrorKind, IpcError};
use plandeck_core::phone::settings::PhoneStatus;
use tauri::{AppHandle, State};

use super::blocking;
use crate::AppState;

#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn phone_on(
    app: AppHandle,
    state: State<'_, AppState>,
    listen: String,
    cert: String,
    key: String,
    name: Option<String>,
    wait_minutes: u32,
) -> Result<PhoneStatus, IpcError> {
    let deck = state.deck();
    let (deck, listen, cert, key, name, ask) = blocking(move || {
        let ask = deck.phone_on_to_confirm(&listen, &cert, &key, name.clone(), wait_minutes)?;
        Ok((deck, listen, cert, key, name, ask))
    })
    .await?;
    let asked = app.clone();
    if !blocking(move || Ok(crate::confirm::ask(&asked, ask))).await? {
        return Err(IpcError::new(
            ErrorKind::Refused,
            "the phone page was not turned on: it was not confirmed",
        ));
    }
    blocking(move || deck.phone_on(&listen, &cert, &key, name, wait_minutes)).await
}
