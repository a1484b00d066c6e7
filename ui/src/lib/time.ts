// One formatter each, made on first use: WebKit's toLocaleDateString/toLocaleTimeString build a new
// ICU formatter per call, and a list of 500 plans calling it per row held ~17 MB more in the web
// process (benches/results/memory.md).
import { createSubscriber } from "svelte/reactivity";

let dateFormat: Intl.DateTimeFormat | undefined;
let clockFormat: Intl.DateTimeFormat | undefined;

/** How often relative times are written again. */
export const TICK_MS = 30_000;

// One clock for every relative time in the window: the list row, the plan header, History,
// Sessions, comments and Verify all read the same "now", so one timestamp reads the same in every
// view, and every view moves on together when it ticks. It runs only while something shows a
// relative time.
let shared = Date.now();
let ticking = false;
const subscribe = createSubscriber((update) => {
  shared = Date.now();
  ticking = true;
  const timer = setInterval(() => {
    shared = Date.now();
    update();
  }, TICK_MS);
  return () => {
    clearInterval(timer);
    ticking = false;
  };
});

/** The shared clock (ms): read in a component, the component is written again when it ticks. */
export function now(): number {
  subscribe();
  return ticking ? shared : Date.now();
}

/** "3 min ago", "2 h ago", "yesterday", or a date: for lists where exact times are noise. Every
 * view writes relative times with this, against the shared clock. */
export function ago(iso: string | null | undefined, at: number = now()): string {
  if (!iso) return "";
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return "";
  const s = Math.max(0, Math.round((at - t) / 1000));
  if (s < 45) return "just now";
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.round(m / 60);
  if (h < 24) return `${h} h ago`;
  const d = Math.round(h / 24);
  if (d === 1) return "yesterday";
  if (d < 14) return `${d} days ago`;
  dateFormat ??= new Intl.DateTimeFormat();
  return dateFormat.format(t);
}

/** hh:mm of an ISO time, in local time. */
export function clock(iso: string | null | undefined): string {
  if (!iso) return "";
  const t = new Date(iso);
  if (Number.isNaN(t.getTime())) return "";
  clockFormat ??= new Intl.DateTimeFormat([], { hour: "2-digit", minute: "2-digit" });
  return clockFormat.format(t);
}

/** How long until `iso`: "in 40 s", "in 3 min", "now" (a time already passed). For a retry the
 * person may wait for: a clock time ("next try 13:00") said nothing when the minute was the same. */
export function countdown(iso: string | null | undefined, at: number = Date.now()): string {
  if (!iso) return "";
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return "";
  const s = Math.ceil((t - at) / 1000);
  if (s <= 0) return "now";
  if (s < 90) return `in ${s} s`;
  return `in ${Math.round(s / 60)} min`;
}
