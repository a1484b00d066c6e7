//! Native confirmations of destructive actions, as GNOME lays them out: Cancel on the left, the
//! action on the right, labelled with its verb ("Remove worktree") and styled destructive. The
//! dialog plugin adds its buttons action first (the action left of Cancel) and cannot style a
//! button, so on Linux the dialog is a GTK message dialog built here, on the main thread. Only the
//! action's own button confirms: Escape, closing the window or Enter on the default (Cancel) do not.

use tauri::AppHandle;

use plandeck_core::deck::Confirmation;

/// Shows the confirmation and waits for the answer: true only when the action's button was
/// pressed. Blocks: call it off the main thread (`commands::blocking`).
#[cfg(target_os = "linux")]
pub fn ask(app: &AppHandle, c: Confirmation) -> bool {
    use gtk::prelude::*;
    use tauri::Manager;

    let (tx, rx) = std::sync::mpsc::channel();
    let handle = app.clone();
    let shown = app.run_on_main_thread(move || {
        let parent = handle
            .get_webview_window("main")
            .and_then(|w| w.gtk_window().ok());
        let dialog = gtk::MessageDialog::new(
            parent.as_ref(),
            gtk::DialogFlags::MODAL | gtk::DialogFlags::DESTROY_WITH_PARENT,
            if c.destructive {
                gtk::MessageType::Warning
            } else {
                gtk::MessageType::Question
            },
            gtk::ButtonsType::None,
            &c.title,
        );
        dialog.set_title(&c.title);
        dialog.set_secondary_text(Some(&c.text));
        // GNOME order: buttons are laid out in the order added, the last on the right.
        dialog.add_button("_Cancel", gtk::ResponseType::Cancel);
        let action = dialog.add_button(&c.action, gtk::ResponseType::Accept);
        action.style_context().add_class("destructive-action");
        dialog.set_default_response(gtk::ResponseType::Cancel);
        let answer = dialog.run();
        dialog.close();
        let _ = tx.send(answer == gtk::ResponseType::Accept);
    });
    if shown.is_err() {
        return false;
    }
    rx.recv().unwrap_or(false)
}

/// Elsewhere the dialog plugin's own confirmation (its button order is the platform's).
#[cfg(not(target_os = "linux"))]
pub fn ask(app: &AppHandle, c: Confirmation) -> bool {
    use tauri_plugin_dialog::{DialogExt, MessageDialogButtons, MessageDialogKind};
    app.dialog()
        .message(c.text)
        .title(c.title)
        .kind(if c.destructive {
            MessageDialogKind::Warning
        } else {
            MessageDialogKind::Info
        })
        .buttons(MessageDialogButtons::OkCancelCustom(
            c.action,
            "Cancel".into(),
        ))
        .blocking_show()
}
