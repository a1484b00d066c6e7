#!/usr/bin/env node
// A loopback stand-in for the Anthropic Messages API, scripted to play a model in plan mode, for
// end-to-end tests of the gate with the real Claude Code CLI.
//
//   node tests/agents/claude-api.mjs --dir DIR [--port N] [--plan-file FILE]
//   ANTHROPIC_BASE_URL=http://127.0.0.1:N ANTHROPIC_API_KEY=sk-ant-test claude --permission-mode plan
//
// The script, for the main conversation (requests that carry tools):
// - a new prompt: `Write` the plan to the plan file the CLI's plan-mode reminder names;
// - the `Write` result: `ExitPlanMode` with the plan (after `ToolSearch` `select:ExitPlanMode` when
//   the CLI lists ExitPlanMode as a deferred tool, as 2.1.328 does);
// - the `ExitPlanMode` result: record what it says to `DIR/received.jsonl` and end the turn.
// Side requests (no tools: titles, summaries) get a short text. Every request is logged to
// `DIR/requests.jsonl`; unknown endpoints get an empty JSON object.
//
// `--scenario verify --workdir REPO` plays a model that, once its plan is approved, does part of
// it (for the verification end-to-end test): it `Write`s each file of `VERIFY_WORK` in turn (two
// planned files and one no step names) and ends its turn. A later turn that is no tool result (a
// Stop hook's reason, a report typed into its input) is recorded to `received.jsonl` as
// `{tool: "feedback", content}`; when it names `VERIFY_LAST.path`, the model writes that file
// (after `DIR/go` exists, so a test can look at the state before) and ends its turn again.
//
// `--scenario team` plays a lead and one teammate of a Claude Code agent team (run the CLI with
// CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1): the lead, given a prompt, spawns the teammate `planner`
// with `Agent` (its prompt carries TEAMMATE_MARK) and ends its turn once the Agent call returns;
// the teammate (a conversation whose first prompt holds TEAMMATE_MARK) plays the plan scenario
// above: writes its plan to the plan file its reminder names, calls ExitPlanMode, and its
// ExitPlanMode result is recorded as `{agent: "teammate", tool: "ExitPlanMode", …}`. Anything the
// lead is told after spawning (a teammate's message, a plan approval request) is recorded as
// `{agent: "lead", tool: "message", content}`.

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { argsOf, DEFAULT_PLAN, json, record, serve } from "./common.mjs";

const args = argsOf();
const dir = args.dir ?? process.exit(2);
const scenario = args.scenario ?? "plan";
const workdir = args.workdir ?? "";

/** The verify scenario's plan: three steps, each naming one file. */
const VERIFY_PLAN = "# Plan: greetings\n\n1. Create `greet.js` exporting greet\n2. Create `farewell.js` exporting farewell\n3. Document both in `USAGE.md`\n";
/** What the model does right after approval: steps 1 and 2, and a file no step names. */
const VERIFY_WORK = [
  { path: "greet.js", content: "export const greet = (name) => `hello ${name}`;\n" },
  { path: "farewell.js", content: "export const farewell = (name) => `bye ${name}`;\n" },
  { path: "notes.txt", content: "scratch notes\n" },
];
/** The step it leaves out until told. */
const VERIFY_LAST = { path: "USAGE.md", content: "# Usage\n\n`greet(name)` and `farewell(name)`.\n" };
const planText = args["plan-file"] ? readFileSync(args["plan-file"], "utf8") : scenario === "verify" ? VERIFY_PLAN : DEFAULT_PLAN;
const writeFile = (f) => [{ type: "tool_use", id: newId("toolu"), name: "Write", input: { file_path: join(workdir, f.path), content: f.content } }];
let seq = 0;
const newId = (prefix) => `${prefix}_standin${Date.now().toString(36)}${(seq++).toString(36)}`;

/** All text of a request (system prompt and messages), to find what the CLI told the model. */
function allText(body) {
  const parts = [];
  const walk = (v) => {
    if (typeof v === "string") parts.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") Object.values(v).forEach(walk);
  };
  walk(body.system);
  walk(body.messages);
  return parts.join("\n");
}

/** The plan file path the plan-mode reminder names (`…/.claude/plans/<slug>.md`). */
function planPath(body) {
  const m = allText(body).match(/(\/[^\s"'`]*\/plans\/[^\s"'`/]+\.md)/);
  return m ? m[1] : null;
}

const blocks = (msg) => (typeof msg?.content === "string" ? [{ type: "text", text: msg.content }] : msg?.content ?? []);

/** The tool name of each tool_use id in the conversation. */
function toolNames(body) {
  const names = new Map();
  for (const m of body.messages ?? []) {
    if (m.role !== "assistant") continue;
    for (const b of blocks(m)) if (b.type === "tool_use") names.set(b.id, b.name);
  }
  return names;
}

/** The input of each tool_use id in the conversation. */
function toolInputs(body) {
  const inputs = new Map();
  for (const m of body.messages ?? []) {
    if (m.role !== "assistant") continue;
    for (const b of blocks(m)) if (b.type === "tool_use") inputs.set(b.id, b.input ?? {});
  }
  return inputs;
}

/** Whether an ExitPlanMode call of the conversation was approved. */
function approvedBefore(body) {
  const names = toolNames(body);
  return (body.messages ?? []).some((m) =>
    blocks(m).some((b) => b.type === "tool_result" && names.get(b.tool_use_id) === "ExitPlanMode" && !b.is_error && /approved your plan/.test(resultText(b.content))),
  );
}

/** The verify scenario after approval: the next file to write, or the end of the turn. */
async function verifyTurn(body, results, inputs) {
  const msgs = body.messages ?? [];
  const lastAssistant = msgs.findLastIndex((m) => m.role === "assistant");
  if (results.length === 0) {
    const said = msgs
      .slice(lastAssistant + 1)
      .flatMap(blocks)
      .filter((b) => b.type === "text")
      .map((b) => b.text)
      .join("\n");
    record(dir, { agent: "claude", tool: "feedback", content: said });
    if (!said.includes(VERIFY_LAST.path)) return [{ type: "text", text: "Nothing left to do." }];
    const go = join(dir, "go");
    while (!existsSync(go)) await new Promise((r) => setTimeout(r, 100));
    return writeFile(VERIFY_LAST);
  }
  const written = results.map((r) => inputs.get(r.tool_use_id)?.file_path).filter(Boolean);
  if (written.some((p) => p.endsWith(`/${VERIFY_LAST.path}`))) return [{ type: "text", text: "All three steps are done." }];
  const done = VERIFY_WORK.findIndex((f) => written.some((p) => p.endsWith(`/${f.path}`)));
  if (done >= 0 && done + 1 < VERIFY_WORK.length) return writeFile(VERIFY_WORK[done + 1]);
  return [{ type: "text", text: "Implemented the plan." }];
}

function resultText(content) {
  if (typeof content === "string") return content;
  return (content ?? []).map((c) => (c.type === "text" ? c.text : JSON.stringify(c))).join("\n");
}

/** The teammate's mark: a conversation whose prompt holds it is the teammate's. */
const TEAMMATE_MARK = "PLANDECK-TEAMMATE-TASK";
const TEAMMATE_NAME = args.teammate ?? "planner";

/** Whether `body` is the teammate's conversation (its first user turn holds the mark). */
function isTeammate(body) {
  const first = (body.messages ?? []).find((m) => m.role === "user");
  return blocks(first).some((b) => b.type === "text" && b.text.includes(TEAMMATE_MARK));
}

/** The lead of the team scenario: spawn the teammate, then record whatever it is told. */
function leadTurn(body) {
  const msgs = body.messages ?? [];
  const names = toolNames(body);
  const lastAssistant = msgs.findLastIndex((m) => m.role === "assistant");
  const after = msgs.slice(lastAssistant + 1).flatMap(blocks);
  const results = after.filter((b) => b.type === "tool_result");
  const spawned = msgs.some((m) => m.role === "assistant" && blocks(m).some((b) => b.type === "tool_use" && b.name === "Agent"));
  if (!spawned) {
    return [
      {
        type: "tool_use",
        id: newId("toolu"),
        name: "Agent",
        input: { description: "Plan the pagination", name: TEAMMATE_NAME, prompt: `${TEAMMATE_MARK}: plan pagination for the api` },
      },
    ];
  }
  for (const r of results) {
    if (names.get(r.tool_use_id) === "Agent") {
      record(dir, { agent: "lead", tool: "Agent", isError: !!r.is_error, content: resultText(r.content) });
      return [{ type: "text", text: "Spawned the planner." }];
    }
  }
  const said = after
    .map((b) => (b.type === "text" ? b.text : b.type === "tool_result" ? resultText(b.content) : ""))
    .filter(Boolean)
    .join("\n");
  record(dir, { agent: "lead", tool: "message", content: said });
  return [{ type: "text", text: "Noted." }];
}

/** What the scripted model says next: an array of content blocks. */
async function nextTurn(body) {
  if (scenario === "team" && !isTeammate(body)) return leadTurn(body);
  const who = scenario === "team" ? "teammate" : "claude";
  // What came after the model's last turn: the user's prompt or tool results, and (2.1.328)
  // `system` messages carrying reminders such as "Exited Plan Mode".
  const msgs = body.messages ?? [];
  const lastAssistant = msgs.findLastIndex((m) => m.role === "assistant");
  const names = toolNames(body);
  const results = msgs.slice(lastAssistant + 1).flatMap(blocks).filter((b) => b.type === "tool_result");
  const tools = (body.tools ?? []).map((t) => t.name);
  if (scenario === "verify" && approvedBefore(body) && !results.some((r) => names.get(r.tool_use_id) === "ExitPlanMode")) {
    return verifyTurn(body, results, toolInputs(body));
  }
  const exitPlan = () => {
    if (!tools.includes("ExitPlanMode") && tools.includes("ToolSearch")) {
      return [{ type: "tool_use", id: newId("toolu"), name: "ToolSearch", input: { query: "select:ExitPlanMode", max_results: 1 } }];
    }
    return [{ type: "tool_use", id: newId("toolu"), name: "ExitPlanMode", input: { plan: planText } }];
  };
  for (const r of results) {
    const name = names.get(r.tool_use_id);
    if (name === "ExitPlanMode") {
      const text = resultText(r.content);
      record(dir, { agent: who, tool: "ExitPlanMode", toolUseId: r.tool_use_id, isError: !!r.is_error, content: text });
      // A teammate's first call finds no plan file; it writes the one the answer names.
      const named = who === "teammate" && r.is_error && text.match(/No plan file found at (\S+?\.md)|write your plan to (\S+?\.md)/i);
      if (named) return [{ type: "tool_use", id: newId("toolu"), name: "Write", input: { file_path: named[1] ?? named[2], content: planText } }];
      if (scenario === "verify" && !r.is_error && /approved your plan/.test(text)) return writeFile(VERIFY_WORK[0]);
      return [{ type: "text", text: `DONE after: ${JSON.stringify(text.slice(0, 200))}` }];
    }
    if (name === "ToolSearch") return [{ type: "tool_use", id: newId("toolu"), name: "ExitPlanMode", input: { plan: planText } }];
    if (name === "Write") return exitPlan();
  }
  if (results.length > 0) return [{ type: "text", text: "OK" }];
  if (who === "teammate" && lastAssistant >= 0) {
    // Told something after its plan (the lead's verdict: "[Plan Approved] …"): recorded, done.
    const said = msgs.slice(lastAssistant + 1).flatMap(blocks).filter((b) => b.type === "text").map((b) => b.text).join("\n");
    record(dir, { agent: "teammate", tool: "message", content: said });
    return [{ type: "text", text: "Noted." }];
  }
  const path = planPath(body);
  // A teammate is told no plan file (2.1.328): it calls ExitPlanMode with its plan at once.
  if (!path && who === "teammate") return exitPlan();
  if (!path) return [{ type: "text", text: "Not in plan mode: no plan file named." }];
  return [{ type: "tool_use", id: newId("toolu"), name: "Write", input: { file_path: path, content: planText } }];
}

function message(body, content) {
  return {
    id: newId("msg"),
    type: "message",
    role: "assistant",
    model: body?.model ?? "claude-standin",
    content,
    stop_reason: content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
}

function stream(res, msg) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  const send = (event, data) => res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
  send("message_start", { message: { ...msg, content: [], stop_reason: null, usage: { ...msg.usage, output_tokens: 1 } } });
  msg.content.forEach((b, index) => {
    if (b.type === "text") {
      send("content_block_start", { index, content_block: { type: "text", text: "" } });
      send("content_block_delta", { index, delta: { type: "text_delta", text: b.text } });
    } else {
      send("content_block_start", { index, content_block: { type: "tool_use", id: b.id, name: b.name, input: {} } });
      send("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: JSON.stringify(b.input) } });
    }
    send("content_block_stop", { index });
  });
  send("message_delta", { delta: { stop_reason: msg.stop_reason, stop_sequence: null }, usage: { output_tokens: 10 } });
  send("message_stop", {});
  res.end();
}

serve({
  dir,
  port: args.port ?? 0,
  handle(req, body, res) {
    const path = req.url.split("?")[0];
    if (req.method === "POST" && path === "/v1/messages/count_tokens") return json(res, 200, { input_tokens: 100 });
    if (req.method === "POST" && path === "/v1/messages") {
      const turn = body?.tools?.length ? nextTurn(body) : Promise.resolve([{ type: "text", text: "Plan pagination" }]);
      turn
        .then((content) => {
          const msg = message(body, content);
          return body?.stream ? stream(res, msg) : json(res, 200, msg);
        })
        .catch((e) => {
          if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
          res.end(JSON.stringify({ error: { message: String(e) } }));
        });
      return;
    }
    if (req.method === "GET" && path === "/v1/models") {
      return json(res, 200, { data: [{ type: "model", id: "claude-standin", display_name: "Stand-in" }], has_more: false });
    }
    return json(res, 200, {});
  },
});
