// Session control end to end in the real window with the real agent CLIs (installed in
// ~/.cache/plandeck-agents), their model APIs answered by the loopback stand-ins: "New session"
// in a new worktree, in plan mode, with a prompt → the stand-in receives the prompt, the session
// card appears, the plan reaches the waiting queue, and approving it from the window reaches the
// agent; then interrupt, stop and resume do what they say, and stop refuses a person's own
// process. The agent runs in the person's own default tmux server (made private here with
// TMUX_TMPDIR, never `-L`), as Plandeck starts it.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { AGENTS_DIR, CLAUDE_KEY, claudeEnv, closedRequest, makeAgentHome, modelGot, pending, startStandIn } from "./agents.mjs";
import { cli, envFor, waitFor, withApp } from "./webdriver.mjs";

/** The person's default tmux server of this test (`TMUX_TMPDIR`, no `-L`). */
class DefaultTmux {
  constructor(dir) {
    this.dir = dir;
    mkdirSync(dir, { recursive: true });
  }
  run(args) {
    const r = spawnSync("tmux", args, { encoding: "utf8", timeout: 10000, env: { ...process.env, TMUX_TMPDIR: this.dir, TMUX: "" } });
    return r.status === 0 ? r.stdout : "";
  }
  capture(session) {
    return this.run(["capture-pane", "-p", "-t", `=${session}:`]);
  }
  sessions() {
    return this.run(["ls", "-F", "#{session_name}"]).split("\n").filter(Boolean);
  }
  waitScreen(session, text, { timeout = 30000 } = {}) {
    return waitFor(() => this.capture(session).includes(text), { timeout, what: `${text} in ${session}` }).catch((e) => {
      throw new Error(`${e.message}\n--- screen ---\n${this.capture(session)}`);
    });
  }
  kill() {
    // The agents outlive a hang-up (Gemini CLI's relaunched child): end each pane's processes.
    for (const pid of this.run(["list-panes", "-a", "-F", "#{pane_pid}"]).split("\n").map(Number).filter((n) => n > 1)) {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        /* gone */
      }
    }
    this.run(["kill-server"]);
  }
}

/** What Plandeck recorded of the sessions it started (`<data>/started/*.json`). */
function startedRecords(home) {
  const dir = join(home, ".local/share/plandeck/started");
  if (!existsSync(dir)) return [];
  return readdirSync(dir).map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")));
}

/** Sets a `<select>` or text field in the window and tells Svelte. */
async function setField(s, css, value) {
  await s.exec(
    `const e = document.querySelector(arguments[0]);
     const proto = e.tagName === "SELECT" ? HTMLSelectElement.prototype : e.tagName === "TEXTAREA" ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
     Object.getOwnPropertyDescriptor(proto, "value").set.call(e, arguments[1]);
     e.dispatchEvent(new Event(e.tagName === "SELECT" ? "change" : "input", { bubbles: true }));`,
    css,
    value,
  );
}

const PROMPT = "plan pagination for the list endpoint";

test("start: Claude Code in a new worktree in plan mode with a prompt; its plan approved from the window; interrupt, stop, resume", { timeout: 240000 }, async () => {
  const { base, home, repo } = makeAgentHome("api");
  const worktree = join(home, "work", "api.worktrees", "feat");
  // Past Claude Code's first-run dialogs, the repository and the worktree to be trusted.
  const trusted = { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true, allowedTools: [] };
  writeFileSync(
    join(home, ".claude.json"),
    JSON.stringify({
      hasCompletedOnboarding: true,
      lastOnboardingVersion: "2.1.328",
      theme: "dark",
      customApiKeyResponses: { approved: [CLAUDE_KEY.slice(-20)], rejected: [] },
      projects: { [repo]: trusted, [worktree]: trusted },
    }),
  );
  const installed = cli(home, ["hooks", "install", "--agent", "claude", "--yes"]);
  assert.equal(installed.status, 0, `hooks install failed: ${installed.stderr}`);
  const api = await startStandIn("claude", join(base, "api"));
  const tmux = new DefaultTmux(join(base, "tmux"));
  const env = {
    ...claudeEnv(home, api),
    PATH: `${join(AGENTS_DIR, "node_modules/.bin")}:${process.env.PATH}`,
    TMUX_TMPDIR: tmux.dir,
    // withApp's base environment sets it empty (Claude Code would keep its files in its working
    // folder); left out, it reads `$HOME/.claude.json` and `$HOME/.claude` (undefined is not
    // passed on).
    CLAUDE_CONFIG_DIR: undefined,
  };
  try {
    await withApp({ home, env }, async (s) => {
      await waitFor(() => existsSync(join(home, ".local/share/plandeck/gate/app.json")), { what: "the app's gate/app.json" });
      await s.click("[data-view=sessions]");
      await s.click("[data-testid=new-session-button]");
      await s.waitFor("[data-testid=new-session]");
      // The agents come from core's list: picked once it is there.
      await s.waitFor("[data-testid=new-session] select option[value=claude]");
      await setField(s, "[data-testid=new-session] select", "claude");
      await setField(s, "[data-testid=new-session] input[aria-label=Repository]", repo);
      await setField(s, "[data-testid=new-session] input[aria-label='Worktree name']", "feat");
      await setField(s, "[data-testid=new-session] textarea", PROMPT);
      assert.equal(await s.exec(`return document.querySelector("[data-testid=new-session] input[type=checkbox]").checked`), true);
      await s.screenshot("new-session");
      await s.click("[data-testid=new-session-start]");
      await s.waitFor("[data-testid=new-session-started]", { timeout: 30000 }).catch(async (e) => {
        throw new Error(`${e.message}\n--- dialog ---\n${await s.text("[data-testid=new-session]").catch(() => "")}`);
      });
      const said = await s.text("[data-testid=new-session-started]");
      assert.match(said, /in plan mode/);
      assert.match(said, /api-feat-claude/);
      // The hook is installed: nothing offered.
      assert.equal(await s.exec(`return !!document.querySelector("[data-testid=new-session-hook]")`), false);
      await s.click("[data-testid=new-session-done]");

      // On the default server, in the new worktree on its branch.
      assert.deepEqual(tmux.sessions(), ["api-feat-claude"]);
      const branch = spawnSync("git", ["-C", worktree, "rev-parse", "--abbrev-ref", "HEAD"], { encoding: "utf8" }).stdout.trim();
      assert.equal(branch, "feat");
      const [rec] = startedRecords(home);
      assert.equal(rec.tmuxSession, "api-feat-claude");
      assert.equal(rec.cwd, worktree);

      // The stand-in got the prompt (the CLI's own argument), in plan mode.
      await waitFor(() => api.requests().some((r) => JSON.stringify(r.body ?? "").includes(PROMPT)), { timeout: 60000, what: "the prompt at the stand-in" });
      await tmux.waitScreen("api-feat-claude", "plan mode on");

      // The card appears; the plan reaches the waiting queue and is approved from the window.
      const card = `[data-testid=session-card][data-session="${rec.sessionId}"]`;
      await s.waitFor(card, { timeout: 30000 });
      const req = await waitFor(() => pending(home)[0], { timeout: 60000, what: "the plan in the waiting queue" });
      assert.equal(req.agent, "claude");
      assert.equal(req.cwd, worktree);
      const approve = `[data-testid=gate-request][data-id="${req.id}"] [data-testid=gate-approve-auto]`;
      await s.waitFor(approve, { timeout: 20000 });
      await s.screenshot("new-session-plan-waiting");
      await s.click(approve);
      const got = await modelGot(api, { safeCapture: () => tmux.capture("api-feat-claude") }, "ExitPlanMode");
      assert.match(got.content, /User has approved your plan/);
      const done = await waitFor(() => closedRequest(home, req.id), { what: "the request to close" });
      assert.equal(done.status, "approved");

      // Interrupt: confirmed first, then Esc reaches the agent.
      await s.click(`${card} [data-testid=action-interrupt]`);
      await s.click(`${card} [data-testid=confirm-interrupt]`);
      await s.waitForText("pressed Esc", `${card} [data-testid=action-note]`, { timeout: 15000 });

      // Stop: lists the agent's own process, then ends it; the tmux session closes with it.
      await s.click(`${card} [data-testid=action-stop]`);
      await s.waitFor(`${card} [data-testid=stop-processes]`);
      await s.screenshot("session-stop-listed");
      const listed = await s.exec(`return document.querySelector(arguments[0]).textContent`, `${card} [data-testid=stop-processes]`);
      assert.ok(listed.includes(String(rec.pid)), listed);
      assert.match(listed, /claude/);
      await s.click(`${card} [data-testid=confirm-stop]`);
      await s.waitForText("ended Claude Code", `${card} [data-testid=action-note]`, { timeout: 20000 });
      await waitFor(() => !tmux.sessions().includes("api-feat-claude"), { what: "the tmux session to close" });

      // Resume: the ended card offers it; the session again, in its folder, in a new tmux session.
      await s.click(`${card} [data-testid=action-resume]`);
      await s.waitForText("Resumed in tmux session", `${card} [data-testid=action-note]`, { timeout: 30000 });
      const again = startedRecords(home).find((x) => x.tmuxSession !== "api-feat-claude");
      assert.equal(again.sessionId, rec.sessionId);
      assert.equal(again.cwd, worktree);
      await tmux.waitScreen(again.tmuxSession, "Plan: add pagination", { timeout: 45000 });
    });
  } finally {
    tmux.kill();
    api.stop();
  }
});

test("stop refuses a person's own process: a shell named as a live Claude Code session", { timeout: 60000 }, async () => {
  const { base, home } = makeAgentHome("mine");
  const tmux = new DefaultTmux(join(base, "tmux"));
  try {
    tmux.run(["new-session", "-d", "-s", "mine", "bash", "--norc"]);
    const [pid, pane] = tmux.run(["list-panes", "-t", "=mine", "-F", "#{pane_pid} #{pane_id}"]).trim().split(" ");
    const sessions = join(home, ".claude/sessions");
    mkdirSync(sessions, { recursive: true });
    writeFileSync(join(sessions, `${pid}.json`), JSON.stringify({ pid: Number(pid), sessionId: "s-mine", cwd: home, tmux: `mine:@0.${pane}` }));
    const r = spawnSync(process.env.PLANDECK_BIN || join(process.env.CARGO_TARGET_DIR || "target", "debug/plandeck"), ["stop", "s-mine", "--yes", "--json"], {
      encoding: "utf8",
      env: { ...envFor(home), TMUX_TMPDIR: tmux.dir },
      timeout: 30000,
    });
    assert.notEqual(r.status, 0);
    assert.match(JSON.parse(r.stdout).error.message, /is not Claude Code's own process.*nothing was ended/);
    assert.ok(existsSync(`/proc/${pid}`), "the person's shell still runs");
  } finally {
    tmux.kill();
  }
});
