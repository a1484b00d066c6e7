// Looking at a terminal view in the window (the Sessions view's live terminals): what it shows,
// row by row, against what tmux captures from the pane, and whether a person sees it.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { waitFor } from "./webdriver.mjs";

/** The rows a panel's terminal shows (its screen buffer: the canvas it draws holds no text),
 * trailing blanks dropped. What is drawn is looked at in the screenshots' pixels. */
export const PANEL_ROWS = `
  const host = document.querySelector(arguments[0])?.querySelector("[data-testid=terminal-screen]");
  if (!host || !host.screenText) return null;
  return host.screenText().map((r) => r.replace(/\\u00a0/g, " ").replace(/\\s+$/, ""));
`;

/** Where a panel's screen is, and whether a person sees it: a box of its own inside the window,
 * reached by a click at its middle. A screen larger than its panel's box (drawn at a readable
 * size, it scrolls in the box) is seen where the box shows it. */
export const PANEL_SEEN = `
  const panel = document.querySelector(arguments[0]);
  const screen = panel?.querySelector(".xterm-screen");
  if (!screen) return null;
  const s = screen.getBoundingClientRect();
  const b = (panel.querySelector(".box") ?? screen).getBoundingClientRect();
  const left = Math.max(s.left, b.left), top = Math.max(s.top, b.top);
  const r = { left, top, right: Math.min(s.right, b.right), bottom: Math.min(s.bottom, b.bottom) };
  r.width = r.right - r.left;
  r.height = r.bottom - r.top;
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return {
    box: [r.left, r.top, r.width, r.height].map(Math.round),
    inside: r.width > 50 && r.height > 50 && r.left >= 0 && r.top >= 0 && r.right <= innerWidth + 0.5 && r.bottom <= innerHeight + 0.5,
    hit: !!hit && screen.parentElement.contains(hit),
    dpr: devicePixelRatio,
  };
`;

/** `capture-pane -p` output as rows: a no-break space is a space (the view draws every blank
 * cell as one), trailing blanks dropped. */
export function rowsOf(captured) {
  return captured
    .replace(/\n$/, "")
    .split("\n")
    .map((l) => l.replace(/\u00a0/g, " ").replace(/\s+$/, ""));
}

/** Waits until the panel `css` shows exactly the rows `capture()` (tmux's) gives. */
export async function mirrors(s, css, capture, what) {
  let last = null;
  await waitFor(
    async () => {
      const rows = await s.exec(PANEL_ROWS, css);
      const want = rowsOf(capture());
      last = { rows, want };
      return rows && rows.length === want.length && rows.every((r, i) => r === want[i]);
    },
    { timeout: 30000, what },
  ).catch((e) => {
    const diff = (last?.want ?? []).map((w, i) => (w === last?.rows?.[i] ? null : `row ${i}: tmux ${JSON.stringify(w)} view ${JSON.stringify(last?.rows?.[i])}`)).filter(Boolean);
    throw new Error(`${e.message}\n${diff.slice(0, 8).join("\n")}`);
  });
}

/** How many colours the screenshot `png` has in the box `[x, y, w, h]`: a drawn terminal has its
 * text's, a blank or hidden one one or two. */
export function coloursIn(png, [x, y, w, h]) {
  const r = spawnSync("convert", [png, "-crop", `${w}x${h}+${x}+${y}`, "+repage", "-format", "%k", "info:"], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  return Number(r.stdout.trim());
}
