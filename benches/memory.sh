#!/usr/bin/env bash
# Memory budget (docs/architecture.md §6): PSS of every Plandeck process (main + WebKitWebProcess +
# WebKitNetworkProcess + any other descendant) idle with 500 plans and 200 sessions, against the
# framework floor, a hello-world Tauri 2 window (benches/memory/hello) measured the same way in the
# same run. Both are built with the same cargo profile ($PROFILE, default debug: the app's release
# build takes long on 2 cores), each measured with WEBKIT_DISABLE_COMPOSITING_MODE=1 and without,
# $ROUNDS rounds (default 3, median reported). Starts Xvfb if $DISPLAY is unset.
# Writes benches/results/bench_memory.jsonl (one JSON line per compositing mode).
# Usage: bash benches/memory.sh   (env: PROFILE=debug|release ROUNDS=3 IDLE_HELLO=10 IDLE_APP=15 NO_BUILD=1)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/plandeck-target}"
PROFILE="${PROFILE:-debug}"
ROUNDS="${ROUNDS:-3}"
IDLE_HELLO="${IDLE_HELLO:-10}"
IDLE_APP="${IDLE_APP:-15}"
rel=(); [ "$PROFILE" = release ] && rel=(--release)
if [ -z "${NO_BUILD:-}" ]; then
  (cd benches/memory/hello && cargo build "${rel[@]}" --quiet)
  # cargo embeds ui/dist as it is: build it from the current sources.
  npm --prefix ui run build --silent >/dev/null
  cargo build "${rel[@]}" --quiet -p plandeck --bin plandeck
fi
hello="$CARGO_TARGET_DIR/$PROFILE/hello-tauri"
app="$CARGO_TARGET_DIR/$PROFILE/plandeck"

work=$(mktemp -d /tmp/plandeck-memory.XXXXXX)
xvfb_pid=""
cleanup() {
  [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
if [ -z "${DISPLAY:-}" ]; then
  n=$((90 + RANDOM % 400))
  while [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ]; do n=$((n + 1)); done
  Xvfb ":$n" -screen 0 1920x1080x24 -nolisten tcp >/dev/null 2>&1 &
  xvfb_pid=$!
  export DISPLAY=":$n"
  for _ in $(seq 50); do [ -e "/tmp/.X11-unix/X$n" ] && break; sleep 0.1; done
fi

echo "generating 500 plans and 200 sessions..." >&2
python3 benches/memory/gen_data.py "$work/data-home"

# Prints "<total kB> <name>=<kB> ..." for a process and all its descendants (ppid chains in /proc).
pss_tree() {
  python3 - "$1" <<'PY'
import os, sys
root = int(sys.argv[1])
kids = {}
for d in os.listdir("/proc"):
    if not d.isdigit(): continue
    try:
        stat = open(f"/proc/{d}/stat").read()
    except OSError: continue
    ppid = int(stat[stat.rindex(")") + 2:].split()[1])
    kids.setdefault(ppid, []).append(int(d))
tree, todo = [], [root]
while todo:
    p = todo.pop(); tree.append(p); todo += kids.get(p, [])
total, parts = 0, {}
for p in tree:
    try:
        kb = next(int(l.split()[1]) for l in open(f"/proc/{p}/smaps_rollup") if l.startswith("Pss:"))
        name = open(f"/proc/{p}/comm").read().strip()
    except (OSError, StopIteration): continue
    total += kb; parts[name] = parts.get(name, 0) + kb
print(total, " ".join(f"{k}={v}" for k, v in sorted(parts.items())))
PY
}

# measure <binary> <home> <idle seconds> <compositing: on|off> -> prints the pss_tree line.
measure() {
  local bin=$1 home=$2 idle=$3 comp=$4 pid line
  mkdir -p "$home"
  (
    export HOME="$home" XDG_CONFIG_HOME="$home/.config" XDG_DATA_HOME="$home/.local/share" \
      XDG_CACHE_HOME="$home/.cache" XDG_STATE_HOME="$home/.local/state" RUST_LOG=warn
    if [ "$comp" = off ]; then export WEBKIT_DISABLE_COMPOSITING_MODE=1; else unset WEBKIT_DISABLE_COMPOSITING_MODE; fi
    exec "$bin"
  ) >"$work/$(basename "$bin").log" 2>&1 &
  pid=$!
  # Idle time counts from the web process's start (the page is loading then); wait up to 60 s.
  for _ in $(seq 600); do
    pss_tree "$pid" | grep -q WebKitWebProces && break
    kill -0 "$pid" 2>/dev/null || { echo "$bin exited early; log:" >&2; cat "$work/$(basename "$bin").log" >&2; return 1; }
    sleep 0.1
  done
  sleep "$idle"
  line=$(pss_tree "$pid")
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  sleep 1
  echo "$line"
}

results="$work/raw.txt"
for round in $(seq "$ROUNDS"); do
  for comp in off on; do
    h=$(measure "$hello" "$work/hello-home-$round-$comp" "$IDLE_HELLO" "$comp")
    # The data home is reused: the app's own index (~/.local/share/plandeck) is kept between
    # rounds, as it is between a person's launches; remove it to measure a first launch.
    a=$(measure "$app" "$work/data-home" "$IDLE_APP" "$comp")
    echo "round $round compositing=$comp hello: $h | plandeck: $a" >&2
    echo "$comp $h | $a" >>"$results"
  done
done

mkdir -p benches/results
python3 - "$results" "$PROFILE" "$ROUNDS" "$IDLE_HELLO" "$IDLE_APP" >benches/results/bench_memory.jsonl.new <<'PY'
import json, statistics, sys
path, profile, rounds, idle_h, idle_a = sys.argv[1:]
rows = {"off": [], "on": []}
for line in open(path):
    comp, rest = line.split(" ", 1)
    h, a = rest.split("|")
    parse = lambda s: (int(s.split()[0]), dict(kv.split("=") for kv in s.split()[1:]))
    rows[comp].append((parse(h), parse(a)))
for comp, name in (("off", "memory_idle_500_plans_200_sessions_no_compositing"), ("on", "memory_idle_500_plans_200_sessions")):
    r = rows[comp]
    if not r: continue
    mb = lambda kb: round(kb / 1024, 1)
    hello = statistics.median(x[0][0] for x in r)
    app = statistics.median(x[1][0] for x in r)
    # Per-process figures of the round whose app total is the median one.
    mid = sorted(r, key=lambda x: x[1][0])[len(r) // 2][1][1]
    print(json.dumps({
        "bench": name, "ms": mb(app), "unit": "MB PSS", "budget": "<= 1.3x hello-world Tauri",
        "baseline": {"what": "hello-world Tauri window", "ms": mb(hello)},
        "ratio": round(app / hello, 2),
        "env": "WEBKIT_DISABLE_COMPOSITING_MODE=1" if comp == "off" else "compositing on",
        "profile": profile, "rounds": int(rounds), "idle_s": {"hello": int(idle_h), "app": int(idle_a)},
        "app_processes_mb": {k: mb(int(v)) for k, v in mid.items()},
        "all_rounds_mb": {"hello": [mb(x[0][0]) for x in r], "app": [mb(x[1][0]) for x in r]},
    }))
PY
mv benches/results/bench_memory.jsonl.new benches/results/bench_memory.jsonl
cat benches/results/bench_memory.jsonl
