// The first view's data, handed over with the page (src-tauri/first.rs serves /first.js, loaded
// by index.html before the bundle): the answers of `get_overview` and `list_plans` the window
// computed while WebKit started. A cold web view answers the first IPC calls a frame or more
// after its first paint, so the first view draws from these, then asks by IPC as before.
// The listing holds only the rows the first frame draws (the newest plans), with how many there
// are in all: the rest comes from `list_plans`, after the first paint.
import type { Overview, PlanListing } from "./bindings";

export type First = { overview?: Overview; plans?: PlanListing; plansTotal?: number };

declare global {
  interface Window {
    __PLANDECK_FIRST__?: First;
  }
}

/** The handed-over answer for `key`, once: a view mounted later (the roots changed) asks. */
export function takeFirst<K extends keyof First>(key: K): First[K] | undefined {
  const first = typeof window === "undefined" ? undefined : window.__PLANDECK_FIRST__;
  if (!first) return undefined;
  const value = first[key];
  delete first[key];
  return value;
}
