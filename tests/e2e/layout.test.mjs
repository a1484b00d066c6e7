// What a person sees, at the sizes the window allows (its minimum width is 760): at 900×600,
// 1280×820 and 1920×1080 every view's primary actions have a box inside the viewport that the
// mouse reaches (nothing covers or clips it) and are reached with Tab; the rendered plan keeps at
// least 520 px; session cards are wide enough for their header; and every text in the window, in
// the light and the dark theme, has WCAG AA contrast against what it is drawn on (the computed
// colours, as painted). It also takes the README's screenshots at 1280×820, light and dark.

import { test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { ROOT, makeDemoHome, waitFor, withApp } from "./webdriver.mjs";

const SIZES = [
  [900, 600],
  [1280, 820],
  [1920, 1080],
];
const DARK = { GTK_THEME: "Adwaita:dark" };

// Each view and the actions a person must be able to see and reach there (every match).
const VIEWS = {
  plans: ["[data-view]", "[data-testid=plan-search]", "[data-testid=plan-row]", "[data-testid=approve]", "[data-testid=reject]", "[data-testid=edit]", "[data-testid=comment]", "[data-tab]", "[data-testid=copy-review]"],
  sessions: ["[data-view]", "[data-testid=session-card] button.pin", "[data-testid=session-card] button.link"],
  worktrees: ["[data-view]", "[data-testid=worktree-row] td.actions button:not(:disabled)", "[data-testid=remove-worktree]", "section.repo > header button"],
  settings: ["[data-view]", "[data-testid=hook-claude] button", "[data-testid=hook-gemini] button", "[data-testid=add-repo]"],
};

/** Opens `view` and, for Plans, the plan with headings (the pagination plan). */
async function open(s, view) {
  await s.click(`[data-view=${view}]`);
  if (view === "plans") {
    await s.waitFor("[data-testid=plan-row]");
    await s.exec(`[...document.querySelectorAll("[data-testid=plan-row]")].find(e => e.innerText.includes("cursor pagination")).click()`);
    await s.waitForText("Risks", "[data-testid=plan-html]");
  } else if (view === "sessions") {
    await s.waitFor("[data-testid=session-card]");
  } else if (view === "worktrees") {
    await s.waitFor("[data-testid=remove-worktree]");
  } else {
    await s.waitFor("[data-testid=hook-gemini] button:not(:disabled)");
  }
}

// In the page: marks the required elements, and reports the focused element's box.
const MARK = `
  const sels = arguments[0];
  const req = [];
  const names = [];
  for (const sel of sels) {
    const found = [...document.querySelectorAll(sel)];
    if (!found.length) return { missing: sel };
    for (const el of found) if (!req.includes(el)) { req.push(el); names.push(sel + " «" + (el.innerText || el.getAttribute("aria-label") || el.title || "").trim().slice(0, 30) + "»"); }
  }
  window.__pdRequired = req;
  document.activeElement?.blur?.();
  window.scrollTo(0, 0);
  return { names };
`;
const PROBE = `
  const el = document.activeElement;
  if (!el || el === document.body || el === document.documentElement) return { index: -2 };
  const r = el.getBoundingClientRect();
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  const hit = document.elementFromPoint(x, y);
  return {
    index: (window.__pdRequired || []).indexOf(el),
    box: [Math.round(r.left), Math.round(r.top), Math.round(r.width), Math.round(r.height)],
    inside: r.width > 0 && r.height > 0 && r.left >= -0.5 && r.top >= -0.5 && r.right <= innerWidth + 0.5 && r.bottom <= innerHeight + 0.5,
    hit: !!hit && (hit === el || el.contains(hit)),
    covered: hit && hit !== el && !el.contains(hit) ? (hit.className || hit.tagName) + "" : null,
  };
`;

/** Tabs through the page from its start: every required element is focused at least once and,
 * when focused, has a non-zero box inside the viewport that a click at its centre reaches. */
async function checkReachable(s, view, size, selectors = VIEWS[view]) {
  const marked = await s.exec(MARK, selectors);
  assert.ok(!marked.missing, `${view} at ${size}: nothing matches ${marked.missing}`);
  const seen = new Map();
  let idle = 0;
  for (let step = 0; step < 300 && seen.size < marked.names.length; step++) {
    await s.keys("\uE004"); // Tab
    const p = await s.exec(PROBE);
    if (p.index === -2) {
      if (++idle > 3) break; // focus left the page
      continue;
    }
    if (p.index >= 0 && !seen.has(p.index)) seen.set(p.index, p);
  }
  const problems = [];
  marked.names.forEach((name, i) => {
    const p = seen.get(i);
    if (!p) problems.push(`${name}: not reached by Tab`);
    else if (!p.inside) problems.push(`${name}: box ${p.box} not inside the viewport`);
    else if (!p.hit) problems.push(`${name}: box ${p.box} covered by ${p.covered}`);
  });
  assert.deepEqual(problems, [], `${view} at ${size}`);
}

// In the page: the rendered plan's column, the TOC and the comment margin, and whether they overlap.
const PLAN_BOXES = `
  const box = (sel) => { const e = document.querySelector(sel); if (!e) return null; const r = e.getBoundingClientRect(); return r.width && r.height ? { l: r.left, t: r.top, r: r.right, b: r.bottom, w: r.width } : null; };
  const h1 = document.querySelector("[data-testid=plan-html] h1");
  return { plan: box("[data-testid=plan-html]"), toc: box("nav[aria-label=Contents]"), comments: box("[data-testid=comments]"),
    h1Lines: h1 ? Math.round(h1.getBoundingClientRect().height / parseFloat(getComputedStyle(h1).lineHeight || "30")) : 0,
    overflow: document.querySelector("main").scrollWidth - document.querySelector("main").clientWidth };
`;
const overlap = (a, b) => a && b && a.l < b.r && b.l < a.r && a.t < b.b && b.t < a.b;

// In the page: every session card's width and whether the items of its header overlap.
const CARDS = `
  return [...document.querySelectorAll("[data-testid=session-card]")].map((c) => {
    const items = [...c.querySelector("header").children].map((e) => e.getBoundingClientRect()).filter((r) => r.width > 0);
    const card = c.getBoundingClientRect();
    let clash = false;
    items.forEach((a, i) => items.slice(i + 1).forEach((b) => { if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5) clash = true; }));
    const out = items.some((r) => r.left < card.left - 0.5 || r.right > card.right + 0.5);
    return { width: Math.round(card.width), clash, out };
  });
`;

for (const [width, height] of SIZES) {
  const size = `${width}×${height}`;
  test(`at ${size}: every view's primary actions are in view, reached by mouse and Tab; the plan keeps 520 px`, async () => {
    const { home } = makeDemoHome();
    await withApp({ home }, async (s) => {
      await s.setSize(width, height);
      for (const view of Object.keys(VIEWS)) {
        await open(s, view);
        if (view === "plans") {
          const b = await s.exec(PLAN_BOXES);
          assert.ok(b.plan && b.plan.w >= 520, `${size}: the rendered plan is ${b.plan?.w} px wide (at least 520)`);
          assert.ok(b.h1Lines <= 2, `${size}: the plan's title takes ${b.h1Lines} lines`);
          assert.ok(!overlap(b.plan, b.comments), `${size}: the comment margin overlaps the plan`);
          assert.ok(!overlap(b.plan, b.toc), `${size}: the table of contents overlaps the plan`);
          assert.ok(b.overflow <= 0, `${size}: the Plans view scrolls sideways by ${b.overflow} px`);
        }
        if (view === "sessions") {
          const cards = await s.exec(CARDS);
          assert.ok(cards.length > 0);
          for (const c of cards) {
            assert.ok(c.width >= 260, `${size}: a session card is ${c.width} px wide`);
            assert.ok(!c.clash && !c.out, `${size}: a session card's header items overlap or spill (${JSON.stringify(c)})`);
          }
        }
        await checkReachable(s, view, size);
        await s.screenshot(`layout-${width}x${height}-${view}`);
      }
    });
  });
}

// In the page: every piece of text (text nodes, ::before content, form controls' values) whose
// contrast against its painted background is below WCAG AA (4.5:1; 3:1 for large text).
const CONTRAST = `
  const parse = (c) => {
    let m = /^rgba?\\(([^)]*)\\)$/.exec(c);
    if (m) { const p = m[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; }
    m = /^color\\(srgb ([^)]*)\\)$/.exec(c);
    if (m) { const p = m[1].split(/[\\s\\/]+/).filter(Boolean).map(Number); return [p[0] * 255, p[1] * 255, p[2] * 255, p.length > 3 ? p[3] : 1]; }
    return null;
  };
  const over = (top, under) => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3])).concat(1);
  const lum = (c) => { const [r, g, b] = c.slice(0, 3).map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const unparsed = new Set();
  const background = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const raw = getComputedStyle(e).backgroundColor;
      const c = parse(raw);
      if (!c) { unparsed.add(raw); continue; }
      if (c[3] > 0) layers.push(c);
      if (c[3] >= 1) break;
    }
    let base = matchMedia("(prefers-color-scheme: dark)").matches ? [0, 0, 0, 1] : [255, 255, 255, 1];
    for (const l of layers.reverse()) base = over(l, base);
    return base;
  };
  const opacity = (el) => { let o = 1; for (let e = el; e; e = e.parentElement) o *= Number(getComputedStyle(e).opacity); return o; };
  const failures = [];
  const seen = new Set();
  let checked = 0;
  const check = (el, colorText, what, sample) => {
    if (el.closest(":disabled, [aria-hidden=true], [inert]")) return;
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2) return;
    const cs = getComputedStyle(el);
    if (cs.visibility !== "visible" || cs.display === "none") return;
    const fg = parse(colorText);
    if (!fg) { unparsed.add(colorText); return; }
    const bg = background(el);
    const painted = over([fg[0], fg[1], fg[2], fg[3] * opacity(el)], bg);
    const size = parseFloat(cs.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(cs.fontWeight) >= 700);
    const q = ratio(painted, bg);
    checked++;
    const key = what + colorText + bg.join(",");
    if (q < (large ? 3 : 4.5) && !seen.has(key)) {
      seen.add(key);
      failures.push(what + " «" + sample.trim().slice(0, 40) + "» " + q.toFixed(2) + ":1 (" + colorText + " on rgb(" + bg.slice(0, 3).map(Math.round).join(", ") + "))");
    }
  };
  const desc = (el) => el.tagName.toLowerCase() + (el.className && typeof el.className === "string" ? "." + el.className.trim().split(/\\s+/).filter((c) => !c.startsWith("svelte-")).join(".") : "");
  for (const el of document.querySelectorAll("body *")) {
    if (["SCRIPT", "STYLE", "OPTION", "SVG", "PATH"].includes(el.tagName.toUpperCase())) continue;
    const text = [...el.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join("");
    if (text.trim()) check(el, getComputedStyle(el).color, desc(el), text);
    const before = getComputedStyle(el, "::before");
    if (before.content && before.content !== "none" && before.content !== "normal" && before.content.replace(/["']/g, "").trim()) check(el, before.color, desc(el) + "::before", before.content);
    if (["SELECT", "TEXTAREA"].includes(el.tagName) || (el.tagName === "INPUT" && !["range", "checkbox", "radio", "hidden"].includes(el.type))) {
      const v = el.tagName === "SELECT" ? el.selectedOptions[0]?.text ?? "" : el.value;
      if (v.trim()) check(el, getComputedStyle(el).color, desc(el), v);
    }
  }
  return { failures, checked, unparsed: [...unparsed].filter((u) => u !== "transparent") };
`;

/** The contrast failures in what is on screen now, labelled with `where`. */
async function contrastFailures(s, where) {
  const r = await s.exec(CONTRAST);
  assert.deepEqual(r.unparsed, [], `${where}: colours the check cannot read`);
  assert.ok(r.checked >= 10, `${where}: only ${r.checked} texts checked`);
  return r.failures.map((f) => `${where}: ${f}`);
}

/** Every view and state of the demo a person meets, with the contrast failures of each. */
async function allTextStyles(s) {
  const failures = [];
  await open(s, "plans");
  failures.push(...(await contrastFailures(s, "plans, rendered")));
  // The selected row, a focused block, the reject box.
  await s.exec(`document.querySelector("[data-testid=plan-html] p, [data-testid=plan-html] li")?.click()`);
  await s.click("[data-testid=reject]");
  await s.waitFor("[data-testid=feedback]");
  await s.type("[data-testid=feedback]", "Keep ?all=1 for two releases.");
  failures.push(...(await contrastFailures(s, "plans, rejecting")));
  for (const tab of ["source", "diff", "history", "verify"]) {
    await s.click(`[data-tab=${tab}]`);
    await waitFor(async () => !(await s.exec(`return /Computing|Reading|Checking|Loading/.test(document.querySelector("[data-testid=plan-detail]").innerText)`)), { what: `the ${tab} tab` });
    failures.push(...(await contrastFailures(s, `plans, ${tab}`)));
  }
  for (const view of ["sessions", "worktrees", "settings"]) {
    await open(s, view);
    failures.push(...(await contrastFailures(s, view)));
  }
  // The hook's change, shown before it is made.
  await s.click("[data-testid=hook-claude] button");
  await s.waitFor("[data-testid=apply-hook]");
  failures.push(...(await contrastFailures(s, "settings, install preview")));
  return failures;
}

const DOCS = join(ROOT, "docs");

/** Saves the window as docs/<name>.png (what the README shows). */
async function docShot(s, name) {
  const path = await s.screenshot(name);
  mkdirSync(DOCS, { recursive: true });
  copyFileSync(path, join(DOCS, `${name}.png`));
}

for (const [theme, env] of [["light", {}], ["dark", DARK]]) {
  test(`${theme} theme: every text in every view has WCAG AA contrast (computed colours)`, async () => {
    const { home } = makeDemoHome();
    await withApp({ home, env }, async (s) => {
      const dark = await s.exec(`return matchMedia("(prefers-color-scheme: dark)").matches;`);
      assert.equal(dark, theme === "dark", `the window's theme is ${dark ? "dark" : "light"}`);
      await s.setSize(1280, 820);
      const failures = await allTextStyles(s);
      assert.deepEqual(failures, []);

      // The README's screenshots, at the window's default size.
      const suffix = theme === "dark" ? "-dark" : "";
      await open(s, "plans");
      await docShot(s, `plans${suffix}`);
      await open(s, "sessions");
      await docShot(s, `sessions${suffix}`);
      await open(s, "worktrees");
      await docShot(s, `worktrees${suffix}`);
      await open(s, "settings");
      await docShot(s, `settings${suffix}`);
    });
  });
}

test("the empty state (no agent folders yet) has WCAG AA contrast in both themes", async () => {
  for (const env of [{}, DARK]) {
    await withApp({ env }, async (s) => {
      await s.setSize(900, 600);
      await s.waitForText("No plans yet");
      assert.deepEqual(await contrastFailures(s, `empty state${env.GTK_THEME ? " (dark)" : ""}`), []);
      await checkReachable(s, "the empty state", "900×600", ["[data-view]", "[data-testid=load-demo]"]);
    });
  }
});
