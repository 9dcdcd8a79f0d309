#include "analyze/report/summary_json.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>

#include "analyze/efficiency/efficiency.h"

namespace optrace::analyze::report {
namespace {

using Json = nlohmann::ordered_json;
constexpr size_t kMaxListedStepIds = 64;
constexpr size_t kMaxMfuRowsPerScope = 32;

// Six decimals are plenty for ms / ratios and keep the file compact and stable.
double R6(double v) { return std::isfinite(v) ? std::round(v * 1e6) / 1e6 : 0.0; }

std::map<std::string, double> R6(const std::map<std::string, double>& m) {
  std::map<std::string, double> out;
  for (const auto& [k, v] : m) out[k] = R6(v);
  return out;
}

double Median(std::vector<double> v) { return v.empty() ? 0.0 : Quantile((std::sort(v.begin(), v.end()), v), 0.5); }

Json StatsJson(const SummaryStats& s) {
  return Json{{"count", s.count}, {"mean", R6(s.mean)}, {"p50", R6(s.p50)}, {"p90", R6(s.p90)},
              {"max", R6(s.max)},   {"min", R6(s.min)}};
}

Json IdentityJson(const AnalysisResult& r, const ReportContext& ctx) {
  const Identity& id = r.identity;
  Json ranks = Json::array();
  for (const RankTable& rank : r.ranks) {
    Json one{{"rank", rank.rank}, {"input_kind", InputKindName(rank.kind)}, {"dir", rank.dir},
             {"event_count", rank.events.size()}};
    // Seed 003's mapping: host, node, global rank, device and PID, each with the file that says it.
    if (!rank.node.empty()) one["node"] = rank.node;
    if (rank.device_id >= 0) one["device_id"] = rank.device_id;
    const ProcessIdentity& p = rank.identity.process;
    if (!p.hostname.empty()) {
      one["hostname"] = p.hostname;
      one["hostname_from"] = p.hostname_from;
    }
    if (p.pid >= 0) {
      one["pid"] = p.pid;
      one["pid_from"] = p.pid_from;
    }
    if (p.inferred) one["process_inferred"] = true;
    if (!p.conflict.empty()) one["process_conflict"] = p.conflict;
    ranks.push_back(std::move(one));
  }
  Json j{{"roots", id.roots},
         {"rank_count", r.ranks.size()},
         {"ranks", ranks},
         {"mode", ctx.mode},
         {"profiler_level", id.profiler_level},
         {"torch_npu_version", id.torch_npu_version},
         {"cann_version", id.cann_version},
         {"device_name", id.device_name},
         {"event_count", id.event_count}};
  Json without = Json::array();
  for (const RankInput& in : r.discovery.ranks_without_kernels) without.push_back({{"rank", in.rank}, {"dir", in.dir.string()}});
  if (!without.empty()) j["ranks_without_kernel_data"] = without;
  return j;
}

Json StepValidationJson(const AnalysisResult& r) {
  std::map<int, std::vector<const Step*>> by_rank;
  std::map<std::string, int> sources;
  int complete = 0, boundary = 0;
  for (const Step& s : r.steps) {
    by_rank[s.rank].push_back(&s);
    ++sources[s.step_source];
    complete += s.complete ? 1 : 0;
    boundary += s.partial_capture_boundary ? 1 : 0;
  }
  Json per_rank = Json::array();
  std::set<std::vector<int64_t>> id_sets;
  for (const RankTable& rank : r.ranks) {
    std::vector<int64_t> ids;
    int rank_complete = 0;
    for (const Step* s : by_rank[rank.rank]) {
      ids.push_back(s->step_id);
      rank_complete += s->complete ? 1 : 0;
    }
    id_sets.insert(ids);
    size_t n = ids.size();
    if (ids.size() > kMaxListedStepIds) ids.resize(kMaxListedStepIds);  // compact: the CSVs list them all
    per_rank.push_back({{"rank", rank.rank}, {"steps", n}, {"complete_steps", rank_complete}, {"step_ids", ids},
                        {"step_ids_truncated", n > ids.size()}});
  }
  return Json{{"step_count", r.steps.size()},
              {"complete_step_count", complete},
              {"partial_capture_boundary_count", boundary},
              {"step_sources", sources},
              {"ranks_agree", id_sets.size() <= 1},
              {"alignment_method", r.cross_rank.alignment_method},
              {"aligned_step_count", r.cross_rank.steps.size()},
              {"per_rank", per_rank}};
}

// Layers per step against the model's own count where --model-config gives one (seed 002: a
// config that says 61 layers on an 8-layer capture is a mismatch, never "consistent"). Under
// pipeline parallelism a rank holds its stage's share: expected / pp stages.
Json LayerValidationJson(const AnalysisResult& r, const Efficiency* efficiency) {
  std::map<int, std::vector<double>> per_rank_counts;
  std::vector<double> all;
  std::set<std::string> anchors;
  for (const Step& s : r.steps) {
    if (!s.layer_anchor.empty()) anchors.insert(s.layer_anchor);
    if (!s.complete) continue;
    per_rank_counts[s.rank].push_back(static_cast<double>(s.layers.size()));
    all.push_back(static_cast<double>(s.layers.size()));
  }
  double median = Median(all);
  Json per_rank = Json::array();
  Json outliers = Json::array();
  for (const auto& [rank, counts] : per_rank_counts) {
    double m = Median(counts);
    bool outlier = m != median;
    per_rank.push_back({{"rank", rank}, {"layers_per_step_median", m}, {"outlier", outlier}});
    if (outlier) outliers.push_back(rank);
  }
  bool same = all.empty() || std::all_of(all.begin(), all.end(), [&](double v) { return v == all.front(); });
  std::string status = r.layers.empty() ? "no_layers" : same ? "consistent" : "varies";
  Json expected = nullptr, source = nullptr;
  const FingerprintField* config = nullptr;
  if (efficiency)
    for (const FingerprintField& f : efficiency->fingerprint.config)
      if (f.field == "layer_count" && !f.config_value.empty()) config = &f;
  double want = config ? std::atof(config->config_value.c_str()) : 0;
  if (want > 0) {
    expected = want;
    source = ModelConfigSource(efficiency->fingerprint.model_config_path);
    int stages = 0;
    for (const RankSummary& s : r.summaries.ranks) stages = std::max(stages, s.pp_stage + 1);
    double per_rank = stages > 1 ? want / stages : want;
    if (r.layers.empty()) status = "no_layers";
    else if (median == want || (stages > 1 && std::fabs(median - per_rank) < 1.0)) status = same ? "consistent" : "varies";
    else status = "mismatch";
  }
  return Json{{"expected_layers", expected},
              {"expected_source", source},
              {"detected_layer_count", r.layers.size()},
              {"detected_layers_per_step",
               {{"min", all.empty() ? 0.0 : *std::min_element(all.begin(), all.end())},
                {"median", median},
                {"max", all.empty() ? 0.0 : *std::max_element(all.begin(), all.end())}}},
              {"anchors", anchors},
              {"status", status},
              {"outlier_ranks", outliers},
              {"per_rank", per_rank}};
}

}  // namespace

Json EvidenceJson(const Evidence& e) {
  Json j = Json::object();
  if (!e.file.empty()) j["file"] = e.file;
  if (e.row_first || e.row_last) {
    j["row_first"] = e.row_first;
    j["row_last"] = e.row_last;
  }
  if (e.rank >= 0) j["rank"] = e.rank;
  if (e.step_id >= 0) j["step_id"] = e.step_id;
  if (e.window_start_ns >= 0) {
    j["window_start_ns"] = e.window_start_ns;
    j["window_end_ns"] = e.window_end_ns;
  }
  if (!e.note.empty()) j["note"] = e.note;
  return j;
}

Json FindingJson(const Finding& f) {
  Json numbers = Json::object();
  for (const auto& [name, value] : f.numbers) numbers[name] = std::isfinite(value) ? Json(R6(value)) : Json();
  Json evidence = Json::array();
  for (const Evidence& e : f.evidence) evidence.push_back(EvidenceJson(e));
  Json j{{"id", f.id}, {"severity", SeverityName(f.severity)}, {"type", f.type}, {"summary", f.summary}};
  if (f.rank >= 0) j["rank"] = f.rank;
  if (!f.ranks.empty()) j["ranks"] = f.ranks;
  if (f.step_id >= 0) j["step_id"] = f.step_id;
  j["confidence"] = f.confidence;
  j["numbers"] = numbers;
  j["evidence"] = evidence;
  Json refs = Json::array();
  for (const auto& [read, try_next] : f.knowledge_refs) refs.push_back({{"read", read}, {"try", try_next}});
  j["knowledge_refs"] = refs;
  return j;
}

Json KpisJson(const Kpis& k) {
  return Json{{"rank_count", k.rank_count},
              {"event_count", k.event_count},
              {"step_count", k.step_count},
              {"complete_step_count", k.complete_step_count},
              {"layer_count", k.layer_count},
              {"wall_ms_sum", R6(k.wall_ms_sum)},
              {"step_wall_ms", StatsJson(k.step_wall_ms)},
              {"profiler_step_ms", StatsJson(k.profiler_step_ms)},
              {"host_prepare_ms", StatsJson(k.host_prepare_ms)},
              {"busy_ms_sum", R6(k.busy_ms_sum)},
              {"bubble_ms_sum", R6(k.bubble_ms_sum)},
              {"bubble_ratio", R6(k.bubble_ratio)},
              {"bubbling_step_count", k.bubbling_step_count},
              {"comm_ms_sum", R6(k.comm_ms_sum)},
              {"comm_share", R6(k.comm_share)},
              {"hccl_total_ms", R6(k.hccl_total_ms)},
              {"hccl_share_of_wall", R6(k.hccl_share_of_wall)},
              {"hccl_top_kind", k.hccl_top_kind},
              {"hccl_top_kind_ms", R6(k.hccl_top_kind_ms)},
              {"hccl_max_rank_skew_ratio", R6(k.hccl_max_rank_skew_ratio)},
              {"top_step_class",
               {{"id", k.top_step_class_id},
                {"members", k.top_step_class_members},
                {"wall_ms_mean", R6(k.top_step_wall_ms_mean)},
                {"wall_ms_p90", R6(k.top_step_wall_ms_p90)},
                {"bubble_ratio_mean", R6(k.top_step_bubble_ratio_mean)}}},
              {"bound_family_ms", R6(k.bound_family_ms)},
              {"op_type_ms", R6(k.op_type_ms)},
              {"max_step_skew_ratio", R6(k.max_step_skew_ratio)},
              {"max_collective_skew_ratio", R6(k.max_collective_skew_ratio)},
              {"compute_imbalance_ratio", R6(k.compute_imbalance_ratio)},
              {"pipeline_coverage", {{"events", R6(k.pipeline_event_coverage)}, {"operators", R6(k.pipeline_operator_coverage)}}}};
}

// Device bubbles and their candidate host-side causes (cross_rank.bubbles).
Json HostAttributionJson(const AnalysisResult& r) {
  Json by_label = Json::object();
  for (const BubbleWindow& b : r.cross_rank.bubbles)
    by_label[b.label] = by_label.value(b.label, 0) + 1;
  return Json{{"bubbles", r.cross_rank.bubbles.size()},
              {"by_label", by_label},
              {"not_attributed_without_trace_view", r.cross_rank.bubbles_without_trace}};
}

// How the host fed the device (cross_rank.launches): per rank over its complete steps.
Json HostLaunchJson(const AnalysisResult& r) {
  std::map<int, std::vector<const StepLaunch*>> by_rank;
  for (const StepLaunch& L : r.cross_rank.launches)
    if (L.complete) by_rank[L.rank].push_back(&L);
  Json ranks = Json::array();
  for (const auto& [rank, steps] : by_rank) {
    int64_t idle = 0, wall = 0, launches = 0, delay_max = 0;
    int depth = -1;
    for (const StepLaunch* L : steps) {
      idle += L->launch_bound_idle_ns;
      wall += L->step_wall_ns;
      launches += L->launches;
      delay_max = std::max(delay_max, L->delay_max_ns);
      depth = std::max(depth, L->max_queue_depth);
    }
    ranks.push_back({{"rank", rank},
                     {"complete_steps", steps.size()},
                     {"launches", launches},
                     {"launch_bound_idle_ms", R6(double(idle) / 1e6)},
                     {"launch_bound_idle_share", R6(wall > 0 ? double(idle) / double(wall) : 0.0)},
                     {"delay_max_ms", R6(double(delay_max) / 1e6)},
                     {"max_task_queue_depth", depth < 0 ? Json() : Json(depth)}});
  }
  return Json{{"ranks", ranks}, {"ranks_without_flows", r.cross_rank.launch_ranks_without_flows}};
}

// The share of time in dynamic-shape operators per rank (OP State); null where no OP State.
Json DynamicShapesJson(const AnalysisResult& r) {
  std::map<int, std::pair<double, double>> by_rank;  // dynamic us, stated us
  for (const OperatorSummary& o : r.summaries.operators) {
    if (o.dynamic_calls + o.static_calls == 0) continue;
    by_rank[o.rank].first += o.dynamic_us;
    by_rank[o.rank].second += o.dynamic_us + o.static_us;
  }
  Json ranks = Json::array();
  for (const auto& [rank, v] : by_rank)
    ranks.push_back({{"rank", rank}, {"dynamic_ms", R6(v.first / 1e3)}, {"stated_ms", R6(v.second / 1e3)},
                     {"dynamic_share", R6(v.second > 0 ? v.first / v.second : 0.0)}});
  return Json{{"in_capture", !by_rank.empty()}, {"ranks", ranks}};
}

// The MoE / LLM views of report.md: expert-parallel load, pipeline stages, device memory.
Json ParallelViewsJson(const AnalysisResult& r) {
  Json ep = Json::array();
  for (const ExpertGroupLoad& g : r.cross_rank.expert_load) {
    Json ranks = Json::array();
    for (const ExpertRankLoad& l : g.ranks)
      ranks.push_back({{"rank", l.rank}, {"calls", l.calls}, {"tokens_per_step", R6(l.tokens_per_step)},
                       {"ms_per_step", R6(l.ms_per_step)}, {"hot_steps", l.hot_steps}});
    ep.push_back({{"group", g.group}, {"by_tokens", g.by_tokens}, {"steps", g.steps},
                  {"mean_peak_to_mean", R6(g.mean_peak_to_mean)}, {"max_peak_to_mean", R6(g.max_peak_to_mean)},
                  {"max_over_min", R6(g.max_over_min)}, {"hot_rank", g.hot_rank}, {"worst_step_id", g.worst_step_id},
                  {"ranks", ranks}});
  }
  Json pp = Json::array();
  for (const PipelineStage& p : r.cross_rank.pipeline_stages)
    pp.push_back({{"stage", p.stage}, {"ranks", p.ranks}, {"steps", p.steps}, {"compute_ms", R6(p.compute_ms)},
                  {"comm_ms", R6(p.comm_ms)}, {"idle_ms", R6(p.bubble_ms)}, {"warmup_ms", R6(p.warmup_ms)},
                  {"cooldown_ms", R6(p.cooldown_ms)}, {"wall_ms", R6(p.wall_ms)},
                  {"bounding_steps", p.bounding_steps}});
  Json mem = Json::array();
  for (const RankMemory& m : r.summaries.memory) {
    Json comps = Json::array();
    for (const ComponentMemory& c : m.components)
      comps.push_back({{"component", c.component}, {"peak_reserved_mb", R6(c.peak_reserved_mb)},
                       {"peak_allocated_mb", IsMissing(c.peak_allocated_mb) ? Json() : Json(R6(c.peak_allocated_mb))},
                       {"peak_step_id", c.peak_step_id}, {"memory_record_row", c.peak_row}});
    mem.push_back({{"rank", m.rank}, {"components", comps}});
  }
  return Json{{"expert_load", ep}, {"pipeline_stages", pp}, {"device_memory", mem}};
}

// Efficiency: hardware, MFU, top reclaim, coverage and the fingerprint; null numbers where unknown.
Json EfficiencyJson(const AnalysisResult& r, const Efficiency* eff) {
  if (!eff) return nullptr;
  auto num = [](double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); };
  Json hw = nullptr;
  if (eff->hardware) {
    const HardwarePeaks& h = *eff->hardware;
    hw = {{"name", h.name},
          {"source", h.source},
          {"provenance", h.provenance},
          {"cube_fp16_tflops", num(h.cube_fp16_tflops)},
          {"cube_bf16_tflops", num(h.cube_bf16_tflops)},
          {"cube_int8_tops", num(h.cube_int8_tops)},
          {"vector_fp16_tflops", num(h.vector_fp16_tflops)},
          {"hbm_bandwidth_gbps", num(h.hbm_bandwidth_gbps)}};
  }
  // At most kMaxMfuRowsPerScope rows per scope, the heaviest by wall: a capture of 400k
  // one-row steps has 400k step classes (issue 29.12); mfu_summary.csv has every row.
  std::map<std::string, std::vector<const MfuRow*>> by_scope;
  std::vector<std::string> scopes;
  for (const MfuRow& m : eff->mfu) {
    auto& list = by_scope[m.scope];
    if (list.empty()) scopes.push_back(m.scope);
    list.push_back(&m);
  }
  Json mfu = Json::array();
  Json mfu_rows_total = Json::object();
  std::vector<const MfuRow*> kept;
  for (const std::string& scope : scopes) {
    std::vector<const MfuRow*>& list = by_scope[scope];
    mfu_rows_total[scope] = list.size();
    if (list.size() > kMaxMfuRowsPerScope) {
      std::stable_sort(list.begin(), list.end(), [](const MfuRow* a, const MfuRow* b) { return a->wall_ms > b->wall_ms; });
      list.resize(kMaxMfuRowsPerScope);
    }
    kept.insert(kept.end(), list.begin(), list.end());
  }
  for (const MfuRow* mp : kept) {
    const MfuRow& m = *mp;
    mfu.push_back({{"scope", m.scope}, {"key", m.key}, {"steps", m.steps}, {"wall_ms", R6(m.wall_ms)},
                   {"cube_flops", m.cube_flops}, {"achieved_tflops", num(m.achieved_tflops)}, {"mfu", num(m.mfu)},
                   {"modelled_compute_share", num(m.modelled_compute_share)}});
  }
  Json reclaim = Json::array();
  for (const OperatorEfficiency& o : eff->operators) {
    if (reclaim.size() >= 5 || !(o.reclaim_us > 0)) continue;
    reclaim.push_back({{"name", r.Str(o.name)}, {"type", r.Str(o.type)}, {"family", o.cost.family},
                       {"dims", o.cost.dims}, {"calls", o.calls}, {"total_us", R6(o.total_us)},
                       {"achieved_tflops", num(o.achieved_tflops)}, {"peak_share", num(o.peak_share)},
                       {"bound", o.bound}, {"reclaim_us", R6(o.reclaim_us)}});
  }
  Json config = Json::object();
  for (const FingerprintField& f : eff->fingerprint.config)
    config[f.field] = f.value.empty() ? Json(nullptr) : Json(f.value);
  Json features = Json::array();
  for (const FeatureRow& f : eff->fingerprint.features)
    if (f.present) features.push_back(f.feature);
  Json candidates = Json::array();
  for (const ModelCandidate& c : eff->fingerprint.candidates)
    candidates.push_back({{"model_id", c.id}, {"family", c.family}, {"score", R6(c.score)}, {"fields_compared", c.compared},
                          {"fields_agreeing", c.agreeing}});
  return Json{{"hardware", hw},
              {"hardware_note", eff->hardware ? "" : eff->hardware_note},
              {"mfu_dtype", eff->mfu_dtype},
              {"mfu_peak_tflops", num(eff->mfu_peak_tflops)},
              {"modelled_calls", eff->modelled_calls},
              {"compute_calls", eff->compute_calls},
              {"modelled_compute_time_share", num(eff->compute_us > 0 ? eff->modelled_us / eff->compute_us : NAN)},
              {"mfu", mfu},
              {"mfu_rows_total", mfu_rows_total},
              {"top_reclaim", reclaim},
              {"model_fingerprint", {{"config", config}, {"features", features}, {"candidates", candidates}}}};
}

Json BuildAnalysisSummary(const AnalysisResult& r, const Kpis& kpis, const ReportContext& ctx) {
  Json findings = Json::array();
  for (const Finding& f : r.findings) findings.push_back(FindingJson(f));
  Json issues = Json::array();
  for (const DataIssue& d : r.issues) {
    issues.push_back({{"name", d.name}, {"severity", d.severity}, {"count", d.count}, {"description", d.description},
                      {"example", d.example}});
  }
  Json artifacts = Json::object();
  for (const Artifact& a : ctx.artifacts) artifacts[a.key] = a.file;
  // Communication: null numbers where the export did not provide the field.
  auto num = [](double v) { return IsMissing(v) ? Json(nullptr) : Json(v); };
  Json comm_ranks = Json::array(), comm_transports = Json::array(), slow_links = Json::array();
  for (const CommRankSummary& c : r.summaries.comm_ranks)
    comm_ranks.push_back({{"rank", c.rank}, {"collective_ops", c.ops}, {"elapse_ms", num(c.elapse_ms)},
                          {"transit_ms", num(c.transit_ms)}, {"wait_ms", num(c.wait_ms)},
                          {"synchronization_ms", num(c.sync_ms)}, {"idle_ms", num(c.idle_ms)},
                          {"wait_ratio", num(c.wait_ratio)}, {"synchronization_ratio", num(c.sync_ratio)}});
  for (const CommTransportSummary& c : r.summaries.comm_transports)
    comm_transports.push_back({{"rank", c.rank}, {"transport", c.transport}, {"transit_size_mb", c.size_mb},
                               {"transit_time_ms", c.time_ms}, {"bandwidth_gbps", num(c.bandwidth_gbps)},
                               {"small_packet_time_share", num(c.small_packet_time_share)}});
  std::vector<const CommLinkSummary*> links;
  for (const CommLinkSummary& l : r.summaries.comm_links)
    if (l.transport != "LOCAL" && !IsMissing(l.bandwidth_gbps)) links.push_back(&l);
  std::sort(links.begin(), links.end(), [](auto* a, auto* b) { return a->bandwidth_gbps < b->bandwidth_gbps; });
  for (size_t i = 0; i < links.size() && i < 5; ++i)
    slow_links.push_back({{"reported_by_rank", links[i]->reported_by}, {"group", links[i]->group},
                          {"src_local_rank", links[i]->src}, {"dst_local_rank", links[i]->dst},
                          {"transport", links[i]->transport}, {"transit_size_mb", links[i]->size_mb},
                          {"transit_time_ms", links[i]->time_ms}, {"bandwidth_gbps", links[i]->bandwidth_gbps}});
  Json groups = Json::array();
  for (const ParallelGroup& g : r.summaries.groups) {
    Json j = {{"group", g.hash}, {"pg_name", g.pg_name}, {"kind", g.kind}, {"global_ranks", g.global_ranks}};
    for (const GroupSkew& k : r.cross_rank.groups)
      if (k.group == g.hash) {
        j["collectives"] = k.collectives;
        j["max_skew_ratio"] = k.max_skew_ratio;
        j["last_rank"] = k.last_rank;
      }
    groups.push_back(j);
  }
  Json pp_stages = Json::object();
  for (const RankSummary& s : r.summaries.ranks)
    if (s.pp_stage >= 0) pp_stages[std::to_string(s.rank)] = s.pp_stage;
  Json communication = {{"ranks", comm_ranks}, {"transports", comm_transports}, {"slowest_links", slow_links},
                        {"link_count", r.summaries.comm_links.size()}, {"groups", groups}, {"pp_stage_by_rank", pp_stages}};
  return Json{{"schema_version", kAnalysisSummarySchemaVersion},
              {"kind", "optrace.analysis_summary"},
              {"generator", ctx.generator},
              {"identity", IdentityJson(r, ctx)},
              {"step_validation", StepValidationJson(r)},
              {"layer_validation", LayerValidationJson(r, ctx.efficiency)},
              {"kpis", KpisJson(kpis)},
              {"communication", communication},
              {"host_attribution", HostAttributionJson(r)},
              {"host_launch", HostLaunchJson(r)},
              {"dynamic_shapes", DynamicShapesJson(r)},
              {"parallel_views", ParallelViewsJson(r)},
              {"efficiency", EfficiencyJson(r, ctx.efficiency)},
              {"finding_counts", kpis.finding_counts},
              {"findings", findings},
              {"data_issues", issues},
              {"artifacts", artifacts},
              {"limitations", r.limitations}};
}

}  // namespace optrace::analyze::report
