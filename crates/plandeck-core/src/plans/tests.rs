use super::*;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::sync::mpsc;

use plandeck_testkit::fixtures::{copy_tree, fixture, CLAUDE, GEMINI};

/// A temp home holding the recorded Claude Code and Gemini CLI folders.
pub(crate) fn fixture_home() -> (tempfile::TempDir, Roots) {
    let home = tempfile::tempdir().unwrap();
    copy_tree(&fixture(CLAUDE), &home.path().join(".claude"));
    copy_tree(&fixture(GEMINI), &home.path().join(".gemini"));
    let roots = Roots::under_home(home.path());
    (home, roots)
}

fn by_title<'a>(listing: &'a PlanListing, file: &str) -> &'a PlanSummary {
    listing
        .plans
        .iter()
        .find(|p| p.path.ends_with(file))
        .unwrap_or_else(|| panic!("{file} not listed: {listing:#?}"))
}

#[test]
fn fixture_plans_are_found_and_linked() {
    let (_home, roots) = fixture_home();
    let listing = list(&roots);
    assert!(listing.problems.is_empty(), "{:?}", listing.problems);
    let claude = listing
        .plans
        .iter()
        .filter(|p| p.agent == Agent::Claude)
        .count();
    let gemini = listing
        .plans
        .iter()
        .filter(|p| p.agent == Agent::Gemini)
        .count();
    assert_eq!((claude, gemini), (7, 4), "{listing:#?}");

    let kite = by_title(&listing, "plan-pagination-for-the-wondrous-kite.md");
    assert_eq!(
        kite.session_id.as_deref(),
        Some("5fb53a48-3aab-4a4b-b82c-e42d63b86c9d")
    );
    assert_eq!(kite.project.as_deref(), Some("/home/dev/work/api"));
    assert_eq!(kite.git_branch.as_deref(), Some("master"));
    assert_eq!(kite.title, "Plan: add pagination");
    assert_eq!(kite.state, ReviewState::Unreviewed);
    assert_eq!(kite.id, crate::ids::plan_id(Path::new(&kite.path)));
    assert!(
        kite.updated_at.as_deref().is_some_and(|t| t.ends_with('Z')),
        "{kite:?}"
    );
    assert!(kite.problem.is_none());

    let wt = by_title(&listing, "plan-pagination-in-worktree-fluffy-wozniak.md");
    assert_eq!(wt.git_branch.as_deref(), Some("worktree-demo-wt"));
    assert_eq!(
        wt.session_id.as_deref(),
        Some("fecae38a-0653-4970-8e6f-118f15e00ee0")
    );

    let gem: Vec<_> = listing
        .plans
        .iter()
        .filter(|p| p.agent == Agent::Gemini)
        .collect();
    for g in &gem {
        assert_eq!(
            g.project.as_deref(),
            Some("/home/dev/work/gemproj"),
            "{g:?}"
        );
        let sid = g.session_id.as_deref().unwrap();
        assert!(g.path.contains(sid), "{g:?}");
    }

    // Newest first.
    let times: Vec<_> = listing.plans.iter().map(|p| p.updated_at.clone()).collect();
    let mut sorted = times.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(times, sorted);
}

#[test]
fn plans_directory_subagents_and_extra_folders() {
    let (home, mut roots) = fixture_home();
    // A project seen through a running session, with its own plans folder, and one that escapes.
    let project = home.path().join("work/shop");
    fs::create_dir_all(project.join(".claude")).unwrap();
    fs::create_dir_all(project.join("docs/plans")).unwrap();
    fs::write(
        project.join(".claude/settings.json"),
        r#"{"plansDirectory": "docs/plans"}"#,
    )
    .unwrap();
    fs::write(
        project.join("docs/plans/shop-plan.md"),
        "Intro\n\n## Steps\n",
    )
    .unwrap();
    let outside = home.path().join("outside");
    fs::create_dir_all(&outside).unwrap();
    fs::write(outside.join("secret.md"), "# Not a plan of the project").unwrap();
    fs::write(
        project.join(".claude/settings.local.json"),
        r#"{"plansDirectory": "../../outside"}"#,
    )
    .unwrap();
    fs::write(
        roots.claude.join("sessions/777.json"),
        serde_json::json!({"pid": 777, "sessionId": "s-777", "cwd": project}).to_string(),
    )
    .unwrap();
    // A subagent plan of a fixture session.
    fs::write(
        roots
            .claude
            .join("plans/plan-pagination-for-the-wondrous-kite-agent-a1b2.md"),
        "# Sub",
    )
    .unwrap();
    // An extra folder with a nested plan and a symlink loop.
    let extra = home.path().join("notes");
    fs::create_dir_all(extra.join("deep")).unwrap();
    fs::write(extra.join("deep/mine.md"), "# Mine").unwrap();
    std::os::unix::fs::symlink(&extra, extra.join("deep/loop")).unwrap();
    roots.extra_plan_folders.push(extra.clone());

    let listing = list(&roots);
    assert!(listing.problems.is_empty(), "{:?}", listing.problems);
    let shop = by_title(&listing, "shop-plan.md");
    assert_eq!(shop.title, "Steps");
    assert_eq!(shop.agent, Agent::Claude);
    assert_eq!(shop.project.as_deref(), Some(project.to_str().unwrap()));
    assert!(
        !listing.plans.iter().any(|p| p.path.ends_with("secret.md")),
        "escaping plansDirectory was used"
    );

    let sub = by_title(&listing, "-agent-a1b2.md");
    assert_eq!(sub.subagent_id.as_deref(), Some("a1b2"));
    assert_eq!(
        sub.session_id.as_deref(),
        Some("5fb53a48-3aab-4a4b-b82c-e42d63b86c9d")
    );

    let mine: Vec<_> = listing
        .plans
        .iter()
        .filter(|p| p.path.ends_with("mine.md"))
        .collect();
    assert_eq!(
        mine.len(),
        1,
        "the symlink loop listed a plan twice: {mine:?}"
    );
    assert_eq!(mine[0].agent, Agent::Other);
    assert!(folders(&roots).contains(&project.join("docs/plans").canonicalize().unwrap()));
}

#[test]
fn bad_files_are_listed_with_a_problem_and_refused_by_get() {
    let (_home, roots) = fixture_home();
    let plans = roots.claude.join("plans");
    fs::write(plans.join("binary.md"), b"# x\0\x01\x02").unwrap();
    fs::write(plans.join("latin1.md"), b"# caf\xe9\n").unwrap();
    let big = fs::File::create(plans.join("huge.md")).unwrap();
    big.set_len(50 * 1024 * 1024).unwrap();
    let listing = list(&roots);
    for (file, word) in [
        ("binary.md", "binary"),
        ("latin1.md", "UTF-8"),
        ("huge.md", "too large"),
    ] {
        let p = by_title(&listing, file);
        assert_eq!(p.title, file);
        assert!(
            p.problem.as_deref().is_some_and(|m| m.contains(word)),
            "{p:?}"
        );
        let err: IpcError = get(&roots, &p.id).unwrap_err().into();
        assert_eq!(err.kind, ErrorKind::BadInput, "{err:?}");
        assert!(err.message.contains(word), "{err:?}");
    }
    assert_eq!(by_title(&listing, "huge.md").size_bytes, 50 * 1024 * 1024);
}

#[test]
fn unreadable_folders_are_problems() {
    // Folders that cannot be read by anyone, root included (the tests run as root in CI, and root
    // reads a folder whatever its mode): a symlink loop (ELOOP) and a file where a folder is
    // expected (ENOTDIR).
    let (home, mut roots) = fixture_home();
    let tmp = roots.gemini.join("tmp");
    fs::rename(&tmp, roots.gemini.join("tmp-elsewhere")).unwrap();
    std::os::unix::fs::symlink("tmp", &tmp).unwrap();
    let not_a_folder = home.path().join("notes.txt");
    fs::write(&not_a_folder, "not a folder").unwrap();
    roots.extra_plan_folders.push(not_a_folder);

    let listing = list(&roots);
    let problem = |what: &str| {
        listing
            .problems
            .iter()
            .any(|p| p.starts_with("Cannot read the folder") && p.contains(what))
    };
    assert!(
        problem(&tmp.display().to_string()),
        "{:?}",
        listing.problems
    );
    assert!(problem("notes.txt"), "{:?}", listing.problems);
    // The rest is still listed.
    assert_eq!(
        listing
            .plans
            .iter()
            .filter(|p| p.agent == Agent::Claude)
            .count(),
        7
    );
    assert!(!listing.plans.iter().any(|p| p.agent == Agent::Gemini));
}

#[test]
fn get_renders_and_resolves_ids_and_paths() {
    let (_home, roots) = fixture_home();
    let listing = list(&roots);
    let kite = by_title(&listing, "plan-pagination-for-the-wondrous-kite.md");
    let doc = get(&roots, &kite.id).unwrap();
    assert_eq!(doc.plan, *kite);
    assert!(doc.source.starts_with("# Plan: add pagination"));
    assert!(
        doc.html.contains("<h1 id=\"plan-add-pagination\""),
        "{}",
        doc.html
    );
    assert_eq!(doc.headings[0].text, "Plan: add pagination");
    assert_eq!(get(&roots, &kite.path).unwrap().plan.id, kite.id);
    // Through a path with `..` in it.
    let odd = format!(
        "{}/../plans/{}",
        roots.claude.join("plans").display(),
        Path::new(&kite.path).file_name().unwrap().to_str().unwrap()
    );
    assert_eq!(resolve(&roots, &odd).unwrap(), PathBuf::from(&kite.path));

    fs::remove_file(&kite.path).unwrap();
    let err: IpcError = get(&roots, &kite.path).unwrap_err().into();
    assert_eq!(err.kind, ErrorKind::NotFound);
    assert!(err.message.contains("no longer exists"), "{err:?}");
    let err: IpcError = get(&roots, &kite.id).unwrap_err().into();
    assert_eq!(err.kind, ErrorKind::NotFound, "{err:?}");
}

/// A person may type the start of an id, as of a git commit: a unique one names its plan, one
/// that several ids start with is refused saying so, and the window's id path never takes one.
#[test]
fn a_unique_id_prefix_names_its_plan_and_an_ambiguous_one_is_refused() {
    let (_home, roots) = fixture_home();
    let listing = list(&roots);
    let kite = by_title(&listing, "plan-pagination-for-the-wondrous-kite.md");
    let ids: Vec<&str> = listing.plans.iter().map(|p| p.id.as_str()).collect();
    // The shortest start of kite's id (from 4 digits) no other id shares.
    let unique = (4..12)
        .map(|n| &kite.id[..n])
        .find(|p| ids.iter().filter(|id| id.starts_with(p)).count() == 1)
        .unwrap();
    assert_eq!(resolve(&roots, unique).unwrap(), PathBuf::from(&kite.path));
    assert_eq!(
        resolve(&roots, &unique.to_ascii_uppercase()).unwrap(),
        PathBuf::from(&kite.path)
    );
    // Two plans whose ids start alike (found among made-up names).
    let base = discover::discover(&roots).candidates[0].clone();
    let mut seen = std::collections::HashMap::new();
    let (x, y, start) = (0..100_000)
        .find_map(|n| {
            let p = base.path.with_file_name(format!("p{n}.md"));
            let start = crate::ids::plan_id(&p)[..4].to_owned();
            seen.insert(start.clone(), p.clone())
                .map(|prev| (prev, p, start))
        })
        .unwrap();
    let mut twins = discover::Discovery::default();
    for path in [x, y] {
        let mut c = base.clone();
        c.path = path;
        twins.candidates.push(c);
    }
    let err = resolve_in(&twins, &start).unwrap_err();
    assert!(
        matches!(err, PlanError::Ambiguous { count: 2, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("type more of it"), "{err}");
    // Whatever matches, the window's path takes whole ids only.
    let err: IpcError = resolve_id(&roots, unique).unwrap_err().into();
    assert_eq!(err.kind, ErrorKind::BadInput);
    // Nothing starts so: unknown, with the hint where ids are.
    let none = (0..u16::MAX)
        .map(|n| format!("{n:04x}"))
        .find(|p| !ids.iter().any(|id| id.starts_with(p.as_str())))
        .unwrap();
    let err = resolve(&roots, &none).unwrap_err();
    assert!(err.message.contains("plandeck plans list"), "{err:?}");
}

#[test]
fn the_window_names_plans_by_discovered_id_only() {
    let (home, roots) = fixture_home();
    let listing = list(&roots);
    let kite = by_title(&listing, "plan-pagination-for-the-wondrous-kite.md");
    assert_eq!(
        resolve_id(&roots, &kite.id).unwrap(),
        PathBuf::from(&kite.path)
    );
    assert_eq!(get_by_id(&roots, &kite.id).unwrap().plan, *kite);
    // A path, even of a listed plan, is not an id.
    let outside = home.path().join("secret.md");
    fs::write(&outside, "# not a plan\n").unwrap();
    for not_id in [
        kite.path.as_str(),
        outside.to_str().unwrap(),
        "/etc/passwd",
        "",
        "../x",
    ] {
        let err: IpcError = get_by_id(&roots, not_id).unwrap_err().into();
        assert_eq!(err.kind, ErrorKind::BadInput, "{not_id}: {err:?}");
        let err: IpcError = resolve_id(&roots, not_id).unwrap_err().into();
        assert_eq!(err.kind, ErrorKind::BadInput, "{not_id}: {err:?}");
    }
    // The id of a file discovery does not list is unknown.
    let stray = crate::ids::plan_id(&outside);
    let err: IpcError = get_by_id(&roots, &stray).unwrap_err().into();
    assert_eq!(err.kind, ErrorKind::NotFound, "{err:?}");
}

#[test]
fn search_is_case_insensitive_with_snippets() {
    let (_home, roots) = fixture_home();
    let plans = roots.claude.join("plans");
    fs::write(
        plans.join("zz.md"),
        format!(
            "# Zeta\n\n{}The ÉCLAIR step matters.\n",
            "filler words ".repeat(20)
        ),
    )
    .unwrap();
    let hits = search(&roots, "éclair");
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert!(hits[0].snippet.contains("ÉCLAIR step"), "{hits:?}");
    assert!(hits[0].snippet.starts_with('…'), "{hits:?}");
    assert_eq!(search(&roots, "ZETA").len(), 1);
    assert!(search(&roots, "PAGINATION").len() >= 11);
    assert!(search(&roots, "no such words anywhere").is_empty());
    assert!(search(&roots, "  ").is_empty());
}

#[test]
fn search_snippets_are_plain_text_with_every_hit_marked() {
    let (_home, roots) = fixture_home();
    let plans = roots.claude.join("plans");
    fs::write(
        plans.join("md.md"),
        "# Émigré **plan**\n\n- [ ] Call `fetch_all()` in the [émigré client](https://example.com/x)\n\
         1. Then *ÉMIGRÉ* again\n\n```rust\nlet émigré = 1;\n```\n",
    )
    .unwrap();
    let hits = search(&roots, "émigré");
    assert_eq!(hits.len(), 1, "{hits:?}");
    let hit = &hits[0];
    assert_eq!(
        hit.snippet,
        "Émigré plan Call fetch_all() in the émigré client Then ÉMIGRÉ again let émigré = 1;"
    );
    for md in ["**", "#", "`", "- [", "](", "https://", "1."] {
        assert!(!hit.snippet.contains(md), "{md:?} in {:?}", hit.snippet);
    }
    // Each match, in UTF-16 code units as the window slices it.
    let utf16: Vec<u16> = hit.snippet.encode_utf16().collect();
    let marked: Vec<String> = hit
        .matches
        .iter()
        .map(|m| String::from_utf16(&utf16[m.start as usize..m.end as usize]).unwrap())
        .collect();
    assert_eq!(marked, ["Émigré", "émigré", "ÉMIGRÉ", "émigré"]);

    // Cut text: the ellipsis counts, the matches still land on the query.
    fs::write(
        plans.join("long.md"),
        format!("{}and the **needle** here", "filler words ".repeat(20)),
    )
    .unwrap();
    let hits = search(&roots, "NEEDLE");
    let hit = hits.iter().find(|h| h.snippet.contains("needle")).unwrap();
    assert!(hit.snippet.starts_with('…'), "{hit:?}");
    let m = hit.matches[0];
    let utf16: Vec<u16> = hit.snippet.encode_utf16().collect();
    assert_eq!(
        String::from_utf16(&utf16[m.start as usize..m.end as usize]).unwrap(),
        "needle"
    );
    // Found only in the markdown (a link target): listed, nothing marked.
    let hits = search(&roots, "example.com/x");
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert!(hits[0].matches.is_empty(), "{hits:?}");
}

#[test]
fn first_heading_skips_front_matter_and_code() {
    assert_eq!(
        first_heading("---\ntitle: x\n# no\n---\n```\n# nope\n```\n## Real ##\n").as_deref(),
        Some("Real")
    );
    assert_eq!(
        first_heading("#hashtag\n    # indented code\ntext").as_deref(),
        None
    );
}

#[test]
fn transcript_keys_are_read_from_cut_records() {
    let text = br#"x", "slug": "a-b", "cwd":"/p\"q", "slug" : "c" } {"sessionId":"#;
    assert_eq!(discover::string_values(text, b"\"slug\""), ["a-b", "c"]);
    assert_eq!(discover::string_values(text, b"\"cwd\""), ["/p\"q"]);
    assert!(discover::string_values(text, b"\"sessionId\"").is_empty());
}

/// Waits until a change satisfies `pred`; changes that do not are skipped.
fn wait_for(rx: &mpsc::Receiver<PlansChanged>, what: &str, pred: impl Fn(&PlansChanged) -> bool) {
    plandeck_testkit::wait_for(&format!("a change with {what}"), || {
        rx.try_recv().ok().filter(|c| pred(c))
    });
}

#[test]
fn watch_reports_plan_changes_and_new_folders() {
    let (home, roots) = fixture_home();
    let (tx, rx) = mpsc::channel();
    let _handle = watch(&roots, move |c| {
        let _ = tx.send(c);
    })
    .unwrap();
    let has = |p: &Path| {
        let p = p.display().to_string();
        move |c: &PlansChanged| c.paths.contains(&p)
    };
    let plans = roots.claude.join("plans");
    let a = plans.join("new-plan.md");
    fs::write(&a, "# New").unwrap();
    wait_for(&rx, "create", has(&a));
    fs::write(&a, "# New, changed").unwrap();
    wait_for(&rx, "modify", has(&a));
    let b = plans.join("renamed-plan.md");
    fs::rename(&a, &b).unwrap();
    wait_for(&rx, "rename", has(&b));
    fs::remove_file(&b).unwrap();
    wait_for(&rx, "delete", has(&b));

    // Transcript appends are not plan changes.
    let transcript = roots
        .claude
        .join("projects/-home-dev-work-api/5fb53a48-3aab-4a4b-b82c-e42d63b86c9d.jsonl");
    let mut text = fs::read_to_string(&transcript).unwrap();
    text.push_str("{\"type\":\"user\"}\n");
    fs::write(&transcript, text).unwrap();

    // A new Gemini session folder.
    let g = roots
        .gemini
        .join("tmp/gemproj/0000aaaa-new-session/plans/p.md");
    fs::create_dir_all(g.parent().unwrap()).unwrap();
    fs::write(&g, "# G").unwrap();
    wait_for(&rx, "a plan in a new Gemini session", has(&g));

    // A new project with its own plans folder, announced by a session file.
    let project = home.path().join("work/newproj");
    fs::create_dir_all(project.join(".claude")).unwrap();
    fs::create_dir_all(project.join("plans-here")).unwrap();
    fs::write(
        project.join(".claude/settings.json"),
        r#"{"plansDirectory":"plans-here"}"#,
    )
    .unwrap();
    let p = project
        .join("plans-here/first.md")
        .canonicalize()
        .unwrap_or(project.canonicalize().unwrap().join("plans-here/first.md"));
    fs::write(&p, "# First").unwrap();
    fs::write(
        roots.claude.join("sessions/4242.json"),
        serde_json::json!({"cwd": project}).to_string(),
    )
    .unwrap();
    wait_for(&rx, "a plan in a new project's plansDirectory", has(&p));
    let second = p.with_file_name("second.md");
    fs::write(&second, "# Second").unwrap();
    wait_for(&rx, "a second plan there", has(&second));

    // A folder created later where no folder was: a brand-new Claude plans folder.
    fs::remove_dir_all(&plans).unwrap();
    fs::create_dir_all(&plans).unwrap();
    let c = plans.join("after.md");
    fs::write(&c, "# After").unwrap();
    wait_for(&rx, "a plan in the re-created plans folder", has(&c));
}

const KITE_TRANSCRIPT: &str =
    "projects/-home-dev-work-api/5fb53a48-3aab-4a4b-b82c-e42d63b86c9d.jsonl";

/// Every candidate's links, by path, to compare two discoveries.
fn links_of(found: &discover::Discovery) -> Vec<String> {
    let mut out: Vec<String> = found
        .candidates
        .iter()
        .map(|c| {
            format!(
                "{} {:?} {:?} {:?}",
                c.path.display(),
                c.session_id,
                c.project,
                c.git_branch
            )
        })
        .collect();
    out.sort();
    out
}

fn kite_branch(found: &discover::Discovery) -> Option<String> {
    found
        .candidates
        .iter()
        .find(|c| c.path.ends_with("plan-pagination-for-the-wondrous-kite.md"))
        .and_then(|c| c.git_branch.clone())
}

#[test]
fn transcript_links_are_stored_and_read_again_only_when_a_transcript_changes() {
    let (_home, roots) = fixture_home();
    let first = discover::discover(&roots);
    let transcripts = first.transcripts_read;
    assert!(transcripts >= 3, "{transcripts}");
    let stored = discover::links_path(&roots.data);
    let mode = fs::metadata(&stored).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the links hold project paths: private");

    // Nothing changed: no transcript is read, the links are the same.
    let second = discover::discover(&roots);
    assert_eq!(second.transcripts_read, 0);
    assert_eq!(links_of(&second), links_of(&first));
    assert_eq!(kite_branch(&second).as_deref(), Some("master"));

    // A record appended: that transcript alone is read again, and its new branch links.
    let transcript = roots.claude.join(KITE_TRANSCRIPT);
    let mut text = fs::read_to_string(&transcript).unwrap();
    let appended = "{\"type\":\"user\",\"sessionId\":\"5fb53a48-3aab-4a4b-b82c-e42d63b86c9d\",\"gitBranch\":\"feature-x\"}\n";
    text.push_str(appended);
    fs::write(&transcript, &text).unwrap();
    let third = discover::discover(&roots);
    assert_eq!(third.transcripts_read, 1);
    assert_eq!(kite_branch(&third).as_deref(), Some("feature-x"));

    // Replaced by another file of the same size and mtime: its identity differs, so it is read.
    let mtime = fs::metadata(&transcript).unwrap().modified().unwrap();
    let replaced = text
        .replace("feature-x", "feature-y")
        .replace("\"gitBranch\": \"master\"", "\"gitBranch\": \"stable\"");
    assert_eq!(replaced.len(), text.len());
    let temp = transcript.with_extension("tmp");
    fs::write(&temp, replaced).unwrap();
    fs::File::options()
        .write(true)
        .open(&temp)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    fs::rename(&temp, &transcript).unwrap();
    let fourth = discover::discover(&roots);
    assert_eq!(fourth.transcripts_read, 1);
    assert_eq!(kite_branch(&fourth).as_deref(), Some("feature-y"));

    // A transcript removed is dropped from the links.
    fs::remove_file(&transcript).unwrap();
    let fifth = discover::discover(&roots);
    assert_eq!(fifth.transcripts_read, 0);
    let kept = fs::read_to_string(&stored).unwrap();
    assert!(!kept.contains("5fb53a48-3aab-4a4b-b82c-e42d63b86c9d.jsonl"));
}

#[test]
fn damaged_transcript_links_are_rebuilt_from_the_transcripts() {
    let (_home, roots) = fixture_home();
    let fresh = discover::discover(&roots);
    let stored = discover::links_path(&roots.data);
    for damage in [
        &b"{\"version\":1,\"files\":{\"/x\": 12"[..],
        b"\x00\xff not json",
        b"{\"version\":99,\"files\":{}}",
    ] {
        fs::write(&stored, damage).unwrap();
        let again = discover::discover(&roots);
        assert_eq!(again.transcripts_read, fresh.transcripts_read, "{damage:?}");
        assert_eq!(links_of(&again), links_of(&fresh));
        assert!(again.problems.is_empty(), "{:?}", again.problems);
        // Written again whole: the next listing reads nothing.
        assert_eq!(discover::discover(&roots).transcripts_read, 0);
    }
}

/// The first frame's rows (issue 34): the newest plans of the whole listing, in its order, with
/// its problems and how many it holds, read from only that many files.
#[test]
fn the_newest_plans_are_the_listings_first_rows_with_its_count() {
    let (home, roots) = fixture_home();
    // Times apart and some equal (the path breaks the tie, as in the listing), one unreadable.
    let plans = home.path().join(".claude/plans");
    let now = std::time::SystemTime::now();
    for (i, e) in fs::read_dir(&plans).unwrap().flatten().enumerate() {
        let t = now - std::time::Duration::from_secs(60 * (i as u64 / 2));
        fs::File::options()
            .write(true)
            .open(e.path())
            .unwrap()
            .set_modified(t)
            .unwrap();
    }
    let all = list(&roots);
    assert!(all.plans.len() > 5, "{all:#?}");
    for n in [0, 1, 3, all.plans.len(), all.plans.len() + 10] {
        let (first, total) = list_newest(&roots, n);
        assert_eq!(total, all.plans.len());
        let ids = |l: &PlanListing| l.plans.iter().map(|p| p.id.clone()).collect::<Vec<_>>();
        let want: Vec<String> = ids(&all).into_iter().take(n).collect();
        assert_eq!(ids(&first), want, "the {n} newest");
        assert_eq!(first.problems, all.problems);
        assert_eq!(first.plans, all.plans[..first.plans.len()].to_vec());
    }
}
