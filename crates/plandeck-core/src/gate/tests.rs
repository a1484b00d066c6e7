//! Property tests of the hook's stdin parser: whatever an agent (or anything else) writes to
//! `plandeck hook claude|gemini`, the parser answers without a panic, and huge input is refused
//! unread.

use super::*;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn any_bytes_parse_or_explain(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        if let Err(msg) = HookInput::parse(&bytes, "Claude Code") {
            prop_assert!(!msg.is_empty());
        }
    }

    #[test]
    fn json_shaped_input_parses_or_explains(
        session in ".{0,20}",
        tool in prop_oneof![Just("ExitPlanMode".to_owned()), ".{0,12}"],
        plan in any::<String>(),
        cut in 0usize..200,
    ) {
        let full = serde_json::json!({
            "session_id": session, "tool_name": tool, "cwd": "/w",
            "tool_input": {"plan": plan}
        })
        .to_string();
        let input = HookInput::parse(full.as_bytes(), "Gemini CLI").unwrap();
        prop_assert_eq!(input.session_id, session);
        // A torn or truncated write is a message, not a panic.
        let cut = cut.min(full.len());
        let _ = HookInput::parse(&full.as_bytes()[..cut], "Gemini CLI");
    }
}

#[test]
fn huge_input_is_refused_without_parsing() {
    let mut huge = b"{\"session_id\":\"".to_vec();
    huge.resize(MAX_HOOK_INPUT + 1, b'a');
    let err = HookInput::parse(&huge, "Claude Code").unwrap_err();
    assert!(err.contains("larger than 16 MiB"), "{err}");
    assert!(HookInput::parse(b" \n\t", "Claude Code")
        .unwrap_err()
        .contains("empty"));
}

/// A waiting Claude request for the plan file at `plan_path`, whose agent (this process) is alive
/// and has no pane: a decision on it writes what it writes, then answers through the hook.
fn request_for(roots: &crate::config::Roots, id: &str, plan_path: &std::path::Path) -> GateRequest {
    let me = std::process::id();
    let req = GateRequest {
        agent: crate::agents::Agent::Claude,
        plan_path: Some(plan_path.to_string_lossy().into_owned()),
        deadline: crate::timestamp::now() + time::Duration::minutes(10),
        hook_pid: me,
        hook_start_time: crate::terminal::start_time(me),
        agent_pid: Some(me),
        agent_start_time: crate::terminal::start_time(me),
        ..GateRequest::for_test(id)
    };
    store::file_request(roots, &req).unwrap();
    req
}

fn approve_edited(text: &str) -> GateDecision {
    GateDecision::Approve {
        mode: ApproveMode::Manual,
        edited: Some(text.into()),
        started_from: None,
    }
}

#[test]
fn edit_and_approve_never_makes_a_plan_file_or_folder_outside_a_plans_folder() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().canonicalize().unwrap();
    let roots = crate::config::Roots::under_home(&home);
    std::fs::create_dir_all(roots.claude.join("plans")).unwrap();
    std::fs::create_dir_all(home.join("notes")).unwrap();

    // Missing, in folders that do not exist: neither the file nor its folders appear.
    let nowhere = home.join("nowhere/deep/plan.md");
    request_for(&roots, "r-nowhere", &nowhere);
    let err = decide(&roots, "r-nowhere", approve_edited("# Edited\n")).unwrap_err();
    assert!(err.to_string().contains("refusing to write"), "{err}");
    assert!(
        !home.join("nowhere").exists(),
        "folders made for a refused edit"
    );

    // Missing, in a folder that exists but holds no plans: no file appears.
    let notes = home.join("notes/plan.md");
    request_for(&roots, "r-notes", &notes);
    let err = decide(&roots, "r-notes", approve_edited("# Edited\n")).unwrap_err();
    assert!(
        err.to_string().contains("outside every plans folder"),
        "{err}"
    );
    assert!(
        !notes.exists(),
        "an empty plan file made outside the plans folders"
    );

    // Missing inside Claude Code's plans folder: the edit is the plan.
    let inside = roots.claude.join("plans/never-written.md");
    request_for(&roots, "r-inside", &inside);
    decide(&roots, "r-inside", approve_edited("# Edited\n")).unwrap();
    assert_eq!(std::fs::read_to_string(&inside).unwrap(), "# Edited\n");
}

#[test]
fn the_window_title_counts_the_plans_that_wait() {
    let waiting = GateRequest::for_test("a");
    assert_eq!(window_title(&[]), "Plandeck");
    assert_eq!(
        window_title(std::slice::from_ref(&waiting)),
        "Plandeck (1 waiting)"
    );
    // One approved with no pane still waits for its terminal: the queue lists it too.
    let mut approving = GateRequest::for_test("b");
    approving.status = GateStatus::Approving;
    assert_eq!(window_title(&[waiting, approving]), "Plandeck (2 waiting)");
}

/// Issue 33, finding 13: a remote's words in a notification are one line, escaped, bounded, and
/// cannot push the machine's name out of sight.
#[test]
fn a_remotes_notification_names_the_machine_first_on_one_escaped_bounded_line() {
    let mut request = GateRequest::for_test("r1");
    request.machine = Some("box".to_owned());
    request.cwd = format!(
        "/w/api\n\n\n\nA plan on this laptop is waiting <b>here &amp; \u{2028}{}",
        "x".repeat(5000)
    );
    let (title, body) = arrival_notice(&request);
    assert_eq!(title, "box: a plan is waiting");
    assert!(body.starts_with("On box: "), "{body}");
    assert!(!body.contains('\n') && !body.contains('\u{2028}'), "{body}");
    assert!(
        !body.contains("<b>") && body.contains("&lt;b&gt;"),
        "{body}"
    );
    assert!(body.contains("&amp;amp;"), "{body}");
    assert!(body.chars().count() < 200, "{}", body.chars().count());
    assert!(body.contains('…'), "{body}");
    // A local one says no machine.
    request.machine = None;
    request.cwd = "/w/api".to_owned();
    let (title, body) = arrival_notice(&request);
    assert_eq!(title, "A plan is waiting");
    assert_eq!(body, "Gemini CLI in api waits for your decision.");
}
