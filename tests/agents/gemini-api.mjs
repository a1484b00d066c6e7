#!/usr/bin/env node
// A loopback stand-in for the Gemini API (generativelanguage v1beta), scripted to play a model in
// plan mode, for end-to-end tests of the gate with the real Gemini CLI.
//
//   node tests/agents/gemini-api.mjs --dir DIR [--port N] [--plan-file FILE]
//   GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:N GEMINI_API_KEY=test gemini --approval-mode plan
//
// The script, for the main conversation (requests that declare tools):
// - a new prompt: `write_file` the plan to `<plans dir>/pagination.md`, the plans folder the CLI's
//   plan-mode instructions name (`~/.gemini/tmp/<slug>/<sessionId>/plans`);
// - the `write_file` response: `exit_plan_mode` with `plan_filename` (or `plan_path`, whichever
//   the declared tool takes);
// - the `exit_plan_mode` response: record it to `DIR/received.jsonl` and end the turn; with
//   `--implement FILE` and the plan approved, `write_file` FILE first (the implementation), then
//   end the turn once that call is answered;
// - every new prompt's text is recorded too (`{user: [...]}`: what the person sent, word for word).
// JSON-mode side requests (next speaker, routing, loop checks) get a JSON answer that says "the
// user speaks next". Every request is logged to `DIR/requests.jsonl`.

import { readFileSync } from "node:fs";
import { argsOf, DEFAULT_PLAN, json, record, serve } from "./common.mjs";

const args = argsOf();
const dir = args.dir ?? process.exit(2);
const planText = args["plan-file"] ? readFileSync(args["plan-file"], "utf8") : DEFAULT_PLAN;
const PLAN_NAME = "pagination.md";
const implement = args.implement ?? null;

function allText(v, out = []) {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) v.forEach((x) => allText(x, out));
  else if (v && typeof v === "object") Object.values(v).forEach((x) => allText(x, out));
  return out;
}

/** The plans folder the plan-mode instructions name. */
function plansDir(body) {
  const text = allText([body.systemInstruction, body.contents, body.tools]).join("\n");
  // 0.61 names it absolutely in the tool descriptions ("in the plans directory: /…/plans/") and
  // relatively (`../../.gemini/…/plans/`) in the system instruction: take an absolute one.
  const m = text.match(/plans directory: (\/[^\s"'`]*\/plans)\//) ?? text.match(/(?:^|[\s(`'"])(\/[^\s"'`]*\/plans)\//m);
  return m ? m[1] : null;
}

function declared(body) {
  return (body.tools ?? []).flatMap((t) => t.functionDeclarations ?? []);
}

/** The parts the scripted model answers with. */
function nextTurn(body) {
  const contents = body.contents ?? [];
  const lastModel = contents.findLastIndex((c) => c.role === "model");
  const after = contents.slice(lastModel + 1).flatMap((c) => c.parts ?? []);
  const responses = after.filter((p) => p.functionResponse).map((p) => p.functionResponse);
  const lastCall = (contents[lastModel]?.parts ?? []).find((p) => p.functionCall)?.functionCall;
  for (const r of responses) {
    if (r.name === "write_file" && implement && lastCall?.args?.file_path === implement) {
      record(dir, { agent: "gemini", tool: "write_file", file: implement, response: r.response });
      return [{ text: `DONE: wrote ${implement}` }];
    }
    if (r.name === "exit_plan_mode") {
      record(dir, { agent: "gemini", tool: "exit_plan_mode", id: r.id, response: r.response });
      if (implement && /approved/i.test(JSON.stringify(r.response))) {
        return [{ functionCall: { name: "write_file", args: { file_path: implement, content: "Pagination: keyset.\n" } } }];
      }
      const text = JSON.stringify(r.response).slice(0, 200);
      return [{ text: `DONE after: ${text}` }];
    }
    if (r.name === "write_file") {
      const decl = declared(body).find((d) => d.name === "exit_plan_mode");
      const props = Object.keys(decl?.parameters?.properties ?? decl?.parametersJsonSchema?.properties ?? {});
      const dirPath = plansDir(body);
      const args = props.includes("plan_filename") || !dirPath ? { plan_filename: PLAN_NAME } : { plan_path: `${dirPath}/${PLAN_NAME}` };
      return [{ functionCall: { name: "exit_plan_mode", args } }];
    }
  }
  if (responses.length > 0) return [{ text: "OK" }];
  record(dir, { agent: "gemini", user: after.map((p) => p.text).filter((t) => typeof t === "string") });
  const dirPath = plansDir(body);
  if (!dirPath) return [{ text: "Not in plan mode: no plans folder named." }];
  return [{ functionCall: { name: "write_file", args: { file_path: `${dirPath}/${PLAN_NAME}`, content: planText } } }];
}

function response(parts) {
  return {
    candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 10, totalTokenCount: 20 },
    modelVersion: "gemini-standin",
  };
}

/** Side requests asking for JSON: say the user speaks next, and nothing else is wrong. */
function jsonAnswer() {
  return [{ text: JSON.stringify({ reasoning: "stand-in", next_speaker: "user", model_choice: "flash", unproductive_state_analysis: "", unproductive_state_confidence: 0 }) }];
}

function answer(body) {
  const wantsJson = body?.generationConfig?.responseMimeType === "application/json" || body?.generationConfig?.responseSchema || body?.generationConfig?.responseJsonSchema;
  if (wantsJson) return response(jsonAnswer());
  if (declared(body ?? {}).length) return response(nextTurn(body));
  return response([{ text: "Plan pagination" }]);
}

serve({
  dir,
  port: args.port ?? 0,
  handle(req, body, res) {
    const path = req.url.split("?")[0];
    if (req.method === "POST" && path.endsWith(":streamGenerateContent")) {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.write(`data: ${JSON.stringify(answer(body))}\r\n\r\n`);
      return res.end();
    }
    if (req.method === "POST" && path.endsWith(":generateContent")) return json(res, 200, answer(body));
    if (req.method === "POST" && path.endsWith(":countTokens")) return json(res, 200, { totalTokens: 100 });
    if (req.method === "POST" && path.endsWith(":embedContent")) return json(res, 200, { embedding: { values: [0, 0, 0] } });
    if (req.method === "GET" && /\/models\/?$/.test(path)) return json(res, 200, { models: [] });
    return json(res, 200, {});
  },
});
