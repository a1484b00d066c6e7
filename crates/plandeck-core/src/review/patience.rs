//! A fast Patience diff with the same results as `similar`'s.
//!
//! `similar`'s Patience pairs the items unique on both sides by running Myers over the two lists
//! of unique items, which costs O(n·d): tens of milliseconds on a 10,000-line plan with 500
//! changed lines. Two lists of unique items have a longest common subsequence that is a longest
//! increasing subsequence of the new positions taken in old order, which patience sorting finds
//! in O(n log n). Everything else (the gaps between paired items diffed with Myers, the hooks
//! that merge and slide the changes) is `similar`'s own, so the operations are the same as
//! `similar::capture_diff_deadline(Algorithm::Patience, ..)` gives, except where several longest
//! subsequences exist and the two choose differently (both are correct diffs).

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::hash::Hash;

use similar::algorithms::{myers, Capture, Compact, DiffHook, NoFinishHook, Replace};
use similar::DiffOp;
use std::time::Instant;

/// The operations turning `old` into `new`, as `similar`'s `capture_diff_slices_deadline` with
/// `Algorithm::Patience` returns them (merged into replaces, compacted).
pub(crate) fn diff_slices<T: Hash + Eq + Ord>(
    old: &[T],
    new: &[T],
    deadline: Option<Instant>,
) -> Vec<DiffOp> {
    let mut hook = Compact::new(Replace::new(Capture::new()), old, new);
    // Capture never fails (its error type is uninhabited), so there is no error to lose here.
    let Ok(()) = patience(&mut hook, old, new, deadline);
    hook.into_inner().into_inner().into_ops()
}

/// Positions of the items that occur exactly once in `items`, in order.
fn unique_positions<T: Hash + Eq>(items: &[T]) -> (Vec<usize>, HashMap<&T, Option<usize>>) {
    let mut by_item: HashMap<&T, Option<usize>> = HashMap::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        match by_item.entry(item) {
            Entry::Vacant(e) => {
                e.insert(Some(i));
            }
            Entry::Occupied(mut e) => {
                e.insert(None);
            }
        }
    }
    let mut positions: Vec<usize> = by_item.values().filter_map(|p| *p).collect();
    positions.sort_unstable();
    (positions, by_item)
}

/// The pairs (old position, new position) of items unique on both sides that form a longest
/// common subsequence, in order.
fn anchors<T: Hash + Eq>(old: &[T], new: &[T]) -> Vec<(usize, usize)> {
    let (old_unique, _) = unique_positions(old);
    let (_, new_by_item) = unique_positions(new);
    let pairs: Vec<(usize, usize)> = old_unique
        .into_iter()
        .filter_map(|o| new_by_item.get(&old[o]).copied().flatten().map(|n| (o, n)))
        .collect();
    // Patience sorting: `tails[k]` is the pair ending the best increasing run of length k + 1
    // found so far (the one with the smallest new position); `prev` links each pair to the pair
    // before it in its run.
    let mut tails: Vec<usize> = Vec::new();
    let mut prev: Vec<Option<usize>> = vec![None; pairs.len()];
    for (i, &(_, n)) in pairs.iter().enumerate() {
        let k = tails.partition_point(|&t| pairs[t].1 < n);
        if k > 0 {
            prev[i] = Some(tails[k - 1]);
        }
        if k == tails.len() {
            tails.push(i);
        } else {
            tails[k] = i;
        }
    }
    let mut out = Vec::with_capacity(tails.len());
    let mut cur = tails.last().copied();
    while let Some(i) = cur {
        out.push(pairs[i]);
        cur = prev[i];
    }
    out.reverse();
    out
}

/// `similar::algorithms::patience::diff_deadline`, with the anchors found by [`anchors`].
fn patience<T, D>(
    d: &mut D,
    old: &[T],
    new: &[T],
    deadline: Option<Instant>,
) -> Result<(), D::Error>
where
    T: Hash + Eq,
    D: DiffHook,
{
    let mut old_current = 0;
    let mut new_current = 0;
    for (old_at, new_at) in anchors(old, new) {
        let (a0, b0) = (old_current, new_current);
        while old_current < old_at && new_current < new_at && new[new_current] == old[old_current] {
            old_current += 1;
            new_current += 1;
        }
        if old_current > a0 {
            d.equal(a0, b0, old_current - a0)?;
        }
        myers::diff_deadline(
            &mut NoFinishHook::new(&mut *d),
            old,
            old_current..old_at,
            new,
            new_current..new_at,
            deadline,
        )?;
        old_current = old_at;
        new_current = new_at;
    }
    myers::diff_deadline(
        d,
        old,
        old_current..old.len(),
        new,
        new_current..new.len(),
        deadline,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use similar::{capture_diff_slices_deadline, Algorithm};

    fn same_as_similar(old: &[u32], new: &[u32]) {
        let ours = diff_slices(old, new, None);
        let theirs = capture_diff_slices_deadline(Algorithm::Patience, old, new, None);
        assert_eq!(ours, theirs, "old {old:?} new {new:?}");
    }

    #[test]
    fn matches_similar_patience() {
        same_as_similar(
            &[11, 1, 2, 2, 3, 4, 4, 4, 5, 47, 19],
            &[10, 1, 2, 2, 8, 9, 4, 4, 7, 47, 18],
        );
        same_as_similar(&[1, 2, 3, 4], &[1, 2, 3]);
        same_as_similar(&[], &[1, 2]);
        same_as_similar(&[1, 2], &[]);
        same_as_similar(&[], &[]);
        same_as_similar(&[1, 2, 3], &[1, 2, 3]);
        same_as_similar(&[1, 1, 1], &[1, 1]);
        // Pseudo-random texts: mostly unique lines, some repeated ones, edits every few lines.
        let mut seed = 7u64;
        let mut next = move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as u32
        };
        for round in 0..200 {
            let len = (next() % 300) as usize;
            let old: Vec<u32> = (0..len)
                .map(|i| {
                    if next() % 5 == 0 {
                        next() % 4
                    } else {
                        100 + i as u32
                    }
                })
                .collect();
            let mut new = Vec::new();
            for &x in &old {
                match next() % (4 + round % 20) {
                    0 => {}
                    1 => new.push(100_000 + next() % 50),
                    2 => {
                        new.push(x);
                        new.push(next() % 4);
                    }
                    _ => new.push(x),
                }
            }
            same_as_similar(&old, &new);
        }
    }
}
