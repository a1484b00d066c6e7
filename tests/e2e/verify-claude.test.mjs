// Verification end to end with the real Claude Code CLI (npm @anthropic-ai/claude-code 2.1.x) in
// tmux, its model answered by tests/agents/claude-api.mjs (`--scenario verify`) on loopback, and
// Plandeck's Stop hook installed with `plandeck hooks install --agent claude --verify` in a temp
// HOME where the app runs. A 3-step plan is approved in the terminal; the scripted model does
// steps 1 and 2 and writes a file no step names, then ends its turn; the Stop hook blocks with the
// report; the model reads it, does step 3 (once the test has looked at the window) and stops.

import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { agentCli, answerCardInTerminal, claudeEnv, claudeReady, makeAgentHome, startStandIn, submitPrompt, Tmux, withPlandeck } from "./agents.mjs";
import { cli, waitFor } from "./webdriver.mjs";

const claude = agentCli("claude");
const CARD = "Tell Claude what to change";

/** The report's steps as the window shows them: `[{index, status}]`. */
function windowSteps(s) {
  return s.exec(
    `return [...document.querySelectorAll("[data-testid=verify-step]")].map(e => ({ index: Number(e.dataset.index), status: e.dataset.status }))`,
  );
}

/** The step statuses in the window, in order, once the window shows `want` (e.g. "done,done,missing"). */
function windowShows(s, want, what) {
  return waitFor(async () => (await windowSteps(s)).map((x) => x.status).join(",") === want, {
    timeout: 30000,
    what,
  }).catch(async (e) => {
    const text = await s.exec(`const e = document.querySelector("[data-testid=verify-panel]"); return e ? e.innerText : "(no verify panel)"`).catch(() => "");
    throw new Error(`${e.message}\nthe window shows: ${JSON.stringify(await windowSteps(s).catch(() => []))}\n${text}`);
  });
}

/**
 * A Claude Code session in tmux on a fresh HOME (Plandeck running on it) whose 3-step plan is
 * approved in the terminal; the scripted model then does steps 1 and 2 and writes notes.txt.
 * With `verifyHook`, Plandeck's Stop hook is installed. Runs `fn({s, home, repo, api, tmux})`.
 */
async function withApprovedPlan({ verifyHook }, fn) {
  const { base, home, repo } = makeAgentHome("greetings");
  claudeReady(home, repo);
  // Writing files needs no prompt once the plan is approved (the person's own setting).
  mkdirSync(join(home, ".claude"), { recursive: true });
  writeFileSync(join(home, ".claude/settings.json"), JSON.stringify({ permissions: { allow: ["Write", "Edit"] } }, null, 2));
  if (verifyHook) {
    const installed = cli(home, ["hooks", "install", "--agent", "claude", "--verify", "--yes"]);
    assert.equal(installed.status, 0, `hooks install --verify failed: ${installed.stdout}${installed.stderr}`);
  }
  const api = await startStandIn("claude", join(base, "api"), ["--scenario", "verify", "--workdir", repo]);
  const tmux = new Tmux();
  try {
    await withPlandeck(home, async (s) => {
      tmux.start([claude.bin, "--permission-mode", "plan"], { cwd: repo, env: claudeEnv(home, api) });
      await tmux.waitScreen("plan mode on", { timeout: 30000 });
      await submitPrompt(tmux, api, "plan greetings for the cli");

      // Approved in the terminal: "2" (approve, edits confirmed by the person's settings).
      await tmux.waitScreen(CARD, { timeout: 30000 });
      await answerCardInTerminal(tmux, CARD, "2");
      const approved = await waitFor(() => api.received().find((r) => r.tool === "ExitPlanMode"), { timeout: 20000, what: "the approval to reach the model" });
      assert.match(approved.content, /^User has approved your plan/);
      const plans = join(home, ".claude/plans");
      const planFile = join(plans, readdirSync(plans).find((f) => f.endsWith(".md")));
      await fn({ s, home, repo, api, tmux, planFile });
    });
  } finally {
    tmux.kill();
    api.stop();
  }
}

/** Opens the plan on its Verify tab (with the `v` key) in the window. */
async function openVerifyTab(s) {
  await s.waitForText("greetings", "[aria-label=Plans]", { timeout: 30000 });
  await s.exec(`[...document.querySelectorAll("[data-testid=plan-row]")].find(e => e.innerText.includes("greetings")).click()`);
  await s.waitFor("[data-testid=plan-detail] [data-tab=verify]");
  await s.keys("v");
  await s.waitFor("[data-testid=verify-panel]");
}

test("claude: the Stop hook sends the missing step back, the model does it, and the window follows live", { timeout: 240000 }, async () => {
  await withApprovedPlan({ verifyHook: true }, async ({ s, home, repo, api, tmux, planFile }) => {
    assert.ok(s, "the window following live is the window's: this test needs the real window (PLANDECK_E2E_NO_WINDOW is set)");
    // Steps 1 and 2 and an unplanned file, then the model tries to stop: the Stop hook blocks
    // with the report, which names the missing step.
    const feedback = await waitFor(() => api.received().find((r) => r.tool === "feedback"), {
      timeout: 60000,
      what: "the Stop hook's reason to reach the model",
    }).catch((e) => {
      throw new Error(`${e.message}\n--- screen ---\n${tmux.safeCapture()}`);
    });
    assert.match(feedback.content, /USAGE\.md/, feedback.content);
    assert.match(feedback.content, /Document both/, feedback.content);
    assert.match(feedback.content, /missing/i, feedback.content);
    assert.doesNotMatch(feedback.content, /greet\.js[^\n]*missing/i, `steps 1 and 2 are not reported missing: ${feedback.content}`);
    // The request the CLI sent holds it (what the real model would read).
    const asked = api.requests().filter((r) => r.body?.tools?.length).map((r) => JSON.stringify(r.body));
    assert.ok(
      asked.some((b) => b.includes("USAGE.md") && b.includes("Document both")),
      "a request body the CLI sent carries the Stop hook's reason",
    );
    assert.ok(existsSync(join(repo, "greet.js")) && existsSync(join(repo, "notes.txt")));
    assert.ok(!existsSync(join(repo, "USAGE.md")), "step 3 waits for the test");

    // The plan, its Verify tab: steps 1 and 2 done, step 3 missing, notes.txt unplanned.
    await openVerifyTab(s);
    await windowShows(s, "done,done,missing", "steps done, done, missing in the window");
    await s.waitForText("notes.txt", "[data-testid=verify-unplanned]");
    await s.screenshot("verify-missing");
    // A changed file's diff, side by side, in the real window.
    await s.click("[data-testid=verify-changed] [data-path='greet.js']");
    await s.waitForText("hello", "[data-testid=verify-changed] [data-testid=plan-diff]");
    await s.click("[data-testid=verify-panel] [data-diff-mode=split]");
    await s.waitFor("[data-testid=verify-changed] [data-testid=plan-diff][data-mode=split]");
    await s.exec(`document.querySelector("[data-testid=unplanned-heading]")?.scrollIntoView({ block: "start" })`);
    await s.screenshot("verify-diff");

    // Let the model do step 3: it writes USAGE.md and stops; the window follows.
    writeFileSync(join(api.dir, "go"), "");
    await waitFor(() => existsSync(join(repo, "USAGE.md")), { timeout: 30000, what: "the model to write USAGE.md" });
    await windowShows(s, "done,done,done", "step 3 turning done in the window, live");
    await s.screenshot("verify-done");
    await tmux.waitScreen("All three steps are done", { timeout: 30000 });

    const r = cli(home, ["verify", planFile, "--json"]);
    assert.equal(r.status, 0, `plandeck verify: ${r.stdout}${r.stderr}`);
    const report = JSON.parse(r.stdout);
    assert.deepEqual(
      report.steps.map((x) => x.status),
      ["done", "done", "done"],
      JSON.stringify(report.steps, null, 1),
    );
    assert.deepEqual(
      report.unplanned.map((u) => u.path),
      ["notes.txt"],
      JSON.stringify(report.unplanned),
    );
    // The hook blocked once: the model got one report.
    assert.equal(api.received().filter((x) => x.tool === "feedback").length, 1);
  });
});

test("claude: Send report to agent in the window types the report into the session's own pane, and the model acts on it", { timeout: 240000 }, async () => {
  await withApprovedPlan({ verifyHook: false }, async ({ s, repo, api, tmux }) => {
    assert.ok(s, "Send report to agent is a button of the window: this test needs it (PLANDECK_E2E_NO_WINDOW is set)");
    // No Stop hook: the model stops after steps 1 and 2 and notes.txt.
    await tmux.waitScreen("Implemented the plan", { timeout: 60000 });
    writeFileSync(join(api.dir, "go"), "");
    await openVerifyTab(s);
    await windowShows(s, "done,done,missing", "steps done, done, missing in the window");
    await s.click("[data-testid=verify-send]");
    await s.waitForText("Step 3 (missing)", "[data-testid=verify-preview]");
    await s.screenshot("verify-send-preview");
    // The person is half-way through typing in the agent's input: the report would be submitted
    // glued to their words. Refused with the reason; their draft stays as it was.
    const draft = "also drop the users table and";
    // Claude Code draws its prompt as "❯" and a no-break space.
    const inInput = (screen) => /❯\s+also drop the users table and/.test(screen);
    tmux.text(draft);
    await tmux.waitScreen(inInput, { what: "the draft in the agent's input" });
    await s.click("[data-testid=verify-send-confirm]");
    await s.waitForText("holds text", "[data-testid=verify-action-error]", { timeout: 20000 });
    assert.ok(inInput(tmux.capture()), `the draft was changed:\n${tmux.safeCapture()}`);
    assert.equal(api.received().filter((r) => r.tool === "feedback").length, 0, "nothing reached the model");
    // The person clears their draft (Claude Code may drop keys sent in a burst: until it is gone).
    const inputEmpty = (screen) => /^\s*❯\s*$/m.test(screen);
    await waitFor(
      () => {
        if (inputEmpty(tmux.capture())) return true;
        for (let i = 0; i < 8; i++) tmux.keys("BSpace");
        return false;
      },
      { timeout: 20000, interval: 300, what: "the draft to be cleared" },
    );
    await s.click("[data-testid=verify-send-confirm]");
    await s.waitForText("submitted", "[data-testid=verify-notice]", { timeout: 20000 }).catch(async (e) => {
      const why = await s.exec(`const e = document.querySelector("[data-testid=verify-action-error]"); return e ? e.innerText : ""`);
      throw new Error(`${e.message}: ${why}\n--- screen ---\n${tmux.safeCapture()}`);
    });
    // The model got the report as the person's next message, and does step 3.
    const got = await waitFor(() => api.received().find((r) => r.tool === "feedback"), { timeout: 30000, what: "the report to reach the model" });
    assert.match(got.content, /Plandeck checked the approved plan/, got.content);
    assert.match(got.content, /Step 3 \(missing\)/, got.content);
    assert.match(got.content, /USAGE\.md/, got.content);
    await waitFor(() => existsSync(join(repo, "USAGE.md")), { timeout: 30000, what: "the model to write USAGE.md" });
    await windowShows(s, "done,done,done", "step 3 turning done in the window, live");
    // The model got the report once: the draft never went with it, nothing was sent twice.
    const reports = api.received().filter((r) => r.tool === "feedback");
    assert.equal(reports.length, 1, JSON.stringify(reports));
    assert.ok(!reports[0].content.includes(draft), reports[0].content);
  });
});
