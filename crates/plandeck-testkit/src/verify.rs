//! Builders of real inputs for verification tests and benchmarks: a Claude Code 2.1.328 transcript
//! (record shapes copied from `tests/fixtures/claude-code-2.1.328/`) and a git repository with a
//! reflog at chosen times.

use std::path::{Path, PathBuf};

use git2::{Oid, Repository, Signature, Time};
use serde_json::{json, Value};

/// 2026-11-22T12:00:00Z, the tests' time zero.
pub const T0: i64 = 1_795_348_800;

/// RFC 3339 (milliseconds, `Z`) of `T0 + secs`.
pub fn at(secs: i64) -> String {
    let t = time::OffsetDateTime::from_unix_timestamp(T0 + secs).expect("time");
    t.format(time::macros::format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second].000Z"
    ))
    .expect("format")
}

/// A Claude Code session being written.
pub struct ClaudeSession {
    /// The home whose Claude Code this is (`Roots::under_home(&session.home)` in core's terms).
    pub home: PathBuf,
    /// `<home>/.claude`.
    pub claude: PathBuf,
    pub cwd: PathBuf,
    pub session: String,
    pub slug: String,
    pub plan_path: PathBuf,
    lines: Vec<String>,
    n: u64,
}

impl ClaudeSession {
    /// A session of `home`'s Claude Code in `cwd`; its plan file is `~/.claude/plans/<slug>.md`.
    pub fn new(home: &Path, cwd: &Path, session: &str, slug: &str) -> Self {
        let claude = crate::home::claude_root(home);
        let plan_path = claude.join("plans").join(format!("{slug}.md"));
        Self {
            home: home.to_owned(),
            claude,
            cwd: cwd.to_owned(),
            session: session.to_owned(),
            slug: slug.to_owned(),
            plan_path,
            lines: Vec::new(),
            n: 0,
        }
    }

    /// The transcript's path.
    pub fn transcript(&self) -> PathBuf {
        let dir: String = self
            .cwd
            .to_string_lossy()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        self.claude
            .join("projects")
            .join(dir)
            .join(format!("{}.jsonl", self.session))
    }

    fn id(&mut self, prefix: &str) -> String {
        self.n += 1;
        format!("{prefix}{:020x}", self.n)
    }

    fn envelope(&self, kind: &str, secs: i64, uuid: &str) -> Value {
        json!({
            "parentUuid": null,
            "isSidechain": false,
            "type": kind,
            "uuid": uuid,
            "timestamp": at(secs),
            "userType": "external",
            "entrypoint": "cli",
            "cwd": self.cwd.to_string_lossy(),
            "sessionId": self.session,
            "version": "2.1.328",
            "gitBranch": "main",
            "slug": self.slug,
        })
    }

    /// The first prompt.
    pub fn prompt(&mut self, secs: i64, text: &str) {
        let uuid = self.id("u");
        let mut v = self.envelope("user", secs, &uuid);
        v["message"] = json!({ "role": "user", "content": text });
        v["permissionMode"] = json!("plan");
        self.lines.push(v.to_string());
    }

    /// An assistant `tool_use` and its `tool_result`; returns the call id.
    pub fn tool(
        &mut self,
        secs: i64,
        name: &str,
        input: Value,
        result: &str,
        is_error: bool,
        tool_use_result: Value,
    ) -> String {
        let call = self.id("toolu_");
        let uuid = self.id("a");
        let mut a = self.envelope("assistant", secs, &uuid);
        let msg_id = self.id("msg_");
        a["message"] = json!({
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "model": "claude-opus-5-5",
            "content": [{ "type": "tool_use", "id": call, "name": name, "input": input }],
            "stop_reason": "tool_use",
            "stop_sequence": null,
        });
        self.lines.push(a.to_string());
        let uuid = self.id("u");
        let mut u = self.envelope("user", secs, &uuid);
        let mut block = json!({ "tool_use_id": call, "type": "tool_result", "content": result });
        if is_error {
            block["is_error"] = json!(true);
        }
        u["message"] = json!({ "role": "user", "content": [block] });
        u["toolUseResult"] = tool_use_result;
        u["sourceToolAssistantUUID"] = json!(uuid);
        self.lines.push(u.to_string());
        call
    }

    /// `Write` of `path` (the file itself is not written: the test does that).
    pub fn write(&mut self, secs: i64, path: &Path, content: &str) {
        let p = path.to_string_lossy().into_owned();
        self.tool(
            secs,
            "Write",
            json!({ "file_path": p, "content": content }),
            &format!("File created successfully at: {p}"),
            false,
            json!({ "type": "create", "filePath": p, "content": content, "structuredPatch": [], "originalFile": null, "userModified": false }),
        );
    }

    /// `Edit` of `path`.
    pub fn edit(&mut self, secs: i64, path: &Path, old: &str, new: &str) {
        let p = path.to_string_lossy().into_owned();
        self.tool(
            secs,
            "Edit",
            json!({ "file_path": p, "old_string": old, "new_string": new, "replace_all": false }),
            &format!("The file {p} has been updated successfully."),
            false,
            json!({ "filePath": p, "oldString": old, "newString": new, "originalFile": "", "structuredPatch": [], "userModified": false, "replaceAll": false }),
        );
    }

    /// `Bash` running `command`, exiting with `code`.
    pub fn bash(&mut self, secs: i64, command: &str, code: i32) {
        let (result, err, tur) = if code == 0 {
            (
                "ok".to_owned(),
                false,
                json!({ "stdout": "ok", "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false }),
            )
        } else {
            let text = format!("Exit code {code}\nerror: tests failed");
            (text.clone(), true, json!(format!("Error: {text}")))
        };
        self.tool(
            secs,
            "Bash",
            json!({ "command": command, "description": "run it" }),
            &result,
            err,
            tur,
        );
    }

    /// The plan written while planning, submitted with `ExitPlanMode` and approved in the terminal.
    pub fn plan_approved(&mut self, secs_submit: i64, secs_approve: i64, plan: &str) {
        let call = self.plan_submitted(secs_submit, plan);
        let p = self.plan_path.to_string_lossy().into_owned();
        let uuid = self.id("u");
        let mut u = self.envelope("user", secs_approve, &uuid);
        u["message"] = json!({ "role": "user", "content": [{
            "type": "tool_result",
            "content": format!("User has approved your plan. You can now start coding. Start with updating your todo list if applicable\n\nYour plan has been saved to: {p}\nYou can refer back to it if needed during implementation.\n\n## Approved Plan:\n{plan}"),
            "tool_use_id": call,
        }]});
        u["toolUseResult"] = json!({ "plan": plan, "isAgent": false, "filePath": p });
        u["permissionDecision"] = json!({ "decision": "accept", "source": "user_temporary", "grantScope": "session", "reasonCode": "unknown" });
        self.lines.push(u.to_string());
    }

    /// The plan written and submitted with `ExitPlanMode`, the approval card still open; returns
    /// the call id.
    pub fn plan_submitted(&mut self, secs_submit: i64, plan: &str) -> String {
        if let Some(dir) = self.plan_path.parent() {
            std::fs::create_dir_all(dir).expect("plans dir");
        }
        std::fs::write(&self.plan_path, plan).expect("plan file");
        let pp = self.plan_path.clone();
        self.write(secs_submit, &pp, plan);
        let p = pp.to_string_lossy().into_owned();
        let call = self.id("toolu_");
        let uuid = self.id("a");
        let mut a = self.envelope("assistant", secs_submit, &uuid);
        let msg_id = self.id("msg_");
        a["message"] = json!({
            "id": msg_id, "type": "message", "role": "assistant", "model": "claude-opus-5-5",
            "content": [{ "type": "tool_use", "id": call, "name": "ExitPlanMode",
                          "input": { "plan": plan, "planFilePath": p } }],
            "stop_reason": "tool_use", "stop_sequence": null,
        });
        self.lines.push(a.to_string());
        call
    }

    /// The first record of a session started by "clear context and implement": the approved
    /// plan carried in `planContent`.
    pub fn carry_plan(&mut self, secs: i64, plan: &str) {
        let uuid = self.id("u");
        let mut v = self.envelope("user", secs, &uuid);
        v["message"] = json!({ "role": "user", "content": format!("Implement the following plan:\n\n{plan}") });
        v["planContent"] = json!(plan);
        self.lines.push(v.to_string());
    }

    /// A compaction (`/compact`): the boundary and the plan carried on.
    pub fn compact(&mut self, secs: i64) {
        let uuid = self.id("s");
        let mut s = self.envelope("system", secs, &uuid);
        s["subtype"] = json!("compact_boundary");
        s["content"] = json!("Conversation compacted");
        s["compactMetadata"] = json!({ "trigger": "manual", "preTokens": 12000 });
        self.lines.push(s.to_string());
        let uuid = self.id("t");
        let mut t = self.envelope("attachment", secs, &uuid);
        let plan = std::fs::read_to_string(&self.plan_path).unwrap_or_default();
        t["attachment"] = json!({ "type": "plan_file_reference", "planFilePath": self.plan_path.to_string_lossy(), "planContent": plan });
        self.lines.push(t.to_string());
    }

    /// Writes the transcript (all records so far).
    pub fn save(&self) {
        let path = self.transcript();
        std::fs::create_dir_all(path.parent().expect("parent")).expect("projects dir");
        let mut text = self.lines.join("\n");
        text.push('\n');
        std::fs::write(path, text).expect("transcript");
    }

    /// Appends one raw line (bad input tests).
    pub fn raw(&mut self, line: &str) {
        self.lines.push(line.to_owned());
    }
}

/// What Claude Code 2.1.328 sends to a `Stop` hook for `session` (working in `/home/dev/work/api`).
pub fn stop_hook_input(session: &str, transcript_path: &str, active: bool) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "session_id": session,
        "transcript_path": transcript_path,
        "cwd": "/home/dev/work/api",
        "permission_mode": "default",
        "hook_event_name": "Stop",
        "stop_hook_active": active,
    }))
    .expect("json")
}

fn sig(secs: i64) -> Signature<'static> {
    Signature::new("Test", "test@example.com", &Time::new(T0 + secs, 0)).expect("signature")
}

/// A repository at `dir` on branch `main`, with `files` committed at `T0 + secs`.
pub fn git_init(dir: &Path, files: &[(&str, &str)], secs: i64) -> Oid {
    std::fs::create_dir_all(dir).expect("repo dir");
    let repo = Repository::init(dir).expect("init");
    repo.set_head("refs/heads/main").expect("head");
    for (p, c) in files {
        write_file(dir, p, c);
    }
    commit_all(dir, "initial", secs)
}

/// Writes `content` to `dir/rel` (folders created).
pub fn write_file(dir: &Path, rel: &str, content: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("dirs");
    std::fs::write(p, content).expect("write");
}

/// Commits everything in the worktree at `T0 + secs`, with a HEAD reflog entry at that time.
pub fn commit_all(dir: &Path, msg: &str, secs: i64) -> Oid {
    let repo = Repository::open(dir).expect("open");
    let oid = crate::git::commit_staged_all(&repo, None, &sig(secs), msg);
    move_head(&repo, oid, &format!("commit: {msg}"), secs);
    oid
}

/// `git reset --hard <oid>` at `T0 + secs` (HEAD reflog entry at that time).
pub fn reset_hard(dir: &Path, oid: Oid, secs: i64) {
    let repo = Repository::open(dir).expect("open");
    let obj = repo.find_object(oid, None).expect("object");
    repo.reset(&obj, git2::ResetType::Hard, None)
        .expect("reset");
    // The reset wrote a reflog entry at the wall clock: rewrite it at the chosen time.
    let mut log = repo.reflog("HEAD").expect("reflog");
    if log.get(0).is_some_and(|e| e.id_new() == oid) {
        log.remove(0, true).expect("drop wall-clock entry");
    }
    log.append(oid, &sig(secs), Some("reset: moving to it"))
        .expect("append");
    log.write().expect("reflog write");
}

fn move_head(repo: &Repository, oid: Oid, msg: &str, secs: i64) {
    repo.reference("refs/heads/main", oid, true, msg)
        .expect("branch");
    // libgit2 logs HEAD at the wall clock; put the entry at the commit's time.
    let mut log = repo.reflog("HEAD").expect("reflog");
    if log.get(0).is_some_and(|e| e.id_new() == oid) {
        log.remove(0, true).expect("drop wall-clock entry");
    }
    log.append(oid, &sig(secs), Some(msg)).expect("append");
    log.write().expect("reflog write");
}
