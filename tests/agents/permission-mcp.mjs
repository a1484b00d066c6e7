#!/usr/bin/env node
// A minimal MCP server (stdio, JSON-RPC, no deps) with one tool, `approve`, for Claude Code's
// `--permission-prompt-tool mcp__plandeck__approve` in print mode (`claude -p`). It answers every
// permission request with what PERMISSION_ANSWER (JSON) says, defaulting to allow, and logs each
// request to PERMISSION_LOG. Used to find out what headless Claude Code honours for ExitPlanMode.
//   PERMISSION_ANSWER='{"behavior":"deny","message":"…"}'
//   PERMISSION_ANSWER='{"behavior":"allow","updatedInput":{"plan":"…"}}'
//   PERMISSION_DELAY_MS=3000 (answer late)

import { appendFileSync } from "node:fs";
import { createInterface } from "node:readline";

const answer = process.env.PERMISSION_ANSWER ? JSON.parse(process.env.PERMISSION_ANSWER) : { behavior: "allow" };
const send = (msg) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...msg }) + "\n");

createInterface({ input: process.stdin }).on("line", (line) => {
  let req;
  try {
    req = JSON.parse(line);
  } catch {
    return;
  }
  if (req.method === "initialize") {
    send({ id: req.id, result: { protocolVersion: req.params?.protocolVersion ?? "2024-11-05", capabilities: { tools: {} }, serverInfo: { name: "plandeck", version: "0.0.0" } } });
  } else if (req.method === "tools/list") {
    send({
      id: req.id,
      result: {
        tools: [{
          name: "approve",
          description: "Asks Plandeck whether a tool may run",
          inputSchema: { type: "object", properties: { tool_name: { type: "string" }, input: { type: "object" }, tool_use_id: { type: "string" } }, required: ["tool_name", "input"] },
        }],
      },
    });
  } else if (req.method === "tools/call") {
    if (process.env.PERMISSION_LOG) appendFileSync(process.env.PERMISSION_LOG, JSON.stringify(req.params) + "\n");
    const input = req.params?.arguments?.input ?? {};
    const out = answer.behavior === "allow" ? { behavior: "allow", updatedInput: answer.updatedInput ?? input } : answer;
    const reply = () => send({ id: req.id, result: { content: [{ type: "text", text: JSON.stringify(out) }] } });
    setTimeout(reply, Number(process.env.PERMISSION_DELAY_MS ?? 0));
  } else if (req.id !== undefined) {
    send({ id: req.id, result: {} });
  }
});
