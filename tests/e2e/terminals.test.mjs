// Live terminal views in the real window, of the real Claude Code CLI in tmux (model API on a
// loopback stand-in): the view shows what `tmux capture-pane` shows (compared row by row, and
// drawn: the pixels of the panel are looked at); taking control and typing reaches the agent;
// Esc Esc gives control back; a pane that closes says so; four side by side.

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { agentCli, claudeEnv, claudeReady, makeAgentHome, startStandIn, Tmux } from "./agents.mjs";
import { coloursIn, mirrors as mirrorsRows, PANEL_ROWS, PANEL_SEEN, rowsOf } from "./terminal-view.mjs";
import { waitFor, withApp } from "./webdriver.mjs";

/** Waits until the panel `css` shows what the pane of `tmux` shows. */
const mirrors = (s, css, tmux, what) => mirrorsRows(s, css, () => tmux.capture(), what);

const claude = agentCli("claude");

/** The pane's rows as `capture-pane -p` prints them. */
function capture(tmux) {
  return rowsOf(tmux.capture());
}

/** Claude Code in plan mode in a tmux server of its own, idle at its prompt. */
async function startClaude(home, repo, api) {
  const tmux = new Tmux();
  tmux.start([claude.bin, "--permission-mode", "plan"], { cwd: repo, env: claudeEnv(home, api) });
  await tmux.waitScreen("plan mode on", { timeout: 30000 });
  return tmux;
}

/** The pid of Claude Code session `id`, from its registry entry (`~/.claude/sessions/<pid>.json`). */
function sessionPid(home, id) {
  const dir = join(home, ".claude/sessions");
  for (const f of readdirSync(dir)) {
    const e = JSON.parse(readFileSync(join(dir, f), "utf8"));
    if (e.sessionId === id) return e.pid;
  }
  throw new Error(`no registry entry for session ${id} in ${dir}`);
}

/** `pid` and every process above it. */
function ancestors(pid) {
  const out = [];
  for (let p = pid; p > 1; ) {
    out.push(p);
    const stat = readFileSync(`/proc/${p}/stat`, "utf8");
    p = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  }
  return out;
}

/** The card of the one session running in `repo` that offers its terminal. */
async function liveCard(s, repo) {
  return waitFor(
    () =>
      s.exec(
        `const c = [...document.querySelectorAll("[data-testid=session-card]")].find((c) => c.querySelector("[data-testid=watch-terminal]") && c.textContent.includes(arguments[0]) && !arguments[1].includes(c.dataset.session));
         return c ? c.dataset.session : null;`,
        repo.split("/").pop(),
        [],
      ),
    { timeout: 30000, what: `a live session card for ${repo}` },
  );
}

test("a terminal view mirrors Claude's pane; typing after Take control reaches the model; Esc Esc gives it back; a closed pane says so", async () => {
  const { base, home, repo } = makeAgentHome("shop");
  claudeReady(home, repo);
  const api = await startStandIn("claude", join(base, "api"));
  const tmux = await startClaude(home, repo, api);
  try {
    await withApp({ home }, async (s) => {
      await s.setSize(1280, 820);
      await s.click("[data-view=sessions]");
      const id = await liveCard(s, repo);
      const card = `[data-testid=session-card][data-session="${id}"]`;
      await s.click(`${card} [data-testid=watch-terminal]`);
      const panel = `[data-testid=terminal-panel][data-session="${id}"]`;
      await waitFor(async () => (await s.exec(PANEL_ROWS, panel))?.some((r) => r), { what: "the terminal to draw" });
      // The view is the pane: same size, same rows.
      const size = tmux.run(["display-message", "-p", "-t", "agent", "#{pane_width}×#{pane_height}"]).trim();
      await s.waitForText(size, panel);
      await mirrors(s, panel, tmux, "the view to show Claude's prompt as the pane does");
      // Read-only: keys typed at the window reach nothing (checked below, once keys typed through
      // the same view with control taken have reached the pane: "zz" would have come first).
      await s.click(`${panel} .xterm-screen`);
      await s.keys("zz");

      // Seen: the screen has a box in the window, nothing covers it, and it is drawn.
      // Drawn on a canvas (the DOM renderer costs several times more for a streaming agent).
      assert.equal(await s.exec(`return document.querySelector(arguments[0]).dataset.renderer`, panel), "canvas");
      const seen = await s.exec(PANEL_SEEN, panel);
      assert.ok(seen?.inside && seen.hit, `the terminal is not in view: ${JSON.stringify(seen)}`);
      const shot = await s.screenshot("terminal-claude");
      const colours = coloursIn(shot, seen.box.map((v) => Math.round(v * seen.dpr)));
      assert.ok(colours > 8, `the terminal's box holds ${colours} colours: nothing drawn`);

      // Take control: a banner says so, and typed keys reach Claude's input, then the model.
      await s.click(`${panel} [data-testid=terminal-take-control]`);
      await s.waitFor(`${panel} [data-testid=terminal-control-banner]`);
      const prompt = "plan a shopping cart";
      await s.keys(prompt);
      await tmux.waitScreen(prompt, { timeout: 15000 });
      assert.ok(!capture(tmux).join("\n").includes("zz"), "a read-only view typed into the pane");
      await s.keys("\uE007"); // Enter
      await waitFor(() => api.requests().some((r) => JSON.stringify(r.body ?? "").includes(prompt)), {
        timeout: 30000,
        what: "the prompt typed in the view to reach the model",
      });
      // The plan's approval card comes up: the view shows it as the pane does.
      await tmux.waitScreen("Tell Claude what to change", { timeout: 60000 });
      await mirrors(s, panel, tmux, "the view to show the plan's card as the pane does");
      await s.screenshot("terminal-control");

      // Esc Esc gives control back, and neither Escape reached the agent (the card is still up).
      await s.keys("\uE00C\uE00C");
      await waitFor(async () => !(await s.exec(`return !!document.querySelector(arguments[0] + " [data-testid=terminal-control-banner]")`, panel)), {
        what: "the control banner to go",
      });
      await s.waitFor(`${panel} [data-testid=terminal-take-control]`);
      // A barrier through the same view: control taken again, Down moves the card's cursor. An
      // Escape sent before it would have closed the card first.
      await s.click(`${panel} [data-testid=terminal-take-control]`);
      await s.waitFor(`${panel} [data-testid=terminal-control-banner]`);
      await s.keys("\uE015"); // Down
      await tmux.waitScreen((t) => /❯ 2\./.test(t) || !t.includes("Tell Claude what to change"), { what: "the card's cursor to move" });
      assert.ok(capture(tmux).join("\n").includes("Tell Claude what to change"), "an Escape reached the agent");
      await s.keys("\uE00C\uE00C");
      await s.waitFor(`${panel} [data-testid=terminal-take-control]`);

      // The pane closes (a second window keeps its session up): the view says so, in those words.
      const agentPane = tmux.run(["display-message", "-p", "-t", "agent", "#{pane_id}"]).trim();
      tmux.run(["new-window", "-d", "sleep 600"]);
      tmux.run(["kill-pane", "-t", agentPane]);
      await s.waitForText("Terminal closed", panel, { timeout: 15000 });
      assert.match(await s.text(`${panel} [data-testid=terminal-closed]`), /Terminal closed: the pane closed/);
    });
  } finally {
    tmux.kill();
    api.stop();
  }
});

test("four terminals side by side, each its own pane", async () => {
  const { base, home, repo } = makeAgentHome("shop");
  claudeReady(home, repo);
  const api = await startStandIn("claude", join(base, "api"));
  const panes = [];
  try {
    for (let i = 0; i < 4; i++) {
      const tmux = await startClaude(home, repo, api);
      // A pane of the size a person's terminal tab has (the view draws it at its own size).
      tmux.run(["resize-window", "-t", "agent", "-x", "110", "-y", "34"]);
      panes.push(tmux);
    }
    await withApp({ home }, async (s) => {
      await s.setSize(1280, 820);
      await s.click("[data-view=sessions]");
      const ids = await waitFor(
        () =>
          s.exec(`const ids = [...document.querySelectorAll("[data-testid=session-card]")].filter((c) => c.querySelector("[data-testid=watch-terminal]")).map((c) => c.dataset.session);
                  return ids.length >= 4 ? ids.slice(0, 4) : null;`),
        { timeout: 60000, what: "four live session cards" },
      );
      for (const id of ids) await s.click(`[data-testid=session-card][data-session="${id}"] [data-testid=watch-terminal]`);
      await waitFor(async () => (await s.exec(`return [...document.querySelectorAll("[data-testid=terminal-panel] [data-testid=terminal-screen]")].filter((h) => h.screenText && h.screenText().some((r) => r.trim())).length`)) === 4, {
        what: "four terminals",
      });
      // Side by side: two columns, two rows, none covering another, each in view once the person
      // scrolls up to them.
      await s.exec(`document.querySelector("[data-testid=terminals]").scrollIntoView({ block: "start" })`);
      const boxes = [];
      for (const id of ids) {
        const seen = await waitFor(async () => {
          const v = await s.exec(PANEL_SEEN, `[data-testid=terminal-panel][data-session="${id}"]`);
          return v?.inside && v.hit ? v : null;
        }, { what: `terminal ${id} in view` }).catch(async (e) => {
          await s.screenshot("terminals-four-failed");
          throw new Error(`${e.message}: ${JSON.stringify(await s.exec(PANEL_SEEN, `[data-testid=terminal-panel][data-session="${id}"]`))}`);
        });
        boxes.push(seen.box);
      }
      const columns = new Set(boxes.map((b) => Math.round(b[0] / 100))).size;
      const rows = new Set(boxes.map((b) => Math.round(b[1] / 100))).size;
      assert.deepEqual([columns, rows], [2, 2], `boxes ${JSON.stringify(boxes)}`);
      // Each shows its own pane: a marker of its own typed into each pane's input; each card's pane
      // found by its agent's pid (Claude Code's registry names the session's pid, tmux the pane's);
      // each view mirrors that pane, shows its marker and no other.
      const markers = panes.map((_, i) => `pane-${i}-marker-${"abcd"[i]}`);
      for (const [i, t] of panes.entries()) {
        t.text(markers[i]);
        await t.waitScreen(markers[i], { timeout: 15000 });
      }
      const paneOf = (id) => {
        const pid = sessionPid(home, id);
        const i = panes.findIndex((t) => ancestors(pid).includes(Number(t.run(["display-message", "-p", "-t", "agent", "#{pane_pid}"]).trim())));
        assert.ok(i >= 0, `session ${id} (pid ${pid}) runs in none of the four panes`);
        return i;
      };
      const shown = ids.map(paneOf);
      assert.deepEqual([...shown].sort(), [0, 1, 2, 3], `cards to panes: ${shown}`);
      for (const [k, id] of ids.entries()) {
        const panel = `[data-testid=terminal-panel][data-session="${id}"]`;
        const i = shown[k];
        await mirrors(s, panel, panes[i], `terminal ${id} to mirror pane ${i}`);
        const text = (await s.exec(PANEL_ROWS, panel)).join("\n");
        assert.ok(text.includes(markers[i]), `terminal ${id}: no ${markers[i]}: ${text}`);
        for (const [j, m] of markers.entries()) if (j !== i) assert.ok(!text.includes(m), `terminal ${id} shows pane ${j}'s ${m}`);
      }
      const shot = await s.screenshot("terminals-four");
      for (const box of boxes) assert.ok(coloursIn(shot, box) > 8, `the terminal at ${box} is not drawn`);
    });
  } finally {
    for (const t of panes) t.kill();
    api.stop();
  }
});
