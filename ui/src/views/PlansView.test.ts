import { describe, expect, it } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/svelte";
import { mockIPC } from "@tauri-apps/api/mocks";
import { emit } from "@tauri-apps/api/event";
import PlansView from "./PlansView.svelte";
// The panes PlansView loads when a plan is selected (lib/later.ts): compiled here once, so a case
// waits for the pane, not for the test server's first transform of it.
import "./PlanDetail.svelte";
import "../components/TranscriptHistory.svelte";
import { where } from "../lib/paths.svelte";
import type { PlanSummary } from "../lib/bindings";
import { withFourthAgent } from "../test-fixtures";

function plan(over: Partial<PlanSummary>): PlanSummary {
  return {
    id: "p1",
    machine: null,
    path: "/home/ann/.claude/plans/a.md",
    agent: "claude",
    title: "Plan: add pagination",
    project: "/home/ann/src/shop",
    sessionId: null,
    gitBranch: null,
    state: "unreviewed",
    decidedIn: null,
    waitingRequest: null,
    updatedAt: new Date().toISOString(),
    sizeBytes: 10,
    problem: null,
    subagentId: null,
    ...over,
  };
}

/** The view over `plans` (a plan's detail never arrives), with `agents` as core's list. */
function showPlans(plans: PlanSummary[], agents: unknown = null) {
  mockIPC((cmd) => {
    if (cmd === "list_agents") return agents;
    if (cmd === "list_plans") return { plans, problems: [] };
    if (cmd === "transcript_plans") return [];
    if (cmd === "get_plan") return new Promise(() => {});
    return null;
  });
  render(PlansView, { overview: null, onLoadDemo: () => {} });
}

describe("PlansView", () => {
  it("draws the plans handed over with the page at once, then takes the IPC answer (lib/first.ts)", async () => {
    // IPC answers only when let go: the first frame cannot have waited for it.
    let answer: ((v: unknown) => void) | undefined;
    mockIPC((cmd) => {
      if (cmd === "list_plans") return new Promise((r) => (answer = r));
      if (cmd === "transcript_plans") return [];
      if (cmd === "get_plan") return new Promise(() => {});
      return null;
    });
    window.__PLANDECK_FIRST__ = { plans: { plans: [plan({ id: "p1" })], problems: [] } };
    render(PlansView, { overview: null, onLoadDemo: () => {} });
    // Rendered synchronously with the component, no IPC round trip.
    expect(screen.getAllByTestId("plan-row")).toHaveLength(1);
    expect(screen.getByTestId("plan-row")).toHaveTextContent("Plan: add pagination");
    // Taken once: a view mounted later asks by IPC.
    expect(window.__PLANDECK_FIRST__).toEqual({});
    // The IPC answer (asked as before) replaces it.
    await waitFor(() => expect(answer).toBeDefined());
    answer!({ plans: [plan({ id: "p1" }), plan({ id: "p2", path: "/home/ann/.claude/plans/b.md", title: "Plan: cache pages" })], problems: [] });
    await waitFor(() => expect(screen.getAllByTestId("plan-row")).toHaveLength(2));
    delete window.__PLANDECK_FIRST__;
  });

  it("a heavy home's first frame draws the rows handed over and the count of all, the plan pane after it; the rest comes by IPC (issue 34)", async () => {
    let answer: ((v: unknown) => void) | undefined;
    mockIPC((cmd) => {
      if (cmd === "list_plans") return new Promise((r) => (answer = r));
      if (cmd === "transcript_plans") return [];
      if (cmd === "get_plan") return new Promise(() => {});
      return null;
    });
    const all = Array.from({ length: 300 }, (_, i) => plan({ id: `p${i}`, path: `/home/ann/.claude/plans/p${i}.md`, title: `Plan: step ${i}` }));
    window.__PLANDECK_FIRST__ = { plans: { plans: all.slice(0, 2), problems: [] }, plansTotal: 300 };
    render(PlansView, { overview: null, onLoadDemo: () => {} });
    // The first frame: the rows handed over, how many plans there are in all, no plan pane yet.
    expect(screen.getAllByTestId("plan-row")).toHaveLength(2);
    expect(screen.getByTestId("plans-count")).toHaveTextContent(/^300$/);
    expect(screen.queryByTestId("plan-detail")).toBeNull();
    // Nor the filters (the search is there).
    expect(screen.getByTestId("plan-search")).toBeInTheDocument();
    expect(screen.queryByLabelText("Review state")).toBeNull();
    expect(window.__PLANDECK_FIRST__).toEqual({});
    // The plan pane and the filters come after the first paint, the whole list from `list_plans`.
    expect(await screen.findByTestId("plan-detail")).toBeInTheDocument();
    expect(await screen.findByLabelText("Review state")).toBeInTheDocument();
    await waitFor(() => expect(answer).toBeDefined());
    answer!({ plans: all, problems: [] });
    await waitFor(() => expect(screen.getAllByTestId("plan-row").length).toBeGreaterThan(2));
    expect(screen.getByTestId("plans-count")).toHaveTextContent(/^300$/);
    delete window.__PLANDECK_FIRST__;
  });

  it("filters by the agents core lists as writing plans, a fourth agent included", async () => {
    const plans = [
      plan({ id: "p1" }),
      plan({ id: "p2", agent: "aider" as PlanSummary["agent"], path: "/home/ann/.aider/plans/b.md", title: "Plan: cache pages" }),
    ];
    showPlans(plans, withFourthAgent({ plans: true }));
    await waitFor(() => expect(screen.getAllByTestId("plan-row").length).toBe(2));
    const select = (await screen.findByLabelText("Agent")) as HTMLSelectElement;
    // Codex writes no plans: not offered.
    await waitFor(() => expect([...select.options].map((o) => o.value)).toEqual(["", "claude", "gemini", "aider", "other"]));
    expect(select.options[3]).toHaveTextContent("Aider");
    await fireEvent.change(select, { target: { value: "aider" } });
    await waitFor(() => expect(screen.getAllByTestId("plan-row").length).toBe(1));
    expect(screen.getByTestId("plan-row")).toHaveTextContent("Plan: cache pages");
  });

  it("tells plans with the same title apart by their slug, and writes paths from ~ with the full path on hover", async () => {
    where.home = "/home/ann";
    const plans = [
      plan({ id: "p1", path: "/home/ann/.claude/plans/shop-pagination-brisk-otter.md" }),
      plan({ id: "p2", path: "/home/ann/.claude/plans/api-pagination-calm-heron.md", project: "/home/ann/src/api" }),
      plan({ id: "p3", path: "/home/ann/.claude/plans/cache-quiet-fox.md", title: "Plan: cache pages" }),
    ];
    showPlans(plans);
    await waitFor(() => expect(screen.getAllByTestId("plan-row").length).toBe(3));
    const slugs = screen.getAllByTestId("plan-slug").map((e) => e.textContent);
    expect(slugs).toEqual(["shop-pagination-brisk-otter", "api-pagination-calm-heron"]);
    const rows = screen.getAllByTestId("plan-row");
    expect(rows[0]).toHaveTextContent("~/src/shop");
    expect(rows[0].querySelector("[title='/home/ann/src/shop']")).not.toBeNull();
    expect(rows[0]).not.toHaveTextContent("/home/ann");
    expect(rows[0]).toHaveAttribute("aria-current", "true");
    expect(rows[1]).not.toHaveAttribute("aria-current");
    where.home = "";
  });

  it("tells recovered plans with the same title apart by slug or session", async () => {
    const rec = (id: string, path: string | null, sessionId: string) => ({
      id, agent: "codex", sessionId, path, project: "/w/api", title: "Plan: add pagination", text: "", state: null, source: "transcript", subagent: false, versions: [],
    });
    mockIPC((cmd) => {
      if (cmd === "list_plans") return { plans: [], problems: [] };
      if (cmd === "transcript_plans") return [rec("t1", "/h/.claude/plans/api-pages-calm-owl.md", "aaaaaaaa-1"), rec("t2", null, "bbbbbbbb-2")];
      return null;
    });
    render(PlansView, { overview: null, onLoadDemo: () => {} });
    await waitFor(() => expect(screen.getAllByTestId("transcript-row").length).toBe(2));
    expect(screen.getAllByTestId("plan-slug").map((e) => e.textContent)).toEqual(["api-pages-calm-owl", "session bbbbbbbb"]);
  });

  it("opens a restored plan on the machine it was restored on, not a plan at the same path here", async () => {
    const path = "/home/ann/.claude/plans/a.md";
    const rec = { id: "@lab/t1", machine: "lab", agent: "claude", sessionId: "aaaaaaaa-1", path, project: "/w/api", title: "Plan: from lab", text: "# Plan: from lab\n", state: null, source: "transcript", subagent: false, versions: [] };
    let restored = false;
    mockIPC((cmd) => {
      if (cmd === "list_plans")
        return { plans: restored ? [plan({ id: "here1", path }), plan({ id: "@lab/p9", machine: "lab", path, title: "Plan: from lab" })] : [plan({ id: "here1", path })], problems: [] };
      if (cmd === "transcript_plans") return restored ? [] : [rec];
      if (cmd === "recovered_plan") return { plan: rec, html: "<h1>Plan: from lab</h1>" };
      if (cmd === "restore_plan") {
        restored = true;
        return { id: "@lab/t1", path, written: true };
      }
      if (cmd === "get_plan") return new Promise(() => {});
      return null;
    });
    render(PlansView, { overview: null, onLoadDemo: () => {} });
    await fireEvent.click(await screen.findByTestId("transcript-row"));
    await fireEvent.click(await screen.findByTestId("restore-plan"));
    await screen.findByTestId("restore-notice");
    await waitFor(() => expect(screen.getAllByTestId("plan-row")).toHaveLength(2));
    const selected = () => screen.getAllByTestId("plan-row").find((r) => r.getAttribute("aria-current") === "true");
    await waitFor(() => expect(selected()).toHaveAttribute("data-id", "@lab/p9"));
  });

  it("search shows each plan's snippet as text with the hits highlighted, markup inert", async () => {
    const plans = [plan({ id: "p1" }), plan({ id: "p2", title: "Plan: cache pages" })];
    const snippet = "…use the <b>cursor</b> and a Cursor header";
    mockIPC((cmd, args: any) => {
      if (cmd === "list_plans") return { plans, problems: [] };
      if (cmd === "transcript_plans") return [];
      if (cmd === "get_plan") return new Promise(() => {});
      if (cmd === "search_plans" && args.query === "cursor")
        return [{ id: "p2", title: "Plan: cache pages", snippet, matches: [{ start: 12, end: 18 }, { start: 29, end: 35 }] }];
      return null;
    });
    render(PlansView, { overview: null, onLoadDemo: () => {} });
    await waitFor(() => expect(screen.getAllByTestId("plan-row").length).toBe(2));
    await fireEvent.input(screen.getByTestId("plan-search"), { target: { value: "cursor" } });
    const shown = await screen.findByTestId("search-snippet");
    expect(screen.getAllByTestId("plan-row")).toHaveLength(1);
    expect(shown.textContent).toBe(snippet);
    expect([...shown.querySelectorAll("mark")].map((m) => m.textContent)).toEqual(["cursor", "Cursor"]);
    expect(shown.querySelector("b")).toBeNull();
  });

  it("j and k move the selection and the focus with it", async () => {
    const plans = [plan({ id: "p1", title: "One" }), plan({ id: "p2", title: "Two" })];
    mockIPC((cmd) => {
      if (cmd === "list_plans") return { plans, problems: [] };
      if (cmd === "transcript_plans") return [];
      if (cmd === "get_plan") return new Promise(() => {});
      return null;
    });
    render(PlansView, { overview: null, onLoadDemo: () => {} });
    await waitFor(() => expect(screen.getAllByTestId("plan-row").length).toBe(2));
    await fireEvent.keyDown(window, { key: "j" });
    const rows = screen.getAllByTestId("plan-row");
    await waitFor(() => expect(document.activeElement).toBe(rows[1]));
    expect(rows[1]).toHaveAttribute("aria-current", "true");
    await fireEvent.keyDown(rows[1], { key: "k" });
    await waitFor(() => expect(document.activeElement).toBe(rows[0]));
  });

  it("shows one state per plan from every source, filters the waiting ones, and follows gate requests live", async () => {
    let plans = [
      plan({ id: "p1", title: "Hook said no", state: "rejected", decidedIn: "hook" }),
      plan({ id: "p2", title: "Terminal said yes", state: "approved", decidedIn: "terminal" }),
      plan({ id: "p3", title: "Nobody yet" }),
    ];
    mockIPC(
      (cmd) => {
        if (cmd === "list_plans") return { plans, problems: [] };
        if (cmd === "transcript_plans") return [];
        if (cmd === "get_plan") return new Promise(() => {});
        return null;
      },
      { shouldMockEvents: true },
    );
    render(PlansView, { overview: null, onLoadDemo: () => {} });
    await waitFor(() => expect(screen.getAllByTestId("plan-row").length).toBe(3));
    const badge = (title: string) => screen.getByText(title).closest("[data-testid=plan-row]")!.querySelector("[data-state]")!;
    expect(badge("Hook said no")).toHaveTextContent("rejected by a hook");
    expect(badge("Terminal said yes")).toHaveTextContent("approved in the terminal");
    expect(badge("Nobody yet")).toHaveTextContent("unreviewed");

    // An agent files a request for the third plan: the list follows without a plans:changed.
    plans = [plans[0], plans[1], { ...plans[2], state: "waiting", waitingRequest: "r1" }];
    await emit("gate:changed", { arrived: ["r1"], updated: [], closed: [] });
    await waitFor(() => expect(badge("Nobody yet")).toHaveTextContent("waiting for you"));
    await fireEvent.change(await screen.findByLabelText("Review state"), { target: { value: "waiting" } });
    await waitFor(() => expect(screen.getAllByTestId("plan-row").map((r) => r.textContent)).toEqual([expect.stringContaining("Nobody yet")]));
  });

  it("an empty home shows no search or filters, only what adds plans", async () => {
    showPlans([]);
    await waitFor(() => expect(screen.getByRole("button", { name: /Add folder/ })).toBeInTheDocument());
    await waitFor(() => expect(screen.queryByTestId("plan-search")).toBeNull());
    expect(screen.queryByLabelText("Agent")).toBeNull();
    expect(screen.queryByLabelText("Review state")).toBeNull();
  });

  it("the transcripts read count follows transcripts read after the first scan", async () => {
    let files = 2;
    mockIPC((cmd) => {
      if (cmd === "list_plans") return { plans: [plan({})], problems: [] };
      if (cmd === "transcript_plans") return [];
      if (cmd === "history_progress") return { filesDone: files, files, bytesDone: 0, bytes: 0, done: true };
      if (cmd === "get_plan") return new Promise(() => {});
      return null;
    }, { shouldMockEvents: true });
    render(PlansView, { overview: null, onLoadDemo: () => {} });
    await waitFor(() => expect(screen.getByTestId("transcripts-progress")).toHaveTextContent("Read 2 of 2 transcripts"));
    files = 3;
    await emit("history:changed", {});
    await waitFor(() => expect(screen.getByTestId("transcripts-progress")).toHaveTextContent("Read 3 of 3 transcripts"));
  });
});
