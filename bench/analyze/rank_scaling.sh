#!/usr/bin/env bash
# `optrace analyze` on cluster-sized roots: 1,000 / 3,000 / 10,000 ranks of one real-shaped step
# each (600 kernel rows, ~0.2 MiB per rank, every rank with its own durations), the smaller roots
# being the first ranks of the largest. Time per rank must stay flat: every cross-rank step is
# O(R log R) or better (issue 29.9). With a second binary, both run back to back on each root.
#
#   bench/analyze/rank_scaling.sh [OPTRACE_BIN=build/release/bin/optrace] [WORK_DIR=/tmp/optrace_ranks] [OTHER_BIN]
#
# Making the 10,000-rank root (2.2 GB) takes about a minute and is kept in WORK_DIR.
set -euo pipefail
bin=$(realpath "${1:-build/release/bin/optrace}")
work=${2:-/tmp/optrace_ranks}
other=${3:-}
here=$(dirname "$(realpath "$0")")
mkdir -p "$work"
if [[ ! -e $work/ranks_10000/.done ]]; then
  rm -rf "$work/ranks_10000"
  /usr/bin/python3 "$here/generate_kernel_details.py" "$work/ranks_10000" 0.01 --ranks 10000 --no-trace-view >/dev/null
  touch "$work/ranks_10000/.done"
fi
for n in 1000 3000; do
  if [[ ! -d $work/ranks_$n ]]; then
    mkdir -p "$work/ranks_$n"
    for ((i = 0; i < n; i++)); do ln -s "$work/ranks_10000/rank${i}_ascend_pt" "$work/ranks_$n/"; done
  fi
done

run() {  # BIN ROOT -> "wall s, RSS MB"
  rm -rf "$work/out"
  /usr/bin/time -f "%e %M" -o "$work/time.txt" "$1" analyze "$2" -o "$work/out" >/dev/null 2>"$work/err.txt" ||
    { cat "$work/err.txt" >&2; exit 1; }
  read -r wall kb <"$work/time.txt"
  echo "$wall s, $((kb / 1024)) MiB"
}

echo "| ranks | optrace | ms per rank |${other:+ other binary |}"
echo "|---|---|---|${other:+---|}"
for n in 1000 3000 10000; do
  line=$(run "$bin" "$work/ranks_$n")
  per=$(awk "BEGIN {printf \"%.2f\", ${line%% s*} * 1000 / $n}")
  echo "| $n | $line | $per |${other:+ $(run "$other" "$work/ranks_$n") |}"
done
