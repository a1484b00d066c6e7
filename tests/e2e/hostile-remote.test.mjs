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
import { clickNativeDialog, cli, envFor, plandeckBin, waitFor, withApp } from "./webdriver.mjs";

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

test("a machine is added from Settings only once a native dialog naming its destination is confirmed", { timeout: 120000 }, async () => {
  const home = mkdtempSync(join(tmpdir(), "plandeck-e2e-add-machine-"));
  const dir = mkdtempSync(join(tmpdir(), "plandeck-e2e-add-machine-ssh-"));
  // Its "ssh" fails at once, as an unreachable machine's does.
  writeFileSync(join(dir, "ssh.sh"), "echo 'ssh: connect to host lab.example port 22: Connection refused' >&2\nexit 255\n");
  const hosts = () => JSON.parse(cli(home, ["hosts", "list", "--json"]).stdout).map((h) => h.name);
  await withApp({ home, env: { PLANDECK_SSH: `sh ${join(dir, "ssh.sh")}` } }, async (s) => {
    await s.click("[data-view=settings]");
    const add = async () => {
      await s.type("[data-testid=machine-name]", "lab");
      await s.type("[data-testid=machine-ssh]", "me@lab.example");
      await s.click("[data-testid=machine-add-submit]");
    };
    // Cancel: nothing added, nothing connected.
    await add();
    assert.ok(clickNativeDialog("^Connect to lab \\(me@lab\\.example\\)", 0.25), "a native dialog names the destination");
    await s.waitFor("[role=alert][data-kind=refused]", { timeout: 20000 });
    assert.match(await s.text("[role=alert]"), /not added/);
    assert.deepEqual(hosts(), []);
    // Confirmed: added, and shown.
    await s.click("[data-testid=machine-add-submit]");
    assert.ok(clickNativeDialog("^Connect to lab \\(me@lab\\.example\\)", 0.75));
    await s.waitFor("[data-testid=machine-row][data-machine=lab]", { timeout: 20000 });
    assert.deepEqual(hosts(), ["lab"]);
  });
});
