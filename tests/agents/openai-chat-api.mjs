#!/usr/bin/env node
// A loopback stand-in for an OpenAI-compatible Chat Completions API (`POST /v1/chat/completions`),
// scripted to play a model that calls tools, for end-to-end tests with agents that take any
// OpenAI-compatible provider (OpenCode).
//
//   node tests/agents/openai-chat-api.mjs --dir DIR [--port N] --script FILE
//
// `--script FILE` is a JSON array of steps, each `{"text": "…"}` or
// `{"call": {"name": "bash", "arguments": {…}}}`. A request that declares tools (the main
// conversation) gets the step numbered by how many tool calls its `messages` already hold (a
// refused call counts too; the last step repeats), and what the model was told is recorded to
// `DIR/received.jsonl`: the user's texts after the last assistant message, and the tools' results.
// Requests without tools (a title, a summary) get a short text. Every request body is logged to
// `DIR/requests.jsonl`; `GET /v1/models` lists one model.

import { readFileSync } from "node:fs";
import { argsOf, json, record, serve } from "./common.mjs";

const args = argsOf();
const dir = args.dir ?? process.exit(2);
const script = JSON.parse(readFileSync(args.script ?? process.exit(2), "utf8"));
let seq = 0;
const newId = (prefix) => `${prefix}_standin${Date.now().toString(36)}${(seq++).toString(36)}`;

/** The texts of a chat message's content (a string or parts). */
function texts(content) {
  if (typeof content === "string") return [content];
  return (Array.isArray(content) ? content : []).map((p) => p?.text).filter((t) => typeof t === "string");
}

function step(body) {
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  const calls = messages.flatMap((m) => (m.role === "assistant" ? (m.tool_calls ?? []) : [])).length;
  const lastAssistant = messages.findLastIndex((m) => m.role === "assistant");
  const after = messages.slice(lastAssistant + 1);
  const user = after.filter((m) => m.role === "user").flatMap((m) => texts(m.content));
  const outputs = after.filter((m) => m.role === "tool").map((m) => ({ callId: m.tool_call_id, output: texts(m.content).join("\n") }));
  const s = script[Math.min(calls, script.length - 1)];
  record(dir, { agent: "chat", step: calls, user, outputs, reply: s.text ?? s.call.name });
  return s;
}

const usage = { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 };

function answer(res, body, s) {
  const id = newId("chatcmpl");
  const model = body?.model ?? "standin";
  const created = Math.floor(Date.now() / 1000);
  const call = s.call && { id: newId("call"), type: "function", function: { name: s.call.name, arguments: JSON.stringify(s.call.arguments ?? {}) } };
  const finish = call ? "tool_calls" : "stop";
  if (!body?.stream) {
    const message = call ? { role: "assistant", content: null, tool_calls: [call] } : { role: "assistant", content: s.text };
    return json(res, 200, { id, object: "chat.completion", created, model, choices: [{ index: 0, message, finish_reason: finish }], usage });
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  const chunk = (delta, finish_reason = null, extra = {}) =>
    res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason }], ...extra })}\n\n`);
  chunk({ role: "assistant", content: "" });
  if (call) chunk({ tool_calls: [{ index: 0, ...call }] });
  else chunk({ content: s.text });
  chunk({}, finish);
  res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [], usage })}\n\n`);
  res.write("data: [DONE]\n\n");
  res.end();
}

serve({
  dir,
  port: args.port ?? 0,
  handle(req, body, res) {
    const path = req.url.split("?")[0];
    if (req.method === "POST" && path.endsWith("/chat/completions")) {
      return answer(res, body, body?.tools?.length ? step(body) : { text: "Plan pagination" });
    }
    if (req.method === "GET" && /\/models\/?$/.test(path)) return json(res, 200, { object: "list", data: [{ id: "standin", object: "model", owned_by: "standin" }] });
    return json(res, 200, {});
  },
});
