#!/usr/bin/env bash
# Installs the test needs and runs every check and test (README's second command; .ci/run calls it):
#   1. format and lints: cargo fmt --check, cargo clippy -D warnings, svelte-check
#   2. core and CLI tests (cargo), UI component tests (vitest)
#   3. the package: built once (release, Tauri's bundler), the desktop shell's unit tests in that
#      release profile, the package unpacked into a scratch root, its binary
#      run (--version, the CLI on the demo workspace)
#   4. end to end against that installed binary: the real window under Xvfb through tauri-driver +
#      WebKitWebDriver, and the real agent CLIs in tmux
# `bash scripts/test.sh --fast` is the day-to-day lane: format, core + CLI + UI unit tests; no
# window, no package, no clippy.
# `bash scripts/test.sh --agents latest` is the second lane: every end-to-end test that runs a real
# agent CLI, against the newest versions the npm registry has (scripts/agents-latest.sh). CI stays
# on the pinned versions.
set -uo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--agents" ]; then
  [ "${2:-}" = "latest" ] || { echo "usage: bash scripts/test.sh --agents latest" >&2; exit 2; }
  exec bash scripts/agents-latest.sh
fi
fast=0
[ "${1:-}" = "--fast" ] && fast=1
if [ "$fast" = 1 ]; then bash scripts/setup.sh || exit 1; else bash scripts/setup.sh --test || exit 1; fi
export PATH="$HOME/.cargo/bin:$PATH"
source scripts/target-dir.sh  # CARGO_TARGET_DIR, this checkout's crates
logs=$(mktemp -d)
status=0
passed=0
failed=0
started=$SECONDS
step() { echo; echo "==> $1 ($((SECONDS - started)) s)"; }

count_cargo() { # sums "test result: ... N passed; M failed" lines
  local p f
  p=$(grep -Eo '[0-9]+ passed' "$1" | awk '{s+=$1} END {print s+0}')
  f=$(grep -Eo '[0-9]+ failed' "$1" | awk '{s+=$1} END {print s+0}')
  passed=$((passed + p)); failed=$((failed + f))
}
count_node() { # node's test runner: "ℹ pass N" / "ℹ fail N"
  local p f
  p=$(grep -E '^ℹ pass' "$1" | grep -Eo '[0-9]+' | tail -1)
  f=$(grep -E '^ℹ fail' "$1" | grep -Eo '[0-9]+' | tail -1)
  passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
  [ -n "$p" ] || { echo "no test summary in $1"; status=1; }
}

step "format: cargo fmt --all --check"
cargo fmt --all --check || { echo "cargo fmt --all would change the files above"; status=1; }

# The desktop crate embeds ui/dist (tauri::generate_context! fails without it), so build the UI first.
step "building the UI (ui/dist)"
npm --prefix ui run build --silent || status=1

if [ "$fast" = 1 ]; then
  step "core and CLI tests (cargo)"
  cargo test -p plandeck-core -p plandeck-cli --no-fail-fast 2>&1 | tee "$logs/cargo.log"
else
  step "lints: cargo clippy --workspace --all-targets -- -D warnings"
  cargo clippy --workspace --all-targets --quiet -- -D warnings 2>&1 | tee "$logs/clippy.log" | tail -40
  [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "clippy: $(grep -c '^error' "$logs/clippy.log") errors"; status=1; }

  # The desktop package (src-tauri/) is left out here: its few unit tests run in the release
  # profile after the package is built, and the end-to-end tests test it there. That keeps the
  # Tauri/WebKit stack out of the debug profile, so CI compiles it only once (clippy only
  # type-checks it).
  step "core, CLI and bench tests (cargo)"
  # The property tests against a real tmux (issue 33) run more cases here than day to day.
  PLANDECK_TMUX_CASES="${PLANDECK_TMUX_CASES:-1500}" \
    cargo test --workspace --exclude plandeck --no-fail-fast 2>&1 | tee "$logs/cargo.log"
fi
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
count_cargo "$logs/cargo.log"

step "UI component tests (vitest)"
(cd ui && npx vitest run --reporter=default 2>&1) | tee "$logs/vitest.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
# vitest colours its summary even into a pipe: read it without the colour codes.
summary=$(sed 's/\x1b\[[0-9;]*m//g' "$logs/vitest.log" | grep -E '^\s+Tests\s')
p=$(echo "$summary" | grep -Eo '[0-9]+ passed' | awk '{s+=$1} END {print s+0}')
f=$(echo "$summary" | grep -Eo '[0-9]+ failed' | awk '{s+=$1} END {print s+0}')
[ -n "$summary" ] || { echo "no vitest summary in $logs/vitest.log"; status=1; }
passed=$((passed + p)); failed=$((failed + f))

if [ "$fast" = 0 ]; then
  step "type check: svelte-check"
  (cd ui && npx svelte-check --tsconfig ./tsconfig.json --threshold error --output human 2>&1 | tail -3)
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1

  # One release build serves both the package and the end-to-end tests: CI compiles the app once
  # in the debug profile (the cargo tests above) and once in release (here), never a third time.
  step "the package: bash scripts/package.sh (release build, .deb and .rpm)"
  deb=$(bash scripts/package.sh 2>"$logs/package-build.log" | tail -1)
  if [ -z "$deb" ] || [ ! -f "$deb" ]; then
    tail -n 60 "$logs/package-build.log"
    echo "packaging failed"; status=1; failed=$((failed + 1))
  else
    grep -E '^ *(Finished|Built application|Bundling)|\.(deb|rpm)$' "$logs/package-build.log"
    # The desktop shell's own unit tests (src-tauri: WebKit's environment and features, when
    # freed heap is given back), in the release profile the package just built: its dependencies
    # are compiled already.
    step "desktop shell unit tests: cargo test --release -p plandeck --lib"
    cargo test --release -p plandeck --lib 2>&1 | tee "$logs/shell.log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
    count_cargo "$logs/shell.log"
    root=$(mktemp -d)
    step "the installed package: dpkg-deb -x into $root, then its binary"
    PLANDECK_DEB="$deb" PLANDECK_ROOT="$root" node --test --test-reporter=spec \
      tests/package/installed.test.mjs 2>&1 | tee "$logs/package.log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
    count_node "$logs/package.log"

    step "end to end against the installed binary, the real window under Xvfb"
    export PLANDECK_BIN="$root/usr/bin/plandeck"
    started_xvfb=""
    if [ -z "${DISPLAY:-}" ]; then # Xvfb picks a free display number and writes it to fd 3
      Xvfb -displayfd 3 -screen 0 1400x900x24 -nolisten tcp 3>"$logs/display" 2>"$logs/xvfb.log" &
      started_xvfb=$!
      for _ in $(seq 100); do [ -s "$logs/display" ] && break; sleep 0.1; done
      export DISPLAY=":$(head -1 "$logs/display")"
    fi
    node --test --test-force-exit --test-concurrency=1 --test-reporter=spec tests/e2e/*.test.mjs 2>&1 |
      tee "$logs/e2e.log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
    count_node "$logs/e2e.log"
    [ -n "$started_xvfb" ] && kill "$started_xvfb" 2>/dev/null
  fi
fi

[ "$status" -ne 0 ] && [ "$failed" -eq 0 ] && failed=1
echo
echo "took $((SECONDS - started)) s; logs in $logs"
echo "total: $passed passed, $failed failed"
exit "$status"
