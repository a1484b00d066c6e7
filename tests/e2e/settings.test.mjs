// Hooks from the Settings view in the real window: the change is shown, then confirmed in a native
// dialog opened by the shell (cancelled: nothing written; confirmed: written), and a settings file
// that changed since the change was shown is refused, never overwritten.

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor, withApp } from "./webdriver.mjs";

/** Clicks the left (`which` = 0.25: the action) or right (0.75: Cancel) button of the native
 * dialog whose title starts with `title`; false when no such dialog shows up. */
function answerNativeDialog(title, which) {
  // No window manager under Xvfb to focus it: click with the real pointer, as a person would.
  const found = spawnSync("xdotool", ["search", "--sync", "--limit", "1", "--name", `^${title}`], { encoding: "utf8", timeout: 15000 });
  const win = found.stdout.trim().split("\n")[0];
  if (!win) return false;
  const geo = spawnSync("xdotool", ["getwindowgeometry", "--shell", win], { encoding: "utf8", timeout: 5000 }).stdout;
  const width = Number(/WIDTH=(\d+)/.exec(geo)?.[1] ?? 0);
  const height = Number(/HEIGHT=(\d+)/.exec(geo)?.[1] ?? 0);
  if (!width || !height) return false;
  spawnSync("xdotool", ["mousemove", "--window", win, String(Math.round(width * which)), String(height - 16), "click", "1"], { timeout: 5000 });
  return true;
}

test("installing a hook from the window passes a native confirmation and refuses a file changed since shown", async () => {
  const home = mkdtempSync(join(tmpdir(), "plandeck-e2e-settings-"));
  const settings = join(home, ".claude/settings.json");
  mkdirSync(join(home, ".claude"), { recursive: true });
  const original = '{\n  "model": "opus",\n  "big": 18446744073709551617\n}\n';
  writeFileSync(settings, original);
  await withApp({ home }, async (s) => {
    await s.click("[data-view=settings]");
    await s.waitForText("not installed", "[data-testid=hook-claude]");
    await s.click("[data-testid=hook-claude] button");
    await s.waitForText("ExitPlanMode", "[data-testid=hook-claude] .diff");

    // Cancelled in the native dialog: nothing written.
    await s.click("[data-testid=apply-hook]");
    assert.ok(answerNativeDialog("Install the Plandeck hook", 0.75), "a native confirmation dialog was shown");
    await s.waitForText("nothing was written", "[role=status]");
    assert.equal(readFileSync(settings, "utf8"), original);

    // Confirmed: written, every other key and the big number kept.
    await s.click("[data-testid=apply-hook]");
    spawnSync("xdotool", ["search", "--sync", "--limit", "1", "--name", "^Install the Plandeck hook"], { timeout: 15000 });
    await s.screenshot("settings-confirm");
    assert.ok(answerNativeDialog("Install the Plandeck hook", 0.25), "a native confirmation dialog was shown");
    await s.waitForText("Backup", "[role=status]");
    const written = readFileSync(settings, "utf8");
    assert.match(written, /ExitPlanMode/);
    assert.match(written, /18446744073709551617/);
    await s.waitForText("installed", "[data-testid=hook-claude] .badge");

    // Changed on disk after the uninstall diff was shown: refused before any dialog, kept as is.
    await s.click("[data-testid=hook-claude] button");
    await s.waitFor("[data-testid=apply-hook]");
    const theirs = written.replace('"model": "opus"', '"model": "sonnet"');
    writeFileSync(settings, theirs);
    await s.click("[data-testid=apply-hook]");
    await s.waitFor("[role=alert][data-kind=conflict]");
    assert.match(await s.text("[role=alert]"), /changed since/);
    assert.equal(readFileSync(settings, "utf8"), theirs);
    await waitFor(async () => (await s.text("[data-testid=hook-claude] .diff")).includes("sonnet"), { what: "the new diff to be shown" });
  });
});
