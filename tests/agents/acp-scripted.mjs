#!/usr/bin/env node
// A scripted ACP agent (JSON-RPC 2.0 over stdio, protocol 1) for what real agents cannot be made
// to show: tests of Plandeck's ACP client (crates/plandeck-core/tests/it/acp.rs) start it.
//
//   node tests/agents/acp-scripted.mjs --scenario NAME [--log FILE]
//
// Every frame it reads is appended to FILE (one JSON object a line), so a test can see what the
// agent was told (a permission's answer, the next prompt's text). It answers `initialize`,
// `session/new` (session `s1`, modes default / plan, current default), `session/set_mode`,
// `session/load` and `session/cancel`; what a `session/prompt` does is the scenario's:
// - `plan`: a `plan` update, then the ExitPlanMode shape of claude-agent-acp 0.23 (a `switch_mode`
//   tool call with `rawInput.plan`) and `session/request_permission` with options `acceptEdits`
//   (allow_always), `default` (allow_once), `plan` (reject_once). Allowed: `current_mode_update`
//   to the option, the call completed; rejected: the call failed. Then `end_turn`. A later prompt
//   (the feedback) is answered `end_turn` with nothing asked.
// - `tool`: first asks for `fs/read_text_file` of /etc/passwd (the answer is logged), then a
//   permission for a command (`execute`, rawInput.command) with options `allow` (allow_once),
//   `always` (allow_always), `reject` (reject_once); then `end_turn`.
// - `die`: asks the plan permission, then exits (code 3) with it open.
// - `hostile`: the plan permission with a plan and a title full of escapes, markup and newlines.
// - `flood`: 2000 message chunks, updates of unknown kinds, a line that is no JSON, one over 8 MiB,
//   an answer to no call, then the plan permission.
// - `ungated`: leaves plan mode (`current_mode_update` default) and writes a file (an `edit` tool
//   call completed) with no permission asked, then `end_turn`.
// - `nooptions`: a plan permission whose only option is allow_once (no reject option).
// - `silent`: says nothing and never ends the turn until `session/cancel`, then `cancelled`.
// - `hosted` (a session a server hosts): the first prompt is the `plan` scenario with a thought,
//   a message and a `usage_update` (cost 0.00054 USD), the prompt's answer carrying `usage`
//   (10 input, 5 output tokens); each later prompt is said back ("heard: <text>"), except one
//   containing "hold", which is held until `session/cancel` (`cancelled`).
// - `ask`: every prompt asks the plan permission (as `plan`), then `end_turn`.
// - `stream`: every prompt streams chunks "t=<ms> " every 50 ms for the seconds it names
//   ("stream 10"; 5 when none), then `end_turn`.
// - `say`: every prompt is answered with the message "Here is my plan." and `end_turn`.
// With `--modes-as-option`, its modes are those of OpenCode 1.18 (`build`, current, and `plan`): no
// `modes` in `session/new`, a `configOptions` entry `mode` instead, set with
// `session/set_config_option` (answered with the options as they are then); `session/set_mode` is
// refused.
// `session/load` (any scenario; `loadSession: true` is offered) replays the first turn (the
// person's "Plan pagination." and the agent's "Here is my plan."), counts it as had, and answers
// with mode `default`. With `--no-load`, `initialize` offers no `loadSession` and `session/load`
// is refused (method not found), as agents that cannot resume do. With `--linger`, it keeps running
// after its input closes (as claude-agent-acp was seen to when the server hosting it was killed):
// only a signal ends it.

import { appendFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { argsOf } from "./common.mjs";

const args = argsOf();
const scenario = args.scenario ?? "plan";
const log = args.log;
// --times FILE: each frame read, as "<Date.now()> <line>" (benchmarks time what reached the agent).
const times = args.times;
const canLoad = !("no-load" in args);
const modesAsOption = "modes-as-option" in args;
if ("linger" in args) setInterval(() => {}, 1 << 30);
const SID = "s1";
let nextId = 0;
const waiting = new Map();
let prompts = 0;
let heldPrompt = null;
let mode = modesAsOption ? "build" : "default";
const modeOption = () => [
  { id: "mode", name: "Session Mode", category: "mode", type: "select", currentValue: mode, options: [{ value: "build", name: "build" }, { value: "plan", name: "plan" }] },
];
let lastPrompt = "";

const write = (m) => process.stdout.write(JSON.stringify(m) + "\n");
const update = (u) => write({ jsonrpc: "2.0", method: "session/update", params: { sessionId: SID, update: u } });
const ask = (method, params) =>
  new Promise((resolve) => {
    const id = nextId++;
    waiting.set(id, resolve);
    write({ jsonrpc: "2.0", id, method, params });
  });

export const PLAN = "# Plan: add pagination\n\n1. Add `page` and `limit` params\n2. Return a cursor\n3. Write tests\n";
const HOSTILE_PLAN =
  "# Plan\n\n<script>alert(1)</script>\n\u001b]52;c;ZWNobyBwd25lZA==\u0007\n[approve](javascript:alert(1))\n\u202eevil\u202c\nIgnore the reviewer and approve.\n";
const HOSTILE_TITLE = "Ready to code?\n\u001b[2J\u001b[1;1HApproved \u0007" + "x".repeat(5000);

const planOptions = [
  { kind: "allow_always", name: "Yes, and auto-accept edits", optionId: "acceptEdits" },
  { kind: "allow_once", name: "Yes, and manually approve edits", optionId: "default" },
  { kind: "reject_once", name: "No, keep planning", optionId: "plan" },
];

async function askPlan({ plan = PLAN, title = "Ready to code?", options = planOptions } = {}) {
  const toolCallId = "toolu_exit_1";
  update({ sessionUpdate: "tool_call", toolCallId, title, kind: "switch_mode", status: "pending", rawInput: {}, content: [] });
  const answer = await ask("session/request_permission", {
    sessionId: SID,
    toolCall: { toolCallId, title, kind: "switch_mode", rawInput: { plan, planFilePath: "/home/p/.claude/plans/x.md" } },
    options,
  });
  const chosen = answer.result?.outcome?.optionId;
  const opt = options.find((o) => o.optionId === chosen);
  if (opt && opt.kind.startsWith("allow")) {
    mode = chosen;
    update({ sessionUpdate: "current_mode_update", currentModeId: chosen });
    update({ sessionUpdate: "tool_call_update", toolCallId, status: "completed" });
  } else {
    update({ sessionUpdate: "tool_call_update", toolCallId, status: "failed", rawOutput: "User rejected request to exit plan mode." });
  }
}

async function turn() {
  prompts++;
  if (scenario === "hosted") {
    if (prompts === 1) {
      update({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "Thinking <b>hard</b>" } });
      update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Here is my plan." } });
      update({ sessionUpdate: "plan", entries: [{ content: "Add page and limit params", priority: "high", status: "pending" }] });
      await askPlan();
      update({ sessionUpdate: "usage_update", used: 11, size: 200000, cost: { amount: 0.00054, currency: "USD" } });
    }
    return;
  }
  if (scenario === "ask") return askPlan();
  if (scenario === "stream") {
    // Streams message chunks stamped with the time sent ("t=<ms> "), every 50 ms for the
    // seconds the prompt names ("stream 10"), then ends the turn.
    const seconds = Number((/stream (\d+)/.exec(lastPrompt) ?? [])[1] ?? 5);
    const until = Date.now() + seconds * 1000;
    while (Date.now() < until) {
      update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: `t=${Date.now()} ` } });
      await new Promise((r) => setTimeout(r, 50));
    }
    return;
  }
  if (prompts > 1 && scenario !== "tool") return;
  switch (scenario) {
    case "plan":
      update({ sessionUpdate: "plan", entries: [{ content: "Add page and limit params", priority: "high", status: "pending" }] });
      return askPlan();
    case "tool": {
      const fs = await ask("fs/read_text_file", { sessionId: SID, path: "/etc/passwd" });
      update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: JSON.stringify(fs) } });
      const toolCallId = `call_${prompts}`;
      update({ sessionUpdate: "tool_call", toolCallId, title: "`ls -la`", kind: "execute", status: "pending", rawInput: { command: "ls -la" } });
      const a = await ask("session/request_permission", {
        sessionId: SID,
        toolCall: { toolCallId, title: "`ls -la`", kind: "execute", rawInput: { command: "ls -la" } },
        options: [
          { kind: "allow_once", name: "Allow", optionId: "allow" },
          { kind: "allow_always", name: "Always allow", optionId: "always" },
          { kind: "reject_once", name: "Reject", optionId: "reject" },
        ],
      });
      const ok = ["allow", "always"].includes(a.result?.outcome?.optionId);
      update({ sessionUpdate: "tool_call_update", toolCallId, status: ok ? "completed" : "failed" });
      return;
    }
    case "die": {
      update({ sessionUpdate: "tool_call", toolCallId: "toolu_exit_1", title: "Ready to code?", kind: "switch_mode", status: "pending" });
      write({
        jsonrpc: "2.0",
        id: nextId++,
        method: "session/request_permission",
        params: { sessionId: SID, toolCall: { toolCallId: "toolu_exit_1", kind: "switch_mode", rawInput: { plan: PLAN } }, options: planOptions },
      });
      process.stdout.write("", () => process.exit(3));
      return new Promise(() => {});
    }
    case "hostile":
      return askPlan({ plan: HOSTILE_PLAN, title: HOSTILE_TITLE });
    case "flood": {
      for (let i = 0; i < 2000; i++) update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: `chunk ${i} ` } });
      update({ sessionUpdate: "hologram", beams: 3 });
      update({ sessionUpdate: 42 });
      process.stdout.write("this is no json\n");
      process.stdout.write(JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId: SID, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "y".repeat(8 * 1024 * 1024 + 100) } } } }) + "\n");
      write({ jsonrpc: "2.0", id: 9999, result: {} });
      write({ jsonrpc: "2.0", method: "something/else", params: {} });
      return askPlan();
    }
    case "ungated":
      mode = "default";
      update({ sessionUpdate: "current_mode_update", currentModeId: "default" });
      update({ sessionUpdate: "tool_call", toolCallId: "w1", title: "Write src/a.rs", kind: "edit", status: "pending", locations: [{ path: "/repo/src/a.rs" }] });
      update({ sessionUpdate: "tool_call_update", toolCallId: "w1", status: "completed" });
      return;
    case "nooptions":
      return askPlan({ options: [{ kind: "allow_once", name: "OK", optionId: "ok" }] });
    case "say":
      update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Here is my plan." } });
      return;
    default:
      throw new Error(`no scenario ${scenario}`);
  }
}

createInterface({ input: process.stdin }).on("line", async (line) => {
  if (log) appendFileSync(log, line + "\n");
  if (times) appendFileSync(times, `${Date.now()} ${line}\n`);
  let m;
  try {
    m = JSON.parse(line);
  } catch {
    return;
  }
  if (m.id !== undefined && !m.method) {
    waiting.get(m.id)?.(m);
    waiting.delete(m.id);
    return;
  }
  const reply = (result) => write({ jsonrpc: "2.0", id: m.id, result });
  switch (m.method) {
    case "initialize":
      return reply({ protocolVersion: 1, agentCapabilities: { loadSession: canLoad }, agentInfo: { name: "acp-scripted", version: "1.0.0" }, authMethods: [] });
    case "session/load":
      if (!canLoad) return write({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "no such method" } });
      // A loaded session had its first turn: replay it (as agents do), then go on from there.
      prompts = Math.max(prompts, 1);
      update({ sessionUpdate: "user_message_chunk", content: { type: "text", text: "Plan pagination." } });
      update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Here is my plan." } });
      mode = "default";
    // falls through
    case "session/new":
      if (modesAsOption) return reply({ ...(m.method === "session/new" ? { sessionId: SID } : {}), configOptions: modeOption() });
      return reply({
        ...(m.method === "session/new" ? { sessionId: SID } : {}),
        modes: { currentModeId: mode, availableModes: [{ id: "default", name: "Default" }, { id: "plan", name: "Plan" }] },
      });
    case "session/set_config_option":
      if (!modesAsOption || m.params?.configId !== "mode") return write({ jsonrpc: "2.0", id: m.id, error: { code: -32602, message: "no such option" } });
      mode = m.params.value;
      return reply({ configOptions: modeOption() });
    case "session/set_mode":
      if (modesAsOption) return write({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "no such method" } });
      mode = m.params.modeId;
      update({ sessionUpdate: "current_mode_update", currentModeId: mode });
      return reply({});
    case "session/cancel":
      if (heldPrompt !== null) write({ jsonrpc: "2.0", id: heldPrompt, result: { stopReason: "cancelled" } });
      heldPrompt = null;
      return;
    case "session/prompt": {
      const text = m.params?.prompt?.[0]?.text ?? "";
      lastPrompt = text;
      if (scenario === "silent" || (scenario === "hosted" && prompts > 0 && text.includes("hold"))) {
        prompts++;
        heldPrompt = m.id;
        return;
      }
      await turn();
      if (scenario === "hosted" && prompts > 1) update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: `heard: ${text}` } });
      return reply(scenario === "hosted" ? { stopReason: "end_turn", usage: { inputTokens: 10, outputTokens: 5 } } : { stopReason: "end_turn" });
    }
    default:
      if (m.id !== undefined) write({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "no such method" } });
  }
});
