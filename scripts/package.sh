#!/usr/bin/env bash
# Builds the release binary and the Debian and RPM packages with Tauri's own bundler (the Tauri CLI
# is a devDependency of ui/) into dist/, and prints the path of the .deb (its only line on stdout).
#   bash scripts/package.sh            # then: sudo apt install ./dist/plandeck_<version>_amd64.deb
# Needs what `bash scripts/setup.sh` installs. The release build lands in $CARGO_TARGET_DIR/release
# (default ~/.cache/plandeck-target), where scripts/start.sh and the end-to-end tests find it too.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
source scripts/target-dir.sh  # CARGO_TARGET_DIR, this checkout's crates

[ -x ui/node_modules/.bin/tauri ] || npm --prefix ui ci --no-audit --no-fund --loglevel=error >&2

# The version is the workspace's (tauri.conf.json has none, so the bundler takes Cargo.toml's).
version=$(cargo metadata --no-deps --format-version 1 |
  node -e 'const m = JSON.parse(require("fs").readFileSync(0, "utf8"));
           process.stdout.write(m.packages.find((p) => p.name === "plandeck").version)')
bundle="$CARGO_TARGET_DIR/release/bundle"
rm -f "$bundle"/deb/*.deb "$bundle"/rpm/*.rpm

# The slim command-line builds go in beside the window's (`plandeck-window`): `plandeck`, the name
# people type (it starts in a few milliseconds and becomes the window when given no subcommand),
# and `plandeck-cli`, which agents' hooks run. Their paths are absolute, so they are given here
# rather than in tauri.conf.json.
cargo build --release -p plandeck-cli --bins >&2
extra=$(node -e 'const [dir] = process.argv.slice(1);
  const f = { "/usr/bin/plandeck": `${dir}/plandeck`, "/usr/bin/plandeck-cli": `${dir}/plandeck-cli` };
  process.stdout.write(JSON.stringify({ bundle: { linux: { deb: { files: f }, rpm: { files: f } } } }))' "$CARGO_TARGET_DIR/release")

# `tauri build` runs ui's `npm run build` (beforeBuildCommand), then `cargo build --release`, then
# bundles. Its output goes to stderr so that stdout is only the package path.
ui/node_modules/.bin/tauri build --ci --bundles deb,rpm --config "$extra" >&2

# Copied under the Debian name (<package>_<version>_<arch>.deb) to dist/ in the repository.
mkdir -p dist
built=$(ls "$bundle"/deb/*_"${version}"_*.deb)
deb="dist/plandeck_${version}_$(dpkg-deb -f "$built" Architecture).deb"
cp "$built" "$deb"
for rpm in "$bundle"/rpm/*-"${version}"-*.rpm; do if [ -f "$rpm" ]; then cp "$rpm" dist/; fi; done
echo "==> built $(ls dist/*"${version}"*)" >&2
realpath "$deb"
