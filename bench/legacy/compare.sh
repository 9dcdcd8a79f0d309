#!/usr/bin/env bash
# Side-by-side: optrace collect vs the Python reference collector on the legacy benchmark set
# (16 ranks x 72 cores x ~400 records, ~470k records, ~30 MB of .pt). Wall time and peak RSS
# from /usr/bin/time -v; results go to stdout as a Markdown table (paste into bench/collect.md).
#
#   bench/legacy/compare.sh [OPTRACE_BINARY] [WORK_DIR]
#   default binary: build/release/bin/optrace, else build/dev/bin/optrace
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${1:-}
if [[ -z $bin ]]; then
  for b in "$root/build/release/bin/optrace" "$root/build/dev/bin/optrace"; do
    [[ -x $b ]] && { bin=$b; break; }
  done
fi
[[ -x ${bin:-} ]] || { echo "compare.sh: no optrace binary; build it or pass its path" >&2; exit 2; }
work=${2:-$(mktemp -d /tmp/optrace-legacy-bench.XXXXXX)}
py=python3
$py -c "import numpy" 2>/dev/null || py=/usr/bin/python3
set_dir=$work/set
if [[ ! -f $set_dir/rank015.pt ]]; then
  $py "$here/generate_legacy_set.py" --out "$set_dir" >&2
fi
du -sh "$set_dir" >&2

measure() {  # name, command... -> "wall_s cpu_s rss_mb" (cpu = user + sys: steady on a busy machine)
  local log=$work/$1.time
  shift
  /usr/bin/time -v "$@" > "$log.out" 2> "$log"
  local wall cpu rss
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$log" | awk -F: '{ if (NF==3) print $1*3600+$2*60+$3; else print $1*60+$2 }')
  cpu=$(awk -F': ' '/User time|System time/ {s += $2} END {printf "%.2f", s}' "$log")
  rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.1f", $2/1024}' "$log")
  echo "$wall $cpu $rss"
}

ratio() { $py -c "import sys; a, b = map(float, sys.argv[1:]); print(f'{a / max(b, 1e-3):.1f}x')" "$1" "$2"; }

echo "| mode | reference wall | reference cpu | reference RSS | optrace wall | optrace cpu | optrace RSS | wall ratio | cpu ratio | RSS ratio | intervals (ref / optrace) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for mode in seq legacy; do
  read -r ref_wall ref_cpu ref_rss < <(measure "ref_$mode" $py "$here/reference_collector.py" "$set_dir" \
      --point-map "$set_dir/point_map.json" -o "$work/ref_$mode.json" --extra-mode "$mode")
  read -r opt_wall opt_cpu opt_rss < <(measure "optrace_$mode" "$bin" collect "$set_dir" --map "$set_dir/point_map.json" \
      -o "$work/optrace_$mode.json" --extra-mode "$mode" --stats "$work/optrace_$mode.stats.json")
  ref_n=$($py -c "import json,sys; print(len(json.load(open(sys.argv[1]))['traceEvents']))" "$work/ref_$mode.json")
  opt_n=$($py -c "import json,sys; print(sum(1 for e in json.load(open(sys.argv[1]))['traceEvents'] if e['ph']=='X'))" "$work/optrace_$mode.json")
  rss_ratio=$($py -c "import sys; a, b = map(float, sys.argv[1:]); print(f'{a / b:.3f}')" "$opt_rss" "$ref_rss")
  echo "| $mode | ${ref_wall} s | ${ref_cpu} s | ${ref_rss} MB | ${opt_wall} s | ${opt_cpu} s | ${opt_rss} MB | $(ratio "$ref_wall" "$opt_wall") | $(ratio "$ref_cpu" "$opt_cpu") | $rss_ratio | $ref_n / $opt_n |"
done
echo "work dir: $work" >&2
