// report.md section 10: model fingerprint, hardware peaks / MFU, operator calculation and roofline.
#include <fmt/format.h>

#include <cmath>

#include "analyze/efficiency/efficiency.h"
#include "analyze/report/markdown_report.h"
#include "analyze/report/markdown_table.h"
#include "analyze/report/table.h"

namespace optrace::analyze::report {
namespace {

using internal::MdTable;
using internal::Row;

std::string N(double v) { return std::isnan(v) ? "-" : FormatNumber(v); }
std::string Pct(double v) { return std::isnan(v) ? "-" : fmt::format("{:.1f}%", v * 100); }
std::string Sig(double v, const char* unit) {
  if (std::isnan(v)) return "-";
  return fmt::format("{:.4g} {}", v, unit);
}
// 1.2e12 -> "1.2 TFLOP"
std::string Flops(double v) {
  if (std::isnan(v) || v <= 0) return "-";
  const char* units[] = {"FLOP", "kFLOP", "MFLOP", "GFLOP", "TFLOP", "PFLOP"};
  int u = 0;
  while (v >= 1000 && u < 5) v /= 1000, ++u;
  return fmt::format("{:.3g} {}", v, units[u]);
}

void Fingerprint(const AnalysisResult& r, const Efficiency& eff, std::ostream& out) {
  const ModelFingerprint& fp = eff.fingerprint;
  out << "### 10.1 Profile-derived model fingerprint\n\n";
  out << "From the profile alone (shapes, operator families, segmentation); `model_inferred_config.csv`. "
         "rank_visible values are what one rank computes (shards under tensor / expert parallelism); unknown stays "
         "unknown.\n\n";
  std::vector<Row> rows;
  bool config = !fp.model_config_path.empty();
  for (const FingerprintField& f : fp.config) {
    Row row{f.field, f.value.empty() ? "unknown" : f.value, f.scope, f.value.empty() ? "-" : f.evidence};
    if (config) row.push_back(f.config_value.empty() ? "-" : f.config_value), row.push_back(f.agreement.empty() ? "-" : f.agreement);
    rows.push_back(std::move(row));
  }
  Row header{"field", "value", "scope", "evidence"};
  if (config) header.push_back("config.json"), header.push_back("agreement");
  MdTable(out, header, rows);
  if (config)
    out << fmt::format("`{}` is a cross-check: it never replaces the profile's value.\n\n",
                       ModelConfigSource(fp.model_config_path));
  if (!fp.candidates.empty()) {
    std::vector<Row> cand;
    for (const ModelCandidate& c : fp.candidates)
      cand.push_back({c.id, fmt::format("{} of {}", c.agreeing, c.compared), c.agreeing_fields.empty() ? "-" : c.agreeing_fields,
                      c.differing_fields.empty() ? "-" : c.differing_fields});
    out << "Models of the catalog (`model_catalog.json`) that agree with it, best first "
           "(`model_candidate_summary.csv`); a candidate narrows the range, it is not a finding:\n\n";
    MdTable(out, {"model", "fields agreeing", "agreeing", "differing"}, cand);
  }
  std::vector<std::string> present, absent;
  for (const FeatureRow& f : fp.features) (f.present ? present : absent).push_back(f.feature);
  out << fmt::format("Structural features seen: {}. Not seen: {}. (`model_feature_summary.csv` names the operators.)\n\n",
                     present.empty() ? "none" : fmt::format("{}", fmt::join(present, ", ")),
                     absent.empty() ? "none" : fmt::format("{}", fmt::join(absent, ", ")));
  if (!fp.layer_types.empty()) {
    std::vector<Row> lt;
    for (size_t i = 0; i < fp.layer_types.size() && i < 6; ++i) {
      const LayerTypeRow& l = fp.layer_types[i];
      lt.push_back({l.layer_class, std::to_string(l.members), l.companion ? "yes" : "no", l.block_kinds, l.top_ops});
    }
    MdTable(out, {"layer class", "members", "companion", "block kinds", "heaviest operators"}, lt);
  }
  (void)r;
}

void HardwareAndMfu(const Efficiency& eff, std::ostream& out) {
  out << "### 10.2 Hardware peaks and MFU\n\n";
  if (!eff.hardware) {
    out << fmt::format("No hardware peaks: {}. Pass `--hardware-model NAME` (the bundled parts are listed in "
                       "docs/hardware-peaks.md) or `--hardware-profile FILE`; FLOPs and bytes below do not need them.\n\n",
                       eff.hardware_note.empty() ? "none was given" : eff.hardware_note);
    return;
  }
  const HardwarePeaks& h = *eff.hardware;
  out << fmt::format("Hardware **{}** from {}; {}. `hardware_theoretical_peaks.csv` cites every number.\n\n", h.name,
                     h.source, h.provenance);
  MdTable(out, {"cube fp16", "cube bf16", "cube int8", "vector fp16", "vector fp32", "memory bandwidth"},
          {{Sig(h.cube_fp16_tflops, "TFLOPS"), Sig(h.cube_bf16_tflops, "TFLOPS"), Sig(h.cube_int8_tops, "TOPS"),
            Sig(h.vector_fp16_tflops, "TFLOPS"), Sig(h.vector_fp32_tflops, "TFLOPS"),
            Sig(h.hbm_bandwidth_gbps, "GB/s")}});
  if (eff.mfu_dtype.empty()) {
    out << "No matmul or attention FLOPs were modelled, so there is no MFU.\n\n";
    return;
  }
  out << fmt::format("MFU = modelled matmul / attention FLOPs of the steps / (step wall time x the theoretical {} "
                     "cube peak, {}). The roofline below uses the sustained peak instead (theoretical x the "
                     "sustained factor of `efficiency_rules.json`).\n\n",
                     eff.mfu_dtype, Sig(eff.mfu_peak_tflops, "TFLOPS"));
  std::vector<Row> rows;
  for (const MfuRow& m : eff.mfu)
    rows.push_back({m.scope, m.key, std::to_string(m.steps), N(m.wall_ms), Flops(m.cube_flops),
                    Sig(m.achieved_tflops, "TFLOPS"), Pct(m.mfu), Pct(m.modelled_compute_share)});
  if (rows.size() > 24) rows.resize(24);
  MdTable(out, {"scope", "key", "steps", "wall ms", "model FLOPs", "achieved", "MFU", "compute time modelled"}, rows);
}

void Roofline(const AnalysisResult& r, const Efficiency& eff, std::ostream& out) {
  out << "### 10.3 Operator calculation and roofline\n\n";
  out << fmt::format("Shape-derived FLOPs and bytes (`operator_efficiency_summary.csv`) cover {} of {} compute calls, "
                     "{} of compute time. The rest are not modelled, never estimated "
                     "(`operator_not_modelled_summary.csv`).\n\n",
                     eff.modelled_calls, eff.compute_calls,
                     Pct(eff.compute_us > 0 ? eff.modelled_us / eff.compute_us : NAN));
  if (eff.operators.empty() && r.summaries.events_total > 0) {
    bool shapes = false;
    for (const RankTable& t : r.ranks)
      for (size_t i = 0; i < t.events.size() && !shapes; ++i) shapes = t.events[i].input_shapes != 0;
    if (!shapes)
      out << "This capture records no operator shapes: profile with `profiler_level=Level1` (or higher) and "
             "`record_shapes=True` for FLOPs, MFU and the roofline.\n\n";
  }
  std::vector<Row> rows;
  bool hw = eff.hardware.has_value();
  for (size_t i = 0; i < eff.operators.size() && rows.size() < 10; ++i) {
    const OperatorEfficiency& o = eff.operators[i];
    if (hw && !(o.reclaim_us > 0)) continue;
    Row row{r.Str(o.name), o.cost.family, o.cost.dims, std::to_string(o.calls), N(o.total_us / 1e3),
            Flops(o.cost.flops), N(o.cost.bytes > 0 ? o.cost.intensity() : NAN), Sig(o.achieved_tflops, "TFLOPS")};
    if (hw) row.push_back(Pct(o.peak_share)), row.push_back(o.bound), row.push_back(N(o.reclaim_us / 1e3));
    rows.push_back(std::move(row));
  }
  Row header{"operator", "family", "dims", "calls", "total ms", "FLOPs / call", "FLOP/byte", "achieved"};
  if (hw) header.push_back("of peak"), header.push_back("bound"), header.push_back("reclaim ms");
  if (eff.operators.empty()) {
    // nothing modelled: only the not-modelled list below
  } else if (hw) {
    out << "Most time to reclaim at the sustained roofline (total - calls x max(FLOPs / sustained compute peak, "
           "bytes / sustained bandwidth)); a ranking assumption, not a diagnosis:\n\n";
  } else {
    out << "Heaviest modelled operators (no hardware, so no roofline):\n\n";
  }
  if (!eff.operators.empty()) {
    if (rows.empty()) out << "No operator has time to reclaim against the roofline the known peaks give.\n\n";
    else MdTable(out, header, rows);
  }
  if (!eff.unmodelled.empty()) {
    std::vector<Row> um;
    for (size_t i = 0; i < eff.unmodelled.size() && i < 8; ++i) {
      const UnmodelledType& u = eff.unmodelled[i];
      um.push_back({r.Str(u.type).empty() ? "(no type)" : r.Str(u.type), std::to_string(u.calls), N(u.total_us / 1e3),
                    u.reason});
    }
    out << "Not modelled (heaviest first):\n\n";
    MdTable(out, {"type", "calls", "total ms", "why"}, um);
  }
}

}  // namespace

void EfficiencySection(const AnalysisResult& r, const Efficiency* eff, std::ostream& out) {
  out << "## 10. Model Fingerprint, Hardware Peaks And Roofline\n\n";
  if (!eff) {
    out << "Not computed for this report.\n\n";
    return;
  }
  Fingerprint(r, *eff, out);
  HardwareAndMfu(*eff, out);
  Roofline(r, *eff, out);
}

}  // namespace optrace::analyze::report
