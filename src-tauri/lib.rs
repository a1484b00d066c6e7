//! The desktop shell: Tauri commands and events over `plandeck-core`. Thin on purpose: each
//! command is a one-call adapter, blocking work runs off the main thread, errors cross as
//! `{kind, message}`.

mod commands;
mod confirm;
mod display;
mod first;
mod live;
mod memory;
mod notify;
mod web_view;

use plandeck_cli::GlobalArgs;
use plandeck_core::config::{Env, Roots};
use plandeck_core::ipc::IpcError;

/// What the shell keeps between commands: core's workspace (roots, live state, machines).
pub use plandeck_core::workspace::Workspace as AppState;

/// Opens the main window. With `demo`, first creates the demo workspace and points every root at
/// it (nothing of the person's own folders is read or written then).
pub fn run_window(global: &GlobalArgs, env: &Env, demo: bool) -> Result<(), IpcError> {
    // First, while this is the only thread: the web process inherits it.
    memory::set_webkit_env();
    // Before the demo workspace or anything else: without a display, say so (Tauri would panic).
    display::open()?;
    init_tracing();
    let roots = if demo {
        let workspace = plandeck_core::demo::create(&std::env::temp_dir())?;
        tracing::info!(home = %workspace.home.display(), "demo workspace created");
        workspace.roots()
    } else {
        global.roots(env)?
    };
    let (global, env) = (global.clone(), env.clone());
    run_with_roots(roots, demo, Box::new(move || global.roots(&env)))
}

/// Expands the IPC table into the handler of every command it lists: `commands::calls::name`
/// when the table gives its deck call (generated), else `commands::module::name` (written by
/// hand), so a command in the table without its adapter does not compile.
macro_rules! register_commands {
    (
        commands { $($entries:tt)* }
        wire { $($wire:tt)* }
        events { $($events:tt)* }
    ) => {
        register_commands!(@next [] $($entries)*)
    };
    (@next [$($done:tt)*]
        $module:ident :: $name:ident ( $($args:tt)* ) -> $ret:ty [$body:expr] $([$($tail:tt)*])*;
        $($rest:tt)*
    ) => {
        register_commands!(@next [$($done)* commands::calls::$name,] $($rest)*)
    };
    (@next [$($done:tt)*]
        $module:ident :: $name:ident ( $($args:tt)* ) -> $ret:ty [] $([$($tail:tt)*])*;
        $($rest:tt)*
    ) => {
        register_commands!(@next [$($done)* commands::$module::$name,] $($rest)*)
    };
    (@next [$($done:tt)*]) => {
        tauri::generate_handler![$($done)*]
    };
}

fn run_with_roots(
    roots: Roots,
    demo: bool,
    own_roots: plandeck_core::workspace::OwnRoots,
) -> Result<(), IpcError> {
    // The app's assets, with the first view's data as `/first.js` (src-tauri/first.rs).
    let first = first::First::default();
    let mut context = tauri::generate_context!();
    let assets = context.set_assets(Box::new(first::NoAssets));
    context.set_assets(Box::new(first::WithFirst {
        inner: assets,
        first: first.clone(),
    }));
    tauri::Builder::default()
        // First, so a second launch on the same store hands over and exits before anything else
        // starts (it would watch, notify and deliver a second time).
        .plugin(single_instance(&roots))
        .plugin(tauri_plugin_dialog::init())
        .plugin(navigation_guard())
        .plugin(tauri_plugin_notification::init())
        .manage(AppState::new(roots, demo, own_roots))
        .setup(move |app| {
            web_view::configure(app.handle());
            leave_on_signals(app.handle());
            tauri::Manager::state::<AppState>(app).start(live::forward(app.handle().clone()));
            // What the first view shows, computed while WebKit starts: the page loads it with
            // itself instead of asking once mounted (src-tauri/first.rs).
            // Off the main thread, after the first view's data: the watchers' first look at a
            // heavy home (thousands of transcripts) must not hold the window back, nor take the
            // 2 cores from the first view's data and WebKit's start (issue 34); commands work
            // meanwhile.
            let handle = app.handle().clone();
            let first = first.clone();
            std::thread::Builder::new()
                .name("first-view".into())
                .spawn(move || {
                    let deck = tauri::Manager::state::<AppState>(&handle).deck();
                    deck.call(plandeck_core::deck::WINDOW, |d, _| {
                        first.set(d.overview(), d.first_plans(first::FIRST_ROWS))
                    });
                    let handle = handle.clone();
                    let started = std::thread::Builder::new()
                        .name("live-start".into())
                        .spawn(move || tauri::Manager::state::<AppState>(&handle).restart());
                    if let Err(e) = started {
                        tracing::error!("the live state could not start: {e}");
                    }
                })?;
            Ok(())
        })
        // Every command of the IPC table (crates/plandeck-core/src/ipc_table.rs).
        .invoke_handler(plandeck_core::ipc_table!(register_commands))
        .build(context)
        .map_err(|e| {
            IpcError::new(
                plandeck_core::ipc::ErrorKind::Internal,
                format!("cannot open the window: {e}"),
            )
        })?
        .run(|app, event| {
            // Closing the window ends the process without dropping the app's state, so the
            // presence file goes here: a hook must never wait for a Plandeck that is gone.
            if let tauri::RunEvent::Exit = event {
                leave(app);
            }
        });
    Ok(())
}

/// The app is going: hooks stop waiting for it (its `gate/app.json` goes).
fn leave<R: tauri::Runtime>(app: &tauri::AppHandle<R>) {
    use tauri::Manager;
    if let Some(state) = app.try_state::<AppState>() {
        state.leave();
    }
}

/// SIGTERM, SIGINT and SIGHUP (a logout, `kill`, Ctrl+C in the terminal that started it) end the
/// app the way closing its window does, presence file included. Handled on GTK's main loop
/// (GLib's signal sources), so nothing runs in a signal handler.
fn leave_on_signals<R: tauri::Runtime>(app: &tauri::AppHandle<R>) {
    #[cfg(target_os = "linux")]
    for signal in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
        let app = app.clone();
        webkit2gtk::glib::source::unix_signal_add(signal, move || {
            tracing::info!(signal, "signal: leaving");
            leave(&app);
            app.exit(0);
            webkit2gtk::glib::ControlFlow::Break
        });
    }
}

/// Navigation never leaves the app (docs/architecture.md §7, trust rules): the window loads only the app's own origin.
/// An `http(s)` link opens in the system browser after a native confirmation showing the full
/// URL; anything else is refused (see [`plandeck_core::links`]).
fn navigation_guard<R: tauri::Runtime>() -> tauri::plugin::TauriPlugin<R> {
    use plandeck_core::links::{navigation, Navigation};
    use tauri::Manager;
    tauri::plugin::Builder::new("navigation-guard")
        .on_navigation(|webview, url| {
            let app = webview.app_handle();
            let mut origins = vec![
                "tauri://localhost".to_owned(),
                "http://tauri.localhost".to_owned(),
                "https://tauri.localhost".to_owned(),
            ];
            if !cfg!(feature = "custom-protocol") {
                if let Some(dev) = &app.config().build.dev_url {
                    origins.push(dev.origin().ascii_serialization());
                }
            }
            let origins: Vec<&str> = origins.iter().map(String::as_str).collect();
            match navigation(url.as_str(), &origins) {
                Navigation::App => true,
                Navigation::External(url) => {
                    tracing::info!(%url, "link: asking before opening it in the browser");
                    confirm_and_open(app, url);
                    false
                }
                Navigation::Refused(url) => {
                    tracing::warn!(%url, "navigation refused");
                    use tauri_plugin_dialog::{DialogExt, MessageDialogKind};
                    app.dialog()
                        .message(format!(
                            "Plandeck opens only http and https links, in your browser.\n\n{url}"
                        ))
                        .title("Link not opened")
                        .kind(MessageDialogKind::Info)
                        .show(|_| {});
                    false
                }
            }
        })
        .build()
}

/// Shows the full URL in a native confirmation; only "Open in browser" hands it to the system
/// browser (never to the window).
fn confirm_and_open<R: tauri::Runtime>(app: &tauri::AppHandle<R>, url: String) {
    use tauri_plugin_dialog::{DialogExt, MessageDialogButtons, MessageDialogKind};
    app.dialog()
        .message(format!(
            "A plan links to this address. Open it in your browser?\n\n{url}"
        ))
        .title("Open link?")
        .kind(MessageDialogKind::Warning)
        .buttons(MessageDialogButtons::OkCancelCustom(
            "Open in browser".into(),
            "Cancel".into(),
        ))
        .show(move |open| {
            if open {
                open_in_browser(&url);
            }
        });
}

fn open_in_browser(url: &str) {
    let (program, args): (&str, &[&str]) = if cfg!(target_os = "macos") {
        ("open", &[])
    } else if cfg!(windows) {
        ("explorer", &[])
    } else {
        ("xdg-open", &[])
    };
    match std::process::Command::new(program)
        .args(args)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .spawn()
    {
        // Reaped off the main thread.
        Ok(mut child) => {
            std::thread::spawn(move || child.wait());
        }
        Err(e) => tracing::warn!(%url, "cannot open the browser ({program}): {e}"),
    }
}

/// One running app per store: a second window launch on the same data folder (a desktop entry
/// click while Plandeck runs) focuses the running window and exits. The lock is a D-Bus name keyed
/// by the data folder, so the demo workspace or another `--data-dir` is an app of its own; without
/// a session bus the app starts normally. CLI subcommands never get here.
/// One running app per store: a second window launch on the same data folder (a desktop entry
/// click while Plandeck runs) focuses the running window and exits. The lock is a D-Bus name keyed
/// by the data folder, so the demo workspace or another `--data-dir` is an app of its own; without
/// a session bus the app starts normally. CLI subcommands never get here.
fn single_instance(roots: &Roots) -> tauri::plugin::TauriPlugin<tauri::Wry> {
    let data = std::fs::canonicalize(&roots.data).unwrap_or_else(|_| roots.data.clone());
    let store = plandeck_core::ids::short_hash(data.as_os_str().as_encoded_bytes());
    tauri_plugin_single_instance::Builder::new()
        .dbus_id(format!("dev.plandeck.app.store_{store}"))
        .callback(|app, _argv, _cwd| {
            tracing::info!("a second launch: focusing the running window");
            if let Some(window) = tauri::Manager::get_webview_window(app, "main") {
                let _ = window.unminimize();
                let _ = window.show();
                let _ = window.set_focus();
            }
        })
        .build()
}

fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("PLANDECK_LOG").unwrap_or_else(|_| {
        tracing_subscriber::EnvFilter::new("warn,plandeck=info,plandeck_core=info")
    });
    // PLANDECK_LOG_SPANS=1 also logs each command's time (busy and idle) when it returns.
    let spans = if std::env::var_os("PLANDECK_LOG_SPANS").is_some() {
        tracing_subscriber::fmt::format::FmtSpan::CLOSE
    } else {
        tracing_subscriber::fmt::format::FmtSpan::NONE
    };
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_span_events(spans)
        .with_writer(std::io::stderr)
        .try_init();
}
