#!/usr/bin/env bash
# scripts/check-release-binary.sh BIN: what a release binary needs at run time, from its ELF
# headers (readelf reads every architecture). Passes when it needs only the kernel and glibc:
# no shared object outside glibc, no glibc symbol version above 2.28, no libstdc++ / libgcc
# versions (a fully static binary has none of these at all). Prints what it found.
set -euo pipefail
bin=$1
max_glibc=2.28
[[ -f $bin ]] || { echo "check-release-binary: $bin: no such file" >&2; exit 2; }
echo "$bin: $(readelf -h "$bin" | sed -n 's/^ *Machine: *//p'), $(readelf -h "$bin" | sed -n 's/^ *Type: *//p')"
needed=$(readelf -d "$bin" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' || true)
interp=$(readelf -l "$bin" | sed -n 's/.*\[Requesting program interpreter: \(.*\)\]/\1/p' || true)
echo "  shared objects needed: $(echo ${needed:-none})${interp:+ (interpreter $interp)}"
versions=$(readelf -V -W "$bin" 2>/dev/null | grep -o 'Name: [A-Z_]*[0-9.]*' | sed 's/Name: //' | sort -u -V || true)
echo "  symbol versions: $(echo ${versions:-none})"
fail=0
for lib in $needed; do
  case $lib in
    libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|ld-linux*) ;;
    *) echo "  FAIL: needs $lib (not glibc)"; fail=1 ;;
  esac
done
for v in $versions; do
  case $v in
    GLIBC_*)
      n=${v#GLIBC_}
      if [[ $(printf '%s\n%s\n' "$n" "$max_glibc" | sort -V | tail -1) != "$max_glibc" ]]; then
        echo "  FAIL: $v is above GLIBC_$max_glibc"; fail=1
      fi ;;
    GLIBCXX_*|CXXABI_*|GCC_*) echo "  FAIL: $v (libstdc++ / libgcc must be linked in)"; fail=1 ;;
  esac
done
if ((fail)); then exit 1; fi
echo "  ok: needs only the kernel${needed:+ and glibc <= $max_glibc}"
