//! `plandeck approve|reject|log` and `plandeck plans diff` over temp homes.

use crate::common;
use common::plandeck;

use std::fs;
use std::path::{Path, PathBuf};

fn plan(home: &Path, text: &str) -> PathBuf {
    let path = home.join(".claude/plans/cache.md");
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, text).unwrap();
    path
}

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

#[test]
fn approve_change_diff_reject_and_log() {
    let home = tempfile::tempdir().unwrap();
    let p = plan(home.path(), "# Cache\n\n1. Add it.\n");
    let ps = p.to_str().unwrap();

    let (code, out, err) = plandeck(home.path(), &["approve", ps, "--json"]);
    assert_eq!(code, 0, "{err}");
    let d = json(&out);
    assert_eq!(d["decision"], "approved");
    assert_eq!(d["agent"], "claude");
    assert_eq!(d["edited"], false);
    assert_eq!(d["approvedHash"].as_str().unwrap().len(), 64);
    // Keys are always present: an empty one is null, never missing.
    for key in [
        "sessionId",
        "feedback",
        "requestId",
        "delivery",
        "deliveryReason",
        "id",
        "revokes",
    ] {
        assert!(d.get(key).is_some(), "{key} missing in {d}");
    }
    let (_, logged, _) = plandeck(home.path(), &["log", "--json"]);
    for key in ["requestId", "delivery", "deliveryReason", "revokes"] {
        assert!(
            json(&logged)[0].get(key).is_some(),
            "{key} missing in {logged}"
        );
    }

    let (code, out, _) = plandeck(home.path(), &["plans", "diff", ps]);
    assert_eq!(code, 0);
    assert!(out.starts_with("No changes"), "{out}");

    fs::write(&p, "# Cache\n\n1. Add a small one.\n").unwrap();
    let (code, out, _) = plandeck(home.path(), &["plans", "diff", ps]);
    assert_eq!(code, 0);
    assert!(
        out.contains("@@ -1,3 +1,3 @@")
            && out.contains("-1. Add it.")
            && out.contains("+1. Add a small one."),
        "{out}"
    );

    let (_, out, _) = plandeck(home.path(), &["plans", "diff", ps, "--json"]);
    let v = json(&out);
    assert_eq!(v["stats"]["added"], 1);
    assert_eq!(v["stats"]["removed"], 1);
    assert!(v["renderedHtml"].as_str().unwrap().contains("diff-ins"));
    assert_eq!(v["fromHash"], d["approvedHash"]);

    let (code, out, err) = plandeck(
        home.path(),
        &["reject", ps, "--feedback", "Say which cache.", "--json"],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(json(&out)["feedback"], "Say which cache.");

    let (code, out, _) = plandeck(home.path(), &["log", "--plan", ps, "--json"]);
    assert_eq!(code, 0);
    let log = json(&out);
    let verdicts: Vec<_> = log
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["decision"].as_str().unwrap())
        .collect();
    assert_eq!(verdicts, ["rejected", "approved"]);

    let (code, out, _) = plandeck(home.path(), &["log"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("rejected") && out.contains("    Say which cache."),
        "{out}"
    );
}

#[test]
fn approve_with_edit_writes_the_plan() {
    let home = tempfile::tempdir().unwrap();
    let p = plan(home.path(), "# Cache\n\n1. Add it.\n");
    let edit = home.path().join("edited.md");
    fs::write(&edit, "# Cache\n\n1. Add it, with a TTL.\n").unwrap();
    let (code, out, err) = plandeck(
        home.path(),
        &[
            "approve",
            p.to_str().unwrap(),
            "--edit",
            edit.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Approved") && out.contains("edit"), "{out}");
    assert_eq!(
        fs::read_to_string(&p).unwrap(),
        "# Cache\n\n1. Add it, with a TTL.\n"
    );
    let (_, out, _) = plandeck(home.path(), &["plans", "diff", p.to_str().unwrap()]);
    assert!(out.starts_with("No changes"), "{out}");
}

#[test]
fn errors_are_clear() {
    let home = tempfile::tempdir().unwrap();
    let p = plan(home.path(), "# Cache\n");
    let (code, out, err) = plandeck(
        home.path(),
        &["reject", p.to_str().unwrap(), "--feedback", " ", "--json"],
    );
    assert_eq!(code, 2);
    assert_eq!(json(&out)["error"]["kind"], "badInput");
    assert!(err.contains("feedback"), "{err}");

    let (code, out, _) = plandeck(home.path(), &["approve", "/no/such/plan.md", "--json"]);
    assert_eq!(code, 1);
    assert_eq!(json(&out)["error"]["kind"], "notFound");

    let (code, _, err) = plandeck(
        home.path(),
        &["approve", p.to_str().unwrap(), "--edit", "/no/such/edit.md"],
    );
    assert_eq!(code, 1);
    assert!(err.contains("edit.md"), "{err}");

    let (code, out, _) = plandeck(home.path(), &["log", "--json"]);
    assert_eq!(code, 0);
    assert_eq!(json(&out), serde_json::json!([]));
}

#[test]
fn expect_hash_refuses_a_plan_that_changed_since_it_was_read() {
    let home = tempfile::tempdir().unwrap();
    let p = plan(home.path(), "# Cache\n\n1. Add it.\n");
    let ps = p.to_str().unwrap();
    let (code, out, err) = plandeck(home.path(), &["plans", "show", ps, "--json"]);
    assert_eq!(code, 0, "{err}");
    let seen = json(&out)["contentHash"].as_str().unwrap().to_owned();

    // The agent rewrites the plan after it was read.
    fs::write(&p, "# Cache\n\n1. Add it.\n2. Drop the tests.\n").unwrap();
    for args in [
        vec!["approve", ps, "--expect-hash", &seen, "--json"],
        vec![
            "reject",
            ps,
            "--feedback",
            "No.",
            "--expect-hash",
            &seen,
            "--json",
        ],
    ] {
        let (code, out, err) = plandeck(home.path(), &args);
        assert_eq!(code, 1, "{out}");
        assert_eq!(json(&out)["error"]["kind"], "planChanged", "{out}");
        assert!(err.contains(&seen), "{err}");
    }
    let (_, out, _) = plandeck(home.path(), &["log", "--json"]);
    assert_eq!(json(&out), serde_json::json!([]), "nothing decided");

    // The version on disk, named, is decided.
    let (_, out, _) = plandeck(home.path(), &["plans", "show", ps, "--json"]);
    let now = json(&out)["contentHash"].as_str().unwrap().to_owned();
    let (code, out, err) = plandeck(
        home.path(),
        &["approve", ps, "--expect-hash", &now, "--json"],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(json(&out)["approvedHash"], now.as_str());

    // A malformed hash is bad input, not a decision.
    let (code, out, _) = plandeck(
        home.path(),
        &[
            "reject",
            ps,
            "--feedback",
            "x",
            "--expect-hash",
            "abc",
            "--json",
        ],
    );
    assert_eq!(code, 2);
    assert_eq!(json(&out)["error"]["kind"], "badInput");
}

#[cfg(unix)]
#[test]
fn approve_with_edit_refuses_a_symlink_out_of_the_plans_folder() {
    let home = tempfile::tempdir().unwrap();
    plan(home.path(), "# Cache\n");
    let outside = home.path().join("notes.md");
    fs::write(&outside, "# Notes\n").unwrap();
    let link = home.path().join(".claude/plans/notes.md");
    std::os::unix::fs::symlink(&outside, &link).unwrap();
    let edit = home.path().join("edited.md");
    fs::write(&edit, "# Notes\n\nrm -rf ~\n").unwrap();
    let (code, out, err) = plandeck(
        home.path(),
        &[
            "approve",
            link.to_str().unwrap(),
            "--edit",
            edit.to_str().unwrap(),
            "--json",
        ],
    );
    assert_eq!(code, 1, "{out}");
    assert_eq!(json(&out)["error"]["kind"], "refused", "{out}");
    assert!(err.contains("outside every plans folder"), "{err}");
    assert_eq!(fs::read_to_string(&outside).unwrap(), "# Notes\n");
}

#[test]
fn feedback_may_start_with_a_dash() {
    let home = tempfile::tempdir().unwrap();
    let p = plan(home.path(), "# Cache\n\n1. Add it.\n");
    let (code, out, err) = plandeck(
        home.path(),
        &[
            "reject",
            p.to_str().unwrap(),
            "--feedback",
            "- use cursors\n- no page numbers",
            "--json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(json(&out)["feedback"], "- use cursors\n- no page numbers");
}
