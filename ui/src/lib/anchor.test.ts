import { describe, expect, it } from "vitest";
import { anchorRange, blockAt, findText } from "./anchor";

function plan(html: string): Element {
  const root = document.createElement("div");
  root.innerHTML = html;
  return root;
}

const HTML =
  '<h1 data-src="0-20">Plan: pagination</h1>' +
  '<ol data-src="21-120"><li data-src="24-70">Add <code>cursor</code> and <code>limit</code> query parameters</li>' +
  '<li data-src="71-120">Return <code>next_cursor</code> in the body</li></ol>';

describe("anchor", () => {
  it("finds the innermost block holding a source offset", () => {
    const root = plan(HTML);
    expect(blockAt(root, 30)?.tagName).toBe("LI");
    expect(blockAt(root, 30)?.textContent).toMatch(/^Add/);
    expect(blockAt(root, 5)?.tagName).toBe("H1");
    expect(blockAt(root, 500)).toBeNull();
  });

  it("finds rendered text across inline elements", () => {
    const root = plan(HTML);
    const r = findText(root, "cursor and limit query");
    expect(r?.toString()).toBe("cursor and limit query");
  });

  it("a quote selected in the rendered plan is marked exactly; a block quote of the source by its words", () => {
    const root = plan(HTML);
    expect(anchorRange(root, "next_cursor in the", 75)?.toString()).toBe("next_cursor in the");
    // A block comment quotes the source: "2. Return `next_cursor` in the body".
    expect(anchorRange(root, "2. Return `next_cursor` in the body", 71)?.toString()).toBe("Return next_cursor in the body");
    // Nothing that reads the same: the whole block.
    expect(anchorRange(root, "| a | b |", 30)?.toString()).toMatch(/^Add cursor and limit/);
    expect(anchorRange(root, "not there", null)).toBeNull();
  });
});
