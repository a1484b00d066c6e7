//! Shared by the CLI integration tests.

use clap::Parser;
use plandeck_cli::{run, Cli};
use plandeck_core::config::Env;
use plandeck_testkit::git::{add_worktree, new_repo};
use plandeck_testkit::verify::{commit_all, git_init, write_file, ClaudeSession};

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

/// The `plandeck-cli` binary with `$HOME` at `home`, to run as a process of its own: for a test
/// that changes what the command inherits (PATH, locale, tmux), which the tests' shared process
/// must not.
#[allow(dead_code)]
pub fn plandeck_process(home: &std::path::Path) -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_plandeck-cli"));
    cmd.env("HOME", home)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_DATA_HOME");
    cmd
}

/// Runs `cmd` to its end; returns (exit code, stdout, stderr).
#[allow(dead_code)]
pub fn output(cmd: &mut std::process::Command) -> (i32, String, String) {
    let out = cmd.output().expect("the command runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// Runs the `plandeck-cli` binary with `args` and `stdin`, in an environment of only `$HOME` at
/// `home` and the tests' PATH (as an agent starts a hook, near enough); returns (exit code, stdout
/// bytes, stderr bytes).
#[allow(dead_code)]
pub fn run_binary(home: &std::path::Path, args: &[&str], stdin: &[u8]) -> (i32, Vec<u8>, Vec<u8>) {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_plandeck-cli"))
        .args(args)
        .env_clear()
        .env("HOME", home)
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    (out.status.code().unwrap_or(-1), out.stdout, out.stderr)
}

/// A Claude Code session in `<home>/work/api` whose `plan` was approved (at T0 + 150), then did
/// step 1 (`paginate` added to `src/api.rs`, committed), wrote the unplanned file `unplanned` and
/// ran `cargo test` (passed); the transcript saved.
#[allow(dead_code)]
pub fn approved_and_partly_done(
    home: &std::path::Path,
    session: &str,
    slug: &str,
    plan: &str,
    unplanned: &str,
) -> ClaudeSession {
    let repo = home.join("work/api");
    git_init(&repo, &[("src/api.rs", "pub fn list() {}\n")], 0);
    let mut s = ClaudeSession::new(home, &repo, session, slug);
    s.prompt(30, "plan pagination");
    s.plan_approved(120, 150, plan);
    let api = "pub fn list() {}\npub fn paginate() {}\n";
    write_file(&repo, "src/api.rs", api);
    s.edit(200, &repo.join("src/api.rs"), "pub fn list() {}\n", api);
    commit_all(&repo, "paginate", 210);
    write_file(&repo, unplanned, "// unplanned\n");
    s.write(220, &repo.join(unplanned), "// unplanned\n");
    s.bash(230, "cargo test", 0);
    s.save();
    s
}

/// Writes an executable `path` (`text`, mode `mode`) through `cp`, a process of its own: a file
/// this process held open for writing stays open in any child another test's thread forks
/// meanwhile, until that child execs, and running it then fails ("text file busy").
#[allow(dead_code)]
pub fn write_executable(path: &std::path::Path, text: &str, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    let draft = path.with_extension("draft");
    std::fs::write(&draft, text).unwrap();
    let ok = std::process::Command::new("cp")
        .arg(&draft)
        .arg(path)
        .status()
        .unwrap();
    assert!(ok.success(), "cp to {}", path.display());
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
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
