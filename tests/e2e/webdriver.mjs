// A small W3C WebDriver client for driving the real Plandeck window through tauri-driver +
// WebKitWebDriver. No browser download, no framework: fetch and the protocol.

import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dirname, "../..");
export const ARTIFACTS = join(ROOT, "tests/e2e/artifacts");

/** The plandeck binary under test: $PLANDECK_BIN, else the debug build in $CARGO_TARGET_DIR. */
export function plandeckBin() {
  if (process.env.PLANDECK_BIN) return process.env.PLANDECK_BIN;
  const target = process.env.CARGO_TARGET_DIR || join(ROOT, "target");
  return join(target, "debug/plandeck");  // the slim command line; it becomes debug/plandeck-window
}

async function freePort() {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => res(port));
    });
    srv.on("error", rej);
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Polls `fn` until it returns a truthy value or `timeout` ms pass; returns that value. */
export async function waitFor(fn, { timeout = 15000, interval = 100, what = "condition" } = {}) {
  const end = Date.now() + timeout;
  let last;
  while (Date.now() < end) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    await sleep(interval);
  }
  throw new Error(`timed out after ${timeout} ms waiting for ${what}${last ? `: ${last.message}` : ""}`);
}

// An element reference is an object with one key (the W3C name, which WebKitWebDriver spells
// differently); take its value whatever the key.
const elementId = (ref) => (ref && typeof ref === "object" ? Object.values(ref)[0] : undefined);

export class Session {
  constructor(base, id) {
    this.base = base;
    this.id = id;
  }

  async cmd(method, path, body) {
    const res = await fetch(`${this.base}/session/${this.id}${path}`, {
      method,
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30000),
    });
    const json = await res.json().catch(() => ({}));
    if (!res.ok || json?.value?.error) {
      throw new Error(`${method} ${path}: ${json?.value?.error ?? res.status} ${json?.value?.message ?? ""}`);
    }
    return json.value;
  }

  /** Runs `script` (a function body) in the page and returns its value. */
  exec(script, ...args) {
    return this.cmd("POST", "/execute/sync", { script, args });
  }

  async find(css) {
    const v = await this.cmd("POST", "/element", { using: "css selector", value: css });
    return elementId(v);
  }

  async findAll(css) {
    const v = await this.cmd("POST", "/elements", { using: "css selector", value: css });
    return v.map(elementId);
  }

  /** Waits for an element matching `css` and returns its id. */
  waitFor(css, opts = {}) {
    return waitFor(() => this.find(css), { what: `element ${css}`, ...opts });
  }

  /** Waits until the page's text (innerText of `css`, default body) contains `text`. */
  waitForText(text, css = "body", opts = {}) {
    return waitFor(
      async () => (await this.exec(`const e = document.querySelector(arguments[0]); return e ? e.innerText : "";`, css)).includes(text),
      { what: `text ${JSON.stringify(text)} in ${css}`, ...opts },
    );
  }

  async click(css) {
    const el = await this.waitFor(css);
    // A person scrolls to what they click. WebKitWebDriver scrolls the page, not a view's own
    // scrolling container (Settings, the plan list), so an element below its fold is "not
    // interactable" without this.
    await this.exec(`document.querySelector(arguments[0])?.scrollIntoView({ block: "nearest", inline: "nearest" });`, css);
    await this.cmd("POST", `/element/${el}/click`, {});
  }

  async text(css) {
    const el = await this.waitFor(css);
    return this.cmd("GET", `/element/${el}/text`);
  }

  async type(css, text) {
    const el = await this.waitFor(css);
    await this.cmd("POST", `/element/${el}/value`, { text });
  }

  async keys(text) {
    const actions = [...text].flatMap((c) => [{ type: "keyDown", value: c }, { type: "keyUp", value: c }]);
    await this.cmd("POST", "/actions", { actions: [{ type: "key", id: "kb", actions }] });
    await this.cmd("DELETE", "/actions");
  }

  /** Sets the window's size (W3C window rect) and waits until the page has that viewport. */
  async setSize(width, height) {
    await this.cmd("POST", "/window/rect", { width, height });
    await waitFor(
      async () => {
        const [w, h] = await this.exec("return [window.innerWidth, window.innerHeight];");
        return w === width && h === height;
      },
      { what: `a ${width}×${height} window` },
    );
  }

  /**
   * Saves a PNG screenshot of the window to tests/e2e/artifacts/<name>.png and returns the path.
   * WebKitWebDriver's screenshot command hangs under Xvfb, so this captures the X display the
   * window is on (ImageMagick's `import`), which is what a person would see, cut to the window's
   * rectangle (its dialogs open over it).
   */
  async screenshot(name) {
    mkdirSync(ARTIFACTS, { recursive: true });
    const path = join(ARTIFACTS, `${name}.png`);
    await new Promise((res) => setTimeout(res, 300)); // let the last change paint
    const rect = await this.cmd("GET", "/window/rect").catch(() => null);
    const crop = rect?.width > 0 && rect?.height > 0
      ? ["-crop", `${rect.width}x${rect.height}+${Math.max(0, rect.x)}+${Math.max(0, rect.y)}`, "+repage"]
      : [];
    const r = spawnSync("import", ["-window", "root", ...crop, path], { timeout: 20000 });
    if (r.status !== 0) throw new Error(`screenshot failed: ${r.stderr?.toString() ?? r.error}`);
    return path;
  }
}

/** Scratch folders of this test process, removed when it exits (a full run made ~40 homes of up
 * to 100 MB each and left them in /tmp). `PLANDECK_KEEP_TEST_DIRS=1` keeps them, to look at a
 * failure. */
const scratchDirs = [];
process.on("exit", () => {
  if (process.env.PLANDECK_KEEP_TEST_DIRS) return;
  for (const dir of scratchDirs) rmSync(dir, { recursive: true, force: true, maxRetries: 2 });
});

/** A new empty folder under the system's temp folder, named `<prefix>XXXXXX`, gone at exit. */
export function scratch(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratchDirs.push(dir);
  return dir;
}

/**
 * Starts tauri-driver, opens the real plandeck window with `args` and `env`, runs `fn(session)`,
 * and always tears both down. `home` defaults to a fresh temp dir so nothing of the developer's
 * own folders is read.
 */
export async function withApp({ args = [], env = {}, home } = {}, fn) {
  home ??= scratch("plandeck-e2e-home-");
  const port = await freePort();
  const nativePort = await freePort();
  const driverEnv = { ...envFor(home), WEBKIT_DISABLE_COMPOSITING_MODE: "1", ...env };
  const driver = spawn("tauri-driver", ["--port", String(port), "--native-port", String(nativePort)], {
    env: driverEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let driverLog = "";
  driver.stdout.on("data", (d) => (driverLog += d));
  driver.stderr.on("data", (d) => (driverLog += d));
  const base = `http://127.0.0.1:${port}`;
  let session;
  try {
    await waitFor(() => fetch(`${base}/status`).then((r) => r.ok), { timeout: 20000, what: "tauri-driver" });
    const res = await fetch(`${base}/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        capabilities: { alwaysMatch: { "tauri:options": { application: plandeckBin(), args } } },
      }),
    });
    const json = await res.json();
    if (!res.ok || !json.value?.sessionId) {
      throw new Error(`cannot start the app: ${JSON.stringify(json)}\n${driverLog}`);
    }
    session = new Session(base, json.value.sessionId);
    session.home = home;
    await session.waitFor("nav[aria-label=Views]", { timeout: 30000 });
    return await fn(session);
  } finally {
    if (session) await fetch(`${base}/session/${session.id}`, { method: "DELETE" }).catch(() => {});
    driver.kill("SIGTERM");
    await new Promise((r) => (driver.exitCode !== null ? r() : driver.once("exit", r)));
    killAppsOf(home);
  }
}

/** Ends any plandeck window still running on `home` (a driver that died, or a session deleted
 * while the window stayed, can leave one behind): `plandeck` execs `plandeck-window` beside it,
 * so both names are looked for. This user's server the window started (`… serve --daemon`, the
 * same program) is no window: it is left to the test, which may look for it after the window. */
function killAppsOf(home) {
  const bin = plandeckBin();
  const names = [bin, join(dirname(bin), "plandeck-window")];
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      if (!names.includes(argv[0]) || argv.includes("serve")) continue;
      const env = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
      if (env.includes(`HOME=${home}`)) process.kill(Number(pid), "SIGKILL");
    } catch {
      /* gone, or not ours to read */
    }
  }
}

/** Creates a demo workspace with the CLI (`plandeck demo --json`); returns `{home, repo}`. */
export function makeDemoHome() {
  const parent = scratch("plandeck-e2e-demo-");
  const r = spawnSync(plandeckBin(), ["demo", "--into", parent, "--json"], { encoding: "utf8", timeout: 60000 });
  if (r.status !== 0) throw new Error(`plandeck demo failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** The environment that points plandeck at `home` (as withApp does), for CLI calls in tests. */
export function envFor(home) {
  return {
    ...process.env,
    HOME: home,
    XDG_DATA_HOME: join(home, ".local/share"),
    XDG_CONFIG_HOME: join(home, ".config"),
    CLAUDE_CONFIG_DIR: "",
    CODEX_HOME: "",
  };
}

/** Runs the plandeck CLI against `home`; returns {status, stdout, stderr}. */
export function cli(home, args) {
  return spawnSync(plandeckBin(), args, { encoding: "utf8", env: envFor(home), timeout: 60000 });
}

/**
 * Clicks a button of the native GTK confirmation whose title matches `titlePattern` (an xdotool
 * `--name` regex): `at` across its bottom row (GNOME order: Cancel on the left, the action on the
 * right), with the real pointer, as a person would (no window manager under Xvfb to focus it).
 * False when no such dialog came.
 */
export function clickNativeDialog(titlePattern, at) {
  const found = spawnSync("xdotool", ["search", "--sync", "--limit", "1", "--name", titlePattern], { encoding: "utf8", timeout: 15000 });
  const win = found.stdout.trim().split("\n")[0];
  if (!win) return false;
  const geo = spawnSync("xdotool", ["getwindowgeometry", "--shell", win], { encoding: "utf8", timeout: 5000 }).stdout;
  const width = Number(/WIDTH=(\d+)/.exec(geo)?.[1] ?? 0);
  const height = Number(/HEIGHT=(\d+)/.exec(geo)?.[1] ?? 0);
  if (!width || !height) return false;
  spawnSync("xdotool", ["mousemove", "--window", win, String(Math.round(width * at)), String(height - 16), "click", "1"], { timeout: 5000 });
  return true;
}
