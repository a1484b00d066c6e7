//! `plandeck plans list|history|restore` over the recorded agent folders with the plans deleted.

use crate::common;
use common::plandeck;

use std::fs;
use std::path::Path;

fn home(delete_plans: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    plandeck_testkit::fixtures::agents_as(home);
    if delete_plans {
        fs::remove_dir_all(home.join(".claude/plans")).unwrap();
        for slug in fs::read_dir(home.join(".gemini/tmp/gemproj")).unwrap() {
            let plans = slug.unwrap().path().join("plans");
            if plans.is_dir() {
                fs::remove_dir_all(plans).unwrap();
            }
        }
    }
    dir
}

fn list(home: &Path) -> Vec<serde_json::Value> {
    let (code, out, err) = plandeck(home, &["plans", "list", "--json"]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str::<serde_json::Value>(&out)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn list_json_gains_source_and_keeps_plans_whose_file_is_gone() {
    let with_files = home(false);
    let plans = list(with_files.path());
    // Files of Claude (7) and Gemini (4) are listed as files; the 7 Codex plans only exist in
    // transcripts.
    let files: Vec<_> = plans.iter().filter(|p| p["source"] == "file").collect();
    let transcript: Vec<_> = plans
        .iter()
        .filter(|p| p["source"] == "transcript")
        .collect();
    assert_eq!(files.len(), 11, "{plans:#?}");
    assert_eq!(transcript.len(), 7, "{plans:#?}");
    assert!(transcript
        .iter()
        .all(|p| p["agent"] == "codex" && p["path"].is_null()));

    let without = home(true);
    let plans = list(without.path());
    assert_eq!(plans.len(), 18, "{plans:#?}");
    let edited = plans
        .iter()
        .find(|p| p["sessionId"] == "8231d470-01ea-414b-8fe3-908262ff511e")
        .unwrap();
    assert_eq!(edited["source"], "transcript");
    assert_eq!(edited["title"], "Plan: pagination (EDITED ON DISK)");
    assert_eq!(edited["state"], "approved");
    for key in [
        "id",
        "path",
        "agent",
        "title",
        "sessionId",
        "state",
        "updatedAt",
    ] {
        assert!(edited.get(key).is_some(), "{key}");
    }
}

#[test]
fn history_json_is_an_array_of_versions_oldest_first() {
    let h = home(true);
    let plans = list(h.path());
    let gemini = plans
        .iter()
        .find(|p| p["sessionId"] == "cf0df6f8-ad73-4066-b046-798b88c0fbb0")
        .unwrap();
    let (code, out, err) = plandeck(
        h.path(),
        &["plans", "history", gemini["id"].as_str().unwrap(), "--json"],
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let v = v.as_array().unwrap();
    assert_eq!(v.len(), 2);
    for version in v {
        for key in ["text", "submittedAt", "verdict", "feedback", "decidedIn"] {
            assert!(version.get(key).is_some(), "{key}: {version}");
        }
    }
    assert_eq!(v[0]["verdict"], "rejected");
    assert_eq!(v[0]["feedback"], "REVIEWER: split step 2");
    assert_eq!(v[0]["decidedIn"], "hook");
    assert_eq!(v[1]["verdict"], "cancelled");
    assert_eq!(v[1]["decidedIn"], "terminal");

    // By the path the file had.
    let path = gemini["path"].as_str().unwrap();
    let (code, out, _) = plandeck(h.path(), &["plans", "history", path, "--json"]);
    assert_eq!(code, 0);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&out).unwrap()[1]["verdict"],
        "cancelled"
    );

    // A Codex plan revised after feedback.
    let revised = plans
        .iter()
        .find(|p| p["sessionId"] == "01a207a7-dafa-7ee1-9996-1110b9cb9e12")
        .unwrap();
    let (_, out, _) = plandeck(
        h.path(),
        &[
            "plans",
            "history",
            revised["id"].as_str().unwrap(),
            "--json",
        ],
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v[0]["verdict"], "rejected");
    assert_eq!(
        v[0]["feedback"],
        "Use cursor pagination only, drop the page numbers"
    );
    assert_eq!(v[1]["verdict"], "approved");

    let (code, _, err) = plandeck(h.path(), &["plans", "history", "000000000000", "--json"]);
    assert_eq!(code, 1);
    assert!(err.contains("No recovered plan"), "{err}");
}

#[test]
fn restore_writes_the_lost_plan_back_and_never_over_other_text() {
    let h = home(true);
    let plans = list(h.path());
    let hook = plans
        .iter()
        .find(|p| p["sessionId"] == "5fb53a48-3aab-4a4b-b82c-e42d63b86c9d")
        .unwrap();
    let id = hook["id"].as_str().unwrap();
    let path = Path::new(hook["path"].as_str().unwrap()).to_owned();
    assert!(path.starts_with(h.path().join(".claude/plans")));
    let (code, out, err) = plandeck(h.path(), &["plans", "restore", id]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Restored"), "{out}");
    assert!(fs::read_to_string(&path)
        .unwrap()
        .starts_with("# Plan: add pagination"));
    // Now it is a file plan again.
    let again = list(h.path());
    let p = again.iter().find(|p| p["id"] == id).unwrap();
    assert_eq!(p["source"], "file");

    // Another session's text in the file: refused, non-zero, the file untouched.
    fs::write(&path, "# Someone else's plan\n").unwrap();
    let (code, _, err) = plandeck(h.path(), &["plans", "restore", id]);
    assert_ne!(code, 0);
    assert!(err.contains("holds different text"), "{err}");
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        "# Someone else's plan\n"
    );
}

#[test]
fn history_diff_compares_two_versions() {
    let h = home(true);
    let plans = list(h.path());
    let revised = plans
        .iter()
        .find(|p| p["sessionId"] == "01a207a7-dafa-7ee1-9996-1110b9cb9e12")
        .unwrap();
    let id = revised["id"].as_str().unwrap();
    let (_, out, _) = plandeck(h.path(), &["plans", "history", id, "--json"]);
    let versions: serde_json::Value = serde_json::from_str(&out).unwrap();
    let (v1, v2) = (
        versions[0]["text"].as_str().unwrap(),
        versions[1]["text"].as_str().unwrap(),
    );
    assert_ne!(v1, v2);

    // Text: a unified diff from version 1 to version 2, every changed line on its side.
    let (code, out, err) = plandeck(h.path(), &["plans", "history", id, "--diff", "1", "2"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("--- v1 "), "{out}");
    assert!(out.contains("\n+++ v2 "), "{out}");
    assert!(out.contains("\n@@ -"), "{out}");
    let removed: Vec<&str> = v1
        .lines()
        .filter(|l| !v2.lines().any(|m| m == *l))
        .collect();
    let added: Vec<&str> = v2
        .lines()
        .filter(|l| !v1.lines().any(|m| m == *l))
        .collect();
    assert!(!removed.is_empty() && !added.is_empty());
    for l in removed {
        assert!(out.contains(&format!("\n-{l}\n")), "{l:?} in {out}");
    }
    for l in added {
        assert!(out.contains(&format!("\n+{l}\n")), "{l:?} in {out}");
    }

    // JSON: the diff's structure, as `plans diff --json` gives it.
    let (code, out, _) = plandeck(
        h.path(),
        &["plans", "history", id, "--diff", "2", "1", "--json"],
    );
    assert_eq!(code, 0);
    let d: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(d["fromLabel"].as_str().unwrap().starts_with("v2 "));
    assert!(d["toLabel"].as_str().unwrap().starts_with("v1 "));
    assert!(d["stats"]["added"].as_u64().unwrap() > 0, "{d}");
    assert!(!d["hunks"].as_array().unwrap().is_empty());

    // The same version twice: no changes. A version that is not there: a clear refusal.
    let (code, out, _) = plandeck(h.path(), &["plans", "history", id, "--diff", "2", "2"]);
    assert_eq!(code, 0);
    assert!(out.contains("No changes"), "{out}");
    let (code, _, err) = plandeck(h.path(), &["plans", "history", id, "--diff", "1", "9"]);
    assert_ne!(code, 0);
    assert!(
        err.contains("has 2 versions: there is no version 9"),
        "{err}"
    );
}

/// One state per plan from every source: a plan the terminal approved or a hook rejected is not
/// "unreviewed"; the place it was decided is said (`decidedIn`), and Plandeck's own decision
/// comes before the agent's record.
#[test]
fn list_json_states_come_from_the_agents_records_too() {
    let h = home(false);
    let plans = list(h.path());
    let claude = |session: &str| {
        plans
            .iter()
            .find(|p| p["agent"] == "claude" && p["sessionId"] == session)
            .unwrap_or_else(|| panic!("no plan of {session}: {plans:#?}"))
            .clone()
    };
    for p in &plans {
        for key in ["state", "decidedIn", "waitingRequest"] {
            assert!(p.get(key).is_some(), "{key} missing in {p}");
        }
    }
    // Rejected by a PermissionRequest hook.
    let denied = claude("5fb53a48-3aab-4a4b-b82c-e42d63b86c9d");
    assert_eq!(denied["state"], "rejected", "{denied}");
    assert_eq!(denied["decidedIn"], "hook");
    assert!(denied["waitingRequest"].is_null());
    // Edited on disk while the card was open, then approved in the terminal: the file holds
    // the approved text.
    let approved = claude("8231d470-01ea-414b-8fe3-908262ff511e");
    assert_eq!(approved["state"], "approved", "{approved}");
    assert_eq!(approved["decidedIn"], "terminal");
    // Still waiting on its card (no answer recorded): nothing to show but unreviewed.
    let open = claude("018bf6eb-3597-4409-902c-72211da68ef3");
    assert_eq!(open["state"], "unreviewed", "{open}");
    assert!(open["decidedIn"].is_null());

    // The file changed after the terminal approved it.
    let path = approved["path"].as_str().unwrap();
    fs::write(
        path,
        "# Plan: pagination (EDITED ON DISK)\n\n1. something else\n",
    )
    .unwrap();
    let plans = list(h.path());
    let now = plans.iter().find(|p| p["path"] == path).unwrap();
    assert_eq!(now["state"], "changed", "{now}");
    assert_eq!(now["decidedIn"], "terminal");

    // Plandeck's own decision comes first.
    let (code, _, err) = plandeck(
        h.path(),
        &["reject", denied["id"].as_str().unwrap(), "--feedback", "no"],
    );
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = plandeck(h.path(), &["approve", denied["id"].as_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let plans = list(h.path());
    let now = plans.iter().find(|p| p["id"] == denied["id"]).unwrap();
    assert_eq!(now["state"], "approved", "{now}");
    assert_eq!(now["decidedIn"], "plandeck");

    // The text table says where an agent's decision was made.
    let (code, text, _) = plandeck(h.path(), &["plans", "list"]);
    assert_eq!(code, 0);
    assert!(text.contains("rejected (hook)"), "{text}");
    assert!(text.contains("changed (terminal)"), "{text}");
}
