#!/usr/bin/env bash
# scripts/package.sh [--arch x86_64|aarch64] [--quick]   (default: this machine's arch)
# Builds the fully static optrace for ARCH and writes dist/optrace-<version>-linux-<arch>.tar.gz:
#   bin/optrace                      needs only the kernel (scripts/check-release-binary.sh checks it)
#   include/optrace/, include/optrace_trace.h, lib/cmake/optrace/, lib/pkgconfig/optrace.pc
#   lib/optrace/python/optrace/      the Python helper (PYTHONPATH=<dir>/lib/optrace/python)
#   share/optrace/skills/, share/doc/optrace/
# aarch64 is cross-built with Debian's toolchain and arm64 multiarch packages (installed here) and
# started under qemu-user for --version. Why static: docs/release.md.
# --quick: the same static link and packaging without optimisation (-O0), in build/<preset>-quick and
# dist/quick/: what CI checks (the link, the symbols, the demo) in a fraction of the compile time;
# on x86_64 compiled by clang when it is installed (clang -O0 compiles this tree in about half the
# time gcc -O0 takes: 4.8 against 8.9 minutes on 2 cores). Never shipped: a release is built
# without --quick, by the preset's compiler.
set -euo pipefail
cd "$(dirname "$0")/.."
arch=$(uname -m)
quick=""
while (($#)); do
  case $1 in
    --arch) arch=${2:?--arch needs x86_64 or aarch64}; shift 2 ;;
    --quick) quick=1; shift ;;
    *) echo "package.sh: unknown argument $1 (usage: scripts/package.sh [--arch x86_64|aarch64] [--quick])" >&2; exit 2 ;;
  esac
done
SUDO=""; [[ $(id -u) -eq 0 ]] || SUDO=sudo
scripts/setup.sh
case $arch in
  x86_64) preset=release-static; run=() ;;
  aarch64)
    preset=release-static-aarch64; run=(qemu-aarch64-static)
    if ! dpkg-query -W -f='${Status}' libsqlite3-dev:arm64 2>/dev/null | grep -q "install ok installed" ||
       ! command -v aarch64-linux-gnu-g++ >/dev/null || ! command -v qemu-aarch64-static >/dev/null; then
      echo "package.sh: installing the arm64 cross toolchain, arm64 -dev packages and qemu-user-static" >&2
      $SUDO dpkg --add-architecture arm64
      $SUDO apt-get update -qq
      DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends crossbuild-essential-arm64 \
        qemu-user-static libsqlite3-dev:arm64 zlib1g-dev:arm64 libfmt-dev:arm64 libxlsxwriter-dev:arm64 >/dev/null
    fi ;;
  *) echo "package.sh: --arch $arch: x86_64 or aarch64" >&2; exit 2 ;;
esac
version=$(sed -n 's/^project(optrace VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
name=optrace-$version-linux-$arch
start=$(date +%s)
build=build/$preset out=dist configure=()
if [[ $quick ]]; then
  build=build/$preset-quick out=dist/quick
  configure=(-B "$build" -DCMAKE_C_FLAGS_RELEASE=-DNDEBUG -DCMAKE_CXX_FLAGS_RELEASE=-DNDEBUG)
  if [[ $arch == x86_64 ]] && command -v clang++ >/dev/null && command -v clang >/dev/null; then
    configure+=(-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++)
    # A cache made by another compiler: CMake would wipe it on the switch and lose the preset's
    # settings (the static link among them), so start that folder afresh.
    if [[ -f $build/CMakeCache.txt ]] && ! grep -q '^CMAKE_CXX_COMPILER:[A-Z]*=.*clang++$' "$build/CMakeCache.txt"; then
      rm -rf "$build"
    fi
  fi
fi
mkdir -p "$out"
cmake --preset "$preset" "${configure[@]}" >/dev/null
cmake --build "$build" --target optrace optrace_single_header
rm -rf "${out:?}/$name"
cmake --install "$build" --prefix "$PWD/$out/$name" >/dev/null
scripts/check-release-binary.sh "$out/$name/bin/optrace"
"${run[@]}" "$out/$name/bin/optrace" --version
tar -C "$out" -czf "$out/$name.tar.gz" "$name"
echo "$out/$name.tar.gz: $(du -h "$out/$name.tar.gz" | cut -f1), built in $(($(date +%s) - start)) s${quick:+ (--quick: -O0, not for release)}"
