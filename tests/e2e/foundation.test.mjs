// The foundation: the real window opens, shows what it looked at, and the demo fills every view.

import { test } from "node:test";
import assert from "node:assert/strict";
import { withApp } from "./webdriver.mjs";

test("an empty home shows which folders were looked at, and Load demo fills the app", async () => {
  await withApp({}, async (s) => {
    await s.waitForText("No plans yet");
    const body = await s.text("main");
    assert.match(body, /Claude Code/);
    assert.match(body, /\.claude/);
    assert.match(body, /not found/);
    await s.screenshot("empty-state");
    await s.click("[data-testid=load-demo]");
    await s.waitFor(".badge.accent", { timeout: 20000 });
    // Filled: every view shows the demo's own items, not the empty state.
    await s.click("[data-view=plans]");
    await s.waitForText("cursor pagination", "[aria-label=Plans]", { timeout: 20000 });
    await s.click("[data-view=sessions]");
    await s.waitFor("[data-testid=session-card]", { timeout: 20000 });
    await s.waitForText("waiting for approval");
    await s.click("[data-view=worktrees]");
    await s.waitFor("[data-testid=worktree-row]", { timeout: 20000 });
    await s.waitForText("pagination");
  });
});

test("--demo shows sample data in all three views", async () => {
  await withApp({ args: ["--demo"] }, async (s) => {
    await s.click("[data-view=plans]");
    await s.waitFor("[data-testid=plan-row]");
    await s.waitForText("cursor pagination");
    await s.screenshot("plans");
    await s.click("[data-view=sessions]");
    await s.waitFor("[data-testid=session-card]");
    await s.waitForText("waiting for approval");
    await s.screenshot("sessions");
    await s.click("[data-view=worktrees]");
    await s.waitFor("[data-testid=worktree-row]");
    await s.waitForText("pagination");
    await s.screenshot("worktrees");
  });
});
