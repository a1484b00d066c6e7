//! `plandeck-cli`: the command-line companion without the window, used by tests and benchmarks
//! (it links no GTK/WebKit, so it starts fast). Users run the same subcommands as `plandeck`.

fn main() {
    std::process::exit(plandeck_cli::main_with_args(std::env::args_os()));
}
