// A newcomer's first hour (issue 34): the window opened on an empty home, then the agents make
// their folders and sessions; the window lists them within seconds, without a restart.

import { test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, withApp } from "./webdriver.mjs";

test("on an empty home, sessions that start after the window opened are listed within seconds", async () => {
  await withApp({}, async (s) => {
    const home = s.home;
    await s.click("[data-view=sessions]");
    await s.waitFor("[aria-label='Nothing found']");
    assert.match(await s.text("[aria-label='Nothing found']"), /No sessions yet/);

    // Claude Code's first session: its projects folder, transcript and registry entry.
    const project = join(home, ".claude/projects/-work-shop");
    mkdirSync(project, { recursive: true });
    const record = {
      type: "user", sessionId: "s-first", cwd: "/work/shop", timestamp: new Date().toISOString(),
      message: { role: "user", content: "plan the shop" },
    };
    writeFileSync(join(project, "s-first.jsonl"), JSON.stringify(record) + "\n");
    mkdirSync(join(home, ".claude/sessions"), { recursive: true });
    writeFileSync(
      join(home, ".claude/sessions/1.json"),
      JSON.stringify({ pid: process.pid, sessionId: "s-first", cwd: "/work/shop", status: "busy", updatedAt: Date.now() }),
    );
    await s.waitFor("[data-testid=session-card][data-session=s-first]", { timeout: 10000 });

    // Codex CLI's first rollout, in a folder tree made at once.
    const fixtures = join(ROOT, "tests/fixtures/codex-cli-0.169.0/sessions/2026/11/23");
    const rollout = readdirSync(fixtures).find((f) => f.endsWith(".jsonl"));
    const day = join(home, ".codex/sessions/2026/11/23");
    mkdirSync(day, { recursive: true });
    copyFileSync(join(fixtures, rollout), join(day, rollout));
    // An old rollout: its session ended, behind "Show 1 ended".
    await s.waitForText("Show 1 ended", "[data-testid=toggle-ended]", { timeout: 10000 });
    await s.click("[data-testid=toggle-ended]");
    await s.waitFor("[data-testid=session-card][data-agent=codex]", { timeout: 10000 });
    await s.screenshot("first-run-sessions");
  });
});

test("the demo shows “Waiting for you” with one request; deciding it says nothing was sent", async () => {
  await withApp({}, async (s) => {
    await s.setSize(1280, 820);
    await s.click("[data-testid=load-demo]");
    await s.waitFor("[data-testid=demo-banner]", { timeout: 30000 });
    await s.waitFor("[data-testid=waiting-queue] [data-testid=gate-request]", { timeout: 15000 });
    assert.equal(await s.exec(`return document.querySelectorAll("[data-testid=gate-request]").length`), 1);
    await s.screenshot("demo-waiting");
    await s.click("[data-testid=gate-request] [data-testid=gate-approve-auto]");
    await s.waitForText("demo: nothing was sent", "[data-testid=gate-sent]", { timeout: 15000 });
    await s.waitFor("[data-testid=waiting-queue].quiet");
    await s.screenshot("demo-decided");
  });
});
