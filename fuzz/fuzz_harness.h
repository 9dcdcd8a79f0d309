// Shared pieces of the libFuzzer targets: a scratch directory per process, files written into
// it from the fuzz input, and the optrace command line run in-process (what users run, end to
// end: parsing, analysis and every writer, with JSON output where a command has it).
//
//   extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
//     optrace::fuzz::Scratch& s = optrace::fuzz::Scratch::Fresh();
//     s.Write("dumps/rank0.bin", optrace::fuzz::Bytes(data, size));
//     optrace::fuzz::Run({"collect", s.Path("dumps"), "-o", s.Path("t.json")});
//     return 0;
//   }
//
// A target never asserts on the exit code: bad input exiting 2 with a message is correct. What
// the fuzzer finds is everything else: crashes, sanitizer reports, hangs, out-of-memory.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/command.h"

namespace optrace::fuzz {

inline std::string Bytes(const uint8_t* data, size_t size) { return std::string(reinterpret_cast<const char*>(data), size); }

class Scratch {
 public:
  // The process's scratch directory, emptied.
  static Scratch& Fresh() {
    static Scratch s;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(s.root_, ec)) std::filesystem::remove_all(e.path(), ec);
    return s;
  }
  std::string Path(std::string_view rel = "") const { return (root_ / std::string(rel)).string(); }
  void Write(std::string_view rel, std::string_view bytes) const {
    std::filesystem::path p = root_ / std::string(rel);
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  // Copies a file or tree from the source checkout (fixed, valid companions of the fuzzed file).
  void CopyFromSource(std::string_view from, std::string_view rel) const {
    std::error_code ec;
    std::filesystem::path to = root_ / std::string(rel);
    std::filesystem::create_directories(to.parent_path(), ec);
    std::filesystem::copy(std::filesystem::path(OPTRACE_SOURCE_DIR) / std::string(from), to,
                          std::filesystem::copy_options::recursive | std::filesystem::copy_options::overwrite_existing,
                          ec);
  }

 private:
  Scratch() {
    root_ = std::filesystem::temp_directory_path() / ("optrace_fuzz_" + std::to_string(::getpid()));
    std::filesystem::create_directories(root_);
  }
  std::filesystem::path root_;
};

inline int Run(const std::vector<std::string>& argv) {
  std::ostringstream out, err;
  cli::CommandIo io{out, err};
  return cli::RunOptrace(argv, io);
}

// Splits "selector byte + payload": targets that drive several parsers pick one by data[0].
struct Selected {
  unsigned selector;
  std::string payload;
};
inline Selected Select(const uint8_t* data, size_t size, unsigned choices) {
  if (size == 0) return {0, {}};
  return {data[0] % choices, Bytes(data + 1, size - 1)};
}

}  // namespace optrace::fuzz
