import { describe, expect, it } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/svelte";
import { mockIPC } from "@tauri-apps/api/mocks";
import { emit } from "@tauri-apps/api/event";
import AcpSessions from "./AcpSessions.svelte";
import type { AcpSession } from "../lib/bindings";

const hosted = (over: Partial<AcpSession> = {}): AcpSession => ({
  id: "acps-1",
  agent: "claude-acp",
  displayName: "Claude Code (ACP)",
  cwd: "/home/dev/work/api",
  sessionId: "s1",
  state: "idle",
  mode: "plan",
  modes: ["default", "plan"],
  gated: true,
  ungatedWhy: null,
  usage: { inputTokens: 10, outputTokens: 5, costUsd: 0.00054 },
  canLoad: true,
  problem: null,
  hostPid: 10,
  hostStartTime: null,
  agentPid: 11,
  started: "2026-11-28T20:00:00Z",
  updated: "2026-11-28T20:00:01Z",
  machine: null,
  entries: [
    { kind: "user", text: "Plan pagination.", toolCallId: null, toolKind: null, status: null, plan: [], html: "<p>Plan pagination.</p>" },
    { kind: "thought", text: "x", toolCallId: null, toolKind: null, status: null, plan: [], html: "<p>Thinking</p>" },
    { kind: "agent", text: "y", toolCallId: null, toolKind: null, status: null, plan: [], html: "<p>Here is <strong>my</strong> plan.</p>" },
    { kind: "tool", text: "Ready to code? <img src=x onerror=alert(1)>", toolCallId: "t1", toolKind: "switch_mode", status: "completed", plan: [], html: null },
    { kind: "plan", text: "", toolCallId: null, toolKind: null, status: null, plan: [["pending", "Add <b>page</b> params"]], html: null },
  ],
  ...over,
});

describe("AcpSessions", () => {
  it("reads the sessions again when the server says a record changed, with no polling", async () => {
    let state = "working";
    let mode = "plan";
    let lists = 0;
    mockIPC(
      (cmd) => {
        if (cmd === "list_acp_sessions") {
          lists++;
          return [hosted({ state, mode })];
        }
        if (cmd === "acp_session") return hosted({ state, mode });
      },
      { shouldMockEvents: true },
    );
    // The fallback tick is far off: only the event can update the view.
    render(AcpSessions, { pollMs: 3_600_000 });
    const card = await screen.findByTestId("acp-card");
    expect(within(card).getByTestId("acp-state")).toHaveTextContent("working");
    await fireEvent.click(card);
    await waitFor(() => expect(screen.getByTestId("acp-view-mode")).toHaveTextContent("plan"));
    const before = lists;
    state = "idle";
    mode = "default";
    await emit("acp:changed", { ids: ["acps-1"] });
    await waitFor(() => expect(within(screen.getByTestId("acp-card")).getByTestId("acp-state")).toHaveTextContent("idle"));
    await waitFor(() => expect(screen.getByTestId("acp-view-mode")).toHaveTextContent("default"));
    expect(lists).toBe(before + 1);
  });

  it("shows each hosted session's card with its state, tokens and cost, and opens its conversation", async () => {
    mockIPC((cmd) => {
      if (cmd === "list_acp_sessions") return [hosted()];
      if (cmd === "acp_session") return hosted();
    });
    render(AcpSessions, { pollMs: 60_000 });
    const card = await screen.findByTestId("acp-card");
    expect(card).toHaveTextContent("claude-acp");
    expect(within(card).getByTestId("acp-state")).toHaveTextContent("idle");
    expect(within(card).getByTestId("acp-tokens")).toHaveTextContent("10 in · 5 out");
    expect(within(card).getByTestId("acp-cost")).toHaveTextContent("$0.0005");
    expect(within(card).queryByTestId("acp-ungated")).toBeNull();
    await fireEvent.click(card);
    const view = await screen.findByTestId("acp-view");
    expect(within(view).getByTestId("acp-view-mode")).toHaveTextContent("plan");
    // Thoughts are folded; tool calls carry their status; the plan's entries theirs.
    expect(within(view).getByTestId("acp-thought").hasAttribute("open")).toBe(false);
    expect(within(view).getByTestId("acp-tool-status")).toHaveTextContent("completed");
    expect(within(view).getByTestId("acp-tool")).toHaveTextContent("<img src=x onerror=alert(1)>");
    expect(within(view).getByTestId("acp-plan")).toHaveTextContent("Add <b>page</b> params");
    expect(view.querySelector("img, b")).toBeNull();
    expect(within(view).getAllByTestId("acp-message")[1].querySelector("strong")).not.toBeNull();
  });

  it("sends only when no turn runs, interrupts a turn, and shows what Stop ends first", async () => {
    const steered: any[] = [];
    let state = "idle";
    mockIPC((cmd, args: any) => {
      if (cmd === "list_acp_sessions") return [hosted({ state })];
      if (cmd === "acp_session") return hosted({ state });
      if (cmd === "steer_acp_session") {
        steered.push(args);
        return null;
      }
      if (cmd === "acp_stop_preview") {
        expect(args).toEqual({ id: "acps-1" });
        return [
          { pid: 11, command: "node /usr/lib/node_modules/@zed-industries/claude-agent-acp/dist/index.js" },
          { pid: 12, command: "claude --output-format stream-json" },
        ];
      }
    });
    render(AcpSessions, { pollMs: 60_000 });
    await fireEvent.click(await screen.findByTestId("acp-card"));
    const box = await screen.findByTestId("acp-text");
    await fireEvent.input(box, { target: { value: "hello there" } });
    await fireEvent.click(screen.getByTestId("acp-send"));
    await waitFor(() => expect(steered[0]).toEqual({ id: "acps-1", command: { command: "send", text: "hello there" } }));
    expect(screen.getByTestId("acp-interrupt")).toBeDisabled();
    state = "working";
    await fireEvent.click(screen.getByTestId("acp-card"));
    await fireEvent.click(screen.getByTestId("acp-card"));
    await waitFor(() => expect(screen.getByTestId("acp-send")).toBeDisabled());
    await fireEvent.click(screen.getByTestId("acp-interrupt"));
    await waitFor(() => expect(steered[1]).toEqual({ id: "acps-1", command: { command: "interrupt" } }));
    await fireEvent.click(screen.getByTestId("acp-stop"));
    expect(await screen.findByTestId("acp-stop-confirm")).toHaveTextContent("pid 11");
    // Every process it ends, listed before it ends them: the agent first.
    const listed = await screen.findByTestId("acp-stop-processes");
    expect(within(listed).getAllByRole("listitem").map((li) => li.textContent)).toEqual([
      "11 node /usr/lib/node_modules/@zed-industries/claude-agent-acp/dist/index.js",
      "12 claude --output-format stream-json",
    ]);
    expect(steered.length).toBe(2);
    await fireEvent.click(screen.getByTestId("acp-stop-yes"));
    await waitFor(() => expect(steered[2]).toEqual({ id: "acps-1", command: { command: "stop" } }));
  });

  it("offers Resume for a session whose host ended, and asks its server to load it", async () => {
    const steered: any[] = [];
    mockIPC((cmd, args: any) => {
      if (cmd === "list_acp_sessions") return [hosted({ state: "ended" })];
      if (cmd === "acp_session") return hosted({ state: "ended" });
      if (cmd === "steer_acp_session") {
        steered.push(args);
        return null;
      }
    });
    render(AcpSessions, { pollMs: 60_000 });
    await fireEvent.click(await screen.findByTestId("acp-card"));
    await fireEvent.click(await screen.findByTestId("acp-resume"));
    await waitFor(() => expect(steered).toEqual([{ id: "acps-1", command: { command: "resume" } }]));
    expect(screen.getByTestId("acp-said")).toHaveTextContent("session/load");
    expect(screen.queryByTestId("acp-send")).toBeNull();
  });

  it("says an agent that cannot resume cannot, and offers a new session in the same folder", async () => {
    const started: any[] = [];
    mockIPC((cmd, args: any) => {
      if (cmd === "list_acp_sessions") return [hosted({ state: "ended", canLoad: false })];
      if (cmd === "acp_session") return hosted({ state: "ended", canLoad: false });
      if (cmd === "start_acp_session") {
        started.push(args);
        return { id: "acps-2", agent: "claude-acp", cwd: "/home/dev/work/api", worktree: null, branch: null, plan: false };
      }
    });
    render(AcpSessions, { pollMs: 60_000 });
    await fireEvent.click(await screen.findByTestId("acp-card"));
    const note = await screen.findByTestId("acp-cannot-resume");
    expect(note).toHaveTextContent("Claude Code (ACP) cannot resume this session: it does not offer loading an earlier one.");
    expect(screen.queryByTestId("acp-resume")).toBeNull();
    await fireEvent.click(within(note).getByTestId("acp-start-new"));
    await waitFor(() =>
      expect(started).toEqual([{ agent: "claude-acp", repo: "/home/dev/work/api", worktree: null, base: null, plan: false, prompt: null }]),
    );
  });

  it("turns a Resume its agent refuses into the same offer, not an error", async () => {
    mockIPC((cmd) => {
      if (cmd === "list_acp_sessions") return [hosted({ state: "ended", canLoad: null })];
      if (cmd === "acp_session") return hosted({ state: "ended", canLoad: null });
      if (cmd === "steer_acp_session") throw { kind: "unsupported", message: "Claude Code (ACP) cannot resume a session" };
    });
    render(AcpSessions, { pollMs: 60_000 });
    await fireEvent.click(await screen.findByTestId("acp-card"));
    await fireEvent.click(await screen.findByTestId("acp-resume"));
    expect(await screen.findByTestId("acp-cannot-resume")).toHaveTextContent("cannot resume this session");
    expect(screen.getByTestId("acp-start-new")).toHaveTextContent("Start a new session");
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("marks an ungated session on its card", async () => {
    mockIPC((cmd) => (cmd === "list_acp_sessions" ? [hosted({ gated: false, ungatedWhy: "it left plan mode" })] : null));
    render(AcpSessions, { pollMs: 60_000 });
    expect(await screen.findByTestId("acp-ungated")).toHaveAttribute("title", "it left plan mode");
  });
});
