//! `plandeck comment` and `plandeck comments` over temp homes: comments survive a revision of the
//! plan (open where their text is, outdated where it is gone), and bad input is refused with a
//! reason and a non-zero exit.

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

/// `plandeck comment <plan> --quote <quote> --text <text> --json`, which must succeed: its output.
fn comment(home: &Path, plan: &str, quote: &str, text: &str) -> String {
    let (code, out, err) = plandeck(
        home,
        &["comment", plan, "--quote", quote, "--text", text, "--json"],
    );
    assert_eq!(code, 0, "{err}");
    out
}

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

#[test]
fn comments_survive_a_revision_and_are_resolved_and_deleted() {
    let home = tempfile::tempdir().unwrap();
    let p = plan(
        home.path(),
        "# Cache\n\n1. Add an LRU cache.\n2. Evict after 5 minutes.\n",
    );
    let ps = p.to_str().unwrap();

    let out = comment(home.path(), ps, "Add an LRU cache.", "Which size?");
    let kept = json(&out);
    assert_eq!(kept["status"], "open");
    assert_eq!(kept["quote"], "Add an LRU cache.");
    assert_eq!(kept["line"], 3);
    let out = comment(home.path(), ps, "Evict after 5 minutes.", "Too short.");
    let gone = json(&out);

    // The agent revises the plan: one commented line moves, the other is removed.
    fs::write(&p, "# Cache\n\nWhy: slow reads.\n\n1. Add an LRU cache.\n").unwrap();
    let (code, out, _) = plandeck(home.path(), &["comments", ps, "--json"]);
    assert_eq!(code, 0);
    let listed = json(&out);
    let rows = listed.as_array().unwrap();
    assert_eq!(rows.len(), 2, "nothing is dropped: {out}");
    assert_eq!(rows[0]["id"], kept["id"]);
    assert_eq!(rows[0]["status"], "open");
    assert_eq!(rows[0]["line"], 5);
    assert_eq!(rows[1]["id"], gone["id"]);
    assert_eq!(rows[1]["status"], "outdated");
    for field in ["id", "quote", "text", "status", "createdAt", "version"] {
        assert!(!rows[0][field].is_null(), "{field} missing: {out}");
    }
    assert_eq!(rows[0]["version"].as_str().unwrap().len(), 64);

    let id = gone["id"].as_str().unwrap();
    let (code, _, err) = plandeck(home.path(), &["comment", "--resolve", id]);
    assert_eq!(code, 0, "{err}");
    let (_, out, _) = plandeck(home.path(), &["comments", ps, "--json"]);
    assert_eq!(json(&out)[1]["status"], "resolved");
    let (code, _, err) = plandeck(home.path(), &["comment", "--delete", id]);
    assert_eq!(code, 0, "{err}");
    let (_, out, _) = plandeck(home.path(), &["comments", ps]);
    assert!(!out.contains(id) && out.contains("Which size?"), "{out}");
    let (code, _, err) = plandeck(home.path(), &["comment", "--delete", id]);
    assert_eq!(code, 1);
    assert!(err.contains("no comment"), "{err}");
}

#[test]
fn a_quote_the_plan_does_not_hold_or_holds_twice_is_refused_with_a_reason() {
    let home = tempfile::tempdir().unwrap();
    let p = plan(
        home.path(),
        "# Tests\n\n- run `cargo test`\n- fix lib.rs\n- run `cargo test`\n",
    );
    let ps = p.to_str().unwrap();

    let (code, _, err) = plandeck(
        home.path(),
        &["comment", ps, "--quote", "npm test", "--text", "x"],
    );
    assert_ne!(code, 0);
    assert!(err.contains("does not hold the quoted text"), "{err}");

    let (code, _, err) = plandeck(
        home.path(),
        &["comment", ps, "--quote", "run `cargo test`", "--text", "x"],
    );
    assert_ne!(code, 0);
    assert!(err.contains("occurs 2 times"), "{err}");

    let (code, out, err) = plandeck(
        home.path(),
        &[
            "comment",
            ps,
            "--quote",
            "run `cargo test`",
            "--occurrence",
            "2",
            "--text",
            "again?",
            "--json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(json(&out)["line"], 5);

    // Hostile text is kept as text.
    let hostile = "$(rm -rf ~) `id` <script>alert(1)</script>\u{1b}[2J";
    let out = comment(home.path(), ps, "fix lib.rs", hostile);
    assert_eq!(json(&out)["text"], hostile);

    // A plan deleted meanwhile: its comments are still listed, as outdated.
    fs::remove_file(&p).unwrap();
    let (code, out, err) = plandeck(home.path(), &["comments", ps, "--json"]);
    assert_eq!(code, 0, "{err}");
    let rows = json(&out);
    assert_eq!(rows.as_array().unwrap().len(), 2);
    assert!(rows
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["status"] == "outdated"));
    let (code, _, err) = plandeck(
        home.path(),
        &["comment", ps, "--quote", "fix lib.rs", "--text", "x"],
    );
    assert_ne!(code, 0);
    assert!(!err.is_empty());
}

#[test]
fn reject_and_approve_carry_open_comments_unless_told_not_to() {
    let home = tempfile::tempdir().unwrap();
    let p = plan(
        home.path(),
        "# Cache\n\n1. Add an LRU cache.\n2. Evict after 5 minutes.\n",
    );
    let ps = p.to_str().unwrap();
    let out = comment(
        home.path(),
        ps,
        "Evict after 5 minutes.",
        "Too short;\nuse 1 hour.",
    );
    let id = json(&out)["id"].as_str().unwrap().to_owned();

    // --no-comments: the typed feedback alone.
    let (code, out, err) = plandeck(
        home.path(),
        &[
            "reject",
            ps,
            "--feedback",
            "Smaller.",
            "--no-comments",
            "--json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(json(&out)["feedback"], "Smaller.");

    // By default the comment and its quote go with it, lines intact; the log shows what was sent.
    let (code, _, err) = plandeck(home.path(), &["reject", ps, "--feedback", "Smaller."]);
    assert_eq!(code, 0, "{err}");
    let (_, out, _) = plandeck(home.path(), &["log", "--json"]);
    let feedback = json(&out)[0]["feedback"].as_str().unwrap().to_owned();
    assert_eq!(
        feedback,
        "Smaller.\n\nComment on the plan (1), each on the quoted text:\n\n\
         1. On \"Evict after 5 minutes.\":\n   Too short;\n   use 1 hour."
    );
    let (_, out, _) = plandeck(home.path(), &["comments", ps, "--json"]);
    assert_eq!(
        json(&out)[0]["sentWith"].as_array().unwrap().len(),
        1,
        "{out}"
    );

    // Rejecting with comments only needs no typed feedback.
    let (code, out, err) = plandeck(home.path(), &["reject", ps, "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(json(&out)["feedback"]
        .as_str()
        .unwrap()
        .starts_with("Comment on the plan (1)"));

    // Approve with notes: the notes go with the decision (its log line), the plan file stays
    // exactly as it was (issue 34), and the comment stays open where its text still is.
    let before = fs::read(&p).unwrap();
    let (code, out, err) = plandeck(home.path(), &["approve", ps, "--json"]);
    assert_eq!(code, 0, "{err}");
    let d = json(&out);
    assert_eq!(d["edited"], false);
    assert_eq!(
        fs::read(&p).unwrap(),
        before,
        "the plan file holds no notes"
    );
    let (_, out, _) = plandeck(home.path(), &["log", "--json"]);
    let last = json(&out)[0].clone();
    assert!(
        last["feedback"].as_str().unwrap().starts_with(
            "## Reviewer notes\n\n1. On \"Evict after 5 minutes.\":\n   Too short;\n   use 1 hour."
        ),
        "{last}"
    );
    let (_, out, _) = plandeck(home.path(), &["plans", "diff", ps, "--json"]);
    assert_eq!(
        json(&out)["stats"]["added"],
        0,
        "the approved version is the file as it is"
    );

    // Resolved, it goes with nothing: the version is approved already, so
    // approving it again records nothing new.
    plandeck(home.path(), &["comment", "--resolve", &id]);
    let (_, out, _) = plandeck(home.path(), &["approve", ps, "--json"]);
    assert_eq!(json(&out)["route"], "alreadyApproved");
    assert_eq!(json(&out)["written"], false);
    let (code, _, err) = plandeck(home.path(), &["reject", ps]);
    assert_ne!(code, 0);
    assert!(err.contains("feedback"), "{err}");
}

#[test]
fn comments_markdown_is_the_review_with_quotes_statuses_and_the_decision() {
    let home = tempfile::tempdir().unwrap();
    let p = plan(
        home.path(),
        "# Cache\n\n1. Add an LRU cache.\n2. Evict after 5 minutes.\n",
    );
    let ps = p.to_str().unwrap();
    let add = |quote: &str, text: &str| {
        let (code, _, err) = plandeck(
            home.path(),
            &["comment", ps, "--quote", quote, "--text", text],
        );
        assert_eq!(code, 0, "{err}");
    };
    add("Add an LRU cache.", "Which size?\n- 100 entries?");
    add("Evict after 5 minutes.", "Too short.");
    let (code, out, err) = plandeck(home.path(), &["comments", ps, "--markdown"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("# Review: Cache\n\n"), "{out}");
    assert!(out.contains("- Decision: none yet\n"), "{out}");

    let (code, _, err) = plandeck(home.path(), &["reject", ps, "--feedback", "Smaller."]);
    assert_eq!(code, 0, "{err}");
    fs::write(&p, "# Cache\n\n1. Add an LRU cache.\n").unwrap();
    let (code, out, err) = plandeck(home.path(), &["comments", ps, "--markdown"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("- Decision: rejected by ") && out.contains(", with 2 comments\n"),
        "{out}"
    );
    assert!(
        out.contains("### 1. Open, line 3\n\n> Add an LRU cache.\n\nWhich size?\n- 100 entries?\n"),
        "{out}"
    );
    assert!(
        out.contains("### 2. Outdated (its text is gone from this version)\n\n> Evict after 5 minutes.\n\nToo short.\n"),
        "{out}"
    );
    assert!(out.contains("; sent with the decision of "), "{out}");
}

#[test]
fn a_comment_on_a_50_mb_plan_is_refused_with_a_reason_and_writes_nothing() {
    let home = tempfile::tempdir().unwrap();
    let p = plan(home.path(), "# Huge\n\n- step one\n");
    // 50 MB: the head is a plan, the rest zeros (sparse, so the test stays light).
    fs::OpenOptions::new()
        .write(true)
        .open(&p)
        .unwrap()
        .set_len(50 * 1024 * 1024)
        .unwrap();
    let ps = p.to_str().unwrap();
    let (code, out, err) = plandeck(
        home.path(),
        &["comment", ps, "--quote", "step one", "--text", "x"],
    );
    assert_ne!(code, 0, "{out}");
    assert!(err.contains("52428800 bytes; plans over"), "{err}");
    assert!(!home.path().join(".local/share/plandeck/comments").exists());
}

#[test]
fn a_quote_or_comment_may_start_with_a_dash() {
    let home = tempfile::tempdir().unwrap();
    let p = plan(home.path(), "# Steps\n\n- step one\n- step two\n");
    let args = [
        "comment",
        p.to_str().unwrap(),
        "--quote",
        "- step two",
        "--text",
        "- why two?",
        "--json",
    ];
    let (code, out, err) = plandeck(home.path(), &args);
    assert_eq!(code, 0, "{err}");
    let c = json(&out);
    assert_eq!(
        (c["quote"].as_str(), c["text"].as_str()),
        (Some("- step two"), Some("- why two?"))
    );
    assert_eq!(c["line"], 4);
}
