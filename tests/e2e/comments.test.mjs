// Comments in the real window: comment on two blocks of a plan, the agent revises the plan on
// disk, one comment stays open and the other turns outdated; the rejection carries the open one
// with its quote, and the log records what was sent.

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cli, makeDemoHome, waitFor, withApp } from "./webdriver.mjs";

const PLAN = [
  "# Plan: rate limiting",
  "",
  "1. Add a token bucket per API key in `middleware/limit.rs`.",
  "2. Return `429` with a `Retry-After` header.",
  "3. Log every rejected request at info level.",
  "",
].join("\n");

/** Selects `quote` in the plan's source view (a real DOM selection) and comments `text` on it. */
async function commentOn(s, quote, text) {
  await s.exec(
    `const pre = document.querySelector("[data-testid=plan-source]");
     const node = pre.firstChild; const at = node.data.indexOf(arguments[0]);
     const range = document.createRange(); range.setStart(node, at); range.setEnd(node, at + arguments[0].length);
     const sel = getSelection(); sel.removeAllRanges(); sel.addRange(range);
     document.querySelector("[data-testid=comment]").click();`,
    quote,
  );
  await s.waitFor("[data-testid=comment-text]");
  await s.type("[data-testid=comment-text]", text);
  await s.click("[data-testid=comment-save]");
  await s.waitForText(text, "[data-testid=comments]");
}

test("comments follow a revised plan; a rejection carries the open ones with their quotes", async () => {
  const { home } = makeDemoHome();
  const plans = join(home, ".claude/plans");
  mkdirSync(plans, { recursive: true });
  const path = join(plans, "rate-limit-calm-otter.md");
  writeFileSync(path, PLAN);
  await withApp({ home }, async (s) => {
    await s.waitForText("rate limiting", "[aria-label=Plans]");
    await s.exec(`[...document.querySelectorAll("[data-testid=plan-row]")].find(e => e.innerText.includes("rate limiting")).click()`);
    await s.waitForText("token bucket", "[data-testid=plan-detail]");
    // One comment on a block clicked in the rendered plan (its source text is the quote) …
    const clicked = await s.exec(
      `const el = [...document.querySelectorAll("[data-testid=plan-html] li[data-src]")].find(e => e.innerText.includes("Log every rejected"));
       el.click(); return el.classList.contains("pd-focused");`,
    );
    assert.ok(clicked, "a click focuses the block");
    await s.keys("c");
    await s.waitFor("[data-testid=comment-text]");
    const draft = await s.exec(`return document.querySelector("[data-testid=comment-draft] .quote").textContent`);
    assert.equal(draft, "3. Log every rejected request at info level.");
    await s.type("[data-testid=comment-text]", "Info is too loud; use debug.");
    await s.click("[data-testid=comment-save]");
    await s.waitForText("Info is too loud", "[data-testid=comments]");
    // … and one on text selected in the source view.
    await s.exec(`document.querySelector("[data-tab=source]").click()`);
    await s.waitFor("[data-testid=plan-source]");
    await commentOn(s, "Return `429` with a `Retry-After` header.", "Which Retry-After: seconds or a date?");
    await s.exec(`document.querySelector("[data-tab=rendered]").click()`);
    await s.exec(
      `[...document.querySelectorAll("[data-testid=plan-html] li[data-src]")].find(e => e.innerText.includes("token bucket")).click()`,
    );
    await s.waitFor("[data-testid=comment-block]");
    // Each open comment's quote is marked in the rendered plan (a block comment's by its words).
    const marked = await waitFor(
      () => s.exec(`const h = CSS.highlights.get("pd-comment"); return h && h.size === 2 ? [...h].map((r) => r.toString()).sort() : null;`),
      { what: "both quotes marked in the rendered plan" },
    );
    assert.deepEqual(marked, ["Log every rejected request at info level.", "Return 429 with a Retry-After header."]);
    await s.screenshot("comments");
    // `n` goes to the next comment: its quote is scrolled to and flashed, its card marked.
    await s.exec(`document.activeElement?.blur?.()`);
    await s.keys("n");
    await s.waitFor("[data-testid=comments] [data-flashed=true]");
    assert.equal(await s.exec(`return [...(CSS.highlights.get("pd-flash") ?? [])].map((r) => r.toString()).join("")`), "Return 429 with a Retry-After header.");
    await s.click("[data-testid=copy-review]");
    await waitFor(() => s.exec(`return document.querySelector("[data-testid=copy-done], [data-testid=comments] [role=alert]")?.innerText`), {
      what: "the review copied",
    });
    assert.equal(await s.exec(`return document.querySelector("[data-testid=comments] [role=alert]")?.innerText ?? null`), null);

    // The agent revises the plan: step 2 moves down, step 3 is gone.
    writeFileSync(path, PLAN.replace("1. Add", "1. Measure the current load.\n2. Add").replace("2. Return", "3. Return").replace("3. Log every rejected request at info level.\n", ""));
    await s.waitFor(`[data-testid=comments] [data-status=outdated]`, { timeout: 20000 });
    const open = await s.text(`[data-testid=comments] [data-status=open]`);
    assert.match(open, /Which Retry-After/);
    const outdated = await s.text(`[data-testid=comments] [data-status=outdated]`);
    assert.match(outdated, /Info is too loud/);
    // The view keeps the version it showed: no decision until the person looks at the new one.
    await s.waitFor("[data-testid=show-new-version]", { timeout: 20000 });
    assert.equal(await s.exec(`return document.querySelector("[data-testid=plan-detail] [data-testid=reject]").disabled`), true);
    await s.click("[data-testid=show-new-version]");
    await waitFor(() => s.exec(`return !document.querySelector("[data-testid=plan-detail] [data-testid=reject]").disabled`), { what: "Reject enabled once the new version is shown" });

    await s.exec(`document.querySelector("[data-testid=reject]").click()`);
    await s.waitFor("[data-testid=comments-go-with]");
    await s.type("[data-testid=feedback]", "Two things first.");
    await s.click("[data-testid=send-reject]");
    await s.waitForText("1 comment", "[data-testid=review-notice]");
    // The history shows the comments made on the first version, and the one sent with the decision.
    await s.exec(`document.querySelector("[data-tab=history]").click()`);
    await s.waitFor("[data-testid=decision-comments]");
    assert.match(await s.text("[data-testid=decision-comments]"), /With 1 comment: “Return `429`/);
    const perVersion = await s.exec(`return [...document.querySelectorAll("[data-testid=version-comment]")].map(e => e.innerText)`);
    assert.equal(perVersion.length, 2, perVersion.join("\n"));
  });

  const log = JSON.parse(cli(home, ["log", "--json"]).stdout);
  assert.equal(
    log[0].feedback,
    "Two things first.\n\nComment on the plan (1), each on the quoted text:\n\n" +
      "1. On \"Return `429` with a `Retry-After` header.\":\n   Which Retry-After: seconds or a date?",
  );
  assert.equal(log[0].comments.length, 1);
  const comments = JSON.parse(cli(home, ["comments", path, "--json"]).stdout);
  assert.deepEqual(comments.map((c) => [c.status, c.sentWith.length]), [["open", 1], ["outdated", 0]]);
  const md = cli(home, ["comments", path, "--markdown"]).stdout;
  assert.match(md, /^# Review: Plan: rate limiting\n/);
  assert.match(md, /- Decision: rejected by .*, with 1 comment\n/);
  assert.match(md, /### 2\. Outdated .*\n\n> 3\. Log every rejected request at info level\.\n\nInfo is too loud; use debug\./);
});
