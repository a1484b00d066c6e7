import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/svelte";
import { mockIPC } from "@tauri-apps/api/mocks";
import { emit } from "@tauri-apps/api/event";
import WaitingQueue from "./WaitingQueue.svelte";
import { acpPermission, agentList, gateRequest } from "../test-fixtures";

const request = gateRequest;

describe("WaitingQueue", () => {
  it("shows an ACP agent's permission as data, with its own options, and answers with the one clicked", async () => {
    const calls: any[] = [];
    mockIPC((cmd, args: any) => {
      if (cmd === "list_pending") return [acpPermission()];
      if (cmd === "decide_request") {
        calls.push(args);
        return { requestId: "acp-1", delivered: true, message: "Approved: claude-acp answered with its option.", status: "approved", delivery: "delivered" };
      }
    });
    render(WaitingQueue);
    const row = await screen.findByTestId("gate-request");
    expect(within(row).getByTestId("gate-acp-agent")).toHaveTextContent("claude-acp");
    expect(within(row).getByTestId("gate-kind")).toHaveTextContent("permission");
    // The agent's words are text: no element made of them.
    expect(row).toHaveTextContent("Run <img src=x onerror=alert(1)> ls");
    expect(row.querySelector("img, b, script")).toBeNull();
    expect(within(row).getByTestId("gate-acp-command")).toHaveTextContent("rm -rf <b>/</b>");
    expect(within(row).getByTestId("gate-acp-path")).toHaveTextContent("/r/src/a.rs");
    expect(within(row).getByTestId("gate-acp-diff")).toHaveTextContent("+ new <script>line</script>");
    // The agent's own options, in its words; no card modes, no edit.
    const options = within(row).getAllByTestId("gate-acp-option");
    expect(options.map((b) => b.textContent)).toEqual(["Always allow", "Allow once", "Reject"]);
    expect(within(row).queryByTestId("gate-approve-auto")).toBeNull();
    expect(within(row).queryByTestId("gate-edit")).toBeNull();
    await fireEvent.click(options[1]);
    await waitFor(() => expect(calls[0]).toMatchObject({ id: "acp-1", option: "once", decision: { decision: "approve", mode: "manual" } }));
    // A plan permission's hash is none: nothing to send back.
    expect(calls[0].seenHash).toBeNull();
  });

  it("rejects an ACP request with the agent's reject option and the feedback typed", async () => {
    const calls: any[] = [];
    mockIPC((cmd, args: any) => {
      if (cmd === "list_pending") return [acpPermission()];
      if (cmd === "decide_request") {
        calls.push(args);
        return { requestId: "acp-1", delivered: true, message: "Rejected.", status: "rejected", delivery: "delivered" };
      }
    });
    render(WaitingQueue);
    await fireEvent.click(await screen.findByTestId("gate-acp-feedback-toggle"));
    const box = await screen.findByTestId("gate-feedback");
    await fireEvent.input(box, { target: { value: "not in /" } });
    const reject = screen.getAllByTestId("gate-acp-option").find((b) => b.dataset.option === "no")!;
    await fireEvent.click(reject);
    await waitFor(() => expect(calls[0]).toMatchObject({ option: "no", decision: { decision: "reject", feedback: "not in /" } }));
  });

  it("lists waiting plans with how long they waited, and hides when none wait", async () => {
    let listed = [request()];
    mockIPC((cmd) => (cmd === "list_pending" ? listed : null), { shouldMockEvents: true });
    render(WaitingQueue);
    const row = await screen.findByTestId("gate-request");
    expect(row).toHaveTextContent("add pagination");
    expect(row).toHaveTextContent("waiting 1 min");
    expect(row).toHaveTextContent("work/api");
    expect(screen.getByTestId("waiting-queue")).toBeInTheDocument();
    // None waits any more: the whole queue goes, not only its rows.
    listed = [];
    await emit("gate:changed", { arrived: [], updated: [], closed: ["req-1"] });
    await waitFor(() => expect(screen.queryByTestId("waiting-queue")).toBeNull());
  });

  it("approves with the chosen mode and rejects with feedback", async () => {
    const decisions: any[] = [];
    mockIPC((cmd, args: any) => {
      if (cmd === "list_pending") return [request()];
      if (cmd === "decide_request") {
        decisions.push(args.decision);
        return { requestId: "req-1", delivered: true, message: "Delivered.", status: "approved", delivery: "delivered" };
      }
    });
    render(WaitingQueue);
    await fireEvent.click(await screen.findByTestId("gate-approve-manual"));
    await waitFor(() => expect(decisions[0]).toMatchObject({ decision: "approve", mode: "manual" }));
    await fireEvent.click(screen.getByTestId("gate-reject"));
    const box = await screen.findByTestId("gate-feedback");
    // Typing goes to the feedback box at once (issue 34).
    await waitFor(() => expect(document.activeElement).toBe(box));
    await fireEvent.click(screen.getByTestId("gate-send-reject"));
    expect(await screen.findByRole("alert")).toHaveTextContent("Say what the agent should change");
    await fireEvent.input(box, { target: { value: "split step 2" } });
    await fireEvent.keyDown(box, { key: "Enter", ctrlKey: true });
    await waitFor(() => expect(decisions[1]).toEqual({ decision: "reject", feedback: "split step 2" }));
  });

  it("names a teammate's team and lead, and offers one Approve that lets the plan go on to the lead", async () => {
    const decisions: any[] = [];
    mockIPC((cmd, args: any) => {
      if (cmd === "list_pending")
        return [request({ tmuxPane: null, approvesThroughHook: true, team: "session-4b87e72c", teammate: "planner", leadSessionId: "4b87e72c-17f0-455d-b7a6-8b41f610789d" })];
      if (cmd === "decide_request") {
        decisions.push(args.decision);
        return { requestId: "req-1", delivered: true, message: "Approved: sent to Claude Code through its hook.", status: "approved", delivery: "delivered" };
      }
    });
    render(WaitingQueue);
    const who = await screen.findByTestId("gate-teammate");
    expect(who).toHaveTextContent("teammate planner · session-4b87e72c · lead 4b87e72c");
    // The card's modes are the lead's business: no second approve.
    expect(screen.queryByTestId("gate-approve-manual")).not.toBeInTheDocument();
    await fireEvent.click(screen.getByTestId("gate-approve-auto"));
    await waitFor(() => expect(decisions[0]).toMatchObject({ decision: "approve" }));
  });

  it("says when the approval must be given in the terminal", async () => {
    mockIPC((cmd) => {
      if (cmd === "list_pending") return [request({ tmuxPane: null })];
      if (cmd === "decide_request") return { requestId: "req-1", delivered: false, message: "approve in the terminal", status: "approving", delivery: "pending" };
    });
    render(WaitingQueue);
    expect(await screen.findByText(/No tmux pane known/)).toBeInTheDocument();
    await fireEvent.click(await screen.findByTestId("gate-approve-auto"));
    expect(await screen.findByTestId("gate-status")).toHaveTextContent("approve in the terminal");
  });

  it("says nothing of a pane when the approval goes through the agent's waiting hook", async () => {
    mockIPC((cmd) => {
      if (cmd === "list_pending") return [request({ tmuxPane: null, approvesThroughHook: true })];
    });
    render(WaitingQueue);
    await screen.findByTestId("gate-approve-auto");
    expect(screen.queryByText(/No tmux pane known/)).not.toBeInTheDocument();
  });

  it("shows a decision that did not reach the agent, with the reason, after its request is gone", async () => {
    let listed = [request()];
    mockIPC((cmd) => {
      if (cmd === "list_pending") return listed;
      if (cmd === "decide_request") {
        listed = [];
        return { requestId: "req-1", delivered: false, message: "the agent (pid 42) is gone; nothing was typed", status: "agentGone", delivery: "failed" };
      }
    });
    render(WaitingQueue);
    await fireEvent.click(await screen.findByTestId("gate-approve-auto"));
    await waitFor(() => expect(screen.queryByTestId("gate-request")).toBeNull());
    const failed = await screen.findByTestId("gate-delivery-failed");
    expect(failed).toHaveAttribute("role", "alert");
    expect(failed).toHaveTextContent("Not delivered");
    expect(failed).toHaveTextContent("add pagination");
    expect(failed).toHaveTextContent("the agent (pid 42) is gone; nothing was typed");
  });

  it("confirms where a delivered decision went, once its request is gone", async () => {
    let listed = [request()];
    mockIPC((cmd) => {
      if (cmd === "list_pending") return listed;
      if (cmd === "decide_request") {
        listed = [];
        return { requestId: "req-1", delivered: true, message: "Approved: sent to Claude Code in tmux pane %3.", status: "approved", delivery: "delivered" };
      }
    });
    render(WaitingQueue);
    await fireEvent.click(await screen.findByTestId("gate-approve-auto"));
    const sent = await screen.findByTestId("gate-sent");
    expect(sent).toHaveAttribute("role", "status");
    expect(sent).toHaveTextContent("Approved: sent to Claude Code in tmux pane %3.");
    expect(sent).toHaveTextContent("add pagination");
    await waitFor(() => expect(screen.queryByTestId("gate-request")).toBeNull());
    expect(screen.getByTestId("gate-sent")).toBeInTheDocument();
    expect(screen.queryByRole("alert")).toBeNull();
    // Nothing waits now: no red "0" (issue 34).
    expect(screen.getByTestId("queue-count")).toHaveTextContent("nothing now");
    expect(screen.getByTestId("waiting-queue")).toHaveClass("quiet");
  });

  it("shows one problem line per request, however many attempts failed", async () => {
    let attempt = 0;
    mockIPC((cmd) => {
      if (cmd === "list_pending") return [request(), request({ id: "req-2", plan: "# Plan: other\n" })];
      if (cmd === "decide_request") {
        attempt += 1;
        if (attempt === 1) throw { kind: "conflict", message: "the plan changed since you read it" };
        return { requestId: "req-1", delivered: false, message: "the approval card is not on screen in tmux pane %3; nothing was typed", status: "waiting", delivery: "failed" };
      }
    });
    render(WaitingQueue);
    const [first] = await screen.findAllByTestId("gate-request");
    await fireEvent.click(within(first).getByTestId("gate-reject"));
    await fireEvent.click(within(first).getByTestId("gate-send-reject"));
    expect(within(first).getAllByRole("alert")).toHaveLength(1);
    await fireEvent.click(within(first).getByTestId("gate-approve-auto"));
    await waitFor(() => expect(within(first).getByRole("alert")).toHaveTextContent("the plan changed since you read it"));
    await waitFor(() => expect(within(first).getByTestId("gate-approve-manual")).toBeEnabled());
    await fireEvent.click(within(first).getByTestId("gate-approve-manual"));
    await waitFor(() => expect(within(first).getByRole("alert")).toHaveTextContent("not on screen"));
    expect(screen.getAllByRole("alert")).toHaveLength(1);
    expect(within(first).queryByTestId("gate-status")).toBeNull();
  });

  it("words the choices as the agent's own card does", async () => {
    mockIPC((cmd) => (cmd === "list_pending" ? [request(), request({ id: "req-g", agent: "gemini" })] : cmd === "list_agents" ? agentList : []));
    render(WaitingQueue);
    const [claude, gemini] = await screen.findAllByTestId("gate-request");
    await waitFor(() => expect(within(claude).getByTestId("gate-approve-auto")).toHaveTextContent("Yes, and use auto mode"));
    expect(within(claude).getByTestId("gate-approve-auto")).toHaveAttribute("title", "Approve: choice 1 of Claude Code's card");
    expect(within(claude).getByTestId("gate-approve-manual")).toHaveTextContent("Yes, manually approve edits");
    expect(within(claude).getByTestId("gate-reject")).toHaveTextContent("Tell Claude what to change");
    expect(within(gemini).getByTestId("gate-approve-auto")).toHaveTextContent("Yes, automatically accept edits");
    expect(within(gemini).getByTestId("gate-approve-manual")).toHaveTextContent("Yes, manually accept edits");
    expect(within(gemini).getByTestId("gate-reject")).toHaveTextContent("Type your feedback…");
  });

  it("keeps the other requests decidable while one decision is on its way, and says when it is not known whether it went", async () => {
    let answer: ((v: unknown) => void) | null = null;
    let fail: ((e: unknown) => void) | null = null;
    const calls: any[] = [];
    mockIPC((cmd, args: any) => {
      if (cmd === "list_pending") return [request(), request({ id: "req-2", plan: "# Plan: other\n" })];
      if (cmd === "decide_request") {
        calls.push(args);
        if (args.id === "req-1") return new Promise((res, rej) => ((answer = res), (fail = rej)));
        return { requestId: "req-2", delivered: true, message: "Approved: sent.", status: "approved", delivery: "delivered" };
      }
    });
    render(WaitingQueue);
    const [first, second] = await screen.findAllByTestId("gate-request");
    await fireEvent.click(within(first).getByTestId("gate-approve-auto"));
    await waitFor(() => expect(within(first).getByTestId("gate-approve-auto")).toBeDisabled());
    expect(within(first).getByTestId("gate-busy")).toHaveTextContent("Sending your decision");
    // The stuck one disables only its own buttons.
    expect(within(second).getByTestId("gate-approve-auto")).toBeEnabled();
    await fireEvent.click(within(second).getByTestId("gate-approve-auto"));
    await waitFor(() => expect(calls.map((c) => c.id)).toEqual(["req-1", "req-2"]));
    // Its answer never came: said as not known, not as a refusal.
    expect(answer).not.toBeNull();
    fail!({ kind: "remote", message: "no answer from build-box within 30 s" });
    const line = await within(first).findByTestId("gate-problem");
    expect(line).toHaveTextContent("Not known whether it went: no answer from build-box within 30 s");
    expect(line).toHaveAttribute("data-kind", "remote");
    await waitFor(() => expect(within(first).getByTestId("gate-approve-auto")).toBeEnabled());
  });

  it("keeps one fixed height, scrolled inside, as requests come and go", async () => {
    let listed = [request()];
    mockIPC((cmd) => (cmd === "list_pending" ? listed : []), { shouldMockEvents: true });
    render(WaitingQueue);
    await screen.findByTestId("gate-request");
    const list = screen.getByTestId("queue-list");
    listed = [request(), request({ id: "req-2" }), request({ id: "req-3" })];
    await emit("gate:changed", { arrived: ["req-2", "req-3"], updated: [], closed: [] });
    await waitFor(() => expect(screen.getAllByTestId("gate-request")).toHaveLength(3));
    // The same box holds them all, and its rule sets a height (not a minimum) and scrolls.
    expect(screen.getByTestId("queue-list")).toBe(list);
    for (const r of screen.getAllByTestId("gate-request")) expect(list.contains(r)).toBe(true);
    const source = readFileSync(join(import.meta.dirname, "WaitingQueue.svelte"), "utf8");
    const rule = /\.list \{([^}]*)\}/.exec(source)?.[1] ?? "";
    expect(rule).toMatch(/(^|;)\s*height:\s*[\d.]+rem/);
    expect(rule).toMatch(/overflow-y:\s*auto/);
  });
});

describe("WaitingQueue with comments on the plan", () => {
  it("says the open comments go with the decision, rejects on them alone, and can leave them out", async () => {
    const calls: any[] = [];
    mockIPC((cmd, args: any) => {
      if (cmd === "list_pending") return [request()];
      if (cmd === "request_comments") return [{ id: "c1" }, { id: "c2" }];
      if (cmd === "decide_request") {
        calls.push(args);
        return { requestId: "req-1", delivered: true, message: "Delivered.", status: "rejected", delivery: "delivered" };
      }
    });
    render(WaitingQueue);
    const carry = await screen.findByTestId("gate-comments");
    expect(carry).toHaveTextContent("With the plan's 2 open comments");
    // Comments alone are feedback enough.
    await fireEvent.click(screen.getByTestId("gate-reject"));
    await fireEvent.click(await screen.findByTestId("gate-send-reject"));
    // The version this listing showed goes with it: a plan changed since is refused by the gate.
    await waitFor(() => expect(calls[0]).toEqual({ id: "req-1", decision: { decision: "reject", feedback: "" }, withComments: true, seenHash: "h-shown" }));
    // Unticked: the decision goes without them.
    await fireEvent.click(carry.querySelector("input")!);
    await waitFor(() => expect(screen.getByTestId("gate-approve-auto")).toBeEnabled());
    await fireEvent.click(screen.getByTestId("gate-approve-auto"));
    await waitFor(() => expect(calls[1]).toMatchObject({ decision: { decision: "approve" }, withComments: false }));
  });

  it("counts the open comments again when a comment is made or the plan changes", async () => {
    let count = 0;
    mockIPC(
      (cmd) => {
        if (cmd === "list_pending") return [request()];
        if (cmd === "request_comments") return Array.from({ length: count }, (_, i) => ({ id: `c${i}` }));
      },
      { shouldMockEvents: true },
    );
    render(WaitingQueue);
    await screen.findByTestId("gate-request");
    expect(screen.queryByTestId("gate-comments")).toBeNull();
    count = 1;
    await emit("comments:changed", null);
    expect(await screen.findByTestId("gate-comments")).toHaveTextContent("With the plan's 1 open comment,");
    count = 0;
    await emit("plans:changed", { paths: [] });
    await waitFor(() => expect(screen.queryByTestId("gate-comments")).toBeNull());
  });

  it("decides the version on screen: a plan rewritten while shown keeps the shown version, says what changed, and needs a second look", async () => {
    let hash = "h-first";
    let listed = 0;
    const calls: any[] = [];
    mockIPC(
      (cmd, args: any) => {
        if (cmd === "list_pending") {
          listed += 1;
          return [request({ planHash: hash, planRead: hash === "h-first" ? null : "# Plan: add pagination\n\n1. cursor\n2. push to production\n" })];
        }
        if (cmd === "request_comments") return [];
        if (cmd === "decide_request") {
          calls.push(args);
          return { requestId: "req-1", delivered: true, message: "Delivered.", status: "approved", delivery: "delivered" };
        }
      },
      { shouldMockEvents: true },
    );
    render(WaitingQueue);
    await screen.findByTestId("gate-request");
    // A background job appends a step to the plan file: the queue is listed again.
    hash = "h-revised";
    await emit("plans:changed", { paths: ["/home/dev/.claude/plans/p.md"] });
    await waitFor(() => expect(listed).toBeGreaterThan(1));
    const notice = await screen.findByTestId("gate-plan-changed");
    expect(notice).toHaveTextContent("The plan changed since you opened it");
    expect(screen.getByTestId("gate-plan-changes")).toHaveTextContent("+ 2. push to production");
    // Nothing is decided on a version not seen: every decision waits for the second look.
    for (const b of ["gate-approve-auto", "gate-approve-manual", "gate-edit", "gate-reject"]) expect(screen.getByTestId(b)).toBeDisabled();
    await fireEvent.click(screen.getByTestId("gate-approve-auto"));
    expect(calls).toHaveLength(0);
    // Another reload does not lose what was shown.
    await emit("gate:changed", { arrived: [], updated: ["req-1"], closed: [] });
    await waitFor(() => expect(listed).toBeGreaterThan(2));
    expect(screen.getByTestId("gate-plan-changed")).toBeInTheDocument();
    // Seen: the new version is the one decided.
    await fireEvent.click(screen.getByTestId("gate-show-new"));
    expect(screen.queryByTestId("gate-plan-changed")).toBeNull();
    await fireEvent.click(screen.getByTestId("gate-approve-auto"));
    await waitFor(() => expect(calls[0]).toMatchObject({ seenHash: "h-revised" }));
  });

  it("sends the hash of the version first shown, not of a later listing", async () => {
    let hash = "h-first";
    const calls: any[] = [];
    mockIPC(
      (cmd, args: any) => {
        if (cmd === "list_pending") return [request({ planHash: hash })];
        if (cmd === "request_comments") return [];
        if (cmd === "decide_request") {
          calls.push(args);
          throw { kind: "conflict", message: "the plan of request req-1 changed since you read it" };
        }
      },
      { shouldMockEvents: true },
    );
    render(WaitingQueue);
    await screen.findByTestId("gate-request");
    await fireEvent.click(screen.getByTestId("gate-approve-manual"));
    await waitFor(() => expect(calls[0]).toMatchObject({ seenHash: "h-first" }));
    hash = "h-second";
    await emit("gate:changed", { arrived: [], updated: ["req-1"], closed: [] });
    await screen.findByTestId("gate-plan-changed");
    expect(calls).toHaveLength(1);
  });
});
