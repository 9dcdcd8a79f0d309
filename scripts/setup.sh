#!/usr/bin/env bash
# Installs what optrace needs to build and test (Debian packages only).
set -euo pipefail
pkgs=(cmake ninja-build g++ clang libclang-rt-14-dev lld pkg-config python3 python3-numpy
      libgtest-dev libgmock-dev libbenchmark-dev
      libfmt-dev libcli11-dev nlohmann-json3-dev
      libzip-dev zlib1g-dev libsqlite3-dev libxlsxwriter-dev
      chromium)  # chromium: headless check of report.html (ctest label browser)
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
