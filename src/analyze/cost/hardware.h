// Hardware peaks: the theoretical compute and memory peaks of the device a capture ran on, and
// where they came from. They are the denominators of MFU and the roofs of the roofline.
//
//   OPTRACE_ASSIGN_OR_RETURN(HardwarePeaks hw, HardwareByName(rules.hardware, "Ascend910B3"));
//   OPTRACE_ASSIGN_OR_RETURN(HardwarePeaks hw, LoadHardwareProfile("capture_host.json"));
//   std::optional<HardwarePeaks> hw = ScanCannPlatformConfig(rules.hardware, CannConfigDirs());
//   double peak = hw.PeakTflops("bf16");   // NaN when the part has no such peak
//
// The bundled table is data/analyze/hardware_peaks.json (docs/hardware-peaks.md: the source of every
// number). A profile file has the same fields as one table entry. The CANN scan reads
// <toolkit>/<arch>-linux/data/platform_config/<SoC>.ini of the analysis host: core counts and the
// cube frequency give the cube peaks; it describes the analysis host, which is not proof of the
// capture host (the source line says so).
#pragma once

#include <cmath>
#include <chrono>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace optrace::analyze {

struct HardwarePeaks {
  std::string name;                 // "Ascend910B3"
  std::vector<std::string> aliases;
  std::string source;               // "--hardware-model Ascend910B3 (bundled table)", "--hardware-profile /x.json", ...
  std::string provenance;           // what the source proves ("analysis host, not proven to be the capture host")
  int cube_core_count = -1, vector_core_count = -1;
  double cube_freq_mhz = NAN;
  double cube_fp16_tflops = NAN, cube_bf16_tflops = NAN, cube_int8_tops = NAN, cube_fp32_tflops = NAN;
  double vector_fp16_tflops = NAN, vector_fp32_tflops = NAN;
  double hbm_gb = NAN, hbm_bandwidth_gbps = NAN;
  std::map<std::string, std::string> sources;  // field -> citation key (docs/hardware-peaks.md)

  // The cube peak for a compute dtype class (op_cost.h DtypeClass): fp16, bf16, int8, fp32/hf32;
  // the vector peak for "vector:<class>". NaN when the part has none.
  double PeakTflops(std::string_view dtype_class) const;
};

// Entries of hardware_peaks.json (Rules::hardware): name or alias, case-insensitive.
Result<HardwarePeaks> HardwareByName(const std::vector<HardwarePeaks>& table, std::string_view name);
// A JSON file with the fields of one table entry (name and at least one peak required).
Result<HardwarePeaks> LoadHardwareProfile(const std::filesystem::path& path);
// Parses hardware_peaks.json text.
Result<std::vector<HardwarePeaks>> ParseHardwareTable(const std::string& origin, const std::string& text);

// The platform_config directories of the CANN toolkits installed here: $ASCEND_HOME_PATH,
// $ASCEND_TOOLKIT_HOME, /usr/local/Ascend/ascend-toolkit/latest, each with <arch>-linux/data/platform_config.
std::vector<std::filesystem::path> CannConfigDirs();
// This host's SoC as `npu-smi info` names it ("Ascend910B3"), "" without npu-smi, a known name, or
// an answer within `deadline` (npu-smi is run directly, found on $PATH, and killed at the deadline).
std::string HostSocFromNpuSmi(std::chrono::milliseconds deadline = std::chrono::seconds(10));
// A toolkit ships the ini of every SoC it supports: the host's is <host_soc>.ini, or the only ini
// there is. Its peaks (PeaksFromCannIni), std::nullopt when neither applies. Which file: `source`.
std::optional<HardwarePeaks> ScanCannPlatformConfig(const std::vector<HardwarePeaks>& table,
                                                    const std::vector<std::filesystem::path>& dirs,
                                                    const std::string& host_soc);
// One ini file (tests).
std::optional<HardwarePeaks> PeaksFromCannIni(const std::vector<HardwarePeaks>& table, const std::filesystem::path& ini);

}  // namespace optrace::analyze
