import { describe, expect, it, vi, afterEach } from "vitest";
import { allowTerminalStyles, fitScale, KeyGate, KeySender } from "./terminal";

afterEach(() => vi.useRealTimers());

describe("fitScale", () => {
  it("shrinks to the box, never grows", () => {
    expect(fitScale(1000, 500, 500, 1000)).toBe(0.5);
    expect(fitScale(1000, 500, 2000, 250)).toBe(0.5);
    expect(fitScale(100, 50, 2000, 2000)).toBe(1);
    expect(fitScale(0, 0, 100, 100)).toBe(1);
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

describe("xterm.js under frozen prototypes", () => {
  it("loads once its overriding assignments are rewritten (the window freezes Object.prototype)", async () => {
    const { readFileSync } = await import("node:fs");
    const { createRequire } = await import("node:module");
    const { rewrite } = await import("../../frozen-prototypes");
    const path = createRequire(import.meta.url).resolve("@xterm/xterm/lib/xterm.mjs");
    const code = readFileSync(path, "utf8");
    const fixed = rewrite(path, code)!;
    expect(fixed).not.toBe(code);
    // No assignment over a built-in of Object.prototype is left.
    expect(fixed).not.toMatch(/[\w$]\.(toString|valueOf|hasOwnProperty|constructor|toLocaleString|isPrototypeOf|propertyIsEnumerable)=[^=]/);
  });
});
