#include "analyze/report/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "analyze/pipeline/pipeline.h"
#include "analyze/report/markdown_table.h"
#include "core/file_io.h"
#include "core/json_text.h"

namespace optrace::analyze::report {
namespace {

// An analyze OUT directory (its stage files) or a profiling root. An OUT directory made without
// --keep-stages has only its reports: it is analyzed again from the root(s) its summary names.
Result<AnalysisResult> Load(const std::filesystem::path& p, std::vector<std::string>& notes) {
  namespace fs = std::filesystem;
  AnalyzeOptions opt;
  std::error_code ec;
  if (fs::exists(p / "stages" / "diagnose.bin", ec)) {
    opt.out_dir = p;
    opt.from = opt.to = Stage::kReport;
    return RunAnalysis(opt);
  }
  opt.persist_stages = false;
  opt.roots = {p};
  if (fs::exists(p / "analysis_summary.json", ec)) {
    auto text = ReadFileToString(p / "analysis_summary.json");
    nlohmann::json j = text.ok() ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
    std::vector<fs::path> roots;
    if (j.is_object() && j.contains("identity") && j["identity"].is_object() && j["identity"].contains("roots") &&
        j["identity"]["roots"].is_array())
      for (const auto& r : j["identity"]["roots"])
        if (r.is_string()) roots.emplace_back(r.get<std::string>());
    bool present = !roots.empty();
    for (const fs::path& r : roots) present = present && fs::is_directory(r, ec);
    if (!present)
      return UsageError(
          "{}: an optrace analyze output without its stage files (made without --keep-stages), and the root(s) it "
          "names are not here; pass the profiling root, or re-run analyze with --keep-stages",
          p.string());
    opt.roots = roots;
    std::string list;
    for (const fs::path& r : roots) list += (list.empty() ? "" : ", ") + r.string();
    notes.push_back(fmt::format("{} has no stage files (analyze ran without --keep-stages): analyzed again from its "
                                "root(s) {} with the built-in rules",
                                p.string(), list));
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

// `desc` gets each operator's "type, op type" where the capture states them.
Metrics Collect(const AnalysisResult& r, std::map<std::string, std::string>* desc) {
  Metrics m;
  std::map<std::string, std::string> signature_of;  // step class id -> signature
  for (const ShapeClass& c : r.step_classes) signature_of[c.id] = c.signature;
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
        // Keyed by name: a Level0 export writes no type ("N/A") and no core for the operators a
        // Level1 export of the same job types, and the two must still compare (issue 52).
        op_us[std::string(r.Str(e.name))] += us;
        std::string_view type = r.Str(e.type);
        if (desc && !desc->count(std::string(r.Str(e.name))) && !type.empty() && type != "N/A" &&
            e.op_type != OpType::kUnknown)
          (*desc)[std::string(r.Str(e.name))] = fmt::format("{}, {}", type, OpTypeName(e.op_type));
      }
    }
    // An operator's samples are the steps it ran in (its mean is per step that has it).
    for (auto& [k, us] : op_us) m[{"operator", k}].v.push_back(us);
    for (auto& [k, us] : hccl_us) m[{"hccl_kind", k}].v.push_back(us);
    m[{"rank", std::to_string(s.rank)}].v.push_back(double(s.anatomy.wall_ns) / 1e6);
    auto sig = signature_of.find(s.step_class);
    if (sig != signature_of.end()) m[{"step_class", sig->second}].v.push_back(double(s.anatomy.wall_ns) / 1e6);
  }
  return m;
}

std::string Html(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// compare.html's diverging bars (#phase-diff): the largest changes per operator, HCCL kind, rank
// and step class, relative to A, slower in B to the right (red) and faster to the left (green);
// a change within the noise (or with too few samples) is drawn pale. Static SVG, no script.
void WritePhaseDiffSvg(const CompareResult& c, const CompareOptions& opt, std::ostream& os) {
  constexpr size_t kBars = 30;
  std::vector<const CompareRow*> rows;
  for (const CompareRow& r : c.rows)
    if (!IsMissing(r.relative) && r.samples_a > 0 && r.samples_b > 0) rows.push_back(&r);
  std::stable_sort(rows.begin(), rows.end(), [](const CompareRow* x, const CompareRow* y) {
    if (x->significant != y->significant) return x->significant;
    return std::fabs(x->delta) > std::fabs(y->delta);
  });
  if (rows.size() > kBars) rows.resize(kBars);
  if (rows.empty()) {
    os << "<p class=\"empty\" id=\"phase-diff\">No key measured on both sides: nothing to draw.</p>\n";
    return;
  }
  double max_rel = 0.01;
  for (const CompareRow* r : rows) max_rel = std::max(max_rel, std::min(2.0, std::fabs(r->relative)));
  const int row_h = 18, label_w = 360, half = 300, top = 22, width = label_w + 2 * half + 90;
  const int height = top + row_h * static_cast<int>(rows.size()) + 8;
  const double mid = label_w + half;
  os << fmt::format("<svg id=\"phase-diff\" class=\"diff\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
                    "xmlns=\"http://www.w3.org/2000/svg\" data-bars=\"{}\">\n",
                    width, height, width, height, rows.size());
  os << fmt::format("<text x=\"{}\" y=\"14\" text-anchor=\"end\">faster in B</text><text x=\"{}\" y=\"14\">slower in "
                    "B (relative to A; bars cut at 200%)</text>\n",
                    mid - 6, mid + 6);
  for (size_t i = 0; i < rows.size(); ++i) {
    const CompareRow& r = *rows[i];
    const double rel = std::clamp(r.relative, -2.0, 2.0), w = std::fabs(rel) / max_rel * half;
    const double y = top + row_h * static_cast<double>(i);
    const bool slower = r.delta > 0;
    const std::string fill = !r.significant ? "#cfd8dc" : slower ? "#c62828" : "#2e7d32";
    const std::string why = r.significant ? "significant"
                            : (r.samples_a < opt.min_samples || r.samples_b < opt.min_samples)
                                ? fmt::format("too few samples ({}/{}) to test", r.samples_a, r.samples_b)
                                : "within the noise";
    std::string label = r.kind + " " + r.key;
    if (label.size() > 58) label = label.substr(0, 55) + "...";
    os << fmt::format("<g class=\"diff-bar{}\"><title>{}: {:+.1f}% ({} -> {}), {}</title>", r.significant ? " sig" : "",
                      Html(r.kind + " " + r.key), r.relative * 100, fmt::format("{:.3f}", r.a), fmt::format("{:.3f}", r.b),
                      why);
    os << fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>", label_w - 8, y + 13, Html(label));
    os << fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\"/>",
                      slower ? mid : mid - w, y + 2, std::max(0.5, w), row_h - 4, fill);
    os << fmt::format("<text x=\"{:.1f}\" y=\"{}\"{}>{:+.1f}%</text></g>\n", slower ? mid + w + 4 : mid - w - 4, y + 13,
                      slower ? "" : " text-anchor=\"end\"", r.relative * 100);
  }
  os << fmt::format("<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#5b6672\"/>\n</svg>\n", mid, top - 2, height);
}

// compare.html: the report.html look (header, cards, tables), static, self-contained.
void WriteCompareHtml(const CompareOptions& opt, const CompareResult& c, std::ostream& os) {
  auto num = [](double v) { return IsMissing(v) ? std::string("-") : fmt::format("{:.3f}", v); };
  auto pct = [](double v) { return IsMissing(v) ? std::string("-") : fmt::format("{:+.1f}%", v * 100); };
  os << R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>optrace compare</title><style>
:root { --fg:#1d232b; --muted:#5b6672; --line:#d9dee4; --bg:#f6f7f9; --card:#fff; --up:#c62828; --down:#2e7d32; }
body { margin:0; font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif; color:var(--fg); background:var(--bg); }
header { background:#232f3e; color:#fff; padding:14px 24px; } header h1 { margin:0; font-size:19px; font-weight:600; }
header .ident { color:#c9d3de; font-size:12.5px; margin-top:4px; word-break:break-all; }
main { padding:16px 24px 48px; max-width:1500px; }
section { background:var(--card); border:1px solid var(--line); border-radius:6px; padding:14px 18px; margin-bottom:18px; }
section h2 { margin:0 0 10px; font-size:16px; } .empty { color:var(--muted); font-style:italic; }
table { border-collapse:collapse; width:100%; font-size:12.5px; }
th { background:#eef1f5; text-align:left; padding:5px 8px; border-bottom:1px solid var(--line); white-space:nowrap; }
td { padding:3px 8px; border-bottom:1px solid #eef0f3; white-space:nowrap; } td.num { text-align:right; font-variant-numeric:tabular-nums; }
tr.sig-up td.rel { color:var(--up); font-weight:600; } tr.sig-down td.rel { color:var(--down); font-weight:600; }
svg.diff { display:block; max-width:100%; margin:8px 0 14px; } svg.diff text { font-size:11.5px; fill:var(--fg); }
</style></head><body>
<header><h1>optrace compare</h1>)";
  os << "<div class=\"ident\">A: " << Html(opt.a.string()) << "<br>B: " << Html(opt.b.string())
     << "</div></header><main>\n";
  auto table = [&](bool only_significant) {
    os << "<table><thead><tr><th>kind</th><th>key</th><th>A</th><th>B</th><th>delta</th><th>relative</th><th>noise</th>"
          "<th>samples A/B</th></tr></thead><tbody>\n";
    int n = 0;
    for (const CompareRow& r : c.rows) {
      if (only_significant && !r.significant) continue;
      ++n;
      std::string cls = !r.significant ? "" : r.delta > 0 ? "sig-up" : "sig-down";
      os << fmt::format(
          "<tr class=\"{}\"><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td "
          "class=\"num\">{}</td><td class=\"num rel\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}/{}</td></tr>\n",
          cls, Html(r.kind), Html(r.key), num(r.a), num(r.b), num(r.delta), pct(r.relative), num(r.noise), r.samples_a,
          r.samples_b);
    }
    os << "</tbody></table>\n";
    if (!n) os << "<p class=\"empty\">No change beyond run-to-run noise.</p>\n";
  };
  os << fmt::format("<section><h2>Significant changes</h2><p>Mean per step (operators, HCCL kinds: us; ranks, step "
                    "classes: step wall ms). Significant: |B - A| &gt; {} x the standard error of the difference, "
                    "at least {:.0f}%, and at least {} samples (rank x step) on each side. Red: slower in B, green: "
                    "faster.</p>\n",
                    opt.noise_k, opt.min_relative * 100, opt.min_samples);
  WritePhaseDiffSvg(c, opt, os);
  table(true);
  os << "</section><section><h2>Findings</h2><p>Appeared in B: "
     << Html(c.appeared.empty() ? std::string("none") : fmt::format("{}", fmt::join(c.appeared, ", ")))
     << "</p><p>Gone in B: "
     << Html(c.disappeared.empty() ? std::string("none") : fmt::format("{}", fmt::join(c.disappeared, ", ")))
     << "</p>"
     << (c.not_comparable.empty() ? std::string()
                                  : "<p>Not comparable (only one export has the table the rule reads): " +
                                        Html(fmt::format("{}", fmt::join(c.not_comparable, "; "))) + "</p>")
     << "</section>\n<section><h2>Every compared key</h2>\n";
  table(false);
  os << "</section></main></body></html>\n";
}

std::string StepClassLabel(const AnalysisResult& r, const std::string& signature) {
  for (const ShapeClass& c : r.step_classes)
    if (c.signature == signature) return c.id + " " + signature.substr(0, 16);
  return signature.substr(0, 16);
}

}  // namespace

Result<CompareResult> RunCompare(const CompareOptions& opt) {
  CompareResult out;
  OPTRACE_ASSIGN_OR_RETURN(AnalysisResult a, Load(opt.a, out.notes));
  OPTRACE_ASSIGN_OR_RETURN(AnalysisResult b, Load(opt.b, out.notes));
  if (a.ranks.size() != b.ranks.size())
    return UsageError("{} has {} ranks and {} has {}: compare captures of the same job (same ranks)", opt.a.string(),
                      a.ranks.size(), opt.b.string(), b.ranks.size());
  std::map<std::string, std::string> desc;
  Metrics ma = Collect(a, &desc), mb = Collect(b, &desc);
  bool common = false;
  int ops_a = 0, ops_b = 0;
  for (auto& [key, s] : ma) {
    common |= key.first == "operator" && mb.count(key);
    ops_a += key.first == "operator";
  }
  for (auto& [key, s] : mb) ops_b += key.first == "operator";
  // Two runs of a kernel or two variants of it (one or two operators each, other names) still
  // compare by step and rank; whole models with no operator in common do not.
  if (!common && (ops_a > 2 || ops_b > 2))
    return UsageError("{} and {} have no operator in common ({} and {} operators): they are not runs of the same model",
                      opt.a.string(), opt.b.string(), ops_a, ops_b);
  if (!common)
    out.notes.push_back(fmt::format("no operator in common ({} and {} operator(s)): compared by step wall per rank only",
                                    ops_a, ops_b));
  std::set<std::pair<std::string, std::string>> keys;
  for (auto& [k, s] : ma) keys.insert(k);
  for (auto& [k, s] : mb) keys.insert(k);
  for (const auto& key : keys) {
    CompareRow row;
    row.kind = key.first;
    row.key = key.first == "step_class" ? StepClassLabel(ma.count(key) ? a : b, key.second) : key.second;
    if (key.first == "operator" && desc.count(key.second)) row.key += " (" + desc[key.second] + ")";
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
                        (IsMissing(row.relative) || std::fabs(row.relative) >= opt.min_relative) &&
                        row.samples_a >= opt.min_samples && row.samples_b >= opt.min_samples;
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
  // A finding only one side can compute (its export has the table the rule reads) is not a change.
  auto missing_input = [](const AnalysisResult& r, const Finding& f) -> std::string {
    bool api = false, sdma = false;
    for (const RankTable& t : r.ranks) {
      if (f.rank >= 0 && t.rank != f.rank) continue;
      api = api || !t.api_stats.empty();
      sdma = sdma || !t.sdma_alignment.empty();
    }
    if ((f.type == "host_op_compile" || f.type == "host_sync") && !api) return "no api_statistic.csv (a db export)";
    if (f.type == "unaligned_sdma_copies" && !sdma) return "no HCCL task sizes (a text or Level0 export)";
    return "";
  };
  auto sort_out = [&](const AnalysisResult& has, const std::set<std::string>& other_keys, const AnalysisResult& other,
                      const char* other_name, std::vector<std::string>* changed) {
    std::set<std::string> seen;
    for (const Finding& f : has.findings) {
      if (f.type == "top_operator") continue;
      std::string k = f.rank >= 0 ? fmt::format("{} (rank {})", f.type, f.rank) : f.type;
      if (other_keys.count(k) || !seen.insert(k).second) continue;
      std::string why = missing_input(other, f);
      if (why.empty()) changed->push_back(k);
      else out.not_comparable.push_back(fmt::format("{}: {} has {}", k, other_name, why));
    }
    std::sort(changed->begin(), changed->end());
  };
  sort_out(b, fa, a, "A", &out.appeared);
  sort_out(a, fb, b, "B", &out.disappeared);

  if (!opt.out_dir.empty()) {
    OPTRACE_RETURN_IF_ERROR(EnsureDirectory(opt.out_dir));
    out.markdown = opt.out_dir / "compare.md";
    out.json = opt.out_dir / "compare.json";
    out.html = opt.out_dir / "compare.html";
    auto num = [](double v) { return IsMissing(v) ? std::string("-") : fmt::format("{:.3f}", v); };
    auto pct = [](double v) { return IsMissing(v) ? std::string("-") : fmt::format("{:+.1f}%", v * 100); };
    OPTRACE_RETURN_IF_ERROR(WriteStreamAtomic(out.markdown, [&](std::ostream& md) {
      // Written whole, then escaped: keys are operator names from the captures (issue 29.14).
      std::ostringstream os;
      os << "# optrace compare\n\n";
      os << fmt::format("A: `{}`  \nB: `{}`\n\n", opt.a.string(), opt.b.string());
      for (const std::string& n : out.notes) os << "Note: " << n << "\n\n";
      os << fmt::format(
          "Means per step (operators and HCCL kinds: us per step; ranks and step classes: step wall in ms). A change "
          "is significant when |B - A| > {} x the standard error of the difference (step-to-step spread of each "
          "side), at least {:.0f}%, and each side has at least {} samples (rank x step).\n\n",
          opt.noise_k, opt.min_relative * 100, opt.min_samples);
      os << "## Significant changes (largest first)\n\n| kind | key | A | B | delta | relative | noise |\n|---|---|---|---|---|---|---|\n";
      int n = 0;
      for (const CompareRow& r : out.rows)
        if (r.significant) {
          os << fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", r.kind, internal::Cellify(r.key), num(r.a), num(r.b), num(r.delta),
                            pct(r.relative), num(r.noise));
          ++n;
        }
      if (!n) os << "| - | no change beyond noise | | | | | |\n";
      os << "\n## Findings\n\n";
      os << "Appeared in B: " << (out.appeared.empty() ? "none" : fmt::format("{}", fmt::join(out.appeared, ", "))) << "\n\n";
      os << "Gone in B: " << (out.disappeared.empty() ? "none" : fmt::format("{}", fmt::join(out.disappeared, ", ")))
         << "\n\n";
      if (!out.not_comparable.empty())
        os << "Not comparable (only one export has the table the rule reads): "
           << fmt::format("{}", fmt::join(out.not_comparable, "; ")) << "\n\n";
      os << "## Every compared key\n\n| kind | key | A | B | delta | relative | noise | samples A/B |\n"
            "|---|---|---|---|---|---|---|---|\n";
      for (const CompareRow& r : out.rows)
        os << fmt::format("| {} | {} | {} | {} | {} | {} | {} | {}/{} |\n", r.kind, internal::Cellify(r.key), num(r.a), num(r.b),
                          num(r.delta), pct(r.relative), num(r.noise), r.samples_a, r.samples_b);
      md << internal::EscapeMarkdownHtml(os.str());
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
                               {"noise_k", opt.noise_k},       {"min_samples", opt.min_samples},
                               {"rows", rows},
                               {"findings_appeared", out.appeared}, {"findings_gone", out.disappeared},
                               {"findings_not_comparable", out.not_comparable},
                               {"notes", out.notes}};
    OPTRACE_RETURN_IF_ERROR(WriteStreamAtomic(out.json, [&](std::ostream& os) {
      os << JsonText(doc) << "\n";
      return Status::Ok();
    }));
    OPTRACE_RETURN_IF_ERROR(WriteStreamAtomic(out.html, [&](std::ostream& os) {
      WriteCompareHtml(opt, out, os);
      return Status::Ok();
    }));
  }
  return out;
}

}  // namespace optrace::analyze::report
