//! `plandeck-window`: the desktop window. `plandeck` (plandeck-cli's slim binary) becomes this
//! when given no subcommand. Given one, it runs the command line too (needing no display), as hooks
//! installed by earlier versions call it by the window's path.

#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

use clap::Parser;
use plandeck_cli::Cli;
use plandeck_core::config::Env;

fn main() {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            std::process::exit(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let env = Env::from_process();
    if let Some(command) = cli.command {
        let code = plandeck_cli::run(
            command,
            &cli.global,
            &env,
            &mut std::io::stdout().lock(),
            &mut std::io::stderr().lock(),
        );
        std::process::exit(code);
    }
    if let Err(e) = plandeck_app::run_window(&cli.global, &env, cli.demo) {
        eprintln!("plandeck: {e}");
        std::process::exit(1);
    }
}
