//! Sessions over the real fixtures, the demo, generated transcripts of every state and every kind
//! of damage, appends seen by `apply`, and property tests of the line reader and record parsers.

use std::io::Write;
use std::path::{Path, PathBuf};

use plandeck_core::agents::Agent;
use plandeck_core::config::Roots;
use plandeck_core::sessions::state::Facts;
use plandeck_core::sessions::transcript::LineSplitter;
use plandeck_core::sessions::{self, SessionIndex, SessionState, SessionSummary};
use plandeck_testkit::fixtures::{copy_tree, CLAUDE, GEMINI};
use serde_json::json;
use time::OffsetDateTime;

// The fixtures live in the repository (tests/fixtures/, with their README).
const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures");

fn at(s: &str) -> OffsetDateTime {
    OffsetDateTime::parse(s, &time::format_description::well_known::Rfc3339).unwrap()
}

fn find<'a>(list: &'a [SessionSummary], id_prefix: &str) -> &'a SessionSummary {
    list.iter()
        .find(|s| s.session_id.starts_with(id_prefix))
        .unwrap_or_else(|| panic!("no session {id_prefix}"))
}

fn fixture_home() -> tempfile::TempDir {
    let base = Path::new(FIXTURES);
    // A missing fixture fails the test; it never passes by skipping.
    assert!(
        base.is_dir(),
        "the repository's fixtures are missing at {FIXTURES}"
    );
    let home = tempfile::tempdir().unwrap();
    copy_tree(&base.join(CLAUDE), &home.path().join(".claude"));
    copy_tree(&base.join(GEMINI), &home.path().join(".gemini"));
    home
}

/// Fixtures: the two registry entries name pids that are not running here (they were recorded
/// on another machine). A stale registry is not a crash: both sessions had finished their turn, so
/// they are `ended` (`crashed` is for a session gone mid-turn: `sessions::state`'s tests). Every
/// other session finished its turn (rejected, approved, cancelled with Esc) and is `ended` once
/// the 10-minute window has passed, or `idle` right after.
#[test]
fn fixtures_get_the_states_their_readme_implies() {
    let home = fixture_home();
    let roots = Roots::under_home(home.path());
    let mut index = SessionIndex::open(&roots);
    index.set_now(Some(at("2026-11-23T01:00:00Z")));
    let list = index.sessions();
    assert_eq!(list.len(), 11, "{list:#?}");
    for id in [
        "5fb53a48", "fecae38a", "018bf6eb", "616b9e27", "8231d470", "a4242848", "e1acdfb1",
        "c76f8969", "cf0df6f8", "75bf76e3", "bfc1b571",
    ] {
        assert_eq!(find(&list, id).state, SessionState::Ended, "{id}");
    }

    let wt = find(&list, "fecae38a");
    assert_eq!(wt.agent, Agent::Claude);
    assert_eq!(wt.tmux_pane.as_deref(), Some("cc2:@0.%0"));
    assert_eq!(wt.pid, Some(23452));
    assert_eq!(wt.permission_mode.as_deref(), Some("plan"));
    assert_eq!(
        wt.worktree, None,
        "the session left its worktree (worktreeSession: null)"
    );
    assert_eq!(wt.git_branch.as_deref(), Some("worktree-demo-wt"));
    assert_eq!(wt.title.as_deref(), Some("plan pagination in worktree"));
    assert!(wt
        .plan_path
        .as_deref()
        .unwrap()
        .ends_with(".claude/plans/plan-pagination-in-worktree-fluffy-wozniak.md"));
    assert_eq!(wt.unreadable_lines, 0);
    assert_eq!(
        find(&list, "8231d470").permission_mode.as_deref(),
        Some("default"),
        "plan mode left after approval"
    );
    assert_eq!(
        find(&list, "018bf6eb").title.as_deref(),
        Some("plan pagination six"),
        "the /clear echo is no title"
    );

    let g = find(&list, "c76f8969");
    assert_eq!(g.agent, Agent::Gemini);
    assert_eq!(g.cwd, "/home/dev/work/gemproj");
    assert_eq!(g.title.as_deref(), Some("plan pagination for the api"));
    assert!(g
        .plan_path
        .as_deref()
        .unwrap()
        .ends_with("tmp/gemproj/c76f8969-6e57-4aca-b93f-75bfc80d94ca/plans/pagination.md"));
    assert_eq!(g.model.as_deref(), Some("gemini-3.8-flash"));

    // Right after the recording, the Gemini sessions had just finished their turns.
    index.set_now(Some(at("2026-11-22T12:33:00Z")));
    let list = index.sessions();
    for id in ["c76f8969", "cf0df6f8", "75bf76e3", "bfc1b571"] {
        assert_eq!(find(&list, id).state, SessionState::Idle, "{id}");
    }

    let hints = index.worktree_hints();
    let h = hints
        .iter()
        .find(|h| h.session_id.starts_with("fecae38a"))
        .unwrap();
    assert_eq!(
        h.worktree_path.as_deref(),
        Some(Path::new("/home/dev/work/api/.claude/worktrees/demo-wt"))
    );
    assert_eq!(
        h.original_head_commit.as_deref(),
        Some("9b52f4195cc6ee84ae1da5579b4d863ecd4f6527")
    );
    assert_eq!(h.original_branch.as_deref(), Some("main"));
    assert!(!h.running);
    assert_eq!(sessions::worktree_hints(&roots).len(), hints.len());
}

#[test]
fn demo_sessions_get_sensible_states() {
    let dir = tempfile::tempdir().unwrap();
    let demo = plandeck_core::demo::create(dir.path()).unwrap();
    let list = sessions::list(&demo.roots());
    assert_eq!(list.len(), 4, "{list:#?}");
    let waiting = find(&list, plandeck_core::demo::SESSION_WAITING);
    assert_eq!(waiting.state, SessionState::WaitingForApproval);
    assert_eq!(waiting.permission_mode.as_deref(), Some("plan"));
    assert!(waiting
        .plan_path
        .as_deref()
        .unwrap()
        .ends_with("shop-pagination-brisk-otter.md"));
    assert_eq!(waiting.pid, Some(std::process::id()));
    assert!(
        list[0].state.needs_person() && list[1].state.needs_person(),
        "{list:#?}"
    );
    let wt = find(&list, plandeck_core::demo::SESSION_WORKTREE);
    assert_eq!(wt.state, SessionState::Working);
    assert!(wt
        .worktree
        .as_deref()
        .unwrap()
        .ends_with(".claude/worktrees/pagination"));
    assert_eq!(wt.permission_mode.as_deref(), Some("acceptEdits"));
    assert_eq!(
        find(&list, plandeck_core::demo::SESSION_GEMINI).state,
        SessionState::WaitingForApproval
    );
    let codex = find(&list, plandeck_core::demo::SESSION_CODEX);
    assert_eq!(
        (codex.state, codex.permission_mode.as_deref()),
        (SessionState::Ended, Some("on-request"))
    );
    assert_eq!(codex.version.as_deref(), Some("0.50.0"));
}

// ---- generated transcripts ----

struct Home {
    _dir: tempfile::TempDir,
    roots: Roots,
}

fn home() -> Home {
    let dir = tempfile::tempdir().unwrap();
    let roots = Roots::under_home(dir.path());
    Home { _dir: dir, roots }
}

fn ts(t: OffsetDateTime) -> String {
    t.format(&time::format_description::well_known::Rfc3339)
        .unwrap()
}

fn user(sid: &str, t: OffsetDateTime, text: &str) -> serde_json::Value {
    json!({"type": "user", "sessionId": sid, "cwd": "/work/app", "gitBranch": "main", "version": "2.1.328",
           "timestamp": ts(t), "slug": "gen-plan", "permissionMode": "default",
           "message": {"role": "user", "content": text}})
}

fn tool_use(sid: &str, t: OffsetDateTime, id: &str, name: &str) -> serde_json::Value {
    json!({"type": "assistant", "sessionId": sid, "cwd": "/work/app", "timestamp": ts(t),
           "message": {"role": "assistant", "model": "claude-opus-5-5", "stop_reason": "tool_use",
           "content": [{"type": "tool_use", "id": id, "name": name, "input": {"plan": "# P", "planFilePath": "/nowhere/p.md"}}]}})
}

fn tool_result(sid: &str, t: OffsetDateTime, id: &str) -> serde_json::Value {
    json!({"type": "user", "sessionId": sid, "timestamp": ts(t),
           "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": "done"}]}})
}

fn answer(sid: &str, t: OffsetDateTime) -> serde_json::Value {
    json!({"type": "assistant", "sessionId": sid, "timestamp": ts(t),
           "message": {"role": "assistant", "model": "claude-opus-5-5", "stop_reason": "end_turn", "content": [{"type": "text", "text": "Done."}]}})
}

fn transcript_path(roots: &Roots, sid: &str) -> PathBuf {
    roots
        .claude
        .join("projects/-work-app")
        .join(format!("{sid}.jsonl"))
}

fn write_transcript(roots: &Roots, sid: &str, records: &[serde_json::Value]) -> PathBuf {
    let path = transcript_path(roots, sid);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let text: String = records.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(&path, text).unwrap();
    path
}

fn append(path: &Path, bytes: &[u8]) {
    std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .unwrap()
        .write_all(bytes)
        .unwrap();
}

fn write_registry(roots: &Roots, pid: u32, sid: &str, status: &str) -> PathBuf {
    let path = roots.claude.join(format!("sessions/{pid}.json"));
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let v = json!({"pid": pid, "sessionId": sid, "cwd": "/work/app", "status": status, "tmux": "w:@1.%3",
                   "name": "gen", "updatedAt": 0, "version": "2.1.328"});
    std::fs::write(&path, v.to_string()).unwrap();
    path
}

/// A pid that is certainly not running: a child that already exited and was reaped.
fn dead_pid() -> u32 {
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

fn state_of(index: &SessionIndex, sid: &str) -> SessionState {
    find(&index.sessions(), sid).state
}

#[test]
fn generated_transcripts_get_each_state() {
    let h = home();
    let now = at("2026-06-01T12:00:00Z");
    let min = time::Duration::minutes(1);
    let r = &h.roots;
    write_transcript(
        r,
        "s-approval",
        &[
            user("s-approval", now - 5 * min, "plan it"),
            tool_use("s-approval", now - 4 * min, "t1", "ExitPlanMode"),
        ],
    );
    write_transcript(
        r,
        "s-question",
        &[
            user("s-question", now - 5 * min, "ask me"),
            tool_use("s-question", now - 4 * min, "t1", "AskUserQuestion"),
        ],
    );
    write_transcript(
        r,
        "s-working",
        &[
            user("s-working", now - 2 * min, "edit"),
            tool_use("s-working", now - min, "t1", "Edit"),
            tool_result("s-working", now - min, "t1"),
        ],
    );
    write_transcript(
        r,
        "s-idle",
        &[
            user("s-idle", now - 3 * min, "hi"),
            answer("s-idle", now - 2 * min),
        ],
    );
    write_transcript(
        r,
        "s-ended",
        &[
            user("s-ended", now - 300 * min, "hi"),
            answer("s-ended", now - 299 * min),
        ],
    );
    write_transcript(
        r,
        "s-unknown",
        &[
            user("s-unknown", now - 60 * min, "edit"),
            tool_use("s-unknown", now - 59 * min, "t1", "Bash"),
        ],
    );
    write_transcript(r, "s-crashed", &[user("s-crashed", now - 60 * min, "edit")]);
    write_registry(r, dead_pid(), "s-crashed", "busy");
    write_transcript(r, "s-busy", &[user("s-busy", now - 600 * min, "edit")]);
    write_registry(r, std::process::id(), "s-busy", "busy");
    let mut index = SessionIndex::open(r);
    index.set_now(Some(now));
    let list = index.sessions();
    let expect = [
        ("s-approval", SessionState::WaitingForApproval),
        ("s-question", SessionState::WaitingForInput),
        ("s-working", SessionState::Working),
        ("s-idle", SessionState::Idle),
        ("s-ended", SessionState::Ended),
        ("s-unknown", SessionState::Unknown),
        ("s-crashed", SessionState::Crashed),
        ("s-busy", SessionState::Working),
    ];
    for (sid, state) in expect {
        assert_eq!(find(&list, sid).state, state, "{sid}");
    }
    assert_eq!(list[0].session_id, "s-approval");
    assert_eq!(list[1].session_id, "s-question");
    assert_eq!(list.last().unwrap().session_id, "s-ended");
    let busy = find(&list, "s-busy");
    assert_eq!(
        (busy.pid, busy.tmux_pane.as_deref()),
        (Some(std::process::id()), Some("w:@1.%3"))
    );
    // The unknown session carries its last activity for "no news since".
    assert_eq!(
        find(&list, "s-unknown").last_activity.as_deref(),
        Some("2026-06-01T11:01:00Z")
    );
}

#[test]
fn registry_only_session_and_tasks() {
    let h = home();
    let r = &h.roots;
    write_registry(r, std::process::id(), "s-fresh", "idle");
    let tasks = r.claude.join("tasks/s-fresh");
    std::fs::create_dir_all(&tasks).unwrap();
    for (i, status) in ["completed", "in_progress", "pending", "deleted"]
        .iter()
        .enumerate()
    {
        std::fs::write(
            tasks.join(format!("{i}.json")),
            json!({"id": i.to_string(), "subject": "x", "status": status}).to_string(),
        )
        .unwrap();
    }
    std::fs::write(tasks.join(".lock"), "").unwrap();
    let list = sessions::list(r);
    assert_eq!(list.len(), 1);
    assert_eq!(list[0].state, SessionState::Idle);
    assert_eq!(list[0].transcript_path, None);
    assert_eq!(
        list[0].tasks,
        Some(sessions::TaskProgress { done: 1, total: 3 })
    );
}

#[test]
fn damaged_transcripts_are_counted_never_fatal() {
    let h = home();
    let r = &h.roots;
    let now = at("2026-06-01T12:00:00Z");
    let path = write_transcript(r, "s-dmg", &[user("s-dmg", now, "first prompt")]);
    let mut bad = Vec::new();
    bad.extend_from_slice(b"{\"type\":\"user\",\"message\":{\"content\":\"trunc\n"); // truncated record
    bad.extend_from_slice(b"{\"type\":\"user\",\"cwd\":\"\xff\xfe\"}\n"); // invalid UTF-8
    bad.extend_from_slice(b"\x00\x01\x02binary\n"); // binary
    bad.extend_from_slice(
        format!(
            "{}{}\n",
            tool_use("s-dmg", now, "g1", "Read"),
            tool_result("s-dmg", now, "g1")
        )
        .as_bytes(),
    ); // glued, split
    bad.extend_from_slice(b"{\"type\":\"user\",\"x\":\"cut{\"type\":\"user\"}\n"); // broken glue
    bad.extend_from_slice(b"{\"type\":\"some-future-record\",\"x\":1}\n"); // unknown: ignored
    append(&path, &bad);
    let mut index = SessionIndex::open(r);
    index.set_now(Some(now));
    let s = find(&index.sessions(), "s-dmg").clone();
    assert_eq!(s.state, SessionState::Working);
    assert_eq!(
        s.unreadable_lines, 4,
        "truncated, invalid UTF-8, binary, broken glue"
    );
    assert_eq!(s.title.as_deref(), Some("first prompt"));

    // Appended: one line over the 8 MiB cap, then a good record, then half a record.
    let mut bad = Vec::new();
    let mut huge = b"{\"type\":\"user\",\"pad\":\"".to_vec();
    huge.resize(9 << 20, b'a');
    huge.extend_from_slice(b"\"}\n");
    bad.extend_from_slice(&huge);
    bad.extend_from_slice(format!("{}\n", tool_use("s-dmg", now, "t9", "ExitPlanMode")).as_bytes());
    bad.extend_from_slice(b"{\"type\":\"user\",\"unterminated"); // waits for its newline
    append(&path, &bad);
    assert!(index.apply(std::slice::from_ref(&path)));
    let s = find(&index.sessions(), "s-dmg").clone();
    assert_eq!(s.state, SessionState::WaitingForApproval);
    assert_eq!(s.unreadable_lines, 5, "and the overlong line");

    // Cold, the big file is read from its tail only: the damage before it is not seen.
    let cold = SessionIndex::open(r);
    assert_eq!(
        find(&cold.sessions(), "s-dmg").title.as_deref(),
        Some("first prompt")
    );

    // A missing / unreadable folder is no error.
    let mut r2 = r.clone();
    r2.claude = PathBuf::from("/nonexistent/claude");
    assert!(sessions::list(&r2).is_empty());
}

#[test]
fn apply_reads_only_appended_bytes_and_follows_changes() {
    let h = home();
    let r = &h.roots;
    let now = at("2026-06-01T12:00:00Z");
    let min = time::Duration::minutes(1);
    let path = write_transcript(r, "s-live", &[user("s-live", now - 2 * min, "plan it")]);
    let mut index = SessionIndex::open(r);
    index.set_now(Some(now));
    assert_eq!(state_of(&index, "s-live"), SessionState::Working);
    assert!(index
        .watch_roots()
        .iter()
        .any(|p| p.ends_with(".claude/projects")));

    // Damage the bytes already read, in place: re-reading them would count unreadable lines.
    let mut f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    f.write_all(b"XXXX").unwrap();
    drop(f);

    // A record in two writes: the first half waits for its newline.
    let rec = format!("{}\n", tool_use("s-live", now - min, "t1", "ExitPlanMode"));
    let (a, b) = rec.as_bytes().split_at(rec.len() / 2);
    append(&path, a);
    assert!(
        !index.apply(std::slice::from_ref(&path)),
        "half a record changes nothing"
    );
    append(&path, b);
    assert!(index.apply(std::slice::from_ref(&path)));
    let s = find(&index.sessions(), "s-live").clone();
    assert_eq!(s.state, SessionState::WaitingForApproval);
    assert_eq!(s.unreadable_lines, 0, "old bytes were not read again");
    assert!(!index.apply(std::slice::from_ref(&path)), "nothing new");

    append(
        &path,
        format!(
            "{}\n{}\n",
            tool_result("s-live", now, "t1"),
            answer("s-live", now)
        )
        .as_bytes(),
    );
    assert!(index.apply(std::slice::from_ref(&path)));
    assert_eq!(state_of(&index, "s-live"), SessionState::Idle);

    // A new transcript appears, one is replaced by a shorter file, one is deleted.
    let other = write_transcript(r, "s-new", &[user("s-new", now, "new one")]);
    assert!(index.apply(std::slice::from_ref(&other)));
    assert_eq!(state_of(&index, "s-new"), SessionState::Working);
    std::fs::write(
        &path,
        format!("{}\n", tool_use("s-live", now, "t2", "ExitPlanMode")),
    )
    .unwrap();
    assert!(index.apply(std::slice::from_ref(&path)));
    assert_eq!(state_of(&index, "s-live"), SessionState::WaitingForApproval);
    std::fs::remove_file(&other).unwrap();
    assert!(index.apply(std::slice::from_ref(&other)));
    assert!(index.sessions().iter().all(|s| s.session_id != "s-new"));

    // Registry appears (live, waiting) and goes away.
    let reg = write_registry(r, std::process::id(), "s-live", "waiting");
    assert!(index.apply(std::slice::from_ref(&reg)));
    assert_eq!(
        find(&index.sessions(), "s-live").pid,
        Some(std::process::id())
    );
    std::fs::remove_file(&reg).unwrap();
    assert!(index.apply(&[reg]));
    assert_eq!(find(&index.sessions(), "s-live").pid, None);

    // A new project folder reported as a folder.
    let dir = r.claude.join("projects/-work-other");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("s-dir.jsonl"),
        format!("{}\n", user("s-dir", now, "x")),
    )
    .unwrap();
    assert!(index.apply(&[dir]));
    assert_eq!(state_of(&index, "s-dir"), SessionState::Working);
}

#[test]
fn gemini_and_codex_appends() {
    let h = home();
    let r = &h.roots;
    let now = at("2026-06-01T12:00:00Z");
    let chat = r
        .gemini
        .join("tmp/proj/chats/session-2026-06-01T11-59-abcd1234.jsonl");
    std::fs::create_dir_all(chat.parent().unwrap()).unwrap();
    std::fs::write(r.gemini.join("tmp/proj/.project_root"), "/work/proj").unwrap();
    std::fs::write(&chat, format!("{}\n", json!({"sessionId": "abcd1234-0000", "projectHash": "h", "startTime": "2026-06-01T11:59:00Z", "kind": "main"}))).unwrap();
    let rollout = r
        .codex
        .join("sessions/2026/06/01/rollout-2026-06-01T11-58-00-cx1.jsonl");
    std::fs::create_dir_all(rollout.parent().unwrap()).unwrap();
    std::fs::write(&rollout, format!("{}\n", json!({"timestamp": "2026-06-01T11:58:00Z", "type": "session_meta", "payload": {"id": "cx1", "cwd": "/work/c", "cli_version": "0.50.0"}}))).unwrap();
    let mut index = SessionIndex::open(r);
    index.set_now(Some(now));
    assert_eq!(find(&index.sessions(), "abcd1234").cwd, "/work/proj");
    append(
        &chat,
        format!(
            "{}\n",
            json!({"id": "m1", "timestamp": "2026-06-01T11:59:30Z", "type": "gemini", "content": "",
        "toolCalls": [{"id": "c1", "name": "exit_plan_mode", "args": {"plan_filename": "p.md"}}]})
        )
        .as_bytes(),
    );
    append(&rollout, format!("{}\n", json!({"timestamp": "2026-06-01T11:59:00Z", "type": "event_msg", "payload": {"type": "task_complete"}})).as_bytes());
    assert!(index.apply(&[chat.clone(), rollout.clone()]));
    let list = index.sessions();
    let g = find(&list, "abcd1234");
    assert_eq!(g.state, SessionState::WaitingForApproval);
    assert!(g
        .plan_path
        .as_deref()
        .unwrap()
        .ends_with("tmp/proj/abcd1234-0000/plans/p.md"));
    assert_eq!(find(&list, "cx1").state, SessionState::Idle);
}

/// Codex CLI 0.171 creates its rollout empty and writes `session_meta` a moment later (measured:
/// docs/agents.md). A rollout first seen empty, or with half its first line, is listed under its
/// session id once the record is there, not under the file's name (issue 34: the card of a
/// session Plandeck started was never found under the id `start` printed). So is one resumed
/// from the stored index.
#[test]
fn a_codex_rollout_first_seen_empty_takes_its_session_id_when_session_meta_arrives() {
    let h = home();
    let r = &h.roots;
    let sid = "01a22294-a376-76a1-a4b3-160e1b9eb1d9";
    let rollout = r.codex.join(format!(
        "sessions/2026/11/28/rollout-2026-11-28T14-34-56-{sid}.jsonl"
    ));
    std::fs::create_dir_all(rollout.parent().unwrap()).unwrap();
    std::fs::write(&rollout, "").unwrap();
    let mut index = SessionIndex::open(r);
    index.set_now(Some(at("2026-11-28T14:35:00Z")));
    let meta = format!(
        "{}\n",
        json!({"timestamp": "2026-11-28T14:34:56Z", "type": "session_meta",
               "payload": {"id": sid, "session_id": sid, "cwd": "/work/api", "cli_version": "0.171.0"}})
    );
    let (half, rest) = meta.as_bytes().split_at(40);
    append(&rollout, half);
    index.apply(std::slice::from_ref(&rollout));
    append(&rollout, rest);
    assert!(index.apply(std::slice::from_ref(&rollout)));
    let list = index.sessions();
    assert_eq!(list.len(), 1, "{list:#?}");
    assert_eq!(list[0].session_id, sid);
    assert_eq!(list[0].cwd, "/work/api");

    // Stored while still empty, read again from the store once the record was written.
    let stored = r
        .codex
        .join("sessions/2026/11/28/rollout-2026-11-28T14-40-00-01a22294-ffff-7000-8000-000000000001.jsonl");
    std::fs::write(&stored, "").unwrap();
    let index = SessionIndex::open(r);
    index.save().unwrap();
    drop(index);
    append(
        &stored,
        format!(
            "{}\n",
            json!({"timestamp": "2026-11-28T14:40:00Z", "type": "session_meta",
                   "payload": {"id": "01a22294-ffff-7000-8000-000000000001", "cwd": "/work/b", "cli_version": "0.171.0"}})
        )
        .as_bytes(),
    );
    let index = SessionIndex::open(r);
    let list = index.sessions();
    assert!(
        list.iter()
            .any(|s| s.session_id == "01a22294-ffff-7000-8000-000000000001"),
        "{list:#?}"
    );
    assert!(
        !list.iter().any(|s| s.session_id.starts_with("rollout-")),
        "{list:#?}"
    );
}

// ---- properties ----

use proptest::prelude::*;

fn fold_chunks(agent: Agent, bytes: &[u8], cuts: &[usize], cap: usize) -> Facts {
    let mut facts = Facts::default();
    let mut splitter = LineSplitter::with_cap(cap);
    let mut points: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
    points.sort_unstable();
    let mut from = 0;
    for p in points.into_iter().chain(std::iter::once(bytes.len())) {
        splitter.feed(&bytes[from..p], &mut |l| {
            sessions::feed_line(agent, &mut facts, l)
        });
        from = p;
    }
    facts.unreadable += splitter.overlong;
    facts
}

fn record_strategy() -> impl Strategy<Value = String> {
    let id = "[a-c][0-9]";
    let text = "[ a-zé\"\\\\<\\[]{0,20}";
    prop_oneof![
        (text).prop_map(|t| json!({"type": "user", "timestamp": "2026-01-01T00:00:01Z", "cwd": "/w", "message": {"content": t}}).to_string()),
        (id, prop_oneof![Just("ExitPlanMode"), Just("AskUserQuestion"), Just("Bash")]).prop_map(|(i, n)| json!({"type": "assistant",
            "timestamp": "2026-01-01T00:00:02Z", "message": {"content": [{"type": "tool_use", "id": i, "name": n, "input": {"planFilePath": "/p.md"}}]}}).to_string()),
        id.prop_map(|i| json!({"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": i, "content": [{"type": "text", "text": "x"}]}]}}).to_string()),
        prop_oneof![Just("plan"), Just("default"), Just("acceptEdits")].prop_map(|m| json!({"type": "permission-mode", "permissionMode": m}).to_string()),
        Just(json!({"type": "worktree-state", "worktreeSession": null}).to_string()),
        Just(json!({"type": "system", "subtype": "turn_duration", "timestamp": "2026-01-01T00:00:03Z"}).to_string()),
        (id).prop_map(|i| json!({"id": i, "timestamp": "2026-01-01T00:00:04Z", "type": "gemini", "content": "",
            "toolCalls": [{"id": i, "name": "exit_plan_mode", "args": {"plan_filename": "p.md"}}]}).to_string()),
        (id).prop_map(|i| json!({"id": "u", "type": "user", "content": [{"functionResponse": {"id": i}}]}).to_string()),
        Just(json!({"timestamp": "2026-01-01T00:00:05Z", "type": "event_msg", "payload": {"type": "task_complete"}}).to_string()),
        "[{}\\[\\]\",:a-z0-9 ]{0,30}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Arbitrary bytes in arbitrary chunks: no panic, and the same facts as one whole read.
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2048),
                                   cuts in proptest::collection::vec(any::<usize>(), 0..8),
                                   cap in 8usize..512) {
        for agent in [Agent::Claude, Agent::Gemini, Agent::Codex] {
            let whole = fold_chunks(agent, &bytes, &[], cap);
            let split = fold_chunks(agent, &bytes, &cuts, cap);
            prop_assert_eq!(whole, split);
        }
    }

    /// Valid records (and some junk lines) split anywhere: the same facts as a whole read.
    #[test]
    fn arbitrary_splits_of_records_read_the_same(records in proptest::collection::vec(record_strategy(), 0..24),
                                                 cuts in proptest::collection::vec(any::<usize>(), 0..12),
                                                 glue in any::<bool>()) {
        let sep = if glue { "" } else { "\n" };
        let mut text = records.join(sep);
        text.push('\n');
        for agent in [Agent::Claude, Agent::Gemini, Agent::Codex] {
            let whole = fold_chunks(agent, text.as_bytes(), &[], 1 << 20);
            let split = fold_chunks(agent, text.as_bytes(), &cuts, 1 << 20);
            prop_assert_eq!(whole, split);
        }
    }
}

/// The kept corpus of nasty inputs (tests/corpus/sessions): every file through every parser.
#[test]
fn corpus_never_panics() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/sessions");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let bytes = std::fs::read(e.unwrap().path()).unwrap();
        for agent in [Agent::Claude, Agent::Gemini, Agent::Codex] {
            let whole = fold_chunks(agent, &bytes, &[], 4096);
            let split = fold_chunks(agent, &bytes, &[1, 7, 100, 1000], 4096);
            assert_eq!(whole, split);
        }
        n += 1;
    }
    assert!(n >= 5);
}

#[test]
fn subagent_transcripts_count_as_the_session_activity() {
    let h = home();
    let r = &h.roots;
    let now = at("2026-06-01T12:00:00Z");
    let min = time::Duration::minutes(1);
    let path = write_transcript(
        r,
        "s-parent",
        &[
            user("s-parent", now - 30 * min, "explore"),
            tool_use("s-parent", now - 29 * min, "t1", "Task"),
        ],
    );
    let sub = path.with_file_name("s-parent/subagents/agent-a1.jsonl");
    std::fs::create_dir_all(sub.parent().unwrap()).unwrap();
    std::fs::write(&sub, format!("{}\n", json!({"type": "assistant", "isSidechain": true, "timestamp": ts(now - 2 * min), "message": {"content": "x"}}))).unwrap();
    let mut index = SessionIndex::open(r);
    index.set_now(Some(now));
    let s = index.session("s-parent").unwrap();
    assert_eq!(
        (s.state, s.last_activity.as_deref()),
        (SessionState::Working, Some("2026-06-01T11:58:00Z"))
    );
    append(&sub, format!("{}\n", json!({"type": "user", "isSidechain": true, "timestamp": ts(now - min), "message": {"content": "y"}})).as_bytes());
    assert!(index.apply(std::slice::from_ref(&sub)));
    assert_eq!(
        index.session("s-parent").unwrap().last_activity.as_deref(),
        Some("2026-06-01T11:59:00Z")
    );
    // A new subagent transcript reported later is picked up too.
    let sub2 = path.with_file_name("s-parent/subagents/agent-b2.jsonl");
    std::fs::write(
        &sub2,
        format!(
            "{}\n",
            json!({"type": "assistant", "timestamp": ts(now), "message": {"content": "z"}})
        ),
    )
    .unwrap();
    assert!(index.apply(std::slice::from_ref(&sub2)));
    assert_eq!(
        index.session("s-parent").unwrap().last_activity.as_deref(),
        Some("2026-06-01T12:00:00Z")
    );
    // Replacing the parent re-reads it, subagents included, without stale indices.
    std::fs::write(&path, format!("{}\n", answer("s-parent", now))).unwrap();
    index.apply(std::slice::from_ref(&path));
    assert_eq!(index.session("s-parent").unwrap().state, SessionState::Idle);
    assert!(!index.apply(&[sub.clone(), sub2.clone()]));
}

// ---------------------------------------------------------------------------------------------
// The persistent session index (<data>/sessions/index.json): later opens read only what changed.

fn t0() -> OffsetDateTime {
    at("2026-06-01T10:00:00Z")
}

fn open_at(roots: &Roots) -> SessionIndex {
    let mut index = SessionIndex::open(roots);
    index.set_now(Some(t0() + time::Duration::minutes(1)));
    index
}

fn waiting_then_working(roots: &Roots) -> PathBuf {
    write_transcript(
        roots,
        "s-1",
        &[
            user("s-1", t0(), "plan it"),
            tool_use("s-1", t0(), "toolu_a", "ExitPlanMode"),
        ],
    )
}

#[test]
fn a_second_open_reads_nothing_unchanged_and_only_what_was_appended() {
    let h = home();
    let path = waiting_then_working(&h.roots);
    write_transcript(
        &h.roots,
        "s-2",
        &[user("s-2", t0(), "other"), answer("s-2", t0())],
    );
    let first = open_at(&h.roots);
    assert_eq!(first.open_stats().cold, 2);
    assert_eq!(state_of(&first, "s-1"), SessionState::WaitingForApproval);
    let want = first.sessions();
    drop(first);
    assert!(h.roots.data.join("sessions/index.json").is_file());

    let second = open_at(&h.roots);
    let st = second.open_stats();
    assert_eq!((st.reused, st.resumed, st.cold), (2, 0, 0), "{st:?}");
    assert_eq!(
        second.sessions(),
        want,
        "the stored facts give the same list"
    );
    drop(second);

    let line = format!("{}\n", tool_result("s-1", t0(), "toolu_a"));
    append(&path, line.as_bytes());
    let third = open_at(&h.roots);
    let st = third.open_stats();
    assert_eq!((st.reused, st.resumed, st.cold), (1, 1, 0), "{st:?}");
    assert_eq!(
        st.resumed_bytes,
        line.len() as u64,
        "only the appended line is read"
    );
    assert_eq!(state_of(&third, "s-1"), SessionState::Working);
}

#[test]
fn a_partial_last_line_is_read_again_once_complete() {
    let h = home();
    let path = waiting_then_working(&h.roots);
    let line = format!("{}\n", tool_result("s-1", t0(), "toolu_a"));
    let (a, b) = line.split_at(line.len() / 2);
    append(&path, a.as_bytes());
    let first = open_at(&h.roots);
    assert_eq!(state_of(&first, "s-1"), SessionState::WaitingForApproval);
    drop(first);
    append(&path, b.as_bytes());
    let second = open_at(&h.roots);
    assert_eq!(second.open_stats().resumed, 1);
    assert_eq!(state_of(&second, "s-1"), SessionState::Working);
}

/// Writes `text` over the file at `path`: the same inode, truncated first.
fn rewrite_in_place(path: &Path, text: &str) {
    std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(path)
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
}

#[test]
fn a_truncated_or_replaced_transcript_is_read_again_not_resumed() {
    let h = home();
    let path = waiting_then_working(&h.roots);
    drop(open_at(&h.roots));
    // Truncated (the same file, shorter): the stored offset is past its end.
    let text = format!(
        "{}\n{}\n",
        user("s-1", t0(), "plan it"),
        answer("s-1", t0())
    );
    rewrite_in_place(&path, &text);
    let index = open_at(&h.roots);
    assert_eq!(index.open_stats().cold, 1);
    assert_eq!(state_of(&index, "s-1"), SessionState::Idle);
    drop(index);
    // Replaced by another file, longer than the stored offset (a new inode, written then
    // renamed over it the way editors and agents do).
    let tmp = path.with_extension("tmp");
    let mut records = vec![user("s-1", t0(), "plan it")];
    records.push(tool_use("s-1", t0(), "toolu_b", "ExitPlanMode"));
    records.push(user("s-1", t0(), &"x".repeat(400)));
    records.push(tool_use("s-1", t0(), "toolu_c", "ExitPlanMode"));
    let text: String = records.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, &path).unwrap();
    let index = open_at(&h.roots);
    assert_eq!(index.open_stats().cold, 1, "{:?}", index.open_stats());
    assert_eq!(state_of(&index, "s-1"), SessionState::WaitingForApproval);
}

#[test]
fn a_transcript_rewritten_in_place_to_a_larger_size_is_read_again() {
    let h = home();
    let path = waiting_then_working(&h.roots);
    drop(open_at(&h.roots));
    // Same inode, new content longer than before: resuming at the old offset would land mid-record.
    let mut records = vec![user("s-1", t0(), &"y".repeat(300))];
    records.push(answer("s-1", t0()));
    let text: String = records.iter().map(|r| format!("{r}\n")).collect();
    rewrite_in_place(&path, &text);
    let index = open_at(&h.roots);
    assert_eq!(index.open_stats().cold, 1, "{:?}", index.open_stats());
    assert_eq!(state_of(&index, "s-1"), SessionState::Idle);
    assert_eq!(find(&index.sessions(), "s-1").unreadable_lines, 0);
}

#[test]
fn a_damaged_or_foreign_index_file_is_rebuilt_never_trusted() {
    let h = home();
    waiting_then_working(&h.roots);
    drop(open_at(&h.roots));
    let store = h.roots.data.join("sessions/index.json");
    let good = std::fs::read(&store).unwrap();
    let damaged: Vec<Vec<u8>> = vec![
        good[..good.len() / 2].to_vec(),
        b"not json at all".to_vec(),
        String::from_utf8(good.clone())
            .unwrap()
            .replacen("\"version\":2", "\"version\":999", 1)
            .into_bytes(),
        Vec::new(),
    ];
    for bytes in damaged {
        std::fs::write(&store, &bytes).unwrap();
        let index = open_at(&h.roots);
        let st = index.open_stats();
        assert!(st.store_rebuilt && st.cold == 1, "{st:?}");
        assert_eq!(state_of(&index, "s-1"), SessionState::WaitingForApproval);
        drop(index);
        assert_eq!(std::fs::read(&store).unwrap(), good, "rewritten whole");
    }
    // Facts in the store that its file does not back (a lie): the check of the bytes before the
    // stored offset catches a file whose content changed under the same size and inode.
    let text = String::from_utf8(good).unwrap();
    assert!(text.contains("\"offset\":"));
}

/// A session whose last line is one tool result longer than any tail window and than the line cap
/// (Claude Code writes 20 MiB ones): the line is found whole from its start, its long strings cut,
/// and it answers the plan-approval call before it.
#[test]
fn a_last_line_of_many_mib_answers_the_call_before_it() {
    let h = home();
    let out = "l\u{e9}ine \"quoted\"\n".repeat((9 << 20) / 16);
    let mut result = tool_result("s-1", t0(), "toolu_a");
    result["message"]["content"][0]["content"] = json!(out);
    result["toolUseResult"] = json!({"stdout": out, "stderr": "", "interrupted": false});
    let path = write_transcript(
        &h.roots,
        "s-1",
        &[
            user("s-1", t0(), "plan it"),
            tool_use("s-1", t0(), "toolu_a", "ExitPlanMode"),
            result,
        ],
    );
    assert!(std::fs::metadata(&path).unwrap().len() > 18 << 20);
    let index = open_at(&h.roots);
    let s = find(&index.sessions(), "s-1").clone();
    assert_eq!(s.state, SessionState::Working, "{s:?}");
    assert_eq!(s.unreadable_lines, 0);
    assert_eq!(s.cwd, "/work/app");
}

/// The window fills sessions in as the index loads: progress counts every transcript read, ends
/// `ready` with read == total, and the watch list is known before any index is open.
#[test]
fn open_with_progress_counts_every_transcript_and_ends_ready() {
    let home = fixture_home();
    let roots = Roots::under_home(home.path());
    let seen = std::sync::Mutex::new(Vec::new());
    let index = SessionIndex::open_with_progress(&roots, &|p| seen.lock().unwrap().push(p));
    let seen = seen.into_inner().unwrap();
    let total = index.sessions().len() as u32;
    assert_eq!(total, 11);
    assert_eq!(seen.first().map(|p| (p.read, p.ready)), Some((0, false)));
    let last = *seen.last().unwrap();
    assert!(last.ready && last.read == last.total, "{last:?}");
    assert!(last.total >= total, "{last:?}");
    assert!(seen[..seen.len() - 1]
        .iter()
        .all(|p| !p.ready && p.read < p.total));
    assert_eq!(index.watch_roots(), SessionIndex::watch_roots_of(&roots));
}

/// Issue 34: a Codex rollout the watcher reports before its first record (the CLI creates it,
/// then writes) was named by its file for good; its session id names it once a record says it.
#[test]
fn a_rollout_seen_empty_is_named_by_its_session_id_once_written() {
    let h = home();
    let r = &h.roots;
    let from = plandeck_testkit::fixtures::fixture(plandeck_testkit::fixtures::CODEX)
        .join("sessions/2026/11/23/rollout-2026-11-23T09-06-18-01a207a7-f7fe-7201-ac2d-8334cc0ede60.jsonl");
    let day = r.codex.join("sessions/2026/11/23");
    std::fs::create_dir_all(&day).unwrap();
    let mut index = SessionIndex::open(r);
    let path = day.join(from.file_name().unwrap());
    std::fs::write(&path, "").unwrap();
    index.apply(std::slice::from_ref(&path));
    append(&path, &std::fs::read(&from).unwrap());
    index.apply(std::slice::from_ref(&path));
    let ids: Vec<String> = index.sessions().into_iter().map(|s| s.session_id).collect();
    assert_eq!(ids, ["01a207a7-f7fe-7201-ac2d-8334cc0ede60"]);
}

// ---- tokens (usage) ----

/// Tokens and cost from each agent's own records, read with the index's one pass: Claude Code's
/// `cost-state` totals (with its cost), Gemini CLI's messages' `tokens` (a message written again
/// as it grows counted once), Codex CLI's `token_count` totals. The figures are the fixtures'
/// (the stand-ins answer 10 input and 10 output tokens a call).
#[test]
fn usage_comes_from_each_agents_records() {
    let home = fixture_home();
    copy_tree(
        &Path::new(FIXTURES)
            .join(plandeck_testkit::fixtures::CODEX)
            .join("sessions"),
        &home.path().join(".codex/sessions"),
    );
    let roots = Roots::under_home(home.path());
    let list = SessionIndex::open(&roots).sessions();
    let usage = |id: &str| {
        let u = find(&list, id)
            .usage
            .clone()
            .unwrap_or_else(|| panic!("no usage for {id}"));
        (u.input_tokens, u.output_tokens, u.cost_usd, u.partial)
    };
    // Claude Code: the last `cost-state` record's totals and cost.
    assert_eq!(usage("616b9e27"), (30, 30, Some(0.00072), false));
    assert_eq!(
        usage("8231d470"),
        (50, 50, Some(0.0012000000000000001), false)
    );
    // Gemini CLI: one count per model call, though each is written twice.
    assert_eq!(usage("cf0df6f8"), (50, 50, None, false));
    assert_eq!(usage("c76f8969"), (30, 30, None, false));
    // Codex CLI: the last `token_count`'s `total_token_usage`.
    assert_eq!(usage("01a207a7-dafa"), (30, 30, None, false));
    assert_eq!(usage("01a207a7-be64"), (20, 20, None, false));

    // The same figures from the stored index (not read again), and in `sessions list --json`'s
    // field names.
    let again = SessionIndex::open(&roots);
    assert_eq!(again.open_stats().reused, again.open_stats().files);
    let row = serde_json::to_value(find(&again.sessions(), "616b9e27")).unwrap();
    assert_eq!(
        row["usage"],
        json!({"inputTokens": 30, "outputTokens": 30, "costUsd": 0.00072, "partial": false})
    );
}

fn assistant_with_usage(
    sid: &str,
    t: OffsetDateTime,
    msg: &str,
    input: u64,
    output: u64,
) -> serde_json::Value {
    json!({"type": "assistant", "sessionId": sid, "timestamp": ts(t),
           "message": {"id": msg, "role": "assistant", "model": "claude-opus-5-5", "stop_reason": "end_turn",
           "content": [{"type": "text", "text": "Done."}],
           "usage": {"input_tokens": input, "cache_creation_input_tokens": 1, "cache_read_input_tokens": 2, "output_tokens": output}}})
}

/// Each model call is counted once (Claude Code writes a record per content block, each with the
/// call's `usage`); appended calls add up as the index reads on; a session with no usage record
/// has none; a record with a damaged count is still read.
#[test]
fn usage_counts_each_call_once_and_follows_appends() {
    let h = home();
    let t = at("2026-06-01T12:00:00Z");
    let path = write_transcript(
        &h.roots,
        "u1",
        &[
            user("u1", t, "go"),
            assistant_with_usage("u1", t, "msg_a", 100, 5),
            assistant_with_usage("u1", t, "msg_a", 100, 7),
            assistant_with_usage("u1", t, "msg_b", 200, 9),
        ],
    );
    write_transcript(&h.roots, "u2", &[user("u2", t, "no usage")]);
    let mut index = SessionIndex::open(&h.roots);
    let usage = |index: &SessionIndex, id: &str| find(&index.sessions(), id).usage.clone();
    let u = usage(&index, "u1").unwrap();
    assert_eq!(
        (u.input_tokens, u.output_tokens, u.cost_usd, u.partial),
        (103 + 203, 7 + 9, None, false)
    );
    assert_eq!(usage(&index, "u2"), None);

    let mut damaged = assistant_with_usage("u1", t, "msg_c", 0, 0);
    damaged["message"]["usage"]["input_tokens"] = json!("lots");
    damaged["message"]["usage"]["output_tokens"] = json!(-3);
    append(
        &path,
        format!(
            "{}\n{}\n",
            damaged,
            assistant_with_usage("u1", t, "msg_d", 10, 1)
        )
        .as_bytes(),
    );
    assert!(index.apply(std::slice::from_ref(&path)));
    let u = usage(&index, "u1").unwrap();
    assert_eq!((u.input_tokens, u.output_tokens), (306 + 3 + 13, 16 + 1));
    assert_eq!(find(&index.sessions(), "u1").unreadable_lines, 0);
}

/// A transcript too large to read whole is read at its head and tail: the tokens counted there
/// are marked partial (at least this much), never passed off as the whole; a record of the
/// session's totals (`cost-state`) in the tail makes them whole again.
#[test]
fn a_large_transcript_read_at_its_ends_has_partial_usage_until_a_totals_record() {
    let h = home();
    let t = at("2026-06-01T12:00:00Z");
    let filler = "x".repeat(2000);
    let mut records = vec![user("big", t, "go")];
    for i in 0..2000 {
        let mut r = assistant_with_usage("big", t, &format!("msg_{i}"), 10, 1);
        r["message"]["content"][0]["text"] = json!(filler);
        records.push(r);
    }
    let path = write_transcript(&h.roots, "big", &records);
    assert!(std::fs::metadata(&path).unwrap().len() > 4 << 20);
    let index = SessionIndex::open(&h.roots);
    let u = find(&index.sessions(), "big").usage.clone().unwrap();
    assert!(u.partial, "{u:?}");
    assert!(u.input_tokens > 0 && u.input_tokens < 2000 * 13, "{u:?}");

    append(
        &path,
        format!(
            "{}\n",
            json!({"type": "cost-state", "sessionId": "big", "totalCostUSD": 1.25,
                   "modelUsage": {"claude-opus-5-5": {"inputTokens": 20000, "outputTokens": 2000,
                   "cacheReadInputTokens": 4000, "cacheCreationInputTokens": 2000}}})
        )
        .as_bytes(),
    );
    let cold = SessionIndex::open(&h.roots);
    let u = find(&cold.sessions(), "big").usage.clone().unwrap();
    assert_eq!(
        (u.input_tokens, u.output_tokens, u.cost_usd, u.partial),
        (26000, 2000, Some(1.25), false)
    );
}

/// The record a hosted ACP session's host writes (`<data>/acp/sessions/<id>.json`), its agent's
/// own id of the session `session_id`.
fn hosted_record(roots: &Roots, id: &str, session_id: &str) {
    hosted_record_in(roots, id, session_id, "idle")
}

fn hosted_record_in(roots: &Roots, id: &str, session_id: &str, state: &str) {
    let now = "2026-11-23T00:50:00Z".to_owned();
    let hosted = plandeck_core::acp::host::Hosted {
        session_id: Some(session_id.to_owned()),
        state: state.into(),
        mode: Some("plan".into()),
        modes: vec!["default".into(), "plan".into()],
        can_load: Some(true),
        host_start_time: None,
        ..plandeck_core::acp::host::Hosted::new(
            id.to_owned(),
            "claude-acp",
            "Claude Code (ACP)",
            "/home/dev/work/api",
            std::process::id(),
            now,
        )
    };
    let dir = roots.data.join("acp").join("sessions");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join(format!("{id}.json")),
        serde_json::to_vec(&hosted).unwrap(),
    )
    .unwrap();
}

/// Issue 36: claude-agent-acp starts its bundled Claude Code with the ACP session's id as its
/// session id, so that Claude Code's transcript (`~/.claude/projects/<folder>/<id>.jsonl`) is found
/// like any other. The hosted session's ACP card is the one: the transcript is not listed as a
/// second, terminal session (whose Send, Interrupt, Stop and Open in terminal do not apply), in
/// the window's list nor in `sessions list` (both settled by `standing::settle_listed`).
#[test]
fn a_hosted_acp_sessions_own_transcript_is_not_listed_as_a_second_session() {
    let home = fixture_home();
    let roots = Roots::under_home(home.path());
    let sid = "616b9e27-ce4d-4e5c-aa43-9d801b0ce4b1";
    let listed = || {
        let mut list = sessions::list(&roots);
        plandeck_core::standing::settle_listed(&roots, &mut list);
        list.into_iter().map(|s| s.session_id).collect::<Vec<_>>()
    };
    let before = listed();
    assert!(before.iter().any(|s| s == sid), "{before:#?}");

    // An ACP session hosted for another agent session changes nothing.
    hosted_record(&roots, "acps-00000000000000aa", "not-a-transcript");
    assert_eq!(listed(), before);

    hosted_record(&roots, "acps-00000000000000bb", sid);
    let after = listed();
    assert!(!after.iter().any(|s| s == sid), "{after:#?}");
    assert_eq!(after.len(), before.len() - 1);
    // The ACP session itself is listed, once.
    let hosted = plandeck_core::acp::host::list(&roots);
    assert_eq!(
        hosted
            .iter()
            .filter(|h| h.session_id.as_deref() == Some(sid))
            .count(),
        1
    );
}

/// Claude Code's plan hook run (the app present) on a real hook input whose session an ACP record
/// `id` in `state` names; what it answered and how many requests it filed.
fn plan_hook_on_hosted(id: &str, state: &str) -> (plandeck_core::gate::HookOutcome, usize) {
    let home = tempfile::tempdir().unwrap();
    let roots = Roots::under_home(home.path());
    let _app = plandeck_core::gate::app_heartbeat(&roots).unwrap();
    let stdin = std::fs::read(
        Path::new(FIXTURES)
            .join("claude-code-2.1.328/hook-input/permission-request-exit-plan-mode.json"),
    )
    .unwrap();
    let input: serde_json::Value = serde_json::from_slice(&stdin).unwrap();
    hosted_record_in(&roots, id, input["session_id"].as_str().unwrap(), state);
    let out = plandeck_core::gate::hook_claude(
        &roots,
        &stdin,
        plandeck_core::gate::HookOptions {
            // Only what a hook that did file a request would wait.
            deadline: std::time::Duration::from_millis(300),
            hook_pid: std::process::id(),
            agent_pid: None,
            tmux_env: None,
        },
    );
    let filed = ["requests", "done"]
        .iter()
        .map(|folder| {
            std::fs::read_dir(roots.data.join("gate").join(folder))
                .map(|d| d.count())
                .unwrap_or(0)
        })
        .sum();
    (out, filed)
}

/// The plan hook, installed in `~/.claude/settings.json` for terminal sessions, runs in the
/// Claude Code that claude-agent-acp starts too (it reads the person's settings): for a session
/// an ACP host hosts it gives no decision and files nothing, so the plan waits once, as the ACP
/// session's request its host answers.
#[test]
fn the_plan_hook_leaves_a_hosted_acp_session_to_its_host() {
    let (out, filed) = plan_hook_on_hosted("acps-00000000000000cc", "idle");
    assert_eq!((out.exit_code, out.stdout.as_str()), (0, ""), "{out:?}");
    assert!(out.stderr.contains("hosted over ACP"), "{out:?}");
    assert_eq!(filed, 0, "a request was filed: {out:?}");
}

/// An ended hosted session's transcript resumed in a terminal (`claude --resume <id>`): its plan
/// is the hook's again, filed and waiting as any terminal session's (the hook steps aside only
/// while a host runs the session).
#[test]
fn the_plan_hook_files_the_plan_of_an_ended_hosted_session_resumed_in_a_terminal() {
    let (out, filed) = plan_hook_on_hosted("acps-00000000000000cd", "ended");
    assert!(!out.stderr.contains("hosted over ACP"), "{out:?}");
    assert!(filed > 0, "no request was filed: {out:?}");
}

/// Issue 36: codex-acp 0.16 tells no tokens over ACP (`usage_update` without cost, no `usage` in a
/// prompt's answer), while the Codex it embeds counts them in its rollout, named by the ACP
/// session's id (`tests/fixtures/acp/codex-acp-0.16.0-rollout-<id>.jsonl`, written by a real run).
/// The ACP card (and its `sessions list --json` row) shows that count; the rollout itself is folded
/// into the card, not listed; an ACP session whose agent told its tokens keeps its own.
#[test]
fn a_hosted_sessions_tokens_come_from_its_agents_own_record_when_it_told_none() {
    use plandeck_core::acp::host::{self, Usage};
    let home = tempfile::tempdir().unwrap();
    let roots = Roots::under_home(home.path());
    let sid = "01a2253f-22ee-7933-bb2f-ac52b9ed6641";
    let day = roots.codex.join("sessions/2026/11/29");
    std::fs::create_dir_all(&day).unwrap();
    // Its rollout names the hosted session's folder (the fixture's `<tmp>/repo`).
    let rollout = std::fs::read_to_string(
        Path::new(FIXTURES).join(format!("acp/codex-acp-0.16.0-rollout-{sid}.jsonl")),
    )
    .unwrap()
    .replace("<tmp>/repo", "/home/dev/work/api");
    std::fs::write(
        day.join(format!("rollout-2026-11-29T03-00-24-{sid}.jsonl")),
        rollout,
    )
    .unwrap();
    hosted_record(&roots, "acps-00000000000000dd", sid);
    let index = SessionIndex::open(&roots);
    let mut h = host::get(&roots, "acps-00000000000000dd").unwrap();
    assert_eq!(h.usage, Usage::default());
    host::fill_from_records(&mut h, |id| index.session(id));
    assert_eq!(
        h.usage,
        Usage {
            input_tokens: Some(10),
            output_tokens: Some(10),
            cost_usd: None,
        }
    );
    assert_eq!(h.row()["usage"]["inputTokens"], 10);
    // The rollout is the card's: not a second session.
    let mut listed = sessions::list(&roots);
    assert!(listed.iter().any(|s| s.session_id == sid));
    plandeck_core::standing::settle_listed(&roots, &mut listed);
    assert!(!listed.iter().any(|s| s.session_id == sid), "{listed:#?}");

    // What the agent told over ACP stays, and the records are not asked.
    let told = Usage {
        input_tokens: Some(7),
        output_tokens: None,
        cost_usd: Some(0.5),
    };
    let mut h = host::get(&roots, "acps-00000000000000dd").unwrap();
    h.usage = told.clone();
    host::fill_from_records(&mut h, |_| panic!("asked the records"));
    assert_eq!(h.usage, told);
}

/// A hosted agent answering `session/new` with a path (`../`, a rollout's file name) reaches no
/// file: its tokens are looked up by id among the records the index read, never by a path made
/// of the id. Nothing is found, nothing panics.
#[test]
fn a_hosted_session_id_that_is_a_path_reaches_no_file() {
    use plandeck_core::acp::host::{self, Usage};
    let home = tempfile::tempdir().unwrap();
    let roots = Roots::under_home(home.path());
    let sid = "01a2253f-22ee-7933-bb2f-ac52b9ed6641";
    let day = roots.codex.join("sessions/2026/11/29");
    std::fs::create_dir_all(&day).unwrap();
    let rollout = format!("rollout-2026-11-29T03-00-24-{sid}.jsonl");
    std::fs::copy(
        Path::new(FIXTURES).join(format!("acp/codex-acp-0.16.0-rollout-{sid}.jsonl")),
        day.join(&rollout),
    )
    .unwrap();
    let index = SessionIndex::open(&roots);
    for hostile in [
        format!("../../.codex/sessions/2026/11/29/{rollout}"),
        format!("sessions/2026/11/29/{rollout}"),
        "../../../../../../etc/passwd".to_owned(),
        "\u{1b}]52;c;eA==\u{7}".to_owned(),
    ] {
        hosted_record(&roots, "acps-00000000000000df", &hostile);
        let mut h = host::get(&roots, "acps-00000000000000df").unwrap();
        host::fill_from_records(&mut h, |id| index.session(id));
        assert_eq!(h.usage, Usage::default(), "{hostile}");
    }
}
