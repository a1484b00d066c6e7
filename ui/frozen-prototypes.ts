// The window runs with Tauri's `freezePrototype`: Object.prototype is frozen, so assigning a
// property that Object.prototype has (`obj.toString = f`) throws in a module (the "override
// mistake"). xterm.js's bundled key-code helpers do exactly that once, at load. This plugin
// rewrites each such assignment in the dependencies named here into Object.defineProperty, which
// the freeze allows; a dependency whose code no longer holds the assignment fails the build, so
// an update is looked at rather than silently shipped.
import type { Plugin } from "vite";

/** Per module (path suffix): each assignment that overrides a frozen built-in, as written. */
export const OVERRIDES: Record<string, string[]> = {
  "@xterm/xterm/lib/xterm.mjs": ["o.toString=s;"],
};

export function defined(assignment: string): string {
  const m = assignment.match(/^([A-Za-z_$][\w$]*)\.([A-Za-z_$][\w$]*)=([A-Za-z_$][\w$]*);$/);
  if (!m) throw new Error(`not a simple assignment: ${assignment}`);
  const [, obj, prop, value] = m;
  return `Object.defineProperty(${obj},"${prop}",{value:${value},writable:true,configurable:true,enumerable:true});`;
}

export function rewrite(id: string, code: string): string | null {
  const key = Object.keys(OVERRIDES).find((k) => id.replaceAll("\\", "/").endsWith(k));
  if (!key) return null;
  let out = code;
  for (const a of OVERRIDES[key]) {
    if (!out.includes(a)) throw new Error(`${key} no longer holds ${a}: check it for assignments over frozen built-ins`);
    out = out.replaceAll(a, defined(a));
  }
  return out;
}

export function frozenPrototypes(): Plugin {
  return {
    name: "plandeck-frozen-prototypes",
    enforce: "pre",
    transform(code, id) {
      const out = rewrite(id.split("?")[0], code);
      return out === null ? null : { code: out, map: null };
    },
  };
}
