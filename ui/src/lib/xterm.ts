// xterm.js itself (the terminal, its renderer and its styles), loaded when the first terminal
// view opens: see ./terminal for the rest.
//
// xterm.js 5.5, not 6: 6 dropped the canvas renderer (its DOM renderer costs the web view several
// times more for a streaming terminal), and its bundle assigns `toString` on a plain object at
// load, which throws under the window's frozen Object.prototype (Tauri's freezePrototype).

import { Terminal, type IDisposable, type ITerminalOptions } from "@xterm/xterm";
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

/**
 * A terminal of exactly `cols` × `rows`, taking no keys until `setControl(true)`. A link the
 * program wrote (OSC 8) is never followed from the web view: activating it hands its address to
 * `onLink` (the panel shows it as text), instead of xterm.js's default handler, which would
 * navigate the window after a `confirm()`.
 */
export function makeTerminal(cols: number, rows: number, fontSize = BASE_FONT, onLink: (uri: string) => void = () => {}): Terminal {
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
    linkHandler: {
      // Shown, never opened: any scheme is only text then.
      allowNonHttpProtocols: true,
      activate: (event, uri) => {
        event.preventDefault();
        onLink(uri);
      },
    },
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

type UserInputEvent = (listener: () => void) => IDisposable;

const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";
/** Control characters but tab and line breaks (C0, DEL, C1): keys, not text, inside a paste. */
const PASTE_CONTROLS = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/g;

/**
 * A bracketed paste as xterm.js sends it (`ESC[200~` text `ESC[201~`), with no control character
 * in the text: a clipboard a web page filled with `ESC[201~` (the end of the paste), `^U` and
 * `!curl … | sh` + Enter would otherwise end the paste early and type the rest into the agent as
 * keys. Anything else (keys, a paste the program did not ask to be bracketed) as it is.
 */
export function pasteAsText(data: string): string {
  if (data.length < PASTE_START.length + PASTE_END.length || !data.startsWith(PASTE_START) || !data.endsWith(PASTE_END)) return data;
  const inside = data.slice(PASTE_START.length, data.length - PASTE_END.length);
  return PASTE_START + inside.replace(PASTE_CONTROLS, "") + PASTE_END;
}

/**
 * Calls `onInput` with what the person typed, pasted or composed into `term` (and their mouse in
 * a program that asked for it), never with the terminal's own answers to the program's queries
 * (device attributes, cursor position, OSC 10/11 colours, sizes, focus): both come through
 * `onData`, and only the person's is announced, synchronously just before it, by xterm's
 * `coreService.onUserInput` (its `triggerDataEvent(data, true)`). An answer typed into the agent
 * would read as keys (ESC-led: Escape, then text). Throws when xterm.js no longer has that event:
 * keys are then never forwarded rather than forwarded with answers.
 */
export function personsInput(term: Terminal, onInput: (data: string) => void): IDisposable {
  const core = (term as unknown as { _core?: { coreService?: { onUserInput?: UserInputEvent } } })._core;
  const onUserInput = core?.coreService?.onUserInput;
  if (typeof onUserInput !== "function") throw new Error("this xterm.js does not say which input is the person's: keys are not forwarded");
  let person = false;
  const flagged = onUserInput(() => (person = true));
  const data = term.onData((text) => {
    const theirs = person;
    person = false;
    if (theirs) onInput(pasteAsText(text));
  });
  return {
    dispose: () => {
      flagged.dispose();
      data.dispose();
    },
  };
}
