// A machine that hangs, in the real window (issue 33): its "ssh" is a stand-in for the remote
// Plandeck (`PLANDECK_SSH`, the same spawn path) that says hello, answers the subscription and the
// first reading of its requests, then reads everything and never answers again. Meanwhile a local
// Claude plan hook's request waits in the queue and is approved from the window as usual: the
// hook gets the approval, and the machine is still shown connected (it hangs, it did not drop).

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { cli, envFor, plandeckBin, waitFor, withApp } from "./webdriver.mjs";

test("a machine that hangs does not stop a local approval", { timeout: 180000 }, async () => {
  const home = mkdtempSync(join(tmpdir(), "plandeck-e2e-hang-"));
  const dir = mkdtempSync(join(tmpdir(), "plandeck-e2e-hang-ssh-"));
  writeFileSync(
    join(dir, "ssh.sh"),
    [
      `echo '{"hello":{"protocol":1,"version":"6.6.6","instance":"hangs"}}'`,
      `read a; echo '{"id":1,"result":{"gap":true,"seq":0}}'`,
      `read b; echo '{"id":2,"result":[]}'`,
      "exec cat >/dev/null",
      "",
    ].join("\n"),
  );
  const added = cli(home, ["hosts", "add", "box", "--ssh", "box"]);
  assert.equal(added.status, 0, added.stderr);
  await withApp({ home, env: { PLANDECK_SSH: `sh ${join(dir, "ssh.sh")}` } }, async (s) => {
    await s.waitFor("[data-testid=machine-status][data-machine=box][data-state=connected]", { timeout: 30000 });

    // A local agent's plan waits for the reviewer (its hook, run as the agent would).
    const hook = spawn(plandeckBin(), ["hook", "claude"], { env: envFor(home), stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    hook.stdout.on("data", (d) => (out += d));
    const ended = new Promise((r) => hook.once("exit", r));
    hook.stdin.end(JSON.stringify({ session_id: "s", cwd: home, tool_name: "ExitPlanMode", tool_input: { plan: "# Ship it here\n\n1. Build it\n" } }));
    try {
      await s.waitForText("Ship it here", "[data-testid=gate-request]", { timeout: 30000 });
      await s.click("[data-testid=gate-request] [data-testid=gate-approve-auto]");
      const code = await Promise.race([ended, new Promise((_, no) => setTimeout(() => no(new Error(`the hook got no decision: ${out}`)), 60000))]);
      assert.equal(code, 0);
      assert.match(out, /allow/, out);
    } finally {
      hook.kill("SIGKILL");
    }
    // The machine was hanging all along, and still is: shown connected, never dropped.
    await waitFor(async () => (await s.exec(`return document.querySelector("[data-testid=machine-status][data-machine=box]")?.dataset.state ?? null`)) === "connected", {
      what: "box still shown connected",
    });
  });
});
