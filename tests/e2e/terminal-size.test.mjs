// Live terminals a person can read (issue 34): at 1280x820 with two panes of a person's terminal
// size side by side, the glyphs are at least 11 px high (measured in the page: a row's height),
// the view scrolls sideways instead of shrinking the text; Ctrl+= zooms, a double-click on the
// title maximises the view.

import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { agentCli, claudeEnv, claudeReady, makeAgentHome, startStandIn, Tmux } from "./agents.mjs";
import { waitFor, withApp } from "./webdriver.mjs";

const claude = agentCli("claude");

/** The panel's row height, font and whether its box scrolls sideways. */
const SIZES = `
  const panel = document.querySelector(arguments[0]);
  const screen = panel?.querySelector(".xterm-screen");
  const box = panel?.querySelector(".box");
  const rows = panel?.querySelectorAll(".xterm-rows > div").length || Number(arguments[1]);
  if (!screen || !box) return null;
  const r = panel.getBoundingClientRect();
  return { row: screen.offsetHeight / Number(arguments[1]), font: Number(panel.dataset.font), zoom: Number(panel.dataset.zoom),
           sideways: box.scrollWidth > box.clientWidth, panel: [r.left, r.top, r.width, r.height], rows };
`;

/** Presses `key` with `modifier` held (Ctrl+=), as one chord. */
async function chord(s, modifier, key) {
  const actions = [
    { type: "keyDown", value: modifier },
    { type: "keyDown", value: key },
    { type: "keyUp", value: key },
    { type: "keyUp", value: modifier },
  ];
  await s.cmd("POST", "/actions", { actions: [{ type: "key", id: "kb", actions }] });
  await s.cmd("DELETE", "/actions");
}

test("two terminals side by side at 1280x820 are readable; zoom and maximise", { timeout: 180000 }, async () => {
  const { base, home, repo } = makeAgentHome("shop");
  claudeReady(home, repo);
  const api = await startStandIn("claude", join(base, "api"));
  const panes = [];
  try {
    for (let i = 0; i < 2; i++) {
      const tmux = new Tmux();
      tmux.start([claude.bin, "--permission-mode", "acceptEdits"], { cwd: repo, env: claudeEnv(home, api) });
      // A person's terminal tab: 140 columns, 40 rows.
      tmux.run(["resize-window", "-t", "agent", "-x", "140", "-y", "40"]);
      await tmux.waitScreen("accept edits on", { timeout: 30000 });
      panes.push(tmux);
    }
    await withApp({ home }, async (s) => {
      await s.setSize(1280, 820);
      await s.click("[data-view=sessions]");
      const ids = await waitFor(
        () =>
          s.exec(`const ids = [...document.querySelectorAll("[data-testid=session-card]")].filter((c) => c.querySelector("[data-testid=watch-terminal]")).map((c) => c.dataset.session);
                  return ids.length >= 2 ? ids.slice(0, 2) : null;`),
        { timeout: 60000, what: "two live session cards" },
      );
      for (const id of ids) await s.click(`[data-testid=session-card][data-session="${id}"] [data-testid=watch-terminal]`);
      const panels = ids.map((id) => `[data-testid=terminal-panel][data-session="${id}"]`);
      for (const panel of panels) {
        await waitFor(async () => (await s.exec(`return document.querySelector(arguments[0] + " [data-testid=terminal-screen]")?.screenText?.().some((r) => r.includes("accept edits on"))`, panel)), {
          timeout: 30000,
          what: "the terminal to draw Claude's prompt",
        });
      }
      await s.exec(`document.querySelector("[data-testid=terminals]").scrollIntoView({ block: "start" })`);
      await new Promise((r) => setTimeout(r, 500));
      for (const panel of panels) {
        const size = await waitFor(() => s.exec(SIZES, panel, 40), { what: "the terminal's size" });
        assert.ok(size.row >= 11, `rows ${size.row} px high at 1280x820 with two panes: ${JSON.stringify(size)}`);
        assert.ok(size.sideways, `a 140-column pane in half the window scrolls sideways: ${JSON.stringify(size)}`);
      }
      await s.screenshot("terminals-two-readable");

      // Zoom: Ctrl+= makes the text larger, Ctrl+0 brings it back.
      const [first] = panels;
      const before = await s.exec(SIZES, first, 40);
      await s.click(`${first} [data-testid=terminal-title]`);
      await chord(s, "\uE009", "=");
      const larger = await waitFor(async () => {
        const v = await s.exec(SIZES, first, 40);
        return v.font > before.font ? v : null;
      }, { what: "Ctrl+= to zoom in" });
      assert.ok(larger.zoom > 1, JSON.stringify(larger));
      await s.click(`${first} [data-testid=terminal-zoom-reset]`);
      await waitFor(async () => (await s.exec(SIZES, first, 40)).font === before.font, { what: "the zoom reset" });

      // Maximise: a double-click on the title fills the window with that view; Esc restores.
      await s.exec(`document.querySelector(arguments[0]).dispatchEvent(new MouseEvent("dblclick", { bubbles: true }))`, `${first} [data-testid=terminal-title]`);
      const big = await waitFor(async () => {
        const v = await s.exec(SIZES, first, 40);
        return v.panel[2] > 1100 && v.panel[3] > 700 ? v : null;
      }, { what: "the view maximised" });
      assert.ok(big.row >= 11, JSON.stringify(big));
      await new Promise((r) => setTimeout(r, 1500));
      await s.screenshot("terminal-maximised");
      await s.exec(`document.querySelector(arguments[0]).focus()`, first);
      await s.keys("\uE00C");
      await waitFor(async () => (await s.exec(SIZES, first, 40)).panel[2] < 800, { what: "Esc to restore the view" });
    });
  } finally {
    for (const t of panes) t.kill();
    api.stop();
  }
});
