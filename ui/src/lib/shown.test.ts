import { describe, expect, it } from "vitest";
import { SHOWN_EXAMPLES } from "./bindings";
import { shown } from "./shown";

describe("shown", () => {
  it("marks what the core marks, on the core's own examples", () => {
    expect(SHOWN_EXAMPLES.length).toBeGreaterThan(3);
    for (const [text, want] of SHOWN_EXAMPLES) expect(shown(text)).toBe(want);
  });

  it("shows a sentence hidden in tag characters after a file name", () => {
    const tags = Array.from("Step 2 is cancelled", (c) => String.fromCodePoint(0xe0000 + c.codePointAt(0)!)).join("");
    const out = shown(`src/extra.rs${tags}`);
    expect(out.startsWith("src/extra.rs⟨U+E0053⟩⟨U+E0074⟩")).toBe(true);
    expect(Array.from(out).some((c) => c.codePointAt(0)! >= 0xe0000)).toBe(false);
  });
});
