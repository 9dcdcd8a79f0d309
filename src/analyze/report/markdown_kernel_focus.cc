// report.md: the --kernel focus (kernel_focus.h), at the end of the Operator View.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "analyze/efficiency/kernel_focus.h"
#include "analyze/report/markdown_report.h"
#include "analyze/report/markdown_table.h"
#include "analyze/report/table.h"
#include "core/quantile.h"

namespace optrace::analyze::report {

void KernelFocusSection(const AnalysisResult& r, const KernelFocus* f, std::ostream& out) {
  if (!f) return;
  out << fmt::format("### Kernel focus: `{}`\n\n", f->query);
  out << fmt::format("Matched by {}: {}. Every call per rank in `kernel_calls.csv`; `kernel_latency.csv` is "
                     "`optrace latency`'s input (iteration = the k-th call on each rank).\n\n",
                     f->matched_by, fmt::format("{}", fmt::join(f->names, ", ")));
  std::vector<internal::Row> rows;
  for (const auto& [rank, n] : f->calls_per_rank) {
    std::vector<double> dur, gap;
    for (const KernelCall& c : f->calls)
      if (c.rank == rank) dur.push_back(c.dur_us), gap.push_back(c.launch_gap_us);
    std::sort(dur.begin(), dur.end());
    std::sort(gap.begin(), gap.end());
    auto slowest = f->slowest_count.find(rank);
    rows.push_back({std::to_string(rank), std::to_string(n), FormatNumber(Quantile(dur, 0.5)),
                    FormatNumber(Quantile(dur, 0.95)), FormatNumber(dur.back()), FormatNumber(Quantile(gap, 0.5)),
                    std::to_string(slowest == f->slowest_count.end() ? 0 : slowest->second)});
  }
  internal::MdTable(out, {"rank", "calls", "p50 us", "p95 us", "max us", "launch gap p50 us", "slowest in"}, rows);
  (void)r;
}

}  // namespace optrace::analyze::report
