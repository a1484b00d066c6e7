// Contrast of the theme (WCAG 2.x AA): every text colour of app.css's palette against every
// surface and soft fill it is drawn on, in the light and the dark theme, is at least 4.5:1.
// This checks the palette; tests/e2e/layout.test.mjs checks the computed colours of every text in
// the real window, in both themes.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const CSS = readFileSync(join(import.meta.dirname, "app.css"), "utf8");

/** The `--name: #hex` declarations of the first block after `marker`. */
function vars(marker: RegExp): Record<string, string> {
  const start = CSS.search(marker);
  expect(start, `no ${marker} in app.css`).toBeGreaterThanOrEqual(0);
  const open = CSS.indexOf("{", CSS.indexOf(":root", start));
  const close = CSS.indexOf("}", open);
  const out: Record<string, string> = {};
  for (const m of CSS.slice(open, close).matchAll(/--([\w-]+):\s*(#[0-9a-fA-F]{6})\b/g)) out[m[1]] = m[2];
  return out;
}

/** The colour `selector { color: #hex }` sets, in the block after `marker` (or the top level). */
function colorOf(selector: string, after = 0): string {
  const i = CSS.indexOf(selector, after);
  expect(i, `no ${selector} in app.css`).toBeGreaterThanOrEqual(0);
  const m = /color:\s*(#[0-9a-fA-F]{6})/.exec(CSS.slice(i, CSS.indexOf("}", i)));
  expect(m, `no colour for ${selector}`).not.toBeNull();
  return m![1];
}

function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const v = parseInt(hex.slice(i, i + 2), 16) / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

const light = vars(/^:root\s*\{/m);
const darkAt = CSS.search(/@media \(prefers-color-scheme: dark\)/);
const dark = { ...light, ...vars(/@media \(prefers-color-scheme: dark\)/) };

const TEXT = ["text", "muted", "accent", "ok", "warn", "danger", "info"];
const SURFACES = ["bg", "surface", "surface-2", "sidebar", "accent-soft", "ok-soft", "warn-soft", "danger-soft", "info-soft", "ins", "del"];

/** Every pair below 4.5:1, as "fg on bg = ratio". */
function failures(theme: Record<string, string>, pairs: [string, string][]): string[] {
  return pairs
    .map(([fg, bg]) => [fg, bg, contrast(theme[fg] ?? fg, theme[bg] ?? bg)] as const)
    .filter(([, , r]) => r < 4.5)
    .map(([fg, bg, r]) => `${fg} on ${bg} = ${r.toFixed(2)}:1`);
}

const textOnSurfaces = TEXT.flatMap((fg) => SURFACES.map((bg) => [fg, bg] as [string, string]));
const onFills: [string, string][] = [
  ["on-accent", "accent"],
  ["on-danger", "danger"],
];

describe("theme contrast (WCAG AA, 4.5:1)", () => {
  it("reads both palettes", () => {
    expect(darkAt).toBeGreaterThan(0);
    for (const theme of [light, dark]) for (const name of [...TEXT, ...SURFACES, "on-accent", "on-danger"]) expect(theme[name], name).toMatch(/^#/);
    expect(dark.accent).not.toBe(light.accent);
  });

  it("light: every text colour on every surface, and text on solid fills", () => {
    expect(failures(light, [...textOnSurfaces, ...onFills])).toEqual([]);
  });

  it("dark: every text colour on every surface, and text on solid fills", () => {
    expect(failures(dark, [...textOnSurfaces, ...onFills])).toEqual([]);
  });

  it("code highlighting in both themes on code blocks and diff lines", () => {
    const tokens = [".hljs-keyword", ".hljs-string", ".hljs-number", ".hljs-title", ".hljs-type"];
    const codeBgs = ["surface", "surface-2", "ins", "del"];
    const lightPairs = tokens.flatMap((t) => codeBgs.map((bg) => [colorOf(t), bg] as [string, string]));
    expect(failures(light, lightPairs)).toEqual([]);
    const darkHljs = CSS.lastIndexOf("@media (prefers-color-scheme: dark)");
    expect(darkHljs).toBeGreaterThan(darkAt);
    const darkPairs = tokens.flatMap((t) => codeBgs.map((bg) => [colorOf(t, darkHljs), bg] as [string, string]));
    expect(failures(dark, darkPairs)).toEqual([]);
  });

  it("primary buttons use the text colour made for the accent fill", () => {
    expect(CSS).toMatch(/button\.primary\s*\{[^}]*color:\s*var\(--on-accent\)/);
    expect(CSS).toMatch(/button\.danger\.solid\s*\{[^}]*color:\s*var\(--on-danger\)/);
  });
});
