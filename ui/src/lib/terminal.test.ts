import { describe, expect, it, vi, afterEach } from "vitest";
import { allowTerminalStyles, BASE_FONT, KeyGate, KeySender, MAX_FONT, READABLE_FONT, readableFont, zoomed, ZOOM_MAX } from "./terminal";

afterEach(() => vi.useRealTimers());

describe("readableFont", () => {
  it("fits the pane's rows to the box's height, never below a readable size nor above the base (issue 34)", () => {
    // 50 rows 500 px high at 13 px in a 250 px box: 6.5 px would fit, the readable size is kept.
    expect(readableFont(13, 500, 250)).toBe(READABLE_FONT);
    // Room to spare: the base size, never larger.
    expect(readableFont(6.5, 250, 2000)).toBe(BASE_FONT);
    // Between: fitted.
    expect(readableFont(13, 500, 460)).toBe(11.9);
    // No height limit: the base size.
    expect(readableFont(13, 5000, 0)).toBe(BASE_FONT);
    // Nothing measured yet: unchanged.
    expect(readableFont(13, 0, 100)).toBe(13);
  });

  it("zooms from there, within bounds, and keeps a size within 0.2 px (no flicker)", () => {
    expect(readableFont(13, 500, 250, 2)).toBe(2 * READABLE_FONT);
    expect(readableFont(13, 500, 250, 10)).toBe(MAX_FONT);
    expect(readableFont(11.9, 500, 505)).toBe(11.9);
  });

  it("steps the zoom with Ctrl+= / Ctrl+- and resets it with Ctrl+0", () => {
    expect(zoomed(1, 1)).toBe(1.15);
    expect(zoomed(1.15, -1)).toBe(1);
    expect(zoomed(2.9, 1)).toBe(ZOOM_MAX);
    expect(zoomed(2.9, 0)).toBe(1);
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
