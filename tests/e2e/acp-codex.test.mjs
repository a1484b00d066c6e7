// Codex over ACP (codex-acp 0.16.0, issue 36) against the loopback OpenAI Responses stand-in:
// `plandeck agents check codex-acp --wait` starts the adapter in a repository. codex-acp offers no
// plan mode (modes read-only, auto, full-access), so what waits for the person is each tool
// permission: the scripted model asks to run two commands outside the sandbox; the first is
// approved with `plandeck approve` (it runs), the second rejected with `plandeck reject --feedback`
// (it does not run), and the feedback reaches the model as the next prompt, word for word.
//
// No window: it needs the CLI build (PLANDECK_BIN or $CARGO_TARGET_DIR/debug/plandeck) and
// codex-acp installed by scripts/setup.sh --test.

import { existsSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { agentCli, codexSetup, makeAgentHome, startStandIn } from "./agents.mjs";
import { checkReport, decide, recordFrames, startCheck, waitRequest } from "./acp.mjs";

test("codex-acp: a tool permission waits, one is approved and runs, one is refused and its feedback reaches the model", async () => {
  const { bin } = agentCli("codex-acp");
  const { base, home, repo } = makeAgentHome("acp-codex");
  const script = join(base, "script.json");
  const call = (file) => ({
    name: "exec_command",
    arguments: { cmd: `touch ${file}`, sandbox_permissions: "require_escalated", justification: `Create ${file}?` },
  });
  writeFileSync(script, JSON.stringify([{ call: call("allowed.txt") }, { call: call("refused.txt") }, { text: "DONE: as you said." }]));
  const api = await startStandIn("openai", join(base, "api"), ["--script", script]);
  const feedback = "Do not create refused.txt; leave the folder as it is.";
  let check;
  try {
    const setup = codexSetup(home, repo, api.url);
    setup.env.PATH = `${dirname(bin)}:${process.env.PATH}`;
    const env = recordFrames(setup.env, base, "codex-acp", bin, "codex-acp-0.16.0.jsonl");
    check = startCheck("codex-acp", repo, env, { prompt: "Create the two files." });

    // The first command waits for the person, with the command as the agent sent it.
    const first = await waitRequest(env, check, (r) => r.kind === "permission", { what: "the first command's permission" });
    assert.equal(first.toolKind, "execute");
    assert.match(first.command, /touch allowed\.txt$/);
    assert.ok(!existsSync(join(repo, "allowed.txt")), "nothing ran before the person said so");
    assert.deepEqual(
      first.options.map((o) => [o.optionId, o.kind]),
      [
        ["approved", "allow_once"],
        ["approved-execpolicy-amendment", "allow_always"],
        ["abort", "reject_once"],
      ],
    );
    assert.equal(decide(env, "approve", first.id, ["--mode", "manual"]).optionId, "approved");

    // It ran; the second waits, and is refused with feedback.
    const second = await waitRequest(env, check, (r) => r.kind === "permission", { seen: [first.id], what: "the second command's permission" });
    assert.match(second.command, /touch refused\.txt$/);
    assert.ok(existsSync(join(repo, "allowed.txt")), "the approved command ran");
    decide(env, "reject", second.id, ["--feedback", feedback]);

    const out = await checkReport(check);
    assert.equal(out.agentInfo.name, "codex-acp");
    assert.equal(out.planMode, false, "codex-acp 0.16 offers no plan mode");
    assert.deepEqual(out.modes, ["read-only", "auto", "full-access"]);
    const requests = out.turns.flatMap((t) => t.requests);
    assert.deepEqual(
      requests.map((r) => [r.command.replace(/^.* /, ""), r.outcome, r.optionId]),
      [
        ["allowed.txt", "approved", "approved"],
        ["refused.txt", "rejected", "abort"],
      ],
    );
    assert.ok(!existsSync(join(repo, "refused.txt")), "the refused command did not run");
    assert.equal(out.turns.length, 2, "the feedback went as the next prompt");
    assert.equal(out.turns[1].said, "DONE: as you said.");

    // The model got the feedback as the user's text, exactly.
    const told = api.received().find((r) => r.user?.includes(feedback));
    assert.ok(told, JSON.stringify(api.received(), null, 1).slice(0, 3000));
    assert.deepEqual(told.user, [feedback]);
    // And the approved command's output came back to it.
    assert.ok(api.received().some((r) => r.outputs?.some((o) => /exited with code 0/.test(o.output))));
  } finally {
    check?.stop();
    api.stop();
  }
});
