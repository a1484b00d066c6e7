// Gemini CLI in ACP mode (`gemini --acp`, 0.61.0, issue 36) runs none of the person's hooks: the
// same `~/.gemini/settings.json` whose `BeforeTool` hook runs for every tool call of a headless
// run (`gemini -p`) is not run for any tool call of an ACP session, `exit_plan_mode` included.
// So Plandeck's Gemini plan hook (installed there for terminal sessions) never files a second
// request for a hosted Gemini session's plan: its plan waits once, as the ACP request. Should a
// later Gemini run hooks over ACP, this fails, and the hook must step aside for a hosted session
// as Claude's does (`agents/claude/hook.rs`). Where in its source: docs/agents.md ("Gemini CLI
// 0.61.0 `--acp`").
//
// No window and no Plandeck: Gemini CLI (scripts/setup.sh --test) against the loopback Gemini
// stand-in, driven by a minimal ACP client here.

import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { agentCli, geminiEnv, geminiReady, makeAgentHome, startStandIn } from "./agents.mjs";

/** The tools a hook was run for (each run appends its input, one JSON line, to `log`). */
function hooked(log) {
  if (!existsSync(log)) return [];
  return readFileSync(log, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .map((h) => `${h.hook_event_name} ${h.tool_name}`);
}

/** One ACP session of `bin` in `cwd`: plan mode, one prompt, every permission allowed once; the
 * permissions' titles, once the prompt has ended. */
async function acpSession(bin, cwd, env, prompt) {
  const agent = spawn(bin, ["--acp"], { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  agent.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise((_, reject) => agent.on("exit", (code) => reject(new Error(`gemini --acp exited (${code}): ${stderr}`))));
  const send = (m) => agent.stdin.write(`${JSON.stringify(m)}\n`);
  const answers = new Map();
  const asked = [];
  let next = 0;
  createInterface({ input: agent.stdout }).on("line", (line) => {
    let m;
    try {
      m = JSON.parse(line);
    } catch {
      return;
    }
    if (m.method === "session/request_permission") {
      asked.push(m.params.toolCall.title);
      const once = m.params.options.find((o) => o.kind === "allow_once");
      send({ jsonrpc: "2.0", id: m.id, result: { outcome: { outcome: "selected", optionId: once.optionId } } });
    } else if (m.id !== undefined && !m.method && answers.has(m.id)) {
      answers.get(m.id)(m);
    }
  });
  const call = (method, params) => {
    const id = ++next;
    const answered = new Promise((resolve) => answers.set(id, resolve));
    send({ jsonrpc: "2.0", id, method, params });
    return Promise.race([answered, exited]).then((m) => {
      if (m.error) throw new Error(`${method}: ${JSON.stringify(m.error)}`);
      return m.result;
    });
  };
  try {
    await call("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await call("session/new", { cwd, mcpServers: [] });
    await call("session/set_mode", { sessionId, modeId: "plan" });
    const done = await call("session/prompt", { sessionId, prompt: [{ type: "text", text: prompt }] });
    assert.equal(done.stopReason, "end_turn", stderr);
    return asked;
  } finally {
    agent.kill("SIGTERM");
  }
}

test("gemini --acp runs no BeforeTool hook, not even on exit_plan_mode; the same hook runs in a headless run", { timeout: 180000 }, async () => {
  const { bin } = agentCli("gemini");
  const { base, home, repo } = makeAgentHome("acp-gemini-hooks");
  const api = await startStandIn("gemini", join(base, "api"));
  try {
    geminiReady(home, repo);
    // A hook on every tool, as Plandeck's is on exit_plan_mode (`agents/gemini/mod.rs`:
    // `plan_hook_group`): it records its input and decides nothing.
    const log = join(base, "hooked.jsonl");
    const hook = join(base, "hook.sh");
    writeFileSync(hook, `#!/bin/sh\n{ tr -d '\\n'; echo; } >> '${log}'\necho '{}'\n`);
    chmodSync(hook, 0o755);
    const settingsFile = join(home, ".gemini/settings.json");
    const settings = JSON.parse(readFileSync(settingsFile, "utf8"));
    settings.hooks = { BeforeTool: [{ matcher: ".*", hooks: [{ type: "command", name: "probe", command: hook, timeout: 10000 }] }] };
    writeFileSync(settingsFile, JSON.stringify(settings));
    const env = geminiEnv(home, api);

    // Over ACP: the plan is written (write_file) and its approval asked (exit_plan_mode), allowed;
    // no hook ran for either.
    const asked = await acpSession(bin, repo, env, "Plan pagination for the list endpoint.");
    assert.equal(asked.length, 1, JSON.stringify(asked));
    assert.match(asked[0], /^Requesting plan approval for: .*\/plans\/pagination\.md$/);
    assert.ok(api.received().some((r) => r.tool === "exit_plan_mode"), JSON.stringify(api.received()));
    assert.deepEqual(hooked(log), []);

    // The same settings, headless: the hook runs before each of the same two calls.
    const run = spawnSync(bin, ["-p", "Plan pagination for the list endpoint.", "--approval-mode", "plan"], { cwd: repo, env, encoding: "utf8", timeout: 120000 });
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    assert.deepEqual(hooked(log), ["BeforeTool write_file", "BeforeTool exit_plan_mode"]);
  } finally {
    api.stop();
  }
});
