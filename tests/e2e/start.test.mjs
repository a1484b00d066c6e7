// Session control end to end in the real window with the real agent CLIs (installed in
// ~/.cache/plandeck-agents), their model APIs answered by the loopback stand-ins: "New session"
// in a new worktree, in plan mode, with a prompt → the stand-in receives the prompt, the session
// card appears, the plan reaches the waiting queue, and approving it from the window reaches the
// agent; its terminal in the window shows what tmux shows and takes the person's keys once they
// take control; then interrupt, stop and resume do what they say, and stop refuses a person's
// own process. The agent runs in the person's own default tmux server (made private here with
// TMUX_TMPDIR, never `-L`), as Plandeck starts it.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { AGENTS_DIR, CLAUDE_KEY, claudeEnv, closedRequest, codexSetup, geminiEnv, geminiReady, makeAgentHome, modelGot, pending, startStandIn } from "./agents.mjs";
import { coloursIn, mirrors, PANEL_SEEN } from "./terminal-view.mjs";
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

/** Each agent made ready in a scratch home, as its gate test makes it (no first-run dialog). */
const AGENTS = {
  claude: {
    name: "Claude Code",
    standIn: "claude",
    ready(home, repo, worktree) {
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
      assert.equal(cli(home, ["hooks", "install", "--agent", "claude", "--yes"]).status, 0);
    },
    // withApp's base environment sets CLAUDE_CONFIG_DIR empty (Claude Code would keep its files
    // in its working folder); left out, it reads `$HOME/.claude.json` (undefined is not passed on).
    env: (home, api) => ({ ...claudeEnv(home, api), CLAUDE_CONFIG_DIR: undefined }),
    tool: "ExitPlanMode",
    approved: /User has approved your plan/,
    planShown: "Plan: add pagination",
    // What its screen says while it works on a turn (core's WORKING for it).
    working: "esc to interrupt",
    // Its input box with nothing in it (a bare prompt between two rules).
    emptyBox: /^❯\s*$/m,
  },
  gemini: {
    name: "Gemini CLI",
    standIn: "gemini",
    ready(home, repo) {
      geminiReady(home, repo);
      assert.equal(cli(home, ["hooks", "install", "--agent", "gemini", "--yes"]).status, 0);
    },
    env: (home, api) => geminiEnv(home, api),
    tool: "exit_plan_mode",
    approved: /Plan approved/,
    // What its screen says while it works on a turn (core's WORKING for it).
    working: "esc to cancel",
    // Its input box with nothing in it (the placeholder shows).
    emptyBox: /^\s*>\s+Type your message/m,
  },
  codex: {
    name: "Codex CLI",
    standIn: "openai",
    ready() {},
    env: (home, api, repo, worktree) => {
      const { env } = codexSetup(home, worktree, api.url);
      return env;
    },
    // What its screen says while it works on a turn (core's WORKING for it).
    working: "esc to interrupt",
    // Its composer with nothing in it (the placeholder shows).
    emptyBox: /^›\s+Ask Codex to do anything/m,
  },
};

/** `/proc/<pid>/cmdline` as words (empty when it is gone). */
function argvOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
  } catch {
    return [];
  }
}

async function startAndSteer(id) {
  const agent = AGENTS[id];
  const { base, home, repo } = makeAgentHome("api");
  const worktree = join(home, "work", "api.worktrees", "feat");
  agent.ready(home, repo, worktree);
  // The window starts sessions only in a repository Plandeck lists (Choose… adds the one picked):
  // this one is in the settings, as Choose… would have put it.
  mkdirSync(join(home, ".config/plandeck"), { recursive: true });
  writeFileSync(join(home, ".config/plandeck/settings.json"), JSON.stringify({ extraRepos: [repo] }));
  const api = await startStandIn(agent.standIn, join(base, "api"));
  const tmux = new DefaultTmux(join(base, "tmux"));
  const env = {
    ...agent.env(home, api, repo, worktree),
    PATH: `${join(AGENTS_DIR, "node_modules/.bin")}:${process.env.PATH}`,
    TMUX_TMPDIR: tmux.dir,
  };
  const name = `api-feat-${id}`;
  try {
    await withApp({ home, env }, async (s) => {
      await waitFor(() => existsSync(join(home, ".local/share/plandeck/gate/app.json")), { what: "the app's gate/app.json" });
      await s.click("[data-view=sessions]");
      await s.click("[data-testid=new-session-button]");
      await s.waitFor("[data-testid=new-session]");
      // The agents come from core's list: picked once it is there.
      await s.waitFor(`[data-testid=new-session] select option[value=${id}]`);
      await setField(s, "[data-testid=new-session] select", id);
      await setField(s, "[data-testid=new-session] input[aria-label=Repository]", repo);
      await setField(s, "[data-testid=new-session] input[aria-label='Worktree name']", "feat");
      await setField(s, "[data-testid=new-session] textarea", PROMPT);
      assert.equal(await s.exec(`return document.querySelector("[data-testid=new-session] input[type=checkbox]").checked`), true);
      await s.screenshot(`new-session-${id}`);
      await s.click("[data-testid=new-session-start]");
      await s.waitFor("[data-testid=new-session-started]", { timeout: 90000 }).catch(async (e) => {
        throw new Error(`${e.message}\n--- dialog ---\n${await s.text("[data-testid=new-session]").catch(() => "")}`);
      });
      const said = await s.text("[data-testid=new-session-started]");
      assert.match(said, /in plan mode/);
      assert.ok(said.includes(name), said);
      // Codex CLI has no plan hook; the others' is installed: nothing offered.
      assert.equal(await s.exec(`return !!document.querySelector("[data-testid=new-session-hook]")`), false);
      await s.click("[data-testid=new-session-done]");

      // On the default server, in the new worktree on its branch.
      assert.deepEqual(tmux.sessions(), [name]);
      const branch = spawnSync("git", ["-C", worktree, "rev-parse", "--abbrev-ref", "HEAD"], { encoding: "utf8" }).stdout.trim();
      assert.equal(branch, "feat");
      const [rec] = startedRecords(home);
      assert.equal(rec.tmuxSession, name);
      assert.equal(rec.cwd, worktree);
      const screen = { safeCapture: () => tmux.capture(name) };

      // The stand-in got the prompt (the CLI's own argument, or typed once Codex is in Plan mode).
      await waitFor(() => api.requests().some((r) => JSON.stringify(r.body ?? "").includes(PROMPT)), { timeout: 60000, what: "the prompt at the stand-in" }).catch((e) => {
        throw new Error(`${e.message}\n--- screen ---\n${tmux.capture(name)}`);
      });

      // The plan reaches the waiting queue and is approved from the window.
      const req = await waitFor(() => pending(home)[0], { timeout: 60000, what: "the plan in the waiting queue" }).catch((e) => {
        throw new Error(`${e.message}\n--- screen ---\n${tmux.capture(name)}`);
      });
      assert.equal(req.agent, id);
      assert.equal(req.cwd, worktree);
      const sessionId = rec.sessionId ?? req.sessionId;
      const card = `[data-testid=session-card][data-session="${sessionId}"]`;
      await s.waitFor(card, { timeout: 60000 }).catch(async (e) => {
        const cards = await s.exec(`return [...document.querySelectorAll("[data-testid=session-card]")].map((c) => c.dataset.session + " " + c.className)`);
        const listed = cli(home, ["sessions", "--json"]).stdout;
        throw new Error(`${e.message}\ncards: ${JSON.stringify(cards)}\nplandeck sessions: ${listed.slice(0, 2000)}`);
      });
      const approve = `[data-testid=gate-request][data-id="${req.id}"] [data-testid=gate-approve-auto]`;
      await s.waitFor(approve, { timeout: 20000 });
      await s.screenshot(`new-session-plan-waiting-${id}`);
      await s.click(approve);
      if (agent.tool) {
        const got = await modelGot(api, screen, agent.tool, { timeout: 30000 });
        assert.match(JSON.stringify(got), agent.approved);
      } else {
        // Codex: "Yes, implement this plan" sends "Implement the plan." in Default mode.
        await waitFor(() => api.received().some((r) => (r.user ?? []).includes("Implement the plan.")), { timeout: 30000, what: "the approval at the model" });
      }
      const done = await waitFor(() => closedRequest(home, req.id), { what: "the request to close" });
      assert.equal(done.status, "approved");

      // Its terminal, live in the window: what tmux shows of the pane, drawn; taking control,
      // keys reach the agent (typed, then erased); Esc Esc gives it back.
      await s.click(`${card} [data-testid=watch-terminal]`);
      const panel = `[data-testid=terminal-panel][data-session="${sessionId}"]`;
      await s.click(`${panel} [data-testid=terminal-take-control]`);
      await s.waitFor(`${panel} [data-testid=terminal-control-banner]`);
      await mirrors(s, panel, () => tmux.capture(name), `the ${id} terminal view to show what tmux shows`);
      const seen = await s.exec(PANEL_SEEN, panel);
      assert.ok(seen?.inside && seen.hit, `the terminal is not in view: ${JSON.stringify(seen)}`);
      const shot = await s.screenshot(`terminal-${id}`);
      assert.ok(coloursIn(shot, seen.box.map((v) => Math.round(v * seen.dpr))) > 4, "the terminal is not drawn");
      const typed = "typed in the window";
      await s.keys(typed);
      await tmux.waitScreen(name, typed, { timeout: 15000 });
      await s.keys("\uE003".repeat(typed.length));
      // Erased to the last letter: its input box empty again (a letter left is a draft of the
      // person's, and a message is then refused).
      await waitFor(() => agent.emptyBox.test(tmux.capture(name)), { what: "the typed words erased, the input box empty" }).catch((e) => {
        throw new Error(`${e.message}\n--- screen ---\n${tmux.capture(name)}`);
      });
      await s.keys("\uE00C\uE00C");
      await s.waitFor(`${panel} [data-testid=terminal-take-control]`);
      await s.click(`${panel} [data-testid=terminal-close]`);

      // Send: typed into its empty input box and submitted; the turn it starts is held at the
      // stand-in (its `hold` file), so the agent stays at work until interrupted.
      const hold = join(api.dir, "hold");
      writeFileSync(hold, "");
      const message = "PLANDECK-HELD-TURN list the endpoints";
      await s.click(`${card} [data-testid=action-send]`);
      await setField(s, `${card} [data-testid=message-text]`, message);
      // Refused while the agent is between states (a hook running, a turn ending): the message
      // stays in its box, and Send again takes it once the agent waits.
      for (let attempt = 0; ; attempt++) {
        await s.click(`${card} [data-testid=send-message]`);
        const said = await waitFor(
          () => s.exec(`const c = document.querySelector(arguments[0]); return c?.querySelector("[data-testid=action-note]")?.textContent || c?.querySelector("[data-testid=action-error]")?.textContent || null`, card),
          { timeout: 20000, what: "the message sent or refused" },
        );
        if (said.includes("submitted")) break;
        if (attempt >= 4 || !said.includes("not waiting")) {
          throw new Error(`the message was not sent: ${said}\n--- screen ---\n${tmux.capture(name)}`);
        }
        await new Promise((r) => setTimeout(r, 1000));
      }
      await waitFor(() => api.requests().some((r) => JSON.stringify(r.body ?? "").includes(message)), { timeout: 30000, what: "the message at the stand-in" });
      await tmux.waitScreen(name, agent.working);
      // A second message while it works: refused with the reason, nothing typed.
      await s.click(`${card} [data-testid=action-send]`);
      await setField(s, `${card} [data-testid=message-text]`, "never typed");
      await s.click(`${card} [data-testid=send-message]`);
      await s.waitForText("working on a turn", `${card} [data-testid=action-error]`, { timeout: 20000 });
      assert.ok(!tmux.capture(name).includes("never typed"), tmux.capture(name));
      // The refused message stays in its box for later; cancelled here.
      assert.equal(await s.exec(`return document.querySelector(arguments[0]).value`, `${card} [data-testid=message-text]`), "never typed");
      await s.click(`${card} [data-testid=action-cancel]`);

      // Interrupt: confirmed first, then Esc ends the turn the stand-in never answered.
      await s.click(`${card} [data-testid=action-interrupt]`);
      await s.click(`${card} [data-testid=confirm-interrupt]`);
      await s.waitForText("pressed Esc", `${card} [data-testid=action-note]`, { timeout: 15000 });
      await waitFor(() => !tmux.capture(name).includes(agent.working), { timeout: 20000, what: "the turn interrupted" }).catch((e) => {
        throw new Error(`${e.message}\n--- screen ---\n${tmux.capture(name)}`);
      });
      assert.ok(existsSync(hold), "the turn ended by itself: the stand-in answered it");
      rmSync(hold);

      // Stop: lists the agent's own processes, then ends them; the tmux session closes with it.
      await s.click(`${card} [data-testid=action-stop]`);
      await s.waitFor(`${card} [data-testid=stop-processes]`);
      await s.screenshot(`session-stop-listed-${id}`);
      const listed = await s.exec(`return document.querySelector(arguments[0]).textContent`, `${card} [data-testid=stop-processes]`);
      assert.ok(listed.includes(String(rec.pid)), listed);
      assert.ok(listed.includes(id), listed);
      await s.click(`${card} [data-testid=confirm-stop]`);
      await s.waitForText(`ended ${agent.name}`, `${card} [data-testid=action-note]`, { timeout: 20000 });
      await waitFor(() => !tmux.sessions().includes(name), { what: "the tmux session to close" });

      // Resume: the session again, in its folder, in a new tmux session, with the CLI's resume.
      await s.click(`${card} [data-testid=action-resume]`);
      await s.waitForText("Resumed in tmux session", `${card} [data-testid=action-note]`, { timeout: 30000 }).catch(async (e) => {
        throw new Error(`${e.message}\n--- card ---\n${await s.text(card).catch(() => "")}`);
      });
      const again = startedRecords(home).find((x) => x.tmuxSession !== name);
      assert.equal(again.sessionId, sessionId);
      assert.equal(again.cwd, worktree);
      const argv = argvOf(again.pid).join(" ");
      assert.ok(argv.includes(sessionId) && /--resume|resume/.test(argv), argv);
      if (agent.planShown) await tmux.waitScreen(again.tmuxSession, agent.planShown, { timeout: 45000 });
    });
  } finally {
    tmux.kill();
    api.stop();
  }
}

test("start: Claude Code in a new worktree in plan mode with a prompt; its plan approved from the window; interrupt, stop, resume", { timeout: 240000 }, () => startAndSteer("claude"));

test("start: Gemini CLI in a new worktree in plan mode with a prompt; its plan approved from the window; interrupt, stop, resume", { timeout: 240000 }, () => startAndSteer("gemini"));

test("start: Codex CLI in a new worktree in Plan mode with a prompt; its plan approved from the window; interrupt, stop, resume", { timeout: 300000 }, () => startAndSteer("codex"));

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
