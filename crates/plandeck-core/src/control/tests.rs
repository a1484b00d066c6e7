//! Session control: worktree refusals, the agents' command lines, the screens that tell a waiting
//! agent from a draft, and stop/send/interrupt on real processes and a private tmux server.

use super::record::{self, Record};
use super::start::{command_line, worktree_dir};
use super::steer::{not_ready, resume_line, runs_agent};
use super::*;
use crate::agents;
use crate::config::Roots;
use plandeck_testkit::tmux::{Recording, Tmux};
use plandeck_testkit::wait_for;
use std::path::{Path, PathBuf};

fn fixture(agent_dir: &str, name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(agent_dir)
        .join("screens")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("fixture {}: {e}", path.display()))
}

#[test]
fn a_worktree_git_refuses_is_refused_with_the_reason_and_nothing_is_made() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().canonicalize().unwrap().join("app");
    let repo = plandeck_testkit::git::new_repo(&dir, &[("a.txt", "a\n")]);
    plandeck_testkit::git::git(&dir, &["branch", "taken"]);
    let make =
        |name: &str, base: Option<&str>| super::start::create_worktree(&repo, &dir, name, base);

    for bad in [
        "",
        "  ",
        "-x",
        "a..b",
        "has space",
        "x.lock",
        "HEAD",
        "a~1",
        "end/",
    ] {
        let err = make(bad, None).unwrap_err();
        assert!(
            matches!(err, ControlError::BadWorktreeName { .. }),
            "{bad:?}: {err}"
        );
        assert_eq!(IpcError::from(err).kind, ErrorKind::BadInput);
    }
    let err = make("feat", Some("no-such-base")).unwrap_err();
    assert!(matches!(err, ControlError::UnknownBase { .. }), "{err}");
    assert!(err.to_string().contains("no-such-base"), "{err}");
    let err = make("taken", None).unwrap_err();
    assert!(matches!(err, ControlError::BranchExists { .. }), "{err}");
    assert_eq!(IpcError::from(err).kind, ErrorKind::Conflict);
    let squatter = worktree_dir(&dir, "squat");
    std::fs::create_dir_all(&squatter).unwrap();
    let err = make("squat", None).unwrap_err();
    assert!(matches!(err, ControlError::WorktreeExists { .. }), "{err}");
    std::fs::remove_dir_all(squatter.parent().unwrap()).unwrap();
    // None of the refusals made a branch or a folder.
    let branches = plandeck_testkit::git::git(&dir, &["branch", "--format=%(refname:short)"]);
    let mut branches: Vec<&str> = branches.lines().collect();
    branches.sort_unstable();
    assert_eq!(branches, ["main", "taken"]);
    assert!(!dir.parent().unwrap().join("app.worktrees").exists());

    // Made: a branch named so off the base, checked out in `<repo>.worktrees/<name>`; undone,
    // nothing of it is left.
    let created = make("team/feat", Some("main")).unwrap();
    let made = created.path.clone();
    assert_eq!(made, dir.parent().unwrap().join("app.worktrees/team-feat"));
    assert!(made.join("a.txt").is_file());
    let head = plandeck_testkit::git::git(&made, &["rev-parse", "--abbrev-ref", "HEAD"]);
    assert_eq!(head.trim(), "team/feat");
    created.undo();
    assert!(!made.exists());
    assert!(!dir.parent().unwrap().join("app.worktrees").exists());
    let branches = plandeck_testkit::git::git(&dir, &["branch", "--list", "team/feat"]);
    assert_eq!(branches.trim(), "");
    let worktrees = plandeck_testkit::git::git(&dir, &["worktree", "list", "--porcelain"]);
    assert!(!worktrees.contains("team-feat"), "{worktrees}");
}

#[test]
fn each_agent_starts_in_plan_mode_with_its_prompt_as_its_own_argument() {
    let p = Path::new("/bin/x");
    let line = |agent, plan, id: Option<&str>, prompt: Option<&str>| {
        command_line(p, agent, plan, id, prompt)[1..].join(" | ")
    };
    assert_eq!(
        line(Agent::Claude, true, Some("u-1"), Some("plan it")),
        "--session-id | u-1 | --permission-mode | plan | plan it"
    );
    assert_eq!(
        line(Agent::Gemini, true, Some("u-1"), Some("plan it")),
        "--session-id | u-1 | --approval-mode | plan | -i | plan it"
    );
    // Codex CLI has no plan-mode flag: in plan mode the prompt is typed once Plan mode is on.
    assert_eq!(
        line(Agent::Codex, true, None, Some("plan it")),
        "--no-daemon"
    );
    assert_eq!(
        line(Agent::Codex, false, None, Some("plan it")),
        "--no-daemon | plan it"
    );
    // No prompt, no plan mode: the bare CLI. A prompt starting with `-` is no option.
    assert_eq!(line(Agent::Claude, false, None, Some("  ")), "");
    assert_eq!(line(Agent::Claude, false, None, Some("-rf")), " -rf");
    assert_eq!(
        resume_line(p, Agent::Claude, "u-1")[1..],
        ["--resume", "u-1"]
    );
    assert_eq!(
        resume_line(p, Agent::Gemini, "u-1")[1..],
        ["--resume", "u-1"]
    );
    assert_eq!(
        resume_line(p, Agent::Codex, "u-1")[1..],
        ["--no-daemon", "resume", "u-1"]
    );
}

#[test]
fn tmux_versions_are_read_from_tmux_v() {
    use crate::terminal::tmux_version;
    assert_eq!(tmux_version("3.3a"), Some((3, 3)));
    assert_eq!(tmux_version("tmux 3.3a"), Some((3, 3)));
    assert_eq!(tmux_version("tmux next-3.6"), Some((3, 6)));
    assert_eq!(tmux_version("2.9"), Some((2, 9)));
    assert_eq!(tmux_version("master"), None);
}

/// Screens the real CLIs drew (tmux `capture-pane`): the empty input box takes a message; a
/// draft, a card, a turn in progress or no input box are refused with the reason.
#[test]
fn the_real_screens_tell_a_waiting_agent_from_a_draft() {
    let ready = |agent, screen: &str, styled: &str| not_ready(agent, "%1", screen, styled);

    let claude_empty = fixture("claude-code-2.1.328", "input-empty.txt");
    assert!(ready(Agent::Claude, &claude_empty, "").is_none());
    let claude_draft = fixture("claude-code-2.1.328", "input-draft.txt");
    let err = ready(Agent::Claude, &claude_draft, "").unwrap();
    assert!(
        matches!(&err, ControlError::Draft { draft, .. } if draft == "draft words here"),
        "{err}"
    );
    let card = fixture("claude-code-2.1.328", "approval-card.txt");
    let err = ready(Agent::Claude, &card, "").unwrap();
    assert!(
        matches!(err, ControlError::Send(SendError::MenuOpen { .. })),
        "{err}"
    );
    // At work on a turn, its input box empty (a message typed now would be queued or lost).
    let working = fixture("claude-code-2.1.328", "working.txt");
    assert!(agents::claude::input_box_shown(&working));
    let err = ready(Agent::Claude, &working, "").unwrap();
    assert!(
        matches!(&err, ControlError::NotWaiting { why, .. } if why.contains("working")),
        "{err}"
    );
    let err = ready(Agent::Claude, "$ ls\n", "").unwrap();
    assert!(matches!(err, ControlError::NotWaiting { .. }), "{err}");

    // Gemini CLI draws the person's earlier message with `>` too: the box is the one under
    // the last rule.
    let gemini_empty = fixture("gemini-cli-0.61.0", "input-empty.txt");
    assert!(gemini_empty.contains(" > plan pagination"));
    assert!(ready(Agent::Gemini, &gemini_empty, "").is_none());
    let gemini_draft = fixture("gemini-cli-0.61.0", "input-draft.txt");
    let err = ready(Agent::Gemini, &gemini_draft, "").unwrap();
    assert!(
        matches!(&err, ControlError::Draft { draft, .. } if draft == "draft words here"),
        "{err}"
    );
    let card = fixture("gemini-cli-0.61.0", "approval-card.txt");
    assert!(ready(Agent::Gemini, &card, "").is_some());
    let working = fixture("gemini-cli-0.61.0", "working.txt");
    assert_eq!(
        agents::gemini::input_draft(&working).as_deref(),
        Some(""),
        "the box is empty while it works"
    );
    assert!(matches!(
        ready(Agent::Gemini, &working, ""),
        Some(ControlError::NotWaiting { why, .. }) if why.contains("working")
    ));

    let path = |n: &str| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/codex-cli-0.169.0/screens")
            .join(n)
    };
    let styled_empty = std::fs::read_to_string(path("composer-empty.ansi")).unwrap();
    let styled_draft = std::fs::read_to_string(path("composer-draft.ansi")).unwrap();
    let plain = |s: &str| {
        let mut out = String::new();
        let mut esc = false;
        for c in s.chars() {
            match (esc, c) {
                (false, '\u{1b}') => esc = true,
                (true, c) if c.is_ascii_alphabetic() => esc = false,
                (true, _) => {}
                (false, c) => out.push(c),
            }
        }
        out
    };
    assert!(ready(Agent::Codex, &plain(&styled_empty), &styled_empty).is_none());
    let err = ready(Agent::Codex, &plain(&styled_draft), &styled_draft).unwrap();
    assert!(matches!(err, ControlError::Draft { .. }), "{err}");
    let card = fixture("codex-cli-0.169.0", "approval-card.txt");
    assert!(ready(Agent::Codex, &card, &card).is_some());
    let styled_working = std::fs::read_to_string(path("working.ansi")).unwrap();
    assert_eq!(agents::codex::composer_empty(&styled_working), Some(true));
    assert!(matches!(
        ready(Agent::Codex, &plain(&styled_working), &styled_working),
        Some(ControlError::NotWaiting { why, .. }) if why.contains("working")
    ));
}

#[test]
fn only_the_agents_own_cli_counts_as_the_agent() {
    let argv = |s: &str| s.split(' ').map(str::to_owned).collect::<Vec<_>>();
    assert!(runs_agent(
        Agent::Claude,
        &argv("/home/me/.local/bin/claude --resume x")
    ));
    assert!(runs_agent(
        Agent::Gemini,
        &argv("node /usr/lib/node_modules/.bin/gemini --approval-mode plan")
    ));
    assert!(runs_agent(
        Agent::Gemini,
        &argv("/usr/bin/node --max-old-space-size=12052 /x/node_modules/@google/gemini-cli/dist/index.js")
    ));
    assert!(runs_agent(
        Agent::Codex,
        &argv("/x/vendor/bin/codex --no-daemon")
    ));
    assert!(runs_agent(
        Agent::Claude,
        &argv("/bin/bash /tmp/fake/claude")
    ));
    // The person's shell, an editor, another agent: never.
    assert!(!runs_agent(Agent::Claude, &argv("-bash")));
    assert!(!runs_agent(Agent::Claude, &argv("bash")));
    assert!(!runs_agent(Agent::Claude, &argv("vim claude.md")));
    assert!(!runs_agent(Agent::Claude, &argv("/x/bin/codex")));
    assert!(!runs_agent(Agent::Claude, &argv("bash -c claude")));
    assert!(!runs_agent(Agent::Claude, &[]));
}

fn roots_in(dir: &Path) -> Roots {
    Roots::under_home(&dir.join("home"))
}

fn recorded(roots: &Roots, agent: Agent, name: &str, socket: Option<&Path>, pane: &str, pid: u32) {
    record::write(
        roots,
        &Record {
            agent,
            tmux_session: name.into(),
            socket: socket.map(|s| s.display().to_string()),
            pane: pane.into(),
            pid,
            start_time: crate::terminal::start_time(pid),
            cwd: "/w".into(),
            session_id: Some(format!("{name}-id")),
        },
    )
    .unwrap();
}

/// A process named like `agent`'s CLI (a `sleep` under the CLI's name), leading its own group.
fn fake_agent(dir: &Path, name: &str) -> std::process::Child {
    use std::os::unix::process::CommandExt;
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let link = bin.join(name);
    let _ = std::os::unix::fs::symlink("/bin/sleep", &link);
    std::process::Command::new(&link)
        .arg("600")
        .process_group(0)
        .stdin(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

#[test]
fn stop_lists_the_agent_first_ends_only_it_and_refuses_a_changed_list() {
    let tmp = tempfile::tempdir().unwrap();
    let roots = roots_in(tmp.path());
    let mut agent = fake_agent(tmp.path(), "claude");
    let pid = agent.id();
    recorded(&roots, Agent::Claude, "app-feat-claude", None, "%1", pid);
    let preview = stop_preview(&roots, "app-feat-claude").unwrap();
    assert_eq!(preview.pid, pid);
    assert_eq!(preview.processes[0].pid, pid);
    assert!(
        preview.command.ends_with("/bin/claude 600"),
        "{}",
        preview.command
    );
    // By session id too.
    assert_eq!(
        stop_preview(&roots, "app-feat-claude-id").unwrap().token,
        preview.token
    );
    let err = stop(&roots, "app-feat-claude", "not-the-token").unwrap_err();
    assert!(matches!(err, ControlError::StopChanged { .. }), "{err}");
    assert_eq!(IpcError::from(err).kind, ErrorKind::Conflict);
    assert!(crate::process::is_running(
        pid,
        crate::terminal::start_time(pid)
    ));
    let outcome = stop(&roots, "app-feat-claude", &preview.token).unwrap();
    assert_eq!(outcome.ended, [pid]);
    let _ = agent.wait();
    // Ended: nothing more to stop; it can be resumed instead.
    let err = stop_preview(&roots, "app-feat-claude").unwrap_err();
    assert!(matches!(err, ControlError::Ended { .. }), "{err}");
}

#[test]
fn stop_refuses_a_persons_own_process() {
    let tmp = tempfile::tempdir().unwrap();
    let roots = roots_in(tmp.path());
    let mut shell = std::process::Command::new("bash")
        .args(["-c", "sleep 600"])
        .stdin(std::process::Stdio::null())
        .spawn()
        .unwrap();
    recorded(&roots, Agent::Claude, "mine", None, "%1", shell.id());
    let err = stop_preview(&roots, "mine").unwrap_err();
    assert!(matches!(err, ControlError::NotAgentProcess { .. }), "{err}");
    assert!(err.to_string().contains("nothing was ended"), "{err}");
    assert_eq!(IpcError::from(err.clone()).kind, ErrorKind::Refused);
    assert!(stop(&roots, "mine", "any").is_err());
    assert!(crate::process::is_running(shell.id(), None));
    let _ = shell.kill();
    let _ = shell.wait();
    // An id Plandeck does not know.
    let err = stop_preview(&roots, "nobody").unwrap_err();
    assert!(matches!(err, ControlError::NotSteerable { .. }), "{err}");
}

/// A pane standing in for Claude Code: its input box drawn with `box_line` in it, then every
/// byte typed recorded into `got` (echoed on screen when `echo`).
fn claude_pane(dir: &Path, box_line: &str) -> (Tmux, String, u32, PathBuf) {
    let got = dir.join("got");
    let ready = dir.join("ready");
    let rule = "─".repeat(40);
    let script = format!(
        "printf '\\033[?2004h{rule}\\n{box_line}\\n{rule}\\n'; stty raw; touch {r}; exec cat > {g}\n",
        r = ready.display(),
        g = got.display()
    );
    let (server, pane, pid) = Tmux::start(dir, &script);
    wait_for("the pane", || ready.exists().then_some(()));
    let comm = format!("/proc/{pid}/comm");
    wait_for("the pane's program", || {
        (std::fs::read_to_string(&comm).ok()?.trim() == "cat").then_some(())
    });
    (server, pane, pid, got)
}

fn read(path: &Path) -> String {
    String::from_utf8_lossy(&std::fs::read(path).unwrap_or_default()).into_owned()
}

#[test]
fn a_message_is_refused_onto_a_draft_and_typed_into_an_empty_box() {
    let tmp = tempfile::tempdir().unwrap();
    let roots = roots_in(tmp.path());
    let drafting = tmp.path().join("drafting");
    std::fs::create_dir_all(&drafting).unwrap();
    let (server, pane, pid, got) = claude_pane(&drafting, "❯ half a thought");
    recorded(
        &roots,
        Agent::Claude,
        "drafting",
        Some(&server.socket),
        &pane,
        pid,
    );
    let err = send_message(&roots, "drafting", "do the next step").unwrap_err();
    assert!(
        matches!(&err, ControlError::Draft { draft, .. } if draft == "half a thought"),
        "{err}"
    );
    assert_eq!(IpcError::from(err).kind, ErrorKind::Refused);
    Recording::at(&got).assert_nothing_typed_in(&server, &pane);

    let idle = tmp.path().join("idle");
    std::fs::create_dir_all(&idle).unwrap();
    let (server, pane, pid, got) = claude_pane(&idle, "❯ ");
    recorded(
        &roots,
        Agent::Claude,
        "idle",
        Some(&server.socket),
        &pane,
        pid,
    );
    let said = send_message(&roots, "idle", "do the next step").unwrap();
    assert!(said.contains(&pane), "{said}");
    let typed = wait_for("the Enter", || {
        let g = read(&got);
        g.ends_with('\r').then_some(g)
    });
    assert_eq!(typed, "do the next step\r");
    assert!(matches!(
        send_message(&roots, "idle", "  "),
        Err(ControlError::Send(SendError::Empty))
    ));
}

#[test]
fn interrupt_presses_esc_in_the_agents_own_pane_only() {
    let tmp = tempfile::tempdir().unwrap();
    let roots = roots_in(tmp.path());
    let (server, pane, pid, got) = claude_pane(tmp.path(), "❯ ");
    recorded(
        &roots,
        Agent::Claude,
        "busy",
        Some(&server.socket),
        &pane,
        pid,
    );
    let said = interrupt(&roots, "busy").unwrap();
    assert!(said.contains("Esc"), "{said}");
    wait_for("the Esc", || (read(&got) == "\u{1b}").then_some(()));
    // A record whose process is not in that pane: nothing is pressed.
    let mut other = fake_agent(tmp.path(), "claude");
    recorded(
        &roots,
        Agent::Claude,
        "elsewhere",
        Some(&server.socket),
        &pane,
        other.id(),
    );
    let err = interrupt(&roots, "elsewhere").unwrap_err();
    assert!(matches!(err, ControlError::Terminal(_)), "{err}");
    let _ = other.kill();
    let _ = other.wait();
    assert_eq!(read(&got), "\u{1b}");
}

#[test]
fn interrupt_never_answers_an_open_approval_card() {
    let tmp = tempfile::tempdir().unwrap();
    let roots = roots_in(tmp.path());
    let (server, pane, pid, got) = claude_pane(
        tmp.path(),
        "❯ 1. Yes, and use auto mode\\n  2. Yes, manually approve edits\\n  3. Tell Claude what to change",
    );
    recorded(
        &roots,
        Agent::Claude,
        "card",
        Some(&server.socket),
        &pane,
        pid,
    );
    let err = interrupt(&roots, "card").unwrap_err();
    assert!(
        matches!(err, ControlError::Send(SendError::MenuOpen { .. })),
        "{err}"
    );
    Recording::at(&got).assert_nothing_typed_in(&server, &pane);
}

/// A session Plandeck started whose agent keeps no registry (Gemini CLI, Codex CLI) is listed
/// with its agent's pid and pane, so its card offers a terminal view and steering; a record whose
/// agent is gone, or of another agent, fills nothing.
#[test]
fn a_started_session_is_listed_with_its_agents_pid_and_pane() {
    let tmp = tempfile::tempdir().unwrap();
    let roots = Roots::under_home(tmp.path());
    let mut sleeper = std::process::Command::new("sleep")
        .arg("60")
        .spawn()
        .unwrap();
    let pid = sleeper.id();
    let write = |agent, name: &str, pid| {
        record::write(
            &roots,
            &Record {
                agent,
                tmux_session: name.into(),
                socket: None,
                pane: "%7".into(),
                pid,
                start_time: crate::terminal::start_time(pid),
                cwd: "/w".into(),
                session_id: Some(format!("{name}-id")),
            },
        )
        .unwrap();
    };
    write(Agent::Gemini, "live", pid);
    write(Agent::Gemini, "gone", 999_999_999);
    let summary = |id: &str, agent| crate::sessions::SessionSummary {
        agent,
        session_id: id.into(),
        cwd: "/w".into(),
        state: crate::sessions::SessionState::Working,
        permission_mode: None,
        plan_path: None,
        worktree: None,
        last_activity: None,
        git_branch: None,
        tmux_pane: None,
        pid: None,
        version: None,
        model: None,
        name: None,
        title: None,
        doing: None,
        unreadable_lines: 0,
        tasks: None,
        transcript_path: None,
        review_state: None,
        machine: None,
        usage: None,
    };
    let mut list = vec![
        summary("live-id", Agent::Gemini),
        summary("gone-id", Agent::Gemini),
        summary("live-id", Agent::Codex),
    ];
    fill_started(&roots, &mut list);
    assert_eq!(
        (list[0].pid, list[0].tmux_pane.as_deref()),
        (Some(pid), Some("%7"))
    );
    assert_eq!((list[1].pid, list[1].tmux_pane.as_deref()), (None, None));
    assert_eq!((list[2].pid, list[2].tmux_pane.as_deref()), (None, None));
    let _ = sleeper.kill();
    let _ = sleeper.wait();
}

/// Two starts at once (issue 33, finding 14): start B passed its checks before start A made its
/// branch and worktree, then failed to make its own. B's undo removes only what B made: A's
/// worktree, its files, its branch and the `<repo>.worktrees` folder stay.
#[test]
fn a_failed_start_undoes_only_what_it_made_never_a_concurrent_starts_worktree() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().canonicalize().unwrap().join("app");
    let repo = plandeck_testkit::git::new_repo(&dir, &[("a.txt", "a\n")]);
    let a = super::start::create_worktree(&repo, &dir, "team/x", None).unwrap();
    std::fs::write(a.path.join("work.txt"), "A's work\n").unwrap();
    let commit = repo.head().unwrap().peel_to_commit().unwrap();
    let a_is_whole = || {
        assert_eq!(
            std::fs::read_to_string(a.path.join("work.txt")).unwrap(),
            "A's work\n"
        );
        let head = plandeck_testkit::git::git(&a.path, &["rev-parse", "--abbrev-ref", "HEAD"]);
        assert_eq!(head.trim(), "team/x");
        let list = plandeck_testkit::git::git(&dir, &["worktree", "list", "--porcelain"]);
        assert!(list.contains(&a.path.display().to_string()), "{list}");
    };
    // The same name: the branch is A's by now.
    let err = super::start::make_worktree(&repo, &dir, "team/x", &commit).unwrap_err();
    assert!(matches!(err, ControlError::Git { .. }), "{err}");
    a_is_whole();
    // Another branch whose folder is A's (`team/x` and `team-x` both go to `team-x`): B made its
    // branch, then the worktree failed; B removes its branch and nothing of A's.
    let err = super::start::make_worktree(&repo, &dir, "team-x", &commit).unwrap_err();
    assert!(matches!(err, ControlError::Git { .. }), "{err}");
    a_is_whole();
    let branches = plandeck_testkit::git::git(&dir, &["branch", "--format=%(refname:short)"]);
    let mut branches: Vec<&str> = branches.lines().collect();
    branches.sort_unstable();
    assert_eq!(branches, ["main", "team/x"]);
    // A's own undo still removes A's.
    a.undo();
    assert!(!a.path.exists());
    assert!(!dir.parent().unwrap().join("app.worktrees").exists());
}

/// After a start, the pane's folder as tmux sees it (`#{pane_current_path}`) must be the folder
/// reported: another is refused with both named.
#[test]
fn an_agent_tmux_started_in_another_folder_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let (here, there) = (root.join("here"), root.join("there#S"));
    std::fs::create_dir_all(&here).unwrap();
    std::fs::create_dir_all(&there).unwrap();
    let server = Tmux::server(&root);
    let (pane, pid) = server.session("s", &here, "sleep 600");
    let socket = server.socket.display().to_string();
    let on = super::start::Server {
        socket: Some(&socket),
        settle: std::time::Duration::ZERO,
    };
    super::start::check_folder(on, &pane, pid, &here).unwrap();
    let err = super::start::check_folder(on, &pane, pid, &there).unwrap_err();
    assert!(
        matches!(&err, ControlError::WrongFolder { folder, got }
            if *folder == there.display().to_string() && *got == here.display().to_string()),
        "{err}"
    );
    assert!(err.to_string().contains("not in its folder"), "{err}");
}

/// An agent that ends while tmux writes its pane's end to utmp: tmux 3.3a built with utempter
/// loses that exit, the pane is dead with no status and the agent a zombie
/// (`terminal::tmux::collect_exited`). The start still says the agent's exit status. The fake
/// agent closes its terminal (tmux marks the pane dead and runs its utempter helper) and exits at
/// once, which here loses about a third of the exits: a dozen starts lose one all but surely.
#[test]
fn an_agent_whose_exit_tmux_lost_is_refused_with_its_exit_status() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let server = Tmux::server(&root);
    let socket = server.socket.display().to_string();
    let on = super::start::Server {
        socket: Some(&socket),
        settle: std::time::Duration::ZERO,
    };
    let agent = root.join("agent");
    std::fs::write(
        &agent,
        "#!/bin/bash\ntrap '' HUP\nexec 0<&- 1>&- 2>&-\nexit 7\n",
    )
    .unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&agent, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    for _ in 0..12 {
        let err = super::start::launch(
            on,
            Agent::Claude,
            &root,
            None,
            &root,
            &[agent.display().to_string()],
        )
        .unwrap_err();
        assert!(
            matches!(&err, ControlError::AgentExited { last, .. } if last.contains("exit status 7")),
            "{err}"
        );
    }
}
