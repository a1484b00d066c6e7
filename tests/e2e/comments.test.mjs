// Comments in the real window: comment on two blocks of a plan, the agent revises the plan on
// disk, one comment stays open and the other turns outdated; the rejection carries the open one
// with its quote, and the log records what was sent.

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cli, makeDemoHome, withApp } from "./webdriver.mjs";

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
    await s.exec(`document.querySelector("[data-tab=source]").click()`);
    await s.waitFor("[data-testid=plan-source]");
    await commentOn(s, "Return `429` with a `Retry-After` header.", "Which Retry-After: seconds or a date?");
    await commentOn(s, "Log every rejected request at info level.", "Info is too loud; use debug.");
    await s.screenshot("comments");

    // The agent revises the plan: step 2 moves down, step 3 is gone.
    writeFileSync(path, PLAN.replace("1. Add", "1. Measure the current load.\n2. Add").replace("2. Return", "3. Return").replace("3. Log every rejected request at info level.\n", ""));
    await s.waitFor(`[data-testid=comments] [data-status=outdated]`, { timeout: 20000 });
    const open = await s.text(`[data-testid=comments] [data-status=open]`);
    assert.match(open, /Which Retry-After/);
    const outdated = await s.text(`[data-testid=comments] [data-status=outdated]`);
    assert.match(outdated, /Info is too loud/);

    await s.exec(`document.querySelector("[data-testid=reject]").click()`);
    await s.waitFor("[data-testid=comments-go-with]");
    await s.type("[data-testid=feedback]", "Two things first.");
    await s.click("[data-testid=send-reject]");
    await s.waitForText("1 comment", "[data-testid=review-notice]");
  });

  const log = JSON.parse(cli(home, ["log", "--json"]).stdout);
  assert.equal(
    log[0].feedback,
    "Two things first.\n\nComment on the plan (1), each on the quoted text:\n\n" +
      "1. On \"Return `429` with a `Retry-After` header.\":\n   Which Retry-After: seconds or a date?",
  );
  const comments = JSON.parse(cli(home, ["comments", path, "--json"]).stdout);
  assert.deepEqual(comments.map((c) => [c.status, c.sentWith.length]), [["open", 1], ["outdated", 0]]);
});
