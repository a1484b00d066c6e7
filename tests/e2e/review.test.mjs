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
    const before = readFileSync(planPath, "utf8");
    await s.exec(`window.__csp = []; document.addEventListener("securitypolicyviolation", (e) => window.__csp.push(e.violatedDirective + " " + e.blockedURI));`);
    await s.click("[data-testid=edit]");
    await s.waitFor(".cm-content .cm-line");
    // What a person sees: the editor is styled (CodeMirror's own styles applied under the CSP),
    // the gutter beside the text, and the lines in view are the plan's.
    const seen = await s.exec(`
      const box = (e) => { const r = e.getBoundingClientRect(); return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width, height: r.height }; };
      const scroller = box(document.querySelector(".cm-scroller"));
      const lines = [...document.querySelectorAll(".cm-content .cm-line")].map((l) => ({ text: l.textContent, ...box(l) }));
      const inView = lines.filter((l) => l.height > 0 && l.width > 0 && l.top >= Math.max(0, scroller.top) - 1 && l.bottom <= Math.min(innerHeight, scroller.bottom) + 1);
      return {
        csp: window.__csp,
        display: getComputedStyle(document.querySelector(".cm-editor")).display,
        gutter: box(document.querySelector(".cm-gutters")),
        content: box(document.querySelector(".cm-content")),
        inView: inView.map((l) => l.text),
        lines: lines.length,
      };`);
    assert.deepEqual(seen.csp, [], "no style or script refused by the CSP");
    assert.equal(seen.display, "flex", "CodeMirror's base theme applies");
    assert.ok(seen.gutter.right <= seen.content.left + 1, `the gutter is beside the text, not above it: ${JSON.stringify(seen)}`);
    assert.ok(Math.abs(seen.gutter.top - seen.content.top) < 8, `gutter and text start on the same row: ${JSON.stringify(seen)}`);
    // CodeMirror shows one line per line of the text (a final newline gives a last empty line).
    const planLines = before.split("\n");
    assert.ok(seen.inView.length >= Math.min(10, planLines.length), `the plan's lines are in view: ${JSON.stringify(seen)}`);
    assert.deepEqual(seen.inView, planLines.slice(0, seen.inView.length), "the lines in view are the plan's, in order");
    await s.screenshot("editor-open");
    // Each line's rendered text (WebDriver's element text: what is visible) is the plan's line,
    // and the lines stack down the page.
    const lineEls = await s.findAll(".cm-content .cm-line");
    const shown = [];
    for (const el of lineEls) shown.push(await s.cmd("GET", `/element/${el}/text`));
    assert.deepEqual(shown.map((t) => t.trim()), planLines.map((t) => t.trim()));
    const tops = await s.exec(`return [...document.querySelectorAll(".cm-content .cm-line")].map((l) => l.getBoundingClientRect().top)`);
    assert.ok(tops.every((t, i) => i === 0 || t > tops[i - 1]), `one line under the other: ${tops}`);

    // An edit typed with real keystrokes: Ctrl+End (the empty line after the final newline), then
    // the text.
    await s.cmd("POST", "/actions", {
      actions: [{ type: "key", id: "kb", actions: [{ type: "keyDown", value: "\uE009" }, { type: "keyDown", value: "\uE010" }, { type: "keyUp", value: "\uE010" }, { type: "keyUp", value: "\uE009" }] }],
    });
    await s.cmd("DELETE", "/actions");
    await s.keys("4. Reviewer note: exempt health checks.");
    await s.waitForText("exempt health checks", ".cm-content");
    await s.screenshot("editor-typed");
    await s.click("[data-testid=approve-edit]");
    await s.waitForText("your edit was written to the plan file", "[data-testid=review-notice]");
    await s.waitForText("Recorded only: no agent is waiting for this plan", "[data-testid=review-notice]");
    const after = readFileSync(planPath, "utf8");
    assert.equal(after, `${before}4. Reviewer note: exempt health checks.`);
    await s.waitFor("[data-testid=plan-detail] .badge[data-state=approved]");

    // The agent changes the plan after approval, while it is shown (issue 33): the view keeps
    // the text it showed, says the file changed with what changed, and decides nothing until the
    // person shows the new version.
    writeFileSync(planPath, readFileSync(planPath, "utf8").replace("100 requests/minute", "1000 requests/minute"));
    await s.waitFor("[data-testid=plan-detail] .badge[data-state=changed]", { timeout: 20000 });
    await s.waitForText("This plan changed since you opened it", "[data-testid=plan-changed]", { timeout: 20000 });
    await s.waitFor("[data-testid=plan-changed] .insert");
    assert.match(await s.text("[data-testid=plan-changed]"), /1000/);
    assert.doesNotMatch(await s.text("[data-testid=plan-html]"), /1000 requests/, "the text shown is still the one opened");
    const disabled = () => s.exec(`return ["approve", "reject", "edit"].map((t) => document.querySelector("[data-testid=plan-detail] [data-testid=" + t + "]").disabled)`);
    assert.deepEqual(await disabled(), [true, true, true], "no decision on a version not seen");
    // `a` does nothing either: nothing is recorded.
    await s.exec(`document.activeElement?.blur()`);
    await s.keys("a");
    await s.screenshot("plan-changed-while-shown");
    assert.equal(JSON.parse(cli(home, ["log", "--plan", planPath, "--json"]).stdout).length, 1, "nothing decided on the unseen version");
    await s.click("[data-testid=show-new-version]");
    await s.waitForText("1000 requests", "[data-testid=plan-html]");
    assert.deepEqual(await disabled(), [false, false, false]);
    await s.click("[data-tab=diff]");
    await s.waitFor("[data-testid=plan-diff]");
    const diffText = await s.text("[data-testid=plan-diff]");
    assert.match(diffText, /1000/);
    await s.screenshot("review-diff");

    // An edit with no change: approved as is, nothing written, and the banner says so.
    const unchanged = readFileSync(planPath, "utf8");
    await s.click("[data-testid=edit]");
    await s.waitFor(".cm-content .cm-line");
    await s.click("[data-testid=approve-edit]");
    await s.waitForText("No changes: approved as is.", "[data-testid=review-notice]");
    assert.doesNotMatch(await s.text("[data-testid=review-notice]"), /written/);
    assert.equal(readFileSync(planPath, "utf8"), unchanged);
    // `a` on the version just approved: already approved, nothing new recorded.
    await s.exec(`document.activeElement?.blur()`);
    await s.keys("a");
    await s.waitForText("Already approved", "[data-testid=review-notice]");
  });
  const log = JSON.parse(cli(home, ["log", "--plan", planPath, "--json"]).stdout);
  assert.equal(log[0].decision, "approved");
  assert.equal(log[0].edited, false, "the unchanged edit is a plain approval");
  assert.equal(log[1].decision, "approved");
  assert.equal(log[1].edited, true);
  assert.equal(log.length, 2, "`a` on an approved version recorded nothing");
});

test("a record-only decision says so and can be undone; the log keeps both lines", async () => {
  const { home } = makeDemoHome();
  await withApp({ home }, async (s) => {
    await s.waitForText("rate limiting", "[aria-label=Plans]");
    await s.exec(`[...document.querySelectorAll("[data-testid=plan-row]")].find(e => e.innerText.includes("rate limiting")).click()`);
    await s.waitForText("Token bucket", "[data-testid=plan-detail]");
    await s.click("[data-testid=plan-detail] [data-testid=reject]");
    await s.type("[data-testid=feedback]", "Say which store holds the buckets.");
    await s.click("[data-testid=send-reject]");
    await s.waitForText("Recorded only: no agent is waiting for this plan.", "[data-testid=review-notice]");
    await s.screenshot("record-only-reject");
    await s.click("[data-testid=undo-decision]");
    await s.waitForText("Undone", "[data-testid=review-notice]");
  });
  const log = JSON.parse(cli(home, ["log", "--json"]).stdout);
  const rejected = log.find((d) => d.feedback === "Say which store holds the buckets." && !d.revokes);
  assert.ok(rejected, JSON.stringify(log));
  assert.equal(log[0].revokes, rejected.id, "the newest line undoes the rejection");
});
