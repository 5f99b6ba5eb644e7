#!/usr/bin/env bash
# Installs what is missing and runs every BearAgent test: formatting, lints,
# Rust unit/integration tests (including the bindings drift check), UI type
# check and unit tests, the UI flow test in headless Chromium, and the
# end-to-end test of the real app under Xvfb through tauri-driver.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_AT_START=$SECONDS
bash scripts/setup.sh

# Each step's time, printed at the end (the whole run must stay within CI's
# budget on a fresh 2-core machine).
timings=()
step_name="setup (scripts/setup.sh)"
step_start=$SECONDS_AT_START
step_done() { timings+=("$(printf '%5ds  %s' $((SECONDS - step_start)) "$step_name")"); }
step() {
  step_done
  step_name="$*"
  step_start=$SECONDS
  printf '\n==> %s\n' "$*"
}

# Tests must not touch the user's real data or keychain.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export BEARAGENT_HOME="$scratch/bearagent-home"
export XDG_RUNTIME_DIR="$scratch/runtime"
mkdir -p -m 700 "$XDG_RUNTIME_DIR"

step "rustfmt"
cargo fmt --all -- --check

step "UI: type check, unit tests, build (the app embeds ui/dist)"
npm --prefix ui run check
npm --prefix ui test
npm --prefix ui run build

step "clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "floor plan (house.toml; cargo test runs it too)"
bash scripts/house.sh

step "cargo test --workspace (includes the bindings drift check; real OS keychain via gnome-keyring)"
# A private HOME keeps the test keyring away from the user's; cargo and
# rustup keep their real homes.
export RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}" CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}"
mkdir -p -m 700 "$scratch/home"
HOME="$scratch/home" BEARAGENT_REQUIRE_KEYCHAIN=1 dbus-run-session -- bash -c \
  'eval "$(printf pw | gnome-keyring-daemon --unlock --components=secrets)" >/dev/null; export SSH_AUTH_SOCK GNOME_KEYRING_CONTROL; cargo test --workspace --locked'

step "UI flow test in headless Chromium (mocked IPC)"
npm --prefix ui run test:ui

step "desktop end-to-end: the real app under Xvfb via tauri-driver + WebKitWebDriver"
# The CLI too: one desktop test runs it beside the app on the same data folder.
cargo build --locked --bin bearagent-desktop
cargo build --locked -p bearagent-cli --bin bearagent
xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- npm --prefix tests/desktop test

step "ACP: the official client SDK (@agentclientprotocol/sdk) drives bearagent acp"
npm --prefix tests/acp test

step "core crates do not link Tauri or WebKit"
for crate in bearagent-kernel bearagent-store bearagent-tools bearagent-providers bearagent-mcp bearagent-runtime bearagent-cli; do
  if cargo tree -p "$crate" -e normal --prefix none | grep -Eiq '^(tauri|wry|webkit2gtk)'; then
    echo "$crate depends on tauri/webkit" >&2
    exit 1
  fi
done

step_done
echo
echo "time per step:"
printf '%s\n' "${timings[@]}"
printf '%5ds  total\n' "$SECONDS"
echo "all BearAgent tests passed"
