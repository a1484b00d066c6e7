// Plan history in the real window: a plan whose file is gone is recovered from the agent's
// transcript, listed with its versions and decisions, and restored to its own path.

import { test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cli, ROOT, waitFor, withApp } from "./webdriver.mjs";

/** Copies the real Claude Code fixtures into `home/.claude` (and with `codex`, the Codex CLI ones
 * into `home/.codex`), the recorded /home/dev as `home`. */
function claudeHome({ codex = false } = {}) {
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
  if (codex) {
    cpSync(join(ROOT, "tests/fixtures/codex-cli-0.169.0"), join(home, ".codex"), { recursive: true });
    rewrite(join(home, ".codex"));
  }
  mkdirSync(join(home, "work/api"), { recursive: true });
  return { home, plans: join(claude, "plans") };
}

test("a plan whose file was deleted is listed from its transcript, shows its history, and is restored", async () => {
  const { home, plans } = claudeHome({ codex: true });
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
  // One with two versions or more, to compare two of them.
  const multi = JSON.parse(listed.stdout).find((p) => p.source === "transcript" && history(p.id).length >= 2);
  assert.ok(multi, "a recovered plan with two versions");
  const diff = JSON.parse(cli(home, ["plans", "history", multi.id, "--diff", "1", "2", "--json"]).stdout);
  assert.ok(diff.stats.added + diff.stats.removed > 0, JSON.stringify(diff.stats));

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

    // Two versions compared, picked with the keyboard: Space on a focused version.
    await s.exec(`document.querySelector('[data-testid=transcript-row][data-id="${multi.id}"]').click()`);
    await s.waitFor(`[data-testid=transcript-version]:nth-child(2) [data-testid=compare-version]`);
    for (const n of [1, 2]) {
      await s.exec(`document.querySelector("[data-testid=transcript-version]:nth-child(${n})").focus()`);
      await s.keys(" ");
    }
    await s.waitFor("[data-testid=version-diff] [data-testid=plan-diff]");
    const summary = await s.text("[data-testid=version-diff] [data-testid=plan-diff] .summary");
    assert.match(summary, new RegExp(`\\+${diff.stats.added}\\s*−${diff.stats.removed}`));
    const inserted = await s.exec(
      `return [...document.querySelectorAll("[data-testid=version-diff] td.code.insert")].map(e => e.textContent.slice(1))`,
    );
    const added = diff.hunks.flatMap((h) => h.lines).filter((l) => l.kind === "insert").map((l) => l.segments.map((x) => x.text).join(""));
    assert.deepEqual(inserted, added);
    await s.screenshot("history-diff");
    await s.exec(`document.querySelector('[data-testid=transcript-row][data-id="${target.id}"]').click()`);
    await s.waitFor("[data-testid=restore-plan]");

    await s.exec(`document.querySelector("[data-testid=restore-plan]").click()`);
    await s.waitFor("[data-testid=restore-notice]");
    assert.ok(existsSync(target.path), `${target.path} was restored`);
    const last = versions[versions.length - 1];
    assert.equal(readFileSync(target.path, "utf8").trimEnd(), (last.approvedText ?? last.text).trimEnd());
    // Restored, it is a plan file again: listed among the plans, its own row (its id as the CLI
    // lists the file).
    const listed = JSON.parse(cli(home, ["plans", "list", "--json"]).stdout);
    const restored = (Array.isArray(listed) ? listed : listed.plans).find((p) => p.path === target.path);
    assert.ok(restored, `plandeck plans list has ${target.path}`);
    await s.waitFor(`[data-testid=plan-row][data-id="${restored.id}"]`, { timeout: 20000 });
  });

  // Restore never writes over a file holding other text.
  writeFileSync(target.path, "# someone else's plan\n");
  const again = cli(home, ["plans", "restore", target.id]);
  assert.notEqual(again.status, 0);
  assert.match(again.stderr, /different text/);
  assert.equal(readFileSync(target.path, "utf8"), "# someone else's plan\n");
});

test("the first scan runs in the background with its progress shown, and new transcript records show up live", async () => {
  const { home } = claudeHome();
  const projects = join(home, ".claude/projects");
  const transcripts = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith(".jsonl")) transcripts.push(p);
    }
  };
  walk(projects);
  const bytes = transcripts.reduce((n, p) => n + statSync(p).size, 0);
  // No CLI call first: the window's own scan reads every transcript.
  await withApp({ home }, async (s) => {
    await s.waitFor("[data-testid=plan-row]");
    await s.waitFor("[data-testid=transcripts-progress][data-done=true]", { timeout: 30000 });
    const line = await s.text("[data-testid=transcripts-progress]");
    // In the total's unit (ui/src/lib/size.ts): this small home's transcripts are KB, not "0.1 MB".
    const units = ["B", "KB", "MB", "GB"];
    let div = 1;
    let unit = 0;
    while (bytes >= div * 1024 && unit < units.length - 1) {
      div *= 1024;
      unit++;
    }
    const figure = (bytes / div).toFixed(div > 1 && bytes / div < 10 ? 1 : 0);
    assert.equal(line, `Read ${transcripts.length} of ${transcripts.length} transcripts (${figure} of ${figure} ${units[unit]})`);

    // An agent submits a plan whose file is never written: the watcher reads the appended
    // record and the plan shows up under From transcripts, no reload.
    const before = await s.exec(`return document.querySelectorAll("[data-testid=transcript-row]").length`);
    const one = transcripts.find((p) => !p.includes("/subagents/"));
    const sid = JSON.parse(readFileSync(one, "utf8").split("\n").find((l) => l.includes('"sessionId"'))).sessionId;
    const record = {
      type: "assistant", sessionId: sid, timestamp: "2026-12-01T00:00:00.000Z",
      message: { content: [{ type: "tool_use", id: "toolu_live", name: "ExitPlanMode",
        input: { plan: "# Plan: live from the transcript\n", planFilePath: join(home, ".claude/plans/live-only.md") } }] },
    };
    appendFileSync(one, JSON.stringify(record) + "\n");
    await s.waitFor(`[data-testid=transcript-row]`, { timeout: 20000 });
    await waitFor(
      async () => (await s.exec(`return document.querySelectorAll("[data-testid=transcript-row]").length`)) === before + 1,
      { timeout: 20000, what: "the new plan listed" },
    );
    assert.match(await s.exec(`return document.body.innerText`), /Plan: live from the transcript/);
  });
});
