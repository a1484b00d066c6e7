// xterm.js itself (the terminal, its renderer and its styles), loaded when the first terminal
// view opens: see ./terminal for the rest.
//
// xterm.js 5.5, not 6: 6 dropped the canvas renderer (its DOM renderer costs the web view several
// times more for a streaming terminal), and its bundle assigns `toString` on a plain object at
// load, which throws under the window's frozen Object.prototype (Tauri's freezePrototype).

import { Terminal, type ITerminalOptions } from "@xterm/xterm";
import { Unicode11Addon } from "@xterm/addon-unicode11";
import { CanvasAddon } from "@xterm/addon-canvas";
import "@xterm/xterm/css/xterm.css";
import { allowTerminalStyles, BASE_FONT, SCROLLBACK, TERMINAL_FONTS } from "./terminal";

/** The app's dark theme, as terminal colours (tmux's own colours come as the program wrote them). */
const THEME: ITerminalOptions["theme"] = {
  background: "#0f1115",
  foreground: "#d7dae0",
  cursor: "#d7dae0",
  cursorAccent: "#0f1115",
  selectionBackground: "#3a4560",
};

/** A terminal of exactly `cols` × `rows`, taking no keys until `setControl(true)`. */
export function makeTerminal(cols: number, rows: number, fontSize = BASE_FONT): Terminal {
  allowTerminalStyles();
  const term = new Terminal({
    cols,
    rows,
    scrollback: SCROLLBACK,
    allowProposedApi: true,
    disableStdin: true,
    cursorBlink: false,
    convertEol: false,
    fontFamily: TERMINAL_FONTS,
    fontSize,
    lineHeight: 1,
    theme: THEME,
  });
  // tmux counts emoji and East Asian wide characters as two cells, as Unicode 11 does.
  term.loadAddon(new Unicode11Addon());
  term.unicode.activeVersion = "11";
  return term;
}

/**
 * Draws `term` (opened already) on a canvas from a glyph atlas: a change redraws only the cells
 * it touched, where the DOM renderer lays out and paints whole rows of text again (eight
 * streaming terminals cost the web view several times more that way). Falls back to the DOM
 * renderer when the canvas cannot be made. Returns which draws it.
 */
export function drawOnCanvas(term: Terminal): "canvas" | "dom" {
  try {
    term.loadAddon(new CanvasAddon());
    return "canvas";
  } catch {
    return "dom";
  }
}

/** The text of the terminal's visible rows, trailing blanks dropped (what `capture-pane -p` prints). */
export function screenText(term: Terminal): string[] {
  const buf = term.buffer.active;
  const out: string[] = [];
  for (let y = 0; y < term.rows; y++) out.push(buf.getLine(buf.viewportY + y)?.translateToString(true) ?? "");
  return out;
}
