# Sourced by the window benchmarks (benches/first_content.sh, benches/memory.sh) from the checkout's
# root, after they set PROFILE's default: their shared set-up.
# - CARGO_TARGET_DIR (scripts/target-dir.sh: this checkout's crates in it), PROFILE (debug|release)
#   and `rel` (`--release` for a release build, for `cargo build "${rel[@]}"`);
# - bench_ui: ui/dist from the current sources (cargo embeds it as it is);
# - bench_work <name>: a scratch folder `$work`, removed on exit with the Xvfb bench_display
#   started;
# - bench_display <width>x<height>: an Xvfb of its own on a free display when $DISPLAY is unset
#   (exported as DISPLAY), else the display given.
source scripts/target-dir.sh
PROFILE="${PROFILE:-debug}"
rel=()
[ "$PROFILE" = release ] && rel=(--release)

bench_ui() {
  npm --prefix ui run build --silent >/dev/null
}

work=""
xvfb_pid=""
bench_cleanup() {
  [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null || true
  [ -n "$work" ] && rm -rf "$work"
}

bench_work() {
  work=$(mktemp -d "/tmp/plandeck-$1.XXXXXX")
  trap bench_cleanup EXIT
}

bench_display() {
  [ -n "${DISPLAY:-}" ] && return 0
  local n=$((90 + RANDOM % 400))
  while [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ]; do n=$((n + 1)); done
  Xvfb ":$n" -screen 0 "$1x24" -nolisten tcp >/dev/null 2>&1 &
  xvfb_pid=$!
  export DISPLAY=":$n"
  for _ in $(seq 50); do [ -e "/tmp/.X11-unix/X$n" ] && break; sleep 0.1; done
}
