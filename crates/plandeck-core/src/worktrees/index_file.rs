//! A read-only parser of git's index file (`.git/index`, format in git's
//! Documentation/gitformat-index.txt), for the changed-file scan.
//!
//! libgit2 reads the index too, but it copies every path, verifies the checksum with a slow
//! collision-detecting SHA-1 and hides the cache-tree (the `TREE` extension), which is what lets
//! `git status` skip comparing HEAD with the index. Here the entries borrow their paths from the
//! file's bytes and the cache-tree is kept. Anything this parser does not fully understand (split
//! or sparse index, an unknown required extension, SHA-256 object ids, damage) gives `None`, and the
//! caller falls back to libgit2's reading and a full comparison.

use std::borrow::Cow;

use git2::Oid;

/// One index entry, as the status scan needs it.
#[derive(Debug, Clone)]
pub(super) struct Entry<'a> {
    pub path: Cow<'a, [u8]>,
    pub ctime: (u32, u32),
    pub mtime: (u32, u32),
    pub ino: u32,
    pub mode: u32,
    pub size: u32,
    pub id: Oid,
    /// 0 for a normal entry, 1–3 for the sides of a conflict.
    pub stage: u8,
    pub assume_valid: bool,
    pub skip_worktree: bool,
    pub intent_to_add: bool,
}

/// A node of the cache-tree: the tree object the index entries under `name/` would write, when
/// still valid.
#[derive(Debug, Clone, Default)]
pub(super) struct CacheTree {
    /// `Some((tree id, index entries covered))` while valid; `None` once an entry below changed.
    pub valid: Option<(Oid, usize)>,
    pub children: Vec<(Vec<u8>, CacheTree)>,
}

impl CacheTree {
    pub fn child(&self, name: &[u8]) -> Option<&CacheTree> {
        self.children
            .iter()
            .find(|(n, _)| n.as_slice() == name)
            .map(|(_, c)| c)
    }
}

/// The parsed index: entries in index order (by path, then stage) and the cache-tree, if written.
#[derive(Debug, Default)]
pub(super) struct ParsedIndex<'a> {
    pub entries: Vec<Entry<'a>>,
    pub tree: Option<CacheTree>,
}

const HASH_LEN: usize = 20;
const ENTRY_FIXED: usize = 62;
const FLAG_ASSUME_VALID: u16 = 0x8000;
const FLAG_EXTENDED: u16 = 0x4000;
const FLAG_STAGE: u16 = 0x3000;
const EXT_SKIP_WORKTREE: u16 = 1 << 14;
const EXT_INTENT_TO_ADD: u16 = 1 << 13;

fn be32(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at + 4)?;
    Some(u32::from_be_bytes([s[0], s[1], s[2], s[3]]))
}

fn be16(b: &[u8], at: usize) -> Option<u16> {
    let s = b.get(at..at + 2)?;
    Some(u16::from_be_bytes([s[0], s[1]]))
}

/// Parses `data` (the whole index file). `None` on anything unexpected.
pub(super) fn parse(data: &[u8]) -> Option<ParsedIndex<'_>> {
    if data.len() < 12 + HASH_LEN || &data[..4] != b"DIRC" {
        return None;
    }
    let version = be32(data, 4)?;
    if !(2..=4).contains(&version) {
        return None;
    }
    let count = usize::try_from(be32(data, 8)?).ok()?;
    let end = data.len() - HASH_LEN;
    // Each entry takes at least 63 bytes (v4), so a count the file cannot hold is damage.
    if count > end / (ENTRY_FIXED + 1) {
        return None;
    }
    let mut entries: Vec<Entry<'_>> = Vec::with_capacity(count);
    let mut at = 12;
    let mut previous: Vec<u8> = Vec::new();
    for _ in 0..count {
        let e = data.get(at..at + ENTRY_FIXED)?;
        let flags = be16(e, 60)?;
        let mut cursor = at + ENTRY_FIXED;
        let mut ext_flags = 0u16;
        if flags & FLAG_EXTENDED != 0 {
            if version < 3 {
                return None;
            }
            ext_flags = be16(data, cursor)?;
            cursor += 2;
        }
        let path: Cow<'_, [u8]> = if version == 4 {
            // Prefix compression: drop `strip` bytes from the previous path, then add the suffix.
            let (strip, used) = varint(data.get(cursor..end)?)?;
            cursor += used;
            let nul = memchr::memchr(0, data.get(cursor..end)?)?;
            let keep = previous.len().checked_sub(usize::try_from(strip).ok()?)?;
            previous.truncate(keep);
            previous.extend_from_slice(&data[cursor..cursor + nul]);
            cursor += nul + 1;
            Cow::Owned(previous.clone())
        } else {
            let nul = memchr::memchr(0, data.get(cursor..end)?)?;
            let path = &data[cursor..cursor + nul];
            // Entries are padded with 1–8 NULs to a multiple of 8 bytes.
            let len = cursor - at + nul;
            cursor = at + ((len + 8) & !7);
            Cow::Borrowed(path)
        };
        if path.is_empty() || cursor > end {
            return None;
        }
        let stage = ((flags & FLAG_STAGE) >> 12) as u8;
        if let Some(last) = entries.last() {
            // Index order is by path, then stage; anything else is not an index we understand.
            if (last.path.as_ref(), last.stage) >= (path.as_ref(), stage) {
                return None;
            }
        }
        let mode = be32(e, 24)?;
        // A sparse index stores whole folders as entries (mode 040000): not handled here.
        if mode & 0o170000 == 0o040000 {
            return None;
        }
        entries.push(Entry {
            path,
            ctime: (be32(e, 0)?, be32(e, 4)?),
            mtime: (be32(e, 8)?, be32(e, 12)?),
            ino: be32(e, 20)?,
            mode,
            size: be32(e, 36)?,
            id: Oid::from_bytes(&e[40..60]).ok()?,
            stage,
            assume_valid: flags & FLAG_ASSUME_VALID != 0,
            skip_worktree: ext_flags & EXT_SKIP_WORKTREE != 0,
            intent_to_add: ext_flags & EXT_INTENT_TO_ADD != 0,
        });
        at = cursor;
    }

    let mut tree = None;
    while at < end {
        let sig = data.get(at..at + 4)?;
        let size = usize::try_from(be32(data, at + 4)?).ok()?;
        let body = data.get(at + 8..(at + 8).checked_add(size)?)?;
        if at + 8 + size > end {
            return None;
        }
        match sig {
            b"TREE" => tree = Some(parse_tree(body)?),
            // A split index keeps its entries elsewhere, a sparse one folds folders: give up.
            b"link" | b"sdir" => return None,
            // Optional extensions (upper-case first letter) may be ignored; required ones not.
            _ if sig[0].is_ascii_uppercase() => {}
            _ => return None,
        }
        at += 8 + size;
    }
    if at != end {
        return None;
    }
    Some(ParsedIndex { entries, tree })
}

/// Git's offset varint (varint.c): 7 bits a byte, high bit = more, each continuation adds one.
fn varint(b: &[u8]) -> Option<(u64, usize)> {
    let mut i = 0;
    let mut c = *b.first()?;
    let mut value = u64::from(c & 0x7f);
    while c & 0x80 != 0 {
        i += 1;
        c = *b.get(i)?;
        value = value.checked_add(1)?.checked_mul(128)? | u64::from(c & 0x7f);
        if value > u64::from(u32::MAX) {
            return None;
        }
    }
    Some((value, i + 1))
}

/// The TREE extension: nodes in pre-order, each "name\0entry_count subtree_count\n[oid]".
fn parse_tree(body: &[u8]) -> Option<CacheTree> {
    let mut at = 0;
    let (name, node) = tree_node(body, &mut at, 0)?;
    if !name.is_empty() || at != body.len() {
        return None;
    }
    Some(node)
}

fn tree_node(body: &[u8], at: &mut usize, depth: usize) -> Option<(Vec<u8>, CacheTree)> {
    // Deeper than any real path: damage, and a guard against stack exhaustion.
    if depth > 4096 {
        return None;
    }
    let rest = body.get(*at..)?;
    let nul = memchr::memchr(0, rest)?;
    let name = rest[..nul].to_vec();
    let rest = &rest[nul + 1..];
    let nl = memchr::memchr(b'\n', rest)?;
    let line = std::str::from_utf8(&rest[..nl]).ok()?;
    let (count, subtrees) = line.split_once(' ')?;
    let count: i64 = count.parse().ok()?;
    let subtrees: usize = subtrees.parse().ok()?;
    *at += nul + 1 + nl + 1;
    let valid = if count >= 0 {
        let id = Oid::from_bytes(body.get(*at..*at + HASH_LEN)?).ok()?;
        *at += HASH_LEN;
        Some((id, usize::try_from(count).ok()?))
    } else {
        None
    };
    if subtrees > body.len() {
        return None;
    }
    let mut children = Vec::with_capacity(subtrees);
    for _ in 0..subtrees {
        children.push(tree_node(body, at, depth + 1)?);
    }
    Some((name, CacheTree { valid, children }))
}
