// Shared by the window-level benchmarks (benches/window/*.mjs): the real Plandeck window driven
// through tauri-driver + WebKitWebDriver (tests/e2e/webdriver.mjs), timings taken in the page
// (Date.now() on the same clock as this process) so WebDriver round trips do not count.
//
// Each benchmark prints one JSON line per figure on stdout, in the format benches/run.sh reads:
// {"bench", "ms" (the figure: p50, or p95 where the budget is on it; "figure" says which),
// "p50_ms"/"p95_ms", "n", "budget" (words), "limit" ({"ms": x} or {"ratio": r} against
// "baseline" {what, ms}, or both: every row has one, checked by `emit` and again by benches/run.sh)}.

import { spawn } from "node:child_process";
import { accessSync, appendFileSync, constants, mkdirSync, mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { envFor, plandeckBin, waitFor } from "../../tests/e2e/webdriver.mjs";

export { envFor, plandeckBin, waitFor };

/** Clicks "Approve (auto)" on the waiting card `key` in the page; returns when it was clicked
 * (page clock, ms since the epoch). */
export async function clickApprove(s, key) {
  const at = await s.exec(
    `const b = document.querySelector('[data-testid=gate-request][data-id="' + arguments[0] + '"] [data-testid=gate-approve-auto]');
     if (!b) return 0;
     const t = Date.now(); b.click(); return t;`,
    key,
  );
  if (!at) throw new Error(`no Approve button on card ${key}`);
  return at;
}

/** The executable agents' hooks run, as `plandeck hooks install` writes it (core
 * `gate::install::hook_executable`): the slim `plandeck-cli` beside the window's binary when it is
 * there (the package installs both), else the window's binary. */
export function hookBin() {
  const bin = plandeckBin();
  const slim = join(dirname(bin), "plandeck-cli");
  try {
    accessSync(slim, constants.X_OK);
    if (statSync(slim).isFile()) return slim;
  } catch {
    // not installed beside it
  }
  return bin;
}

export function percentile(values, p) {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

const round = (x) => Math.round(x * 10) / 10;

/**
 * A row for `bench` from the samples (ms): `ms` is the p50 and `p95_ms` beside it; with
 * `figure: "p95"` (a budget on the p95, which benches/run.sh judges on `ms`) `ms` is the p95 and
 * `p50_ms` beside it.
 */
export function row(bench, samples, { figure = "p50", ...extra } = {}) {
  const p50 = round(percentile(samples, 50));
  const p95 = round(percentile(samples, 95));
  return figure === "p95"
    ? { bench, ms: p95, figure: "p95", p50_ms: p50, p95_ms: p95, n: samples.length, ...extra }
    : { bench, ms: p50, figure: "p50", p95_ms: p95, n: samples.length, ...extra };
}

/** Whether row `r` is within its limit, and how it compares, in words (as benches/run.sh judges). */
export function judge(r) {
  const lim = r.limit ?? {};
  const how = [];
  let ok = "ms" in lim || "ratio" in lim;
  if ("ms" in lim) {
    ok &&= r.ms <= lim.ms;
    how.push(`${r.ms} (limit ${lim.ms})`);
  }
  if ("ratio" in lim) {
    const base = r.baseline?.ms;
    ok &&= Boolean(base) && r.ms / base <= lim.ratio;
    how.push(base ? `${(r.ms / base).toFixed(2)}x (limit ${lim.ratio}x)` : "no baseline for the ratio limit");
  }
  return [ok, how.join(", ") || "no limit"];
}

/** Prints row `r` (stdout) and its check, pass or FAIL (stderr); a FAIL makes the process end with
 * exit code 3, "a row over its limit" to benches/run.sh. */
export function emit(r) {
  process.stdout.write(JSON.stringify(r) + "\n");
  const [ok, how] = judge(r);
  process.stderr.write(`${ok ? "pass" : "FAIL"} ${r.bench}: ${how}\n`);
  if (!ok) process.exitCode = 3;
}

/** A fresh home with `plans` plan files in ~/.claude/plans; returns its path. */
export function smallHome(plans = 1) {
  const home = mkdtempSync(join(tmpdir(), "plandeck-bench-home-"));
  const dir = join(home, ".claude/plans");
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < plans; i++) {
    writeFileSync(join(dir, `plan-${i}.md`), `# Plan ${i}: a small plan\n\n1. read the code\n2. change it\n`);
  }
  return home;
}

/**
 * Installs, in the page, a recorder: for every element matching `css` that appears, the time
 * (Date.now()) of the first animation frame after it was added, by `key` (an attribute name or
 * "text:<substring>"). Read with `seen(s)`.
 */
export async function recordAppearances(s, css, attr) {
  await s.exec(
    `const css = arguments[0], attr = arguments[1];
     window.__seen = window.__seen || {};
     const check = () => {
       const now = [];
       for (const el of document.querySelectorAll(css)) {
         const k = attr === "text" ? el.innerText : el.getAttribute(attr);
         if (k && !(k in window.__seen)) { window.__seen[k] = 0; now.push(k); }
       }
       if (now.length) requestAnimationFrame(() => { const t = Date.now(); for (const k of now) window.__seen[k] = t; });
     };
     if (window.__obs) window.__obs.disconnect();
     window.__obs = new MutationObserver(check);
     window.__obs.observe(document.body, { subtree: true, childList: true, characterData: true });
     check();`,
    css,
    attr,
  );
}

export async function seen(s) {
  return (await s.exec("return window.__seen || {};")) ?? {};
}

/** Waits until a key recorded by `recordAppearances` satisfies `match` and has its frame time. */
export function waitSeen(s, match, what, timeout = 20000) {
  return waitFor(
    async () => {
      const all = await seen(s);
      const k = Object.keys(all).find((key) => match(key) && all[key] > 0);
      return k ? { key: k, at: all[k] } : null;
    },
    { timeout, interval: 10, what },
  );
}

/**
 * A session `name` on `home` that has just called `ExitPlanMode`: its transcript (with the call
 * appended) and the `PermissionRequest` hook input Claude Code gives `plandeck hook claude` for it.
 * Returns {input, transcript, callId, plan}.
 */
export function hookInput(home, name) {
  const transcript = join(home, ".claude/projects/-w", `bench-${name}.jsonl`);
  mkdirSync(join(home, ".claude/projects/-w"), { recursive: true });
  const callId = `toolu_${name}`.replace(/[^A-Za-z0-9_]/g, "_");
  const plan = `# Bench plan ${name}\n\n1. Read the orders module\n2. Add cursor pagination to the list endpoint\n`;
  const call = {
    type: "assistant",
    sessionId: `bench-${name}`,
    timestamp: new Date().toISOString(),
    message: { content: [{ type: "tool_use", id: callId, name: "ExitPlanMode", input: { plan } }] },
  };
  appendFileSync(transcript, JSON.stringify(call) + "\n");
  const input = {
    session_id: `bench-${name}`,
    transcript_path: transcript,
    cwd: "/w",
    hook_event_name: "PermissionRequest",
    tool_name: "ExitPlanMode",
    tool_input: { plan, planFilePath: join(home, ".claude/plans", `bench-${name}.md`) },
  };
  return { input, transcript, callId, plan };
}

/**
 * Starts `plandeck hook claude` on `home` under a headless agent stand-in (headless-agent.mjs),
 * as `claude -p` runs it; returns {child, exited}: `exited` resolves to {at, code, stdout} with
 * `at` the moment the hook exited (the agent unblocked).
 */
export function startHook(home, n) {
  const { input } = hookInput(home, String(n));
  const agent = join(import.meta.dirname, "headless-agent.mjs");
  const child = spawn(process.execPath, [agent, hookBin(), "-p"], { env: envFor(home), stdio: ["pipe", "pipe", "ignore"] });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  const exited = new Promise((res) =>
    child.once("exit", () => {
      try {
        res(JSON.parse(out));
      } catch {
        res({ at: Date.now(), code: -1, stdout: out });
      }
    }),
  );
  child.stdin.end(JSON.stringify(input));
  return { child, exited };
}

/** Parses `--name value` and `--flag` arguments. */
export function args(argv = process.argv.slice(2)) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith("--")) continue;
    const next = argv[i + 1];
    if (next === undefined || next.startsWith("--")) out[a.slice(2)] = true;
    else out[a.slice(2)] = argv[++i];
  }
  return out;
}
