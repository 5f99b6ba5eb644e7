#!/usr/bin/env bash
# Checks the floor plan alone (DESIGN.md principle 15): reads house.toml at
# the repository root and the sources, prints a summary (circles per crate,
# the longest function, the largest files, the debt listed) and exits
# non-zero naming each breach: a file-import circle, an import against the
# floors or the crate direction, a production function over 80 lines or
# file over 500, `impl Application` outside runtime/src/app/, a hand-written
# file in the UI mock — unless house.toml lists it as debt — and any listed
# debt that no longer occurs or has grown. `cargo test` runs the same check
# (src-tauri/crates/house/tests/repository.rs).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
exec cargo run -q --locked -p bearagent-house -- check "$root"
