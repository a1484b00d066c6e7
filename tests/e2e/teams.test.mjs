// The teammate gate end to end with the real Claude Code CLI (the version scripts/setup.sh pins) and agent teams
// (CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1), in-process and in pane mode (`--teammate-mode tmux`):
// the lead, in plan mode, spawns the teammate `planner` with `Agent`; the teammate writes its plan
// and calls ExitPlanMode. The model API is tests/agents/claude-api.mjs `--scenario team`, which
// records what the teammate's model and the lead's model were told. Plandeck's teammate gate is
// installed with `plandeck hooks install --agent claude --team` (beside the plan-approval hook).

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { agentCli, approveEdited, claudeEnv, claudeReady, closedRequest, makeAgentHome, pending, rejectInQueue, startStandIn, submitPrompt, Tmux, waitForRequest, withPlandeck } from "./agents.mjs";
import { cli, waitFor } from "./webdriver.mjs";

const claude = agentCli("claude");
const MODES = ["in-process", "pane"];

/** What the teammate's model got for its ExitPlanMode call with a plan (the first call, with no
 * plan file yet, is refused by Claude Code itself: "No plan file found"). */
function teammateResult(api) {
  return api.received().find((r) => r.agent === "teammate" && r.tool === "ExitPlanMode" && !/No plan file found/.test(r.content));
}

/** Everything the lead's model was told after spawning the teammate. */
function leadHeard(api) {
  return api
    .received()
    .filter((r) => r.agent === "lead" && r.tool === "message")
    .map((r) => r.content)
    .join("\n");
}

/** What the teammate's model was told after its plan (the lead's verdict). */
function teammateHeard(api) {
  return api
    .received()
    .filter((r) => r.agent === "teammate" && r.tool === "message")
    .map((r) => r.content)
    .join("\n");
}

/** Every tmux server Claude Code started for pane teammates (`claude-swarm-<lead pid>`) under
 * this test's lead, ended with its panes. */
function killSwarms(leadPids) {
  for (const pid of leadPids) {
    const socket = `claude-swarm-${pid}`;
    const panes = spawnSync("tmux", ["-L", socket, "list-panes", "-a", "-F", "#{pane_pid}"], { encoding: "utf8", timeout: 10000 });
    for (const p of (panes.stdout ?? "").split("\n").map(Number).filter((n) => n > 1)) {
      try {
        process.kill(-p, "SIGKILL");
      } catch {
        /* gone */
      }
    }
    spawnSync("tmux", ["-L", socket, "kill-server"], { timeout: 10000 });
  }
}

/**
 * A lead in plan mode in tmux (teammates `mode`), the teammate gate installed (and Plandeck
 * running unless `plandeck` is false); the lead is prompted and spawns `planner`. Runs
 * `fn({ s, home, base, api, tmux })`.
 */
async function withTeam(mode, { plandeck = true } = {}, fn) {
  const { base, home, repo } = makeAgentHome("api");
  claudeReady(home, repo);
  // Plan mode would ask before the lead's Agent call; auto mode would take plan mode over.
  mkdirSync(join(home, ".claude"), { recursive: true });
  writeFileSync(join(home, ".claude/settings.json"), JSON.stringify({ useAutoModeDuringPlan: false, permissions: { allow: ["Agent"] } }, null, 2));
  for (const extra of [[], ["--team"]]) {
    const r = cli(home, ["hooks", "install", "--agent", "claude", ...extra, "--yes"]);
    assert.equal(r.status, 0, `hooks install ${extra}: ${r.stdout}${r.stderr}`);
  }
  const settings = JSON.parse(readFileSync(join(home, ".claude/settings.json"), "utf8"));
  assert.equal(settings.hooks.PreToolUse[0].hooks[0].onFailure, "block");
  const api = await startStandIn("claude", join(base, "api"), ["--scenario", "team"]);
  const tmux = new Tmux();
  const leadPids = [];
  const run = async (s) => {
    const env = claudeEnv(home, api, { CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: "1" });
    tmux.start([claude.bin, "--permission-mode", "plan", ...(mode === "pane" ? ["--teammate-mode", "tmux"] : [])], { cwd: repo, env });
    leadPids.push(...tmux.run(["list-panes", "-a", "-F", "#{pane_pid}"]).split("\n").map(Number).filter((n) => n > 1));
    await tmux.waitScreen("plan mode on", { timeout: 30000 });
    await submitPrompt(tmux, api, "plan pagination for the api");
    await fn({ s, home, base, api, tmux });
  };
  try {
    if (plandeck) await withPlandeck(home, run);
    else await run(null);
  } finally {
    killSwarms(leadPids);
    tmux.kill();
    api.stop();
  }
}

/** The teammate's request in Plandeck: it names the team, the teammate and the lead. */
async function teammateRequest(home, tmux, mode) {
  const req = await waitForRequest(home, tmux, { timeout: 45000 });
  assert.equal(req.agent, "claude");
  assert.equal(req.teammate, "planner");
  assert.match(req.team ?? "", /^session-[0-9a-f]{8}$/);
  assert.ok(req.leadSessionId, "the request names the lead's session");
  assert.equal(req.tmuxPane, null, "never typed into");
  if (mode === "in-process") assert.match(req.planPath ?? "", /-agent-aplanner-[0-9a-f]{16}\.md$/);
  else assert.match(req.planPath ?? "", /\/\.claude\/plans\/[^/]+\.md$/);
  return req;
}

for (const mode of MODES) {
  test(`teams (${mode}): a teammate's plan rejected in Plandeck reaches the teammate as the feedback; it stays planning and the lead gets nothing`, { timeout: 150000 }, async () => {
    const feedback = "Cursor pagination only: no page numbers.";
    await withTeam(mode, {}, async ({ s, home, api, tmux }) => {
      const req = await teammateRequest(home, tmux, mode);
      if (s) await s.waitFor(`[data-testid=gate-request][data-id="${req.id}"] [data-testid=gate-teammate]`, { timeout: 20000 });
      // An open comment on its plan goes with the feedback.
      const commented = cli(home, ["comment", req.planPath, "--quote", "Return a cursor", "--text", "Opaque cursors only."]);
      assert.equal(commented.status, 0, commented.stderr);
      await rejectInQueue(s, home, req, feedback, { screenshot: mode === "in-process" ? "teammate-queue" : undefined });
      const got = await waitFor(() => teammateResult(api), { timeout: 30000, what: "the teammate's ExitPlanMode result" });
      assert.equal(got.isError, true);
      assert.ok(got.content.includes(feedback), got.content);
      assert.ok(got.content.includes("Opaque cursors only."), got.content);
      // The teammate ends its turn and goes idle: the lead hears of that, and of nothing else.
      await waitFor(() => /idle_notification/.test(leadHeard(api)), { timeout: 30000, what: "the lead to hear the teammate went idle" });
      assert.doesNotMatch(leadHeard(api), /plan_approval_request/);
      assert.doesNotMatch(teammateHeard(api), /Plan Approved/);
      const done = await waitFor(() => closedRequest(home, req.id), { what: "the request to close" });
      assert.equal(done.status, "rejected");
      assert.equal(done.teammate, "planner");
    });
  });

  test(`teams (${mode}): a teammate's plan approved in Plandeck goes on to the lead, and "[Plan Approved]" reaches the teammate`, { timeout: 150000 }, async () => {
    await withTeam(mode, {}, async ({ s, home, api, tmux }) => {
      assert.ok(s, "approved with the window's button, the lead's card in the window's Sessions: this test needs the real window (PLANDECK_E2E_NO_WINDOW is set)");
      const req = await teammateRequest(home, tmux, mode);
      // Held: once the window shows the request (after it was filed, by the window's own reading),
      // it still waits and nothing reached the teammate or the lead.
      const approve = `[data-testid=gate-request][data-id="${req.id}"] [data-testid=gate-approve-auto]`;
      await s.waitFor(approve, { timeout: 20000 });
      assert.ok(pending(home).some((r) => r.id === req.id && r.status === "waiting"), JSON.stringify(pending(home)));
      assert.equal(teammateResult(api), undefined);
      assert.doesNotMatch(leadHeard(api), /plan_approval_request/);
      await s.click(approve);
      const got = await waitFor(() => teammateResult(api), { timeout: 30000, what: "the teammate's ExitPlanMode result" });
      assert.equal(got.isError, false, got.content);
      assert.match(got.content, /submitted to the team lead/);
      await waitFor(() => /\[Plan Approved\]/.test(teammateHeard(api)), { timeout: 30000, what: "[Plan Approved] to reach the teammate" });
      assert.match(leadHeard(api), /plan_approval_request/);
      const done = await waitFor(() => closedRequest(home, req.id), { what: "the request to close" });
      assert.equal(done.status, "approved");
      // Sessions: the lead's card holds its teammate, with where its plan stands; a teammate in
      // a pane of its own (a session of its own) is shown there, not as a card beside it.
      await s.click("[data-view=sessions]");
      const lead = `[data-testid=session-card][data-session="${req.leadSessionId}"]`;
      await s.waitFor(`${lead} [data-testid=teammate][data-name=planner][data-plan-status=approved]`, { timeout: 30000 });
      if (mode === "pane") {
        assert.notEqual(req.sessionId, req.leadSessionId);
        const own = await s.exec(`return document.querySelectorAll(arguments[0]).length;`, `[data-testid=session-card][data-session="${req.sessionId}"]`);
        assert.equal(own, 0, "the pane teammate's session is nested, not a card of its own");
      }
      await s.screenshot(`teammate-sessions-${mode}`);
    });
  });

  test(`teams (${mode}): a teammate's plan edited and approved in Plandeck is the plan the lead gets and the teammate's plan file holds`, { timeout: 150000 }, async () => {
    const edited = "# Plan: cursor pagination\n\n1. Return a cursor\n2. Test the cursor\n";
    await withTeam(mode, {}, async ({ home, base, api, tmux }) => {
      const req = await teammateRequest(home, tmux, mode);
      const out = approveEdited(home, base, req, edited);
      assert.equal(out.status, "approved", JSON.stringify(out));
      await waitFor(() => /\[Plan Approved\]/.test(teammateHeard(api)), { timeout: 30000, what: "[Plan Approved] to reach the teammate" });
      const asked = leadHeard(api).match(/\{"type":"plan_approval_request".*?\}(?=\n)/s);
      assert.ok(asked, leadHeard(api));
      assert.equal(JSON.parse(asked[0]).planContent, edited);
      assert.equal(readFileSync(req.planPath, "utf8"), edited);
    });
  });

  test(`teams (${mode}): with Plandeck closed the teammate is not held: its lead approves it as before`, { timeout: 150000 }, async () => {
    await withTeam(mode, { plandeck: false }, async ({ home, api }) => {
      const got = await waitFor(() => teammateResult(api), { timeout: 45000, what: "the teammate's ExitPlanMode result" });
      assert.equal(got.isError, false, got.content);
      await waitFor(() => /\[Plan Approved\]/.test(teammateHeard(api)), { timeout: 30000, what: "[Plan Approved] to reach the teammate" });
      assert.deepEqual(pending(home), []);
      assert.ok(!existsSync(join(home, ".local/share/plandeck/gate/done")), "nothing was filed");
      // The history has the lead's automatic verdict: the teammate's plan, approved by the lead.
      const byLead = await waitFor(
        () => {
          const r = cli(home, ["plans", "list", "--json"]);
          const listed = JSON.parse(r.stdout);
          return (Array.isArray(listed) ? listed : listed.plans).find((p) => p.decidedIn === "lead");
        },
        { timeout: 20000, what: "the teammate's plan decided by the lead in plandeck plans list" },
      );
      assert.equal(byLead.state, "approved");
    });
  });
}

test("teams: with the teammate gate installed, the lead's own plan is still the plan-approval hook's (rejected there, its feedback reaches the lead)", { timeout: 150000 }, async () => {
  const { base, home, repo } = makeAgentHome("api");
  claudeReady(home, repo);
  for (const extra of [[], ["--team"]]) {
    const r = cli(home, ["hooks", "install", "--agent", "claude", ...extra, "--yes"]);
    assert.equal(r.status, 0, `hooks install ${extra}: ${r.stdout}${r.stderr}`);
  }
  const api = await startStandIn("claude", join(base, "api"));
  const tmux = new Tmux();
  try {
    await withPlandeck(home, async (s) => {
      tmux.start([claude.bin, "--permission-mode", "plan"], { cwd: repo, env: claudeEnv(home, api, { CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: "1" }) });
      await tmux.waitScreen("plan mode on", { timeout: 30000 });
      await submitPrompt(tmux, api, "plan pagination for the api");
      const req = await waitForRequest(home, tmux);
      assert.equal(req.teammate, null, "the lead's plan is no teammate's");
      assert.equal(req.team, null);
      // Filed by the PermissionRequest hook (the card is up behind it), not held by the PreToolUse one.
      await tmux.waitScreen("Tell Claude what to change", { timeout: 20000 });
      const feedback = "Lead: cursor pagination only.";
      await rejectInQueue(s, home, req, feedback);
      const got = await waitFor(() => api.received().find((r) => r.tool === "ExitPlanMode"), { timeout: 30000, what: "the lead's ExitPlanMode result" });
      assert.equal(got.content, feedback);
    });
  } finally {
    tmux.kill();
    api.stop();
  }
});
