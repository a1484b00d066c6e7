//! One way to speak to tmux (issue 33): every tmux process the core, the CLI and the desktop shell
//! start is built by `terminal::tmux` (crates/plandeck-core/src/terminal/tmux.rs), which passes
//! data as data. This test reads every production source file and fails when another spells a tmux
//! process or the commands that type into a pane.

use std::path::Path;

use crate::layers::{production, production_files};

/// Only this file may.
const BUILDER: &str = "crates/plandeck-core/src/terminal/tmux.rs";

/// What only the builder spells.
const ONLY_THE_BUILDER: &[&str] = &[
    "Command::new(\"tmux\")",
    "\"send-keys\"",
    "\"load-buffer\"",
    "\"paste-buffer\"",
];

/// Every `(file, spelling)` outside the builder.
fn offenders(root: &Path) -> Vec<(String, &'static str)> {
    let mut found = Vec::new();
    for (rel, file) in production_files(root) {
        if rel == BUILDER {
            continue;
        }
        // `Command::new( "tmux" )` is the same spelling.
        let code =
            production(&std::fs::read_to_string(&file).unwrap()).replace(char::is_whitespace, "");
        for spelling in ONLY_THE_BUILDER {
            if code.contains(&spelling.replace(char::is_whitespace, "")) {
                found.push((rel.clone(), *spelling));
            }
        }
    }
    found
}

#[test]
fn only_the_builder_starts_tmux() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let root = root.canonicalize().unwrap();
    assert!(
        root.join(BUILDER).is_file(),
        "the builder moved: update BUILDER"
    );
    let found = offenders(&root);
    assert!(
        found.is_empty(),
        "tmux spoken to outside crates/plandeck-core/src/terminal/tmux.rs (build the call with \
         terminal::Tmux, type with terminal::tmux::paste or press): {found:?}"
    );
}

#[test]
fn the_reader_finds_a_tmux_process_and_skips_comments_and_tests() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("crates/plandeck-core/src");
    std::fs::create_dir_all(src.join("terminal")).unwrap();
    for other in ["crates/plandeck-cli/src", "src-tauri"] {
        std::fs::create_dir_all(dir.path().join(other)).unwrap();
    }
    std::fs::write(
        src.join("a.rs"),
        "fn f() { let c = Command::new( \"tmux\" ); }\n",
    )
    .unwrap();
    std::fs::write(
        src.join("b.rs"),
        "// Command::new(\"tmux\")\nfn g() {}\n#[cfg(test)]\nmod tests { fn t() { Command::new(\"tmux\"); } }\n",
    )
    .unwrap();
    std::fs::write(src.join("c.rs"), "const K: &str = \"send-keys\";\n").unwrap();
    std::fs::write(
        src.join("terminal/tmux.rs"),
        "fn h() { Command::new(\"tmux\"); }\n",
    )
    .unwrap();
    let found = offenders(dir.path());
    assert_eq!(
        found,
        [
            (
                "crates/plandeck-core/src/a.rs".to_owned(),
                "Command::new(\"tmux\")"
            ),
            ("crates/plandeck-core/src/c.rs".to_owned(), "\"send-keys\""),
        ]
    );
}
