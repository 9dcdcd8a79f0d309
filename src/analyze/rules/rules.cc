// Loading the rules files (built-in or a directory) into Rules.
#include "analyze/rules/rules.h"

#include <nlohmann/json.hpp>

#include <charconv>

#include "core/file_io.h"
#include "core/json_number.h"

namespace optrace::analyze {
namespace {

using nlohmann::json;

Result<RegexRule> MakeRule(const std::string& origin, const std::string& pattern, std::string value) {
  RegexRule r;
  r.pattern = pattern;
  r.value = std::move(value);
  if (pattern.size() > kRegexPatternLimit) {
    return BadInputError("{}: a regex of {} characters (at most {}); shorten the pattern", origin, pattern.size(),
                         kRegexPatternLimit);
  }
  try {
    r.re = std::regex(pattern, std::regex::ECMAScript | std::regex::icase | std::regex::optimize);
  } catch (const std::regex_error& e) {
    return BadInputError("{}: bad regex '{}': {}; fix the pattern", origin, pattern, e.what());
  }
  return r;
}

Result<std::vector<RegexRule>> RuleList(const std::string& origin, const json& j, const char* key,
                                        const char* value_key) {
  std::vector<RegexRule> out;
  if (!j.contains(key)) return out;
  if (!j[key].is_array()) return BadInputError("{}: '{}' must be an array", origin, key);
  for (const json& item : j[key]) {
    std::string pattern, value;
    if (item.is_string()) {
      pattern = item.get<std::string>();
    } else if (item.is_object() && item.contains("regex") && item["regex"].is_string()) {
      pattern = item["regex"].get<std::string>();
      if (value_key) {
        if (!item.contains(value_key) || !item[value_key].is_string())
          return BadInputError("{}: an entry of '{}' lacks the string '{}'", origin, key, value_key);
        value = item[value_key].get<std::string>();
      }
    } else {
      return BadInputError("{}: entries of '{}' must be strings or objects with 'regex'", origin, key);
    }
    OPTRACE_ASSIGN_OR_RETURN(RegexRule r, MakeRule(origin, pattern, value));
    out.push_back(std::move(r));
  }
  return out;
}

Status ApplyTaxonomy(Rules& rules, const std::string& origin, const json& j) {
  if (j.contains("accelerator_core_op_type")) {
    rules.core_op_type.clear();
    for (auto& [core, v] : j["accelerator_core_op_type"].items()) {
      auto t = v.is_string() ? ParseOpType(v.get<std::string>()) : std::nullopt;
      if (!t) return BadInputError("{}: accelerator_core_op_type.{}: unknown op_type", origin, core);
      rules.core_op_type[core] = *t;
    }
  }
  OPTRACE_ASSIGN_OR_RETURN(rules.comm_aiv_fused, RuleList(origin, j, "comm_aiv_fused_name_regex", nullptr));
  OPTRACE_ASSIGN_OR_RETURN(rules.name_op_type, RuleList(origin, j, "name_op_type_fallback", "op_type"));
  for (const RegexRule& r : rules.name_op_type)
    if (!ParseOpType(r.value)) return BadInputError("{}: name_op_type_fallback: unknown op_type '{}'", origin, r.value);
  OPTRACE_ASSIGN_OR_RETURN(rules.hccl_kind, RuleList(origin, j, "hccl_kind", "kind"));
  return Status::Ok();
}

Status ApplySegmentation(Rules& rules, const std::string& origin, const json& j) {
  if (j.contains("min_anchor_count")) {
    std::optional<int64_t> n = JsonInteger(j["min_anchor_count"], 0, 1000000);
    if (!n) return BadInputError("{}: 'min_anchor_count' must be an integer from 0 to 1000000", origin);
    rules.min_anchor_count = static_cast<int>(*n);
  }
  OPTRACE_ASSIGN_OR_RETURN(rules.layer_anchors, RuleList(origin, j, "layer_anchors", "family"));
  return Status::Ok();
}

Status ApplyBlocks(Rules& rules, const std::string& origin, const json& j) {
  if (j.contains("op_type_block_kind")) {
    rules.op_type_block_kind.clear();
    for (auto& [op, v] : j["op_type_block_kind"].items()) {
      auto t = ParseOpType(op);
      auto k = v.is_string() ? ParseBlockKind(v.get<std::string>()) : std::nullopt;
      if (!t || !k) return BadInputError("{}: op_type_block_kind.{}: unknown op_type or block kind", origin, op);
      rules.op_type_block_kind[*t] = *k;
    }
  }
  OPTRACE_ASSIGN_OR_RETURN(rules.block_kind, RuleList(origin, j, "block_kind", "kind"));
  for (const RegexRule& r : rules.block_kind)
    if (!ParseBlockKind(r.value)) return BadInputError("{}: block_kind: unknown kind '{}'", origin, r.value);
  return Status::Ok();
}

Status ApplyDiagnosis(Rules& rules, const std::string& origin, const json& j) {
  Thresholds& t = rules.thresholds;
  auto num = [&](const char* key, double& out) {
    if (j.contains(key) && j[key].is_number()) out = j[key].get<double>();
  };
  Status bad = Status::Ok();
  auto integer = [&](const char* key, int& out) {
    if (!j.contains(key) || !j[key].is_number()) return;
    std::optional<int64_t> n = JsonInteger(j[key], 0, 1000000);
    if (n) out = static_cast<int>(*n);
    else if (bad.ok()) bad = BadInputError("{}: '{}' must be an integer from 0 to 1000000", origin, key);
  };
  num("bubble_gap_min_us", t.bubble_gap_min_us);
  num("bubble_gap_min_wall_share", t.bubble_gap_min_wall_share);
  num("heavy_gap_min_us", t.heavy_gap_min_us);
  num("heavy_gap_wall_share", t.heavy_gap_wall_share);
  num("recurring_bubble_min_ratio", t.recurring_bubble_min_ratio);
  integer("recurring_bubble_min_complete_steps", t.recurring_bubble_min_complete_steps);
  num("comm_dominated_share", t.comm_dominated_share);
  num("exposed_comm_min_share", t.exposed_comm_min_share);
  num("comm_overlap_max_ratio", t.comm_overlap_max_ratio);
  num("rank_skew_ratio", t.rank_skew_ratio);
  num("compute_imbalance_ratio", t.compute_imbalance_ratio);
  num("collective_skew_ratio", t.collective_skew_ratio);
  num("slow_rank_min_wait_ms", t.slow_rank_min_wait_ms);
  num("slow_rank_min_wait_share", t.slow_rank_min_wait_share);
  num("slow_rank_medium_wait_share", t.slow_rank_medium_wait_share);
  num("slow_rank_high_wait_share", t.slow_rank_high_wait_share);
  num("slow_rank_two_rank_skew", t.slow_rank_two_rank_skew);
  num("host_compile_min_share", t.host_compile_min_share);
  num("host_compile_medium_share", t.host_compile_medium_share);
  num("host_sync_min_calls_per_step", t.host_sync_min_calls_per_step);
  num("three_sigma_k", t.three_sigma_k);
  num("aicpu_min_exposed_us", t.aicpu_min_exposed_us);
  num("aicpu_min_wall_share", t.aicpu_min_wall_share);
  integer("top_operators", t.top_operators);
  num("bound_mixed_margin", t.bound_mixed_margin);
  num("dominant_core_share", t.dominant_core_share);
  integer("max_evidence_items", t.max_evidence_items);
  num("partial_step_min_event_share", t.partial_step_min_event_share);
  num("layer_outlier_ratio", t.layer_outlier_ratio);
  num("launch_bound_idle_share", t.launch_bound_idle_share);
  num("launch_bound_step_share", t.launch_bound_step_share);
  num("memory_near_limit_share", t.memory_near_limit_share);
  num("ep_peak_to_mean", t.ep_peak_to_mean);
  num("ep_hot_step_share", t.ep_hot_step_share);
  num("pp_stage_bound_share", t.pp_stage_bound_share);
  num("pp_stage_imbalance_ratio", t.pp_stage_imbalance_ratio);
  num("outlier_step_ratio", t.outlier_step_ratio);
  num("outlier_step_min_ms", t.outlier_step_min_ms);
  integer("outlier_step_min_steps", t.outlier_step_min_steps);
  num("kernel_coverage_min", t.kernel_coverage_min);
  num("slow_operator_ratio", t.slow_operator_ratio);
  integer("slow_operator_min_calls", t.slow_operator_min_calls);
  num("slow_operator_min_us", t.slow_operator_min_us);
  num("comm_wait_ratio_high", t.comm_wait_ratio_high);
  num("slow_link_ratio", t.slow_link_ratio);
  integer("slow_link_min_links", t.slow_link_min_links);
  num("slow_link_min_mb", t.slow_link_min_mb);
  num("small_packet_mb", t.small_packet_mb);
  num("small_packet_time_share", t.small_packet_time_share);
  num("small_packet_min_ms", t.small_packet_min_ms);
  integer("byte_alignment_bytes", t.byte_alignment_bytes);
  integer("byte_alignment_min_bytes", t.byte_alignment_min_bytes);
  num("byte_alignment_low_share", t.byte_alignment_low_share);
  num("byte_alignment_high_share", t.byte_alignment_high_share);
  return bad;
}

Status ApplyDixon(Rules& rules, const std::string& origin, const json& j) {
  if (!j.contains("q95") || !j["q95"].is_object()) return BadInputError("{}: missing object 'q95'", origin);
  rules.dixon_q95.clear();
  for (auto& [n, v] : j["q95"].items()) {
    int count = 0;
    auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), count);
    if (ec != std::errc() || end != n.data() + n.size() || count < 3 || count > 100000 || !v.is_number())
      return BadInputError("{}: q95 entry \"{}\": keys are sample counts (3 to 100000) and values numbers", origin, n);
    rules.dixon_q95[count] = v.get<double>();
  }
  return Status::Ok();
}

Status ApplyEfficiency(Rules& rules, const std::string& origin, const json& j) {
  EfficiencyRules& e = rules.efficiency;
  if (j.contains("families")) {
    if (!j["families"].is_object()) return BadInputError("{}: 'families' must map a family to op types", origin);
    e.cost.family_of_type.clear();
    for (auto& [family, types] : j["families"].items()) {
      if (!types.is_array()) return BadInputError("{}: families.{} must be an array of op types", origin, family);
      for (const json& t : types) e.cost.family_of_type[t.get<std::string>()] = family;
    }
  }
  if (j.contains("vector_ops")) {
    if (!j["vector_ops"].is_object()) return BadInputError("{}: 'vector_ops' must map op types to FLOPs per element", origin);
    for (auto& [type, flops] : j["vector_ops"].items()) {
      e.cost.vector_flops_per_element[type] = flops.get<double>();
      e.cost.family_of_type[type] = "vector";
    }
  }
  if (j.contains("sustained_factors")) {
    e.sustained.clear();
    for (auto& [key, v] : j["sustained_factors"].items()) {
      double f = v.get<double>();
      if (!(f > 0 && f <= 1)) return BadInputError("{}: sustained_factors.{} must be in (0, 1]", origin, key);
      if (key == "default") e.sustained_default = f;
      else if (key == "bandwidth") e.bandwidth_sustained = f;
      else e.sustained[key] = f;
    }
  }
  if (j.contains("features")) {
    OPTRACE_ASSIGN_OR_RETURN(e.features, RuleList(origin, j, "features", "feature"));
  }
  return Status::Ok();
}

Status ApplyCatalog(Rules& rules, const std::string& origin, const json& j) {
  if (!j.contains("models") || !j["models"].is_array())
    return BadInputError("{}: 'models' must be an array of {{id, family, config}}", origin);
  rules.model_catalog.clear();
  for (const json& m : j["models"]) {
    if (!m.is_object() || !m.contains("id") || !m["id"].is_string() || !m.contains("config") || !m["config"].is_object())
      return BadInputError("{}: every model needs an 'id' and a 'config' object", origin);
    CatalogModel c;
    c.id = m["id"].get<std::string>();
    c.family = m.value("family", "");
    c.values = ModelConfigValues(m["config"]);
    if (c.values.empty())
      return BadInputError("{}: model {}: its config holds none of the fields the fingerprint compares", origin, c.id);
    rules.model_catalog.push_back(std::move(c));
  }
  return Status::Ok();
}

Status ApplyFile(Rules& rules, const std::string& name, const std::string& origin, const std::string& text) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    return BadInputError("{}: malformed JSON at byte {}: {}", origin, e.byte, e.what());
  }
  if (!j.is_object()) return BadInputError("{}: expected a JSON object", origin);
  try {
    if (name == "op_taxonomy.json") return ApplyTaxonomy(rules, origin, j);
    if (name == "segmentation_rules.json") return ApplySegmentation(rules, origin, j);
    if (name == "block_rules.json") return ApplyBlocks(rules, origin, j);
    if (name == "diagnosis_rules.json") return ApplyDiagnosis(rules, origin, j);
    if (name == "dixon_q95.json") return ApplyDixon(rules, origin, j);
    if (name == "efficiency_rules.json") return ApplyEfficiency(rules, origin, j);
    if (name == "model_catalog.json") return ApplyCatalog(rules, origin, j);
    if (name == "hardware_peaks.json") {
      OPTRACE_ASSIGN_OR_RETURN(rules.hardware, ParseHardwareTable(origin, text));
      return Status::Ok();
    }
  } catch (const json::exception& e) {
    return BadInputError("{}: {}", origin, e.what());
  }
  return Status::Ok();  // unknown files are ignored (room for new rule files)
}

}  // namespace

std::map<std::string, double> ModelConfigValues(const nlohmann::json& config) {
  const nlohmann::json& j =
      config.contains("text_config") && config["text_config"].is_object() ? config["text_config"] : config;
  std::map<std::string, double> values;
  // Our field -> the config.json keys that hold it, first present wins.
  const std::vector<std::pair<std::string, std::vector<const char*>>> keys = {
      {"layer_count", {"num_hidden_layers", "n_layer", "num_layers"}},
      {"hidden_size", {"hidden_size", "d_model", "n_embd"}},
      {"intermediate_size", {"intermediate_size", "ffn_hidden_size"}},
      {"num_attention_heads", {"num_attention_heads", "n_head"}},
      {"num_key_value_heads", {"num_key_value_heads", "num_query_groups"}},
      {"head_dim", {"head_dim", "qk_nope_head_dim"}},
      {"num_experts", {"num_experts", "n_routed_experts", "num_local_experts"}},
      {"num_experts_per_tok", {"num_experts_per_tok", "moe_topk", "top_k"}},
      {"moe_intermediate_size", {"moe_intermediate_size"}},
      {"vocab_size_or_lm_head_shard", {"vocab_size", "padded_vocab_size"}},
  };
  if (!j.is_object()) return values;
  for (const auto& [field, names] : keys)
    for (const char* k : names)
      if (j.contains(k) && j[k].is_number()) {
        values[field] = j[k].get<double>();
        break;
      }
  if (!values.count("head_dim") && values.count("hidden_size") && values.count("num_attention_heads") &&
      values["num_attention_heads"] > 0)
    values["head_dim"] = values["hidden_size"] / values["num_attention_heads"];
  return values;
}

std::optional<BlockKind> ParseBlockKind(std::string_view name) {
  for (BlockKind k : {BlockKind::kAttention, BlockKind::kFfn, BlockKind::kMoe, BlockKind::kCommunication,
                      BlockKind::kAicpu, BlockKind::kOther})
    if (BlockKindName(k) == name) return k;
  return std::nullopt;
}

Result<Rules> LoadRules(const std::filesystem::path& dir) {
  Rules rules;
  auto fnv = [](std::string_view s) {  // FNV-1a 64
    uint64_t hash = 1469598103934665603ull;
    for (unsigned char c : s) hash = (hash ^ c) * 1099511628211ull;
    return hash;
  };
  for (const BuiltinRuleFile& f : BuiltinRuleFiles()) {
    std::string name = f.name;
    std::string origin = "builtin:" + name;
    std::string text = f.text;
    if (!dir.empty()) {
      std::filesystem::path p = ResolveAgainstCwd(dir) / name;
      std::error_code ec;
      if (std::filesystem::exists(p, ec)) {
        OPTRACE_ASSIGN_OR_RETURN(text, ReadFileToString(p));
        origin = p.string();
      }
    }
    OPTRACE_RETURN_IF_ERROR(ApplyFile(rules, name, origin, text));
    rules.sources.push_back(origin);
    rules.fingerprint += fmt::format("{}{}={:016x}", rules.fingerprint.empty() ? "" : ",", name, fnv(text));
  }
  if (!dir.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_directory(ResolveAgainstCwd(dir), ec))
      return NotFoundError("{}: rules directory not found; pass a directory holding *.json rule files", dir.string());
  }
  return rules;
}

OpType Rules::ClassifyCore(std::string_view core, std::string_view name) const {
  for (const RegexRule& r : comm_aiv_fused)
    if (r.Matches(name)) return OpType::kMixCommAiv;
  auto it = core_op_type.find(std::string(core));
  if (it != core_op_type.end()) return it->second;
  for (const RegexRule& r : name_op_type)
    if (r.Matches(name)) return *ParseOpType(r.value);
  return OpType::kUnknown;
}

std::string Rules::HcclKind(std::string_view type, std::string_view name) const {
  for (const RegexRule& r : hccl_kind)
    if (r.Matches(type) || r.Matches(name)) return r.value;
  return "other";
}

std::optional<BlockKind> Rules::EventBlockKind(OpType op, std::string_view name, std::string_view type) const {
  auto it = op_type_block_kind.find(op);
  if (it != op_type_block_kind.end()) return it->second;
  for (const RegexRule& r : block_kind)
    if (r.Matches(name) || r.Matches(type)) return ParseBlockKind(r.value);
  return std::nullopt;
}

}  // namespace optrace::analyze
