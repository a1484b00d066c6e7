// A stand-in for interactive Claude Code (2.1.328, tests/fixtures/claude-code-2.1.328/README.md) at
// its plan approval card, run as the program of a tmux pane. For each of `samples` plans in turn:
// it appends the `ExitPlanMode` call to its transcript, runs `<plandeck> hook claude` as its own
// child with the `PermissionRequest` input (as the CLI does: the hook's parent is the agent and the
// agent's terminal is the pane, which is how the hook names the pane and the agent), draws the plan
// and the card with the CLI's choices, and reads one key in raw mode. When a key comes it records
// when it read it (Date.now(), on the benchmark's clock) in `<out>`, clears the card, appends the
// call's `tool_result` (the waiting hook then exits) and goes on with the next plan.
// Usage (in a pane): node tmux-agent.mjs <plandeck binary> <home> <out.jsonl> <samples>

import { spawn } from "node:child_process";
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { hookInput } from "./lib.mjs";

const [bin, home, out, samplesArg] = process.argv.slice(2);
const samples = Number(samplesArg);

function readKey() {
  return new Promise((resolve) => {
    process.stdin.setRawMode(true);
    process.stdin.resume();
    process.stdin.once("data", (d) => {
      const at = Date.now();
      process.stdin.setRawMode(false);
      process.stdin.pause();
      resolve({ at, key: d.toString("utf8") });
    });
  });
}

for (let n = 0; n < samples; n++) {
  const { input, transcript, callId, plan } = hookInput(home, `tmux-${n}`);
  // The CLI writes the plan file before it calls ExitPlanMode.
  mkdirSync(dirname(input.tool_input.planFilePath), { recursive: true });
  writeFileSync(input.tool_input.planFilePath, plan);
  const hook = spawn(bin, ["hook", "claude"], { stdio: ["pipe", "ignore", "ignore"] });
  const hookExit = new Promise((r) => hook.once("exit", r));
  hook.stdin.end(JSON.stringify(input));
  // The card as the CLI draws it under the plan (its choices and the plan file's path).
  process.stdout.write("\x1b[2J\x1b[H");
  process.stdout.write(`${plan}\n`);
  process.stdout.write("Would you like to proceed?\n\n");
  process.stdout.write(" ❯ 1. Yes, and use auto mode\n   2. Yes, manually approve edits\n   3. Tell Claude what to change\n\n");
  process.stdout.write(`ctrl+g to edit in Vim · ${input.tool_input.planFilePath}\n`);
  const { at, key } = await readKey();
  appendFileSync(out, JSON.stringify({ n, key, at }) + "\n");
  process.stdout.write("\x1b[2J\x1b[H");
  process.stdout.write(key === "1" || key === "2" ? "User approved Claude's plan\n" : `answered ${JSON.stringify(key)}\n`);
  const result = {
    type: "user",
    sessionId: input.session_id,
    timestamp: new Date().toISOString(),
    message: { role: "user", content: [{ type: "tool_result", tool_use_id: callId, content: "User has approved your plan. You can now start coding." }] },
  };
  appendFileSync(transcript, JSON.stringify(result) + "\n");
  await hookExit;
}
process.stdout.write("done\n");
