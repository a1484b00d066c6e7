// Gemini CLI in ACP mode (`gemini --acp`, 0.61.0, issue 36) against the loopback Gemini stand-in:
// `plandeck agents check gemini-acp --wait` starts it in a repository in plan mode; the scripted
// model writes its plan to the plans folder and calls exit_plan_mode, which comes as a permission
// request of kind `plan` with the plan file's text and hash. It waits in `plandeck pending`; a
// rejection with feedback answers the CLI's own reject option and the feedback reaches the model
// as the next prompt, word for word; the CLI stays in plan mode and proposes again; approval
// answers its allow option, the CLI leaves plan mode and the model goes on to implement: its edit
// of the repository waits as a tool permission, approved, and the file is written. Every turn's
// tokens are read from the prompt's answer (`_meta.quota.token_count`).
//
// No window: it needs the CLI build (PLANDECK_BIN or $CARGO_TARGET_DIR/debug/plandeck) and Gemini
// CLI installed by scripts/setup.sh --test.

import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { agentCli, geminiEnv, geminiReady, makeAgentHome, startStandIn } from "./agents.mjs";
import { checkReport, decide, recordFrames, startCheck, waitRequest } from "./acp.mjs";
import { DEFAULT_PLAN } from "../agents/common.mjs";

test("gemini --acp: the plan waits, is rejected with feedback the model gets, then approved and the implementation's edit asks too", async () => {
  const { bin } = agentCli("gemini");
  const { base, home, repo } = makeAgentHome("acp-gemini");
  const notes = join(repo, "NOTES.md");
  const api = await startStandIn("gemini", join(base, "api"), ["--implement", notes]);
  const feedback = "Use keyset pagination, not offsets.";
  let check;
  try {
    geminiReady(home, repo);
    const env = recordFrames({ ...geminiEnv(home, api), PATH: `${dirname(bin)}:${process.env.PATH}` }, base, "gemini", bin, "gemini-cli-0.61.0.jsonl");
    check = startCheck("gemini-acp", repo, env, { prompt: "Plan pagination for the list endpoint." });

    // The plan waits, with the plan file's text and its hash.
    const plan = await waitRequest(env, check, (r) => r.kind === "plan", { what: "the plan" });
    assert.equal(plan.plan, DEFAULT_PLAN);
    assert.equal(plan.planHash, createHash("sha256").update(DEFAULT_PLAN).digest("hex"));
    assert.match(plan.title, /^Requesting plan approval for: .*\/plans\/pagination\.md$/);
    assert.deepEqual(
      plan.options.map((o) => [o.optionId, o.kind]),
      [
        ["proceed_once", "allow_once"],
        ["cancel", "reject_once"],
      ],
    );
    decide(env, "reject", plan.id, ["--feedback", feedback]);

    // The feedback is the next prompt; the model proposes again, still planning.
    const again = await waitRequest(env, check, (r) => r.kind === "plan", { seen: [plan.id], what: "the plan proposed again" });
    const told = api.received().filter((r) => Array.isArray(r.user));
    assert.deepEqual(
      told.map((r) => r.user.at(-1)),
      ["Plan pagination for the list endpoint.", feedback],
      JSON.stringify(told),
    );
    assert.match(JSON.stringify(api.received().find((r) => r.tool === "exit_plan_mode")?.response), /canceled by the user/);
    assert.ok(!existsSync(notes));
    decide(env, "approve", again.id);

    // Approved: it goes on, and its edit of the repository asks first.
    const edit = await waitRequest(env, check, (r) => r.kind === "permission", { what: "the implementation's edit" });
    assert.equal(edit.toolKind, "edit");
    assert.equal(edit.path, notes);
    assert.ok(!existsSync(notes), "nothing written before the person said so");
    decide(env, "approve", edit.id, ["--mode", "manual"]);

    const out = await checkReport(check);
    assert.equal(out.agentInfo.name, "gemini-cli");
    assert.equal(out.planMode, true);
    assert.deepEqual(out.modes, ["default", "autoEdit", "yolo", "plan"]);
    const ended = out.turns.flatMap((t) => t.requests.map((r) => [r.kind, r.outcome, r.optionId]));
    assert.deepEqual(ended, [
      ["plan", "rejected", "cancel"],
      ["plan", "approved", "proceed_once"],
      ["permission", "approved", "proceed_once"],
    ]);
    assert.equal(readFileSync(notes, "utf8"), "Pagination: keyset.\n");
    assert.match(JSON.stringify(api.received().filter((r) => r.tool === "exit_plan_mode").at(-1).response), /Plan approved/);
    assert.ok(out.turns.every((t) => t.gated));
    // Its tokens: no usage_update and no `usage`, each prompt's answer carries them in
    // `_meta.quota.token_count` (the stand-in counts 10 each way per model call).
    for (const t of out.turns) {
      assert.ok(t.inputTokens > 0 && t.outputTokens > 0, JSON.stringify(t));
      assert.equal(t.inputTokens % 10, 0, JSON.stringify(t));
    }
  } finally {
    check?.stop();
    api.stop();
  }
});
