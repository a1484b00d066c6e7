// Plandeck tells hooks it is running through `<data>/gate/app.json`; when it is gone, a plan hook
// must step aside at once and the Stop hook must never block. Every way the window ends takes the
// file away: closing the window, and the signals a session sends (SIGTERM, SIGINT, SIGHUP). A file
// left behind (SIGKILL) names the process by pid, start time and executable, so a reused pid is
// never taken for Plandeck.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { envFor, plandeckBin, waitFor } from "./webdriver.mjs";

const appFile = (home) => join(home, ".local/share/plandeck/gate/app.json");

/** Asks the X windows of `pid` to close (tests/e2e/close-window.py); returns how many it asked. */
function closeWindowsOf(pid) {
  const r = spawnSync("python3", [join(import.meta.dirname, "close-window.py"), String(pid)], { encoding: "utf8", timeout: 20000 });
  if (r.status !== 0) throw new Error(`close-window.py: ${r.stderr}`);
  return Number(r.stdout.trim());
}

/** Runs a Claude plan hook against `home` with no agent behind it (it would wait minutes for a
 * decision if it took Plandeck for running; the test's timeout would end it). */
function hookAnswer(home) {
  const input = JSON.stringify({ session_id: "s", cwd: home, tool_name: "ExitPlanMode", tool_input: { plan: "# p\n" } });
  return spawnSync(plandeckBin(), ["hook", "claude"], { input, encoding: "utf8", env: envFor(home), timeout: 60000 });
}

test("closing the window removes the app's presence; a hook then steps aside at once", async () => {
  const home = mkdtempSync(join(tmpdir(), "plandeck-e2e-presence-"));
  const app = spawn(plandeckBin(), [], { env: { ...envFor(home), WEBKIT_DISABLE_COMPOSITING_MODE: "1" }, stdio: "ignore" });
  try {
    await waitFor(() => existsSync(appFile(home)), { timeout: 30000, what: "gate/app.json" });
    const named = JSON.parse(readFileSync(appFile(home), "utf8"));
    assert.ok(named.pid && named.startTime && named.exe, JSON.stringify(named));
    const exited = new Promise((r) => app.once("exit", r));
    // The window's close button, as a window manager passes it on (WM_DELETE_WINDOW).
    await waitFor(() => closeWindowsOf(app.pid) > 0, { timeout: 20000, what: "the app's window to be asked to close" });
    await Promise.race([exited, new Promise((_, no) => setTimeout(() => no(new Error("the app did not exit when its window closed")), 20000))]);
    assert.ok(!existsSync(appFile(home)), "gate/app.json was left behind when the window closed");
  } finally {
    app.kill("SIGKILL");
  }
  const answer = hookAnswer(home);
  assert.equal(answer.status, 0);
  assert.equal(answer.stdout, "", "no decision when Plandeck is closed");
});

for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) {
  test(`${signal} to the app removes its presence`, async () => {
    const home = mkdtempSync(join(tmpdir(), "plandeck-e2e-presence-"));
    const app = spawn(plandeckBin(), [], { env: { ...envFor(home), WEBKIT_DISABLE_COMPOSITING_MODE: "1" }, stdio: "ignore" });
    try {
      await waitFor(() => existsSync(appFile(home)), { timeout: 30000, what: "gate/app.json" });
      const exited = new Promise((r) => app.once("exit", (code, sig) => r({ code, sig })));
      app.kill(signal);
      const how = await Promise.race([exited, new Promise((r) => setTimeout(() => r(null), 20000))]);
      assert.ok(how, `the app did not exit on ${signal}`);
      assert.ok(!existsSync(appFile(home)), `gate/app.json was left behind after ${signal}`);
    } finally {
      app.kill("SIGKILL");
    }
  });
}

test("a presence file left by a killed app names nobody once the app is gone", async () => {
  const home = mkdtempSync(join(tmpdir(), "plandeck-e2e-presence-"));
  const app = spawn(plandeckBin(), [], { env: { ...envFor(home), WEBKIT_DISABLE_COMPOSITING_MODE: "1" }, stdio: "ignore" });
  await waitFor(() => existsSync(appFile(home)), { timeout: 30000, what: "gate/app.json" });
  const exited = new Promise((r) => app.once("exit", r));
  app.kill("SIGKILL");
  await exited;
  assert.ok(existsSync(appFile(home)), "SIGKILL leaves the file (nothing can run then)");
  const answer = hookAnswer(home);
  assert.equal(answer.status, 0);
  assert.equal(answer.stdout, "");
});
