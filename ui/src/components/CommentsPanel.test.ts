import { describe, expect, it } from "vitest";
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
});
