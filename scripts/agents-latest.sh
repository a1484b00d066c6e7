#!/usr/bin/env bash
# The newest agent CLIs lane (`bash scripts/test.sh --agents latest`): installs the newest Claude
# Code, Gemini CLI and Codex CLI the npm registry has into ~/.cache/plandeck-agents-latest, builds
# the package once, and runs every end-to-end test that starts a real agent CLI against them,
# under Xvfb. It prints the versions it ran, for docs/agents.md. CI runs the pinned versions.
set -uo pipefail
cd "$(dirname "$0")/.."
export PLANDECK_AGENT_VERSIONS=latest
export PLANDECK_AGENTS_DIR="${PLANDECK_AGENTS_DIR:-$HOME/.cache/plandeck-agents-latest}"
bash scripts/setup.sh --test || exit 1
export PATH="$HOME/.cargo/bin:$PATH"
source scripts/target-dir.sh
logs=$(mktemp -d)
versions() {
  for name in @anthropic-ai/claude-code @google/gemini-cli @openai/codex; do
    printf '%s %s\n' "$name" "$(node -p "require('$PLANDECK_AGENTS_DIR/node_modules/$name/package.json').version")"
  done
}
echo "==> the agent CLIs of this lane"
versions | tee "$logs/versions.txt"

npm --prefix ui run build --silent || exit 1
deb=$(bash scripts/package.sh 2>"$logs/package-build.log" | tail -1)
[ -n "$deb" ] && [ -f "$deb" ] || { tail -n 60 "$logs/package-build.log"; echo "packaging failed"; exit 1; }
root=$(mktemp -d)
dpkg-deb -x "$deb" "$root"
export PLANDECK_BIN="$root/usr/bin/plandeck"
started_xvfb=""
if [ -z "${DISPLAY:-}" ]; then
  Xvfb -displayfd 3 -screen 0 1400x900x24 -nolisten tcp 3>"$logs/display" 2>"$logs/xvfb.log" &
  started_xvfb=$!
  for _ in $(seq 100); do [ -s "$logs/display" ] && break; sleep 0.1; done
  export DISPLAY=":$(head -1 "$logs/display")"
fi
# Every end-to-end file that starts a real agent CLI.
mapfile -t files < <(grep -lE "agentCli\(|AGENTS_DIR" tests/e2e/*.test.mjs)
echo "==> ${files[*]}"
node --test --test-force-exit --test-concurrency=1 --test-reporter=spec "${files[@]}" 2>&1 | tee "$logs/e2e.log"
status=${PIPESTATUS[0]}
[ -n "$started_xvfb" ] && kill "$started_xvfb" 2>/dev/null
echo
echo "agent CLIs:"; cat "$logs/versions.txt"
grep -E '^ℹ (pass|fail)' "$logs/e2e.log"
echo "logs in $logs"
exit "$status"
