#!/usr/bin/env bash
# Remakes src-tauri/link-order.txt: the functions of the app's binary that
# run from its start to its first idle moment, which the link lays out side
# by side (src-tauri/build.rs says why). Run it after large changes to what
# the app does at start; a stale list costs memory, never correctness.
#
#   scripts/link-order.sh [SECONDS]     (default 150: startup under callgrind)
#
# Needs valgrind, xvfb-run and dbus-run-session (scripts/setup.sh installs
# the last two). Builds the release app, starts it on a fresh profile under
# callgrind, and lists every function of the binary that ran.
set -euo pipefail
cd "$(dirname "$0")/.."
wait_s="${1:-150}"
command -v valgrind >/dev/null || apt-get install -y valgrind
npm --prefix ui run build --silent
cargo build --release --bin bearagent-desktop
bin="$PWD/target/release/bearagent-desktop"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

cat > "$scratch/start.sh" <<EOF
#!/usr/bin/env bash
export HOME="$scratch/home" XDG_DATA_HOME="$scratch/home/data" XDG_CONFIG_HOME="$scratch/home/config" XDG_CACHE_HOME="$scratch/home/cache"
MALLOC_MMAP_THRESHOLD_=131072 MALLOC_ARENA_MAX=1 valgrind --tool=callgrind --demangle=no \
  --callgrind-out-file="$scratch/cg.out" "$bin" > "$scratch/app.log" 2>&1 &
app=\$!
sleep "$wait_s"
callgrind_control -d "\$app" > /dev/null
sleep 5
kill "\$app"
wait "\$app" || true
EOF
chmod +x "$scratch/start.sh"
xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- "$scratch/start.sh"

# Every function callgrind saw in the binary (`ob=` names the object, `fn=`
# the function; both are compressed to "(id) name" on first use, "(id)" after).
python3 - "$bin" "$scratch"/cg.out* > src-tauri/link-order.txt <<'EOF'
import re, sys
binary, outs = sys.argv[1], sys.argv[2:]
found = []
for out in outs:
    names, objects, in_binary = {}, {}, False
    for line in open(out, errors="replace"):
        m = re.match(r"(c?ob|c?fn)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
        if not m:
            continue
        kind, key, name = m.groups()
        table = objects if kind.endswith("ob") else names
        if name:
            table[key] = name
        if kind == "ob":
            in_binary = objects.get(key, "") == binary
        elif kind == "fn" and in_binary:
            fn = names.get(key, "")
            if fn and not fn.startswith(("0x", "(below main)")) and fn not in found:
                found.append(fn)
print("\n".join(found))
EOF
echo "src-tauri/link-order.txt: $(wc -l < src-tauri/link-order.txt) functions"
