#!/usr/bin/env bash
# release_tarball_test.sh SOURCE_DIR: the x86_64 release tarball as a user gets it (issue 54).
# Builds it with scripts/package.sh --quick (the fully static binary, unoptimised and compiled by clang
# where it is installed: the same link and packaging as a release in a fraction of the compile time;
# build/release-static-quick, dist/quick/), then:
# the binary needs only the kernel (scripts/check-release-binary.sh: no shared object, no glibc
# symbol version above 2.28), and unpacked in a fresh folder it runs the demo and installs the
# skills with an empty environment. Exits 1 at the first thing that does not hold.
set -euo pipefail
src=$1
[[ $(uname -m) == x86_64 ]] || { echo "not an x86_64 host: skipped"; exit 0; }
cd "$src"
version=$(sed -n 's/^project(optrace VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
name=optrace-$version-linux-x86_64
# Two compile jobs: it shares the machine with the rest of the suite (ctest -j2).
CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2} scripts/package.sh --arch x86_64 --quick > /tmp/optrace-package-$$.log 2>&1 || { tail -40 /tmp/optrace-package-$$.log; exit 1; }
rm -f /tmp/optrace-package-$$.log
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -C "$work" -xzf "dist/quick/$name.tar.gz"
bin=$work/$name/bin/optrace
echo "-- readelf on the unpacked binary"
scripts/check-release-binary.sh "$bin"
echo "-- the demo with an empty environment"
(cd "$work" && env -i "$bin" demo -o demo >demo.txt 2>&1) || { cat "$work/demo.txt"; exit 1; }
[[ -s $work/demo/chrome_trace.json ]] || { echo "FAIL: the demo wrote no trace"; exit 1; }
echo "-- skills and samples from the binary alone"
env -i "$bin" skills install --to "$work/agent-skills" >/dev/null
env -i "$bin" samples -o "$work/samples" >/dev/null
for f in agent-skills/optrace-trace-operator/SKILL.md samples/README.md; do
  [[ -s $work/$f ]] || { echo "FAIL: $f not written"; exit 1; }
done
for f in share/optrace/skills/optrace-profiling-analysis/SKILL.md include/optrace_trace.h lib/optrace/python/optrace/__init__.py; do
  [[ -s $work/$name/$f ]] || { echo "FAIL: the tarball has no $f"; exit 1; }
done
echo "ok: $name.tar.gz ($(du -h "dist/quick/$name.tar.gz" | cut -f1), --quick)"
