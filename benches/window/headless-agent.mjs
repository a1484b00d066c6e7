// A stand-in for headless Claude Code (`claude -p`) running its PermissionRequest hook: started
// with `-p` in its arguments (what `plandeck hook claude` looks for to know the agent honours an
// `allow`), it runs `<plandeck> hook claude` with its own stdin and prints, as JSON, when the hook
// was started and when it exited (Date.now(): the agent is unblocked then), its exit code and
// what it printed.
// Usage: node headless-agent.mjs <plandeck binary> -p  < hook-input.json

import { spawn } from "node:child_process";

const spawnedAt = Date.now();
const hook = spawn(process.argv[2], ["hook", "claude"], { stdio: ["inherit", "pipe", "inherit"] });
let stdout = "";
hook.stdout.on("data", (d) => (stdout += d));
hook.on("exit", (code) => {
  const at = Date.now();
  // "close": the hook's output is all read.
  hook.once("close", () => process.stdout.write(JSON.stringify({ spawnedAt, at, code, stdout })));
});
