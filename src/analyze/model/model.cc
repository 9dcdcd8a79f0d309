// Small helpers of the analysis model: interning and enum names.
#include "analyze/model/model.h"

#include <algorithm>

namespace optrace::analyze {

uint32_t StringTable::Intern(std::string_view s) {
  auto it = index_.find(s);
  if (it != index_.end()) return it->second;
  uint32_t id = static_cast<uint32_t>(strings_.size());
  strings_.emplace_back(s);
  index_.emplace(strings_.back(), id);
  return id;
}

void StringTable::Assign(std::vector<std::string> strings) {
  strings_ = std::move(strings);
  index_.clear();
  for (uint32_t i = 0; i < strings_.size(); ++i) index_.emplace(strings_[i], i);
  if (strings_.empty()) Intern("");
}

std::string_view InputKindName(InputKind k) {
  switch (k) {
    case InputKind::kTorchText: return "torch_npu_text";
    case InputKind::kTorchDb: return "torch_npu_db";
    case InputKind::kMsprof: return "msprof";
  }
  return "unknown";
}

namespace {
constexpr std::string_view kOpTypeNames[kOpTypeCount] = {"aic",           "aiv",    "mix_cv", "mix_comm_aiv",
                                                         "communication", "aicpu", "dsa",    "unknown"};
}  // namespace

std::string_view OpTypeName(OpType t) { return kOpTypeNames[static_cast<int>(t)]; }

std::optional<OpType> ParseOpType(std::string_view name) {
  for (int i = 0; i < kOpTypeCount; ++i)
    if (kOpTypeNames[i] == name) return static_cast<OpType>(i);
  return std::nullopt;
}

namespace {
struct PipeNames {
  std::string_view column, db, short_name;
};
constexpr PipeNames kPipeNames[kPipeCount] = {
    {"aicore_time(us)", "aic_total_time", "aicore_time"},
    {"aic_total_cycles", "aic_total_cycles", "aic_total_cycles"},
    {"aic_mac_time(us)", "aic_mac_time", "aic_mac_time"},
    {"aic_mac_ratio", "aic_mac_ratio", "aic_mac_ratio"},
    {"aic_scalar_time(us)", "aic_scalar_time", "aic_scalar_time"},
    {"aic_scalar_ratio", "aic_scalar_ratio", "aic_scalar_ratio"},
    {"aic_mte1_time(us)", "aic_mte1_time", "aic_mte1_time"},
    {"aic_mte1_ratio", "aic_mte1_ratio", "aic_mte1_ratio"},
    {"aic_mte2_time(us)", "aic_mte2_time", "aic_mte2_time"},
    {"aic_mte2_ratio", "aic_mte2_ratio", "aic_mte2_ratio"},
    {"aic_fixpipe_time(us)", "aic_fixpipe_time", "aic_fixpipe_time"},
    {"aic_fixpipe_ratio", "aic_fixpipe_ratio", "aic_fixpipe_ratio"},
    {"aic_icache_miss_rate", "aic_icache_miss_rate", "aic_icache_miss_rate"},
    {"aiv_time(us)", "aiv_total_time", "aiv_time"},
    {"aiv_total_cycles", "aiv_total_cycles", "aiv_total_cycles"},
    {"aiv_vec_time(us)", "aiv_vec_time", "aiv_vec_time"},
    {"aiv_vec_ratio", "aiv_vec_ratio", "aiv_vec_ratio"},
    {"aiv_scalar_time(us)", "aiv_scalar_time", "aiv_scalar_time"},
    {"aiv_scalar_ratio", "aiv_scalar_ratio", "aiv_scalar_ratio"},
    {"aiv_mte2_time(us)", "aiv_mte2_time", "aiv_mte2_time"},
    {"aiv_mte2_ratio", "aiv_mte2_ratio", "aiv_mte2_ratio"},
    {"aiv_mte3_time(us)", "aiv_mte3_time", "aiv_mte3_time"},
    {"aiv_mte3_ratio", "aiv_mte3_ratio", "aiv_mte3_ratio"},
    {"aiv_icache_miss_rate", "aiv_icache_miss_rate", "aiv_icache_miss_rate"},
    {"cube_utilization(%)", "", "cube_utilization"},
};
}  // namespace

std::string_view PipeColumnName(Pipe p) { return kPipeNames[static_cast<int>(p)].column; }
std::string_view Pipe910AColumnName(Pipe p) {
  switch (p) {
    case Pipe::kAicMacTime: return "mac_time(us)";
    case Pipe::kAicScalarTime: return "scalar_time(us)";
    case Pipe::kAicMte1Time: return "mte1_time(us)";
    case Pipe::kAicMte2Time: return "mte2_time(us)";
    case Pipe::kAivVecTime: return "vec_time(us)";
    case Pipe::kAivMte3Time: return "mte3_time(us)";
    default: return "";
  }
}
std::string_view PipeDbName(Pipe p) { return kPipeNames[static_cast<int>(p)].db; }
std::string_view PipeShortName(Pipe p) { return kPipeNames[static_cast<int>(p)].short_name; }

std::string_view BlockKindName(BlockKind k) {
  switch (k) {
    case BlockKind::kAttention: return "attention";
    case BlockKind::kFfn: return "ffn";
    case BlockKind::kMoe: return "moe";
    case BlockKind::kCommunication: return "communication";
    case BlockKind::kAicpu: return "aicpu";
    case BlockKind::kOther: return "other";
  }
  return "other";
}

std::string_view SeverityName(Severity s) {
  switch (s) {
    case Severity::kInfo: return "info";
    case Severity::kLow: return "low";
    case Severity::kMedium: return "medium";
    case Severity::kHigh: return "high";
  }
  return "info";
}

std::string GroupHash(std::string_view name) {
  uint32_t a = 0, b = 0;
  for (unsigned char c : name) {
    a = a * 29u + c;
    b = b * 131u + c;
  }
  return std::to_string((uint64_t{a} << 32) | b);
}

std::string ParallelKind(std::string_view pg) {
  // The first word of the name that names a parallelism ("dp_cp" -> dp, "tp_ep" -> tp); Megatron's
  // "mp" (model parallel) spans tp x pp and stays its own kind.
  size_t start = 0;
  while (start <= pg.size()) {
    size_t end = pg.find_first_of("_-", start);
    if (end == std::string_view::npos) end = pg.size();
    std::string_view w = pg.substr(start, end - start);
    if (w == "default" || w == "world" || w == "global") return "world";
    if (w == "tp" || w == "tensor") return "tp";
    if (w == "dp" || w == "data") return "dp";
    if (w == "pp" || w == "pipeline") return "pp";
    if (w == "ep" || w == "exp" || w == "expert" || w == "experts" || w == "moe") return "ep";  // MindSpeed: "exp"
    if (w == "cp" || w == "context") return "cp";
    if (w == "mp") return "mp";
    start = end + 1;
  }
  return "other";
}

const RankTable* AnalysisResult::FindRank(int rank) const {
  // Ranks are kept sorted (normalize): a binary search, called per step, layer and block, keeps
  // the later stages linear in the rank count. A table built out of order still finds by a scan.
  auto it = std::lower_bound(ranks.begin(), ranks.end(), rank, [](const RankTable& t, int r) { return t.rank < r; });
  if (it != ranks.end() && it->rank == rank) return &*it;
  for (const RankTable& r : ranks)
    if (r.rank == rank) return &r;
  return nullptr;
}

std::string FormatRankList(std::vector<int> ranks) {
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  std::string out;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += std::to_string(ranks[i]);
    if (j > i) out += (j == i + 1 ? "," : "-") + std::to_string(ranks[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace optrace::analyze
