// The latency plot: per-rank box plots (left) and the per-iteration max line (right), one y axis.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "core/quantile.h"
#include "evidence/latency_writers.h"
#include "evidence/svg.h"

namespace optrace::evidence {
namespace {

constexpr double kWidth = 960, kHeight = 420;
constexpr double kTop = 40, kBottom = 360;           // plot area, y
constexpr double kBoxLeft = 70, kBoxRight = 440;     // left panel, x
constexpr double kLineLeft = 500, kLineRight = 930;  // right panel, x

// A "nice" upper bound for the axis: 1, 2 or 5 times a power of ten.
double NiceCeil(double v) {
  if (v <= 0) return 1;
  double p = std::pow(10.0, std::floor(std::log10(v)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * p >= v) return m * p;
  }
  return 10 * p;
}

}  // namespace

std::string RenderLatencySvg(const LatencyTable& t, const LatencyReport& r) {
  std::map<int64_t, std::vector<double>> by_rank;
  double top = 0;
  for (const LatencySample& s : t.samples) {
    by_rank[s.rank].push_back(s.us);
    top = std::max(top, s.us);
  }
  double y_max = NiceCeil(top * 1.05);
  auto y = [&](double us) { return kBottom - (kBottom - kTop) * us / y_max; };

  SvgDocument svg(kWidth, kHeight);
  svg.Text(kWidth / 2, 20, fmt::format("latency (us): {} ranks, {} measured iterations; {}", r.ranks.size(),
                                       r.iterations, t.warmup_policy.substr(0, t.warmup_policy.find(';'))),
           {.size = 13});
  // Shared y grid and labels on both panels.
  for (int i = 0; i <= 5; ++i) {
    double v = y_max * i / 5, yy = y(v);
    svg.Line(kBoxLeft, yy, kBoxRight, yy, "#e4e4e4");
    svg.Line(kLineLeft, yy, kLineRight, yy, "#e4e4e4");
    svg.Text(kBoxLeft - 6, yy + 4, fmt::format("{:g}", v), {.anchor = "end", .size = 10});
    svg.Text(kLineLeft - 6, yy + 4, fmt::format("{:g}", v), {.anchor = "end", .size = 10});
  }
  svg.Text(18, (kTop + kBottom) / 2, "us", {.rotate = -90});
  svg.Line(kBoxLeft, kBottom, kBoxRight, kBottom, "#444");
  svg.Line(kLineLeft, kBottom, kLineRight, kBottom, "#444");

  // Left: one box per rank. Whiskers span min..max (no outlier rule), box Q1..Q3, line at median.
  svg.Text((kBoxLeft + kBoxRight) / 2, kHeight - 20, "rank (box Q1-Q3, line median, whiskers min-max)");
  double slot = (kBoxRight - kBoxLeft) / std::max<size_t>(by_rank.size(), 1);
  double bw = std::min(28.0, slot * 0.6);
  size_t i = 0;
  size_t label_every = std::max<size_t>(1, by_rank.size() / 16);
  for (auto& [rank, v] : by_rank) {
    std::sort(v.begin(), v.end());
    double cx = kBoxLeft + slot * (static_cast<double>(i) + 0.5);
    double q1 = Quantile(v, 0.25), q2 = Quantile(v, 0.5), q3 = Quantile(v, 0.75);
    svg.Line(cx, y(v.front()), cx, y(q1), "#555");
    svg.Line(cx, y(q3), cx, y(v.back()), "#555");
    svg.Line(cx - bw / 4, y(v.front()), cx + bw / 4, y(v.front()), "#555");
    svg.Line(cx - bw / 4, y(v.back()), cx + bw / 4, y(v.back()), "#555");
    svg.Rect(cx - bw / 2, y(q3), bw, std::max(1.0, y(q1) - y(q3)), "#9ecae1", "#3182bd");
    svg.Line(cx - bw / 2, y(q2), cx + bw / 2, y(q2), "#08306b", 2);
    if (i % label_every == 0) svg.Text(cx, kBottom + 16, std::to_string(rank), {.size = 10});
    ++i;
  }

  // Right: the per-iteration max over ranks; incomplete iterations as red dots (not in the stats).
  svg.Text((kLineLeft + kLineRight) / 2, kHeight - 20,
           "iteration (line: max over ranks; red dot: iteration missing a rank)");
  if (!r.per_iteration.empty()) {
    double first = static_cast<double>(r.per_iteration.front().iteration);
    double last = static_cast<double>(r.per_iteration.back().iteration);
    double span = std::max(1.0, last - first);
    auto x = [&](int64_t it) { return kLineLeft + (kLineRight - kLineLeft) * (static_cast<double>(it) - first) / span; };
    std::vector<std::pair<double, double>> pts;
    for (const IterationMax& m : r.per_iteration) {
      if (m.complete) {
        pts.emplace_back(x(m.iteration), y(m.max_us));
      } else if (m.ranks > 0) {  // an iteration whose every value is NA has no max to draw
        svg.Circle(x(m.iteration), y(m.max_us), 3, "#d62728");
      }
    }
    if (!pts.empty()) svg.Polyline(pts, "#e6550d");
    if (r.per_iteration_max.samples > 0) {
      double p95 = y(r.per_iteration_max.p95);
      svg.Line(kLineLeft, p95, kLineRight, p95, "#756bb1", 1);
      svg.Text(kLineRight, p95 - 4, fmt::format("P95 of maxima {:.3f}", r.per_iteration_max.p95),
               {.anchor = "end", .size = 10, .fill = "#756bb1"});
    }
    svg.Text(kLineLeft, kBottom + 16, std::to_string(r.per_iteration.front().iteration), {.anchor = "start", .size = 10});
    svg.Text(kLineRight, kBottom + 16, std::to_string(r.per_iteration.back().iteration), {.anchor = "end", .size = 10});
  }
  return svg.Finish();
}

}  // namespace optrace::evidence
