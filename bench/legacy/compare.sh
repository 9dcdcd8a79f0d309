#!/usr/bin/env bash
# Side-by-side: optrace collect vs the Python reference collector on the legacy benchmark set
# (16 ranks x 72 cores x ~400 records, ~470k records, ~30 MB of .pt). Wall time and peak RSS
# from /usr/bin/time -v; results go to stdout as Markdown tables (paste into bench/collect.md): the
# two collectors, then the floor (start + read the dumps + write the trace's bytes, no decoding).
#
#   bench/legacy/compare.sh [OPTRACE_BINARY] [WORK_DIR] [RANKS=16]
#   default binary: build/release/bin/optrace, else build/dev/bin/optrace
# RANKS=64 makes the 4x set (64 ranks, ~912k intervals). The reference reads the dumps with
# torch.load, as the seed's collector does, when python3-torch is installed (else with numpy:
# faster than the seed; the table says which).
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
ranks=${3:-16}
set_dir=$work/set_$ranks
last=$(printf 'rank%03d.pt' $((ranks - 1)))
if [[ ! -f $set_dir/$last ]]; then
  $py "$here/generate_legacy_set.py" --out "$set_dir" --ranks "$ranks" >&2
fi
loader=numpy
/usr/bin/python3 -c "import torch" 2>/dev/null && { loader=torch; py=/usr/bin/python3; }
echo "reference loader: $loader; $ranks ranks" >&2
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
      --point-map "$set_dir/point_map.json" -o "$work/ref_$mode.json" --extra-mode "$mode" --loader "$loader")
  # optrace: the median of OPT_RUNS (default 9) runs; its times are ~100x shorter than the reference's.
  opt_runs=()
  for ((i = 0; i < ${OPT_RUNS:-9}; i++)); do
    opt_runs+=("$(measure "optrace_$mode" "$bin" collect "$set_dir" --map "$set_dir/point_map.json" \
      -o "$work/optrace_$mode.json" --extra-mode "$mode" --stats "$work/optrace_$mode.stats.json")")
  done
  opt_wall=$(printf '%s\n' "${opt_runs[@]}" | awk '{print $1}' | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
  opt_cpu=$(printf '%s\n' "${opt_runs[@]}" | awk '{print $2}' | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
  opt_rss=$(printf '%s\n' "${opt_runs[@]}" | awk '{print $3}' | sort -g | tail -1)
  ref_n=$($py -c "import json,sys; print(len(json.load(open(sys.argv[1]))['traceEvents']))" "$work/ref_$mode.json")
  opt_n=$($py -c "import json,sys; print(sum(1 for e in json.load(open(sys.argv[1]))['traceEvents'] if e['ph']=='X'))" "$work/optrace_$mode.json")
  rss_ratio=$($py -c "import sys; a, b = map(float, sys.argv[1:]); print(f'{a / b:.3f}')" "$opt_rss" "$ref_rss")
  [[ $mode == seq ]] && ref_cpu_seq=$ref_cpu
  echo "| $mode ($ranks ranks, reference via $loader) | ${ref_wall} s | ${ref_cpu} s | ${ref_rss} MB | ${opt_wall} s | ${opt_cpu} s | ${opt_rss} MB | $(ratio "$ref_wall" "$opt_wall") | $(ratio "$ref_cpu" "$opt_cpu") | $rss_ratio | $ref_n / $opt_n |"
done

# The floor: what any collector that reads these dumps and writes a trace of this size pays before
# it decodes or formats anything: the process start (optrace --version), reading the dumps (cat >
# /dev/null) and writing as many bytes as the trace over the last run's file, 256 KiB at a time as
# collect does (dd if=/dev/zero). Each is timed over 20 runs in one shell loop (time -v's CPU has
# 10 ms steps), less the same loop doing nothing (cat of no file, dd of 0 bytes), per run; the
# median of 5 loops. The reference's CPU over this sum is the largest CPU ratio a collector
# writing this trace can reach on this machine.
loop_cpu() {  # name, shell loop body -> cpu seconds per run
  measure "$1" sh -c "for i in \$(seq 20); do $2; done" | awk '{printf "%.4f", $2 / 20}'
}
floor_part() {  # name, body, empty body -> median over 5 loops of (body - empty) per run
  local runs=()
  for ((k = 0; k < 5; k++)); do
    runs+=("$($py -c "import sys; print(f'{max(float(sys.argv[1]) - float(sys.argv[2]), 0):.4f}')" \
      "$(loop_cpu "$1" "$2")" "$(loop_cpu "$1_empty" "$3")")")
  done
  printf '%s\n' "${runs[@]}" | sort -g | sed -n 3p
}
trace_bytes=$(stat -c %s "$work/optrace_seq.json")
start_cpu=$(floor_part floor_start "'$bin' --version > /dev/null" "true")
read_cpu=$(floor_part floor_read "cat '$set_dir'/*.pt > /dev/null" "cat /dev/null > /dev/null")
write_cpu=$(floor_part floor_write "dd if=/dev/zero of='$work/floor.bin' bs=256K iflag=count_bytes count=$trace_bytes status=none" \
  "dd if=/dev/zero of='$work/floor.bin' bs=256K count=0 status=none")
rm -f "$work/floor.bin"
floor=$($py -c "import sys; print(f'{sum(map(float, sys.argv[1:])):.4f}')" "$start_cpu" "$read_cpu" "$write_cpu")
echo
echo "| floor ($ranks ranks) | process start | read the dumps | write $trace_bytes bytes | sum | reference cpu (seq) / floor |"
echo "|---|---|---|---|---|---|"
echo "| CPU s per run (median of 5 loops of 20) | $start_cpu | $read_cpu | $write_cpu | $floor | $(ratio "$ref_cpu_seq" "$floor") |"
echo "work dir: $work" >&2
