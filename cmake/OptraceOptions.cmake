# Shared compile settings for host targets: optrace_host_target(<target>).
add_library(optrace_warnings INTERFACE)
target_compile_options(optrace_warnings INTERFACE -Wall -Wextra -Wno-unused-parameter)
# GCC 12's -O2/-O3 flow warnings misfire inside libstdc++'s std::string copies (GCC bugs
# 105329, 105651: "forming offset [32, 82] is out of the bounds [0, 32]" on a push_back of a
# literal); they are noise in every build, not findings. Fixed in GCC 13.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(optrace_warnings INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Wno-array-bounds -Wno-restrict -Wno-stringop-overflow -Wno-stringop-overread>)
endif()

# Floating-point results must not depend on the architecture: GCC on aarch64 fuses a * b + c into
# one FMA by default (-ffp-contract=fast), which rounds once instead of twice; scripts/test-aarch64.sh
# found a per-label mean in collect's stats 1 ulp of its 3rd decimal apart from x86_64's.
add_compile_options($<$<COMPILE_LANGUAGE:CXX,C>:-ffp-contract=off>)

# lld links the large test and fuzz binaries four times faster than GNU ld (an ASan test binary:
# 22 s -> 5 s of CPU, about 30 links in a CI build); used when installed (scripts/setup.sh does).
# Not when cross-compiling: the cross gcc does not find the host's ld.lld (it uses its own ld).
find_program(OPTRACE_LLD NAMES ld.lld)
if(OPTRACE_LLD AND NOT CMAKE_CROSSCOMPILING)
  add_link_options($<$<LINK_LANGUAGE:CXX,C>:-fuse-ld=lld>)
endif()

# The static libraries live only in the build tree (nothing installs them): thin archives point
# at the objects instead of holding a second copy of them (1 GB of a sanitizer build's disk).
foreach(_lang C CXX)
  set(CMAKE_${_lang}_ARCHIVE_CREATE "<CMAKE_AR> qcT <TARGET> <LINK_FLAGS> <OBJECTS>")
  set(CMAKE_${_lang}_ARCHIVE_APPEND "<CMAKE_AR> qT <TARGET> <LINK_FLAGS> <OBJECTS>")
endforeach()

if(OPTRACE_SANITIZE)
  # Host C/C++ only: nvcc-compiled objects stay uninstrumented.
  add_compile_options($<$<COMPILE_LANGUAGE:CXX,C>:-fsanitize=address,undefined>
                      $<$<COMPILE_LANGUAGE:CXX,C>:-fno-sanitize-recover=undefined>
                      $<$<COMPILE_LANGUAGE:CXX,C>:-fno-omit-frame-pointer>)
  add_link_options(-fsanitize=address,undefined)
endif()
if(OPTRACE_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "OPTRACE_FUZZ needs clang (libFuzzer): configure with -DCMAKE_CXX_COMPILER=clang++")
  endif()
  # Coverage for the fuzzer in every library; only the fuzz targets link libFuzzer's main.
  add_compile_options($<$<COMPILE_LANGUAGE:CXX,C>:-fsanitize=fuzzer-no-link>)
endif()

# One layer (src/<layer>/) or one room of a layer (src/<layer>/<room>/): the folder's .cc files, a
# static library that links DEPS publicly (the rooms and layers below it) and LIBS privately. Its
# code includes only its own headers and those of what DEPS reaches: tests/layers_test.py checks
# it from these calls.
# optrace_room(<target> DIR <dir> [DEPS <target>...] [LIBS <lib>...] [PCH_FROM <target>])
function(optrace_room name)
  cmake_parse_arguments(R "" "DIR;PCH_FROM" "DEPS;LIBS" ${ARGN})
  file(GLOB _srcs CONFIGURE_DEPENDS ${R_DIR}/*.cc)
  list(FILTER _srcs EXCLUDE REGEX "_test\\.cc$")
  add_library(${name} STATIC ${_srcs})
  target_compile_features(${name} PUBLIC cxx_std_20)
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/include)
  target_link_libraries(${name} PUBLIC ${R_DEPS} PRIVATE optrace_warnings ${R_LIBS})
  if(OPTRACE_PCH AND R_PCH_FROM)
    target_precompile_headers(${name} REUSE_FROM ${R_PCH_FROM})
  endif()
endfunction()

# Precompiled third-party headers. Most of the build time is spent parsing CLI11, GoogleTest,
# nlohmann/json and fmt again in every translation unit; one precompiled header per target
# (tests share one) parses them once. Only third-party and standard headers go in, so a
# translation unit never depends on what the PCH happens to include.
# optrace_pch(<target> <header>...)
function(optrace_pch target)
  if(OPTRACE_PCH)
    target_precompile_headers(${target} PRIVATE ${ARGN})
  endif()
endfunction()
