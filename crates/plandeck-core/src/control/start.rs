//! Starting an agent: the worktree, the tmux session, the CLI in it.

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::agents::Agent;
use crate::config::Roots;
use crate::terminal::{self, Tmux};

use super::record::{self, Record};
use super::{ControlError, StartRequest, Started};

/// The oldest tmux Plandeck starts sessions in.
pub const TMUX_MIN: &str = "3.0";

/// How long the agent is watched after it started, for an exit on the spot (a bad flag, a
/// missing login): until its screen shows something, at most this.
const FIRST_SCREEN: Duration = Duration::from_secs(10);
/// After the first screen, how long an exit still counts as "right after it started".
const SETTLE: Duration = Duration::from_millis(700);

/// How long tmux may take to move a new pane's process into its folder (it does so right after
/// the fork, before the program runs).
const FOLDER_WAIT: Duration = Duration::from_secs(5);

/// The tmux server agents are started on, and how long an exit still counts as "right after it
/// started".
#[derive(Debug, Clone, Copy)]
pub(super) struct Server<'a> {
    /// `-S`; `None`: the person's default server.
    pub socket: Option<&'a str>,
    pub settle: Duration,
}

impl Server<'_> {
    /// The person's default server (no `-L`; `TMUX_TMPDIR` is respected).
    pub(super) const PERSONS: Server<'static> = Server {
        socket: None,
        settle: SETTLE,
    };

    fn tmux(&self, command: &'static str) -> Tmux {
        Tmux::on(self.socket, command).outside()
    }
}

/// The program that runs `agent`'s CLI.
fn program_name(agent: Agent) -> Result<&'static str, ControlError> {
    crate::agents::driver(agent)
        .cli()
        .map(|cli| cli.program)
        .ok_or_else(|| ControlError::NotStartable {
            agent: agent.to_string(),
        })
}

/// `agent`'s CLI on the PATH.
pub fn agent_program(agent: Agent) -> Result<PathBuf, ControlError> {
    let name = program_name(agent)?;
    on_path(name).ok_or_else(|| ControlError::AgentNotInstalled {
        agent: agent.display_name().to_owned(),
        program: name.to_owned(),
    })
}

fn on_path(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// tmux's version (`tmux -V`), refused when tmux is missing or older than [`TMUX_MIN`].
pub fn check_tmux() -> Result<String, ControlError> {
    let out = match Tmux::version(None).run() {
        Ok(out) => out,
        Err(terminal::RunError::Spawn { source: e, .. })
            if e.kind() == std::io::ErrorKind::NotFound =>
        {
            return Err(ControlError::TmuxMissing)
        }
        Err(e) => {
            return Err(ControlError::TmuxFailed {
                message: e.to_string(),
            })
        }
    };
    let version = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let number = version
        .trim_start_matches("tmux ")
        .trim_start_matches("next-");
    if let Some((major, minor)) = terminal::tmux_version(number) {
        let (min_major, min_minor) = terminal::tmux_version(TMUX_MIN).unwrap_or((3, 0));
        if (major, minor) < (min_major, min_minor) {
            return Err(ControlError::TmuxTooOld {
                version: number.to_owned(),
            });
        }
    }
    Ok(version)
}

/// Where the worktree `name` of the repository at `workdir` goes: beside it, in
/// `<repo>.worktrees/<name>` (a `/` in the name becomes `-`).
pub fn worktree_dir(workdir: &Path, name: &str) -> PathBuf {
    let repo_name = workdir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "repo".to_owned());
    workdir
        .parent()
        .unwrap_or(workdir)
        .join(format!("{repo_name}.worktrees"))
        .join(name.replace('/', "-"))
}

/// A worktree this start created, removed again when the start fails. Only what this call made is
/// named here: a branch, a worktree or a folder a concurrent start (or the person) made in the
/// meantime is never touched by this one's undo.
#[derive(Debug)]
pub(super) struct Created {
    repo: PathBuf,
    name: String,
    pub(super) path: PathBuf,
    branch: String,
    base: git2::Oid,
    /// This call made the branch (it did not exist when it was made).
    made_branch: bool,
    /// This call made the worktree (its administrative files and its folder).
    made_worktree: bool,
    /// The `<repo>.worktrees` folder, when this call made it.
    made_parent: Option<PathBuf>,
}

impl Created {
    /// Removes what this call made: the worktree, its administrative files and its branch (they
    /// hold nothing: the branch is deleted only while it still points at its base), and the
    /// `<repo>.worktrees` folder when this call made it and it is empty.
    pub(super) fn undo(&self) {
        if self.made_worktree {
            let _ = std::fs::remove_dir_all(&self.path);
        }
        if let Ok(repo) = git2::Repository::open(&self.repo) {
            if self.made_worktree {
                if let Ok(wt) = repo.find_worktree(&self.name) {
                    let mut opts = git2::WorktreePruneOptions::new();
                    opts.valid(true).working_tree(true);
                    let _ = wt.prune(Some(&mut opts));
                }
            }
            if self.made_branch {
                if let Ok(mut branch) = repo.find_branch(&self.branch, git2::BranchType::Local) {
                    if branch.get().target() == Some(self.base) {
                        let _ = branch.delete();
                    }
                }
            }
        }
        if let Some(parent) = &self.made_parent {
            // Only when empty: another start's worktree may be in it by now.
            let _ = std::fs::remove_dir(parent);
        }
    }
}

fn git_err(e: git2::Error) -> ControlError {
    ControlError::Git {
        message: e.message().to_owned(),
    }
}

/// Checks the name, the branch and the base, then creates the worktree on a new branch.
pub(super) fn create_worktree(
    repo: &git2::Repository,
    workdir: &Path,
    name: &str,
    base: Option<&str>,
) -> Result<Created, ControlError> {
    let bad = |why: &str| ControlError::BadWorktreeName {
        name: name.to_owned(),
        why: why.to_owned(),
    };
    if name.trim().is_empty() {
        return Err(bad("it is empty"));
    }
    if name.starts_with('-') || name == "HEAD" || name.chars().any(char::is_whitespace) {
        return Err(bad("git refuses it as a branch name"));
    }
    if !git2::Reference::is_valid_name(&format!("refs/heads/{name}")) {
        return Err(bad("git refuses it as a branch name"));
    }
    let repo_words = workdir.display().to_string();
    let base_name = base.unwrap_or("HEAD");
    let commit = repo
        .revparse_single(base_name)
        .and_then(|o| o.peel_to_commit())
        .map_err(|_| ControlError::UnknownBase {
            base: base_name.to_owned(),
            repo: repo_words.clone(),
        })?;
    if repo.find_branch(name, git2::BranchType::Local).is_ok() {
        return Err(ControlError::BranchExists {
            branch: name.to_owned(),
            repo: repo_words,
        });
    }
    let path = worktree_dir(workdir, name);
    if path.exists() || repo.find_worktree(&name.replace('/', "-")).is_ok() {
        return Err(ControlError::WorktreeExists {
            path: path.display().to_string(),
        });
    }
    make_worktree(repo, workdir, name, &commit)
}

/// Makes the branch `name` at `commit` and its worktree, once the checks passed. Another start may
/// have made the same branch or worktree since (two starts at once): then this one fails, and
/// undoes only what it made itself.
pub(super) fn make_worktree(
    repo: &git2::Repository,
    workdir: &Path,
    name: &str,
    commit: &git2::Commit<'_>,
) -> Result<Created, ControlError> {
    let path = worktree_dir(workdir, name);
    let wt_name = name.replace('/', "-");
    let parent = path.parent().unwrap_or(&path).to_owned();
    // `create_dir` says whether this call made it (a concurrent start may make it too).
    let made_parent = match std::fs::create_dir(&parent) {
        Ok(()) => Some(parent.clone()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => None,
        Err(e) => {
            return Err(ControlError::Io {
                message: format!("cannot create {}: {e}", parent.display()),
            })
        }
    };
    let mut created = Created {
        repo: workdir.to_owned(),
        name: wt_name.clone(),
        path: path.clone(),
        branch: name.to_owned(),
        base: commit.id(),
        made_branch: false,
        made_worktree: false,
        made_parent,
    };
    // `force: false`: git refuses a branch that exists (made by another start since the check).
    let branch = match repo.branch(name, commit, false) {
        Ok(b) => b,
        Err(e) => {
            created.undo();
            return Err(git_err(e));
        }
    };
    created.made_branch = true;
    let mut opts = git2::WorktreeAddOptions::new();
    opts.reference(Some(branch.get()));
    // libgit2 makes the worktree's administrative folder and its working folder exclusively: it
    // fails, touching neither, when another start made them.
    match repo.worktree(&wt_name, &path, Some(&opts)) {
        Ok(_) => {
            created.made_worktree = true;
            Ok(created)
        }
        Err(e) => {
            created.undo();
            Err(git_err(e))
        }
    }
}

/// A tmux session name: only letters, digits, `-` and `_` (tmux refuses `.` and `:`).
fn session_word(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `<repo>-<worktree>-<agent>`, with `-2`, `-3`, … when the person's server has one so named.
fn unique_session_name(
    server: Server<'_>,
    repo: &Path,
    worktree: Option<&str>,
    agent: Agent,
) -> String {
    let repo_name = repo
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "repo".to_owned());
    let mut base = session_word(&repo_name);
    if let Some(w) = worktree {
        base.push('-');
        base.push_str(&session_word(w));
    }
    base.push('-');
    base.push_str(agent.as_str());
    let taken = |name: &str| server.tmux("has-session").session(name).output().is_ok();
    if !taken(&base) {
        return base;
    }
    (2..1000)
        .map(|n| format!("{base}-{n}"))
        .find(|n| !taken(n))
        .unwrap_or_else(|| format!("{base}-{}", std::process::id()))
}

/// A random (version 4) UUID, for the session id the agent is given.
fn new_uuid() -> String {
    use std::io::Read;
    let mut b = [0u8; 16];
    let read = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut b));
    if read.is_err() {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        b = (nanos ^ (u128::from(std::process::id()) << 64)).to_le_bytes();
    }
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h = hex::encode(b);
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

/// The agent's command line: plan mode, the session id it is given, the first prompt
/// ([`crate::agents::Driver::launch_args`]).
pub(super) fn command_line(
    program: &Path,
    agent: Agent,
    plan: bool,
    session_id: Option<&str>,
    prompt: Option<&str>,
) -> Vec<String> {
    let mut argv = vec![program.display().to_string()];
    let prompt = prompt.map(str::trim).filter(|p| !p.is_empty());
    argv.extend(
        crate::agents::driver(agent).launch_args(crate::agents::driver::Launch {
            plan,
            session_id,
            prompt: prompt.map(str::to_owned),
        }),
    );
    argv
}

/// The pane's screen now, and whether its program exited.
fn pane_state(server: Server<'_>, pane: &str) -> (String, bool) {
    let read = || match server
        .tmux("display-message")
        .flag("-p")
        .pane(pane)
        .format("#{pane_dead}\t#{pane_dead_status}")
        .output()
    {
        Ok(s) => {
            let (d, st) = s.trim_end().split_once('\t').unwrap_or((s.trim(), ""));
            (d != "0", st.to_owned())
        }
        Err(_) => (true, String::new()),
    };
    let (mut dead, mut status) = read();
    // tmux marks the pane dead when its terminal closes, and knows the exit status only once it
    // has reaped the program: wait for it, a few seconds at most (a loaded machine reaps late).
    // A call that failed is tried again too: on a loaded machine one read of a pane that is
    // still there can fail, and the exit status would be lost. tmux 3.3a may have lost the
    // program's exit altogether (`tmux::collect_exited`): it is asked to collect it, more than
    // once if need be.
    for tried in 0..60 {
        if !(dead && status.is_empty()) {
            break;
        }
        if tried % 10 == 2 {
            if let Ok(server_pid) = server
                .tmux("display-message")
                .flag("-p")
                .pane(pane)
                .format("#{pid}")
                .output()
            {
                terminal::tmux::collect_exited(&server_pid);
            }
        }
        std::thread::sleep(Duration::from_millis(50));
        (dead, status) = read();
    }
    let mut screen = server
        .tmux("capture-pane")
        .flag("-p")
        .flag("-J")
        // A few lines of history too: tmux scrolls a dead pane up by one line to print its
        // "Pane is dead", and the agent's first line (often its only words) goes above the screen.
        .number("-S", -5)
        .pane(pane)
        .output()
        .unwrap_or_default();
    if dead && !status.is_empty() {
        // A program that exits at once may leave nothing on screen: its status says something.
        screen.push_str(&format!("\nexit status {status}\n"));
    }
    (screen, dead)
}

/// The last two lines on a dead pane's screen (the agent's reason and the exit status), tmux's
/// own "Pane is dead" left out.
fn last_line(screen: &str) -> String {
    let mut lines: Vec<&str> = screen
        .lines()
        .rev()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("Pane is dead"))
        .take(2)
        .collect();
    lines.reverse();
    if lines.is_empty() {
        return "nothing".to_owned();
    }
    lines.join(" · ").chars().take(300).collect()
}

/// Starts `req.agent` as asked: see the module's doc. Nothing half-made is left when it fails.
pub fn start(roots: &Roots, req: &StartRequest) -> Result<Started, ControlError> {
    let program = agent_program(req.agent)?;
    check_tmux()?;
    start_with(roots, req, &program, Server::PERSONS)
}

/// [`start`] with `program` as the agent's CLI, on `server`.
pub(super) fn start_with(
    roots: &Roots,
    req: &StartRequest,
    program: &Path,
    server: Server<'_>,
) -> Result<Started, ControlError> {
    let repo_path = crate::durable::canonical_or(Path::new(&req.repo));
    let not_repo = || ControlError::NotARepository {
        path: req.repo.clone(),
    };
    let repo = git2::Repository::open(&repo_path).map_err(|_| not_repo())?;
    let workdir = repo
        .workdir()
        .map(crate::durable::canonical_or)
        .ok_or_else(not_repo)?;
    let name = req
        .worktree
        .as_deref()
        .map(str::trim)
        .filter(|n| !n.is_empty());
    if name.is_none() && req.base.as_deref().is_some_and(|b| !b.trim().is_empty()) {
        return Err(ControlError::BadWorktreeName {
            name: String::new(),
            why: "a base branch is for a new worktree: name the worktree too".into(),
        });
    }
    let created = match name {
        Some(n) => Some(create_worktree(
            &repo,
            &workdir,
            n,
            req.base.as_deref().map(str::trim).filter(|b| !b.is_empty()),
        )?),
        None => None,
    };
    let started = start_in(
        roots,
        req,
        program,
        &workdir,
        name,
        created.as_ref(),
        server,
    );
    match (started, &created) {
        (Err(e), Some(c)) => {
            c.undo();
            Err(match e {
                ControlError::AgentExited { agent, last, .. } => ControlError::AgentExited {
                    agent,
                    last,
                    undone: format!(
                        "; the worktree {} and branch {} made for it were removed",
                        c.path.display(),
                        c.branch
                    ),
                },
                e => e,
            })
        }
        (started, _) => started,
    }
}

/// What an agent's pane runs before the agent: `env` without the variables that tell a CLI it
/// runs in CI. A session started in a pane is interactive; with `CI=true` in the environment
/// Gemini CLI runs headless instead and, with no prompt to answer (a resume), exits at once
/// ("No input provided via stdin"). `env` execs the agent: the pane's pid is the agent's.
const INTERACTIVE_ENV: [&str; 8] = [
    "env",
    "-u",
    "CI",
    "-u",
    "CONTINUOUS_INTEGRATION",
    "-u",
    "GITHUB_ACTIONS",
    "--",
];

/// `tmux attach` to `session` on `server`, as a person types it.
pub(super) fn attach_line(server: Server<'_>, session: &str) -> String {
    match server.socket {
        Some(s) => format!("tmux -S {} attach -t {session}", crate::shell::quote(s)),
        None => format!("tmux attach -t {session}"),
    }
}

fn start_in(
    roots: &Roots,
    req: &StartRequest,
    program: &Path,
    workdir: &Path,
    name: Option<&str>,
    created: Option<&Created>,
    server: Server<'_>,
) -> Result<Started, ControlError> {
    let cwd = created.map_or_else(|| workdir.to_owned(), |c| c.path.clone());
    let driver = crate::agents::driver(req.agent);
    let session_id = driver.names_its_session().then(new_uuid);
    let argv = command_line(
        program,
        req.agent,
        req.plan,
        session_id.as_deref(),
        req.prompt.as_deref(),
    );
    let launched = launch(server, req.agent, workdir, name, &cwd, &argv)?;
    let (tmux_session, pane, pid) = launched;
    let kill = || {
        let _ = server.tmux("kill-session").pane(&pane).run();
    };
    let record = Record {
        agent: req.agent,
        tmux_session: tmux_session.clone(),
        socket: server.socket.map(str::to_owned),
        pane: pane.clone(),
        pid,
        start_time: terminal::start_time(pid),
        cwd: cwd.display().to_string(),
        session_id: session_id.clone(),
    };
    if let Err(e) = record::write(roots, &record) {
        kill();
        return Err(e);
    }
    if let Err(e) = driver.after_launch(&record, req.plan, req.prompt.as_deref()) {
        kill();
        return Err(e);
    }
    let hook = req
        .agent
        .descriptor()
        .and_then(|d| d.plan_hook)
        .and_then(|_| crate::gate::hook_preview(roots, req.agent).ok())
        .filter(|h| !h.installed);
    let found_by = if session_id.is_some() {
        "the session id it was given".to_owned()
    } else {
        format!(
            "its process: {} names its session in the rollout it writes; until the card \
             shows it, steer it by the tmux session name {tmux_session}",
            req.agent.display_name()
        )
    };
    Ok(Started {
        agent: req.agent,
        attach: attach_line(server, &tmux_session),
        tmux_session,
        pane,
        pid,
        cwd: cwd.display().to_string(),
        worktree: created.map(|c| c.path.display().to_string()),
        branch: created.map(|c| c.branch.clone()),
        session_id,
        found_by,
        plan: req.plan,
        hook,
    })
}

/// Checks that the agent in `pane` (process `pid`) runs in `folder`, as tmux sees it
/// (`#{pane_current_path}`), byte for byte: a folder tmux did not take as given (it falls back to
/// another when the one named is not there) is refused. A pane whose program already exited is
/// left to the caller, which says why it exited.
pub(super) fn check_folder(
    server: Server<'_>,
    pane: &str,
    pid: u32,
    folder: &Path,
) -> Result<(), ControlError> {
    let want = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_owned());
    // tmux returns once the pane's process is forked, as `tmux: server`; it moves into the folder
    // before it runs the program.
    let from = Instant::now();
    while std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .is_ok_and(|c| c.trim() == "tmux: server")
        && from.elapsed() < FOLDER_WAIT
    {
        std::thread::sleep(Duration::from_millis(5));
    }
    let out = server
        .tmux("display-message")
        .flag("-p")
        .pane(pane)
        .format("#{pane_dead}\t#{pane_current_path}")
        .bytes()?;
    let out = out.strip_suffix(b"\n").unwrap_or(&out);
    let (dead, path) = match out.iter().position(|b| *b == b'\t') {
        Some(i) => (&out[..i], &out[i + 1..]),
        None => (out, &b""[..]),
    };
    if dead == b"1" {
        return Ok(());
    }
    if path != want.as_os_str().as_bytes() {
        return Err(ControlError::WrongFolder {
            folder: want.display().to_string(),
            got: String::from_utf8_lossy(path).into_owned(),
        });
    }
    Ok(())
}

/// Opens the tmux session running `argv` in `cwd`, watched until the agent draws its first
/// screen: (session name, pane id, pane pid). An agent that exits at once is an error (its last
/// line is the reason), its session closed; so is an agent tmux did not start in `cwd`.
pub(super) fn launch(
    server: Server<'_>,
    agent: Agent,
    repo: &Path,
    worktree: Option<&str>,
    cwd: &Path,
    argv: &[String],
) -> Result<(String, String, u32), ControlError> {
    let name = unique_session_name(server, repo, worktree, agent);
    let run = |t: Tmux| -> Result<String, ControlError> {
        t.output().map_err(|e| ControlError::TmuxFailed {
            message: match e {
                terminal::TerminalError::Tmux { message } => message,
                e => e.to_string(),
            },
        })
    };
    // The session opens on a placeholder that waits; the pane is kept when its program exits
    // (so an exit on the spot leaves its reason on screen), then the agent replaces the
    // placeholder (`respawn-pane`): no exit can come before the pane is kept. The folder is a
    // format to tmux: `Tmux::folder` passes it so that it reads back as itself.
    let printed = run(server
        .tmux("new-session")
        .flag("-d")
        .name("-s", &name)
        .folder(cwd)
        .number("-x", 200)
        .number("-y", 50)
        .flag("-P")
        .format_flag("#{pane_id}\t#{session_name}")
        .word("cat"))?;
    // The session as tmux named it (it may have changed a character), and its pane, which every
    // later call names.
    let printed = printed.strip_suffix('\n').unwrap_or(&printed);
    let (pane, tmux_session) = printed.split_once('\t').unwrap_or((printed, name.as_str()));
    let (pane, tmux_session) = (pane.to_owned(), tmux_session.to_owned());
    let close = || {
        let _ = server.tmux("kill-session").pane(&pane).run();
    };
    let respawned = run(server
        .tmux("set-option")
        .flag("-w")
        .pane(&pane)
        .word("remain-on-exit")
        .word("on"))
    .and_then(|_| {
        let mut program: Vec<&str> = INTERACTIVE_ENV.to_vec();
        program.extend(argv.iter().map(String::as_str));
        run(server
            .tmux("respawn-pane")
            .flag("-k")
            .pane(&pane)
            .folder(cwd)
            .program(&program))
    })
    .and_then(|_| {
        run(server
            .tmux("display-message")
            .flag("-p")
            .pane(&pane)
            .format("#{pane_pid}"))
    });
    let pid = match respawned.map(|p| p.trim().parse::<u32>()) {
        Ok(Ok(pid)) => pid,
        Ok(Err(_)) => {
            close();
            return Err(ControlError::TmuxFailed {
                message: format!("tmux named no process for pane {pane}"),
            });
        }
        Err(e) => {
            close();
            return Err(e);
        }
    };
    if let Err(e) = check_folder(server, &pane, pid, cwd) {
        close();
        return Err(e);
    }
    let started = Instant::now();
    let exited = loop {
        let (screen, dead) = pane_state(server, &pane);
        if dead {
            break Some(screen);
        }
        if !screen.trim().is_empty() || started.elapsed() >= FIRST_SCREEN {
            std::thread::sleep(server.settle);
            let (screen, dead) = pane_state(server, &pane);
            break dead.then_some(screen);
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    if let Some(screen) = exited {
        close();
        return Err(ControlError::AgentExited {
            agent: agent.display_name().to_owned(),
            last: last_line(&screen),
            undone: String::new(),
        });
    }
    let _ = server
        .tmux("set-option")
        .flag("-w")
        .pane(&pane)
        .word("remain-on-exit")
        .word("off")
        .run();
    Ok((tmux_session, pane, pid))
}

/// An ACP session asked of the person's server ([`start_acp`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct AcpStartAsked {
    /// The hosted session's id (`acps-…`).
    pub id: String,
    pub agent: String,
    pub cwd: String,
    pub worktree: Option<String>,
    pub branch: Option<String>,
    pub plan: bool,
}

/// Starts the ACP agent `agent` (its catalog name) in the repository `repo` (or a new worktree
/// `worktree` of it, on a new branch from `base`): the worktree is made here, the session asked of
/// the person's server (`crate::acp::host`), which starts and hosts the agent.
pub fn start_acp(
    roots: &Roots,
    agent: &str,
    repo: &str,
    worktree: Option<&str>,
    base: Option<&str>,
    plan: bool,
    prompt: Option<String>,
) -> Result<AcpStartAsked, ControlError> {
    let repo_path = crate::durable::canonical_or(Path::new(repo));
    let not_repo = || ControlError::NotARepository {
        path: repo.to_owned(),
    };
    let git = git2::Repository::open(&repo_path).map_err(|_| not_repo())?;
    let workdir = git
        .workdir()
        .map(crate::durable::canonical_or)
        .ok_or_else(not_repo)?;
    let name = worktree.map(str::trim).filter(|n| !n.is_empty());
    let created = match name {
        Some(n) => Some(create_worktree(
            &git,
            &workdir,
            n,
            base.map(str::trim).filter(|b| !b.is_empty()),
        )?),
        None => None,
    };
    let cwd = created
        .as_ref()
        .map_or_else(|| workdir.clone(), |c| c.path.clone());
    let cwd_text = cwd.to_string_lossy().into_owned();
    match crate::acp::host::request_start(roots, agent, &cwd_text, plan, prompt) {
        Ok(id) => Ok(AcpStartAsked {
            id,
            agent: agent.to_owned(),
            cwd: cwd_text,
            worktree: created.as_ref().map(|c| c.path.display().to_string()),
            branch: created.as_ref().map(|c| c.branch.clone()),
            plan,
        }),
        Err(e) => {
            if let Some(c) = &created {
                c.undo();
            }
            Err(match e {
                crate::acp::host::HostError::NotAnAgent(agent) => {
                    ControlError::NotStartable { agent }
                }
                e => ControlError::Io {
                    message: e.to_string(),
                },
            })
        }
    }
}
