//! Shared by the CLI integration tests.

use clap::Parser;
use plandeck_cli::{run, Cli};
use plandeck_core::config::Env;
use plandeck_testkit::git::{add_worktree, new_repo};

/// Runs `plandeck <args>` with `$HOME` at `home`; returns (exit code, stdout, stderr).
#[allow(dead_code)]
pub fn plandeck(home: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    plandeck_in(&[("HOME", home.to_str().unwrap())], args)
}

/// Runs `plandeck <args>` in the environment `vars`; returns (exit code, stdout, stderr).
#[allow(dead_code)]
pub fn plandeck_in(vars: &[(&str, &str)], args: &[&str]) -> (i32, String, String) {
    let cli = Cli::try_parse_from(std::iter::once("plandeck").chain(args.iter().copied()))
        .expect("args parse");
    let env = Env::from_pairs(vars.iter().copied());
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

/// A repository at `<home>/repo` with one commit and a clean worktree at `<home>/wt-clean`,
/// listed in Plandeck's settings; returns the worktree's path.
#[allow(dead_code)]
pub fn repo_with_clean_worktree(home: &std::path::Path) -> std::path::PathBuf {
    let repo = home.join("repo");
    let git = new_repo(&repo, &[("README.md", "hi\n")]);
    let clean = home.join("wt-clean");
    add_worktree(&git, "clean", &clean, "clean");
    std::fs::create_dir_all(home.join(".config/plandeck")).unwrap();
    std::fs::write(
        home.join(".config/plandeck/settings.json"),
        serde_json::json!({ "extraRepos": [repo] }).to_string(),
    )
    .unwrap();
    clean
}
