#!/usr/bin/env bash
# scripts/test-aarch64.sh: the aarch64 release binary under qemu-user, against the x86_64 one.
# Builds both static binaries (scripts/package.sh; cross toolchain and qemu-user-static installed
# there), then runs the demo and a set of commands on built-in data with each and compares their
# outputs byte for byte: the SIMD fast paths of x86_64 (SSE2 CSV block scan, PCLMUL CRC-32) and
# the portable paths aarch64 takes must give the same bytes. Prints one line per check and
# "N passed, N failed". Then the unit tests of core and collect, cross-built, under qemu.
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(sed -n 's/^project(optrace VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
[[ -x dist/optrace-$version-linux-x86_64/bin/optrace ]] || scripts/package.sh --arch x86_64 >/dev/null
[[ -x dist/optrace-$version-linux-aarch64/bin/optrace ]] || scripts/package.sh --arch aarch64 >/dev/null
x86=$PWD/dist/optrace-$version-linux-x86_64/bin/optrace
arm=$PWD/dist/optrace-$version-linux-aarch64/bin/optrace
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
check() {  # check NAME: compares $work/x86/NAME and $work/arm/NAME
  if cmp -s "$work/x86/$1" "$work/arm/$1"; then
    echo "ok    $1"; passed=$((passed + 1))
  else
    echo "FAIL  $1 differs"; diff <(head -c 2000 "$work/x86/$1") <(head -c 2000 "$work/arm/$1") | head -5 || true
    failed=$((failed + 1))
  fi
}
run_both() {  # run_both OUTNAME ARGS...: runs optrace ARGS with each binary, output to OUTNAME
  local name=$1; shift
  for a in x86 arm; do
    mkdir -p "$work/$a"
    local bin=$x86; [[ $a == arm ]] && bin="qemu-aarch64-static $arm"
    # shellcheck disable=SC2086
    (cd "$work/$a" && env -i PATH=/usr/bin:/bin $bin "$@" >"$work/$a/$name" 2>&1) || echo "exit $?" >>"$work/$a/$name"
  done
  [[ ${NOCHECK:-} ]] || check "$name"
}
echo "aarch64: $(qemu-aarch64-static "$arm" --version)"
run_both version.txt --version
# The demo's trace and stats depend on thread timing; its point map and the later commands do not.
for a in x86 arm; do
  bin=$x86; [[ $a == arm ]] && bin="qemu-aarch64-static $arm"
  # shellcheck disable=SC2086
  env -i PATH=/usr/bin:/bin $bin demo -o "$work/$a/demo" >"$work/$a/demo.txt" 2>&1 || { echo "FAIL  demo ($a)"; failed=$((failed + 1)); }
done
[[ -f $work/arm/demo/chrome_trace.json ]] && { echo "ok    demo under qemu wrote its trace"; passed=$((passed + 1)); }
# The maps name their own source folder (source_root): everything else must agree.
for a in x86 arm; do grep -v '"source_root"' "$work/$a/demo/point_map.json" >"$work/$a/point_map.nosrc.json"; done
check point_map.nosrc.json
cp -r "$work/x86/demo/dumps" "$work/dumps"   # the same dumps for both from here on
run_both collect.txt collect "$work/dumps" --map "$work/x86/demo/point_map.json" -o trace.json --stats stats.csv
check trace.json
check stats.csv
run_both collect-pftrace.txt collect "$work/dumps" --map "$work/x86/demo/point_map.json" -o trace.pftrace
check trace.pftrace
run_both inspect.json inspect "$work/dumps" --format json
run_both lint.json lint --op "$PWD/examples/moe_dispatch_combine" --format json
# Its stdout reports times and memory; the tables it writes are compared.
NOCHECK=1 run_both analyze.txt analyze "$PWD/tests/data/analyze/tp_l1_text" -o an
for f in operator_summary.csv communication_rank_summary.csv step_summary.csv rank_summary.csv hccl_op_summary.csv; do
  [[ -f $work/x86/an/$f ]] && check "an/$f"
done
run_both legacy.txt collect "$PWD/tests/data/collect/legacy" --map "$PWD/tests/data/collect/legacy/point_map.json" \
  -o legacy.json
check legacy.json

# The unit tests of the layers with SIMD fast paths, cross-built and run under qemu: core (the CSV
# block scan: NEON on aarch64) and collect (CRC-32: the ARMv8 CRC32 instructions; the readers and
# writers), each test holding the fast path equal to the portable one. Same build folder as the
# tarball's binary (its objects are reused); configured back without tests afterwards.
build=build/release-static-aarch64
if dpkg-query -W -f='${Status}' libgtest-dev:arm64 2>/dev/null | grep -q "install ok installed"; then :; else
  SUDO=""; [[ $(id -u) -eq 0 ]] || SUDO=sudo
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends libgtest-dev:arm64 \
    libgmock-dev:arm64 >/dev/null
fi
cmake --preset release-static-aarch64 -DOPTRACE_BUILD_TESTS=ON >/dev/null
cmake --build "$build" --target core_tests collect_tests >/dev/null
cmake --preset release-static-aarch64 -DOPTRACE_BUILD_TESTS=OFF >/dev/null
# The tests link glibc and libstdc++ dynamically; they run on the arm64 multiarch libraries that
# libgtest-dev:arm64 brings (/lib/aarch64-linux-gnu, qemu's default root). Not with
# `-L /usr/aarch64-linux-gnu`: that pairs the cross toolchain's ld.so with the multiarch libc.so.6
# (two builds of glibc whose private layouts differ) and the first new thread then spins forever.
for t in core_tests collect_tests; do
  if out=$(timeout 1800 qemu-aarch64-static "$build/tests/$t" --gtest_brief=1 2>&1); then
    echo "ok    $t under qemu: $(echo "$out" | grep -o '[0-9]* tests\? from [0-9]* test suites\? ran' | tail -1)"
    passed=$((passed + 1))
  else
    echo "FAIL  $t under qemu"; echo "$out" | grep -E 'FAILED|Failure' | head -10
    failed=$((failed + 1))
  fi
done
echo "$passed passed, $failed failed"
((failed == 0))
