// Model fingerprint: what the profile alone says about the model (seed 002's "Profile-Derived Model
// Fingerprint"): layer count, hidden / intermediate / head / expert dimensions, sequence length,
// the lm-head shard when the logits matmul is visible, a rank-visible parameter lower bound, and
// structural features (MoE, MLA, dense flash attention, linear attention, RoPE).
//
//   ModelFingerprint fp = InferFingerprint(result, costs_by_event, rules, model_config);
//   for (const FingerprintField& f : fp.config) ... f.field, f.value ("" unknown), f.evidence
//
// Every value names its evidence (operator type, shape, count). Unknown stays unknown: a value is
// set only when an operator that carries it was seen. Dimensions are what one rank sees: under
// tensor parallelism heads, intermediate size and the lm head are shards. --model-config
// (config.json) is a cross-check, shown next to the profile's value; it never replaces it.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace optrace::analyze {

struct FingerprintField {
  std::string field;        // layer_count, hidden_size, ...
  std::string value;        // "" when the profile does not show it
  std::string evidence;     // "RmsNorm gamma [1024] (112 calls)"
  std::string scope;        // rank_visible (a shard under TP/EP) or global
  std::string config_value; // from --model-config ("" when not given / no such key)
  std::string agreement;    // equal, shard (config = value x an integer), differs, "" (nothing to compare)
};

struct FeatureRow {
  std::string feature;   // moe, mla, dense_flash_attention, linear_attention, rope, ...
  bool present = false;
  uint64_t calls = 0;
  std::string evidence;  // the op types that matched, with counts
};

struct LayerTypeRow {
  std::string layer_class;   // "L1"
  int members = 0;
  bool companion = false;
  std::string block_kinds;   // "attention,ffn"
  std::string top_ops;       // the layer class's heaviest operators
};

// A Hugging Face style config.json, the fields the fingerprint compares.
struct ModelConfig {
  std::filesystem::path path;
  std::map<std::string, double> values;  // field (our names) -> value
};
Result<ModelConfig> LoadModelConfig(const std::filesystem::path& path);
// How the report names where a config came from: "--model-config PATH", or "--model-id ID" for a
// config of the catalog (its path is "model_catalog.json:ID").
inline std::string ModelConfigSource(const std::string& path) {
  constexpr std::string_view kCatalog = "model_catalog.json:";
  return path.rfind(kCatalog, 0) == 0 ? "--model-id " + path.substr(kCatalog.size()) : "--model-config " + path;
}

// A model of the catalog (model_catalog.json) whose configuration agrees with the profile:
// narrows the range, never a finding (seed 002's model_candidate_summary).
struct ModelCandidate {
  std::string id, family;
  double score = 0;       // agreeing / compared
  int compared = 0;       // fields both the profile and the catalog know
  int agreeing = 0;       // of those, equal or a shard
  std::string agreeing_fields, differing_fields;
};

struct ModelFingerprint {
  std::vector<FingerprintField> config;
  std::vector<ModelCandidate> candidates;  // best first, at most five
  std::vector<FeatureRow> features;
  std::vector<LayerTypeRow> layer_types;
  std::string model_config_path;  // "" when not given
};

}  // namespace optrace::analyze
