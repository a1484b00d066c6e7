// Helpers for the gate's end-to-end tests with the real agent CLIs: where the CLIs are installed,
// the loopback model-API stand-ins (tests/agents/), a private tmux server per test, and the
// Plandeck app running on the test's HOME.

import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import assert from "node:assert/strict";
import { cli, envFor, plandeckBin, ROOT, scratch, waitFor, withApp } from "./webdriver.mjs";

/** Where scripts/setup.sh --test installs the agent CLIs (npm --prefix). */
export const AGENTS_DIR = process.env.PLANDECK_AGENTS_DIR || join(homedir(), ".cache/plandeck-agents");

/** The installed CLI's executable. A missing CLI fails the tests that need it: they never skip. */
export function agentCli(name) {
  const bin = join(AGENTS_DIR, "node_modules/.bin", name);
  if (existsSync(bin)) return { bin };
  throw new Error(`${name} is not installed in ${AGENTS_DIR} (scripts/setup.sh --test installs it from the npm registry)`);
}

/** The version of npm package `name` installed in AGENTS_DIR (what a test that checks what the CLI
 * wrote holds it to: the pinned lane has the pinned version, the newest-versions lane the newest). */
export function installedVersion(name) {
  return JSON.parse(readFileSync(join(AGENTS_DIR, "node_modules", name, "package.json"), "utf8")).version;
}

/** A fresh temp HOME with a git repository at `home/work/<project>`. */
export function makeAgentHome(project) {
  const base = scratch("plandeck-gate-e2e-");
  const home = join(base, "home");
  const repo = join(home, "work", project);
  mkdirSync(repo, { recursive: true });
  const git = (...args) => {
    const r = spawnSync("git", args, {
      cwd: repo,
      encoding: "utf8",
      env: { ...envFor(home), GIT_AUTHOR_NAME: "Dev", GIT_AUTHOR_EMAIL: "dev@example.com", GIT_COMMITTER_NAME: "Dev", GIT_COMMITTER_EMAIL: "dev@example.com", GIT_AUTHOR_DATE: "2026-01-01T00:00:00Z", GIT_COMMITTER_DATE: "2026-01-01T00:00:00Z" },
    });
    if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  };
  git("init", "-q", "-b", "main");
  writeFileSync(join(repo, "README.md"), `# ${project}\n`);
  git("add", ".");
  git("commit", "-q", "-m", "init");
  return { base, home, repo };
}

/** Starts a stand-in (`claude` or `gemini`) logging into `dir`; resolves once it listens. */
export async function startStandIn(kind, dir, extraArgs = []) {
  const proc = spawn(process.execPath, [join(ROOT, `tests/agents/${kind}-api.mjs`), "--dir", dir, ...extraArgs], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  proc.stdout.on("data", (d) => (out += d));
  proc.stderr.on("data", (d) => (out += d));
  const port = await waitFor(() => out.match(/listening (\d+)/)?.[1], { timeout: 10000, what: `${kind} stand-in to listen (${out})` });
  return {
    port: Number(port),
    url: `http://127.0.0.1:${port}`,
    dir,
    /** Parsed lines of `received.jsonl`: what the model got back for its plan. */
    received() {
      return readLines(join(dir, "received.jsonl"));
    },
    /** Parsed lines of `requests.jsonl`: every request the CLI sent. */
    requests() {
      return readLines(join(dir, "requests.jsonl"));
    },
    stop() {
      proc.kill("SIGTERM");
    },
  };
}

function readLines(path) {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

let tmuxCount = 0;

/** A private tmux server (its own socket) running one command in a 200x50 pane. */
/**
 * `env` without the variables that make an agent CLI believe it runs in CI (CI, CONTINUOUS_INTEGRATION,
 * CI_*): Gemini CLI then refuses to be interactive ("No input provided via stdin"), and CI runs
 * these tests with CI=true.
 */
export function withoutCi(env) {
  const clean = { ...env };
  for (const k of Object.keys(clean)) {
    if (k === "CI" || k === "CONTINUOUS_INTEGRATION" || k.startsWith("CI_")) delete clean[k];
  }
  return clean;
}

export class Tmux {
  constructor() {
    this.socket = `plandeck-e2e-${process.pid}-${tmuxCount++}`;
  }

  run(args, opts = {}) {
    const r = spawnSync("tmux", ["-L", this.socket, ...args], { encoding: "utf8", timeout: 10000, ...opts });
    if (r.status !== 0) throw new Error(`tmux ${args.join(" ")}: ${r.stderr || r.error}`);
    return r.stdout;
  }

  /** Starts `argv` in `cwd` with exactly `env` (the server starts with it, so the pane has it). */
  start(argv, { cwd, env }) {
    const clean = withoutCi(env);
    delete clean.TMUX;
    delete clean.TMUX_PANE;
    this.run(["new-session", "-d", "-x", "200", "-y", "50", "-s", "agent", "-c", cwd, ...argv], { env: clean });
    // Keep the pane (and what it last showed) if the CLI exits, for the failure message.
    this.run(["set-option", "-g", "remain-on-exit", "on"]);
  }

  capture() {
    return this.run(["capture-pane", "-p", "-t", "agent"]);
  }

  keys(...keys) {
    this.run(["send-keys", "-t", "agent", ...keys]);
  }

  text(text) {
    this.run(["send-keys", "-t", "agent", "-l", text]);
  }

  /** Waits for the screen to satisfy `pred` (a string to contain, or a function). */
  waitScreen(pred, { timeout = 30000, what } = {}) {
    const test = typeof pred === "string" ? (s) => s.includes(pred) : pred;
    return waitFor(() => test(this.capture()), {
      timeout,
      what: `${what ?? pred} on the agent's screen`,
    }).catch((e) => {
      throw new Error(`${e.message}\n--- screen ---\n${this.safeCapture()}`);
    });
  }

  safeCapture() {
    try {
      return this.capture();
    } catch (e) {
      return String(e);
    }
  }

  kill() {
    // The agent CLIs outlive their pane (Gemini CLI relaunches itself in a child that ignores the
    // hang-up), so end each pane's whole process group before the server.
    const panes = spawnSync("tmux", ["-L", this.socket, "list-panes", "-a", "-F", "#{pane_pid}"], { encoding: "utf8", timeout: 10000 });
    for (const pid of (panes.stdout ?? "").split("\n").map(Number).filter((n) => n > 1)) {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        /* already gone */
      }
    }
    spawnSync("tmux", ["-L", this.socket, "kill-server"], { timeout: 10000 });
    // tmux 3.3 leaves the socket file behind.
    rmSync(join(process.env.TMUX_TMPDIR || "/tmp", `tmux-${process.getuid()}`, this.socket), { force: true });
  }
}

/**
 * Types `prompt` into the agent's input and submits it, confirmed by the stand-in receiving a
 * request that holds it. An Enter right after typed text can be taken as a newline (Gemini CLI
 * reads an Enter within 30 ms of other keys so), so Enter is sent once the text is on screen,
 * and again if the request does not come.
 */
export async function submitPrompt(tmux, standIn, prompt) {
  tmux.text(prompt);
  await tmux.waitScreen(prompt, { timeout: 15000 });
  const sent = () => standIn.requests().some((r) => JSON.stringify(r.body ?? "").includes(prompt));
  for (let attempt = 0; attempt < 3; attempt++) {
    tmux.keys("Enter");
    try {
      await waitFor(sent, { timeout: 5000, what: "the prompt to reach the model" });
      return;
    } catch {
      // not submitted (taken as a newline or not yet ready): Enter again
    }
  }
  throw new Error(`the prompt never reached the model\n--- screen ---\n${tmux.safeCapture()}`);
}

// Claude Code asks once whether to use a custom API key; `customApiKeyResponses` in ~/.claude.json
// (the key's last 20 characters) answers it beforehand.
export const CLAUDE_KEY = "sk-ant-api03-plandeck-e2e-standin-0000000000000000000000";

/** Claude Code on `home` past its first-run dialogs: onboarding done, the stand-in's key
 * accepted, the project `repo` trusted (`~/.claude.json`). */
export function claudeReady(home, repo) {
  writeFileSync(
    join(home, ".claude.json"),
    JSON.stringify({
      hasCompletedOnboarding: true,
      lastOnboardingVersion: "2.1.328",
      theme: "dark",
      customApiKeyResponses: { approved: [CLAUDE_KEY.slice(-20)], rejected: [] },
      projects: { [repo]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true, allowedTools: [] } },
    }),
  );
}

/** The environment of a Claude Code run on `home`, its model API at the stand-in `api`. */
export function claudeEnv(home, api, extra = {}) {
  const env = envFor(home);
  for (const k of Object.keys(env)) if (/^(ANTHROPIC_|CLAUDE_)/.test(k)) delete env[k];
  return {
    ...env,
    ANTHROPIC_BASE_URL: api.url,
    ANTHROPIC_API_KEY: CLAUDE_KEY,
    DISABLE_AUTOUPDATER: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    ...extra,
  };
}

/** Gemini CLI on `home` with no dialog before the prompt: API-key auth chosen beforehand, folder
 * trust off and `repo` trusted, no update check or usage statistics. */
export function geminiReady(home, repo) {
  mkdirSync(join(home, ".gemini"), { recursive: true });
  writeFileSync(
    join(home, ".gemini/settings.json"),
    JSON.stringify({
      security: { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: false } },
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
      privacy: { usageStatisticsEnabled: false },
    }),
  );
  writeFileSync(join(home, ".gemini/trustedFolders.json"), JSON.stringify({ [repo]: "TRUST_FOLDER" }));
}

/** The environment of a Gemini CLI run on `home`, its model API at the stand-in `api`. */
export function geminiEnv(home, api) {
  const env = envFor(home);
  for (const k of Object.keys(env)) if (/^(GEMINI_|GOOGLE_)/.test(k)) delete env[k];
  return Object.assign(env, { GOOGLE_GEMINI_BASE_URL: api.url, GEMINI_API_KEY: "plandeck-e2e-standin-key" });
}

/** What the model got back for its `tool` call (the stand-in `api`'s record); the screen of
 * `tmux` in the error when it never did. */
export function modelGot(api, tmux, tool, { timeout = 20000, what = `the ${tool} result to reach the model` } = {}) {
  return waitFor(() => api.received().find((r) => r.tool === tool), { timeout, what }).catch((e) => {
    throw new Error(`${e.message}\n--- screen ---\n${tmux?.safeCapture() ?? ""}`);
  });
}

/** Answers the agent's approval card in the terminal with `key`, sent until the card (showing
 * `card`) closes: a key sent the instant the card is drawn can be lost. */
export function answerCardInTerminal(tmux, card, key) {
  return waitFor(
    async () => {
      if (!tmux.capture().includes(card)) return true;
      tmux.keys(key);
      return waitFor(() => !tmux.capture().includes(card), { timeout: 3000 }).catch(() => false);
    },
    { timeout: 15000, what: "the card to take the terminal's answer" },
  );
}

/** Rejects `req` with `feedback` from the window's queue (its card's Reject, the feedback typed,
 * Send; a screenshot named `screenshot` before sending), or with the CLI when there is no window
 * (`s` null). */
export async function rejectInQueue(s, home, req, feedback, { screenshot } = {}) {
  if (s) {
    const card = `[data-testid=gate-request][data-id="${req.id}"]`;
    await s.click(`${card} [data-testid=gate-reject]`);
    await s.type(`${card} [data-testid=gate-feedback]`, feedback);
    if (screenshot) await s.screenshot(screenshot);
    await s.click(`${card} [data-testid=gate-send-reject]`);
  } else {
    const r = cli(home, ["reject", req.id, "--feedback", feedback]);
    assert.equal(r.status, 0, `plandeck reject: ${r.stdout}${r.stderr}`);
  }
}

/** Approves `req` from the CLI with the plan edited to `edited` (written to a file in `base`);
 * `keys` (a `tmuxLog`) records every tmux command the CLI runs. Returns the CLI's `--json`. */
export function approveEdited(home, base, req, edited, { keys } = {}) {
  const file = join(base, "edited.md");
  writeFileSync(file, edited);
  const args = ["approve", req.id, "--edit", file, "--json"];
  const r = keys ? keys.cli(home, args) : cli(home, args);
  assert.equal(r.status, 0, `plandeck approve: ${r.stdout}${r.stderr}`);
  return JSON.parse(r.stdout);
}

/**
 * A `tmux` first in PATH that writes each of its invocations (one line of arguments) to
 * `<base>/tmux-calls.log`, then runs the real tmux: whatever a process started with `env(…)`
 * (or `cli(…)`) types into a pane (`send-keys`, `paste-buffer`) is in `typed()`.
 */
export function tmuxLog(base) {
  const real = spawnSync("sh", ["-c", "command -v tmux"], { encoding: "utf8" }).stdout.trim();
  if (!real) throw new Error("tmux is not installed");
  const dir = join(base, "tmux-logging");
  const log = join(base, "tmux-calls.log");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "tmux"), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${real}' "$@"\n`, { mode: 0o755 });
  const env = (e) => ({ ...e, PATH: `${dir}:${e.PATH ?? process.env.PATH}` });
  return {
    env,
    cli(home, args) {
      return spawnSync(plandeckBin(), args, { encoding: "utf8", env: env(envFor(home)), timeout: 60000 });
    },
    /** Every logged tmux call that types into a pane. */
    typed() {
      if (!existsSync(log)) return [];
      return readFileSync(log, "utf8")
        .split("\n")
        .filter((l) => /(^|\s)(send-keys|send|paste-buffer|pasteb)(\s|$)/.test(l));
    },
  };
}

/** Who decided the agent's ExitPlanMode call `toolUseId`, as Claude Code's transcript says
 * (`permissionDecision.source` beside the tool result: "hook", "user_temporary"). */
export function claudeDecidedBy(transcriptPath, toolUseId) {
  for (const line of readFileSync(transcriptPath, "utf8").split("\n")) {
    if (!line.includes(toolUseId)) continue;
    let rec;
    try {
      rec = JSON.parse(line);
    } catch {
      continue;
    }
    const content = rec.message?.content;
    if (Array.isArray(content) && content.some((b) => b.type === "tool_result" && b.tool_use_id === toolUseId)) {
      return rec.permissionDecision?.source ?? null;
    }
  }
  return undefined;
}

/** Waits for `req` to close with `status`; the log's latest line is its decision, delivered.
 * Returns the log. */
export async function closedAndDelivered(home, req, status) {
  const done = await waitFor(() => closedRequest(home, req.id), { what: "the request to close" });
  assert.equal(done.status, status);
  const log = JSON.parse(cli(home, ["log", "--json"]).stdout);
  assert.equal(log[0].requestId, req.id);
  assert.equal(log[0].delivery, "delivered");
  return log;
}

/** The requests `plandeck pending --json` lists for `home`. */
export function pending(home) {
  const r = cli(home, ["pending", "--json"]);
  if (r.status !== 0) throw new Error(`plandeck pending failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/**
 * A closed request as stored (`<data>/gate/done/<id>.json`), or null while it is open. Closing
 * moves the open file there first and then writes the final status, so a file still saying
 * `waiting` is not closed yet.
 */
export function closedRequest(home, id) {
  const path = join(home, ".local/share/plandeck/gate/done", `${id}.json`);
  if (!existsSync(path)) return null;
  const req = JSON.parse(readFileSync(path, "utf8"));
  return req.status === "waiting" || req.status === "approving" ? null : req;
}

/** Waits for the one request the agent filed and returns it. */
export function waitForRequest(home, tmux, { timeout = 30000 } = {}) {
  return waitFor(() => pending(home)[0], { timeout, what: "the plan to show up in plandeck pending" }).catch((e) => {
    throw new Error(`${e.message}\n--- screen ---\n${tmux.safeCapture()}`);
  });
}

/**
 * Three deciders at once on the waiting request `req`: the window's Approve (auto), clicked at
 * the same instant (no window: a third process), and two `plandeck` processes (approve, reject
 * "split step 2"). Returns the processes' results ({ status, out, err }).
 */
export async function decideThreeAtOnce({ s, home, req }) {
  const inQueue = `[data-testid=gate-request][data-id="${req.id}"] [data-testid=gate-approve-auto]`;
  if (s) await s.waitFor(inQueue, { timeout: 20000 });
  const run = (args) =>
    new Promise((res) => {
      const p = spawn(plandeckBin(), args, { env: envFor(home) });
      let out = "";
      let err = "";
      p.stdout.on("data", (d) => (out += d));
      p.stderr.on("data", (d) => (err += d));
      p.on("exit", (status) => res({ status, out, err }));
    });
  const [, ...results] = await Promise.all([
    s ? s.exec(`document.querySelector(arguments[0]).click(); return true;`, inQueue) : null,
    run(["approve", req.id, "--json"]),
    run(["reject", req.id, "--feedback", "split step 2", "--json"]),
    ...(s ? [] : [run(["reject", req.id, "--feedback", "drop step 3", "--json"])]),
  ]);
  return results;
}

/** Exactly one of the deciders (`results` of decideThreeAtOnce, and the window) decided the
 * request, `closed` as stored; the others were refused as a conflict. */
export function assertOneDecided(results, closed) {
  const windowWon = /window/.test(closed.decidedBy ?? "");
  const won = results.filter((r) => r.status === 0).length + (windowWon ? 1 : 0);
  assert.equal(won, 1, `${JSON.stringify(results)} decided by ${closed.decidedBy}`);
  for (const r of results.filter((r) => r.status !== 0)) {
    const v = JSON.parse(r.out);
    assert.equal(v.error.kind, "conflict", r.out);
    assert.match(v.error.message, /already decided|being decided/);
  }
}

/** The log holds one line for `req`, with the decision the model got (`got`): rejected or not. */
export function assertLoggedOnce(home, req, rejected, got) {
  const log = JSON.parse(cli(home, ["log", "--json"]).stdout).filter((d) => d.requestId === req.id);
  assert.equal(log.length, 1, JSON.stringify(log));
  assert.equal(log[0].decision, rejected ? "rejected" : "approved", `${JSON.stringify(got)} ${JSON.stringify(log)}`);
}

/**
 * Runs `fn(session)` with the Plandeck app running on `home` (the real window through withApp; it
 * announces itself in `<data>/gate/app.json`, so hooks wait for a decision). With
 * PLANDECK_E2E_NO_WINDOW=1 (for machines without the desktop build) no window is opened: a
 * placeholder process holds app.json instead, `fn` gets null and decisions go through the CLI.
 */
export async function withPlandeck(home, fn) {
  if (process.env.PLANDECK_E2E_NO_WINDOW !== "1") {
    return withApp({ home }, async (s) => {
      await waitFor(() => existsSync(join(home, ".local/share/plandeck/gate/app.json")), { what: "the app's gate/app.json" });
      return fn(s);
    });
  }
  const holder = spawn(process.execPath, ["-e", "setInterval(() => {}, 1 << 30)"], { stdio: "ignore" });
  const gate = join(home, ".local/share/plandeck/gate");
  mkdirSync(gate, { recursive: true });
  // Named as the app names itself (pid, start time, executable): a bare pid is not believed.
  const stat = readFileSync(`/proc/${holder.pid}/stat`, "utf8");
  const startTime = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]);
  const exe = readlinkSync(`/proc/${holder.pid}/exe`);
  writeFileSync(join(gate, "app.json"), JSON.stringify({ pid: holder.pid, started: new Date().toISOString(), startTime, exe }));
  try {
    return await fn(null);
  } finally {
    holder.kill("SIGTERM");
  }
}

/**
 * Codex CLI on a temp `home`: `$CODEX_HOME` = `<home>/.codex` with a config.toml whose model
 * provider is the loopback stand-in at `apiUrl` (tests/agents/openai-api.mjs; OPENAI_BASE_URL
 * alone is not enough), the project `repo` trusted (no trust dialog), and no update check or
 * analytics. Returns `{ codexHome, env }`: the environment to run `codex` with (no OPENAI_* or
 * CODEX_* variables of the caller).
 */
export function codexSetup(home, repo, apiUrl) {
  const codexHome = join(home, ".codex");
  mkdirSync(codexHome, { recursive: true });
  const q = (s) => JSON.stringify(s);
  writeFileSync(
    join(codexHome, "config.toml"),
    [
      `model = "gpt-5.4"`,
      `model_provider = "fake"`,
      `check_for_update_on_startup = false`,
      ``,
      `[model_providers.fake]`,
      `name = "fake"`,
      `base_url = ${q(`${apiUrl}/v1`)}`,
      `env_key = "OPENAI_API_KEY"`,
      `wire_api = "responses"`,
      ``,
      `[projects.${q(repo)}]`,
      `trust_level = "trusted"`,
      ``,
      `[analytics]`,
      `enabled = false`,
      ``,
    ].join("\n"),
  );
  const env = envFor(home);
  for (const k of Object.keys(env)) if (/^(OPENAI_|CODEX_)/.test(k)) delete env[k];
  Object.assign(env, { CODEX_HOME: codexHome, OPENAI_API_KEY: "plandeck-e2e-standin-key" });
  return { codexHome, env };
}

/** Every `sessions/YYYY/MM/DD/rollout-*.jsonl` under `codexHome`, oldest first (by name). */
export function codexRollouts(codexHome) {
  const root = join(codexHome, "sessions");
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true })
    .filter((p) => /(^|\/)rollout-[^/]*\.jsonl$/.test(p))
    .sort((a, b) => a.split("/").pop().localeCompare(b.split("/").pop()))
    .map((p) => join(root, p));
}

/** The parsed records of a rollout file (a line that does not parse is kept as `{ unparsed }`). */
export function rolloutRecords(path) {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => {
      try {
        return JSON.parse(l);
      } catch {
        return { unparsed: l };
      }
    });
}

/** The screen text Codex 0.169 shows under a `<proposed_plan>` in Plan mode. */
export const CODEX_IMPLEMENT_PROMPT = "Implement this plan?";

/**
 * Starts the Codex TUI in `repo` and waits for its composer; then, unless `plan` is false,
 * switches to Plan mode with shift+tab (confirmed by the footer, sent again only if the footer
 * never changed: the composer is drawn before it takes keys). With `--no-daemon` unless `daemon`:
 * by default 0.169 starts a shared background app-server (copying itself into
 * `$CODEX_HOME/packages`) that outlives the TUI.
 */
export async function startCodex(tmux, codex, { repo, env, plan = true, daemon = false, args = [] }) {
  tmux.start([codex.bin, ...(daemon ? [] : ["--no-daemon"]), ...args], { cwd: repo, env });
  await tmux.waitScreen("for shortcuts", { timeout: 45000, what: "the Codex composer" });
  if (!plan) return;
  const inPlan = (s) => s.includes("Plan mode (shift+tab");
  for (let attempt = 0; attempt < 3 && !inPlan(tmux.capture()); attempt++) {
    tmux.keys("BTab");
    try {
      await tmux.waitScreen(inPlan, { timeout: 5000, what: "Plan mode in the footer" });
    } catch {
      // the key was not taken (sent before the composer was ready): send it again
    }
  }
  await tmux.waitScreen(inPlan, { timeout: 1000, what: "Plan mode in the footer" });
}

/**
 * Answers Codex's "Implement this plan?" popup with `key` ("1" implement, "2" fresh thread with
 * the plan, "3" stay in Plan mode), sent once the popup is on screen and again if it stays open.
 */
export async function answerCodexPlan(tmux, key) {
  await tmux.waitScreen(CODEX_IMPLEMENT_PROMPT, { timeout: 30000 });
  const closed = (s) => !s.includes(CODEX_IMPLEMENT_PROMPT);
  for (let attempt = 0; attempt < 3; attempt++) {
    tmux.keys(key);
    try {
      await tmux.waitScreen(closed, { timeout: 5000, what: "the plan popup to close" });
      return;
    } catch {
      // not taken yet: again
    }
  }
  await tmux.waitScreen(closed, { timeout: 1000, what: "the plan popup to close" });
}

/** Quits the Codex TUI with Ctrl+C (the first one closes an open popup) until it says how to resume. */
export async function quitCodex(tmux) {
  const gone = (s) => s.includes("codex resume") || s.includes("Pane is dead");
  for (let attempt = 0; attempt < 4 && !gone(tmux.safeCapture()); attempt++) {
    tmux.keys("C-c");
    try {
      await tmux.waitScreen(gone, { timeout: 3000, what: "Codex to exit" });
    } catch {
      // a popup took the key, or it was not read yet: again
    }
  }
  await tmux.waitScreen(gone, { timeout: 1000, what: "Codex to exit" });
}
