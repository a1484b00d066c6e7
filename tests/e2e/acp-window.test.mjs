// Agents over ACP driven from the real window (issue 36), each real adapter against its loopback
// model stand-in, set up as tests/e2e/acp-{claude,codex,gemini,opencode}.test.mjs do (claude:
// the machine's `IS_SANDBOX=yes` kept on purpose, Plandeck drops it for the agent). Everything a
// person does is done in the window: New session of the ACP agent in a new worktree (the window
// starts this user's Plandeck server, which hosts the agent); what the agent asks waits in
// "Waiting for you" with its text (a plan, a command, a file); Feedback… and the adapter's own
// reject option send the feedback, which reaches the model word for word; the adapter's "allow
// once" lets it go on; the session's card shows its tokens where the adapter tells them; the
// window is closed (its close button, as a window manager passes it on) and opened again, and the
// session is still listed running, hosted by the server the window left behind.
// - claude-agent-acp: in plan mode, its plan rejected with feedback, the re-proposal approved;
// - codex-acp (no plan mode over ACP) and OpenCode in its own mode: one command allowed once,
//   one refused;
// - Gemini CLI (`--acp`): in plan mode, its plan rejected and approved, then its edit allowed;
// - OpenCode in plan mode: set, nothing asked, its card says "ungated".
//
// Needs the window's debug build ($CARGO_TARGET_DIR/debug/plandeck, after `npm --prefix ui run
// build`), the adapters installed by scripts/setup.sh --test, and an X display (Xvfb).

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { agentCli, codexSetup, geminiEnv, geminiReady, makeAgentHome, startStandIn } from "./agents.mjs";
import { writeOpencodeConfig } from "./acp.mjs";
import { DEFAULT_PLAN } from "../agents/common.mjs";
import { envFor, plandeckBin, waitFor, withApp } from "./webdriver.mjs";

const KEY = "sk-ant-api03-plandeck-e2e-standin-0000000000000000000000";
const appFile = (home) => join(home, ".local/share/plandeck/gate/app.json");

/** Sets a `<select>` or text field in the window and tells Svelte (as start.test.mjs does). */
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

/** The text a person sees of `css` (innerText; "" when it is not there). */
const seen = (s, css) => s.exec(`const e = document.querySelector(arguments[0]); return e ? e.innerText : "";`, css);

/** A tool permission waiting in the window's queue, other than `not` (its id, command and text). */
async function permissionInQueue(s, not = []) {
  return waitFor(
    () =>
      s.exec(
        `for (const r of document.querySelectorAll("[data-testid=gate-request]")) {
           if (arguments[0].includes(r.dataset.id)) continue;
           const command = r.querySelector("[data-testid=gate-acp-command]");
           if (command) return { id: r.dataset.id, command: command.innerText, text: r.innerText };
         }
         return null;`,
        not,
      ),
    { timeout: 120000, what: "a tool permission in Waiting for you" },
  );
}

/** A scratch home whose Plandeck lists repository `api` (the window starts sessions in a
 * repository Plandeck lists, as Choose… would have added it), and the worktree `feat` New session
 * makes of it. */
function windowHome() {
  const { base, home, repo } = makeAgentHome("api");
  mkdirSync(join(home, ".config/plandeck"), { recursive: true });
  writeFileSync(join(home, ".config/plandeck/settings.json"), JSON.stringify({ extraRepos: [repo] }));
  return { base, home, repo, worktree: join(home, "work", "api.worktrees", "feat") };
}

/** Session `id`'s row once its server hosts it (started, not failed) in `worktree`. */
async function hostedIn(env, id, worktree) {
  const row = await waitFor(() => rows(env).find((r) => r.sessionId === id && r.state !== "starting"), { timeout: 90000, what: "the session hosted" });
  assert.notEqual(row.state, "failed", JSON.stringify(row));
  assert.equal(row.cwd, worktree);
  return row;
}

/** After the window was closed: its server still runs and session `sessionId` is idle; the
 * window opened again lists it idle on its card under `agent`'s name (`then(s, card)`: what more
 * a test looks at there), still hosted by the same server. */
async function stillThereWhenReopened({ home, env, cliEnv, sessionId, serverPid, agent }, then = async () => {}) {
  assert.ok(running(serverPid), "the Plandeck server ended with the window");
  const after = rows(cliEnv).find((r) => r.sessionId === sessionId);
  assert.equal(after.state, "idle", `${JSON.stringify(after)}\n--- server log ---\n${serverLog(home)}`);
  await withApp({ home, env }, async (s) => {
    await s.click("[data-view=sessions]");
    const acpCard = `[data-testid=acp-card][data-id="${sessionId}"]`;
    await s.waitFor(acpCard, { timeout: 30000 });
    assert.equal(await seen(s, `${acpCard} [data-testid=acp-state]`), "idle");
    assert.ok((await seen(s, acpCard)).includes(agent), `${agent} on its card`);
    await then(s, acpCard);
  });
  assert.equal(rows(cliEnv).find((r) => r.sessionId === sessionId).hostPid, serverPid);
}

/** The tokens on session `id`'s card `acpCard` ("N in · M out", both above 0), once shown: the
 * same as its `sessions list --json` row's `usage`, which is returned with the row. */
async function tokensShown(s, acpCard, env, id) {
  const tokens = await waitFor(async () => /^\d+ in · \d+ out$/.test(await seen(s, `${acpCard} [data-testid=acp-tokens]`)) && seen(s, `${acpCard} [data-testid=acp-tokens]`), { timeout: 30000, what: "tokens on the card" });
  const [inTokens, outTokens] = tokens.match(/\d+/g).map(Number);
  assert.ok(inTokens > 0 && outTokens > 0, tokens);
  const listed = rows(env).find((r) => r.sessionId === id);
  assert.deepEqual([listed.usage.inputTokens, listed.usage.outputTokens], [inTokens, outTokens]);
  return listed;
}

/** OpenCode on `home` with the stand-in at `apiUrl` as its only model and `permission` its
 * config's (as tests/e2e/acp-opencode.test.mjs sets it up): the window's environment and the
 * command line's. */
function opencodeFor(home, bin, apiUrl, permission) {
  writeOpencodeConfig(home, apiUrl, permission);
  const env = { PATH: `${dirname(bin)}:${process.env.PATH}` };
  for (const k of Object.keys(envFor(home))) if (/^(OPENCODE_|OPENAI_)/.test(k)) env[k] = undefined;
  const cliEnv = { ...envFor(home), ...env };
  for (const k of Object.keys(cliEnv)) if (cliEnv[k] === undefined) delete cliEnv[k];
  return { env, cliEnv };
}

/** The queue steps of an agent asked to run `touch allowed.txt` then `touch refused.txt` in
 * `worktree` (codex-acp, OpenCode): the first waits in Waiting for you with the command as the
 * agent sent it (`exact`: nothing around it; else at its end, as codex-acp's `bash -lc` has it),
 * nothing run yet; allowed once with the agent's own option (labelled `allowLabel` where given;
 * `screenshot` taken first) it runs. The second, refused from the window with Feedback… and the
 * agent's reject option: the model gets the feedback word for word, and it does not run. */
async function allowOneRefuseOne(s, { worktree, api, feedback, allowLabel, screenshot, exact = false }) {
  const isCommand = (shown, file) => (exact ? shown === `touch ${file}` : shown.endsWith(`touch ${file}`));
  const first = await permissionInQueue(s);
  assert.match(await seen(s, "[data-testid=waiting-queue] h2"), /Waiting for you/);
  assert.ok(isCommand(first.command, "allowed.txt"), first.command);
  assert.ok(!existsSync(join(worktree, "allowed.txt")), "nothing ran before the person said so");
  const card = `[data-testid=gate-request][data-id="${first.id}"]`;
  const allow = `${card} [data-testid=gate-acp-option][data-kind=allow_once]`;
  if (allowLabel) assert.equal(await seen(s, allow), allowLabel);
  else assert.ok((await seen(s, allow)).trim());
  if (screenshot) await s.screenshot(screenshot);
  await s.click(allow);
  await waitFor(() => existsSync(join(worktree, "allowed.txt")), { timeout: 60000, what: "the allowed command to run" });

  const second = await permissionInQueue(s, [first.id]);
  assert.ok(isCommand(second.command, "refused.txt"), second.command);
  const again = `[data-testid=gate-request][data-id="${second.id}"]`;
  await s.click(`${again} [data-testid=gate-acp-feedback-toggle]`);
  await s.waitFor(`${again} [data-testid=gate-feedback]`);
  await setField(s, `${again} [data-testid=gate-feedback]`, feedback);
  await s.click(`${again} [data-testid=gate-acp-option][data-kind=reject_once]`);
  const told = await waitFor(() => api.received().find((r) => r.user?.includes(feedback)), { timeout: 90000, what: "the feedback at the model" });
  assert.deepEqual(told.user, [feedback]);
  assert.ok(!existsSync(join(worktree, "refused.txt")), "the refused command did not run");
}

/** Starts `agent` (its catalog name) from the window's New session in worktree `feat` of `repo`,
 * in plan mode or not, with `prompt`; what the dialog said and the session's id. */
async function newSession(s, { agent, repo, plan, prompt }) {
  await s.click("[data-view=sessions]");
  await s.click("[data-testid=new-session-button]");
  await s.waitFor("[data-testid=new-session]");
  const option = `[data-testid=new-session] select option[value='acp:${agent}']`;
  await s.waitFor(option, { timeout: 30000 });
  assert.equal(await s.exec(`return document.querySelector(arguments[0]).disabled`, option), false, `${agent} found`);
  await setField(s, "[data-testid=new-session] select", `acp:${agent}`);
  await setField(s, "[data-testid=new-session] input[aria-label=Repository]", repo);
  await setField(s, "[data-testid=new-session] input[aria-label='Worktree name']", "feat");
  await setField(s, "[data-testid=new-session] textarea", prompt);
  const box = "[data-testid=new-session] input[aria-label='Plan mode']";
  if ((await s.exec(`return document.querySelector(arguments[0]).checked`, box)) !== plan) await s.click(box);
  await s.click("[data-testid=new-session-start]");
  await s.waitFor("[data-testid=new-session-acp-started]", { timeout: 90000 }).catch(async (e) => {
    throw new Error(`${e.message}\n--- dialog ---\n${await seen(s, "[data-testid=new-session]")}`);
  });
  const said = await seen(s, "[data-testid=new-session-acp-started]");
  assert.match(await seen(s, "[data-testid=new-session]"), /on branch feat/);
  const id = /session (acps-[0-9a-f]+)/.exec(said)?.[1];
  assert.ok(id, said);
  await s.click("[data-testid=new-session-done]");
  return { said, id };
}

/** Closes the window with its close button and waits for the app to end. */
async function closeTheWindow(home) {
  const { pid } = JSON.parse(readFileSync(appFile(home), "utf8"));
  await waitFor(() => closeWindowsOf(pid) > 0, { timeout: 20000, what: "the window to be asked to close" });
  await waitFor(() => !existsSync(`/proc/${pid}`), { timeout: 30000, what: "the app to end with its window" });
}

/** Stops session `id` (its server then ends it), its agent's process group should it stay, and
 * the server. */
async function cleanUp(env, id, serverPid) {
  if (id) {
    const agentPid = rows(env).find((r) => r.sessionId === id)?.pid;
    spawnSync(plandeckBin(), ["stop", id, "--yes"], { env, timeout: 30000 });
    await waitFor(() => rows(env).find((r) => r.sessionId === id)?.state === "ended", { timeout: 30000, what: "the session stopped" }).catch(() => {});
    if (agentPid && running(agentPid)) {
      try {
        process.kill(-agentPid, "SIGKILL");
      } catch {
        /* gone */
      }
    }
  }
  if (serverPid) {
    try {
      process.kill(serverPid);
    } catch {
      /* gone */
    }
  }
}

/** The plan request waiting in the window's queue, other than `not` (its id and its text shown). */
async function planInQueue(s, not = []) {
  return waitFor(
    () =>
      s.exec(
        `for (const r of document.querySelectorAll("[data-testid=gate-request]")) {
           if (arguments[0].includes(r.dataset.id)) continue;
           const plan = r.querySelector("[data-testid=gate-acp-plan]");
           if (plan) return { id: r.dataset.id, plan: plan.innerText, text: r.innerText };
         }
         return null;`,
        not,
      ),
    { timeout: 120000, what: "the plan in Waiting for you" },
  );
}

/** Asks the X windows of `pid` to close (tests/e2e/close-window.py); how many it asked. */
function closeWindowsOf(pid) {
  const r = spawnSync("python3", [join(import.meta.dirname, "close-window.py"), String(pid)], { encoding: "utf8", timeout: 20000 });
  if (r.status !== 0) throw new Error(`close-window.py: ${r.stderr}`);
  return Number(r.stdout.trim());
}

/** Whether process `pid` runs (a zombie does not). */
function running(pid) {
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** The end of this user's server's log (what it said when something went wrong). */
function serverLog(home) {
  try {
    return readFileSync(join(home, ".local/share/plandeck/serve/plandeck.log"), "utf8").slice(-4000);
  } catch (e) {
    return String(e);
  }
}

/** `plandeck sessions list --json` with `env`. */
const rows = (env) => JSON.parse(spawnSync(plandeckBin(), ["sessions", "list", "--json"], { encoding: "utf8", env, timeout: 60000 }).stdout);

test("claude-agent-acp from the window: New session in a worktree in plan mode, plan rejected with feedback and approved in the queue, tokens on its card, still running after the window is closed and opened again", { timeout: 420000 }, async () => {
  const { bin } = agentCli("claude-agent-acp");
  const { base, home, repo, worktree } = windowHome();
  const api = await startStandIn("claude", join(base, "api"));
  const env = {
    PATH: `${dirname(bin)}:${process.env.PATH}`,
    IS_SANDBOX: "yes",
    ANTHROPIC_BASE_URL: api.url,
    ANTHROPIC_API_KEY: KEY,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    // envFor's empty CLAUDE_CONFIG_DIR would put the plan file at a relative path: left out
    // (undefined is not passed on), as are the CLI's own variables of a session running this.
    CLAUDE_CONFIG_DIR: undefined,
    CLAUDECODE: undefined,
  };
  for (const k of Object.keys(process.env)) if (/^CLAUDE_CODE_(?!DISABLE)/.test(k)) env[k] = undefined;
  const cliEnv = { ...envFor(home), ...env };
  for (const k of Object.keys(cliEnv)) if (cliEnv[k] === undefined) delete cliEnv[k];
  const feedback = "Use keyset pagination, not offsets.";
  let sessionId = null;
  let serverPid = null;
  try {
    await withApp({ home, env }, async (s) => {
      await waitFor(() => existsSync(appFile(home)), { what: "the app's gate/app.json" });
      await s.click("[data-view=sessions]");
      await s.click("[data-testid=new-session-button]");
      await s.waitFor("[data-testid=new-session]");
      await s.waitFor("[data-testid=new-session] select option[value='acp:claude-acp']", { timeout: 30000 });
      assert.equal(await s.exec(`return document.querySelector("[data-testid=new-session] select option[value='acp:claude-acp']").disabled`), false, "claude-agent-acp found");
      await setField(s, "[data-testid=new-session] select", "acp:claude-acp");
      await setField(s, "[data-testid=new-session] input[aria-label=Repository]", repo);
      await setField(s, "[data-testid=new-session] input[aria-label='Worktree name']", "feat");
      await setField(s, "[data-testid=new-session] textarea", "Plan pagination for the list endpoint.");
      assert.equal(await s.exec(`return document.querySelector("[data-testid=new-session] input[aria-label='Plan mode']").checked`), true);
      await s.click("[data-testid=new-session-start]");
      await s.waitFor("[data-testid=new-session-acp-started]", { timeout: 90000 }).catch(async (e) => {
        throw new Error(`${e.message}\n--- dialog ---\n${await seen(s, "[data-testid=new-session]")}`);
      });
      const said = await seen(s, "[data-testid=new-session-acp-started]");
      assert.match(said, /Asked your Plandeck server to start claude-acp, asking for plan mode where the agent offers one, in/);
      assert.match(said, /Closing the window does not end it/);
      assert.match(await seen(s, "[data-testid=new-session]"), /on branch feat/);
      sessionId = /session (acps-[0-9a-f]+)/.exec(said)?.[1];
      assert.ok(sessionId, said);
      await s.click("[data-testid=new-session-done]");

      // The server (started by the window) hosts it, in the new worktree, in plan mode.
      const row = await hostedIn(cliEnv, sessionId, worktree);
      serverPid = row.hostPid;
      assert.equal(row.kind, "acp");
      assert.equal(spawnSync("git", ["-C", worktree, "rev-parse", "--abbrev-ref", "HEAD"], { encoding: "utf8" }).stdout.trim(), "feat");

      // The plan waits in the window's queue, its text shown as the model wrote it.
      const first = await planInQueue(s);
      assert.match(await seen(s, "[data-testid=waiting-queue] h2"), /Waiting for you/);
      assert.equal(first.plan.trim(), DEFAULT_PLAN.trim());
      assert.match(first.text, /Yes, and manually approve edits/);
      assert.match(first.text, /No, keep planning/);
      await s.screenshot("acp-window-plan-waiting");

      // Rejected with feedback, from the window: Feedback…, typed, then the adapter's own "No,
      // keep planning"; the model gets the feedback word for word and stays planning.
      const card = `[data-testid=gate-request][data-id="${first.id}"]`;
      await s.click(`${card} [data-testid=gate-acp-feedback-toggle]`);
      await s.waitFor(`${card} [data-testid=gate-feedback]`);
      await setField(s, `${card} [data-testid=gate-feedback]`, feedback);
      await s.click(`${card} [data-testid=gate-acp-option][data-kind=reject_once]`);
      await waitFor(
        () => api.requests().some((q) => (q.body?.messages ?? []).some((m) => m.role === "user" && Array.isArray(m.content) && m.content.some((b) => b.type === "text" && b.text === feedback))),
        { timeout: 90000, what: "the feedback, word for word, at the model" },
      );
      assert.match(api.received().map((x) => JSON.stringify(x)).join("\n"), /User rejected request to exit plan mode/);

      // The re-proposed plan: approved from the window with the adapter's "allow once".
      const second = await planInQueue(s, [first.id]);
      const again = `[data-testid=gate-request][data-id="${second.id}"]`;
      assert.equal(await seen(s, `${again} [data-testid=gate-acp-option][data-kind=allow_once]`), "Yes, and manually approve edits");
      await s.click(`${again} [data-testid=gate-acp-option][data-kind=allow_once]`);
      await waitFor(() => /approved your plan/.test(api.received().map((x) => JSON.stringify(x)).join("\n")), { timeout: 90000, what: "the approval at the model" });
      await waitFor(async () => !(await s.exec(`return !!document.querySelector(arguments[0])`, again)), { timeout: 60000, what: "the request to leave the queue" });

      // Its card under "Agents over ACP": idle again, its tokens shown.
      const acpCard = `[data-testid=acp-card][data-id="${sessionId}"]`;
      await s.waitFor(acpCard, { timeout: 30000 });
      await waitFor(async () => (await seen(s, `${acpCard} [data-testid=acp-state]`)) === "idle", { timeout: 90000, what: "the session idle on its card" });
      const listed = await tokensShown(s, acpCard, cliEnv, sessionId);
      assert.equal(listed.gated, true);
      assert.equal(listed.permissionMode, "default");
      await s.screenshot("acp-window-card-tokens");

      // The window closed with its close button: the app ends, the server and its session stay.
      await closeTheWindow(home);
    });
    // Opened again: the session is still listed, running (idle: its server hosts it).
    await stillThereWhenReopened({ home, env, cliEnv, sessionId, serverPid, agent: "claude-acp" }, async (s, acpCard) => {
      assert.match(await seen(s, `${acpCard} [data-testid=acp-tokens]`), /^\d+ in · \d+ out$/);
      await s.click(acpCard);
      await s.waitFor(`[data-testid=acp-view][data-id="${sessionId}"]`);
      assert.match(await seen(s, "[data-testid=acp-conversation]"), /Plan pagination for the list endpoint\./);
      await s.screenshot("acp-window-reopened");

      // One card and one row for the session: the transcript the adapter's bundled Claude Code
      // keeps under ~/.claude/projects, named by the ACP session's id, is no second (terminal)
      // session, with a Send, Interrupt, Stop and Open in terminal that do not apply.
      const acpSid = rows(cliEnv).find((r) => r.sessionId === sessionId).acpSessionId;
      const transcripts = spawnSync("find", [join(home, ".claude", "projects"), "-name", `${acpSid}.jsonl`], { encoding: "utf8" }).stdout.trim();
      assert.ok(transcripts, `the bundled Claude Code's transcript ${acpSid}.jsonl`);
      assert.equal(rows(cliEnv).filter((r) => r.sessionId === acpSid || r.acpSessionId === acpSid).length, 1);
      await waitFor(() => s.exec(`return !!document.querySelector("[data-testid=session-card], [data-testid=empty-todo]")`), { timeout: 30000, what: "the sessions list read" });
      assert.equal(await s.exec(`return document.querySelectorAll(arguments[0]).length`, `[data-testid=session-card][data-session="${acpSid}"]`), 0, "no terminal card for the ACP session");
    });
    assert.equal(rows(cliEnv).find((r) => r.sessionId === sessionId).state, "idle");
  } finally {
    await cleanUp(cliEnv, sessionId, serverPid);
    api.stop();
  }
});

// Codex over ACP from the window: codex-acp 0.16 offers no plan mode, so what waits is each tool
// permission (the OpenAI stand-in's scripted model asks to run two commands outside the sandbox):
// the first approved with the adapter's "allow once" in the window's queue (it runs), the second
// refused with feedback and the adapter's reject option (it does not run; the model gets the
// feedback word for word). codex-acp's prompt answers carry no tokens (docs/agents.md), so its card
// shows none; it is still listed running after the window is closed and opened again.
test("codex-acp from the window: New session in a worktree, one command allowed once and one refused with feedback in the queue, still running after the window is closed and opened again", { timeout: 420000 }, async () => {
  const { bin } = agentCli("codex-acp");
  const { base, home, repo, worktree } = windowHome();
  const script = join(base, "script.json");
  const call = (file) => ({
    name: "exec_command",
    arguments: { cmd: `touch ${file}`, sandbox_permissions: "require_escalated", justification: `Create ${file}?` },
  });
  writeFileSync(script, JSON.stringify([{ call: call("allowed.txt") }, { call: call("refused.txt") }, { text: "DONE: as you said." }]));
  const api = await startStandIn("openai", join(base, "api"), ["--script", script]);
  const { env: setupEnv } = codexSetup(home, worktree, api.url);
  // What withApp's base environment has that codexSetup left out is left out here too.
  const env = { PATH: `${dirname(bin)}:${process.env.PATH}`, CODEX_HOME: setupEnv.CODEX_HOME, OPENAI_API_KEY: setupEnv.OPENAI_API_KEY };
  for (const k of Object.keys(envFor(home))) if (/^(OPENAI_|CODEX_)/.test(k) && !(k in env)) env[k] = undefined;
  const cliEnv = { ...setupEnv, PATH: env.PATH };
  const feedback = "Do not create refused.txt; leave the folder as it is.";
  let sessionId = null;
  let serverPid = null;
  try {
    await withApp({ home, env }, async (s) => {
      await waitFor(() => existsSync(appFile(home)), { what: "the app's gate/app.json" });
      const { said, id } = await newSession(s, { agent: "codex-acp", repo, plan: false, prompt: "Create the two files." });
      sessionId = id;
      assert.match(said, /Asked your Plandeck server to start codex-acp in/);
      assert.doesNotMatch(said, /plan mode/);
      serverPid = (await hostedIn(cliEnv, sessionId, worktree)).hostPid;

      await allowOneRefuseOne(s, { worktree, api, feedback, allowLabel: "Yes, proceed", screenshot: "acp-window-codex-permission" });

      const acpCard = `[data-testid=acp-card][data-id="${sessionId}"]`;
      await s.waitFor(acpCard, { timeout: 30000 });
      await waitFor(async () => (await seen(s, `${acpCard} [data-testid=acp-state]`)) === "idle", { timeout: 90000, what: "the session idle on its card" });
      assert.match(await seen(s, acpCard), /codex-acp/);
      await closeTheWindow(home);
    });
    await stillThereWhenReopened({ home, env, cliEnv, sessionId, serverPid, agent: "codex-acp" }, async (s, acpCard) => {
      await s.click(acpCard);
      await s.waitFor(`[data-testid=acp-view][data-id="${sessionId}"]`);
      await s.waitForText("DONE: as you said.", "[data-testid=acp-conversation]", { timeout: 20000 });
    });
  } finally {
    await cleanUp(cliEnv, sessionId, serverPid);
    api.stop();
  }
});

// Gemini CLI in ACP mode from the window: started in plan mode in a new worktree; its plan (the
// plan file's text) waits in the queue, is refused with feedback and the CLI's own "Reject" (the
// model gets the feedback word for word and proposes again), then allowed once; its edit of the
// repository then waits as a tool permission, allowed once, and the file is written. Gemini's
// token counts come in its prompt answers' `_meta.quota.token_count` (docs/agents.md): shown on
// its card and in `sessions list --json`. It is still listed running after the window is closed
// and opened again.
test("gemini --acp from the window: New session in a worktree in plan mode, plan rejected with feedback and approved, its edit allowed, still running after the window is closed and opened again", { timeout: 420000 }, async () => {
  const { bin } = agentCli("gemini");
  const { base, home, repo, worktree } = windowHome();
  const notes = join(worktree, "NOTES.md");
  const api = await startStandIn("gemini", join(base, "api"), ["--implement", notes]);
  geminiReady(home, worktree);
  const cliEnv = { ...geminiEnv(home, api), PATH: `${dirname(bin)}:${process.env.PATH}` };
  const env = { PATH: cliEnv.PATH, GOOGLE_GEMINI_BASE_URL: cliEnv.GOOGLE_GEMINI_BASE_URL, GEMINI_API_KEY: cliEnv.GEMINI_API_KEY };
  for (const k of Object.keys(envFor(home))) if (/^(GEMINI_|GOOGLE_)/.test(k) && !(k in env)) env[k] = undefined;
  const feedback = "Use keyset pagination, not offsets.";
  let sessionId = null;
  let serverPid = null;
  try {
    await withApp({ home, env }, async (s) => {
      await waitFor(() => existsSync(appFile(home)), { what: "the app's gate/app.json" });
      const { said, id } = await newSession(s, { agent: "gemini-acp", repo, plan: true, prompt: "Plan pagination for the list endpoint." });
      sessionId = id;
      assert.match(said, /Asked your Plandeck server to start gemini-acp, asking for plan mode where the agent offers one, in/);
      serverPid = (await hostedIn(cliEnv, sessionId, worktree)).hostPid;

      // The plan waits with the plan file's text; refused with feedback and the CLI's "Reject".
      const first = await planInQueue(s);
      assert.match(await seen(s, "[data-testid=waiting-queue] h2"), /Waiting for you/);
      assert.equal(first.plan.trim(), DEFAULT_PLAN.trim());
      const card = `[data-testid=gate-request][data-id="${first.id}"]`;
      await s.click(`${card} [data-testid=gate-acp-feedback-toggle]`);
      await s.waitFor(`${card} [data-testid=gate-feedback]`);
      await setField(s, `${card} [data-testid=gate-feedback]`, feedback);
      await s.click(`${card} [data-testid=gate-acp-option][data-kind=reject_once]`);

      // Proposed again, still planning: the model got the feedback, word for word.
      const second = await planInQueue(s, [first.id]);
      const told = api.received().filter((r) => Array.isArray(r.user));
      assert.deepEqual(told.map((r) => r.user.at(-1)), ["Plan pagination for the list endpoint.", feedback], JSON.stringify(told));
      assert.ok(!existsSync(notes));
      const again = `[data-testid=gate-request][data-id="${second.id}"]`;
      await s.click(`${again} [data-testid=gate-acp-option][data-kind=allow_once]`);

      // Its edit of the repository waits too, with the file; allowed once, it is written.
      const edit = await waitFor(
        () =>
          s.exec(
            `for (const r of document.querySelectorAll("[data-testid=gate-request]")) {
               const path = r.querySelector("[data-testid=gate-acp-path]");
               if (path) return { id: r.dataset.id, path: path.innerText };
             }
             return null;`,
          ),
        { timeout: 120000, what: "the implementation's edit in Waiting for you" },
      );
      assert.equal(edit.path, notes);
      assert.ok(!existsSync(notes), "nothing written before the person said so");
      await s.click(`[data-testid=gate-request][data-id="${edit.id}"] [data-testid=gate-acp-option][data-kind=allow_once]`);
      await waitFor(() => existsSync(notes) && readFileSync(notes, "utf8") === "Pagination: keyset.\n", { timeout: 60000, what: "the edit written" });
      assert.match(JSON.stringify(api.received().filter((r) => r.tool === "exit_plan_mode").at(-1).response), /Plan approved/);

      const acpCard = `[data-testid=acp-card][data-id="${sessionId}"]`;
      await s.waitFor(acpCard, { timeout: 30000 });
      await waitFor(async () => (await seen(s, `${acpCard} [data-testid=acp-state]`)) === "idle", { timeout: 90000, what: "the session idle on its card" });
      assert.doesNotMatch(await seen(s, acpCard), /ungated/);
      await tokensShown(s, acpCard, cliEnv, sessionId);
      await closeTheWindow(home);
    });
    assert.equal(rows(cliEnv).find((r) => r.sessionId === sessionId).gated, true);
    await stillThereWhenReopened({ home, env, cliEnv, sessionId, serverPid, agent: "gemini-acp" });
  } finally {
    await cleanUp(cliEnv, sessionId, serverPid);
    api.stop();
  }
});

// OpenCode over ACP from the window (`opencode acp`, OpenAI-compatible Chat Completions stand-in;
// `bash: "ask"` in its config), in its own mode (its plan mode holds no plan: acp-opencode.test.mjs):
// what waits is each command: the first allowed once in the window's queue (it runs), the second
// refused with feedback (it does not; the model gets the feedback word for word). Its prompt answers carry tokens: shown on its
// card. Still listed running after the window is closed and opened again.
test("opencode acp from the window: New session in a worktree, one command allowed once and one refused with feedback in the queue, tokens on its card, still running after the window is reopened", { timeout: 420000 }, async () => {
  const { bin } = agentCli("opencode");
  const { base, home, repo, worktree } = windowHome();
  const script = join(base, "script.json");
  const call = (file) => ({ name: "bash", arguments: { command: `touch ${file}`, description: `Create ${file}` } });
  writeFileSync(script, JSON.stringify([{ call: call("allowed.txt") }, { call: call("refused.txt") }, { text: "DONE: as you said." }]));
  const api = await startStandIn("openai-chat", join(base, "api"), ["--script", script]);
  const { env, cliEnv } = opencodeFor(home, bin, api.url, { bash: "ask", edit: "ask" });
  const feedback = "Do not create refused.txt; leave the folder as it is.";
  let sessionId = null;
  let serverPid = null;
  try {
    await withApp({ home, env }, async (s) => {
      await waitFor(() => existsSync(appFile(home)), { what: "the app's gate/app.json" });
      const { said, id } = await newSession(s, { agent: "opencode", repo, plan: false, prompt: "Create the two files." });
      sessionId = id;
      assert.match(said, /Asked your Plandeck server to start opencode in/);
      serverPid = (await hostedIn(cliEnv, sessionId, worktree)).hostPid;

      await allowOneRefuseOne(s, { worktree, api, feedback, exact: true });

      const acpCard = `[data-testid=acp-card][data-id="${sessionId}"]`;
      await s.waitFor(acpCard, { timeout: 30000 });
      await waitFor(async () => (await seen(s, `${acpCard} [data-testid=acp-state]`)) === "idle", { timeout: 90000, what: "the session idle on its card" });
      await tokensShown(s, acpCard, cliEnv, sessionId);
      await closeTheWindow(home);
    });
    await stillThereWhenReopened({ home, env, cliEnv, sessionId, serverPid, agent: "opencode" });
  } finally {
    await cleanUp(cliEnv, sessionId, serverPid);
    api.stop();
  }
});

// OpenCode in plan mode from the window: New session with Plan mode asks its server to set
// OpenCode's `plan` agent (its `mode` config option, docs/agents.md). OpenCode asks nothing to
// leave plan mode, and its commands follow its config (`bash: "allow"` here): the model's
// `touch planned.txt` runs unasked and its plan is the turn's text; nothing waits in the queue. So
// its card says "ungated", with why, and `sessions list --json` has `gated: false`.
test("opencode acp in plan mode from the window: set through its mode option, nothing waits, its card says ungated", { timeout: 420000 }, async () => {
  const { bin } = agentCli("opencode");
  const { base, home, repo, worktree } = windowHome();
  const script = join(base, "script.json");
  const plan = "PLAN: 1. Create planned.txt. 2. Stop.";
  writeFileSync(script, JSON.stringify([{ call: { name: "bash", arguments: { command: "touch planned.txt", description: "Create planned.txt" } } }, { text: plan }]));
  const api = await startStandIn("openai-chat", join(base, "api"), ["--script", script]);
  const { env, cliEnv } = opencodeFor(home, bin, api.url, { bash: "allow" });
  const why = "OpenCode (ACP) asks nothing to leave plan mode: its plan does not wait for you";
  let sessionId = null;
  let serverPid = null;
  try {
    await withApp({ home, env }, async (s) => {
      await waitFor(() => existsSync(appFile(home)), { what: "the app's gate/app.json" });
      const { said, id } = await newSession(s, { agent: "opencode", repo, plan: true, prompt: "Plan a file named planned.txt." });
      sessionId = id;
      assert.match(said, /Asked your Plandeck server to start opencode, asking for plan mode where the agent offers one, in/);
      serverPid = (await hostedIn(cliEnv, sessionId, worktree)).hostPid;

      const acpCard = `[data-testid=acp-card][data-id="${sessionId}"]`;
      await s.waitFor(acpCard, { timeout: 30000 });
      await waitFor(() => existsSync(join(worktree, "planned.txt")), { timeout: 90000, what: "the command run in plan mode" });
      await waitFor(async () => (await seen(s, `${acpCard} [data-testid=acp-state]`)) === "idle", { timeout: 90000, what: "the session idle on its card" });
      const ungated = `${acpCard} [data-testid=acp-ungated]`;
      await s.waitFor(ungated, { timeout: 30000 });
      assert.equal(await seen(s, ungated), "ungated");
      assert.equal(await s.exec(`return document.querySelector(arguments[0]).title`, ungated), why);
      assert.equal(await s.exec(`return document.querySelectorAll("[data-testid=gate-request]").length`), 0, "nothing waits");
      const listed = rows(cliEnv).find((r) => r.sessionId === sessionId);
      assert.equal(listed.permissionMode, "plan");
      assert.deepEqual(listed.modes, ["build", "plan"]);
      assert.equal(listed.gated, false);
      assert.equal(listed.ungatedWhy, why);
      await s.click(acpCard);
      await s.waitFor(`[data-testid=acp-view][data-id="${sessionId}"]`);
      await s.waitForText(plan, "[data-testid=acp-conversation]", { timeout: 20000 });
    });
    const told = api.received().find((r) => r.user?.includes("Plan a file named planned.txt."));
    assert.ok(told?.user.some((t) => /Plan mode ACTIVE/.test(t)), JSON.stringify(api.received()).slice(0, 2000));
  } finally {
    await cleanUp(cliEnv, sessionId, serverPid);
    api.stop();
  }
});
