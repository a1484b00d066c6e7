//! Counts in words, one way everywhere: "1 file", "2 files", "0 commits".

/// `n` and the noun that fits it: `count(1, "file", "files")` is "1 file".
pub fn count(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(super::count(1u32, "file", "files"), "1 file");
        assert_eq!(super::count(0u32, "file", "files"), "0 files");
        assert_eq!(super::count(2u64, "commit", "commits"), "2 commits");
    }
}
