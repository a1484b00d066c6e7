// A newcomer's first hour (issue 34): the window opened on an empty home, then the agents make
// their folders and sessions; the window lists them within seconds, without a restart.

import { test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentCli, claudeEnv, claudeReady, makeAgentHome, startStandIn, submitPrompt, Tmux } from "./agents.mjs";
import { spawnSync } from "node:child_process";
import { cli, ROOT, waitFor, withApp } from "./webdriver.mjs";

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

test("a Claude Code session whose tmux session is killed is ended within seconds, and offers Resume only", { timeout: 180000 }, async () => {
  const { base, home, repo } = makeAgentHome("shop");
  claudeReady(home, repo);
  const api = await startStandIn("claude", join(base, "api"));
  const tmux = new Tmux();
  try {
    tmux.start([agentCli("claude").bin, "--permission-mode", "plan"], { cwd: repo, env: claudeEnv(home, api) });
    await tmux.waitScreen("plan mode on", { timeout: 30000 });
    // Its plan's card up: the session waits for approval (its transcript says so).
    await submitPrompt(tmux, api, "plan a shopping cart");
    await tmux.waitScreen("Tell Claude what to change", { timeout: 60000 });
    await withApp({ home }, async (s) => {
      await s.click("[data-view=sessions]");
      const card = await waitFor(
        () => s.exec(`const c = [...document.querySelectorAll("[data-testid=session-card]")].find((c) => c.querySelector("[data-testid=watch-terminal]")); return c ? c.dataset.session : null;`),
        { timeout: 30000, what: "the running session's card" },
      );
      const css = `[data-testid=session-card][data-session="${card}"]`;
      // Running: steered, not resumed.
      await s.waitFor(`${css} .badge[data-state=waiting_for_approval]`, { timeout: 15000 });
      await s.waitFor(`${css} [data-testid=action-stop]`);
      assert.equal(await s.exec(`return !!document.querySelector(arguments[0])`, `${css} [data-testid=action-resume]`), false);
      // As a person ends it: the tmux session goes (its panes get a hang-up).
      tmux.run(["kill-server"]);
      // Within seconds (the liveness tick): ended, Resume only. Ended cards are behind "Show N ended".
      await waitFor(
        () => s.exec(`const t = document.querySelector("[data-testid=toggle-ended]"); if (t && t.getAttribute("aria-expanded") !== "true") t.click(); return !!document.querySelector(arguments[0]);`, `${css} .badge[data-state=ended], ${css} .badge[data-state=crashed]`),
        { timeout: 15000, what: "the killed session's card to say ended" },
      ).catch(async (e) => {
        await s.screenshot("killed-session-failed");
        const out = cli(home, ["sessions", "list", "--json"]).stdout;
        throw new Error(`${e.message}\n${await s.text(css).catch(() => "no card")}\nCLI: ${out.slice(0, 1500)}\nps: ${spawnSync("ps", ["-eo", "pid,stat,args"], { encoding: "utf8" }).stdout.split("\n").filter((l) => l.includes("claude")).join("\n")}\nregistry: ${readdirSync(join(home, ".claude/sessions")).join(",")}`);
      });
      await s.waitFor(`${css} [data-testid=action-resume]`);
      for (const gone of ["action-send", "action-interrupt", "action-stop"]) {
        assert.equal(await s.exec(`return !!document.querySelector(arguments[0])`, `${css} [data-testid=${gone}]`), false, gone);
      }
      await s.screenshot("killed-session-ended");
    });
  } finally {
    tmux.kill();
    api.stop();
  }
});
