// The latency plots: per-rank box plots (left) and the per-iteration max line (right), one y axis;
// and the before/after comparison of the per-iteration max (box plots beside empirical CDFs).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "core/quantile.h"
#include "evidence/latency/latency_compare.h"
#include "evidence/latency/latency_writers.h"
#include "evidence/plot/svg.h"

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

namespace {

std::vector<double> SortedCompleteMaxima(const LatencyReport& r) {
  std::vector<double> v;
  for (const IterationMax& m : r.per_iteration) {
    if (m.complete) v.push_back(m.max_us);
  }
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

// Left: one box per side (whiskers min..max, box Q1..Q3, thick line at the median, the median's CI
// as a bracket beside it). Right: both empirical CDFs on a shared us axis, medians as dashed lines.
std::string RenderLatencyComparisonSvg(const LatencyComparison& c) {
  constexpr const char* kColor[2] = {"#3182bd", "#e6550d"};
  constexpr const char* kFill[2] = {"#9ecae1", "#fdae6b"};
  const std::vector<double> v[2] = {SortedCompleteMaxima(c.before.report), SortedCompleteMaxima(c.after.report)};
  const StatisticComparison* median = nullptr;
  for (const StatisticComparison& s : c.rows) {
    if (!s.rank && s.statistic == "median") median = &s;
  }
  // One value axis for both panels, zoomed to the data (a 20% shift is invisible on a 0-based axis):
  // 5 "nice" steps around [min, max] of both sides.
  double lo = 0, hi = 0;
  bool any = false;
  for (const auto& side : v) {
    if (side.empty()) continue;
    lo = any ? std::min(lo, side.front()) : side.front();
    hi = any ? std::max(hi, side.back()) : side.back();
    any = true;
  }
  double step = NiceCeil(std::max(hi - lo, 1e-3 * std::max(hi, 1.0)) / 5);
  double axis_lo = std::floor(lo / step) * step, axis_hi = std::ceil(hi / step) * step;
  if (axis_hi <= axis_lo) axis_hi = axis_lo + step;
  int ticks = static_cast<int>(std::lround((axis_hi - axis_lo) / step));
  auto y = [&](double us) { return kBottom - (kBottom - kTop) * (us - axis_lo) / (axis_hi - axis_lo); };

  SvgDocument svg(kWidth, kHeight);
  svg.Text(kWidth / 2, 20,
           fmt::format("per-iteration max over ranks (us): before {} vs after {} complete iterations{}",
                       v[0].size(), v[1].size(), c.factor.empty() ? "" : "; changed: " + c.factor),
           {.size = 13});
  for (int i = 0; i <= ticks; ++i) {
    double val = axis_lo + step * i, yy = y(val);
    svg.Line(kBoxLeft, yy, kBoxRight, yy, "#e4e4e4");
    svg.Text(kBoxLeft - 6, yy + 4, fmt::format("{:g}", val), {.anchor = "end", .size = 10});
  }
  svg.Text(18, (kTop + kBottom) / 2, axis_lo > 0 ? "us (axis not from 0)" : "us", {.rotate = -90});
  svg.Line(kBoxLeft, kBottom, kBoxRight, kBottom, "#444");
  svg.Text((kBoxLeft + kBoxRight) / 2, kHeight - 20, "box Q1-Q3, thick line median, bracket median 95% CI");
  const char* kSide[2] = {"before", "after"};
  double slot = (kBoxRight - kBoxLeft) / 2, bw = 60;
  for (int k = 0; k < 2; ++k) {
    double cx = kBoxLeft + slot * (k + 0.5);
    svg.Text(cx, kBottom + 16, kSide[k], {.size = 11, .fill = kColor[k]});
    if (v[k].empty()) {
      svg.Text(cx, (kTop + kBottom) / 2, "no complete iteration", {.size = 10});
      continue;
    }
    const std::vector<double>& s = v[k];
    double q1 = Quantile(s, 0.25), q2 = Quantile(s, 0.5), q3 = Quantile(s, 0.75);
    svg.Line(cx, y(s.front()), cx, y(q1), "#555");
    svg.Line(cx, y(q3), cx, y(s.back()), "#555");
    svg.Line(cx - bw / 4, y(s.front()), cx + bw / 4, y(s.front()), "#555");
    svg.Line(cx - bw / 4, y(s.back()), cx + bw / 4, y(s.back()), "#555");
    svg.Rect(cx - bw / 2, y(q3), bw, std::max(1.0, y(q1) - y(q3)), kFill[k], kColor[k]);
    svg.Line(cx - bw / 2, y(q2), cx + bw / 2, y(q2), "#08306b", 3);
    svg.Text(cx + bw / 2 + 14, y(q2) + 4, fmt::format("median {:.3f}", q2), {.anchor = "start", .size = 10});
    if (median) {
      const ConfidenceInterval& ci = k == 0 ? median->before_ci : median->after_ci;
      double bx = cx + bw / 2 + 6;
      svg.Line(bx, y(ci.low), bx, y(ci.high), kColor[k], 2);
      svg.Line(bx - 3, y(ci.low), bx, y(ci.low), kColor[k], 2);
      svg.Line(bx - 3, y(ci.high), bx, y(ci.high), kColor[k], 2);
    }
  }
  if (median) {
    svg.Text((kBoxLeft + kBoxRight) / 2, kTop - 6,
             fmt::format("median change {:+.3f} us [{:+.3f}, {:+.3f}]: {}", median->change, median->change_ci.low,
                         median->change_ci.high, median->moved ? "moved" : "not moved"),
             {.size = 11});
  }

  // Right: empirical CDFs, x = us on the same scale as the left axis, y = fraction of iterations.
  auto x = [&](double us) { return kLineLeft + (kLineRight - kLineLeft) * (us - axis_lo) / (axis_hi - axis_lo); };
  auto yf = [&](double f) { return kBottom - (kBottom - kTop) * f; };
  for (int i = 0; i <= 4; ++i) {
    double f = i / 4.0;
    svg.Line(kLineLeft, yf(f), kLineRight, yf(f), "#e4e4e4");
    svg.Text(kLineLeft - 6, yf(f) + 4, fmt::format("{:g}", f), {.anchor = "end", .size = 10});
  }
  for (int i = 0; i <= ticks; ++i) {
    double val = axis_lo + step * i;
    svg.Line(x(val), kTop, x(val), kBottom, "#f0f0f0");
    svg.Text(x(val), kBottom + 16, fmt::format("{:g}", val), {.size = 10});
  }
  svg.Line(kLineLeft, kBottom, kLineRight, kBottom, "#444");
  svg.Text((kLineLeft + kLineRight) / 2, kHeight - 20,
           "us (empirical CDF of the per-iteration max; dashed: median)");
  for (int k = 0; k < 2; ++k) {
    if (v[k].empty()) continue;
    const std::vector<double>& s = v[k];
    std::vector<std::pair<double, double>> pts = {{x(s.front()), yf(0)}};
    double n = static_cast<double>(s.size());
    for (size_t i = 0; i < s.size(); ++i) {  // a step up at each value
      pts.emplace_back(x(s[i]), yf(static_cast<double>(i) / n));
      pts.emplace_back(x(s[i]), yf(static_cast<double>(i + 1) / n));
    }
    svg.Polyline(pts, kColor[k]);
    double m = Quantile(s, 0.5);
    for (double f = 0; f < 1; f += 0.05) svg.Line(x(m), yf(f), x(m), yf(f + 0.025), kColor[k], 1);
    svg.Text(kLineRight - 4, kTop + 14 + 14 * k, fmt::format("{} (median {:.3f})", kSide[k], m),
             {.anchor = "end", .size = 10, .fill = kColor[k]});
  }
  return svg.Finish();
}

}  // namespace optrace::evidence
