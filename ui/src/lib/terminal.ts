// A live terminal view (xterm.js) of an agent's tmux pane: drawn at the pane's own size (never
// resizing the pane), its font fitted to its box, read-only until the person takes control.
//
// This module is what the window needs before any terminal opens (sizes, rates, keys); xterm.js
// itself is in ./xterm, loaded when the first view opens (the window idles without it).

import { styleNonce } from "./csp";

/** Two Escapes within this long give control back (a single Escape is sent to the agent). */
export const ESC_ESC_MS = 400;
/** The terminal's font size (px) when the box has room for it. */
export const BASE_FONT = 13;
/** The smallest font a view is drawn at unzoomed: text a person reads (rows about 13 px high).
 * A pane taller than its box at this size scrolls in it, as a wider one scrolls sideways. */
export const READABLE_FONT = 11;
/** Zoom steps (Ctrl+= / Ctrl+-) and their bounds, as factors of the readable default. */
export const ZOOM_STEP = 1.15;
export const ZOOM_MIN = 0.5;
export const ZOOM_MAX = 3;
/** The largest font a zoomed view is drawn at. */
export const MAX_FONT = 36;
/** The monospace fonts a view draws with, then fonts that have the agents' symbols (`⏵⏵`, `⎿`,
 * `⏺`: Symbola, Noto Sans Symbols 2; the .deb recommends fonts-symbola), then any monospace. */
export const TERMINAL_FONTS = '"DejaVu Sans Mono", "Noto Sans Mono", Menlo, Consolas, "Symbola", "Noto Sans Symbols 2", "Noto Sans Symbols", monospace';
/** The smallest: below it a view shows shapes, not text. */
export const MIN_FONT = 4;
/** How often a read-only view draws at most, by how many are open: core sends a watched view's
 * output four times a second, drawn as it comes; beyond four side by side each draws once a
 * second (eight agents streaming would otherwise cost the window most of a core), except the one
 * the pointer is over or the person types into. */
export function drawEveryMs(open: number): number {
  return open > 4 ? 1000 : 0;
}
/** Lines of scrollback a view keeps. */
export const SCROLLBACK = 5000;

let nonceInstalled = false;

/**
 * The CSP allows `<style>` elements only with this page's nonce. xterm.js's DOM renderer makes its
 * own (cell sizes, theme) whenever it needs one, with no nonce option: each `<style>` element the
 * page creates gets the nonce, so those apply and nothing else is loosened.
 */
export function allowTerminalStyles(doc: Document = document): void {
  if (nonceInstalled) return;
  const nonce = styleNonce(doc);
  if (!nonce) return;
  nonceInstalled = true;
  const create = doc.createElement.bind(doc);
  // Own property of this document: the prototype stays untouched (and frozen).
  Object.defineProperty(doc, "createElement", {
    configurable: true,
    value: (tag: string, options?: ElementCreationOptions) => {
      const el = create(tag, options);
      if (tag.toLowerCase() === "style") el.setAttribute("nonce", nonce);
      return el;
    },
  });
}

/**
 * The font of a view whose pane is `height` px high at `font` in a box `boxHeight` px high (0: no
 * limit), zoomed by `zoom`: the pane's rows fitted to the box's height, between READABLE_FONT and
 * BASE_FONT (a wider pane scrolls sideways, a taller one scrolls), times the zoom, within MIN_FONT
 * and MAX_FONT. A size within 0.2 px of `font` keeps `font` (the measure rounds; no flicker).
 */
export function readableFont(font: number, height: number, boxHeight: number, zoom = 1): number {
  if (height <= 0) return font;
  const byHeight = boxHeight > 0 ? (font * boxHeight) / height : BASE_FONT;
  const fitted = Math.max(READABLE_FONT, Math.min(BASE_FONT, byHeight));
  const want = Math.max(MIN_FONT, Math.min(MAX_FONT, Math.floor(10 * fitted * zoom) / 10));
  return Math.abs(want - font) < 0.2 ? font : want;
}

/** The zoom after Ctrl+= (`+1`), Ctrl+- (`-1`) or Ctrl+0 (`0`: back to 1). */
export function zoomed(zoom: number, step: 1 | -1 | 0): number {
  if (step === 0) return 1;
  const next = step > 0 ? zoom * ZOOM_STEP : zoom / ZOOM_STEP;
  return Math.max(ZOOM_MIN, Math.min(ZOOM_MAX, Math.round(next * 100) / 100));
}

/**
 * Turns the keys of a view in control into what is sent, holding a lone Escape for `ESC_ESC_MS`:
 * a second Escape within it gives control back and sends neither; anything else sends the held
 * Escape first. `send` gets the bytes in order; `release` is called on Escape-Escape.
 */
export class KeyGate {
  private held: ReturnType<typeof setTimeout> | null = null;
  constructor(
    private readonly send: (data: string) => void,
    private readonly release: () => void,
    private readonly ms = ESC_ESC_MS,
  ) {}

  key(data: string): void {
    if (data === "\x1b") {
      if (this.held !== null) {
        clearTimeout(this.held);
        this.held = null;
        this.release();
        return;
      }
      this.held = setTimeout(() => {
        this.held = null;
        this.send("\x1b");
      }, this.ms);
      return;
    }
    if (this.held !== null) {
      clearTimeout(this.held);
      this.held = null;
      this.send("\x1b" + data);
      return;
    }
    this.send(data);
  }

  /** Drops a held Escape (control was given back another way). */
  clear(): void {
    if (this.held !== null) clearTimeout(this.held);
    this.held = null;
  }
}

/**
 * Sends keys one call at a time, in order: keys typed while a call is out go together in the
 * next (a fast typist makes few calls, and none overtakes another). Calls of at most `max` bytes.
 */
export class KeySender {
  private queued = "";
  private busy = false;
  constructor(
    private readonly call: (data: string) => Promise<unknown>,
    private readonly onError: (e: unknown) => void,
    private readonly max = 4096,
  ) {}

  push(data: string): void {
    this.queued += data;
    void this.pump();
  }

  private async pump(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      while (this.queued) {
        let cut = Math.min(this.queued.length, this.max);
        // Never split a surrogate pair (one character, two UTF-16 units).
        const last = this.queued.charCodeAt(cut - 1);
        if (cut < this.queued.length && last >= 0xd800 && last <= 0xdbff) cut -= 1;
        // Bytes, not UTF-16 units, are bounded: shrink until the UTF-8 fits.
        while (cut > 1 && new TextEncoder().encode(this.queued.slice(0, cut)).length > this.max) cut = Math.floor(cut / 2);
        const part = this.queued.slice(0, cut);
        this.queued = this.queued.slice(cut);
        try {
          await this.call(part);
        } catch (e) {
          this.queued = "";
          this.onError(e);
        }
      }
    } finally {
      this.busy = false;
    }
  }
}
