#!/bin/bash
# What one script evaluation costs WebKit's web process: a blank Tauri
# window (tests/desktop/blank-window, bin eval_probe) is pushed
# PROBE_EVENTS events of PROBE_BYTES each, as one evaluation per event
# (how Tauri's emit delivers an event), in batches of PROBE_BATCH per
# evaluation, or pulled by the page over IPC; PSS of the process tree
# before and 10 s after. The measured reason live updates are batched.
#
#   cargo build --release -p bearagent-blank-window --bin eval_probe
#   xvfb-run -a dbus-run-session -- bash tests/desktop/bench/eval-probe.sh
set -euo pipefail
BIN="${EVAL_PROBE:-$(cd "$(dirname "$0")/../../.." && pwd)/target/release/eval_probe}"
export PROBE_EVENTS="${PROBE_EVENTS:-16000}" PROBE_BYTES="${PROBE_BYTES:-600}" PROBE_BATCH="${PROBE_BATCH:-8}"

tree() { echo "$1"; for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do tree "$c"; done; }
pss() {
  local total=0 line=""
  for p in $(tree "$1"); do
    local kb
    kb=$(awk '/^Pss:/{print $2}' /proc/"$p"/smaps_rollup 2>/dev/null || echo 0)
    line+="$(cat /proc/"$p"/comm 2>/dev/null)=$((kb / 1024)) "
    total=$((total + kb))
  done
  echo "$((total / 1024)) MB ($line)"
}

probe() {
  local out
  out=$(mktemp)
  PROBE_MODE=$1 "$BIN" >"$out" 2>&1 &
  local pid=$!
  until grep -q "PROBE start" "$out"; do sleep 0.2; done
  sleep 1
  local before after
  before=$(pss $pid)
  until grep -q "PROBE done" "$out"; do sleep 0.5; done
  sleep 10
  after=$(pss $pid)
  printf '%-6s before %s\n       after  %s\n' "$1" "$before" "$after"
  kill $pid
  wait $pid 2>/dev/null || true
  rm -f "$out"
}

echo "eval probe: $PROBE_EVENTS events of $PROBE_BYTES bytes (batch $PROBE_BATCH)"
for mode in idle eval batch pull; do probe $mode; done
