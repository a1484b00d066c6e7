// A session's tokens and cost (`SessionSummary.usage`), small: "12.3k in · 4.1k out · $0.42".
import type { SessionUsage } from "./bindings";

/** A count of tokens, short: 950, 12.3k, 1.2M. */
export function tokens(n: number): string {
  if (!Number.isFinite(n) || n < 0) return "?";
  if (n < 1000) return String(Math.round(n));
  if (n < 999_950) return `${(n / 1000).toFixed(1).replace(/\.0$/, "")}k`;
  return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, "")}M`;
}

/** A cost in US dollars: $0.42, $12, under a cent as <$0.01. */
export function dollars(usd: number): string {
  if (usd > 0 && usd < 0.01) return "<$0.01";
  return `$${usd < 10 ? usd.toFixed(2) : Math.round(usd)}`;
}

/** The card's line; a count from part of the records reads "at least" (≥). */
export function usageLine(u: SessionUsage): string {
  const at = u.partial ? "≥" : "";
  const parts = [`${at}${tokens(u.inputTokens)} in`, `${at}${tokens(u.outputTokens)} out`];
  if (u.costUsd != null && !u.partial) parts.push(dollars(u.costUsd));
  return parts.join(" · ");
}

/** The line's tooltip, in full. */
export function usageTitle(u: SessionUsage): string {
  const n = (x: number) => x.toLocaleString("en-US");
  let t = `${n(u.inputTokens)} input tokens (cache reads and writes included), ${n(u.outputTokens)} output tokens`;
  if (u.costUsd != null) t += `, $${u.costUsd.toFixed(4)}`;
  if (u.partial) t += ": counted from part of a large transcript, at least this much";
  return t;
}
