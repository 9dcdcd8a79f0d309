#include "collect/stats.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <tuple>
#include <unordered_map>

namespace optrace::collect {
namespace {

// The durations of one row, for its percentiles: 32-bit ticks of one clock while they fit (half
// the memory of doubles, and collect's streamed path holds nothing else per interval), in
// fixed chunks (no doubling slack, no copy as it grows); doubles once one does not fit.
// Values() makes each double as Add's caller did: ticks * scale.
class DurationList {
 public:
  void Add(int64_t ticks, double scale, double us) {
    if (doubles_.empty() && ticks >= 0 && ticks <= int64_t{UINT32_MAX} && (count_ == 0 || scale == scale_)) {
      if (count_ % kChunk == 0) chunks_.emplace_back(new uint32_t[kChunk]);
      chunks_.back()[count_ % kChunk] = static_cast<uint32_t>(ticks);
      scale_ = scale;
      ++count_;
      return;
    }
    if (doubles_.empty()) doubles_ = std::move(*this).Values();
    doubles_.push_back(us);
  }
  // The durations in microseconds; the list is spent.
  std::vector<double> Values() && {
    if (!doubles_.empty()) return std::move(doubles_);
    std::vector<double> out;
    out.reserve(count_);
    for (size_t i = 0; i < count_; ++i) out.push_back(static_cast<double>(chunks_[i / kChunk][i % kChunk]) * scale_);
    chunks_.clear();
    count_ = 0;
    return out;
  }

 private:
  static constexpr size_t kChunk = 4096;
  std::vector<std::unique_ptr<uint32_t[]>> chunks_;
  size_t count_ = 0;
  double scale_ = 0;
  std::vector<double> doubles_;
};

struct Acc {
  DurationList durations;
  double self_total = 0;
  std::map<std::pair<int32_t, uint32_t>, double> per_core;  // (rank, core) -> total us
  // Intervals arrive in core order: the previous interval's core total, looked up once per run.
  std::pair<int32_t, uint32_t> last_core{-1, 0};
  double* last_total = nullptr;
};

LabelStats Finish(Acc& a) {
  LabelStats s;
  s.self_total = a.self_total;
  std::vector<double> durations = std::move(a.durations).Values();
  s.duration = Summarize(durations);
  s.self_mean = s.duration.count ? a.self_total / static_cast<double>(s.duration.count) : 0;
  s.cores = a.per_core.size();
  bool first = true;
  for (const auto& [core, total] : a.per_core) {
    if (first || total < s.core_total_min) s.core_total_min = total;
    if (first || total > s.core_total_max) {
      s.core_total_max = total;
      s.slowest_rank = core.first;
      s.slowest_core = core.second;
    }
    first = false;
  }
  return s;
}

void Add(Acc& a, const Interval& iv, double hz) {
  const double scale = hz > 0 ? 1e6 / hz : 0;
  const int64_t ticks = iv.end_ticks - iv.begin_ticks;
  const double d = static_cast<double>(ticks) * scale;
  a.durations.Add(ticks, scale, d);
  a.self_total += static_cast<double>(iv.self_ticks) * scale;
  const std::pair<int32_t, uint32_t> core{iv.rank, iv.core_index};
  if (!a.last_total || core != a.last_core) {
    a.last_total = &a.per_core[core];  // std::map nodes never move
    a.last_core = core;
  }
  *a.last_total += d;
}

void SortRows(std::vector<LabelStats>& rows, bool by_role, const std::vector<std::string>& role_order) {
  auto role_pos = [&](const std::string& r) {
    return std::find(role_order.begin(), role_order.end(), r) - role_order.begin();
  };
  std::sort(rows.begin(), rows.end(), [&](const LabelStats& a, const LabelStats& b) {
    if (by_role && a.role != b.role) return role_pos(a.role) < role_pos(b.role);
    if (a.kind != b.kind) return a.kind < b.kind;
    if (a.duration.total != b.duration.total) return a.duration.total > b.duration.total;
    return a.label < b.label;
  });
}

}  // namespace

struct StatsAccumulator::State {
  const RoleMap* roles = nullptr;
  std::map<std::pair<uint32_t, CoreKind>, Acc> by_kind;
  std::map<std::pair<uint32_t, size_t>, Acc> by_role;
  std::map<std::pair<uint32_t, size_t>, CoreKind> role_kind;
};

StatsAccumulator::StatsAccumulator(const RoleMap* roles) : s_(std::make_unique<State>()) { s_->roles = roles; }
StatsAccumulator::~StatsAccumulator() = default;
StatsAccumulator::StatsAccumulator(StatsAccumulator&&) noexcept = default;
StatsAccumulator& StatsAccumulator::operator=(StatsAccumulator&&) noexcept = default;

void StatsAccumulator::Add(const Interval& iv, double hz) {
  collect::Add(s_->by_kind[{iv.label, iv.kind}], iv, hz);
  if (s_->roles) {
    if (const Role* r = s_->roles->Find(iv.kind, iv.core_index)) {
      size_t idx = static_cast<size_t>(r - s_->roles->roles.data());
      collect::Add(s_->by_role[{iv.label, idx}], iv, hz);
      s_->role_kind[{iv.label, idx}] = iv.kind;
    }
  }
}

StatsTable StatsAccumulator::Finish(const std::vector<LabelInfo>& labels) && {
  StatsTable t;
  const RoleMap* roles = s_->roles;
  if (roles) {
    for (const Role& r : roles->roles) t.roles.push_back(r.name);
  }
  for (auto& [key, acc] : s_->by_kind) {
    LabelStats s = collect::Finish(acc);
    s.label = labels[key.first].name;
    s.kind = key.second;
    t.rows.push_back(std::move(s));
  }
  for (auto& [key, acc] : s_->by_role) {
    LabelStats s = collect::Finish(acc);
    s.label = labels[key.first].name;
    s.kind = s_->role_kind[key];
    s.role = roles->roles[key.second].name;
    t.role_rows.push_back(std::move(s));
  }
  SortRows(t.rows, false, t.roles);
  SortRows(t.role_rows, true, t.roles);
  return t;
}

StatsTable ComputeStats(const Collection& c, const RoleMap* roles) {
  StatsAccumulator acc(roles);
  for (const Interval& iv : c.intervals) acc.Add(iv, c.series[iv.series].clock_hz);
  return std::move(acc).Finish(c.labels);
}

void AddRoleCoverageProblems(const Collection& c, const RoleMap& roles, Diagnostics& diag) {
  std::set<std::pair<CoreKind, uint32_t>> cores;
  for (const SeriesInfo& si : c.series) {
    if (si.kind == CoreKind::kAic || si.kind == CoreKind::kAiv) cores.insert({si.kind, si.core_index});
  }
  const RoleCoverage coverage = CheckRoleCoverage(roles, cores);
  for (const RoleFit& fit : coverage.roles) {
    if (fit.found_cores == 0) {
      diag.Add(Problem::kRoleMatchesNoCore, fmt::format("role '{}' ({}): no such core in the dumps", fit.name,
                                                        fit.declared));
    } else if (!fit.missing.empty()) {
      diag.Add(Problem::kRoleCoresAbsent, fmt::format("role '{}' declares {} but the dumps have no {}", fit.name,
                                                      fit.declared, fit.missing));
    }
  }
  if (!coverage.unassigned.empty()) {
    diag.Add(Problem::kCoreWithoutRole, fmt::format("{}: in the dumps, in no role", coverage.unassigned));
  }
}

namespace {

std::string Us(double v) {
  if (v >= 1e6) return fmt::format("{:.0f}", v);
  if (v >= 100) return fmt::format("{:.1f}", v);
  return fmt::format("{:.2f}", v);
}

void Section(std::string& out, const std::vector<LabelStats>& rows, bool roles) {
  size_t w = 5;
  for (const LabelStats& s : rows) w = std::max(w, s.label.size());
  w = std::min<size_t>(w, 40);
  out += fmt::format("{:<{}}  {:<4} {:>7} {:>11} {:>9} {:>9} {:>9} {:>9} {:>9} {:>11}  {:<28}\n",
                     roles ? "role / label" : "label", w, "core", "count", "total us", "mean", "p50", "p90", "p99",
                     "max", "self us", "per-core total min..max (slowest)");
  std::string last_role;
  for (const LabelStats& s : rows) {
    if (roles && s.role != last_role) {
      out += fmt::format("[{}]\n", s.role);
      last_role = s.role;
    }
    std::string label = s.label.size() > w ? s.label.substr(0, w - 3) + "..." : s.label;
    out += fmt::format("{:<{}}  {:<4} {:>7} {:>11} {:>9} {:>9} {:>9} {:>9} {:>9} {:>11}  {}..{} (rank {} {} {})\n",
                       label, w, CoreKindName(s.kind), s.duration.count, Us(s.duration.total), Us(s.duration.mean),
                       Us(s.duration.p50), Us(s.duration.p90), Us(s.duration.p99), Us(s.duration.max),
                       Us(s.self_total), Us(s.core_total_min), Us(s.core_total_max), s.slowest_rank,
                       CoreKindName(s.kind), s.slowest_core);
  }
}

}  // namespace

std::string FormatStatsTable(const StatsTable& t) {
  std::string out;
  if (t.rows.empty()) return "no intervals\n";
  Section(out, t.rows, false);
  if (!t.role_rows.empty()) {
    out += "\nper role:\n";
    Section(out, t.role_rows, true);
  }
  return out;
}

}  // namespace optrace::collect
