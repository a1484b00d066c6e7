// A heavy home in the views: 5,000 plans, 2,000 session cards, a 10,000-row side-by-side diff.
// Only a window's worth of rows may be in the DOM, and scrolling or moving the selection shows
// the right ones. (jsdom has no layout: the view counts as 800 px high, rows as their estimate.)

import { describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/svelte";
import { mockIPC } from "@tauri-apps/api/mocks";
import { tick } from "svelte";
import PlansView from "./views/PlansView.svelte";
import SessionsView from "./views/SessionsView.svelte";
import DiffView from "./components/DiffView.svelte";
import { VirtualWindow } from "./lib/virtual.svelte";
import { sessionSummary } from "./test-fixtures";
import type { DiffLine, PlanDiff, PlanSummary, RecoveredPlan, SessionSummary } from "./lib/bindings";

/** Fewer than this many rows in the DOM is "a window's worth" (800 px / smallest row + overscan). */
const WINDOW = 100;

const plan = (i: number): PlanSummary =>
  ({
    id: `plan-${i}`,
    path: `/h/.claude/plans/p${i}.md`,
    agent: "claude",
    title: `Plan number ${i}`,
    project: "/h/work/api",
    sessionId: null,
    gitBranch: null,
    state: "unreviewed",
    decidedIn: null,
    waitingRequest: null,
    updatedAt: new Date(Date.UTC(2026, 0, 1) - i * 60_000).toISOString(),
    sizeBytes: 100,
    problem: null,
    subagentId: null,
  }) as PlanSummary;

const session = (i: number, state: SessionSummary["state"]): SessionSummary =>
  sessionSummary({
    sessionId: `${String(i).padStart(8, "0")}-session`,
    cwd: `/h/work/p${i % 30}`,
    state,
    lastActivity: new Date(Date.UTC(2026, 0, 1) - i * 60_000).toISOString(),
    title: `session ${i}`,
  });

async function settle() {
  for (let i = 0; i < 3; i++) await tick();
}

const recoveredPlan = (i: number): RecoveredPlan =>
  ({
    id: `lost-${i}`,
    agent: "claude",
    sessionId: null,
    path: null,
    project: "/h/work/api",
    title: `Lost plan ${i}`,
    text: "# Lost",
    state: null,
    source: "exitPlanMode",
    subagent: false,
    versions: [],
  }) as unknown as RecoveredPlan;

describe("a heavy home in the views", () => {
  it("plans from transcripts: 360 of them show 50 rows, more on request or at the list's end", async () => {
    const lost = Array.from({ length: 360 }, (_, i) => recoveredPlan(i));
    mockIPC((cmd) => {
      if (cmd === "list_plans") return { plans: [plan(0)], problems: [] };
      if (cmd === "transcript_plans") return lost;
      if (cmd === "list_comments") return [];
      return null;
    });
    render(PlansView, { overview: null, onLoadDemo: () => {} });
    const rows = () => screen.queryAllByTestId("transcript-row");
    await waitFor(() => expect(rows().length).toBe(50));
    expect(screen.getByTestId("transcripts-more")).toHaveTextContent("310 not shown");
    await fireEvent.click(screen.getByTestId("transcripts-more"));
    await settle();
    expect(rows().length).toBe(100);
    expect(rows()[99]).toHaveAttribute("data-id", "lost-99");
    // Scrolled to the end of the list (jsdom has no layout: every height is 0, so it is there).
    await fireEvent.scroll(screen.getByRole("list", { name: "Plans" }));
    await settle();
    expect(rows().length).toBe(150);
  });

  it("plan list: 5,000 plans render a window of rows; scrolling and j/k show the right ones", async () => {
    const plans = Array.from({ length: 5000 }, (_, i) => plan(i));
    mockIPC((cmd) => {
      if (cmd === "list_plans") return { plans, problems: [] };
      if (cmd === "transcript_plans") return [];
      if (cmd === "list_comments") return [];
      return null;
    });
    render(PlansView, { overview: null, onLoadDemo: () => {} });
    await waitFor(() => expect(screen.getAllByTestId("plan-row").length).toBeGreaterThan(0));
    const rows = () => screen.getAllByTestId("plan-row");
    expect(rows().length).toBeLessThan(WINDOW);
    expect(rows()[0]).toHaveAttribute("data-id", "plan-0");
    expect(screen.getByText("5000")).toBeInTheDocument(); // the count says all of them

    // Scrolled to the middle: plan 3,000's neighbourhood, still a window's worth.
    const list = screen.getByRole("list", { name: "Plans" });
    list.scrollTop = 66 * 3000;
    await fireEvent.scroll(list);
    await settle();
    const ids = rows().map((r) => r.getAttribute("data-id"));
    expect(ids).toContain("plan-3000");
    expect(ids).not.toContain("plan-0");
    expect(rows().length).toBeLessThan(WINDOW);

    // Back at the top, j moves the selection down 150 rows: the selected row is rendered and
    // the list scrolled to it.
    list.scrollTop = 0;
    await fireEvent.scroll(list);
    await settle();
    for (let i = 0; i < 150; i++) {
      await fireEvent.keyDown(window, { key: "j" });
      await settle();
    }
    const selected = list.querySelector(".row.selected");
    expect(selected).toHaveAttribute("data-id", "plan-150");
    expect(list.scrollTop).toBeGreaterThan(66 * 100);
    expect(rows().length).toBeLessThan(WINDOW);
    await fireEvent.keyDown(window, { key: "k" });
    await settle();
    expect(list.querySelector(".row.selected")).toHaveAttribute("data-id", "plan-149");
  }, 60_000);

  it("session grid: 2,000 cards, ended ones collapsed behind a toggle, a window of rows", async () => {
    localStorage.clear();
    const sessions = [
      ...Array.from({ length: 40 }, (_, i) => session(i, i % 2 ? "idle" : "working")),
      ...Array.from({ length: 1960 }, (_, i) => session(40 + i, "ended")),
    ];
    mockIPC((cmd) => {
      if (cmd === "list_sessions") return sessions;
      if (cmd === "session_index_progress") return { read: 2000, total: 2000, ready: true };
      return null;
    });
    render(SessionsView, { overview: null, onLoadDemo: () => {} });
    await waitFor(() => expect(screen.getAllByTestId("session-card").length).toBeGreaterThan(0));
    const cards = () => screen.getAllByTestId("session-card");
    // Only live ones (40 cards in 14 rows of 3), and only the rows in view.
    expect(cards().length).toBeLessThan(40);
    expect(cards().every((c) => !c.classList.contains("ended"))).toBe(true);
    expect(cards()[0]).toHaveAttribute("data-session", "00000000-session");
    const toggle = screen.getByTestId("toggle-ended");
    expect(toggle).toHaveTextContent("Show 1,960 ended");

    await fireEvent.click(toggle);
    await settle();
    expect(toggle).toHaveTextContent("Hide 1,960 ended");
    // 2,000 cards in 667 rows of 3: only the rows in view are in the DOM.
    expect(cards().length).toBeGreaterThan(0);
    expect(cards().length).toBeLessThan(WINDOW);
    expect(cards()[0]).toHaveAttribute("data-session", "00000000-session");

    // Scrolled far down: cards from there, none from the top.
    document.documentElement.scrollTop = 190 * 600;
    await fireEvent.scroll(window);
    await settle();
    const ids = cards().map((c) => c.getAttribute("data-session"));
    expect(ids).toContain(`${String(1800).padStart(8, "0")}-session`);
    expect(ids).not.toContain("00000000-session");
    expect(cards().length).toBeLessThan(WINDOW);
    document.documentElement.scrollTop = 0;
  });

  it("session grid: scrolling does not forget the measured row heights", async () => {
    localStorage.clear();
    const sessions = Array.from({ length: 600 }, (_, i) => session(i, "idle"));
    mockIPC((cmd) => {
      if (cmd === "list_sessions") return sessions;
      if (cmd === "session_index_progress") return { read: 600, total: 600, ready: true };
      return null;
    });
    const reset = vi.spyOn(VirtualWindow.prototype, "reset");
    render(SessionsView, { overview: null, onLoadDemo: () => {} });
    await waitFor(() => expect(screen.getAllByTestId("session-card").length).toBeGreaterThan(0));
    await settle();
    const before = reset.mock.calls.length;
    for (let i = 1; i <= 5; i++) {
      document.documentElement.scrollTop = 190 * 20 * i;
      await fireEvent.scroll(window);
      await settle();
    }
    expect(screen.getAllByTestId("session-card")[0]).not.toHaveAttribute("data-session", "00000000-session");
    // Heights are forgotten when the column count changes, not on every scroll step.
    expect(reset.mock.calls.length).toBe(before);
    reset.mockRestore();
    document.documentElement.scrollTop = 0;
  });

  it("session view says how far the index has read while it loads", async () => {
    mockIPC((cmd) => {
      if (cmd === "list_sessions") return [];
      if (cmd === "session_index_progress") return { read: 340, total: 1200, ready: false };
      return null;
    });
    render(SessionsView, { overview: null, onLoadDemo: () => {} });
    expect(await screen.findByTestId("sessions-progress")).toHaveTextContent("Reading sessions… 340 of 1,200");
  });

  it("side-by-side diff: 10,000 rows render a window; scrolling shows the rows there", async () => {
    const lines: DiffLine[] = [];
    for (let i = 1; i <= 5000; i++) {
      lines.push({ kind: "delete", oldNo: i, newNo: null, segments: [{ text: `old line ${i}`, changed: true }] });
    }
    for (let i = 1; i <= 5000; i++) {
      lines.push({ kind: "insert", oldNo: null, newNo: i, segments: [{ text: `new line ${i}`, changed: true }] });
    }
    for (let i = 5001; i <= 10000; i++) {
      lines.push({ kind: "equal", oldNo: i, newNo: i, segments: [{ text: `same line ${i}`, changed: false }] });
    }
    const diff = {
      fromHash: "a",
      toHash: "b",
      fromLabel: "approved",
      toLabel: "current",
      stats: { added: 5000, removed: 5000 },
      hunks: [{ oldStart: 1, newStart: 1, lines }],
      renderedHtml: "",
    } as unknown as PlanDiff;
    const { container } = render(DiffView, { diff, mode: "split" });
    const rows = () => [...container.querySelectorAll("table.split tr[data-row]")];
    await settle();
    // 5,000 paired changes + 5,000 equal lines = 10,000 rows, a window of them in the DOM.
    expect(rows().length).toBeGreaterThan(0);
    expect(rows().length).toBeLessThan(WINDOW);
    expect(rows()[0].textContent).toContain("old line 1");
    expect(rows()[0].textContent).toContain("new line 1");

    document.documentElement.scrollTop = 20 * 7000;
    await fireEvent.scroll(window);
    await settle();
    const text = rows().map((r) => r.textContent).join("\n");
    expect(text).toContain("same line 7000");
    expect(text).not.toContain("old line 1\n");
    expect(rows().length).toBeLessThan(WINDOW);
    document.documentElement.scrollTop = 0;
  });
});
