// The first impression (issue 34): from the window's process start to its first meaningful content
// painted, against a hello-world Tauri window's first content (benches/first_content/hello_window.rs:
// benches/memory/hello's page, an <h1>) in the same Xvfb, the same run, the same tauri-driver
// (budget ≤ 1.2×), on an empty home and on the heavy home.
//
// One launch: tauri-driver is up first; the clock starts at the WebDriver session request (tauri-
// driver starts the binary then) and stops at the first animation frame after the content is in
// the page, polled every 10 ms: the hello window's <h1>; the app's first view with what it has to
// say, a plan row on a home with plans, the "where Plandeck looked" list on an empty one (not the
// sidebar alone). The launches alternate hello, empty home, heavy home, `--samples` times; each
// empty home is a new empty folder (a first run); the heavy home is launched once untimed first,
// open until its session index and plan history are read and stored (a person's first launch), so
// the timed launches are second starts, as in benches/window/startup.mjs.
// Usage: node benches/window/first_content.mjs --hello <hello-window binary> --heavy <home>
//          [--samples 5] [--heavy-what "<words>"] [--compositing on|off]
//   PLANDECK_BIN names the app (as for the e2e tests).

import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { args, emit, envFor, percentile, plandeckBin, row, waitFor } from "./lib.mjs";

// The frame's time, and where the page's own load began and ended (the phases in the rows).
const FRAME = `new Promise((r) => requestAnimationFrame(() => { const n = performance.getEntriesByType("navigation")[0]; const fcp = performance.getEntriesByName("first-contentful-paint")[0]; const mark = (m) => { const e = performance.getEntriesByName(m)[0]; return e ? performance.timeOrigin + e.startTime : 0; }; r({ module: mark("plandeck:module"), mounted: mark("plandeck:mounted"), frame: mark("plandeck:frame"), at: Date.now(), origin: performance.timeOrigin, dcl: n ? performance.timeOrigin + n.domContentLoadedEventEnd : 0, load: n && n.loadEventEnd ? performance.timeOrigin + n.loadEventEnd : 0, fcp: fcp ? performance.timeOrigin + fcp.startTime : 0 }); }))`;
const CONTENT = {
  hello: `return document.querySelector("h1")?.textContent ? ${FRAME} : 0;`,
  app: `return document.querySelector("[data-testid=plan-row], [data-testid=empty-todo]") ? ${FRAME} : 0;`,
};

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Ends the windows `bin` left on `home` (a deleted WebDriver session can leave its window open;
 * the app's `plandeck` execs `plandeck-window` beside it): no launch runs beside an earlier one. */
function killLeft(bin, home) {
  const names = [bin, join(dirname(bin), "plandeck-window")];
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0];
      if (!names.includes(cmd)) continue;
      if (readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(`HOME=${home}`)) process.kill(Number(pid), "SIGKILL");
    } catch {
      /* gone, or not ours to read */
    }
  }
}

/** Starts `bin` on `home` through tauri-driver; runs `fn(exec, t0)` with the WebDriver session open. */
async function drive(bin, home, compositing, fn) {
  const port = await freePort();
  const nativePort = await freePort();
  const env = { ...envFor(home) };
  if (compositing === "off") env.WEBKIT_DISABLE_COMPOSITING_MODE = "1";
  else delete env.WEBKIT_DISABLE_COMPOSITING_MODE;
  const driver = spawn("tauri-driver", ["--port", String(port), "--native-port", String(nativePort)], { env, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  driver.stdout.on("data", (d) => (log += d));
  driver.stderr.on("data", (d) => (log += d));
  const base = `http://127.0.0.1:${port}`;
  let id;
  try {
    await waitFor(() => fetch(`${base}/status`).then((r) => r.ok), { timeout: 20000, what: "tauri-driver" });
    const t0 = Date.now();
    const res = await fetch(`${base}/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ capabilities: { alwaysMatch: { "tauri:options": { application: bin } } } }),
    });
    const json = await res.json();
    id = json.value?.sessionId;
    if (!res.ok || !id) throw new Error(`cannot start ${bin}: ${JSON.stringify(json)}\n${log}`);
    const exec = async (script) => {
      const r = await fetch(`${base}/session/${id}/execute/async`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ script: `const done = arguments[arguments.length - 1]; Promise.resolve((() => { ${script} })()).then(done, (e) => done(null));`, args: [] }),
      });
      return (await r.json()).value;
    };
    return await fn(exec, t0);
  } finally {
    if (id) await fetch(`${base}/session/${id}`, { method: "DELETE" }).catch(() => {});
    driver.kill("SIGTERM");
    await new Promise((r) => (driver.exitCode !== null ? r() : driver.once("exit", r)));
    killLeft(bin, home);
  }
}

/** Per timed launch: ms from the start to the page's navigation start and to its DOMContentLoaded. */
const phases = [];

/** ms from the start of `bin` to the first frame with its content. */
function firstContent(bin, home, kind, compositing) {
  return drive(bin, home, compositing, async (exec, t0) => {
    const f = await waitFor(() => exec(CONTENT[kind]), { timeout: 120000, interval: 10, what: `${kind}'s first content` });
    phases.push({ kind, page: Math.round(f.origin - t0), loaded: Math.round(f.dcl - t0), load: f.load ? Math.round(f.load - t0) : null, fcp: f.fcp ? Math.round(f.fcp - t0) : null, module: f.module ? Math.round(f.module - t0) : null, mounted: f.mounted ? Math.round(f.mounted - t0) : null, frame: f.frame ? Math.round(f.frame - t0) : null });
    return f.at - t0;
  });
}

/** A person's first launch on `home`: open until its session index and plan history are stored. */
function firstLaunch(bin, home, compositing) {
  return drive(bin, home, compositing, (exec) =>
    waitFor(
      () =>
        exec(`const invoke = window.__TAURI_INTERNALS__?.invoke; if (!invoke) return false;
              return Promise.all([invoke("session_index_progress"), invoke("history_progress")]).then(([i, h]) => i.ready && h.done);`),
      { timeout: 600000, interval: 200, what: "the first launch's reads of the heavy home" },
    ),
  );
}

export async function firstContentRows({ hello, heavy, heavyWhat, samples = 5, compositing = "on" }) {
  const app = plandeckBin();
  await firstLaunch(app, heavy, compositing);
  // One untimed launch each, so no sample pays for a cold page cache of the binaries.
  const warm = mkdtempSync(join(tmpdir(), "plandeck-bench-empty-"));
  await firstContent(hello, warm, "hello", compositing);
  await firstContent(app, warm, "app", compositing);
  rmSync(warm, { recursive: true, force: true });
  const t = { hello: [], empty: [], heavy: [] };
  phases.length = 0;
  for (let i = 0; i < samples; i++) {
    const helloHome = mkdtempSync(join(tmpdir(), "plandeck-bench-hello-"));
    t.hello.push(await firstContent(hello, helloHome, "hello", compositing));
    const empty = mkdtempSync(join(tmpdir(), "plandeck-bench-empty-"));
    t.empty.push(await firstContent(app, empty, "app", compositing));
    t.heavy.push(await firstContent(app, heavy, "app", compositing));
    for (const h of [helloHome, empty]) rmSync(h, { recursive: true, force: true });
    process.stderr.write(`sample ${i + 1}: hello ${t.hello.at(-1)} ms, empty home ${t.empty.at(-1)} ms, heavy home ${t.heavy.at(-1)} ms\n`);
  }
  // Where the time went (medians of the timed launches): to the page's navigation start (process,
  // GTK, WebKit), to its DOMContentLoaded (the page's HTML and scripts), the rest to the content.
  const timed = phases.slice(-3 * samples);
  const phase = (i) => {
    const of = timed.filter((_, j) => j % 3 === i);
    const known = (k) => of.map((p) => p[k]).filter((v) => v !== null);
    return {
      to_page_start_ms: percentile(of.map((p) => p.page), 50),
      to_dom_loaded_ms: percentile(of.map((p) => p.loaded), 50),
      to_load_event_ms: known("load").length ? percentile(known("load"), 50) : null,
      to_first_contentful_paint_ms: known("fcp").length ? percentile(known("fcp"), 50) : null,
      // The app's own marks (ui/src/main.ts): its start script running, mounted, the next frame.
      to_app_module_ms: known("module").length ? percentile(known("module"), 50) : null,
      to_app_mounted_ms: known("mounted").length ? percentile(known("mounted"), 50) : null,
      to_app_frame_ms: known("frame").length ? percentile(known("frame"), 50) : null,
    };
  };
  const [helloPhases, emptyPhases, heavyPhases] = [0, 1, 2].map(phase);
  const base = percentile(t.hello, 50);
  const baseline = { what: "hello-world Tauri window's first content (its h1 heading), same build profile, same run", ms: Math.round(base * 10) / 10 };
  const common = {
    budget: "<= 1.2x a hello-world Tauri window's first content",
    limit: { ratio: 1.2 },
    baseline,
    hello_samples_ms: t.hello,
    hello_phases: helloPhases,
    env: compositing === "off" ? "WEBKIT_DISABLE_COMPOSITING_MODE=1" : "compositing on",
    measured: "tauri-driver session request (the process starts) to the first frame with the content",
  };
  return [
    row("window_first_content_empty_home", t.empty, {
      ...common,
      ratio: Math.round((percentile(t.empty, 50) / base) * 100) / 100,
      home: "empty (a new folder each launch: a first run)",
      content: "the plans view's 'where Plandeck looked' list",
      samples_ms: t.empty,
      phases: emptyPhases,
    }),
    row("window_first_content_heavy_home", t.heavy, {
      ...common,
      ratio: Math.round((percentile(t.heavy, 50) / base) * 100) / 100,
      home: heavyWhat ?? heavy,
      content: "a plan row",
      samples_ms: t.heavy,
      phases: heavyPhases,
    }),
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const a = args();
  if (!a.hello || !a.heavy) throw new Error("usage: first_content.mjs --hello <bin> --heavy <home> [--samples 5]");
  const rows = await firstContentRows({
    hello: a.hello,
    heavy: a.heavy,
    heavyWhat: a["heavy-what"],
    samples: Number(a.samples ?? 5),
    compositing: a.compositing ?? "on",
  });
  for (const r of rows) emit(r);
}
