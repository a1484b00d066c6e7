//! The approved plan's steps and what each names.
//!
//! Steps are the top-level items of every list (numbered, bulleted, task-list) and the "Step N"
//! headings; nested items, and the paragraphs and lists under a "Step N" heading, belong to their
//! step. What a step names: paths and file names (in code spans or plain text), and, in code spans,
//! commands (`cargo test`) and symbols (`paginate`, `Cursor::next`).

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};

use super::NameKind;
use crate::shell::{program_name, simple_commands, Word};

/// The longest step text kept (characters).
const MAX_TEXT: usize = 300;

/// One step as the plan's text gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// 1-based line in the text.
    pub line: u32,
    /// The step's own text (its first paragraph or heading), on one line.
    pub text: String,
    /// Everything the step names, in order, without duplicates.
    pub names: Vec<(NameKind, String)>,
    /// It speaks of tests (a test command, or the word "test").
    pub test: bool,
}

struct Open {
    line: u32,
    text: String,
    /// All text of the step (nested items included), for "test" and plain-text paths.
    all_text: String,
    spans: Vec<String>,
    /// Still reading the step's own text (its first block).
    own: bool,
    heading_level: Option<HeadingLevel>,
}

/// The steps of `plan`. The "Reviewer notes" an approval with comments appended to the plan
/// ([`crate::comments::feedback::without_notes`]) are the reviewer's questions: never steps, and
/// nothing they name belongs to a step (issue 34).
pub fn parse(plan: &str) -> Vec<Step> {
    let plan = crate::comments::feedback::without_notes(plan);
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(plan.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let line_of = |offset: usize| -> u32 {
        let idx = line_starts.partition_point(|&s| s <= offset);
        u32::try_from(idx).unwrap_or(u32::MAX)
    };
    let mut steps: Vec<Step> = Vec::new();
    let mut open: Option<Open> = None;
    // Depth of lists and of the list item that opened the current step.
    let mut list_depth = 0usize;
    let mut step_item_depth: Option<usize> = None;
    let mut in_heading: Option<(HeadingLevel, usize, String)> = None;
    let mut in_code_block = false;
    // Lists under a "Context", "Notes", "Risks"… heading describe, they are not steps.
    let mut context_section: Option<HeadingLevel> = None;

    let finish = |open: &mut Option<Open>, steps: &mut Vec<Step>| {
        if let Some(o) = open.take() {
            steps.push(build(o));
        }
    };

    let opts = Options::ENABLE_TASKLISTS | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TABLES;
    for (event, range) in Parser::new_ext(plan, opts).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                in_heading = Some((level, range.start, String::new()));
            }
            Event::End(TagEnd::Heading(level)) => {
                let Some((_, start, text)) = in_heading.take() else {
                    continue;
                };
                let text = one_line(&text);
                if context_section.is_some_and(|l| level <= l) {
                    context_section = None;
                }
                if is_context_heading(&text) {
                    context_section = Some(level);
                }
                // A heading at or above the open step heading's level closes it.
                if let Some(o) = &open {
                    if o.heading_level.is_some_and(|l| level <= l) {
                        finish(&mut open, &mut steps);
                    }
                }
                if is_step_heading(&text) && step_item_depth.is_none() {
                    finish(&mut open, &mut steps);
                    open = Some(Open {
                        line: line_of(start),
                        all_text: text.clone(),
                        spans: heading_spans(plan, range.clone()),
                        text,
                        own: false,
                        heading_level: Some(level),
                    });
                }
            }
            Event::Start(Tag::List(_)) => list_depth += 1,
            Event::End(TagEnd::List(_)) => list_depth = list_depth.saturating_sub(1),
            Event::Start(Tag::Item) => {
                let inside_heading_step = open.as_ref().is_some_and(|o| o.heading_level.is_some());
                if step_item_depth.is_none()
                    && list_depth == 1
                    && !inside_heading_step
                    && context_section.is_none()
                {
                    finish(&mut open, &mut steps);
                    open = Some(Open {
                        line: line_of(range.start),
                        text: String::new(),
                        all_text: String::new(),
                        spans: Vec::new(),
                        own: true,
                        heading_level: None,
                    });
                    step_item_depth = Some(list_depth);
                } else if let Some(o) = &mut open {
                    // A nested item: the step's own text ends here.
                    o.own = false;
                    o.all_text.push(' ');
                }
            }
            Event::End(TagEnd::Item) if step_item_depth == Some(list_depth) => {
                step_item_depth = None;
                finish(&mut open, &mut steps);
            }
            Event::End(TagEnd::Paragraph) => {
                if let Some(o) = &mut open {
                    if !o.text.trim().is_empty() {
                        o.own = false;
                    }
                    o.all_text.push(' ');
                }
            }
            Event::Start(Tag::CodeBlock(_)) => in_code_block = true,
            Event::End(TagEnd::CodeBlock) => in_code_block = false,
            Event::Text(t) => {
                if let Some((_, _, h)) = &mut in_heading {
                    h.push_str(&t);
                } else if let Some(o) = &mut open {
                    if in_code_block {
                        // A fenced command under a step: each line may be a command.
                        for l in t.lines() {
                            let l = l.trim().trim_start_matches("$ ");
                            if !l.is_empty() && looks_like_command(l) {
                                o.spans.push(l.to_owned());
                            }
                        }
                    } else {
                        if o.own {
                            o.text.push_str(&t);
                        }
                        o.all_text.push_str(&t);
                    }
                }
            }
            Event::Code(c) => {
                if let Some((_, _, h)) = &mut in_heading {
                    h.push_str(&c);
                } else if let Some(o) = &mut open {
                    if o.own {
                        o.text.push('`');
                        o.text.push_str(&c);
                        o.text.push('`');
                    }
                    o.all_text.push(' ');
                    o.spans.push(c.to_string());
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some((_, _, h)) = &mut in_heading {
                    h.push(' ');
                } else if let Some(o) = &mut open {
                    if o.own {
                        o.text.push(' ');
                    }
                    o.all_text.push(' ');
                }
            }
            Event::TaskListMarker(done) => {
                if let Some(o) = &mut open {
                    if o.own && o.text.is_empty() {
                        o.text.push_str(if done { "[x] " } else { "[ ] " });
                    }
                }
            }
            _ => {}
        }
    }
    finish(&mut open, &mut steps);
    steps
}

/// Code spans in a heading's source (the heading's own events give the text only).
fn heading_spans(plan: &str, range: std::ops::Range<usize>) -> Vec<String> {
    let src = plan.get(range).unwrap_or("");
    src.split('`')
        .enumerate()
        .filter(|(i, s)| i % 2 == 1 && !s.trim().is_empty())
        .map(|(_, s)| s.trim().to_owned())
        .collect()
}

fn build(o: Open) -> Step {
    let mut names: Vec<(NameKind, String)> = Vec::new();
    let mut push = |kind: NameKind, value: String| {
        if !names.iter().any(|(k, v)| *k == kind && *v == value) {
            names.push((kind, value));
        }
    };
    for span in &o.spans {
        if let Some((kind, value)) = classify_span(span) {
            push(kind, value);
        }
    }
    for word in o.all_text.split_whitespace() {
        let w = word.trim_matches(|c: char| {
            matches!(
                c,
                ',' | ';' | ':' | '(' | ')' | '"' | '\'' | '*' | '_' | '[' | ']' | '<' | '>'
            )
        });
        let w = w.trim_end_matches('.');
        if looks_like_path(w) {
            push(NameKind::Path, normalize_path(w));
        }
    }
    let lower = o.all_text.to_lowercase();
    let test = names
        .iter()
        .any(|(k, v)| *k == NameKind::Command && is_test_command(v))
        || lower
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| matches!(w, "test" | "tests" | "testing" | "spec" | "specs"));
    let mut text = one_line(&o.text);
    if text.is_empty() {
        text = one_line(&o.all_text);
    }
    if text.chars().count() > MAX_TEXT {
        text = text.chars().take(MAX_TEXT - 1).collect::<String>() + "…";
    }
    Step {
        line: o.line,
        text,
        names,
        test,
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A section that describes rather than plans: its lists are not steps.
fn is_context_heading(text: &str) -> bool {
    let lower = text.to_lowercase();
    let first = lower
        .trim_start_matches(|c: char| !c.is_alphabetic())
        .split(|c: char| !c.is_alphanumeric() && c != '-')
        .next()
        .unwrap_or("");
    matches!(
        first,
        "context"
            | "background"
            | "notes"
            | "note"
            | "risks"
            | "risk"
            | "assumptions"
            | "references"
            | "alternatives"
            | "non-goals"
            | "out"
            | "open"
            | "questions"
            | "summary"
            | "overview"
            | "current"
            | "problem"
            | "goals"
    ) && !lower.contains("step")
}

/// "Step 3", "Step 3: …", "3. Step three" is not one (it is a list item already).
fn is_step_heading(text: &str) -> bool {
    let lower = text.to_lowercase();
    let Some(rest) = lower.strip_prefix("step") else {
        return false;
    };
    let rest = rest.trim_start();
    rest.chars().next().is_some_and(|c| c.is_ascii_digit())
}

/// What a code span names, if anything.
pub fn classify_span(span: &str) -> Option<(NameKind, String)> {
    let s = span.trim();
    if s.is_empty() || s.chars().count() > 200 {
        return None;
    }
    if s.contains(char::is_whitespace) {
        if looks_like_command(s) {
            return Some((NameKind::Command, one_line(s)));
        }
        return None;
    }
    if looks_like_path(s) {
        return Some((NameKind::Path, normalize_path(s)));
    }
    if looks_like_command(s) {
        return Some((NameKind::Command, s.to_owned()));
    }
    let sym = s.trim_end_matches("()").trim_end_matches(';');
    let sym = sym.rsplit("::").next().unwrap_or(sym);
    let sym = sym.rsplit('.').next().unwrap_or(sym);
    if sym.chars().count() >= 2
        && sym
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
        && sym.chars().any(|c| c.is_alphabetic())
    {
        return Some((NameKind::Symbol, sym.to_owned()));
    }
    None
}

const COMMANDS: &[&str] = &[
    "cargo",
    "npm",
    "npx",
    "pnpm",
    "yarn",
    "node",
    "python",
    "python3",
    "pytest",
    "go",
    "make",
    "git",
    "bash",
    "sh",
    "just",
    "deno",
    "bun",
    "tox",
    "mvn",
    "gradle",
    "./gradlew",
    "dotnet",
    "rake",
    "bundle",
    "jest",
    "vitest",
    "mix",
    "ruby",
    "php",
    "composer",
    "docker",
    "kubectl",
    "rustc",
    "rspec",
    "phpunit",
    "ctest",
    "cmake",
    "nox",
    "uv",
    "poetry",
    "pip",
    "swift",
];

/// A shell command (its first word is a known tool, or a script path `./x`).
pub fn looks_like_command(s: &str) -> bool {
    let first = s.split_whitespace().next().unwrap_or("");
    first.starts_with("./") && !first.ends_with('/') || COMMANDS.contains(&first)
}

const EXTENSIONS: &[&str] = &[
    "rs", "ts", "tsx", "js", "jsx", "mjs", "cjs", "py", "go", "rb", "java", "kt", "kts", "c", "h",
    "cc", "cpp", "hpp", "cs", "swift", "m", "md", "json", "jsonl", "toml", "yaml", "yml", "txt",
    "html", "css", "scss", "svelte", "vue", "sh", "bash", "sql", "lock", "xml", "ini", "cfg",
    "conf", "proto", "graphql", "gql", "php", "ex", "exs", "erl", "hs", "ml", "scala", "lua",
    "dart", "r", "pl", "csv", "svg", "png", "env", "gradle", "tf", "nix", "zig", "mdx", "rst",
];
const BARE_FILES: &[&str] = &[
    "Makefile",
    "Dockerfile",
    "Justfile",
    "Cargo.toml",
    "LICENSE",
    "README",
    "CHANGELOG",
    "Gemfile",
    "Rakefile",
    "Procfile",
];

/// A path or a file name: has a known extension, or a `/` between name parts, or is a well-known
/// bare file name. URLs and `a/b` prose ("and/or") are not.
pub fn looks_like_path(s: &str) -> bool {
    if s.is_empty() || s.len() > 400 || s.contains("://") || s.starts_with('-') {
        return false;
    }
    if !s
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '/' | '.' | '_' | '-' | '~' | '@' | '+'))
    {
        return false;
    }
    if BARE_FILES.contains(&s) {
        return true;
    }
    let name = s.trim_end_matches('/').rsplit('/').next().unwrap_or(s);
    if let Some((stem, ext)) = name.rsplit_once('.') {
        if !stem.is_empty() && EXTENSIONS.contains(&ext) {
            return true;
        }
        // `.gitignore`, `.env`: a dotfile.
        if stem.is_empty() && ext.len() >= 2 && s == name {
            return ext.chars().all(|c| c.is_ascii_lowercase());
        }
    }
    // A folder or an extension-less file under one: `src/`, `src/api/`, `scripts/run`.
    let parts: Vec<&str> = s.trim_matches('/').split('/').collect();
    (s.ends_with('/') && parts.iter().all(|p| !p.is_empty()) && s.len() > 2)
        || (parts.len() >= 2
            && parts.iter().all(|p| !p.is_empty())
            && (s.starts_with("./")
                || s.starts_with('/')
                || parts
                    .iter()
                    .any(|p| p.contains(['.', '_', '-']) || p.chars().any(|c| c.is_ascii_digit()))
                || parts[0] == "src"
                || parts[0] == "tests"
                || parts[0] == "lib"))
}

fn normalize_path(s: &str) -> String {
    s.strip_prefix("./").unwrap_or(s).to_owned()
}

/// Words that make a command describe, list or rehearse what it would do instead of doing it:
/// `cargo test --no-run` builds the tests and runs none, `pytest --collect-only` lists them.
const NOT_RUNNING: &[&str] = &[
    "--help",
    "--version",
    "--dry-run",
    "--no-run",
    "--list",
    "--list-tests",
    "--listtests",
    "--collect-only",
    "--co",
];

/// Whether a simple command's arguments say it does not really run (`--no-run`, `--help`…),
/// leaving out the words the plan itself named (`cargo test --list` named is `--list` run).
fn does_not_run(argv: &[Word], named: &[Word]) -> bool {
    argv.iter().skip(1).any(|w| {
        let lower = w.text.to_lowercase();
        let word = lower.split_once('=').map_or(lower.as_str(), |(k, _)| k);
        NOT_RUNNING.contains(&word) && !named.iter().any(|n| n.text.eq_ignore_ascii_case(&w.text))
    })
}

/// Two program words name the same program: `./scripts/test.sh` is `scripts/test.sh`.
fn same_program(a: &str, b: &str) -> bool {
    a.strip_prefix("./").unwrap_or(a) == b.strip_prefix("./").unwrap_or(b)
}

/// Whether the shell command `ran` (as the agent ran it) runs the command a plan names: each
/// simple command of `named` is, word for word, the start of a simple command `ran` runs (split
/// as `sh` splits: `echo "cargo test"` runs `echo`, never `cargo test`; `cd api && cargo test
/// -p x` runs `cargo test`), and that command does not only describe itself (`--no-run`,
/// `--help`, `--list`). A plan's command `sh` could not read matches only itself, exactly.
pub fn runs_named_command(ran: &str, named: &str) -> bool {
    let wanted = simple_commands(named);
    if wanted.is_empty() {
        return !named.trim().is_empty() && ran.trim() == named.trim();
    }
    let runs = simple_commands(ran);
    wanted.iter().all(|want| {
        runs.iter().any(|argv| {
            argv.len() >= want.len()
                && same_program(&argv[0].text, &want[0].text)
                && argv[1..want.len()]
                    .iter()
                    .zip(&want[1..])
                    .all(|(a, w)| a.text == w.text)
                && !does_not_run(argv, want)
        })
    })
}

/// A command that runs tests: a simple command (split as `sh` splits, at `;`, `&&`, `||`, `|`,
/// with assignments and `sudo`/`time`/`env` taken off) whose program is a known tool or a test
/// runner, with a test word among its arguments (`cargo test`, `npm run test:unit`, `python -m
/// pytest`, `node --test`). Quoted text (a commit message, `echo "cargo test"`) does not count,
/// nor a run that only builds, lists or describes the tests (`--no-run`, `--list`, `--help`).
pub fn is_test_command(cmd: &str) -> bool {
    simple_commands(cmd).iter().any(|argv| {
        let Some(first) = argv.first() else {
            return false;
        };
        let first_lower = first.text.to_lowercase();
        let program = program_name(&first_lower);
        let runner = |w: &str| {
            matches!(
                w,
                "pytest"
                    | "jest"
                    | "vitest"
                    | "nextest"
                    | "rspec"
                    | "phpunit"
                    | "ctest"
                    | "tox"
                    | "nox"
                    | "mocha"
                    | "ava"
            )
        };
        let testy = |w: &str| {
            runner(w)
                || matches!(w, "test" | "tests" | "--test" | "-test")
                || w.starts_with("test:")
                || w.ends_with("_test.go")
                || w.ends_with("_test.py")
                || w.ends_with(".test.mjs")
                || w.ends_with(".test.js")
                || w.ends_with(".test.ts")
        };
        // Words a person typed as text (quoted) are not subcommands; git runs no tests.
        let words: Vec<String> = argv[1..]
            .iter()
            .filter(|w| !w.quoted)
            .map(|w| w.text.to_lowercase())
            .collect();
        program != "git"
            && !does_not_run(argv, &[])
            && (runner(program)
                || ((COMMANDS.contains(&first_lower.as_str())
                    || COMMANDS.contains(&program)
                    || first_lower.starts_with("./"))
                    && words.iter().any(|w| testy(w))))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(step: &Step) -> Vec<(NameKind, &str)> {
        step.names.iter().map(|(k, v)| (*k, v.as_str())).collect()
    }

    #[test]
    fn numbered_bulleted_task_items_and_nested_ones() {
        let plan = "# Plan\n\nIntro with `ignored` code.\n\n1. Add `page` to `src/api.rs`\n   - also touch docs/api.md\n2. Run `cargo test`\n\n- [ ] Update README.md\n- [x] Bump Cargo.toml\n";
        let steps = parse(plan);
        assert_eq!(steps.len(), 4, "{steps:#?}");
        assert_eq!(steps[0].line, 5);
        assert_eq!(steps[0].text, "Add `page` to `src/api.rs`");
        assert_eq!(
            names(&steps[0]),
            vec![
                (NameKind::Symbol, "page"),
                (NameKind::Path, "src/api.rs"),
                (NameKind::Path, "docs/api.md")
            ]
        );
        assert_eq!(names(&steps[1]), vec![(NameKind::Command, "cargo test")]);
        assert!(steps[1].test);
        assert!(!steps[0].test);
        assert_eq!(steps[2].text, "[ ] Update README.md");
        assert_eq!(names(&steps[2]), vec![(NameKind::Path, "README.md")]);
        assert_eq!(names(&steps[3]), vec![(NameKind::Path, "Cargo.toml")]);
    }

    #[test]
    fn reviewer_notes_are_never_steps() {
        let notes = crate::comments::feedback::NOTES_HEADING;
        let plan = format!(
            "# Plan\n\n1. Add `page` to `src/api.rs`\n2. Run `cargo test`\n\n## Step 3\n\nEdit `x.rs`\n\n{notes}\n\n1. On \"Run `cargo test`\":\n   and `cargo clippy`?\n"
        );
        let steps = parse(&plan);
        assert_eq!(
            steps.iter().map(|s| s.text.as_str()).collect::<Vec<_>>(),
            ["Add `page` to `src/api.rs`", "Run `cargo test`", "Step 3"],
            "{steps:#?}"
        );
        assert_eq!(names(&steps[2]), vec![(NameKind::Path, "x.rs")]);
        // Under a step heading of the first level, the notes' names are not the step's.
        let plan = format!(
            "# Step 1\n\nEdit `x.rs`\n\n{notes}\n\n1. On \"Edit `x.rs`\":\n   and `y.rs`, run `cargo clippy`?\n"
        );
        let steps = parse(&plan);
        assert_eq!(steps.len(), 1, "{steps:#?}");
        assert_eq!(names(&steps[0]), vec![(NameKind::Path, "x.rs")]);
        // A person's own "Reviewer notes" with steps in it are steps.
        let steps = parse("# Plan\n\n## Reviewer notes\n\n1. Ask Sam about `api.rs`\n");
        assert_eq!(steps.len(), 1, "{steps:#?}");
    }

    #[test]
    fn step_headings_own_their_content() {
        let plan = "# Plan\n\n## Step 1: the API\n\nEdit `src/api.rs`:\n\n- add `paginate`\n- add `Cursor`\n\n## Step 2\n\n```sh\nnpm test\n```\n\n## Cleanup\n\n- a list item after the step headings: `x.rs`\n";
        let steps = parse(plan);
        assert_eq!(steps.len(), 3, "{steps:#?}");
        assert_eq!(steps[0].text, "Step 1: the API");
        assert_eq!(
            names(&steps[0]),
            vec![
                (NameKind::Path, "src/api.rs"),
                (NameKind::Symbol, "paginate"),
                (NameKind::Symbol, "Cursor")
            ]
        );
        assert_eq!(names(&steps[1]), vec![(NameKind::Command, "npm test")]);
        assert!(steps[1].test);
        assert_eq!(names(&steps[2]), vec![(NameKind::Path, "x.rs")]);
    }

    #[test]
    fn lists_under_context_headings_are_not_steps() {
        let plan = "# Plan\n\n## Context\n\n- The handler is in `src/api.rs`\n- It is slow\n\n## Steps\n\n1. Add `paginate` to src/api.rs\n2. Test it\n\n## Risks\n\n- src/db.rs may need care\n\n### Out of scope\n\n- caching\n";
        let steps = parse(plan);
        let texts: Vec<&str> = steps.iter().map(|s| s.text.as_str()).collect();
        assert_eq!(texts, vec!["Add `paginate` to src/api.rs", "Test it"]);
    }

    #[test]
    fn no_list_gives_no_steps_and_prose_names_nothing() {
        assert!(parse("# Plan\n\nJust prose, and/or more prose.\n").is_empty());
        let steps = parse("1. Make it faster and/or nicer\n");
        assert!(steps[0].names.is_empty());
        assert!(parse("").is_empty());
    }

    #[test]
    fn classify() {
        assert_eq!(
            classify_span("Cursor::next()"),
            Some((NameKind::Symbol, "next".into()))
        );
        assert_eq!(
            classify_span("./scripts/check.sh"),
            Some((NameKind::Path, "scripts/check.sh".into()))
        );
        assert_eq!(
            classify_span("pytest"),
            Some((NameKind::Command, "pytest".into()))
        );
        assert_eq!(classify_span("a b c"), None);
        assert!(looks_like_path("/etc/hosts.conf"));
        assert!(!looks_like_path("https://x.y/z.md"));
        assert!(!looks_like_path("and/or"));
        assert!(is_test_command("cargo test -p x"));
        assert!(is_test_command("cd api && npm test"));
        assert!(is_test_command("python -m pytest -q"));
        assert!(is_test_command("FOO=1 node --test tests/a.test.mjs"));
        assert!(!is_test_command("git commit -m 'add test'"));
        assert!(!is_test_command("echo test"));
        assert!(!is_test_command("rg test src"));
        assert!(is_test_command("npm run test:unit"));
        assert!(!is_test_command("cargo build"));
        assert!(is_test_command("sudo -E time cargo test 2>&1 | tail"));
        assert!(is_test_command("bash -lc 'cd api && npm test'"));
    }
}
