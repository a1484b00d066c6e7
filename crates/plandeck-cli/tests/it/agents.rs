//! `plandeck agents list`: terminal and ACP agents, found on the PATH or under the npm prefix.

use crate::common::{plandeck_in, write_executable};

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
fn node() -> std::path::PathBuf {
    std::env::split_paths(&std::env::var_os("PATH").unwrap())
        .map(|d| d.join("node"))
        .find(|n| n.is_file())
        .expect("node is needed on the PATH for the scripted ACP agent")
}

#[test]
fn agents_check_starts_an_acp_agent_in_plan_mode_and_rejects_its_plan_with_the_feedback_as_next_prompt(
) {
    let t = tempfile::tempdir().unwrap();
    let (bin, repo) = (t.path().join("bin"), t.path().join("repo"));
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(&repo).unwrap();
    let log = t.path().join("agent-read.jsonl");
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/agents/acp-scripted.mjs");
    write_executable(
        &bin.join("claude-agent-acp"),
        &format!(
            "#!/bin/sh\nexec '{}' '{}' --scenario plan --log '{}'\n",
            node().display(),
            script.display(),
            log.display()
        ),
        0o755,
    );
    let feedback = "Keyset pagination; keep `rm -rf /` as text.";
    let (code, out, err) = plandeck_in(
        &[
            ("HOME", t.path().to_str().unwrap()),
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
    let read: Vec<serde_json::Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
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
