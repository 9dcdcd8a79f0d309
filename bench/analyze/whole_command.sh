#!/usr/bin/env bash
# The whole `optrace analyze` command on generated captures, with pandas on the same files in the
# same run (ratios, not absolute times, are what carry over between machines).
#
#   bench/analyze/whole_command.sh [OPTRACE_BIN=build/dev/bin/optrace] [WORK_DIR=/tmp/optrace_bench]
#
# Inputs (made once, kept in WORK_DIR): one rank with a 300 MiB and a 1 GiB kernel_details.csv;
# roots of 16, 32 and 64 ranks x 5 MiB (the 16 and 32 are the first ranks of the 64: scaling);
# a 300k-task torch_npu db. Each optrace row is the best of 3 runs (file in the page cache), with
# the peak RSS of that run. pandas (python3-pandas, bench only) reads and groups the single-rank
# files: pandas_baseline.py. Prints Markdown rows.
set -euo pipefail
bin=$(realpath "${1:-build/dev/bin/optrace}")
work=${2:-/tmp/optrace_bench}
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
make_input "$work/kd_1024" 1024 --no-trace-view
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

echo "| input | bytes | optrace wall (best of 3) | MB/s | peak RSS | RSS / input | pandas wall | pandas RSS | speed ratio |"
echo "|---|---|---|---|---|---|---|---|---|"
for name in kd_300 kd_1024 ranks_16 ranks_32 ranks_64 db_300k; do
  root=$work/$name
  bytes=$(input_bytes "$root")
  best=""
  rss=""
  for run in 1 2 3; do
    rm -rf "$work/out"
    /usr/bin/time -f "%e %M" -o "$work/time.txt" "$bin" analyze "$root" -o "$work/out" >/dev/null 2>"$work/err.txt" ||
      { cat "$work/err.txt" >&2; exit 1; }
    read -r wall kb <"$work/time.txt"
    if [[ -z $best ]] || awk "BEGIN {exit !($wall < $best)}"; then best=$wall; rss=$kb; fi
  done
  mbs=$(awk "BEGIN {printf \"%.0f\", $bytes / 1e6 / $best}")
  rss_mb=$(awk "BEGIN {printf \"%.0f\", $rss * 1024 / 1e6}")
  ratio=$(awk "BEGIN {printf \"%.2f\", $rss * 1024 / $bytes}")
  pandas_wall="-"; pandas_rss="-"; speed="-"
  if [[ $name == kd_* ]]; then
    if "$py" -c "import pandas" 2>/dev/null; then
      line=$("$py" "$here/pandas_baseline.py" "$root/kernel_details.csv")  # "pandas: 9.05 s, ... peak RSS 1240 MB, ..."
      pandas_wall=$(sed -E 's/^pandas: ([0-9.]+) s.*/\1/' <<<"$line")
      pandas_rss=$(sed -E 's/.*peak RSS ([0-9]+) MB.*/\1/' <<<"$line")
      speed=$(awk "BEGIN {printf \"%.1fx\", $pandas_wall / $best}")
      pandas_wall="$pandas_wall s"
      pandas_rss="$pandas_rss MiB"
    else
      pandas_wall="(python3-pandas not installed)"
    fi
  fi
  echo "| $name | $bytes | $best s | $mbs | $rss_mb MB | ${ratio}x | $pandas_wall | $pandas_rss | $speed |"
done
