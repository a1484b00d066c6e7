#!/usr/bin/env node
// A loopback stand-in for the OpenAI Responses API, scripted to play a model in Codex CLI's Plan
// collaboration mode, for end-to-end tests and fixture recording with the real Codex CLI.
//
//   node tests/agents/openai-api.mjs --dir DIR [--port N] [--plan-file FILE]
//        [--revised-plan-file FILE] [--replies FILE]
//
// Codex reaches it through a custom provider in `$CODEX_HOME/config.toml`:
//   model_provider = "fake"
//   [model_providers.fake]
//   name = "fake"
//   base_url = "http://127.0.0.1:N/v1"
//   env_key = "OPENAI_API_KEY"
//   wire_api = "responses"
//
// The script, for each `POST /v1/responses` of the main conversation (requests that carry tools):
// - in Plan mode (the last `<collaboration_mode>` developer text in `input` is Plan), a first
//   prompt: a `<proposed_plan>` block holding the plan (`--plan-file`, else DEFAULT_PLAN);
// - in Plan mode after an earlier `<proposed_plan>`: the revised plan (`--revised-plan-file`, else
//   the plan with the person's feedback as a last step), recording the feedback to received.jsonl;
// - in Default mode (after the person chose to implement): a short text, recording the user
//   message that carried the decision ("Implement the plan.") to received.jsonl.
// `--replies FILE` (a JSON array of strings) replaces that script: main-conversation requests get
// those texts in order (the last one repeats). `--script FILE` (a JSON array of steps, each
// `{"text": "…"}` or `{"call": {"name": "exec_command", "arguments": {…}}}`) plays a model that calls
// tools: a main-conversation request gets the step numbered by how many function calls its `input`
// already holds (a rejected call counts: the next prompt gets the next step; the last step
// repeats), recording the user's new texts and the tools' outputs to received.jsonl. Requests without tools (the thread title, asked
// for as JSON) get a short text, or a JSON object when `text.format` is a JSON schema. Every request body is logged to `DIR/requests.jsonl`; unknown endpoints get an
// empty JSON object (`GET /v1/models` an empty list).

import { readFileSync } from "node:fs";
import { argsOf, DEFAULT_PLAN, json, record, serve } from "./common.mjs";

const args = argsOf();
const dir = args.dir ?? process.exit(2);
const planText = args["plan-file"] ? readFileSync(args["plan-file"], "utf8") : DEFAULT_PLAN;
const revisedText = args["revised-plan-file"] ? readFileSync(args["revised-plan-file"], "utf8") : null;
const replies = args.replies ? JSON.parse(readFileSync(args.replies, "utf8")) : null;
const script = args.script ? JSON.parse(readFileSync(args.script, "utf8")) : null;
let replyIndex = 0;
let seq = 0;
const newId = (prefix) => `${prefix}_standin${Date.now().toString(36)}${(seq++).toString(36)}`;

/** The texts of a Responses `input` item (message content parts, or a plain string). */
function itemTexts(item) {
  if (typeof item === "string") return [item];
  if (typeof item?.content === "string") return [item.content];
  return (item?.content ?? []).map((c) => c?.text).filter((t) => typeof t === "string");
}

const messages = (body) => (Array.isArray(body?.input) ? body.input : []).filter((i) => i?.type === "message" || i?.role);

/** "plan" or "default": the mode the last `<collaboration_mode>` developer text sets (0.169 sends
 * it in a developer message of `input`; none means Default, as in `codex exec`). */
function modeOf(body) {
  let mode = "default";
  const texts = messages(body)
    .filter((m) => m.role === "developer" || m.role === "system")
    .flatMap(itemTexts);
  for (const t of texts) {
    const i = t.lastIndexOf("<collaboration_mode>");
    if (i >= 0) mode = /^<collaboration_mode>\s*#\s*Plan Mode/.test(t.slice(i)) ? "plan" : "default";
  }
  return mode;
}

/** The user's texts after the model's last turn (what the person just said), without the
 * CLI's own context blocks (`<environment_context>`, `<user_instructions>`, AGENTS.md …). */
function lastUserTexts(body) {
  const msgs = messages(body);
  const lastAssistant = msgs.findLastIndex((m) => m.role === "assistant");
  return msgs
    .slice(lastAssistant + 1)
    .filter((m) => m.role === "user")
    .flatMap(itemTexts)
    .filter((t) => !/^\s*<(environment_context|user_instructions|permissions|collaboration_mode|turn_aborted|skill)/.test(t) && !/^# AGENTS\.md/.test(t));
}

/** The assistant texts so far in the conversation. */
const assistantTexts = (body) => messages(body).filter((m) => m.role === "assistant").flatMap(itemTexts);

const proposed = (plan) => `Here is the plan.\n\n<proposed_plan>\n${plan.trimEnd()}\n</proposed_plan>\n`;

/** The `--script` step for a main-conversation request, recording what the model was told: the
 * user's texts after the model's last item and the outputs of its calls. */
function scriptStep(body) {
  const input = Array.isArray(body?.input) ? body.input : [];
  const calls = input.filter((i) => i?.type === "function_call").length;
  const lastModel = input.findLastIndex((i) => i?.role === "assistant" || i?.type === "function_call");
  const outputs = input
    .slice(lastModel + 1)
    .filter((i) => i?.type === "function_call_output")
    .map((i) => ({ callId: i.call_id, output: typeof i.output === "string" ? i.output : JSON.stringify(i.output) }));
  const user = input
    .slice(lastModel + 1)
    .filter((i) => i?.role === "user")
    .flatMap(itemTexts)
    .filter((t) => !/^\s*<(environment_context|user_instructions|permissions|collaboration_mode|turn_aborted|skill)/.test(t) && !/^# AGENTS\.md/.test(t));
  const step = script[Math.min(calls, script.length - 1)];
  record(dir, { agent: "codex", step: calls, user, outputs, reply: step.text ?? step.call.name });
  return step;
}

/** What the scripted model says next (a text), recording what it was told. */
function nextText(body) {
  const user = lastUserTexts(body);
  const mode = modeOf(body);
  if (replies) {
    const text = replies[Math.min(replyIndex++, replies.length - 1)];
    record(dir, { agent: "codex", mode, user, reply: text.slice(0, 200) });
    return text;
  }
  const earlier = assistantTexts(body).filter((t) => t.includes("<proposed_plan>"));
  if (mode === "plan") {
    if (earlier.length === 0) {
      record(dir, { agent: "codex", mode, user, reply: "proposed_plan" });
      return proposed(planText);
    }
    const feedback = user.join("\n").trim();
    record(dir, { agent: "codex", mode, user, feedback, reply: "revised proposed_plan" });
    return proposed(revisedText ?? revise(planText, feedback));
  }
  record(dir, { agent: "codex", mode, user, reply: "implementing" });
  return `DONE: implementing the plan after: ${JSON.stringify(user.join(" ").slice(0, 200))}`;
}

/** The default revision: the title marked revised and the feedback as a last step. */
function revise(plan, feedback) {
  const lines = plan.trimEnd().split("\n");
  if (lines[0]?.startsWith("#")) lines[0] += " (revised)";
  const steps = lines.filter((l) => /^\d+\./.test(l)).length;
  lines.push(`${steps + 1}. Address the feedback: ${feedback.split("\n")[0]}`);
  return lines.join("\n") + "\n";
}

/** A side request asking for JSON (`text.format` json_schema, e.g. the thread title): an object
 * with each required string property filled in. */
function sideText(body) {
  const schema = body?.text?.format?.schema;
  if (body?.text?.format?.type !== "json_schema" || !schema) return "Plan pagination";
  const out = {};
  for (const k of schema.required ?? Object.keys(schema.properties ?? {})) {
    out[k] = schema.properties?.[k]?.type === "string" || !schema.properties?.[k] ? "Plan pagination" : null;
  }
  return JSON.stringify(out);
}

function usage() {
  return { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 10, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 20 };
}

/** Streams one assistant message as the Responses API does (server-sent events). */
function stream(res, body, text) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  const id = newId("resp");
  const itemId = newId("msg");
  const model = body?.model ?? "gpt-standin";
  const created = Math.floor(Date.now() / 1000);
  let n = 0;
  const send = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: n++, ...data })}\n\n`);
  const base = { id, object: "response", created_at: created, model, status: "in_progress", output: [] };
  const part = { type: "output_text", text, annotations: [] };
  const item = { id: itemId, type: "message", role: "assistant", status: "completed", content: [part] };
  send("response.created", { response: base });
  send("response.in_progress", { response: base });
  send("response.output_item.added", { output_index: 0, item: { ...item, status: "in_progress", content: [] } });
  send("response.content_part.added", { item_id: itemId, output_index: 0, content_index: 0, part: { ...part, text: "" } });
  // Deltas line by line, as a model streams them (the TUI renders `<proposed_plan>` as it streams).
  for (const piece of text.match(/[^\n]*\n|[^\n]+$/g) ?? [text]) {
    send("response.output_text.delta", { item_id: itemId, output_index: 0, content_index: 0, delta: piece });
  }
  send("response.output_text.done", { item_id: itemId, output_index: 0, content_index: 0, text });
  send("response.content_part.done", { item_id: itemId, output_index: 0, content_index: 0, part });
  send("response.output_item.done", { output_index: 0, item });
  send("response.completed", { response: { ...base, status: "completed", output: [item], usage: usage() } });
  res.end();
}

/** Streams one function call as the Responses API does. */
function streamCall(res, body, call) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  const id = newId("resp");
  const model = body?.model ?? "gpt-standin";
  let n = 0;
  const send = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: n++, ...data })}\n\n`);
  const base = { id, object: "response", created_at: Math.floor(Date.now() / 1000), model, status: "in_progress", output: [] };
  const args = JSON.stringify(call.arguments ?? {});
  const item = { id: newId("fc"), type: "function_call", status: "completed", call_id: newId("call"), name: call.name, arguments: args };
  send("response.created", { response: base });
  send("response.output_item.added", { output_index: 0, item: { ...item, status: "in_progress", arguments: "" } });
  send("response.function_call_arguments.delta", { item_id: item.id, output_index: 0, delta: args });
  send("response.function_call_arguments.done", { item_id: item.id, output_index: 0, arguments: args });
  send("response.output_item.done", { output_index: 0, item });
  send("response.completed", { response: { ...base, status: "completed", output: [item], usage: usage() } });
  res.end();
}

serve({
  dir,
  port: args.port ?? 0,
  handle(req, body, res) {
    const path = req.url.split("?")[0];
    if (req.method === "POST" && path === "/v1/responses") {
      if (script && body?.tools?.length) {
        const step = scriptStep(body);
        return step.call ? streamCall(res, body, step.call) : stream(res, body, step.text);
      }
      const text = body?.tools?.length ? nextText(body) : sideText(body);
      if (body?.stream === false) {
        const item = { id: newId("msg"), type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] };
        return json(res, 200, { id: newId("resp"), object: "response", status: "completed", model: body?.model, output: [item], usage: usage() });
      }
      return stream(res, body, text);
    }
    if (req.method === "GET" && /\/models\/?$/.test(path)) return json(res, 200, { object: "list", data: [], models: [] });
    return json(res, 200, {});
  },
});
