// OpenCode over ACP (`opencode acp`, opencode-ai 1.18.33, issue 36) against the loopback
// OpenAI-compatible Chat Completions stand-in (tests/agents/openai-chat-api.mjs, a provider of
// `@ai-sdk/openai-compatible` in opencode.json): `plandeck agents check opencode --wait` starts it
// in a repository.
// - Its own mode (`--no-plan`, its `build` agent): what waits for the person is each tool
//   permission (`bash: "ask"` in its config): the scripted model asks to run two commands; the
//   first is approved with `plandeck approve` (it runs), the second rejected with `plandeck reject
//   --feedback` (it does not run), and the feedback reaches the model as the next prompt, word for
//   word.
// - Plan mode: OpenCode offers its `plan` agent as the `configOptions` entry `mode`, not as ACP
//   modes; Plandeck sets it with `session/set_config_option` (the model is told "Plan mode
//   ACTIVE"). It asks nothing to leave plan mode and its commands run as its config says (only
//   its prompt forbids changes): the session is "ungated" from the start, and a command the model
//   runs in plan mode (`bash: "allow"`) changes the folder with nothing asked.
//
// No window: it needs the CLI build (PLANDECK_BIN or $CARGO_TARGET_DIR/debug/plandeck) and
// opencode-ai installed by scripts/setup.sh --test.

import { existsSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { agentCli, makeAgentHome, startStandIn } from "./agents.mjs";
import { checkReport, decide, pending, recordFrames, startCheck, waitRequest, writeOpencodeConfig } from "./acp.mjs";
import { envFor } from "./webdriver.mjs";

/** OpenCode on `home` with the stand-in at `apiUrl` as its only model, commands and edits asked
 * (or as `permission` says). */
function opencodeSetup(home, apiUrl, permission = { bash: "ask", edit: "ask" }) {
  writeOpencodeConfig(home, apiUrl, permission);
  const env = envFor(home);
  for (const k of Object.keys(env)) if (/^(OPENCODE_|OPENAI_)/.test(k)) delete env[k];
  return env;
}

test("opencode acp: a tool permission waits, one is approved and runs, one is refused and its feedback reaches the model", async () => {
  const { bin } = agentCli("opencode");
  const { base, home, repo } = makeAgentHome("acp-opencode");
  const script = join(base, "script.json");
  const call = (file) => ({ name: "bash", arguments: { command: `touch ${file}`, description: `Create ${file}` } });
  writeFileSync(script, JSON.stringify([{ call: call("allowed.txt") }, { call: call("refused.txt") }, { text: "DONE: as you said." }]));
  const api = await startStandIn("openai-chat", join(base, "api"), ["--script", script]);
  const feedback = "Do not create refused.txt; leave the folder as it is.";
  let check;
  try {
    const env = recordFrames({ ...opencodeSetup(home, api.url), PATH: `${dirname(bin)}:${process.env.PATH}` }, base, "opencode", bin, "opencode-1.18.33.jsonl");
    check = startCheck("opencode", repo, env, { prompt: "Create the two files.", plan: false });

    const first = await waitRequest(env, check, (r) => r.kind === "permission", { what: "the first command's permission" });
    assert.equal(first.toolKind, "execute");
    assert.equal(first.command, "touch allowed.txt");
    assert.ok(!existsSync(join(repo, "allowed.txt")), "nothing ran before the person said so");
    assert.deepEqual(
      first.options.map((o) => [o.optionId, o.kind]),
      [
        ["once", "allow_once"],
        ["always", "allow_always"],
        ["reject", "reject_once"],
      ],
    );
    assert.equal(decide(env, "approve", first.id, ["--mode", "manual"]).optionId, "once");

    const second = await waitRequest(env, check, (r) => r.kind === "permission", { seen: [first.id], what: "the second command's permission" });
    assert.equal(second.command, "touch refused.txt");
    assert.ok(existsSync(join(repo, "allowed.txt")), "the approved command ran");
    decide(env, "reject", second.id, ["--feedback", feedback]);

    const out = await checkReport(check);
    assert.equal(out.agentInfo.name, "OpenCode");
    assert.equal(out.planMode, true, "its plan agent, offered as the config option `mode`");
    assert.deepEqual(out.modes, ["build", "plan"]);
    assert.ok(out.turns.every((t) => t.mode === "build" && t.gated), JSON.stringify(out.turns));
    const requests = out.turns.flatMap((t) => t.requests);
    assert.deepEqual(
      requests.map((r) => [r.command, r.outcome, r.optionId]),
      [
        ["touch allowed.txt", "approved", "once"],
        ["touch refused.txt", "rejected", "reject"],
      ],
    );
    assert.ok(!existsSync(join(repo, "refused.txt")), "the refused command did not run");
    assert.equal(out.turns.length, 2, "the feedback went as the next prompt");
    assert.equal(out.turns[1].said, "DONE: as you said.");

    const told = api.received().find((r) => r.user?.includes(feedback));
    assert.ok(told, JSON.stringify(api.received(), null, 1).slice(0, 3000));
    assert.deepEqual(told.user, [feedback]);
    assert.ok(api.received().some((r) => r.outputs?.length > 0), "the approved command's output reached the model");
  } finally {
    check?.stop();
    api.stop();
  }
});

test("opencode acp in plan mode: set through its `mode` config option, asks nothing to leave it, so the session is ungated from the start and a command runs unasked", async () => {
  const { bin } = agentCli("opencode");
  const { base, home, repo } = makeAgentHome("acp-opencode-plan");
  const script = join(base, "script.json");
  const plan = "PLAN: 1. Create planned.txt. 2. Stop.";
  writeFileSync(script, JSON.stringify([{ call: { name: "bash", arguments: { command: "touch planned.txt", description: "Create planned.txt" } } }, { text: plan }]));
  const api = await startStandIn("openai-chat", join(base, "api"), ["--script", script]);
  let check;
  try {
    const env = recordFrames({ ...opencodeSetup(home, api.url, { bash: "allow" }), PATH: `${dirname(bin)}:${process.env.PATH}` }, base, "opencode", bin, "opencode-1.18.33-plan.jsonl");
    check = startCheck("opencode", repo, env, { prompt: "Plan a file named planned.txt." });
    const out = await checkReport(check);
    assert.equal(out.agentInfo.name, "OpenCode");
    assert.equal(out.planMode, true);
    assert.deepEqual(out.modes, ["build", "plan"]);
    assert.equal(out.turns.length, 1, JSON.stringify(out.turns));
    const [turn] = out.turns;
    assert.equal(turn.mode, "plan");
    assert.equal(turn.said.trim(), plan);
    // Nothing waited for the person: no plan gate, and the command ran as its config says.
    assert.deepEqual(turn.requests, []);
    assert.deepEqual(pending(env), []);
    assert.ok(existsSync(join(repo, "planned.txt")), "the command ran in plan mode, unasked");
    assert.equal(turn.gated, false);
    assert.equal(turn.ungatedWhy, "OpenCode (ACP) asks nothing to leave plan mode: its plan does not wait for you");
    // Its plan agent was in charge: the model was told so with the prompt.
    const first = api.received().find((r) => r.user?.includes("Plan a file named planned.txt."));
    assert.ok(first, JSON.stringify(api.received()).slice(0, 3000));
    assert.ok(first.user.some((t) => /Plan mode ACTIVE/.test(t)), JSON.stringify(first.user).slice(0, 2000));
  } finally {
    check?.stop();
    api.stop();
  }
});
