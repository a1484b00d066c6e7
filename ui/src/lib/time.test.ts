import { afterEach, describe, expect, it, vi } from "vitest";
import { render, screen } from "@testing-library/svelte";
import { mockIPC } from "@tauri-apps/api/mocks";
import CommentsPanel from "../components/CommentsPanel.svelte";
import VerifyPanel from "../components/VerifyPanel.svelte";
import { ago, countdown, TICK_MS } from "./time";

afterEach(() => {
  vi.useRealTimers();
});

describe("relative times", () => {
  it("are written from one helper: minutes, hours, days", () => {
    const at = Date.parse("2026-01-10T12:00:00Z");
    expect(ago("2026-01-10T11:59:40Z", at)).toBe("just now");
    expect(ago("2026-01-10T11:57:00Z", at)).toBe("3 min ago");
    expect(ago("2026-01-10T10:00:00Z", at)).toBe("2 h ago");
    expect(ago("2026-01-09T12:00:00Z", at)).toBe("yesterday");
    expect(ago(null, at)).toBe("");
  });

  it("read the same in two views and move on together when the shared clock ticks", async () => {
    // Only the interval and the date are faked: the IPC mocks still answer on their own.
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "Date"] });
    const t0 = Date.parse("2026-01-10T12:00:00Z");
    vi.setSystemTime(t0);
    const stamp = new Date(t0 - 20_000).toISOString();
    mockIPC((cmd) => {
      if (cmd === "list_comments")
        return [
          {
            id: "c1",
            planPath: "/h/.claude/plans/p.md",
            version: "a".repeat(64),
            anchor: { quote: "Do it.", before: "", after: "", start: 0 },
            text: "Why?",
            createdAt: stamp,
            author: "dev",
            resolvedAt: null,
            sentWith: [],
            status: "open",
            placement: { kind: "kept", start: 0, end: 6 },
            line: 1,
          },
        ];
      if (cmd === "verify_report")
        return {
          plan: "p1", planPath: null, title: "t", agent: "claude", approvedAt: stamp, approval: null, session: null,
          worktree: null, base: { kind: "none", commit: null, branch: null }, steps: [], unplanned: [], tests: [],
          changes: [], commits: [], notes: [], counts: { done: 0, partial: 0, missing: 0, unverifiable: 0 }, reportHash: "h",
        };
      return null;
    });
    render(CommentsPanel, { planId: "p1" });
    render(VerifyPanel, { planId: "p1" });
    const comment = await screen.findByText("Why?");
    const card = comment.closest("[data-comment-id]")!;
    await screen.findByText("approved just now");
    expect(card).toHaveTextContent("just now");

    // Time passes with nothing else changing: both views say the same new thing at the same tick.
    vi.setSystemTime(t0 + 70_000);
    expect(card).toHaveTextContent("just now");
    await vi.advanceTimersByTimeAsync(TICK_MS);
    await screen.findByText("approved 2 min ago");
    expect(card).toHaveTextContent("2 min ago");
  });
});

describe("countdown", () => {
  it("counts down to a retry in seconds, then minutes, and says now once it passed", () => {
    const at = Date.parse("2026-11-28T13:00:00Z");
    expect(countdown("2026-11-28T13:00:40Z", at)).toBe("in 40 s");
    expect(countdown("2026-11-28T13:00:00.500Z", at)).toBe("in 1 s");
    expect(countdown("2026-11-28T13:05:00Z", at)).toBe("in 5 min");
    expect(countdown("2026-11-28T12:59:00Z", at)).toBe("now");
    expect(countdown(null, at)).toBe("");
  });
});
