#!/usr/bin/env bash
# Interleaved runs of two builds of one Google Benchmark binary (e.g. before and after a change);
# prints each benchmark's minimum CPU time and the ratio new/old. The minimum of interleaved runs
# is the stable figure on a shared VM.
#   bench/compare_bench.sh OLD_BINARY NEW_BINARY [FILTER] [ROUNDS]
set -euo pipefail
old=$1 new=$2 filter=${3:-.} rounds=${4:-5}
for ((i = 0; i < rounds; ++i)); do
  for side in old new; do
    bin=$old; [[ $side == new ]] && bin=$new
    "$bin" --benchmark_filter="$filter" --benchmark_repetitions=3 --benchmark_format=csv 2>/dev/null |
      grep -v '_mean\|_median\|_stddev\|_cv\|^name' | sed "s/^/$side,/"
  done
done | python3 -c '
import collections, sys
best = collections.defaultdict(lambda: float("inf"))
for line in sys.stdin:
    f = line.strip().split(",")
    if len(f) > 4:
        best[(f[0], f[1].strip("\""))] = min(best[(f[0], f[1].strip("\""))], float(f[4]))
for name in sorted({n for _, n in best}):
    o, n = best[("old", name)], best[("new", name)]
    print(f"{name}: old {o:.1f} ms, new {n:.1f} ms, ratio {n / o:.2f}")
'
