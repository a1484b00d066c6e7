// Sessions in the real window: a record appended to a transcript changes the card's state.

import { test } from "node:test";
import { appendFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { makeDemoHome, withApp } from "./webdriver.mjs";

const WORKTREE_SESSION = "a1c2e3f4-5b6d-4e7f-8a9b-0c1d2e3f4a5b";

test("appending an ExitPlanMode call to a transcript turns its card to waiting for approval", async () => {
  const { home } = makeDemoHome();
  const projects = join(home, ".claude/projects");
  const folder = readdirSync(projects).find((d) => readdirSync(join(projects, d)).includes(`${WORKTREE_SESSION}.jsonl`));
  const transcript = join(projects, folder, `${WORKTREE_SESSION}.jsonl`);
  await withApp({ home }, async (s) => {
    await s.click("[data-view=sessions]");
    const card = `[data-testid=session-card][data-session="${WORKTREE_SESSION}"]`;
    await s.waitFor(card);
    const record = {
      type: "assistant",
      uuid: "e2e-a9",
      parentUuid: "a1",
      sessionId: WORKTREE_SESSION,
      cwd: "/tmp",
      timestamp: new Date().toISOString(),
      message: {
        role: "assistant",
        stop_reason: "tool_use",
        content: [{ type: "tool_use", id: "toolu_e2e_exit", name: "ExitPlanMode", input: { plan: "# Plan: e2e\n" } }],
      },
    };
    appendFileSync(transcript, JSON.stringify(record) + "\n");
    await s.waitFor(`${card} .badge[data-state=waiting_for_approval]`, { timeout: 15000 });
    await s.screenshot("sessions-live");
  });
});
