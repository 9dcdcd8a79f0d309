// analyze --only-stage on stage files: valid discover/normalize/segment files of a real root,
// one of them replaced by the fuzz input with a valid checksum appended, so the decoder under
// the checksum (and the stages that read what it decoded) is what gets fuzzed.
// data[0] % 3 picks the stage file replaced: discover, normalize, segment.
#include <cstring>

#include "analyze/pipeline/stage_io.h"
#include "fuzz_harness.h"
#include "fuzz_target.h"

namespace {

const std::string kRoot = std::string(OPTRACE_SOURCE_DIR) + "/tests/data/analyze/tp_l0_text";

// Valid stage files of kRoot, made once per process outside the scratch directory.
const std::filesystem::path& BaseStages() {
  static const std::filesystem::path base = [] {
    std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("optrace_fuzz_stages_" + std::to_string(::getpid()));
    optrace::fuzz::Run({"analyze", kRoot, "-o", dir.string(), "--to-stage", "segment"});
    return dir / "stages";
  }();
  return base;
}

}  // namespace

OPTRACE_FUZZ_TARGET(fuzz_analyze_stage) {
  using namespace optrace::fuzz;
  Selected in = Select(data, size, 3);
  const std::filesystem::path& base = BaseStages();
  Scratch& s = Scratch::Fresh();
  static const char* kStage[] = {"discover", "normalize", "segment"};
  static const char* kNext[] = {"normalize", "segment", "classify"};
  std::error_code ec;
  std::filesystem::create_directories(s.Path("out/stages"), ec);
  for (int i = 0; i < in.selector; ++i)
    std::filesystem::copy_file(base / (std::string(kStage[i]) + ".bin"),
                               s.Path(std::string("out/stages/") + kStage[i] + ".bin"), ec);
  uint64_t sum = optrace::analyze::StageChecksum::Of(in.payload);
  std::string file = in.payload;
  file.append(reinterpret_cast<const char*>(&sum), sizeof sum);
  s.Write(std::string("out/stages/") + kStage[in.selector] + ".bin", file);
  Run({"analyze", kRoot, "-o", s.Path("out"), "--only-stage", kNext[in.selector]});
  return 0;
}
