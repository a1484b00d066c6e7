// Shared parts of the loopback stand-ins for the agents' model APIs: a tiny HTTP server that logs
// every request (so what the real CLI sends can be read afterwards) and records what the scripted
// model was told in answer to its plan. No dependencies.

import { appendFileSync, existsSync, mkdirSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";

/** Parses `--name value` pairs of this process's arguments. */
export function argsOf(argv = process.argv.slice(2)) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    if (argv[i].startsWith("--")) out[argv[i].slice(2)] = argv[i + 1]?.startsWith("--") ? "1" : argv[++i];
  }
  return out;
}

/**
 * Serves `handle(req, body, res)` on 127.0.0.1 (port 0 = any free one). Every request is appended
 * to `<dir>/requests.jsonl`; prints `listening <port>` on stdout once ready, for the test to read.
 * While a file `<dir>/hold` exists, requests are held unanswered (the agent's turn stays in
 * progress); a held request the CLI gives up on (an interrupt) is logged to `<dir>/aborted.jsonl`
 * and never answered.
 */
export function serve({ dir, port = 0, handle }) {
  mkdirSync(dir, { recursive: true });
  const log = join(dir, "requests.jsonl");
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      let body = null;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        body = raw;
      }
      appendFileSync(log, JSON.stringify({ at: new Date().toISOString(), method: req.method, url: req.url, body }) + "\n");
      const answer = () => {
        try {
          handle(req, body, res);
        } catch (e) {
          appendFileSync(join(dir, "errors.log"), `${req.method} ${req.url}: ${e.stack}\n`);
          if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
          res.end(JSON.stringify({ error: { message: String(e) } }));
        }
      };
      if (!existsSync(join(dir, "hold"))) return answer();
      let gone = false;
      res.on("close", () => {
        if (!res.writableFinished && !gone) {
          gone = true;
          appendFileSync(join(dir, "aborted.jsonl"), JSON.stringify({ at: new Date().toISOString(), url: req.url }) + "\n");
        }
      });
      const wait = setInterval(() => {
        if (gone) return clearInterval(wait);
        if (existsSync(join(dir, "hold"))) return;
        clearInterval(wait);
        answer();
      }, 50);
    });
  });
  server.listen(Number(port), "127.0.0.1", () => {
    process.stdout.write(`listening ${server.address().port}\n`);
  });
  return server;
}

/** Appends one record of what the model received to `<dir>/received.jsonl`. */
export function record(dir, entry) {
  appendFileSync(join(dir, "received.jsonl"), JSON.stringify({ at: new Date().toISOString(), ...entry }) + "\n");
}

export function json(res, status, value) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
}

export const DEFAULT_PLAN = "# Plan: add pagination\n\n1. Add `page` and `limit` params\n2. Return a cursor\n3. Write tests\n";
