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
import { envFor, plandeckBin, waitFor, withApp } from "./webdriver.mjs";

const appFile = (home) => join(home, ".local/share/plandeck/gate/app.json");

/** Runs a Claude plan hook against `home` with no agent behind it (it would wait minutes for a
 * decision if it took Plandeck for running; the test's timeout would end it). */
function hookAnswer(home) {
  const input = JSON.stringify({ session_id: "s", cwd: home, tool_name: "ExitPlanMode", tool_input: { plan: "# p\n" } });
  return spawnSync(plandeckBin(), ["hook", "claude"], { input, encoding: "utf8", env: envFor(home), timeout: 60000 });
}

test("closing the window removes the app's presence; a hook then steps aside at once", async () => {
  const home = mkdtempSync(join(tmpdir(), "plandeck-e2e-presence-"));
  await withApp({ home }, async (s) => {
    await waitFor(() => existsSync(appFile(home)), { what: "gate/app.json" });
    const app = JSON.parse(readFileSync(appFile(home), "utf8"));
    assert.ok(app.pid && app.startTime && app.exe, JSON.stringify(app));
    // The window's own close (WebDriver's Close Window: the window goes, as a click on its ×).
    await s.cmd("DELETE", "/window").catch(() => {});
    await waitFor(() => !existsSync(appFile(home)), { timeout: 20000, what: "gate/app.json to go when the window closed" });
  });
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
