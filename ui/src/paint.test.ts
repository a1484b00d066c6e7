// What the UI may ask WebKitGTK to paint. Tiles are painted on the CPU (src-tauri/memory.rs), and a
// blurred shadow is painted there at great cost: the session grid's cards, with a 2-3 px blurred
// shadow each, took ~400 ms a frame to scroll; with hard-edged shadows, under 50 ms
// (benches/window/scroll.mjs). So every shadow in the UI's styles has a blur radius of 0, and no
// style blurs with a filter.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = join(import.meta.dirname);

/** Every .svelte and .css file under ui/src. */
function styleFiles(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return styleFiles(p);
    return /\.(svelte|css)$/.test(e.name) ? [p] : [];
  });
}

/** Splits `a, b(c, d), e` at the commas outside parentheses. */
export function splitTop(value: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = "";
  for (const ch of value) {
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if (ch === "," && depth === 0) {
      out.push(cur.trim());
      cur = "";
    } else cur += ch;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

/** The blur radius of one shadow (`[inset] x y [blur [spread]] [color]`), 0 when absent. */
export function blurOf(shadow: string): number {
  const lengths = shadow
    .replace(/[a-z-]+\([^)]*\)/gi, " ") // colours: rgba(...), color-mix(...)
    .split(/\s+/)
    .filter((t) => /^-?[\d.]+(px|em|rem)?$/.test(t));
  return lengths.length >= 3 ? Math.abs(parseFloat(lengths[2])) : 0;
}

/** Every shadow value declared in `css` (box-shadow, text-shadow and the --shadow property), with
 * var() references left out (their definitions are checked where they are declared). */
export function shadowsIn(css: string): string[] {
  const values = [...css.matchAll(/(?:box-shadow|text-shadow|--shadow)\s*:\s*([^;}]+)/g)].map((m) => m[1].trim());
  return values.filter((v) => v !== "none" && !/^var\(/.test(v)).flatMap(splitTop);
}

describe("what the UI paints", () => {
  it("reads the shadows of a declaration", () => {
    expect(shadowsIn("a { box-shadow: 0 1px 2px rgba(0, 0, 0, 0.4), 0 0 0 1px #000; }")).toEqual(["0 1px 2px rgba(0, 0, 0, 0.4)", "0 0 0 1px #000"]);
    expect(blurOf("0 1px 2px rgba(0, 0, 0, 0.4)")).toBe(2);
    expect(blurOf("0 1px 0 rgba(0, 0, 0, 0.4)")).toBe(0);
    expect(blurOf("inset 0 0 0 1px var(--border)")).toBe(0);
    expect(blurOf("0 1px rgba(0,0,0,.1)")).toBe(0);
    expect(shadowsIn("b { box-shadow: var(--shadow); } c { box-shadow: none }")).toEqual([]);
  });

  it("has no blurred shadow and no blur filter in any style", () => {
    const files = styleFiles();
    expect(files.map((f) => f.slice(SRC.length + 1))).toContain("app.css");
    expect(files.length).toBeGreaterThan(10);
    const blurred: string[] = [];
    for (const f of files) {
      const css = readFileSync(f, "utf8");
      for (const s of shadowsIn(css)) if (blurOf(s) > 0) blurred.push(`${f.slice(SRC.length + 1)}: ${s}`);
      for (const m of css.matchAll(/(?:backdrop-)?filter\s*:[^;}]*blur\(/g)) blurred.push(`${f.slice(SRC.length + 1)}: ${m[0]}`);
    }
    expect(blurred).toEqual([]);
  });
});
