// Memory of the whole Plandeck process tree (main + WebKitWebProcess + WebKitNetworkProcess + any
// descendant), PSS from /proc/<pid>/smaps_rollup, with compositing on (what users get):
// 1. after visiting every view on `home` through WebDriver (plans: the list scrolled, a plan
//    opened, its history and diff; sessions, ended ones shown and scrolled; worktrees; settings),
//    then `--idle` seconds;
// 2. after `--live` seconds of a live session appending a record every 200 ms (its card in view).
// Prints one JSON object: {views_kb, live_kb, parts_views, parts_live, live_s, records}.
// Used by benches/memory.sh, which measures the hello-world window in the same run.
// Usage: node benches/window/memory_views.mjs --home <home> [--idle 10] [--live 60]

import { appendFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { plandeckBin, withApp } from "../../tests/e2e/webdriver.mjs";
import { args } from "./lib.mjs";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The plandeck window process running on `home` (found by binary and $HOME, as webdriver.mjs does). */
function appPid(home) {
  const bin = plandeckBin();
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0] !== bin) continue;
      if (readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(`HOME=${home}`)) return Number(pid);
    } catch {
      /* gone */
    }
  }
  return null;
}

/** PSS (kB) of `root` and every descendant: {total, parts: {comm: kB}}. */
export function pssTree(root) {
  const kids = new Map();
  for (const d of readdirSync("/proc").filter((x) => /^\d+$/.test(x))) {
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (!kids.has(ppid)) kids.set(ppid, []);
      kids.get(ppid).push(Number(d));
    } catch {
      /* gone */
    }
  }
  const todo = [root];
  let total = 0;
  const parts = {};
  while (todo.length) {
    const p = todo.pop();
    todo.push(...(kids.get(p) ?? []));
    try {
      const line = readFileSync(`/proc/${p}/smaps_rollup`, "utf8").split("\n").find((l) => l.startsWith("Pss:"));
      const kb = Number(line.split(/\s+/)[1]);
      const name = readFileSync(`/proc/${p}/comm`, "utf8").trim();
      total += kb;
      parts[name] = (parts[name] ?? 0) + kb;
    } catch {
      /* gone */
    }
  }
  return { total, parts };
}

async function clickIf(s, css) {
  const ok = await s.exec(`const e = document.querySelector(arguments[0]); if (e) e.click(); return !!e;`, css);
  if (ok) await sleep(500);
  return ok;
}

async function scrollThrough(s, css) {
  for (const frac of [0.25, 0.5, 0.75, 1, 0]) {
    await s.exec(
      `const e = document.querySelector(arguments[0]); if (e) { e.scrollTop = e.scrollHeight * arguments[1]; e.dispatchEvent(new Event("scroll")); }`,
      css,
      frac,
    );
    await sleep(200);
  }
}

export async function memoryViews({ home, idle = 10, live = 60 }) {
  const out = {};
  // Compositing on: no WEBKIT_DISABLE_COMPOSITING_MODE (undefined drops it from the environment).
  await withApp({ home, env: { WEBKIT_DISABLE_COMPOSITING_MODE: undefined } }, async (s) => {
    const pid = appPid(home);
    if (!pid) throw new Error("cannot find the app's process");
    // Plans: the list, scrolled; a plan opened; its history and diff when it has one.
    await s.click("[data-view=plans]");
    await s.waitFor("[data-testid=plan-row]", { timeout: 60000 });
    await scrollThrough(s, "ul.list");
    await clickIf(s, "[data-testid=plan-row]");
    await s.waitFor("[data-testid=plan-detail]", { timeout: 30000 }).catch(() => {});
    for (const t of ["source", "diff", "history", "rendered"]) await clickIf(s, `[data-testid=plan-detail] [data-tab=${t}]`);
    // Sessions: wait for the index, show the ended ones, scroll through.
    await s.click("[data-view=sessions]");
    await s.waitFor("[data-testid=session-card], [data-testid=toggle-ended]", { timeout: 300000 });
    await clickIf(s, "[data-testid=toggle-ended]");
    await scrollThrough(s, "main");
    await s.click("[data-view=worktrees]");
    await sleep(2000);
    await s.click("[data-view=settings]");
    await sleep(1000);
    await s.click("[data-view=sessions]");
    await sleep(idle * 1000);
    const views = pssTree(pid);
    out.views_kb = views.total;
    out.parts_views = views.parts;

    // A live session: a record appended every 200 ms for `live` seconds.
    const dir = join(home, ".claude/projects/-w-live");
    mkdirSync(dir, { recursive: true });
    const transcript = join(dir, "live-session-0000.jsonl");
    writeFileSync(transcript, "");
    let n = 0;
    const end = Date.now() + live * 1000;
    while (Date.now() < end) {
      const rec = {
        type: n % 2 ? "assistant" : "user",
        sessionId: "live-session-0000",
        cwd: "/w/live",
        uuid: `live-${n}`,
        timestamp: new Date().toISOString(),
        message: { role: n % 2 ? "assistant" : "user", content: [{ type: "text", text: `step ${n} `.repeat(40) }] },
      };
      appendFileSync(transcript, JSON.stringify(rec) + "\n");
      n++;
      await sleep(200);
    }
    await sleep(3000);
    const after = pssTree(pid);
    out.live_kb = after.total;
    out.parts_live = after.parts;
    out.live_s = live;
    out.records = n;
  });
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const a = args();
  if (!a.home) throw new Error("usage: memory_views.mjs --home <home> [--idle 10] [--live 60]");
  const r = await memoryViews({ home: a.home, idle: Number(a.idle ?? 10), live: Number(a.live ?? 60) });
  process.stdout.write(JSON.stringify(r) + "\n");
}
