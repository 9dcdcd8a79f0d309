#!/usr/bin/env bash
# `optrace analyze` on cluster-sized roots: 1,000 / 3,000 / 10,000 ranks of one real-shaped step
# each (600 kernel rows, ~0.2 MiB per rank, every rank with its own durations), the smaller roots
# being the first ranks of the largest. Time per rank must stay flat: every cross-rank step is
# O(R log R) or better (issue 29.9). With a second binary, both run back to back on each root.
#
# ROWS=N (environment) makes the roots of small ranks instead (N kernel rows each, cut from one
# generated step) at 1,000 / 3,000 / 10,000 / 16,000 ranks: what a rank costs beyond its rows
# (opening, buffers, per-file setup). Issue 53.5: 3-4 ms of CPU per file in normalize alone.
# The table then also gives normalize's own time per rank (from analyze's stage lines).
#
#   [ROWS=2] bench/analyze/rank_scaling.sh [OPTRACE_BIN=build/release/bin/optrace] [WORK_DIR=/tmp/optrace_ranks] [OTHER_BIN]
#
# Making the 10,000-rank root (2.2 GB) takes about a minute and is kept in WORK_DIR.
set -euo pipefail
bin=$(realpath "${1:-build/release/bin/optrace}")
work=${2:-/tmp/optrace_ranks}
other=${3:-}
here=$(dirname "$(realpath "$0")")
mkdir -p "$work"
rows=${ROWS:-}
counts="1000 3000 10000"
if [[ -n $rows ]]; then
  counts="1000 3000 10000 16000"
  work=$work/rows_$rows
  mkdir -p "$work"
  if [[ ! -e $work/ranks_16000/.done ]]; then
    rm -rf "$work/ranks_16000" "$work/one"
    /usr/bin/python3 "$here/generate_kernel_details.py" "$work/one" 0.0007 --ranks 1 --no-trace-view >/dev/null
    /usr/bin/python3 - "$work/one" "$work/ranks_16000" "$rows" <<'PY'
import os, sys
src, out, rows = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(os.path.join(src, "rank0_ascend_pt", "ASCEND_PROFILER_OUTPUT", "kernel_details.csv"), newline="") as f:
    lines = f.readlines()[: rows + 1]
with open(os.path.join(src, "rank0_ascend_pt", "profiler_info_0.json")) as f:
    info = f.read()
for r in range(16000):
    d = os.path.join(out, "rank%d_ascend_pt" % r)
    os.makedirs(os.path.join(d, "ASCEND_PROFILER_OUTPUT"))
    with open(os.path.join(d, "ASCEND_PROFILER_OUTPUT", "kernel_details.csv"), "w", newline="") as f:
        f.writelines(lines)
    with open(os.path.join(d, "profiler_info_%d.json" % r), "w") as f:
        f.write(info.replace('"rank_id": 0', '"rank_id": %d' % r))
PY
    touch "$work/ranks_16000/.done"
  fi
  for n in 1000 3000 10000; do
    if [[ ! -d $work/ranks_$n ]]; then
      mkdir -p "$work/ranks_$n"
      for ((i = 0; i < n; i++)); do ln -s "$work/ranks_16000/rank${i}_ascend_pt" "$work/ranks_$n/"; done
    fi
  done
elif [[ ! -e $work/ranks_10000/.done ]]; then
  rm -rf "$work/ranks_10000"
  /usr/bin/python3 "$here/generate_kernel_details.py" "$work/ranks_10000" 0.01 --ranks 10000 --no-trace-view >/dev/null
  touch "$work/ranks_10000/.done"
fi
for n in 1000 3000; do
  if [[ -z $rows && ! -d $work/ranks_$n ]]; then
    mkdir -p "$work/ranks_$n"
    for ((i = 0; i < n; i++)); do ln -s "$work/ranks_10000/rank${i}_ascend_pt" "$work/ranks_$n/"; done
  fi
done

run() {  # BIN ROOT RANKS -> "wall s, RSS MB, ms per rank (normalize: ms per rank)"
  rm -rf "$work/out"
  /usr/bin/time -f "%e %M" -o "$work/time.txt" "$1" analyze "$2" -o "$work/out" >/dev/null 2>"$work/err.txt" ||
    { cat "$work/err.txt" >&2; exit 1; }
  read -r wall kb <"$work/time.txt"
  norm=$(awk '$2 == "normalize" {print $4}' "$work/err.txt")
  awk -v w="$wall" -v kb="$kb" -v n="$3" -v s="${norm:-0}" \
    'BEGIN {printf "%s s, %d MiB, %.3f ms per rank (normalize %.3f)", w, kb / 1024, w * 1000 / n, s * 1000 / n}'
}

echo "| ranks${rows:+ ($rows rows each)} | optrace |${other:+ other binary |}"
echo "|---|---|${other:+---|}"
for n in $counts; do
  echo "| $n | $(run "$bin" "$work/ranks_$n" "$n") |${other:+ $(run "$other" "$work/ranks_$n" "$n") |}"
done
