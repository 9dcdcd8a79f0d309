// Host name and process id of a rank, from the files that state them (process_identity.h).
#include "analyze/read/process_identity.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <fstream>
#include <set>
#include <nlohmann/json.hpp>
#include <vector>

#include "analyze/read/json_file.h"
#include "core/file_io.h"
#include "core/json_number.h"

namespace optrace::analyze {
namespace {

using nlohmann::json;

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A pid as msprof writes it: a JSON integer or a string of digits; Linux pids are below 2^22,
// other systems' below 2^31.
std::optional<int64_t> PidOf(const json& v) {
  if (auto n = JsonInteger(v, 1, INT32_MAX)) return *n;
  if (v.is_string() && AllDigits(v.get<std::string>()) && v.get<std::string>().size() <= 10) {
    int64_t n = std::stoll(v.get<std::string>());
    if (n >= 1 && n <= INT32_MAX) return n;
  }
  return std::nullopt;
}

bool IsInfoJsonName(const std::string& name) {
  return name == "info.json" || (name.rfind("info.json.", 0) == 0 && AllDigits(name.substr(10)));
}

// PROF_* folders that may hold info.json: the rank folder itself (an msprof PROF_*), its PROF_*
// children (torch_npu keeps msprof's PROF_* inside *_ascend_pt), and the folder above an
// export-output folder.
std::vector<std::filesystem::path> ProfDirs(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> out{dir};
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.is_directory(ec) && e.path().filename().string().rfind("PROF_", 0) == 0) out.push_back(e.path());
  }
  std::string name = dir.filename().string();
  if (name == "mindstudio_profiler_output" || name == "ASCEND_PROFILER_OUTPUT") out.push_back(dir.parent_path());
  std::sort(out.begin() + 1, out.end());
  return out;
}

// The info.json files that speak for `device` (its device_<id>/info.json.<id>, then host/info.json);
// for device -1, host/info.json, and a device's file only where the folder holds one device (the
// devices of one node may be different processes).
std::vector<std::filesystem::path> InfoJsonFiles(const std::filesystem::path& dir, int device) {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  for (const std::filesystem::path& prof : ProfDirs(dir)) {
    std::vector<std::filesystem::path> host, own, devices;
    std::set<std::string> device_dirs;
    for (const auto& sub : std::filesystem::directory_iterator(prof, ec)) {
      std::string sub_name = sub.path().filename().string();
      const bool is_host = sub_name == "host";
      if ((!is_host && sub_name.rfind("device_", 0) != 0) || !sub.is_directory(ec)) continue;
      if (!is_host) device_dirs.insert(sub_name);
      const bool is_own = device >= 0 && sub_name == "device_" + std::to_string(device);
      std::error_code ec2;
      for (const auto& f : std::filesystem::directory_iterator(sub.path(), ec2)) {
        if (!IsInfoJsonName(f.path().filename().string())) continue;
        (is_host ? host : is_own ? own : devices).push_back(f.path());
      }
    }
    std::sort(own.begin(), own.end());
    out.insert(out.end(), own.begin(), own.end());
    out.insert(out.end(), host.begin(), host.end());
    if (device < 0 && device_dirs.size() == 1) {
      std::sort(devices.begin(), devices.end());
      out.insert(out.end(), devices.begin(), devices.end());
    }
  }
  return out;
}

void ReadInfoJson(const std::filesystem::path& path, const std::filesystem::path& dir, ProcessIdentity& id) {
  Result<json> parsed = ParseJsonFile(path);  // a malformed file is a blank, not an error
  if (!parsed.ok() || !parsed->is_object()) return;
  const json& j = *parsed;
  std::string from = std::filesystem::relative(path, dir.parent_path()).generic_string();
  if (j.contains("hostname") && j["hostname"].is_string() && !j["hostname"].get<std::string>().empty())
    OfferHostname(id, j["hostname"].get<std::string>(), from);
  if (j.contains("pid")) {
    if (auto pid = PidOf(j["pid"])) OfferPid(id, *pid, from);
  }
}

// The JSON object around `at` in `text` (braces counted; trace_view records are flat but for `args`).
std::optional<std::string_view> EnclosingObject(std::string_view text, size_t at) {
  int depth = 0;
  size_t begin = std::string_view::npos;
  for (size_t i = at; i-- > 0;) {
    if (text[i] == '}') ++depth;
    if (text[i] == '{') {
      if (depth == 0) {
        begin = i;
        break;
      }
      --depth;
    }
    if (at - i > 4096) return std::nullopt;
  }
  if (begin == std::string_view::npos) return std::nullopt;
  depth = 0;
  for (size_t i = begin; i < text.size() && i - begin < 8192; ++i) {
    if (text[i] == '{') ++depth;
    if (text[i] == '}' && --depth == 0) return text.substr(begin, i - begin + 1);
  }
  return std::nullopt;
}

void ReadTraceViewPythonPid(const std::filesystem::path& path, const std::filesystem::path& dir, ProcessIdentity& id) {
  constexpr size_t kWindow = 8u << 20;
  std::ifstream in(path, std::ios::binary);
  if (!in) return;
  std::string text(kWindow, '\0');
  in.read(text.data(), static_cast<std::streamsize>(kWindow));
  text.resize(static_cast<size_t>(in.gcount()));
  std::string from = std::filesystem::relative(path, dir.parent_path()).generic_string() + " (process \"Python\")";
  for (size_t at = text.find("\"process_name\""); at != std::string::npos; at = text.find("\"process_name\"", at + 1)) {
    auto object = EnclosingObject(text, at);
    if (!object) continue;
    json j = json::parse(*object, nullptr, false);
    if (!j.is_object() || j.value("name", json()) != "process_name" || !j.contains("args") || !j["args"].is_object())
      continue;
    if (j["args"].value("name", json()) != "Python" || !j.contains("pid")) continue;
    if (auto pid = PidOf(j["pid"])) {
      OfferPid(id, *pid, from);
      return;
    }
  }
}

}  // namespace

void OfferHostname(ProcessIdentity& id, std::string_view name, std::string_view from) {
  if (id.hostname.empty()) {
    id.hostname = name;
    id.hostname_from = from;
  } else if (id.hostname != name && id.conflict.empty()) {
    id.conflict = fmt::format("hostname '{}' ({}) against '{}' ({})", name, from, id.hostname, id.hostname_from);
  }
}

void OfferPid(ProcessIdentity& id, int64_t value, std::string_view from) {
  if (id.pid < 0) {
    id.pid = value;
    id.pid_from = from;
  } else if (id.pid != value && id.conflict.empty()) {
    id.conflict = fmt::format("pid {} ({}) against {} ({})", value, from, id.pid, id.pid_from);
  }
}

std::optional<WorkerName> ParseAscendPtFolderName(std::string_view folder) {
  constexpr std::string_view kSuffix = "_ascend_pt";
  if (folder.size() <= kSuffix.size() || folder.substr(folder.size() - kSuffix.size()) != kSuffix) return std::nullopt;
  std::string_view rest = folder.substr(0, folder.size() - kSuffix.size());
  size_t cut = rest.rfind('_');
  if (cut == std::string_view::npos) return std::nullopt;
  std::string_view stamp = rest.substr(cut + 1);
  // torch_npu's stamps: %Y%m%d%H%M%S%f minus 3 digits (17), with a '.' before the ms, or seconds only (14).
  bool stamp_ok = (stamp.size() == 17 && AllDigits(stamp)) || (stamp.size() == 14 && AllDigits(stamp)) ||
                  (stamp.size() == 18 && stamp[14] == '.' && AllDigits(stamp.substr(0, 14)) && AllDigits(stamp.substr(15)));
  if (!stamp_ok) return std::nullopt;
  rest = rest.substr(0, cut);
  cut = rest.rfind('_');
  if (cut == std::string_view::npos || cut == 0) return std::nullopt;
  std::string_view pid = rest.substr(cut + 1);
  if (!AllDigits(pid) || pid.size() > 10) return std::nullopt;
  int64_t n = std::stoll(std::string(pid));
  if (n < 1 || n > INT32_MAX) return std::nullopt;
  return WorkerName{std::string(rest.substr(0, cut)), n};
}

void ReadProcessIdentity(const std::filesystem::path& dir, const std::filesystem::path& trace_view,
                         ProcessIdentity& id, int device) {
  for (const std::filesystem::path& f : InfoJsonFiles(dir, device)) ReadInfoJson(f, dir, id);
  if (!trace_view.empty()) ReadTraceViewPythonPid(trace_view, dir, id);
  if (auto w = ParseAscendPtFolderName(dir.filename().string()); w && (id.hostname.empty() || id.pid < 0)) {
    const std::string from = "folder name (torch_npu's default worker name {hostname}_{pid}; inferred)";
    if (id.hostname.empty()) {
      id.hostname = w->hostname;
      id.hostname_from = from;
      id.inferred = true;
    }
    if (id.pid < 0) {
      id.pid = w->pid;
      id.pid_from = from;
      id.inferred = true;
    }
  }
}

}  // namespace optrace::analyze
