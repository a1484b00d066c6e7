use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::*;

/// A home holding the recorded agent folders, with every plans folder deleted.
fn home_without_plans() -> (tempfile::TempDir, Roots) {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    plandeck_testkit::fixtures::agents_as(home);
    fs::remove_dir_all(home.join(".claude/plans")).unwrap();
    for slug in fs::read_dir(home.join(".gemini/tmp/gemproj")).unwrap() {
        let plans = slug.unwrap().path().join("plans");
        if plans.is_dir() {
            fs::remove_dir_all(plans).unwrap();
        }
    }
    let roots = Roots::under_home(home);
    (dir, roots)
}

fn by_session<'a>(plans: &'a [RecoveredPlan], session: &str) -> Vec<&'a RecoveredPlan> {
    plans
        .iter()
        .filter(|p| p.session_id.as_deref() == Some(session))
        .collect()
}

const PLAN: &str =
    "# Plan: add pagination\n\n1. Add `page` and `limit` params\n2. Return a cursor\n3. Write tests\n";

#[test]
fn claude_plans_come_back_from_transcripts_with_their_decisions() {
    let (_dir, roots) = home_without_plans();
    let h = scan(&roots).unwrap();
    let claude: Vec<_> = h
        .plans
        .iter()
        .filter(|p| p.agent == Agent::Claude)
        .collect();
    assert_eq!(claude.len(), 7, "{:#?}", h.plans);
    for p in &claude {
        assert_eq!(p.source, PlanSource::Transcript);
        assert!(p.path.as_deref().unwrap().ends_with(".md"));
        assert_eq!(p.versions.len(), 1);
    }

    // Denied by a PermissionRequest hook, with its feedback.
    let hook = by_session(&h.plans, "5fb53a48-3aab-4a4b-b82c-e42d63b86c9d");
    let v = &hook[0].versions[0];
    assert_eq!(v.text, PLAN);
    assert_eq!(v.verdict, Some(HistoryVerdict::Rejected));
    assert_eq!(
        v.feedback.as_deref(),
        Some("REJECTED BY REVIEWER: split step 2")
    );
    assert_eq!(v.decided_in, Some(DecidedIn::Hook));
    let wt = by_session(&h.plans, "fecae38a-0653-4970-8e6f-118f15e00ee0");
    assert_eq!(
        wt[0].versions[0].feedback.as_deref(),
        Some("Split step 2 into two steps.")
    );
    assert_eq!(wt[0].versions[0].decided_in, Some(DecidedIn::Hook));

    // Approved in the terminal after the person edited the file: the approved text is the edit.
    let edited = by_session(&h.plans, "8231d470-01ea-414b-8fe3-908262ff511e");
    let v = &edited[0].versions[0];
    assert_eq!(v.text, PLAN);
    assert_eq!(v.verdict, Some(HistoryVerdict::Approved));
    assert_eq!(v.decided_in, Some(DecidedIn::Terminal));
    let edit = "# Plan: pagination (EDITED ON DISK)\n\n1. cursor only\n";
    assert_eq!(v.approved_text.as_deref(), Some(edit));
    assert_eq!(edited[0].text, edit);
    assert_eq!(edited[0].title, "Plan: pagination (EDITED ON DISK)");
    assert_eq!(edited[0].state, Some(HistoryVerdict::Approved));

    // Declined in the terminal (Esc on the card).
    for s in [
        "018bf6eb-3597-4409-902c-72211da68ef3",
        "616b9e27-ce4d-4e5c-aa43-9d801b0ce4b1",
        "a4242848-6a24-48c9-8b58-5cad43768dcc",
        "e1acdfb1-d57e-457b-92ee-19d9c216feb8",
    ] {
        let p = by_session(&h.plans, s);
        assert_eq!(
            p[0].versions[0].verdict,
            Some(HistoryVerdict::Cancelled),
            "{s}"
        );
        assert_eq!(
            p[0].versions[0].decided_in,
            Some(DecidedIn::Terminal),
            "{s}"
        );
    }
    // Every plan keeps the path its file had, and its id is that path's plan id.
    let p = &hook[0];
    let path = roots
        .claude
        .join("plans/plan-pagination-for-the-wondrous-kite.md");
    assert_eq!(p.path.as_deref(), Some(path.to_str().unwrap()));
    assert_eq!(p.id, crate::ids::plan_id(&path));
}

#[test]
fn gemini_plans_come_back_from_their_chats() {
    let (_dir, roots) = home_without_plans();
    let h = scan(&roots).unwrap();
    let gemini: Vec<_> = h
        .plans
        .iter()
        .filter(|p| p.agent == Agent::Gemini)
        .collect();
    assert_eq!(gemini.len(), 4, "{:#?}", gemini);
    // Approved in the terminal.
    let approved = by_session(&h.plans, "c76f8969-6e57-4aca-b93f-75bfc80d94ca");
    assert_eq!(approved[0].versions[0].text, PLAN);
    assert_eq!(
        approved[0].versions[0].verdict,
        Some(HistoryVerdict::Approved)
    );
    assert_eq!(
        approved[0].versions[0].decided_in,
        Some(DecidedIn::Terminal)
    );
    assert!(approved[0]
        .path
        .as_deref()
        .unwrap()
        .ends_with("/c76f8969-6e57-4aca-b93f-75bfc80d94ca/plans/pagination.md"));
    // Blocked by a BeforeTool hook, then submitted again and cancelled: two versions of one plan.
    let two = by_session(&h.plans, "cf0df6f8-ad73-4066-b046-798b88c0fbb0");
    assert_eq!(two.len(), 1);
    let v = &two[0].versions;
    assert_eq!(v.len(), 2, "{v:#?}");
    assert_eq!(v[0].verdict, Some(HistoryVerdict::Rejected));
    assert_eq!(v[0].feedback.as_deref(), Some("REVIEWER: split step 2"));
    assert_eq!(v[0].decided_in, Some(DecidedIn::Hook));
    assert_eq!(v[1].verdict, Some(HistoryVerdict::Cancelled));
    assert_eq!(v[1].decided_in, Some(DecidedIn::Terminal));
    assert!(v[0].submitted_at < v[1].submitted_at);
}

#[test]
fn codex_scenarios_are_read_as_the_readme_says() {
    let (_dir, roots) = home_without_plans();
    let h = scan(&roots).unwrap();
    let codex = |s: &str| -> RecoveredPlan {
        by_session(&h.plans, s)
            .first()
            .map(|p| (*p).clone())
            .unwrap_or_else(|| panic!("no plan for {s}: {:#?}", h.plans))
    };
    // accepted: popup `1` → "Implement the plan." in Default mode.
    let p = codex("01a207a7-be64-75f2-92cb-28c4247cc7de");
    assert_eq!(p.path, None);
    assert_eq!(p.source, PlanSource::Transcript);
    assert_eq!(p.versions.len(), 1);
    assert_eq!(p.versions[0].text, PLAN);
    assert_eq!(p.versions[0].verdict, Some(HistoryVerdict::Approved));
    assert_eq!(p.versions[0].decided_in, Some(DecidedIn::Terminal));
    // revised: the first version rejected with the feedback typed, the second approved.
    let p = codex("01a207a7-dafa-7ee1-9996-1110b9cb9e12");
    assert_eq!(p.versions.len(), 2);
    assert_eq!(p.versions[0].verdict, Some(HistoryVerdict::Rejected));
    assert_eq!(
        p.versions[0].feedback.as_deref(),
        Some("Use cursor pagination only, drop the page numbers")
    );
    assert!(p.versions[1]
        .text
        .starts_with("# Plan: add pagination (revised)"));
    assert_eq!(p.versions[1].verdict, Some(HistoryVerdict::Approved));
    assert_eq!(p.title, "Plan: add pagination (revised)");
    // undecided: pending.
    let p = codex("01a207a7-f7fe-7201-ac2d-8334cc0ede60");
    assert_eq!(p.versions[0].verdict, Some(HistoryVerdict::Pending));
    assert_eq!(p.versions[0].decided_in, None);
    // fresh-thread: approved by the new thread that read the attachment.
    let p = codex("01a207a8-1ee8-7620-890f-595ac6f7fc66");
    assert_eq!(p.versions[0].verdict, Some(HistoryVerdict::Approved));
    assert!(p.versions[0]
        .note
        .as_deref()
        .unwrap()
        .contains("01a207a8-3197-73b2-8120-04b56cc60800"));
    assert!(by_session(&h.plans, "01a207a8-3197-73b2-8120-04b56cc60800").is_empty());
    // left-plan-mode and daemon: the same records as accepted.
    for s in [
        "01a207ac-b3b8-74d0-a7fa-72c5d714c618",
        "01a207a8-4752-7b81-93c5-db40d440f2d4",
    ] {
        assert_eq!(
            codex(s).versions[0].verdict,
            Some(HistoryVerdict::Approved),
            "{s}"
        );
    }
    // exec: a <proposed_plan> block with no Plan mode: headless, no verdict.
    let p = codex("01a207a8-53e4-7e90-a9c1-1ccb7a497fb6");
    assert_eq!(p.versions[0].text, PLAN);
    assert_eq!(p.versions[0].verdict, None);
    assert_eq!(p.versions[0].decided_in, Some(DecidedIn::Headless));
}

#[test]
fn a_decision_in_plandecks_log_marks_the_version_decided_in_plandeck() {
    let (_dir, roots) = home_without_plans();
    let path = roots
        .claude
        .join("plans/plan-pagination-for-the-wondrous-kite.md");
    crate::review::log::append(
        &roots.data,
        &crate::review::log::Decision {
            time: crate::timestamp::parse("2026-11-22T12:00:49Z").unwrap(),
            reviewer: "dev".into(),
            plan_path: path.display().to_string(),
            agent: Agent::Claude,
            session_id: Some("5fb53a48-3aab-4a4b-b82c-e42d63b86c9d".into()),
            decision: crate::review::log::Verdict::Rejected,
            feedback: Some("split step 2".into()),
            approved_hash: None,
            content_hash: None,
            edited: false,
            mode: None,
            request_id: None,
            delivery: None,
            delivery_reason: None,
            comments: Vec::new(),
            id: None,
            revokes: None,
            machine: None,
            decided_by: None,
        },
    )
    .unwrap();
    let h = scan(&roots).unwrap();
    let p = by_session(&h.plans, "5fb53a48-3aab-4a4b-b82c-e42d63b86c9d");
    assert_eq!(p[0].versions[0].decided_in, Some(DecidedIn::Plandeck));
    // Another plan's rejection at the same time is not this one's.
    let wt = by_session(&h.plans, "fecae38a-0653-4970-8e6f-118f15e00ee0");
    assert_eq!(wt[0].versions[0].decided_in, Some(DecidedIn::Hook));
}

#[test]
fn the_second_scan_reads_only_appended_bytes() {
    let (_dir, roots) = home_without_plans();
    let first = scan(&roots).unwrap();
    let total: u64 = crate::sessions::index::transcript_files(&roots)
        .iter()
        .map(|(_, p)| fs::metadata(p).unwrap().len())
        .sum();
    assert_eq!(first.stats.bytes_read, total);
    assert!(
        first.notes.iter().all(|n| !n.contains("store")),
        "{:?}",
        first.notes
    );

    let again = scan(&roots).unwrap();
    assert_eq!(again.stats.bytes_read, 0);
    assert_eq!(again.stats.files_read, 0);
    assert_eq!(again.plans, first.plans);

    // Append a new ExitPlanMode call to one transcript: only those bytes are read.
    let t = roots
        .claude
        .join("projects/-home-dev-work-api/5fb53a48-3aab-4a4b-b82c-e42d63b86c9d.jsonl");
    let line = r##"{"type":"assistant","sessionId":"5fb53a48-3aab-4a4b-b82c-e42d63b86c9d","timestamp":"2026-11-22T12:10:00.000Z","message":{"content":[{"type":"tool_use","id":"toolu_new","name":"ExitPlanMode","input":{"plan":"# Plan v2\n","planFilePath":"PATH"}}]}}"##
        .replace(
            "PATH",
            roots
                .claude
                .join("plans/plan-pagination-for-the-wondrous-kite.md")
                .to_str()
                .unwrap(),
        );
    let mut f = fs::OpenOptions::new().append(true).open(&t).unwrap();
    writeln!(f, "{line}").unwrap();
    drop(f);
    let third = scan(&roots).unwrap();
    assert_eq!(third.stats.bytes_read, line.len() as u64 + 1);
    assert_eq!(third.stats.files_read, 1);
    let p = by_session(&third.plans, "5fb53a48-3aab-4a4b-b82c-e42d63b86c9d");
    assert_eq!(p[0].versions.len(), 2);
    assert_eq!(p[0].versions[1].text, "# Plan v2\n");
    assert_eq!(p[0].versions[1].verdict, Some(HistoryVerdict::Pending));

    // A transcript replaced by a shorter one is read again from the start.
    fs::write(&t, format!("{line}\n")).unwrap();
    let fourth = scan(&roots).unwrap();
    assert_eq!(fourth.stats.files_rescanned, 1);
    assert_eq!(fourth.stats.bytes_read, line.len() as u64 + 1);
    let p = by_session(&fourth.plans, "5fb53a48-3aab-4a4b-b82c-e42d63b86c9d");
    assert_eq!(p[0].versions.len(), 1);
}

#[test]
fn a_damaged_store_is_rebuilt_not_trusted() {
    let (_dir, roots) = home_without_plans();
    let first = scan(&roots).unwrap();
    let store = scan::cache_path(&roots.data);
    // A store claiming every file was read to its end, with no facts: not JSON of the right shape.
    let mut bytes = fs::read(&store).unwrap();
    bytes.truncate(bytes.len() / 2);
    fs::write(&store, &bytes).unwrap();
    let again = scan(&roots).unwrap();
    assert!(
        again.notes.iter().any(|n| n.contains("damaged")),
        "{:?}",
        again.notes
    );
    assert_eq!(again.stats.bytes_read, first.stats.bytes_read);
    assert_eq!(again.plans, first.plans);
    // And it is whole again afterwards.
    assert_eq!(scan(&roots).unwrap().stats.bytes_read, 0);
}

#[test]
fn a_deleted_transcript_keeps_its_plans() {
    let (_dir, roots) = home_without_plans();
    let first = scan(&roots).unwrap();
    fs::remove_file(
        roots
            .claude
            .join("projects/-home-dev-work-api/8231d470-01ea-414b-8fe3-908262ff511e.jsonl"),
    )
    .unwrap();
    let again = scan(&roots).unwrap();
    assert_eq!(again.stats.files_gone, 1);
    assert_eq!(again.plans, first.plans);
}

#[test]
fn a_plan_file_reused_by_a_later_session_is_a_new_plan() {
    let dir = tempfile::tempdir().unwrap();
    let roots = Roots::under_home(dir.path());
    let project = roots.claude.join("projects/-w");
    fs::create_dir_all(&project).unwrap();
    let plan = roots.claude.join("plans/same-slug.md");
    let call = |sid: &str, at: &str, text: &str, id: &str| {
        format!(
            r#"{{"type":"assistant","sessionId":"{sid}","slug":"same-slug","timestamp":"{at}","message":{{"content":[{{"type":"tool_use","id":"{id}","name":"ExitPlanMode","input":{{"plan":"{text}","planFilePath":"{}"}}}}]}}}}"#,
            plan.display()
        )
    };
    fs::write(
        project.join("s1.jsonl"),
        format!(
            "{}\n{}\n",
            call("s1", "2026-01-01T00:00:00Z", "# Old A", "t1"),
            call("s1", "2026-01-01T00:01:00Z", "# Old B", "t2")
        ),
    )
    .unwrap();
    fs::write(
        project.join("s2.jsonl"),
        format!("{}\n", call("s2", "2026-02-01T00:00:00Z", "# New", "t3")),
    )
    .unwrap();
    fs::create_dir_all(plan.parent().unwrap()).unwrap();
    fs::write(&plan, "# New").unwrap();
    let h = scan(&roots).unwrap();
    assert_eq!(h.plans.len(), 2, "{:#?}", h.plans);
    let new = &h.plans[0];
    let old = &h.plans[1];
    assert_eq!(
        (new.session_id.as_deref(), new.versions.len()),
        (Some("s2"), 1)
    );
    assert_eq!(
        (old.session_id.as_deref(), old.versions.len()),
        (Some("s1"), 2)
    );
    assert_eq!(new.id, crate::ids::plan_id(&plan));
    assert_ne!(old.id, new.id);
    assert_eq!(new.source, PlanSource::File);
    assert_eq!(old.source, PlanSource::Transcript);
    assert_eq!(old.text, "# Old B");
    // The old plan cannot be restored over the new one's file.
    let err = restore(&roots, &old.id).unwrap_err();
    assert!(matches!(err, HistoryError::Differs { .. }), "{err}");
    assert_eq!(fs::read_to_string(&plan).unwrap(), "# New");
}

#[test]
fn restore_writes_a_lost_plan_back_to_its_own_path_only() {
    let (_dir, roots) = home_without_plans();
    let h = scan(&roots).unwrap();
    let edited = by_session(&h.plans, "8231d470-01ea-414b-8fe3-908262ff511e")[0].clone();
    let path = PathBuf::from(edited.path.clone().unwrap());
    assert!(!path.exists());
    let r = restore(&roots, &edited.id).unwrap();
    assert!(r.written);
    assert_eq!(fs::read_to_string(&path).unwrap(), edited.text);
    // Again: the same text is there, nothing to write.
    assert!(!restore(&roots, &edited.id).unwrap().written);
    // Now the plan's source is its file.
    let p = find(&roots, &edited.id).unwrap();
    assert_eq!(p.source, PlanSource::File);
    // A file holding other text is never replaced.
    fs::write(&path, "# someone else's\n").unwrap();
    assert!(matches!(
        restore(&roots, &edited.id),
        Err(HistoryError::Differs { .. })
    ));
    assert_eq!(fs::read_to_string(&path).unwrap(), "# someone else's\n");
    // Codex plans never had a file.
    let codex = by_session(&h.plans, "01a207a7-be64-75f2-92cb-28c4247cc7de")[0].clone();
    assert!(matches!(
        restore(&roots, &codex.id),
        Err(HistoryError::NoPath { .. })
    ));
}

#[test]
fn restore_refuses_a_path_outside_the_plans_folders() {
    let dir = tempfile::tempdir().unwrap();
    let roots = Roots::under_home(dir.path());
    let project = roots.claude.join("projects/-w");
    fs::create_dir_all(&project).unwrap();
    let outside = dir.path().join(".bashrc.md");
    fs::write(
        project.join("s.jsonl"),
        format!(
            r#"{{"type":"assistant","sessionId":"s","timestamp":"2026-01-01T00:00:00Z","message":{{"content":[{{"type":"tool_use","id":"t","name":"ExitPlanMode","input":{{"plan":"x","planFilePath":"{}"}}}}]}}}}"#,
            outside.display()
        ) + "\n",
    )
    .unwrap();
    let h = scan(&roots).unwrap();
    let err = restore(&roots, &h.plans[0].id).unwrap_err();
    assert!(matches!(err, HistoryError::OutsidePlans { .. }), "{err}");
    assert!(!outside.exists());
}

#[test]
fn bad_input_is_recovered_where_possible_and_noted_never_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let roots = Roots::under_home(dir.path());
    let project = roots.claude.join("projects/-w");
    fs::create_dir_all(&project).unwrap();
    let big = format!("# Big\n\n{}", "x".repeat(5 << 20));
    let plan_path = roots.claude.join("plans/big.md");
    let call = |id: &str, text: &str| {
        serde_json::json!({"type":"assistant","sessionId":"s1","slug":"big","timestamp":"2026-01-01T00:00:00Z",
            "message":{"content":[{"type":"tool_use","id":id,"name":"ExitPlanMode",
            "input":{"plan":text,"planFilePath":plan_path}}]}})
        .to_string()
    };
    let result = serde_json::json!({"type":"user","sessionId":"s1","timestamp":"2026-01-01T00:00:05Z",
        "message":{"content":[{"type":"tool_result","tool_use_id":"t2","is_error":true,
        "content":"The user doesn't want to proceed with this tool use. The tool use was rejected. To tell you how to proceed, the user said:\nsmaller please"}]},
        "toolUseResult":"User rejected tool use"})
    .to_string();
    let mut text = String::new();
    text.push_str(&call("t1", &big));
    text.push('\n');
    // A plan record cut short: noted. Binary garbage cannot hold a plan: skipped.
    text.push_str(
        "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"tool_use\",\"name\":\"ExitPlanMode\",\"input\":{\"plan\":\"# cu\n",
    );
    text.push_str("\u{0}\u{1}binary garbage\n");
    // Two records glued on one line (a lost newline).
    text.push_str(&call("t2", "# Small"));
    text.push_str(&result);
    text.push('\n');
    text.push_str("{\"type\":\"assistant\",\"message\""); // truncated last line, no newline
    fs::write(project.join("s1.jsonl"), &text).unwrap();
    // A second session with the same slug (another project): its own plan.
    let other = roots.claude.join("projects/-other");
    fs::create_dir_all(&other).unwrap();
    fs::write(
        other.join("s2.jsonl"),
        call("t9", "# Other")
            .replace("\"s1\"", "\"s2\"")
            .replace("2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z")
            + "\n",
    )
    .unwrap();
    let h = scan(&roots).unwrap();
    let p = by_session(&h.plans, "s1");
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].versions.len(), 2);
    assert_eq!(p[0].versions[0].text, big);
    assert_eq!(p[0].versions[0].verdict, Some(HistoryVerdict::Pending));
    assert_eq!(p[0].versions[1].verdict, Some(HistoryVerdict::Rejected));
    assert_eq!(p[0].versions[1].feedback.as_deref(), Some("smaller please"));
    assert_eq!(p[0].versions[1].decided_in, Some(DecidedIn::Terminal));
    assert!(
        h.notes
            .iter()
            .any(|n| n.contains("s1.jsonl: 1 line could not be read")),
        "{:?}",
        h.notes
    );
    let s2 = by_session(&h.plans, "s2");
    assert_eq!(s2.len(), 1);
    assert_eq!(s2[0].text, "# Other");
    assert_ne!(s2[0].id, p[0].id);
    // The unterminated last line is read once its newline arrives.
    let mut f = fs::OpenOptions::new()
        .append(true)
        .open(project.join("s1.jsonl"))
        .unwrap();
    writeln!(f, ",\"x\":1}}").unwrap();
    let again = scan(&roots).unwrap();
    assert_eq!(again.stats.files_read, 1);
}

#[test]
fn subagent_plans_and_carried_texts_are_recovered() {
    let dir = tempfile::tempdir().unwrap();
    let roots = Roots::under_home(dir.path());
    let project = roots.claude.join("projects/-w");
    let plans = roots.claude.join("plans");
    let sub_plan = plans.join("slug-agent-a1.md");
    fs::create_dir_all(project.join("s1/subagents")).unwrap();
    let rec = |v: serde_json::Value| v.to_string() + "\n";
    // The subagent's own ExitPlanMode, in its transcript under the session.
    fs::write(
        project.join("s1/subagents/agent-a1.jsonl"),
        rec(
            serde_json::json!({"type":"assistant","isSidechain":true,"sessionId":"s1",
            "timestamp":"2026-01-01T00:00:00Z","message":{"content":[{"type":"tool_use","id":"ta",
            "name":"ExitPlanMode","input":{"plan":"# Sub plan\n","planFilePath":sub_plan}}]}}),
        ),
    )
    .unwrap();
    // The main session: a plan approved, then the file edited and carried on after a compaction;
    // a later session started from the approved text (planContent) adds nothing new.
    let main_plan = plans.join("slug.md");
    fs::write(
        project.join("s1.jsonl"),
        [
            rec(serde_json::json!({"type":"assistant","sessionId":"s1","slug":"slug",
                "timestamp":"2026-01-01T00:01:00Z","message":{"content":[{"type":"tool_use","id":"t1",
                "name":"ExitPlanMode","input":{"plan":"# Main\n","planFilePath":main_plan}}]}})),
            rec(serde_json::json!({"type":"user","sessionId":"s1","timestamp":"2026-01-01T00:02:00Z",
                "message":{"content":[{"type":"tool_result","tool_use_id":"t1",
                "content":"User has approved your plan. You can now start coding."}]},
                "toolUseResult":{"plan":"# Main\n","filePath":main_plan}})),
            rec(serde_json::json!({"type":"attachment","sessionId":"s1","timestamp":"2026-01-01T01:00:00Z",
                "attachment":{"type":"plan_file_reference","planFilePath":main_plan,
                "planContent":"# Main, edited after approval\n"}})),
        ]
        .concat(),
    )
    .unwrap();
    fs::write(
        project.join("s2.jsonl"),
        rec(
            serde_json::json!({"type":"user","sessionId":"s2","slug":"slug",
            "timestamp":"2026-01-01T00:03:00Z","planContent":"# Main\n",
            "message":{"content":"Implement the following plan: # Main"}}),
        ),
    )
    .unwrap();
    let h = scan(&roots).unwrap();
    let sub = h
        .plans
        .iter()
        .find(|p| p.path.as_deref() == sub_plan.to_str())
        .unwrap();
    assert!(sub.subagent);
    assert_eq!(sub.session_id.as_deref(), Some("s1"));
    assert_eq!(sub.text, "# Sub plan\n");
    let main: Vec<_> = h
        .plans
        .iter()
        .filter(|p| p.path.as_deref() == main_plan.to_str())
        .collect();
    assert_eq!(main.len(), 1, "{main:#?}");
    let v = &main[0].versions;
    assert_eq!(v.len(), 2, "{v:#?}");
    assert_eq!(v[0].verdict, Some(HistoryVerdict::Approved));
    assert_eq!(v[1].text, "# Main, edited after approval\n");
    assert_eq!(v[1].verdict, None);
    assert_eq!(main[0].text, "# Main, edited after approval\n");
}

#[test]
fn codex_rollouts_of_an_older_format_fall_back_to_proposed_plan_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let roots = Roots::under_home(dir.path());
    let day = roots.codex.join("sessions/2026/01/01");
    fs::create_dir_all(&day).unwrap();
    let rec = |v: serde_json::Value| v.to_string() + "\n";
    let said = |t: &str, text: &str| {
        rec(
            serde_json::json!({"timestamp":t,"type":"event_msg","payload":{"type":"user_message","message":text}}),
        )
    };
    let turn = |t: &str, mode: &str| {
        rec(
            serde_json::json!({"timestamp":t,"type":"event_msg","payload":{"type":"task_started","collaboration_mode_kind":mode}}),
        )
    };
    let answer = |t: &str, text: &str| {
        rec(
            serde_json::json!({"timestamp":t,"type":"response_item","payload":{"type":"message","role":"assistant",
            "content":[{"type":"output_text","text":text}]}}),
        )
    };
    fs::write(
        day.join("rollout-2026-01-01T00-00-00-old.jsonl"),
        [
            rec(
                serde_json::json!({"timestamp":"2026-01-01T00:00:00Z","type":"session_meta",
                "payload":{"id":"old","cwd":"/w","source":{"subagent":"x"}}}),
            ),
            turn("2026-01-01T00:00:01Z", "plan"),
            said("2026-01-01T00:00:01Z", "plan it"),
            answer(
                "2026-01-01T00:00:02Z",
                "Sure.\n<proposed_plan>\n# A\n</proposed_plan>",
            ),
            turn("2026-01-01T00:00:03Z", "plan"),
            said("2026-01-01T00:00:03Z", "shorter"),
            answer(
                "2026-01-01T00:00:04Z",
                "<proposed_plan>\n# B\n</proposed_plan>",
            ),
        ]
        .concat(),
    )
    .unwrap();
    let h = scan(&roots).unwrap();
    assert_eq!(h.plans.len(), 1, "{:#?}", h.plans);
    let v = &h.plans[0].versions;
    assert_eq!(v.len(), 2);
    assert_eq!(v[0].text, "# A\n");
    assert_eq!(v[0].verdict, Some(HistoryVerdict::Rejected));
    assert_eq!(v[0].feedback.as_deref(), Some("shorter"));
    assert_eq!(v[1].text, "# B\n");
    assert_eq!(v[1].verdict, Some(HistoryVerdict::Pending));
    assert_eq!(h.plans[0].project.as_deref(), Some("/w"));
}

#[test]
fn the_live_history_reads_only_appended_bytes_and_refolds_when_a_plan_file_changes() {
    let (_dir, roots) = home_without_plans();
    let seen = std::sync::Mutex::new(Vec::<ScanProgress>::new());
    let mut live = Follower::new();
    assert!(live.history().is_none());
    assert!(live.refresh(&roots, false, &|p| seen.lock().unwrap().push(p)));
    let first = live.history().unwrap().clone();
    assert_eq!(first.plans, scan(&roots).unwrap().plans);
    // Progress: the totals first, then each transcript, then done with every byte read.
    let seen = seen.into_inner().unwrap();
    assert_eq!(seen[0].files_done, 0);
    assert!(seen[0].files > 0 && seen[0].bytes == first.stats.bytes_read);
    let last = seen.last().unwrap();
    assert!(last.done && last.files_done == last.files && last.bytes_done == last.bytes);
    assert_eq!(seen.len(), seen[0].files as usize + 2);

    // Nothing new: nothing read, nothing changed.
    assert!(!live.refresh(&roots, false, &|_| {}));
    assert_eq!(live.history().unwrap().stats.bytes_read, 0);

    // One record appended: only its bytes are read, the new version is there.
    let t = roots
        .claude
        .join("projects/-home-dev-work-api/5fb53a48-3aab-4a4b-b82c-e42d63b86c9d.jsonl");
    let plan_path = roots
        .claude
        .join("plans/plan-pagination-for-the-wondrous-kite.md");
    let line = r##"{"type":"assistant","sessionId":"5fb53a48-3aab-4a4b-b82c-e42d63b86c9d","timestamp":"2026-11-22T12:10:00.000Z","message":{"content":[{"type":"tool_use","id":"toolu_new","name":"ExitPlanMode","input":{"plan":"# Plan v2\n","planFilePath":"PATH"}}]}}"##
        .replace("PATH", plan_path.to_str().unwrap());
    let mut f = fs::OpenOptions::new().append(true).open(&t).unwrap();
    writeln!(f, "{line}").unwrap();
    drop(f);
    assert!(live.refresh(&roots, false, &|_| {}));
    let h = live.history().unwrap();
    assert_eq!(h.stats.bytes_read, line.len() as u64 + 1);
    let p = by_session(&h.plans, "5fb53a48-3aab-4a4b-b82c-e42d63b86c9d");
    assert_eq!(p[0].versions.last().unwrap().text, "# Plan v2\n");
    assert_eq!(p[0].source, PlanSource::Transcript);
    // The store was saved: the CLI reads nothing new.
    assert_eq!(scan(&roots).unwrap().stats.bytes_read, 0);

    // The plan's file written back: a refold (no transcript read) makes it a file plan again.
    let id = p[0].id.clone();
    fs::create_dir_all(plan_path.parent().unwrap()).unwrap();
    fs::write(&plan_path, "# Plan v2\n").unwrap();
    assert!(
        !live.refresh(&roots, false, &|_| {}),
        "no transcript changed"
    );
    assert!(live.refresh(&roots, true, &|_| {}));
    let p = live
        .history()
        .unwrap()
        .plans
        .iter()
        .find(|p| p.id == id)
        .unwrap();
    assert_eq!(p.source, PlanSource::File);
}

/// A Claude record of session `sid` at minute `m`.
fn claude_rec(sid: &str, m: u32, body: serde_json::Value) -> String {
    let mut v = body;
    v["sessionId"] = sid.into();
    v["timestamp"] = format!("2026-01-01T00:{m:02}:00Z").into();
    v.to_string() + "\n"
}

fn exit_plan(call: &str, text: &str, path: &Path) -> serde_json::Value {
    serde_json::json!({"type":"assistant","cwd":"/w","message":{"content":[{"type":"tool_use","id":call,
        "name":"ExitPlanMode","input":{"plan":text,"planFilePath":path}}]}})
}

fn approved(call: &str) -> serde_json::Value {
    serde_json::json!({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":call,
        "content":"User has approved your plan. You can now start coding."}]}})
}

#[test]
fn a_compaction_in_the_middle_of_a_plan_adds_no_version_and_keeps_its_decision() {
    let dir = tempfile::tempdir().unwrap();
    let roots = Roots::under_home(dir.path());
    let project = roots.claude.join("projects/-w");
    fs::create_dir_all(&project).unwrap();
    let path = roots.claude.join("plans/mid.md");
    let draft = "# Mid\n\n1. draft\n";
    let plan = "# Mid\n\n1. draft\n2. more\n";
    // The draft is carried over a first compaction, the plan submitted, a second compaction
    // carries the submitted text while the card is open, then the answer comes.
    let compaction = |m: u32, text: &str| {
        claude_rec(
            "s1",
            m,
            serde_json::json!({"type":"system","subtype":"compact_boundary","content":"Conversation compacted"}),
        ) + &claude_rec(
            "s1",
            m,
            serde_json::json!({"type":"attachment","attachment":{
                "type":"plan_file_reference","planFilePath":path,"planContent":text}}),
        )
    };
    fs::write(
        project.join("s1.jsonl"),
        [
            compaction(1, draft),
            claude_rec("s1", 2, exit_plan("t1", plan, &path)),
            compaction(3, plan),
            claude_rec("s1", 4, approved("t1")),
        ]
        .concat(),
    )
    .unwrap();
    let h = scan(&roots).unwrap();
    assert_eq!(h.plans.len(), 1, "{:#?}", h.plans);
    let v = &h.plans[0].versions;
    assert_eq!(v.len(), 2, "{v:#?}");
    // The draft, noted as carried (not submitted); the plan, approved across the compaction.
    assert_eq!((v[0].text.as_str(), v[0].verdict), (draft, None));
    assert!(v[0].note.as_deref().unwrap().contains("Carried"));
    assert_eq!(v[1].text, plan);
    assert_eq!(v[1].verdict, Some(HistoryVerdict::Approved));
    assert_eq!(h.plans[0].state, Some(HistoryVerdict::Approved));
}

#[test]
fn interleaved_records_of_two_sessions_in_one_transcript_keep_each_plan_and_decision() {
    let dir = tempfile::tempdir().unwrap();
    let roots = Roots::under_home(dir.path());
    let project = roots.claude.join("projects/-w");
    fs::create_dir_all(&project).unwrap();
    let (pa, pb) = (
        roots.claude.join("plans/a.md"),
        roots.claude.join("plans/b.md"),
    );
    // Two writers on one file: their records alternate, one line is cut short in the middle.
    fs::write(
        project.join("mixed.jsonl"),
        [
            claude_rec("sa", 1, exit_plan("ta", "# A\n", &pa)),
            claude_rec("sb", 2, exit_plan("tb", "# B\n", &pb)),
            "{\"type\":\"user\",\"sessionId\":\"sa\",\"message\":{\"content\":[{\"tool_use_id\":\"ta\"\n"
                .to_owned(),
            claude_rec("sb", 3, approved("tb")),
            claude_rec("sa", 4, approved("ta")),
        ]
        .concat(),
    )
    .unwrap();
    let h = scan(&roots).unwrap();
    let a = h
        .plans
        .iter()
        .find(|p| p.path.as_deref() == pa.to_str())
        .unwrap();
    let b = h
        .plans
        .iter()
        .find(|p| p.path.as_deref() == pb.to_str())
        .unwrap();
    assert_eq!(
        (a.text.as_str(), a.state),
        ("# A\n", Some(HistoryVerdict::Approved))
    );
    assert_eq!(
        (b.text.as_str(), b.state),
        ("# B\n", Some(HistoryVerdict::Approved))
    );
    assert_eq!(
        a.versions[0].decided_at.as_deref(),
        Some("2026-01-01T00:04:00Z")
    );
    assert_eq!(
        b.versions[0].decided_at.as_deref(),
        Some("2026-01-01T00:03:00Z")
    );
    assert!(
        h.notes
            .iter()
            .any(|n| n.contains("mixed.jsonl: 1 line could not be read")),
        "{:?}",
        h.notes
    );
}

/// A teammate of a Claude Code agent team (2.1.328, in-process): its first call before the plan
/// file existed is no version; its plan went to the lead, whose automatic verdict
/// ("[Plan Approved]", in the teammate's transcript) is the history's answer, decided by the lead.
#[test]
fn a_teammates_plan_is_approved_by_its_lead_in_the_history() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let subagents = home
        .join(".claude/projects/-home-dev-work-api/b6004b4f-2c90-4383-92a5-43165d94a013/subagents");
    fs::create_dir_all(&subagents).unwrap();
    let recorded = Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "../../tests/fixtures/claude-code-2.1.328/teams/agent-aplanner-576dc0bc00f0cd93.jsonl",
    );
    fs::write(
        subagents.join("agent-aplanner-576dc0bc00f0cd93.jsonl"),
        fs::read_to_string(recorded)
            .unwrap()
            .replace("/home/dev", home.to_str().unwrap()),
    )
    .unwrap();
    // The lead's own transcript beside the folder (the history finds subagents through it).
    fs::write(
        subagents.parent().unwrap().with_extension("jsonl"),
        "{\"type\":\"user\",\"sessionId\":\"b6004b4f-2c90-4383-92a5-43165d94a013\",\"message\":{\"role\":\"user\",\"content\":\"plan pagination for the api\"}}\n",
    )
    .unwrap();
    let roots = Roots::under_home(home);
    let h = scan(&roots).unwrap();
    let plans = by_session(&h.plans, "b6004b4f-2c90-4383-92a5-43165d94a013");
    assert_eq!(plans.len(), 1, "{:#?}", h.plans);
    // The calls Claude Code refused (no plan file yet; after approval, no ExitPlanMode any more)
    // are no versions.
    let versions = &plans[0].versions;
    assert_eq!(versions.len(), 1, "{versions:#?}");
    assert!(plans[0]
        .path
        .as_deref()
        .unwrap()
        .ends_with("-agent-aplanner-576dc0bc00f0cd93.md"));
    let v = &versions[0];
    assert_eq!(v.text, PLAN);
    assert_eq!(v.verdict, Some(HistoryVerdict::Approved));
    assert_eq!(v.decided_in, Some(DecidedIn::Lead));
    assert!(v.decided_at.is_some());
}
