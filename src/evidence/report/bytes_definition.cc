#include "evidence/report/bytes_definition.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/file_io.h"

namespace optrace::evidence {

double BytesDefinition::BytesPerRank() const {
  if (bytes_per_rank) return *bytes_per_rank;
  double b = tokens_per_rank.value_or(0) * hidden.value_or(0) * dtype_bytes.value_or(0);
  if (kind == "logical_output_bytes") b *= topk.value_or(1);
  return b;
}

std::string BytesDefinition::Formula() const {
  if (bytes_per_rank) return fmt::format("{} B (given)", *bytes_per_rank);
  std::string f = fmt::format("{} tokens x {} hidden x {} B", *tokens_per_rank, *hidden, *dtype_bytes);
  if (kind == "logical_output_bytes" && topk) f += fmt::format(" x {} top-k", *topk);
  return f + fmt::format(" = {} B", BytesPerRank());
}

std::string_view UndefinedBytesWarning() {
  return "No bandwidth is given: a bandwidth needs its bytes defined first (`--bytes FILE`): effective cross-rank "
         "token bytes, logical output bytes including the top-k copies, or physical link bytes, and whether "
         "metadata, local traffic and protocol overhead are counted. The allocated output capacity divided by the "
         "time is not the network bandwidth, and MTE data-movement bandwidth is not network bandwidth.";
}

Result<BytesDefinition> ParseBytesDefinition(const std::string& text, const std::string& origin) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return BadInputError("{}: not a JSON object; see `optrace report --help` for the bytes file", origin);
  BytesDefinition b;
  b.path = origin;
  if (!j.contains("kind") || !j["kind"].is_string())
    return BadInputError("{}: 'kind' is required: effective_token_bytes, logical_output_bytes or physical_link_bytes",
                         origin);
  b.kind = j["kind"].get<std::string>();
  if (b.kind != "effective_token_bytes" && b.kind != "logical_output_bytes" && b.kind != "physical_link_bytes")
    return BadInputError("{}: kind '{}' is not one of effective_token_bytes, logical_output_bytes, "
                         "physical_link_bytes",
                         origin, b.kind);
  auto number = [&](const char* key, std::optional<double>& out) -> Status {
    if (!j.contains(key)) return Status::Ok();
    if (!j[key].is_number() || !(j[key].get<double>() > 0))
      return BadInputError("{}: '{}' must be a positive number", origin, key);
    out = j[key].get<double>();
    return Status::Ok();
  };
  OPTRACE_RETURN_IF_ERROR(number("bytes_per_rank", b.bytes_per_rank));
  OPTRACE_RETURN_IF_ERROR(number("tokens_per_rank", b.tokens_per_rank));
  OPTRACE_RETURN_IF_ERROR(number("hidden", b.hidden));
  OPTRACE_RETURN_IF_ERROR(number("dtype_bytes", b.dtype_bytes));
  OPTRACE_RETURN_IF_ERROR(number("topk", b.topk));
  if (!b.bytes_per_rank && !(b.tokens_per_rank && b.hidden && b.dtype_bytes))
    return BadInputError("{}: give bytes_per_rank, or tokens_per_rank, hidden and dtype_bytes", origin);
  if (b.kind == "logical_output_bytes" && !b.bytes_per_rank && !b.topk)
    return BadInputError("{}: logical_output_bytes counts the top-k copies: give topk (or bytes_per_rank)", origin);
  for (auto [key, out] : {std::pair{"includes_metadata", &b.includes_metadata},
                          std::pair{"includes_local_traffic", &b.includes_local_traffic},
                          std::pair{"includes_protocol_overhead", &b.includes_protocol_overhead}}) {
    if (!j.contains(key) || !j[key].is_boolean())
      return BadInputError("{}: '{}' (true or false) is required: the bytes are not defined without it", origin, key);
    *out = j[key].get<bool>();
  }
  if (j.contains("note") && j["note"].is_string()) b.note = j["note"].get<std::string>();
  return b;
}

Result<BytesDefinition> LoadBytesDefinition(const std::filesystem::path& path) {
  OPTRACE_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  return ParseBytesDefinition(text, path.string());
}

}  // namespace optrace::evidence
