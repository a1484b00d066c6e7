// Hooks from the Settings view in the real window: the change is shown, and its one Install button
// writes it (no second, native dialog; Cancel writes nothing), and a settings file that changed
// since the change was shown is refused, never overwritten. The Stop hook is installed the same way.

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor, withApp } from "./webdriver.mjs";

/** How many windows titled `title…` are open (a native dialog is a separate X window). */
const nativeDialogs = (title) =>
  spawnSync("xdotool", ["search", "--name", `^${title}`], { encoding: "utf8", timeout: 5000 }).stdout.trim().split("\n").filter(Boolean).length;

test("installing a hook from the window: the change is shown, one Install writes it (no second dialog), a file changed since shown is refused", async () => {
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

    // Cancel: nothing written, nothing said.
    await s.click("[data-testid=hook-claude] .diff ~ .row button:not(.primary)");
    assert.equal(readFileSync(settings, "utf8"), original);
    await s.click("[data-testid=hook-claude] button");
    await s.waitForText("ExitPlanMode", "[data-testid=hook-claude] .diff");
    await s.screenshot("settings-confirm");

    // The shown change is the one confirmation: Install writes it, no native dialog asks again.
    await s.click("[data-testid=apply-hook]");
    await s.waitForText("Backup", "[role=status]");
    assert.equal(nativeDialogs("Install the Plandeck hook"), 0, "no second, native confirmation");
    const written = readFileSync(settings, "utf8");
    assert.match(written, /ExitPlanMode/);
    assert.match(written, /18446744073709551617/);
    await s.waitFor("[data-testid=hook-claude] .badge.ok");

    // Changed on disk after the uninstall diff was shown: refused, kept as is.
    await s.click("[data-testid=hook-claude] button");
    await s.waitFor("[data-testid=apply-hook]");
    const theirs = written.replace('"model": "opus"', '"model": "sonnet"');
    writeFileSync(settings, theirs);
    await s.click("[data-testid=apply-hook]");
    await s.waitFor("[role=alert][data-kind=conflict]");
    assert.match(await s.text("[role=alert]"), /changed since/);
    assert.equal(readFileSync(settings, "utf8"), theirs);
    await waitFor(async () => (await s.text("[data-testid=hook-claude] .diff")).includes("sonnet"), { what: "the new diff to be shown" });

    // The Stop hook (verification) is installed the same way.
    await s.waitForText("not installed", "[data-testid=hook-claude-stop]");
    await s.click("[data-testid=hook-claude-stop] button");
    await s.waitForText("claude-stop", "[data-testid=hook-claude-stop] .diff");
    await s.click("[data-testid=hook-claude-stop] [data-testid=apply-hook]");
    await s.waitFor("[data-testid=hook-claude-stop] .badge.ok");
    assert.match(readFileSync(settings, "utf8"), /hook claude-stop/);
  });
});
