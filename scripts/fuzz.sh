#!/usr/bin/env bash
# Fuzzes the untrusted-input parsers with cargo-fuzz (libFuzzer):
#   providers: the three SSE stream decoders and the JSON-text reply parser
#   tools:     `prepare` (argument parsing + workspace confinement) of each
#              workspace tool
# Not run by CI: it needs a nightly toolchain and takes a while. At the
# default 10 million executions per target, each target takes 3 to 25
# minutes on one busy core (7 000 to 50 000 exec/s). FUZZ_ARGS=
# -max_total_time=3600 stops a target after an hour (the corpus grows from
# run to run, so runs add up).
#
# Usage: scripts/fuzz.sh [TARGET...]        (no TARGET = all nine)
# Environment:
#   RUNS=10000000      executions per target (libFuzzer -runs=)
#   SANITIZER=none     cargo-fuzz -s: none (default) or address. The fuzzed
#                      crates forbid `unsafe`, so ASan would find little
#                      here and mostly cost speed; panics, failed
#                      assertions, overflow checks (debug assertions are on)
#                      and timeouts are caught either way.
#   TIMEOUT=60         seconds one input may take before it counts as a hang
#   MAX_LEN            libFuzzer -max_len; default 8192 for the decoders (the
#                      longest recording, 47 KB, would otherwise set it and
#                      cut the exec rate several times; the four recordings
#                      over 8 KB are seeded cut to 8 KB, the others whole),
#                      libFuzzer's own choice (4096 here) for the others
#   FUZZ_ARGS=         extra libFuzzer flags, e.g. "-max_total_time=3600"
#   CARGO_TARGET_DIR   build directory (default: each fuzz crate's target/)
# Each run grows its corpus in <fuzz crate>/corpus/<target> (seeded from the
# provider recordings or seeds/<target>.jsonl) and logs to
# <fuzz crate>/logs/<target>.log; a crash is saved in
# <fuzz crate>/artifacts/<target>/. All three are git-ignored.
# Prints executions, corpus size and wall time per target; exits non-zero if
# any target crashed (the other targets still run).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

providers=src-tauri/crates/providers/fuzz
tools=src-tauri/crates/tools/fuzz
recordings=tests/fixtures/provider-recordings
declare -A crate_of=(
  [openai_chat_stream]=$providers
  [openai_responses_stream]=$providers
  [anthropic_stream]=$providers
  [json_text_reply]=$providers
  [list_dir_prepare]=$tools
  [read_file_prepare]=$tools
  [search_text_prepare]=$tools
  [write_file_prepare]=$tools
  [edit_file_prepare]=$tools
)
# Decoder targets are seeded from these recording folders.
declare -A recordings_of=(
  [openai_chat_stream]=chat
  [openai_responses_stream]=responses
  [anthropic_stream]=messages
)
all=(openai_chat_stream openai_responses_stream anthropic_stream json_text_reply
  list_dir_prepare read_file_prepare search_text_prepare write_file_prepare edit_file_prepare)

runs=${RUNS:-10000000}
sanitizer=${SANITIZER:-none}
timeout=${TIMEOUT:-60}
read -r -a extra <<<"${FUZZ_ARGS:-}"

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
for t in "${targets[@]}"; do
  if [ -z "${crate_of[$t]:-}" ]; then
    echo "unknown target $t; targets: ${all[*]}" >&2
    exit 2
  fi
done

# Toolchain: nightly (libFuzzer's instrumentation flags) and cargo-fuzz,
# installed only if missing.
if ! rustup toolchain list | grep -q '^nightly'; then
  rustup toolchain install nightly --profile minimal
fi
if ! command -v cargo-fuzz >/dev/null; then
  cargo install cargo-fuzz --locked
fi

fuzz_opts=(--sanitizer "$sanitizer")
if [ -n "${CARGO_TARGET_DIR:-}" ]; then
  fuzz_opts+=(--target-dir "$CARGO_TARGET_DIR")
fi

# The tools targets build their workspace fixture in $TMPDIR; libFuzzer
# exits without running destructors, so give them a scratch dir to clean.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# Build every crate involved first, so the timings below are fuzzing only.
declare -A built=()
for t in "${targets[@]}"; do
  crate=${crate_of[$t]}
  if [ -z "${built[$crate]:-}" ]; then
    echo "==> building $crate"
    cargo +nightly fuzz build --fuzz-dir "$crate" "${fuzz_opts[@]}"
    built[$crate]=1
  fi
done

seed() {
  local t=$1 crate=$2 corpus=$3 f i=0 line
  if [ -n "${recordings_of[$t]:-}" ]; then
    # A leading 0 byte = no chunk cuts: the recording as one chunk.
    for f in "$recordings/${recordings_of[$t]}"/*.sse; do
      { printf '\0'; cat "$f"; } >"$corpus/seed-$(basename "$f")"
    done
  fi
  if [ -f "$crate/seeds/$t.jsonl" ]; then
    while IFS= read -r line || [ -n "$line" ]; do
      i=$((i + 1))
      [ -n "$line" ] && printf '%s' "$line" >"$corpus/seed-$i.json"
    done <"$crate/seeds/$t.jsonl"
  fi
}

results=()
failed=0
for t in "${targets[@]}"; do
  crate=${crate_of[$t]}
  corpus=$crate/corpus/$t
  artifacts=$crate/artifacts/$t
  log=$crate/logs/$t.log
  mkdir -p "$corpus" "$artifacts" "$crate/logs"
  seed "$t" "$crate" "$corpus"
  max_len=()
  if [ -n "${MAX_LEN:-}" ]; then
    max_len=(-max_len="$MAX_LEN")
  elif [ -n "${recordings_of[$t]:-}" ]; then
    max_len=(-max_len=8192)
  fi
  echo "==> fuzzing $t: $runs runs (log: $log)"
  start=$(date +%s)
  status=0
  TMPDIR=$scratch cargo +nightly fuzz run --fuzz-dir "$crate" "${fuzz_opts[@]}" "$t" "$corpus" -- \
    -runs="$runs" -timeout="$timeout" -print_final_stats=1 \
    -artifact_prefix="$repo/$artifacts/" "${max_len[@]}" "${extra[@]}" >"$log" 2>&1 || status=$?
  secs=$(($(date +%s) - start))
  done_runs=$(grep -o 'Done [0-9]* runs' "$log" | tail -n 1 | cut -d' ' -f2 || true)
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | tail -n 1 | grep -o '[0-9]*$' || true)
  files=$(find "$corpus" -type f | wc -l)
  bytes=$(find "$corpus" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}')
  if [ "$status" -eq 0 ]; then
    verdict=ok
  else
    verdict="CRASH (exit $status)"
    failed=1
    tail -n 40 "$log" >&2
  fi
  line=$(printf '%-24s %12s %9s %8s %12s %7ss  %s' "$t" "${done_runs:-?}" "${rate:-?}" "$files" "$bytes" "$secs" "$verdict")
  echo "$line"
  results+=("$line")
done

echo
printf '%-24s %12s %9s %8s %12s %8s  %s\n' target executions exec/s files bytes time result
printf '%s\n' "${results[@]}"
exit "$failed"
