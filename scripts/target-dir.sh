# Sourced by the scripts that build (test.sh, start.sh, package.sh, benches/run.sh, benches/lib.sh):
# sets CARGO_TARGET_DIR to a cache outside the clone (default ~/.cache/plandeck-target), so
# reruns and fresh clones build incrementally, and makes sure this project's own crates in it were
# built from this checkout.
#
# Cargo does not rebuild a workspace crate whose sources are the same in another checkout path,
# yet `env!("CARGO_MANIFEST_DIR")` (tests' fixtures, insta's snapshots) is compiled in: tests
# built in a clone elsewhere would read that clone's files, or fail when it is gone. So when the
# checkout that last built here was another one (or is unknown), this project's crates are cleaned
# (dependencies are kept: they are most of the build) and rebuilt. Messages go to stderr
# (package.sh prints only the package's path on stdout).
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/plandeck-target}"
plandeck_checkout=$(pwd -P)
plandeck_stamp="$CARGO_TARGET_DIR/.plandeck-checkout"
if [ "$(cat "$plandeck_stamp" 2>/dev/null)" != "$plandeck_checkout" ]; then
  if [ -d "$CARGO_TARGET_DIR/debug" ] || [ -d "$CARGO_TARGET_DIR/release" ]; then
    echo "$CARGO_TARGET_DIR was last built from $(cat "$plandeck_stamp" 2>/dev/null || echo "an unknown checkout"): rebuilding this checkout's crates there" >&2
    for plandeck_profile in dev release; do
      cargo clean --quiet --profile "$plandeck_profile" -p plandeck -p plandeck-core -p plandeck-cli -p plandeck-testkit -p plandeck-benches >&2 ||
        echo "cargo clean failed; this checkout's crates may be stale in $CARGO_TARGET_DIR" >&2
    done
  fi
  mkdir -p "$CARGO_TARGET_DIR"
  echo "$plandeck_checkout" > "$plandeck_stamp.tmp" && mv "$plandeck_stamp.tmp" "$plandeck_stamp"
fi
unset plandeck_checkout plandeck_stamp plandeck_profile
