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
