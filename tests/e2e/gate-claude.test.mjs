// The gate end to end with the real Claude Code CLI (npm @anthropic-ai/claude-code 2.1.x) running
// interactively in tmux, its model API answered by tests/agents/claude-api.mjs on loopback, and
// Plandeck's hook installed with `plandeck hooks install` in a temp HOME where the app runs.
// The scripted model writes a plan in plan mode and calls ExitPlanMode; the stand-in records the
// tool result the model gets back, which is what these tests check.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { agentCli, answerCardInTerminal, approveEdited, assertLoggedOnce, assertOneDecided, CLAUDE_KEY, claudeDecidedBy, claudeEnv, claudeReady, closedAndDelivered, closedRequest, decideThreeAtOnce, makeAgentHome, modelGot, pending, rejectInQueue, startStandIn, submitPrompt, Tmux, tmuxLog, waitForRequest, withoutCi, withPlandeck } from "./agents.mjs";
import { cli, ROOT, waitFor } from "./webdriver.mjs";

const claude = agentCli("claude");
const CARD = "Tell Claude what to change";

/** A Claude Code session in plan mode that has submitted its plan; runs `fn` with it. */
async function withPlanWaiting(fn) {
  const { base, home, repo } = makeAgentHome("api");
  claudeReady(home, repo);
  const installed = cli(home, ["hooks", "install", "--agent", "claude", "--yes"]);
  assert.equal(installed.status, 0, `hooks install failed: ${installed.stderr}`);
  const api = await startStandIn("claude", join(base, "api"));
  const tmux = new Tmux();
  // Every tmux call of the deciders (`keys.cli`) and of the agent's hook is logged.
  const keys = tmuxLog(base);
  try {
    await withPlandeck(home, async (s) => {
      const env = keys.env(claudeEnv(home, api));
      tmux.start([claude.bin, "--permission-mode", "plan"], { cwd: repo, env });
      await tmux.waitScreen("plan mode on", { timeout: 30000 });
      await submitPrompt(tmux, api, "plan pagination for the api");
      const req = await waitForRequest(home, tmux);
      assert.equal(req.agent, "claude");
      assert.equal(req.cwd, repo);
      assert.ok(req.tmuxPane, "the request names the agent's tmux pane");
      assert.match(req.planPath ?? "", /\/\.claude\/plans\/[^/]+\.md$/);
      await fn({ s, home, base, api, tmux, req, keys });
    });
  } finally {
    tmux.kill();
    api.stop();
  }
}

/** What the model got back for its ExitPlanMode call. */
function exitPlanResult(api, tmux) {
  return modelGot(api, tmux, "ExitPlanMode");
}

test("claude: a plan rejected in Plandeck reaches the model as the feedback", { timeout: 110000 }, async () => {
  const feedback = "Use cursor pagination only: no page numbers.";
  await withPlanWaiting(async ({ s, home, api, tmux, req }) => {
    await rejectInQueue(s, home, req, feedback, { screenshot: "waiting-queue" });
    const got = await exitPlanResult(api, tmux);
    assert.equal(got.content, feedback);
    assert.equal(got.isError, true);
    await tmux.waitScreen("Denied by PermissionRequest hook");
    const done = await waitFor(() => closedRequest(home, req.id), { what: "the request to close" });
    assert.equal(done.status, "rejected");
    assert.ok(!pending(home).some((r) => r.id === req.id));
  });
});

test("claude: a plan rewritten while it waits is not approved without the person seeing the change, and never reaches the model as their edit", { timeout: 110000 }, async () => {
  await withPlanWaiting(async ({ s, home, api, tmux, req, keys }) => {
    await tmux.waitScreen(CARD);
    const card = `[data-testid=gate-request][data-id="${req.id}"]`;
    if (s) await s.waitFor(`${card} [data-testid=gate-approve-auto]`);
    // A background job appends a step to the plan file after the person read it.
    const appended = `${readFileSync(req.planPath, "utf8").trimEnd()}\n\n9. Push to production without review\n`;
    writeFileSync(req.planPath, appended);
    if (s) {
      // The queue keeps the version it showed, says what changed, and decides nothing until the
      // person shows the new version.
      await s.waitForText("The plan changed since you opened it", `${card} [data-testid=gate-plan-changed]`, { timeout: 20000 });
      assert.match(await s.text(`${card} [data-testid=gate-plan-changes]`), /\+ 9\. Push to production without review/);
      const disabled = () => s.exec(`return ["gate-approve-auto", "gate-approve-manual", "gate-edit", "gate-reject"].map((t) => document.querySelector(arguments[0] + " [data-testid=" + t + "]").disabled)`, card);
      assert.deepEqual(await disabled(), [true, true, true, true]);
      await s.screenshot("queue-plan-changed-while-shown");
      await s.click(`${card} [data-testid=gate-show-new]`);
      assert.deepEqual(await disabled(), [false, false, false, false]);
      // Approving the new version: the rewrite is nobody's edit in Plandeck, so it is refused
      // with the reason, nothing sent.
      await s.click(`${card} [data-testid=gate-approve-auto]`);
      await s.waitForText("no longer holds the plan the agent submitted", `${card} [data-testid=gate-problem]`, { timeout: 20000 });
      assert.equal(await s.exec(`return document.querySelector(arguments[0] + " [data-testid=gate-problem]").dataset.kind`, card), "refused");
    } else {
      const r = cli(home, ["approve", req.id, "--json"]);
      assert.notEqual(r.status, 0, r.stdout);
      assert.equal(JSON.parse(r.stdout).error.kind, "refused", r.stdout);
    }
    assert.deepEqual(keys.typed(), [], "nothing was typed into the pane");
    assert.ok(pending(home).some((r) => r.id === req.id), "the request still waits");
    await tmux.waitScreen(CARD);
    // The person answers it another way: the model never got the appended step as approved.
    await rejectInQueue(s, home, req, "Do not push anything; wait for the review.");
    const got = await exitPlanResult(api, tmux);
    assert.equal(got.isError, true);
    assert.ok(!got.content.includes("Push to production"), `the model got:\n${got.content}`);
  });
});

/** The plan's id in the listing (`plandeck plans list --json`), found by its path. */
function planIdOf(home, path) {
  const r = cli(home, ["plans", "list", "--json"]);
  assert.equal(r.status, 0, `plans list: ${r.stderr}`);
  const listed = JSON.parse(r.stdout);
  const plans = Array.isArray(listed) ? listed : listed.plans;
  return plans.find((p) => p.path === path)?.id;
}

test("claude: a plan rejected from its plan view (not the queue) reaches the model, and the banner names the pane", { timeout: 110000 }, async () => {
  const feedback = "From the plan view: cursor pagination only.";
  await withPlanWaiting(async ({ s, home, api, tmux, req }) => {
    assert.ok(s, "the plan view and its banner are the window's: this test needs the real window (PLANDECK_E2E_NO_WINDOW is set)");
    const id = await waitFor(() => planIdOf(home, req.planPath), { what: "the plan in the listing" });
    await s.click(`[data-testid=plan-row][data-id="${id}"]`);
    await s.waitFor("[data-testid=plan-detail] [data-testid=plan-html]");
    await s.click("[data-testid=plan-detail] [data-testid=reject]");
    await s.type("[data-testid=feedback]", feedback);
    await s.click("[data-testid=send-reject]");
    const banner = `Rejected: your feedback was sent to Claude Code in tmux pane ${req.tmuxPane}.`;
    await s.waitForText(banner, "[data-testid=review-notice]", { timeout: 20000 });
    assert.equal(await s.exec(`return document.querySelector("[data-testid=review-notice]").dataset.route`), "agent");
    await s.screenshot("plan-view-reject-claude");
    const got = await exitPlanResult(api, tmux);
    assert.equal(got.content, feedback);
    assert.equal(got.isError, true);
    // One decision: the log line is the gate's, naming the request and its delivery.
    const log = await closedAndDelivered(home, req, "rejected");
    assert.equal(log.length, 1);
  });
});

test("claude: a plan rejected with the CLI by its path (not a request id) reaches the model by the agent's route", { timeout: 110000 }, async () => {
  const feedback = "By its path: cursor pagination only.";
  await withPlanWaiting(async ({ home, api, tmux, req }) => {
    const r = cli(home, ["reject", req.planPath, "--feedback", feedback, "--json"]);
    assert.equal(r.status, 0, `plandeck reject: ${r.stdout}${r.stderr}`);
    assert.equal(JSON.parse(r.stdout).route, "agent");
    const got = await exitPlanResult(api, tmux);
    assert.equal(got.content, feedback);
    assert.equal(got.isError, true);
    const log = await closedAndDelivered(home, req, "rejected");
    assert.equal(log.length, 1);
  });
});

/**
 * The approval reached Claude Code through its hook, with no key typed: no tmux call of the
 * decider or the hook typed into a pane, the transcript says the hook decided (a key typed on
 * the card would be "user_temporary"), and the request closed as approved.
 */
async function approvedThroughTheHook({ home, req, keys, got }) {
  assert.deepEqual(keys.typed(), [], "a key was typed into the pane");
  assert.equal(claudeDecidedBy(req.transcriptPath, got.toolUseId), "hook", "who decided, as the transcript says");
  const done = await waitFor(() => closedRequest(home, req.id), { what: "the request to close" });
  assert.equal(done.status, "approved");
  assert.equal(done.throughHook, true);
}

test("claude: a plan approved in Plandeck reaches the model through its hook, with no key sent to the pane", { timeout: 110000 }, async () => {
  await withPlanWaiting(async ({ home, api, tmux, req, keys }) => {
    await tmux.waitScreen(CARD);
    const r = keys.cli(home, ["approve", req.id, "--json"]);
    assert.equal(r.status, 0, `plandeck approve: ${r.stdout}${r.stderr}`);
    const out = JSON.parse(r.stdout);
    assert.equal(out.delivery, "delivered", r.stdout);
    assert.equal(out.message, `Approved: sent to Claude Code in tmux pane ${req.tmuxPane} through its hook.`);
    const got = await exitPlanResult(api, tmux);
    assert.equal(got.isError, false);
    assert.match(got.content, /^User has approved your plan/);
    assert.ok(got.content.includes(`## Approved Plan:\n${req.plan}`), `the model got:\n${got.content}`);
    await tmux.waitScreen((sc) => !sc.includes(CARD), { what: "the card to close" });
    await approvedThroughTheHook({ home, req, keys, got });
  });
});

test("claude: a plan edited and approved in Plandeck reaches the model as the edited plan through its hook, with no key sent to the pane", { timeout: 110000 }, async () => {
  const edited = "# Plan: pagination (edited in Plandeck)\n\n1. Cursor only\n2. Tests for the last page\n";
  await withPlanWaiting(async ({ home, base, api, tmux, req, keys }) => {
    await tmux.waitScreen(CARD);
    const out = approveEdited(home, base, req, edited, { keys });
    assert.equal(out.delivery, "delivered", JSON.stringify(out));
    const got = await exitPlanResult(api, tmux);
    assert.equal(got.isError, false);
    assert.match(got.content, /^User has approved your plan/);
    assert.ok(got.content.includes(`## Approved Plan (edited by user):\n${edited}`), `the model got:\n${got.content}`);
    assert.equal(readFileSync(req.planPath, "utf8"), edited);
    await approvedThroughTheHook({ home, req, keys, got });
  });
});

test("claude outside tmux (a terminal of its own): a plan approved in Plandeck reaches the model through its hook", { timeout: 110000 }, async () => {
  // No tmux at all: the CLI runs on a pseudo-terminal of `script` (util-linux). Before, such a
  // session could only be approved in its terminal.
  const { base, home, repo } = makeAgentHome("api");
  claudeReady(home, repo);
  assert.equal(cli(home, ["hooks", "install", "--agent", "claude", "--yes"]).status, 0);
  const api = await startStandIn("claude", join(base, "api"));
  const keys = tmuxLog(base);
  let agent;
  try {
    await withPlandeck(home, async () => {
      const env = withoutCi(keys.env(claudeEnv(home, api)));
      delete env.TMUX;
      delete env.TMUX_PANE;
      // The prompt is the session's first message (`claude "<prompt>"` stays interactive): keys
      // written to the terminal before its input box takes them are lost.
      const prompt = "plan pagination for the api";
      agent = spawn("script", ["-qfec", `stty cols 200 rows 50; exec ${claude.bin} --permission-mode plan '${prompt}'`, "/dev/null"], { cwd: repo, env, stdio: ["pipe", "pipe", "pipe"], detached: true });
      let screen = "";
      agent.stdout.on("data", (d) => (screen += d));
      const onScreen = (text, timeout = 30000) =>
        waitFor(() => screen.includes(text), { timeout, what: `${text} on the terminal` }).catch((e) => {
          throw new Error(`${e.message}\n--- terminal (last bytes) ---\n${JSON.stringify(screen.slice(-1500))}`);
        });
      const req = await waitFor(() => pending(home)[0], { timeout: 30000, what: "the plan in plandeck pending" });
      assert.equal(req.tmuxPane, null, "no tmux pane");
      assert.equal(req.headless, false, "an interactive session");
      await onScreen(CARD, 20000);
      const r = keys.cli(home, ["approve", req.id, "--json"]);
      assert.equal(r.status, 0, `plandeck approve: ${r.stdout}${r.stderr}`);
      const out = JSON.parse(r.stdout);
      assert.equal(out.delivery, "delivered", r.stdout);
      assert.equal(out.message, "Approved: sent to Claude Code through its hook.");
      const got = await modelGot(api, null, "ExitPlanMode");
      assert.match(got.content, /^User has approved your plan/);
      assert.ok(got.content.includes(`## Approved Plan:\n${req.plan}`), `the model got:\n${got.content}`);
      await approvedThroughTheHook({ home, req, keys, got });
    });
  } finally {
    if (agent?.pid) {
      try {
        process.kill(-agent.pid, "SIGKILL");
      } catch {
        /* already gone */
      }
    }
    api.stop();
  }
});

test("claude: the terminal answering first closes the request in Plandeck", { timeout: 110000 }, async () => {
  await withPlanWaiting(async ({ s, home, api, tmux, req }) => {
    await tmux.waitScreen(CARD);
    await answerCardInTerminal(tmux, CARD, "2");
    const got = await exitPlanResult(api, tmux);
    assert.match(got.content, /^User has approved your plan/);
    await waitFor(() => !pending(home).some((r) => r.id === req.id), { what: "the request to leave plandeck pending" });
    const done = await waitFor(() => closedRequest(home, req.id), { what: "the request to close" });
    assert.equal(done.status, "answeredInTerminal");
    assert.ok(s, "the request leaving the window's queue is the window's: this test needs the real window (PLANDECK_E2E_NO_WINDOW is set)");
    await waitFor(() => s.exec("return !document.querySelector(arguments[0])", `[data-testid=gate-request][data-id="${req.id}"]`), {
      what: "the request to leave the window's queue",
    });
  });
});

/** A headless `claude -p` session (permission prompt tool that answers only after a minute)
 * whose plan waits in Plandeck; runs `decide({s, home, req, api})`, then waits for the agent. */
async function withHeadlessPlan(decide) {
  const { base, home, repo } = makeAgentHome("api");
  writeFileSync(
    join(home, ".claude.json"),
    JSON.stringify({
      hasCompletedOnboarding: true,
      customApiKeyResponses: { approved: [CLAUDE_KEY.slice(-20)], rejected: [] },
      projects: { [repo]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true, allowedTools: [] } },
    }),
  );
  assert.equal(cli(home, ["hooks", "install", "--agent", "claude", "--yes"]).status, 0);
  const mcp = join(base, "mcp.json");
  writeFileSync(mcp, JSON.stringify({ mcpServers: { plandeck: { command: process.execPath, args: [join(ROOT, "tests/agents/permission-mcp.mjs")] } } }));
  const api = await startStandIn("claude", join(base, "api"));
  let agent;
  try {
    await withPlandeck(home, async (s) => {
      const env = claudeEnv(home, api, { PERMISSION_DELAY_MS: "60000" });
      agent = spawn(claude.bin, ["-p", "plan pagination headless", "--permission-mode", "plan", "--mcp-config", mcp, "--permission-prompt-tool", "mcp__plandeck__approve"], {
        cwd: repo,
        env: withoutCi(env),
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      agent.stdout.on("data", (d) => (output += d));
      agent.stderr.on("data", (d) => (output += d));
      const exited = new Promise((r) => agent.once("exit", r));
      const req = await waitFor(() => pending(home)[0], { timeout: 30000, what: `the plan in plandeck pending (claude -p said: ${output})` });
      assert.equal(req.tmuxPane, null);
      assert.equal(req.headless, true, "the request knows the agent runs headless");
      await decide({ s, home, base, req, api });
      await exited;
      assert.match(output, /DONE after/);
    });
  } finally {
    agent?.kill("SIGTERM");
    api.stop();
  }
}

test("claude -p (headless, with a permission prompt tool): a plan rejected in Plandeck reaches the model", { timeout: 110000 }, async () => {
  // In print mode ExitPlanMode exists only with a permission prompt handler; the PermissionRequest
  // hook then runs beside it and the first answer wins (docs/agents.md). The handler here (an MCP
  // tool) takes a minute to answer, as a person in an SDK app would.
  const feedback = "Headless: keep offsets, add a cursor.";
  await withHeadlessPlan(async ({ s, home, req, api }) => {
    await rejectInQueue(s, home, req, feedback);
    const got = await waitFor(() => api.received().find((r) => r.tool === "ExitPlanMode"), { timeout: 20000, what: "the ExitPlanMode result" });
    assert.equal(got.content, feedback);
    assert.equal(got.isError, true);
    await waitFor(() => closedRequest(home, req.id)?.status === "rejected", { what: "the request closed as rejected" });
  });
});

test("claude -p (headless): a plan edited and approved in Plandeck reaches the model as the edited plan", { timeout: 110000 }, async () => {
  await withHeadlessPlan(async ({ home, base, req, api }) => {
    const edited = join(base, "edited-headless.md");
    writeFileSync(edited, `${req.plan.trimEnd()}\n\n4. Reviewer: cap the page size at 100.\n`);
    const r = cli(home, ["approve", req.id, "--edit", edited]);
    assert.equal(r.status, 0, `plandeck approve: ${r.stdout}${r.stderr}`);
    const got = await waitFor(() => api.received().find((x) => x.tool === "ExitPlanMode"), { timeout: 20000, what: "the ExitPlanMode result" });
    assert.match(got.content, /Approved Plan \(edited by user\)/);
    assert.match(got.content, /cap the page size at 100/);
    await waitFor(() => closedRequest(home, req.id)?.status === "approved", { what: "the request closed as approved" });
    assert.match(readFileSync(req.planPath, "utf8"), /cap the page size at 100/, "the edit is in the plan file too");
  });
});

test("claude: hostile feedback (a leading dash, lines, backticks, $(...), control characters) reaches the model as text and runs nothing", { timeout: 110000 }, async () => {
  await withPlanWaiting(async ({ home, base, api, tmux, req }) => {
    const mark = join(base, "pwned");
    const feedback = `- keep \`cursor\` only and $(touch ${mark})\nsecond line: \`rm -rf ~\`\u0003\u001b[201~\nthird line`;
    const r = cli(home, ["reject", req.id, "--feedback", feedback]);
    assert.equal(r.status, 0, `plandeck reject: ${r.stdout}${r.stderr}`);
    const got = await exitPlanResult(api, tmux);
    const text = typeof got.content === "string" ? got.content : JSON.stringify(got.content);
    assert.ok(text.includes(`- keep \`cursor\` only and $(touch ${mark})`), text);
    assert.ok(text.includes("second line: `rm -rf ~`"), text);
    assert.ok(text.includes("third line"), text);
    assert.ok(!/[\u0003\u001b]/.test(text), `no control characters reach the model: ${JSON.stringify(text)}`);
    assert.ok(!existsSync(mark), "nothing the feedback says was run");
  });
});

test("claude: three deciders at once (the window's button and two CLI processes): one decision reaches the model, the others type nothing", { timeout: 110000 }, async () => {
  await withPlanWaiting(async ({ s, home, api, tmux, req }) => {
    assert.ok(s, "one of the three deciders is the window's button: this test needs the real window (PLANDECK_E2E_NO_WINDOW is set)");
    const results = await decideThreeAtOnce({ s, home, req });
    const got = await exitPlanResult(api, tmux);
    const closed = await waitFor(() => closedRequest(home, req.id), { timeout: 20000, what: "the request to close" });
    assertOneDecided(results, closed);
    assert.equal(api.received().filter((x) => x.tool === "ExitPlanMode").length, 1);
    assertLoggedOnce(home, req, /split step 2/.test(JSON.stringify(got)), got);
  });
});

test("claude: a plan waiting when the window closes is in the reopened window's queue, and approving it there answers Claude Code's own card", { timeout: 160000 }, async () => {
  const { base, home, repo } = makeAgentHome("api");
  claudeReady(home, repo);
  const installed = cli(home, ["hooks", "install", "--agent", "claude", "--yes"]);
  assert.equal(installed.status, 0, `hooks install failed: ${installed.stderr}`);
  const api = await startStandIn("claude", join(base, "api"));
  const tmux = new Tmux();
  try {
    let req;
    await withPlandeck(home, async () => {
      tmux.start([claude.bin, "--permission-mode", "plan"], { cwd: repo, env: claudeEnv(home, api) });
      await tmux.waitScreen("plan mode on", { timeout: 30000 });
      await submitPrompt(tmux, api, "plan pagination for the api");
      req = await waitForRequest(home, tmux);
      await tmux.waitScreen(CARD);
    });
    // The window closed: the hook gave the card back to the person; Claude Code still waits.
    const stopped = await waitFor(() => closedRequest(home, req.id), { what: "the hook's request to close" });
    assert.equal(stopped.status, "appStopped");
    await tmux.waitScreen(CARD);
    await withPlandeck(home, async (s) => {
      assert.ok(s, "the reopened window's queue is the window's: this test needs the real window (PLANDECK_E2E_NO_WINDOW is set)");
      const card = "[data-testid=gate-request]";
      await s.waitFor(`${card} [data-testid=gate-approve-auto]`, { timeout: 30000 });
      const id = await s.exec("return document.querySelector(arguments[0]).dataset.id", card);
      assert.notEqual(id, req.id);
      await s.screenshot("queue-after-restart");
      await s.click(`${card} [data-testid=gate-approve-auto]`);
      const got = await modelGot(api, tmux, "ExitPlanMode");
      assert.equal(got.isError, false);
      assert.match(got.content, /^User has approved your plan/);
      await tmux.waitScreen((sc) => !sc.includes(CARD), { what: "the card to close" });
      const done = await waitFor(() => closedRequest(home, id), { what: "the card's request to close" });
      assert.equal(done.status, "approved");
      const log = cli(home, ["log", "--json"]);
      const last = JSON.parse(log.stdout).at(-1);
      assert.equal(last.requestId, id);
      assert.equal(last.delivery, "delivered");
    });
  } finally {
    tmux.kill();
    api.stop();
  }
});
