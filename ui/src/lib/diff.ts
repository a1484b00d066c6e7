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
