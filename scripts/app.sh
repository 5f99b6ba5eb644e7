#!/usr/bin/env bash
# Installs what is missing, builds the UI and launches the BearAgent desktop app.
set -euo pipefail
cd "$(dirname "$0")/.."
BEARAGENT_SKIP_DRIVER=1 bash scripts/setup.sh
npm --prefix ui run build --silent
exec cargo run --release --bin bearagent-desktop
