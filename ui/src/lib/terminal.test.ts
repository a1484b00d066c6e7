import { describe, expect, it, vi, afterEach } from "vitest";
import { allowTerminalStyles, BASE_FONT, fitFont, KeyGate, KeySender, MIN_FONT } from "./terminal";

afterEach(() => vi.useRealTimers());

describe("fitFont", () => {
  it("shrinks the font until the screen fits the box, never above the base size nor below the least", () => {
    expect(fitFont(13, 1000, 500, 500, 1000)).toBe(6.5);
    expect(fitFont(13, 1000, 500, 2000, 250)).toBe(6.5);
    expect(fitFont(6.5, 500, 250, 2000, 2000)).toBe(BASE_FONT);
    expect(fitFont(13, 10000, 500, 100, 0)).toBe(MIN_FONT);
    // No height limit: by the width alone.
    expect(fitFont(13, 1000, 5000, 500, 0)).toBe(6.5);
    // Nothing measured yet: unchanged.
    expect(fitFont(13, 0, 0, 100, 100)).toBe(13);
  });

  it("keeps a size within 0.2 px (no flicker from rounding)", () => {
    expect(fitFont(6.5, 1000, 500, 1010, 0)).toBe(6.5);
  });
});

describe("KeyGate", () => {
  it("sends keys as they come", () => {
    const sent: string[] = [];
    const gate = new KeyGate((d) => sent.push(d), () => sent.push("RELEASE"));
    gate.key("a");
    gate.key("\x1b[A");
    expect(sent).toEqual(["a", "\x1b[A"]);
  });

  it("gives control back on Esc Esc, sending neither Escape", () => {
    vi.useFakeTimers();
    const sent: string[] = [];
    const gate = new KeyGate((d) => sent.push(d), () => sent.push("RELEASE"), 400);
    gate.key("\x1b");
    vi.advanceTimersByTime(200);
    gate.key("\x1b");
    vi.advanceTimersByTime(1000);
    expect(sent).toEqual(["RELEASE"]);
  });

  it("sends a lone Escape once the pause is over, and a held one before the next key", () => {
    vi.useFakeTimers();
    const sent: string[] = [];
    const gate = new KeyGate((d) => sent.push(d), () => sent.push("RELEASE"), 400);
    gate.key("\x1b");
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(401);
    expect(sent).toEqual(["\x1b"]);
    gate.key("\x1b");
    gate.key("x");
    expect(sent).toEqual(["\x1b", "\x1bx"]);
    gate.key("\x1b");
    gate.clear();
    vi.advanceTimersByTime(1000);
    expect(sent).toEqual(["\x1b", "\x1bx"]);
  });
});

describe("KeySender", () => {
  it("sends in order, one call at a time, joining what was typed meanwhile", async () => {
    const calls: string[] = [];
    let release!: () => void;
    const first = new Promise<void>((r) => (release = r));
    let n = 0;
    const sender = new KeySender(async (d) => {
      calls.push(d);
      if (n++ === 0) await first;
    }, () => {});
    sender.push("a");
    sender.push("b");
    sender.push("c");
    expect(calls).toEqual(["a"]);
    release();
    await vi.waitFor(() => expect(calls).toEqual(["a", "bc"]));
  });

  it("bounds each call in bytes and never splits a character", async () => {
    const calls: string[] = [];
    const sender = new KeySender(async (d) => void calls.push(d), () => {}, 8);
    sender.push("ab😀cdéfgh");
    await vi.waitFor(() => expect(calls.join("")).toBe("ab😀cdéfgh"));
    for (const c of calls) expect(new TextEncoder().encode(c).length).toBeLessThanOrEqual(8);
    expect(calls.join("")).not.toContain("\ufffd");
  });

  it("stops and reports on a refusal, dropping what was queued", async () => {
    const errors: unknown[] = [];
    const calls: string[] = [];
    const sender = new KeySender(async (d) => {
      calls.push(d);
      throw { kind: "refused", message: "a shell is in front" };
    }, (e) => errors.push(e));
    sender.push("x");
    await vi.waitFor(() => expect(errors).toHaveLength(1));
    expect(calls).toEqual(["x"]);
  });
});

describe("allowTerminalStyles", () => {
  it("gives each new style element the page's nonce, nothing else", () => {
    const doc = document.implementation.createHTMLDocument("t");
    const meta = doc.createElement("meta");
    meta.name = "pd-style-nonce";
    meta.content = "abc123";
    doc.head.append(meta);
    allowTerminalStyles(doc);
    expect(doc.createElement("style").getAttribute("nonce")).toBe("abc123");
    expect(doc.createElement("div").getAttribute("nonce")).toBeNull();
  });
});


describe("drawEveryMs", () => {
  it("draws as output comes up to four side by side, once a second beyond", async () => {
    const { drawEveryMs } = await import("./terminal");
    expect([1, 4, 5, 8].map(drawEveryMs)).toEqual([0, 0, 1000, 1000]);
  });
});
