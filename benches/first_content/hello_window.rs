//! Hello-world Tauri 2 window, the baseline of the first-content benchmark (benches/first_content.sh):
//! benches/memory/hello's page and config (one window, an `<h1>`), built in the app's package so
//! it runs the very Tauri build the app runs.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    let context = tauri::generate_context!("benches/memory/hello/tauri.conf.json");
    if let Err(e) = tauri::Builder::default().run(context) {
        eprintln!("hello-window: {e}");
        std::process::exit(1);
    }
}
