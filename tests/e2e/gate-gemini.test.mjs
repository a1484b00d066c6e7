// The gate end to end with the real Gemini CLI (npm @google/gemini-cli 0.61.x) running in plan mode
// in tmux, its model API answered by tests/agents/gemini-api.mjs on loopback
// (GOOGLE_GEMINI_BASE_URL), and Plandeck's BeforeTool hook installed with `plandeck hooks install`
// in a temp HOME where the app runs. The scripted model writes `<plans>/pagination.md` and calls
// exit_plan_mode; the stand-in records the functionResponse the model gets back.

import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { agentCli, answerCardInTerminal, approveEdited, assertLoggedOnce, assertOneDecided, closedAndDelivered, closedRequest, decideThreeAtOnce, geminiEnv, geminiReady, makeAgentHome, modelGot, pending, rejectInQueue, startStandIn, submitPrompt, Tmux, tmuxLog, waitForRequest, withPlandeck } from "./agents.mjs";
import { cli, waitFor } from "./webdriver.mjs";

const gemini = agentCli("gemini");
const CARD = "Type your feedback";

/** A Gemini CLI session in plan mode whose plan waits on the approval card; runs `fn` with it. */
async function withPlanWaiting(fn, { shellAround = false } = {}) {
  const { base, home, repo } = makeAgentHome("gemproj");
  // API-key auth chosen beforehand and folder trust off: no dialogs before the prompt.
  geminiReady(home, repo);
  const installed = cli(home, ["hooks", "install", "--agent", "gemini", "--yes"]);
  assert.equal(installed.status, 0, `hooks install failed: ${installed.stderr}`);
  // Plandeck never installs a policy allowing exit_plan_mode (it would let plans through unread).
  const policies = join(home, ".gemini/policies");
  assert.ok(!existsSync(policies) || readdirSync(policies).length === 0);
  const api = await startStandIn("gemini", join(base, "api"));
  const tmux = new Tmux();
  try {
    await withPlandeck(home, async (s) => {
      const env = geminiEnv(home, api);
      // shellAround: the CLI runs from a shell that stays in the pane when the agent dies.
      const argv = [gemini.bin, "--approval-mode", "plan"];
      tmux.start(shellAround ? ["bash", "--norc", "-c", `${argv.join(" ")}; exec bash --norc --noprofile -i`] : argv, { cwd: repo, env });
      await tmux.waitScreen("Type your message", { timeout: 45000 });
      await submitPrompt(tmux, api, "plan pagination for the api");
      const req = await waitForRequest(home, tmux);
      assert.equal(req.agent, "gemini");
      assert.equal(req.cwd, repo);
      assert.ok(req.tmuxPane, "the request names the agent's tmux pane (found from the hook's parent's terminal)");
      assert.match(req.planPath ?? "", /\/\.gemini\/tmp\/gemproj\/[^/]+\/plans\/pagination\.md$/);
      // The hook returned at once with no decision: the card is on screen for the person too.
      await tmux.waitScreen(CARD);
      await fn({ s, home, base, api, tmux, req });
    });
  } finally {
    tmux.kill();
    api.stop();
  }
}

/** The functionResponse the model got for its exit_plan_mode call. */
function exitPlanResponse(api, tmux) {
  return modelGot(api, tmux, "exit_plan_mode", { what: "the exit_plan_mode response to reach the model" });
}

test("gemini: a plan rejected in Plandeck reaches the model as the feedback", { timeout: 110000 }, async () => {
  const feedback = "Use cursor pagination only: no page numbers.";
  await withPlanWaiting(async ({ s, home, api, tmux, req }) => {
    await rejectInQueue(s, home, req, feedback);
    const got = await exitPlanResponse(api, tmux);
    assert.match(got.response.output, new RegExp(`^Plan rejected\\. User feedback: ${feedback.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\n`));
    assert.match(got.response.output, /Revise the plan based on the feedback\./);
    const done = await waitFor(() => closedRequest(home, req.id), { what: "the request to close" });
    assert.equal(done.status, "rejected");
    assert.ok(!pending(home).some((r) => r.id === req.id));
  });
});

test("gemini: a plan approved from its plan view (not the queue) reaches the model, and the banner names the pane", { timeout: 110000 }, async () => {
  await withPlanWaiting(async ({ s, home, api, tmux, req }) => {
    assert.ok(s, "the plan view and its banner are the window's: this test needs the real window (PLANDECK_E2E_NO_WINDOW is set)");
    const id = await waitFor(
      () => {
        const listed = JSON.parse(cli(home, ["plans", "list", "--json"]).stdout);
        return (Array.isArray(listed) ? listed : listed.plans).find((p) => p.path === req.planPath)?.id;
      },
      { what: "the plan in the listing" },
    );
    await s.click(`[data-testid=plan-row][data-id="${id}"]`);
    await s.waitFor("[data-testid=plan-detail] [data-testid=plan-html]");
    await s.click("[data-testid=plan-detail] [data-testid=approve]");
    await s.waitForText(`Approved: sent to Gemini CLI in tmux pane ${req.tmuxPane}.`, "[data-testid=review-notice]", { timeout: 30000 });
    await s.screenshot("plan-view-approve-gemini");
    const got = await exitPlanResponse(api, tmux);
    assert.match(got.response.output, /^Plan approved\./);
    await closedAndDelivered(home, req, "approved");
  });
});

test("gemini: a plan approved with the CLI by its path (not a request id) reaches the model by the agent's route", { timeout: 110000 }, async () => {
  await withPlanWaiting(async ({ home, api, tmux, req }) => {
    const r = cli(home, ["approve", req.planPath, "--json"]);
    assert.equal(r.status, 0, `plandeck approve: ${r.stdout}${r.stderr}`);
    assert.equal(JSON.parse(r.stdout).route, "agent");
    const got = await exitPlanResponse(api, tmux);
    assert.match(got.response.output, /^Plan approved\./);
    await closedAndDelivered(home, req, "approved");
  });
});

test("gemini: a plan edited and approved in Plandeck reaches the model, and the plan file holds the edit", { timeout: 110000 }, async () => {
  const edited = "# Plan: pagination (edited in Plandeck)\n\n1. Cursor only\n2. Tests for the last page\n";
  await withPlanWaiting(async ({ home, base, api, tmux, req }) => {
    approveEdited(home, base, req, edited);
    const got = await exitPlanResponse(api, tmux);
    assert.match(got.response.output, /^Plan approved\./);
    assert.ok(got.response.output.includes(`The approved implementation plan is stored at: ${req.planPath}`), got.response.output);
    assert.equal(readFileSync(req.planPath, "utf8"), edited);
    const done = await waitFor(() => closedRequest(home, req.id), { what: "the request to close" });
    assert.equal(done.status, "approved");
  });
});

test("gemini: the terminal answering first closes the request in Plandeck", { timeout: 110000 }, async () => {
  await withPlanWaiting(async ({ s, home, api, tmux, req }) => {
    await answerCardInTerminal(tmux, CARD, "2");
    const got = await exitPlanResponse(api, tmux);
    assert.match(got.response.output, /^Plan approved\./);
    await waitFor(() => !pending(home).some((r) => r.id === req.id), { what: "the request to leave plandeck pending" });
    const done = await waitFor(() => closedRequest(home, req.id), { what: "the request to close" });
    assert.equal(done.status, "answeredInTerminal");
    assert.ok(s, "the request leaving the window's queue is the window's: this test needs the real window (PLANDECK_E2E_NO_WINDOW is set)");
    await waitFor(() => s.exec("return !document.querySelector(arguments[0])", `[data-testid=gate-request][data-id="${req.id}"]`), {
      what: "the request to leave the window's queue",
    });
  });
});

test("gemini: hostile feedback (a leading dash, lines, backticks, $(...), control characters) reaches the model as text and runs nothing", { timeout: 110000 }, async () => {
  await withPlanWaiting(async ({ home, base, api, tmux, req }) => {
    const mark = join(base, "pwned");
    const feedback = `- keep \`cursor\` only and $(touch ${mark})\nsecond line: \`rm -rf ~\`\u0003\u001b[201~\nthird line\r`;
    const r = cli(home, ["reject", req.id, "--feedback", feedback]);
    assert.equal(r.status, 0, `plandeck reject: ${r.stdout}${r.stderr}\n--- screen ---\n${tmux.safeCapture()}`);
    const got = await exitPlanResponse(api, tmux);
    const out = got.response.output;
    assert.ok(out.includes(`- keep \`cursor\` only and $(touch ${mark})`), out);
    assert.ok(out.includes("second line: `rm -rf ~`"), out);
    assert.ok(out.includes("third line"), out);
    assert.ok(!/[\u0000-\u0008\u000b-\u001f\u007f]/.test(out), `no control characters reach the model: ${JSON.stringify(out)}`);
    assert.ok(!existsSync(mark), "nothing the feedback says was run");
    const done = await waitFor(() => closedRequest(home, req.id), { what: "the request to close" });
    assert.equal(done.status, "rejected");
  });
});

test("gemini: the agent killed while its card is up leaves a shell; a decision then types nothing and says why", { timeout: 110000 }, async () => {
  await withPlanWaiting(async ({ home, base, tmux, req }) => {
    assert.ok(req.agentPid, "the request records the agent's pid");
    // Kill the agent: its node processes (the launcher and the relaunched child), never the shell.
    const ppid = (pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      } catch { return 0; }
    };
    const comm = (pid) => { try { return readFileSync(`/proc/${pid}/comm`, "utf8").trim(); } catch { return ""; } };
    let top = req.agentPid;
    while (comm(ppid(top)) === "node") top = ppid(top);
    const tree = new Set([top]);
    for (let grew = true; grew; ) {
      grew = false;
      for (const d of readdirSync("/proc").filter((d) => /^\d+$/.test(d)).map(Number)) {
        if (!tree.has(d) && tree.has(ppid(d))) { tree.add(d); grew = true; }
      }
    }
    for (const pid of tree) try { process.kill(pid, "SIGKILL"); } catch {}
    // The card's text may stay on screen above it: wait for the shell's prompt.
    await tmux.waitScreen((screen) => /bash-[\d.]+[#$] *$/m.test(screen), { timeout: 20000, what: "the shell left in the pane" });
    const mark = join(base, "typed-into-shell");
    // Every tmux call the decider makes is logged (and done when it exits): none types.
    const keys = tmuxLog(base);
    const r = keys.cli(home, ["reject", req.id, "--feedback", `touch ${mark}`]);
    assert.notEqual(r.status, 0, `a decision for a dead agent must fail: ${r.stdout}`);
    assert.match(r.stderr, /agent|gone|not running|no longer/i);
    assert.deepEqual(keys.typed(), [], "the decider typed into the pane");
    assert.ok(!existsSync(mark), "nothing ran in the shell");
    assert.ok(!tmux.capture().includes("typed-into-shell"), `nothing was typed: ${tmux.capture()}`);
  }, { shellAround: true });
});

test("gemini: its first process killed, the relaunched agent lives on beside the pane's shell; a decision types nothing and says why", { timeout: 110000 }, async () => {
  await withPlanWaiting(async ({ home, base, tmux, req }) => {
    assert.ok(req.agentPid, "the request records the agent's pid");
    const stat = (pid) => {
      try {
        const s = readFileSync(`/proc/${pid}/stat`, "utf8");
        return s.slice(s.lastIndexOf(")") + 2).split(" ");
      } catch { return null; }
    };
    // Gemini CLI relaunched itself: the agent that ran the hook is a child of its first process.
    const launcher = Number(stat(req.agentPid)[1]);
    assert.equal(readFileSync(`/proc/${launcher}/comm`, "utf8").trim(), "node", "the launcher is Gemini's first node process");
    // Only the launcher dies; the agent lives on, and the pane's shell takes the terminal back in
    // the same process group: both read the keys now.
    process.kill(launcher, "SIGKILL");
    await tmux.waitScreen((screen) => /bash-[\d.]+[#$] *$/m.test(screen), { timeout: 20000, what: "the shell in the pane" });
    assert.ok(stat(req.agentPid), "the agent still runs");
    const mark = join(base, "typed-into-shell");
    // Every tmux call the decider makes is logged (and done when it exits): none types.
    const keys = tmuxLog(base);
    const r = keys.cli(home, ["reject", req.id, "--feedback", `x; touch ${mark}`]);
    assert.notEqual(r.status, 0, `a decision must not type into a terminal a shell shares: ${r.stdout}`);
    assert.match(r.stderr, /no longer runs under its pane's process|reads the agent's terminal/);
    assert.match(r.stderr, /nothing was typed/);
    // Nothing was typed: not into the shell's line, not into the agent (both still read the pane).
    assert.deepEqual(keys.typed(), [], "the decider typed into the pane");
    assert.ok(!existsSync(mark), "nothing ran in the shell");
    assert.ok(!tmux.capture().includes("typed-into-shell"), `nothing was typed: ${tmux.capture()}`);
    try { process.kill(req.agentPid, "SIGKILL"); } catch {}
  }, { shellAround: true });
});

test("gemini: three deciders at once (the window's call and two CLI processes): one decision reaches the model, the others type nothing", { timeout: 110000 }, async () => {
  await withPlanWaiting(async ({ s, home, api, tmux, req }) => {
    assert.ok(s, "one of the three deciders is the window's call: this test needs the real window (PLANDECK_E2E_NO_WINDOW is set)");
    const results = await decideThreeAtOnce({ s, home, req });
    const closed = await waitFor(() => closedRequest(home, req.id), { timeout: 20000, what: "the request to close" });
    assertOneDecided(results, closed);
    const got = await exitPlanResponse(api, tmux);
    const answers = api.received().filter((x) => x.tool === "exit_plan_mode");
    assert.equal(answers.length, 1, JSON.stringify(answers));
    assertLoggedOnce(home, req, /rejected/i.test(JSON.stringify(got)), got);
  });
});
