// Side-by-side rows from a unified diff computed in Rust: deletions pair with the insertions that
// follow them, equal lines sit on both sides, and hunks are separated by a gap row.
import type { DiffLine, PlanDiff } from "./bindings";

export type SplitRow = { gap?: true; left?: DiffLine; right?: DiffLine };

export function sideBySide(diff: PlanDiff): SplitRow[] {
  const rows: SplitRow[] = [];
  diff.hunks.forEach((hunk, h) => {
    if (h > 0) rows.push({ gap: true });
    let dels: DiffLine[] = [];
    let ins: DiffLine[] = [];
    const flush = () => {
      for (let i = 0; i < Math.max(dels.length, ins.length); i++) rows.push({ left: dels[i], right: ins[i] });
      dels = [];
      ins = [];
    };
    for (const line of hunk.lines) {
      if (line.kind === "delete") dels.push(line);
      else if (line.kind === "insert") ins.push(line);
      else {
        flush();
        rows.push({ left: line, right: line });
      }
    }
    flush();
  });
  return rows;
}

export type TextChange = { kind: "equal" | "delete" | "insert"; text: string };

/** The lines of `after` against those of `before` (a longest common subsequence), for a short
 * "what changed" beside a plan that changed while shown. Plans too long for the table (more than
 * `limit` lines on either side) are given as every old line removed and every new line added. */
export function lineChanges(before: string, after: string, limit = 1000): TextChange[] {
  const a = before.split("\n");
  const b = after.split("\n");
  if (a.length > limit || b.length > limit) {
    return [...a.map((text) => ({ kind: "delete" as const, text })), ...b.map((text) => ({ kind: "insert" as const, text }))];
  }
  // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
  const lcs: Uint32Array[] = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const out: TextChange[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push({ kind: "equal", text: a[i] });
      i++;
      j++;
    } else if (i < a.length && (j >= b.length || lcs[i + 1][j] >= lcs[i][j + 1])) {
      out.push({ kind: "delete", text: a[i++] });
    } else {
      out.push({ kind: "insert", text: b[j++] });
    }
  }
  return out;
}
