//! `plandeck`: the name people type. With a subcommand it runs the command line here (no WebKit
//! or GTK is loaded, so it starts in a few milliseconds); with none (or `--demo`) it becomes the
//! window, `plandeck-window` installed beside it.

fn main() {
    std::process::exit(plandeck_cli::main_or_window(std::env::args_os()));
}
