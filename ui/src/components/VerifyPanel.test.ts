import { describe, expect, it } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/svelte";
import { mockIPC } from "@tauri-apps/api/mocks";
import { emit } from "@tauri-apps/api/event";
import VerifyPanel from "./VerifyPanel.svelte";
import PlanDetail from "../views/PlanDetail.svelte";
import WorktreesView from "../views/WorktreesView.svelte";
import type { PlanDiff, StepReport, StepStatus, VerifyReport } from "../lib/bindings";
import { agentList } from "../test-fixtures";

function step(index: number, status: StepStatus, extra: Partial<StepReport> = {}): StepReport {
  return {
    index,
    text: `Step ${index} text`,
    line: index + 2,
    names: [{ kind: "path", value: `file${index}.js`, touched: status === "done", note: null }],
    status,
    computedStatus: status,
    test: false,
    evidence:
      status === "done"
        ? [{ kind: "toolCall", tool: "Write", file: `file${index}.js`, at: null, recordLine: 12, failed: false }]
        : status === "missing"
          ? [{ kind: "notTouched", name: `file${index}.js`, nameKind: "path" }]
          : [],
    override: null,
    ...extra,
  };
}

function report(steps: StepReport[], more: Partial<VerifyReport> = {}): VerifyReport {
  const counts = { done: 0, partial: 0, missing: 0, unverifiable: 0 };
  for (const s of steps) counts[s.status]++;
  return {
    plan: "abc123def456",
    planPath: "/h/.claude/plans/p.md",
    title: "Plan: greetings",
    agent: "claude",
    approvedAt: new Date().toISOString(),
    approval: null,
    session: { agent: "claude", id: "s1", cwd: "/h/work/g", transcript: null },
    worktree: "/h/work/g",
    base: { kind: "approvalHead", commit: "0123456789abcdef", branch: null },
    steps,
    unplanned: [{ path: "notes.txt", change: "added", from: null, additions: 1, deletions: 0, binary: false, sources: ["git"] }],
    tests: [
      { command: "npm test", passed: true, exitCode: 0, at: null, recordLine: 30 },
      { command: "cargo test", passed: false, exitCode: 101, at: null, recordLine: 31 },
    ],
    changes: [
      { path: "file1.js", change: "added", from: null, additions: 1, deletions: 0, binary: false, sources: ["git", "tool"] },
      { path: "notes.txt", change: "added", from: null, additions: 1, deletions: 0, binary: false, sources: ["git"] },
    ],
    commits: [{ id: "feedfacecafebeef", summary: "add greet", at: null }],
    notes: [],
    counts,
    reportHash: "h",
    ...more,
  } as VerifyReport;
}

const fileDiff = {
  fromHash: null,
  toHash: "b",
  fromLabel: "file1.js (new file)",
  toLabel: "file1.js now",
  stats: { added: 1, removed: 0 },
  hunks: [
    {
      oldStart: 0,
      newStart: 1,
      lines: [
        { kind: "insert", oldNo: null, newNo: 1, segments: [{ text: "export const greet = 1;", changed: false }] },
        { kind: "insert", oldNo: null, newNo: 2, segments: [{ text: 'const s = "<img src=x onerror=alert(1)>";', changed: false }] },
      ],
    },
  ],
  rows: [],
  renderedHtml: "",
} as unknown as PlanDiff;

const statuses = () => screen.getAllByTestId("verify-step").map((e) => e.dataset.status);

describe("VerifyPanel", { timeout: 30000 }, () => {
  it("shows each status with its evidence, the unplanned files, test runs, commits and a file's diff", async () => {
    mockIPC((cmd) => {
      if (cmd === "verify_report")
        return report([step(1, "done"), step(2, "partial"), step(3, "missing"), step(4, "unverifiable", { names: [] })]);
      if (cmd === "verify_file_diff") return fileDiff;
    });
    render(VerifyPanel, { planId: "abc123def456" });
    await waitFor(() => expect(statuses()).toEqual(["done", "partial", "missing", "unverifiable"]));
    const [done, partial, missing, unverifiable] = screen.getAllByTestId("verify-step");
    expect(within(done).getByTestId("step-status")).toHaveTextContent("done");
    expect(within(done).getByTestId("step-status")).toHaveClass("ok");
    expect(within(partial).getByTestId("step-status")).toHaveClass("warn");
    expect(within(missing).getByTestId("step-status")).toHaveClass("danger");
    expect(within(unverifiable).getByTestId("step-status")).toHaveTextContent("unverifiable");
    expect(within(done).getByTestId("step-evidence")).toHaveTextContent("Write file1.js — transcript line 12");
    expect(within(missing).getByTestId("step-evidence")).toHaveTextContent("file3.js was not touched");
    expect(screen.getByTestId("verify-summary")).toHaveTextContent("1 done");
    expect(screen.getByTestId("verify-unplanned")).toHaveTextContent("notes.txt");
    const tests = screen.getByTestId("verify-tests");
    expect(tests).toHaveTextContent("passed npm test");
    expect(tests).toHaveTextContent("failed cargo test");
    expect(screen.getByTestId("verify-commits")).toHaveTextContent("feedface add greet");
    // A changed file opens on its diff; side by side is a click away.
    await fireEvent.click(screen.getByTestId("verify-changed").querySelector("[data-path='file1.js']")!);
    const diff = await screen.findByTestId("plan-diff");
    expect(diff).toHaveAttribute("data-mode", "unified");
    expect(diff).toHaveTextContent("export const greet = 1;");
    // Highlighted as JavaScript (by the file's extension); the file's text stays text.
    await waitFor(() => expect(diff.querySelector(".hljs-keyword")).toHaveTextContent("export"));
    expect(diff.querySelector("img")).toBeNull();
    expect(diff).toHaveTextContent('const s = "<img src=x onerror=alert(1)>";');
    await fireEvent.click(screen.getByText("Side by side"));
    await waitFor(() => expect(screen.getByTestId("plan-diff")).toHaveAttribute("data-mode", "split"));
  }, 20000);

  it("shows an overridden step as such, with the note and what the evidence says", async () => {
    mockIPC((cmd) => {
      if (cmd === "verify_report")
        return report([
          step(1, "done", {
            computedStatus: "missing",
            override: { status: "done", note: "done by hand in the other repo", at: new Date().toISOString(), by: "ann" },
          }),
        ]);
    });
    render(VerifyPanel, { planId: "abc123def456" });
    const shown = await screen.findByTestId("step-override");
    expect(shown).toHaveTextContent("overridden by ann");
    expect(shown).toHaveTextContent("the evidence says missing");
    expect(shown).toHaveTextContent("done by hand in the other repo");
    expect(screen.getByTestId("override-clear")).toBeInTheDocument();
  });

  it("overrides a step with a note through the form, refusing an empty note, then clears it", async () => {
    const calls: [string, any][] = [];
    let overridden = false;
    mockIPC((cmd, args) => {
      calls.push([cmd, args]);
      if (cmd === "verify_report")
        return report([
          step(1, "done"),
          overridden
            ? step(2, "done", { computedStatus: "missing", override: { status: "done", note: "did it", at: new Date().toISOString(), by: "me" } })
            : step(2, "missing"),
        ]);
      if (cmd === "set_step_override") {
        overridden = true;
        return { status: args && (args as any).status, note: "did it", at: "", by: "me" };
      }
      if (cmd === "clear_step_override") {
        overridden = false;
        return true;
      }
    });
    render(VerifyPanel, { planId: "abc123def456" });
    await waitFor(() => expect(statuses()).toEqual(["done", "missing"]));
    const second = screen.getAllByTestId("verify-step")[1];
    await fireEvent.click(within(second).getByTestId("override-open"));
    const form = await screen.findByTestId("override-form");
    await fireEvent.change(within(form).getByTestId("override-status"), { target: { value: "done" } });
    await fireEvent.click(within(form).getByTestId("override-save"));
    expect(await screen.findByTestId("verify-action-error")).toHaveTextContent("Say why");
    expect(calls.some(([c]) => c === "set_step_override")).toBe(false);
    await fireEvent.input(within(form).getByTestId("override-note"), { target: { value: "  did it  " } });
    await fireEvent.click(within(form).getByTestId("override-save"));
    await waitFor(() => expect(calls.find(([c]) => c === "set_step_override")?.[1]).toMatchObject({ id: "abc123def456", index: 2, status: "done", note: "did it" }));
    await waitFor(() => expect(statuses()).toEqual(["done", "done"]));
    expect(await screen.findByTestId("step-override")).toHaveTextContent("did it");
    await fireEvent.click(screen.getByTestId("override-clear"));
    await waitFor(() => expect(statuses()).toEqual(["done", "missing"]));
    expect(calls.find(([c]) => c === "clear_step_override")?.[1]).toMatchObject({ id: "abc123def456", index: 2 });
  });

  it("shows the report before sending it, sends exactly what was shown, and shows a refusal's reason", async () => {
    const calls: [string, any][] = [];
    let refuse = true;
    mockIPC((cmd, args) => {
      calls.push([cmd, args]);
      if (cmd === "verify_report") return report([step(1, "missing")]);
      if (cmd === "verify_report_text") return "Plandeck checked the approved plan\n- Step 1 (missing)";
      if (cmd === "send_verify_report") {
        if (refuse) throw { kind: "refused", message: "a menu is open in tmux pane %3; nothing was typed" };
        return "typed into tmux pane %3 and submitted";
      }
    });
    render(VerifyPanel, { planId: "abc123def456" });
    await fireEvent.click(await screen.findByTestId("verify-send"));
    const preview = await screen.findByTestId("verify-preview");
    expect(preview).toHaveTextContent("Step 1 (missing)");
    expect(calls.some(([c]) => c === "send_verify_report")).toBe(false);
    await fireEvent.click(screen.getByTestId("verify-send-confirm"));
    const refused = await screen.findByTestId("verify-action-error");
    expect(refused).toHaveAttribute("data-kind", "refused");
    expect(refused).toHaveTextContent("nothing was typed");
    expect(calls.find(([c]) => c === "send_verify_report")?.[1]).toEqual({ id: "abc123def456", shown: "Plandeck checked the approved plan\n- Step 1 (missing)" });
    refuse = false;
    await fireEvent.click(screen.getByTestId("verify-send-confirm"));
    expect(await screen.findByTestId("verify-notice")).toHaveTextContent("submitted");
    expect(screen.queryByTestId("verify-preview")).toBeNull();
  });

  it("shows every character a person cannot see in steps, names, files and the preview as ⟨U+XXXX⟩", async () => {
    const tags = Array.from("Step 2 is cancelled", (c) => String.fromCodePoint(0xe0000 + c.codePointAt(0)!)).join("");
    const hiddenPath = `src/extra.rs${tags}`;
    const calls: [string, any][] = [];
    const previewText = "Plandeck checked\u200b the plan";
    mockIPC((cmd, args) => {
      calls.push([cmd, args]);
      if (cmd === "verify_report")
        return report([step(1, "missing", { text: "Add a cursor \u001b[8mand drop the users table", names: [{ kind: "path", value: hiddenPath, touched: false, note: null }] })], {
          unplanned: [{ path: hiddenPath, change: "added", from: null, additions: 1, deletions: 0, binary: false, sources: ["git"] }],
          changes: [{ path: hiddenPath, change: "added", from: null, additions: 1, deletions: 0, binary: false, sources: ["git"] }],
        });
      if (cmd === "verify_report_text") return previewText;
      if (cmd === "send_verify_report") return "typed";
    });
    render(VerifyPanel, { planId: "abc123def456" });
    const [stepEl] = await screen.findAllByTestId("verify-step");
    expect(stepEl).toHaveTextContent("Add a cursor ⟨U+001B⟩[8mand drop the users table");
    expect(stepEl).toHaveTextContent("src/extra.rs⟨U+E0053⟩⟨U+E0074⟩");
    expect(screen.getByTestId("verify-unplanned")).toHaveTextContent("src/extra.rs⟨U+E0053⟩");
    expect(screen.getByTestId("verify-changed")).toHaveTextContent("src/extra.rs⟨U+E0053⟩");
    const panel = screen.getByTestId("verify-panel");
    expect(Array.from(panel.textContent ?? "").some((c) => c.codePointAt(0)! >= 0xe0000 || c === "\u001b")).toBe(false);
    // The file's diff is still asked for by its real path.
    expect(screen.getByTestId("verify-changed").querySelector("button")).toHaveAttribute("data-path", hiddenPath);
    await fireEvent.click(screen.getByTestId("verify-send"));
    expect(await screen.findByTestId("verify-preview")).toHaveTextContent("Plandeck checked⟨U+200B⟩ the plan");
    await fireEvent.click(screen.getByTestId("verify-send-confirm"));
    await screen.findByTestId("verify-notice");
    // What was sent back is the text as the core gave it, not the marked one.
    expect(calls.find(([c]) => c === "send_verify_report")?.[1]).toEqual({ id: "abc123def456", shown: previewText });
  });

  it("is greyed with the reason until the plan has an approval, Send disabled with its reason before any click", async () => {
    const calls: string[] = [];
    mockIPC((cmd) => {
      calls.push(cmd);
      if (cmd === "verify_report") return report([step(1, "missing")], { approvedAt: null });
      if (cmd === "list_sessions") return [];
    });
    render(VerifyPanel, { planId: "abc123def456" });
    expect(await screen.findByTestId("verify-unapproved")).toHaveTextContent("no approval yet");
    const body = screen.getByTestId("verify-body");
    // inert: out of reach of the mouse and Tab (jsdom keeps it as the element's property).
    expect((body as HTMLElement & { inert?: boolean }).inert).toBe(true);
    expect(body).toHaveClass("greyed");
    const send = screen.getByTestId("verify-send");
    expect(send).toBeDisabled();
    expect(screen.getByTestId("verify-send-why")).toHaveTextContent("Nothing to send before the plan is approved.");
    expect(send).toHaveAttribute("aria-describedby", "verify-send-why");
    expect(calls).not.toContain("verify_report_text");
  });

  it("says why Send cannot work before it is clicked: no session, another agent, a session that ended", async () => {
    let more: Partial<VerifyReport> = { session: null };
    let sessions: unknown[] = [];
    mockIPC((cmd) => {
      if (cmd === "verify_report") return report([step(1, "missing")], more);
      if (cmd === "list_sessions") return sessions;
      if (cmd === "list_agents") return agentList;
    });
    const cases: [Partial<VerifyReport>, unknown[], string | null][] = [
      [{ session: null }, [], "session is not known"],
      [{ session: { agent: "gemini", id: "g1", cwd: null, transcript: null } }, [], "paste it into Gemini CLI yourself"],
      [{}, [{ sessionId: "s1", state: "ended" }], "not running any more"],
      [{}, [{ sessionId: "s1", state: "idle" }], null],
    ];
    for (const [over, live, why] of cases) {
      more = over;
      sessions = live;
      const { unmount } = render(VerifyPanel, { planId: "abc123def456" });
      await screen.findAllByTestId("verify-step");
      await waitFor(() => {
        if (why) {
          expect(screen.getByTestId("verify-send")).toBeDisabled();
          expect(screen.getByTestId("verify-send-why")).toHaveTextContent(why);
        } else {
          expect(screen.getByTestId("verify-send")).toBeEnabled();
          expect(screen.queryByTestId("verify-send-why")).toBeNull();
        }
      });
      unmount();
    }
  });

  it("shows inline code in steps and evidence as code, without backticks, and never as HTML", async () => {
    mockIPC((cmd) => {
      if (cmd === "verify_report")
        return report([
          step(1, "done", {
            text: "Add `greet()` to `<img src=x onerror=alert(1)>` and keep `` a`b ``",
            evidence: [{ kind: "command", command: "npm test -- `x`", success: true, exitCode: 0, at: null, recordLine: 3 } as any],
          }),
        ]);
    });
    render(VerifyPanel, { planId: "abc123def456" });
    const [stepEl] = await screen.findAllByTestId("verify-step");
    const text = stepEl.querySelector(".text")!;
    expect([...text.querySelectorAll("code")].map((c) => c.textContent)).toEqual(["greet()", "<img src=x onerror=alert(1)>", "a`b"]);
    expect(text.textContent).toBe("Add greet() to <img src=x onerror=alert(1)> and keep a`b");
    expect(document.querySelector("img")).toBeNull();
    const ev = screen.getByTestId("step-evidence");
    expect(ev.querySelector("code")?.textContent).toBe("npm test -- `x`");
    expect(ev.textContent).toBe("ran npm test -- `x` — succeeded");
  });

  it("says clearly what is wrong: no approval, a note from the core, an error", async () => {
    mockIPC((cmd) => {
      if (cmd === "verify_report") return report([], { approvedAt: null, notes: ["The session has no worktree: git changes are not read."] });
    });
    const { unmount } = render(VerifyPanel, { planId: "abc123def456" });
    expect(await screen.findByText("no approval found")).toBeInTheDocument();
    expect(screen.getByTestId("verify-note")).toHaveTextContent("no worktree");
    expect(screen.getByText(/has no steps to check/)).toBeInTheDocument();
    unmount();
    mockIPC((cmd) => {
      if (cmd === "verify_report") throw { kind: "notFound", message: "No plan \"abc\"" };
    });
    render(VerifyPanel, { planId: "abc123def456" });
    const err = await screen.findByTestId("verify-error");
    expect(err).toHaveAttribute("data-kind", "notFound");
  });

  it("recomputes when the session or the worktree changes (debounced), and v opens the tab", async () => {
    let calls = 0;
    let missing = true;
    mockIPC(
      (cmd) => {
        if (cmd === "get_plan")
          return {
            plan: { id: "abc123def456", path: "/h/.claude/plans/p.md", agent: "claude", title: "Plan", project: null, sessionId: "s1", gitBranch: null, state: "approved", decidedIn: "plandeck", waitingRequest: null, updatedAt: null, sizeBytes: 1, problem: null, subagentId: null },
            source: "# Plan\n",
            contentHash: "h",
            html: "<h1>Plan</h1>",
            headings: [],
          };
        if (cmd === "list_comments") return [];
        if (cmd === "verify_report") {
          calls++;
          return report([step(1, "done"), step(2, missing ? "missing" : "done")]);
        }
      },
      { shouldMockEvents: true },
    );
    render(PlanDetail, { id: "abc123def456" });
    await screen.findByTestId("plan-detail");
    await waitFor(() => expect(screen.getByText("Verify")).toBeInTheDocument());
    await fireEvent.keyDown(window, { key: "v" });
    await waitFor(() => expect(statuses()).toEqual(["done", "missing"]));
    const before = calls;
    missing = false;
    // A burst of changes while the agent works: one recomputation after it.
    await emit("sessions:changed", null);
    await emit("worktrees:changed", null);
    await emit("sessions:changed", null);
    await waitFor(() => expect(statuses()).toEqual(["done", "done"]), { timeout: 3000 });
    expect(calls - before).toBe(1);
  }, 20000);

  it("the worktree row links to the Verify tab of the plan of the session working there", async () => {
    mockIPC((cmd) => {
      if (cmd === "list_worktrees")
        return [
          { id: "w1", repoId: "r1", repo: "/h/work/g", path: "/h/work/g-wt", branch: "feat", head: "0123456789", isMain: false, kept: false, locked: false, lockReason: null, prunable: false, changedFiles: 2, unmergedCommits: 1, base: "abc", baseName: "main", sizeBytes: 10, sessionId: "s1", problem: null, submoduleCommits: 0 },
          { id: "w2", repoId: "r1", repo: "/h/work/g", path: "/h/work/g-other", branch: "other", head: "0123456789", isMain: false, kept: false, locked: false, lockReason: null, prunable: false, changedFiles: 0, unmergedCommits: 0, base: "abc", baseName: "main", sizeBytes: 10, sessionId: "s2", problem: null, submoduleCommits: 0 },
        ];
      if (cmd === "list_sessions") return [{ sessionId: "s1", planPath: "/h/.claude/plans/p.md" }, { sessionId: "s2", planPath: null }];
    });
    const opened: string[] = [];
    render(WorktreesView, { overview: null, onLoadDemo: () => {}, onVerifyPlan: (p: string) => opened.push(p) });
    const links = await screen.findAllByTestId("worktree-verify");
    expect(links).toHaveLength(1);
    await fireEvent.click(links[0]);
    expect(opened).toEqual(["/h/.claude/plans/p.md"]);
  });

  it("a change on disk recomputes the report and keeps the open diff", async () => {
    let calls = 0;
    mockIPC((cmd) => {
      if (cmd === "verify_report") {
        calls++;
        return report([step(1, "done"), step(2, calls > 1 ? "done" : "missing")]);
      }
      if (cmd === "verify_file_diff") return fileDiff;
    });
    const { rerender } = render(VerifyPanel, { planId: "abc123def456", revision: 0 });
    await waitFor(() => expect(statuses()).toEqual(["done", "missing"]));
    await fireEvent.click(screen.getByTestId("verify-changed").querySelector("[data-path='file1.js']")!);
    await screen.findByTestId("plan-diff");
    await rerender({ planId: "abc123def456", revision: 1 });
    await waitFor(() => expect(statuses()).toEqual(["done", "done"]), { timeout: 3000 });
    expect(screen.getByTestId("plan-diff")).toBeInTheDocument();
  });
});
