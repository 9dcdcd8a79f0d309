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

// The durations of one row, for its percentiles: ticks of one clock while they fit, 16-bit until
// one needs more, then 32-bit (a 50 MHz core's intervals up to 1.3 ms take two bytes; collect's
// streamed path holds nothing else per interval), in fixed chunks (no doubling slack, no copy as
// it grows); doubles once one does not fit 32 bits or a second clock comes. Values() makes each
// double as Add's caller did: ticks * scale.
class DurationList {
 public:
  void Add(int64_t ticks, double scale, double us) {
    if (doubles_.empty() && ticks >= 0 && ticks <= int64_t{UINT32_MAX} && (count_ == 0 || scale == scale_)) {
      scale_ = scale;
      if (ticks > UINT16_MAX && wide_.empty() && count_ > 0) Widen();
      if (!wide_.empty() || ticks > UINT16_MAX) {
        Put(wide_, static_cast<uint32_t>(ticks));
      } else {
        Put(narrow_, static_cast<uint16_t>(ticks));
      }
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
    for (size_t i = 0; i < count_; ++i) out.push_back(static_cast<double>(Ticks(i)) * scale_);
    narrow_.clear();
    wide_.clear();
    count_ = 0;
    return out;
  }

 private:
  static constexpr size_t kChunk = 4096;
  template <typename T>
  using Chunks = std::vector<std::unique_ptr<T[]>>;

  template <typename T>
  void Put(Chunks<T>& chunks, T v) {
    if (count_ % kChunk == 0) chunks.emplace_back(new T[kChunk]);
    chunks.back()[count_ % kChunk] = v;
    ++count_;
  }
  uint32_t Ticks(size_t i) const {
    return wide_.empty() ? narrow_[i / kChunk][i % kChunk] : wide_[i / kChunk][i % kChunk];
  }
  // The first value past 16 bits: every one so far moves to 32-bit chunks, once.
  void Widen() {
    const size_t n = count_;
    Chunks<uint16_t> narrow = std::move(narrow_);
    narrow_.clear();
    count_ = 0;
    for (size_t i = 0; i < n; ++i) {
      Put(wide_, static_cast<uint32_t>(narrow[i / kChunk][i % kChunk]));
      if ((i + 1) % kChunk == 0) narrow[i / kChunk].reset();  // freed as soon as copied
    }
  }

  Chunks<uint16_t> narrow_;
  Chunks<uint32_t> wide_;
  size_t count_ = 0;
  double scale_ = 0;
  std::vector<double> doubles_;
};

// The spread of one row across (rank, core)s: how many, the smallest and largest total, the
// slowest. A row of one core kind meets each core's intervals in one run (the collection's order:
// rank, kind, core), so it keeps only the running core's total and the spread so far (kRuns); a
// row of a role can meet a core index again (a role spanning AIC and AIV cores of the same index:
// totals are per (rank, core index)), so it keeps every core's total sorted by (rank, core), and
// finds a core seen again by binary search (kTable). Either way the totals are summed in arrival
// order and compared in (rank, core) order: the same values to the last bit.
class CoreSpread {
 public:
  enum class Mode { kRuns, kTable };
  explicit CoreSpread(Mode mode) : mode_(mode) {}

  // The running total of (rank, core); valid until the next call.
  double& At(int32_t rank, uint32_t core) {
    if (current_ < entries_.size() && entries_[current_].rank == rank && entries_[current_].core == core) {
      return entries_[current_].total;
    }
    const Entry fresh{rank, core, 0};
    if (mode_ == Mode::kRuns) {
      if (!entries_.empty()) Fold(entries_[0]);
      entries_.assign(1, fresh);  // the core before is done with
      current_ = 0;
    } else if (entries_.empty() || Before(entries_.back(), fresh)) {
      entries_.push_back(fresh);  // the usual case: cores come in order
      current_ = entries_.size() - 1;
    } else {
      auto it = std::lower_bound(entries_.begin(), entries_.end(), fresh, Before);
      if (it == entries_.end() || Before(fresh, *it)) it = entries_.insert(it, fresh);
      current_ = static_cast<size_t>(it - entries_.begin());
    }
    return entries_[current_].total;
  }

  // Fills cores, core_total_min / max and the slowest core.
  void Finish(LabelStats& s) {
    for (const Entry& e : entries_) Fold(e);
    entries_.clear();
    s.cores = cores_;
    s.core_total_min = min_;
    s.core_total_max = max_;
    s.slowest_rank = slowest_rank_;
    s.slowest_core = slowest_core_;
  }

 private:
  struct Entry {
    int32_t rank;
    uint32_t core;
    double total;
  };
  static bool Before(const Entry& a, const Entry& b) { return std::tie(a.rank, a.core) < std::tie(b.rank, b.core); }
  void Fold(const Entry& e) {
    if (cores_ == 0 || e.total < min_) min_ = e.total;
    if (cores_ == 0 || e.total > max_) {
      max_ = e.total;
      slowest_rank_ = e.rank;
      slowest_core_ = e.core;
    }
    ++cores_;
  }

  Mode mode_;
  std::vector<Entry> entries_;  // kRuns: the running core only; kTable: every core, sorted
  size_t current_ = SIZE_MAX;   // the entry the last At() returned
  size_t cores_ = 0;            // folded so far
  double min_ = 0, max_ = 0;
  int32_t slowest_rank_ = 0;
  uint32_t slowest_core_ = 0;
};

struct Acc {
  explicit Acc(CoreSpread::Mode mode) : spread(mode) {}
  DurationList durations;
  double self_total = 0;
  CoreSpread spread;  // (rank, core) -> total us
};

LabelStats Finish(Acc& a) {
  LabelStats s;
  s.self_total = a.self_total;
  std::vector<double> durations = std::move(a.durations).Values();
  s.duration = Summarize(durations);
  s.self_mean = s.duration.count ? a.self_total / static_cast<double>(s.duration.count) : 0;
  a.spread.Finish(s);
  return s;
}

void Add(Acc& a, const Interval& iv, double hz) {
  const double scale = hz > 0 ? 1e6 / hz : 0;
  const int64_t ticks = iv.end_ticks - iv.begin_ticks;
  const double d = static_cast<double>(ticks) * scale;
  a.durations.Add(ticks, scale, d);
  a.self_total += static_cast<double>(iv.self_ticks) * scale;
  a.spread.At(iv.rank, iv.core_index) += d;
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
  collect::Add(s_->by_kind.try_emplace({iv.label, iv.kind}, CoreSpread::Mode::kRuns).first->second, iv, hz);
  if (s_->roles) {
    if (const Role* r = s_->roles->Find(iv.kind, iv.core_index)) {
      size_t idx = static_cast<size_t>(r - s_->roles->roles.data());
      collect::Add(s_->by_role.try_emplace({iv.label, idx}, CoreSpread::Mode::kTable).first->second, iv, hz);
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
  auto by_core = [](const Interval& a, const Interval& b) {
    return std::tie(a.rank, a.kind, a.core_index) < std::tie(b.rank, b.kind, b.core_index);
  };
  if (std::is_sorted(c.intervals.begin(), c.intervals.end(), by_core)) {
    for (const Interval& iv : c.intervals) acc.Add(iv, c.series[iv.series].clock_hz);
  } else {
    // A collection built by hand, not by Collect: visited in the collection's order, each core's
    // own order kept, as StatsAccumulator needs.
    std::vector<uint32_t> order(c.intervals.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return by_core(c.intervals[a], c.intervals[b]); });
    for (uint32_t i : order) acc.Add(c.intervals[i], c.series[c.intervals[i].series].clock_hz);
  }
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
