// Rules: the data files that drive the analyze stages (taxonomy, layer anchors, blocks, thresholds).
//
//   OPTRACE_ASSIGN_OR_RETURN(Rules rules, LoadRules(""));        // built-in (data/analyze/*.json)
//   OPTRACE_ASSIGN_OR_RETURN(Rules rules, LoadRules("my_rules")); // DIR/*.json override built-ins
//   OpType t = rules.ClassifyCore("MIX_AIC", "FusedInferAttentionScore");
//
// A directory may hold any subset of the files; missing files keep the built-in ones. Regexes are
// ECMAScript, case-insensitive, searched anywhere in the string. Errors name the file and key.
#pragma once

#include <filesystem>

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/cost/hardware.h"
#include "analyze/model/model.h"
#include "analyze/cost/op_cost.h"
#include "core/bounded_regex.h"
#include "core/status.h"

namespace optrace::analyze {

struct BuiltinRuleFile {
  const char* name;
  const char* text;
};
const std::vector<BuiltinRuleFile>& BuiltinRuleFiles();  // generated at build time

struct RegexRule {
  std::string pattern;
  std::regex re;
  std::string value;  // op_type / kind / family
  bool Matches(std::string_view s) const { return BoundedSearch(s, re); }
};

struct Thresholds {
  double bubble_gap_min_us = 500, bubble_gap_min_wall_share = 0.01;
  double heavy_gap_min_us = 1000, heavy_gap_wall_share = 0.10;
  double recurring_bubble_min_ratio = 0.60;
  int recurring_bubble_min_complete_steps = 3;
  double comm_dominated_share = 0.50;
  // exposed_communication: per step, communication not hidden under compute >= this share of the
  // wall while under comm_overlap_max_ratio of the communication overlaps, and the step has at
  // least as much compute as that exposed time (so the overlap was there to be had).
  double exposed_comm_min_share = 0.10;
  double comm_overlap_max_ratio = 0.20;
  double rank_skew_ratio = 0.05, compute_imbalance_ratio = 0.05, collective_skew_ratio = 0.05;
  // slow_rank: the rank whose late arrivals cost the others the most wait (ms), net of the next
  // rank's (two ranks are a pair: a tie is no finding), at least slow_rank_min_wait_ms and
  // slow_rank_min_wait_share of the aligned steps' wall; medium from slow_rank_medium_wait_share,
  // high from slow_rank_high_wait_share. The outlier votes (slow_rank_two_rank_skew, three_sigma_k)
  // are reported beside it, they decide nothing.
  double slow_rank_min_wait_ms = 1.0, slow_rank_min_wait_share = 0.005, slow_rank_medium_wait_share = 0.05,
         slow_rank_high_wait_share = 0.10;
  double slow_rank_two_rank_skew = 0.05, three_sigma_k = 3.0;
  // host_op_compile: aclopCompileAndExecute host time (api_statistic.csv) >= host_compile_min_share
  // of the profiler step time (medium from host_compile_medium_share); host_sync: at least
  // host_sync_min_calls_per_step device synchronizations per step.
  double host_compile_min_share = 0.02, host_compile_medium_share = 0.05, host_sync_min_calls_per_step = 2;
  double aicpu_min_exposed_us = 50, aicpu_min_wall_share = 0.01;
  int top_operators = 5;
  double bound_mixed_margin = 0.10, dominant_core_share = 0.60;
  int max_evidence_items = 8;
  // An edge step (first or last of a rank) with fewer events than this share of the median of the
  // rank's other steps was cut by the capture window: PARTIAL_CAPTURE_BOUNDARY, not complete.
  double partial_step_min_event_share = 0.90;
  // A layer whose wall is more than this many times the median layer of its step class absorbed
  // something else (output head, loss, a collective): flagged and kept out of layer statistics.
  double layer_outlier_ratio = 3.0;
  // outlier_step: a complete step whose wall is >= outlier_step_ratio x the rank's median complete
  // step and >= outlier_step_min_ms longer, on a rank with >= outlier_step_min_steps complete steps.
  // slow_pipeline_stage: the pp stage with the most compute in >= pp_stage_bound_share of the
  // steps, and >= pp_stage_imbalance_ratio x the other stages' mean compute per step.
  // expert_load_imbalance: an EP group whose per-step peak-to-mean load (tokens, else time of the
  // grouped matmuls) averages >= ep_peak_to_mean, one rank hot in >= ep_hot_step_share of the steps.
  // device_waits_on_launch: launch-bound idle (host_launch.h) >= launch_bound_idle_share of the step
  // wall in >= launch_bound_step_share of a rank's complete steps.
  double launch_bound_idle_share = 0.10;
  double launch_bound_step_share = 0.50;
  // memory_near_device_limit: peak reserved memory >= this share of the device's HBM.
  double memory_near_limit_share = 0.90;
  double ep_peak_to_mean = 1.25;
  double ep_hot_step_share = 0.60;
  double pp_stage_bound_share = 0.60;
  double pp_stage_imbalance_ratio = 1.20;
  double outlier_step_ratio = 1.5;
  double outlier_step_min_ms = 1.0;
  int outlier_step_min_steps = 5;
  // Kernel rows must cover this share of what step_trace_time.csv / communication.json say the
  // rank spent; below it the rank's KPIs are low confidence.
  double kernel_coverage_min = 0.80;
  // Slow operator: the same operator slower on one rank than the median of the others by this
  // ratio (median over its calls), in at least this many calls.
  double slow_operator_ratio = 1.20;
  int slow_operator_min_calls = 3;
  double slow_operator_min_us = 10;  // medians below this are launch noise
  // Communication (communication.json / communication_matrix.json). A rank waiting more than this
  // share of (wait + transit) waits for another (the Ascend profiler's tuning guide uses 0.2).
  double comm_wait_ratio_high = 0.20;
  // Slow link: bandwidth below this share of the median of the other links of its transport, among
  // at least slow_link_min_links links that moved at least slow_link_min_mb each.
  double slow_link_ratio = 0.50;
  int slow_link_min_links = 3;
  double slow_link_min_mb = 1.0;
  // Small packets: packets below small_packet_mb carry at least this share of a transport's transit
  // time, on a rank whose transit time on it is at least small_packet_min_ms.
  double small_packet_mb = 1.0;
  double small_packet_time_share = 0.50;
  double small_packet_min_ms = 1.0;
  // Byte alignment (msprof-analyze advisor's ByteAlignmentChecker): SDMA copies over a link other
  // than ON_CHIP and above byte_alignment_min_bytes whose size is not a multiple of
  // byte_alignment_bytes; severity from their share of the checked copies' time (below
  // byte_alignment_low_share low, from byte_alignment_high_share high, medium between).
  int byte_alignment_bytes = 512;
  int byte_alignment_min_bytes = 512;
  double byte_alignment_low_share = 0.2;
  double byte_alignment_high_share = 0.7;
};

// efficiency_rules.json: which op types each cost family models, the per-element FLOPs of vector
// ops, the sustained factors of the roofline and the structural features of the fingerprint.
struct EfficiencyRules {
  OpCostRules cost;
  std::map<std::string, double> sustained;  // "cube:bf16" -> 0.95 (family class : dtype class)
  double sustained_default = 1.0;
  double bandwidth_sustained = 1.0;
  std::vector<RegexRule> features;           // value = feature name; matched on op type and name
};

// model_catalog.json: public model configurations, for the fingerprint's candidates and
// `analyze --model-id`. Values are keyed by the fingerprint's field names (ModelConfigValues).
struct CatalogModel {
  std::string id;      // "Qwen/Qwen2.5-7B"
  std::string family;  // "qwen2"
  std::map<std::string, double> values;
};

// The fields of a Hugging Face style config.json the fingerprint compares, under its own names
// (layer_count, hidden_size, ..., vocab_size_or_lm_head_shard), first present key wins; head_dim
// from hidden_size / num_attention_heads when the config does not state it. A multimodal config's
// text_config is read instead of the outer object.
std::map<std::string, double> ModelConfigValues(const nlohmann::json& config);

struct Rules {
  std::map<std::string, OpType> core_op_type;  // "AI_CORE" -> aic
  std::vector<RegexRule> comm_aiv_fused;
  std::vector<RegexRule> name_op_type;   // fallback when the core is unknown / N/A
  std::vector<RegexRule> hccl_kind;
  int min_anchor_count = 2;
  std::vector<RegexRule> layer_anchors;  // value = family
  std::map<OpType, BlockKind> op_type_block_kind;
  std::vector<RegexRule> block_kind;     // value = block kind name
  Thresholds thresholds;
  std::map<int, double> dixon_q95;       // n -> critical value
  EfficiencyRules efficiency;
  std::vector<HardwarePeaks> hardware;   // hardware_peaks.json
  std::vector<CatalogModel> model_catalog;  // model_catalog.json
  std::string fingerprint;               // "op_taxonomy.json=<FNV-1a 64 hex>,..." per rule file
  std::vector<std::string> sources;      // "builtin:op_taxonomy.json", "/abs/dir/op_taxonomy.json"

  OpType ClassifyCore(std::string_view core, std::string_view name) const;
  std::string HcclKind(std::string_view type, std::string_view name) const;  // "other" if none
  std::optional<BlockKind> EventBlockKind(OpType op, std::string_view name, std::string_view type) const;
};

// dir empty: built-ins only. Otherwise DIR/<file>.json replaces the built-in file of that name.
Result<Rules> LoadRules(const std::filesystem::path& dir);
std::optional<BlockKind> ParseBlockKind(std::string_view name);

}  // namespace optrace::analyze
