#!/usr/bin/env bash
# Installs the test needs and runs every test: core and CLI (cargo), UI components (vitest), and
# end to end (the real window under Xvfb through tauri-driver + WebKitWebDriver).
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test || exit 1
export PATH="$HOME/.cargo/bin:$PATH"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/plandeck-target}"
logs=$(mktemp -d)
status=0
passed=0
failed=0

count_cargo() { # sums "test result: ... N passed; M failed" lines
  local p f
  p=$(grep -Eo '[0-9]+ passed' "$1" | awk '{s+=$1} END {print s+0}')
  f=$(grep -Eo '[0-9]+ failed' "$1" | awk '{s+=$1} END {print s+0}')
  passed=$((passed + p)); failed=$((failed + f))
}

# The desktop crate embeds ui/dist (tauri::generate_context! fails without it), so build the UI first.
echo "==> building the UI (ui/dist)"
npm --prefix ui run build --silent || status=1

echo "==> 1/3 core, CLI and shell tests (cargo)"
cargo test --workspace --no-fail-fast 2>&1 | tee "$logs/cargo.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
count_cargo "$logs/cargo.log"

echo "==> 2/3 UI component tests (vitest) and type check"
(cd ui && npx vitest run --reporter=default 2>&1) | tee "$logs/vitest.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
p=$(grep -E '^\s+Tests' "$logs/vitest.log" | grep -Eo '[0-9]+ passed' | awk '{s+=$1} END {print s+0}')
f=$(grep -E '^\s+Tests' "$logs/vitest.log" | grep -Eo '[0-9]+ failed' | awk '{s+=$1} END {print s+0}')
passed=$((passed + p)); failed=$((failed + f))
(cd ui && npx svelte-check --tsconfig ./tsconfig.json --threshold error --output human 2>&1 | tail -3) || status=1

echo "==> 3/3 end to end: the real window under Xvfb"
cargo build -p plandeck 2>&1 | tail -2
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
started_xvfb=""
if [ -z "${DISPLAY:-}" ]; then
  display=":$((90 + RANDOM % 100))"
  Xvfb "$display" -screen 0 1400x900x24 -nolisten tcp >"$logs/xvfb.log" 2>&1 &
  started_xvfb=$!
  export DISPLAY="$display"
  for _ in $(seq 50); do xdpyinfo >/dev/null 2>&1 && break; [ -e "/tmp/.X11-unix/X${display#:}" ] && break; sleep 0.1; done
fi
node --test --test-force-exit --test-concurrency=1 --test-reporter=spec tests/e2e/*.test.mjs 2>&1 | tee "$logs/e2e.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
p=$(grep -E '^ℹ pass' "$logs/e2e.log" | grep -Eo '[0-9]+' | tail -1); f=$(grep -E '^ℹ fail' "$logs/e2e.log" | grep -Eo '[0-9]+' | tail -1)
passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
[ -n "$started_xvfb" ] && kill "$started_xvfb" 2>/dev/null

[ "$status" -ne 0 ] && [ "$failed" -eq 0 ] && failed=1
echo
echo "all layers: $passed passed, $failed failed"
exit "$status"
