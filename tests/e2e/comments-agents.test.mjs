// Comments reach the real agent CLIs: in the real window the reviewer comments on two blocks of a
// plan that waits in an agent's terminal (clicking each block), the agent's plan file is revised on
// disk (one comment stays open, the other turns outdated), and the reviewer decides in the waiting
// queue. With the real Claude Code CLI (interactive in tmux, and headless `claude -p`) and the real
// Gemini CLI (plan mode in tmux), each answered by its loopback model stand-in (tests/agents/),
// the model receives the open comment with its quote, lines intact: in the rejection's feedback,
// or as "Reviewer notes" of the approved plan.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { agentCli, claudeEnv, claudeReady, closedRequest, geminiEnv, geminiReady, makeAgentHome, modelGot, startStandIn, submitPrompt, Tmux, waitForRequest, withoutCi, withPlandeck } from "./agents.mjs";
import { cli, ROOT, waitFor } from "./webdriver.mjs";

const claude = agentCli("claude");
const gemini = agentCli("gemini");

// The stand-ins' plan (tests/agents/common.mjs DEFAULT_PLAN) and the agent's revision of it: step 2
// moves down, step 3 is gone.
const SUBMITTED = "# Plan: add pagination\n\n1. Add `page` and `limit` params\n2. Return a cursor\n3. Write tests\n";
const REVISED = "# Plan: add pagination\n\nWe page by cursor.\n\n1. Add `page` and `limit` params\n2. Return a cursor\n3. Document the cursor format\n";
const KEPT = "2. Return a cursor";
const GONE = "3. Write tests";
// Two lines, a leading dash and backticks: each must reach the model as written.
const NOTE = "Opaque cursor, not an offset:\n- base64 of the last `id`";
const GONE_NOTE = "Which tests? Name them.";
const FEEDBACK = "Two things first.";
const SENT_COMMENTS =
  "Comment on the plan (1), each on the quoted text:\n\n" +
  `1. On "${KEPT}":\n   Opaque cursor, not an offset:\n   - base64 of the last \`id\``;
const NOTES = `## Reviewer notes\n\n1. On "${KEPT}":\n   Opaque cursor, not an offset:\n   - base64 of the last \`id\``;

function claudeHome(home, repo) {
  claudeReady(home, repo);
  const installed = cli(home, ["hooks", "install", "--agent", "claude", "--yes"]);
  assert.equal(installed.status, 0, `hooks install failed: ${installed.stderr}`);
}

/** An interactive agent (`claude` or `gemini`) in tmux whose plan waits in Plandeck; runs `fn`. */
async function withPlanWaiting(agent, fn) {
  const { base, home, repo } = makeAgentHome(agent === "claude" ? "api" : "gemproj");
  if (agent === "claude") {
    claudeHome(home, repo);
  } else {
    geminiReady(home, repo);
    assert.equal(cli(home, ["hooks", "install", "--agent", "gemini", "--yes"]).status, 0);
  }
  const api = await startStandIn(agent, join(base, "api"));
  const tmux = new Tmux();
  try {
    await withPlandeck(home, async (s) => {
      assert.ok(s, "these tests need the real window");
      if (agent === "claude") {
        tmux.start([claude.bin, "--permission-mode", "plan"], { cwd: repo, env: claudeEnv(home, api) });
        await tmux.waitScreen("plan mode on", { timeout: 30000 });
      } else {
        tmux.start([gemini.bin, "--approval-mode", "plan"], { cwd: repo, env: geminiEnv(home, api) });
        await tmux.waitScreen("Type your message", { timeout: 45000 });
      }
      await submitPrompt(tmux, api, "plan pagination for the api");
      const req = await waitForRequest(home, tmux);
      assert.equal(req.agent, agent);
      assert.ok(req.planPath, "the request names the plan file");
      if (agent === "gemini") await tmux.waitScreen("Type your feedback");
      await fn({ s, home, base, api, tmux, req });
    });
  } finally {
    tmux.kill();
    api.stop();
  }
}

/** Opens the plan whose title holds "add pagination" in the window, rendered. */
async function openPlan(s) {
  await s.waitForText("add pagination", "[aria-label=Plans]", { timeout: 20000 });
  await s.exec(`[...document.querySelectorAll("[data-testid=plan-row]")].find(e => e.innerText.includes("add pagination")).click()`);
  await s.waitForText("Return a cursor", "[data-testid=plan-html]");
}

/** Clicks the rendered block showing `text` and comments `comment` on it (`c`, or the margin
 * button). */
async function commentOnBlock(s, text, comment, { key = false } = {}) {
  const clicked = await s.exec(
    `const el = [...document.querySelectorAll("[data-testid=plan-html] [data-src]")].find(e => e.innerText.trim() === arguments[0]);
     if (!el) return false; el.click(); return el.classList.contains("pd-focused");`,
    text,
  );
  assert.ok(clicked, `the block "${text}" is focused`);
  if (key) await s.keys("c");
  else await s.click("[data-testid=comment-block]");
  await s.waitFor("[data-testid=comment-text]");
  // Set with its lines (typing a newline in WebDriver is an Enter, which is fine too, but this is exact).
  await s.exec(
    `const box = document.querySelector("[data-testid=comment-text]"); box.value = arguments[0];
     box.dispatchEvent(new Event("input", { bubbles: true }));`,
    comment,
  );
  await s.click("[data-testid=comment-save]");
  await s.waitForText(comment.split("\n")[0], "[data-testid=comments]");
}

/** Comments on both blocks in the window, then revises the plan file as the agent would. */
async function commentThenRevise(s, req) {
  await openPlan(s);
  // A list item shows its text without the number; its source, number included, is the quote.
  await commentOnBlock(s, "Return a cursor", NOTE);
  await commentOnBlock(s, "Write tests", GONE_NOTE, { key: true });
  writeFileSync(req.planPath, REVISED);
  // The window keeps the version it showed until the person looks at the new one (the plan view
  // and the queue alike): the second look, then the comments follow the revision.
  await s.waitFor("[data-testid=show-new-version]", { timeout: 20000 });
  await s.click("[data-testid=show-new-version]");
  const card = `[data-testid=gate-request][data-id="${req.id}"]`;
  await s.waitFor(`${card} [data-testid=gate-show-new]`, { timeout: 20000 });
  await s.click(`${card} [data-testid=gate-show-new]`);
  await s.waitFor("[data-testid=comments] [data-status=outdated]", { timeout: 20000 });
  assert.match(await s.text("[data-testid=comments] [data-status=outdated]"), /Which tests/);
  assert.match(await s.text("[data-testid=comments] [data-status=open]"), /Opaque cursor/);
}

/** Rejects request `req` in the window's waiting queue with FEEDBACK (the comments go with it). */
async function rejectInQueue(s, req) {
  const card = `[data-testid=gate-request][data-id="${req.id}"]`;
  await waitFor(async () => (await s.exec(`return document.querySelector(arguments[0])?.innerText ?? ""`, `${card} [data-testid=gate-comments]`)).includes("1 open comment"), {
    what: "the queue to show the one open comment",
  });
  await s.click(`${card} [data-testid=gate-reject]`);
  await s.type(`${card} [data-testid=gate-feedback]`, FEEDBACK);
  await s.screenshot("comments-waiting");
  await s.click(`${card} [data-testid=gate-send-reject]`);
}

function received(api, tool, tmux) {
  return modelGot(api, tmux, tool, { timeout: 30000 });
}

/** The log line of the decision on `req` (written by the decider once the keys went: the request
 * may close a moment before, when the agent's record shows the answer first), and the sent comment. */
async function assertRecorded(home, req, expectFeedback, { revised = true } = {}) {
  let log = [];
  const d = await waitFor(
    () => {
      log = JSON.parse(cli(home, ["log", "--json"]).stdout);
      return log.find((x) => x.requestId === req.id);
    },
    { timeout: 15000, what: "the decision on the request in the log" },
  ).catch(() => undefined);
  assert.ok(d, `the decision on the request is in the log: ${req.id} ${JSON.stringify(log.map((x) => [x.requestId, x.decision, x.decidedBy]))}`);
  assert.equal(d.feedback, expectFeedback);
  assert.equal(d.comments.length, 1);
  const comments = JSON.parse(cli(home, ["comments", req.planPath, "--json"]).stdout);
  const sent = comments.find((c) => c.id === d.comments[0]);
  assert.equal(sent.quote, KEPT);
  assert.deepEqual(sent.sentWith, [d.time]);
  if (revised) assert.ok(comments.some((c) => c.status === "outdated" && c.sentWith.length === 0), "the outdated comment was not sent");
}

test("claude: a rejection in the window carries the open comment with its quote to the model", { timeout: 150000 }, async () => {
  await withPlanWaiting("claude", async ({ s, home, api, tmux, req }) => {
    await commentThenRevise(s, req);
    await rejectInQueue(s, req);
    const got = await received(api, "ExitPlanMode", tmux);
    assert.equal(got.isError, true);
    assert.equal(got.content, `${FEEDBACK}\n\n${SENT_COMMENTS}`);
    await waitFor(() => closedRequest(home, req.id)?.status === "rejected", { what: "the request closed as rejected" });
    await assertRecorded(home, req, `${FEEDBACK}\n\n${SENT_COMMENTS}`);
  });
});

test("gemini: a rejection in the window carries the open comment with its quote to the model", { timeout: 150000 }, async () => {
  await withPlanWaiting("gemini", async ({ s, home, api, tmux, req }) => {
    await commentThenRevise(s, req);
    await rejectInQueue(s, req);
    const got = await received(api, "exit_plan_mode", tmux);
    const out = got.response.output;
    assert.ok(out.startsWith(`Plan rejected. User feedback: ${FEEDBACK}\n\n${SENT_COMMENTS}`), `the model got:\n${out}`);
    await waitFor(() => closedRequest(home, req.id)?.status === "rejected", { what: "the request closed as rejected" });
    await assertRecorded(home, req, `${FEEDBACK}\n\n${SENT_COMMENTS}`);
  });
});

test("claude: approve with notes in the window delivers the open comment as Reviewer notes of the approved plan", { timeout: 150000 }, async () => {
  // Claude Code's plan waits in its hook as the agent submitted it: a file rewritten since is
  // never approved (tests/e2e/gate-claude.test.mjs), so the comment is on the submitted plan.
  await withPlanWaiting("claude", async ({ s, home, api, tmux, req }) => {
    await openPlan(s);
    await commentOnBlock(s, "Return a cursor", NOTE);
    const card = `[data-testid=gate-request][data-id="${req.id}"]`;
    await s.waitForText("1 open comment", `${card} [data-testid=gate-comments]`);
    await s.click(`${card} [data-testid=gate-approve-auto]`);
    const got = await received(api, "ExitPlanMode", tmux);
    assert.equal(got.isError, false);
    assert.match(got.content, /^User has approved your plan/);
    assert.ok(got.content.includes(`${SUBMITTED.trimEnd()}\n\n${NOTES}`), `the model got:\n${got.content}`);
    await waitFor(() => closedRequest(home, req.id)?.status === "approved", { what: "the request closed as approved" });
    await assertRecorded(home, req, NOTES, { revised: false });
  });
});

test("gemini: approve with notes in the window writes them to the plan file the model is pointed at", { timeout: 150000 }, async () => {
  await withPlanWaiting("gemini", async ({ s, home, api, tmux, req }) => {
    await commentThenRevise(s, req);
    const card = `[data-testid=gate-request][data-id="${req.id}"]`;
    await s.waitForText("1 open comment", `${card} [data-testid=gate-comments]`);
    await s.click(`${card} [data-testid=gate-approve-auto]`);
    const got = await received(api, "exit_plan_mode", tmux);
    const out = got.response.output;
    assert.match(out, /^Plan approved\./);
    // Gemini CLI gives the model the approved plan's path; the model reads it from there.
    assert.ok(out.includes(`The approved implementation plan is stored at: ${req.planPath}`), out);
    assert.equal(readFileSync(req.planPath, "utf8"), `${REVISED.trimEnd()}\n\n${NOTES}\n`);
    await waitFor(() => closedRequest(home, req.id)?.status === "approved", { what: "the request closed as approved" });
    await assertRecorded(home, req, NOTES);
  });
});

test("claude -p (headless): approve with notes delivers the open comment in the approved plan", { timeout: 150000 }, async () => {
  const { base, home, repo } = makeAgentHome("api");
  claudeHome(home, repo);
  const mcp = join(base, "mcp.json");
  writeFileSync(mcp, JSON.stringify({ mcpServers: { plandeck: { command: process.execPath, args: [join(ROOT, "tests/agents/permission-mcp.mjs")] } } }));
  const api = await startStandIn("claude", join(base, "api"));
  let agent;
  try {
    await withPlandeck(home, async () => {
      agent = spawn(claude.bin, ["-p", "plan pagination headless", "--permission-mode", "plan", "--mcp-config", mcp, "--permission-prompt-tool", "mcp__plandeck__approve"], {
        cwd: repo,
        env: withoutCi(claudeEnv(home, api, { PERMISSION_DELAY_MS: "60000" })),
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      agent.stdout.on("data", (d) => (output += d));
      agent.stderr.on("data", (d) => (output += d));
      const exited = new Promise((r) => agent.once("exit", r));
      const req = await waitFor(() => JSON.parse(cli(home, ["pending", "--json"]).stdout)[0], { timeout: 30000, what: `the plan in plandeck pending (claude -p said: ${output})` });
      assert.equal(req.headless, true);
      const c = cli(home, ["comment", req.planPath, "--quote", KEPT, "--text", NOTE, "--json"]);
      assert.equal(c.status, 0, c.stderr);
      const r = cli(home, ["approve", req.id]);
      assert.equal(r.status, 0, `plandeck approve: ${r.stdout}${r.stderr}`);
      const got = await received(api, "ExitPlanMode");
      assert.match(got.content, /Approved Plan \(edited by user\)/);
      assert.ok(got.content.includes(NOTES), `the model got:\n${got.content}`);
      await exited;
      assert.match(output, /DONE after/);
      const log = JSON.parse(cli(home, ["log", "--json"]).stdout);
      assert.equal(log.find((x) => x.requestId === req.id)?.feedback, NOTES);
    });
  } finally {
    agent?.kill("SIGTERM");
    api.stop();
  }
});
