// optrace compare A B -o OUT: what changed between two runs of the same job. A and B are
// profiling roots or OUT directories of optrace analyze. compare.md / compare.json in OUT, a JSON
// summary on stdout. The work is in analyze/report/compare.h.
#include <fmt/format.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "analyze/report/compare.h"
#include "cli/cli_parse.h"
#include "cli/commands.h"
#include "core/json_text.h"

namespace optrace::cli {

int RunCompareCommand(const CommandArgs& args, CommandIo& io) {
  CLI::App app{"Compare two runs of the same job (profiling roots or optrace analyze outputs): per operator, HCCL "
               "kind, rank and step class, the change per step and whether it exceeds run-to-run noise.",
               "optrace compare"};
  std::string a, b, out;
  double k = 3.0;
  app.add_option("A", a, "the baseline: a profiling root or an optrace analyze output directory")->required();
  app.add_option("B", b, "the run to compare with it")->required();
  app.add_option("-o,--output", out, "output directory for compare.md, compare.json and compare.html")->required();
  app.add_option("--noise-k", k, "a change is significant above k x the standard error of the difference (default 3)")
      ->check(FiniteRange(1e-6, 1e6));
  int min_samples = 5;
  app.add_option("--min-samples", min_samples,
                 "fewer (rank, step) samples on either side are never called significant (default 5)")
      ->check(CLI::Range(2, 1000000));
  if (auto rc = ParseCommandLine(app, args, io)) return *rc;
  analyze::report::CompareOptions opt;
  opt.a = a;
  opt.b = b;
  opt.out_dir = out;
  opt.noise_k = k;
  opt.min_samples = min_samples;
  auto r = analyze::report::RunCompare(opt);
  if (!r.ok()) return ReportError("compare", r.status(), io);
  nlohmann::ordered_json top = nlohmann::ordered_json::array();
  for (const auto& row : r->rows) {
    if (!row.significant || top.size() >= 10) continue;
    top.push_back({{"kind", row.kind}, {"key", row.key}, {"a", row.a}, {"b", row.b}, {"delta", row.delta},
                   {"relative", std::isnan(row.relative) ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(row.relative)}});
  }
  nlohmann::ordered_json result{{"status", "ok"},
                                {"compare_md", r->markdown.string()},
                                {"compare_json", r->json.string()},
                                {"compare_html", r->html.string()},
                                {"significant_changes", top},
                                {"findings_appeared", r->appeared},
                                {"findings_gone", r->disappeared},
                                {"findings_not_comparable", r->not_comparable},
                                {"notes", r->notes}};
  io.out << JsonText(result, -1) << "\n";
  return kExitOk;
}

}  // namespace optrace::cli
