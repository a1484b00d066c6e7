// Window content on a heavy home vs a one-plan home (≤ 1.3×), the same build, same run:
// from asking tauri-driver for the window (the app starts) to the first frame with a plan row in
// it. On the heavy home also, informational, until the sessions view shows cards with the index
// fully read (its progress line gone). Each home is launched once untimed first, left open until
// the session index and the plan history are read and stored (a person's first launch); the
// samples alternate the two homes.
// Usage: node benches/window/startup.mjs --heavy <home> [--samples 5]
//   (without --heavy a 300-plan home stands in: the smoke test's shape)

import { withApp } from "../../tests/e2e/webdriver.mjs";
import { args, emit, percentile, row, smallHome, waitFor } from "./lib.mjs";

/** ms from app start to a plan row on screen, and with `sessions` to the sessions read. */
async function launch(home, { sessions = false } = {}) {
  const t0 = Date.now();
  const out = { content: 0, sessions: 0 };
  await withApp({ home }, async (s) => {
    const at = await waitFor(
      () =>
        s.exec(
          `return document.querySelector("[data-testid=plan-row]") ? new Promise((r) => requestAnimationFrame(() => r(Date.now()))) : 0;`,
        ),
      { timeout: 120000, interval: 10, what: "a plan row" },
    );
    out.content = at - t0;
    if (!sessions) return;
    await s.click("[data-view=sessions]");
    const done = await waitFor(
      () =>
        s.exec(
          `return (document.querySelector("[data-testid=session-card]") || document.querySelector("[data-testid=toggle-ended]")) && !document.querySelector("[data-testid=sessions-progress]") ? Date.now() : 0;`,
        ),
      { timeout: 300000, interval: 20, what: "the sessions read" },
    );
    out.sessions = done - t0;
  });
  return out;
}

/** A person's first launch: open until the session index and the plan history are read and
 * stored, so the timed launches after it find Plandeck's store as a second start does (a launch
 * closed as soon as a plan row shows would leave them unread, and every timed launch would read
 * the whole home again in the background). */
async function firstLaunch(home) {
  await withApp({ home }, async (s) => {
    await waitFor(
      () =>
        s.exec(
          `const invoke = window.__TAURI_INTERNALS__.invoke;
           return Promise.all([invoke("session_index_progress"), invoke("history_progress")])
             .then(([index, history]) => index.ready && history.done);`,
        ),
      { timeout: 600000, interval: 200, what: "the first launch's reads of the home" },
    );
  });
}

export async function startup({ heavy, samples = 5 } = {}) {
  const light = smallHome(1);
  const big = heavy ?? smallHome(300);
  const withSessions = Boolean(heavy);
  await firstLaunch(light);
  await firstLaunch(big);
  const one = [];
  const many = [];
  const sessions = [];
  for (let i = 0; i < samples; i++) {
    one.push((await launch(light)).content);
    const r = await launch(big, { sessions: withSessions });
    many.push(r.content);
    if (withSessions) sessions.push(r.sessions);
  }
  const p50one = percentile(one, 50);
  const rows = [
    row(heavy ? "window_content_heavy_home" : "window_content_300_plans", many, {
      budget: "<= 1.3x one-plan home",
      limit: { ratio: 1.3 },
      baseline: { what: "one-plan home, same build", ms: Math.round(p50one * 10) / 10 },
      ratio: Math.round((percentile(many, 50) / p50one) * 100) / 100,
      measured: "tauri-driver session request to the first frame with a plan row",
    }),
  ];
  if (withSessions) {
    rows.push(
      row("window_sessions_read_heavy_home", sessions, {
        budget: "<= 1.6x the one-plan home's first content (an app start, same run)",
        limit: { ratio: 1.6 },
        baseline: { what: "one-plan home, same build: first content", ms: Math.round(p50one * 10) / 10 },
        measured: "app start to session cards with the index read",
      }),
    );
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const a = args();
  for (const r of await startup({ heavy: a.heavy, samples: Number(a.samples ?? 5) })) emit(r);
}
