// Another machine in the real window (issue 24), over a real OpenSSH server the test starts on
// loopback with its own host key and config (never the system's sshd), logging in as a second
// Unix user ("plandeck-remote") whose home holds the installed `plandeck` CLI, a git repository
// with a worktree, and the real Claude Code CLI in plan mode in that user's tmux (its model the
// loopback stand-in). The window runs here with the machine added (`plandeck hosts add box`) and
// its ssh pointed at the test's config (PLANDECK_SSH="ssh -F …"): the agent's plan waits in the
// window's queue naming its machine; a rejection with feedback and an edit-and-approve made in the
// window reach the agent there; the remote's worktree is listed with its counts and removed only
// once the native dialog is confirmed; sshd stopped shows the machine unreachable since then, and
// it connects again by itself once sshd is back.
//
// Needs root (sshd, the second user) and Debian's openssh-server (`scripts/setup.sh --test`).

import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { agentCli, CLAUDE_KEY, claudeReady, modelGot, startStandIn, submitPrompt, Tmux } from "./agents.mjs";
import { clickNativeDialog, cli, plandeckBin, waitFor, withApp } from "./webdriver.mjs";

const USER = "plandeck-remote";
const SSHD = "/usr/sbin/sshd";

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: "utf8", timeout: 60000, ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")}: ${r.stderr || r.error}`);
  return r.stdout;
}

/** The second user (created when missing): its home, uid. */
function remoteUser() {
  assert.equal(process.getuid(), 0, "the remote test starts its own sshd and logs in as a second user: run it as root (it is, here and in CI)");
  assert.ok(existsSync(SSHD), `${SSHD} is missing: scripts/setup.sh --test installs openssh-server`);
  if (spawnSync("id", ["-u", USER]).status !== 0) {
    const made = spawnSync("useradd", ["-m", "-s", "/bin/bash", USER], { encoding: "utf8" });
    if (made.status !== 0 && spawnSync("id", ["-u", USER]).status !== 0) throw new Error(`useradd: ${made.stderr}`);
  }
  run("usermod", ["-p", "*", USER]);
  mkdirSync("/run/sshd", { recursive: true });
  const [, , uid, , , home] = run("getent", ["passwd", USER]).trim().split(":");
  return { uid: Number(uid), home };
}

function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Every process below `root` (sshd forks each connection into a session of its own). */
function descendants(root) {
  const parentOf = new Map();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      parentOf.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      /* gone */
    }
  }
  const found = [root];
  for (let i = 0; i < found.length; i++) for (const [pid, ppid] of parentOf) if (ppid === found[i]) found.push(pid);
  return found.slice(1);
}

/** The other machine: the second user's home for this test, sshd's files, the agent's tmux. */
class Machine {
  async setUp() {
    const user = remoteUser();
    this.home = join(user.home, `e2e-${process.pid}`);
    rmSync(this.home, { recursive: true, force: true });
    for (const d of [".ssh", ".local/bin", "work"]) mkdirSync(join(this.home, d), { recursive: true });
    // The installed CLI (the package's), and the agent CLI (a hard link: it is large).
    copyFileSync(plandeckBin(), join(this.home, ".local/bin/plandeck"));
    chmodSync(join(this.home, ".local/bin/plandeck"), 0o755);
    const claude = agentCli("claude").bin;
    const real = run("readlink", ["-f", claude]).trim();
    try {
      linkSync(real, join(this.home, ".local/bin/claude"));
    } catch {
      copyFileSync(real, join(this.home, ".local/bin/claude"));
    }
    chmodSync(join(this.home, ".local/bin/claude"), 0o755);
    // A repository with a worktree holding one changed file.
    this.repo = join(this.home, "work/api");
    this.worktree = join(this.home, "work/api-feature");
    mkdirSync(this.repo);
    const git = (...args) => run("git", ["-C", this.repo, ...args], { env: { ...process.env, GIT_AUTHOR_NAME: "Dev", GIT_AUTHOR_EMAIL: "dev@example.com", GIT_COMMITTER_NAME: "Dev", GIT_COMMITTER_EMAIL: "dev@example.com" } });
    git("init", "-q", "-b", "main");
    writeFileSync(join(this.repo, "README.md"), "# api\n");
    git("add", ".");
    git("commit", "-q", "-m", "init");
    git("worktree", "add", "-q", "-b", "feature", this.worktree);
    writeFileSync(join(this.worktree, "draft.txt"), "not committed\n");
    claudeReady(this.home, this.repo);

    this.files = mkdtemp("plandeck-remote-e2e-");
    for (const key of ["host", "client"]) run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "plandeck-e2e", "-f", join(this.files, key)]);
    copyFileSync(join(this.files, "client.pub"), join(this.home, ".ssh/authorized_keys"));
    run("chmod", ["700", this.home]);
    run("chown", ["-R", `${USER}:`, this.home]);
    this.port = await freePort();
    const h = this.home;
    writeFileSync(
      join(this.files, "sshd_config"),
      `ListenAddress 127.0.0.1\nPort ${this.port}\nHostKey ${join(this.files, "host")}\nPidFile none\nUsePAM no\n` +
        `PasswordAuthentication no\nKbdInteractiveAuthentication no\nPubkeyAuthentication yes\nAuthenticationMethods publickey\n` +
        `PermitRootLogin no\nAllowUsers ${USER}\nAuthorizedKeysFile ${h}/.ssh/authorized_keys\n` +
        `SetEnv HOME=${h} PATH=${h}/.local/bin:/usr/bin:/bin\n`,
    );
    writeFileSync(
      join(this.files, "ssh_config"),
      `Host plandeck-test\n  HostName 127.0.0.1\n  Port ${this.port}\n  User ${USER}\n  IdentityFile ${join(this.files, "client")}\n` +
        `  IdentitiesOnly yes\n  UserKnownHostsFile ${join(this.files, "known_hosts")}\n  GlobalKnownHostsFile /dev/null\n` +
        `  StrictHostKeyChecking yes\n  UpdateHostKeys no\n`,
    );
    const key = readFileSync(join(this.files, "host.pub"), "utf8").split(" ").slice(0, 2).join(" ");
    writeFileSync(join(this.files, "known_hosts"), `[127.0.0.1]:${this.port} ${key}\n`);
    // The agent's plan hook, installed by the remote's own plandeck as that user.
    this.plandeck(["hooks", "install", "--agent", "claude", "--yes"]);
  }

  /** The environment of the remote user's processes. */
  env(extra = {}) {
    return { HOME: this.home, PATH: `${this.home}/.local/bin:/usr/bin:/bin`, LANG: "C.UTF-8", TERM: "xterm-256color", ...extra };
  }

  /** `argv` as the remote user, with exactly `env`. */
  as(argv, env = this.env()) {
    const pairs = Object.entries(env).map(([k, v]) => `${k}=${v}`);
    return run("runuser", ["-u", USER, "--", "env", "-i", ...pairs, ...argv]);
  }

  plandeck(args) {
    return this.as([join(this.home, ".local/bin/plandeck"), ...args]);
  }

  startSshd() {
    this.sshd = spawn(SSHD, ["-D", "-e", "-f", join(this.files, "sshd_config")], { stdio: ["ignore", "ignore", "pipe"] });
    this.sshdLog = "";
    this.sshd.stderr.on("data", (d) => (this.sshdLog += d));
    return waitFor(
      () =>
        new Promise((resolve) => {
          const s = spawnSync("bash", ["-c", `exec 3<>/dev/tcp/127.0.0.1/${this.port}`]);
          resolve(s.status === 0);
        }),
      { what: "sshd to take connections" },
    );
  }

  /** Stops sshd and every connection it holds (the client sees the drop). */
  stopSshd() {
    if (!this.sshd) return;
    for (const pid of descendants(this.sshd.pid)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        /* gone */
      }
    }
    this.sshd.kill("SIGKILL");
    this.sshd = null;
  }

  tearDown() {
    this.stopSshd();
    // What runs as the remote user for this test (a server that outlives a connection too).
    for (const name of readdirSync("/proc")) {
      if (!/^\d+$/.test(name)) continue;
      try {
        if (readFileSync(`/proc/${name}/environ`, "utf8").split("\0").includes(`HOME=${this.home}`)) process.kill(Number(name), "SIGKILL");
      } catch {
        /* gone or not ours */
      }
    }
    rmSync(this.home, { recursive: true, force: true });
    rmSync(this.files, { recursive: true, force: true });
  }
}

function mkdtemp(prefix) {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** The agent's tmux, run as the remote user. */
class RemoteTmux extends Tmux {
  constructor(machine) {
    super();
    this.machine = machine;
  }

  run(args, opts = {}) {
    const env = opts.env ? Object.fromEntries(Object.entries(opts.env).filter(([k]) => !/^(TMUX|TMUX_PANE)$/.test(k))) : this.machine.env();
    return this.machine.as(["tmux", "-L", this.socket, ...args], env);
  }

  kill() {
    try {
      this.run(["kill-server"]);
    } catch {
      /* gone */
    }
  }
}

test("another machine: its agent's plan waits in the window, decisions reach it, its worktree is removed once confirmed, a dropped connection is shown", { timeout: 300000 }, async () => {
  const machine = new Machine();
  await machine.setUp();
  const standIn = mkdtemp("plandeck-remote-api-");
  const api = await startStandIn("claude", standIn);
  const tmux = new RemoteTmux(machine);
  const home = mkdtemp("plandeck-remote-desk-");
  try {
    await machine.startSshd();
    const added = cli(home, ["hosts", "add", "box", "--ssh", "plandeck-test"]);
    assert.equal(added.status, 0, added.stderr);
    const ssh = `ssh -F ${join(machine.files, "ssh_config")}`;
    await withApp({ home, env: { PLANDECK_SSH: ssh } }, async (s) => {
      await s.waitFor("[data-testid=machine-status][data-machine=box][data-state=connected]", { timeout: 60000 });

      // The agent on the other machine asks to leave plan mode.
      tmux.start(["claude", "--permission-mode", "plan"], {
        cwd: machine.repo,
        env: machine.env({ ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: CLAUDE_KEY, DISABLE_AUTOUPDATER: "1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" }),
      });
      await tmux.waitScreen("plan mode on", { timeout: 60000 });
      await submitPrompt(tmux, api, "plan pagination for the api");
      const card = "[data-testid=gate-request][data-machine=box]";
      await s.waitFor(card, { timeout: 60000 });
      const first = await s.exec(`return document.querySelector(${JSON.stringify(card)}).dataset.id`);
      assert.match(first, /^@box\//, "the request's id is namespaced by its machine");
      await s.waitForText("box", `${card} [data-testid=machine-badge]`);
      await s.screenshot("remote-queue");

      // Rejected with feedback in the window: the model there gets it.
      const feedback = "Cursor pagination only, from the desk.";
      const mine = `[data-testid=gate-request][data-id="${first}"]`;
      await s.click(`${mine} [data-testid=gate-reject]`);
      await s.type(`${mine} [data-testid=gate-feedback]`, feedback);
      await s.click(`${mine} [data-testid=gate-send-reject]`);
      const got = await modelGot(api, tmux, "ExitPlanMode", { timeout: 60000 });
      assert.equal(got.content, feedback);
      assert.equal(got.isError, true);
      // The remote's log names who decided, and from where.
      const log = JSON.parse(machine.plandeck(["log", "--json"]));
      assert.equal(log[0].feedback, feedback);
      const closed = JSON.parse(readFileSync(join(machine.home, `.local/share/plandeck/gate/done/${first.slice("@box/".length)}.json`), "utf8"));
      assert.match(closed.decidedBy ?? "", /over SSH from/);

      // The agent tries again; the plan is edited and approved in the window.
      await submitPrompt(tmux, api, "plan it again with cursors");
      await s.waitFor(`${card}:not([data-id="${first}"])`, { timeout: 60000 });
      const second = await s.exec(`return [...document.querySelectorAll(${JSON.stringify(card)})].map((e) => e.dataset.id).find((id) => id !== ${JSON.stringify(first)})`);
      const next = `[data-testid=gate-request][data-id="${second}"]`;
      await s.click(`${next} [data-testid=gate-edit]`);
      await s.waitFor(`${next} .cm-content .cm-line`);
      await s.click(`${next} .cm-content`);
      await s.cmd("POST", "/actions", {
        actions: [{ type: "key", id: "kb", actions: [{ type: "keyDown", value: "\uE009" }, { type: "keyDown", value: "\uE010" }, { type: "keyUp", value: "\uE010" }, { type: "keyUp", value: "\uE009" }] }],
      });
      await s.cmd("DELETE", "/actions");
      await s.keys("\n4. Reviewer note: edited on the desk.");
      await s.waitForText("edited on the desk", `${next} .cm-content`);
      await s.click(`${next} [data-testid=approve-edit]`);
      const approved = await waitFor(() => api.received().filter((r) => r.tool === "ExitPlanMode")[1], { timeout: 60000, what: "the second plan's result to reach the model" });
      assert.match(approved.content, /User has approved your plan/);
      assert.match(approved.content, /edited on the desk/);

      // Its worktree is listed with its counts, and removed only once the dialog is confirmed.
      await s.click("[data-view=worktrees]");
      const row = `[data-testid=worktree-row][data-path="${machine.worktree}"]`;
      await s.waitFor(row, { timeout: 30000 });
      assert.equal((await s.text(`${row} [data-testid=changed-files]`)).trim(), "1");
      await s.waitForText("box", "section.repo[data-machine=box] [data-testid=machine-badge]");
      await s.screenshot("remote-worktrees");
      await s.click(`${row} [data-testid=remove-worktree]`);
      assert.ok(clickNativeDialog("^On box: Remove ", 0.25), "the native confirmation names the machine");
      await s.waitFor(`${row} [data-testid=remove-worktree]:not([disabled])`, { timeout: 20000 });
      assert.ok(existsSync(machine.worktree), "cancelled: the worktree is still there");
      await s.click(`${row} [data-testid=remove-worktree]`);
      assert.ok(clickNativeDialog("^On box: Remove ", 0.75));
      await waitFor(() => !existsSync(machine.worktree), { timeout: 30000, what: "the remote worktree removed" });

      // sshd goes: the machine is unreachable since now, its rows greyed; back by itself after.
      machine.stopSshd();
      await s.waitFor("[data-testid=machine-status][data-machine=box][data-state=unreachable]", { timeout: 30000 });
      await s.waitForText("unreachable since", "[data-testid=machine-status][data-machine=box]");
      await s.click("[data-view=plans]");
      // Its plan is shown as it last was, greyed, with no decision offered and why.
      await s.waitForText("unreachable since", "[data-testid=plan-machine-off]", { timeout: 20000 });
      assert.equal(await s.exec(`return document.querySelector("[data-testid=approve]").disabled`), true);
      await s.waitForText("Plan: add pagination", "[data-testid=plan-html]");
      await s.screenshot("remote-unreachable");
      await machine.startSshd();
      await s.waitFor("[data-testid=machine-status][data-machine=box][data-state=connected]", { timeout: 90000 });
    });
  } finally {
    tmux.kill();
    api.stop();
    machine.tearDown();
    rmSync(home, { recursive: true, force: true });
    rmSync(standIn, { recursive: true, force: true });
  }
});
