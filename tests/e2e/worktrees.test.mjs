// Worktrees in the real window: a clean worktree is removed; a dirty one is not removed unless the
// person confirms in the native dialog (here the dialog is cancelled with Escape through xdotool).

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { clickNativeDialog, makeDemoHome, waitFor, withApp } from "./webdriver.mjs";

/** Clicks the confirming (right) button of the native "Remove …?" dialog. */
function confirmNativeDialog() {
  return clickNativeDialog("^Remove ", 0.75);
}

/** Clicks its Cancel (left) button. */
function cancelNativeDialog() {
  return clickNativeDialog("^Remove ", 0.25);
}

test("removes a clean worktree once confirmed; a dirty one stays unless confirmed", async () => {
  const { home, repo } = makeDemoHome();
  const clean = join(home, "work/shop-docs");
  const dirty = join(repo, ".claude/worktrees/pagination");
  await withApp({ home }, async (s) => {
    await s.click("[data-view=worktrees]");
    await s.waitFor(`[data-testid=worktree-row][data-path="${clean}"]`);
    // The window knows each worktree by the listing's id (its commands send ids, not paths).
    const id = await s.exec(`return document.querySelector(arguments[0])?.dataset.id ?? "";`, `[data-testid=worktree-row][data-path="${clean}"]`);
    assert.match(id, /^[0-9a-f]{12}$/);
    // Sizes are not walked by the listing: each fills in once measured in the background.
    const cleanSize = `[data-testid=worktree-row][data-path="${clean}"] [data-testid=worktree-size]`;
    await waitFor(async () => /^\d+(\.\d)? (B|KB|MB|GB)$/.test(await s.text(cleanSize)), { what: "the clean worktree's size to fill in" });
    // Counts follow the files live: a new untracked file in the dirty worktree is counted.
    const dirtyCount = `[data-testid=worktree-row][data-path="${dirty}"] [data-testid=changed-files]`;
    await waitFor(async () => (await s.text(dirtyCount)) === "2", { what: "2 changed files at first" });
    writeFileSync(join(dirty, "scratch.txt"), "more work\n");
    await waitFor(async () => (await s.text(dirtyCount)) === "3", { what: "the new file to be counted live" });
    // Even a removal that loses nothing is confirmed in a native dialog first.
    await s.click(`[data-testid=worktree-row][data-path="${clean}"] [data-testid=remove-worktree]`);
    assert.ok(confirmNativeDialog(), "a native confirmation dialog was shown for the clean worktree");
    await s.waitForText("saved as", "[data-testid=worktree-notice]");
    assert.equal(existsSync(clean), false, "the clean worktree is gone");
    await s.screenshot("worktrees-removed");

    await s.click(`[data-testid=worktree-row][data-path="${dirty}"] [data-testid=remove-worktree]`);
    await s.screenshot("worktrees-confirm");
    assert.ok(cancelNativeDialog(), "a native confirmation dialog was shown");
    await s.waitForText("Cancelled: nothing was removed", "[data-testid=worktree-notice]");
    assert.ok(existsSync(join(dirty, "NOTES.md")), "the dirty worktree and its untracked file are still there");
  });
});

test("a person's tmux pane in a worktree is named in the confirmation and never ended", async () => {
  const { home } = makeDemoHome();
  const clean = join(home, "work/shop-docs");
  // The person's shell, in a tmux server of its own; the app finds it through $TMUX as it would
  // inside the person's tmux.
  const dir = mkdtempSync(join(tmpdir(), "plandeck-e2e-tmux-"));
  const sock = join(dir, "sock");
  const tmux = (...args) => spawnSync("tmux", ["-S", sock, ...args], { encoding: "utf8", timeout: 15000, env: { ...process.env, TMUX: "" } });
  const started = tmux("-f", "/dev/null", "new-session", "-d", "-s", "person", "-c", clean, "sh");
  assert.equal(started.status, 0, started.stderr);
  try {
    await withApp({ home, env: { TMUX: `${sock},0,0` } }, async (s) => {
      await s.click("[data-view=worktrees]");
      const row = `[data-testid=worktree-row][data-path="${clean}"]`;
      await s.waitFor(row);
      // Clean, but the person's pane is in it: removal asks first (a native dialog), and Cancel
      // leaves everything.
      await s.click(`${row} [data-testid=remove-worktree]`);
      await s.screenshot("worktrees-confirm-person-pane");
      assert.ok(cancelNativeDialog(), "a native confirmation dialog was shown for the person's pane");
      await s.waitForText("Cancelled: nothing was removed", "[data-testid=worktree-notice]");
      assert.ok(existsSync(clean), "the worktree is still there");
      assert.equal(tmux("has-session", "-t", "=person").status, 0, "the person's tmux session is alive");
    });
  } finally {
    tmux("kill-server");
    rmSync(dir, { recursive: true, force: true });
  }
});
