import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/svelte";
import { mockIPC } from "@tauri-apps/api/mocks";
import { emit } from "@tauri-apps/api/event";
import CommentsPanel from "./CommentsPanel.svelte";
import type { PlacedComment } from "../lib/bindings";

const comment = (over: Partial<PlacedComment> = {}): PlacedComment => ({
  id: "c1",
  planPath: "/home/dev/.claude/plans/p.md",
  version: "a".repeat(64),
  anchor: { quote: "Return a `Link` header.", before: "", after: "", start: 10 },
  text: "RFC 8288 format, please.",
  createdAt: new Date(Date.now() - 60_000).toISOString(),
  author: "dev",
  resolvedAt: null,
  sentWith: [],
  status: "open",
  placement: { kind: "kept", start: 10, end: 33 },
  line: 4,
  ...over,
});

describe("CommentsPanel", () => {
  it("shows open comments with their quotes and outdated ones apart, hostile text inert", async () => {
    mockIPC((cmd) =>
      cmd === "list_comments"
        ? [
            comment(),
            comment({ id: "c2", status: "outdated", placement: { kind: "gone" }, line: null, text: "<img src=x onerror=alert(1)>" }),
          ]
        : null,
    );
    let open = -1;
    render(CommentsPanel, { planId: "p1", onCount: (n: number) => (open = n) });
    const first = await screen.findByText("RFC 8288 format, please.");
    expect(first.closest("[data-status]")).toHaveAttribute("data-status", "open");
    expect(screen.getAllByText("Return a `Link` header.")).toHaveLength(2);
    const outdated = screen.getByText("<img src=x onerror=alert(1)>");
    expect(outdated.closest("[data-status]")).toHaveAttribute("data-status", "outdated");
    expect(document.querySelector("img")).toBeNull();
    await waitFor(() => expect(open).toBe(1));
  });

  it("saves a comment on the drafted quote and resolves one", async () => {
    const calls: any[] = [];
    mockIPC((cmd, args: any) => {
      calls.push({ cmd, args });
      if (cmd === "list_comments") return [comment()];
      if (cmd === "add_comment") return comment({ id: "c9", text: args.text });
      return null;
    });
    let done = false;
    render(CommentsPanel, { planId: "p1", draftQuote: "Test it.", draftNear: 42, onDraftDone: () => (done = true) });
    const box = await screen.findByTestId("comment-text");
    await fireEvent.input(box, { target: { value: "Which cases?" } });
    await fireEvent.keyDown(box, { key: "Enter", ctrlKey: true });
    await waitFor(() =>
      expect(calls.find((c) => c.cmd === "add_comment")?.args).toMatchObject({ id: "p1", quote: "Test it.", text: "Which cases?", near: 42 }),
    );
    await waitFor(() => expect(done).toBe(true));
    await fireEvent.click(await screen.findByText("Resolve"));
    await waitFor(() => expect(calls.find((c) => c.cmd === "change_comment")?.args).toEqual({ commentId: "c1", action: "resolve" }));
  });

  it("shows why a comment was refused", async () => {
    mockIPC((cmd) => {
      if (cmd === "list_comments") return [];
      if (cmd === "add_comment") throw { kind: "notFound", message: "the plan does not hold the quoted text" };
    });
    render(CommentsPanel, { planId: "p1", draftQuote: "gone", draftNear: null });
    const box = await screen.findByTestId("comment-text");
    await fireEvent.input(box, { target: { value: "x" } });
    await fireEvent.click(screen.getByTestId("comment-save"));
    expect(await screen.findByRole("alert")).toHaveTextContent("does not hold the quoted text");
  });

  it("copies the review as Markdown to the clipboard", async () => {
    const md = "# Review: Plan\n\n- Decision: none yet\n";
    mockIPC((cmd, args: any) => {
      if (cmd === "list_comments") return [comment()];
      if (cmd === "review_markdown") return args.id === "p1" ? md : null;
    });
    const written: string[] = [];
    Object.defineProperty(navigator, "clipboard", {
      value: { writeText: async (t: string) => void written.push(t) },
      configurable: true,
    });
    render(CommentsPanel, { planId: "p1" });
    await fireEvent.click(await screen.findByTestId("copy-review"));
    expect(await screen.findByTestId("copy-done")).toHaveTextContent("Review copied as Markdown.");
    expect(written).toEqual([md]);
  });

  it("shows the review to copy by hand when the clipboard refuses it", async () => {
    mockIPC((cmd) => (cmd === "list_comments" ? [] : cmd === "review_markdown" ? "# Review: Plan\n" : null));
    Object.defineProperty(navigator, "clipboard", {
      value: { writeText: async () => Promise.reject(new Error("NotAllowedError")) },
      configurable: true,
    });
    render(CommentsPanel, { planId: "p1" });
    await fireEvent.click(await screen.findByTestId("copy-review"));
    const manual = await screen.findByTestId("copy-manual");
    expect(manual.querySelector("textarea")).toHaveValue("# Review: Plan\n");
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("renders 200 comments, each with its quote", async () => {
    mockIPC((cmd) =>
      cmd === "list_comments"
        ? Array.from({ length: 200 }, (_, i) => comment({ id: `c${i}`, text: `note ${i}`, line: i + 1 }))
        : null,
    );
    render(CommentsPanel, { planId: "p1" });
    expect(await screen.findByText("note 199")).toBeInTheDocument();
    expect(document.querySelectorAll("[data-status=open]")).toHaveLength(200);
    expect(screen.getByText("200 open")).toBeInTheDocument();
  });

  it("reloads its comments when its own plan changes, not when another does", async () => {
    let loads = 0;
    mockIPC(
      (cmd) => {
        if (cmd === "list_comments") {
          loads++;
          return [comment()];
        }
        return null;
      },
      { shouldMockEvents: true },
    );
    render(CommentsPanel, { planId: "p1" });
    await screen.findByText("RFC 8288 format, please.");
    await waitFor(() => expect(loads).toBe(1));
    // Events are handled in order: had the other plan's change reloaded, the count would run ahead.
    await emit("plans:changed", { paths: ["/h/.claude/plans/other.md"], ids: ["p2"] });
    await emit("plans:changed", { paths: ["/h/.claude/plans/p.md"], ids: ["p1"] });
    await waitFor(() => expect(loads).toBeGreaterThanOrEqual(2));
    await emit("plans:changed", { paths: ["/h/.claude/plans/other.md"], ids: ["p2"] });
    await emit("plans:changed", { paths: [], ids: [] });
    await waitFor(() => expect(loads).toBeGreaterThanOrEqual(3));
    expect(loads).toBe(3);
  });

  describe("beside the rendered plan", () => {
    // jsdom lays nothing out: each box is given here, as the window would measure it. The plan's
    // text ends at x=560; three blocks at y=150, 170 and 700; the card list starts at y=100;
    // each card is 80 px high.
    const blocks = [
      { src: "0-10", text: "First step", top: 150 },
      { src: "11-20", text: "Second step", top: 170 },
      { src: "21-30", text: "Third step", top: 700 },
    ];
    let marginLeft = 600;
    const rect = (top: number, left = 0, height = 20, width = 100) =>
      ({ top, left, height, width, right: left + width, bottom: top + height, x: left, y: top, toJSON: () => ({}) }) as DOMRect;
    const saved = { el: Element.prototype.getBoundingClientRect, range: (Range.prototype as any).getBoundingClientRect };
    let plan: HTMLElement;

    beforeEach(() => {
      plan = document.createElement("div");
      plan.setAttribute("data-testid", "plan-html");
      for (const b of blocks) {
        const p = document.createElement("p");
        p.setAttribute("data-src", b.src);
        p.textContent = b.text;
        plan.append(p);
      }
      document.body.append(plan);
      Element.prototype.getBoundingClientRect = function (this: Element) {
        const src = this.getAttribute("data-src");
        const block = blocks.find((b) => b.src === src);
        if (block) return rect(block.top, 0, 20, 560);
        if (this.getAttribute("data-testid") === "plan-html") return rect(140, 0, 600, 560);
        if (this.getAttribute("data-testid") === "comments") return rect(0, marginLeft, 900, 260);
        if (this.getAttribute("data-testid") === "comment-cards") return rect(100, marginLeft, 0, 260);
        if (this.matches(".comment, .draft")) return rect(0, marginLeft, 80, 260);
        return rect(0, 0, 0, 0);
      };
      (Range.prototype as any).getBoundingClientRect = function (this: Range) {
        return (this.startContainer.parentElement as Element).getBoundingClientRect();
      };
    });
    afterEach(() => {
      Element.prototype.getBoundingClientRect = saved.el;
      (Range.prototype as any).getBoundingClientRect = saved.range;
      plan.remove();
      marginLeft = 600;
    });

    const three = () => [
      comment({ id: "c1", anchor: { quote: "First step", before: "", after: "", start: 0 }, placement: { kind: "kept", start: 0, end: 10 } }),
      comment({ id: "c2", anchor: { quote: "Second step", before: "", after: "", start: 11 }, placement: { kind: "kept", start: 11, end: 22 } }),
      comment({ id: "c3", anchor: { quote: "Third step", before: "", after: "", start: 21 }, placement: { kind: "kept", start: 21, end: 31 } }),
    ];
    const topOf = (id: string) => (document.querySelector(`[data-comment-id=${id}]`) as HTMLElement).style.top;

    it("stands each card level with its quote, pushing down a card that would overlap", async () => {
      mockIPC((cmd) => (cmd === "list_comments" ? three() : null));
      render(CommentsPanel, { planId: "p1" });
      await waitFor(() => expect(screen.getByTestId("comment-cards")).toHaveAttribute("data-aligned", "true"));
      // Quote tops less the list's top: 50, 70 (under the first card: 50 + 80 + 8), 600.
      expect([topOf("c1"), topOf("c2"), topOf("c3")]).toEqual(["50px", "138px", "600px"]);
      expect(screen.getByTestId("comment-cards").style.height).toBe("680px");
    });

    it("keeps the plain list when the margin is below the plan (a narrow window)", async () => {
      marginLeft = 300;
      mockIPC((cmd) => (cmd === "list_comments" ? three() : null));
      render(CommentsPanel, { planId: "p1" });
      await screen.findByText("First step", { selector: "blockquote" });
      await new Promise((r) => requestAnimationFrame(r));
      expect(screen.getByTestId("comment-cards")).not.toHaveAttribute("data-aligned");
      expect([topOf("c1"), topOf("c2"), topOf("c3")]).toEqual(["", "", ""]);
    });

    it("opens a block comment's form beside its block, not at the top of the margin", async () => {
      mockIPC((cmd) => (cmd === "list_comments" ? [three()[2]] : null));
      render(CommentsPanel, { planId: "p1", draftQuote: "Second step", draftNear: 11 });
      const draft = await screen.findByTestId("comment-draft");
      await waitFor(() => expect(draft.style.top).toBe("70px"));
      expect(topOf("c3")).toBe("600px");
    });
  });
});
