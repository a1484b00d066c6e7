// Plan history in the real window: a plan whose file is gone is recovered from the agent's
// transcript, listed with its versions and decisions, and restored to its own path.

import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cli, ROOT, withApp } from "./webdriver.mjs";

/** Copies the real Claude Code fixtures into `home/.claude`, the recorded /home/dev as `home`. */
function claudeHome() {
  const home = join(mkdtempSync(join(tmpdir(), "plandeck-e2e-history-")), "home");
  const claude = join(home, ".claude");
  cpSync(join(ROOT, "tests/fixtures/claude-code-2.1.328"), claude, { recursive: true });
  const rewrite = (dir) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) rewrite(p);
      else writeFileSync(p, readFileSync(p, "utf8").replaceAll("/home/dev", home));
    }
  };
  rewrite(claude);
  mkdirSync(join(home, "work/api"), { recursive: true });
  return { home, plans: join(claude, "plans") };
}

test("a plan whose file was deleted is listed from its transcript, shows its history, and is restored", async () => {
  const { home, plans } = claudeHome();
  // The plans folder is swept: every plan file is gone, the transcripts remain.
  for (const f of readdirSync(plans)) rmSync(join(plans, f));

  const listed = cli(home, ["plans", "list", "--json"]);
  assert.equal(listed.status, 0, `${listed.error ?? ""} ${listed.stderr}`);
  const recovered = JSON.parse(listed.stdout).filter((p) => p.source === "transcript" && p.path);
  assert.ok(recovered.length >= 3, listed.stdout);
  // One whose last version was rejected by a hook, so its history carries the feedback.
  const history = (id) => JSON.parse(cli(home, ["plans", "history", id, "--json"]).stdout);
  const target = recovered.find((p) => history(p.id).some((v) => v.verdict === "rejected" && v.decidedIn === "hook")) ?? recovered[0];
  const versions = history(target.id);

  await withApp({ home }, async (s) => {
    await s.waitFor(`[data-testid=transcript-row][data-id="${target.id}"]`, { timeout: 30000 });
    await s.exec(`document.querySelector('[data-testid=transcript-row][data-id="${target.id}"]').click()`);
    await s.waitFor("[data-testid=transcript-version]");
    const shown = await s.exec(
      `return [...document.querySelectorAll("[data-testid=transcript-version]")].map(e => e.dataset.verdict)`,
    );
    assert.deepEqual(shown, versions.map((v) => v.verdict ?? ""));
    const text = await s.text("[data-testid=transcript-history]");
    assert.match(text, /from transcript/);
    if (versions.some((v) => v.decidedIn === "hook")) assert.match(text, /by a hook/);
    await s.screenshot("history-recovered");

    await s.exec(`document.querySelector("[data-testid=restore-plan]").click()`);
    await s.waitFor("[data-testid=restore-notice]");
    assert.ok(existsSync(target.path), `${target.path} was restored`);
    const last = versions[versions.length - 1];
    assert.equal(readFileSync(target.path, "utf8").trimEnd(), (last.approvedText ?? last.text).trimEnd());
    // Restored, it is a plan file again: listed among the plans.
    await s.waitFor(`[data-testid=plan-row]`, { timeout: 20000 });
  });

  // Restore never writes over a file holding other text.
  writeFileSync(target.path, "# someone else's plan\n");
  const again = cli(home, ["plans", "restore", target.id]);
  assert.notEqual(again.status, 0);
  assert.match(again.stderr, /different text/);
  assert.equal(readFileSync(target.path, "utf8"), "# someone else's plan\n");
});
