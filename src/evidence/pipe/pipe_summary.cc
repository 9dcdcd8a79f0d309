// Grouping per-core metric rows by role and summarising each metric.
#include "evidence/pipe/pipe_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>

namespace optrace::evidence {
namespace {

using format::CoreKind;

std::string_view KindName(CoreKind k) { return k == CoreKind::kAic ? "aic" : "aiv"; }

bool RoleHasKind(const Role& r, CoreKind k) {
  return std::any_of(r.ranges.begin(), r.ranges.end(), [&](const RoleRange& rr) { return rr.kind == k; });
}

// Without a roles file: one role per core kind present, spanning every index.
RoleMap DefaultRoles(const OpprofRun& run) {
  bool aic = false, aiv = false;
  for (const MetricTable& t : run.tables) {
    for (const MetricRow& r : t.rows) (r.kind == CoreKind::kAic ? aic : aiv) = true;
  }
  RoleMap m;
  constexpr uint32_t kAll = std::numeric_limits<uint32_t>::max();
  if (aic) m.roles.push_back(Role{"aic", {RoleRange{CoreKind::kAic, 0, kAll, 0}}});
  if (aiv) m.roles.push_back(Role{"aiv", {RoleRange{CoreKind::kAiv, 0, kAll, 0}}});
  return m;
}

}  // namespace

std::string CompressCores(CoreKind kind, const std::vector<uint32_t>& sorted) {
  return optrace::CompressCores(kind, sorted);
}

ExportCoverage CheckExportCoverage(const OpprofRun& run) {
  ExportCoverage c;
  if (!run.op_info) {
    c.why_not = "no OpBasicInfo.csv among the inputs";
    return c;
  }
  auto number = [&](std::string_view key) -> int64_t {
    std::optional<std::string> v = run.op_info->Get(key);
    if (!v) return -1;
    char* end = nullptr;
    long long n = std::strtoll(v->c_str(), &end, 10);
    return end && *end == '\0' && !v->empty() && n >= 0 ? n : -1;
  };
  c.op_type = run.op_info->Get("Op Type").value_or("");
  c.block_dim = number("Block Dim");
  if (c.block_dim < 0) c.block_dim = number("Block Num");
  c.mix_block_dim = number("Mix Block Dim");
  if (c.mix_block_dim < 0) c.mix_block_dim = number("Mix Block Num");
  if (c.block_dim <= 0) {
    c.why_not = fmt::format("{}: Block Dim is not a positive number", run.op_info->path);
    return c;
  }
  std::string type;
  for (char ch : c.op_type) type += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (type == "mix") {
    c.expected_aic = size_t(c.block_dim);
    c.expected_aiv = c.mix_block_dim > 0 ? size_t(c.mix_block_dim) : size_t(c.block_dim) * run.vectors_per_block;
  } else if (type == "vector" || type == "aiv" || type == "ai_vector_core") {
    c.expected_aiv = size_t(c.block_dim);
  } else if (type == "cube" || type == "aic" || type == "ai_core" || type == "aicore") {
    c.expected_aic = size_t(c.block_dim);
  } else {
    c.why_not = fmt::format("{}: Op Type '{}' does not say which cores Block Dim counts", run.op_info->path,
                            c.op_type);
    return c;
  }
  c.checked = true;
  for (const MetricTable& t : run.tables) {
    std::set<uint32_t> aic, aiv;
    for (const MetricRow& r : t.rows) {
      bool any = std::any_of(r.values.begin(), r.values.end(), [](const auto& v) { return v.has_value(); });
      if (!any) continue;
      (r.kind == CoreKind::kAic ? aic : aiv).insert(run.CoreIndex(r));
    }
    TableCoverage tc;
    tc.table = t.name;
    tc.aic_found = aic.size();
    tc.aiv_found = aiv.size();
    auto gaps = [](CoreKind kind, const std::set<uint32_t>& have, size_t expected, std::vector<std::string>& missing,
                   std::vector<std::string>& extra) {
      std::vector<uint32_t> miss, more;
      for (uint32_t i = 0; i < expected; ++i)
        if (!have.count(i)) miss.push_back(i);
      for (uint32_t i : have)
        if (i >= expected) more.push_back(i);
      if (!miss.empty()) missing.push_back(CompressCores(kind, miss));
      if (!more.empty()) extra.push_back(CompressCores(kind, more));
    };
    std::vector<std::string> missing, extra;
    gaps(CoreKind::kAic, aic, c.expected_aic, missing, extra);
    gaps(CoreKind::kAiv, aiv, c.expected_aiv, missing, extra);
    tc.missing = fmt::format("{}", fmt::join(missing, ", "));
    tc.extra = fmt::format("{}", fmt::join(extra, ", "));
    if (!tc.missing.empty() || !tc.extra.empty()) {
      std::string declared = c.expected_aic && c.expected_aiv
                                 ? fmt::format("{} AIC + {} AIV", c.expected_aic, c.expected_aiv)
                                 : c.expected_aic ? fmt::format("{} AIC", c.expected_aic)
                                                  : fmt::format("{} AIV", c.expected_aiv);
      c.problems.push_back(fmt::format(
          "{}: rows for {} AIC + {} AIV cores, OpBasicInfo.csv declares {} (Op Type {}, Block Dim {}{}){}{}", t.name,
          tc.aic_found, tc.aiv_found, declared, c.op_type, c.block_dim,
          c.mix_block_dim >= 0 ? fmt::format(", Mix Block Dim {}", c.mix_block_dim) : "",
          tc.missing.empty() ? "" : "; missing " + tc.missing, tc.extra.empty() ? "" : "; beyond it " + tc.extra));
    }
    c.tables.push_back(std::move(tc));
  }
  return c;
}

PipeSummary SummarizePipe(const OpprofRun& run, const RoleMap* user_roles) {
  PipeSummary s;
  s.coverage = CheckExportCoverage(run);
  s.inputs = run.inputs;
  s.op = run.op_info;
  s.replay = run.replay;
  s.vectors_per_block = run.vectors_per_block;
  s.default_roles = user_roles == nullptr;
  RoleMap defaults = DefaultRoles(run);
  const RoleMap& roles = user_roles ? *user_roles : defaults;

  // Which cores exist (any table), and which role owns each.
  std::map<std::pair<CoreKind, uint32_t>, const Role*> owner;
  for (const MetricTable& t : run.tables) {
    for (const MetricRow& r : t.rows) owner[{r.kind, run.CoreIndex(r)}] = roles.Find(r.kind, run.CoreIndex(r));
  }
  std::set<std::pair<CoreKind, uint32_t>> cores;
  for (const auto& [core, r] : owner) cores.insert(core);
  const RoleCoverage coverage = CheckRoleCoverage(roles, cores);
  for (size_t i = 0; i < roles.roles.size(); ++i) {
    const RoleFit& fit = coverage.roles[i];
    RoleInfo info;
    info.name = fit.name;
    info.found_cores = fit.found_cores;
    if (s.default_roles) {
      info.declared = fmt::format("all {}", KindName(roles.roles[i].ranges[0].kind));
    } else {
      info.declared = fit.declared;
      info.declared_cores = fit.declared_cores;
      info.missing = fit.missing;
    }
    s.roles.push_back(std::move(info));
  }
  s.unassigned = coverage.unassigned;

  // Tables: known ones (present or not), then unknown ones that were given.
  std::map<std::string, const MetricTable*> by_name;
  for (const MetricTable& t : run.tables) by_name[t.name] = &t;
  std::vector<std::string> order(KnownMetricTables().begin(), KnownMetricTables().end());
  for (const MetricTable& t : run.tables) {
    if (!KnownColumns(t.name)) order.push_back(t.name);
  }
  // Which table provides each metric: the first in `order` whose file has the column, so a
  // known metric in a table of another (or unknown) name is summarised, not "not provided".
  std::map<std::string, const MetricTable*> provider;
  for (const std::string& name : order) {
    auto it = by_name.find(name);
    if (it == by_name.end()) continue;
    for (const std::string& c : it->second->columns) provider.emplace(c, it->second);
  }
  std::set<std::string> seen_metrics;
  auto applies = [&](const Role& role, std::string_view metric) {
    CoreKind k = MetricKind(metric);
    return k == CoreKind::kUnknown || RoleHasKind(role, k);
  };
  auto add_not_provided = [&](const std::string& table, std::string_view metric) {
    MetricEntry e{table, std::string(metric), false, {}};
    for (const Role& role : roles.roles) {
      if (applies(role, metric)) e.per_role.push_back({role.name, std::nullopt, std::string(kNotProvided)});
    }
    s.metrics.push_back(std::move(e));
  };
  for (const std::string& name : order) {
    auto it = by_name.find(name);
    const MetricTable* t = it == by_name.end() ? nullptr : it->second;
    s.tables.emplace_back(name, t ? t->path : "");
    const auto* known = KnownColumns(name);
    auto provided_elsewhere = [&](std::string_view c) { return provider.count(std::string(c)) > 0; };
    if (!t) {
      for (std::string_view c : *known) {
        if (!provided_elsewhere(c) && seen_metrics.insert(std::string(c)).second) add_not_provided(name, c);
      }
      continue;
    }
    for (size_t c = 0; c < t->columns.size(); ++c) {
      const std::string& metric = t->columns[c];
      if (provider[metric] != t || !seen_metrics.insert(metric).second) continue;
      MetricEntry e{name, metric, true, {}};
      for (const Role& role : roles.roles) {
        if (!applies(role, metric)) continue;
        RoleValue rv{role.name, std::nullopt, ""};
        MetricSummary m;
        double sum = 0;
        size_t rows_of_role = 0;
        for (const MetricRow& r : t->rows) {
          if (owner[{r.kind, run.CoreIndex(r)}] != &role) continue;
          CoreKind mk = MetricKind(metric);
          if (mk != CoreKind::kUnknown && mk != r.kind) continue;
          ++rows_of_role;
          if (!r.values[c]) continue;
          double v = *r.values[c];
          if (m.samples == 0 || v < m.min) m.min = v;
          if (m.samples == 0 || v > m.max) m.max = v, m.max_core = fmt::format("{} {}", KindName(r.kind), run.CoreIndex(r));
          sum += v;
          ++m.samples;
        }
        if (m.samples > 0) {
          m.mean = sum / static_cast<double>(m.samples);
          m.spread = m.max - m.min;
          rv.summary = m;
        } else {
          rv.reason = rows_of_role == 0 ? "no cores of this role in the export" : "no values (NA in every row)";
        }
        e.per_role.push_back(std::move(rv));
      }
      s.metrics.push_back(std::move(e));
    }
    if (known) {  // known columns this export lacks (Ascend 950 drops some)
      for (std::string_view c : *known) {
        if (!provided_elsewhere(c) && seen_metrics.insert(std::string(c)).second) add_not_provided(name, c);
      }
    }
  }
  for (const MetricTable& t : run.tables) {
    bool yields = std::any_of(s.metrics.begin(), s.metrics.end(), [&](const MetricEntry& m) {
      return m.provided && provider[m.name] == &t;
    });
    if (!yields) s.tables_without_metrics.push_back(t.path);
  }
  return s;
}

Status CheckEveryTableYields(const PipeSummary& s) {
  if (s.tables_without_metrics.empty()) return Status::Ok();
  return BadInputError("{}: yields no metric: each of its columns is already taken from another input of this run; "
                       "expected an msprof op metric CSV with its own columns (PipeUtilization.csv, Memory.csv, "
                       "L2Cache.csv, ...); leave it out or pass it as a separate run with --compare",
                       s.tables_without_metrics.front());
}

std::vector<MetricDelta> ComparePipe(const PipeSummary& base, const PipeSummary& compare) {
  std::map<std::pair<std::string, std::string>, const RoleValue*> other;
  for (const MetricEntry& m : compare.metrics) {
    for (const RoleValue& rv : m.per_role) other[{m.name, rv.role}] = &rv;
  }
  std::vector<MetricDelta> out;
  for (const MetricEntry& m : base.metrics) {
    for (const RoleValue& rv : m.per_role) {
      MetricDelta d{m.table, m.name, rv.role, std::nullopt, std::nullopt, std::nullopt, std::nullopt, ""};
      if (rv.summary) d.base_mean = rv.summary->mean;
      auto it = other.find({m.name, rv.role});
      if (it != other.end() && it->second->summary) d.compare_mean = it->second->summary->mean;
      if (d.base_mean && d.compare_mean) {
        d.delta = *d.compare_mean - *d.base_mean;
        if (*d.base_mean != 0) d.delta_pct = 100.0 * *d.delta / *d.base_mean;
      } else if (!d.base_mean && !d.compare_mean) {
        d.reason = rv.reason.empty() ? "no value in either run" : rv.reason + " in either run";
      } else if (!d.base_mean) {
        d.reason = "base: " + (rv.reason.empty() ? std::string(kNotProvided) : rv.reason);
      } else {
        d.reason = "compare: " + (it == other.end() ? std::string("role or metric absent") : it->second->reason);
      }
      out.push_back(std::move(d));
    }
  }
  return out;
}

}  // namespace optrace::evidence
