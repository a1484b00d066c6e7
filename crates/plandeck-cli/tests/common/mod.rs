//! Shared by the CLI integration tests.

use clap::Parser;
use plandeck_cli::{run, Cli};
use plandeck_core::config::Env;

/// Runs `plandeck <args>` with `$HOME` at `home`; returns (exit code, stdout, stderr).
pub fn plandeck(home: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let cli = Cli::try_parse_from(std::iter::once("plandeck").chain(args.iter().copied()))
        .expect("args parse");
    let env = Env::from_pairs([("HOME", home.to_str().unwrap())]);
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = run(
        cli.command.expect("a subcommand"),
        &cli.global,
        &env,
        &mut out,
        &mut err,
    );
    (
        code,
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}
