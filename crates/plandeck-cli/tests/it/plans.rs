//! `plandeck plans …` run in-process over temp homes built from the recorded agent folders.

use crate::common;
use common::plandeck;
use plandeck_testkit::fixtures::{copy_tree, fixture, CLAUDE, GEMINI};

use std::fs;

fn home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    copy_tree(&fixture(CLAUDE), &home.path().join(".claude"));
    copy_tree(&fixture(GEMINI), &home.path().join(".gemini"));
    home
}

#[test]
fn list_json_is_the_contract() {
    let home = home();
    let (code, out, err) = plandeck(home.path(), &["plans", "list", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let plans = v.as_array().unwrap();
    assert_eq!(plans.len(), 11);
    for p in plans {
        for key in [
            "id",
            "path",
            "agent",
            "title",
            "project",
            "sessionId",
            "state",
            "updatedAt",
        ] {
            assert!(p.get(key).is_some(), "{key} missing in {p}");
        }
        assert!(
            ["claude", "gemini", "other"].contains(&p["agent"].as_str().unwrap()),
            "{p}"
        );
        // Nothing was decided in Plandeck: a state other than unreviewed is the agent's own
        // record, and says where (see history.rs for each case).
        if p["state"] == "unreviewed" {
            assert!(p["decidedIn"].is_null(), "{p}");
        } else {
            assert!(
                ["terminal", "hook"].contains(&p["decidedIn"].as_str().unwrap()),
                "{p}"
            );
        }
    }
    let kite = plans
        .iter()
        .find(|p| p["path"].as_str().unwrap().ends_with("wondrous-kite.md"))
        .unwrap();
    assert_eq!(kite["sessionId"], "5fb53a48-3aab-4a4b-b82c-e42d63b86c9d");
    assert_eq!(kite["project"], "/home/dev/work/api");
    assert_eq!(kite["title"], "Plan: add pagination");
}

#[test]
fn list_text_is_a_table() {
    let home = home();
    let (code, out, _) = plandeck(home.path(), &["plans", "list"]);
    assert_eq!(code, 0);
    let lines: Vec<_> = out.lines().collect();
    assert!(
        lines[0].starts_with("ID") && lines[0].contains("TITLE"),
        "{out}"
    );
    assert_eq!(lines.len(), 1 + 11 + 1, "{out}");
    assert!(
        out.contains("Plan: add pagination") && out.contains("gemini"),
        "{out}"
    );
    assert!(out.ends_with("11 plans\n"), "{out}");

    let empty = tempfile::tempdir().unwrap();
    let (code, out, _) = plandeck(empty.path(), &["plans", "list"]);
    assert_eq!(code, 0);
    assert!(out.contains("No plans found"), "{out}");
}

#[test]
fn show_prints_html_md_and_json() {
    let home = home();
    let plan = home.path().join(".claude/plans/hostile.md");
    fs::write(&plan, "# Hostile\n\n<script>alert(1)</script>\n\n[x](javascript:alert(1))\n\n<img src=x onerror=alert(1)>\n").unwrap();
    let (_, out, _) = plandeck(home.path(), &["plans", "list", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let id = v
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["title"] == "Hostile")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();

    let (code, html, _) = plandeck(home.path(), &["plans", "show", &id, "--html"]);
    assert_eq!(code, 0);
    assert!(
        html.contains("<h1 id=\"hostile\" data-src=\"0-9\">Hostile</h1>"),
        "{html}"
    );
    // No tag the HTML holds is dangerous (text is escaped, so `<` starts only tags).
    for tag in html
        .split('<')
        .skip(1)
        .map(|t| t.split('>').next().unwrap_or(""))
    {
        for bad in ["script", "img", "javascript:", "onerror"] {
            assert!(!tag.contains(bad), "{bad} in <{tag}> in {html}");
        }
    }
    // What the plan holds is shown as written, inert, not dropped.
    assert!(
        html.contains("&lt;script&gt;alert(1)&lt;/script&gt;")
            && html.contains("&lt;img src=x onerror=alert(1)&gt;"),
        "{html}"
    );
    let (code, md, _) = plandeck(
        home.path(),
        &["plans", "show", plan.to_str().unwrap(), "--md"],
    );
    assert_eq!(code, 0);
    assert_eq!(md, fs::read_to_string(&plan).unwrap());
    let (code, json, _) = plandeck(home.path(), &["plans", "show", &id, "--json"]);
    assert_eq!(code, 0);
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(doc["plan"]["id"], id.as_str());
    assert_eq!(doc["headings"][0]["id"], "hostile");
    assert!(doc["source"].as_str().unwrap().contains("<script>"));
}

#[test]
fn show_errors_are_clear() {
    let home = home();
    let (code, out, err) = plandeck(home.path(), &["plans", "show", "0123456789ab", "--json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["error"]["kind"], "notFound");
    assert!(err.contains("0123456789ab"), "{err}");

    let bin = home.path().join(".claude/plans/bin.md");
    fs::write(&bin, b"\0\0\0binary").unwrap();
    let (code, _, err) = plandeck(
        home.path(),
        &["plans", "show", bin.to_str().unwrap(), "--html"],
    );
    assert_eq!(code, 2);
    assert!(err.contains("binary"), "{err}");
}

#[test]
fn plans_and_sessions_with_no_subcommand_list() {
    let tmp = tempfile::tempdir().unwrap();
    let (code, bare, err) = common::plandeck(tmp.path(), &["plans", "--json"]);
    assert_eq!(code, 0, "{err}");
    let (_, listed, _) = common::plandeck(tmp.path(), &["plans", "list", "--json"]);
    assert_eq!(bare, listed);
    let (code, bare, err) = common::plandeck(tmp.path(), &["sessions"]);
    assert_eq!(code, 0, "{err}");
    let (_, listed, _) = common::plandeck(tmp.path(), &["sessions", "list"]);
    assert_eq!(bare, listed);
}
