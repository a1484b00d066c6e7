//! `plandeck agents list`: terminal and ACP agents, found on the PATH or under the npm prefix.

use crate::common::{plandeck, plandeck_in, plandeck_process, write_executable};

#[test]
fn agents_list_json_names_every_agent_its_kind_command_and_whether_it_was_found() {
    let t = tempfile::tempdir().unwrap();
    let (bin, prefix) = (t.path().join("bin"), t.path().join("npm"));
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(prefix.join("bin")).unwrap();
    write_executable(&bin.join("codex"), "#!/bin/sh\n", 0o755);
    write_executable(&prefix.join("bin/claude-agent-acp"), "#!/bin/sh\n", 0o755);
    let (code, out, err) = plandeck_in(
        &[
            ("HOME", t.path().to_str().unwrap()),
            ("PATH", bin.to_str().unwrap()),
            ("NPM_CONFIG_PREFIX", prefix.to_str().unwrap()),
        ],
        &["agents", "list", "--json"],
    );
    assert_eq!(code, 0, "{err}");
    let rows: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
    let row = |n: &str| rows.iter().find(|r| r["name"] == n).unwrap().clone();
    assert_eq!(row("codex")["kind"], "terminal");
    assert_eq!(row("codex")["found"], true);
    assert_eq!(row("claude")["found"], false);
    let acp = row("claude-acp");
    assert_eq!(acp["kind"], "acp");
    assert_eq!(acp["command"], "claude-agent-acp");
    assert_eq!(acp["found"], true);
    assert_eq!(
        acp["path"],
        prefix.join("bin/claude-agent-acp").to_str().unwrap()
    );
    assert_eq!(acp["capabilities"]["planGate"], true);
    assert_eq!(acp["capabilities"]["permissions"], true);
    assert_eq!(row("codex-acp")["capabilities"]["planGate"], false);
    assert_eq!(row("gemini-acp")["command"], "gemini --acp");
    assert_eq!(row("opencode")["found"], false);
    assert_eq!(rows.len(), 7);

    let (code, out, _) = plandeck_in(
        &[
            ("HOME", t.path().to_str().unwrap()),
            ("PATH", bin.to_str().unwrap()),
        ],
        &["agents", "list"],
    );
    assert_eq!(code, 0);
    assert!(
        out.contains("claude-acp")
            && out.contains("(npm package @zed-industries/claude-agent-acp)"),
        "{out}"
    );
}

/// node's absolute path (the scripted agent runs on it); the test fails loudly without it.
pub(crate) fn node() -> std::path::PathBuf {
    std::env::split_paths(&std::env::var_os("PATH").unwrap())
        .map(|d| d.join("node"))
        .find(|n| n.is_file())
        .expect("node is needed on the PATH for the scripted ACP agent")
}

#[test]
fn agents_check_starts_an_acp_agent_in_plan_mode_and_rejects_its_plan_with_the_feedback_as_next_prompt(
) {
    let Scripted {
        t: _t,
        home,
        bin,
        repo,
        log,
    } = Scripted::new("plan", false);
    let feedback = "Keyset pagination; keep `rm -rf /` as text.";
    let (code, out, err) = plandeck_in(
        &[
            ("HOME", home.to_str().unwrap()),
            ("PATH", bin.to_str().unwrap()),
            ("IS_SANDBOX", "yes"),
        ],
        &[
            "agents",
            "check",
            "claude-acp",
            "--repo",
            repo.to_str().unwrap(),
            "--feedback",
            feedback,
            "--json",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["planMode"], true);
    assert_eq!(v["agentInfo"]["name"], "acp-scripted");
    let first = &v["turns"][0];
    assert_eq!(first["requests"][0]["kind"], "plan");
    assert_eq!(first["requests"][0]["outcome"], "rejected");
    assert_eq!(first["requests"][0]["optionId"], "plan");
    assert_eq!(first["mode"], "plan");
    assert_eq!(first["gated"], true);
    assert_eq!(v["turns"].as_array().unwrap().len(), 2);
    let read = read_log(&log);
    let prompts: Vec<_> = read
        .iter()
        .filter(|f| f["method"] == "session/prompt")
        .collect();
    assert_eq!(prompts[1]["params"]["prompt"][0]["text"], feedback);
    assert!(read
        .iter()
        .any(|f| f["method"] == "session/set_mode" && f["params"]["modeId"] == "plan"));
}

#[test]
fn agents_check_of_an_agent_not_installed_names_its_package() {
    let t = tempfile::tempdir().unwrap();
    let (code, out, _) = plandeck_in(
        &[
            ("HOME", t.path().to_str().unwrap()),
            ("PATH", "/nonexistent"),
        ],
        &[
            "agents",
            "check",
            "codex-acp",
            "--repo",
            t.path().to_str().unwrap(),
            "--json",
        ],
    );
    assert_ne!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["error"]["kind"], "notFound");
    assert!(v["error"]["message"]
        .as_str()
        .unwrap()
        .contains("@zed-industries/codex-acp"));
    let (code, out, _) = plandeck_in(
        &[("HOME", t.path().to_str().unwrap())],
        &["agents", "check", "claude", "--repo", ".", "--json"],
    );
    assert_ne!(code, 0);
    assert!(out.contains("is no ACP agent"), "{out}");
}

/// A `claude-agent-acp` on `bin` that is the scripted ACP agent playing `scenario`.
fn scripted_claude_acp(bin: &std::path::Path, scenario: &str, log: &std::path::Path) {
    scripted_as(bin, "claude-agent-acp", scenario, log);
}

/// The program `program` on `bin` that is the scripted ACP agent playing `scenario` (its own
/// arguments left out).
pub(crate) fn scripted_as(
    bin: &std::path::Path,
    program: &str,
    scenario: &str,
    log: &std::path::Path,
) {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/agents/acp-scripted.mjs");
    std::fs::create_dir_all(bin).unwrap();
    write_executable(
        &bin.join(program),
        &format!(
            "#!/bin/sh\nexec '{}' '{}' --scenario {scenario} --log '{}'\n",
            node().display(),
            script.display(),
            log.display()
        ),
        0o755,
    );
}

/// A test's folders: a home, `bin` with the scripted ACP agent playing a scenario as
/// `claude-agent-acp`, the log of what the agent read, and a repo (an empty folder, or a git
/// repository with one commit).
struct Scripted {
    /// Holds the folders (removed when it goes: bind it, `t: _t`, for as long as they are used).
    t: tempfile::TempDir,
    home: std::path::PathBuf,
    bin: std::path::PathBuf,
    repo: std::path::PathBuf,
    log: std::path::PathBuf,
}

impl Scripted {
    fn new(scenario: &str, git: bool) -> Self {
        let t = tempfile::tempdir().unwrap();
        let (home, bin, repo) = (
            t.path().join("home"),
            t.path().join("bin"),
            t.path().join("repo"),
        );
        std::fs::create_dir_all(&home).unwrap();
        if git {
            plandeck_testkit::verify::git_init(&repo, &[("README.md", "# r\n")], 1_700_000_000);
        } else {
            std::fs::create_dir_all(&repo).unwrap();
        }
        let log = t.path().join("agent-read.jsonl");
        scripted_claude_acp(&bin, scenario, &log);
        Self {
            t,
            home,
            bin,
            repo,
            log,
        }
    }
}

/// `plandeck agents check claude-acp --repo <repo> --wait --json` with `bin` as the PATH,
/// running, its output piped.
fn check_waiting(home: &std::path::Path, bin: &std::path::Path, repo: &std::path::Path) -> Host {
    plandeck_process(home)
        .env("PATH", bin)
        .args(["agents", "check", "claude-acp", "--repo"])
        .arg(repo)
        .args(["--wait", "--json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map(|c| Host(Some(c)))
        .unwrap()
}

/// `plandeck start --agent claude-acp --repo <repo> <args>` with `bin` as the PATH, run to its end.
fn start_hosted(
    home: &std::path::Path,
    bin: &std::path::Path,
    repo: &std::path::Path,
    args: &[&str],
) -> std::process::Output {
    plandeck_process(home)
        .env("PATH", bin)
        .args(["start", "--agent", "claude-acp", "--repo"])
        .arg(repo)
        .args(args)
        .output()
        .unwrap()
}

fn read_log(log: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `agents check`'s report once it ended (it must succeed), and the option the agent was answered
/// with (the first answer in the log of what it read).
fn checked_and_answered(host: Host, log: &std::path::Path) -> (serde_json::Value, String) {
    let done = host.output();
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let answer = read_log(log)
        .into_iter()
        .find(|f| f["result"]["outcome"]["optionId"].is_string())
        .expect("the agent was answered");
    (
        serde_json::from_slice(&done.stdout).unwrap(),
        answer["result"]["outcome"]["optionId"]
            .as_str()
            .unwrap()
            .to_owned(),
    )
}

/// A host process that is ended when the test ends, passed or not (never left waiting).
struct Host(Option<std::process::Child>);

impl Host {
    fn output(mut self) -> std::process::Output {
        self.0.take().unwrap().wait_with_output().unwrap()
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The one ACP row `pending --json` lists, once it does.
fn pending_acp_row(home: &std::path::Path) -> serde_json::Value {
    plandeck_testkit::wait_for("an ACP request in pending --json", || {
        let (code, out, _) = plandeck(home, &["pending", "--json"]);
        assert_eq!(code, 0, "{out}");
        let rows: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
        rows.into_iter()
            .find(|r| r["id"].as_str().is_some_and(|i| i.starts_with("acp-")))
    })
}

#[test]
fn an_acp_plan_waits_in_pending_with_its_kind_and_reject_sends_the_feedback_as_the_next_prompt() {
    let Scripted {
        t: _t,
        home,
        bin,
        repo,
        log,
    } = Scripted::new("plan", false);
    let host = check_waiting(&home, &bin, &repo);
    let row = pending_acp_row(&home);
    assert_eq!(row["kind"], "plan");
    assert_eq!(row["agent"], "claude-acp");
    assert_eq!(row["title"], "Ready to code?");
    assert!(row["plan"]
        .as_str()
        .unwrap()
        .starts_with("# Plan: add pagination"));
    assert_eq!(row["planPath"], serde_json::Value::Null);
    let id = row["id"].as_str().unwrap().to_owned();
    let hash = row["planHash"].as_str().unwrap().to_owned();

    // A decision tied to another version is refused; then the rejection goes, once.
    let (code, out, _) = plandeck(
        &home,
        &[
            "reject",
            &id,
            "--feedback",
            "x",
            "--expect-hash",
            "00",
            "--json",
        ],
    );
    assert_ne!(code, 0);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&out).unwrap()["error"]["kind"],
        "conflict",
        "{out}"
    );
    let feedback = "Keyset pagination, please.";
    let (code, out, err) = plandeck(
        &home,
        &[
            "reject",
            &id,
            "--feedback",
            feedback,
            "--expect-hash",
            &hash,
            "--json",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (v["kind"].as_str(), v["decision"].as_str()),
        (Some("plan"), Some("reject"))
    );
    let (code, _, _) = plandeck(&home, &["approve", &id, "--json"]);
    assert_ne!(code, 0, "a second decision is refused");

    let done = host.output();
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&done.stdout).unwrap();
    assert_eq!(report["turns"][0]["requests"][0]["outcome"], "rejected");
    assert_eq!(report["turns"][0]["requests"][0]["optionId"], "plan");
    let read = read_log(&log);
    let prompts: Vec<_> = read
        .iter()
        .filter(|f| f["method"] == "session/prompt")
        .collect();
    assert_eq!(prompts.len(), 2);
    assert_eq!(prompts[1]["params"]["prompt"][0]["text"], feedback);
    let (_, out, _) = plandeck(&home, &["pending", "--json"]);
    assert!(!out.contains(&id), "closed: {out}");
}

/// Edit-and-approve over ACP: the answer to the permission carries only the option (the scripted
/// agent plays claude-agent-acp 0.23, which answers ExitPlanMode with its own input), so the plan
/// is approved with the agent's allow option and the edited plan is the next prompt, said so.
#[test]
fn an_acp_plan_approved_with_an_edit_is_approved_and_the_edit_is_the_next_prompt() {
    let Scripted {
        t,
        home,
        bin,
        repo,
        log,
    } = Scripted::new("plan", false);
    let host = check_waiting(&home, &bin, &repo);
    let row = pending_acp_row(&home);
    let id = row["id"].as_str().unwrap().to_owned();
    let edit = t.path().join("edited.md");
    let edited = "# Plan: add pagination\n\n1. Keyset pagination on `id`\n2. Write tests\n";
    std::fs::write(&edit, edited).unwrap();
    let (code, out, err) = plandeck(
        &home,
        &["approve", &id, "--edit", edit.to_str().unwrap(), "--json"],
    );
    assert_eq!(code, 0, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["decision"], "approve");
    let option = v["optionId"].as_str().unwrap().to_owned();
    assert!(
        ["acceptEdits", "default"].contains(&option.as_str()),
        "{out}"
    );
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("edited plan goes to it as the next prompt"),
        "{out}"
    );

    let done = host.output();
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&done.stdout).unwrap();
    assert_eq!(report["turns"][0]["requests"][0]["outcome"], "approved");
    let read = read_log(&log);
    let answer = read
        .iter()
        .find(|f| f["method"].is_null() && f["result"]["outcome"].is_object())
        .unwrap();
    assert_eq!(
        answer["result"],
        serde_json::json!({"outcome": {"outcome": "selected", "optionId": option}})
    );
    let prompts: Vec<_> = read
        .iter()
        .filter(|f| f["method"] == "session/prompt")
        .collect();
    assert_eq!(prompts.len(), 2);
    let next = prompts[1]["params"]["prompt"][0]["text"].as_str().unwrap();
    assert!(next.ends_with(edited), "{next}");
    assert!(
        next.contains("approved with the reviewer's edits"),
        "{next}"
    );
    // An edit of a tool permission is refused: only plans are edited.
}

#[test]
fn an_acp_tool_permission_waits_as_kind_permission_and_approve_answers_with_the_agents_option() {
    let Scripted {
        t: _t,
        home,
        bin,
        repo,
        log,
    } = Scripted::new("tool", false);
    let host = check_waiting(&home, &bin, &repo);
    let row = pending_acp_row(&home);
    assert_eq!(row["kind"], "permission");
    assert_eq!(row["command"], "ls -la");
    assert_eq!(row["planHash"], serde_json::Value::Null);
    let id = row["id"].as_str().unwrap().to_owned();
    let (code, _, _) = plandeck(&home, &["pending"]);
    assert_eq!(code, 0);
    // --mode manual: the agent's "once" option.
    let (code, out, err) = plandeck(&home, &["approve", &id, "--mode", "manual", "--json"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&out).unwrap()["optionId"],
        "allow"
    );
    let (report, answered) = checked_and_answered(host, &log);
    assert_eq!(report["turns"][0]["requests"][0]["outcome"], "approved");
    assert_eq!(answered, "allow");
}

#[test]
fn approve_option_answers_with_the_agents_own_option_named_and_refuses_one_it_did_not_offer() {
    let Scripted {
        t: _t,
        home,
        bin,
        repo,
        log,
    } = Scripted::new("tool", false);
    let host = check_waiting(&home, &bin, &repo);
    let row = pending_acp_row(&home);
    let id = row["id"].as_str().unwrap().to_owned();
    // Not one of this request's allow options: refused, nothing decided; nor is a rejection
    // answered with an option that is not one of its reject options.
    for (args, why) in [
        (["approve", "bogus", ""], "as a way to allow"),
        (["approve", "reject", ""], "as a way to allow"),
        (["reject", "bogus", "--feedback"], "as a way to reject"),
        (["reject", "always", "--feedback"], "as a way to reject"),
    ] {
        let [verb, option, feedback] = args;
        let mut argv = vec![verb, id.as_str(), "--option", option, "--json"];
        if !feedback.is_empty() {
            argv.extend([feedback, "no"]);
        }
        let (code, out, _) = plandeck(&home, &argv);
        assert_ne!(code, 0, "{out}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["error"]["kind"], "badInput", "{v}");
        let message = v["error"]["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("did not offer {option:?} {why}")),
            "{v}"
        );
        assert_eq!(pending_acp_row(&home)["id"], id.as_str(), "still waiting");
    }
    // --option on a plan file (not a waiting request): refused with what it is for.
    let plan = home.join("a-plan.md");
    std::fs::write(&plan, "# Plan\n\n1. One\n").unwrap();
    let (code, out, _) = plandeck(
        &home,
        &[
            "approve",
            plan.to_str().unwrap(),
            "--option",
            "always",
            "--json",
        ],
    );
    assert_ne!(code, 0, "{out}");
    assert!(
        out.contains("--option names an ACP agent's option"),
        "{out}"
    );
    // The person's own pick of the agent's "always allow": answered with it.
    let (code, out, err) = plandeck(&home, &["approve", &id, "--option", "always", "--json"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&out).unwrap()["optionId"],
        "always"
    );
    let (report, answered) = checked_and_answered(host, &log);
    assert_eq!(report["turns"][0]["requests"][0]["optionId"], "always");
    assert_eq!(answered, "always");
}

#[test]
fn an_acp_agent_that_dies_with_a_request_waiting_leaves_it_with_no_outcome() {
    let Scripted {
        t: _t,
        home,
        bin,
        repo,
        log: _,
    } = Scripted::new("die", false);
    let done = plandeck_process(&home)
        .env("PATH", &bin)
        .args(["agents", "check", "claude-acp", "--repo"])
        .arg(&repo)
        .args(["--wait", "--json"])
        .output()
        .unwrap();
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&done.stdout).unwrap();
    let turn = &report["turns"][0];
    assert_eq!(turn["agentEnded"], true);
    assert_eq!(turn["requests"][0]["kind"], "plan");
    assert_eq!(turn["requests"][0]["outcome"], "noOutcome");
    let (_, out, _) = plandeck(&home, &["pending", "--json"]);
    assert_eq!(out.trim(), "[]");
    // One store: the request was filed, and closed, in the gate's.
    assert!(!home.join(".local/share/plandeck/acp").exists());
    let done = std::fs::read_dir(home.join(".local/share/plandeck/gate/done"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let id = done.file_stem().unwrap().to_str().unwrap().to_owned();
    let (code, out, _) = plandeck(&home, &["approve", &id, "--json"]);
    assert_ne!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["error"]["kind"], "conflict");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("AgentGone"),
        "{v}"
    );
}

/// The server started for the test (`plandeck start --agent` starts it when none runs), ended
/// with the test, by the pid its lock names.
struct Server(std::path::PathBuf);

impl Drop for Server {
    fn drop(&mut self) {
        let Ok(dir) = std::fs::read_dir(&self.0) else {
            return;
        };
        for e in dir.flatten() {
            let name = e.file_name();
            if !name.to_string_lossy().ends_with(".lock") {
                continue;
            }
            if let Some(pid) = std::fs::read_to_string(e.path())
                .ok()
                .and_then(|t| t.trim().parse::<i32>().ok())
            {
                let _ = std::process::Command::new("kill")
                    .arg(pid.to_string())
                    .status();
            }
        }
    }
}

/// The ACP row of `sessions list --json` for session `id`, once `ready` says so.
fn acp_session_row(
    home: &std::path::Path,
    id: &str,
    what: &str,
    ready: impl Fn(&serde_json::Value) -> bool,
) -> serde_json::Value {
    plandeck_testkit::wait_for(what, || {
        let (code, out, _) = plandeck(home, &["sessions", "list", "--json"]);
        assert_eq!(code, 0, "{out}");
        let rows: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
        rows.into_iter()
            .find(|r| r["sessionId"] == id && r["kind"] == "acp")
            .filter(|r| ready(r))
    })
}

/// Issue 36: `plandeck start --agent claude-acp` asks this user's server to start and host the
/// agent: the command (like a window) may end, the session goes on; its plan waits in the gate's
/// queue; `sessions list --json` says its state, `gated` and `usage`; Send is a prompt only when
/// no turn runs, Interrupt is `session/cancel`, Stop ends the agent's process group.
#[test]
fn an_acp_agent_started_with_start_is_hosted_by_the_server_and_steered() {
    let Scripted {
        t: _t,
        home,
        bin,
        repo,
        log,
    } = Scripted::new("hosted", true);
    let _server = Server(home.join(".local/share/plandeck/serve"));
    let start = start_hosted(
        &home,
        &bin,
        &repo,
        &["--plan", "--prompt", "Plan pagination.", "--json"],
    );
    assert!(
        start.status.success(),
        "{}{}",
        String::from_utf8_lossy(&start.stdout),
        String::from_utf8_lossy(&start.stderr)
    );
    let started: serde_json::Value = serde_json::from_slice(&start.stdout).unwrap();
    let id = started["id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("acps-"), "{started}");
    assert_eq!(started["kind"], "acp");
    assert_ne!(
        started["hostPid"].as_u64(),
        Some(u64::from(start.status.code().unwrap_or(0) as u32)),
    );

    // The starting command has ended; the plan waits in the gate's queue all the same.
    let row = pending_acp_row(&home);
    assert_eq!(row["kind"], "plan");
    assert_eq!(row["agent"], "claude-acp");
    let (code, out, err) = plandeck(
        &home,
        &[
            "approve",
            row["id"].as_str().unwrap(),
            "--mode",
            "manual",
            "--expect-hash",
            row["planHash"].as_str().unwrap(),
            "--json",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&out).unwrap()["optionId"],
        "default"
    );

    let s = acp_session_row(&home, &id, "the first turn ended, with its usage", |r| {
        r["state"] == "idle" && r["usage"]["costUsd"].is_number()
    });
    assert_eq!(s["gated"], true, "{s}");
    assert_eq!(s["usage"]["inputTokens"], 10);
    assert_eq!(s["usage"]["outputTokens"], 5);
    assert_eq!(s["usage"]["costUsd"], 0.00054);
    assert_eq!(s["permissionMode"], "default");
    assert_eq!(s["agent"], "claude-acp");

    // Send: the next prompt, word for word.
    let (code, out, _) = plandeck(&home, &["send", &id, "hello there", "--json"]);
    assert_eq!(code, 0, "{out}");
    plandeck_testkit::wait_until("the agent got the message", || {
        read_log(&log).iter().any(|f| {
            f["method"] == "session/prompt" && f["params"]["prompt"][0]["text"] == "hello there"
        })
    });
    acp_session_row(&home, &id, "the turn ended", |r| r["state"] == "idle");
    // A turn held: Send is refused while it runs; Interrupt cancels it.
    let (code, _, _) = plandeck(&home, &["send", &id, "please hold"]);
    assert_eq!(code, 0);
    acp_session_row(&home, &id, "a turn runs", |r| r["state"] == "working");
    let (code, out, _) = plandeck(&home, &["send", &id, "more", "--json"]);
    assert_ne!(code, 0);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&out).unwrap()["error"]["kind"],
        "conflict",
        "{out}"
    );
    let (code, out, _) = plandeck(&home, &["interrupt", &id, "--json"]);
    assert_eq!(code, 0, "{out}");
    plandeck_testkit::wait_until("the agent was asked to cancel", || {
        read_log(&log)
            .iter()
            .any(|f| f["method"] == "session/cancel")
    });
    acp_session_row(&home, &id, "the held turn ended", |r| r["state"] == "idle");

    // Stop: listed first, then the agent's process group ends.
    let pid = s["pid"].as_u64().unwrap() as i32;
    let (code, out, _) = plandeck(&home, &["stop", &id]);
    assert_eq!(code, 0);
    assert!(out.contains("would end"), "{out}");
    // Every process it ends listed, the agent first; its watchdog, Plandeck's own, not.
    let first = out.lines().nth(1).unwrap_or_default();
    assert!(
        first.starts_with(&format!("  {pid} ")) && first.contains("acp-scripted.mjs"),
        "{out}"
    );
    assert!(!out.contains("kill -TERM 0"), "{out}");
    let (code, out, _) = plandeck(&home, &["stop", &id, "--yes", "--json"]);
    assert_eq!(code, 0, "{out}");
    acp_session_row(&home, &id, "the session ended", |r| r["state"] == "ended");
    plandeck_testkit::wait_until("the agent's process is gone", || {
        !std::path::Path::new(&format!("/proc/{pid}")).exists()
            || std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .is_ok_and(|s| s.contains(") Z "))
    });
}

/// Whether process `pid` has ended (gone, or a zombie not yet reaped).
fn ended(pid: u64) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |s| {
        s.rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'))
    })
}

/// The agents a server hosts end with it, however it ends: killed with SIGKILL (no chance to stop
/// them), the agent's watchdog sees its input close and ends the agent's process group. The
/// scripted agent plays one that goes on after its input closes (`--linger`), as
/// claude-agent-acp was seen to.
#[test]
fn a_hosted_agent_ends_when_its_server_is_killed() {
    let Scripted {
        t: _t,
        home,
        bin,
        repo,
        log: _,
    } = Scripted::new("hosted --linger", true);
    let _server = Server(home.join(".local/share/plandeck/serve"));
    let start = start_hosted(&home, &bin, &repo, &["--json"]);
    assert!(
        start.status.success(),
        "{}{}",
        String::from_utf8_lossy(&start.stdout),
        String::from_utf8_lossy(&start.stderr)
    );
    let started: serde_json::Value = serde_json::from_slice(&start.stdout).unwrap();
    let id = started["id"].as_str().unwrap().to_owned();
    let row = acp_session_row(&home, &id, "the agent started, idle", |r| {
        r["state"] == "idle" && r["pid"].is_u64()
    });
    let (agent, server) = (
        row["pid"].as_u64().unwrap(),
        row["hostPid"].as_u64().unwrap(),
    );
    assert!(!ended(agent), "{row}");
    // Never left running when the test fails.
    struct Agent(u64);
    impl Drop for Agent {
        fn drop(&mut self) {
            if !ended(self.0) {
                let _ = std::process::Command::new("kill")
                    .args(["-KILL", &self.0.to_string()])
                    .status();
            }
        }
    }
    let _agent = Agent(agent);
    let killed = std::process::Command::new("kill")
        .args(["-KILL", &server.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    plandeck_testkit::wait_until("the server gone", || ended(server));
    plandeck_testkit::wait_until("the agent ended with its server", || ended(agent));
}

/// Resume: a hosted session whose host ended is hosted again: its agent started anew and its
/// session loaded (`session/load`, the scripted agent offers `loadSession`); the conversation
/// goes on in the same record (the agent's replay not shown twice), and Send works again.
#[test]
fn an_ended_acp_session_is_resumed_with_session_load() {
    let Scripted {
        t: _t,
        home,
        bin,
        repo,
        log,
    } = Scripted::new("hosted", true);
    let _server = Server(home.join(".local/share/plandeck/serve"));
    let start = start_hosted(
        &home,
        &bin,
        &repo,
        &["--prompt", "Plan pagination.", "--json"],
    );
    assert!(start.status.success(), "{start:?}");
    let started: serde_json::Value = serde_json::from_slice(&start.stdout).unwrap();
    let id = started["id"].as_str().unwrap().to_owned();
    let row = pending_acp_row(&home);
    let (code, out, err) = plandeck(&home, &["approve", row["id"].as_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{out}{err}");
    acp_session_row(&home, &id, "the first turn ended", |r| r["state"] == "idle");

    // While its host runs there is nothing to resume.
    let (code, out, _) = plandeck(&home, &["resume", &id, "--json"]);
    assert_ne!(code, 0, "{out}");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&out).unwrap()["error"]["kind"],
        "conflict",
        "{out}"
    );
    let (code, out, _) = plandeck(&home, &["stop", &id, "--yes", "--json"]);
    assert_eq!(code, 0, "{out}");
    acp_session_row(&home, &id, "the session ended", |r| r["state"] == "ended");
    let entries_before =
        plandeck_core::acp::host::get(&plandeck_core::config::Roots::under_home(&home), &id)
            .unwrap()
            .entries
            .len();

    let resume = plandeck_process(&home)
        .env("PATH", &bin)
        .args(["resume", &id, "--json"])
        .output()
        .unwrap();
    assert!(resume.status.success(), "{resume:?}");
    let resumed: serde_json::Value = serde_json::from_slice(&resume.stdout).unwrap();
    assert_eq!(resumed["state"], "idle", "{resumed}");
    assert_eq!(resumed["sessionId"], "s1");
    let read = read_log(&log);
    let load = read
        .iter()
        .find(|f| f["method"] == "session/load")
        .expect("session/load sent");
    assert_eq!(load["params"]["sessionId"], "s1");
    assert_eq!(
        load["params"]["cwd"].as_str().map(std::path::PathBuf::from),
        started["cwd"].as_str().map(std::path::PathBuf::from)
    );
    let hosted =
        plandeck_core::acp::host::get(&plandeck_core::config::Roots::under_home(&home), &id)
            .unwrap();
    // The earlier conversation stays, the replay is not shown twice: one note more.
    assert_eq!(
        hosted.entries.len(),
        entries_before + 1,
        "{:#?}",
        hosted.entries
    );
    assert!(hosted.entries.last().unwrap().text.starts_with("Resumed"));

    let (code, out, _) = plandeck(&home, &["send", &id, "after resume", "--json"]);
    assert_eq!(code, 0, "{out}");
    plandeck_testkit::wait_until("the resumed agent got the message", || {
        read_log(&log).iter().any(|f| {
            f["method"] == "session/prompt" && f["params"]["prompt"][0]["text"] == "after resume"
        })
    });
    acp_session_row(&home, &id, "the resumed turn ended", |r| {
        r["state"] == "idle"
    });
    let (code, out, _) = plandeck(&home, &["stop", &id, "--yes", "--json"]);
    assert_eq!(code, 0, "{out}");
}

/// The window's New session of an ACP agent starts this user's server when none runs (its own
/// program, `serve --daemon-launch`), then asks it: `serve::daemon::ensure_running`.
#[test]
fn the_server_is_started_for_a_new_acp_session_when_none_runs() {
    let t = tempfile::tempdir().unwrap();
    let home = t.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let roots = plandeck_core::config::Roots::under_home(&home);
    let _server = Server(plandeck_core::serve::daemon::dir(&roots));
    let socket = plandeck_core::serve::daemon::socket_path(&roots);
    assert!(std::os::unix::net::UnixStream::connect(&socket).is_err());
    plandeck_core::serve::daemon::ensure_running(
        &roots,
        std::path::Path::new(env!("CARGO_BIN_EXE_plandeck-cli")),
    )
    .unwrap();
    assert!(std::os::unix::net::UnixStream::connect(&socket).is_ok());
    // Running already: nothing more is started.
    plandeck_core::serve::daemon::ensure_running(&roots, std::path::Path::new("/nonexistent"))
        .unwrap();
}

/// Issue 36: an agent that does not offer `loadSession` cannot resume: Resume says so in a
/// person's words (kind `unsupported`) and offers a new session instead, nothing started; a record
/// from before this was known is tried, and the host says the same (its record then knows).
#[test]
fn resume_of_an_agent_without_load_session_says_it_cannot_and_offers_a_new_session() {
    let Scripted {
        t: _t,
        home,
        bin,
        repo,
        log,
    } = Scripted::new("hosted --no-load", true);
    let _server = Server(home.join(".local/share/plandeck/serve"));
    let start = start_hosted(
        &home,
        &bin,
        &repo,
        &["--prompt", "Plan pagination.", "--json"],
    );
    assert!(start.status.success(), "{start:?}");
    let started: serde_json::Value = serde_json::from_slice(&start.stdout).unwrap();
    let id = started["id"].as_str().unwrap().to_owned();
    let row = pending_acp_row(&home);
    let (code, out, err) = plandeck(&home, &["approve", row["id"].as_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{out}{err}");
    let row = acp_session_row(&home, &id, "the first turn ended", |r| r["state"] == "idle");
    assert_eq!(row["canResume"], false, "{row}");
    let (code, out, _) = plandeck(&home, &["stop", &id, "--yes", "--json"]);
    assert_eq!(code, 0, "{out}");
    acp_session_row(&home, &id, "the session ended", |r| r["state"] == "ended");

    let roots = plandeck_core::config::Roots::under_home(&home);
    let refused = plandeck_core::acp::host::request_resume(&roots, &id).unwrap_err();
    let e = plandeck_core::ipc::IpcError::from(refused);
    assert_eq!(e.kind, plandeck_core::ipc::ErrorKind::Unsupported);
    assert_eq!(
        e.message,
        "Claude Code (ACP) cannot resume a session: it does not offer loading one \
         (session/load). Start a new session in the same folder instead"
    );
    let (code, out, _) = plandeck(&home, &["resume", &id, "--json"]);
    assert_ne!(code, 0, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["error"]["kind"], "unsupported", "{out}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("cannot resume a session"),
        "{out}"
    );
    assert!(
        !read_log(&log).iter().any(|f| f["method"] == "session/load"),
        "nothing was asked of the agent"
    );

    // A record that does not know (kept before this was): tried, and the host says the same.
    let path = home.join(format!(".local/share/plandeck/acp/sessions/{id}.json"));
    let mut record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    record.as_object_mut().unwrap().remove("canLoad");
    std::fs::write(&path, serde_json::to_vec(&record).unwrap()).unwrap();
    let resume = plandeck_process(&home)
        .env("PATH", &bin)
        .args(["resume", &id, "--json"])
        .output()
        .unwrap();
    assert!(!resume.status.success(), "{resume:?}");
    let hosted = plandeck_core::acp::host::get(&roots, &id).unwrap();
    assert_eq!(hosted.state, "failed");
    assert_eq!(hosted.can_load, Some(false));
    assert!(
        hosted
            .problem
            .as_deref()
            .is_some_and(|p| p.starts_with("Claude Code (ACP) cannot resume a session")),
        "{:?}",
        hosted.problem
    );
}

/// Issue 36: the window's Resume of an ACP session whose host ended starts this user's server
/// when none runs (as its New session does), which takes the session up again.
#[test]
fn the_windows_resume_starts_the_server_when_none_runs() {
    let t = tempfile::tempdir().unwrap();
    let home = t.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let roots = plandeck_core::config::Roots::under_home(&home);
    let _server = Server(plandeck_core::serve::daemon::dir(&roots));
    // A session whose host ended long ago (no process of that start time).
    let id = "acps-0123456789abcdef";
    let gone = plandeck_core::acp::host::Hosted {
        session_id: Some("s1".into()),
        state: "ended".into(),
        can_load: Some(true),
        host_start_time: Some(1),
        ..plandeck_core::acp::host::Hosted::new(
            id,
            "claude-acp",
            "Claude Code (ACP)",
            t.path().to_string_lossy().into_owned(),
            std::process::id(),
            "2026-11-28T00:00:00Z",
        )
    };
    let sessions = home.join(".local/share/plandeck/acp/sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    std::fs::write(
        sessions.join(format!("{id}.json")),
        serde_json::to_vec(&gone).unwrap(),
    )
    .unwrap();
    assert!(!plandeck_core::daemon_home::is_running(&roots));
    let deck = plandeck_core::deck::Deck::starting(
        roots.clone(),
        false,
        std::sync::Arc::default(),
        std::sync::Arc::new(|_| {}),
    )
    .with_server_program(env!("CARGO_BIN_EXE_plandeck-cli").into());
    deck.steer_acp_session(id, plandeck_core::acp::host::Command::Resume)
        .unwrap();
    assert!(plandeck_core::daemon_home::is_running(&roots));
    // The server took it: a host of its own writes the record now.
    let taken = plandeck_testkit::wait_for("the server to take the resumed session", || {
        plandeck_core::acp::host::get(&roots, id).filter(|h| h.host_pid != gone.host_pid)
    });
    assert_ne!(taken.updated, gone.updated);
}

/// OpenCode 1.18 offers its `plan` agent as the `configOptions` entry `mode`, not as ACP modes
/// (docs/agents.md): `plandeck start --agent opencode --plan` sets it with
/// `session/set_config_option`. Its plan mode asks nothing to leave it, so the session is listed
/// ungated from the start, with why (the scripted agent plays OpenCode's modes).
#[test]
fn opencode_started_in_plan_mode_gets_it_through_its_mode_option_and_is_listed_ungated() {
    let Scripted {
        t: _t,
        home,
        bin,
        repo,
        log,
    } = Scripted::new("say", true);
    scripted_as(&bin, "opencode", "say --modes-as-option", &log);
    let _server = Server(home.join(".local/share/plandeck/serve"));
    let start = plandeck_process(&home)
        .env("PATH", &bin)
        .args(["start", "--agent", "opencode", "--repo"])
        .arg(&repo)
        .args(["--plan", "--prompt", "Plan pagination.", "--json"])
        .output()
        .unwrap();
    assert!(start.status.success(), "{start:?}");
    let started: serde_json::Value = serde_json::from_slice(&start.stdout).unwrap();
    let id = started["id"].as_str().unwrap().to_owned();
    let row = acp_session_row(&home, &id, "the first turn ended", |r| {
        r["state"] == "idle"
            && read_log(&log)
                .iter()
                .any(|f| f["method"] == "session/prompt")
    });
    assert_eq!(row["agent"], "opencode", "{row}");
    assert_eq!(row["permissionMode"], "plan", "{row}");
    assert_eq!(row["modes"], serde_json::json!(["build", "plan"]), "{row}");
    assert_eq!(row["gated"], false, "{row}");
    assert_eq!(
        row["ungatedWhy"],
        "OpenCode (ACP) asks nothing to leave plan mode: its plan does not wait for you"
    );
    let read = read_log(&log);
    let set: Vec<_> = read
        .iter()
        .filter(|f| f["method"] == "session/set_config_option")
        .collect();
    assert_eq!(set.len(), 1, "{read:?}");
    assert_eq!(
        set[0]["params"],
        serde_json::json!({"sessionId": "s1", "configId": "mode", "value": "plan"})
    );
    assert!(!read.iter().any(|f| f["method"] == "session/set_mode"));
    let (code, out, err) = plandeck(&home, &["stop", &id, "--yes", "--json"]);
    assert_eq!(code, 0, "{out}{err}");
}

/// Issue 36: codex-acp 0.16 tells no tokens over ACP; its Codex's rollout, named by the ACP
/// session's id, counts them (`tests/fixtures/acp/codex-acp-0.16.0-rollout-<id>.jsonl`, from a real
/// run). `sessions list --json`'s ACP row and the window's card (`list_acp_sessions`,
/// `acp_session`) show that count; the rollout is not listed as a second session.
#[test]
fn an_acp_session_that_told_no_tokens_shows_its_agents_own_count() {
    let t = tempfile::tempdir().unwrap();
    let home = t.path().join("home");
    let roots = plandeck_core::config::Roots::under_home(&home);
    let sid = "01a2253f-22ee-7933-bb2f-ac52b9ed6641";
    let day = roots.codex.join("sessions/2026/11/29");
    std::fs::create_dir_all(&day).unwrap();
    // Its rollout names the hosted session's folder (the fixture's `<tmp>/repo`).
    let rollout = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(
        format!("../../tests/fixtures/acp/codex-acp-0.16.0-rollout-{sid}.jsonl"),
    ))
    .unwrap()
    .replace("<tmp>/repo", &t.path().to_string_lossy());
    std::fs::write(
        day.join(format!("rollout-2026-11-29T03-00-24-{sid}.jsonl")),
        rollout,
    )
    .unwrap();
    let id = "acps-00000000000000ee";
    let hosted = plandeck_core::acp::host::Hosted {
        session_id: Some(sid.into()),
        state: "idle".into(),
        mode: Some("auto".into()),
        modes: vec!["read-only".into(), "auto".into(), "full-access".into()],
        can_load: Some(true),
        host_start_time: plandeck_core::process::start_time(std::process::id()),
        started: "2026-11-29T03:00:24Z".into(),
        ..plandeck_core::acp::host::Hosted::new(
            id,
            "codex-acp",
            "Codex (ACP)",
            t.path().to_string_lossy().into_owned(),
            std::process::id(),
            "2026-11-29T03:00:25Z",
        )
    };
    let sessions = roots.data.join("acp/sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    std::fs::write(
        sessions.join(format!("{id}.json")),
        serde_json::to_vec(&hosted).unwrap(),
    )
    .unwrap();

    let (code, out, err) = plandeck(&home, &["sessions", "list", "--json"]);
    assert_eq!(code, 0, "{out}{err}");
    let rows: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
    assert_eq!(rows.len(), 1, "{rows:#?}");
    assert_eq!(rows[0]["sessionId"], id);
    assert_eq!(
        rows[0]["usage"],
        serde_json::json!({"inputTokens": 10, "outputTokens": 10, "costUsd": null})
    );

    let index = std::sync::Arc::new(std::sync::Mutex::new(Some(
        plandeck_core::sessions::SessionIndex::open(&roots),
    )));
    let deck = plandeck_core::deck::Deck::starting(
        roots.clone(),
        false,
        index,
        std::sync::Arc::new(|_| {}),
    );
    let listed = deck.list_acp_sessions().unwrap();
    assert_eq!(listed[0].usage.input_tokens, Some(10), "{listed:#?}");
    assert_eq!(listed[0].usage.output_tokens, Some(10));
    assert_eq!(deck.acp_session(id).unwrap().usage.input_tokens, Some(10));
}
