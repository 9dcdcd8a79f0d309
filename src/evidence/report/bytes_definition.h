// The bytes a reported bandwidth counts (seed 003: "if you report a bandwidth, define the bytes
// first"): which bytes (effective cross-rank token bytes, logical output bytes including top-k
// copies, or physical link bytes) and whether metadata, local traffic and protocol overhead are in.
//
//   OPTRACE_ASSIGN_OR_RETURN(BytesDefinition b, LoadBytesDefinition("bytes.json"));
//   double gbps = b.BytesPerRank() / (latency_us * 1e3);
//
// The file is one JSON object:
//   {"kind": "effective_token_bytes" | "logical_output_bytes" | "physical_link_bytes",
//    "bytes_per_rank": 58720256,                       // per rank per iteration, or:
//    "tokens_per_rank": 4096, "hidden": 7168, "dtype_bytes": 1, "topk": 8,   // topk: logical output only
//    "includes_metadata": false, "includes_local_traffic": false, "includes_protocol_overhead": false,
//    "note": "..."}
// The three includes_* answers are required: a bandwidth whose bytes are not defined is not given.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "core/status.h"

namespace optrace::evidence {

struct BytesDefinition {
  std::string path;
  std::string kind;  // effective_token_bytes, logical_output_bytes, physical_link_bytes
  std::optional<double> bytes_per_rank, tokens_per_rank, hidden, dtype_bytes, topk;
  bool includes_metadata = false, includes_local_traffic = false, includes_protocol_overhead = false;
  std::string note;
  double BytesPerRank() const;
  std::string Formula() const;  // "4096 tokens x 7168 hidden x 1 B x 8 top-k = 234881024 B"
};

Result<BytesDefinition> ParseBytesDefinition(const std::string& text, const std::string& origin);
Result<BytesDefinition> LoadBytesDefinition(const std::filesystem::path& path);

// The seed's warning, printed instead of a bandwidth when no definition is given.
std::string_view UndefinedBytesWarning();

}  // namespace optrace::evidence
