//! Hello-world Tauri 2 window: the framework floor the app's memory is compared with.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    if let Err(e) = tauri::Builder::default().run(tauri::generate_context!()) {
        eprintln!("hello-tauri: {e}");
        std::process::exit(1);
    }
}
