#!/usr/bin/env node
// Records every ACP frame between a client and an agent, to write the fixtures of
// tests/fixtures/acp/: stands in for the agent's program, starts the real one and passes each line
// through unchanged, logging `{dir: "out"|"in", frame}` (out: client to agent) to a JSONL file.
//
//   ACP_TEE_LOG=frames.jsonl node tests/agents/acp-tee.mjs -- codex-acp [args…]
//
// A shim named like the agent's program (`codex-acp`, `gemini`, `opencode`) that execs this puts it
// under `plandeck agents check`. `ACP_TEE_REDACT` (a JSON object {text: placeholder}) replaces
// machine-specific strings (the temp folder) in what is logged, not in what passes.

import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";
import { createInterface } from "node:readline";

const log = process.env.ACP_TEE_LOG;
const redact = Object.entries(JSON.parse(process.env.ACP_TEE_REDACT || "{}")).sort((a, b) => b[0].length - a[0].length);
const argv = process.argv.slice(process.argv.indexOf("--") + 1);
const child = spawn(argv[0], argv.slice(1), { stdio: ["pipe", "pipe", "inherit"] });

function record(dir, line) {
  if (!log) return;
  let text = line;
  for (const [from, to] of redact) text = text.split(from).join(to);
  let frame;
  try {
    frame = JSON.parse(text);
  } catch {
    frame = { unparsed: text };
  }
  appendFileSync(log, JSON.stringify({ dir, frame }) + "\n");
}

createInterface({ input: process.stdin }).on("line", (line) => {
  record("out", line);
  child.stdin.write(line + "\n");
});
process.stdin.on("end", () => child.stdin.end());
createInterface({ input: child.stdout }).on("line", (line) => {
  record("in", line);
  process.stdout.write(line + "\n");
});
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
for (const s of ["SIGTERM", "SIGINT"]) process.on(s, () => child.kill(s));
