#include "analyze/report/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "analyze/pipeline.h"
#include "core/file_io.h"
#include "core/json_text.h"

namespace optrace::analyze::report {
namespace {

// An analyze OUT directory (its stage files) or a profiling root.
Result<AnalysisResult> Load(const std::filesystem::path& p) {
  AnalyzeOptions opt;
  if (std::filesystem::exists(p / "stages" / "diagnose.bin")) {
    opt.out_dir = p;
    opt.from = opt.to = Stage::kReport;
  } else {
    opt.roots = {p};
    opt.persist_stages = false;
  }
  return RunAnalysis(opt);
}

struct Samples {
  std::vector<double> v;
  double Mean() const {
    double s = 0;
    for (double x : v) s += x;
    return v.empty() ? kMissing : s / double(v.size());
  }
  double VarOfMean() const {  // sample variance / n
    if (v.size() < 2) return kMissing;
    double m = Mean(), s = 0;
    for (double x : v) s += (x - m) * (x - m);
    return s / double(v.size() - 1) / double(v.size());
  }
};

// Per metric key, one sample per (rank, complete step): the key's time in that step.
using Metrics = std::map<std::pair<std::string, std::string>, Samples>;  // (kind, key)

Metrics Collect(const AnalysisResult& r) {
  Metrics m;
  for (const Step& s : r.steps) {
    if (!s.complete) continue;
    const RankTable* t = r.FindRank(s.rank);
    if (!t) continue;
    std::map<std::string, double> op_us, hccl_us;
    for (uint32_t i = s.events.first; i < s.events.last; ++i) {
      const Event& e = t->events[i];
      double us = double(e.dur_ns) / 1e3;
      if (e.op_type == OpType::kCommunication) {
        hccl_us[r.Str(e.type).empty() ? r.Str(e.name) : r.Str(e.type)] += us;
      } else {
        op_us[fmt::format("{} ({}, {})", r.Str(e.name), r.Str(e.type), OpTypeName(e.op_type))] += us;
      }
    }
    // An operator's samples are the steps it ran in (its mean is per step that has it).
    for (auto& [k, us] : op_us) m[{"operator", k}].v.push_back(us);
    for (auto& [k, us] : hccl_us) m[{"hccl_kind", k}].v.push_back(us);
    m[{"rank", std::to_string(s.rank)}].v.push_back(double(s.anatomy.wall_ns) / 1e6);
    std::string signature;
    for (const ShapeClass& c : r.step_classes)
      if (c.id == s.step_class) signature = c.signature;
    if (!signature.empty()) m[{"step_class", signature}].v.push_back(double(s.anatomy.wall_ns) / 1e6);
  }
  return m;
}

std::string StepClassLabel(const AnalysisResult& r, const std::string& signature) {
  for (const ShapeClass& c : r.step_classes)
    if (c.signature == signature) return c.id + " " + signature.substr(0, 16);
  return signature.substr(0, 16);
}

}  // namespace

Result<CompareResult> RunCompare(const CompareOptions& opt) {
  OPTRACE_ASSIGN_OR_RETURN(AnalysisResult a, Load(opt.a));
  OPTRACE_ASSIGN_OR_RETURN(AnalysisResult b, Load(opt.b));
  if (a.ranks.size() != b.ranks.size())
    return UsageError("{} has {} ranks and {} has {}: compare captures of the same job (same ranks)", opt.a.string(),
                      a.ranks.size(), opt.b.string(), b.ranks.size());
  Metrics ma = Collect(a), mb = Collect(b);
  bool common = false;
  for (auto& [key, s] : ma) common |= key.first == "operator" && mb.count(key);
  if (!common)
    return UsageError("{} and {} have no operator in common: they are not runs of the same model", opt.a.string(),
                      opt.b.string());
  CompareResult out;
  std::set<std::pair<std::string, std::string>> keys;
  for (auto& [k, s] : ma) keys.insert(k);
  for (auto& [k, s] : mb) keys.insert(k);
  for (const auto& key : keys) {
    CompareRow row;
    row.kind = key.first;
    row.key = key.first == "step_class" ? StepClassLabel(ma.count(key) ? a : b, key.second) : key.second;
    const Samples* sa = ma.count(key) ? &ma[key] : nullptr;
    const Samples* sb = mb.count(key) ? &mb[key] : nullptr;
    row.samples_a = sa ? static_cast<int>(sa->v.size()) : 0;
    row.samples_b = sb ? static_cast<int>(sb->v.size()) : 0;
    row.a = sa ? sa->Mean() : 0.0;
    row.b = sb ? sb->Mean() : 0.0;
    row.delta = row.b - row.a;
    row.relative = row.a > 0 ? row.delta / row.a : kMissing;
    if (sa && sb && !IsMissing(sa->VarOfMean()) && !IsMissing(sb->VarOfMean())) {
      row.noise = opt.noise_k * std::sqrt(sa->VarOfMean() + sb->VarOfMean());
      row.significant = std::fabs(row.delta) > row.noise &&
                        (IsMissing(row.relative) || std::fabs(row.relative) >= opt.min_relative);
    }
    out.rows.push_back(row);
  }
  std::stable_sort(out.rows.begin(), out.rows.end(), [](const CompareRow& x, const CompareRow& y) {
    if (x.significant != y.significant) return x.significant;
    return std::fabs(x.delta) > std::fabs(y.delta);
  });
  auto finding_keys = [](const AnalysisResult& r) {
    std::set<std::string> k;
    for (const Finding& f : r.findings)
      if (f.type != "top_operator") k.insert(f.rank >= 0 ? fmt::format("{} (rank {})", f.type, f.rank) : f.type);
    return k;
  };
  std::set<std::string> fa = finding_keys(a), fb = finding_keys(b);
  for (const std::string& k : fb)
    if (!fa.count(k)) out.appeared.push_back(k);
  for (const std::string& k : fa)
    if (!fb.count(k)) out.disappeared.push_back(k);

  if (!opt.out_dir.empty()) {
    OPTRACE_RETURN_IF_ERROR(EnsureDirectory(opt.out_dir));
    out.markdown = opt.out_dir / "compare.md";
    out.json = opt.out_dir / "compare.json";
    auto num = [](double v) { return IsMissing(v) ? std::string("-") : fmt::format("{:.3f}", v); };
    auto pct = [](double v) { return IsMissing(v) ? std::string("-") : fmt::format("{:+.1f}%", v * 100); };
    OPTRACE_RETURN_IF_ERROR(WriteStreamAtomic(out.markdown, [&](std::ostream& os) {
      os << "# optrace compare\n\n";
      os << fmt::format("A: `{}`  \nB: `{}`\n\n", opt.a.string(), opt.b.string());
      os << fmt::format(
          "Means per step (operators and HCCL kinds: us per step; ranks and step classes: step wall in ms). A change "
          "is significant when |B - A| > {} x the standard error of the difference (step-to-step spread of each "
          "side) and at least {:.0f}%.\n\n",
          opt.noise_k, opt.min_relative * 100);
      os << "## Significant changes (largest first)\n\n| kind | key | A | B | delta | relative | noise |\n|---|---|---|---|---|---|---|\n";
      int n = 0;
      for (const CompareRow& r : out.rows)
        if (r.significant) {
          os << fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", r.kind, r.key, num(r.a), num(r.b), num(r.delta),
                            pct(r.relative), num(r.noise));
          ++n;
        }
      if (!n) os << "| - | no change beyond noise | | | | | |\n";
      os << "\n## Findings\n\n";
      os << "Appeared in B: " << (out.appeared.empty() ? "none" : fmt::format("{}", fmt::join(out.appeared, ", "))) << "\n\n";
      os << "Gone in B: " << (out.disappeared.empty() ? "none" : fmt::format("{}", fmt::join(out.disappeared, ", ")))
         << "\n\n";
      os << "## Every compared key\n\n| kind | key | A | B | delta | relative | noise | samples A/B |\n"
            "|---|---|---|---|---|---|---|---|\n";
      for (const CompareRow& r : out.rows)
        os << fmt::format("| {} | {} | {} | {} | {} | {} | {} | {}/{} |\n", r.kind, r.key, num(r.a), num(r.b),
                          num(r.delta), pct(r.relative), num(r.noise), r.samples_a, r.samples_b);
      return Status::Ok();
    }));
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    auto jnum = [](double v) { return IsMissing(v) ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(v); };
    for (const CompareRow& r : out.rows)
      rows.push_back({{"kind", r.kind}, {"key", r.key}, {"a", jnum(r.a)}, {"b", jnum(r.b)}, {"delta", jnum(r.delta)},
                      {"relative", jnum(r.relative)}, {"noise", jnum(r.noise)}, {"significant", r.significant},
                      {"samples_a", r.samples_a}, {"samples_b", r.samples_b}});
    nlohmann::ordered_json doc{{"schema_version", 1},          {"kind", "optrace.compare"},
                               {"a", opt.a.string()},          {"b", opt.b.string()},
                               {"noise_k", opt.noise_k},       {"rows", rows},
                               {"findings_appeared", out.appeared}, {"findings_gone", out.disappeared}};
    OPTRACE_RETURN_IF_ERROR(WriteStreamAtomic(out.json, [&](std::ostream& os) {
      os << JsonText(doc) << "\n";
      return Status::Ok();
    }));
  }
  return out;
}

}  // namespace optrace::analyze::report
