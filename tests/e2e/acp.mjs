// Helpers for the end-to-end tests of the real ACP adapters (tests/e2e/acp-*.test.mjs): a session
// hosted by `plandeck agents check NAME --wait`, its requests read with `plandeck pending --json`
// and decided with `plandeck approve|reject`, as a person does from another terminal.

import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import assert from "node:assert/strict";
import { plandeckBin, ROOT, waitFor } from "./webdriver.mjs";

/** Starts `plandeck agents check name --repo repo --wait --json` (in plan mode where the agent
 * offers one, unless `plan` is false: `--no-plan`); `done` resolves with its exit status and
 * output once it ends (it never ends on its own while a request waits). */
export function startCheck(name, repo, env, { prompt, timeout = 90, plan = true } = {}) {
  const args = ["agents", "check", name, "--repo", repo, "--wait", "--timeout", String(timeout), "--json"];
  if (prompt) args.push("--prompt", prompt);
  if (!plan) args.push("--no-plan");
  const proc = spawn(plandeckBin(), args, { env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  proc.stdout.on("data", (d) => (stdout += d));
  proc.stderr.on("data", (d) => (stderr += d));
  const done = new Promise((resolve) => proc.on("exit", (status) => resolve({ status, stdout, stderr })));
  let exited = false;
  done.then(() => (exited = true));
  return {
    done,
    output: () => `${stdout}\n${stderr}`,
    exited: () => exited,
    stop() {
      if (!exited) proc.kill("SIGTERM");
    },
  };
}

/** `plandeck pending --json` on `env`'s HOME. */
export function pending(env) {
  const r = spawnSync(plandeckBin(), ["pending", "--json"], { encoding: "utf8", env, timeout: 60000 });
  assert.equal(r.status, 0, `pending: ${r.stdout}\n${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** Waits for a waiting request that `pred` accepts and is not one of `seen` (ids). */
export function waitRequest(env, check, pred, { seen = [], timeout = 90000, what = "a request to wait in pending" } = {}) {
  return waitFor(
    () => {
      if (check.exited()) throw new Error(`agents check ended before ${what}:\n${check.output()}`);
      return pending(env).find((r) => !seen.includes(r.id) && pred(r));
    },
    { timeout, what },
  ).catch((e) => {
    throw new Error(`${e.message}\n--- agents check ---\n${check.output()}`);
  });
}

/** `plandeck approve|reject id [args…] --json`, which must succeed. */
export function decide(env, verb, id, args = []) {
  const r = spawnSync(plandeckBin(), [verb, id, ...args, "--json"], { encoding: "utf8", env, timeout: 60000 });
  assert.equal(r.status, 0, `${verb} ${id}: ${r.stdout}\n${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** The report `agents check` printed, once it ended well. */
export async function checkReport(check, { timeout = 120000 } = {}) {
  const r = await Promise.race([
    check.done,
    new Promise((_, reject) => setTimeout(() => reject(new Error(`agents check did not end:\n${check.output()}`)), timeout).unref()),
  ]);
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** OpenCode's config on `home` (`~/.config/opencode/opencode.json`): the stand-in at `apiUrl` (an
 * OpenAI-compatible Chat Completions one) its only model, `permission` its permissions. */
export function writeOpencodeConfig(home, apiUrl, permission) {
  mkdirSync(join(home, ".config/opencode"), { recursive: true });
  writeFileSync(
    join(home, ".config/opencode/opencode.json"),
    JSON.stringify({
      $schema: "https://opencode.ai/config.json",
      autoupdate: false,
      share: "disabled",
      provider: {
        standin: {
          npm: "@ai-sdk/openai-compatible",
          name: "Stand-in",
          options: { baseURL: `${apiUrl}/v1`, apiKey: "plandeck-e2e-standin-key" },
          models: { standin: { name: "Stand-in" } },
        },
      },
      model: "standin/standin",
      permission,
    }),
  );
}

/**
 * With PLANDECK_ACP_RECORD=DIR, every frame of the run is recorded to DIR/FILE
 * (tests/agents/acp-tee.mjs, the temp folder written `<tmp>`): a shim named `program` that runs
 * `real` through the recorder, first on `env`'s PATH. Without it, `env` is left as it is.
 */
export function recordFrames(env, base, program, real, file) {
  const to = process.env.PLANDECK_ACP_RECORD;
  if (!to) return env;
  const dir = join(base, "record-bin");
  mkdirSync(dir, { recursive: true });
  const tee = join(ROOT, "tests/agents/acp-tee.mjs");
  const log = join(resolve(to), file);
  rmSync(log, { force: true });
  const redact = JSON.stringify({ [realpathSync(base)]: "<tmp>", [base]: "<tmp>" });
  // Written into the shim: Plandeck starts an agent with only its own variables (acp::agent_env).
  const vars = `ACP_TEE_LOG=${JSON.stringify(log)} ACP_TEE_REDACT=${JSON.stringify(redact)}`;
  writeFileSync(join(dir, program), `#!/bin/sh\nexec env ${vars} ${JSON.stringify(process.execPath)} ${JSON.stringify(tee)} -- ${JSON.stringify(real)} "$@"\n`, { mode: 0o755 });
  return { ...env, PATH: `${dir}:${env.PATH}` };
}
