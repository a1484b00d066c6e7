//! Stable short identifiers for things the CLI and the UI name.

use sha2::{Digest, Sha256};
use std::path::Path;

/// A plan's id: the first 12 hex digits of the SHA-256 of its absolute path. Stable across runs
/// and machines that see the same path; the CLI accepts an id or a path wherever it takes a plan.
pub fn plan_id(path: &Path) -> String {
    short_hash(path.as_os_str().as_encoded_bytes())
}

/// The first 12 hex digits of the SHA-256 of `bytes`.
pub fn short_hash(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    hex::encode(&digest[..6])
}

#[cfg(test)]
mod tests {
    #[test]
    fn plan_id_is_stable_and_short() {
        let a = super::plan_id(std::path::Path::new("/h/.claude/plans/x.md"));
        assert_eq!(a.len(), 12);
        assert_eq!(
            a,
            super::plan_id(std::path::Path::new("/h/.claude/plans/x.md"))
        );
        assert_ne!(
            a,
            super::plan_id(std::path::Path::new("/h/.claude/plans/y.md"))
        );
    }
}
