// Each finding's confidence and knowledge references (seed 002: "a confidence per finding, and
// findings that do not outrank their own confidence"; "knowledge references per finding").
#include <algorithm>
#include <string_view>

#include "analyze/diagnose/finding_builder.h"

namespace optrace::analyze::findings {
namespace {

constexpr std::string_view kRef = "skills/optrace-profiling-analysis/references/findings.md";

struct Knowledge {
  std::string_view type;
  std::string_view confidence;  // of the finding's cause when its data is complete
  std::string_view section;     // the reference's section
  std::string_view try_next;
};

// "medium": the finding measures something and names a cause it cannot see (a candidate).
constexpr Knowledge kKnowledge[] = {
    {"slow_rank", "high", "across-ranks",
     "look at what that rank does before the collectives it is late for (the evidence windows): a host launch delay, a "
     "data loader, an extra operator, a slower device; compare its slow_operator rows"},
    {"rank_step_skew", "high", "across-ranks", "pair with slow_rank / compute_imbalance to see who and why"},
    {"collective_rank_skew", "high", "across-ranks", "slow_link and comm_wait_dominated on the same ranks"},
    {"compute_imbalance", "medium", "across-ranks",
     "for MoE see expert_load_imbalance; for pipeline parallelism see slow_pipeline_stage; otherwise compare the "
     "ranks' inputs (sequence lengths, batch)"},
    {"slow_operator", "high", "across-ranks",
     "compare its shapes and block dim across ranks; a different kernel chosen, throttling or a weaker device"},
    {"expert_load_imbalance", "medium", "across-ranks", "router balance loss / capacity factor; token dropping"},
    {"slow_pipeline_stage", "high", "across-ranks", "move layers off that stage"},
    {"communication_dominated_step", "high", "inside-a-ranks-step",
     "larger micro-batch, fewer or fused collectives; check exposed_communication"},
    {"exposed_communication", "high", "inside-a-ranks-step",
     "overlap communication with compute (async collectives, a separate stream, bucketed gradient reduction)"},
    {"comm_wait_dominated", "medium", "inside-a-ranks-step", "the late rank's step: what it does before the collective"},
    {"slow_link", "high", "inside-a-ranks-step", "hardware / topology check of that pair (hccn_tool, npu-smi)"},
    {"mixed_transport_group", "high", "inside-a-ranks-step",
     "place the group's ranks on one server's HCCS (rank order, device visibility), or accept the slower link's time"},
    {"small_packets", "high", "inside-a-ranks-step", "fuse small collectives, bigger buckets"},
    {"unaligned_sdma_copies", "high", "inside-a-ranks-step",
     "pad the communicated tensors (or pick bucket / hidden sizes) to multiples of 512 bytes; msprof-analyze's advisor "
     "(byte alignment) lists the same operators"},
    {"recurring_bubble_pattern", "high", "inside-a-ranks-step",
     "the gap's host-side attribution (evidence/bubble_windows.jsonl) and the host events around it"},
    {"device_waits_on_launch", "high", "inside-a-ranks-step",
     "graph mode / torchair, fewer small operators, the task queue (TASK_QUEUE_ENABLE)"},
    {"prelaunch_gap_heavy", "high", "inside-a-ranks-step", "the host events in that window: data loading, logging"},
    {"tail_gap_heavy", "high", "inside-a-ranks-step", "the host events in that window: optimizer on host, logging"},
    {"aicpu_on_critical_path", "high", "inside-a-ranks-step",
     "find the AI CPU operator in the rows; a cast or a shape change brings it back to AI Core"},
    {"outlier_step", "high", "inside-a-ranks-step", "exclude it from a baseline; its listed differences say why"},
    {"layer_outlier", "high", "inside-a-ranks-step", "its longest operators are listed: first layer, embedding, a stall"},
    {"top_operator", "high", "inside-a-ranks-step", "roofline: operator_roofline_summary.csv with --hardware-model"},
    {"host_op_compile", "high", "inside-a-ranks-step",
     "torch_npu.npu.set_compile_mode(jit_compile=False); find the operators without an aclnn kernel"},
    {"host_sync", "high", "inside-a-ranks-step", "keep scalars on the device; read losses every N steps"},
    {"memory_near_device_limit", "high", "inside-a-ranks-step",
     "recompute activations, shard optimizer states, smaller micro-batch; expandable_segments"},
};

const Knowledge* KnowledgeOf(const std::string& type) {
  for (const Knowledge& k : kKnowledge)
    if (k.type == type) return &k;
  return nullptr;
}

Severity Cap(Severity s, std::string_view confidence) {
  if (confidence == "low") return std::min(s, Severity::kLow);
  if (confidence == "medium") return std::min(s, Severity::kMedium);
  return s;
}

}  // namespace

void AddConfidenceAndKnowledge(AnalysisResult& res, std::vector<Finding>& findings) {
  std::vector<int> low_ranks;
  for (const RankSummary& r : res.summaries.ranks)
    if (r.low_confidence) low_ranks.push_back(r.rank);
  for (Finding& f : findings) {
    const Knowledge* k = KnowledgeOf(f.type);
    f.confidence = k ? std::string(k->confidence) : "high";
    // A finding about a rank whose rows miss work, or a cross-rank one when any rank does.
    bool on_low = false;
    bool cross = f.rank < 0 || f.type == "slow_rank" || f.type == "rank_step_skew" ||
                 f.type == "collective_rank_skew" || f.type == "compute_imbalance";
    for (int r : low_ranks)
      on_low |= cross || r == f.rank || std::find(f.ranks.begin(), f.ranks.end(), r) != f.ranks.end();
    if (on_low) f.confidence = "low";
    f.severity = Cap(f.severity, f.confidence);
    if (k) f.knowledge_refs = {{std::string(kRef) + "#" + std::string(k->section), std::string(k->try_next)}};
  }
}

}  // namespace optrace::analyze::findings
