#!/usr/bin/env bash
# Installs what is missing, builds the UI and launches the BearAgent desktop app.
set -euo pipefail
cd "$(dirname "$0")/.."
BEARAGENT_SKIP_DRIVER=1 bash scripts/setup.sh
npm --prefix ui run build --silent
# As the desktop entry starts it (src-tauri/src/webkit_env.rs says why).
MALLOC_MMAP_THRESHOLD_=131072 MALLOC_ARENA_MAX=1 exec cargo run --release --bin bearagent-desktop
