//! Shared by the CLI integration tests.

use clap::Parser;
use plandeck_cli::{run, Cli};
use plandeck_core::config::Env;

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

/// `git args` in `dir`, with a fixed author; panics with git's answer when it fails.
#[allow(dead_code)]
pub fn git(dir: &std::path::Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

/// A repository at `<home>/repo` with one commit and a clean worktree at `<home>/wt-clean`,
/// listed in Plandeck's settings; returns the worktree's path.
#[allow(dead_code)]
pub fn repo_with_clean_worktree(home: &std::path::Path) -> std::path::PathBuf {
    let repo = home.join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("README.md"), "hi\n").unwrap();
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "initial"]);
    let clean = home.join("wt-clean");
    git(
        &repo,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "clean",
            clean.to_str().unwrap(),
        ],
    );
    std::fs::create_dir_all(home.join(".config/plandeck")).unwrap();
    std::fs::write(
        home.join(".config/plandeck/settings.json"),
        serde_json::json!({ "extraRepos": [repo] }).to_string(),
    )
    .unwrap();
    clean
}
