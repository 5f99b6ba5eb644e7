#!/usr/bin/env bash
# Installs what BearAgent needs on Debian/Ubuntu and is not there yet:
# system packages, tauri-driver, and the npm dependencies of ui/,
# tests/desktop and tests/mcp (the reference MCP server that the
# bearagent-mcp tests talk to). Safe to run again; it skips what is
# already installed.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  libwebkit2gtk-4.1-dev libgtk-3-dev librsvg2-dev libayatana-appindicator3-dev
  libssl-dev libxdo-dev pkg-config build-essential file curl
  xvfb xauth dbus dbus-x11 webkit2gtk-driver chromium
  gnome-keyring libsecret-tools at-spi2-core imagemagick fonts-dejavu-core
  bubblewrap
  # the desktop tests answer the native save dialog with it (WebDriver cannot)
  xdotool
  # the command-sandbox tests run these inside the sandbox
  python3 procps util-linux
)
TAURI_DRIVER_VERSION=2.1.0

log() { printf '\n==> %s\n' "$*"; }

sudo_cmd() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing system packages: ${missing[*]}"
  sudo_cmd apt-get update -qq
  sudo_cmd env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if ! command -v cargo >/dev/null; then
  echo "cargo not found: install Rust (https://rustup.rs) and run this again" >&2
  exit 1
fi
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  log "installing Node.js and npm"
  sudo_cmd env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs npm
fi

if [ "${BEARAGENT_SKIP_DRIVER:-0}" != 1 ]; then
  if ! tauri-driver --help >/dev/null 2>&1 || ! grep -q "$TAURI_DRIVER_VERSION" <(cargo install --list 2>/dev/null | grep '^tauri-driver'); then
    log "installing tauri-driver $TAURI_DRIVER_VERSION"
    cargo install tauri-driver --version "$TAURI_DRIVER_VERSION" --locked --quiet
  fi
fi

npm_ci() {
  # npm ci is exact and fast; skip it when node_modules matches the lockfile.
  local dir=$1
  if [ ! -f "$dir/node_modules/.package-lock.json" ] || ! cmp -s "$dir/package-lock.json" "$dir/node_modules/.bearagent-lock"; then
    log "npm ci in $dir"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
    cp "$dir/package-lock.json" "$dir/node_modules/.bearagent-lock"
  fi
}
npm_ci ui
npm_ci tests/desktop
npm_ci tests/mcp
npm_ci tests/acp
