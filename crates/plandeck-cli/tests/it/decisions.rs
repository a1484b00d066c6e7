//! The window and the CLI record a decision with the same facts: `plandeck approve|reject <plan>`
//! and the core call the window's `decide_plan` command makes (`plans::resolve_id` then
//! `route::decide_plan`), each on its own copy of the same home, write log lines with the same
//! fields, naming the plan's agent and the session discovery links it to.

use crate::common;
use common::plandeck;
use plandeck_testkit::fixtures::{copy_tree, fixture, CLAUDE};

use std::fs;
use std::path::Path;

use plandeck_core::config::Roots;
use plandeck_core::review;
use plandeck_core::route::{self, PlanDecision, RouteOptions};
use plandeck_core::{ids, plans};

const KITE_SESSION: &str = "5fb53a48-3aab-4a4b-b82c-e42d63b86c9d";

/// A home holding the recorded Claude Code folder, and the path of its plan `wondrous-kite.md`
/// (linked to session [`KITE_SESSION`] by its transcript).
fn home() -> (tempfile::TempDir, Roots, String) {
    let home = tempfile::tempdir().unwrap();
    copy_tree(&fixture(CLAUDE), &home.path().join(".claude"));
    let roots = Roots::under_home(home.path());
    let kite = plans::list(&roots)
        .plans
        .into_iter()
        .find(|p| p.path.ends_with("wondrous-kite.md"))
        .expect("the fixture plan wondrous-kite.md is listed");
    assert_eq!(kite.session_id.as_deref(), Some(KITE_SESSION));
    (home, roots, kite.path)
}

/// The last line of the decision log, as JSON.
fn last_logged(roots: &Roots) -> serde_json::Value {
    let log = review::log(roots, None).unwrap();
    serde_json::to_value(log.first().expect("a logged decision")).unwrap()
}

/// Same keys, and the same value for each but the time.
fn assert_same_facts(cli: &serde_json::Value, window: &serde_json::Value) {
    let keys = |v: &serde_json::Value| -> Vec<String> {
        let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    assert_eq!(keys(cli), keys(window), "cli {cli}\nwindow {window}");
    for key in keys(cli) {
        // Each decision has its own id; each home its own temp path.
        if key == "planPath" {
            let name = |v: &serde_json::Value| {
                v[&key]
                    .as_str()
                    .unwrap()
                    .rsplit_once("/.claude/")
                    .unwrap()
                    .1
                    .to_owned()
            };
            assert_eq!(name(cli), name(window));
        } else if key == "decidedBy" {
            // Each names the Plandeck that decided, from where (its pid).
            assert!(
                cli[&key]
                    .as_str()
                    .unwrap()
                    .starts_with("the command line (pid "),
                "{cli}"
            );
        } else if key != "time" && key != "id" {
            assert_eq!(cli[&key], window[&key], "{key}: cli {cli}\nwindow {window}");
        }
    }
    assert_eq!(cli["agent"], "claude", "{cli}");
    assert_eq!(cli["sessionId"], KITE_SESSION, "{cli}");
}

/// The window's decision on the plan of a fresh copy of the home: `decide_plan` with the plan's id
/// and the hash of the version read; the log line it wrote.
fn window_decides(decision: PlanDecision) -> serde_json::Value {
    let (_home, roots, path) = home();
    let id = ids::plan_id(Path::new(&path));
    let resolved = plans::resolve_id(&roots, &id).unwrap();
    let seen = review::store::hash(&fs::read(&resolved).unwrap());
    route::decide_plan(&roots, &resolved, &seen, decision, &RouteOptions::default()).unwrap();
    last_logged(&roots)
}

#[test]
fn cli_and_window_approvals_log_the_same_facts() {
    let (home, roots, path) = home();
    let (code, _, err) = plandeck(home.path(), &["approve", &path, "--json"]);
    assert_eq!(code, 0, "{err}");
    let cli = last_logged(&roots);

    // The window: `decide_plan` with the plan's id and the hash of the version read.
    let window = window_decides(PlanDecision::Approve {
        mode: None,
        edited: None,
    });
    assert_eq!(window["decision"], "approved");
    assert_same_facts(&cli, &window);
}

#[test]
fn cli_and_window_rejections_log_the_same_facts() {
    let (home, roots, path) = home();
    let (code, _, err) = plandeck(
        home.path(),
        &["reject", &path, "--feedback", "Page by cursor.", "--json"],
    );
    assert_eq!(code, 0, "{err}");
    let cli = last_logged(&roots);

    // The window: `decide_plan` with the plan's id, the feedback and the hash of the version read.
    let window = window_decides(PlanDecision::Reject {
        feedback: "Page by cursor.".into(),
    });
    assert_eq!(window["decision"], "rejected");
    assert_same_facts(&cli, &window);
}
