import { describe, expect, it } from "vitest";
import { lineChanges, sideBySide } from "./diff";
import type { DiffLine, PlanDiff } from "./bindings";

const line = (kind: string, text: string, oldNo: number | null, newNo: number | null) =>
  ({ kind, oldNo, newNo, segments: [{ text, changed: kind !== "equal" }] }) as unknown as DiffLine;

describe("sideBySide", () => {
  it("pairs deletions with the insertions after them and separates hunks", () => {
    const diff = {
      hunks: [
        { oldStart: 1, newStart: 1, lines: [line("equal", "a", 1, 1), line("delete", "b", 2, null), line("delete", "c", 3, null), line("insert", "B", null, 2)] },
        { oldStart: 9, newStart: 8, lines: [line("insert", "z", null, 8)] },
      ],
    } as unknown as PlanDiff;
    const rows = sideBySide(diff);
    expect(rows.length).toBe(5);
    expect(rows[1].left?.segments[0].text).toBe("b");
    expect(rows[1].right?.segments[0].text).toBe("B");
    expect(rows[2].right).toBeUndefined();
    expect(rows[3].gap).toBe(true);
    expect(rows[4].left).toBeUndefined();
  });
});

describe("lineChanges", () => {
  it("gives the lines removed and added between two texts, the rest equal, in order", () => {
    const out = lineChanges("a\nb\nc\n", "a\nB\nc\nd\n");
    expect(out).toEqual([
      { kind: "equal", text: "a" },
      { kind: "delete", text: "b" },
      { kind: "insert", text: "B" },
      { kind: "equal", text: "c" },
      { kind: "insert", text: "d" },
      { kind: "equal", text: "" },
    ]);
  });

  it("gives a text too long for the table as all removed, then all added", () => {
    const out = lineChanges("x\ny", "z", 1);
    expect(out.map((c) => c.kind)).toEqual(["delete", "delete", "insert"]);
  });
});
