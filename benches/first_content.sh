#!/usr/bin/env bash
# The first impression (issue 34): the window's first content against a hello-world Tauri window's
# first content, in the same Xvfb and the same run (budget <= 1.2x), on an empty home and on the
# heavy home; benches/window/first_content.mjs measures (how, there). The hello-world window is
# benches/memory/hello's page and config built as this package's example `hello-window`
# (benches/first_content/hello_window.rs): it shares the app's Tauri build, so building it costs
# seconds, not a second dependency tree. Both with the same cargo profile ($PROFILE, default debug:
# the app's release build is long on 2 cores). The heavy home is $HEAVY_HOME, else
# benches/memory/gen_data.py's (500 plans, 200 sessions, ~110 MB of transcripts; the row says
# which). Starts Xvfb (1400x900) when $DISPLAY is unset.
# Writes benches/results/bench_first_content.jsonl (stamped with commit, profile and run time).
# Usage: bash benches/first_content.sh   (env: PROFILE=debug|release SAMPLES=5 HEAVY_HOME=<dir> HEAVY_WHAT=<words>
#        COMPOSITING=on|off NO_BUILD=1)
set -euo pipefail
cd "$(dirname "$0")/.."
PROFILE="${PROFILE:-debug}"
source benches/lib.sh  # CARGO_TARGET_DIR, rel, bench_ui, bench_work, bench_display
SAMPLES="${SAMPLES:-5}"
COMPOSITING="${COMPOSITING:-on}"
if [ -z "${NO_BUILD:-}" ]; then
  bench_ui
  cargo build "${rel[@]}" --quiet -p plandeck -p plandeck-cli --bins
  cargo build "${rel[@]}" --quiet -p plandeck --example hello-window --features bench-hello
fi
hello="$CARGO_TARGET_DIR/$PROFILE/examples/hello-window"
export PLANDECK_BIN="$CARGO_TARGET_DIR/$PROFILE/plandeck"

bench_work first-content
bench_display 1400x900

heavy="${HEAVY_HOME:-}"
heavy_what="${HEAVY_WHAT:-heavy home ($heavy)}"
if [ -z "$heavy" ]; then
  echo "generating the heavy home (500 plans, 200 sessions)..." >&2
  heavy="$work/heavy-home"
  python3 benches/memory/gen_data.py "$heavy" >&2
  heavy_what="500 plans, 200 sessions (benches/memory/gen_data.py)"
fi

# benches/run.sh's stamp when it runs this, else this run's own.
commit="${PLANDECK_BENCH_COMMIT:-$(git rev-parse --short=12 HEAD)$(git diff --quiet HEAD -- . ':!benches/results' ':!BENCHMARKS.md' || echo -dirty)}"
run="${PLANDECK_BENCH_RUN:-$(date -u +%Y-%m-%dT%H:%M:%SZ)}"
mkdir -p benches/results
out=benches/results/bench_first_content.jsonl
set +e
node benches/window/first_content.mjs --hello "$hello" --heavy "$heavy" --heavy-what "$heavy_what" \
  --samples "$SAMPLES" --compositing "$COMPOSITING" >"$work/rows.jsonl"
status=$?
set -e
if [ "$status" -ne 0 ] && [ "$status" -ne 3 ]; then
  echo '{"bench":"bench_first_content","error":"failed"}' >"$work/rows.jsonl"
fi
COMMIT="$commit" RUN="$run" PROFILE="$PROFILE" python3 -c '
import json, os, sys
for line in open(sys.argv[1]):
    line = line.strip()
    if not line.startswith("{"): continue
    r = json.loads(line)
    r.setdefault("commit", os.environ["COMMIT"]); r.setdefault("run", os.environ["RUN"]); r.setdefault("profile", os.environ["PROFILE"])
    print(json.dumps(r))' "$work/rows.jsonl" >"$out.new"
mv "$out.new" "$out"
cat "$out"
exit "$status"
