// Text as a person may be shown it, outside rendered markdown (which the core marks itself): every
// control character but line feed and tab, and every character a person cannot see, as
// `⟨U+XXXX⟩`. The tables come from the core (`plandeck_core::visible`, generated into the
// bindings); this mirrors its `shown` and is tested against the core's own examples.
import { HIDDEN_RANGES, SELECTOR_BASES } from "./bindings";

function inRanges(cp: number, ranges: ReadonlyArray<readonly [number, number]>): boolean {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [a, b] = ranges[mid];
    if (cp < a) hi = mid - 1;
    else if (cp > b) lo = mid + 1;
    else return true;
  }
  return false;
}

const control = (cp: number) => (cp < 0x20 && cp !== 0x0a && cp !== 0x09) || (cp >= 0x7f && cp <= 0x9f);
const hidden = (cp: number) => inRanges(cp, HIDDEN_RANGES);

/** `text` with every character a person cannot see shown as `⟨U+XXXX⟩` (one emoji selector kept). */
export function shown(text: string): string {
  let out = "";
  let prev: number | null = null;
  const chars = Array.from(text);
  for (let i = 0; i < chars.length; i++) {
    const cp = chars[i].codePointAt(0) ?? 0;
    if (cp === 0x0d && chars[i + 1] === "\n") {
      prev = cp;
      continue;
    }
    let marked = control(cp) || hidden(cp);
    // One VS15/VS16 right after a character that takes it is how emoji are written (❤️).
    if (marked && (cp === 0xfe0e || cp === 0xfe0f) && prev !== null && inRanges(prev, SELECTOR_BASES) && !hidden(prev)) {
      marked = false;
    }
    out += marked ? `⟨U+${cp.toString(16).toUpperCase().padStart(4, "0")}⟩` : chars[i];
    prev = cp;
  }
  return out;
}
