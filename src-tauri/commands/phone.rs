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

/// Settings → Phone's "On Tailscale": the page at this machine's Tailscale address and port, once
/// the person confirmed it natively (the address and name `tailscaled` gives now).
#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn phone_on_tailscale(
    app: AppHandle,
    state: State<'_, AppState>,
    port: u16,
    wait_minutes: u32,
) -> Result<PhoneStatus, IpcError> {
    let deck = state.deck();
    let (deck, ask) = blocking(move || {
        let ask = deck.phone_on_tailscale_to_confirm(port, wait_minutes)?;
        Ok((deck, ask))
    })
    .await?;
    let asked = app.clone();
    if !blocking(move || Ok(crate::confirm::ask(&asked, ask))).await? {
        return Err(IpcError::new(
            ErrorKind::Refused,
            "the phone page was not turned on: it was not confirmed",
        ));
    }
    blocking(move || deck.phone_on_tailscale(port, wait_minutes)).await
}

/// Settings → Phone's "Choose…" beside the certificate and its key (`what`: `cert` or `key`): the
/// native file picker. The path picked only fills the form; turning the page on still shows it in
/// the native confirmation and checks that the certificate and key load and match.
#[tauri::command]
#[tracing::instrument(skip(app, state))]
pub async fn phone_pick_file(
    app: AppHandle,
    state: State<'_, AppState>,
    what: String,
) -> Result<Option<String>, IpcError> {
    let (title, filter, extensions): (&str, &str, &'static [&'static str]) = match what.as_str() {
        "cert" => (
            "Choose the certificate (PEM)",
            "Certificates",
            &["pem", "crt", "cer"],
        ),
        "key" => ("Choose its key (PEM)", "Keys", &["key", "pem"]),
        _ => {
            return Err(IpcError::new(
                ErrorKind::BadInput,
                "a certificate (cert) or its key (key) is picked here",
            ))
        }
    };
    let home = state.roots().home;
    let picked = super::pick::pick_file(&app, title, &home, filter, extensions).await?;
    Ok(picked.map(|p| p.to_string_lossy().into_owned()))
}
