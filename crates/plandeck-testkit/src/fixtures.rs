//! The recorded agent folders in the repository (`tests/fixtures/`, with their README), copied
//! into a test's home.

use std::path::{Path, PathBuf};

/// Claude Code's recorded `~/.claude`.
pub const CLAUDE: &str = "claude-code-2.1.328";
/// Gemini CLI's recorded `~/.gemini`.
pub const GEMINI: &str = "gemini-cli-0.61.0";
/// Codex CLI's recorded `~/.codex`.
pub const CODEX: &str = "codex-cli-0.169.0";

/// `tests/fixtures/<name>` of the repository.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(name)
}

/// Copies the folder `from` to `to` as it is (files 0644).
pub fn copy_tree(from: &Path, to: &Path) {
    copy(from, to, &|bytes| bytes);
}

/// Copies the folder `from` to `to`, writing the recorded home `/home/dev` as `home` in every
/// text file (files 0644).
pub fn copy_tree_as(from: &Path, to: &Path, home: &Path) {
    let home = home.to_str().expect("a UTF-8 home");
    copy(from, to, &|bytes| match String::from_utf8(bytes) {
        Ok(text) => text.replace("/home/dev", home).into_bytes(),
        Err(e) => e.into_bytes(),
    });
}

/// A hook input Claude Code sent (`tests/fixtures/claude-code-2.1.328/hook-input/<name>`), its
/// recorded home `/home/dev` written as `home`.
pub fn claude_hook_input_as(name: &str, home: &Path) -> String {
    claude_hook_input(name).replace("/home/dev", home.to_str().expect("a UTF-8 home"))
}

/// A hook input Claude Code sent, as recorded (`tests/fixtures/claude-code-2.1.328/hook-input/`).
pub fn claude_hook_input(name: &str) -> String {
    let path = fixture(CLAUDE).join("hook-input").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("fixture {}: {e}", path.display()))
}

/// The three recorded agent folders in `home` (`~/.claude`, `~/.gemini`, `~/.codex`), the
/// recorded home written as `home`.
pub fn agents_as(home: &Path) {
    copy_tree_as(&fixture(CLAUDE), &home.join(".claude"), home);
    copy_tree_as(&fixture(GEMINI), &home.join(".gemini"), home);
    copy_tree_as(&fixture(CODEX), &home.join(".codex"), home);
}

fn copy(from: &Path, to: &Path, edit: &dyn Fn(Vec<u8>) -> Vec<u8>) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(to).expect("folder");
    for entry in std::fs::read_dir(from).expect("fixture folder") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy(&entry.path(), &target, edit);
        } else {
            let bytes = std::fs::read(entry.path()).expect("fixture file");
            std::fs::write(&target, edit(bytes)).expect("copy");
            std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o644))
                .expect("mode");
        }
    }
}
