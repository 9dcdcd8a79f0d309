#!/usr/bin/env bash
# Installs what optrace needs (Debian packages only; sudo when not root):
#   scripts/setup.sh           what building the optrace binary needs (the demo)
#   scripts/setup.sh --tests   that, and what the test suite needs: GoogleTest, Google Benchmark,
#                              clang with its sanitizer and fuzzer runtimes, lld, numpy, and
#                              chromium for the headless check of the HTML reports, cmark-gfm
#                              (a CommonMark renderer that judges report.md's escaping)
set -euo pipefail
pkgs=(cmake ninja-build g++ pkg-config python3
      libfmt-dev libcli11-dev nlohmann-json3-dev
      zlib1g-dev libsqlite3-dev libxlsxwriter-dev)
if [[ ${1:-} == --tests ]]; then
  pkgs+=(clang libclang-rt-14-dev lld python3-numpy libgtest-dev libgmock-dev libbenchmark-dev
         chromium cmark-gfm)  # chromium: headless check of report.html (ctest label browser)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""; [[ $(id -u) -eq 0 ]] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
