#!/usr/bin/env bash
# Runs every benchmark (benches/src/bin/bench_*.rs) in release mode and writes BENCHMARKS.md: one
# row per measurement with its budget and the baseline timed in the same run, then each area's notes
# (benches/results/<area>.md); benches/memory.sh adds the memory figures. Usage: bash benches/run.sh [bench_name ...]
#
# Row format: each benchmark binary prints one JSON object per line on stdout (benches/src/lib.rs
# `report`):
#   "bench":    the row's name (unique)
#   "ms":       the figure (milliseconds unless "unit" says otherwise, e.g. "MB PSS")
#   "budget":   the budget in words, for the table ("<= 0.5x cat of the transcripts")
#   "limit":    the budget, machine-checked (by the benchmark itself, which says pass/FAIL on stderr
#               and exits 3 when a row is over, and again here); every row has one:
#                 {"ratio": r}  figure / baseline.ms <= r   (needs "baseline")
#                 {"ms": x}     figure <= x (in the row's unit)
#                 both          both hold
#               a row without "limit" is over ("no limit")
#   "baseline": {"what": "...", "ms": x}, timed in the same run
#   anything else: notes shown in the table (runs, sizes, p95 …)
# This script stamps each row of the run with "commit", "profile" and "run" (UTC time); it prints
# over-budget rows first and exits non-zero when any row is over its limit or a benchmark failed
# (exit 3 from a benchmark is "a row over its limit": its rows are kept and judged here).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/target-dir.sh  # CARGO_TARGET_DIR, this checkout's crates
benches=("$@")
if [ ${#benches[@]} -eq 0 ]; then
  for f in benches/src/bin/bench_*.rs; do benches+=("$(basename "$f" .rs)"); done
fi
# bench_gate also times the real `plandeck-cli` process (hook start, decision to exit).
cargo build --release -p plandeck-benches -p plandeck-cli --bins
# One heavy home (gen_heavy_home: the issue's 2.4 GiB of transcripts) for both the window and the
# memory benchmarks, unless HEAVY_HOME names one; removed at the end.
if [ -z "${HEAVY_HOME:-}" ] && { [ $# -eq 0 ] || [[ " $* " == *" bench_window "* ]] || [[ " $* " == *" bench_memory "* ]]; }; then
  heavy_tmp=$(mktemp -d /tmp/plandeck-heavy-home.XXXXXX)
  trap 'rm -rf "$heavy_tmp"' EXIT
  echo "==> generating the heavy home" >&2
  "$CARGO_TARGET_DIR/release/gen_heavy_home" "$heavy_tmp/home" >&2
  export HEAVY_HOME="$heavy_tmp/home"
fi
mkdir -p benches/results
commit="$(git rev-parse --short=12 HEAD)$(git diff --quiet HEAD -- . ':!benches/results' ':!BENCHMARKS.md' || echo -dirty)"
run="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
export PLANDECK_BENCH_COMMIT="$commit" PLANDECK_BENCH_RUN="$run"
stamp() { python3 -c '
import json, os, sys
for line in sys.stdin:
    line = line.strip()
    if not line.startswith("{"): continue
    try: r = json.loads(line)
    except Exception: continue
    r.setdefault("commit", os.environ["PLANDECK_BENCH_COMMIT"]); r.setdefault("run", os.environ["PLANDECK_BENCH_RUN"]); r.setdefault("profile", "release")
    print(json.dumps(r))'; }
for b in "${benches[@]}"; do
  [ "$b" = bench_memory ] && continue  # benches/memory.sh, below
  [ "$b" = bench_window ] && continue  # benches/window/*.mjs, below
  [ "$b" = bench_terminals ] && continue  # benches/window/terminals.mjs, below
  [ "$b" = bench_first_content ] && continue  # benches/first_content.sh, below
  echo "==> $b" >&2
  out="benches/results/$b.jsonl"
  set +e
  "$CARGO_TARGET_DIR/release/$b" | tee /dev/stderr | stamp >"$out.new"
  status=("${PIPESTATUS[@]}")
  set -e
  if [ "${status[0]}" -ne 0 ] && [ "${status[0]}" -ne 3 ] || [ "${status[2]}" -ne 0 ]; then
    echo "{\"bench\":\"$b\",\"error\":\"failed\",\"commit\":\"$commit\",\"run\":\"$run\"}" >>"$out.new"
  fi
  mv "$out.new" "$out"
done
# The real window (the window budgets, docs/architecture.md §6): hook to card, approve to hook exit (headless) and to the agent reading
# the key typed into its tmux pane (interactive), plan written to row, content on the heavy home
# against a one-plan home, and the longest frame while scrolling 5,000 plans, 2,000 session cards and
# a 10,000-row side-by-side diff (limit 50 ms); release build, tauri-driver + WebKitWebDriver, under Xvfb when $DISPLAY
# is unset. Writes benches/results/bench_window.jsonl, stamped like the other rows.
# (env: WINDOW_SAMPLES=30 STARTUP_SAMPLES=5 INTERACTIVE_SAMPLES=10 SCROLL_FRAMES=240 HEAVY_HOME=<dir>,
# else generated with gen_heavy_home)
if [ $# -eq 0 ] || [[ " $* " == *" bench_window "* ]]; then
  echo "==> bench_window" >&2
  npm --prefix ui run build --silent >/dev/null
  cargo build --release -p plandeck -p plandeck-cli --bins
  (
    xvfb=""
    if [ -z "${DISPLAY:-}" ]; then
      n=$((90 + RANDOM % 400))
      while [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ]; do n=$((n + 1)); done
      Xvfb ":$n" -screen 0 1400x900x24 -nolisten tcp >/dev/null 2>&1 &
      xvfb=$!
      export DISPLAY=":$n"
      for _ in $(seq 50); do [ -e "/tmp/.X11-unix/X$n" ] && break; sleep 0.1; done
    fi
    tmp=$(mktemp -d /tmp/plandeck-window-bench.XXXXXX)
    trap '[ -n "$xvfb" ] && kill "$xvfb" 2>/dev/null; rm -rf "$tmp"' EXIT
    heavy="${HEAVY_HOME:-}"
    if [ -z "$heavy" ] && [ -x "$CARGO_TARGET_DIR/release/gen_heavy_home" ]; then
      heavy="$tmp/heavy-home"
      "$CARGO_TARGET_DIR/release/gen_heavy_home" "$heavy" >&2
    fi
    export PLANDECK_BIN="$CARGO_TARGET_DIR/release/plandeck"
    out=benches/results/bench_window.jsonl
    {
      # Exit 3: a row over its limit (kept, judged below); anything else: the benchmark failed.
      node benches/window/latency.mjs --samples "${WINDOW_SAMPLES:-30}" ||
        [ $? -eq 3 ] || echo '{"bench":"bench_window_latency","error":"failed"}'
      node benches/window/startup.mjs ${heavy:+--heavy "$heavy"} --samples "${STARTUP_SAMPLES:-5}" ||
        [ $? -eq 3 ] || echo '{"bench":"bench_window_startup","error":"failed"}'
      node benches/window/interactive.mjs --samples "${INTERACTIVE_SAMPLES:-10}" ||
        [ $? -eq 3 ] || echo '{"bench":"bench_window_interactive","error":"failed"}'
      node benches/window/scroll.mjs --frames "${SCROLL_FRAMES:-240}" ||
        [ $? -eq 3 ] || echo '{"bench":"bench_window_scroll","error":"failed"}'
    } | stamp | tee "$out.new" >&2
    mv "$out.new" "$out"
  )
fi
# Live terminal views in the real window (issue 25): eight agents streaming (the window's CPU beyond
# theirs), a key typed to its echo, a view opening; release build, under Xvfb when $DISPLAY is unset.
# Writes benches/results/bench_terminals.jsonl. (env: TERMINAL_SAMPLES=30 TERMINAL_SECONDS=20)
if [ $# -eq 0 ] || [[ " $* " == *" bench_terminals "* ]]; then
  echo "==> bench_terminals" >&2
  npm --prefix ui run build --silent >/dev/null
  cargo build --release -p plandeck -p plandeck-cli --bins
  (
    xvfb=""
    if [ -z "${DISPLAY:-}" ]; then
      n=$((90 + RANDOM % 400))
      while [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ]; do n=$((n + 1)); done
      Xvfb ":$n" -screen 0 1400x900x24 -nolisten tcp >/dev/null 2>&1 &
      xvfb=$!
      export DISPLAY=":$n"
      for _ in $(seq 50); do [ -e "/tmp/.X11-unix/X$n" ] && break; sleep 0.1; done
    fi
    trap '[ -n "$xvfb" ] && kill "$xvfb" 2>/dev/null' EXIT
    export PLANDECK_BIN="$CARGO_TARGET_DIR/release/plandeck"
    out=benches/results/bench_terminals.jsonl
    {
      node benches/window/terminals.mjs --samples "${TERMINAL_SAMPLES:-30}" --seconds "${TERMINAL_SECONDS:-20}" ||
        [ $? -eq 3 ] || echo '{"bench":"bench_terminals","error":"failed"}'
    } | stamp | tee "$out.new" >&2
    mv "$out.new" "$out"
  )
fi
# The first impression (issue 34): the window's first content against a hello-world Tauri window's
# first content, same Xvfb, same run (<= 1.2x), on an empty home and on the heavy home (HEAVY_HOME,
# else benches/memory/gen_data.py's): benches/first_content.sh writes
# benches/results/bench_first_content.jsonl (release here; SAMPLES, default 5).
if [ $# -eq 0 ] || [[ " $* " == *" bench_first_content "* ]]; then
  echo "==> bench_first_content" >&2
  # Exit 3: a row over its limit (the rows are kept, judged below).
  PROFILE=release bash benches/first_content.sh >/dev/null || [ $? -eq 3 ] ||
    echo '{"bench":"bench_first_content","error":"failed"}' >benches/results/bench_first_content.jsonl
fi
# Memory of the app's processes against a hello-world Tauri window (docs/architecture.md §6), under Xvfb when
# $DISPLAY is unset: benches/memory.sh writes benches/results/bench_memory.jsonl (debug builds, ~4 min).
if [ $# -eq 0 ] || [[ " $* " == *" bench_memory "* ]]; then
  echo "==> bench_memory" >&2
  # Exit 3: a row over its limit (the rows are kept, judged below).
  bash benches/memory.sh || [ $? -eq 3 ] || echo '{"bench":"bench_memory","error":"failed"}' >benches/results/bench_memory.jsonl
  stamp <benches/results/bench_memory.jsonl >benches/results/bench_memory.jsonl.new
  mv benches/results/bench_memory.jsonl.new benches/results/bench_memory.jsonl
fi
# Each binary's last figures are kept in benches/results/<bin>.jsonl, so rerunning one benchmark
# leaves the others' rows as they were measured.
python3 - <<'PY'
import json, sys, platform, datetime, os, subprocess, glob
rows = []
for path in sorted(glob.glob("benches/results/bench_*.jsonl")):
    for line in open(path):
        line = line.strip()
        if not line.startswith("{"): continue
        try: rows.append(json.loads(line))
        except Exception: pass
commit, run = os.environ["PLANDECK_BENCH_COMMIT"], os.environ["PLANDECK_BENCH_RUN"]

def judge(r):
    """(over, how): whether the row is over its limit (a row with none is), in words."""
    if "error" in r: return True, "benchmark failed"
    lim = r.get("limit")
    if not isinstance(lim, dict) or not ({"ratio", "ms"} & set(lim)): return True, "no limit"
    fig = r.get("ms")
    over, how = False, []
    if "ms" in lim:
        over |= fig > lim["ms"]
        how.append(f"{fig} (limit {lim['ms']})")
    if "ratio" in lim:
        base = (r.get("baseline") or {}).get("ms")
        if not base: return True, "no baseline for a ratio limit"
        ratio = fig / base
        over |= ratio > lim["ratio"]
        how.append(f"{ratio:.2f}x (limit {lim['ratio']}x)")
    return over, ", ".join(how)

def limit_words(r):
    lim = r.get("limit")
    if not isinstance(lim, dict): return "none"
    unit = r.get("unit", "ms")
    parts = []
    if "ms" in lim: parts.append(f"<= {lim['ms']} {unit}")
    if "ratio" in lim: parts.append(f"<= {lim['ratio']}x baseline")
    return " and ".join(parts) or "none"

judged = [(r, *judge(r)) for r in rows]
over = [(r, how) for r, o, how in judged if o]
for r, how in over:
    print(f"OVER BUDGET: {r['bench']}: {how}", file=sys.stderr)
cpu = subprocess.run(["sh", "-c", "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"], capture_output=True, text=True).stdout.strip()
stale = sorted({(r.get("commit", "?"), r.get("run", "?")) for r in rows} - {(commit, run)})
md = ["# Benchmarks", "",
      f"One run of `bash benches/run.sh` on one build: commit `{commit}`, release profile, {run}, "
      f"{os.cpu_count()} cores ({cpu}). Each figure's baseline is timed in the same run. "
      f"{len(over)} row(s) over budget.", ""]
if stale:
    md += ["Rows from earlier runs (kept because this run measured only some benchmarks) say so in the *run* column: " +
           ", ".join(f"`{c}` at {t}" for c, t in stale) + ".", ""]
md += ["| verdict | benchmark | figure | limit (checked) | budget | baseline (same run) | notes | run |", "|---|---|---|---|---|---|---|---|"]
order = [x for x in judged if x[1]] + [x for x in judged if not x[1]]
for r, o, how in order:
    verdict = "**over**" if o else "ok"
    same = (r.get("commit"), r.get("run")) == (commit, run)
    when = "this run" if same else f"{r.get('commit', '?')} {r.get('run', '?')}"
    if "error" in r:
        md.append(f"| {verdict} | {r['bench']} | failed | | | | | {when} |"); continue
    base = r.get("baseline")
    unit = r.get("unit", "ms")  # "MB PSS" for bench_memory
    base_s = f"{base['what']}: {base['ms']} {unit}" if base else "—"
    extra = {k: v for k, v in r.items() if k not in ("bench", "ms", "unit", "budget", "baseline", "limit", "commit", "run", "profile")}
    notes = ", ".join(f"{k}={v}" for k, v in extra.items())
    notes = f"{how}; {notes}"
    md.append(f"| {verdict} | {r['bench']} | {r['ms']} {unit} | {limit_words(r)} | {r.get('budget','')} | {base_s} | {notes} | {when} |")
md.append("")
md.append("## Notes per area\n\nHow each benchmark builds its data and what it times. Figures quoted in these notes come from development runs (often on a machine loaded by parallel builds); the table above is the latest run.\n")
for f in sorted(os.listdir("benches/results")) if os.path.isdir("benches/results") else []:
    if f.endswith(".md"):
        md.append(open(os.path.join("benches/results", f)).read().rstrip() + "\n")
open("BENCHMARKS.md", "w").write("\n".join(md) + "\n")
print("wrote BENCHMARKS.md", file=sys.stderr)
sys.exit(1 if over else 0)
PY
