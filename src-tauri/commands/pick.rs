//! Native pickers opened by the shell. A folder the shell acts on (a repository, a folder of plans)
//! is the one the person picked in the native dialog, never a path string sent by the webview.

use std::path::{Path, PathBuf};

use plandeck_core::ipc::{ErrorKind, IpcError};
use tauri::AppHandle;
use tauri_plugin_dialog::DialogExt;

use super::blocking;

/// Where the folder chooser opens: the person's home folder (GTK would start in the process's
/// working folder, `/` for an app started from the menu), when it is a folder.
pub fn chooser_start(home: &Path) -> Option<PathBuf> {
    home.is_dir().then(|| home.to_owned())
}

/// Opens the native folder picker titled `title`, starting in `home`. `None` when the person
/// cancels.
pub async fn pick_folder(
    app: &AppHandle,
    title: &str,
    home: &Path,
) -> Result<Option<PathBuf>, IpcError> {
    let (app, title, start) = (app.clone(), title.to_owned(), chooser_start(home));
    // The blocking picker must not run on the main thread; blocking() runs it on a worker.
    blocking(move || {
        let mut chooser = app.dialog().file().set_title(title);
        if let Some(start) = start {
            chooser = chooser.set_directory(start);
        }
        match chooser.blocking_pick_folder() {
            None => Ok(None),
            Some(picked) => picked.into_path().map(Some).map_err(|e| {
                IpcError::new(
                    ErrorKind::BadInput,
                    format!("the picked folder is not a local folder: {e}"),
                )
            }),
        }
    })
    .await
}

/// Opens the native file picker titled `title`, starting in `home`, offering the files ending in
/// one of `extensions` first (`filter` names them), and any file. `None` when the person cancels.
pub async fn pick_file(
    app: &AppHandle,
    title: &str,
    home: &Path,
    filter: &str,
    extensions: &'static [&'static str],
) -> Result<Option<PathBuf>, IpcError> {
    let (app, title, filter, start) = (
        app.clone(),
        title.to_owned(),
        filter.to_owned(),
        chooser_start(home),
    );
    blocking(move || {
        let mut chooser = app
            .dialog()
            .file()
            .set_title(title)
            .add_filter(filter, extensions)
            .add_filter("Any file", &["*"]);
        if let Some(start) = start {
            chooser = chooser.set_directory(start);
        }
        match chooser.blocking_pick_file() {
            None => Ok(None),
            Some(picked) => picked.into_path().map(Some).map_err(|e| {
                IpcError::new(
                    ErrorKind::BadInput,
                    format!("the picked file is not a local file: {e}"),
                )
            }),
        }
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chooser_starts_in_the_home_folder() {
        let home = std::env::temp_dir();
        assert_eq!(chooser_start(&home), Some(home.clone()));
        // A home that is not a folder: GTK's own default rather than an error.
        assert_eq!(
            chooser_start(&home.join("plandeck-no-such-home-folder")),
            None
        );
    }
}
