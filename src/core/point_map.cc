#include "core/point_map.h"
#include "core/json_text.h"

#include <climits>
#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/file_io.h"
#include "core/json_number.h"

namespace optrace {
namespace {
using nlohmann::json;

constexpr std::string_view kFormatName = "optrace-point-map";

Result<uint32_t> ParseId(const std::string& key, std::string_view origin) {
  if (key.empty() || key.size() > 10) return BadInputError("{}: point id \"{}\" is not a decimal number", origin, key);
  uint64_t v = 0;
  for (char c : key) {
    if (c < '0' || c > '9') return BadInputError("{}: point id \"{}\" is not a decimal number", origin, key);
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  if (v > 0xffffffffull) return BadInputError("{}: point id {} does not fit in 32 bits", origin, key);
  return static_cast<uint32_t>(v);
}

}  // namespace

Result<PointMap> ParsePointMap(std::string_view json_text, std::string_view origin) {
  json doc = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    // Re-parse with exceptions off is silent about where; find the byte offset for the message.
    try {
      json unused = json::parse(json_text);  // throws with the byte offset
      (void)unused;
    } catch (const json::parse_error& e) {
      return BadInputError("{}: not valid JSON at byte {}; regenerate it with 'optrace scan'", origin, e.byte);
    }
    return BadInputError("{}: not valid JSON; regenerate it with 'optrace scan'", origin);
  }
  if (!doc.is_object() || !doc.contains("points") || !doc["points"].is_object()) {
    return BadInputError("{}: no \"points\" object; this is not a point map (expected "
                         "{{\"points\": {{\"<id>\": {{\"label\", \"event_type\", ...}}}}}})", origin);
  }
  // Top-level fields a hand-edited map may hold with the wrong type: say which, never throw.
  for (const char* key : {"format", "id_scheme", "source_root"}) {
    if (doc.contains(key) && !doc[key].is_string()) {
      return BadInputError("{}: \"{}\" must be a string; regenerate the map with 'optrace scan'", origin, key);
    }
  }
  PointMap map;
  bool optrace_format = doc.value("format", "") == kFormatName;
  std::string scheme = doc.value("id_scheme", optrace_format ? "fnv1a31" : "sequential");
  map.scheme = scheme == "fnv1a31" ? PointIdScheme::kFnv1a31 : PointIdScheme::kLegacySequential;
  map.source_root = doc.value("source_root", "");
  for (const auto& [key, value] : doc["points"].items()) {
    OPTRACE_ASSIGN_OR_RETURN(uint32_t id, ParseId(key, origin));
    if (!value.is_object() || !value.contains("label") || !value["label"].is_string()) {
      return BadInputError("{}: point {} has no \"label\" string", origin, key);
    }
    PointInfo info;
    info.id = id;
    info.label = value["label"].get<std::string>();
    if (value.contains("event_type") && !value["event_type"].is_string()) {
      return BadInputError("{}: point {} (\"{}\"): \"event_type\" must be the string \"B\" or \"E\"", origin, key,
                           info.label);
    }
    std::string type = value.value("event_type", "");
    if (type != "B" && type != "E") {
      return BadInputError("{}: point {} (\"{}\") has event_type \"{}\"; expected \"B\" or \"E\"", origin, key,
                           info.label, type);
    }
    info.event_type = type[0];
    if (value.contains("file") && value["file"].is_string()) info.file = value["file"].get<std::string>();
    if (value.contains("line")) info.line = static_cast<int>(JsonInteger(value["line"], 0, INT_MAX).value_or(0));
    if (value.contains("column")) info.column = static_cast<int>(JsonInteger(value["column"], 0, INT_MAX).value_or(0));
    if (value.contains("event_id") && value["event_id"].is_number_integer()) {
      info.event_id = value["event_id"].get<int64_t>();
    }
    map.points.emplace(id, std::move(info));
  }
  return map;
}

Result<PointMap> LoadPointMap(const std::filesystem::path& path) {
  OPTRACE_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  return ParsePointMap(text, path.string());
}

uint64_t PointSetFingerprint(const PointMap& map) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const auto& [id, point] : map.points) {  // std::map: ascending ids
    for (int byte = 0; byte < 4; ++byte) {
      h ^= (id >> (8 * byte)) & 0xffu;
      h *= 0x100000001b3ull;
    }
  }
  return h == 0 ? 1 : h;
}

std::string SerializePointMap(const PointMap& map) {
  json doc = json::object();
  doc["format"] = kFormatName;
  doc["version"] = PointMap::kSchemaVersion;
  doc["id_scheme"] = map.scheme == PointIdScheme::kFnv1a31 ? "fnv1a31" : "sequential";
  doc["source_root"] = map.source_root;
  json points = json::object();
  json labels = json::object();
  for (const auto& [id, p] : map.points) {
    json entry = {{"label", p.label},
                  {"event_type", std::string(1, p.event_type)},
                  {"file", p.file},
                  {"line", p.line},
                  {"column", p.column},
                  {"event_id", p.event_id}};
    points[std::to_string(id)] = std::move(entry);
    json& l = labels[p.label];
    if (!l.contains("label_id")) {
      l["label_id"] = map.scheme == PointIdScheme::kFnv1a31 ? json(id >> 1) : json(nullptr);
      l["files"] = json::array();
    }
    if (std::find(l["files"].begin(), l["files"].end(), p.file) == l["files"].end()) l["files"].push_back(p.file);
  }
  doc["points"] = std::move(points);
  doc["labels"] = std::move(labels);
  return JsonText(doc) + "\n";
}

}  // namespace optrace
