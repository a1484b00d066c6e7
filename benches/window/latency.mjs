// Window-level latency (docs/architecture.md §6), the real window on a small home:
// - hook fires → card visible: the hook command as `plandeck hooks install` writes it (`plandeck-cli hook
//   claude` when the slim CLI is beside the window's binary, as the package installs it) spawned by a headless agent stand-in
//   (headless-agent.mjs), from its spawn until the first frame after its card is in the window
//   (budget p95 < 300 ms): the hook process's own start, filing the request, the app's gate
//   watcher, the event, the queue's reload and render;
// - click approve → agent unblocked (headless): the card's Approve clicked in the page, until the
//   hook process exits with the decision;
// - plan written → window updated, while a transcript is appended to every 20 ms (an agent at
//   work): a plan file written, until the first frame after its row is in the plan list.
// Usage: node benches/window/latency.mjs [--samples 30]   (PLANDECK_BIN: the binary; DISPLAY set)

import { appendFileSync, mkdirSync, watch, writeFileSync } from "node:fs";
import { join } from "node:path";
import { withApp } from "../../tests/e2e/webdriver.mjs";
import { args, clickApprove, emit, recordAppearances, row, smallHome, startHook, waitSeen } from "./lib.mjs";

export async function latency({ samples = 30 } = {}) {
  const home = smallHome(3);
  const rows = [];
  await withApp({ home }, async (s) => {
    await s.waitFor("[data-testid=plan-row]", { timeout: 30000 });

    // Hook → card, then Approve → hook exit.
    await recordAppearances(s, "[data-testid=gate-request]", "data-id");
    // When each request file lands in the store (inotify): splits hook → card into the hook
    // process's share (its start and filing) and the window's (watcher, event, render).
    const filedAt = {};
    const gate = join(home, ".local/share/plandeck/gate");
    mkdirSync(gate, { recursive: true });
    const watcher = watch(gate, { recursive: true }, (_, name) => {
      const m = /requests\/([0-9a-f]+)\.json$/.exec(String(name ?? ""));
      if (m && !(m[1] in filedAt)) filedAt[m[1]] = Date.now();
    });
    const done = {};
    const toCard = [];
    const filedToCard = [];
    const toExit = [];
    for (let n = 0; n < samples; n++) {
      const hook = startHook(home, n);
      const card = await waitSeen(s, (k) => !(k in done), `card of hook ${n}`);
      done[card.key] = true;
      const clickedAt = await clickApprove(s, card.key);
      const exit = await hook.exited;
      if (exit.code !== 0 || !/allow/.test(exit.stdout)) {
        throw new Error(`hook ${n} exited ${exit.code} without an approval: ${exit.stdout}`);
      }
      toExit.push(exit.at - clickedAt);
      // From the hook's process start (as the agent spawns it) to its card on screen.
      toCard.push(card.at - exit.spawnedAt);
      if (filedAt[card.key]) filedToCard.push(card.at - filedAt[card.key]);
    }
    watcher.close();
    rows.push(row("window_hook_to_card_visible", toCard, { figure: "p95", budget: "p95 < 300 ms", limit: { ms: 300 } }));
    if (filedToCard.length) {
      rows.push(
        row("window_request_filed_to_card_visible", filedToCard, {
          budget: "< 300 ms (the window's share of hook to card visible)",
          limit: { ms: 300 },
          part_of: "window_hook_to_card_visible: the window's share",
        }),
      );
    }
    rows.push(
      row("window_approve_click_to_hook_exit", toExit, {
        budget: "< 50 ms (decision to hook exit)",
        limit: { ms: 50 },
        mode: "headless (hook process)",
      }),
    );

    // Plan written → row in the list, with a transcript growing beside it.
    const transcriptDir = join(home, ".claude/projects/-busy");
    mkdirSync(transcriptDir, { recursive: true });
    const transcript = join(transcriptDir, "busy-session.jsonl");
    writeFileSync(transcript, "");
    let appended = 0;
    const appender = setInterval(() => {
      const rec = {
        type: "assistant",
        sessionId: "busy-session",
        cwd: "/w/busy",
        timestamp: new Date().toISOString(),
        message: { role: "assistant", content: [{ type: "text", text: `working ${appended++} `.repeat(20) }] },
      };
      appendFileSync(transcript, JSON.stringify(rec) + "\n");
    }, 20);
    try {
      await recordAppearances(s, "[data-testid=plan-row]", "text");
      const toRow = [];
      for (let n = 0; n < samples; n++) {
        const marker = `bench marker ${n} ${Date.now()}`;
        const t0 = Date.now();
        writeFileSync(join(home, ".claude/plans", `written-${n}.md`), `# Plan: ${marker}\n\n1. one\n`);
        const seenRow = await waitSeen(s, (k) => k.includes(marker), `row of plan ${n}`);
        toRow.push(seenRow.at - t0);
      }
      rows.push(
        row("window_plan_written_to_row_visible", toRow, {
          budget: "< 300 ms (a change on disk to the window showing it, as hook to card)",
          limit: { ms: 300 },
          concurrent: `transcript appended every 20 ms (${appended} records)`,
        }),
      );
    } finally {
      clearInterval(appender);
    }
  });
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const a = args();
  for (const r of await latency({ samples: Number(a.samples ?? 30) })) emit(r);
}
