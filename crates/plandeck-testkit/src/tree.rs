//! A snapshot of a folder, to show that something refused left it as it was: compare the
//! snapshot taken before with the one taken after (`assert_eq!`).

use std::path::{Path, PathBuf};

/// What is at one path of a snapshot.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Entry {
    /// A folder (listed so that an emptied or removed one shows).
    Dir,
    /// A file, with its bytes.
    File(Vec<u8>),
    /// A symbolic link, with its target (never followed).
    Link(PathBuf),
}

/// Every folder, file and link under `root` (`root` itself included), relative to `root`, sorted;
/// empty when `root` does not exist. Links are recorded, not followed.
pub fn snapshot(root: &Path) -> Vec<(PathBuf, Entry)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(p) = stack.pop() {
        let Ok(meta) = std::fs::symlink_metadata(&p) else {
            continue;
        };
        let rel = p.strip_prefix(root).expect("under the root").to_path_buf();
        let entry = if meta.file_type().is_symlink() {
            Entry::Link(std::fs::read_link(&p).expect("a readable link"))
        } else if meta.is_dir() {
            for e in std::fs::read_dir(&p).expect("a readable folder") {
                stack.push(e.expect("a folder entry").path());
            }
            Entry::Dir
        } else {
            Entry::File(std::fs::read(&p).expect("a readable file"))
        };
        out.push((rel, entry));
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_sees_a_changed_byte_a_removed_file_and_an_emptied_folder() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("w");
        std::fs::create_dir_all(root.join("sub/empty")).unwrap();
        std::fs::write(root.join("a.txt"), "a\n").unwrap();
        std::fs::write(root.join("sub/b.txt"), "b\n").unwrap();
        let before = snapshot(&root);
        assert_eq!(snapshot(&root), before);
        std::fs::write(root.join("a.txt"), "A\n").unwrap();
        assert_ne!(snapshot(&root), before);
        std::fs::write(root.join("a.txt"), "a\n").unwrap();
        std::fs::remove_dir(root.join("sub/empty")).unwrap();
        assert_ne!(snapshot(&root), before);
        std::fs::remove_dir_all(&root).unwrap();
        assert!(snapshot(&root).is_empty());
    }
}
