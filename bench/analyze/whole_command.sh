#!/usr/bin/env bash
# The whole `optrace analyze` command against `wc -l` and pandas on the same files, in the same run:
# ratios carry over between machines, absolute times do not.
#
#   bench/analyze/whole_command.sh [OPTRACE_BIN=build/release/bin/optrace] [WORK_DIR=/tmp/optrace_bench] [RUNS=5]
#
# Inputs (made once, kept in WORK_DIR): one rank with a 300 MiB kernel_details.csv from the default
# generator (46 columns) and one from its --dense variant (49 columns, ~3,200 rows per MB: short
# vector kernels, Device_id, the aic_mte3 PMU pair); roots of 16, 32 and 64 ranks x 5 MiB; a
# 300k-task torch_npu db. Every command runs RUNS times with its file in the page cache; rows give
# the median wall time with min..max, the median CPU time (user + sys) and the largest peak RSS
# (of up to 3 more runs).
# pandas (python3-pandas, bench only) reads and groups the single-rank files (pandas_baseline.py).
# Prints Markdown tables.
set -euo pipefail
bin=$(realpath "${1:-build/release/bin/optrace}")
work=${2:-/tmp/optrace_bench}
runs=${3:-5}
here=$(dirname "$(realpath "$0")")
py=/usr/bin/python3
mkdir -p "$work"

make_input() {  # DIR ARGS...
  local dir=$1
  shift
  [[ -e $dir/.done ]] && return
  rm -rf "$dir"
  "$py" "$here/generate_kernel_details.py" "$dir" "$@" >/dev/null
  touch "$dir/.done"
}
make_input "$work/kd_300" 300 --no-trace-view
make_input "$work/kd_dense" 300 --no-trace-view --dense
make_input "$work/ranks_64" 5 --ranks 64 --no-trace-view
for n in 16 32; do
  if [[ ! -d $work/ranks_$n ]]; then
    mkdir -p "$work/ranks_$n"
    for ((i = 0; i < n; i++)); do ln -s "$work/ranks_64/rank${i}_ascend_pt" "$work/ranks_$n/"; done
  fi
done
if [[ ! -e $work/db_300k/.done ]]; then
  rm -rf "$work/db_300k"
  "$py" "$here/generate_torch_db.py" "$work/db_300k" 300000 >/dev/null
  touch "$work/db_300k/.done"
fi

input_bytes() {  # ROOT -> bytes of its kernel exports
  find -L "$1" \( -name 'kernel_details.csv' -o -name '*.db' \) -printf '%s\n' | awk '{s += $1} END {print s}'
}

# The children's user + sys seconds in a `times` snapshot FILE (millisecond resolution).
children_cpu() {
  awk 'NR == 2 {
    n = split($1 " " $2, t, " "); s = 0
    for (i = 1; i <= n; i++) { split(t[i], p, "m"); sub("s", "", p[2]); s += p[1] * 60 + p[2] }
    print s }' "$1"
}

# measure [--stage-peaks] CMD... : runs CMD $runs times; sets wall_med wall_min wall_max cpu_med
# rss_max (MB). Wall and CPU come from runs started straight from this shell (the microsecond
# clock around them, `times` before and after): wrapped in time(1), every run would carry its
# extra fork and exec, ~5 ms here, a tenth of `wc -l`, and time(1) rounds to 10 ms. Peak RSS comes
# from separate runs under time(1); with --stage-peaks (optrace analyze) those runs add
# `--progress json` and the largest stage peak counts too: analyze resets the kernel's high-water
# mark before each stage (for the per-stage peaks), so time(1)'s maximum can miss a stage's peak
# (kd_dense: 134 MB by time(1), 151 MB in normalize).
measure() {
  local stage_peaks=0
  if [[ $1 == --stage-peaks ]]; then
    stage_peaks=1
    shift
  fi
  local walls=() cpus=() rss=0
  for ((r = 0; r < runs; r++)); do
    rm -rf "$work/out"
    local t0 t1
    # `times` in this shell, nothing else started in between: a $(...) subshell would see only
    # its own children, and each awk would count in the next snapshot.
    times >"$work/times0.txt"
    t0=$EPOCHREALTIME
    "$@" >"$work/stdout.txt" 2>"$work/err.txt" || { cat "$work/err.txt" >&2; exit 1; }
    t1=$EPOCHREALTIME
    times >"$work/times1.txt"
    walls+=("$(awk "BEGIN {printf \"%.4f\", $t1 - $t0}")")
    cpus+=("$(awk "BEGIN {printf \"%.3f\", $(children_cpu "$work/times1.txt") - $(children_cpu "$work/times0.txt")}")")
  done
  for ((r = 0; r < (runs < 3 ? runs : 3); r++)); do
    rm -rf "$work/out"
    local extra=()
    ((stage_peaks)) && extra=(--progress json)
    /usr/bin/time -f "%M" -o "$work/time.txt" "$@" "${extra[@]}" >"$work/stdout.txt" 2>"$work/err.txt" ||
      { cat "$work/err.txt" >&2; exit 1; }
    local kb stage_kb
    read -r kb <"$work/time.txt"
    ((kb > rss)) && rss=$kb
    if ((stage_peaks)); then  # MB (10^6 bytes) back to KiB
      stage_kb=$(grep -o '"peak_rss_mb":[0-9.]*' "$work/err.txt" | cut -d: -f2 |
        awk '{if ($1 > m) m = $1} END {printf "%.0f", m * 1e6 / 1024}')
      ((stage_kb > rss)) && rss=$stage_kb
    fi
  done
  read -r wall_med wall_min wall_max < <(printf '%s\n' "${walls[@]}" | sort -g |
    awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)], v[1], v[NR]}')
  cpu_med=$(printf '%s\n' "${cpus[@]}" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
  rss_max=$(awk "BEGIN {printf \"%.0f\", $rss * 1024 / 1e6}")
}

echo "Whole command, median of $runs runs (min..max), same machine, same run:"
echo
echo "| input | MB | wc -l | optrace analyze | CPU | peak RSS | RSS / input | analyze / wc -l | pandas | pandas RSS | pandas / analyze |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for name in kd_300 kd_dense; do
  csv=$work/$name/kernel_details.csv
  bytes=$(stat -c %s "$csv")
  mb=$(awk "BEGIN {printf \"%.0f\", $bytes / 1e6}")
  measure wc -l "$csv"
  wc_med=$wall_med
  measure --stage-peaks "$bin" analyze "$work/$name" -o "$work/out"
  a_med=$wall_med a_min=$wall_min a_max=$wall_max a_cpu=$cpu_med a_rss=$rss_max
  p_cell="(python3-pandas not installed)" p_rss="-" p_ratio="-"
  if "$py" -c "import pandas" 2>/dev/null; then
    measure "$py" "$here/pandas_baseline.py" "$csv"
    p_cell="$wall_med s ($wall_min..$wall_max)"
    p_rss="$rss_max MB"
    p_ratio=$(awk "BEGIN {printf \"%.1fx\", $wall_med / $a_med}")
  fi
  echo "| $name | $mb | $wc_med s | $a_med s ($a_min..$a_max) | $a_cpu s | $a_rss MB |" \
    "$(awk "BEGIN {printf \"%.2fx\", $a_rss * 1e6 / $bytes}") | $(awk "BEGIN {printf \"%.1fx\", $a_med / $wc_med}") |" \
    "$p_cell | $p_rss | $p_ratio |"
done
echo
echo "| root | MB | optrace analyze | CPU | peak RSS | RSS / input | MB/s |"
echo "|---|---|---|---|---|---|---|"
for name in ranks_16 ranks_32 ranks_64 db_300k; do
  root=$work/$name
  bytes=$(input_bytes "$root")
  measure --stage-peaks "$bin" analyze "$root" -o "$work/out"
  echo "| $name | $(awk "BEGIN {printf \"%.0f\", $bytes / 1e6}") | $wall_med s ($wall_min..$wall_max) | $cpu_med s |" \
    "$rss_max MB | $(awk "BEGIN {printf \"%.2fx\", $rss_max * 1e6 / $bytes}") | $(awk "BEGIN {printf \"%.0f\", $bytes / 1e6 / $wall_med}") |"
done
