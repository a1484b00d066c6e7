// The real Codex CLI (npm @openai/codex 0.169.0) in tmux, in its Plan collaboration mode, its model
// API answered by tests/agents/openai-api.mjs on loopback: the scripted model proposes a plan in a
// `<proposed_plan>` block, the TUI offers to implement it, the person accepts; the rollout file
// Codex writes (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`) must hold the plan and the
// decision as Plandeck's history reads them (see tests/fixtures/codex-cli-0.169.0/README.md).
// No Plandeck window is needed. A missing CLI fails the test: it never skips.

import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import {
  agentCli,
  answerCodexPlan,
  codexRollouts,
  codexSetup,
  makeAgentHome,
  quitCodex,
  rolloutRecords,
  startCodex,
  startStandIn,
  submitPrompt,
  Tmux,
} from "./agents.mjs";
import { waitFor } from "./webdriver.mjs";

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
    assert.ok(userTexts(turns[0].body).includes(PROMPT));
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
    assert.equal(meta.payload.cli_version, "0.169.0");
    assert.equal(meta.payload.originator, "codex-tui");
    assert.equal(meta.payload.cwd, repo);
    assert.ok(path.endsWith(`-${meta.payload.id}.jsonl`), "the file name ends with the session id");

    // The plan as Codex parsed it: an item_completed Plan item (text without the tags) …
    const plans = recs.filter((r) => r.type === "event_msg" && r.payload?.type === "item_completed" && r.payload.item?.type === "Plan");
    assert.equal(plans.length, 1);
    assert.equal(plans[0].payload.item.text, PLAN);
    const planTurn = plans[0].payload.turn_id;
    assert.equal(plans[0].payload.item.id, `${planTurn}-plan`);
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
