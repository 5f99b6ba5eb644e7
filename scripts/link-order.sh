#!/usr/bin/env bash
# Remakes src-tauri/link-order.txt: the functions of the app's binary that
# run from its start to its first idle moment, then those a run adds (a
# scripted run of the CLI, which shares the runtime crates), which the link
# lays out side by side (src-tauri/build.rs says why). Run it after large changes to what
# the app does at start; a stale list costs memory, never correctness.
#
#   scripts/link-order.sh [SECONDS]     (default 150: startup under callgrind)
#
# Needs valgrind, xvfb-run and dbus-run-session (scripts/setup.sh installs
# the last two). Builds the release app, starts it on a fresh profile under
# callgrind, and lists every function of the binary that ran. It does so
# twice: for the app's own build (scripts/app.sh) and for the benches' build
# of three packages, whose feature sets differ, and so do some symbol names.
set -euo pipefail
cd "$(dirname "$0")/.."
wait_s="${1:-150}"
command -v valgrind >/dev/null || apt-get install -y valgrind
npm --prefix ui run build --silent
bin="$PWD/target/release/bearagent-desktop"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

# Starts the built app under callgrind on a fresh profile; its profile
# lands in $scratch/$1.
profile_startup() {
  local out="$scratch/$1"
  mkdir -p "$out"
  cat > "$scratch/start.sh" <<EOF
#!/usr/bin/env bash
home="$scratch/home"
rm -rf "\$home"
export HOME="\$home" XDG_DATA_HOME="\$home/data" XDG_CONFIG_HOME="\$home/config" XDG_CACHE_HOME="\$home/cache"
MALLOC_MMAP_THRESHOLD_=131072 MALLOC_ARENA_MAX=1 valgrind --tool=callgrind --demangle=no \\
  --callgrind-out-file="$out/cg.out" "$bin" > "$out/app.log" 2>&1 &
app=\$!
sleep "$wait_s"
callgrind_control -d "\$app" > /dev/null
sleep 5
kill "\$app"
wait "\$app" || true
EOF
  chmod +x "$scratch/start.sh"
  xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- "$scratch/start.sh"
}

cargo build --release --bin bearagent-desktop
profile_startup app
cargo build --release -p bearagent-desktop -p bearagent-blank-window -p bearagent-cli
profile_startup benches

# A run's code: 20 read_file steps and an answer, scripted, in the CLI
# built with the benches' packages (its runtime crates are the app's).
mkdir -p "$scratch/run/ws" "$scratch/run/home"
printf 'a line of text\n%.0s' {1..64} > "$scratch/run/ws/a.txt"
python3 -c 'import json, sys
step = {"tool_call": {"tool_name": "read_file", "arguments": {"path": "a.txt"}}, "usage": {"input": 100, "output": 10}}
json.dump([step] * 20 + [{"final_answer": "done", "usage": {"input": 100, "output": 10}}], sys.stdout)' > "$scratch/run/script.json"
HOME="$scratch/run/home" XDG_DATA_HOME="$scratch/run/home/data" XDG_CONFIG_HOME="$scratch/run/home/config" \
  valgrind --tool=callgrind --demangle=no --callgrind-out-file="$scratch/run/cg.out" \
  "$PWD/target/release/bearagent" run -w "$scratch/run/ws" --script "$scratch/run/script.json" --approve all "read a.txt" \
  > "$scratch/run/cli.log" 2>&1
python3 "$(dirname "$0")/link-order.py" "$PWD/target/release/bearagent" "$scratch"/run/cg.out* > "$scratch/run/functions.txt"

python3 "$(dirname "$0")/link-order.py" "$bin" "$scratch"/app/cg.out* "$scratch"/benches/cg.out* \
  | cat - "$scratch/run/functions.txt" | awk 'NF && !seen[$0]++' > src-tauri/link-order.txt
echo "src-tauri/link-order.txt: $(wc -l < src-tauri/link-order.txt) functions"
