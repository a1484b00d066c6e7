//! Verification over real temp git repositories and Claude Code 2.1.328 transcripts.

use std::path::{Path, PathBuf};

use super::*;
use plandeck_testkit::verify::{
    self as testkit, commit_all, git_init, reset_hard, write_file, ClaudeSession,
};

const SESSION: &str = "5f0c2b9e-1111-4222-8333-944455556666";

const PLAN: &str = "# Plan: add pagination\n\n\
1. Add `paginate` to `src/api.rs`\n\
2. Document it in README.md and docs/pagination.md\n\
3. Add a `Cursor` type in src/cursor.rs\n\
4. Run the tests with `cargo test`\n\
5. Keep the code tidy\n";

struct Setup {
    _dir: tempfile::TempDir,
    home: PathBuf,
    repo: PathBuf,
    s: ClaudeSession,
}

/// A home with a repo at `~/work/api` (committed at T0) and a session that planned (writing a
/// draft into the repo while planning), then got `plan` approved at T0+150.
fn setup(plan: &str) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().to_path_buf();
    let repo = home.join("work/api");
    git_init(
        &repo,
        &[
            ("src/api.rs", "pub fn list() {}\n"),
            ("src/lib.rs", "pub mod api;\n"),
            ("README.md", "# api\n"),
        ],
        0,
    );
    let mut s = ClaudeSession::new(&home, &repo, SESSION, "plan-pagination-verify-kite");
    s.prompt(30, "plan pagination");
    // Written while planning: not work.
    write_file(&repo, "notes/draft.md", "thinking\n");
    s.write(60, &repo.join("notes/draft.md"), "thinking\n");
    s.plan_approved(120, 150, plan);
    Setup {
        _dir: dir,
        home,
        repo,
        s,
    }
}

impl Setup {
    fn report(&self) -> VerifyReport {
        self.s.save();
        report(
            &Roots::under_home(&self.s.home),
            &self.s.plan_path.to_string_lossy(),
        )
        .unwrap()
    }
}

fn step(r: &VerifyReport, i: u32) -> &StepReport {
    r.steps.iter().find(|s| s.index == i).unwrap()
}

fn statuses(r: &VerifyReport) -> Vec<StepStatus> {
    r.steps.iter().map(|s| s.status).collect()
}

fn paths(files: &[ChangedFile]) -> Vec<&str> {
    files.iter().map(|f| f.path.as_str()).collect()
}

/// The agent's work after approval: step 1 (committed), half of step 2, `cargo test`, an
/// unplanned file.
fn work(t: &mut Setup, test_exit: i32) {
    let api = t.repo.join("src/api.rs");
    write_file(
        &t.repo,
        "src/api.rs",
        "pub fn list() {}\npub fn paginate(page: u32) {}\n",
    );
    t.s.edit(
        200,
        &api,
        "pub fn list() {}\n",
        "pub fn list() {}\npub fn paginate(page: u32) {}\n",
    );
    commit_all(&t.repo, "paginate", 210);
    write_file(&t.repo, "README.md", "# api\n\nPages: see paginate.\n");
    t.s.edit(
        220,
        &t.repo.join("README.md"),
        "# api\n",
        "# api\n\nPages.\n",
    );
    write_file(&t.repo, "src/extra.rs", "// not in the plan\n");
    t.s.write(230, &t.repo.join("src/extra.rs"), "// not in the plan\n");
    t.s.bash(240, "cargo test", test_exit);
}

#[test]
fn each_status_with_its_evidence_and_the_unplanned_file() {
    let mut t = setup(PLAN);
    work(&mut t, 0);
    let r = t.report();
    assert_eq!(
        statuses(&r),
        vec![
            StepStatus::Done,
            StepStatus::Partial,
            StepStatus::Missing,
            StepStatus::Done,
            StepStatus::Unverifiable
        ],
        "{r:#?}"
    );
    let approval = r.approval.as_ref().unwrap();
    assert_eq!(approval.source, ApprovalSource::Transcript);
    assert_eq!(r.approved_at.as_deref(), Some(testkit::at(150).as_str()));
    assert_eq!(r.base.kind, BaseKind::ApprovalHead);
    assert!(approval.head_at_approval.is_some());
    // Step 1: the commit's change and the Edit call.
    let s1 = step(&r, 1);
    assert!(s1
        .evidence
        .iter()
        .any(|e| matches!(e, Evidence::GitChange { file, .. } if file == "src/api.rs")));
    assert!(s1.evidence.iter().any(
        |e| matches!(e, Evidence::ToolCall { tool, file, .. } if tool == "Edit" && file == "src/api.rs")
    ));
    // Step 2: README.md changed, docs/pagination.md not.
    let s2 = step(&r, 2);
    assert!(s2
        .names
        .iter()
        .any(|n| n.value == "docs/pagination.md" && !n.touched));
    assert!(s2
        .evidence
        .iter()
        .any(|e| matches!(e, Evidence::NotTouched { name, .. } if name == "docs/pagination.md")));
    // Step 4: the command and its exit status.
    assert!(step(&r, 4).evidence.iter().any(|e| matches!(
        e,
        Evidence::Command { command, success: Some(true), exit_code: Some(0), .. } if command == "cargo test"
    )));
    assert_eq!(r.tests.len(), 1);
    assert_eq!(r.tests[0].passed, Some(true));
    // Unplanned: the extra file; the draft written while planning is not work.
    assert_eq!(paths(&r.unplanned), vec!["src/extra.rs"]);
    assert!(!paths(&r.changes).contains(&"notes/draft.md"), "{r:#?}");
    assert_eq!(r.commits.len(), 1);
    assert_eq!(r.commits[0].summary, "paginate");
    assert_eq!(
        r.counts,
        StatusCounts {
            done: 2,
            partial: 1,
            missing: 1,
            unverifiable: 1
        }
    );
    // The text for the agent names the missing step and what it names.
    let text = agent_report_text(&r);
    assert!(text.contains("Step 3 (missing)"), "{text}");
    assert!(text.contains("src/cursor.rs"), "{text}");
    assert!(text.contains("docs/pagination.md"), "{text}");
    assert!(text.contains("- src/extra.rs"), "{text}");
    assert!(!text.contains("Step 1 ("), "{text}");
    assert!(needs_work(&r));
}

#[test]
fn a_failing_test_command_is_not_done() {
    let mut t = setup(PLAN);
    work(&mut t, 101);
    let r = t.report();
    let s4 = step(&r, 4);
    assert_eq!(s4.status, StepStatus::Partial);
    assert!(s4.evidence.iter().any(|e| matches!(
        e,
        Evidence::Command {
            success: Some(false),
            exit_code: Some(101),
            ..
        }
    )));
    assert_eq!(r.tests[0].passed, Some(false));
}

#[test]
fn a_test_step_naming_no_command_uses_the_test_runs() {
    let mut t = setup("# Plan\n\n1. Write tests for the pager\n");
    let r = t.report();
    assert_eq!(step(&r, 1).status, StepStatus::Missing, "no test run yet");
    t.s.bash(300, "npm test", 1);
    let r = t.report();
    assert_eq!(step(&r, 1).status, StepStatus::Partial, "ran, failed");
    t.s.bash(310, "npm test", 0);
    let r = t.report();
    assert_eq!(step(&r, 1).status, StepStatus::Done);
    assert_eq!(r.tests.len(), 2);
}

#[test]
fn a_command_printed_or_only_built_is_not_the_command_run() {
    let plan =
        "# Plan\n\n1. Run `cargo test`\n2. Write tests for the pager\n3. Run `npm run lint`\n";
    let mut t = setup(plan);
    // Printed, searched for, committed about, or built without running: none runs the tests.
    for (i, cmd) in [
        "echo \"cargo test\"",
        "echo 'cargo test' && printf 'npm run lint'",
        "grep -r 'cargo test' docs",
        "git commit -m \"cargo test passes\"",
        "cargo test --no-run",
        "cargo test --help",
        "cargo test -- --list",
        "npx vitest --version",
        "pytest --collect-only",
        "cargo testing",
        "npm run lint-fix",
    ]
    .iter()
    .enumerate()
    {
        t.s.bash(300 + i as i64, cmd, 0);
    }
    let r = t.report();
    assert_eq!(
        statuses(&r),
        vec![
            StepStatus::Missing,
            StepStatus::Missing,
            StepStatus::Missing
        ],
        "{:#?}",
        r.steps
    );
    assert_eq!(
        r.tests
            .iter()
            .map(|x| x.command.as_str())
            .collect::<Vec<_>>(),
        Vec::<&str>::new(),
        "counted as test runs"
    );

    // Run as commands (with arguments, after `cd`, through `sudo`/`bash -c`): done.
    t.s.bash(
        400,
        "cd . && RUST_LOG=1 cargo test -p api 2>&1 | tail -5",
        0,
    );
    t.s.bash(410, "bash -lc 'npm run lint -- --fix'", 0);
    let r = t.report();
    assert_eq!(
        statuses(&r),
        vec![StepStatus::Done, StepStatus::Done, StepStatus::Done],
        "{:#?}",
        r.steps
    );
    assert_eq!(r.tests.len(), 1, "{:#?}", r.tests);

    // The same tool through a package runner is the same command.
    let mut t = setup("# Plan\n\n1. Run `vitest run`\n2. Run `npx jest`\n");
    t.s.bash(300, "npx vitest run src/a.test.ts", 0);
    t.s.bash(310, "pnpm exec jest --ci", 0);
    let r = t.report();
    assert_eq!(
        statuses(&r),
        vec![StepStatus::Done, StepStatus::Done],
        "{:#?}",
        r.steps
    );
}

#[test]
fn nothing_before_the_approval_counts() {
    let mut t = setup(PLAN);
    // A command run while planning (before the approval) is not evidence.
    t.s.bash(100, "cargo test", 0);
    let r = t.report();
    assert_eq!(step(&r, 4).status, StepStatus::Missing);
    assert!(r.tests.is_empty());
    assert!(r.changes.is_empty(), "{:#?}", r.changes);
    assert!(r.steps.iter().all(|s| s.status != StepStatus::Done));
}

#[test]
fn the_plan_file_is_not_work_even_inside_the_repo() {
    let mut t = setup(PLAN);
    // A plans folder inside the repository (`plansDirectory`): the plan file is untracked there.
    let in_repo = t.repo.join(".plans/pagination.md");
    t.s.plan_path = in_repo.clone();
    t.s.plan_approved(400, 450, PLAN);
    // Editing the plan after approval (ticking items) is not work either.
    t.s.edit(460, &in_repo, "1. Add", "1. [x] Add");
    let r = t.report();
    assert!(
        !paths(&r.changes).iter().any(|p| p.contains(".plans")),
        "{:#?}",
        r.changes
    );
    assert!(r.unplanned.is_empty());
}

#[test]
fn compaction_after_the_approval_keeps_the_work_before_it() {
    let mut t = setup(PLAN);
    work(&mut t, 0);
    t.s.compact(300);
    write_file(&t.repo, "src/cursor.rs", "pub struct Cursor;\n");
    t.s.write(310, &t.repo.join("src/cursor.rs"), "pub struct Cursor;\n");
    let r = t.report();
    assert_eq!(
        step(&r, 1).status,
        StepStatus::Done,
        "before the compaction"
    );
    assert_eq!(step(&r, 3).status, StepStatus::Done, "after it");
    assert!(
        r.notes.iter().any(|n| n.contains("compacted")),
        "{:#?}",
        r.notes
    );
}

#[test]
fn reset_hard_after_the_work_marks_nothing_done() {
    let mut t = setup(PLAN);
    let before = git2::Repository::open(&t.repo)
        .unwrap()
        .head()
        .unwrap()
        .target()
        .unwrap();
    work(&mut t, 0);
    // Everything thrown away: back to the commit before the approval, untracked file removed.
    reset_hard(&t.repo, before, 260);
    std::fs::remove_file(t.repo.join("src/extra.rs")).unwrap();
    let r = t.report();
    assert_eq!(step(&r, 1).status, StepStatus::Missing, "{r:#?}");
    assert_eq!(step(&r, 2).status, StepStatus::Missing);
    assert!(r.changes.is_empty(), "{:#?}", r.changes);
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("unchanged in the worktree") && n.contains("src/api.rs")),
        "{:#?}",
        r.notes
    );
}

#[test]
fn reset_hard_to_before_the_approval_head_is_noted() {
    let mut t = setup(PLAN);
    let first = git2::Repository::open(&t.repo)
        .unwrap()
        .head()
        .unwrap()
        .target()
        .unwrap();
    // A second commit before the approval, so HEAD at approval is not the first one.
    write_file(&t.repo, "src/lib.rs", "pub mod api;\npub mod more;\n");
    commit_all(&t.repo, "more", 100);
    work(&mut t, 0);
    reset_hard(&t.repo, first, 260);
    let r = t.report();
    assert!(
        r.notes.iter().any(|n| n.contains("reset or rewritten")),
        "{:#?}",
        r.notes
    );
    assert_eq!(step(&r, 1).status, StepStatus::Missing);
}

#[test]
fn no_worktree_counts_the_tool_calls_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let folder = home.join("scratch");
    std::fs::create_dir_all(&folder).unwrap();
    let mut s = ClaudeSession::new(home, &folder, SESSION, "plan-scratch-kite");
    s.prompt(30, "plan");
    s.plan_approved(120, 150, PLAN);
    s.edit(200, &folder.join("src/api.rs"), "a", "fn paginate() {}");
    s.save();
    let r = report(&Roots::under_home(&s.home), &s.plan_path.to_string_lossy()).unwrap();
    assert_eq!(r.worktree, None);
    assert_eq!(r.base.kind, BaseKind::None);
    assert_eq!(step(&r, 1).status, StepStatus::Done, "{r:#?}");
    assert!(r
        .notes
        .iter()
        .any(|n| n.contains("not in a git repository")));
    assert_eq!(r.changes[0].sources, vec![ChangeSource::Tool]);
}

#[test]
fn renamed_files_match_the_old_name() {
    let t = setup("# Plan\n\n1. Rename src/api.rs to src/http.rs\n");
    std::fs::rename(t.repo.join("src/api.rs"), t.repo.join("src/http.rs")).unwrap();
    commit_all(&t.repo, "rename", 200);
    let r = t.report();
    let renamed = r.changes.iter().find(|c| c.path == "src/http.rs").unwrap();
    assert_eq!(renamed.change, ChangeKind::Renamed);
    assert_eq!(renamed.from.as_deref(), Some("src/api.rs"));
    assert_eq!(step(&r, 1).status, StepStatus::Done, "{r:#?}");
    assert!(r.unplanned.is_empty());
    let d = file_diff(&r, "src/http.rs").unwrap();
    assert_eq!(d.old.as_deref(), Some("pub fn list() {}\n"));
    assert_eq!(d.new.as_deref(), Some("pub fn list() {}\n"));
}

#[test]
fn paths_outside_the_repo_no_list_and_300_steps() {
    // A step naming a file outside the repository: noted, never done without a change.
    let t = setup("# Plan\n\n1. Update /etc/api/config.toml\n2. Tidy up\n");
    let r = t.report();
    let n = &step(&r, 1).names[0];
    assert_eq!(n.value, "/etc/api/config.toml");
    assert!(n
        .note
        .as_deref()
        .unwrap()
        .contains("outside the repository"));
    assert_eq!(step(&r, 1).status, StepStatus::Missing);
    assert_eq!(step(&r, 2).status, StepStatus::Unverifiable);
    assert!(!needs_work(&VerifyReport {
        steps: vec![],
        ..r.clone()
    }));

    // No list at all.
    let t = setup("# Plan\n\nJust do the right thing.\n");
    let r = t.report();
    assert!(r.steps.is_empty());
    assert!(r.notes.iter().any(|n| n.contains("no list items")));
    assert!(!needs_work(&r));

    // 300 steps.
    let mut plan = String::from("# Big\n\n");
    for i in 1..=300 {
        plan.push_str(&format!("{i}. Touch src/f{i}.rs\n"));
    }
    let t = setup(&plan);
    let r = t.report();
    assert_eq!(r.steps.len(), 300);
    assert_eq!(r.counts.missing, 300);
    assert!(r.notes.iter().any(|n| n.contains("300 steps")));
    let text = agent_report_text(&r);
    assert!(text.contains("and 260 more steps"), "{text}");
    assert!(text.chars().count() <= 12_000);
}

#[test]
fn damaged_transcript_lines_are_noted_not_fatal() {
    let mut t = setup(PLAN);
    t.s.raw("{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"tool_use\"");
    t.s.raw("\u{0}\u{1} binary tool_result");
    work(&mut t, 0);
    let r = t.report();
    assert_eq!(step(&r, 1).status, StepStatus::Done);
    assert!(r.notes.iter().any(|n| n.contains("could not be read")));
}

#[test]
fn an_unapproved_plan_has_no_done_step() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let repo = home.join("work/api");
    git_init(&repo, &[("src/api.rs", "x\n")], 0);
    let mut s = ClaudeSession::new(home, &repo, SESSION, "plan-pending-kite");
    s.prompt(30, "plan");
    std::fs::create_dir_all(s.plan_path.parent().unwrap()).unwrap();
    std::fs::write(&s.plan_path, PLAN).unwrap();
    let pp = s.plan_path.clone();
    s.write(60, &pp, PLAN);
    s.tool(
        70,
        "ExitPlanMode",
        serde_json::json!({"plan": PLAN, "planFilePath": pp.to_string_lossy()}),
        "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.",
        true,
        serde_json::json!("Error: The user doesn't want to proceed with this tool use."),
    );
    write_file(&repo, "src/api.rs", "fn paginate() {}\n");
    s.edit(200, &repo.join("src/api.rs"), "x", "fn paginate() {}");
    s.save();
    let r = report(&Roots::under_home(&s.home), &pp.to_string_lossy()).unwrap();
    assert!(r.approval.is_none());
    assert!(r.steps.iter().all(|st| st.status != StepStatus::Done));
    assert!(r.notes.iter().any(|n| n.contains("no approval")));
    assert!(!needs_work(&r));
}

#[test]
fn overrides_are_kept_shown_and_cleared() {
    let mut t = setup(PLAN);
    work(&mut t, 0);
    t.s.save();
    let roots = &Roots::under_home(&t.s.home);
    let plan = t.s.plan_path.to_string_lossy().into_owned();
    assert!(matches!(
        set_override(roots, &plan, 9, StepStatus::Done, "x"),
        Err(VerifyError::NoStep { index: 9, count: 5 })
    ));
    assert!(matches!(
        set_override(roots, &plan, 3, StepStatus::Done, "  "),
        Err(VerifyError::BadInput(_))
    ));
    let o = set_override(
        roots,
        &plan,
        3,
        StepStatus::Done,
        "done by hand in another repo",
    )
    .unwrap();
    assert_eq!(o.status, StepStatus::Done);
    let r = t.report();
    let s3 = step(&r, 3);
    assert_eq!(s3.status, StepStatus::Done);
    assert_eq!(s3.computed_status, StepStatus::Missing);
    assert_eq!(
        s3.overridden.as_ref().unwrap().note,
        "done by hand in another repo"
    );
    assert_eq!(r.counts.missing, 0);
    // The JSON names it `override`.
    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(json["steps"][2]["override"]["status"], "done");
    assert!(clear_override(roots, &plan, 3).unwrap());
    assert!(!clear_override(roots, &plan, 3).unwrap());
    assert_eq!(step(&t.report(), 3).status, StepStatus::Missing);
}

#[test]
fn report_for_session_finds_the_approved_plan_and_diffs_read_only_changed_files() {
    let mut t = setup(PLAN);
    work(&mut t, 0);
    t.s.save();
    let r = report_for_session(&Roots::under_home(&t.s.home), Agent::Claude, SESSION)
        .unwrap()
        .unwrap();
    assert_eq!(r.session.as_ref().unwrap().id, SESSION);
    assert!(
        report_for_session(&Roots::under_home(&t.s.home), Agent::Claude, "nope")
            .unwrap()
            .is_none()
    );
    let d = file_diff(&r, "src/api.rs").unwrap();
    assert_eq!(d.old.as_deref(), Some("pub fn list() {}\n"));
    assert!(d.new.unwrap().contains("paginate"));
    let d = file_diff(&r, "src/extra.rs").unwrap();
    assert_eq!(d.old, None);
    assert!(matches!(
        file_diff(&r, "src/lib.rs"),
        Err(VerifyError::NotChanged { .. })
    ));
    assert!(matches!(
        file_diff(&r, "../../etc/passwd"),
        Err(VerifyError::NotChanged { .. })
    ));
    // The JSON contract of the issue.
    let json = serde_json::to_value(&r).unwrap();
    for key in ["plan", "approvedAt", "steps", "unplanned", "tests"] {
        assert!(json.get(key).is_some(), "{key}");
    }
    for key in ["index", "text", "status", "evidence"] {
        assert!(json["steps"][0].get(key).is_some(), "{key}");
    }
    assert_eq!(json["unplanned"][0]["path"], "src/extra.rs");
    let _ = Path::new(&t.home);
}

fn stop_input(session: &str, active: bool) -> Vec<u8> {
    testkit::stop_hook_input(session, "/nowhere.jsonl", active)
}

#[test]
fn stop_hook_blocks_once_per_report_and_never_loops() {
    let mut t = setup(PLAN);
    work(&mut t, 0);
    t.s.save();
    let roots = Roots::under_home(&t.s.home);
    // Plandeck not running: never blocks.
    let out = stop_hook::hook_claude_stop(&roots, &stop_input(SESSION, false));
    assert_eq!(out.stdout, "");
    assert!(out.stderr.contains("not running"));
    let _app = crate::gate::app_heartbeat(&roots).unwrap();
    let out = stop_hook::hook_claude_stop(&roots, &stop_input(SESSION, false));
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["decision"], "block");
    assert!(v["reason"].as_str().unwrap().contains("Step 3 (missing)"));
    // The same report again (the model stopped again without doing anything): not again.
    for active in [true, false] {
        let out = stop_hook::hook_claude_stop(&roots, &stop_input(SESSION, active));
        assert_eq!(out.stdout, "", "active={active}");
        assert!(out.stderr.contains("already sent"));
    }
    // Progress that still leaves work: a new report, blocked again, at most MAX_CHAIN in a row.
    let mut blocks = 0;
    for i in 0..6 {
        write_file(&t.repo, &format!("src/x{i}.rs"), "x\n");
        let out = stop_hook::hook_claude_stop(&roots, &stop_input(SESSION, true));
        if !out.stdout.is_empty() {
            blocks += 1;
        }
    }
    assert_eq!(
        blocks,
        stop_hook::MAX_CHAIN - 1,
        "1 block already in the chain"
    );
    // Everything done: no block.
    write_file(&t.repo, "docs/pagination.md", "paginate\n");
    write_file(&t.repo, "src/cursor.rs", "pub struct Cursor;\n");
    let out = stop_hook::hook_claude_stop(&roots, &stop_input(SESSION, false));
    assert_eq!(out.stdout, "", "{}", out.stderr);
    assert!(
        out.stderr.contains("done or unverifiable"),
        "{}",
        out.stderr
    );
}

#[test]
fn stop_hook_off_by_setting_and_on_bad_input() {
    let mut t = setup(PLAN);
    work(&mut t, 0);
    t.s.save();
    let roots = Roots::under_home(&t.s.home);
    let _app = crate::gate::app_heartbeat(&roots).unwrap();
    let settings = roots.settings_path();
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(&settings, "{\"verify\": {\"stopHook\": false}}\n").unwrap();
    let out = stop_hook::hook_claude_stop(&roots, &stop_input(SESSION, false));
    assert_eq!(out.stdout, "");
    assert!(out.stderr.contains("verify.stopHook"));
    std::fs::write(&settings, "{\"verify\": {\"stopHook\": true}}\n").unwrap();
    for bad in [&b""[..], b"{", b"[1]", b"\xff\xfe"] {
        let out = stop_hook::hook_claude_stop(&roots, bad);
        assert_eq!(out.stdout, "");
        assert_eq!(out.exit_code, 0);
    }
    let out = stop_hook::hook_claude_stop(&roots, &stop_input("other-session", false));
    assert_eq!(out.stdout, "");
    let out = stop_hook::hook_claude_stop(&roots, &stop_input(SESSION, false));
    assert!(out.stdout.contains("\"block\""));
}

#[test]
fn a_session_started_from_the_approved_plan_is_read_too() {
    let t = setup(PLAN);
    t.s.save();
    // "Clear context and implement": a new session whose first record carries the plan.
    let other = "7e7e7e7e-1111-4222-8333-944455556666";
    let mut b = ClaudeSession::new(&t.home, &t.repo, other, "plan-pagination-verify-kite");
    b.carry_plan(160, PLAN);
    write_file(&t.repo, "src/cursor.rs", "pub struct Cursor;\n");
    b.write(200, &t.repo.join("src/cursor.rs"), "pub struct Cursor;\n");
    b.bash(210, "cargo test", 0);
    b.save();
    let r = report_for_session(&Roots::under_home(&t.s.home), Agent::Claude, other)
        .unwrap()
        .expect("the carried plan");
    assert_eq!(step(&r, 3).status, StepStatus::Done, "{r:#?}");
    assert!(step(&r, 3)
        .evidence
        .iter()
        .any(|e| matches!(e, Evidence::ToolCall { tool, .. } if tool == "Write")));
    assert_eq!(
        step(&r, 4).status,
        StepStatus::Done,
        "the command ran in the new session"
    );
    let by_plan = t.report();
    assert_eq!(by_plan.steps, r.steps);
}

#[test]
fn file_diff_never_reads_outside_the_worktree_nor_follows_symlinks() {
    let mut t = setup(PLAN);
    // A symlink the agent made pointing at a secret outside the repository.
    let secret = t.home.join("secret.txt");
    std::fs::write(&secret, "token=hunter2\n").unwrap();
    std::os::unix::fs::symlink(&secret, t.repo.join("src/link.rs")).unwrap();
    // A file outside the repository written by a tool call.
    let outside = t.home.join("elsewhere/notes.md");
    write_file(&t.home, "elsewhere/notes.md", "private\n");
    t.s.write(200, &outside, "private\n");
    let r = t.report();
    let link = file_diff(&r, "src/link.rs").unwrap();
    assert_eq!(link.new.as_deref(), Some(secret.to_str().unwrap()));
    assert!(!format!("{link:?}").contains("hunter2"));
    let out_path = outside.to_string_lossy().into_owned();
    assert!(
        paths(&r.changes).contains(&out_path.as_str()),
        "{:#?}",
        r.changes
    );
    let d = file_diff(&r, &out_path).unwrap();
    assert_eq!((d.old, d.new), (None, None));
    assert!(d.note.unwrap().contains("outside the worktree"));
}

#[test]
fn a_plan_resubmitted_after_its_approval_is_not_the_contract_for_the_hook() {
    let mut t = setup(PLAN);
    work(&mut t, 0);
    t.s.plan_submitted(300, "# Plan v2\n\n1. Something else in src/other.rs\n");
    t.s.save();
    assert!(
        report_for_session(&Roots::under_home(&t.s.home), Agent::Claude, SESSION)
            .unwrap()
            .is_none()
    );
    let r = t.report();
    assert_eq!(step(&r, 1).text, "Add `paginate` to `src/api.rs`");
    assert!(
        r.notes.iter().any(|n| n.contains("later version")),
        "{:#?}",
        r.notes
    );
}

#[test]
fn a_plan_file_approved_only_in_plandeck_counts_from_that_decision() {
    let dir = tempfile::tempdir().unwrap();
    let roots = crate::config::Roots::under_home(dir.path());
    let plans = roots.claude.join("plans");
    std::fs::create_dir_all(&plans).unwrap();
    let path = plans.join("hand-written.md");
    std::fs::write(&path, PLAN).unwrap();
    let r = report(&roots, &path.to_string_lossy()).unwrap();
    assert!(r.approval.is_none());
    crate::review::approve(&roots, &path, crate::review::ApproveRequest::default()).unwrap();
    // The file changes after the approval: the approved text is what counts.
    std::fs::write(&path, "# Other\n\n1. Other step in src/x.rs\n").unwrap();
    let r = report(&roots, &path.to_string_lossy()).unwrap();
    let a = r.approval.as_ref().expect("Plandeck's decision");
    assert_eq!(a.source, ApprovalSource::Plandeck);
    assert_eq!(r.steps.len(), 5, "{r:#?}");
    assert_eq!(step(&r, 1).text, "Add `paginate` to `src/api.rs`");
    assert!(r.steps.iter().all(|s| s.status != StepStatus::Done));
    assert!(
        r.notes.iter().any(|n| n.contains("folder is not known")),
        "{:#?}",
        r.notes
    );
}

#[test]
fn a_transcript_gone_after_the_scan_is_noted_and_git_still_counts() {
    let mut t = setup(PLAN);
    work(&mut t, 0);
    let first = t.report();
    assert_eq!(step(&first, 1).status, StepStatus::Done);
    std::fs::remove_file(t.s.transcript()).unwrap();
    let r = report(
        &Roots::under_home(&t.s.home),
        &t.s.plan_path.to_string_lossy(),
    )
    .unwrap();
    assert!(
        r.notes.iter().any(|n| n.contains("cannot be read")),
        "{:#?}",
        r.notes
    );
    assert_eq!(
        step(&r, 1).status,
        StepStatus::Done,
        "the commit still shows it"
    );
    assert!(r.tests.is_empty(), "no transcript, no command evidence");
    assert_eq!(step(&r, 4).status, StepStatus::Missing);
}

#[test]
fn the_report_from_plain_patches_is_the_report_from_libgit2s_patches() {
    let mut t = setup(PLAN);
    work(&mut t, 0);
    // A symbol found only in an uncommitted hunk, with a function context in its header.
    write_file(
        &t.repo,
        "src/cursor.rs",
        "pub struct Cursor;\n\nimpl Cursor {\n    fn next() {}\n}\n",
    );
    t.s.save();
    let target = judge::resolve(
        &Roots::under_home(&t.s.home),
        &t.s.plan_path.to_string_lossy(),
    )
    .unwrap();
    let mut inputs = judge::gather(&Roots::under_home(&t.s.home), target);
    let plain = judge::evaluate(&inputs);
    let folder = inputs.folder.clone().unwrap();
    let approved = time::OffsetDateTime::from_unix_timestamp(testkit::T0 + 150).ok();
    inputs.git = Some(changes::collect_with(&folder, approved, None, None));
    let libgit2 = judge::evaluate(&inputs);
    assert_eq!(plain, libgit2);
    assert!(plain
        .steps
        .iter()
        .flat_map(|s| &s.evidence)
        .any(|e| matches!(e, Evidence::GitChange { hunk: Some(_), .. })));
    assert_eq!(
        serde_json::to_value(&plain).unwrap(),
        serde_json::to_value(&libgit2).unwrap()
    );
}
