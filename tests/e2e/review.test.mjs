// Review in the real window: edit and approve, then a change on disk shows as "changed" with its diff.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cli, makeDemoHome, withApp } from "./webdriver.mjs";

test("edit and approve writes the plan; a later change on disk shows as changed with the diff", async () => {
  const { home } = makeDemoHome();
  const planPath = join(home, ".claude/plans/shop-rate-limit-quiet-heron.md");
  await withApp({ home }, async (s) => {
    await s.waitForText("rate limiting", "[aria-label=Plans]");
    await s.exec(`[...document.querySelectorAll("[data-testid=plan-row]")].find(e => e.innerText.includes("rate limiting")).click()`);
    await s.waitForText("Token bucket", "[data-testid=plan-detail]");
    await s.click("[data-testid=edit]");
    await s.waitFor(".cm-content");
    // Type at the end of the document in the CodeMirror editor.
    await s.exec(`document.querySelector(".cm-content").focus()`);
    await s.keys("\uE010"); // End
    await s.exec(`const el = document.querySelector(".cm-content"); el.focus(); const sel = window.getSelection(); sel.selectAllChildren(el); sel.collapseToEnd();`);
    await s.keys("\n4. Reviewer note: exempt health checks.\n");
    await s.click("[data-testid=approve-edit]");
    await s.waitForText("written to the plan file", "[data-testid=plan-detail]");
    assert.match(readFileSync(planPath, "utf8"), /exempt health checks/);
    await s.waitFor("[data-testid=plan-detail] .badge[data-state=approved]");

    // The agent changes the plan after approval.
    writeFileSync(planPath, readFileSync(planPath, "utf8").replace("100 requests/minute", "1000 requests/minute"));
    await s.waitFor("[data-testid=plan-detail] .badge[data-state=changed]", { timeout: 20000 });
    await s.click("[data-tab=diff]");
    await s.waitFor("[data-testid=plan-diff]");
    const diffText = await s.text("[data-testid=plan-diff]");
    assert.match(diffText, /1000/);
    await s.screenshot("review-diff");
  });
  const log = JSON.parse(cli(home, ["log", "--json"]).stdout);
  assert.equal(log[0].decision, "approved");
  assert.equal(log[0].edited, true);
});
