#!/usr/bin/env bash
# Installs everything, builds Plandeck and opens the window. Extra arguments go to plandeck
# (e.g. `bash scripts/start.sh --demo`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PATH"
source scripts/target-dir.sh  # CARGO_TARGET_DIR, this checkout's crates
npm --prefix ui run build --silent
cargo build --release -p plandeck -p plandeck-cli --bins
exec "$CARGO_TARGET_DIR/release/plandeck" "$@"
