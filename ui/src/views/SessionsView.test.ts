import { describe, expect, it } from "vitest";
import { render, screen, waitFor } from "@testing-library/svelte";
import { mockIPC } from "@tauri-apps/api/mocks";
import SessionsView from "./SessionsView.svelte";
import type { SessionSummary } from "../lib/bindings";

const session = (over: Partial<SessionSummary>): SessionSummary =>
  ({
    agent: "claude",
    sessionId: "00000000-0000-0000-0000-000000000000",
    cwd: "/h/work/api",
    state: "idle",
    permissionMode: null,
    planPath: null,
    worktree: null,
    lastActivity: new Date().toISOString(),
    gitBranch: null,
    tmuxPane: null,
    pid: null,
    version: null,
    model: null,
    name: null,
    title: null,
    unreadableLines: 0,
    tasks: null,
    transcriptPath: null,
    reviewState: null,
    ...over,
  }) as SessionSummary;

describe("SessionsView", () => {
  it("puts sessions that need the person first and shows their facts", async () => {
    localStorage.clear();
    mockIPC((cmd) =>
      cmd === "list_sessions"
        ? [
            session({ sessionId: "aaaaaaaa-working", state: "working", lastActivity: new Date().toISOString() }),
            session({
              sessionId: "bbbbbbbb-waiting",
              state: "waiting_for_approval",
              lastActivity: new Date(Date.now() - 3600_000).toISOString(),
              title: "plan pagination for the api",
              planPath: "/h/.claude/plans/p.md",
              reviewState: "changed",
              tasks: { done: 2, total: 5 },
              unreadableLines: 3,
            }),
          ]
        : null,
    );
    render(SessionsView, { overview: null, onLoadDemo: () => {} });
    await waitFor(() => expect(screen.getAllByTestId("session-card").length).toBe(2));
    const cards = screen.getAllByTestId("session-card");
    expect(cards[0]).toHaveAttribute("data-session", "bbbbbbbb-waiting");
    expect(cards[0]).toHaveTextContent("waiting for approval");
    expect(cards[0]).toHaveTextContent("plan pagination for the api");
    expect(cards[0]).toHaveTextContent("2/5");
    expect(cards[0]).toHaveTextContent("changed since approval");
    expect(cards[0]).toHaveTextContent("3 unreadable lines skipped");
  });
});
