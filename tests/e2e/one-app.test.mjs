// One running app: a second launch of the window (a desktop entry click while Plandeck runs) hands
// over to the running window, which comes to the front, and exits instead of starting a second app
// that would watch, notify and deliver twice. CLI subcommands keep working beside the window.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { withApp, plandeckBin, envFor, makeDemoHome, waitFor } from "./webdriver.mjs";

/** A private D-Bus session bus (the lock is a name on it): nothing of the person's session. */
async function sessionBus() {
  const daemon = spawn("dbus-daemon", ["--session", "--nofork", "--print-address=1"], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  let out = "";
  daemon.stdout.on("data", (d) => (out += d));
  const address = await waitFor(() => out.includes("\n") && out.trim(), { what: "dbus-daemon" });
  return { address, stop: () => daemon.kill() };
}

function xdotool(...args) {
  const r = spawnSync("xdotool", args, { encoding: "utf8", timeout: 20000 });
  return r.status === 0 ? r.stdout.trim() : "";
}

const rootWindow = () => {
  const r = spawnSync("xwininfo", ["-root"], { encoding: "utf8" });
  return String(parseInt(r.stdout.match(/Window id: (0x[0-9a-f]+)/)[1], 16));
};

/** The pids of plandeck processes running on `home`. */
function appsOn(home) {
  const pids = [];
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      // `plandeck` becomes `plandeck-window` beside it (exec: same pid, the window's argv[0]).
      const argv0 = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0];
      if (argv0 !== plandeckBin() && argv0 !== join(dirname(plandeckBin()), "plandeck-window")) continue;
      if (readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(`HOME=${home}`)) {
        pids.push(pid);
      }
    } catch {
      /* gone */
    }
  }
  return pids;
}

test("a second launch focuses the running window and exits; the CLI works beside it", async () => {
  const bus = await sessionBus();
  const { home } = makeDemoHome();
  const env = { DBUS_SESSION_BUS_ADDRESS: bus.address };
  try {
    await withApp({ home, env }, async (s) => {
      await s.waitFor("[data-testid=plan-row]");
      const [first] = await waitFor(() => appsOn(home).length === 1 && appsOn(home), {
        what: "the first app",
      });
      const window = await waitFor(() => xdotool("search", "--onlyvisible", "--pid", first), {
        what: "the first app's window",
      });
      // Focus goes elsewhere (no window manager here: the root window).
      xdotool("windowfocus", "--sync", rootWindow());
      assert.notEqual(xdotool("getwindowfocus"), window);

      const second = spawnSync(plandeckBin(), [], {
        encoding: "utf8",
        env: { ...envFor(home), ...env },
        timeout: 30000,
      });
      assert.equal(second.error, undefined, "the second launch did not exit: a second app runs");
      assert.equal(second.status, 0, second.stderr);
      assert.deepEqual(appsOn(home), [first], "one app on this store");
      await waitFor(() => xdotool("getwindowfocus") === window, {
        what: "the running window to be focused",
      });
      await s.waitForText("cursor pagination"); // and it still answers

      // The command line beside the running window, on the same bus.
      const list = spawnSync(plandeckBin(), ["plans", "list", "--json"], {
        encoding: "utf8",
        env: { ...envFor(home), ...env },
        timeout: 60000,
      });
      assert.equal(list.status, 0, list.stderr);
      assert.ok(JSON.parse(list.stdout).length > 0);
      assert.deepEqual(appsOn(home), [first]);
    });
  } finally {
    bus.stop();
  }
});
