#!/usr/bin/env bash
# install_test.sh BUILD_DIR CMAKE: see CMakeLists.txt beside this file. Prints what it checks;
# exits 1 at the first thing that does not hold.
set -euo pipefail
build=$1
cmake=${2:-cmake}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "-- $*"; }

prefix=$work/prefix
step "cmake --install into $prefix"
"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log" || { cat "$work/install.log"; fail "install"; }
pc=$(find "$prefix" -name optrace.pc | head -1)
config=$(find "$prefix" -name optraceConfig.cmake | head -1)
pydir=$(dirname "$(find "$prefix" -path '*/python/optrace/__init__.py' | head -1)")
for f in bin/optrace include/optrace/trace.h include/optrace/backends/ascendc.h include/optrace_trace.h \
         share/optrace/skills/optrace-trace-operator/SKILL.md share/doc/optrace/README.md; do
  [[ -e $prefix/$f ]] || fail "$f is not installed"
done
[[ -n $pc && -n $config && $pydir == */optrace ]] || fail "no pkg-config file, CMake package or Python helper installed"
"$prefix/bin/optrace" --version | grep -q '^optrace ' || fail "installed optrace --version"

step "the Python helper imports from the prefix"
PYTHONPATH=$(dirname "$pydir") python3 -c 'import optrace; assert callable(optrace.save_profiling_data)' ||
  fail "import optrace with PYTHONPATH=$(dirname "$pydir")"

# A consumer: host threads trace into a buffer; it checks the slot header the writer produced.
mkdir -p "$work/consumer"
cat >"$work/consumer/main.cc" <<'CC'
#include <cstdint>
#include <cstdio>
#include <vector>
#ifdef USE_SINGLE_HEADER
#include "optrace_trace.h"
#else
#include "optrace/trace.h"
#endif
int main() {
  std::vector<int64_t> buf(PROF_SIZE_PER_CORE, 0);
  OPTRACE_KERNEL_BEGIN(buf.data(), 0);
  MoeTracing(TRACE_POINT("consumer phase", "B"));
  MoeTracing(TRACE_POINT("consumer phase", "E"));
  OPTRACE_KERNEL_END(buf.data());
  const uint64_t w0 = static_cast<uint64_t>(buf[0]);
  if (static_cast<uint32_t>(w0) != optrace::format::kMagic || buf[optrace::format::kWordEventCount] != 2) {
    std::printf("bad slot\n");
    return 1;
  }
  std::printf("consumer ok\n");
  return 0;
}
CC
cat >"$work/consumer/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.16)
project(optrace_consumer CXX)
find_package(optrace CONFIG REQUIRED)
add_executable(consumer main.cc)
target_link_libraries(consumer PRIVATE optrace::device)
if(NOT EXISTS "${OPTRACE_EXECUTABLE}" OR NOT EXISTS "${OPTRACE_SINGLE_HEADER}")
  message(FATAL_ERROR "OPTRACE_EXECUTABLE / OPTRACE_SINGLE_HEADER do not name installed files")
endif()
CM
step "consumer 1: find_package(optrace CONFIG), optrace::device"
"$cmake" -S "$work/consumer" -B "$work/consumer/build" -DCMAKE_PREFIX_PATH="$prefix" >"$work/c1.log" 2>&1 ||
  { cat "$work/c1.log"; fail "configure with find_package(optrace)"; }
"$cmake" --build "$work/consumer/build" >>"$work/c1.log" 2>&1 || { cat "$work/c1.log"; fail "build with find_package"; }
"$work/consumer/build/consumer" | grep -q "consumer ok" || fail "consumer 1 run"

cxx=${CXX:-c++}
step "consumer 2: pkg-config --cflags optrace"
cflags=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags optrace) || fail "pkg-config --cflags optrace"
[[ $cflags == -I* ]] || fail "pkg-config --cflags gave '$cflags'"
# shellcheck disable=SC2086
"$cxx" -std=c++17 $cflags "$work/consumer/main.cc" -o "$work/c2" -pthread || fail "build with pkg-config"
"$work/c2" | grep -q "consumer ok" || fail "consumer 2 run"

step "consumer 3: the single header beside the source, no -I for optrace"
mkdir -p "$work/single"
cp "$work/consumer/main.cc" "$work/single/"
"$prefix/bin/optrace" headers -o "$work/single" >/dev/null
cmp "$work/single/optrace_trace.h" "$prefix/include/optrace_trace.h" || fail "headers -o differs from the installed one"
"$cxx" -std=c++17 -DUSE_SINGLE_HEADER "$work/single/main.cc" -o "$work/c3" -pthread || fail "build with the single header"
"$work/c3" | grep -q "consumer ok" || fail "consumer 3 run"

# An operator tree whose kernel is host-compilable (the host backend), with its marks.
make_op() {
  mkdir -p "$1/op_kernel"
  cat >"$1/op_kernel/k.cpp" <<'CC'
#include "optrace_trace.h"
void Phase() {
  MoeTracing(TRACE_POINT("hook phase", "B"));
  MoeTracing(TRACE_POINT("hook phase", "E"));
}
CC
  "$prefix/bin/optrace" headers -o "$1/op_kernel" >/dev/null
}
nopath=$(dirname "$(command -v bash)")  # a PATH with no optrace on it

step "hook round trip: a shell-built operator"
op=$work/shell_op
make_op "$op"
printf '#!/bin/bash\nset -e\ncd "$(dirname "$0")"\nmkdir -p build_out\ncp -r op_kernel build_out/\nbash build.sh\n' >"$op/compile_ascend_proj.sh"
printf 'echo built\n' >"$op/build.sh"
cp "$op/compile_ascend_proj.sh" "$work/shell_orig.sh"
PATH="$prefix/bin:$PATH" optrace hook install --script "$op/compile_ascend_proj.sh" >/dev/null
grep -q "$prefix" "$op/compile_ascend_proj.sh" && fail "the shell hook names this machine's path"
PATH="$prefix/bin:$PATH" bash "$op/compile_ascend_proj.sh" >/dev/null || fail "the hooked shell build with optrace on PATH"
grep -q "hook phase" "$op/point_map.json" || fail "the shell hook wrote no point map"
rm "$op/point_map.json"
OPTRACE="$prefix/bin/optrace" PATH="$nopath" bash "$op/compile_ascend_proj.sh" >/dev/null || fail "the hooked build with \$OPTRACE"
[[ -f $op/point_map.json ]] || fail "no point map with \$OPTRACE"
set +e
PATH="$nopath" bash "$op/compile_ascend_proj.sh" >/dev/null 2>"$work/missing.txt"
rc=$?
set -e
[[ $rc == 127 ]] || fail "without optrace the shell build exits $rc, not 127"
grep -q "optrace not found" "$work/missing.txt" || fail "without optrace: no message"
PATH="$prefix/bin:$PATH" optrace hook verify --script "$op/compile_ascend_proj.sh" >/dev/null || fail "hook verify (shell)"
"$prefix/bin/optrace" hook remove --script "$op/compile_ascend_proj.sh" >/dev/null
cmp "$op/compile_ascend_proj.sh" "$work/shell_orig.sh" || fail "hook remove is not byte-exact (shell)"

step "hook round trip: a CMake-built operator"
op=$work/cmake_op
make_op "$op"
printf 'cmake_minimum_required(VERSION 3.16)\nproject(op CXX)\nadd_library(k STATIC op_kernel/k.cpp)\n' >"$op/CMakeLists.txt"
cp "$op/CMakeLists.txt" "$work/cmake_orig.txt"
"$prefix/bin/optrace" hook install --script "$op/CMakeLists.txt" --dry-run >"$work/dry.txt"
grep -q "find_program(OPTRACE_EXECUTABLE" "$work/dry.txt" || fail "the CMake dry run shows no CMake hook"
grep -q "command -v" "$work/dry.txt" && fail "the CMake dry run shows shell lines"
"$prefix/bin/optrace" hook install --script "$op/CMakeLists.txt" >/dev/null
grep -q "$prefix" "$op/CMakeLists.txt" && fail "the CMake hook names this machine's path"
OPTRACE="$prefix/bin/optrace" "$cmake" -S "$op" -B "$op/build" >"$work/op.log" 2>&1 || { cat "$work/op.log"; fail "configure the hooked CMake operator"; }
grep -q "hook phase" "$op/build/point_map.json" || fail "the CMake hook wrote no point map at configure time"
rm "$op/build/point_map.json"
OPTRACE="$prefix/bin/optrace" "$cmake" --build "$op/build" >>"$work/op.log" 2>&1 || { cat "$work/op.log"; fail "build the hooked CMake operator"; }
[[ -f $op/build/point_map.json ]] || fail "the CMake build did not regenerate point_map.json"
set +e
env -u OPTRACE PATH="$nopath:$(dirname "$cmake")" "$cmake" -S "$op" -B "$work/cmake_missing" >"$work/missing.txt" 2>&1
rc=$?
set -e
[[ $rc != 0 ]] || fail "without optrace the CMake configure succeeds"
grep -q "optrace not found" "$work/missing.txt" || fail "without optrace: no CMake message"
PATH="$prefix/bin:$PATH" optrace hook verify --script "$op/CMakeLists.txt" >/dev/null || fail "hook verify (CMake)"
"$prefix/bin/optrace" hook remove --script "$op/CMakeLists.txt" >/dev/null
cmp "$op/CMakeLists.txt" "$work/cmake_orig.txt" || fail "hook remove is not byte-exact (CMake)"
echo "install, consumers and hooks: ok"
