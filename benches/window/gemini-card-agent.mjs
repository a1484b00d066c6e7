// A stand-in for interactive Gemini CLI (0.61.0, tests/fixtures/gemini-cli-0.61.0) at its plan
// approval card, run as the program of a tmux pane. For each of `samples` plans in turn: it writes
// the plan into the session's plans folder (`~/.gemini/tmp/<slug>/<session>/plans/`) and its chat
// file, runs `<plandeck> hook gemini` as its own child with the `BeforeTool` / `exit_plan_mode`
// input (as the CLI does: the hook's parent is the agent, whose terminal is the pane), waits for
// the hook's `{}` (the card waits for the hook), then draws the card as the CLI does (the plan, the
// three labelled choices) and reads one key in raw mode. It records the key and when it was read
// (Date.now(), on the benchmark's clock) in `<out>`, clears the card and goes on.
// Usage (in a pane): node gemini-card-agent.mjs <plandeck binary> <home> <out.jsonl> <samples>

import { spawn } from "node:child_process";
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [bin, home, out, samplesArg] = process.argv.slice(2);
const samples = Number(samplesArg);
const slugDir = join(home, ".gemini/tmp/bench");

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

function runHook(input) {
  return new Promise((resolve) => {
    const hook = spawn(bin, ["hook", "gemini"], { stdio: ["pipe", "pipe", "ignore"] });
    let stdout = "";
    hook.stdout.on("data", (d) => (stdout += d));
    hook.once("close", () => resolve(stdout));
    hook.stdin.end(JSON.stringify(input));
  });
}

const box = (text) => `│ ${text.padEnd(96)} │\n`;

for (let n = 0; n < samples; n++) {
  const session = `bench-gemini-${n}`;
  const plans = join(slugDir, session, "plans");
  mkdirSync(plans, { recursive: true });
  mkdirSync(join(slugDir, "chats"), { recursive: true });
  const plan = `# Plan: gemini bench ${n}\n\n1. Read the orders module ${n}\n2. Add cursor pagination to the list endpoint\n3. Write tests for the last page\n`;
  writeFileSync(join(plans, "plan.md"), plan);
  const chat = join(slugDir, "chats", `session-bench-${n}.jsonl`);
  writeFileSync(chat, JSON.stringify({ sessionId: session, projectHash: "bench", startTime: new Date().toISOString() }) + "\n");
  const input = {
    session_id: session,
    transcript_path: chat,
    cwd: home,
    hook_event_name: "BeforeTool",
    timestamp: new Date().toISOString(),
    tool_name: "exit_plan_mode",
    tool_input: { plan_filename: "plan.md" },
  };
  await runHook(input);
  // The card, as Gemini CLI 0.61 draws it once the hook answered.
  let card = "\x1b[2J\x1b[H╭" + "─".repeat(98) + "╮\n";
  card += box("Ready to start implementation?") + box("");
  for (const line of plan.trimEnd().split("\n")) card += box(line.replace(/^# /, ""));
  card += box("");
  card += box("● 1.  Yes, automatically accept edits") + box("      Approves plan and allows tools to run automatically");
  card += box("  2.  Yes, manually accept edits") + box("      Approves plan but requires confirmation for each tool");
  card += box("  3.  Type your feedback...") + box("");
  card += box("Enter to select · ↑/↓ to navigate · Ctrl+G to edit plan · Esc to cancel");
  card += "╰" + "─".repeat(98) + "╯\n";
  process.stdout.write(card);
  const answer = await readKey();
  appendFileSync(out, JSON.stringify({ n, ...answer }) + "\n");
  process.stdout.write("\x1b[2J\x1b[H");
  process.stdout.write(answer.key === "1" || answer.key === "2" ? "✓ Plan approved\n" : `answered ${JSON.stringify(answer.key)}\n`);
}
process.stdout.write("done\n");
