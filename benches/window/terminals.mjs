// Live terminal views in the real window (issue 25), eight agents streaming in panes of a private
// tmux server (stream-agent.mjs, about 2 KB/s each) and one pane running `cat`, each known to
// Plandeck as a Claude Code session (its registry file names its pid and pane):
// - eight terminals open at once: the CPU the window costs beyond the agents' own, that is the
//   window's processes (its WebKit children and tmux control clients included) and the tmux
//   server, over 20 s with eight views open, less the same over 20 s with none open (the
//   baseline, same run). Limit: under a quarter of one core (25 %);
// - a key typed in a terminal view (taken control of) until its echo is drawn: the key is
//   dispatched to the terminal in the page, timed until the row holding it changed and a frame
//   passed. Limit: p95 < 50 ms;
// - a terminal view opening: its button clicked until the pane's screen is drawn (the first frame
//   after its rows hold text). Limit: p95 < 200 ms.
// Usage: node benches/window/terminals.mjs [--samples 30] [--seconds 20]   (PLANDECK_BIN; DISPLAY)

import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Tmux } from "../../tests/e2e/agents.mjs";
import { withApp } from "../../tests/e2e/webdriver.mjs";
import { args, emit, envFor, row, smallHome, waitFor } from "./lib.mjs";

const TICK = 100; // clock ticks per second (Linux USER_HZ)

/** utime + stime of `pid`, in seconds; 0 once it is gone. */
function cpuOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) / TICK;
  } catch {
    return 0;
  }
}

function childrenOf(pid) {
  const out = [];
  for (const d of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) out.push(Number(d));
    } catch {
      // gone
    }
  }
  return out;
}

/** `pid` and every descendant. */
function tree(pid) {
  const all = [pid];
  for (let i = 0; i < all.length; i++) all.push(...childrenOf(all[i]));
  return all;
}

/** The window process of `home` (plandeck-window with HOME=home). */
function windowPid(home) {
  for (const d of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const comm = readFileSync(`/proc/${d}/comm`, "utf8").trim();
      if (!comm.startsWith("plandeck")) continue;
      const env = readFileSync(`/proc/${d}/environ`, "utf8").split("\0");
      if (env.includes(`HOME=${home}`) && comm === "plandeck-window") return Number(d);
    } catch {
      // gone
    }
  }
  return null;
}

/** CPU (% of one core) of the window's process tree and the tmux server over `seconds`. */
async function cpuOver(home, tmuxPid, seconds) {
  const win = windowPid(home);
  if (!win) throw new Error("the window's process is not found");
  // The tree is read again at the end: a process that started meanwhile counts from zero.
  const before = new Map(tree(win).map((p) => [p, cpuOf(p)]));
  const tmuxBefore = cpuOf(tmuxPid);
  const t0 = Date.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const elapsed = (Date.now() - t0) / 1000;
  let used = cpuOf(tmuxPid) - tmuxBefore;
  const by = { tmux: Math.round((100 * (cpuOf(tmuxPid) - tmuxBefore)) / elapsed) };
  for (const p of tree(win)) {
    const d = cpuOf(p) - (before.get(p) ?? 0);
    used += d;
    let comm = "?";
    try {
      comm = readFileSync(`/proc/${p}/comm`, "utf8").trim();
    } catch {
      // gone
    }
    by[comm] = (by[comm] ?? 0) + Math.round((100 * d) / elapsed);
  }
  if (process.env.TERMINALS_BY_PROCESS) process.stderr.write(`cpu by process: ${JSON.stringify(by)}\n`);
  return (100 * used) / elapsed;
}

/** A Claude Code registry entry for the process in `pane` (what Claude Code writes at start). */
function register(home, tmux, pane, n) {
  const [pid, paneId, session] = tmux.run(["display-message", "-p", "-t", pane, "#{pane_pid} #{pane_id} #{session_name}"]).trim().split(" ");
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const procStart = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  const dir = join(home, ".claude/sessions");
  mkdirSync(dir, { recursive: true });
  const sessionId = `bench-term-${String(n).padStart(4, "0")}-0000-4000-8000-000000000000`;
  const now = Date.now();
  writeFileSync(
    join(dir, `${pid}.json`),
    JSON.stringify({ pid: Number(pid), sessionId, cwd: home, startedAt: now, procStart, version: "2.1.328", kind: "interactive", entrypoint: "cli", tmux: `${session}:@0.${paneId}`, name: `agent-${n}`, status: "busy", updatedAt: now }),
  );
  return sessionId;
}

/** In the page: clicks the terminal button of session `id`'s card, resolves with the ms until
 * the first frame after its panel's rows hold text. */
const OPEN = `
  const [id, done] = [arguments[0], arguments[arguments.length - 1]];
  const btn = document.querySelector('[data-testid=session-card][data-session="' + id + '"] [data-testid=watch-terminal]');
  if (!btn) return done(-1);
  const t0 = performance.now();
  btn.click();
  const check = () => {
    const host = document.querySelector('[data-testid=terminal-panel][data-session="' + id + '"] [data-testid=terminal-screen]');
    if (host && host.screenText && host.screenText().some((r) => r.trim())) return requestAnimationFrame(() => done(performance.now() - t0));
    requestAnimationFrame(check);
  };
  check();
`;

/** In the page: types one key into the terminal of session `id` (in control) and resolves with the
 * ms until the first frame after its echo is in the terminal's rows. */
const ECHO = `
  const [id, ch, done] = [arguments[0], arguments[1], arguments[arguments.length - 1]];
  const panel = document.querySelector('[data-testid=terminal-panel][data-session="' + id + '"]');
  const input = panel.querySelector("textarea.xterm-helper-textarea");
  const host = panel.querySelector("[data-testid=terminal-screen]");
  const count = () => (host.screenText().join(" ").match(new RegExp(ch, "g")) || []).length;
  const before = count();
  const t0 = performance.now();
  input.dispatchEvent(new KeyboardEvent("keydown", { key: ch, code: "Key" + ch.toUpperCase(), keyCode: ch.toUpperCase().charCodeAt(0), bubbles: true }));
  input.dispatchEvent(new KeyboardEvent("keypress", { key: ch, charCode: ch.charCodeAt(0), keyCode: ch.charCodeAt(0), bubbles: true }));
  // Each frame, until the key is on the terminal's screen; then the frame that draws it.
  const check = () => {
    if (count() > before) return requestAnimationFrame(() => done(performance.now() - t0));
    if (performance.now() - t0 > 5000) return done(-1);
    requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
`;

export async function terminals({ samples = 30, seconds = 20 } = {}) {
  const home = smallHome(1);
  const tmux = new Tmux();
  const rows = [];
  const agent = join(import.meta.dirname, "stream-agent.mjs");
  try {
    // `cat` under a line that says what it is (an empty pane has nothing to draw).
    tmux.start(["bash", "-c", "printf 'echo pane: keys typed here are echoed by the terminal\\n'; exec cat"], { cwd: home, env: envFor(home) });
    tmux.run(["resize-window", "-t", "agent", "-x", "100", "-y", "30"]);
    const echoId = register(home, tmux, "agent", 0);
    const streamIds = [];
    for (let n = 1; n <= 8; n++) {
      const out = tmux.run(["new-session", "-d", "-s", `b${n}`, "-x", "100", "-y", "30", "-P", "-F", "#{pane_id}", process.execPath, agent]);
      streamIds.push(register(home, tmux, out.trim(), n));
    }
    const tmuxPid = Number(tmux.run(["display-message", "-p", "#{pid}"]).trim());
    await withApp({ home }, async (s) => {
      await s.setSize(1400, 900);
      await s.click("[data-view=sessions]");
      for (const id of [echoId, ...streamIds]) {
        await s.waitFor(`[data-testid=session-card][data-session="${id}"] [data-testid=watch-terminal]`, { timeout: 30000 });
      }

      // Opening a view: open and close the echo pane's view `samples` times.
      const opens = [];
      for (let i = 0; i < samples; i++) {
        const ms = await s.cmd("POST", "/execute/async", { script: OPEN, args: [echoId] });
        if (ms < 0) throw new Error("no terminal button");
        opens.push(ms);
        await s.click(`[data-testid=terminal-panel][data-session="${echoId}"] [data-testid=terminal-close]`);
        await waitFor(async () => !(await s.exec(`return !!document.querySelector("[data-testid=terminal-panel]")`)), { what: "the panel to close" });
      }
      rows.push(row("window_terminal_view_opens", opens, { figure: "p95", budget: "p95 < 200 ms (issue 25)", limit: { ms: 200 } }));

      // Echo: take control of the echo pane's view and type.
      await s.click(`[data-testid=session-card][data-session="${echoId}"] [data-testid=watch-terminal]`);
      await s.click(`[data-testid=terminal-panel][data-session="${echoId}"] [data-testid=terminal-take-control]`);
      await s.waitFor(`[data-testid=terminal-panel][data-session="${echoId}"] [data-testid=terminal-control-banner]`);
      const echoes = [];
      const letters = "qwertyuiopasdfghjklzxcvbnm";
      for (let i = 0; i < samples; i++) {
        const ms = await s.cmd("POST", "/execute/async", { script: ECHO, args: [echoId, letters[i % letters.length]] });
        if (ms < 0) throw new Error(`the echo of key ${i} never came\n${tmux.safeCapture()}`);
        echoes.push(ms);
      }
      rows.push(row("window_terminal_key_to_echo", echoes, { figure: "p95", budget: "p95 < 50 ms (issue 25)", limit: { ms: 50 } }));
      await s.click(`[data-testid=terminal-panel][data-session="${echoId}"] [data-testid=terminal-close]`);

      // CPU: streaming with no view open (the baseline), then with eight open.
      const idle = await cpuOver(home, tmuxPid, seconds);
      for (const id of streamIds) {
        await s.exec(`document.querySelector('[data-testid=session-card][data-session="' + arguments[0] + '"] [data-testid=watch-terminal]').click()`, id);
      }
      await waitFor(async () => (await s.exec(`return [...document.querySelectorAll("[data-testid=terminal-panel] [data-testid=terminal-screen]")].filter((h) => h.screenText && h.screenText().some((r) => r.trim())).length`)) === 8, { what: "eight terminals", timeout: 60000 }).catch(async (e) => { await s.screenshot("bench-terminals-failed"); throw e; });
      await s.exec(`document.querySelector("[data-testid=terminals]").scrollIntoView({ block: "start" })`);
      if (process.env.TERMINALS_PROBE) {
        const probe = await s.cmd("POST", "/execute/async", { script: `
          const done = arguments[arguments.length - 1];
          const rows = [...document.querySelectorAll("[data-testid=terminal-panel] .xterm-rows")];
          let mutations = 0;
          const obs = new MutationObserver((m) => (mutations += m.length));
          rows.forEach((r) => obs.observe(r, { childList: true, subtree: true, characterData: true, attributes: true }));
          const sizes = new Set();
          let frames = 0;
          const t0 = performance.now();
          const tick = () => { frames++; rows.forEach((r) => sizes.add(getComputedStyle(r).fontSize)); if (performance.now() - t0 < 3000) requestAnimationFrame(tick); else { obs.disconnect(); done({ mutations, frames, sizes: [...sizes] }); } };
          requestAnimationFrame(tick);`, args: [] });
        process.stderr.write(`probe: ${JSON.stringify(probe)}\n`);
      }
      if (process.env.TERMINALS_HIDDEN) await s.exec(`document.querySelector("[data-testid=terminals]").style.display = "none"`);
      const watching = await cpuOver(home, tmuxPid, seconds);
      const extra = Math.round((watching - idle) * 10) / 10;
      rows.push({
        bench: "window_eight_terminals_streaming_cpu",
        ms: extra,
        unit: "% of a core",
        budget: "< 25 % of one core beyond the agents' own (issue 25)",
        limit: { ms: 25 },
        with_views_pct: Math.round(watching * 10) / 10,
        baseline: { what: "the window and tmux, the same eight agents streaming, no view open", ms: Math.round(idle * 10) / 10 },
        seconds,
      });
    });
  } finally {
    tmux.kill();
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const a = args();
  for (const r of await terminals({ samples: Number(a.samples ?? 30), seconds: Number(a.seconds ?? 20) })) emit(r);
}
