// A stand-in for interactive Claude Code (2.1.328, tests/fixtures/claude-code-2.1.328/README.md) at
// its plan approval card, run as the program of a tmux pane. For each of `samples` plans in turn:
// it appends the `ExitPlanMode` call to its transcript, runs `<plandeck> hook claude` as its own
// child with the `PermissionRequest` input (as the CLI does: the hook's parent is the agent and the
// agent's terminal is the pane, which is how the hook names the pane and the agent), draws the plan
// and the card with the CLI's choices, and waits for whichever answers first, as the CLI does: the
// hook's `allow` with an `updatedInput` (taken as the card's answer; a bare `allow` is not), or one
// key read in raw mode (a person, or keys typed into the pane). It records who answered and when
// (Date.now(), on the benchmark's clock) in `<out>`, clears the card, appends the call's
// `tool_result` with `permissionDecision.source` ("hook" or "user_temporary"; a waiting hook then
// exits) and goes on with the next plan. A key that comes after the hook answered is read by the
// next plan's card, as with the real CLI.
// Usage (in a pane): node tmux-agent.mjs <plandeck binary> <home> <out.jsonl> <samples>

import { spawn } from "node:child_process";
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { hookInput } from "./lib.mjs";

const [bin, home, out, samplesArg] = process.argv.slice(2);
const samples = Number(samplesArg);

/** One key read in raw mode; `cancel()` stops waiting (the hook answered first). */
function readKey() {
  let onData;
  const got = new Promise((resolve) => {
    onData = (d) => {
      const at = Date.now();
      process.stdin.setRawMode(false);
      process.stdin.pause();
      resolve({ by: "key", at, key: d.toString("utf8") });
    };
    process.stdin.setRawMode(true);
    process.stdin.resume();
    process.stdin.once("data", onData);
  });
  const cancel = () => {
    process.stdin.off("data", onData);
    process.stdin.setRawMode(false);
    process.stdin.pause();
  };
  return { got, cancel };
}

/** The hook's answer once it exits: an `allow` carrying `updatedInput` answers the card. */
function hookAnswer(hook) {
  let stdout = "";
  hook.stdout.on("data", (d) => (stdout += d));
  return new Promise((resolve) =>
    hook.once("exit", () => {
      const at = Date.now();
      let decision = null;
      try {
        decision = JSON.parse(stdout).hookSpecificOutput?.decision ?? null;
      } catch {
        // no decision
      }
      resolve({ at, decision });
    }),
  );
}

for (let n = 0; n < samples; n++) {
  const { input, transcript, callId, plan } = hookInput(home, `tmux-${n}`);
  // The CLI writes the plan file before it calls ExitPlanMode.
  mkdirSync(dirname(input.tool_input.planFilePath), { recursive: true });
  writeFileSync(input.tool_input.planFilePath, plan);
  const hook = spawn(bin, ["hook", "claude"], { stdio: ["pipe", "pipe", "ignore"] });
  const hookExit = hookAnswer(hook);
  hook.stdin.end(JSON.stringify(input));
  // The card as the CLI draws it under the plan (its choices and the plan file's path).
  process.stdout.write("\x1b[2J\x1b[H");
  process.stdout.write(`${plan}\n`);
  process.stdout.write("Would you like to proceed?\n\n");
  process.stdout.write(" ❯ 1. Yes, and use auto mode\n   2. Yes, manually approve edits\n   3. Tell Claude what to change\n\n");
  process.stdout.write(`ctrl+g to edit in Vim · ${input.tool_input.planFilePath}\n`);
  const key = readKey();
  const byHook = hookExit.then(({ at, decision }) =>
    decision?.behavior === "allow" && decision.updatedInput && typeof decision.updatedInput === "object"
      ? { by: "hook", at, mode: decision.updatedPermissions?.find((p) => p.type === "setMode")?.mode ?? null }
      : new Promise(() => {}),
  );
  const answer = await Promise.race([key.got, byHook]);
  if (answer.by === "hook") key.cancel();
  appendFileSync(out, JSON.stringify({ n, ...answer }) + "\n");
  process.stdout.write("\x1b[2J\x1b[H");
  const approved = answer.by === "hook" || answer.key === "1" || answer.key === "2";
  process.stdout.write(approved ? "User approved Claude's plan\n" : `answered ${JSON.stringify(answer.key)}\n`);
  const result = {
    type: "user",
    sessionId: input.session_id,
    timestamp: new Date().toISOString(),
    message: { role: "user", content: [{ type: "tool_result", tool_use_id: callId, content: "User has approved your plan. You can now start coding." }] },
    permissionDecision: { decision: "accept", source: answer.by === "hook" ? "hook" : "user_temporary" },
  };
  appendFileSync(transcript, JSON.stringify(result) + "\n");
  await hookExit;
}
process.stdout.write("done\n");
