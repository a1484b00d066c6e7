#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine lacks to build and run Plandeck (as root, or with sudo).
#   bash scripts/setup.sh          # to build and run the app
#   bash scripts/setup.sh --test   # also what the tests need (WebKitWebDriver, Xvfb, tauri-driver, tmux, Chromium,
#                                  # openssh-server for the remote tests, its system service left off)
set -euo pipefail
cd "$(dirname "$0")/.."

want_test=0
[ "${1:-}" = "--test" ] && want_test=1

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"

# Debian packages Tauri needs; for tests also the WebDriver for WebKitGTK, a virtual display,
# tmux (gate delivery), imagemagick (screenshots), a D-Bus daemon (the one-app test's private
# session bus), python3 (closing a window as a window manager does: tests/e2e/close-window.py) and
# perl (the fake approval cards of the gate's tests), Chromium and its chromedriver (the phone page's
# browser test, crates/plandeck-cli/tests/it/phone.rs) and openssl (its test certificate authority).
pkgs=(libwebkit2gtk-4.1-dev build-essential libssl-dev libxdo-dev libayatana-appindicator3-dev librsvg2-dev pkg-config curl git)
if [ "$want_test" = 1 ]; then
  pkgs+=(webkit2gtk-driver xvfb xauth tmux imagemagick xdotool x11-utils dbus-daemon python3 perl chromium chromium-driver openssl)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ! command -v node >/dev/null 2>&1; then missing+=(nodejs npm); fi
if [ "${#missing[@]}" -gt 0 ]; then
  echo "==> installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# The remote-machine tests (crates/plandeck-cli/tests/it/remote.rs) start their own sshd on
# loopback with their own config and host key; the system's sshd must not run. Debian's
# openssh-server starts and enables it on install: when it was installed only now, it is installed
# with a policy-rc.d that forbids starting services (unless one is there already), and then kept
# from starting at all by /etc/ssh/sshd_not_to_be_run (honoured by both its init script and its
# systemd unit), disabled, and stopped if it started anyway.
if [ "$want_test" = 1 ] && ! dpkg-query -W -f='${Status}' openssh-server 2>/dev/null | grep -q "install ok installed"; then
  echo "==> installing openssh-server for the remote tests (the system's sshd is left off)"
  own_policy=0
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
    $SUDO chmod 755 /usr/sbin/policy-rc.d
    own_policy=1
  fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq openssh-server >/dev/null
  [ "$own_policy" = 1 ] && $SUDO rm -f /usr/sbin/policy-rc.d
  $SUDO touch /etc/ssh/sshd_not_to_be_run
  if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
    $SUDO systemctl disable --now ssh.service ssh.socket >/dev/null 2>&1 || true
  else
    $SUDO update-rc.d ssh disable >/dev/null 2>&1 || true
    $SUDO service ssh stop >/dev/null 2>&1 || true
  fi
fi

node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$node_major" -lt 20 ]; then
  echo "Plandeck's UI build (Vite 8) needs Node.js 20.19 or newer; this machine has $(node --version 2>/dev/null || echo none)." >&2
  exit 1
fi

if ! command -v cargo >/dev/null 2>&1; then
  [ -x "$HOME/.cargo/bin/cargo" ] || {
    echo "==> installing Rust (rustup)"
    curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal
  }
  export PATH="$HOME/.cargo/bin:$PATH"
fi

if [ "$want_test" = 1 ] && ! command -v tauri-driver >/dev/null 2>&1; then
  echo "==> installing tauri-driver"
  cargo install tauri-driver --locked
fi

# The real agent CLIs for the end-to-end tests (tests/e2e/gate-*.test.mjs, codex.test.mjs, the ACP
# adapters of acp-*.test.mjs: claude-agent-acp, codex-acp, Gemini CLI --acp, opencode acp) and the
# Codex fixture recorder (tests/agents/record-codex.mjs), outside the repo.
# Pinned to the newest versions whose end-to-end tests passed (docs/agents.md, "Versions checked"; the
# fixtures in tests/fixtures keep the versions they were recorded with); skipped when already there.
# PLANDECK_AGENT_VERSIONS=latest (scripts/test.sh --agents latest): the newest the registry has, in
# a folder of their own, brought up to date each time.
if [ "$want_test" = 1 ]; then
  agents_dir="${PLANDECK_AGENTS_DIR:-$HOME/.cache/plandeck-agents}"
  agent_pkgs=("@anthropic-ai/claude-code@2.1.332" "@google/gemini-cli@0.61.0" "@openai/codex@0.171.0" "@zed-industries/claude-agent-acp@0.23.1" "@zed-industries/codex-acp@0.16.0" "opencode-ai@1.18.33")
  if [ "${PLANDECK_AGENT_VERSIONS:-}" = "latest" ]; then
    agents_dir="${PLANDECK_AGENTS_DIR:-$HOME/.cache/plandeck-agents-latest}"
    agent_pkgs=("@anthropic-ai/claude-code@latest" "@google/gemini-cli@latest" "@openai/codex@latest" "@zed-industries/claude-agent-acp@latest" "@zed-industries/codex-acp@latest" "opencode-ai@latest")
  fi
  have_agents=1
  for spec in "${agent_pkgs[@]}"; do
    name="${spec%@*}"; version="${spec##*@}"
    got=$(node -p "try { require('$agents_dir/node_modules/$name/package.json').version } catch { '' }" 2>/dev/null)
    [ "$got" = "$version" ] || have_agents=0  # "latest" never equals a version: installed anew
  done
  if [ "$have_agents" = 0 ]; then
    echo "==> installing the agent CLIs for the gate tests into $agents_dir"
    mkdir -p "$agents_dir"
    # Fatal: the gate's end-to-end tests need them and never skip.
    npm install --prefix "$agents_dir" --no-audit --no-fund --loglevel=error "${agent_pkgs[@]}" \
      || { echo "could not install ${agent_pkgs[*]} from the npm registry; the gate's end-to-end tests need them" >&2; exit 1; }
  fi
fi

echo "==> installing UI packages"
if [ -f ui/package-lock.json ]; then
  npm --prefix ui ci --no-audit --no-fund --loglevel=error
else
  npm --prefix ui install --no-audit --no-fund --loglevel=error
fi
