// `plandeck` with no display (an SSH session, a container): the built binary says there is no
// display and what to run instead, and exits 1; no panic, no backtrace. A display that is named
// but cannot be opened is refused the same way. The command line still runs.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { envFor, plandeckBin } from "./webdriver.mjs";

/** Runs the binary with `args` on a fresh home, the display variables replaced by `display`. */
function run(args, display) {
  const env = envFor(mkdtempSync(join(tmpdir(), "plandeck-e2e-nodisplay-")));
  delete env.DISPLAY;
  delete env.WAYLAND_DISPLAY;
  return spawnSync(plandeckBin(), args, { encoding: "utf8", env: { ...env, RUST_BACKTRACE: "1", ...display }, timeout: 60000 });
}

function assertRefused(r, pattern) {
  assert.equal(r.status, 1, `exit ${r.status}, stderr:\n${r.stderr}`);
  assert.match(r.stderr, pattern);
  assert.match(r.stderr, /`plandeck --help`/, "names the command line to run instead");
  assert.match(r.stderr, /DISPLAY/);
  assert.doesNotMatch(r.stderr, /panicked|backtrace|RUST_BACKTRACE/i);
  assert.equal(r.stdout, "");
}

test("no DISPLAY and no WAYLAND_DISPLAY: says so and what to run instead, exit 1", () => {
  assertRefused(run([], {}), /^plandeck: no display/);
  assertRefused(run(["--demo"], { DISPLAY: "", WAYLAND_DISPLAY: "" }), /^plandeck: no display/);
});

test("a DISPLAY no server answers: cannot open it, exit 1", () => {
  assertRefused(run([], { DISPLAY: ":4093" }), /^plandeck: cannot open the display \(DISPLAY=:4093\)/);
});

test("the command line needs no display", () => {
  const r = run(["plans", "list", "--json"], {});
  assert.equal(r.status, 0, r.stderr);
  assert.ok(Array.isArray(JSON.parse(r.stdout)));
});
