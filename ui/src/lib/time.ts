// One formatter each, made on first use: WebKit's toLocaleDateString/toLocaleTimeString build a new
// ICU formatter per call, and a list of 500 plans calling it per row held ~17 MB more in the web
// process (benches/results/memory.md).
let dateFormat: Intl.DateTimeFormat | undefined;
let clockFormat: Intl.DateTimeFormat | undefined;

/** "3 min ago", "2 h ago", "yesterday", or a date: for lists where exact times are noise. */
export function ago(iso: string | null | undefined, now: number = Date.now()): string {
  if (!iso) return "";
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return "";
  const s = Math.max(0, Math.round((now - t) / 1000));
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
