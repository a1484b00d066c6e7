//! Native pickers opened by the shell. A folder the shell acts on (a repository, a folder of plans)
//! is the one the person picked in the native dialog, never a path string sent by the webview.

use std::path::PathBuf;

use plandeck_core::ipc::{ErrorKind, IpcError};
use tauri::AppHandle;
use tauri_plugin_dialog::DialogExt;

use super::blocking;

/// Opens the native folder picker titled `title`. `None` when the person cancels.
pub async fn pick_folder(app: &AppHandle, title: &str) -> Result<Option<PathBuf>, IpcError> {
    let (app, title) = (app.clone(), title.to_owned());
    // The blocking picker must not run on the main thread; blocking() runs it on a worker.
    blocking(
        move || match app.dialog().file().set_title(title).blocking_pick_folder() {
            None => Ok(None),
            Some(picked) => picked.into_path().map(Some).map_err(|e| {
                IpcError::new(
                    ErrorKind::BadInput,
                    format!("the picked folder is not a local folder: {e}"),
                )
            }),
        },
    )
    .await
}
