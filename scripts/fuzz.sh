#!/usr/bin/env bash
# Runs every libFuzzer target for SECONDS each (default 60), two at a time, on seeds made from
# tests/data; new inputs and any crash land in build/fuzz-campaign/<target>/.
#
#   scripts/fuzz.sh            # 60 s per target
#   scripts/fuzz.sh 600        # the 10-minute campaign of docs/fuzzing.md
#   scripts/fuzz.sh 600 fuzz_source fuzz_hook   # some targets only
#
# Builds the `fuzz` preset (clang, ASan+UBSan, -fsanitize=fuzzer) first. Prints one line per
# target (executions, coverage, corpus size, crashes) and exits 1 when any target crashed.
# (--run BIN_DIR TARGET SECONDS is what ctest's smoke tests call, on an already built tree.)
set -euo pipefail
cd "$(dirname "$0")/.."

run_one() {  # BIN_DIR TARGET SECONDS OUT_DIR SEEDS
  local bin=$1 t=$2 secs=$3 out=$4 seeds=$5
  mkdir -p "$out/corpus" "$out/crashes"
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0} "$bin/$t" "$out/corpus" "$seeds/$t" \
    -max_total_time="$secs" -timeout=30 -rss_limit_mb=4096 -max_len=1048576 \
    -artifact_prefix="$out/crashes/" -print_final_stats=1 >"$out/log.txt" 2>&1
  local rc=$?
  local execs cov
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$out/log.txt" | grep -o '[0-9]*$' || echo 0)
  cov=$(grep -o 'cov: [0-9]*' "$out/log.txt" | tail -1 | grep -o '[0-9]*' || echo 0)
  local crashes
  # crash-, timeout-, oom-, leak- files; a slow-unit- file is a report, not a failure
  crashes=$(find "$out/crashes" -type f ! -name 'slow-unit-*' | wc -l)
  printf '%-24s %8s s %10s execs  cov %6s  corpus %5s  crashes %s\n' "$t" "$secs" "${execs:-0}" "${cov:-0}" \
    "$(find "$out/corpus" -type f | wc -l)" "$crashes"
  if ((rc != 0 || crashes > 0)); then
    tail -40 "$out/log.txt" >&2
    return 1
  fi
}

if [[ ${1:-} == --run ]]; then
  bin=$2 t=$3 secs=$4
  out=$(mktemp -d "${TMPDIR:-/tmp}/optrace_$t.XXXXXX")
  trap 'rm -rf "$out"' EXIT
  run_one "$bin" "$t" "$secs" "$out" "$bin/seeds"
  exit $?
fi

secs=${1:-60}
shift || true
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz
bin=build/fuzz/fuzz
cmake --build --preset fuzz --target optrace >/dev/null
python3 fuzz/make_seeds.py "$PWD" "$bin/seeds" build/fuzz/bin/optrace >/dev/null
targets=("$@")
if ((${#targets[@]} == 0)); then
  for f in fuzz/fuzz_*.cc; do targets+=("$(basename "$f" .cc)"); done
fi
fail=0
pids=()
for t in "${targets[@]}"; do
  run_one "$bin" "$t" "$secs" "build/fuzz-campaign/$t" "$bin/seeds" &
  pids+=($!)
  if ((${#pids[@]} >= 2)); then
    wait "${pids[0]}" || fail=1
    pids=("${pids[@]:1}")
  fi
done
for p in "${pids[@]}"; do wait "$p" || fail=1; done
exit $fail
