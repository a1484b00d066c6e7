// The package as a person gets it: the .deb built by `bash scripts/package.sh` (PLANDECK_DEB) holds
// the binary, the desktop entry and the icons, declares its Debian dependencies, and its binary,
// unpacked into a scratch root (`dpkg-deb -x`), runs: --version and the CLI on the demo workspace.
// scripts/test.sh runs this, then the end-to-end tests against the same installed binary.

import { test, before } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "../..");
const deb = process.env.PLANDECK_DEB;
let scratch;
let bin;

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: "utf8", timeout: 60000, ...opts });
  if (r.error) throw r.error;
  return r;
}

function workspaceVersion() {
  const toml = readFileSync(join(ROOT, "Cargo.toml"), "utf8");
  const section = toml.slice(toml.indexOf("[workspace.package]"));
  return section.match(/^version\s*=\s*"([^"]+)"/m)[1];
}

before(() => {
  assert.ok(deb, "PLANDECK_DEB names the .deb to test (bash scripts/package.sh builds one)");
  assert.ok(existsSync(deb), `${deb} does not exist`);
  scratch = process.env.PLANDECK_ROOT || mkdtempSync(join(tmpdir(), "plandeck-root-"));
  const r = run("dpkg-deb", ["-x", deb, scratch]);
  assert.equal(r.status, 0, r.stderr);
  bin = join(scratch, "usr/bin/plandeck");
});

test("the .deb holds the binary, the desktop entry and the icons", () => {
  const r = run("dpkg-deb", ["-c", deb]);
  assert.equal(r.status, 0, r.stderr);
  const files = r.stdout.split("\n").map((l) => "/" + l.split(/\s+/).pop().replace(/^\.?\//, ""));
  assert.ok(files.includes("/usr/bin/plandeck"), r.stdout);
  assert.ok(files.includes("/usr/bin/plandeck-window"), `the window's binary is missing:\n${r.stdout}`);
  assert.ok(files.includes("/usr/bin/plandeck-cli"), `the slim CLI the hooks run is missing:\n${r.stdout}`);
  const desktop = files.find((f) => /^\/usr\/share\/applications\/.*\.desktop$/.test(f));
  assert.ok(desktop, `no desktop entry in\n${r.stdout}`);
  for (const size of ["16x16", "24x24", "32x32", "48x48", "64x64", "128x128", "256x256", "512x512"]) {
    assert.ok(
      files.some((f) => f.startsWith(`/usr/share/icons/hicolor/${size}/apps/`) && f.endsWith(".png")),
      `no ${size} icon in\n${r.stdout}`,
    );
  }
  const entry = readFileSync(join(scratch, desktop), "utf8");
  assert.match(entry, /^Exec=plandeck-window\b/m);
  assert.match(entry, /^Icon=plandeck-window$/m); // the bundler names the icon after the window's binary
  assert.match(entry, /^Name=Plandeck$/m);
  assert.match(entry, /^Type=Application$/m);
});

test("the .deb declares its version and Debian dependencies", () => {
  const field = (name) => run("dpkg-deb", ["-f", deb, name]).stdout.trim();
  assert.equal(field("Package"), "plandeck");
  assert.equal(field("Version"), workspaceVersion());
  const depends = field("Depends");
  for (const pkg of ["libwebkit2gtk-4.1-0", "libgtk-3-0", "libsoup-3.0-0", "libdbus-1-3"]) {
    assert.match(depends, new RegExp(`(^|, )${pkg.replace(/[.]/g, "\\.")}($|,| )`), depends);
  }
});

test("the installed binary says its version", () => {
  const r = run(bin, ["--version"]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), `plandeck ${workspaceVersion()}`);
});

test("`plandeck` is the slim command line: it loads no WebKit or GTK; the window is plandeck-window", () => {
  const libs = (file) => {
    const r = run("ldd", [file]);
    assert.equal(r.status, 0, r.stderr);
    return r.stdout;
  };
  assert.doesNotMatch(libs(bin), /webkit|gtk/i);
  assert.match(libs(join(scratch, "usr/bin/plandeck-window")), /libwebkit2gtk/);
  // With no subcommand it becomes the window: with no display, the window says so.
  const env = { PATH: process.env.PATH, HOME: mkdtempSync(join(tmpdir(), "plandeck-pkg-nodisplay-")) };
  const r = run(bin, [], { env });
  assert.equal(r.status, 1, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stderr, /display/i);
  // Hooks installed by earlier versions name the window's old path (`/usr/bin/plandeck`) or the
  // window's binary: both still answer.
  for (const exe of [bin, join(scratch, "usr/bin/plandeck-window")]) {
    const hook = run(exe, ["hook", "claude"], {
      env,
      input: JSON.stringify({ hook_event_name: "PermissionRequest", tool_name: "ExitPlanMode", session_id: "s", cwd: env.HOME, tool_input: { plan: "# p" } }),
    });
    assert.equal(hook.status, 0, `${exe}: ${hook.stderr}`);
  }
});

test("hooks installed by `plandeck` run the slim CLI installed beside it", () => {
  const cli = join(scratch, "usr/bin/plandeck-cli");
  const version = run(cli, ["--version"]);
  assert.equal(version.status, 0, version.stderr);
  assert.match(version.stdout.trim(), new RegExp(`^plandeck(-cli)? ${workspaceVersion().replace(/[.]/g, "\\.")}$`));
  const home = mkdtempSync(join(tmpdir(), "plandeck-pkg-hooks-"));
  const env = { PATH: process.env.PATH, HOME: home, XDG_DATA_HOME: join(home, ".local/share"), XDG_CONFIG_HOME: join(home, ".config") };
  const r = run(bin, ["hooks", "install", "--agent", "claude", "--yes"], { env });
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  const settings = JSON.parse(readFileSync(join(home, ".claude/settings.json"), "utf8"));
  const commands = JSON.stringify(settings.hooks);
  assert.ok(commands.includes(`'${cli}' hook claude`), commands); // always single-quoted (SECURITY.md)
  // The hook it wrote runs: with no Plandeck window open it lets the agent ask in its terminal.
  const hook = run(cli, ["hook", "claude"], {
    env,
    input: JSON.stringify({ hook_event_name: "PermissionRequest", tool_name: "ExitPlanMode", session_id: "s", cwd: home, tool_input: { plan: "# p" } }),
  });
  assert.equal(hook.status, 0, hook.stderr);
});

test("the installed CLI works on the demo workspace", () => {
  const parent = mkdtempSync(join(tmpdir(), "plandeck-pkg-demo-"));
  const made = run(bin, ["demo", "--into", parent, "--json"]);
  assert.equal(made.status, 0, made.stderr);
  const { home } = JSON.parse(made.stdout);
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_DATA_HOME: join(home, ".local/share"),
    XDG_CONFIG_HOME: join(home, ".config"),
  };
  const json = (args) => {
    const r = run(bin, [...args, "--json"], { env });
    assert.equal(r.status, 0, `${args.join(" ")}: ${r.stderr}`);
    return JSON.parse(r.stdout);
  };
  const plans = json(["plans", "list"]);
  assert.ok(plans.length > 0, "the demo has plans");
  assert.ok(plans.some((p) => /pagination/i.test(p.title)), JSON.stringify(plans.map((p) => p.title)));
  const sessions = json(["sessions", "list"]);
  assert.ok(sessions.length > 0, "the demo has sessions");
  const worktrees = json(["worktrees", "list"]);
  assert.ok(worktrees.length > 0, "the demo has worktrees");
  const shown = run(bin, ["plans", "show", plans[0].id, "--md"], { env });
  assert.equal(shown.status, 0, shown.stderr);
  assert.ok(shown.stdout.length > 0);
});
