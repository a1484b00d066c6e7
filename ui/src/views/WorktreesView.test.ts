import { afterEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/svelte";
import { mockIPC } from "@tauri-apps/api/mocks";
import { emit } from "@tauri-apps/api/event";
import WorktreesView from "./WorktreesView.svelte";
import type { WorktreeSummary } from "../lib/bindings";

const worktree = (over: Partial<WorktreeSummary>): WorktreeSummary => ({
  id: "wt1",
  machine: null,
  repoId: "r1",
  repo: "/h/repo",
  path: "/h/repo-feature",
  branch: "feature",
  head: "0123456789abcdef",
  base: "fedcba9876543210",
  baseName: "main",
  changedFiles: 0,
  unmergedCommits: 0,
  locked: false,
  lockReason: null,
  isMain: false,
  prunable: false,
  submoduleCommits: 0,
  sizeBytes: null,
  sessionId: null,
  planPath: null,
  kept: false,
  problem: null,
  ...over,
});

/** A promise with its resolve function outside. */
function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe("WorktreesView", () => {
  afterEach(() => vi.useRealTimers());
  it("lists once at a time: changes announced while a listing runs make one more listing after it", async () => {
    // Fake timers that also move with the clock (testing-library's waits poll on them): "nothing
    // more" is every timer due in the next ten seconds run at once, not a sleep.
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const pending: { resolve: (v: WorktreeSummary[]) => void }[] = [];
    let running = 0;
    let most = 0;
    mockIPC(
      (cmd) => {
        if (cmd !== "list_worktrees") return null;
        running++;
        most = Math.max(most, running);
        const d = deferred<WorktreeSummary[]>();
        pending.push(d);
        return d.promise.finally(() => running--);
      },
      { shouldMockEvents: true },
    );
    render(WorktreesView, { overview: null, onLoadDemo: () => {} });
    await waitFor(() => expect(pending.length).toBe(1));
    // Three announcements while the first listing is still running.
    await emit("worktrees:changed");
    await emit("worktrees:changed");
    await emit("worktrees:changed");
    await vi.advanceTimersByTimeAsync(10_000);
    expect(pending.length).toBe(1);
    pending[0].resolve([worktree({ changedFiles: 1 })]);
    // Exactly one more listing, after the first.
    await waitFor(() => expect(pending.length).toBe(2));
    pending[1].resolve([worktree({ changedFiles: 2 })]);
    await waitFor(() => expect(screen.getByTestId("changed-files")).toHaveTextContent("2"));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(pending.length).toBe(2);
    expect(most).toBe(1);
  });

  it("shows … until a size arrives, puts re-read worktrees in place, and measures them again", async () => {
    mockIPC(
      (cmd) =>
        cmd === "list_worktrees"
          ? [worktree({}), worktree({ id: "wt2", path: "/h/repo-gone", prunable: true, problem: "the folder is gone" })]
          : null,
      { shouldMockEvents: true },
    );
    render(WorktreesView, { overview: null, onLoadDemo: () => {} });
    await waitFor(() => expect(screen.getAllByTestId("worktree-row").length).toBe(2));
    const sizeOf = (id: string) =>
      screen.getAllByTestId("worktree-row").find((r) => r.dataset.id === id)!.querySelector("[data-testid=worktree-size]")!;
    expect(sizeOf("wt1")).toHaveTextContent("…");
    expect(sizeOf("wt2").textContent).toBe("");

    await emit("worktrees:size", { id: "wt1", sizeBytes: 3 * 1024 * 1024 });
    await waitFor(() => expect(sizeOf("wt1")).toHaveTextContent("3.0 MB"));

    // The watcher re-read wt1 after a change: its counts are replaced, its size is measured again.
    await emit("worktrees:updated", [worktree({ changedFiles: 4 })]);
    await waitFor(() => expect(screen.getAllByTestId("changed-files")[0]).toHaveTextContent("4"));
    expect(sizeOf("wt1")).toHaveTextContent("…");
    await emit("worktrees:size", { id: "wt1", sizeBytes: null });
    await waitFor(() => expect(sizeOf("wt1").textContent).toBe(""));
  });

  it("opens a row's counts to its files (status in words) and commits, and closes them again", async () => {
    const calls: string[] = [];
    mockIPC((cmd, args: any) => {
      calls.push(cmd);
      if (cmd === "list_worktrees") return [worktree({ changedFiles: 3, unmergedCommits: 1 })];
      if (cmd === "worktree_details" && args.id === "wt1")
        return {
          files: [
            { path: "src/lib.rs", status: "modified" },
            { path: "notes.txt", status: "untracked" },
            { path: "old.rs -> new.rs", status: "renamed" },
          ],
          filesTotal: 3,
          commits: [{ id: "feedfacecafebeef00", summary: "add <b>greet</b>" }],
          commitsTotal: 1,
          problem: null,
        };
      return null;
    });
    render(WorktreesView, { overview: null, onLoadDemo: () => {} });
    const count = await screen.findByRole("button", { name: "3" });
    expect(count).toHaveAttribute("aria-expanded", "false");
    await fireEvent.click(count);
    const files = await screen.findByTestId("worktree-files");
    expect(count).toHaveAttribute("aria-expanded", "true");
    expect([...files.querySelectorAll("li")].map((li) => li.textContent)).toEqual([
      "modified src/lib.rs",
      "untracked notes.txt",
      "renamed old.rs -> new.rs",
    ]);
    expect(files.textContent).not.toMatch(/\?\?| M /);
    const commits = screen.getByTestId("worktree-commits");
    expect(commits).toHaveTextContent("feedface add <b>greet</b>");
    expect(commits.querySelector("b")).toBeNull();
    // The commits' count opens the same place; a second click closes it.
    await fireEvent.click(screen.getByTestId("unmerged-commits"));
    expect(screen.queryByTestId("worktree-details")).toBeNull();
    // Enter on the focused count opens it too (it is a button).
    expect(count.tagName).toBe("BUTTON");
  });

  it("says what Keep means, and undoes it from the banner or the row", async () => {
    const calls: [string, any][] = [];
    let kept = false;
    mockIPC((cmd, args: any) => {
      calls.push([cmd, args]);
      if (cmd === "list_worktrees") return [worktree({ kept })];
      if (cmd === "keep_worktree") return ((kept = true), null);
      if (cmd === "unkeep_worktree") return ((kept = false), null);
      return null;
    });
    render(WorktreesView, { overview: null, onLoadDemo: () => {} });
    const keepButton = await screen.findByTestId("keep-worktree");
    expect(keepButton.getAttribute("title")).toMatch(/left out of “Remove all clean and merged”\. Nothing on disk changes/);
    expect(document.getElementById(keepButton.getAttribute("aria-describedby")!)).toHaveTextContent("Nothing on disk changes");
    await fireEvent.click(keepButton);
    const notice = await screen.findByTestId("worktree-notice");
    expect(notice).toHaveTextContent("Kept /h/repo-feature: it is left out of");
    expect(notice).toHaveTextContent("Nothing on disk changed.");
    await fireEvent.click(await screen.findByTestId("undo-keep"));
    await waitFor(() => expect(calls.some(([c, a]) => c === "unkeep_worktree" && a.id === "wt1")).toBe(true));
    await waitFor(() => expect(screen.getByTestId("worktree-notice")).toHaveTextContent("no longer kept"));
    expect(screen.queryByTestId("undo-keep")).toBeNull();
    // Kept again: the row offers to stop keeping it.
    await fireEvent.click(await screen.findByTestId("keep-worktree"));
    await fireEvent.click(await screen.findByTestId("unkeep-worktree"));
    await waitFor(() => expect(calls.filter(([c]) => c === "unkeep_worktree")).toHaveLength(2));
    expect(await screen.findByTestId("keep-worktree")).toBeInTheDocument();
  });

  it("links a worktree to its session's plan from its row: an ACP-hosted session, whose agent's records no session list shows (issue 36)", async () => {
    const calls: string[] = [];
    mockIPC((cmd) => {
      calls.push(cmd);
      if (cmd === "list_worktrees") return [worktree({ sessionId: "acps-00000000000000c1", planPath: "/h/.claude/plans/p.md" })];
      // The session lists hold the ACP card, never its agent's transcript: no plan from here.
      if (cmd === "list_sessions") return [];
      return null;
    });
    const opened: string[] = [];
    render(WorktreesView, { overview: null, onLoadDemo: () => {}, onVerifyPlan: (p: string) => opened.push(p) });
    await fireEvent.click(await screen.findByTestId("worktree-verify"));
    expect(opened).toEqual(["/h/.claude/plans/p.md"]);
    expect(screen.getByText("acps-000")).toBeInTheDocument();
    // The row named the plan: the sessions were not listed for it.
    expect(calls).not.toContain("list_sessions");
  });

  it("says a cancelled removal plainly, not in a success's green", async () => {
    mockIPC((cmd) => {
      if (cmd === "list_worktrees") return [worktree({})];
      if (cmd === "remove_worktree") return { removed: false, archiveRef: null, branchDeleted: null, tmuxSessionKilled: null, panesEnded: [] };
      return null;
    });
    render(WorktreesView, { overview: null, onLoadDemo: () => {} });
    await fireEvent.click(await screen.findByTestId("remove-worktree"));
    const notice = await screen.findByTestId("worktree-notice");
    expect(notice).toHaveTextContent("Cancelled: nothing was removed.");
    expect(notice).toHaveClass("info");
    expect(notice).not.toHaveClass("ok");
  });
  it("offers “Remove all clean and merged” only when a worktree qualifies (issue 34)", async () => {
    let list = [worktree({ changedFiles: 2 }), worktree({ id: "wt2", path: "/h/repo-kept", kept: true })];
    mockIPC(
      (cmd) => {
        if (cmd === "list_worktrees") return list;
        return null;
      },
      { shouldMockEvents: true },
    );
    render(WorktreesView, { overview: null, onLoadDemo: () => {} });
    const button = await screen.findByTestId("remove-clean");
    expect(button).toBeDisabled();
    expect(button.getAttribute("title")).toMatch(/No worktree here is clean and merged/);
    list = [...list, worktree({ id: "wt3", path: "/h/repo-done" })];
    await emit("worktrees:changed", { ids: [] });
    await waitFor(() => expect(screen.getByTestId("remove-clean")).toBeEnabled());
  });

  it("lays out every repository's worktrees in the same columns, whatever each holds", async () => {
    mockIPC(
      (cmd) =>
        cmd === "list_worktrees"
          ? [
              worktree({}),
              worktree({ id: "wt2", repoId: "r2", repo: "/h/other-repository-with-a-long-name", path: "/h/other-repository-with-a-long-name-and-a-longer-feature-branch", branch: "a/very/long/branch/name/for/this/one" }),
            ]
          : null,
      { shouldMockEvents: true },
    );
    render(WorktreesView, { overview: null, onLoadDemo: () => {} });
    await waitFor(() => expect(screen.getAllByTestId("worktree-table").length).toBe(2));
    const columns = screen.getAllByTestId("worktree-table").map((t) => [...t.querySelectorAll("colgroup col")].map((c) => c.className));
    expect(columns[0].length).toBe(screen.getAllByTestId("worktree-table")[0].querySelectorAll("thead th").length);
    expect(columns[1]).toEqual(columns[0]);
    expect(columns[0].filter((c) => c).length).toBe(6);
  });
});
