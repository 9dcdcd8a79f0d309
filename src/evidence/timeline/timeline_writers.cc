// Per-core and per-role timeline statistics, and their writers (text, JSON, merged trace).
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "evidence/timeline/timeline.h"

namespace optrace::evidence {
namespace {

using format::CoreKind;
using Intervals = std::vector<std::pair<double, double>>;

bool IsMte(std::string_view p) { return p == "MTE1" || p == "MTE2" || p == "MTE3"; }
bool IsCompute(std::string_view p) { return p == "CUBE" || p == "VECTOR"; }

RoleMap DefaultRoles(const TimelineRun& run) {
  bool aic = false, aiv = false;
  for (const TimelineCore& c : run.cores) (c.kind == CoreKind::kAic ? aic : aiv) = true;
  RoleMap m;
  constexpr uint32_t kAll = std::numeric_limits<uint32_t>::max();
  if (aic) m.roles.push_back(Role{"aic", {RoleRange{CoreKind::kAic, 0, kAll, 0}}});
  if (aiv) m.roles.push_back(Role{"aiv", {RoleRange{CoreKind::kAiv, 0, kAll, 0}}});
  return m;
}

std::string RoleOf(const TimelineRun& run, const RoleMap& roles, size_t core) {
  const TimelineCore& c = run.cores[core];
  const Role* r = roles.Find(c.kind, run.CoreIndex(c));
  return r ? r->name : "";
}

bool PipeLess(const std::string& a, const std::string& b) {
  return std::pair(PipeOrder(a), a) < std::pair(PipeOrder(b), b);
}

std::string Us(double v) { return fmt::format("{:.3f}", v); }

}  // namespace

int PipeOrder(std::string_view pipe) {
  static const std::vector<std::string_view> kOrder = {"SCALAR", "VECTOR", "CUBE", "MTE1", "MTE2", "MTE3", "FIXP"};
  auto it = std::find(kOrder.begin(), kOrder.end(), pipe);
  return it == kOrder.end() ? static_cast<int>(kOrder.size()) : static_cast<int>(it - kOrder.begin());
}

TimelineSummary SummarizeTimeline(const TimelineRun& run, const RoleMap* user_roles) {
  TimelineSummary s;
  s.inputs = run.inputs;
  s.default_roles = user_roles == nullptr;
  RoleMap defaults = DefaultRoles(run);
  const RoleMap& roles = user_roles ? *user_roles : defaults;

  // Events of each (input, core): one CoreTimeline per pair.
  std::map<std::pair<size_t, size_t>, std::vector<const TimelineEvent*>> groups;
  for (const TimelineEvent& e : run.events) groups[{e.input, e.core}].push_back(&e);
  std::map<std::string, IcacheSite> sites;
  for (const auto& [key, events] : groups) {
    const auto [input, core] = key;
    CoreTimeline ct;
    ct.core = run.cores[core].name;
    ct.role = RoleOf(run, roles, core);
    ct.source = run.inputs[input].source;
    ct.input = run.inputs[input].path;
    std::map<std::string, Intervals> by_pipe;
    std::map<std::string, InstrStats> instr;
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const TimelineEvent* e : events) {
      switch (e->kind) {
        case TimelineEventKind::kMark: ++ct.marks; continue;
        case TimelineEventKind::kIcacheMiss: {
          ++ct.icache_misses;
          std::string where = e->location.empty() ? "core " + ct.core : e->location;
          IcacheSite& site = sites[where];
          site.location = where;
          site.has_location = !e->location.empty();
          ++site.count;
          if (std::find(site.cores.begin(), site.cores.end(), ct.core) == site.cores.end()) site.cores.push_back(ct.core);
          continue;
        }
        case TimelineEventKind::kWait: ++ct.waits; break;
        case TimelineEventKind::kInterval: by_pipe[e->pipe].emplace_back(e->ts_us, e->ts_us + e->dur_us); break;
      }
      lo = std::min(lo, e->ts_us), hi = std::max(hi, e->ts_us + e->dur_us);
      if (e->instruction) {
        InstrStats& st = instr[e->pipe];
        st.pipe = e->pipe;
        st.min_us = st.count == 0 ? e->dur_us : std::min(st.min_us, e->dur_us);
        st.max_us = std::max(st.max_us, e->dur_us);
        st.total_us += e->dur_us;
        ++st.count;
      }
    }
    if (hi >= lo) ct.begin_us = lo, ct.end_us = hi;
    Intervals mte, compute;
    for (auto& [pipe, v] : by_pipe) {
      PipeBusy pb{pipe, 0, v.size()};
      Intervals merged = MergeIntervals(v);
      pb.busy_us = TotalLength(merged);
      ct.busy.push_back(pb);
      if (IsMte(pipe)) mte.insert(mte.end(), v.begin(), v.end());
      if (IsCompute(pipe)) compute.insert(compute.end(), v.begin(), v.end());
    }
    std::sort(ct.busy.begin(), ct.busy.end(), [](const PipeBusy& a, const PipeBusy& b) { return PipeLess(a.pipe, b.pipe); });
    Intervals mte_m = MergeIntervals(std::move(mte)), compute_m = MergeIntervals(std::move(compute));
    ct.mte_us = TotalLength(mte_m);
    ct.compute_us = TotalLength(compute_m);
    ct.overlap_us = IntersectionLength(mte_m, compute_m);
    for (auto& [pipe, st] : instr) {
      st.mean_us = st.total_us / static_cast<double>(st.count);
      ct.instructions.push_back(st);
    }
    std::sort(ct.instructions.begin(), ct.instructions.end(),
              [](const InstrStats& a, const InstrStats& b) { return PipeLess(a.pipe, b.pipe); });
    s.cores.push_back(std::move(ct));
  }
  // Cores by source, then kind and index.
  auto core_rank = [&](const std::string& name) {
    for (const TimelineCore& c : run.cores) {
      if (c.name == name) return std::tuple(static_cast<int>(c.kind), run.CoreIndex(c));
    }
    return std::tuple(0, 0u);
  };
  std::stable_sort(s.cores.begin(), s.cores.end(), [&](const CoreTimeline& a, const CoreTimeline& b) {
    return std::tuple(static_cast<int>(a.source), core_rank(a.core)) <
           std::tuple(static_cast<int>(b.source), core_rank(b.core));
  });

  // Roles: per source, the mean over the role's cores.
  for (const Role& role : roles.roles) {
    for (TimelineSource src : {TimelineSource::kPipeTimeline, TimelineSource::kInstrTimeline, TimelineSource::kSimulator,
                               TimelineSource::kCsv}) {
      RoleTimeline rt;
      rt.role = role.name;
      rt.source = src;
      std::map<std::string, double> busy;
      for (const CoreTimeline& ct : s.cores) {
        if (ct.source != src || ct.role != role.name) continue;
        ++rt.cores;
        for (const PipeBusy& pb : ct.busy) busy[pb.pipe] += pb.busy_us;
        rt.mean_mte_us += ct.mte_us, rt.mean_compute_us += ct.compute_us, rt.mean_overlap_us += ct.overlap_us;
        rt.icache_misses += ct.icache_misses;
      }
      if (rt.cores == 0) continue;
      const double n = static_cast<double>(rt.cores);
      for (const auto& [pipe, total] : busy) rt.mean_busy.push_back(PipeBusy{pipe, total / n, 0});
      std::sort(rt.mean_busy.begin(), rt.mean_busy.end(),
                [](const PipeBusy& a, const PipeBusy& b) { return PipeLess(a.pipe, b.pipe); });
      rt.mean_mte_us /= n, rt.mean_compute_us /= n, rt.mean_overlap_us /= n;
      s.roles.push_back(std::move(rt));
    }
  }
  std::set<std::pair<CoreKind, uint32_t>> cores;
  for (const TimelineCore& c : run.cores) cores.insert({c.kind, run.CoreIndex(c)});
  if (user_roles) s.unassigned = CheckRoleCoverage(roles, cores).unassigned;

  for (auto& [where, site] : sites) s.icache.push_back(std::move(site));
  std::stable_sort(s.icache.begin(), s.icache.end(), [](const IcacheSite& a, const IcacheSite& b) {
    return std::pair(-static_cast<int64_t>(a.count), a.location) < std::pair(-static_cast<int64_t>(b.count), b.location);
  });
  return s;
}

void WriteTimelineText(const TimelineSummary& s, std::ostream& out) {
  out << "optrace timeline: " << s.inputs.size() << " input(s), " << s.cores.size() << " core timeline(s)\n";
  for (const TimelineInput& in : s.inputs) {
    out << fmt::format("  {}  {}  {} events\n", in.path, TimelineSourceName(in.source), in.events);
  }
  out << "\nper core (us; busy = union of a pipe's intervals; overlap = MTE1/2/3 busy while CUBE/VECTOR busy)\n";
  for (const CoreTimeline& c : s.cores) {
    out << fmt::format("{} [{}] {}  span {}-{}\n", c.core, c.role.empty() ? "-" : c.role, TimelineSourceName(c.source),
                       Us(c.begin_us), Us(c.end_us));
    std::string busy;
    for (const PipeBusy& b : c.busy) busy += fmt::format("  {} {}", b.pipe, Us(b.busy_us));
    out << "  busy:" << (busy.empty() ? "  (none)" : busy) << "\n";
    out << fmt::format("  MTE {}  compute {}  overlap {}  MTE alone {}\n", Us(c.mte_us), Us(c.compute_us),
                       Us(c.overlap_us), Us(c.mte_us - c.overlap_us));
    for (const InstrStats& i : c.instructions) {
      out << fmt::format("  instr {}: {} x, mean {}, min {}, max {}, total {}\n", i.pipe, i.count, Us(i.mean_us),
                         Us(i.min_us), Us(i.max_us), Us(i.total_us));
    }
    if (c.waits) out << fmt::format("  waits (not busy): {}\n", c.waits);
    if (c.marks) out << fmt::format("  MarkStamps: {}\n", c.marks);
    if (c.icache_misses) out << fmt::format("  ICache misses: {}\n", c.icache_misses);
  }
  out << "\nper role (" << (s.default_roles ? "one per core kind" : "roles file") << "; means over its cores)\n";
  for (const RoleTimeline& r : s.roles) {
    std::string busy;
    for (const PipeBusy& b : r.mean_busy) busy += fmt::format(" {} {}", b.pipe, Us(b.busy_us));
    out << fmt::format("{} {}: {} core(s); busy{}; MTE {} compute {} overlap {}; ICache misses {}\n", r.role,
                       TimelineSourceName(r.source), r.cores, busy, Us(r.mean_mte_us), Us(r.mean_compute_us),
                       Us(r.mean_overlap_us), r.icache_misses);
  }
  if (!s.unassigned.empty()) out << "cores no role claims: " << s.unassigned << "\n";
  if (!s.icache.empty()) {
    out << "\nICache misses by source location (CACHEMISS events)\n";
    for (const IcacheSite& site : s.icache) {
      out << fmt::format("  {:>5}  {}  ({})\n", site.count, site.location, fmt::join(site.cores, ", "));
    }
  }
}

nlohmann::ordered_json TimelineJson(const TimelineSummary& s) {
  using J = nlohmann::ordered_json;
  J j;
  j["schema_version"] = kTimelineSchemaVersion;
  j["kind"] = "optrace.timeline";
  j["time_unit"] = "us";
  J inputs = J::array();
  for (const TimelineInput& in : s.inputs) {
    inputs.push_back({{"path", in.path}, {"source", TimelineSourceName(in.source)}, {"events", in.events},
                      {"ignored", in.ignored}});
  }
  j["inputs"] = inputs;
  j["default_roles"] = s.default_roles;
  J cores = J::array();
  for (const CoreTimeline& c : s.cores) {
    J busy = J::object();
    for (const PipeBusy& b : c.busy) busy[b.pipe] = {{"busy_us", b.busy_us}, {"intervals", b.intervals}};
    J instr = J::object();
    for (const InstrStats& i : c.instructions) {
      instr[i.pipe] = {{"count", i.count}, {"total_us", i.total_us}, {"mean_us", i.mean_us}, {"min_us", i.min_us},
                       {"max_us", i.max_us}};
    }
    cores.push_back({{"core", c.core},
                     {"role", c.role.empty() ? J(nullptr) : J(c.role)},
                     {"source", TimelineSourceName(c.source)},
                     {"input", c.input},
                     {"begin_us", c.begin_us},
                     {"end_us", c.end_us},
                     {"busy", busy},
                     {"mte_us", c.mte_us},
                     {"compute_us", c.compute_us},
                     {"overlap_us", c.overlap_us},
                     {"instructions", instr},
                     {"waits", c.waits},
                     {"marks", c.marks},
                     {"icache_misses", c.icache_misses}});
  }
  j["cores"] = cores;
  J roles = J::array();
  for (const RoleTimeline& r : s.roles) {
    J busy = J::object();
    for (const PipeBusy& b : r.mean_busy) busy[b.pipe] = b.busy_us;
    roles.push_back({{"role", r.role},
                     {"source", TimelineSourceName(r.source)},
                     {"cores", r.cores},
                     {"mean_busy_us", busy},
                     {"mean_mte_us", r.mean_mte_us},
                     {"mean_compute_us", r.mean_compute_us},
                     {"mean_overlap_us", r.mean_overlap_us},
                     {"icache_misses", r.icache_misses}});
  }
  j["roles"] = roles;
  j["unassigned"] = s.unassigned;
  J icache = J::array();
  for (const IcacheSite& site : s.icache) {
    icache.push_back({{"location", site.has_location ? J(site.location) : J(nullptr)},
                      {"core", site.has_location ? J(nullptr) : J(site.location.substr(5))},
                      {"count", site.count},
                      {"cores", site.cores}});
  }
  j["icache_misses"] = icache;
  return j;
}

void WriteMergedTrace(const TimelineRun& run, const RoleMap* user_roles, std::ostream& out) {
  using J = nlohmann::ordered_json;
  RoleMap defaults = DefaultRoles(run);
  const RoleMap& roles = user_roles ? *user_roles : defaults;
  // pid per core in (kind, index) order; tid per (pipe, source) in pipe order.
  std::vector<size_t> order(run.cores.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::pair(static_cast<int>(run.cores[a].kind), run.CoreIndex(run.cores[a])) <
           std::pair(static_cast<int>(run.cores[b].kind), run.CoreIndex(run.cores[b]));
  });
  std::vector<int> pid(run.cores.size());
  J events = J::array();
  for (size_t k = 0; k < order.size(); ++k) {
    const size_t c = order[k];
    pid[c] = static_cast<int>(k + 1);
    std::string role = RoleOf(run, roles, c);
    std::string label = role.empty() ? run.cores[c].name : fmt::format("{} [{}]", run.cores[c].name, role);
    events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", pid[c]}, {"tid", 0}, {"args", {{"name", label}}}});
    events.push_back(
        {{"name", "process_sort_index"}, {"ph", "M"}, {"pid", pid[c]}, {"tid", 0}, {"args", {{"sort_index", k}}}});
  }
  std::map<std::pair<size_t, std::string>, int> tid;  // (core, "MTE2 (InstrTimeline)") -> tid
  std::map<size_t, std::set<std::pair<std::pair<int, std::string>, std::string>>> threads;
  for (const TimelineEvent& e : run.events) {
    threads[e.core].insert({{PipeOrder(e.pipe), e.pipe}, std::string(TimelineSourceName(run.inputs[e.input].source))});
  }
  for (const auto& [core, set] : threads) {
    int t = 1;
    for (const auto& [pipe, src] : set) {
      std::string name = fmt::format("{} ({})", pipe.second, src);
      tid[{core, name}] = t;
      events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", pid[core]}, {"tid", t}, {"args", {{"name", name}}}});
      events.push_back(
          {{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", pid[core]}, {"tid", t}, {"args", {{"sort_index", t}}}});
      ++t;
    }
  }
  for (const TimelineEvent& e : run.events) {
    const TimelineInput& in = run.inputs[e.input];
    int t = tid[{e.core, fmt::format("{} ({})", e.pipe, TimelineSourceName(in.source))}];
    J args = {{"input", in.path}};
    if (!e.pc.empty()) args["pc_addr"] = e.pc;
    if (!e.location.empty()) args["code"] = e.location;
    if (e.kind == TimelineEventKind::kWait) args["wait"] = true;
    if (e.kind == TimelineEventKind::kIcacheMiss || e.kind == TimelineEventKind::kMark) {
      const char* name = e.kind == TimelineEventKind::kIcacheMiss ? "ICache miss" : e.name.c_str();
      events.push_back(
          {{"name", name}, {"ph", "I"}, {"s", "t"}, {"ts", e.ts_us}, {"pid", pid[e.core]}, {"tid", t}, {"args", args}});
    } else {
      events.push_back({{"name", e.name},
                        {"ph", "X"},
                        {"ts", e.ts_us},
                        {"dur", e.dur_us},
                        {"pid", pid[e.core]},
                        {"tid", t},
                        {"args", args}});
    }
  }
  J root;
  root["displayTimeUnit"] = "ns";
  root["otherData"] = {{"generator", "optrace timeline"}, {"schema_version", kTimelineSchemaVersion}};
  root["traceEvents"] = std::move(events);
  out << root.dump(-1, ' ', false, J::error_handler_t::replace) << "\n";
}

}  // namespace optrace::evidence
