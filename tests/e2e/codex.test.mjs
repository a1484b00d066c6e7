// The real Codex CLI (npm @openai/codex, the version scripts/setup.sh pins) in tmux, in its Plan collaboration mode, its model
// API answered by tests/agents/openai-api.mjs on loopback: the scripted model proposes a plan in a
// `<proposed_plan>` block, the TUI offers to implement it, the person accepts; the rollout file
// Codex writes (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`) must hold the plan and the
// decision as Plandeck's history reads them (see tests/fixtures/codex-cli-0.169.0/README.md).
// A second test holds the recorded fixtures (tests/fixtures/codex-cli-0.169.0, re-recorded by
// tests/agents/record-codex.mjs) to what their README says. No Plandeck window is needed. A missing
// CLI fails the tests: they never skip.
// The gate tests drive Codex's "Implement this plan?" popup through Plandeck's CLI (`plandeck
// pending` files the request from the rollout and the popup on screen; `approve` / `reject` answer
// it in the pane), and through the real window (its gate tick files the request; Approve, the
// feedback and the editor of its waiting queue decide).

import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import {
  agentCli,
  answerCodexPlan,
  codexRollouts,
  codexSetup,
  installedVersion,
  makeAgentHome,
  quitCodex,
  rejectInQueue,
  rolloutRecords,
  startCodex,
  startStandIn,
  submitPrompt,
  Tmux,
} from "./agents.mjs";
import { cli, ROOT, waitFor, withApp } from "./webdriver.mjs";

const codex = agentCli("codex");
const PLAN = "# Plan: add pagination\n\n1. Add `page` and `limit` params\n2. Return a cursor\n3. Write tests\n";
const PROMPT = "plan pagination for the list endpoint";

/** The collaboration mode a Responses request tells the model it is in (last one wins). */
function requestMode(body) {
  const texts = (body?.input ?? []).filter((i) => i.role === "developer").flatMap((m) => (m.content ?? []).map((c) => c.text ?? ""));
  let mode = null;
  for (const t of texts) {
    const i = t.lastIndexOf("<collaboration_mode>");
    if (i >= 0) mode = /^<collaboration_mode>\s*# Plan Mode/.test(t.slice(i)) ? "plan" : "default";
  }
  return mode;
}

const userTexts = (body) => (body?.input ?? []).filter((i) => i.role === "user").flatMap((m) => (m.content ?? []).map((c) => c.text ?? ""));

test("Codex CLI plan mode: a proposed plan accepted in the terminal is in the rollout with its decision", { timeout: 180000 }, async () => {
  const { base, home, repo } = makeAgentHome("api");
  const api = await startStandIn("openai", join(base, "api"));
  const tmux = new Tmux();
  let ok = false;
  try {
    const { codexHome, env } = codexSetup(home, repo, api.url);
    await startCodex(tmux, codex, { repo, env });
    await submitPrompt(tmux, api, PROMPT);
    // The TUI renders the block as a plan and offers to implement it.
    await tmux.waitScreen("Proposed Plan", { timeout: 30000 });
    await tmux.waitScreen("Yes, implement this plan");
    await answerCodexPlan(tmux, "1");
    // The decision reaches the model as a Default-mode turn.
    const implement = await waitFor(() => api.received().find((r) => r.mode === "default"), {
      timeout: 30000,
      what: "the implementation turn at the stand-in",
    }).catch((e) => {
      throw new Error(`${e.message}\n--- screen ---\n${tmux.safeCapture()}`);
    });
    assert.deepEqual(implement.user, ["Implement the plan."]);
    await tmux.waitScreen("DONE: implementing the plan");

    // What the model was sent: the prompt in Plan mode, then the decision in Default mode.
    const turns = api.requests().filter((r) => r.url === "/v1/responses" && r.body?.tools?.length);
    assert.equal(turns.length, 2, `two model turns, got ${turns.length}`);
    assert.equal(requestMode(turns[0].body), "plan");
    assert.ok(userTexts(turns[0].body).some((t) => t.trim() === PROMPT));
    assert.equal(requestMode(turns[1].body), "default");
    assert.equal(userTexts(turns[1].body).at(-1), "Implement the plan.");
    const sentBack = JSON.stringify(turns[1].body.input);
    assert.ok(sentBack.includes("<proposed_plan>"), "the second turn carries the proposed plan back to the model");

    // The rollout: written as the session goes (flushed per record), one file for this thread.
    const done = (recs) => recs.some((r) => r.type === "event_msg" && r.payload?.type === "task_complete" && r.payload?.last_agent_message?.startsWith("DONE"));
    const path = await waitFor(() => codexRollouts(codexHome).find((p) => done(rolloutRecords(p))), {
      timeout: 15000,
      what: "a rollout with the finished implementation turn",
    });
    await quitCodex(tmux);
    assert.equal(codexRollouts(codexHome).length, 1);
    const recs = rolloutRecords(path);
    assert.ok(!recs.some((r) => r.unparsed), "every line is JSON");

    const meta = recs[0];
    assert.equal(meta.type, "session_meta");
    // The version installed in this lane's folder (pinned, or the newest in the latest lane).
    assert.equal(meta.payload.cli_version, installedVersion("@openai/codex"));
    assert.equal(meta.payload.originator, "codex-tui");
    assert.equal(meta.payload.cwd, repo);
    assert.ok(path.endsWith(`-${meta.payload.id}.jsonl`), "the file name ends with the session id");

    // The plan as Codex parsed it: an item_completed Plan item (text without the tags) …
    const plans = recs.filter((r) => r.type === "event_msg" && r.payload?.type === "item_completed" && r.payload.item?.type === "Plan");
    assert.equal(plans.length, 1);
    assert.equal(plans[0].payload.item.text, PLAN);
    const planTurn = plans[0].payload.turn_id;
    // Its id is what Plandeck keys the request by: `<turn>-plan` in 0.169, an id of its own in
    // 0.171 (docs/agents.md); either way one no other item of the rollout has.
    const planId = plans[0].payload.item.id;
    assert.ok(planId === `${planTurn}-plan` || /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(planId), planId);
    const itemIds = recs.filter((r) => r.type === "event_msg" && r.payload?.type === "item_completed").map((r) => r.payload.item?.id);
    assert.equal(itemIds.filter((i) => i === planId).length, 1, `the plan's id is its own: ${JSON.stringify(itemIds)}`);
    // … and the model's whole message, tags included.
    const said = recs.filter((r) => r.type === "response_item" && r.payload?.role === "assistant").map((r) => r.payload.content.map((c) => c.text).join(""));
    assert.ok(said.some((t) => t.includes(`<proposed_plan>\n${PLAN}</proposed_plan>`)), `the <proposed_plan> block is in the rollout: ${JSON.stringify(said)}`);

    // The turns' modes: the plan turn in Plan mode, the decision turn in Default mode whose user
    // message is the TUI's fixed "Implement the plan.".
    const started = recs.filter((r) => r.type === "event_msg" && r.payload?.type === "task_started");
    assert.deepEqual(
      started.map((r) => r.payload.collaboration_mode_kind),
      ["plan", "default"],
    );
    assert.equal(started[0].payload.turn_id, planTurn);
    const implTurn = started[1].payload.turn_id;
    const implUser = recs.find((r) => r.type === "event_msg" && r.payload?.type === "item_completed" && r.payload.turn_id === implTurn && r.payload.item?.type === "UserMessage");
    assert.equal(implUser.payload.item.content[0].text, "Implement the plan.");
    assert.ok(Date.parse(implUser.timestamp) >= Date.parse(plans[0].timestamp), "decided after the plan");
    ok = true;
  } finally {
    tmux.kill();
    api.stop();
    // Kept for a look when the test failed.
    if (ok) rmSync(base, { recursive: true, force: true });
  }
});

/** A rollout's turns in order: mode, user texts, Plan item texts, assistant raw texts. */
function turnsOf(recs) {
  const turns = [];
  const byId = new Map();
  for (const r of recs) {
    const p = r.payload ?? {};
    if (r.type === "event_msg" && p.type === "task_started") {
      const t = { id: p.turn_id, mode: p.collaboration_mode_kind, user: [], plans: [], said: [] };
      turns.push(t);
      byId.set(p.turn_id, t);
    } else if (r.type === "event_msg" && p.type === "item_completed") {
      const t = byId.get(p.turn_id);
      if (p.item?.type === "UserMessage") t.user.push(p.item.content.map((c) => c.text).join(""));
      if (p.item?.type === "Plan") t.plans.push(p.item.text);
    } else if (r.type === "response_item" && p.role === "assistant") {
      turns.at(-1).said.push(p.content.map((c) => c.text).join(""));
    }
  }
  return turns;
}

test("Codex fixtures: each recorded scenario's rollouts hold its plans and decisions as the README says", () => {
  const dir = join(ROOT, "tests/fixtures/codex-cli-0.169.0");
  const index = JSON.parse(readFileSync(join(dir, "scenarios.json"), "utf8"));
  const load = (name) =>
    index[name].sessions.map(({ file, sessionId }) => {
      const recs = rolloutRecords(join(dir, file));
      assert.ok(!recs.some((r) => r.unparsed), `${file}: every line is JSON`);
      assert.deepEqual(recs.map((r) => r.ordinal), recs.map((_, i) => i), `${file}: ordinals 0..n`);
      assert.equal(recs[0].type, "session_meta");
      assert.equal(recs[0].payload.id, sessionId);
      assert.ok(file.endsWith(`-${sessionId}.jsonl`));
      assert.equal(recs[0].payload.cwd, "/home/dev/work/api");
      assert.equal(recs[0].payload.cli_version, "0.169.0");
      return { meta: recs[0].payload, turns: turnsOf(recs) };
    });
  const plan = "# Plan: add pagination\n\n1. Add `page` and `limit` params\n2. Return a cursor\n3. Write tests\n";

  const [accepted] = load("accepted");
  assert.equal(accepted.meta.source, "cli");
  assert.deepEqual(accepted.turns.map((t) => t.mode), ["plan", "default"]);
  assert.deepEqual(accepted.turns[0].plans, [plan]);
  assert.ok(accepted.turns[0].said[0].includes(`<proposed_plan>\n${plan}</proposed_plan>`));
  assert.deepEqual(accepted.turns[1].user, ["Implement the plan."]);

  const [revised] = load("revised");
  assert.deepEqual(revised.turns.map((t) => t.mode), ["plan", "plan", "default"]);
  assert.deepEqual(revised.turns[1].user, [index.revised.keys[3].match(/^"(.*)" Enter$/)[1]]);
  assert.equal(revised.turns[0].plans[0], plan);
  assert.match(revised.turns[1].plans[0], /^# Plan: add pagination \(revised\)\n/);
  assert.deepEqual(revised.turns[2].user, ["Implement the plan."]);

  const [undecided] = load("undecided");
  assert.deepEqual(undecided.turns.map((t) => t.mode), ["plan"]);
  assert.deepEqual(undecided.turns[0].plans, [plan]);

  const [planned, fresh] = load("fresh-thread");
  assert.deepEqual(planned.turns.map((t) => t.mode), ["plan"]);
  assert.deepEqual(fresh.turns.map((t) => t.mode), ["default"]);
  const m = fresh.turns[0].user[0].match(/^Read the approved plan at \/home\/dev\/\.codex\/(attachments\/[^ ]+\/approved-plan\.md) and implement it\.$/);
  assert.ok(m, fresh.turns[0].user[0]);
  assert.ok(existsSync(join(dir, m[1])));
  assert.equal(readFileSync(join(dir, m[1]), "utf8").trimEnd(), planned.turns[0].plans[0].trimEnd());

  const [left] = load("left-plan-mode");
  assert.deepEqual(left.turns.map((t) => t.mode), ["plan", "default"]);
  assert.deepEqual(left.turns[0].plans, [plan]);
  assert.deepEqual(left.turns[1].user, ["Implement the plan."]);

  const [daemon] = load("daemon");
  assert.equal(daemon.meta.source, "vscode");
  assert.deepEqual(daemon.turns.map((t) => t.mode), ["plan", "default"]);
  assert.deepEqual(daemon.turns[0].plans, [plan]);

  const [headless] = load("exec");
  assert.equal(headless.meta.originator, "codex_exec");
  assert.deepEqual(headless.turns.map((t) => t.mode), ["default"]);
  assert.deepEqual(headless.turns[0].plans, [], "no Plan item outside Plan mode");
  assert.ok(headless.turns[0].said[0].includes("<proposed_plan>"));
});

/** The waiting Codex requests, as `plandeck pending --json` lists them (it files them first). */
function pendingCodex(home) {
  const r = cli(home, ["pending", "--json"]);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout).filter((q) => q.agent === "codex");
}

/** Runs `fn({ home, repo, api, tmux, req })` with a Codex session whose plan popup is up and filed as a request. */
async function withCodexRequest(fn, { standInArgs = () => [], daemon = false } = {}) {
  const { base, home, repo } = makeAgentHome("api");
  const api = await startStandIn("openai", join(base, "api"), standInArgs(base));
  const tmux = new Tmux();
  let ok = false;
  try {
    const { env } = codexSetup(home, repo, api.url);
    await startCodex(tmux, codex, { repo, env, daemon });
    assert.deepEqual(pendingCodex(home), [], "nothing is filed before a plan");
    await submitPrompt(tmux, api, PROMPT);
    await tmux.waitScreen("Yes, implement this plan", { timeout: 30000 });
    const [req] = await waitFor(() => { const p = pendingCodex(home); return p.length ? p : null; }, {
      timeout: 20000,
      what: "the Codex request in plandeck pending",
    }).catch((e) => {
      throw new Error(`${e.message}\n--- screen ---\n${tmux.safeCapture()}`);
    });
    assert.equal(req.cwd, repo);
    assert.equal(req.plan, PLAN);
    assert.equal(req.status, "waiting");
    assert.match(req.tmuxPane, /^%\d+$/);
    assert.ok(req.agentPid > 0);
    // Filed once: another look files nothing new.
    assert.deepEqual(pendingCodex(home).map((q) => q.id), [req.id]);
    // Listed running, with its TUI and pane (Codex keeps no registry: read from its processes).
    const listed = JSON.parse(cli(home, ["sessions", "--json"]).stdout).find((x) => x.sessionId === req.sessionId);
    assert.equal(listed?.pid, req.agentPid, JSON.stringify(listed));
    assert.equal(listed?.tmuxPane, req.tmuxPane, JSON.stringify(listed));
    await fn({ home, repo, api, tmux, req });
    await quitCodex(tmux);
    ok = true;
  } finally {
    tmux.kill();
    api.stop();
    // The shared background server outlives its TUI (a process group of its own), and it copied
    // itself (about 400 MB) under the home.
    if (daemon) endServers(home);
    if (ok || daemon) rmSync(base, { recursive: true, force: true });
  }
}

/** Ends every process run from a binary under `home` (Codex's background server, copied there). */
function endServers(home) {
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      if (readlinkSync(`/proc/${pid}/exe`).startsWith(home)) process.kill(Number(pid), "SIGKILL");
    } catch {
      /* gone, or not ours to read */
    }
  }
}

const closedAs = (home, id) => JSON.parse(cli(home, ["pending", "--json"]).stdout).some((q) => q.id === id) ? null : id;

test("Codex gate: approve through Plandeck picks 'Yes, implement this plan' and the model gets 'Implement the plan.'", { timeout: 180000 }, async () => {
  await withCodexRequest(async ({ home, api, req }) => {
    const r = cli(home, ["approve", req.id, "--json"]);
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
    const out = JSON.parse(r.stdout);
    assert.equal(out.delivered, true, r.stdout);
    assert.equal(out.status, "approved");
    const impl = await waitFor(() => api.received().find((x) => x.mode === "default"), { timeout: 30000, what: "the implementation turn" });
    assert.deepEqual(impl.user, ["Implement the plan."]);
    assert.ok(closedAs(home, req.id));
  });
});

test("Codex gate with its shared background server (codex's default): the plan waits in Plandeck; reject reaches the model, then approve", { timeout: 180000 }, async () => {
  await withCodexRequest(
    async ({ home, api, tmux, req }) => {
      // The rollout is held open by the server, not by the TUI in the pane.
      const tuiHolds = readdirSync(`/proc/${req.agentPid}/fd`).some((fd) => {
        try {
          return readlinkSync(`/proc/${req.agentPid}/fd/${fd}`) === req.transcriptPath;
        } catch {
          return false;
        }
      });
      assert.equal(tuiHolds, false, "the TUI holds its rollout itself: not the shared server's session");
      const feedback = "Use cursor pagination only";
      const r = cli(home, ["reject", req.id, "--feedback", feedback, "--json"]);
      assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
      const got = await waitFor(() => api.received().find((x) => x.feedback), { timeout: 30000, what: "the feedback at the model" }).catch((e) => {
        throw new Error(`${e.message}\n--- screen ---\n${tmux.safeCapture()}`);
      });
      assert.equal(got.feedback, feedback);
      await tmux.waitScreen("Yes, implement this plan", { timeout: 30000 });
      const next = await waitFor(() => pendingCodex(home).find((q) => q.id !== req.id), { timeout: 20000, what: "the revised plan's request" });
      const a = cli(home, ["approve", next.id, "--json"]);
      assert.equal(a.status, 0, `${a.stdout}\n${a.stderr}`);
      assert.equal(JSON.parse(a.stdout).status, "approved", a.stdout);
      const impl = await waitFor(() => api.received().find((x) => x.mode === "default"), { timeout: 30000, what: "the implementation turn" });
      assert.deepEqual(impl.user, ["Implement the plan."]);
      // Steered by its session id, though Plandeck did not start it: a message typed into its
      // composer once its turn is over.
      await tmux.waitScreen("DONE: implementing the plan");
      const message = "PLANDECK-MESSAGE write the changelog";
      const sent = await waitFor(() => {
        const r = cli(home, ["send", next.sessionId, message, "--json"]);
        return r.status === 0 ? r : null;
      }, { timeout: 20000, what: "plandeck send to be taken" });
      assert.match(JSON.parse(sent.stdout).message, /submitted/);
      await waitFor(() => api.requests().some((r) => JSON.stringify(r.body ?? "").includes(message)), { timeout: 30000, what: "the message at the stand-in" });
    },
    { daemon: true },
  );
});

test("Codex gate: approve --mode manual picks 'Yes, clear context and implement': a fresh thread reads the plan", { timeout: 180000 }, async () => {
  await withCodexRequest(async ({ home, api, req }) => {
    const r = cli(home, ["approve", req.id, "--mode", "manual", "--json"]);
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
    assert.equal(JSON.parse(r.stdout).status, "approved", r.stdout);
    const impl = await waitFor(() => api.received().find((x) => x.mode === "default"), { timeout: 30000, what: "the fresh thread's turn" });
    assert.match(impl.user.join(" "), /^Read the approved plan at .*approved-plan\.md and implement it\.$/);
  });
});

test("Codex gate: reject with feedback keeps Plan mode and the model gets the feedback before anything is implemented", { timeout: 180000 }, async () => {
  await withCodexRequest(async ({ home, api, tmux, req }) => {
    const feedback = "Use cursor pagination only, drop the page numbers";
    const r = cli(home, ["reject", req.id, "--feedback", feedback, "--json"]);
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
    assert.equal(JSON.parse(r.stdout).status, "rejected", r.stdout);
    const got = await waitFor(() => api.received().find((x) => x.feedback), { timeout: 30000, what: "the feedback at the model" }).catch((e) => {
      throw new Error(`${e.message}\n--- screen ---\n${tmux.safeCapture()}`);
    });
    assert.equal(got.mode, "plan");
    assert.equal(got.feedback, feedback);
    assert.ok(!api.received().some((x) => x.mode === "default"), "nothing implemented");
    // The revised plan opens the popup again: a new request for it.
    await tmux.waitScreen("Yes, implement this plan", { timeout: 30000 });
    const next = await waitFor(() => pendingCodex(home).find((q) => q.id !== req.id), { timeout: 20000, what: "the revised plan's request" });
    assert.match(next.plan, /\(revised\)/);
    assert.ok(closedAs(home, req.id));
  });
});

const EDITED = PLAN.replace("3. Write tests", "3. Write tests\n4. Document the cursor");

test("Codex gate: edit and approve sends the edited plan in Plan mode, and the model implements it once it proposed it", { timeout: 180000 }, async () => {
  await withCodexRequest(
    async ({ home, api, tmux, req }) => {
      const file = join(home, "edited.md");
      writeFileSync(file, EDITED);
      const r = cli(home, ["approve", req.id, "--edit", file, "--json"]);
      assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
      assert.equal(JSON.parse(r.stdout).status, "approved", r.stdout);
      const got = await waitFor(() => api.received().find((x) => x.feedback), { timeout: 30000, what: "the edited plan at the model" }).catch((e) => {
        throw new Error(`${e.message}\n--- screen ---\n${tmux.safeCapture()}`);
      });
      assert.equal(got.mode, "plan");
      assert.ok(got.feedback.includes("4. Document the cursor"), got.feedback);
      assert.ok(got.feedback.includes("Propose exactly this plan"), got.feedback);
      // The model proposes the edited plan word for word: its request is approved by the edit.
      await tmux.waitScreen("Yes, implement this plan", { timeout: 30000 });
      const impl = await waitFor(
        () => {
          pendingCodex(home);
          return api.received().find((x) => x.mode === "default");
        },
        { timeout: 30000, what: "the implementation turn" },
      ).catch((e) => {
        throw new Error(`${e.message}\n--- screen ---\n${tmux.safeCapture()}`);
      });
      assert.deepEqual(impl.user, ["Implement the plan."]);
      assert.deepEqual(pendingCodex(home), []);
    },
    {
      standInArgs: (base) => {
        const f = join(base, "revised.md");
        writeFileSync(f, EDITED);
        return ["--revised-plan-file", f];
      },
    },
  );
});

test("Codex gate: the popup answered in the terminal first closes the request, nothing typed", { timeout: 180000 }, async () => {
  await withCodexRequest(async ({ home, api, tmux, req }) => {
    // Esc ("stay in Plan mode") writes nothing to the rollout: the popup leaving the screen says it.
    tmux.keys("Escape");
    await tmux.waitScreen((s) => !s.includes("Implement this plan?"), { timeout: 10000, what: "the popup to close" });
    await waitFor(() => closedAs(home, req.id), { timeout: 15000, what: "the request to close" });
    const r = cli(home, ["approve", req.id, "--json"]);
    assert.notEqual(r.status, 0, r.stdout);
    assert.ok(!api.received().some((x) => x.mode === "default"), "nothing implemented");
    assert.ok(!tmux.capture().includes("Implement the plan."), "nothing typed");
  });
});

test("Codex gate: 'Yes, implement this plan' pressed in the terminal first closes the request from the rollout", { timeout: 180000 }, async () => {
  await withCodexRequest(async ({ home, api, tmux, req }) => {
    tmux.keys("1");
    await waitFor(() => api.received().find((x) => x.mode === "default"), { timeout: 30000, what: "the implementation turn" });
    await waitFor(() => closedAs(home, req.id), { timeout: 15000, what: "the request to close" });
    const r = cli(home, ["reject", req.id, "--feedback", "too late", "--json"]);
    assert.notEqual(r.status, 0, r.stdout);
    assert.ok(!api.received().some((x) => x.feedback), "nothing typed");
  });
});

/**
 * Runs `fn({ s, home, api, tmux, req })` with the real window open on the home and a Codex session
 * whose plan popup is up: the request is filed by the window itself (from the rollout, on its gate
 * tick) and its card is in the waiting queue before anything else looks.
 */
async function withCodexInWindow(fn, { standInArgs = () => [] } = {}) {
  const { base, home, repo } = makeAgentHome("api");
  const api = await startStandIn("openai", join(base, "api"), standInArgs(base));
  const tmux = new Tmux();
  try {
    const { env } = codexSetup(home, repo, api.url);
    await withApp({ home }, async (s) => {
      await startCodex(tmux, codex, { repo, env });
      await submitPrompt(tmux, api, PROMPT);
      await tmux.waitScreen("Yes, implement this plan", { timeout: 30000 });
      const id = await waitFor(() => s.exec(`return document.querySelector("[data-testid=gate-request]")?.dataset.id ?? null`), {
        timeout: 30000,
        what: "the Codex request's card in the window",
      }).catch((e) => {
        throw new Error(`${e.message}\n--- screen ---\n${tmux.safeCapture()}`);
      });
      const card = `[data-testid=gate-request][data-id="${id}"]`;
      await s.waitForText("add pagination", card);
      const [req] = pendingCodex(home).filter((q) => q.id === id);
      assert.ok(req, `request ${id} is pending`);
      assert.equal(req.plan, PLAN);
      await fn({ s, home, api, tmux, req, card });
    });
    await quitCodex(tmux);
  } finally {
    tmux.kill();
    api.stop();
  }
}

test("Codex gate in the window: Approve clicked picks 'Yes, implement this plan'; the card goes", { timeout: 240000 }, async () => {
  await withCodexInWindow(async ({ s, home, api, req, card }) => {
    // Its session card is live (its TUI and pane read from its processes): the terminal button
    // is there, and the card says it waits for approval.
    await s.click("[data-view=sessions]");
    const session = `[data-testid=session-card][data-session="${req.sessionId}"]`;
    await s.waitFor(`${session} [data-testid=watch-terminal]`, { timeout: 20000 });
    await s.screenshot("codex-session-card");
    await s.click("[data-view=plans]");
    await s.click(`${card} [data-testid=gate-approve-auto]`);
    const impl = await waitFor(() => api.received().find((x) => x.mode === "default"), { timeout: 30000, what: "the implementation turn" });
    assert.deepEqual(impl.user, ["Implement the plan."]);
    await waitFor(async () => !(await s.exec(`return !!document.querySelector(arguments[0])`, card)), { timeout: 15000, what: "the card to go" });
    assert.ok(closedAs(home, req.id));
  });
});

test("Codex gate in the window: feedback typed in the window reaches the model in Plan mode; the revised plan, edited in the window's editor and approved, reaches the model as the plan to propose", { timeout: 300000 }, async () => {
  await withCodexInWindow(
    async ({ s, home, api, tmux, req }) => {
      const feedback = "Use cursor pagination only";
      await rejectInQueue(s, home, req, feedback, { screenshot: "codex-reject" });
      const got = await waitFor(() => api.received().find((x) => x.feedback), { timeout: 30000, what: "the feedback at the model" }).catch((e) => {
        throw new Error(`${e.message}\n--- screen ---\n${tmux.safeCapture()}`);
      });
      assert.equal(got.mode, "plan");
      assert.equal(got.feedback, feedback);
      assert.ok(!api.received().some((x) => x.mode === "default"), "nothing implemented");

      // The revised plan (the stand-in proposes EDITED): a new card; edited in the window's editor
      // (a line added) and approved.
      await tmux.waitScreen("Yes, implement this plan", { timeout: 30000 });
      const next = await waitFor(() => s.exec(`const c = [...document.querySelectorAll("[data-testid=gate-request]")].find((c) => c.dataset.id !== arguments[0]); return c ? c.dataset.id : null;`, req.id), {
        timeout: 30000,
        what: "the revised plan's card",
      });
      const card = `[data-testid=gate-request][data-id="${next}"]`;
      await s.click(`${card} [data-testid=gate-edit]`);
      await s.waitFor(`${card} .cm-content .cm-line`);
      await s.click(`${card} .cm-content`);
      await s.cmd("POST", "/actions", {
        actions: [{ type: "key", id: "kb", actions: [{ type: "keyDown", value: "\uE009" }, { type: "keyDown", value: "\uE010" }, { type: "keyUp", value: "\uE010" }, { type: "keyUp", value: "\uE009" }] }],
      });
      await s.cmd("DELETE", "/actions");
      await s.keys("\n5. Note the limit in the changelog");
      await s.waitForText("Note the limit in the changelog", `${card} .cm-content`);
      await s.click(`${card} [data-testid=approve-edit]`);
      const edited = await waitFor(() => api.received().filter((x) => x.feedback).find((x) => x.feedback.includes("Note the limit in the changelog")), {
        timeout: 30000,
        what: "the edited plan at the model",
      }).catch((e) => {
        throw new Error(`${e.message}\n--- screen ---\n${tmux.safeCapture()}`);
      });
      assert.equal(edited.mode, "plan");
      assert.ok(edited.feedback.includes("Propose exactly this plan"), edited.feedback);
    },
    {
      standInArgs: (base) => {
        const f = join(base, "revised.md");
        writeFileSync(f, EDITED);
        return ["--revised-plan-file", f];
      },
    },
  );
});
