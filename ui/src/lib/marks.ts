// A text cut at the spans to highlight (a search hit in its snippet), as pieces to write one by
// one: each piece is text, never HTML, so a highlight cannot inject markup.

/** `text` in pieces, `hit` on those inside `spans` (UTF-16 offsets, in order; overlapping or
 * out-of-range spans are clamped or skipped). */
export function pieces(text: string, spans: readonly { start: number; end: number }[]): { text: string; hit: boolean }[] {
  const out: { text: string; hit: boolean }[] = [];
  let at = 0;
  for (const { start, end } of spans) {
    const s = Math.max(at, Math.min(start, text.length));
    const e = Math.min(end, text.length);
    if (e <= s) continue;
    if (s > at) out.push({ text: text.slice(at, s), hit: false });
    out.push({ text: text.slice(s, e), hit: true });
    at = e;
  }
  if (at < text.length) out.push({ text: text.slice(at), hit: false });
  return out;
}

/** `text` cut at its inline code (`like this`, a run of backticks closed by the same run), as
 * pieces: `code` on the code's own text, the backticks left out. An unclosed run stays as text. */
export function inlineCode(text: string): { text: string; code: boolean }[] {
  const out: { text: string; code: boolean }[] = [];
  const re = /(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g;
  let at = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m.index > at) out.push({ text: text.slice(at, m.index), code: false });
    // As in Markdown: one space each side is stripped when both are there (`` `a` `` is "`a`").
    const inner = /^ [\s\S]*[^ ][\s\S]* $/.test(m[2]) ? m[2].slice(1, -1) : m[2];
    out.push({ text: inner, code: true });
    at = m.index + m[0].length;
  }
  if (at < text.length) out.push({ text: text.slice(at), code: false });
  return out;
}
