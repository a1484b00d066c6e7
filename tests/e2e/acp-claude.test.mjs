// Claude Code over ACP (claude-agent-acp, issue 36) against the loopback Anthropic stand-in:
// `plandeck agents check claude-acp` starts the adapter in a repository in plan mode; the plan
// comes as a permission request of kind `plan` with the plan's text and hash, is rejected with the
// adapter's own reject option, the feedback reaches the model as the next prompt, word for word,
// and the re-proposed plan is approved with the adapter's narrowest allow option. The machine's
// `IS_SANDBOX=yes` (any value but "1") is kept in the environment on purpose: it made every
// `session/new` fail ("Query closed before response received") until Plandeck dropped it for the
// agent (docs/agents.md, "Agents over ACP").
//
// No window: it needs the CLI build (PLANDECK_BIN or $CARGO_TARGET_DIR/debug/plandeck) and
// claude-agent-acp installed by scripts/setup.sh --test.

import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { agentCli, makeAgentHome, startStandIn } from "./agents.mjs";
import { envFor, plandeckBin } from "./webdriver.mjs";
import { DEFAULT_PLAN } from "../agents/common.mjs";

const KEY = "sk-ant-api03-plandeck-e2e-standin-0000000000000000000000";

test("claude-agent-acp: a plan waits as a request, is rejected with feedback the model gets, then approved", async () => {
  const { bin } = agentCli("claude-agent-acp");
  const { base, home, repo } = makeAgentHome("acp-claude");
  const api = await startStandIn("claude", join(base, "api"));
  try {
    const feedback = "Use keyset pagination, not offsets.";
    const env = {
      ...envFor(home),
      PATH: `${dirname(bin)}:${process.env.PATH}`,
      IS_SANDBOX: "yes",
      ANTHROPIC_BASE_URL: api.url,
      ANTHROPIC_API_KEY: KEY,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    };
    // envFor's empty CLAUDE_CONFIG_DIR would put the plan file at a relative path: unset it.
    for (const k of Object.keys(env)) if (/^CLAUDE_CODE_(?!DISABLE)|^CLAUDECODE$|^CLAUDE_CONFIG_DIR$/.test(k)) delete env[k];
    const list = spawnSync(plandeckBin(), ["agents", "list", "--json"], { encoding: "utf8", env });
    const row = JSON.parse(list.stdout).find((r) => r.name === "claude-acp");
    assert.equal(row.found, true, list.stdout);
    assert.equal(row.kind, "acp");

    const r = spawnSync(
      plandeckBin(),
      ["agents", "check", "claude-acp", "--repo", repo, "--prompt", "Plan pagination for the list endpoint.", "--feedback", feedback, "--approve", "--timeout", "90", "--json"],
      { encoding: "utf8", env, timeout: 240000 },
    );
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
    const out = JSON.parse(r.stdout);
    assert.equal(out.agentInfo.name, "@zed-industries/claude-agent-acp");
    assert.equal(out.planMode, true);
    assert.equal(out.turns.length, 2, r.stdout);

    const [first, second] = out.turns;
    assert.equal(first.requests.length, 1);
    const plan = first.requests[0];
    assert.equal(plan.kind, "plan");
    assert.equal(plan.toolKind, "switch_mode");
    assert.equal(plan.plan, DEFAULT_PLAN);
    assert.equal(plan.planHash, createHash("sha256").update(DEFAULT_PLAN).digest("hex"));
    assert.equal(plan.outcome, "rejected");
    assert.equal(plan.optionId, "plan");
    assert.ok(plan.options.some((o) => o.optionId === "plan" && o.kind === "reject_once"));
    assert.equal(first.mode, "plan");
    assert.equal(first.gated, true);
    assert.ok(first.costUsd > 0, "usage_update's cost");

    // The feedback reached the model as the next prompt, exactly.
    const asked = api.requests().filter((q) => (q.body?.messages ?? []).some((m) => m.role === "user" && JSON.stringify(m.content).includes(feedback)));
    assert.ok(asked.length > 0, "the model got the feedback");
    const blocks = asked[0].body.messages.flatMap((m) => (m.role === "user" && Array.isArray(m.content) ? m.content : []));
    assert.ok(blocks.some((b) => b.type === "text" && b.text === feedback), JSON.stringify(blocks).slice(0, 2000));

    // The re-proposed plan: approved with the adapter's narrowest allow option; the model was told.
    assert.equal(second.requests.length, 1);
    assert.equal(second.requests[0].kind, "plan");
    assert.equal(second.requests[0].outcome, "approved");
    assert.equal(second.requests[0].optionId, "default");
    assert.equal(second.mode, "default");
    assert.equal(second.gated, true);
    const told = api.received().map((x) => JSON.stringify(x)).join("\n");
    assert.match(told, /User rejected request to exit plan mode/);
    assert.match(told, /approved your plan/);
  } finally {
    api.stop();
  }
});

// Issue 36: `plandeck start --agent claude-acp` has this user's server host the real adapter: the
// starting command ends, the plan waits in the gate's queue, an approval with the option the
// person picked reaches it, `sessions list --json` shows the session gated with its cost, Stop
// ends it.
test("claude-agent-acp hosted by the server: started, its plan approved from the queue, its cost listed, stopped", async () => {
  const { bin } = agentCli("claude-agent-acp");
  const { base, home, repo } = makeAgentHome("acp-claude-hosted");
  const api = await startStandIn("claude", join(base, "api"));
  const env = {
    ...envFor(home),
    PATH: `${dirname(bin)}:${process.env.PATH}`,
    IS_SANDBOX: "yes",
    ANTHROPIC_BASE_URL: api.url,
    ANTHROPIC_API_KEY: KEY,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  };
  for (const k of Object.keys(env)) if (/^CLAUDE_CODE_(?!DISABLE)|^CLAUDECODE$|^CLAUDE_CONFIG_DIR$/.test(k)) delete env[k];
  const cli = (...args) => spawnSync(plandeckBin(), args, { encoding: "utf8", env, timeout: 60000 });
  const until = async (what, f, ms = 180000) => {
    const end = Date.now() + ms;
    for (;;) {
      const v = f();
      if (v) return v;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  let serverPid = null;
  try {
    const s = cli("start", "--agent", "claude-acp", "--repo", repo, "--plan", "--prompt", "Plan pagination for the list endpoint.", "--json");
    assert.equal(s.status, 0, `${s.stdout}\n${s.stderr}`);
    const started = JSON.parse(s.stdout);
    serverPid = started.hostPid;
    assert.equal(started.kind, "acp");
    assert.equal(started.mode, "plan");
    const row = await until("the plan in pending --json", () =>
      JSON.parse(cli("pending", "--json").stdout).find((r) => r.kind === "plan" && r.agent === "claude-acp"),
    );
    assert.equal(row.plan, DEFAULT_PLAN);
    const a = cli("approve", row.id, "--mode", "manual", "--expect-hash", row.planHash, "--json");
    assert.equal(a.status, 0, `${a.stdout}\n${a.stderr}`);
    assert.equal(JSON.parse(a.stdout).optionId, "default");
    const listed = await until("the session idle with its cost", () =>
      JSON.parse(cli("sessions", "list", "--json").stdout).find((r) => r.sessionId === started.id && r.state === "idle" && r.usage?.costUsd > 0),
    );
    assert.equal(listed.gated, true);
    assert.equal(listed.permissionMode, "default");
    const stop = cli("stop", started.id, "--yes", "--json");
    assert.equal(stop.status, 0, stop.stdout);
    await until("the session ended", () =>
      JSON.parse(cli("sessions", "list", "--json").stdout).find((r) => r.sessionId === started.id && r.state === "ended"),
    );
    assert.match(api.received().map((x) => JSON.stringify(x)).join("\n"), /approved your plan/);
  } finally {
    api.stop();
    if (serverPid) {
      try {
        process.kill(serverPid);
      } catch {}
    }
  }
});
