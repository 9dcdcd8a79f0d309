#include "analyze/cost/hardware.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <map>
#include <utility>
#include <nlohmann/json.hpp>

#include "core/file_io.h"
#include "core/json_number.h"
#include "core/subprocess.h"

namespace optrace::analyze {
namespace {

using nlohmann::json;

std::string Lower(std::string_view s) {
  std::string l(s);
  for (char& c : l) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return l;
}

double Num(const json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_number()) return NAN;
  return j[key].get<double>();
}

Result<HardwarePeaks> EntryFromJson(const std::string& origin, const json& j) {
  if (!j.is_object() || !j.contains("name") || !j["name"].is_string())
    return BadInputError("{}: a hardware entry needs a string 'name'", origin);
  HardwarePeaks h;
  h.name = j["name"].get<std::string>();
  if (j.contains("aliases") && j["aliases"].is_array())
    for (const json& a : j["aliases"])
      if (a.is_string()) h.aliases.push_back(a.get<std::string>());
  for (auto [key, out] : {std::pair{"cube_core_count", &h.cube_core_count}, {"vector_core_count", &h.vector_core_count}}) {
    *out = -1;  // not stated
    if (!j.contains(key) || !j[key].is_number()) continue;
    std::optional<int64_t> n = JsonInteger(j[key], 0, 100000);
    if (!n) return BadInputError("{}: {}: '{}' must be a whole number from 0 to 100000", origin, h.name, key);
    *out = static_cast<int>(*n);
  }
  h.cube_freq_mhz = Num(j, "cube_freq_mhz");
  h.cube_fp16_tflops = Num(j, "cube_fp16_tflops");
  h.cube_bf16_tflops = Num(j, "cube_bf16_tflops");
  h.cube_int8_tops = Num(j, "cube_int8_tops");
  h.cube_fp32_tflops = Num(j, "cube_fp32_tflops");
  h.vector_fp16_tflops = Num(j, "vector_fp16_tflops");
  h.vector_fp32_tflops = Num(j, "vector_fp32_tflops");
  h.hbm_gb = Num(j, "hbm_gb");
  h.hbm_bandwidth_gbps = Num(j, "hbm_bandwidth_gbps");
  if (j.contains("sources") && j["sources"].is_object())
    for (auto& [k, v] : j["sources"].items())
      if (v.is_string()) h.sources[k] = v.get<std::string>();
  bool any = false;
  for (double v : {h.cube_fp16_tflops, h.cube_bf16_tflops, h.cube_int8_tops, h.cube_fp32_tflops, h.vector_fp16_tflops,
                   h.vector_fp32_tflops, h.hbm_bandwidth_gbps})
    any |= !std::isnan(v) && v > 0;
  if (!any)
    return BadInputError("{}: hardware '{}' gives no peak (cube_bf16_tflops, hbm_bandwidth_gbps, ...); add at least one",
                         origin, h.name);
  return h;
}

// key=value lines of an ini file by section ("SoCInfo.cube_core_cnt").
std::map<std::string, std::string> ReadIni(const std::filesystem::path& path) {
  std::map<std::string, std::string> kv;
  std::ifstream in(path);
  std::string line, section;
  while (std::getline(in, line)) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line.front() == '[' && line.back() == ']') {
      section = line.substr(1, line.size() - 2);
      continue;
    }
    size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    kv[section + "." + line.substr(0, eq)] = line.substr(eq + 1);
  }
  return kv;
}

double IniNum(const std::map<std::string, std::string>& kv, const std::string& key) {
  auto it = kv.find(key);
  if (it == kv.end() || it->second.empty()) return NAN;
  char* end = nullptr;
  double v = std::strtod(it->second.c_str(), &end);
  return end && *end == '\0' ? v : NAN;
}

// "16,32,16" -> 8192.
double MknProduct(const std::map<std::string, std::string>& kv, const std::string& key) {
  auto it = kv.find(key);
  if (it == kv.end()) return NAN;
  double p = 1;
  int n = 0;
  size_t at = 0;
  const std::string& s = it->second;
  while (at <= s.size()) {
    size_t comma = s.find(',', at);
    std::string piece = s.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    char* end = nullptr;
    double v = std::strtod(piece.c_str(), &end);
    if (!end || *end != '\0' || v <= 0) return NAN;
    p *= v;
    ++n;
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return n == 3 ? p : NAN;
}

}  // namespace

double HardwarePeaks::PeakTflops(std::string_view dtype_class) const {
  if (dtype_class == "fp16") return cube_fp16_tflops;
  if (dtype_class == "bf16") return cube_bf16_tflops;
  if (dtype_class == "int8") return cube_int8_tops;
  if (dtype_class == "fp32" || dtype_class == "hf32") return cube_fp32_tflops;
  if (dtype_class == "vector:fp16" || dtype_class == "vector:bf16") return vector_fp16_tflops;
  if (dtype_class == "vector:fp32") return vector_fp32_tflops;
  return NAN;
}

Result<std::vector<HardwarePeaks>> ParseHardwareTable(const std::string& origin, const std::string& text) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("hardware") || !j["hardware"].is_array())
    return BadInputError("{}: expected an object with a 'hardware' array", origin);
  std::vector<HardwarePeaks> table;
  for (const json& e : j["hardware"]) {
    OPTRACE_ASSIGN_OR_RETURN(HardwarePeaks h, EntryFromJson(origin, e));
    h.source = "bundled table (data/analyze/hardware_peaks.json)";
    table.push_back(std::move(h));
  }
  return table;
}

Result<HardwarePeaks> HardwareByName(const std::vector<HardwarePeaks>& table, std::string_view name) {
  std::string want = Lower(name);
  const HardwarePeaks* hit = nullptr;
  for (const HardwarePeaks& h : table)
    if (Lower(h.name) == want) hit = &h;
  if (!hit) {  // an alias names one part, or the request is ambiguous ("910C" is a family)
    std::vector<std::string> matches;
    for (const HardwarePeaks& h : table)
      for (const std::string& a : h.aliases)
        if (Lower(a) == want) {
          if (!hit) hit = &h;
          matches.push_back(h.name);
          break;
        }
    if (matches.size() > 1)
      return BadInputError("--hardware-model {}: names several parts ({}), whose peaks differ; name one of them",
                           name, fmt::join(matches, ", "));
  }
  if (hit) {
    HardwarePeaks out = *hit;
    out.source = fmt::format("--hardware-model {} (bundled table, docs/hardware-peaks.md)", name);
    out.provenance = "given by the user for the capture host";
    return out;
  }
  std::vector<std::string> names;
  for (const HardwarePeaks& h : table) names.push_back(h.name);
  return BadInputError("--hardware-model {}: not in the bundled table; known: {}; or describe the part with "
                       "--hardware-profile FILE (fields of docs/hardware-peaks.md)",
                       name, fmt::join(names, ", "));
}

Result<HardwarePeaks> LoadHardwareProfile(const std::filesystem::path& path) {
  OPTRACE_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded())
    return BadInputError("{}: not valid JSON; a hardware profile is one object with the fields of docs/hardware-peaks.md",
                         path.string());
  OPTRACE_ASSIGN_OR_RETURN(HardwarePeaks h, EntryFromJson(path.string(), j));
  h.source = fmt::format("--hardware-profile {}", ResolveAgainstCwd(path).string());
  h.provenance = "given by the user for the capture host";
  return h;
}

std::vector<std::filesystem::path> CannConfigDirs() {
  std::vector<std::filesystem::path> roots;
  for (const char* env : {"ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", "ASCEND_OPP_PATH"})
    if (const char* v = std::getenv(env); v && *v) roots.emplace_back(v);
  roots.emplace_back("/usr/local/Ascend/ascend-toolkit/latest");
  std::vector<std::filesystem::path> dirs;
  std::error_code ec;
  for (const auto& root : roots) {
    for (const char* arch : {"aarch64-linux", "x86_64-linux", "arm64-linux"}) {
      std::filesystem::path d = root / arch / "data" / "platform_config";
      if (std::filesystem::is_directory(d, ec)) dirs.push_back(d);
    }
    std::filesystem::path d = root / "data" / "platform_config";
    if (std::filesystem::is_directory(d, ec)) dirs.push_back(d);
  }
  return dirs;
}

std::optional<HardwarePeaks> PeaksFromCannIni(const std::vector<HardwarePeaks>& table, const std::filesystem::path& ini) {
  std::map<std::string, std::string> kv = ReadIni(ini);
  std::string soc = kv.count("version.SoC_version") ? kv["version.SoC_version"] : ini.stem().string();
  HardwarePeaks h;
  auto known = HardwareByName(table, soc);
  if (known.ok()) h = *known;
  h.name = soc;
  double cores = IniNum(kv, "SoCInfo.cube_core_cnt");
  if (std::isnan(cores)) cores = IniNum(kv, "SoCInfo.ai_core_cnt");
  double vcores = IniNum(kv, "SoCInfo.vector_core_cnt");
  double freq = IniNum(kv, "AICoreSpec.cube_freq");
  double mkn = IniNum(kv, "AICoreSpec.cube_m_size") * IniNum(kv, "AICoreSpec.cube_k_size") *
               IniNum(kv, "AICoreSpec.cube_n_size");
  if (std::isnan(mkn)) mkn = 4096;  // 16x16x16: the fp16 fractal of every Ascend cube unit
  double vec = IniNum(kv, "AICoreSpec.vec_calc_size");
  double memory = IniNum(kv, "SoCInfo.memory_size");
  if (!std::isnan(cores) && !std::isnan(freq) && cores > 0 && freq > 0) {
    h.cube_core_count = int(cores);
    h.cube_freq_mhz = freq;
    h.cube_fp16_tflops = mkn * cores * freq * 2 / 1e6;
    h.cube_bf16_tflops = h.cube_fp16_tflops;
    double int8 = MknProduct(kv, "DtypeMKN.DT_INT8");
    if (!std::isnan(int8)) h.cube_int8_tops = int8 * cores * freq * 2 / 1e6;
    double fp32 = MknProduct(kv, "DtypeMKN.DT_FLOAT");
    if (!std::isnan(fp32)) h.cube_fp32_tflops = fp32 * cores * freq * 2 / 1e6;
    if (!std::isnan(vcores) && !std::isnan(vec) && vcores > 0) {
      h.vector_core_count = int(vcores);
      h.vector_fp16_tflops = vec * vcores * freq * 2 / 1e6;
      h.vector_fp32_tflops = h.vector_fp16_tflops / 2;
    }
  } else if (!known.ok()) {
    return std::nullopt;  // neither derivable nor in the table
  }
  if (!std::isnan(memory) && memory > 0) h.hbm_gb = memory / double(1ull << 30);
  h.sources.clear();
  h.source = fmt::format("CANN platform_config of the analysis host: {}{}", ini.string(),
                         known.ok() ? " (bandwidth from the bundled table)" : "");
  h.provenance = "the analysis host, not proven to be the capture host: pass --hardware-model for a historical capture";
  return h;
}

// No shell, and a deadline: a wedged driver must not hold analyze (`env` probes the same way).
std::string HostSocFromNpuSmi(std::chrono::milliseconds deadline) {
  const char* path = std::getenv("PATH");
  std::optional<std::string> exe = FindOnPath("npu-smi", path ? path : "");
  if (!exe) return "";
  ProcessRun r = RunProcess(*exe, {"info"}, deadline, false);
  if (r.exit_code != 0) return "";
  for (const char* soc : {"910B1", "910B2C", "910B2", "910B3", "910B4", "310P3", "310P1"})
    if (r.output.find(soc) != std::string::npos) return std::string("Ascend") + soc;
  return "";
}

std::optional<HardwarePeaks> ScanCannPlatformConfig(const std::vector<HardwarePeaks>& table,
                                                    const std::vector<std::filesystem::path>& dirs,
                                                    const std::string& host_soc) {
  if (dirs.empty()) return std::nullopt;
  std::error_code ec;
  std::vector<std::filesystem::path> inis;
  for (const auto& d : dirs)
    for (const auto& e : std::filesystem::directory_iterator(d, ec))
      if (e.path().extension() == ".ini") inis.push_back(e.path());
  std::sort(inis.begin(), inis.end());
  const std::string& soc = host_soc;
  for (const auto& p : inis)
    if (!soc.empty() && Lower(p.stem().string()) == Lower(soc)) return PeaksFromCannIni(table, p);
  if (inis.size() == 1) return PeaksFromCannIni(table, inis[0]);
  return std::nullopt;
}

}  // namespace optrace::analyze
