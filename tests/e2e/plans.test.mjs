// Plans in the real window: live updates from disk, and hostile plans rendered inert in WebKit.

import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync, renameSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { makeDemoHome, withApp } from "./webdriver.mjs";

test("a plan written, changed and deleted on disk shows up in the open window", async () => {
  const { home } = makeDemoHome();
  const plans = join(home, ".claude/plans");
  await withApp({ home }, async (s) => {
    await s.waitForText("cursor pagination");
    writeFileSync(join(plans, "live-brave-fox.md"), "# Plan: live reload works\n\nfirst version\n");
    await s.waitForText("live reload works", "[aria-label=Plans]");
    await s.exec(`[...document.querySelectorAll("[data-testid=plan-row]")].find(e => e.innerText.includes("live reload works")).click()`);
    await s.waitForText("first version", "[data-testid=plan-detail]");
    writeFileSync(join(plans, "live-brave-fox.md"), "# Plan: live reload works\n\nsecond version\n");
    await s.waitForText("second version", "[data-testid=plan-detail]");
    renameSync(join(plans, "live-brave-fox.md"), join(plans, "renamed-brave-fox.md"));
    await s.waitFor(`[data-testid=plan-row]`);
    unlinkSync(join(plans, "renamed-brave-fox.md"));
    await s.waitForText("gone", "[data-testid=plan-detail]", { timeout: 15000 }).catch(() => {});
    const list = await s.text("[aria-label=Plans]");
    assert.doesNotMatch(list, /live reload works/);
    await s.screenshot("plans-live");
  });
});

test("a hostile plan is rendered inert: nothing executes in the webview", async () => {
  const { home } = makeDemoHome();
  const payload = [
    "# Plan: hostile",
    "",
    "<script>window.__pwned = 'script'</script>",
    "<img src=x onerror=\"window.__pwned='img'\">",
    "<svg onload=\"window.__pwned='svg'\"><circle r=1 /></svg>",
    "<iframe srcdoc=\"<script>parent.__pwned='iframe'</script>\"></iframe>",
    "<object data=\"javascript:window.__pwned='object'\"></object>",
    "<a href=\"javascript:window.__pwned='link'\" id=\"jslink\">click me</a>",
    "[md link](javascript:window.__pwned='mdlink')",
    "<form action=\"javascript:window.__pwned='form'\"><button id=\"formbtn\">go</button></form>",
    "<style>body{display:none}</style>",
    "<div style=\"background:url(javascript:window.__pwned='style')\" onmouseover=\"window.__pwned='hover'\">hover me</div>",
    "",
    "Some **real** text stays.",
  ].join("\n");
  writeFileSync(join(home, ".claude/plans/aaa-hostile-plan.md"), payload);
  await withApp({ home }, async (s) => {
    await s.waitForText("hostile", "[aria-label=Plans]");
    await s.exec(`[...document.querySelectorAll("[data-testid=plan-row]")].find(e => e.innerText.includes("hostile")).click()`);
    await s.waitForText("real text stays", "[data-testid=plan-html]");
    // Try to trigger what could fire: click every link and button inside the rendered plan.
    await s.exec(`for (const a of document.querySelectorAll("[data-testid=plan-html] a, [data-testid=plan-html] button")) { try { a.click(); } catch (e) {} }`);
    await new Promise((r) => setTimeout(r, 500)); // give a handler the chance to run, were there one
    const report = await s.exec(`
      const root = document.querySelector("[data-testid=plan-html]");
      return {
        pwned: window.__pwned ?? null,
        dangerous: root.querySelectorAll("script, iframe, object, embed, form, style, svg, [onerror], [onload], [onmouseover], [style]").length,
        jsLinks: [...root.querySelectorAll("a")].filter(a => (a.getAttribute("href") || "").toLowerCase().includes("javascript")).length,
        bodyVisible: getComputedStyle(document.body).display !== "none",
      };`);
    assert.deepEqual(report, { pwned: null, dangerous: 0, jsLinks: 0, bodyVisible: true });
  });
});
