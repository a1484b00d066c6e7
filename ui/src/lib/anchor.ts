// Where a comment's quote is in the rendered plan: the innermost block whose source range
// (`data-src="start-end"`, byte offsets the renderer writes) holds the comment's place, and in
// it the quoted text when it reads the same rendered (else the whole block).

/** The innermost `[data-src]` element of `root` whose range holds `start`. */
export function blockAt(root: Element, start: number): Element | null {
  let best: Element | null = null;
  let bestLen = Infinity;
  for (const el of root.querySelectorAll("[data-src]")) {
    const m = /^(\d+)-(\d+)$/.exec(el.getAttribute("data-src") ?? "");
    if (!m) continue;
    const [s, e] = [Number(m[1]), Number(m[2])];
    if (s <= start && start < Math.max(e, s + 1) && e - s < bestLen) {
      best = el;
      bestLen = e - s;
    }
  }
  return best;
}

/** A Range over the first occurrence of `needle` in `el`'s text (whitespace runs match any
 * whitespace run), or null. */
export function findText(el: Element, needle: string): Range | null {
  const words = needle.trim().split(/\s+/).filter(Boolean);
  if (!words.length) return null;
  const doc = el.ownerDocument;
  const walker = doc.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  const nodes: Text[] = [];
  let text = "";
  const starts: number[] = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    nodes.push(n as Text);
    starts.push(text.length);
    text += (n as Text).data;
  }
  const escaped = words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const m = new RegExp(escaped.join("\\s+")).exec(text);
  if (!m) return null;
  const at = (offset: number, end: boolean): [Text, number] => {
    let i = nodes.length - 1;
    while (i > 0 && (starts[i] > offset || (end && starts[i] === offset))) i--;
    return [nodes[i], offset - starts[i]];
  };
  const range = doc.createRange();
  range.setStart(...at(m.index, false));
  range.setEnd(...at(m.index + m[0].length, true));
  return range;
}

/** The quote's place in the rendered plan: the quoted text in its block, else the whole block;
 * null when neither can be found. */
export function anchorRange(root: Element, quote: string, start: number | null): Range | null {
  const block = start === null ? null : blockAt(root, start);
  const inBlock = block ? findText(block, quote) : null;
  if (inBlock) return inBlock;
  // Markdown in the quote (a block comment quotes the source): its first line's words, bare.
  const bare = quote.split("\n")[0].replace(/^\s*(#{1,6}|[-*+]|\d+[.)]|>)\s+/, "").replace(/[*_`~]/g, "");
  const found = (block && findText(block, bare)) || findText(root, quote) || findText(root, bare);
  if (found) return found;
  if (!block) return null;
  const r = root.ownerDocument.createRange();
  r.selectNodeContents(block);
  return r;
}
