import { afterEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/svelte";
import { mockIPC } from "@tauri-apps/api/mocks";
import { emit } from "@tauri-apps/api/event";
import SessionsView from "./SessionsView.svelte";
import { sessionSummary, withFourthAgent } from "../test-fixtures";

const session = sessionSummary;

describe("SessionsView", () => {
  afterEach(() => vi.useRealTimers());
  it("filters by the agents core lists as having sessions, a fourth agent included", async () => {
    localStorage.clear();
    mockIPC((cmd) => {
      if (cmd === "list_agents") return withFourthAgent({});
      if (cmd === "list_sessions")
        return [
          session({ sessionId: "aaaaaaaa-claude" }),
          session({ sessionId: "bbbbbbbb-aider", agent: "aider" as ReturnType<typeof session>["agent"] }),
        ];
      return null;
    });
    render(SessionsView, { overview: null, onLoadDemo: () => {} });
    await waitFor(() => expect(screen.getAllByTestId("session-card").length).toBe(2));
    const select = screen.getByLabelText("Agent") as HTMLSelectElement;
    await waitFor(() => expect([...select.options].map((o) => o.value)).toEqual(["", "claude", "gemini", "codex", "aider"]));
    expect(select.options[4]).toHaveTextContent("Aider");
    await fireEvent.change(select, { target: { value: "aider" } });
    await waitFor(() => expect(screen.getAllByTestId("session-card").length).toBe(1));
    expect(screen.getByTestId("session-card")).toHaveAttribute("data-session", "bbbbbbbb-aider");
  });

  it("keeps core's order (those that need the person first) and shows their facts", async () => {
    localStorage.clear();
    mockIPC((cmd) =>
      cmd === "list_sessions"
        ? [
            session({
              sessionId: "bbbbbbbb-waiting",
              state: "waiting_for_approval",
              lastActivity: new Date(Date.now() - 3600_000).toISOString(),
              title: "plan pagination for the api",
              planPath: "/h/.claude/plans/p.md",
              reviewState: "changed",
              tasks: { done: 2, total: 5 },
              doing: "Edit src/orders.ts",
              unreadableLines: 3,
              usage: { inputTokens: 12_345, outputTokens: 4_100, costUsd: 0.42, partial: false },
            }),
            // Whatever order core gives is the one shown: the view does not order sessions again.
            session({ sessionId: "cccccccc-idle", state: "idle", lastActivity: new Date(Date.now() + 60_000).toISOString() }),
            session({ sessionId: "aaaaaaaa-working", state: "working", lastActivity: new Date().toISOString() }),
          ]
        : null,
    );
    render(SessionsView, { overview: null, onLoadDemo: () => {} });
    await waitFor(() => expect(screen.getAllByTestId("session-card").length).toBe(3));
    const cards = screen.getAllByTestId("session-card");
    expect(cards.map((c) => c.getAttribute("data-session"))).toEqual(["bbbbbbbb-waiting", "cccccccc-idle", "aaaaaaaa-working"]);
    expect(cards[0]).toHaveAttribute("data-session", "bbbbbbbb-waiting");
    expect(cards[0]).toHaveTextContent("waiting for approval");
    expect(cards[0]).toHaveTextContent("plan pagination for the api");
    expect(cards[0]).toHaveTextContent("2/5");
    // One line of what it does now; an ended session has none.
    expect(cards[0].querySelector('[data-testid="session-doing"]')).toHaveTextContent("Edit src/orders.ts");
    expect(cards[0]).toHaveTextContent("changed since approval");
    expect(cards[0]).toHaveTextContent("3 unreadable lines skipped");
    // Its tokens and cost, small; a session whose records tell none shows no line.
    expect(cards[0].querySelector('[data-testid="session-usage"]')).toHaveTextContent("12.3k in · 4.1k out · $0.42");
    expect(cards[1].querySelector('[data-testid="session-usage"]')).toBeNull();
  });

  it("reads the whole list again when a plan is written or decided, or a request comes or goes", async () => {
    localStorage.clear();
    let review: "unreviewed" | "approved" = "unreviewed";
    mockIPC(
      (cmd) => (cmd === "list_sessions" ? [session({ state: "idle", planPath: "/h/.claude/plans/p.md", reviewState: review })] : null),
      { shouldMockEvents: true },
    );
    render(SessionsView, { overview: null, onLoadDemo: () => {} });
    await waitFor(() => expect(screen.getAllByTestId("session-card").length).toBe(1));
    expect(screen.getByTestId("session-card")).not.toHaveTextContent("approved");
    review = "approved";
    await emit("plans:changed", { paths: ["/h/.claude/plans/p.md"], ids: ["p1"] });
    await waitFor(() => expect(screen.getByTestId("session-card")).toHaveTextContent("approved"), { timeout: 3000 });
    review = "unreviewed";
    await emit("gate:changed", { arrived: [], updated: [], closed: ["r1"] });
    await waitFor(() => expect(screen.getByTestId("session-card")).not.toHaveTextContent("approved"), { timeout: 3000 });
  });

  it("keeps a session that ended before the person's eyes in view, ended, with Resume (issue 34)", async () => {
    localStorage.clear();
    let state: "working" | "ended" = "working";
    mockIPC(
      (cmd) => {
        if (cmd === "list_sessions") return [session({ sessionId: "aaaaaaaa-mine", state }), session({ sessionId: "bbbbbbbb-old", state: "ended" })];
        if (cmd === "get_sessions") return [session({ sessionId: "aaaaaaaa-mine", state })];
        return null;
      },
      { shouldMockEvents: true },
    );
    render(SessionsView, { overview: null, onLoadDemo: () => {} });
    await waitFor(() => expect(screen.getAllByTestId("session-card").length).toBe(1));
    state = "ended";
    await emit("sessions:changed", { sessionIds: ["aaaaaaaa-mine"], startedWaiting: [] });
    await waitFor(() => expect(screen.getByTestId("session-card").querySelector("[data-testid=action-resume]")).not.toBeNull());
    // An old ended one stays behind the toggle.
    expect(screen.getAllByTestId("session-card")).toHaveLength(1);
    expect(screen.getByTestId("toggle-ended")).toHaveTextContent("Show 1 ended");
  });

  it("reloads once for a burst of changes from a live session, not once per change", async () => {
    localStorage.clear();
    // Fake timers that also move with the clock (testing-library's waits poll on them): the end
    // runs every timer due in the next ten seconds at once, instead of sleeping and hoping.
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let lists = 0;
    let release: () => void = () => {};
    mockIPC(
      (cmd) => {
        if (cmd !== "list_sessions" && cmd !== "get_sessions") return null;
        lists++;
        // The first reload after the burst is still running while the burst goes on.
        return lists === 2 ? new Promise((r) => (release = () => r([session({ state: "working" })]))) : [session({ state: "working" })];
      },
      { shouldMockEvents: true },
    );
    render(SessionsView, { overview: null, onLoadDemo: () => {} });
    await waitFor(() => expect(screen.getAllByTestId("session-card").length).toBe(1));
    expect(lists).toBe(1);
    const changed = { sessionIds: ["00000000-0000-0000-0000-000000000000"], startedWaiting: [] };
    for (let i = 0; i < 10; i++) await emit("sessions:changed", changed);
    expect(lists).toBe(2);
    release();
    // One more reload for everything that came while the first one ran.
    await waitFor(() => expect(lists).toBe(3), { timeout: 3000 });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(lists).toBe(3);
  });

  it("refreshes only the sessions a change names, and the whole list when many change", async () => {
    localStorage.clear();
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const calls: { cmd: string; ids?: string[] }[] = [];
    let live = [
      session({ sessionId: "aaaaaaaa-live", state: "working" }),
      session({ sessionId: "bbbbbbbb-other", state: "idle" }),
      session({ sessionId: "cccccccc-gone", state: "idle" }),
    ];
    mockIPC(
      (cmd, payload) => {
        if (cmd === "list_sessions") {
          calls.push({ cmd });
          return live;
        }
        if (cmd === "get_sessions") {
          const ids = (payload as { ids: string[] }).ids;
          calls.push({ cmd, ids: [...ids].sort() });
          return live.filter((s) => ids.includes(s.sessionId));
        }
        return null;
      },
      { shouldMockEvents: true },
    );
    render(SessionsView, { overview: null, onLoadDemo: () => {} });
    await waitFor(() => expect(screen.getAllByTestId("session-card").length).toBe(3));
    expect(calls).toEqual([{ cmd: "list_sessions" }]);
    const card = (id: string) => screen.queryAllByTestId("session-card").find((c) => c.getAttribute("data-session") === id);

    // The live session asks for approval, another session ended and went away: only those two are read.
    live = [session({ sessionId: "aaaaaaaa-live", state: "waiting_for_approval" }), live[1]];
    await emit("sessions:changed", { sessionIds: ["aaaaaaaa-live", "cccccccc-gone"], startedWaiting: ["aaaaaaaa-live"] });
    await waitFor(() => expect(card("aaaaaaaa-live")).toHaveTextContent("waiting for approval"));
    await waitFor(() => expect(card("cccccccc-gone")).toBeUndefined());
    expect(card("bbbbbbbb-other")).toBeDefined();
    expect(calls.slice(1)).toEqual([{ cmd: "get_sessions", ids: ["aaaaaaaa-live", "cccccccc-gone"] }]);

    // A new session shows up from its own change.
    live = [...live, session({ sessionId: "dddddddd-new", state: "working" })];
    // Past the reload's coalescing window, on the fake clock.
    await vi.advanceTimersByTimeAsync(600);
    await emit("sessions:changed", { sessionIds: ["dddddddd-new"], startedWaiting: [] });
    await waitFor(() => expect(card("dddddddd-new")).toBeDefined());
    expect(calls.at(-1)).toEqual({ cmd: "get_sessions", ids: ["dddddddd-new"] });

    // Many at once (the index coming in): the whole list is read again.
    await vi.advanceTimersByTimeAsync(600);
    const many = Array.from({ length: 100 }, (_, i) => `id-${i}`);
    await emit("sessions:changed", { sessionIds: many, startedWaiting: [] });
    await waitFor(() => expect(calls.at(-1)).toEqual({ cmd: "list_sessions" }));
  });

  it("shows live terminals side by side, only for running sessions, at most eight", async () => {
    localStorage.clear();
    const opened: string[] = [];
    const closed: string[] = [];
    const ids = ["s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9"];
    mockIPC((cmd, args) => {
      if (cmd === "list_sessions")
        return [
          ...ids.map((id) => session({ sessionId: id, state: "working", pid: 100 })),
          session({ sessionId: "gone", state: "ended", pid: null }),
        ];
      if (cmd === "open_terminal") {
        const id = (args as { sessionId: string }).sessionId;
        opened.push(id);
        // A pane that cannot be shown says why, in the panel.
        throw { kind: "unsupported", message: `session ${id} does not run in a tmux pane` };
      }
      if (cmd === "close_terminal") closed.push((args as { view: string }).view);
      return null;
    });
    render(SessionsView, { overview: null, onLoadDemo: () => {} });
    await waitFor(() => expect(screen.getAllByTestId("session-card").length).toBe(9));
    // Ended sessions are behind "Show ended"; shown, they offer no terminal.
    await fireEvent.click(screen.getByTestId("toggle-ended"));
    await waitFor(() => expect(screen.getAllByTestId("session-card").length).toBe(10));
    const card = (id: string) => screen.getAllByTestId("session-card").find((c) => c.getAttribute("data-session") === id)!;
    expect(card("gone").querySelector('[data-testid="watch-terminal"]')).toBeNull();
    for (const id of ids) await fireEvent.click(card(id).querySelector('[data-testid="watch-terminal"]')!);
    await waitFor(() => expect(screen.getAllByTestId("terminal-panel").length).toBe(8));
    expect(screen.getAllByTestId("terminal-panel").map((p) => p.getAttribute("data-session"))).toEqual(ids.slice(1));
    expect(screen.getByText(/At most 8 terminals side by side/)).toBeInTheDocument();
    await waitFor(() => expect(screen.getAllByTestId("terminal-error").length).toBe(8));
    expect(screen.getAllByTestId("terminal-error")[0]).toHaveTextContent("does not run in a tmux pane");
    expect(opened).toEqual(ids);
    // Closing a panel takes it away; its button toggles too.
    await fireEvent.click(screen.getAllByTestId("terminal-close")[0]);
    await waitFor(() => expect(screen.getAllByTestId("terminal-panel").length).toBe(7));
    await fireEvent.click(card("s9").querySelector('[data-testid="watch-terminal"]')!);
    await waitFor(() => expect(screen.getAllByTestId("terminal-panel").length).toBe(6));
  });
});

describe("SessionsView: agent teams", () => {
  const lead = "4b87e72c-17f0-455d-b7a6-8b41f610789d";
  const paneMate = "b673eee8-ccc4-4cb8-93cd-bf215a123213";
  const teams = [
    {
      name: "session-4b87e72c",
      leadSessionId: lead,
      members: [
        { name: "planner", backend: "tmux", planModeRequired: true, sessionId: paneMate, requestId: "r1", planStatus: "waiting", planPath: "/h/.claude/plans/cached-wobbling-glade.md", leadVerdict: null },
        { name: "tester", backend: "in-process", planModeRequired: true, sessionId: null, requestId: "r2", planStatus: "approved", planPath: "/h/.claude/plans/x-agent-atester-0123456789abcdef.md", leadVerdict: "[Plan Approved] You can now proceed with implementation" },
        { name: "scout", backend: "in-process", planModeRequired: true, sessionId: null, requestId: null, planStatus: null, planPath: null, leadVerdict: null },
      ],
    },
  ];

  it("nests a lead's teammates in its card, each with its state and plan, and shows a pane teammate there only", async () => {
    localStorage.clear();
    const opened: string[] = [];
    mockIPC((cmd) => {
      if (cmd === "list_sessions") return [session({ sessionId: lead }), session({ sessionId: paneMate }), session({ sessionId: "cccccccc-alone" })];
      if (cmd === "list_teams") return teams;
      return null;
    });
    render(SessionsView, { overview: null, onLoadDemo: () => {}, onOpenPlan: (p: string) => opened.push(p) });
    await waitFor(() => expect(screen.getAllByTestId("session-card").length).toBe(2));
    const cards = screen.getAllByTestId("session-card");
    expect(cards.map((c) => c.getAttribute("data-session"))).toEqual([lead, "cccccccc-alone"]);
    const team = within(cards[0]).getByTestId("team-members");
    expect(team).toHaveTextContent("Team session-4b87e72c · 3 teammates");
    const mates = within(team).getAllByTestId("teammate");
    expect(mates.map((m) => m.getAttribute("data-name"))).toEqual(["planner", "tester", "scout"]);
    expect(within(mates[0]).getByTestId("teammate-state")).toHaveTextContent("plan waiting for you");
    expect(mates[0]).toHaveTextContent("own pane");
    expect(within(mates[1]).getByTestId("teammate-state")).toHaveTextContent("plan approved");
    expect(within(mates[1]).getByTestId("teammate-lead-verdict")).toHaveTextContent("lead: [Plan Approved]");
    expect(within(mates[2]).getByTestId("teammate-state")).toHaveTextContent("planning");
    await fireEvent.click(within(mates[0]).getByText("cached-wobbling-glade.md"));
    expect(opened).toEqual(["/h/.claude/plans/cached-wobbling-glade.md"]);
    expect(within(cards[1]).queryByTestId("team-members")).toBeNull();
  });
});
