// Efficiency tables (efficiency.h): operator calculation and roofline, MFU, hardware peaks, and the
// model fingerprint.
#include <fmt/format.h>

#include "analyze/efficiency/efficiency.h"
#include "analyze/efficiency/kernel_focus.h"
#include "analyze/report/summary_tables.h"
#include "analyze/report/table_helpers.h"

namespace optrace::analyze::report {

using namespace internal;

namespace {

Table OperatorEfficiencyTable(const AnalysisResult& r, const Efficiency& eff) {
  Table t{"operator_efficiency_summary",
          {"name", "type", "family", "input_shapes", "output_shapes", "input_dtypes", "compute_dtype", "dims",
           "rank_count", "calls", "total_us", "mean_us", "flops_per_call", "bytes_per_call", "arithmetic_intensity",
           "achieved_tflops", "achieved_gbps", "peak_tflops", "peak_share", "sustained_factor", "bound",
           "attainable_us_per_call", "reclaim_us", "note"},
          {}};
  for (const OperatorEfficiency& o : eff.operators)
    t.rows.push_back({S(r.Str(o.name)), S(r.Str(o.type)), S(o.cost.family), S(r.Str(o.input_shapes)),
                      S(r.Str(o.output_shapes)), S(r.Str(o.input_dtypes)), S(o.cost.compute_dtype), S(o.cost.dims),
                      I(o.rank_count), I(int64_t(o.calls)), D(o.total_us), D(o.total_us / double(o.calls)),
                      D(o.cost.flops), D(o.cost.bytes), D(o.cost.bytes > 0 ? o.cost.intensity() : kMissing),
                      D(o.achieved_tflops), D(o.achieved_gbps), D(o.peak_tflops), D(o.peak_share),
                      D(o.sustained_factor), S(o.bound), D(o.attainable_us), D(o.reclaim_us), S(o.cost.note)});
  return t;
}

Table OperatorRooflineTable(const AnalysisResult& r, const Efficiency& eff) {
  Table t{"operator_roofline_summary",
          {"name", "type", "family", "compute_dtype", "calls", "total_us", "flops", "bytes", "arithmetic_intensity",
           "achieved_tflops", "peak_share", "bound", "reclaim_us"},
          {}};
  for (const OperatorClassEfficiency& c : eff.classes)
    t.rows.push_back({S(r.Str(c.name)), S(r.Str(c.type)), S(c.family), S(c.compute_dtype), I(int64_t(c.calls)),
                      D(c.total_us), D(c.flops), D(c.bytes), D(c.intensity), D(c.achieved_tflops), D(c.peak_share),
                      S(c.bound), D(c.reclaim_us)});
  return t;
}

Table NotModelledTable(const AnalysisResult& r, const Efficiency& eff) {
  Table t{"operator_not_modelled_summary", {"type", "calls", "total_us", "compute_time_share", "reason"}, {}};
  for (const UnmodelledType& u : eff.unmodelled)
    t.rows.push_back({S(r.Str(u.type)), I(int64_t(u.calls)), D(u.total_us), D(Ratio(u.total_us, eff.compute_us)),
                      S(u.reason)});
  return t;
}

Table MfuTable(const Efficiency& eff) {
  Table t{"mfu_summary",
          {"scope", "key", "steps", "wall_ms", "model_flops", "cube_flops", "achieved_tflops", "peak_dtype",
           "peak_tflops", "mfu", "modelled_compute_share"},
          {}};
  for (const MfuRow& m : eff.mfu)
    t.rows.push_back({S(m.scope), S(m.key), I(m.steps), D(m.wall_ms), D(m.flops), D(m.cube_flops),
                      D(m.achieved_tflops), S(eff.mfu_dtype), D(eff.mfu_peak_tflops), D(m.mfu),
                      D(m.modelled_compute_share)});
  return t;
}

Table HardwarePeaksTable(const Efficiency& eff) {
  Table t{"hardware_theoretical_peaks", {"hardware", "metric", "value", "unit", "citation", "source", "provenance"}, {}};
  if (!eff.hardware) return t;
  const HardwarePeaks& h = *eff.hardware;
  auto row = [&](const char* metric, double v, const char* unit) {
    auto c = h.sources.find(metric);
    t.rows.push_back({S(h.name), S(std::string(metric)), D(v), S(std::string(unit)), S(c == h.sources.end() ? std::string() : c->second), S(h.source),
                      S(h.provenance)});
  };
  row("cube_core_count", h.cube_core_count < 0 ? kMissing : h.cube_core_count, "cores");
  row("vector_core_count", h.vector_core_count < 0 ? kMissing : h.vector_core_count, "cores");
  row("cube_freq_mhz", h.cube_freq_mhz, "MHz");
  row("cube_fp16_tflops", h.cube_fp16_tflops, "TFLOPS");
  row("cube_bf16_tflops", h.cube_bf16_tflops, "TFLOPS");
  row("cube_int8_tops", h.cube_int8_tops, "TOPS");
  row("cube_fp32_tflops", h.cube_fp32_tflops, "TFLOPS");
  row("vector_fp16_tflops", h.vector_fp16_tflops, "TFLOPS");
  row("vector_fp32_tflops", h.vector_fp32_tflops, "TFLOPS");
  row("hbm_gb", h.hbm_gb, "GB");
  row("hbm_bandwidth_gbps", h.hbm_bandwidth_gbps, "GB/s");
  for (const auto& [key, f] : eff.sustained_factors) {
    t.rows.push_back({S(h.name), S("sustained_factor:" + key), D(f), S(std::string("x peak")), S(std::string("efficiency_rules.json")),
                      S(std::string("seed 002 measurements (Ascend910B4)")),
                      S(std::string("applies to the roofline and reclaim ranking, not MFU"))});
  }
  return t;
}

Table ModelConfigTable(const Efficiency& eff) {
  Table t{"model_inferred_config", {"field", "value", "scope", "evidence", "config_value", "agreement"}, {}};
  for (const FingerprintField& f : eff.fingerprint.config)
    t.rows.push_back({S(f.field), f.value.empty() ? Cell() : S(f.value), S(f.scope),
                      S(f.value.empty() ? std::string("unknown: no operator carrying it was seen") : f.evidence),
                      f.config_value.empty() ? Cell() : S(f.config_value), S(f.agreement)});
  return t;
}

Table ModelFeatureTable(const Efficiency& eff) {
  Table t{"model_feature_summary", {"feature", "present", "calls", "evidence"}, {}};
  for (const FeatureRow& f : eff.fingerprint.features)
    t.rows.push_back({S(f.feature), Bool(f.present), I(int64_t(f.calls)), S(f.evidence)});
  return t;
}

Table ModelLayerTypeTable(const Efficiency& eff) {
  Table t{"model_layer_type_summary", {"layer_class", "members", "companion_layer", "block_kinds", "top_ops"}, {}};
  for (const LayerTypeRow& l : eff.fingerprint.layer_types)
    t.rows.push_back({S(l.layer_class), I(l.members), Bool(l.companion), S(l.block_kinds), S(l.top_ops)});
  return t;
}

// The catalog's models that agree with the fingerprint (model_catalog.json): written only when
// some do; a candidate narrows the range, it is not a finding.
Table ModelCandidateTable(const Efficiency& eff) {
  Table t{"model_candidate_summary",
          {"rank", "model_id", "family", "score", "fields_compared", "fields_agreeing", "agreeing", "differing"},
          {}};
  int rank = 0;
  for (const ModelCandidate& c : eff.fingerprint.candidates)
    t.rows.push_back({I(++rank), S(c.id), S(c.family), D(c.score), I(c.compared), I(c.agreeing), S(c.agreeing_fields),
                      S(c.differing_fields)});
  return t;
}

}  // namespace

std::vector<Table> EfficiencyTables(const AnalysisResult& r, const Efficiency& eff) {
  std::vector<Table> out;
  out.push_back(OperatorEfficiencyTable(r, eff));
  out.push_back(OperatorRooflineTable(r, eff));
  out.push_back(NotModelledTable(r, eff));
  out.push_back(MfuTable(eff));
  out.push_back(HardwarePeaksTable(eff));
  out.push_back(ModelConfigTable(eff));
  out.push_back(ModelFeatureTable(eff));
  out.push_back(ModelLayerTypeTable(eff));
  if (!eff.fingerprint.candidates.empty()) out.push_back(ModelCandidateTable(eff));
  return out;
}

std::vector<Table> KernelFocusTables(const AnalysisResult& r, const KernelFocus& f) {
  Table calls{"kernel_calls",
              {"rank", "call", "name", "step_id", "start_ns", "dur_us", "launch_gap_us", "period_us", "source_file",
               "row"},
              {}};
  Table lat{"kernel_latency", {"rank", "iteration", "elapsed_us", "is_warmup", "in_average", "measurement"}, {}};
  for (const KernelCall& c : f.calls) {
    const RankTable* t = r.FindRank(c.rank);
    const Event& e = t->events[c.event];
    calls.rows.push_back({I(c.rank), I(c.call), S(r.Str(e.name)), KnownI(c.step_id), I(c.start_ns), D(c.dur_us),
                          D(c.launch_gap_us), c.period_us < 0 ? Cell() : D(c.period_us),
                          S(e.file < t->files.size() ? t->files[e.file].path : std::string()), I(int64_t(e.row))});
    lat.rows.push_back({I(c.rank), I(c.call), D(c.dur_us), I(0), I(1), S(std::string("kernel"))});
  }
  Table its{"kernel_iterations", {"iteration", "ranks", "max_us", "min_us", "skew_us", "slowest_rank"}, {}};
  for (const KernelIteration& it : f.iterations)
    its.rows.push_back({I(it.call), I(it.ranks), D(it.max_us), D(it.min_us), D(it.max_us - it.min_us),
                        I(it.slowest_rank)});
  return {std::move(calls), std::move(its), std::move(lat)};
}

}  // namespace optrace::analyze::report
