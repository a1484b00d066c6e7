//! A scratch workspace with sample data of every kind, so a newcomer sees every screen filled:
//! plans of each agent, transcripts in the agents' real formats (one session waiting for approval,
//! one working in a worktree, a Gemini and a Codex session), and a small git repository with a
//! clean merged worktree and a dirty one holding an unmerged commit.
//!
//! Everything lives under one fresh folder; [`DemoWorkspace::roots`] points the app at it, so
//! nothing of the person's own agents' folders is read or written. The folder holds
//! [`crate::config::DEMO_MARKER`], so `HOME=<demo> plandeck …` resolves every root and the store
//! under it too, whatever `XDG_DATA_HOME`, `CLAUDE_CONFIG_DIR`… say ([`Roots::resolve`]).

use std::path::{Path, PathBuf};

use git2::{Repository, Signature, Time};
use serde_json::json;

use crate::agents;
use crate::config::Roots;
use crate::durable;
use crate::ipc::{ErrorKind, IpcError};

#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    #[error(transparent)]
    Write(#[from] durable::WriteError),
    #[error("cannot create the demo folder {path}: {source}")]
    Create {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot build the demo repository: {0}")]
    Git(#[from] git2::Error),
}

impl From<DemoError> for IpcError {
    fn from(e: DemoError) -> Self {
        let kind = match e {
            DemoError::Git(_) => ErrorKind::Git,
            _ => ErrorKind::Io,
        };
        IpcError::new(kind, e.to_string())
    }
}

#[derive(Debug, Clone)]
pub struct DemoWorkspace {
    /// The demo's `$HOME`: `.claude`, `.gemini`, `.codex`, `.local/share/plandeck`, `work/`.
    pub home: PathBuf,
    /// The sample repository (`work/shop`).
    pub repo: PathBuf,
}

impl DemoWorkspace {
    pub fn roots(&self) -> Roots {
        let mut roots = Roots::under_home(&self.home);
        roots.extra_repos.push(self.repo.clone());
        roots
    }
}

pub const SESSION_WAITING: &str = "7d3f6c1e-2b4a-4c8e-9f10-5a6b7c8d9e01";
pub const SESSION_WORKTREE: &str = "a1c2e3f4-5b6d-4e7f-8a9b-0c1d2e3f4a5b";
pub const SESSION_GEMINI: &str = "c0ffee42-1d2e-4f3a-8b9c-ad0e1f2a3b4c";
pub const SESSION_CODEX: &str = "0199a7e2-5c3d-7e8f-9a0b-1c2d3e4f5a6b";

/// Creates a new demo workspace in a fresh folder under `parent` (e.g. the temp dir), with a live
/// registry entry naming this process (the window that shows the demo) and one request of it in
/// "Waiting for you".
pub fn create(parent: &Path) -> Result<DemoWorkspace, DemoError> {
    let pid = std::process::id();
    let ws = create_with(parent, Some(pid))?;
    // What the window's demo leads with: a plan in "Waiting for you".
    let claude = Roots::under_home(&ws.home).claude;
    let plan = agents::claude::plans_dir(&claude).join("shop-pagination-brisk-otter.md");
    let transcript = agents::claude::projects_dir(&claude)
        .join(claude_project_folder(&ws.repo))
        .join(format!("{SESSION_WAITING}.jsonl"));
    write_demo_request(
        &claude,
        &ws.repo.to_string_lossy(),
        &plan.to_string_lossy(),
        &transcript,
        pid,
    )?;
    Ok(ws)
}

/// Creates a demo workspace; `registry_pid` names the process of the demo's running Claude Code
/// session (`None`: no registry entry, as after the CLI exited). The workspace's settings file
/// lists the sample repository, so `HOME=<home> plandeck` shows the same as `plandeck --demo`.
pub fn create_with(parent: &Path, registry_pid: Option<u32>) -> Result<DemoWorkspace, DemoError> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let home = parent.join(format!("plandeck-demo-{}-{nanos:x}", std::process::id()));
    std::fs::create_dir_all(&home).map_err(|source| DemoError::Create {
        path: home.clone(),
        source,
    })?;
    let home = home.canonicalize().map_err(|source| DemoError::Create {
        path: home.clone(),
        source,
    })?;
    // First: from here on, every root resolved from this home is inside it.
    write(
        &home.join(crate::config::DEMO_MARKER),
        "Plandeck's demo workspace: sample data only. `HOME=<this folder> plandeck` reads and \
         writes nothing outside it.\n",
    )?;
    let repo = home.join("work/shop");
    let worktree = repo.join(".claude/worktrees/pagination");
    let clean_worktree = home.join("work/shop-docs");
    let base = build_repo(&repo, &worktree, &clean_worktree)?;
    let roots = Roots::under_home(&home);
    write_claude(&roots.claude, &repo, &worktree, &base, registry_pid)?;
    write_gemini(&roots.gemini, &repo)?;
    write_codex(&roots.codex, &repo)?;
    let settings = crate::config::Settings {
        extra_repos: vec![repo.clone()],
        ..Default::default()
    };
    settings.save(&roots.settings_path()).map_err(|e| match e {
        crate::config::ConfigError::Write(w) => DemoError::Write(w),
        other => DemoError::Create {
            path: roots.settings_path(),
            source: std::io::Error::other(other.to_string()),
        },
    })?;
    Ok(DemoWorkspace { home, repo })
}

fn write(path: &Path, text: &str) -> Result<(), DemoError> {
    Ok(durable::write_atomic(path, text.as_bytes())?)
}

fn jsonl(records: &[serde_json::Value]) -> String {
    records.iter().map(|r| format!("{r}\n")).collect()
}

fn stamp(minutes_ago: i64) -> String {
    crate::timestamp::format(crate::timestamp::now() - time::Duration::minutes(minutes_ago))
}

/// Claude Code's folder name for a project: every non-alphanumeric character becomes '-'.
pub fn claude_project_folder(cwd: &Path) -> String {
    cwd.to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

const PLAN_PAGINATION: &str = "# Plan: cursor pagination for /orders\n\n## Context\n\nThe orders endpoint returns every row; large shops time out.\n\n## Steps\n\n1. Add `cursor` and `limit` query parameters (default 50, max 200).\n2. Encode the cursor as the last `(created_at, id)` pair, base64.\n3. Return `next_cursor` in the response body.\n4. Tests: empty table, exact page boundary, invalid cursor → 400.\n\n## Risks\n\n| risk | mitigation |\n|---|---|\n| clients rely on full lists | keep `?all=1` for one release |\n| cursor tampering | sign it with the app key |\n\n- [x] read the current handler\n- [ ] write the migration\n\n```rust\nfn decode_cursor(s: &str) -> Result<Cursor, Error> {\n    let bytes = base64::decode(s)?;\n    Ok(serde_json::from_slice(&bytes)?)\n}\n```\n";
const PLAN_SUBAGENT: &str = "# Explore: how orders are queried today\n\n- `src/orders.rs` builds one `SELECT *` with no limit.\n- No index on `created_at`.\n";
const PLAN_RATE_LIMIT: &str = "# Plan: rate limiting for the public API\n\n1. Token bucket per API key, 100 requests/minute.\n2. Return `429` with `Retry-After`.\n3. Metrics: count of limited requests per key.\n";
const PLAN_GEMINI: &str = "# Plan: cache product pages\n\n1. Add an LRU cache (1,000 entries) in front of `get_product`.\n2. Invalidate on product update.\n3. Expose hit/miss counters.\n";

fn write_claude(
    claude: &Path,
    repo: &Path,
    worktree: &Path,
    base: &git2::Oid,
    registry_pid: Option<u32>,
) -> Result<(), DemoError> {
    let plans = agents::claude::plans_dir(claude);
    write(
        &plans.join("shop-pagination-brisk-otter.md"),
        PLAN_PAGINATION,
    )?;
    write(
        &plans.join("shop-pagination-brisk-otter-agent-a7f3c9d2e1b04856.md"),
        PLAN_SUBAGENT,
    )?;
    write(
        &plans.join("shop-rate-limit-quiet-heron.md"),
        PLAN_RATE_LIMIT,
    )?;

    let cwd = repo.to_string_lossy().to_string();
    let common = |sid: &str, cwd: &str, branch: &str, slug: &str, ts: String| {
        json!({"sessionId": sid, "cwd": cwd, "gitBranch": branch, "slug": slug, "version": "2.1.328",
               "timestamp": ts, "userType": "external", "entrypoint": "cli"})
    };
    let merge = |mut a: serde_json::Value, b: serde_json::Value| {
        if let (Some(a), serde_json::Value::Object(b)) = (a.as_object_mut(), b) {
            a.extend(b);
        }
        a
    };
    // A session in plan mode whose ExitPlanMode call waits for the person.
    let sid = SESSION_WAITING;
    let slug = "shop-pagination-brisk-otter";
    let plan_path = plans
        .join(format!("{slug}.md"))
        .to_string_lossy()
        .to_string();
    let waiting = [
        json!({"type": "permission-mode", "permissionMode": "plan", "sessionId": sid}),
        merge(
            common(sid, &cwd, "main", slug, stamp(9)),
            json!({"type": "user", "uuid": "u1", "parentUuid": null,
            "permissionMode": "plan", "message": {"role": "user", "content": "plan cursor pagination for the orders endpoint"}}),
        ),
        merge(
            common(sid, &cwd, "main", slug, stamp(8)),
            json!({"type": "assistant", "uuid": "a1", "parentUuid": "u1",
            "message": {"role": "assistant", "model": "claude-opus-5-5", "content": [{"type": "text", "text": "I'll read the handler first."}]}}),
        ),
        merge(
            common(sid, &cwd, "main", slug, stamp(6)),
            json!({"type": "assistant", "uuid": "a2", "parentUuid": "a1",
            "message": {"role": "assistant", "model": "claude-opus-5-5", "stop_reason": "tool_use", "content": [{"type": "tool_use",
            "id": "toolu_demo_exitplan_1", "name": "ExitPlanMode", "input": {"plan": PLAN_PAGINATION, "planFilePath": plan_path}}]}}),
        ),
    ];
    let project = agents::claude::projects_dir(claude).join(claude_project_folder(repo));
    write(&project.join(format!("{sid}.jsonl")), &jsonl(&waiting))?;
    if let Some(pid) = registry_pid {
        write(
        &agents::claude::registry_file(claude, pid),
        &json!({"pid": pid, "sessionId": sid, "cwd": cwd, "version": "2.1.328", "kind": "interactive",
                "entrypoint": "cli", "tmux": null, "name": "shop-pagination", "status": "waiting",
                "startedAt": 0, "updatedAt": 0}).to_string(),
    )?;
    }

    // A session working in a worktree made with `claude -w pagination`.
    let sid = SESSION_WORKTREE;
    let wt = worktree.to_string_lossy().to_string();
    let slug = "shop-rate-limit-quiet-heron";
    let in_worktree = [
        json!({"type": "worktree-state", "sessionId": sid, "worktreeSession": {"originalCwd": cwd, "worktreePath": wt,
            "worktreeName": "pagination", "worktreeBranch": "worktree-pagination", "originalBranch": "main",
            "originalHeadCommit": base.to_string(), "sessionId": sid}}),
        json!({"type": "permission-mode", "permissionMode": "acceptEdits", "sessionId": sid}),
        merge(
            common(sid, &wt, "worktree-pagination", slug, stamp(30)),
            json!({"type": "user", "uuid": "u1", "parentUuid": null,
            "permissionMode": "acceptEdits", "message": {"role": "user", "content": "implement the approved rate-limit plan"}}),
        ),
        merge(
            common(sid, &wt, "worktree-pagination", slug, stamp(2)),
            json!({"type": "assistant", "uuid": "a1", "parentUuid": "u1",
            "message": {"role": "assistant", "model": "claude-opus-5-5", "stop_reason": "tool_use", "content": [{"type": "tool_use",
            "id": "toolu_demo_edit_1", "name": "Edit", "input": {"file_path": format!("{wt}/src/lib.rs")}}]}}),
        ),
    ];
    let project = agents::claude::projects_dir(claude).join(claude_project_folder(worktree));
    write(&project.join(format!("{sid}.jsonl")), &jsonl(&in_worktree))?;
    Ok(())
}

/// The id of the demo's request in "Waiting for you".
pub const DEMO_REQUEST: &str = "demo-request-pagination";

/// A request of the demo's waiting Claude Code session in "Waiting for you", as its plan hook
/// files one, held by `pid` (the window showing the demo: the request lasts while it runs).
/// Deciding it sends nothing ([`crate::gate::decide_demo`]).
fn write_demo_request(
    claude: &Path,
    cwd: &str,
    plan_path: &str,
    transcript: &Path,
    pid: u32,
) -> Result<(), DemoError> {
    let Some(home) = claude.parent() else {
        return Ok(());
    };
    let roots = Roots::under_home(home);
    let now = crate::timestamp::now();
    let at = |t: time::OffsetDateTime| crate::timestamp::format(t);
    let request = json!({
        "id": DEMO_REQUEST, "agent": "claude", "sessionId": SESSION_WAITING, "cwd": cwd,
        "planPath": plan_path, "plan": PLAN_PAGINATION, "toolUseId": "toolu_demo_exitplan_1",
        "transcriptPath": transcript.to_string_lossy(), "transcriptOffset": 0, "tmuxPane": null, "tmuxSocket": null,
        "waitingSince": at(now - time::Duration::minutes(6)),
        "deadline": at(now + time::Duration::days(7)),
        "hookPid": pid, "agentPid": pid, "status": "waiting", "closedAt": null, "decision": null,
    });
    write(
        &roots
            .data
            .join(format!("gate/requests/{DEMO_REQUEST}.json")),
        &request.to_string(),
    )
}

fn write_gemini(gemini: &Path, repo: &Path) -> Result<(), DemoError> {
    let cwd = repo.to_string_lossy().to_string();
    write(
        &agents::gemini::projects_file(gemini),
        &serde_json::to_string_pretty(&json!({"projects": {cwd.clone(): "shop"}}))
            .unwrap_or_default(),
    )?;
    let tmp = agents::gemini::tmp_dir(gemini).join("shop");
    write(&agents::gemini::project_root_file(&tmp), &cwd)?;
    let sid = SESSION_GEMINI;
    let plan = agents::gemini::session_plans_dir(&tmp, sid).join("caching.md");
    write(&plan, PLAN_GEMINI)?;
    let call_id = "exit_plan_mode__exit_plan_mode_demo_0";
    let records = [
        json!({"sessionId": sid, "projectHash": "demo", "startTime": stamp(20), "lastUpdated": stamp(20), "kind": "main"}),
        json!({"id": "m1", "timestamp": stamp(20), "type": "user", "content": [{"text": "plan caching for product pages"}]}),
        json!({"$set": {"lastUpdated": stamp(20)}}),
        json!({"id": "m2", "timestamp": stamp(4), "type": "gemini", "content": "", "model": "gemini-3.1-pro",
               "toolCalls": [{"id": call_id, "name": "exit_plan_mode", "args": {"plan_filename": "caching.md"}}]}),
        json!({"$set": {"lastUpdated": stamp(4)}}),
    ];
    let short = &sid[..8];
    write(
        &agents::gemini::chats_dir(&tmp).join(format!("session-2026-11-22T10-00-{short}.jsonl")),
        &jsonl(&records),
    )?;
    Ok(())
}

fn write_codex(codex: &Path, repo: &Path) -> Result<(), DemoError> {
    let cwd = repo.to_string_lossy().to_string();
    let sid = SESSION_CODEX;
    let records = [
        json!({"timestamp": stamp(50), "type": "session_meta", "payload": {"id": sid, "timestamp": stamp(50), "cwd": cwd,
               "originator": "codex_cli_rs", "cli_version": "0.50.0", "git": {"branch": "main"}}}),
        json!({"timestamp": stamp(50), "type": "turn_context", "payload": {"cwd": cwd, "approval_policy": "on-request", "model": "gpt-5-codex"}}),
        json!({"timestamp": stamp(49), "type": "response_item", "payload": {"type": "message", "role": "user",
               "content": [{"type": "input_text", "text": "add a CHANGELOG entry"}]}}),
        json!({"timestamp": stamp(45), "type": "response_item", "payload": {"type": "message", "role": "assistant",
               "content": [{"type": "output_text", "text": "Added the entry."}]}}),
        json!({"timestamp": stamp(45), "type": "event_msg", "payload": {"type": "task_complete"}}),
    ];
    write(
        &agents::codex::sessions_dir(codex).join(format!(
            "2026/11/22/rollout-2026-11-22T09-00-00-{sid}.jsonl"
        )),
        &jsonl(&records),
    )?;
    Ok(())
}

/// The sample repository: `main` with two commits, a linked worktree `shop-docs` on `docs` (clean,
/// merged) and Claude Code's `.claude/worktrees/pagination` on `worktree-pagination` with one
/// unmerged commit and one modified file. Returns the commit the pagination worktree started from.
fn build_repo(
    repo_path: &Path,
    worktree: &Path,
    clean_worktree: &Path,
) -> Result<git2::Oid, DemoError> {
    let mkdir = |p: &Path| {
        std::fs::create_dir_all(p).map_err(|source| DemoError::Create {
            path: p.to_owned(),
            source,
        })
    };
    mkdir(repo_path)?;
    let repo = Repository::init_opts(
        repo_path,
        git2::RepositoryInitOptions::new().initial_head("main"),
    )?;
    let sig = Signature::new(
        "Plandeck Demo",
        "demo@plandeck.invalid",
        &Time::new(1_795_000_000, 0),
    )?;
    write(
        &repo_path.join("README.md"),
        "# shop\n\nA small web shop.\n",
    )?;
    write(
        &repo_path.join("src/lib.rs"),
        "pub fn orders() -> Vec<u32> {\n    vec![]\n}\n",
    )?;
    write(
        &repo_path.join(".gitignore"),
        "/target\n/.claude/worktrees/\n",
    )?;
    let first = commit_all(&repo, &sig, "Initial shop", &[])?;
    write(
        &repo_path.join("src/orders.rs"),
        "pub struct Order {\n    pub id: u64,\n}\n",
    )?;
    let second = commit_all(&repo, &sig, "Add orders module", &[first])?;

    let head = repo.find_commit(second)?;
    repo.branch("docs", &head, false)?;
    repo.branch("worktree-pagination", &head, false)?;
    mkdir(clean_worktree.parent().unwrap_or(repo_path))?;
    let docs_ref = repo.find_reference("refs/heads/docs")?;
    repo.worktree(
        "shop-docs",
        clean_worktree,
        Some(git2::WorktreeAddOptions::new().reference(Some(&docs_ref))),
    )?;
    mkdir(worktree.parent().unwrap_or(repo_path))?;
    let wt_ref = repo.find_reference("refs/heads/worktree-pagination")?;
    repo.worktree(
        "pagination",
        worktree,
        Some(git2::WorktreeAddOptions::new().reference(Some(&wt_ref))),
    )?;

    let wt_repo = Repository::open(worktree)?;
    write(
        &worktree.join("src/pagination.rs"),
        "pub struct Cursor(pub String);\n",
    )?;
    commit_all(&wt_repo, &sig, "Add cursor type", &[second])?;
    write(
        &worktree.join("src/lib.rs"),
        "pub mod pagination;\n\npub fn orders() -> Vec<u32> {\n    vec![]\n}\n",
    )?;
    write(&worktree.join("NOTES.md"), "scratch notes, not committed\n")?;
    Ok(second)
}

fn commit_all(
    repo: &Repository,
    sig: &Signature<'_>,
    message: &str,
    parents: &[git2::Oid],
) -> Result<git2::Oid, DemoError> {
    let mut index = repo.index()?;
    index.add_all(["*"].iter(), git2::IndexAddOption::DEFAULT, None)?;
    index.write()?;
    let tree = repo.find_tree(index.write_tree()?)?;
    let parents: Vec<git2::Commit<'_>> = parents
        .iter()
        .map(|p| repo.find_commit(*p))
        .collect::<Result<_, _>>()?;
    let parent_refs: Vec<&git2::Commit<'_>> = parents.iter().collect();
    Ok(repo.commit(Some("HEAD"), sig, sig, message, &tree, &parent_refs)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_has_every_kind_of_data() {
        let dir = tempfile::tempdir().unwrap();
        let ws = create(dir.path()).unwrap();
        let roots = ws.roots();
        assert!(roots
            .claude
            .join("plans/shop-pagination-brisk-otter.md")
            .is_file());
        assert!(roots
            .gemini
            .join(format!("tmp/shop/{SESSION_GEMINI}/plans/caching.md"))
            .is_file());
        assert_eq!(
            crate::overview::count_files(&agents::codex::sessions_dir(&roots.codex), ".jsonl", 5),
            1
        );
        let repo = Repository::open(&ws.repo).unwrap();
        let names = repo.worktrees().unwrap();
        assert_eq!(names.len(), 2);
        let wt = Repository::open(ws.repo.join(".claude/worktrees/pagination")).unwrap();
        let statuses = wt.statuses(None).unwrap();
        assert_eq!(statuses.len(), 2, "one modified, one untracked file");
        let docs = Repository::open(ws.home.join("work/shop-docs")).unwrap();
        assert!(
            docs.statuses(None).unwrap().is_empty(),
            "the docs worktree is clean"
        );
    }

    /// Every folder the demo is shown from, by the window (`roots()`) or by `HOME=<demo>
    /// plandeck` with the person's own folders in the environment, is inside the demo.
    #[test]
    fn every_root_of_the_demo_is_inside_it_whatever_the_environment_says() {
        let dir = tempfile::tempdir().unwrap();
        let ws = create(dir.path()).unwrap();
        let home = ws.home.to_str().unwrap();
        let env = crate::config::Env::from_pairs([
            ("HOME", home),
            ("XDG_DATA_HOME", "/home/me/.local/share"),
            ("XDG_CONFIG_HOME", "/home/me/.config"),
            ("CLAUDE_CONFIG_DIR", "/home/me/.claude"),
            ("CODEX_HOME", "/home/me/.codex"),
        ]);
        let resolved = Roots::resolve(&env, &crate::config::Overrides::default()).unwrap();
        for roots in [ws.roots(), resolved] {
            assert!(roots.is_demo());
            let mut all = vec![
                &roots.home,
                &roots.claude,
                &roots.gemini,
                &roots.codex,
                &roots.data,
                &roots.config,
            ];
            all.extend(&roots.extra_plan_folders);
            all.extend(&roots.extra_repos);
            for p in all {
                assert!(
                    p.starts_with(&ws.home),
                    "{} is outside the demo",
                    p.display()
                );
            }
        }
        // Anywhere else the environment is honoured as before.
        let other = tempfile::tempdir().unwrap();
        let env = crate::config::Env::from_pairs([
            ("HOME", other.path().to_str().unwrap()),
            ("XDG_DATA_HOME", "/home/me/.local/share"),
        ]);
        let roots = Roots::resolve(&env, &crate::config::Overrides::default()).unwrap();
        assert!(!roots.is_demo());
        assert_eq!(roots.data, Path::new("/home/me/.local/share/plandeck"));
    }

    #[test]
    fn two_demos_do_not_collide() {
        let dir = tempfile::tempdir().unwrap();
        let a = create(dir.path()).unwrap();
        let b = create(dir.path()).unwrap();
        assert_ne!(a.home, b.home);
    }
}
