// Window-level latency of an interactive approval ("click approve → agent unblocked,
// interactive via tmux"): an agent at Claude Code's terminal approval card in a pane of a private
// tmux server (tmux-agent.mjs: it runs the real `plandeck hook claude` as its child, so the gate
// names its pane and its process the way it does for the real CLI), the real window on the same
// home. For each sample: the request's card appears in the window, its "Approve" (auto mode) is
// clicked in the page, and the gate's checked path types `1` into the pane (agent alive and in
// front, pane its terminal, this request's plan on the card, the card on screen for the settle
// time, then closed); timed from the click (Date.now() in the page) to the moment the agent
// program reads the key (Date.now() in it). Limit: the gate's 1 s settle (the card must stay up
// that long before a key goes) plus 500 ms.
// Usage: node benches/window/interactive.mjs [--samples 10]   (PLANDECK_BIN: the binary; DISPLAY set)

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Tmux } from "../../tests/e2e/agents.mjs";
import { withApp } from "../../tests/e2e/webdriver.mjs";
import { args, clickApprove, emit, envFor, hookBin, recordAppearances, row, smallHome, waitFor, waitSeen } from "./lib.mjs";

export async function interactiveApproval({ samples = 10 } = {}) {
  const home = smallHome(1);
  const out = join(home, "agent-saw.jsonl");
  const read = () => (existsSync(out) ? readFileSync(out, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)) : []);
  const tmux = new Tmux();
  const rows = [];
  try {
    await withApp({ home }, async (s) => {
      await s.waitFor("[data-testid=plan-row]", { timeout: 30000 });
      await waitFor(() => existsSync(join(home, ".local/share/plandeck/gate/app.json")), { what: "the app's gate/app.json" });
      await recordAppearances(s, "[data-testid=gate-request]", "data-id");
      const agent = join(import.meta.dirname, "tmux-agent.mjs");
      tmux.start([process.execPath, agent, hookBin(), home, out, String(samples)], { cwd: home, env: envFor(home) });
      const done = {};
      const toAgent = [];
      for (let n = 0; n < samples; n++) {
        await tmux.waitScreen(`Bench plan tmux-${n}`, { timeout: 20000 });
        const card = await waitSeen(s, (k) => !(k in done), `card of plan ${n}`);
        done[card.key] = true;
        const clickedAt = await clickApprove(s, card.key);
        const saw = await waitFor(() => read().find((r) => r.n === n), { timeout: 30000, what: `the agent to read the approval of plan ${n}` }).catch((e) => {
          throw new Error(`${e.message}\n--- screen ---\n${tmux.safeCapture()}`);
        });
        if (saw.key !== "1") throw new Error(`the agent read ${JSON.stringify(saw.key)}, not the auto-mode approval "1"`);
        toAgent.push(saw.at - clickedAt);
      }
      await tmux.waitScreen("done", { timeout: 20000 });
      rows.push(
        row("window_approve_click_to_agent_unblocked_tmux", toAgent, {
          budget: "< 1.5 s (the gate's 1 s settle before the key, plus 500 ms)",
          limit: { ms: 1500 },
          mode: "interactive: the card typed into the agent's tmux pane by the gate (scripted Claude Code card stand-in, real hook)",
          measured: "Approve clicked in the page until the agent program read the key",
        }),
      );
    });
  } finally {
    tmux.kill();
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const a = args();
  for (const r of await interactiveApproval({ samples: Number(a.samples ?? 10) })) emit(r);
}
