#!/usr/bin/env node
// Records tests/fixtures/codex-cli-<installed version>/ from the real Codex CLI (scripts/setup.sh --test
// installs it in ~/.cache/plandeck-agents): each scenario runs the TUI in tmux (private server,
// temp HOME and CODEX_HOME, a temp git repository `work/api` as cwd) against the loopback
// Responses stand-in (tests/agents/openai-api.mjs), in Plan mode entered with shift+tab.
//
//   node tests/agents/record-codex.mjs [--out DIR] [--only accepted,revised,…] [--keep]
//
// Scenarios (the README of the fixture folder says what each shows):
//   accepted      plan proposed, "1. Yes, implement this plan"
//   revised       plan proposed, "3. No, stay in Plan mode", feedback typed, a second plan, "1"
//   undecided     plan proposed, the session quit (Ctrl+C, Ctrl+C) with the popup open
//   fresh-thread  plan proposed, "2. Yes, clear context and implement" (a new thread)
//   left-plan-mode plan proposed, popup closed with Esc, shift+tab to Default, "Implement the plan." typed
//   daemon        as accepted, with the default shared background server (no --no-daemon)
//   exec          headless `codex exec --json`, the model answering with a <proposed_plan> block
//
// Output in DIR (default the fixture folder): `sessions/YYYY/MM/DD/rollout-*.jsonl`,
// `attachments/<id>/approved-plan.md`, `history.jsonl` (all scenarios' prompt history),
// `exec/exec-json.jsonl` (stdout of the headless run), `standin/<scenario>.received.jsonl` (what
// the scripted model was told) and `scenarios.json` (scenario → its files and session ids). The
// scratch home's path is rewritten to /home/dev; nothing else is changed. Earlier recordings'
// generated files are replaced; README.md is left alone.

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import {
  agentCli,
  answerCodexPlan,
  codexRollouts,
  codexSetup,
  CODEX_IMPLEMENT_PROMPT,
  installedVersion,
  makeAgentHome,
  quitCodex,
  rolloutRecords,
  startCodex,
  startStandIn,
  submitPrompt,
  Tmux,
} from "../e2e/agents.mjs";
import { ROOT, waitFor } from "../e2e/webdriver.mjs";
import { argsOf } from "./common.mjs";

const args = argsOf();
// A folder per version: recording with a newer CLI never overwrites what the tests hold to
// (tests/fixtures/codex-cli-0.169.0, recorded with 0.169.0).
const OUT = args.out ?? join(ROOT, `tests/fixtures/codex-cli-${installedVersion("@openai/codex")}`);
const codex = agentCli("codex");
const PROMPT = "Plan pagination for the list endpoint";
const FEEDBACK = "Use cursor pagination only, drop the page numbers";

const stepsDone = (api, n) => waitFor(() => api.received().length >= n, { timeout: 30000, what: `${n} model turns at the stand-in` });

/** Waits until the last main turn's reply is on screen. */
const turnOver = (tmux, text) => tmux.waitScreen(text, { timeout: 30000 });

/** The files under `dir`, relative to it (none when it does not exist). */
function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath ?? e.path, e.name)))
    .sort();
}

/** Waits until every rollout's last record is a finished turn (Codex flushes per record). */
async function rolloutsSettled(codexHome, count) {
  await waitFor(
    () => {
      const files = codexRollouts(codexHome);
      if (files.length < count) return false;
      return files.every((f) => {
        const recs = rolloutRecords(f);
        return recs.at(-1)?.payload?.type === "task_complete";
      });
    },
    { timeout: 30000, what: `${count} rollout file(s) ending with task_complete` },
  );
}

const scenarios = {
  async accepted({ tmux, api, repo, env, codexHome }) {
    await startCodex(tmux, codex, { repo, env });
    await submitPrompt(tmux, api, PROMPT);
    await tmux.waitScreen("Yes, implement this plan", { timeout: 30000 });
    await answerCodexPlan(tmux, "1");
    await stepsDone(api, 2);
    await turnOver(tmux, "DONE: implementing the plan");
    await rolloutsSettled(codexHome, 1);
    await quitCodex(tmux);
    return { keys: ["shift+tab", `"${PROMPT}" Enter`, "(popup) 1", "Ctrl+C"] };
  },

  async revised({ tmux, api, repo, env, codexHome }) {
    await startCodex(tmux, codex, { repo, env });
    await submitPrompt(tmux, api, PROMPT);
    await answerCodexPlan(tmux, "3");
    await submitPrompt(tmux, api, FEEDBACK);
    await stepsDone(api, 2);
    await tmux.waitScreen("(revised)", { timeout: 30000 });
    await answerCodexPlan(tmux, "1");
    await stepsDone(api, 3);
    await turnOver(tmux, "DONE: implementing the plan");
    await rolloutsSettled(codexHome, 1);
    await quitCodex(tmux);
    return { keys: ["shift+tab", `"${PROMPT}" Enter`, "(popup) 3", `"${FEEDBACK}" Enter`, "(popup) 1", "Ctrl+C"] };
  },

  async undecided({ tmux, api, repo, env, codexHome }) {
    await startCodex(tmux, codex, { repo, env });
    await submitPrompt(tmux, api, PROMPT);
    await tmux.waitScreen(CODEX_IMPLEMENT_PROMPT, { timeout: 30000 });
    await rolloutsSettled(codexHome, 1);
    await quitCodex(tmux);
    return { keys: ["shift+tab", `"${PROMPT}" Enter`, "(popup open) Ctrl+C", "Ctrl+C"] };
  },

  async "fresh-thread"({ tmux, api, repo, env, codexHome }) {
    await startCodex(tmux, codex, { repo, env });
    await submitPrompt(tmux, api, PROMPT);
    await answerCodexPlan(tmux, "2");
    await stepsDone(api, 2);
    await turnOver(tmux, "DONE: implementing the plan");
    await rolloutsSettled(codexHome, 2);
    await quitCodex(tmux);
    return { keys: ["shift+tab", `"${PROMPT}" Enter`, "(popup) 2", "Ctrl+C"] };
  },

  async "left-plan-mode"({ tmux, api, repo, env, codexHome }) {
    await startCodex(tmux, codex, { repo, env });
    await submitPrompt(tmux, api, PROMPT);
    await tmux.waitScreen(CODEX_IMPLEMENT_PROMPT, { timeout: 30000 });
    tmux.keys("Escape");
    await tmux.waitScreen((s) => !s.includes(CODEX_IMPLEMENT_PROMPT), { timeout: 10000, what: "the popup to close" });
    // Out of Plan mode by hand (no popup), then the person's own go-ahead.
    tmux.keys("BTab");
    await tmux.waitScreen((s) => !s.includes("Plan mode (shift+tab"), { timeout: 10000, what: "Default mode in the footer" });
    await submitPrompt(tmux, api, "Implement the plan.");
    await stepsDone(api, 2);
    await turnOver(tmux, "DONE: implementing the plan");
    await rolloutsSettled(codexHome, 1);
    await quitCodex(tmux);
    return { keys: ["shift+tab", `"${PROMPT}" Enter`, "(popup) Esc", "shift+tab", '"Implement the plan." Enter', "Ctrl+C"] };
  },

  async daemon({ tmux, api, repo, env, codexHome }) {
    try {
      await startCodex(tmux, codex, { repo, env, daemon: true });
      await submitPrompt(tmux, api, PROMPT);
      await answerCodexPlan(tmux, "1");
      await stepsDone(api, 2);
      await turnOver(tmux, "DONE: implementing the plan");
      await rolloutsSettled(codexHome, 1);
      await quitCodex(tmux);
    } finally {
      stopDaemon(codexHome, env);
    }
    return { keys: ["(without --no-daemon)", "shift+tab", `"${PROMPT}" Enter`, "(popup) 1", "Ctrl+C"] };
  },

  async exec({ api, repo, env, codexHome, base }) {
    const r = spawnSync(codex.bin, ["exec", "--json", PROMPT], { cwd: repo, env, encoding: "utf8", input: "", timeout: 60000 });
    if (r.status !== 0) throw new Error(`codex exec failed (${r.status}): ${r.stderr}`);
    mkdirSync(join(base, "exec"), { recursive: true });
    writeFileSync(join(base, "exec/exec-json.jsonl"), r.stdout);
    await rolloutsSettled(codexHome, 1);
    if (api.received().length !== 1) throw new Error("the headless run made no model turn");
    return { keys: [`codex exec --json "${PROMPT}" </dev/null`] };
  },
};

/** Stops the background app-server a TUI without --no-daemon started (`codex app-server daemon stop`), and its updater loop. */
function stopDaemon(codexHome, env) {
  spawnSync(codex.bin, ["app-server", "daemon", "stop"], { env, encoding: "utf8", timeout: 30000 });
  for (const f of ["daemon.pid", "daemon-updater.pid"]) {
    const p = join(codexHome, "app-server-daemon", f);
    if (!existsSync(p)) continue;
    try {
      const { pid } = JSON.parse(readFileSync(p, "utf8"));
      // Only a process this run started: its pid file is in this run's temp CODEX_HOME.
      if (Number.isInteger(pid) && pid > 1) process.kill(pid, "SIGTERM");
    } catch {
      // gone already, or no pid
    }
  }
}

/** Copies `from` to `to` with the scratch home's path rewritten to /home/dev. */
function copyRewritten(from, to, home) {
  mkdirSync(dirname(to), { recursive: true });
  writeFileSync(to, readFileSync(from, "utf8").split(home).join("/home/dev"));
}

async function record(name) {
  const { base, home, repo } = makeAgentHome("api");
  const replies = join(base, "replies.json");
  // The headless run has no Plan mode: script the model to answer with a block anyway.
  writeFileSync(replies, JSON.stringify(["Here is the plan.\n\n<proposed_plan>\n# Plan: add pagination\n\n1. Add `page` and `limit` params\n2. Return a cursor\n3. Write tests\n</proposed_plan>\n"]));
  const api = await startStandIn("openai", join(base, "api"), name === "exec" ? ["--replies", replies] : []);
  const tmux = new Tmux();
  const { codexHome, env } = codexSetup(home, repo, api.url);
  let ok = false;
  try {
    const { keys } = await scenarios[name]({ tmux, api, repo, env, codexHome, base, home });
    const files = [];
    const sessions = [];
    for (const f of codexRollouts(codexHome)) {
      const rel = relative(codexHome, f);
      copyRewritten(f, join(OUT, rel), home);
      files.push(rel);
      const meta = rolloutRecords(f)[0]?.payload ?? {};
      sessions.push({ file: rel, sessionId: meta.id, originator: meta.originator, source: meta.source });
    }
    // "Yes, clear context and implement" writes the plan to `attachments/<id>/approved-plan.md`.
    for (const f of filesUnder(join(codexHome, "attachments"))) {
      copyRewritten(join(codexHome, "attachments", f), join(OUT, "attachments", f), home);
      files.push(join("attachments", f));
    }
    if (existsSync(join(base, "exec/exec-json.jsonl"))) {
      copyRewritten(join(base, "exec/exec-json.jsonl"), join(OUT, "exec/exec-json.jsonl"), home);
      files.push("exec/exec-json.jsonl");
    }
    copyRewritten(join(base, "api/received.jsonl"), join(OUT, "standin", `${name}.received.jsonl`), home);
    files.push(`standin/${name}.received.jsonl`);
    const history = existsSync(join(codexHome, "history.jsonl")) ? readFileSync(join(codexHome, "history.jsonl"), "utf8").split(home).join("/home/dev") : "";
    ok = true;
    return { name, keys, sessions, files, history };
  } finally {
    tmux.kill();
    api.stop();
    if (ok && !args.keep) rmSync(base, { recursive: true, force: true });
    else process.stderr.write(`kept ${base}\n`);
  }
}

const names = args.only ? args.only.split(",") : Object.keys(scenarios);
for (const n of names) if (!scenarios[n]) throw new Error(`unknown scenario ${n}; known: ${Object.keys(scenarios).join(", ")}`);
// A full recording replaces the generated files of the previous one; --only replaces those of the
// scenarios it records (their files, and their sessions' lines of history.jsonl).
if (!args.only) for (const d of ["sessions", "attachments", "exec", "standin", "history.jsonl", "scenarios.json"]) rmSync(join(OUT, d), { recursive: true, force: true });
const index = existsSync(join(OUT, "scenarios.json")) ? JSON.parse(readFileSync(join(OUT, "scenarios.json"), "utf8")) : {};
const historyPath = join(OUT, "history.jsonl");
let history = existsSync(historyPath) ? readFileSync(historyPath, "utf8") : "";
for (const n of names) {
  const old = index[n];
  if (!old) continue;
  for (const f of old.files) rmSync(join(OUT, f), { force: true });
  const ids = new Set(old.sessions.map((x) => x.sessionId));
  history = history
    .split("\n")
    .filter((l) => l && !ids.has(JSON.parse(l).session_id))
    .map((l) => l + "\n")
    .join("");
}
for (const n of names) {
  process.stderr.write(`recording ${n}…\n`);
  const r = await record(n);
  index[n] = { keys: r.keys, sessions: r.sessions, files: r.files };
  history += r.history;
}
mkdirSync(OUT, { recursive: true });
writeFileSync(historyPath, history);
writeFileSync(join(OUT, "scenarios.json"), JSON.stringify(index, null, 2) + "\n");
process.stderr.write(`recorded ${names.join(", ")} into ${OUT}\n`);
