import { describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/svelte";
import { mockIPC } from "@tauri-apps/api/mocks";
import PlanDetail from "./PlanDetail.svelte";
import type { PlanDiff, PlanDocument, PlanOutcome, ReviewState } from "../lib/bindings";

function doc(state: ReviewState = "unreviewed", source = "# Plan\n\n1. one\n"): PlanDocument {
  return {
    plan: {
      id: "abc123def456",
      path: "/h/.claude/plans/p.md",
      agent: "claude",
      title: "Plan",
      project: "/h/work/api",
      sessionId: "5fb53a48-3aab-4a4b-b82c-e42d63b86c9d",
      gitBranch: "main",
      state,
      decidedIn: state === "unreviewed" ? null : "plandeck",
      waitingRequest: null,
      updatedAt: new Date().toISOString(),
      sizeBytes: source.length,
      problem: null,
      subagentId: null,
    },
    source,
    contentHash: "hash-of-source",
    html: "<h1 id=\"plan\">Plan</h1><ol><li>one</li></ol>",
    headings: [{ id: "plan", level: 1, text: "Plan" }],
  } as PlanDocument;
}

const diff: PlanDiff = {
  fromHash: "a",
  toHash: "b",
  fromLabel: "approved",
  toLabel: "current",
  stats: { added: 1, removed: 1 },
  hunks: [
    {
      oldStart: 1,
      newStart: 1,
      lines: [
        { kind: "equal", oldNo: 1, newNo: 1, segments: [{ text: "# Plan", changed: false }] },
        { kind: "delete", oldNo: 2, newNo: null, segments: [{ text: "1. ", changed: false }, { text: "one", changed: true }] },
        { kind: "insert", oldNo: null, newNo: 2, segments: [{ text: "1. ", changed: false }, { text: "two", changed: true }] },
      ],
    },
  ],
  renderedHtml: "<div class=\"diff-del\" data-pd-diff=\"del\"><p>one</p></div><div class=\"diff-ins\" data-pd-diff=\"ins\"><p>two</p></div>",
} as unknown as PlanDiff;

/** A decision's outcome as the core returns it (`decide_plan`). */
function outcome(o: Partial<PlanOutcome>): PlanOutcome {
  return {
    route: "recordedOnly",
    verdict: "approved",
    message: "Recorded only: no agent is waiting for this plan. Approved; this version is pinned.",
    agent: null,
    tmuxPane: null,
    requestId: null,
    delivery: null,
    written: false,
    unchangedEdit: false,
    decision: null,
    undoId: null,
    ...o,
  };
}

describe("PlanDetail", () => {
  it("renders the sanitized HTML and approves with the a key", async () => {
    const calls: [string, unknown][] = [];
    mockIPC((cmd, args) => {
      calls.push([cmd, args]);
      if (cmd === "get_plan") return doc();
      if (cmd === "list_comments") return [];
      if (cmd === "decide_plan") return outcome({ route: "recordedOnly", message: "Recorded only: no agent is waiting for this plan. Approved; this version is pinned." });
    });
    render(PlanDetail, { id: "abc123def456" });
    expect(await screen.findByTestId("plan-html")).toHaveTextContent("one");
    await fireEvent.keyDown(window, { key: "a" });
    await waitFor(() => expect(calls.some(([c]) => c === "decide_plan")).toBe(true));
    expect(await screen.findByTestId("review-notice")).toHaveTextContent("Recorded only: no agent is waiting for this plan");
    // The approval names the version on screen, not whatever is on disk when the click lands.
    expect(calls.find(([c]) => c === "decide_plan")?.[1]).toMatchObject({ seenHash: "hash-of-source", decision: { decision: "approve", edited: null } });
  });

  it("says where to answer a plan whose agent waits at its own card (issue 34)", async () => {
    mockIPC((cmd) => (cmd === "get_plan" ? doc("waiting") : cmd === "list_comments" ? [] : null));
    const { unmount } = render(PlanDetail, { id: "abc123def456" });
    expect(await screen.findByTestId("waiting-at-card")).toHaveTextContent("answer it in its terminal");
    unmount();
    // Waiting in Plandeck's queue: decided here, nothing to say.
    mockIPC((cmd) => (cmd === "get_plan" ? { ...doc("waiting"), plan: { ...doc("waiting").plan, waitingRequest: "req-1" } } : cmd === "list_comments" ? [] : null));
    render(PlanDetail, { id: "abc123def456" });
    await screen.findByTestId("plan-html");
    expect(screen.queryByTestId("waiting-at-card")).toBeNull();
  });

  it("greys the Verify tab, saying why, until the plan has an approval", async () => {
    let state: ReviewState = "unreviewed";
    mockIPC((cmd) => (cmd === "get_plan" ? doc(state) : cmd === "list_comments" ? [] : null));
    const { unmount } = render(PlanDetail, { id: "abc123def456" });
    await screen.findByTestId("plan-html");
    const tab = document.querySelector("[data-tab=verify]")!;
    expect(tab).toHaveClass("greyed");
    expect(tab.getAttribute("title")).toMatch(/no approval/);
    unmount();
    state = "approved";
    render(PlanDetail, { id: "abc123def456" });
    await screen.findByTestId("plan-html");
    expect(document.querySelector("[data-tab=verify]")).not.toHaveClass("greyed");
  });

  it("keeps the tab being read when another plan is opened", async () => {
    mockIPC((cmd) => {
      if (cmd === "get_plan") return doc();
      if (cmd === "list_comments") return [];
    });
    const { rerender } = render(PlanDetail, { id: "abc123def456" });
    await screen.findByTestId("plan-html");
    await fireEvent.click(screen.getByRole("tab", { name: "Source" }));
    expect(await screen.findByTestId("plan-source")).toBeInTheDocument();
    await rerender({ id: "fedcba654321" });
    expect(screen.getByRole("tab", { name: "Source" })).toHaveAttribute("aria-selected", "true");
    expect(await screen.findByTestId("plan-source")).toBeInTheDocument();
  });

  it("refuses to decide a plan that changed since it was read, and shows the change", async () => {
    for (const key of ["a", "r"] as const) {
      const cmd = "decide_plan";
      const calls: [string, any][] = [];
      let reads = 0;
      mockIPC((c, args) => {
        calls.push([c, args]);
        if (c === "get_plan") return reads++ === 0 ? doc() : { ...doc("unreviewed", "# Plan\n\n1. two\n"), contentHash: "hash-of-new" };
        if (c === "plan_diff") return diff;
        if (c === "list_comments") return [];
        if (c === cmd) throw { kind: "planChanged", message: "changed since you read it" };
      });
      const { unmount } = render(PlanDetail, { id: "abc123def456" });
      await screen.findByTestId("plan-html");
      await fireEvent.keyDown(window, { key });
      if (key === "r") {
        const box = await screen.findByTestId("feedback");
        await fireEvent.input(box, { target: { value: "no" } });
        await fireEvent.keyDown(box, { key: "Enter", ctrlKey: true });
      }
      const shown = await screen.findByTestId("plan-changed");
      expect(shown).toHaveTextContent("nothing was decided");
      await waitFor(() => expect(shown.querySelector(".insert .hl")).toHaveTextContent("two"));
      const sent = calls.find(([c]) => c === cmd)?.[1];
      expect(sent.seenHash).toBe("hash-of-source");
      expect(sent.decision.decision).toBe(key === "a" ? "approve" : "reject");
      // The diff is from the version read to the file as it is now.
      expect(calls.find(([c]) => c === "plan_diff")?.[1]).toMatchObject({ from: "hash-of-source", to: "hash-of-new" });
      expect(screen.queryByTestId("review-notice")).toBeNull();
      // The view still shows the version read, and decides nothing until the new one is shown.
      expect(screen.getByTestId("plan-html")).toHaveTextContent("one");
      expect(screen.getByTestId("approve")).toBeDisabled();
      calls.length = 0;
      mockIPC((c, args) => {
        calls.push([c, args]);
        if (c === "get_plan") return { ...doc("unreviewed", "# Plan\n\n1. two\n"), contentHash: "hash-of-new", html: "<ol><li>two</li></ol>" };
        if (c === "list_comments") return [];
        return outcome({});
      });
      await fireEvent.keyDown(window, { key: "a" });
      expect(calls.some(([c]) => c === "decide_plan")).toBe(false);
      // Deciding again, once the new version is on screen, names it.
      await fireEvent.click(screen.getByTestId("show-new-version"));
      expect(screen.queryByTestId("plan-changed")).toBeNull();
      await fireEvent.keyDown(window, { key: "a" });
      await waitFor(() => expect(calls.find(([c]) => c === "decide_plan")?.[1].seenHash).toBe("hash-of-new"));
      unmount();
    }
  });

  it("keeps the text on screen when the file changes, says so with the diff, and approves the new version only once shown", async () => {
    const calls: [string, any][] = [];
    let file = doc();
    mockIPC((c, args) => {
      calls.push([c, args]);
      if (c === "get_plan") return file;
      if (c === "plan_diff") return diff;
      if (c === "list_comments") return [];
      if (c === "decide_plan") return outcome({});
    });
    const { rerender } = render(PlanDetail, { id: "abc123def456", revision: 0 });
    expect(await screen.findByTestId("plan-html")).toHaveTextContent("one");
    // A background job rewrites the file; plans:changed reloads the view.
    file = { ...doc("unreviewed", "# Plan\n\n1. two\n"), contentHash: "hash-of-new", html: "<ol><li>two</li></ol>" };
    await rerender({ id: "abc123def456", revision: 1 });
    const notice = await screen.findByTestId("plan-changed");
    expect(notice).toHaveTextContent("This plan changed since you opened it");
    await waitFor(() => expect(notice.querySelector(".insert .hl")).toHaveTextContent("two"));
    expect(calls.find(([c]) => c === "plan_diff")?.[1]).toMatchObject({ from: "hash-of-source", to: "hash-of-new" });
    // The text shown is still the one opened, and no decision can be taken on it.
    expect(screen.getByTestId("plan-html")).toHaveTextContent("one");
    expect(screen.getByTestId("plan-html")).not.toHaveTextContent("two");
    expect(screen.getByTestId("approve")).toBeDisabled();
    await fireEvent.keyDown(window, { key: "a" });
    expect(calls.some(([c]) => c === "decide_plan")).toBe(false);
    // A second look: the new version on screen, then Approve names it.
    await fireEvent.click(screen.getByTestId("show-new-version"));
    expect(screen.getByTestId("plan-html")).toHaveTextContent("two");
    expect(screen.getByTestId("approve")).toBeEnabled();
    await fireEvent.click(screen.getByTestId("approve"));
    await waitFor(() => expect(calls.find(([c]) => c === "decide_plan")?.[1]).toMatchObject({ seenHash: "hash-of-new" }));
  });

  it("rejects with feedback on Ctrl+Enter, and refuses empty feedback", async () => {
    const calls: [string, any][] = [];
    mockIPC((cmd, args) => {
      calls.push([cmd, args]);
      if (cmd === "get_plan") return doc();
      if (cmd === "list_comments") return [];
      if (cmd === "decide_plan") return outcome({ verdict: "rejected" });
    });
    render(PlanDetail, { id: "abc123def456" });
    await screen.findByTestId("plan-html");
    await fireEvent.keyDown(window, { key: "r" });
    const box = await screen.findByTestId("feedback");
    await fireEvent.keyDown(box, { key: "Enter", ctrlKey: true });
    expect(await screen.findByRole("alert")).toHaveTextContent("Say what the agent should change");
    expect(calls.some(([c]) => c === "decide_plan")).toBe(false);
    await fireEvent.input(box, { target: { value: "use cursors, not pages" } });
    await fireEvent.keyDown(box, { key: "Enter", ctrlKey: true });
    await waitFor(() => expect(calls.find(([c]) => c === "decide_plan")?.[1].decision).toEqual({ decision: "reject", feedback: "use cursors, not pages" }));
    expect(calls.find(([c]) => c === "decide_plan")?.[1].seenHash).toBe("hash-of-source");
  });

  it("opens a changed plan on its diff, in each mode", async () => {
    mockIPC((cmd) => {
      if (cmd === "get_plan") return doc("changed");
      if (cmd === "list_comments") return [];
      if (cmd === "plan_diff") return diff;
    });
    render(PlanDetail, { id: "abc123def456" });
    const view = await screen.findByTestId("plan-diff");
    expect(view).toHaveAttribute("data-mode", "unified");
    expect(view.querySelector(".delete .hl")).toHaveTextContent("one");
    expect(view.querySelector(".insert .hl")).toHaveTextContent("two");
    await fireEvent.click(screen.getByText("Side by side"));
    const split = await screen.findByTestId("plan-diff");
    expect(split.querySelectorAll("table.split tr").length).toBe(2);
    await fireEvent.click(screen.getByText("Rendered", { selector: "[data-diff-mode]" }));
    expect(await screen.findByTestId("rendered-diff")).toHaveTextContent("two");
  });

  it("shows both versions on an edit conflict and loses neither", async () => {
    let onDisk = "# Plan\n\n1. one\n";
    mockIPC((cmd) => {
      if (cmd === "get_plan") return doc("unreviewed", onDisk);
      if (cmd === "list_comments") return [];
      if (cmd === "decide_plan") {
        onDisk = "# Plan\n\n1. changed by the agent\n";
        throw { kind: "conflict", message: "the plan changed on disk" };
      }
    });
    render(PlanDetail, { id: "abc123def456" });
    await screen.findByTestId("plan-html");
    await fireEvent.keyDown(window, { key: "e" });
    await screen.findByTestId("plan-editor");
    await fireEvent.click(screen.getByTestId("approve-edit"));
    const conflict = await screen.findByTestId("conflict");
    expect(conflict).toHaveTextContent("changed by the agent");
    expect(conflict).toHaveTextContent("1. one");
  });

  it("comments on a clicked block with its source text as the quote", async () => {
    // "é" is two bytes: the renderer's byte offsets must pick the right text.
    const source = "# Plan é\n\n1. one\n2. two `x`\n";
    const d = { ...doc("unreviewed", source), html: '<h1 id="plan-é" data-src="0-9">Plan é</h1><ol><li data-src="11-17">one</li><li data-src="18-28">two <code>x</code></li></ol>' };
    const calls: [string, any][] = [];
    mockIPC((cmd, args) => {
      calls.push([cmd, args]);
      if (cmd === "get_plan") return d;
      if (cmd === "list_comments") return [];
      if (cmd === "add_comment") return null;
    });
    render(PlanDetail, { id: "abc123def456" });
    const html = await screen.findByTestId("plan-html");
    await fireEvent.click(html.querySelectorAll("li")[1].querySelector("code")!);
    expect(html.querySelectorAll("li")[1]).toHaveClass("pd-focused");
    await fireEvent.keyDown(window, { key: "c" });
    const box = await screen.findByTestId("comment-text");
    expect(screen.getByTestId("comment-draft")).toHaveTextContent("2. two `x`");
    await fireEvent.input(box, { target: { value: "why x?" } });
    await fireEvent.keyDown(box, { key: "Enter", ctrlKey: true });
    await waitFor(() =>
      expect(calls.find(([c]) => c === "add_comment")?.[1]).toEqual({ id: "abc123def456", quote: "2. two `x`", text: "why x?", near: 18 }),
    );
    // The margin button does the same for the heading.
    await fireEvent.click(html.querySelector("h1")!);
    await fireEvent.click(await screen.findByTestId("comment-block"));
    expect(screen.getByTestId("comment-draft")).toHaveTextContent("# Plan é");
  });

  it("shows in the history which comments were made on each version and went with each decision", async () => {
    const c = (id: string, version: string, quote: string, text: string, sentWith: string[]) => ({
      id, planPath: "/h/.claude/plans/p.md", version, anchor: { quote, before: "", after: "", start: 0 }, text,
      createdAt: new Date().toISOString(), author: "dev", resolvedAt: null, sentWith, status: "open", placement: { kind: "kept", start: 0, end: 1 }, line: 1,
    });
    mockIPC((cmd) => {
      if (cmd === "get_plan") return doc();
      if (cmd === "list_comments") return [c("c1", "v1", "1. one", "which one?", ["2026-11-23T10:05:00Z"]), c("c2", "v2", "# Plan", "<b>bold</b> title", [])];
      if (cmd === "plan_history")
        return {
          you: "dev",
          decisions: [
            { time: "2026-11-23T10:05:00Z", reviewer: "dev", planPath: "/h/.claude/plans/p.md", agent: "claude", sessionId: null, decision: "rejected", feedback: "no", approvedHash: null, contentHash: "v1", edited: false, mode: null, comments: ["c1"] },
            { time: "2026-11-23T09:05:00Z", reviewer: "ann", planPath: "/h/.claude/plans/p.md", agent: "claude", sessionId: null, decision: "rejected", feedback: "earlier", approvedHash: null, contentHash: "v1", edited: false, mode: null, comments: [] },
          ],
          versions: [{ hash: "v2", seenAt: new Date().toISOString(), approved: false }, { hash: "v1", seenAt: new Date().toISOString(), approved: false }],
        };
      if (cmd === "transcript_history") return [];
      return null;
    });
    render(PlanDetail, { id: "abc123def456" });
    await screen.findByTestId("plan-html");
    await fireEvent.click(document.querySelector('[data-tab="history"]')!);
    const withDecision = await screen.findByTestId("decision-comments");
    expect(withDecision).toHaveTextContent("With 1 comment: “1. one”");
    const perVersion = await screen.findAllByTestId("version-comment");
    expect(perVersion.map((e) => e.textContent)).toEqual([expect.stringContaining("<b>bold</b> title"), expect.stringContaining("which one?")]);
    expect(perVersion[1]).toHaveTextContent("sent with the decision of");
    expect(perVersion[1].textContent).not.toContain("T10:05:00Z");
    // The decision is the person's own (`you`): no "by dev"; someone else's names them.
    const events = [...document.querySelectorAll("[data-testid=plan-history] .event")].map((e) => e.textContent ?? "");
    expect(events[0]).not.toContain("by dev");
    expect(events[0]).not.toContain("T10:05:00Z");
    expect(events[1]).toContain("by ann");
    expect(document.querySelector(".version-comment b")).toBeNull();
  });

  it("takes its state from the list's row: the agent's own record in the header and the history, live", async () => {
    mockIPC((cmd) => {
      if (cmd === "get_plan") return doc();
      if (cmd === "list_comments") return [];
      if (cmd === "plan_history") return { decisions: [], versions: [] };
      if (cmd === "transcript_history") return [];
      return null;
    });
    const row = { ...doc().plan, state: "rejected" as const, decidedIn: "hook" as const };
    const view = render(PlanDetail, { id: "abc123def456", listed: row });
    await screen.findByTestId("plan-html");
    expect(document.querySelector("header [data-state]")).toHaveTextContent("rejected by a hook");
    await fireEvent.click(document.querySelector('[data-tab="history"]')!);
    expect(await screen.findByTestId("no-decision")).toHaveTextContent("No decision in Plandeck: rejected by a hook");
    await view.rerender({ id: "abc123def456", listed: { ...row, state: "waiting", decidedIn: null, waitingRequest: "r1" } });
    await waitFor(() => expect(document.querySelector("header [data-state]")).toHaveTextContent("waiting for you"));
    expect(screen.getByTestId("no-decision")).toHaveTextContent("an agent waits for yours now");
  });

  it("says where a decision went: to the waiting agent's pane, no undo", async () => {
    const calls: [string, any][] = [];
    mockIPC((cmd, args) => {
      calls.push([cmd, args]);
      if (cmd === "get_plan") return doc();
      if (cmd === "list_comments") return [];
      if (cmd === "decide_plan")
        return outcome({ route: "agent", agent: "claude", tmuxPane: "%3", requestId: "r1", delivery: "delivered", message: "Approved: sent to Claude Code in tmux pane %3." });
    });
    render(PlanDetail, { id: "abc123def456" });
    await screen.findByTestId("plan-html");
    await fireEvent.click(screen.getByTestId("approve"));
    const banner = await screen.findByTestId("review-notice");
    expect(banner).toHaveTextContent("Approved: sent to Claude Code in tmux pane %3.");
    expect(banner).toHaveAttribute("data-route", "agent");
    expect(screen.queryByTestId("undo-decision")).toBeNull();
    // One call decides: the window never picks the route itself.
    expect(calls.filter(([c]) => c === "decide_plan" || c === "decide_request").length).toBe(1);
  });

  it("says a decision was recorded only, and undoes it", async () => {
    const calls: [string, any][] = [];
    mockIPC((cmd, args) => {
      calls.push([cmd, args]);
      if (cmd === "get_plan") return doc();
      if (cmd === "list_comments") return [];
      if (cmd === "decide_plan") return outcome({ undoId: "d42" });
      if (cmd === "undo_decision") return { decision: "approved", revokes: "d42" };
    });
    render(PlanDetail, { id: "abc123def456" });
    await screen.findByTestId("plan-html");
    await fireEvent.keyDown(window, { key: "a" });
    const banner = await screen.findByTestId("review-notice");
    expect(banner).toHaveTextContent("Recorded only: no agent is waiting for this plan");
    expect(banner).toHaveAttribute("data-route", "recordedOnly");
    await fireEvent.click(await screen.findByTestId("undo-decision"));
    await waitFor(() => expect(calls.find(([c]) => c === "undo_decision")?.[1]).toEqual({ id: "abc123def456", decisionId: "d42" }));
    await waitFor(() => expect(screen.getByTestId("review-notice")).toHaveTextContent("Undone"));
    expect(screen.queryByTestId("undo-decision")).toBeNull();
  });

  it("a decision's banner goes by itself unless pointed at, keeping its Undo; one that did not go stays", async () => {
    let delivered = true;
    mockIPC((cmd) => {
      if (cmd === "get_plan") return doc();
      if (cmd === "list_comments") return [];
      if (cmd === "decide_plan")
        return delivered
          ? outcome({ undoId: "d42" })
          : outcome({ route: "agent", delivery: "failed", message: "Not delivered: the card closed.", undoId: null });
    });
    render(PlanDetail, { id: "abc123def456" });
    await screen.findByTestId("plan-html");
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      await fireEvent.keyDown(window, { key: "a" });
      const banner = await screen.findByTestId("review-notice");
      await fireEvent.mouseEnter(banner);
      await vi.advanceTimersByTimeAsync(20_000);
      expect(screen.getByTestId("undo-decision")).toBeInTheDocument();
      await fireEvent.mouseLeave(banner);
      await vi.advanceTimersByTimeAsync(9_000);
      expect(screen.queryByTestId("review-notice")).toBeNull();

      delivered = false;
      await fireEvent.keyDown(window, { key: "a" });
      const failed = await screen.findByTestId("review-notice");
      expect(failed).toHaveAttribute("role", "alert");
      await vi.advanceTimersByTimeAsync(60_000);
      expect(screen.getByTestId("review-notice")).toHaveTextContent("Not delivered");
    } finally {
      vi.useRealTimers();
    }
  });

  it("an edit approved without a change claims no write", async () => {
    const calls: [string, any][] = [];
    mockIPC((cmd, args) => {
      calls.push([cmd, args]);
      if (cmd === "get_plan") return doc();
      if (cmd === "list_comments") return [];
      if (cmd === "decide_plan")
        return outcome({ unchangedEdit: true, message: "No changes: approved as is. Recorded only: no agent is waiting for this plan. Approved; this version is pinned." });
    });
    render(PlanDetail, { id: "abc123def456" });
    await screen.findByTestId("plan-html");
    await fireEvent.keyDown(window, { key: "e" });
    await screen.findByTestId("plan-editor");
    await fireEvent.click(screen.getByTestId("approve-edit"));
    const banner = await screen.findByTestId("review-notice");
    expect(banner).toHaveTextContent("No changes: approved as is.");
    expect(banner).not.toHaveTextContent("written");
    expect(calls.find(([c]) => c === "decide_plan")?.[1]).toMatchObject({ seenHash: "hash-of-source", decision: { decision: "approve", edited: "# Plan\n\n1. one\n" } });
  });

  it("the editor's styles carry the page's CSP nonce", async () => {
    const meta = document.createElement("meta");
    meta.name = "pd-style-nonce";
    meta.content = "8675309";
    document.head.append(meta);
    try {
      mockIPC((cmd) => {
        if (cmd === "get_plan") return doc();
        if (cmd === "list_comments") return [];
      });
      render(PlanDetail, { id: "abc123def456" });
      await screen.findByTestId("plan-html");
      await fireEvent.keyDown(window, { key: "e" });
      await screen.findByTestId("plan-editor");
      // CodeMirror's theme (style-mod) is a <style> element: under `style-src 'self'` it applies
      // only with the nonce.
      await waitFor(() => {
        const styled = [...document.head.querySelectorAll("style")].filter((s) => s.textContent?.includes(".cm-gutters"));
        expect(styled.length).toBeGreaterThan(0);
        expect(styled.every((s) => s.getAttribute("nonce") === "8675309")).toBe(true);
      });
    } finally {
      meta.remove();
    }
  });

  it("Approve is primary only while the plan is not approved", async () => {
    let state: ReviewState = "approved";
    mockIPC((cmd) => {
      if (cmd === "get_plan") return doc(state);
      if (cmd === "list_comments") return [];
      return null;
    });
    const { unmount } = render(PlanDetail, { id: "abc123def456" });
    await screen.findByTestId("plan-html");
    expect(screen.getByTestId("approve")).not.toHaveClass("primary");
    unmount();
    state = "unreviewed";
    render(PlanDetail, { id: "abc123def456" });
    await screen.findByTestId("plan-html");
    expect(screen.getByTestId("approve")).toHaveClass("primary");
  });

  it("the diff with nothing approved says what approving does instead of a wall of additions", async () => {
    mockIPC((cmd) => {
      if (cmd === "get_plan") return doc();
      if (cmd === "list_comments") return [];
      if (cmd === "plan_diff") return { ...diff, fromHash: null, fromLabel: "nothing approved yet" };
      return null;
    });
    render(PlanDetail, { id: "abc123def456" });
    await screen.findByTestId("plan-html");
    await fireEvent.click(document.querySelector('[data-tab="diff"]')!);
    expect(await screen.findByTestId("diff-nothing-approved")).toHaveTextContent("Nothing approved yet: approving pins this version");
    expect(screen.queryByTestId("plan-diff")).toBeNull();
  });

  it("the diff's label gives the approval's time as the window does, not a raw timestamp", async () => {
    mockIPC((cmd) => {
      if (cmd === "get_plan") return doc("changed");
      if (cmd === "list_comments") return [];
      if (cmd === "plan_diff") return { ...diff, fromLabel: "approved 2026-11-23T10:05:00Z (abcd1234)", toLabel: "/h/.claude/plans/p.md (current file)" };
      return null;
    });
    render(PlanDetail, { id: "abc123def456" });
    const view = await screen.findByTestId("plan-diff");
    const summary = view.querySelector(".summary")!.textContent ?? "";
    expect(summary).toContain("approved ");
    expect(summary).not.toContain("T10:05:00Z");
    expect(summary).toContain("p.md (current file)");
  });
});
